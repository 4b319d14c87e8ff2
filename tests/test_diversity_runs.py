"""rankeval.evaluate_diversity: arithmetic, input forms, properties, ndeval oracle, errors."""

import math
import random

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import random_id

import rankeval
from rankeval import aggregate, alpha_ndcg, err_ia, evaluate_diversity
from rankeval.io import trec

ALL = [f"{m}@{k}" for k in (1, 3, 5, 10, 20)
       for m in ("alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA")]


def _d(i):  # ndeval's discount at 0-based rank i
    return 1.0 if i == 0 else math.log(2) / math.log(i + 2)


# --- arithmetic ------------------------------------------------------------------------


def test_two_subtopics_by_hand():
    # subtopic 1: a; subtopic 2: b and c. The run shows b, c, a; novelty gains 1, 0.5, 1.
    # The greedy ideal takes c first (a tie of gain 1 goes to the larger id), then a, b.
    qrels = {"q": {1: {"a": 1}, 2: {"b": 1, "c": 1}}}
    run = {"q": {"b": 3.0, "c": 2.0, "a": 1.0, "z": 0.5}}  # z: unjudged
    got = evaluate_diversity(qrels, run, ["alpha-nDCG@3", "alpha-DCG@3", "ERR-IA@3",
                                          "nERR-IA@3", "alpha-nDCG@1"])
    dcg = 1 * _d(0) + 0.5 * _d(1) + 1 * _d(2)
    ideal = 1 * _d(0) + 1 * _d(1) + 0.5 * _d(2)
    ideal_ideal = 2 * _d(0) + 2 * 0.5 * _d(1) + 2 * 0.25 * _d(2)  # S = 2 at every rank
    err = 1 / 1 + 0.5 / 2 + 1 / 3
    err_ideal = 1 / 1 + 1 / 2 + 0.5 / 3
    err_ideal_ideal = 2 / 1 + 2 * 0.5 / 2 + 2 * 0.25 / 3
    row = got.loc["q"]
    assert row["alpha-nDCG@3"] == pytest.approx(dcg / ideal, abs=1e-12)
    assert row["alpha-DCG@3"] == pytest.approx(dcg / ideal_ideal, abs=1e-12)
    assert row["ERR-IA@3"] == pytest.approx(err / err_ideal_ideal, abs=1e-12)
    assert row["nERR-IA@3"] == pytest.approx(err / err_ideal, abs=1e-12)
    assert row["alpha-nDCG@1"] == 1.0  # b and c tie with each other at rank 1


def test_the_ideal_breaks_ties_by_the_larger_document_id():
    # a and b cover different subtopics; the run puts a first. The greedy ideal puts b
    # first (same gain, larger id), so at depth 1 both have gain 1 and nERR-IA@2 is 1,
    # while a run giving a subtopic twice scores lower.
    qrels = {"q": {1: {"a": 1, "c": 1}, 2: {"b": 1}}}
    run = {"q": {"a": 2.0, "c": 1.0}}
    got = evaluate_diversity(qrels, run, ["nERR-IA@2"]).loc["q", "nERR-IA@2"]
    assert got == pytest.approx((1 + 0.5 / 2) / (1 + 1 / 2), abs=1e-12)


# --- the same values as the matrix functions, whatever form the input takes -------------


def _collection(seed, n_queries=12):
    """Subtopic judgments and a run as tuples: ids of 1 to 40 bytes (non-ASCII, digits),
    tied scores, negative grades, unjudged documents, queries on one side only, documents
    judged for some subtopics only, queries without any relevant document."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for _ in range(int(rng.integers(1, n_queries + 1))):
        q = random_id(rng, "q")
        subtopics = list(dict.fromkeys(random_id(rng, "", 8) for _ in range(rng.integers(1, 6))))
        docs = list(dict.fromkeys(random_id(rng) for _ in range(int(rng.integers(1, 30)))))
        side = rng.random()
        if side > 0.1:  # judged
            for d in docs:
                if rng.random() < 0.3:
                    continue
                for s in subtopics:
                    if rng.random() < 0.5:
                        qrels.append((q, s, d, int(rng.choice([-1, 0, 0, 1, 2, 3]))))
        if side < 0.9:  # retrieved
            extra = [random_id(rng, "x") for _ in range(int(rng.integers(0, 4)))]
            shown = list(dict.fromkeys([d for d in docs if rng.random() < 0.8] + extra))
            for d in shown:
                tied = rng.random() < 0.5
                run.append((q, d, float(rng.integers(0, 5)) if tied else float(rng.normal())))
    return qrels, run


def _write(tmp_path, qrels, run, seed):
    """The collection as files, lines shuffled, separators varied."""
    rng = random.Random(seed)
    qrels_path, run_path = tmp_path / "qrels.diversity", tmp_path / "run.txt"
    sep = [" ", "\t", "  "][seed % 3]
    qrels_path.write_text(
        "".join(sep.join(map(str, r)) + "\n" for r in rng.sample(qrels, len(qrels))),
        encoding="utf-8",
    )
    run_path.write_text(
        "".join(f"{q}{sep}Q0{sep}{d}{sep}0{sep}{s!r}{sep}tag\n"
                for q, d, s in rng.sample(run, len(run))),
        encoding="utf-8",
    )  # fmt: skip
    return qrels_path, run_path


def _nested(qrels):
    out = {}
    for q, s, d, g in qrels:
        out.setdefault(q, {}).setdefault(s, {})[d] = g
    return out


def _run_dict(run):
    out = {}
    for q, d, s in run:
        out.setdefault(q, {})[d] = s
    return out


def _nonempty(seed):
    qrels, run = _collection(seed)
    while not (qrels and run and {r[0] for r in qrels} & {r[0] for r in run}):
        seed += 1000
        qrels, run = _collection(seed)
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
def test_file_dict_pandas_and_arrow_give_identical_results(tmp_path, seed):
    qrels, run = _nonempty(seed)
    qrels_path, run_path = _write(tmp_path, qrels, run, seed)
    frame = pd.DataFrame(qrels, columns=["topic", "intent", "docno", "judgment"])
    names = {"query_id": "topic", "subtopic": "intent", "doc_id": "docno",
             "relevance": "judgment"}
    run_frame = pd.DataFrame(run, columns=["topic", "docno", "score"])
    forms = [
        (qrels_path, run_path, None),
        (_nested(qrels), _run_dict(run), None),
        (frame, run_frame, names),
        (pa.Table.from_pandas(frame), pa.Table.from_pandas(run_frame), names),
    ]
    results = [evaluate_diversity(q, r, ALL, alpha=0.3, columns=c) for q, r, c in forms]
    for other in results[1:]:
        pd.testing.assert_frame_equal(results[0], other, check_exact=True)


def test_equals_the_matrix_functions():
    qrels = {"q1": {"s1": {"a": 1, "b": 0}, "s2": {"b": 2, "c": 1}},
             "q2": {"s1": {"x": 1}, "s2": {"y": 1}, "s3": {"x": 1, "z": 1}}}
    run = {"q1": {"c": 0.9, "a": 0.8, "d": 0.7, "b": 0.1}, "q2": {"x": 3, "y": 2, "z": 1}}
    got = evaluate_diversity(qrels, run, ["alpha-nDCG@3", "ERR-IA@4"])
    # rows: ranked documents; columns: subtopics; judgments: judged documents by id,
    # descending (ndeval's tie order)
    runs = [np.array([[0, 1], [1, 0], [0, 0], [0, 2]]), np.array([[1, 0, 1], [0, 1, 0], [0, 0, 1]])]
    judged = [np.array([[0, 1], [0, 2], [1, 0]]), np.array([[0, 0, 1], [0, 1, 0], [1, 0, 1]])]
    np.testing.assert_allclose(got["alpha-nDCG@3"], alpha_ndcg(runs, 3, judgments=judged))
    np.testing.assert_allclose(got["ERR-IA@4"], err_ia(runs, 4, judgments=judged))


def test_integer_ids_and_text_ids_agree():
    qrels = [(1, 1, 10, 1), (1, 2, 9, 1), (1, 2, 100, 1), (2, 1, 5, 2)]
    run = [(1, 10, 1.0), (1, 9, 1.0), (1, 100, 1.0), (2, 5, 0.5), (3, 7, 1.0)]
    as_ints = evaluate_diversity(_nested(qrels), _run_dict(run), ALL)
    text_qrels = [tuple(str(x) for x in r[:3]) + (r[3],) for r in qrels]
    text_run = [(str(q), str(d), s) for q, d, s in run]
    as_text = evaluate_diversity(_nested(text_qrels), _run_dict(text_run), ALL)
    assert as_ints.index.tolist() == [1, 2] and as_text.index.tolist() == ["1", "2"]
    np.testing.assert_array_equal(as_ints.to_numpy(), as_text.to_numpy())
    # integer qrels, a text run: ids are never converted, so this is an error (issue 37)
    with pytest.raises(TypeError, match="column 'query_id' holds ids of two types"):
        evaluate_diversity(_nested(qrels), _run_dict(text_run), ALL)


# --- properties ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_shuffled_lines_and_missing_queries(tmp_path, seed):
    qrels, run = _nonempty(seed)
    q1, r1 = _write(tmp_path, qrels, run, seed)
    first = evaluate_diversity(q1, r1, ALL)
    (tmp_path / "b").mkdir()
    q2, r2 = _write(tmp_path / "b", qrels, run, seed + 100)
    pd.testing.assert_frame_equal(first, evaluate_diversity(q2, r2, ALL), check_exact=True)
    # missing="zero" (ndeval's -c): every judged query, the missing ones at 0
    zero = evaluate_diversity(q1, r1, ALL, missing="zero")
    assert set(zero.index) == {r[0] for r in qrels}
    pd.testing.assert_frame_equal(zero.loc[first.index], first, check_exact=True)
    assert (zero.drop(index=first.index) == 0).all().all()
    normalised = [m for m in ALL if m.lower().startswith(("alpha-n", "nerr"))]
    assert ((first[normalised] >= 0) & (first[normalised] <= 1 + 1e-12)).all().all()


def test_the_greedy_ideal_ranking_scores_one():
    qrels = {"q": {1: {"a": 1, "b": 1}, 2: {"b": 1, "c": 1}, 3: {"d": 1}}}
    # the greedy ideal: b (2 subtopics), then d (ties with a and c at gain 1: largest id)
    run = {"q": {"b": 4.0, "d": 3.0, "c": 2.0, "a": 1.0}}
    got = evaluate_diversity(qrels, run, [f"{m}@{k}" for m in ("alpha-nDCG", "nERR-IA")
                                          for k in (1, 2, 3, 4, 10)])
    np.testing.assert_allclose(got.to_numpy(), 1.0, rtol=0, atol=1e-12)


def test_max_docs_cuts_the_ranking():
    qrels = {"q": {1: {"a": 1}, 2: {"b": 1}}}
    run = {"q": {"x": 3.0, "a": 2.0, "b": 1.0}}
    cut = evaluate_diversity(qrels, run, ["alpha-nDCG@3"], max_docs=2)
    short = evaluate_diversity(qrels, {"q": {"x": 3.0, "a": 2.0}}, ["alpha-nDCG@3"])
    pd.testing.assert_frame_equal(cut, short)


# --- ndeval (through pyndeval) ------------------------------------------------------------


def _ndeval_order(run):
    """ndeval's -traditional order (score descending, ties by document id descending, as
    bytes), written as distinct scores: pyndeval breaks ties the other way round."""
    by_query = {}
    for q, d, s in run:
        by_query.setdefault(q, []).append((d, s))
    out = []
    for q in sorted(by_query):
        docs = sorted(by_query[q], key=lambda x: x[0].encode(), reverse=True)
        docs.sort(key=lambda x: -x[1])  # stable: ties keep the id order
        out += [(q, d, float(len(docs) - i)) for i, (d, _) in enumerate(docs)]
    return out


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_ndeval(tmp_path, seed):
    pyndeval = pytest.importorskip("pyndeval")
    qrels, run = _nonempty(seed)
    alpha = [0.5, 0.3, 0.0, 0.9][seed % 4]
    qrels_path, run_path = _write(tmp_path, qrels, run, seed)
    if seed % 5 == 0:  # files larger than the reader's blocks
        trec_block = 256
    else:
        trec_block = trec._BLOCK_SIZE
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(trec, "_BLOCK_SIZE", trec_block)
        got = evaluate_diversity(qrels_path, run_path, ALL, alpha=alpha)
    want = pyndeval.RelevanceEvaluator(qrels, ALL, alpha=alpha).evaluate(_ndeval_order(run))
    assert sorted(got.index) == sorted(want)
    for q in want:
        np.testing.assert_allclose(
            got.loc[q, ALL].to_numpy(float), [want[q][m] for m in ALL], rtol=0, atol=1e-9,
            err_msg=f"query {q!r}",
        )


def test_pyndeval_ties_differ_and_the_docs_say_so():
    # pyndeval sorts tied scores by document id ascending; ndeval -traditional and
    # rankeval by id descending: a and b tie, b (subtopic 2, already covered) goes first.
    pyndeval = pytest.importorskip("pyndeval")
    qrels = [("q", "1", "a", 1), ("q", "2", "b", 1), ("q", "2", "c", 1)]
    run = [("q", "c", 2.0), ("q", "a", 1.0), ("q", "b", 1.0)]
    ours = evaluate_diversity(_nested(qrels), _run_dict(run), ["alpha-nDCG@2"])
    theirs = pyndeval.RelevanceEvaluator(qrels, ["alpha-nDCG@2"]).evaluate(run)
    ideal = 1 + 1 * _d(1)
    assert theirs["q"]["alpha-nDCG@2"] == pytest.approx(1.0)  # c, a
    assert ours.loc["q", "alpha-nDCG@2"] == pytest.approx((1 + 0.5 * _d(1)) / ideal)  # c, b


# --- aggregate, public names --------------------------------------------------------------


def test_aggregate_and_exports():
    qrels = {"q1": {1: {"a": 1}}, "q2": {1: {"b": 1}}}
    run = {"q1": {"a": 1.0}, "q2": {"c": 1.0, "b": 0.5}}
    # every name asked for is a column, in order (issue 37), as in evaluate
    df = evaluate_diversity(qrels, run, ["alpha-nDCG@2", "alpha_ndcg@2"])
    assert list(df.columns) == ["alpha-nDCG@2", "alpha_ndcg@2"]
    assert aggregate(df)["alpha-nDCG@2"] == pytest.approx((1 + _d(1)) / 2)
    assert "evaluate_diversity" in rankeval.__all__


# --- errors -------------------------------------------------------------------------------


def test_errors(tmp_path):
    qrels = {"q": {1: {"a": 1}}}
    run = {"q": {"a": 1.0}}
    with pytest.raises(ValueError, match="unknown diversity measure 'nDCG@10'"):
        evaluate_diversity(qrels, run, ["nDCG@10"])
    with pytest.raises(ValueError, match="alpha-nDCG needs a cut-off"):
        evaluate_diversity(qrels, run, "alpha-nDCG")
    with pytest.raises(ValueError, match="'ERR-IA@0': the cut-off after '@' must be a positive"):
        evaluate_diversity(qrels, run, "ERR-IA@0")
    with pytest.raises(ValueError, match="measures is empty"):
        evaluate_diversity(qrels, run, [])
    with pytest.raises(TypeError, match="a measure must be a string"):
        evaluate_diversity(qrels, run, [5])
    with pytest.raises(ValueError, match=r"alpha must lie in \[0, 1\)"):
        evaluate_diversity(qrels, run, alpha=1.0)
    with pytest.raises(ValueError, match="threshold must be > 0"):
        evaluate_diversity(qrels, run, threshold=0)
    with pytest.raises(ValueError, match="missing must be"):
        evaluate_diversity(qrels, run, missing="all")
    with pytest.raises(ValueError, match=r"columns maps \['user'\]"):
        evaluate_diversity(qrels, run, columns={"user": "u"})
    path = tmp_path / "q.txt"
    path.write_text("1 1 a 1\n1 2 a 1\n1 1 a 0\n")
    with pytest.raises(ValueError, match=r"q.txt, lines 1 and 3: document 'a' judged twice "
                                         r"for query '1', subtopic '1'"):
        evaluate_diversity(path, run)
    path.write_text("1 1 a 1\n1 a 1\n")
    with pytest.raises(ValueError, match=r"q.txt, line 2: malformed subtopic qrels line"):
        evaluate_diversity(path, run)
    path.write_text("")
    with pytest.raises(ValueError, match="the subtopic qrels file holds no lines"):
        evaluate_diversity(path, run)
    with pytest.raises(ValueError, match="subtopic qrels hold no judgment"):
        evaluate_diversity({"q": {}}, run)
    with pytest.raises(TypeError, match=r"subtopic qrels\['q'\] must be a dict"):
        evaluate_diversity({"q": ["a"]}, run)
    with pytest.raises(TypeError, match=r"\['q'\]\['a'\] must be a dict .* got int \(ordinary"):
        evaluate_diversity({"q": {"a": 1}}, run)
    with pytest.raises(TypeError, match=r"subtopic qrels\['q'\]\[1\]\['a'\]: grade must be"):
        evaluate_diversity({"q": {1: {"a": "1"}}}, run)
    with pytest.raises(ValueError, match="needs the columns query_id, subtopic"):
        evaluate_diversity(pd.DataFrame({"query_id": ["q"], "doc_id": ["a"],
                                         "relevance": [1]}), run)
    with pytest.raises(ValueError, match="no query in common"):
        evaluate_diversity(qrels, {"other": {"a": 1.0}})


# --- the command line (--subtopics) ---------------------------------------------------------


def _cli(capsys, *args):
    from rankeval.cli import main

    try:
        code = main([str(a) for a in args])
    except SystemExit as exit:  # argparse's usage errors
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def test_command_line_equals_evaluate_diversity(tmp_path, capsys):
    qrels, run = _nonempty(3)
    qrels_path, run_path = _write(tmp_path, qrels, run, 3)
    names = ["alpha-nDCG@10", "nERR-IA@5"]
    want = evaluate_diversity(qrels_path, run_path, names, alpha=0.3, missing="zero")
    code, out, _ = _cli(capsys, "--subtopics", "-q", "-c", "--alpha", "0.3", "-m", *names,
                        "--digits", "17", qrels_path, run_path)
    assert code == 0
    lines = [line.split("\t") for line in out.splitlines()]
    per_query = {(q, m.strip()): float(v) for m, q, v in lines if q != "all"}
    for q in want.index:
        for m in names:
            assert per_query[(q, m)] == pytest.approx(want.loc[q, m], abs=1e-15)
    summary = {m.strip(): float(v) for m, q, v in lines if q == "all"}
    assert summary["num_q"] == len(want)
    for m in names:
        assert summary[m] == pytest.approx(want[m].mean(), abs=1e-15)
    # the default measures, TREC's main ones
    code, out, _ = _cli(capsys, "--subtopics", qrels_path, run_path)
    assert code == 0
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == [
        "num_q", "alpha-nDCG@20", "ERR-IA@20"]


def test_command_line_errors(tmp_path, capsys):
    qrels_path, run_path = tmp_path / "q", tmp_path / "r"
    qrels_path.write_text("1 1 a 1\n")
    run_path.write_text("1 Q0 a 1 1.0 t\n")
    code, _, err = _cli(capsys, "-m", "alpha-nDCG@5", qrels_path, run_path)
    assert code == 1 and "is a diversity measure" in err and "--subtopics" in err
    code, _, err = _cli(capsys, "--alpha", "0.3", qrels_path, run_path)
    assert code == 2 and "--alpha is the diversity measures' alpha (with --subtopics)" in err
    code, _, err = _cli(capsys, "--subtopics", "-J", "--ties", "input", qrels_path, run_path)
    assert code == 2 and "-J, --ties: not defined for --subtopics" in err
    code, _, err = _cli(capsys, "--subtopics", "-m", "nDCG@5", qrels_path, run_path)
    assert code == 1 and "unknown diversity measure 'nDCG@5'" in err
    qrels_path.write_text("1 1 a 1\n1 1 a 2\n")
    code, _, err = _cli(capsys, "--subtopics", qrels_path, run_path)
    assert code == 1 and "lines 1 and 2: document 'a' judged twice" in err
