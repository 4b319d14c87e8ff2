"""Evaluate runs stored as Spark DataFrames: the same kernels, per partition.

:func:`evaluate` unions the qrels and the run into one DataFrame, repartitions it by a
hash of ``query_id`` (so that every row of a query is in one partition), and scores
each partition with :func:`rankeval.evaluate` (through
``rankeval.distributed.partition.evaluate_partition``) by ``mapInArrow``: each partition's Arrow batches are
gathered, scored, and the per-query values come back as a Spark DataFrame. The
conventions are resolved once, on the driver, into one :class:`~rankeval.Conventions`
that every partition receives.

Install with ``pip install pyspark`` (PySpark, which needs a Java
runtime: Debian's ``default-jre-headless``); ``import rankeval`` does not import
PySpark.

Chapter: :doc:`/chapters/20_evaluating_at_scale`.
"""

from __future__ import annotations

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
)

__all__ = ["evaluate", "means"]


def _require():
    try:
        import pyspark.sql  # noqa: F401
    except ImportError as err:  # pragma: no cover - depends on the installation
        raise ImportError(
            "rankeval.spark needs PySpark: pip install pyspark (and a Java runtime, "
            "e.g. Debian's default-jre-headless)"
        ) from err


def _canonical(frame, kind, columns):
    """The frame's query_id, doc_id and value (a double) under their canonical names; a
    run's rank becomes the score minus the rank, as :func:`rankeval.evaluate` reads it."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    if not isinstance(frame, DataFrame):
        raise TypeError(f"{kind} must be a Spark DataFrame, got {type(frame).__name__}")
    names = column_names(columns, kind, frame.columns, "DataFrame")
    value = F.col(f"`{names.get('rank', names.get('score', names.get('relevance')))}`")
    value = value.cast("double")
    if "rank" in names:
        value = -value
    return frame.select(
        F.col(f"`{names['query_id']}`").alias("query_id"),
        F.col(f"`{names['doc_id']}`").alias("doc_id"),
        value.alias("relevance" if kind == "qrels" else "score"),
    )


def evaluate(qrels, run, measures, *, num_partitions=None, columns=None, conventions=None,
             **options):  # fmt: skip
    """Per-query values of a run held in Spark DataFrames.

    Parameters
    ----------
    qrels : pyspark.sql.DataFrame
        Columns ``query_id``, ``doc_id``, ``relevance`` (numeric).
    run : pyspark.sql.DataFrame
        Columns ``query_id``, ``doc_id``, ``score`` (numeric; or ``rank``, read as
        minus the score, as :func:`rankeval.evaluate` reads it). The id columns of
        both must have the same type.
    measures : str or list of str
        Measure names, as for :func:`rankeval.evaluate`.
    num_partitions : int, optional
        Partitions of the repartition by query id; default: Spark's
        ``spark.sql.shuffle.partitions``.
    columns : dict, optional
        Column names of the frames, canonical -> yours, one mapping for both, as
        for :func:`rankeval.evaluate`: ``{"query_id": "user", "doc_id": "item",
        "score": "pred", "relevance": "rating"}``. The result's query column
        takes your name, as ``evaluate``'s index does.
    conventions : str or Conventions, optional
        A preset (``"trec_eval"``, ``"pytrec_eval"``, ``"sklearn"``,
        ``"lightgbm"``, ``"xgboost"``) or a :class:`~rankeval.Conventions`, as for
        :func:`rankeval.evaluate`.
    **options
        The other conventions of :func:`rankeval.evaluate` (``threshold``,
        ``ties``, ``missing``, ...), applied over ``conventions``.

    Returns
    -------
    pyspark.sql.DataFrame
        Column ``query_id`` (or your name of it) and one double column per measure
        (named as given), one row per query; equal to ``rankeval.evaluate`` row for
        row, to the last bit.

    Notes
    -----
    ``mapInArrow`` hands a partition over in batches of at most
    ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows; the batches of one
    partition are concatenated before scoring, so a query is never split. With
    ``ties="input"``, the run's row order is recorded before the shuffle with
    ``monotonically_increasing_id`` (increasing in the DataFrame's current order),
    and restored in each partition. The conventions are resolved once, on the
    driver, into one frozen :class:`~rankeval.Conventions` (the preset, and the
    keyword arguments given, over it) that every partition
    receives: ``conventions="lightgbm"`` breaks ties by input order as
    ``ties="input"`` does, and ``missing="zero"``, given either way, scores the
    judged queries that the run lacks.

    ``missing=None`` (the default) is settled here, from the run's form as
    ``rankeval.evaluate`` settles it: a frame with a ``rank`` column and no
    ``score`` counts every judged query (``"zero"``), any other run skips the judged
    queries it lacks (``"skip"``, trec_eval's rule). Unlike :func:`rankeval.evaluate`,
    no warning gives their number (no single process sees every query before the
    computation): pass ``missing="zero"`` or ``"skip"`` to say which you mean, and
    compare the result's length with the number of judged queries.

    Chapter: :doc:`/chapters/20_evaluating_at_scale`.
    """
    _require()
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    # once, on the driver; missing=None made explicit from the run's form
    plan = driver_plan(measures, conventions, options, run_gives_positions(run, columns),
                       "rankeval.spark.evaluate")  # fmt: skip
    qrels = _canonical(qrels, "qrels", columns)
    run = _canonical(run, "run", columns)
    check_id_types(dict(qrels.dtypes), dict(run.dtypes))
    labels = plan.labels
    name = (columns or {}).get("query_id", "query_id")
    id_type = dict(qrels.dtypes)["query_id"]
    q = qrels.select("query_id", "doc_id", "relevance", F.lit(None).cast("double").alias("score"))
    r = run.select("query_id", "doc_id", F.lit(None).cast("double").alias("relevance"), "score")
    ordered = list(COLUMNS)
    if plan.conventions.ties == "input":  # the shuffle loses the input order: keep it
        q = q.withColumn("order", F.lit(-1).cast("long"))
        r = r.withColumn("order", F.monotonically_increasing_id())
        ordered.append("order")
    both = q.unionByName(r)
    if num_partitions is not None:
        both = both.repartition(check_partitions(num_partitions, "num_partitions"), "query_id")
    else:
        both = both.repartition("query_id")
    id_field = qrels.schema["query_id"].dataType
    schema = T.StructType(
        [T.StructField(name, id_field)]
        + [T.StructField(label, T.DoubleType()) for label in labels]
    )
    arrow_schema = pa.schema(
        [(name, pa.int64() if id_type in ("bigint", "int") else pa.string())]
        + [(label, pa.float64()) for label in labels]
    )
    if id_type == "int":
        arrow_schema = arrow_schema.set(0, pa.field(name, pa.int32()))

    def score(batches):
        batches = list(batches)
        if not batches:
            return
        table = pa.Table.from_batches(batches)
        values = evaluate_partition(table, plan)
        values = values.rename(columns={"query_id": name})
        out = pa.Table.from_pandas(values, schema=arrow_schema, preserve_index=False)
        yield from out.to_batches()

    return both.select(*ordered).mapInArrow(score, schema)


def means(per_query, plan=None):
    """Mean of every measure over queries (counts such as NumRet are summed), by
    :func:`rankeval.aggregate`'s rule: a NaN in a column makes its mean NaN.

    Parameters
    ----------
    per_query : pyspark.sql.DataFrame
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
    import pandas as pd
    from pyspark.sql import functions as F

    ids = "query_id" if "query_id" in per_query.columns else per_query.columns[0]
    labels = [c for c in per_query.columns if c != ids]  # (columns= renames the query column)
    # aggregate's (sums, counts): Spark's sum keeps a NaN (NaN is a value, not a null)
    aggs = []
    for label, kind in zip(labels, column_kinds(labels, plan), strict=True):
        column = F.col(f"`{label}`").cast("double")
        if kind == "gmean":  # trec_eval's geometric mean: totals of the floored logs
            column = F.log(F.greatest(column, F.lit(GM_FLOOR)))
        aggs.append(F.sum(column).alias(label))
    row = per_query.agg(F.count(F.lit(1)).alias("__rows"), *aggs).collect()[0]
    if not row["__rows"]:
        raise no_rows("rankeval.spark.means")
    sums = pd.Series([float(row[label]) for label in labels], index=labels, dtype="float64")
    counts = pd.Series(float(row["__rows"]), index=labels, dtype="float64")
    return from_totals(sums, counts)
