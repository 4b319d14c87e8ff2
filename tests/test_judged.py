"""Judged@k and trec_eval's unj: arithmetic, properties, errors, and the one rule of what
is judged (a grade >= 0; a negative grade is in the pool but unjudged, as trec_eval reads
it; issue 52)."""

import numpy as np
import pytest
from _judged_collection import judged_grades, judged_ragged
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval
from rankeval.metrics.judged import in_pool_unjudged, is_judged, judged_at_k

nan = np.nan


def test_values_by_hand():
    r = [0, nan, 1, -1, nan, 2]
    assert judged_at_k(r, 1) == 1.0
    assert judged_at_k(r, 2) == 1 / 2
    assert judged_at_k(r, 4) == 2 / 4  # -1: in the pool, not judged (trec_eval)
    assert judged_at_k(r, 6) == 3 / 6


def test_short_list_denominator():
    # ir_measures divides by the documents retrieved when fewer than k.
    assert judged_at_k([1, nan], 10) == 1 / 2
    assert judged_at_k([1, nan], 10, divide_by="k") == 1 / 10


def test_batch_padding_is_not_a_document():
    got = judged_at_k([[1, 0, 0], [nan]], 3)
    np.testing.assert_array_equal(got, [1.0, 0.0])
    got = judged_at_k(np.array([[1, nan], [nan, nan]]), 2)
    np.testing.assert_array_equal(got, [0.5, 0.0])


@settings(max_examples=50)
@given(judged_grades(), st.integers(1, 15))
def test_range_and_complete_judgments(r, k):
    assert 0 <= judged_at_k(r, k) <= 1
    complete = [0.0 if not g >= 0 else g for g in r]  # NaN and negative grades judged 0
    assert judged_at_k(complete, k) == 1.0


@settings(max_examples=40)
@given(judged_ragged(), st.integers(1, 15))
def test_batch_equals_per_query(rs, k):
    np.testing.assert_array_equal(judged_at_k(rs, k), [judged_at_k(r, k) for r in rs])


def test_errors():
    with pytest.raises(TypeError, match="needs a cut-off"):
        judged_at_k([1, nan], None)
    with pytest.raises(ValueError, match="k must be a positive int"):
        judged_at_k([1, nan], 0)
    with pytest.raises(ValueError, match='divide_by must be "retrieved" or "k"'):
        judged_at_k([1], 2, divide_by="n")
    with pytest.raises(TypeError, match="must contain numbers"):
        judged_at_k(["d1", "d2"], 2)


# --- the one rule: negative grades are unjudged, as in trec_eval (issue 52, item 2) ---------


def test_the_rule():
    grades = [3.0, 0.0, -0.5, -1.0, -2.0, nan]
    assert is_judged(grades).tolist() == [True, True, False, False, False, False]
    assert in_pool_unjudged(grades).tolist() == [False, False, True, True, True, False]


def test_unj_counts_a_negative_grade_as_unjudged():
    # the example: trec_eval 10 prints unj_2 = 0.5 (m_unjudged.c counts
    # RELVALUE_UNJUDGED, the code of every negative grade in the qrels)
    qrels, run = {"q1": {"a": 1, "b": -1}}, {"q1": {"a": 2.0, "b": 1.0}}
    frame = rankeval.evaluate(qrels, run, ["Unj@2", "Judged@2", "unj_5"])
    assert frame.loc["q1"].tolist() == [0.5, 0.5, 1 / 5]


def _unj_by_hand(qrels, run, k):
    """m_unjudged.c on the dicts: documents of the top k (trec_eval's order: score
    descending, then doc id descending) not in the qrels or graded < 0, over k."""
    out = {}
    for q in sorted(set(run) & set(qrels)):
        order = sorted(run[q], key=lambda d: (-run[q][d], [-b for b in d.encode()]))
        top = order[:k]
        out[q] = sum(1 for d in top if qrels[q].get(d, -1) < 0) / k
    return out


@pytest.mark.parametrize("seed", range(4))
def test_unj_and_judged_against_trec_eval_rule(seed):
    from conftest import trec_collection

    qrels, run = trec_collection(seed)  # grades -2..4, unjudged documents, ties
    ks = (1, 5, 10, 20)
    frame = rankeval.evaluate(qrels, run, [f"Unj@{k}" for k in ks] + [f"Judged@{k}" for k in ks]
                              + ["NumRet"])  # fmt: skip
    assert any(g < 0 for docs in qrels.values() for g in docs.values())
    for k in ks:
        want = _unj_by_hand(qrels, run, k)
        got = frame[f"Unj@{k}"].to_dict()
        assert got == pytest.approx(want, abs=1e-15)
        # Judged@k is its mirror image: judged + unjudged = the documents ranked
        shown = np.minimum(frame["NumRet"], k)
        np.testing.assert_allclose(frame[f"Judged@{k}"] * np.maximum(shown, 1)
                                   + frame[f"Unj@{k}"] * k, shown, atol=1e-12)  # fmt: skip


def test_judged_equals_ir_measures_without_negative_grades():
    ir_measures = pytest.importorskip("ir_measures")
    from conftest import trec_collection

    qrels, run = trec_collection(7)
    # ir_measures counts every listed document as judged, a negative grade included;
    # without negative grades the two agree
    plain = {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in qrels.items()}
    ours = rankeval.evaluate(plain, run, ["Judged@10"])["Judged@10"]
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc(
        [ir_measures.Judged @ 10], plain, run)}  # fmt: skip
    assert set(theirs) <= set(ours.index) and len(theirs) > 10
    for q, v in theirs.items():
        # ir_measures breaks ties by doc id ascending, trec_eval descending: compare
        # only queries without tied scores inside their top 10
        scores = sorted(run[q].values(), reverse=True)[:11]
        if len(set(scores)) == len(scores):
            assert ours[q] == pytest.approx(v, abs=1e-12), q
    # with them, ir_measures is higher by the share of negative grades in the top 10
    ours = rankeval.evaluate(qrels, run, ["Judged@10"])["Judged@10"]
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc(
        [ir_measures.Judged @ 10], qrels, run)}  # fmt: skip
    gaps = 0
    for q, v in theirs.items():
        order = sorted(run[q], key=lambda d: -run[q][d])
        scores = [run[q][d] for d in order[:11]]
        if len(set(scores)) == len(scores):
            top = order[:10]
            negative = sum(qrels[q].get(d, 0) < 0 for d in top) / len(top)
            assert v - ours[q] == pytest.approx(negative, abs=1e-12), q
            gaps += negative > 0
    assert gaps > 0


def test_every_judged_rule_reads_negative_grades_alike():
    """Judged@k, Unj@k, bpref, infAP, num_nonrel_judged_ret and judged_only agree on
    one query whose only negatively graded document is retrieved."""
    qrels = {"q": {"r": 1, "n": 0, "u": -1}}
    run = {"q": {"r": 3.0, "u": 2.0, "n": 1.0, "x": 0.5}}
    f = rankeval.evaluate(qrels, run, ["Judged@4", "Unj@4", "num_nonrel_judged_ret",
                                       "NumRet", "bpref", "infAP", "P@2"])  # fmt: skip
    assert f.loc["q", "Judged@4"] == 2 / 4 and f.loc["q", "Unj@4"] == 2 / 4
    assert f.loc["q", "num_nonrel_judged_ret"] == 1
    assert f.loc["q", "P@2"] == 1 / 2  # "u" is not relevant
    dropped = rankeval.evaluate(qrels, run, ["NumRet", "P@2", "Judged@4"], judged_only=True)
    assert dropped.loc["q"].tolist() == [2, 1 / 2, 1.0]  # "u" and "x" dropped (-J)
