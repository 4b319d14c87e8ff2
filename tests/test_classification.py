"""F1@k, FallOut@k, AUROC and NCG@k against scikit-learn's roc_auc_score, the published
formulas written as loops (torchmetrics' RetrievalFBetaScore and RetrievalFallOut), and
by-hand values; the public functions and evaluate's declarations agree."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from rankeval import evaluate
from rankeval.metrics.classification import auroc, f1_at_k, fallout_at_k, ncg_at_k

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "d": 0, "e": -1}, "q2": {"x": 1, "y": 0}}
RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "z": 0.6, "d": 0.1}, "q2": {"y": 1.0, "x": 0.5}}


def test_by_hand_through_evaluate():
    table = evaluate(QRELS, RUN, ["F1@3", "FallOut@2", "AUROC", "AUROC@3", "NCG@2"])
    # q1 ranks a(2) b(0) c(1) z(unjudged) d(0); e's grade -1 makes it unjudged
    assert table.loc["q1"].tolist() == pytest.approx([0.8, 0.5, 0.75, 0.5, 2 / 3])
    # q2 ranks y(0) x(1)
    assert table.loc["q2"].tolist() == pytest.approx([0.5, 1.0, 0.0, 0.0, 1.0])


def _query(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 15))
    grades = rng.integers(-1, 4, n).astype(float)
    grades[rng.random(n) < 0.2] = np.nan
    extra_rel = int(rng.integers(0, 3))
    extra_non = int(rng.integers(0, 3))
    return grades, extra_rel, extra_non


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 15), st.sampled_from([1, 2]))
def test_auroc_is_scikit_learns_over_the_judged_items(seed, k, t):
    grades, _, _ = _query(seed)
    top = grades[:k]
    judged = ~np.isnan(top) & (top >= 0)
    labels = (top[judged] >= t).astype(int)
    positions = np.arange(top.size)[judged]
    value = auroc(grades, k, threshold=t)
    if labels.min(initial=1) == labels.max(initial=0) or labels.size == 0:
        assert value == 0.0
    else:
        assert value == pytest.approx(roc_auc_score(labels, -positions))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 15))
def test_f1_and_fallout_are_the_published_formulas(seed, k):
    grades, extra_rel, extra_non = _query(seed)
    g = np.nan_to_num(grades, nan=-1)
    rel_in_list = int((g >= 1).sum())
    non_in_list = int(((g >= 0) & (g < 1)).sum())
    n_rel, n_non = rel_in_list + extra_rel, non_in_list + extra_non
    hits = int((g[:k] >= 1).sum())
    # torchmetrics' RetrievalFBetaScore, beta = 1: precision over k, recall over n_rel
    p, r = hits / k, (hits / n_rel if n_rel else 0.0)
    f1 = 0.0 if hits == 0 else 2 * p * r / (p + r)
    assert f1_at_k(np.maximum(g, 0), k, n_relevant=n_rel) == pytest.approx(f1)
    # RetrievalFallOut: non-relevant shown in the top k over all non-relevant
    shown = int(((g[:k] >= 0) & (g[:k] < 1)).sum())
    fallout = shown / n_non if n_non else 0.0
    assert fallout_at_k(grades, k, n_nonrelevant=n_non) == pytest.approx(fallout)


def test_ncg_by_hand_and_order_inside_the_cut_does_not_matter():
    assert ncg_at_k([0, 2, 1], k=2, ideal=[2, 1, 1, 0]) == pytest.approx(2 / 3)
    assert ncg_at_k([2, 0, 1], k=3, ideal=[2, 1]) == ncg_at_k([1, 0, 2], k=3, ideal=[2, 1]) == 1.0
    assert ncg_at_k([0, 0], k=2) == 0.0


def test_the_public_functions_equal_evaluate():
    rng = np.random.default_rng(4)
    qrels, run = {}, {}
    for q in range(20):
        docs = [f"d{j}" for j in range(12)]
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in docs[:9]}
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs[2:], rng.random(10), strict=True)}
    table = evaluate(qrels, run, ["F1@5", "FallOut@5", "AUROC", "NCG@5"], missing="skip")
    for q in table.index:
        ranked = sorted(run[q], key=lambda d: (-run[q][d], d))
        grades = [qrels[q].get(d, np.nan) for d in ranked]
        grades = [np.nan if (g == g and g < 0) else g for g in grades]
        judged = np.array(list(qrels[q].values()))
        n_rel, n_non = int((judged >= 1).sum()), int(((judged >= 0) & (judged < 1)).sum())
        assert table.loc[q, "F1@5"] == pytest.approx(
            f1_at_k(np.nan_to_num(grades, nan=0.0), 5, n_relevant=n_rel))
        assert table.loc[q, "FallOut@5"] == pytest.approx(
            fallout_at_k(grades, 5, n_nonrelevant=n_non))
        assert table.loc[q, "AUROC"] == pytest.approx(auroc(grades))
        assert table.loc[q, "NCG@5"] == pytest.approx(
            ncg_at_k(np.maximum(np.nan_to_num(grades, nan=0.0), 0), 5, ideal=np.maximum(judged, 0)))


@pytest.mark.parametrize("call, message", [
    (lambda: f1_at_k([1, 0], 2, n_relevant=0), "smaller than"),
    (lambda: fallout_at_k([0, 0], 2, n_nonrelevant=1), "smaller than"),
    (lambda: ncg_at_k([[1, 0]], 1, ideal=[[1], [2]]), "queries"),
])
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_fallout_is_lower_is_better():
    from rankeval.measures import DECLARATIONS

    assert DECLARATIONS["FallOut"].lower_is_better
    assert not DECLARATIONS["AUROC"].lower_is_better
