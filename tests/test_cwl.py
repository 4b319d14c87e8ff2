"""The C/W/L measures against cwl_eval itself (through ir_measures' cwl_eval provider, as an
ir_measures user computes them): INST, INSQ, BPM, NERR8-11 and SDCG on random graded runs with
unjudged documents and negative grades."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from rankeval import evaluate

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")
logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)

SPELLINGS = [  # rankeval, ir_measures
    ("INST(max_rel=3)", "INST(max_rel=3)"),
    ("INST(T=2,max_rel=3)", "INST(T=2,max_rel=3)"),
    ("INSQ(max_rel=3)", "INSQ(max_rel=3)"),
    ("INSQ(T=3,max_rel=3)", "INSQ(T=3,max_rel=3)"),
    ("BPM(max_rel=3)@10", "BPM(max_rel=3)@10"),
    ("BPM(T=2,max_rel=3)@5", "BPM(T=2,max_rel=3)@5"),
    ("NERR8(max_rel=3)@10", "NERR8(max_rel=3)@10"),
    ("NERR9(max_rel=3)@10", "NERR9(max_rel=3)@10"),
    ("NERR10(max_rel=3)", "NERR10(max_rel=3)"),
    ("NERR10(p=0.8,max_rel=3)", "NERR10(p=0.8,max_rel=3)"),
    ("NERR11(max_rel=3)", "NERR11(max_rel=3)"),
    ("SDCG(max_rel=3)@10", "SDCG(max_rel=3)@10"),
    ("SDCG(min_rel=1,max_rel=3)@5", "SDCG(min_rel=1,max_rel=3)@5"),
]


def _collection(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(8):
        docs = [f"d{j}" for j in range(30)]
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in docs[:20]}
        n = int(rng.integers(1, 30))
        # distinct scores: cwl_eval ranks by score, ties in its own order
        scores = rng.permutation(n) + rng.random()
        run[f"q{q}"] = {d: float(s) for d, s in zip(rng.permutation(docs)[:n], scores, strict=True)}
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cwl_measures_equal_cwl_eval(seed):
    qrels, run = _collection(seed)
    ours = evaluate(qrels, run, [s for s, _ in SPELLINGS])
    measures = [ir_measures.parse_measure(t) for _, t in SPELLINGS]
    evaluator = ir_measures.cwl_eval.evaluator(measures, qrels)
    theirs = {}
    for m in evaluator.iter_calc(run):
        theirs[m.query_id, str(m.measure)] = m.value
    for (spelling, _), measure in zip(SPELLINGS, measures, strict=True):
        for q in ours.index:
            assert ours.loc[q, spelling] == pytest.approx(theirs[q, str(measure)], abs=1e-12), \
                (spelling, q)


def test_a_grade_above_max_rel_clips_and_max_rel_must_exceed_min_rel():
    qrels = {"q": {"a": 5, "b": 1}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    clipped = evaluate(qrels, run, ["INSQ(max_rel=3)"]).iloc[0, 0]
    at_top = evaluate({"q": {"a": 3, "b": 1}}, run, ["INSQ(max_rel=3)"]).iloc[0, 0]
    assert clipped == at_top
    with pytest.raises(ValueError, match="must be greater than min_rel"):
        evaluate(qrels, run, ["INSQ(min_rel=3,max_rel=3)"])
