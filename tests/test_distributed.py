"""rankeval.dask and rankeval.spark give rankeval.evaluate's per-query values, partition by
partition, whatever the partitioning."""

from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval.distributed.partition import evaluate_partition, union

MEASURES = ["nDCG@10", "AP", "RR", "P@5", "R@100", "nDCG", "Success@3"]
CONVENTIONS = [
    {},
    {"missing": "zero"},
    {"judged_only": True, "threshold": 2},
    {"ties": "input"},
]


def collection(seed, n_queries=60, huge=None, int_ids=False):
    """Graded qrels and a scored run with ties, unjudged documents, negative grades, and
    queries on one side only (judged but not run, run but not judged)."""
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for q in range(n_queries):
        qid = q if int_ids else f"q{q}-" + "x" * int(rng.integers(0, 12))
        n_docs = huge if (huge and q == 0) else int(rng.integers(1, 40))
        docs = [f"d{j}" + "é" * int(rng.integers(0, 3)) for j in range(n_docs)]
        side = rng.random()
        if side > 0.1:  # judged
            for d in docs[: int(rng.integers(1, n_docs + 1))]:
                q_rows.append((qid, d, float(rng.integers(-1, 4))))
        if side < 0.9 or side > 0.95:  # ranked
            shown = rng.permutation(n_docs)[: int(rng.integers(1, n_docs + 1))]
            scores = np.round(rng.random(shown.size), 1)  # many ties
            r_rows.extend((qid, docs[i], float(s)) for i, s in zip(shown, scores, strict=True))
    qrels = pd.DataFrame(q_rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(r_rows, columns=["query_id", "doc_id", "score"])
    # shuffled lines; a fresh index, so that Dask's from_pandas (which sorts by the
    # index) keeps the row order that ties="input" depends on
    qrels = qrels.sample(frac=1, random_state=seed).reset_index(drop=True)
    return qrels, run.sample(frac=1, random_state=seed + 1).reset_index(drop=True)


def _sorted(frame):
    return frame.sort_values("query_id").reset_index(drop=True)


def _expected(qrels, run, conventions):
    return _sorted(rankeval.evaluate(qrels, run, MEASURES, **conventions).reset_index())


def _same(got, want):
    got = _sorted(got)
    assert list(got.columns) == list(want.columns)
    assert got["query_id"].tolist() == want["query_id"].tolist()
    np.testing.assert_allclose(
        got[MEASURES].to_numpy(float), want[MEASURES].to_numpy(float), rtol=0, atol=1e-12
    )


# --- the partition function ------------------------------------------------------------


@pytest.mark.parametrize("conventions", CONVENTIONS)
def test_partition_function_splits_anywhere_between_queries(conventions):
    qrels, run = collection(1)
    both = union(qrels, run)
    want = _expected(qrels, run, conventions)
    queries = sorted(set(both["query_id"]))
    rng = np.random.default_rng(5)
    group = dict(zip(queries, rng.integers(0, 7, len(queries)), strict=True))
    parts = [
        evaluate_partition(part, MEASURES, **conventions)
        for _, part in both.groupby(both["query_id"].map(group))
    ]
    _same(pd.concat(parts, ignore_index=True), want)


def test_partition_of_one_side_only():
    qrels, run = collection(2)
    both = union(qrels, run)
    only_run = both[both["relevance"].isna()]
    assert evaluate_partition(only_run, MEASURES).empty
    only_qrels = both[both["score"].isna()]
    assert evaluate_partition(only_qrels, MEASURES).empty
    zero = evaluate_partition(only_qrels, MEASURES, missing="zero")
    assert len(zero) == only_qrels["query_id"].nunique()
    assert (zero[MEASURES].to_numpy() == 0).all()


def test_partition_of_judgments_only_with_integer_ids_and_null_scores():
    # a pandas partition as Dask hands it over: integer ids, a score column of None
    batch = pd.DataFrame(
        {"query_id": [1, 1, 2], "doc_id": [5, 6, 5], "relevance": [1.0, 0.0, 2.0],
         "score": [None, None, None]}
    )
    zero = evaluate_partition(batch, ["P@1", "RR", "NumRet"], missing="zero")
    assert zero["query_id"].tolist() == [1, 2]
    assert (zero[["P@1", "RR", "NumRet"]].to_numpy() == 0).all()
    assert evaluate_partition(batch, ["P@1"]).empty


def test_partition_takes_one_measure_object_like_evaluate():
    qrels, run = collection(14, n_queries=4)
    one = evaluate_partition(union(qrels, run), rankeval.parse_measure("AP"))
    want = rankeval.evaluate(qrels, run, rankeval.parse_measure("AP")).reset_index()
    assert one["query_id"].tolist() == want["query_id"].tolist()
    np.testing.assert_allclose(one["AP"], want["AP"], rtol=0, atol=1e-12)


def test_partition_needs_its_columns():
    with pytest.raises(ValueError, match="needs the columns .*missing score"):
        evaluate_partition(pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []}), "AP")


# --- Dask ------------------------------------------------------------------------------

dd = pytest.importorskip("dask.dataframe", reason='pip install "dask[dataframe]" distributed')
import rankeval.dask  # noqa: E402


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.mark.parametrize("conventions", CONVENTIONS)
def test_dask_equals_evaluate(dask_client, conventions):
    qrels, run = collection(3)
    got = rankeval.dask.evaluate(
        dd.from_pandas(qrels, npartitions=3), dd.from_pandas(run, npartitions=4), MEASURES,
        **conventions,
    ).compute()
    _same(got, _expected(qrels, run, conventions))


def test_dask_more_partitions_than_queries_and_one_huge_query(dask_client):
    qrels, run = collection(4, n_queries=5, huge=20_000)
    got = rankeval.dask.evaluate(qrels, run, MEASURES, npartitions=40).compute()
    _same(got, _expected(qrels, run, {}))


def test_dask_integer_ids_keep_their_type(dask_client):
    qrels, run = collection(6, int_ids=True)
    got = rankeval.dask.evaluate(qrels, run, MEASURES, npartitions=5).compute()
    assert got["query_id"].dtype.kind == "i"
    _same(got, _expected(qrels, run, {}))


def test_dask_reads_trec_and_parquet_files(tmp_path, dask_client):
    qrels, run = collection(7)
    for i, part in enumerate(np.array_split(np.arange(len(run)), 3)):
        rankeval.write_run(run.iloc[part], tmp_path / f"run{i}.txt")
    rankeval.write_qrels(qrels, tmp_path / "qrels.txt")
    qrels.to_parquet(tmp_path / "qrels.parquet")
    run.to_parquet(tmp_path / "run.parquet")
    from_files = rankeval.dask.evaluate(
        tmp_path / "qrels.txt", str(tmp_path / "run*.txt"), MEASURES
    ).compute()
    _same(from_files, _expected(qrels, run, {}))
    from_parquet = rankeval.dask.evaluate(
        tmp_path / "qrels.parquet", tmp_path / "run.parquet", MEASURES
    ).compute()
    _same(from_parquet, _expected(qrels, run, {}))


def test_dask_means_equal_evaluate_means(dask_client):
    qrels, run = collection(8)
    got = rankeval.dask.means(rankeval.dask.evaluate(qrels, run, MEASURES, npartitions=3))
    want = rankeval.evaluate(qrels, run, MEASURES).mean()
    np.testing.assert_allclose(got[MEASURES], want[MEASURES], rtol=0, atol=1e-12)


def test_dask_errors():
    with pytest.raises(TypeError, match="must be a Dask DataFrame"):
        rankeval.dask.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, "AP")
    with pytest.raises(ValueError, match="lacks the column"):
        rankeval.dask.evaluate(
            dd.from_pandas(pd.DataFrame({"query_id": ["q"], "doc": ["d"], "relevance": [1]})),
            pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]}),
            "AP",
        )
    with pytest.raises(ValueError, match="npartitions must be a positive integer"):
        qrels, run = collection(9, n_queries=3)
        rankeval.dask.evaluate(qrels, run, "AP", npartitions=0)
    with pytest.raises(ValueError, match="no file matches"):
        rankeval.dask.evaluate("/nonexistent/*.qrels", "/nonexistent/*.run", "AP")


# --- Spark -----------------------------------------------------------------------------


def _java_or_skip():
    if shutil.which("java"):
        return
    message = (
        "the Spark tests need a Java runtime: apt-get install default-jre-headless "
        "(.ci/run installs it in CI)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark", reason='pip install pyspark')
    _java_or_skip()
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers use this venv
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("rankeval-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "500")  # split partitions
        # a short-lived JVM: the quick JIT tier only and one GC thread start faster and
        # take less CPU from the steps that run beside these tests
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        # tiny tables in a short-lived JVM: compiling generated Java code (Janino) for each
        # query plan costs more than interpreting it; the plans and results are the same
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        # the tests' pandas frames go to and from Spark through Arrow, as the adapter's do
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.parametrize("conventions", CONVENTIONS)
def test_spark_equals_evaluate(spark, conventions):
    import rankeval.spark

    qrels, run = collection(10)
    got = rankeval.spark.evaluate(
        spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES, num_partitions=3,
        **conventions,
    ).toPandas()
    _same(got, _expected(qrels, run, conventions))


def test_spark_more_partitions_than_queries_and_one_huge_query(spark):
    import rankeval.spark

    qrels, run = collection(11, n_queries=5, huge=20_000)
    got = rankeval.spark.evaluate(
        spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES, num_partitions=16
    )
    _same(got.toPandas(), _expected(qrels, run, {}))
    means = rankeval.spark.means(got)
    np.testing.assert_allclose(
        means[MEASURES], rankeval.evaluate(qrels, run, MEASURES).mean()[MEASURES], atol=1e-12
    )


def test_spark_integer_ids(spark):
    import rankeval.spark

    qrels, run = collection(12, int_ids=True)
    got = rankeval.spark.evaluate(
        spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES, num_partitions=2
    ).toPandas()
    _same(got, _expected(qrels, run, {}))


def test_spark_errors(spark):
    import rankeval.spark

    with pytest.raises(TypeError, match="must be a Spark DataFrame"):
        rankeval.spark.evaluate(pd.DataFrame(), pd.DataFrame(), "AP")
    qrels, run = collection(13, n_queries=3)
    with pytest.raises(ValueError, match="lacks the column"):
        rankeval.spark.evaluate(
            spark.createDataFrame(qrels.rename(columns={"doc_id": "doc"})),
            spark.createDataFrame(run),
            "AP",
        )
