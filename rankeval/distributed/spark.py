"""Evaluate runs stored as Spark DataFrames: the same kernels, per partition.

:func:`evaluate` unions the qrels and the run into one DataFrame, repartitions it by a
hash of ``query_id`` (so that every row of a query is in one partition), and scores
each partition with :func:`rankeval.evaluate` (through
``rankeval.distributed.partition.evaluate_partition``) by ``mapInArrow``: each partition's Arrow batches are
gathered, scored, and the per-query values come back as a Spark DataFrame.

Install with ``pip install pyspark`` (PySpark, which needs a Java
runtime: Debian's ``default-jre-headless``); ``import rankeval`` does not import
PySpark.

Chapter: :doc:`/chapters/20_evaluating_at_scale`.
"""

from __future__ import annotations

from ..evaluation.aggregate import GM_FLOOR, from_totals, kinds
from .partition import (
    COLUMNS,
    check_columns,
    check_id_types,
    check_partitions,
    evaluate_partition,
    result_columns,
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


def _check(frame, kind):
    from pyspark.sql import DataFrame

    if not isinstance(frame, DataFrame):
        raise TypeError(f"{kind} must be a Spark DataFrame, got {type(frame).__name__}")
    check_columns(frame.columns, kind, "DataFrame")


def evaluate(qrels, run, measures, *, num_partitions=None, **conventions):
    """Per-query values of a run held in Spark DataFrames.

    Parameters
    ----------
    qrels : pyspark.sql.DataFrame
        Columns ``query_id``, ``doc_id``, ``relevance`` (numeric).
    run : pyspark.sql.DataFrame
        Columns ``query_id``, ``doc_id``, ``score`` (numeric). The id columns of
        both must have the same type.
    measures : str or list of str
        Measure names, as for :func:`rankeval.evaluate`.
    num_partitions : int, optional
        Partitions of the repartition by query id; default: Spark's
        ``spark.sql.shuffle.partitions``.
    **conventions
        Keyword arguments of :func:`rankeval.evaluate`, applied in every partition.

    Returns
    -------
    pyspark.sql.DataFrame
        Column ``query_id`` and one double column per measure (named as given),
        one row per query; equal to ``rankeval.evaluate`` row for row.

    Notes
    -----
    ``mapInArrow`` hands a partition over in batches of at most
    ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows; the batches of one
    partition are concatenated before scoring, so a query is never split. With
    ``ties="input"``, the run's row order is recorded before the shuffle with
    ``monotonically_increasing_id`` (increasing in the DataFrame's current order),
    and restored in each partition.

    Chapter: :doc:`/chapters/20_evaluating_at_scale`.
    """
    _require()
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    _check(qrels, "qrels")
    _check(run, "run")
    check_id_types(dict(qrels.dtypes), dict(run.dtypes))
    if "columns" in conventions:  # evaluate's columns= renames frames; here, rename them
        raise TypeError(
            "columns= is not taken here: give the frames the columns query_id, doc_id and "
            "relevance (qrels) or score (run), e.g. with .rename(columns={...})"
        )
    labels = result_columns(measures)
    id_type = dict(qrels.dtypes)["query_id"]
    q = qrels.select(
        "query_id",
        "doc_id",
        F.col("relevance").cast("double").alias("relevance"),
        F.lit(None).cast("double").alias("score"),
    )
    r = run.select(
        "query_id",
        "doc_id",
        F.lit(None).cast("double").alias("relevance"),
        F.col("score").cast("double").alias("score"),
    )
    columns = list(COLUMNS)
    if conventions.get("ties") == "input":  # the shuffle loses the input order: keep it
        q = q.withColumn("order", F.lit(-1).cast("long"))
        r = r.withColumn("order", F.monotonically_increasing_id())
        columns.append("order")
    both = q.unionByName(r)
    if num_partitions is not None:
        both = both.repartition(check_partitions(num_partitions, "num_partitions"), "query_id")
    else:
        both = both.repartition("query_id")
    id_field = qrels.schema["query_id"].dataType
    schema = T.StructType(
        [T.StructField("query_id", id_field)]
        + [T.StructField(label, T.DoubleType()) for label in labels]
    )
    arrow_schema = pa.schema(
        [("query_id", pa.int64() if id_type in ("bigint", "int") else pa.string())]
        + [(label, pa.float64()) for label in labels]
    )
    if id_type == "int":
        arrow_schema = arrow_schema.set(0, pa.field("query_id", pa.int32()))

    def score(batches):
        batches = list(batches)
        if not batches:
            return
        table = pa.Table.from_batches(batches)
        values = evaluate_partition(table, measures, **conventions)
        out = pa.Table.from_pandas(values, schema=arrow_schema, preserve_index=False)
        yield from out.to_batches()

    return both.select(*columns).mapInArrow(score, schema)


def means(per_query):
    """Mean of every measure over queries (counts such as NumRet are summed), by
    :func:`rankeval.aggregate`'s rule: a NaN in a column makes its mean NaN.

    Parameters
    ----------
    per_query : pyspark.sql.DataFrame
        The result of :func:`evaluate`.

    Returns
    -------
    pandas.Series
        One value per measure column.
    """
    import pandas as pd
    from pyspark.sql import functions as F

    labels = [c for c in per_query.columns if c != "query_id"]
    # aggregate's (sums, counts): Spark's sum keeps a NaN (NaN is a value, not a null)
    aggs = []
    for label, kind in zip(labels, kinds(labels), strict=True):
        column = F.col(f"`{label}`").cast("double")
        if kind == "gmean":  # trec_eval's geometric mean: totals of the floored logs
            column = F.log(F.greatest(column, F.lit(GM_FLOOR)))
        aggs.append(F.sum(column).alias(label))
    row = per_query.agg(F.count(F.lit(1)).alias("__rows"), *aggs).collect()[0]
    sums = pd.Series([float(row[label]) for label in labels], index=labels, dtype="float64")
    counts = pd.Series(float(row["__rows"]), index=labels, dtype="float64")
    return from_totals(sums, counts)
