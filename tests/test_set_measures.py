"""Set precision, recall and F: arithmetic, properties, trec_eval agreement, errors."""

import numpy as np
import pytest
from _judged_collection import counts, judged_collection, judged_grades, judged_ragged, pytrec
from hypothesis import given, settings

from rankeval.metrics.set_measures import set_f, set_precision, set_recall

nan = np.nan


# --- arithmetic ---------------------------------------------------------------------


def test_values_by_hand():
    r = [1, nan, 0, 2, -1]  # 2 relevant among 5 retrieved; 4 relevant in the qrels
    assert set_precision(r) == 2 / 5
    assert set_recall(r, n_relevant=4) == 2 / 4
    p, rec = 2 / 5, 2 / 4
    assert set_f(r, n_relevant=4) == 2 * p * rec / (p + rec)
    # trec_eval's weight x = beta: (1 + x) P R / (x P + R)
    assert set_f(r, n_relevant=4, beta=0.25) == 1.25 * p * rec / (0.25 * p + rec)
    assert set_f(r, n_relevant=4, beta=0) == pytest.approx(p, abs=1e-15)


def test_no_relevant_retrieved():
    assert set_f([0, nan], n_relevant=3) == 0.0
    assert set_recall([0, 0], n_relevant=0) == 0.0
    assert set_precision([0, 0]) == 0.0


def test_threshold_and_ragged_batch():
    np.testing.assert_array_equal(set_precision([[2, 1], [1, 1, 2, 0]], threshold=2), [0.5, 0.25])


# --- properties ---------------------------------------------------------------------


@settings(max_examples=60)
@given(judged_grades())
def test_ranges_and_harmonic_mean(r):
    n_rel = sum(1 for g in r if g >= 1) + 1
    p, rec = set_precision(r), set_recall(r, n_relevant=n_rel)
    f = set_f(r, n_relevant=n_rel)
    assert 0 <= p <= 1 and 0 <= rec <= 1 and 0 <= f <= 1
    assert min(p, rec) - 1e-12 <= f <= max(p, rec) + 1e-12
    all_relevant = [1.0] * len(r)
    assert set_f(all_relevant) == 1.0


@settings(max_examples=40)
@given(judged_ragged())
def test_batch_equals_per_query(rs):
    n_rel = [sum(1 for g in r if g >= 1) + 1 for r in rs]
    pairs = list(zip(rs, n_rel, strict=True))
    np.testing.assert_array_equal(set_precision(rs), [set_precision(r) for r in rs])
    np.testing.assert_array_equal(
        set_recall(rs, n_relevant=n_rel), [set_recall(r, n_relevant=n) for r, n in pairs]
    )
    np.testing.assert_array_equal(
        set_f(rs, n_relevant=n_rel, beta=0.5), [set_f(r, n_relevant=n, beta=0.5) for r, n in pairs]
    )


# --- trec_eval ----------------------------------------------------------------------




@pytest.mark.parametrize("beta", [0.25, 0.5, 2.0])
def test_beta_agrees_with_pytrec_eval(beta):
    pytest.importorskip("pytrec_eval")
    qrels, run, rankings, judgments = judged_collection(7)
    n_rel, _ = counts(judgments, 1)
    want = pytrec(qrels, run, [f"set_F.{beta}"], 1)["set_F"]
    np.testing.assert_allclose(set_f(rankings, n_relevant=n_rel, beta=beta), want, atol=1e-9)


# --- errors -------------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match="beta must be >= 0"):
        set_f([1, 0], beta=-1)
    with pytest.raises(TypeError, match="beta must be a real number"):
        set_f([1, 0], beta="1")
    with pytest.raises(ValueError, match="smaller than the 1 relevant"):
        set_recall([1, 0], n_relevant=0)
    with pytest.raises(TypeError, match="n_relevant"):
        set_precision([1, 0], n_relevant=3)
