"""Issue 37: what a careless user meets at the edges of the API and the command line.

Every test here failed on the code before the fix it names; they use the public API
only (rankeval.evaluate, evaluate_groups, parse_measure, the command line's main), so
that they outlive a change of the modules' layout.
"""

import contextlib
import io
import sys

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval.cli import main

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"x": 1}}
RUN = {"q1": {"a": 0.5, "b": 0.9}, "q2": {"x": 1.0, "y": 0.2}}
QRELS_TEXT = "q1 0 a 1\nq1 0 b 0\nq2 0 x 1\n"
RUN_TEXT = "q1 Q0 a 1 0.5 r\nq1 Q0 b 2 0.9 r\nq2 Q0 x 1 1.0 r\nq2 Q0 y 2 0.2 r\n"


def cli(*args, stdin=None):
    """(status, stdout, stderr) of the command line run in this process."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = stdin
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as exit:
                code = exit.code
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS_TEXT)
    (tmp_path / "run.txt").write_text(RUN_TEXT)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


# --- 1. every name asked for is a column, in the order asked ---------------------------


def test_aliases_are_columns_of_their_own():
    names = ["Hit@10", "Success@10", "MRR", "RR"]
    frame = rankeval.evaluate(QRELS, RUN, names)
    assert list(frame.columns) == names
    assert frame["Success@10"].tolist() == frame["Hit@10"].tolist() == [1.0, 1.0]
    assert frame["RR"].tolist() == frame["MRR"].tolist() == [0.5, 1.0]


def test_exact_repeats_stay_one_column():
    frame = rankeval.evaluate(QRELS, RUN, ["AP", "AP", " AP"])
    assert list(frame.columns) == ["AP"]


def test_aliases_in_evaluate_groups():
    frame = rankeval.evaluate_groups(
        [1, 0, 0, 1], [4, 3, 2, 1], [2, 2], ["nDCG", "MRR", "NDCG", "RR"], group_kind="sizes"
    )
    assert list(frame.columns) == ["nDCG", "MRR", "NDCG", "RR"]
    assert frame["NDCG"].tolist() == frame["nDCG"].tolist()


def test_cli_prints_a_line_per_alias(files):
    code, out, err = cli(*files, "-m", "map", "AP")
    assert code == 0, err
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names == ["num_q", "map", "AP"]
    values = {line.split("\t")[0].strip(): line.split("\t")[2] for line in out.splitlines()}
    assert values["map"] == values["AP"]


# --- 2. ids of two types are one error everywhere ----------------------------------------

MIXED = r"column 'query_id' holds ids of two types, int and str"


@pytest.mark.parametrize(
    "group",
    [[1, 1, "1", "1"], pd.Series([1, 1, "1", "1"]), np.array([1, 1, "1", "1"], dtype=object)],
    ids=["list", "series", "object-array"],
)
def test_mixed_ids_in_evaluate_groups(group):
    with pytest.raises(TypeError, match=MIXED):
        rankeval.evaluate_groups([1, 0, 0, 1], [4, 3, 2, 1], group, ["NumRet"], group_kind="ids")


def _mixed_frames():
    qrels = pd.DataFrame({"query_id": [1, 2], "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    return qrels, run


def test_mixed_ids_in_evaluate():
    with pytest.raises(TypeError, match=MIXED + r" \(qrels: int, run: str\)"):
        rankeval.evaluate(*_mixed_frames(), ["AP"])
    with pytest.raises(TypeError, match=r"column 'query_id' holds ids of two types, str and int"):
        rankeval.evaluate({"1": {"a": 1}}, {1: {"a": 1.0}}, ["AP"])
    with pytest.raises(TypeError, match=r"column 'doc_id' holds ids of two types, int and str"):
        rankeval.evaluate({"q": {1: 1}}, {"q": {"1": 1.0}}, ["AP"])


def test_mixed_ids_in_dask():
    pytest.importorskip("dask.dataframe")
    import rankeval.dask

    with pytest.raises(TypeError, match=MIXED + r" \(qrels: int, run: str\)"):
        rankeval.dask.evaluate(*_mixed_frames(), ["AP"]).compute()


def test_mixed_ids_in_spark():
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    import rankeval.spark

    session = (
        SparkSession.builder.master("local[1]").appName("rankeval-edges")
        .config("spark.ui.enabled", "false").getOrCreate()
    )  # fmt: skip
    qrels, run = _mixed_frames()
    with pytest.raises(TypeError, match=MIXED + r" \(qrels: int, run: str\)"):
        rankeval.spark.evaluate(session.createDataFrame(qrels), session.createDataFrame(run),
                                ["AP"])


# --- 3. a query the run holds with an empty ranking is scored ----------------------------


@pytest.mark.parametrize("empty", [{}, []], ids=["dict", "list"])
def test_empty_ranking_is_scored(empty):
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"x": 1}, "q3": {"z": 1}}
    run = {"q1": {"a": 0.5, "b": 0.9}, "q2": empty}
    frame = rankeval.evaluate(qrels, run, ["AP", "P@5", "nDCG@10", "RR", "NumRet", "NumRel"])
    assert frame.index.tolist() == ["q1", "q2"]  # q3 is not in the run: skipped
    assert frame.loc["q2"].tolist() == [0.0, 0.0, 0.0, 0.0, 0, 1]
    # the same values as pytrec_eval gives the empty ranking
    pytrec_eval = pytest.importorskip("pytrec_eval")
    names = {"map": "AP", "P_5": "P@5", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR"}
    peer = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(
        {"q1": run["q1"] if isinstance(run["q1"], dict) else {}, "q2": {}}
    )
    for name, ours in names.items():
        assert frame.loc["q2", ours] == peer["q2"][name]


def test_only_empty_rankings_and_integer_ids():
    frame = rankeval.evaluate({1: {"a": 1}, 2: {"b": 1}}, {1: {}}, ["AP", "NumRet"])
    assert frame.index.tolist() == [1]
    assert frame.loc[1].tolist() == [0.0, 0]


# --- 4. Parquet files are read by evaluate and the command line --------------------------


def _parquet_pair(tmp_path):
    pytest.importorskip("pyarrow.parquet")
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "x"],
                          "relevance": [1, 0, 1]})  # fmt: skip
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "x", "y"],
                        "score": [0.5, 0.9, 1.0, 0.2]})  # fmt: skip
    qrels.to_parquet(tmp_path / "qrels.parquet")
    run.to_parquet(tmp_path / "run.parquet")
    run.to_parquet(tmp_path / "run.bin")  # no extension: found by its magic bytes
    return qrels, run


def test_parquet_paths_and_files(tmp_path):
    qrels, run = _parquet_pair(tmp_path)
    want = rankeval.evaluate(qrels, run, ["AP", "RR"])
    got = rankeval.evaluate(tmp_path / "qrels.parquet", str(tmp_path / "run.bin"), ["AP", "RR"])
    pd.testing.assert_frame_equal(got, want)
    with open(tmp_path / "run.parquet", "rb") as f:
        pd.testing.assert_frame_equal(rankeval.evaluate(qrels, f, ["AP", "RR"]), want)


def test_parquet_on_the_command_line(tmp_path):
    _parquet_pair(tmp_path)
    code, out, err = cli("-q", "-m", "map", tmp_path / "qrels.parquet", tmp_path / "run.parquet")
    assert code == 0, err
    assert out.splitlines() == [
        "map                   \tq1\t0.5000",
        "map                   \tq2\t1.0000",
        "map                   \tall\t0.7500",
    ]


# --- 5. trec_eval 10's sets (measures.c) and measures -----------------------------------


def test_all_trec_is_trec_eval_10s_set():
    every = [str(m) for m in rankeval.parse_trec_eval("all_trec")]
    assert "trec_rbp" in every and "trec_rbp_resid" in every  # trec_eval's rbp, rbp_resid
    assert not any(name.startswith("DCG") for name in every)  # trec_eval's all_trec: no dcg
