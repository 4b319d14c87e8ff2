"""Evaluate runs too large for one process with Dask: the same kernels, per partition.

:func:`evaluate` puts the qrels and the run into one Dask DataFrame, shuffles it so
that every row of a query lands in the same partition (a hash of ``query_id``), and
applies :func:`rankeval.evaluate` (through ``rankeval.distributed.partition.evaluate_partition``)
to each partition. The result is a Dask DataFrame of per-query values, identical to
what ``rankeval.evaluate`` returns for the whole input at once; :func:`means` turns it
into the per-measure means over queries.

It runs on whatever Dask scheduler is active: the threaded default, a
``dask.distributed.LocalCluster`` on one machine, or a cluster of many (create a
``dask.distributed.Client`` for it first; nothing else changes).

Install Dask with ``pip install "dask[dataframe]" distributed`` (or install rankeval
with its ``dask`` extra); ``import rankeval`` does not import Dask.

Chapter: :doc:`/chapters/20_evaluating_at_scale`.
"""

from __future__ import annotations

import glob as _glob
import os

import numpy as np

from ..evaluation.aggregate import GM_FLOOR, from_totals, kinds
from .partition import (
    COLUMNS,
    check_columns,
    check_id_types,
    check_partitions,
    evaluate_partition,
    result_columns,
    value_column,
)

__all__ = ["evaluate", "means", "read"]


def _require():
    try:
        import dask.dataframe as dd
    except ImportError as err:  # pragma: no cover - depends on the installation
        raise ImportError(
            'rankeval.dask needs Dask: pip install "dask[dataframe]" distributed'
        ) from err
    return dd


def _paths(source):
    if isinstance(source, (list, tuple)):
        out = []
        for item in source:
            out.extend(_paths(item))
        return out
    text = os.fspath(source)
    found = sorted(_glob.glob(text)) if any(c in text for c in "*?[") else [text]
    if not found:
        raise ValueError(f"no file matches {text!r}")
    return found


def _read_trec(path, kind):
    from ..io.canonical import qrels_table, run_table

    table = (qrels_table if kind == "qrels" else run_table)(path)
    return table.to_pandas()


def read(source, kind):
    """Read TREC or Parquet files (paths or globs) into a Dask DataFrame.

    Parameters
    ----------
    source : str, os.PathLike or list of them
        Paths or glob patterns. Files ending in ``.parquet`` (or directories) are
        read with ``dask.dataframe.read_parquet`` and must have the columns
        ``query_id``, ``doc_id`` and ``relevance`` (qrels) or ``score`` (run); any
        other file is read as a TREC file by :func:`rankeval.read_qrels` /
        :func:`rankeval.read_run`'s parser, one partition per file.
    kind : {"qrels", "run"}
        Which kind of file.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``query_id``, ``doc_id`` and ``relevance`` or ``score``.
    """
    dd = _require()
    if kind not in ("qrels", "run"):
        raise ValueError(f"kind must be 'qrels' or 'run', got {kind!r}")
    value = value_column(kind)
    paths = _paths(source)
    parquet = [p for p in paths if p.endswith(".parquet") or os.path.isdir(p)]
    if parquet and len(parquet) != len(paths):
        raise ValueError("give either Parquet files or TREC files, not both in one call")
    if parquet:
        return dd.read_parquet(parquet, columns=["query_id", "doc_id", value])
    from dask import delayed

    parts = [delayed(_read_trec)(p, kind) for p in paths]
    meta = _read_trec(paths[0], kind).iloc[:0]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def _frame(data, kind):
    """A Dask DataFrame with the canonical columns, from a frame, path(s) or glob."""
    dd = _require()
    value = value_column(kind)
    if isinstance(data, dd.DataFrame):
        check_columns(data.columns, kind, "Dask DataFrame")
        return data[["query_id", "doc_id", value]]
    if isinstance(data, (str, os.PathLike, list, tuple)):
        return read(data, kind)
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        check_columns(data.columns, kind, "DataFrame")
        return dd.from_pandas(data[["query_id", "doc_id", value]], npartitions=1, sort=False)
    raise TypeError(
        f"{kind} must be a Dask DataFrame, a pandas DataFrame, or paths/globs of TREC or "
        f"Parquet files, got {type(data).__name__}"
    )


def evaluate(qrels, run, measures, *, npartitions=None, **conventions):
    """Per-query values of a run, computed partition by partition with Dask.

    Parameters
    ----------
    qrels, run : dask.dataframe.DataFrame, pandas.DataFrame, str or list of str
        Judgments (columns ``query_id``, ``doc_id``, ``relevance``) and scored
        documents (``query_id``, ``doc_id``, ``score``), or paths/globs of TREC or
        Parquet files (see :func:`read`). The id columns of both must have one
        type (strings, or integers on both sides).
    measures : str or list of str
        Measure names, as for :func:`rankeval.evaluate`.
    npartitions : int, optional
        Partitions after the shuffle by query id; default: as many as the larger
        input has. More partitions than queries is allowed (some are empty).
    **conventions
        Keyword arguments of :func:`rankeval.evaluate` (``threshold``, ``ties``,
        ``missing``, ``judged_only``, ...), applied in every partition.

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy; column ``query_id`` and one float column per measure, one row per
        query. ``.compute()`` gives a pandas DataFrame whose values equal
        ``rankeval.evaluate(qrels, run, measures, **conventions)`` row for row
        (rows in partition order; sort by ``query_id`` to compare).

    Notes
    -----
    The shuffle is the only step that moves data between workers; everything else
    runs where a partition lives. With ``ties="input"``, each run row's position in
    the input is computed first (a cumulative count over the partitions) and carried
    through the shuffle, so ties are broken in input order as ``rankeval.evaluate``
    breaks them. Since every query is scored inside a single
    partition, a measure's value cannot depend on how the data was split.

    Chapter: :doc:`/chapters/20_evaluating_at_scale`.

    Examples
    --------
    >>> import pandas as pd
    >>> import rankeval.dask
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "x"],
    ...                       "relevance": [1, 1]})
    >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2"],
    ...                     "doc_id": ["a", "b", "y"], "score": [0.5, 0.9, 1.0]})
    >>> per_query = rankeval.dask.evaluate(qrels, run, ["RR", "P@1"], npartitions=2)
    >>> per_query.compute().sort_values("query_id").reset_index(drop=True)
      query_id   RR  P@1
    0       q1  0.5  0.0
    1       q2  0.0  0.0
    >>> rankeval.dask.means(per_query)
    RR     0.25
    P@1    0.00
    dtype: float64
    """
    dd = _require()
    import pandas as pd

    if "columns" in conventions:  # evaluate's columns= renames frames; here, rename them
        raise TypeError(
            "columns= is not taken here: give the frames the columns query_id, doc_id and "
            "relevance (qrels) or score (run), e.g. with .rename(columns={...})"
        )
    labels = result_columns(measures)
    q = _frame(qrels, "qrels")
    r = _frame(run, "run")
    check_id_types(q.dtypes, r.dtypes)
    q = q.assign(relevance=q["relevance"].astype("float64"), score=np.float64(np.nan))
    r = r.assign(score=r["score"].astype("float64"), relevance=np.float64(np.nan))
    columns = list(COLUMNS)
    if conventions.get("ties") == "input":  # the shuffle loses the input order: keep it
        q = q.assign(order=np.int64(-1))
        r = r.assign(order=np.int64(1))
        r = r.assign(order=r["order"].cumsum() - 1)
        columns.append("order")
    both = dd.concat([q[columns], r[columns]], ignore_unknown_divisions=True)
    if npartitions is None:
        npartitions = max(q.npartitions, r.npartitions)
    npartitions = check_partitions(npartitions, "npartitions")
    shuffled = both.shuffle(on="query_id", npartitions=npartitions)
    meta = pd.DataFrame({"query_id": pd.Series([], dtype=both["query_id"].dtype)})
    for label in labels:
        meta[label] = pd.Series([], dtype=np.float64)
    return shuffled.map_partitions(
        _score_partition, measures, both["query_id"].dtype, conventions,
        meta=meta, align_dataframes=False,
    )


def _score_partition(part, measures, id_dtype, conventions):
    """evaluate_partition, with the query ids in the dtype the Dask meta promises."""
    out = evaluate_partition(part, measures, **conventions)
    out["query_id"] = out["query_id"].astype(id_dtype)
    return out


def means(per_query):
    """Mean of every measure over queries (counts such as NumRet are summed), by
    :func:`rankeval.aggregate`'s rule: a NaN in a column makes its mean NaN.

    Parameters
    ----------
    per_query : dask.dataframe.DataFrame or pandas.DataFrame
        The result of :func:`evaluate`.

    Returns
    -------
    pandas.Series
        One value per measure column.
    """
    frame = per_query.drop(columns="query_id")
    geometric = [label for label, kind in zip(frame.columns, kinds(frame.columns), strict=True)
                 if kind == "gmean"]  # fmt: skip
    if geometric:  # trec_eval's geometric mean: aggregate's totals of the floored logs
        frame = frame.assign(**{
            label: np.log(frame[label].clip(lower=GM_FLOOR)) for label in geometric
        })  # fmt: skip
    sums = frame.sum(skipna=False)  # per partition, then added up: aggregate's totals
    counts = frame.isna().astype("float64").count()  # rows, NaN or not
    if hasattr(sums, "compute"):
        sums, counts = sums.compute(), counts.compute()
    return from_totals(sums.astype("float64"), counts.astype("float64"))
