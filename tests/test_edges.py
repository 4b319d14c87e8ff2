"""Issue 37: what a careless user meets at the edges of the API and the command line.

Every test here failed on the code before the fix it names; they use the public API
only (rankeval.evaluate, evaluate_groups, parse_measure, the command line's main), so
that they outlive a change of the modules' layout.
"""

import contextlib
import io
import os
import shutil
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
    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime")
    from pyspark.sql import SparkSession

    import rankeval.spark

    # this venv's Python for the workers, and the session stopped afterwards: a session
    # left running would be the one a later test file's getOrCreate() is handed, with
    # workers on another Python (one without pyarrow)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[1]").appName("rankeval-edges")
        .config("spark.ui.enabled", "false").getOrCreate()
    )  # fmt: skip
    try:
        qrels, run = _mixed_frames()
        with pytest.raises(TypeError, match=MIXED + r" \(qrels: int, run: str\)"):
            rankeval.spark.evaluate(session.createDataFrame(qrels),
                                    session.createDataFrame(run), ["AP"])
    finally:
        session.stop()


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


def test_gm_map_and_gm_bpref_are_trec_eval_geometric_means():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"x": 1, "z": 0}, "q3": {"m": 1}}
    run = {"q1": {"a": 0.5, "b": 0.9}, "q2": {"z": 1.0, "x": 0.2}, "q3": {"n": 1.0}}
    frame = rankeval.evaluate(qrels, run, ["AP", "GMAP", "gm_bpref", "Bpref"])
    assert frame["GMAP"].tolist() == frame["AP"].tolist()  # per query: the base measure
    means = rankeval.aggregate(frame)
    # q3's AP is 0, floored at 1e-5 as trec_eval's MIN_GEO_MEAN
    want = np.exp(np.mean(np.log(np.maximum(frame["AP"].to_numpy(), 1e-5))))
    assert means["GMAP"] == pytest.approx(want, rel=1e-12) and means["GMAP"] < means["AP"]
    want = np.exp(np.mean(np.log(np.maximum(frame["Bpref"].to_numpy(), 1e-5))))
    assert means["gm_bpref"] == pytest.approx(want, rel=1e-12)
    assert [str(m) for m in rankeval.parse_trec_eval("official")][4:6] == ["AP", "GMAP"]


def test_gm_map_on_the_command_line(files):
    code, out, err = cli("-q", "-m", "map", "-m", "gm_map", *files)
    assert code == 0, err
    lines = out.splitlines()
    assert [line.split("\t")[1] for line in lines if line.startswith("gm_map")] == ["all"]
    ap = [float(line.split("\t")[2]) for line in lines if line.startswith("map ")][:2]
    assert lines[-1] == f"{'gm_map':<22}\tall\t{np.exp(np.mean(np.log(ap))):.4f}"


def test_gm_map_in_dask_means():
    pytest.importorskip("dask.dataframe")
    import rankeval.dask

    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "x"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "y"],
                        "score": [0.5, 0.9, 1.0]})  # fmt: skip
    per_query = rankeval.dask.evaluate(qrels, run, ["GMAP"], npartitions=2)
    want = rankeval.aggregate(rankeval.evaluate(qrels, run, ["GMAP"], missing="zero"))
    assert rankeval.dask.means(per_query)["GMAP"] == pytest.approx(want["GMAP"], rel=1e-12)


def _random_collection(seed, n_queries=20):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(30)]
        judged = rng.choice(docs, size=int(rng.integers(0, 15)), replace=False)
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in judged} or {"d0": 0}
        retrieved = rng.choice(docs, size=int(rng.integers(1, 25)), replace=False)
        run[f"q{q}"] = {d: float(rng.integers(0, 5)) for d in retrieved}  # with ties
    return qrels, run


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_new_trec_eval_measures_against_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_collection(seed)
    names = {
        "set_map": "set_map", "set_relative_P": "set_relative_P", "binG": "binG",
        "num_nonrel_judged_ret": "num_nonrel_judged_ret", "relative_P_5": "RelP@5",
        "relative_P_20": "relative_P_20",
    }  # fmt: skip
    ours = rankeval.evaluate(qrels, run, list(names.values()))
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"set_map", "set_relative_P", "binG",
                                                    "num_nonrel_judged_ret", "relative_P"})
    theirs = theirs.evaluate(run)
    for q in ours.index:
        for peer, name in names.items():
            assert ours.loc[q, name] == pytest.approx(theirs[q][peer], abs=1e-12), (q, name)


@pytest.mark.parametrize("seed", [1, 2])
def test_gm_map_against_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_collection(seed)
    ours = rankeval.evaluate(qrels, run, ["gm_map", "gm_bpref"])
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"gm_map", "gm_bpref"}).evaluate(run)
    # pytrec_eval gives each query's log(max(v, 1e-5)); the summary is exp of their mean
    for name in ("gm_map", "gm_bpref"):
        want = np.exp(np.mean([theirs[q][name] for q in ours.index]))
        assert rankeval.aggregate(ours)[name] == pytest.approx(want, rel=1e-12)


# --- 6. the command line speaks trec_eval 10's -m syntax ----------------------------------


def test_rbp_takes_trec_eval_10s_pair_syntax(files):
    code, out, err = cli("-m", "rbp.p=0.5", *files)
    assert code == 0, err
    want = rankeval.aggregate(rankeval.evaluate(QRELS, RUN, ["trec_rbp(p=0.5)"]))
    assert out == f"{'rbp_p=0.5':<22}\tall\t{want.iloc[0]:.4f}\n"
    code, out, err = cli("-m", "rbp.0.5", *files)  # trec_eval 10 refuses it too
    assert code == 1 and "rbp.p=0.5" in err


def test_custom_11pt_levels_and_atol_cutoffs():
    (levels,) = rankeval.parse_trec_eval("11pt_avg..25,.5,.75")
    assert str(levels) == "11pt_avg(levels={0.25,0.5,0.75})"
    frame = rankeval.evaluate(QRELS, RUN, [levels, "IPrec@0.25", "IPrec@0.5", "IPrec@0.75"])
    assert frame.iloc[:, 0].tolist() == pytest.approx(frame.iloc[:, 1:].mean(axis=1).tolist())
    assert [str(m) for m in rankeval.parse_trec_eval("ndcg_cut.10,20,23.4")] == [
        "nDCG@10", "nDCG@20", "nDCG@23"
    ]  # fmt: skip


def test_closed_stdin_is_a_clear_error(files):
    saved = sys.stdin
    sys.stdin = None  # as a program started with `<&-` sees it
    try:
        code, out, err = cli(files[0], "-")
        assert code == 1 and "standard input, which is closed" in err
        with pytest.raises(ValueError, match="standard input, which is closed"):
            rankeval.read_run("-")
    finally:
        sys.stdin = saved


def test_runid_is_the_last_lines_tag(tmp_path, files):
    run = tmp_path / "tags.run"
    run.write_text("q1 Q0 a 1 0.5 first\nq1 Q0 b 2 0.9 last\n")
    code, out, err = cli("-m", "runid", "-m", "map", files[0], run)
    assert code == 0, err
    assert out.splitlines()[0] == f"{'runid':<22}\tall\tlast"  # as trec_eval 10 prints


def test_version_list_measures_and_describe(files):
    code, out, _ = cli("--version")
    assert code == 0 and out.strip().endswith(rankeval.__version__)
    code, out, _ = cli("--list-measures")
    assert code == 0 and out == rankeval.describe() + "\n"
    assert "[trec_eval: gm_map]" in out
    assert rankeval.describe("MAP").startswith("AP(rel,cap)@k  average precision")


def test_usage_names_the_program_as_invoked(monkeypatch, files):
    monkeypatch.setattr(sys, "argv", ["/usr/bin/rankeval-eval"])
    code, _, err = cli(files[0])
    assert code == 2 and err.startswith("usage: rankeval-eval ")
    monkeypatch.setattr(sys, "argv", ["/x/rankeval/__main__.py"])
    code, _, err = cli(files[0])
    assert code == 2 and err.startswith("usage: python -m rankeval ")


def test_a_run_after_a_later_m_is_a_run(tmp_path, files):
    other = tmp_path / "b.run"
    other.write_text("q1 Q0 a 1 0.5 b\nq2 Q0 x 1 1.0 b\n")
    code, out, err = cli(files[0], files[1], "-m", "P.5", other)
    assert code == 0, err
    assert [line.split("\t")[2] for line in out.splitlines() if line.startswith("runid")] == [
        "r", "b"
    ]  # fmt: skip


def _two_runs(tmp_path, files):
    other = tmp_path / "b.run"
    other.write_text("q1 Q0 b 1 0.5 b\nq1 Q0 a 2 0.4 b\nq2 Q0 y 1 1.0 b\nq2 Q0 x 2 0.5 b\n")
    return files[0], files[1], other


def test_table_formats_name_what_they_leave_out(tmp_path, files):
    code, out, err = cli(*_two_runs(tmp_path, files), "-m", "map", "num_ret", "--format",
                         "markdown")  # fmt: skip
    assert code == 0, err
    assert "Not in the table: num_ret" in out
    code, out, err = cli(*_two_runs(tmp_path, files), "-m", "map", "num_ret", "--format", "latex")
    assert code == 0 and "% Not in the table: num_ret" in out


def test_report_options(tmp_path, files):
    args = (*_two_runs(tmp_path, files), "-m", "map", "P.1", "--format", "markdown")
    code, out, err = cli(*args, "--test", "permutation", "--correction", "bonferroni",
                         "--alpha", "0.2", "--baseline", "b")  # fmt: skip
    assert code == 0, err
    assert "randomization test, Bonferroni correction" in out and "alpha = 0.2" in out
    code, out, err = cli(*args, "--baseline", "nope")
    assert code == 2 and "baseline 'nope'" in err  # a usage error (issue 52, item 12)
    code, out, err = cli(*files, "--test", "t")
    assert code == 2 and "--test" in err


def test_rounding_option_gives_trec_eval_9s_levels(files):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {f"q{i}": {f"d{j}": int(j % 3 == 0) for j in range(i + 7)} for i in range(12)}
    run = {q: {f"d{j}": 1.0 / (j + 1) for j in range(20)[::-1]} for q in qrels}
    (files[0].parent / "q2.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    (files[0].parent / "r2.txt").write_text(
        "".join(f"{q} Q0 {d} 1 {s} t\n" for q, docs in run.items() for d, s in docs.items()))
    code, out, err = cli("-m", "11pt_avg", "--rounding", "trec_eval9",
                         files[0].parent / "q2.txt", files[0].parent / "r2.txt")  # fmt: skip
    assert code == 0, err
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"11pt_avg"}).evaluate(run)
    want = np.mean([v["11pt_avg"] for v in theirs.values()])
    assert out == f"{'11pt_avg':<22}\tall\t{want:.4f}\n"


# --- 7. messages --------------------------------------------------------------------------


def test_a_non_ascii_digit_cutoff_is_a_clear_error():
    with pytest.raises(ValueError, match=r"cut-off after '@' must be a positive integer, got '²'"):
        rankeval.parse_measure("P@²")


@pytest.mark.parametrize(("name", "canonical"), [
    ("HitRate@10", "Success@10"), ("HR@10", "Success@10"), ("MRR@10", "RR@10"),
])  # fmt: skip
def test_recommender_names(name, canonical):
    assert str(rankeval.parse_measure(name)) == canonical


@pytest.mark.parametrize(("name", "suggested"), [
    ("nDGC@10", "'nDCG@10'?"), ("Precison@5", "'Precision@5'?"), ("MAPP", "'MAP'?"),
])  # fmt: skip
def test_suggestions_name_one_measure(name, suggested):
    with pytest.raises(ValueError, match=r"did you mean (.*)\?\)") as info:
        rankeval.parse_measure(name)
    assert f"did you mean {suggested})" in str(info.value)


def test_short_unknown_names_get_no_far_suggestion():
    with pytest.raises(ValueError) as info:
        rankeval.parse_measure("XR@10")
    assert "did you mean" not in str(info.value)


def test_empty_run_frame_and_duplicates_by_position():
    empty = pd.DataFrame({"query_id": [], "doc_id": [], "score": []})
    with pytest.raises(ValueError, match="the run DataFrame has no rows"):
        rankeval.evaluate(QRELS, empty, ["AP"])
    one = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(ValueError, match="rows at positions 0 and 1: document 'a' listed twice"):
        rankeval.evaluate(QRELS, pd.concat([one, one]), ["AP"])


def test_integer_ids_are_not_said_to_be_strings():
    with pytest.raises(ValueError, match="query ids are compared as integers"):
        rankeval.evaluate({1: {"a": 1}}, {2: {"a": 1.0}}, ["AP"])
    with pytest.raises(ValueError, match="query ids are compared as exact strings"):
        rankeval.evaluate({"1": {"a": 1}}, {"2": {"a": 1.0}}, ["AP"])


# --- 8. inconsistencies -------------------------------------------------------------------


def test_negative_grades_message_points_to_evaluates_reading():
    with pytest.raises(ValueError, match=r"np.maximum\(grades, 0\)"):
        rankeval.ndcg([-1, 2, 0], 3)
    # and the advice gives evaluate's value
    frame = rankeval.evaluate({"q": {"a": -1, "b": 2, "c": 0}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}},
                              ["nDCG@3"])  # fmt: skip
    assert frame.iloc[0, 0] == pytest.approx(rankeval.ndcg(np.maximum([-1, 2, 0], 0), 3))


def test_lightgbm_no_relevant_rule_ignores_the_threshold():
    labels, scores, sizes = [1, 0, 0, 0], [1.0, 2.0, 1.0, 2.0], [2, 2]
    frame = rankeval.evaluate_groups(labels, scores, sizes, ["nDCG"], conventions="lightgbm",
                                     threshold=2)  # fmt: skip
    # group 0's best label is 1: scored (LightGBM gives (2^1 - 1) / log2(3)), not forced to 1
    assert frame["nDCG"].tolist() == pytest.approx([1 / np.log2(3), 1.0])


def test_your_column_names_name_the_index():
    qrels = pd.DataFrame({"user": ["u"], "item": ["a"], "rating": [1]})
    run = pd.DataFrame({"user": ["u"], "item": ["a"], "pred": [1.0]})
    names = {"query_id": "user", "doc_id": "item", "relevance": "rating", "score": "pred"}
    assert rankeval.evaluate(qrels, run, ["AP"], columns=names).index.name == "user"


def test_dask_takes_columns_as_evaluate_does():
    pytest.importorskip("dask.dataframe")
    import rankeval.dask

    qrels = pd.DataFrame({"user": ["u"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"user": ["u"], "doc_id": ["a"], "score": [1.0]})
    got = rankeval.dask.evaluate(qrels, run, ["AP"], columns={"query_id": "user"}).compute()
    assert got.columns.tolist() == ["user", "AP"] and got["AP"].tolist() == [1.0]


def test_complete_per_query_prints_missing_queries_as_trec_eval_10(tmp_path, files):
    qrels = tmp_path / "q3.txt"
    qrels.write_text(QRELS_TEXT + "q3 0 m 1\n")
    code, out, err = cli("-c", "-q", "-m", "map", "num_rel", qrels, files[1])
    assert code == 0, err
    assert f"{'map':<22}\tq3\t0.0000" in out.splitlines()
    assert f"{'num_rel':<22}\tq3\t1" in out.splitlines()
    code, out, err = cli("-c", "-q", "--skip-missing-lines", "-m", "map", qrels, files[1])
    assert code == 0 and "\tq3\t" not in out


@pytest.mark.parametrize("seed", [4, 5])
def test_rprec_mult_and_utility_against_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_collection(seed)
    names = ["Rprec_mult@0.2", "RprecMult@1", "RprecMult@1.6", "Utility", "utility"]
    ours = rankeval.evaluate(qrels, run, names)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"Rprec_mult", "utility"}).evaluate(run)
    for q in ours.index:
        assert ours.loc[q, "Rprec_mult@0.2"] == pytest.approx(theirs[q]["Rprec_mult_0.20"])
        assert ours.loc[q, "RprecMult@1"] == pytest.approx(theirs[q]["Rprec_mult_1.00"])
        assert ours.loc[q, "RprecMult@1.6"] == pytest.approx(theirs[q]["Rprec_mult_1.60"])
        assert ours.loc[q, "Utility"] == pytest.approx(theirs[q]["utility"])


def test_unj_counts_unjudged_in_the_top_k_over_k():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 3.0, "x": 2.0, "b": 1.0}}  # x is unjudged; 3 documents for k = 5
    frame = rankeval.evaluate(qrels, run, ["Unj@2", "unj@5"])
    assert frame.loc["q"].tolist() == [1 / 2, 1 / 5]
    assert [str(m) for m in rankeval.parse_trec_eval("unj")] == ["Unj@5", "Unj@10", "Unj@20"]


@pytest.mark.parametrize("seed", [6, 7, 8])
def test_g_against_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_collection(seed)
    ours = rankeval.evaluate(qrels, run, ["G"])
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"G"}).evaluate(run)
    for q in ours.index:
        assert ours.loc[q, "G"] == pytest.approx(theirs[q]["G"], abs=1e-12), q


@pytest.mark.parametrize("seed", [9, 10, 11])
def test_ndcg_rel_and_rndcg_against_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_collection(seed, n_queries=40)
    ours = rankeval.evaluate(qrels, run, ["ndcg_rel", "Rndcg"])
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_rel", "Rndcg"}).evaluate(run)
    for q in ours.index:
        for name in ("ndcg_rel", "Rndcg"):
            assert ours.loc[q, name] == pytest.approx(theirs[q][name], abs=1e-12), (q, name)
