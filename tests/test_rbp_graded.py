"""ir_measures' graded RBP (issue 48): ``RBP(graded=True)``, the convention
``rbp_gain="grade"`` and the preset ``ir_measures``.

ir_measures spells two measures ``RBP``: without ``rel`` the gain of a document is its
grade (its trectools provider: ``TrecEval.get_rbp(..., binary_topical_relevance=False)``);
with ``rel`` it is 1 for a grade at least ``rel`` (its cwl_eval provider). rankeval's
plain ``RBP`` is the second. Oracles: trectools' ``get_rbp`` written out as loops, its
value on a small example as ``ir_measures.trectools`` 0.4.3 (trectools 0.0.50) printed
it, ir_measures' own parser for the names, and ir_measures' cwl_eval provider for
``RBP(rel=...)``; when trectools is installed, ir_measures.trectools itself.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankeval
from rankeval import Conventions, parse_measure
from rankeval.evaluation.conventions import PRESETS


def trectools_rbp(qrels: dict, run: dict, p: float = 0.8, depth: int | None = None) -> dict:
    """trectools' ``get_rbp`` (trec_eval.py) with ``binary_topical_relevance=False``, as
    ir_measures calls it, one query at a time: the run sorted by score, descending; the
    top ``depth``; rank ``i`` weighs ``(1 - p) * p ** (i - 1)`` (consecutive tied scores
    share the mean of their weights: ``average_ties=True``); the value is the sum of
    weight times grade over the ranked documents of the qrels with a grade > 0. A query
    with none has no row in trectools' result: None here."""
    out = {}
    for q, scored in run.items():
        ranked = sorted(scored.items(), key=lambda item: -item[1])
        if depth is not None:
            ranked = ranked[:depth]
        weights = [(1.0 - p) * p ** (rank - 1) for rank in range(1, len(ranked) + 1)]
        averaged = list(weights)
        start = 0
        for i in range(1, len(ranked) + 1):  # groups of consecutive equal scores
            if i == len(ranked) or ranked[i][1] != ranked[start][1]:
                mean = sum(weights[start:i]) / (i - start)
                for j in range(start, i):
                    averaged[j] = mean
                start = i
        total, found = 0.0, False
        for (doc, _), weight in zip(ranked, averaged, strict=True):
            grade = qrels.get(q, {}).get(doc)
            if grade is not None and grade > 0:
                total += weight * grade
                found = True
        out[q] = total if found else None
    return out


def graded_collection(seed: int, n_queries: int = 30, ties: bool = False):
    """Grades -1..4, unjudged documents, distinct scores unless ``ties``."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for i in range(n_queries):
        q = f"q{i}"
        docs = [f"d{j}" for j in rng.permutation(40)[: int(rng.integers(2, 30))]]
        qrels[q] = {d: int(rng.integers(-1, 5)) for d in docs[: int(len(docs) * 0.7) + 1]}
        shown = docs[: int(rng.integers(1, len(docs) + 1))] + ["u1", "u2"]
        scores = rng.permutation(len(shown)) / len(shown)
        if ties:
            scores = np.round(scores, 1)
        run[q] = {d: float(s) for d, s in zip(shown, scores, strict=True)}
    return qrels, run


# --- the names ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["RBP", "RBP(p=0.9)", "RBP(p=0.5)@5", "RBP(rel=1)",
                                  "RBP(rel=2)@10", "RBP(p=0.95,rel=3)"])  # fmt: skip
def test_ir_measures_objects_are_read_by_their_meaning(name):
    ir_measures = pytest.importorskip("ir_measures")
    obj = ir_measures.parse_measure(name)
    m = parse_measure(obj)
    graded = "rel" not in obj.params  # ir_measures: no rel means the grade is the gain
    assert m.param.get("graded", False) is graded
    assert m.cutoff == obj.params.get("cutoff")
    assert m.param["p"] == obj.params.get("p", 0.8)
    if not graded:
        assert m.param["rel"] == obj.params["rel"]
    # the string is rankeval's name: binary, whatever ir_measures means by it
    assert "graded" not in parse_measure(name).param
    # under the preset ir_measures, the string means what ir_measures means
    planned = rankeval.plan([name], conventions="ir_measures").measures[0]
    assert planned.param.get("graded", False) is graded


def test_spellings_and_conflicts():
    assert str(parse_measure("RBP(graded=True)")) == "RBP(graded=True,p=0.8)"
    assert str(parse_measure("RBP(graded=False)@5")) == "RBP(graded=False,p=0.8)@5"
    assert parse_measure("RBP(graded=True)").binary is False
    assert parse_measure("RBP(graded=False)").binary is True
    assert parse_measure("RBP").binary is True
    for bad in ("RBP(graded=True,rel=2)", "RBP(graded=True,max_grade=4)"):
        with pytest.raises(ValueError, match="graded=True takes the grade itself"):
            parse_measure(bad)
    with pytest.raises(ValueError, match="rbp_gain must be one of 'binary', 'grade'"):
        Conventions(rbp_gain="graded")
    with pytest.raises(ValueError, match="rbp_gain"):
        rankeval.plan(["RBP"]).replace(rbp_gain="grade")
    assert Conventions().rbp_gain == "binary"
    assert PRESETS["ir_measures"] == PRESETS["pytrec_eval"].replace(rbp_gain="grade")


# --- the values -----------------------------------------------------------------------------


def test_by_hand_and_as_trectools_printed_it():
    # grades 2, 1, 0, unjudged, 3 at ranks 1..5; p = 0.8: 0.2 (2 + 0.8 + 3 * 0.8^4);
    # ir_measures.trectools printed 0.8057599999999998 (and 1.25 for RBP(p=0.5)@3:
    # 0.5 (2 + 0.5), above 1), and 0.0 for the query without a relevant document
    qrels = {"1": {"a": 2, "b": 1, "c": 0, "d": 3}, "2": {"x": 1}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0, "z": 0.5, "d": 0.2}, "2": {"y": 1.0}}
    names = ["RBP(graded=True)", "RBP(p=0.5,graded=True)@3", "RBP", "RBP(rel=1)"]
    table = rankeval.evaluate(qrels, run, names)
    assert table.loc["1", "RBP(graded=True)"] == pytest.approx(0.2 * (2.8 + 3 * 0.8**4),
                                                               abs=1e-15)  # fmt: skip
    assert table.loc["1", "RBP(graded=True)"] == pytest.approx(0.8057599999999998, abs=1e-15)
    assert table.loc["1", "RBP(p=0.5,graded=True)@3"] == 1.25
    assert table.loc["1", "RBP"] == pytest.approx(0.2 * (1 + 0.8 + 0.8**4), abs=1e-15)
    assert table.loc["1", "RBP"] == table.loc["1", "RBP(rel=1)"]
    assert (table.loc["2"] == 0).all()
    assert rankeval.rbp([2, 1, 0, 0, 3], graded=True) == table.loc["1", "RBP(graded=True)"]
    preset = rankeval.evaluate(qrels, run, ["RBP", "RBP(rel=1)"], conventions="ir_measures")
    assert preset.loc["1", "RBP"] == table.loc["1", "RBP(graded=True)"]
    assert preset.loc["1", "RBP(rel=1)"] == table.loc["1", "RBP"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("p", "depth"), [(0.8, None), (0.5, 5), (0.95, 20)])
def test_against_trectools_transcribed(seed, p, depth):
    qrels, run = graded_collection(seed)
    cut = "" if depth is None else f"@{depth}"
    names = [f"RBP(p={p},graded=True){cut}", f"RBP(p={p}){cut}"]
    table = rankeval.evaluate(qrels, run, names[:1])
    preset = rankeval.evaluate(qrels, run, names[1:], conventions="ir_measures")
    by_flag = rankeval.evaluate(qrels, run, names[1:], rbp_gain="grade")
    want = trectools_rbp(qrels, run, p, depth)
    assert any(v is None for v in want.values()) and any(v for v in want.values())
    for q, value in want.items():
        expected = 0.0 if value is None else value  # trectools: no row; rankeval: 0
        for got in (table.loc[q, names[0]], preset.loc[q, names[1]], by_flag.loc[q, names[1]]):
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-15), q
    # grades above 1: the graded values exceed the binary ones, and some exceed 1
    binary = rankeval.evaluate(qrels, run, names[1:])[names[1]]
    assert (table[names[0]] >= binary).all() and (table[names[0]] > binary).any()


def test_tied_scores_are_where_trectools_differs():
    """trectools averages the weights of tied documents; rankeval orders them by its
    ``ties`` convention. Without ties the two agree (above); with them they may not, and
    the docstring says so."""
    qrels = {"q": {"a": 3, "b": 0}}
    run = {"q": {"a": 0.5, "b": 0.5}}
    want = trectools_rbp(qrels, run)["q"]  # (0.2 + 0.16) / 2 * 3
    assert want == pytest.approx(0.54, abs=1e-15)
    got = rankeval.evaluate(qrels, run, ["RBP(graded=True)"]).iloc[0, 0]
    assert got in (pytest.approx(0.6), pytest.approx(0.48))  # a first or second
    assert "averages" in rankeval.rbp.__doc__


def test_binary_rbp_is_ir_measures_rbp_with_rel():
    """ir_measures computes RBP(rel=r) with its cwl_eval provider: rankeval's RBP."""
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl", reason="ir_measures' RBP(rel=...) needs cwl-eval")
    qrels, run = graded_collection(7, n_queries=12)
    q = [ir_measures.Qrel(a, d, g) for a, docs in qrels.items() for d, g in docs.items()]
    r = [ir_measures.ScoredDoc(a, d, s) for a, docs in run.items() for d, s in docs.items()]
    for name in ("RBP(rel=1)", "RBP(rel=2)", "RBP(p=0.5,rel=1)"):
        measure = ir_measures.parse_measure(name)
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], q, r)}
        ours = rankeval.evaluate(qrels, run, [measure])[str(measure)]
        for query, value in theirs.items():
            assert ours[query] == pytest.approx(value, abs=1e-9), (name, query)
        # and the default pipeline refuses ir_measures' graded RBP (trectools is left out)
    with pytest.raises((ValueError, RuntimeError)):
        ir_measures.calc_aggregate([ir_measures.RBP], q, r)


def test_ir_measures_trectools_itself():
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("trectools", reason="ir_measures' graded RBP needs trectools")
    qrels, run = graded_collection(11, n_queries=15)
    # each query its own range of scores: trectools (0.0.50) averages the weights of
    # equal scores over the whole run, other queries' documents included, so that a
    # score two queries share changes its values (seen on this data: q4's RBP(p=0.5)@5
    # is 0.78125 with the shared scores, 0.3125 alone, as with the query's own range)
    run = {a: {d: s + i for d, s in docs.items()} for i, (a, docs) in enumerate(run.items())}
    q = [ir_measures.Qrel(a, d, g) for a, docs in qrels.items() for d, g in docs.items()]
    r = [ir_measures.ScoredDoc(a, d, s) for a, docs in run.items() for d, s in docs.items()]
    for name in ("RBP", "RBP(p=0.5)@5", "RBP(p=0.95)@20"):
        measure = ir_measures.parse_measure(name)
        theirs = {m.query_id: m.value for m in ir_measures.trectools.iter_calc([measure], q, r)}
        ours = rankeval.evaluate(qrels, run, [measure])[str(measure)]
        for query, value in theirs.items():
            assert ours[query] == pytest.approx(value, abs=1e-12), (name, query)


# --- the preset ir_measures is what ir_measures computes -------------------------------------

# measures ir_measures' default pipeline computes with pytrec_eval, on tied scores
# (RBP(rel=r) goes to cwl_eval, whose order of tied scores is its own: compared above,
# without ties)
IR_MEASURES_NAMES = ["P@5", "P(rel=2)@10", "R@10", "AP", "AP@10", "nDCG", "nDCG@10",
                     "RR", "Rprec", "Bpref", "IPrec@0.4", "NumRet", "NumRelRet",
                     "Success@5"]


def test_the_preset_is_ir_measures_default_pipeline():
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pytrec_eval")
    qrels, run = graded_collection(3, n_queries=25, ties=True)
    assert any(len(set(scores.values())) < len(scores) for scores in run.values())
    q = [ir_measures.Qrel(a, d, g) for a, docs in qrels.items() for d, g in docs.items()]
    r = [ir_measures.ScoredDoc(a, d, s) for a, docs in run.items() for d, s in docs.items()]
    measures = [ir_measures.parse_measure(name) for name in IR_MEASURES_NAMES]
    theirs = {}
    for m in ir_measures.iter_calc(measures, q, r):
        theirs.setdefault(str(m.measure), {})[m.query_id] = m.value
    ours = rankeval.evaluate(qrels, run, [str(m) for m in measures], conventions="ir_measures")
    for name, values in theirs.items():
        for query, value in values.items():
            assert ours.loc[query, name] == pytest.approx(value, abs=1e-9), (name, query)
    assert set(theirs) == {str(m) for m in measures}
