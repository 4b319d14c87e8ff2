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
from rankeval.evaluation.conventions import PRESETS as PRESET_OBJECTS

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


PRESETS = ["trec_eval", "pytrec_eval", "sklearn", "lightgbm", "xgboost"]
# ties="average" (the sklearn preset) is defined for nDCG and DCG only
PRESET_MEASURES = {"sklearn": ["nDCG@10", "nDCG", "DCG@5", "nDCG@3"]}


def preset_call(preset, missing, form):
    """evaluate's keyword arguments for a preset and a value of missing, given as a name
    plus a keyword (``"keyword"``) or as one Conventions object (``"object"``)."""
    if form == "object":
        return {"conventions": PRESET_OBJECTS[preset].replace(missing=missing)}
    return {"conventions": preset, "missing": missing}


def _bits(got, want, measures):
    """The same queries, in the same column, with the same values to the last bit."""
    got = got.sort_values(got.columns[0]).reset_index(drop=True)
    want = want.sort_values(want.columns[0]).reset_index(drop=True)
    assert list(got.columns) == list(want.columns)
    assert got.iloc[:, 0].tolist() == want.iloc[:, 0].tolist()
    for m in measures:
        a, b = got[m].to_numpy(np.float64), want[m].to_numpy(np.float64)
        assert np.array_equal(a.view(np.int64), b.view(np.int64)), m  # bit for bit


def test_the_data_has_what_the_conventions_differ_on():
    for int_ids in (False, True):
        qrels, run = collection(31, int_ids=int_ids)
        assert (qrels["relevance"] < 0).any()  # negative grades
        assert run.duplicated(["query_id", "score"]).any()  # ties
        assert set(qrels["query_id"]) - set(run["query_id"])  # judged, not in the run
        assert set(run["query_id"]) - set(qrels["query_id"])  # in the run, not judged
        lightgbm = rankeval.evaluate(qrels, run, MEASURES, conventions="lightgbm")
        by_doc_id = rankeval.evaluate(qrels, run, MEASURES, conventions="lightgbm",
                                      ties="trec_eval")  # fmt: skip
        tied = rankeval.evaluate(qrels, run, MEASURES, conventions=PRESET_OBJECTS["lightgbm"]
                                 .replace(ties="trec_eval"))  # fmt: skip
        assert by_doc_id.equals(tied)  # a keyword given overrides, the default's value too
        assert (lightgbm != tied).any(axis=1).sum() >= 5  # ties change values


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


def test_resolve_makes_evaluates_conventions():
    from rankeval.distributed.partition import resolve

    assert resolve("lightgbm") == PRESET_OBJECTS["lightgbm"]
    assert resolve("lightgbm", ties="trec_eval").ties == "trec_eval"  # given: overrides
    assert resolve("lightgbm", missing="zero").missing == "zero"
    assert resolve(rankeval.Conventions(missing="zero")).missing == "zero"
    with pytest.raises(TypeError, match="unexpected keyword argument.*'max_memory'"):
        resolve(max_memory="1GB")
    with pytest.raises(ValueError, match="conventions must be one of"):
        resolve("treceval")


def test_partition_takes_a_conventions_object():
    qrels, run = collection(15)
    only_qrels = union(qrels, run)
    only_qrels = only_qrels[only_qrels["score"].isna()]
    zero = evaluate_partition(only_qrels, MEASURES, rankeval.Conventions(missing="zero"))
    assert len(zero) == only_qrels["query_id"].nunique()


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


@pytest.mark.parametrize("scheduler", ["threads", "distributed"])
@pytest.mark.parametrize("missing", ["skip", "zero"])
@pytest.mark.parametrize("preset", PRESETS)
def test_dask_presets_equal_evaluate_to_the_bit(request, preset, missing, scheduler):
    """More partitions than queries: some hold only judged queries that the run lacks.
    Dask's shuffle on disk (partd, the default without a distributed client) does not
    keep the run's row order within a query: only the order column carried through the
    shuffle does."""
    import dask

    config = {"scheduler": "threads", "dataframe.shuffle.method": "disk"}
    if scheduler == "distributed":
        request.getfixturevalue("dask_client")
        config = {}
    measures = PRESET_MEASURES.get(preset, MEASURES)
    for int_ids, form in ((False, "object"), (True, "keyword")):
        qrels, run = collection(31, int_ids=int_ids)
        call = preset_call(preset, missing, form)
        with dask.config.set(config):
            got = rankeval.dask.evaluate(
                dd.from_pandas(qrels, npartitions=3), dd.from_pandas(run, npartitions=4),
                measures, npartitions=64, **call,
            ).compute()
        want = rankeval.evaluate(qrels, run, measures, **call).reset_index()
        if missing == "zero":
            assert len(want) == qrels["query_id"].nunique()
        _bits(got, want, measures)


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


def big_files(folder, lines=20_000, seed=41, crlf=False):
    """A run of ``lines`` lines in random line order (every query's lines spread over
    the file), with ties, and its qrels; some judged queries are not in the run."""
    rng = np.random.default_rng(seed)
    n_q = lines // 100
    qids = np.repeat(np.arange(n_q), 100)
    docs = np.tile(np.arange(100), n_q)
    order = rng.permutation(lines)
    scores = np.round(rng.random(lines) * 5, 1)
    end = "\r\n" if crlf else "\n"
    run_lines = [f"q{qids[i]} Q0 d{docs[i]} 0 {scores[i]} tag{end}" for i in order]
    run_path = folder / "run.txt"
    run_path.write_text("".join(run_lines), newline="")
    judged = [f"q{q} 0 d{d} {int(rng.integers(-1, 3))}\n"
              for q in range(n_q + 20) for d in range(0, 100, 3)]  # fmt: skip
    qrels_path = folder / "qrels.txt"
    qrels_path.write_text("".join(judged))
    return qrels_path, run_path


def test_dask_reads_a_trec_file_in_blocks(tmp_path, dask_client):
    qrels, run = big_files(tmp_path)
    frame = rankeval.dask.read(run, "run", blocksize="64KB")
    assert frame.npartitions > 5
    assert rankeval.dask.read(run, "run", blocksize=None).npartitions == 1
    whole = rankeval.read_run(run, as_frame=True)
    pd.testing.assert_frame_equal(frame.compute().reset_index(drop=True), whole)
    for call in ({}, {"conventions": "lightgbm"}, {"missing": "zero"},
                 {"conventions": rankeval.Conventions(missing="zero", ties="input")}):
        per_query = rankeval.dask.evaluate(qrels, run, MEASURES, blocksize="64KB", **call)
        assert per_query.npartitions > 5
        want = rankeval.evaluate(qrels, run, MEASURES, **call).reset_index()
        _bits(per_query.compute(), want, MEASURES)


def test_dask_default_blocksize_splits_a_million_line_run(tmp_path):
    from rankeval.distributed.dask import BLOCKSIZE, _blocksize

    assert _blocksize(BLOCKSIZE) == 16 * 10**6
    for size, parts in ((35 * 10**6, 3), (130 * 10**6, 9)):  # 1M lines of ~35 bytes, more
        path = tmp_path / f"run{size}.txt"
        with open(path, "wb") as f:  # a sparse file: read() reads its first bytes only
            f.write(b"q1 Q0 d1 1 0.5 t\n")
            f.truncate(size)
        assert rankeval.dask.read(path, "run").npartitions == parts
        assert rankeval.dask.read(path, "run", blocksize="64MB").npartitions == -(-size // 64e6)


@pytest.mark.parametrize("blocksize", [1, 7, 30, 64, 1000])
def test_dask_blocks_hold_every_line_once(tmp_path, blocksize):
    """Blocks smaller than a line, cut inside a CRLF, at a line's first byte: every line
    is read once, in file order, with the values the whole-file reader gives."""
    path = tmp_path / "run.txt"
    lines = [f"q{i % 3} Q0 d{i} {i} {i / 3:.2f} t" + ("\r\n" if i % 2 else "\n")
             for i in range(25)]  # fmt: skip
    lines[4] = "# a comment\n"
    lines[9] = "\n"
    path.write_bytes("".join(lines).encode())
    frame = rankeval.dask.read(path, "run", blocksize=blocksize)
    assert frame.npartitions == max(1, -(-path.stat().st_size // blocksize))
    got = frame.compute().reset_index(drop=True)
    pd.testing.assert_frame_equal(got, rankeval.read_run(path, as_frame=True))


@pytest.mark.parametrize("crlf", [False, True])
def test_dask_block_errors_name_the_file_and_line(tmp_path, crlf):
    from rankeval.io.trec import read_table

    _, run = big_files(tmp_path, crlf=crlf)
    lines = run.read_bytes().splitlines(keepends=True)
    bad = lines[:15_000] + [b"q1 Q0 dX 0 high tag\n"] + lines[15_000:]
    run.write_bytes(b"".join(bad))
    with pytest.raises(ValueError) as whole:
        read_table(run, "run")
    assert "line 15001: score 'high' is not a number" in str(whole.value)
    frame = rankeval.dask.read(run, "run", blocksize="64KB")
    assert frame.npartitions > 5
    with pytest.raises(ValueError) as blocks:
        frame.compute()
    assert str(blocks.value) == str(whole.value)
    # a document twice in one block: both lines named, as the whole-file reader names them
    twice = lines[:15_000] + [lines[14_990]] + lines[15_000:]
    run.write_bytes(b"".join(twice))
    with pytest.raises(ValueError) as whole:
        read_table(run, "run")
    with pytest.raises(ValueError) as blocks:
        rankeval.dask.read(run, "run", blocksize="64KB").compute()
    assert str(blocks.value) == str(whole.value)
    assert "lines 14991 and 15001" in str(blocks.value)


def test_dask_blocks_of_comments_and_compressed_files(tmp_path, dask_client):
    import gzip

    qrels, run = big_files(tmp_path, lines=5_000)
    text = run.read_bytes()
    padded = tmp_path / "padded.txt"  # a block of comments and blank lines only
    head, tail = text[:30_000].rsplit(b"\n", 1)
    padded.write_bytes(head + b"\n" + b"# comment\n\n" * 20_000 + tail + text[30_000:])
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress(text))
    want = rankeval.evaluate(qrels, run, MEASURES).reset_index()
    for path in (padded, packed):
        per_query = rankeval.dask.evaluate(qrels, path, MEASURES, blocksize="16KB")
        assert per_query.npartitions > 1
        _bits(per_query.compute(), want, MEASURES)
    assert rankeval.dask.read(packed, "run", blocksize="16KB").npartitions == 1


def test_dask_columns_map_frames_as_evaluate_does(dask_client, tmp_path_factory):
    qrels, run = collection(32, int_ids=True)
    names = {"query_id": "user", "doc_id": "item", "relevance": "rating", "score": "pred"}
    mine_q = qrels.rename(columns=names).assign(extra=1)
    mine_r = run.rename(columns=names)
    want = rankeval.evaluate(mine_q, mine_r, MEASURES, columns=names).reset_index()
    assert want.columns[0] == "user"
    for q, r in ((mine_q, mine_r), (dd.from_pandas(mine_q, npartitions=2),
                                    dd.from_pandas(mine_r, npartitions=3))):
        got = rankeval.dask.evaluate(q, r, MEASURES, columns=names, npartitions=4)
        _bits(got.compute(), want, MEASURES)
        means = rankeval.dask.means(got)
        np.testing.assert_allclose(means[MEASURES], rankeval.aggregate(
            want.set_index("user"))[MEASURES], rtol=1e-15)
    # Parquet files with your names
    folder = tmp_path_factory.mktemp("parquet")
    mine_q.to_parquet(folder / "qrels.parquet")
    mine_r.to_parquet(folder / "run.parquet")
    got = rankeval.dask.evaluate(folder / "qrels.parquet", folder / "run.parquet", MEASURES,
                                 columns=names)  # fmt: skip
    _bits(got.compute(), want, MEASURES)
    # a partial mapping, and a run ranked by a rank column (score = -rank, as evaluate)
    ranked = run.assign(pos=run.groupby("query_id").cumcount() + 1).drop(columns="score")
    partial = {"doc_id": "item", "rank": "pos"}
    want = rankeval.evaluate(qrels.rename(columns={"doc_id": "item"}), ranked.rename(
        columns={"doc_id": "item"}), MEASURES, columns=partial).reset_index()
    got = rankeval.dask.evaluate(qrels.rename(columns={"doc_id": "item"}),
                                 ranked.rename(columns={"doc_id": "item"}), MEASURES,
                                 columns=partial, npartitions=3)  # fmt: skip
    _bits(got.compute(), want, MEASURES)


def test_dask_columns_errors_as_evaluate_gives_them():
    qrels, run = collection(33, n_queries=4)
    with pytest.raises(ValueError, match="columns maps \\['user_id'\\], which are not"):
        rankeval.dask.evaluate(qrels, run, "AP", columns={"user_id": "u"})
    with pytest.raises(ValueError, match="columns maps \\['user_id'\\], which are not"):
        rankeval.evaluate(qrels, run, "AP", columns={"user_id": "u"})
    with pytest.raises(ValueError, match="run: columns maps to \\['pred'\\], which the"):
        rankeval.dask.evaluate(qrels, run, "AP", columns={"score": "pred"})
    with pytest.raises(ValueError, match="run: columns maps to \\['pred'\\], which the"):
        rankeval.evaluate(qrels, run, "AP", columns={"score": "pred"})


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
    # no query in common: evaluate refuses it; the means refuse it (not a NaN)
    other = run.assign(query_id="z-" + run["query_id"])
    with pytest.raises(ValueError, match="no query in common"):
        rankeval.evaluate(qrels, other, "AP")
    per_query = rankeval.dask.evaluate(qrels, other, "AP")
    assert per_query.compute().empty
    with pytest.raises(ValueError, match="rankeval.dask.means: the per-query table has no row"):
        rankeval.dask.means(per_query)
    with pytest.raises(FileNotFoundError, match="/nonexistent/run.txt"):
        rankeval.dask.read("/nonexistent/run.txt", "run")  # at once, not when computed
    with pytest.raises(TypeError, match="unexpected keyword argument.*'max_memory'"):
        rankeval.dask.evaluate(qrels, run, "AP", max_memory="1GB")
    with pytest.raises(ValueError, match="blocksize must be a positive number"):
        rankeval.dask.evaluate(qrels, run, "AP", blocksize=0)


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


SPARK_START_TIMEOUT = 300  # s: a cold JVM on a busy 2-core machine takes 30-60 s
SPARK_JOB_TIMEOUT = 300  # s: one small job


def _within(seconds, what, fn, *args):
    """fn(*args), or a test failure that says what did not finish in time (instead of a
    run that hangs until CI's limit). The call runs in a daemon thread, so a JVM that
    never answers cannot keep the test process alive."""
    import threading

    result, error = [], []

    def call():
        try:
            result.append(fn(*args))
        except BaseException as err:  # re-raised in the test's thread
            error.append(err)

    worker = threading.Thread(target=call, name=f"spark: {what}", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"Spark: {what} did not finish within {seconds} s (is the machine "
                    "overloaded, or is Java hanging? see the JVM's output above)")  # fmt: skip
    if error:
        raise error[0]
    return result[0]


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark", reason='pip install pyspark')
    _java_or_skip()
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers use this venv
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("rankeval-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
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
    )
    session = _within(SPARK_START_TIMEOUT, "starting the local session (local[2])",
                      builder.getOrCreate)  # fmt: skip
    session.sparkContext.setLogLevel("ERROR")
    # a first job: the session answers (a Python worker starts, a task runs)
    assert _within(SPARK_JOB_TIMEOUT, "a first job", session.range(3).count) == 3
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


@pytest.mark.parametrize("missing", ["skip", "zero"])
@pytest.mark.parametrize("preset", PRESETS)
def test_spark_presets_equal_evaluate_to_the_bit(spark, preset, missing):
    import rankeval.spark

    measures = PRESET_MEASURES.get(preset, MEASURES)
    for int_ids, form in ((False, "object"), (True, "keyword")):
        qrels, run = collection(31, int_ids=int_ids)
        call = preset_call(preset, missing, form)
        got = rankeval.spark.evaluate(
            spark.createDataFrame(qrels), spark.createDataFrame(run), measures,
            # more partitions than queries: some hold only judged queries the run lacks
            num_partitions=64 if (missing, form) == ("zero", "object") else 3, **call,
        )
        got = _within(SPARK_JOB_TIMEOUT, "rankeval.spark.evaluate", got.toPandas)
        want = rankeval.evaluate(qrels, run, measures, **call).reset_index()
        _bits(got, want, measures)


def test_spark_columns_map_frames_as_evaluate_does(spark):
    import rankeval.spark

    qrels, run = collection(32)
    names = {"query_id": "user", "doc_id": "item", "relevance": "rating", "score": "pred"}
    mine_q, mine_r = qrels.rename(columns=names).assign(extra=1), run.rename(columns=names)
    got = rankeval.spark.evaluate(spark.createDataFrame(mine_q), spark.createDataFrame(mine_r),
                                  MEASURES, columns=names, num_partitions=3)  # fmt: skip
    want = rankeval.evaluate(mine_q, mine_r, MEASURES, columns=names).reset_index()
    _bits(_within(SPARK_JOB_TIMEOUT, "rankeval.spark.evaluate", got.toPandas), want, MEASURES)
    means = rankeval.spark.means(got)
    np.testing.assert_allclose(means[MEASURES], rankeval.aggregate(
        want.set_index("user"))[MEASURES], rtol=1e-15)
    # a partial mapping, and a run ranked by a rank column (score = -rank, as evaluate)
    ranked = run.assign(pos=run.groupby("query_id").cumcount() + 1).drop(columns="score")
    partial = {"doc_id": "item", "rank": "pos"}
    q, r = qrels.rename(columns={"doc_id": "item"}), ranked.rename(columns={"doc_id": "item"})
    got = rankeval.spark.evaluate(spark.createDataFrame(q), spark.createDataFrame(r), MEASURES,
                                  columns=partial, num_partitions=2)  # fmt: skip
    want = rankeval.evaluate(q, r, MEASURES, columns=partial).reset_index()
    _bits(_within(SPARK_JOB_TIMEOUT, "rankeval.spark.evaluate", got.toPandas), want, MEASURES)
    with pytest.raises(ValueError, match="run: columns maps to \\['pred'\\], which the"):
        rankeval.spark.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), "AP",
                                columns={"score": "pred"})  # fmt: skip


def test_spark_errors(spark):
    import rankeval.spark

    with pytest.raises(TypeError, match="must be a Spark DataFrame"):
        rankeval.spark.evaluate(pd.DataFrame(), pd.DataFrame(), "AP")
    qrels, run = collection(13, n_queries=3)
    other = spark.createDataFrame(run.assign(query_id="z-" + run["query_id"]))
    per_query = rankeval.spark.evaluate(spark.createDataFrame(qrels), other, "AP")
    with pytest.raises(ValueError, match="rankeval.spark.means: the per-query table has no row"):
        rankeval.spark.means(per_query)
    with pytest.raises(ValueError, match="lacks the column"):
        rankeval.spark.evaluate(
            spark.createDataFrame(qrels.rename(columns={"doc_id": "doc"})),
            spark.createDataFrame(run),
            "AP",
        )


# --- Spark MLlib's RankingMetrics, the peer --------------------------------------------


def mllib_collection(seed, n_queries=40):
    """Graded qrels and a run with distinct scores (MLlib takes ranked lists, so the order
    must not depend on a tie rule): relevant documents the run misses, runs shorter than
    the cut-offs, and queries whose judgments hold no relevant document."""
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for q in range(n_queries):
        qid = f"q{q:02d}"
        n_docs = int(rng.integers(2, 30))
        grades = rng.choice([0, 0, 1, 2, 3], size=n_docs) if q % 9 else np.zeros(n_docs, int)
        q_rows.extend((qid, f"d{j}", int(g)) for j, g in enumerate(grades))
        shown = rng.permutation(n_docs + 5)[: int(rng.integers(1, n_docs + 5))]
        scores = rng.permutation(shown.size) + 0.5  # distinct
        r_rows.extend((qid, f"d{j}", float(s)) for j, s in zip(shown, scores, strict=True))
    qrels = pd.DataFrame(q_rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(r_rows, columns=["query_id", "doc_id", "score"])
    return qrels, run


def mllib_lists(qrels, run, queries):
    """MLlib's input, one (ranking, relevant ids, their grades) per query: the run's
    documents by decreasing score, and the documents with grade >= 1 by decreasing
    grade (MLlib's ideal DCG takes the label list in the order given)."""
    out = []
    for q in queries:
        ranked = run[run["query_id"] == q].sort_values("score", ascending=False, kind="stable")
        rel = qrels[(qrels["query_id"] == q) & (qrels["relevance"] >= 1)]
        rel = rel.sort_values(["relevance", "doc_id"], ascending=[False, True], kind="stable")
        out.append((ranked["doc_id"].tolist(), rel["doc_id"].tolist(),
                    rel["relevance"].astype(float).tolist()))  # fmt: skip
    return out


MLLIB_KS = (1, 3, 5, 10, 40)


def _jvm_ranking_metrics(sc, lists):
    """Scala's RankingMetrics built with RankingMetrics.of from (ranking, labels,
    relevance) triples. PySpark's RankingMetrics cannot do this: its JVM side
    (PythonMLLibAPI.newRankingMetrics, PySpark 4.3.0) keeps the first two columns only, so
    its ndcgAt is binary even when given grades."""
    jvm = sc._jvm
    triples = [jvm.scala.Tuple3(p, rel, grades) for p, rel, grades in lists]
    return jvm.org.apache.spark.mllib.evaluation.RankingMetrics.of(sc._jsc.parallelize(triples, 2))


def test_mllib_ranking_metrics_equal_rankeval_spark(spark):
    """RankingMetrics and rankeval.spark on the same data, to 1e-9. P@k, R@k, AP and
    binary nDCG@k are trec_eval's; MLlib's AP@k divides by min(R, k), trec_eval's map_cut
    by R: rankeval's AP@k times R / min(R, k) is MLlib's. With grades, MLlib's nDCG@k is
    nDCG(gain='exponential')@k when the label list is sorted by decreasing grade."""
    from pyspark.mllib.evaluation import RankingMetrics

    import rankeval.spark

    qrels, run = mllib_collection(21)
    binary = "nDCG(gains={1:1,2:1,3:1})"
    names = [f"{m}@{k}" for k in MLLIB_KS
             for m in ("P", "R", "AP", "nDCG(gain='exponential')", binary)]  # fmt: skip
    names += ["AP", "NumRel"]
    per_query = rankeval.spark.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run),
                                        names, num_partitions=3)  # fmt: skip
    ours = _within(SPARK_JOB_TIMEOUT, "rankeval.spark.evaluate", per_query.toPandas)
    ours = ours.set_index("query_id").sort_index()
    assert (ours["NumRel"] == 0).sum() >= 3  # queries without a relevant document
    lists = mllib_lists(qrels, run, ours.index)
    sc = spark.sparkContext
    # PySpark's class (its calls run Python workers: k = 5 only) and Scala's, built directly
    pyspark_plain = RankingMetrics(sc.parallelize([(p, rel) for p, rel, _ in lists], 2))
    plain = _jvm_ranking_metrics(sc, [(p, rel, []) for p, rel, _ in lists])
    graded = _jvm_ranking_metrics(sc, lists)

    def mllib(metrics, name, *args):  # meanAveragePrecision is a property, the rest methods
        def call():
            value = getattr(metrics, name)
            return value(*args) if callable(value) else value

        return _within(SPARK_JOB_TIMEOUT, f"RankingMetrics.{name}", call)

    # PySpark's RankingMetrics given grades: the grades are dropped (binary nDCG)
    dropped = RankingMetrics(sc.parallelize(lists, 2))
    assert mllib(dropped, "ndcgAt", 5) == pytest.approx(ours[f"{binary}@5"].mean(), abs=1e-9)
    # MLlib's ideal list is the label list in the order given: reversed, another value
    reversed_labels = _jvm_ranking_metrics(sc, [(p, r[::-1], g[::-1]) for p, r, g in lists])
    assert abs(mllib(reversed_labels, "ndcgAt", 5) - mllib(graded, "ndcgAt", 5)) > 1e-3
    R = ours["NumRel"].to_numpy(float)
    assert mllib(plain, "meanAveragePrecision") == pytest.approx(ours["AP"].mean(), abs=1e-9)
    assert mllib(pyspark_plain, "meanAveragePrecision") == pytest.approx(ours["AP"].mean(),
                                                                         abs=1e-9)  # fmt: skip
    for name in ("precisionAt", "recallAt", "ndcgAt", "meanAveragePrecisionAt"):
        assert mllib(pyspark_plain, name, 5) == pytest.approx(mllib(plain, name, 5), abs=1e-12)
    for k in MLLIB_KS:
        assert mllib(plain, "precisionAt", k) == pytest.approx(ours[f"P@{k}"].mean(), abs=1e-9)
        assert mllib(plain, "recallAt", k) == pytest.approx(ours[f"R@{k}"].mean(), abs=1e-9)
        assert mllib(plain, "ndcgAt", k) == pytest.approx(ours[f"{binary}@{k}"].mean(),
                                                          abs=1e-9)  # fmt: skip
        assert mllib(graded, "ndcgAt", k) == pytest.approx(
            ours[f"nDCG(gain='exponential')@{k}"].mean(), abs=1e-9)
        # MLlib's AP@k: the same sum of precisions, divided by min(R, k) instead of R
        scale = np.divide(R, np.minimum(R, k), out=np.zeros_like(R), where=R > 0)
        want = float(np.mean(ours[f"AP@{k}"].to_numpy() * scale))
        assert mllib(plain, "meanAveragePrecisionAt", k) == pytest.approx(want, abs=1e-9)
        if k == 3:  # and the two conventions differ on this data
            assert abs(want - ours["AP@3"].mean()) > 1e-3


def test_dask_settles_missing_once_without_a_warning_per_partition():
    """Issue 52, item 3 on Dask: missing=None is settled on the driver from the run's
    form (scores: skip; ranks only: zero), so no partition warns with a count of its
    own part of the queries, and the values equal evaluate's."""
    import warnings

    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd

    import rankeval.dask as rd

    q = pd.DataFrame({"query_id": ["a", "a", "b", "c", "d"], "doc_id": ["x", "y", "x", "z", "z"],
                      "relevance": [1, 0, 1, 1, 2]})
    r = pd.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["x", "y", "x"],
                      "score": [1.0, 2.0, 3.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scored = rd.evaluate(dd.from_pandas(q, npartitions=3), dd.from_pandas(r, npartitions=2),
                             ["P@1", "AP"], npartitions=3).compute()
        ranked = rd.evaluate(q, r.assign(rank=[2, 1, 1]).drop(columns="score"),
                             ["P@1", "AP"], npartitions=3).compute()
    assert sorted(scored["query_id"]) == ["a", "b"]
    assert sorted(ranked["query_id"]) == ["a", "b", "c", "d"]
    whole = rankeval.evaluate(q, r.assign(rank=[2, 1, 1]).drop(columns="score"), ["P@1", "AP"])
    got = ranked.set_index("query_id").sort_index()
    assert got["AP"].tolist() == whole["AP"].tolist()
