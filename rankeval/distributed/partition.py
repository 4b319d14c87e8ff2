"""The unit of distributed evaluation: whole queries in, per-query values out.

Every measure of :func:`rankeval.evaluate` is a function of one query's judgments and
ranking, so a run can be split by query id and each part scored on its own. The
distributed adapters (:mod:`rankeval.dask`, :mod:`rankeval.spark`) send every row of
a query, from the qrels and from the run, to the same partition and call
:func:`evaluate_partition` there: no formula is implemented twice.

A partition is one table with the columns ``query_id``, ``doc_id``, ``relevance``
and ``score``: qrels rows carry a grade and a null score, run rows a score and a null
grade (the union of the two inputs, see :func:`union`). With ``ties="input"`` the
order of the run's rows decides ties, and a shuffle does not keep that order: the
adapters then add a column ``order`` (the row's position in the input run), by which
the partition function puts the run rows back in input order.

The conventions are resolved once, on the driver, by :func:`resolve` (a preset such
as ``"lightgbm"``, a :class:`~rankeval.Conventions`, keyword arguments over either),
and the frozen :class:`~rankeval.Conventions` object is what every partition
receives: a partition never reads a raw keyword, so ``conventions="lightgbm"`` orders
ties by input as ``ties="input"`` does, and ``missing="zero"`` given inside a
:class:`~rankeval.Conventions` scores the judged queries the run lacks.

Chapter: :doc:`/chapters/20_evaluating_at_scale`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..evaluation import evaluate
from ..evaluation.aggregate import kinds
from ..evaluation.conventions import EVALUATE_SETTINGS, Conventions
from ..evaluation.conventions import resolve as _resolve
from ..evaluation.plan import Plan, given_plan, make_plan
from ..io.canonical import VALUE

__all__ = ["evaluate_partition", "union", "resolve", "settle_missing",
           "run_gives_positions", "driver_plan"]

COLUMNS = ("query_id", "doc_id", "relevance", "score")
# The keys of a ``columns`` mapping, and those that concern each input (as evaluate's)
_CANONICAL = ("query_id", "doc_id", "relevance", "score", "rank")
_OF_KIND = {"qrels": ("query_id", "doc_id", "relevance"),
            "run": ("query_id", "doc_id", "score", "rank")}  # fmt: skip


def resolve(conventions=None, **options) -> Conventions:
    """The one :class:`~rankeval.Conventions` of an evaluation, as :func:`rankeval.evaluate`
    makes it: the preset or object ``conventions`` with every keyword argument given
    applied over it (a value equal to the default included). The adapters call it once, on the driver,
    and ship the result to every partition.

    Parameters
    ----------
    conventions : str or Conventions, optional
        A preset's name (``"trec_eval"``, ``"pytrec_eval"``, ``"sklearn"``,
        ``"lightgbm"``, ``"xgboost"``) or a :class:`~rankeval.Conventions`.
    **options
        ``threshold``, ``ties``, ``ideal``, ``missing``, ``judged_only``,
        ``score_precision``, ``grades``, ``max_docs``, as for :func:`rankeval.evaluate`
        (``convention``: the old spelling of ``conventions``, with a FutureWarning).

    Returns
    -------
    Conventions
        Frozen and checked.

    Raises
    ------
    TypeError
        A keyword argument that :func:`rankeval.evaluate` does not take (the
        message names the allowed ones and the closest).

    Examples
    --------
    >>> from rankeval.distributed.partition import resolve
    >>> resolve("lightgbm").ties
    'input'
    >>> resolve("lightgbm", ties="trec_eval").ties  # given: it overrides the preset
    'trec_eval'
    >>> resolve(missing="zero").missing
    'zero'
    """
    return _resolve(conventions, options, allowed=EVALUATE_SETTINGS)


def settle_missing(chosen: Conventions, positions: bool) -> Conventions:
    """``chosen`` with ``missing=None`` made explicit on the driver, as
    :func:`rankeval.evaluate` reads it from the run's form: ``"zero"`` for a run that
    gives positions (a ``rank`` column and no ``score``), ``"skip"`` (trec_eval's rule)
    for one with scores. Every partition then scores by the same rule, and none warns
    with a count of its own part of the queries (a partition sees only some of them).

    >>> settle_missing(resolve(), positions=True).missing
    'zero'
    >>> settle_missing(resolve(missing="skip"), positions=True).missing
    'skip'
    """
    if chosen.missing is not None:
        return chosen
    return dataclasses.replace(chosen, missing="zero" if positions else "skip")


def run_gives_positions(run, columns=None) -> bool:
    """Whether a run frame (pandas, Dask or Spark) gives ranks and no scores, after
    ``columns``: a ``rank`` column and no ``score`` column. Files give scores."""
    names = getattr(run, "columns", None)
    if names is None or isinstance(run, (str, bytes)):
        return False
    mapping = dict(columns or {})
    names = set(map(str, names))
    return mapping.get("rank", "rank") in names and mapping.get("score", "score") not in names


def column_names(columns, kind: str, available, what: str) -> dict:
    """``{canonical: the frame's column}`` for one input, from a ``columns`` mapping with
    :func:`rankeval.evaluate`'s meaning (canonical -> yours, one mapping for both inputs).

    A qrels frame needs ``query_id``, ``doc_id`` and ``relevance``; a run frame
    ``query_id``, ``doc_id`` and ``score``, or ``rank`` when it has no score column
    (the score is then minus the rank, as ``evaluate`` reads it). ``what`` names the
    kind of frame in messages.
    """
    mapping = dict(columns or {})
    unknown = sorted(set(map(str, mapping)) - set(_CANONICAL))
    if unknown:
        raise ValueError(
            f"columns maps {unknown}, which are not canonical column names; use query_id, "
            "doc_id, relevance, score or rank as keys"
        )
    available = list(available)
    mine = {c: mapping.get(c, c) for c in _OF_KIND[kind]}
    absent = [mine[c] for c in _OF_KIND[kind] if c in mapping and mine[c] not in available]
    if absent:
        raise ValueError(
            f"{kind}: columns maps to {absent}, which the {what} does not have (it has "
            f"{available})"
        )
    value = value_column(kind)
    need = ["query_id", "doc_id"]
    if kind == "run" and mine[value] not in available and mine["rank"] in available:
        need.append("rank")
    else:
        need.append(value)
    lacking = [mine[c] for c in need if mine[c] not in available]
    if lacking:
        alternative = " (or rank)" if kind == "run" else ""
        raise ValueError(
            f"the {kind} {what} lacks the column(s) {', '.join(lacking)}; it needs "
            f"query_id, doc_id and {value}{alternative} (it has {available}); map your "
            "names with columns={'query_id': ..., 'doc_id': ..., " f"'{value}': ...}}"
        )
    return {c: mine[c] for c in need}


def no_rows(what: str) -> ValueError:
    """The error of a mean over no query (a NaN that nothing would explain)."""
    return ValueError(
        f"{what}: the per-query table has no row, so there is no mean: the qrels and the "
        "run have no query in common (rankeval.evaluate refuses such inputs), or the "
        "inputs are empty"
    )


def driver_plan(measures, conventions, options, positions: bool, caller: str) -> Plan:
    """The plan of a distributed evaluation, made once on the driver (``measures`` may
    be a Plan already), with ``missing=None`` settled from the run's form
    (:func:`settle_missing`): the object every partition receives."""
    plan = given_plan(measures, conventions, options, caller) or make_plan(
        measures, conventions, options, allowed=EVALUATE_SETTINGS, caller=caller)
    settled = settle_missing(plan.conventions, positions)
    return plan if settled is plan.conventions else plan.replace(missing=settled.missing)


def value_column(kind: str) -> str:
    """The value column of a qrels (``relevance``) or run (``score``) table."""
    return VALUE[kind]


def _dtype_kind(dtype) -> str | None:
    """``"int"`` or ``"str"`` for a pandas/NumPy dtype or a Spark type name."""
    text = str(dtype)
    if text in ("bigint", "int", "smallint", "tinyint"):  # Spark's names
        return "int"
    if text == "string" or text.startswith("string") or text == "object":
        return "str"  # (an object column of pandas holds strings: ints would be int64)
    kind = getattr(dtype, "kind", None)
    if kind in ("i", "u"):
        return "int"
    if kind in ("O", "U", "S"):
        return "str"
    return None


def check_id_types(qrels_dtypes, run_dtypes) -> None:
    """The error of :func:`rankeval.evaluate` for integer ids on one side and string
    ids on the other, from the two inputs' column types (``{column: dtype}``)."""
    from ..io.tables import mixed_id_types

    for column in ("query_id", "doc_id"):
        a, b = _dtype_kind(qrels_dtypes[column]), _dtype_kind(run_dtypes[column])
        if a and b and a != b:
            raise mixed_id_types(column, a, b, f" (qrels: {a}, run: {b})")


def check_partitions(n, name: str) -> int:
    """A positive number of partitions, as an int."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def union(qrels, run):
    """One pandas frame of qrels rows (score NaN) and run rows (relevance NaN)."""
    import pandas as pd

    q = qrels[["query_id", "doc_id", "relevance"]].assign(score=np.nan)
    r = run[["query_id", "doc_id", "score"]].assign(relevance=np.nan)
    r = r[list(COLUMNS)].assign(order=np.arange(len(r), dtype=np.int64))
    return pd.concat([q.assign(order=-1), r], ignore_index=True)


def _as_arrow(batch):
    """The batch as a pyarrow Table (pandas frames converted once, NaN read as null)."""
    import pyarrow as pa

    if isinstance(batch, pa.RecordBatch):
        batch = pa.Table.from_batches([batch])
    elif not isinstance(batch, pa.Table):
        if not hasattr(batch, "columns"):
            raise TypeError(
                f"a partition is a pandas DataFrame or a pyarrow Table, got "
                f"{type(batch).__name__}"
            )
        batch = pa.Table.from_pandas(batch, preserve_index=False)
    missing = [c for c in COLUMNS if c not in batch.column_names]
    if missing:
        raise ValueError(
            f"a partition needs the columns {', '.join(COLUMNS)}; missing {', '.join(missing)}"
        )
    return batch


def evaluate_partition(batch, measures, conventions=None, **options):
    """Per-query values of the queries held whole in one partition.

    Parameters
    ----------
    batch : pandas.DataFrame or pyarrow.Table or pyarrow.RecordBatch
        Rows of whole queries with the columns ``query_id``, ``doc_id``,
        ``relevance`` (the grade; null on run rows) and ``score`` (null on qrels
        rows), and ``order`` (a run row's position in the input) when ties are
        broken by input order. Every row of a query must be in this batch: the
        adapters ensure it by partitioning on ``query_id``.
    measures : str, list of str or Plan
        Measure names, as for :func:`rankeval.evaluate`, or the
        :class:`~rankeval.Plan` that the adapters made on the
        driver (:func:`driver_plan`), which every partition receives.
    conventions : str or Conventions, optional
        As for :func:`rankeval.evaluate` (not with a Plan).
    **options
        Keyword arguments of :func:`rankeval.evaluate` (``threshold``, ``ties``,
        ``missing``, ``judged_only``, ...), applied over ``conventions``.

    Returns
    -------
    pandas.DataFrame
        Column ``query_id`` then one float column per measure, one row per query
        that :func:`rankeval.evaluate` scores; empty (with those columns) when the
        batch holds no such query.

    Notes
    -----
    This is :func:`rankeval.evaluate` on the batch's two halves; a batch whose
    queries are all on one side (only judgments, or only a run) is scored the way
    ``evaluate`` scores such queries inside a larger input: run-only queries are
    ignored, and judged queries without a run are skipped or, with
    ``missing="zero"``, scored as empty rankings.

    Chapter: :doc:`/chapters/20_evaluating_at_scale`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.distributed.partition import evaluate_partition
    >>> batch = pd.DataFrame({
    ...     "query_id": ["q1", "q1", "q1", "q1"],
    ...     "doc_id": ["a", "b", "a", "b"],
    ...     "relevance": [1.0, 0.0, None, None],
    ...     "score": [None, None, 0.2, 0.9],
    ... })
    >>> evaluate_partition(batch, ["P@1", "RR"])
      query_id  P@1   RR
    0       q1  0.0  0.5
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    plan = given_plan(measures, conventions, options, "evaluate_partition") or make_plan(
        measures, conventions, options, allowed=EVALUATE_SETTINGS,
        caller="evaluate_partition")  # fmt: skip
    labels = plan.labels
    table = _as_arrow(batch)
    id_type = table.schema.field("query_id").type
    is_run = pc.invert(pc.is_null(table["score"], nan_is_null=True))
    qrels = table.filter(pc.invert(is_run)).select(["query_id", "doc_id", "relevance"])
    run = table.filter(is_run)
    if "order" in run.column_names:  # back to the input order (decides ties="input")
        run = run.take(pc.sort_indices(run["order"]))
    run = run.select(["query_id", "doc_id", "score"])
    integer_ids = pa.types.is_integer(id_type)
    empty = pd.DataFrame(
        {"query_id": pd.Series([], dtype=np.int64 if integer_ids else object)}
    )
    for label in labels:
        empty[label] = pd.Series([], dtype=np.float64)
    judged = pc.unique(qrels["query_id"])
    if not len(judged):
        return empty
    shared = pc.any(pc.is_in(judged, value_set=pc.unique(run["query_id"]))).as_py()
    if not shared and plan.conventions.missing != "zero":
        return empty  # evaluate would find nothing to score
    values = evaluate(qrels, run, plan)
    out = values.reset_index()
    if integer_ids:
        out["query_id"] = out["query_id"].astype(np.int64)
    return out


def column_kinds(labels, plan=None) -> list:
    """Each column's aggregation ("mean", "sum", "gmean") for the means of a distributed
    result: the plan's when given, else read from its label (a Dask or Spark frame keeps no
    ``attrs``)."""
    if plan is None:
        return kinds(labels)
    found = plan.aggregations
    missing = [label for label in labels if label not in found]
    if missing:
        raise ValueError(f"the plan has no column {missing[0]!r}; its columns are "
                         f"{list(found)}")
    return [found[label] for label in labels]
