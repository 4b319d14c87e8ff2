"""Evaluate runs too large for one process with Dask: the same kernels, per partition.

:func:`evaluate` puts the qrels and the run into one Dask DataFrame, shuffles it so
that every row of a query lands in the same partition (a hash of ``query_id``), and
applies :func:`rankeval.evaluate` (through ``rankeval.distributed.partition.evaluate_partition``)
to each partition. A TREC file is read in blocks of ``blocksize`` bytes cut at line
ends, one partition per block, each parsed by rankeval's own TREC reader
(:func:`read`); the conventions are resolved once, on the driver, into one
:class:`~rankeval.Conventions` that every partition receives. The result is a Dask DataFrame of per-query values, identical to
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
import io
import os
import re
import stat

import numpy as np

from ..evaluation.aggregate import GM_FLOOR, from_totals
from .partition import (
    COLUMNS,
    check_id_types,
    check_partitions,
    column_kinds,
    column_names,
    driver_plan,
    evaluate_partition,
    no_rows,
    run_gives_positions,
    value_column,
)

__all__ = ["evaluate", "means", "read"]

#: Bytes per partition of a TREC file (as ``dask.dataframe.read_csv``'s ``blocksize``).
#: A run line takes about 35 bytes, so a run of a million lines is about 35 MB: three
#: partitions, where read_csv's 64 MB would make it one (nothing parsed or scored in
#: parallel). A block's frame takes about as much memory as its text (Arrow strings).
BLOCKSIZE = "16MB"
# The first bytes of gzip, xz and bzip2 files: such a file is read whole (one partition)
_COMPRESSED = (b"\x1f\x8b", b"\xfd7zXZ\x00", b"BZh")


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


def _blocksize(blocksize):
    """Bytes per block (an int, or a text such as ``"64MB"``), or None: whole files."""
    if blocksize is None:
        return None
    if isinstance(blocksize, str):
        from dask.utils import parse_bytes

        blocksize = parse_bytes(blocksize)
    if isinstance(blocksize, bool) or not isinstance(blocksize, (int, np.integer)) or (
        blocksize < 1
    ):
        raise ValueError(
            f"blocksize must be a positive number of bytes (or a text such as '64MB'), or "
            f"None, got {blocksize!r}"
        )
    return int(blocksize)


def _offsets(path, blocksize):
    """Byte offsets of a TREC file's blocks: ``[0]`` (read whole) for a file smaller than
    a block, a compressed file, or anything but a regular file (a pipe)."""
    info = os.stat(path)  # a missing file: FileNotFoundError now, not when computed
    if blocksize is None or not stat.S_ISREG(info.st_mode) or info.st_size <= blocksize:
        return [0]
    with open(path, "rb") as f:
        if f.read(6).startswith(_COMPRESSED):
            return [0]
    n = -(-info.st_size // blocksize)  # blocks of at most blocksize bytes, of even sizes
    return [info.st_size * i // n for i in range(n)]


def _empty(kind):
    """The pandas frame of a TREC block without lines (and the Dask meta)."""
    import pyarrow as pa

    return pa.table({"query_id": pa.array([], pa.string()), "doc_id": pa.array([], pa.string()),
                     value_column(kind): pa.array([], pa.float64())}).to_pandas()  # fmt: skip


def _lines_before(path, offset):
    """How many lines the TREC reader counts before the block that starts at the first
    line end at or after ``offset`` (a line ends at LF, CRLF, or a lone CR)."""
    from fsspec.utils import seek_delimiter

    with open(path, "rb") as f:
        f.seek(offset)
        seek_delimiter(f, b"\n", 1 << 16)
        left = f.tell()
        f.seek(0)
        count, last = 0, b""
        while left:
            chunk = f.read(min(left, 1 << 24))
            if not chunk:
                break
            left -= len(chunk)
            count += chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n")
            if last == b"\r" and chunk[:1] == b"\n":
                count -= 1  # a CRLF cut between two chunks
            last = chunk[-1:]
    return count


def _read_block(path, kind, offset, length):
    """One partition: the lines of ``path`` after the first line feed at or after byte
    ``offset`` (from the start when it is 0) through the first line feed at or after byte
    ``offset + length`` (fsspec's ``read_block``, as Dask's ``read_bytes`` cuts blocks),
    or the whole file when ``length`` is None; parsed by rankeval's TREC reader. Every
    line is in exactly one block."""
    from ..io.trec import read_table

    if length is None:
        return read_table(path, kind).to_pandas()
    from fsspec.utils import read_block

    with open(path, "rb") as f:
        data = read_block(f, offset, length, delimiter=b"\n")
    name = os.fsdecode(path)
    block = io.BytesIO(data)
    block.name = name  # the reader's messages name the file
    try:
        table = read_table(block, kind)
    except ValueError as error:
        message = str(error)
        if message.startswith(f"{name}: the ") and message.endswith("file holds no lines"):
            return _empty(kind)  # a block of blank lines and comments, in a larger file
        found = re.match(r"(lines?) (\d+)(?: and (\d+))?:", message[len(name) + 2:])
        if not offset or not message.startswith(f"{name}, ") or not found:
            raise
        before = _lines_before(path, offset)  # the numbers count from the block's start
        lines = " and ".join(str(int(n) + before) for n in found.groups()[1:] if n)
        rest = message[len(name) + 2 + found.end():]
        raise ValueError(f"{name}, {found.group(1)} {lines}:{rest}") from None
    return table.to_pandas()


def read(source, kind, *, blocksize=BLOCKSIZE, columns=None):
    """Read TREC or Parquet files (paths or globs) into a Dask DataFrame.

    Parameters
    ----------
    source : str, os.PathLike or list of them
        Paths or glob patterns. Files ending in ``.parquet`` (or directories) are
        read with ``dask.dataframe.read_parquet``; any other file is read as a TREC
        file by the parser of :func:`rankeval.read_qrels` / :func:`rankeval.read_run`,
        in blocks of ``blocksize`` bytes cut at line ends, one partition per block.
    kind : {"qrels", "run"}
        Which kind of file.
    blocksize : int, str or None, default="16MB"
        Bytes per partition of a TREC file (an int, or a text such as ``"64MB"``),
        as ``dask.dataframe.read_csv`` takes it (about 450,000 run lines per 16 MB); None reads each file as one
        partition. A compressed file (gzip, bzip2, xz) is always read whole.
    columns : dict, optional
        Column names of Parquet files, canonical -> yours, as for
        :func:`rankeval.evaluate` (TREC files have fixed fields).

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``query_id``, ``doc_id`` and ``relevance`` or ``score``.

    Notes
    -----
    Every block is parsed by the same reader, with the same rules and messages, as a
    whole file is: an error names the file and the line, numbered from the file's
    start (the lines before the block are counted only when a block fails). A
    document listed twice for one query is reported with its two lines when both
    lines fall in one block; across blocks, the evaluation that follows refuses it
    (naming the query and the document, not the lines). A file of several blocks
    whose every line is blank or a comment gives no rows, where the whole-file
    reader says that the file holds no lines.

    Examples
    --------
    >>> import os, tempfile
    >>> import rankeval.dask
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> lines = [f"q{i // 10} Q0 d{i} 0 {i / 7:.3f} bm25\\n" for i in range(100)]
    >>> with open(path, "w") as f:
    ...     _ = f.writelines(lines)
    >>> run = rankeval.dask.read(path, "run", blocksize=1000)
    >>> run.npartitions
    3
    >>> frame = run.compute()
    >>> len(frame), frame["query_id"].nunique()
    (100, 10)
    """
    dd = _require()
    if kind not in ("qrels", "run"):
        raise ValueError(f"kind must be 'qrels' or 'run', got {kind!r}")
    size = _blocksize(blocksize)
    paths = _paths(source)
    parquet = [p for p in paths if p.endswith(".parquet") or os.path.isdir(p)]
    if parquet and len(parquet) != len(paths):
        raise ValueError("give either Parquet files or TREC files, not both in one call")
    if parquet:
        return _canonical(dd.read_parquet(parquet), kind, columns, "Parquet file")
    from dask import delayed

    parts = []
    for path in paths:
        offsets = _offsets(path, size)
        if len(offsets) == 1:  # the whole file
            parts.append(delayed(_read_block)(path, kind, 0, None))
            continue
        ends = [*offsets[1:], os.stat(path).st_size]
        parts.extend(delayed(_read_block)(path, kind, start, end - start)
                     for start, end in zip(offsets, ends, strict=True))  # fmt: skip
    return dd.from_delayed(parts, meta=_empty(kind), verify_meta=False)


def _canonical(frame, kind, columns, what):
    """The frame's query_id, doc_id and value columns under their canonical names (a
    run's rank becomes the score minus the rank, as :func:`rankeval.evaluate` reads it)."""
    names = column_names(columns, kind, frame.columns, what)
    out = frame[list(names.values())]
    out.columns = list(names)
    if "rank" in names:
        out = out.assign(score=-out["rank"].astype("float64"))[["query_id", "doc_id", "score"]]
    return out


def _frame(data, kind, columns, blocksize):
    """A Dask DataFrame with the canonical columns, from a frame, path(s) or glob."""
    dd = _require()
    if isinstance(data, dd.DataFrame):
        return _canonical(data, kind, columns, "Dask DataFrame")
    if isinstance(data, (str, os.PathLike, list, tuple)):
        return read(data, kind, blocksize=blocksize, columns=columns)
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        frame = _canonical(data, kind, columns, "DataFrame")
        return dd.from_pandas(frame, npartitions=1, sort=False)
    raise TypeError(
        f"{kind} must be a Dask DataFrame, a pandas DataFrame, or paths/globs of TREC or "
        f"Parquet files, got {type(data).__name__}"
    )


def evaluate(qrels, run, measures, *, npartitions=None, blocksize=BLOCKSIZE, columns=None,
             conventions=None, **options):  # fmt: skip
    """Per-query values of a run, computed partition by partition with Dask.

    Parameters
    ----------
    qrels, run : dask.dataframe.DataFrame, pandas.DataFrame, str or list of str
        Judgments (columns ``query_id``, ``doc_id``, ``relevance``) and scored
        documents (``query_id``, ``doc_id``, ``score``, or ``rank``), or paths/globs
        of TREC or Parquet files (see :func:`read`). The id columns of both must have
        one type (strings, or integers on both sides).
    measures : str or list of str
        Measure names, as for :func:`rankeval.evaluate`.
    npartitions : int, optional
        Partitions after the shuffle by query id; default: as many as the larger
        input has. More partitions than queries is allowed (some are empty).
    blocksize : int, str or None, default="16MB"
        Bytes per partition of a TREC file (see :func:`read`).
    columns : dict, optional
        Column names of the frames (and Parquet files), canonical -> yours, one
        mapping for both, as for :func:`rankeval.evaluate`: ``{"query_id": "user",
        "doc_id": "item", "score": "pred", "relevance": "rating"}``. The result's
        query column takes your name, as ``evaluate``'s index does.
    conventions : str or Conventions, optional
        A preset (``"trec_eval"``, ``"pytrec_eval"``, ``"sklearn"``,
        ``"lightgbm"``, ``"xgboost"``) or a :class:`~rankeval.Conventions`, as for
        :func:`rankeval.evaluate`.
    **options
        The other conventions of :func:`rankeval.evaluate` (``threshold``,
        ``ties``, ``ideal``, ``missing``, ``judged_only``, ``score_precision``,
        ``grades``, ``max_docs``), applied over ``conventions``.

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy; column ``query_id`` (or your name of it) and one column per measure,
        one row per query. ``.compute()`` gives a pandas DataFrame whose values
        equal ``rankeval.evaluate(qrels, run, measures, ...)`` row for row, to the
        last bit (rows in partition order; sort by the query column to compare).

    Raises
    ------
    TypeError
        An input of another type, or a keyword argument that is no convention.
    ValueError
        A bad convention or measure name (at once); a malformed file, naming the file
        and the line (when computed).

    Notes
    -----
    The conventions are resolved once, here, into one frozen
    :class:`~rankeval.Conventions` (the preset, and the keyword arguments that differ
    from their defaults over it), and that object is what every partition receives:
    ``conventions="lightgbm"`` breaks ties by input order exactly as ``ties="input"``
    does, and ``missing="zero"`` (given either way) scores the judged queries that
    the run lacks, in whichever partition their judgments land. The shuffle is the
    only step that moves data between workers. With ties broken by input order, each
    run row's position in the input (file blocks and frame partitions in order) is
    computed first, a cumulative count, and carried through the shuffle. Since every
    query is scored inside a single partition, a value cannot depend on the split.

    ``missing=None`` (the default) is settled here, from the run's form as
    :func:`rankeval.evaluate` settles it: a frame with a ``rank`` column and no
    ``score`` counts every judged query (``"zero"``), any other run skips the judged
    queries it lacks (``"skip"``, trec_eval's rule). Unlike :func:`rankeval.evaluate`,
    no warning gives their number (no single process sees every query before the
    computation): pass ``missing="zero"`` or ``"skip"`` to say which you mean, and
    compare the result's length with the number of judged queries.

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

    # once, on the driver; missing=None made explicit from the run's form
    plan = driver_plan(measures, conventions, options, run_gives_positions(run, columns),
                       "rankeval.dask.evaluate")  # fmt: skip
    labels = plan.labels
    blocksize = _blocksize(blocksize)
    q = _frame(qrels, "qrels", columns, blocksize)
    r = _frame(run, "run", columns, blocksize)
    check_id_types(q.dtypes, r.dtypes)
    q = q.assign(relevance=q["relevance"].astype("float64"), score=np.float64(np.nan))
    r = r.assign(score=r["score"].astype("float64"), relevance=np.float64(np.nan))
    ordered = list(COLUMNS)
    if plan.conventions.ties == "input":  # the shuffle loses the input order: keep it
        q = q.assign(order=np.int64(-1))
        r = r.assign(order=np.int64(1))
        r = r.assign(order=r["order"].cumsum() - 1)
        ordered.append("order")
    both = dd.concat([q[ordered], r[ordered]], ignore_unknown_divisions=True)
    if npartitions is None:
        npartitions = max(q.npartitions, r.npartitions)
    npartitions = check_partitions(npartitions, "npartitions")
    shuffled = both.shuffle(on="query_id", npartitions=npartitions)
    name = (columns or {}).get("query_id", "query_id")
    meta = pd.DataFrame({name: pd.Series([], dtype=both["query_id"].dtype)})
    for label in labels:
        meta[label] = pd.Series([], dtype=np.float64)
    return shuffled.map_partitions(
        _score_partition, plan, both["query_id"].dtype, name,
        meta=meta, align_dataframes=False,
    )


def _score_partition(part, plan, id_dtype, name):
    """evaluate_partition of the driver's plan, with the query ids in the dtype and under
    the name that the Dask meta promises."""
    out = evaluate_partition(part, plan)
    out["query_id"] = out["query_id"].astype(id_dtype)
    return out.rename(columns={"query_id": name})


def _id_column(per_query) -> list:
    """The query column of an evaluate result: ``query_id``, else a first column that is
    not a measure's name (``columns=`` renames it)."""
    from ..measures import parse_measure

    if "query_id" in per_query.columns:
        return ["query_id"]
    first = per_query.columns[0] if len(per_query.columns) else None
    try:
        parse_measure(str(first))
    except ValueError:
        return [first]
    raise ValueError(
        "means takes the result of rankeval.dask.evaluate: a query column first, then one "
        f"column per measure; got the columns {list(per_query.columns)}"
    )


def means(per_query, plan=None):
    """Mean of every measure over queries (counts such as NumRet are summed), by
    :func:`rankeval.aggregate`'s rule: a NaN in a column makes its mean NaN.

    Parameters
    ----------
    per_query : dask.dataframe.DataFrame or pandas.DataFrame
        The result of :func:`evaluate`.
    plan : rankeval.Plan, optional
        The request the table was made with (:func:`rankeval.plan`): each column's
        aggregation is then the plan's. Without it, each column's aggregation is its
        measure's, read from the label that :func:`evaluate` wrote (a Dask or Spark frame
        keeps no ``attrs``).

    Returns
    -------
    pandas.Series
        One value per measure column.

    Raises
    ------
    ValueError
        The table has no row (the qrels and the run have no query in common, which
        :func:`rankeval.evaluate` refuses): a mean of nothing, not a NaN.
    """
    frame = per_query.drop(columns=_id_column(per_query))
    geometric = [label for label, kind in zip(frame.columns, column_kinds(frame.columns, plan),
                                              strict=True) if kind == "gmean"]  # fmt: skip
    if geometric:  # trec_eval's geometric mean: aggregate's totals of the floored logs
        frame = frame.assign(**{
            label: np.log(frame[label].clip(lower=GM_FLOOR)) for label in geometric
        })  # fmt: skip
    sums = frame.sum(skipna=False)  # per partition, then added up: aggregate's totals
    counts = frame.isna().astype("float64").count()  # rows, NaN or not
    if hasattr(sums, "compute"):
        import dask

        sums, counts = dask.compute(sums, counts)
    if len(counts) and not counts.any():
        raise no_rows("rankeval.dask.means")
    return from_totals(sums.astype("float64"), counts.astype("float64"))
