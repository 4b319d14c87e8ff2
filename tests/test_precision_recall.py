"""hits@k, precision@k, recall@k and hit@k: sources' examples, properties, oracle, errors."""

import numpy as np
import pytest
from conftest import binary, cutoffs, grades, random_batch
from hypothesis import given
from hypothesis import strategies as st

from rankeval import hit_at_k, hits_at_k, precision_at_k, recall_at_k

# --- worked examples of the sources -------------------------------------------------


def test_notebook_items_a_to_e():
    # The item-list notebook: items a..e, relevant b and e; top three hold b.
    ranking = [0, 1, 0, 0, 1]
    assert hits_at_k(ranking, 3) == 1
    assert precision_at_k(ranking, 3) == pytest.approx(1 / 3)
    assert recall_at_k(ranking, 3) == pytest.approx(1 / 2)


def test_comprehensive_guide_seven_documents():
    # The Comprehensive Guide: documents A..G, relevant A, C, F, G; top five hold A, C, G.
    ranking = [1, 0, 1, 0, 1, 1, 0]  # A, B, C, D, G, F, E: the text gives no order
    assert precision_at_k(ranking, 5) == pytest.approx(3 / 5)
    assert recall_at_k(ranking, 5) == pytest.approx(3 / 4)


def test_model_evaluation_precision_curve():
    # Model Evaluation, Part 4: P@k for k = 1..10 (its code prints them; outputs not shown).
    ranking = [1, 0, 1, 0, 1, 0, 0, 1, 0, 1]
    got = [precision_at_k(ranking, k) for k in range(1, 11)]
    want = [1, 1 / 2, 2 / 3, 2 / 4, 3 / 5, 3 / 6, 3 / 7, 4 / 8, 4 / 9, 5 / 10]
    np.testing.assert_allclose(got, want)


def test_hit_at_k_values():
    assert hit_at_k([0, 0, 1], 2) == 0.0
    assert hit_at_k([0, 0, 1], 3) == 1.0
    np.testing.assert_array_equal(hit_at_k([[1, 0], [0, 0], [0, 1]], 1), [1, 0, 0])


# --- conventions --------------------------------------------------------------------


def test_k_past_the_list():
    assert precision_at_k([1, 1], 4) == 2 / 4  # trec_eval: missing positions count as misses
    assert precision_at_k([1, 1], 4, divide_by="retrieved") == 1.0
    assert recall_at_k([1, 1], 4) == 1.0


def test_graded_input_and_threshold():
    assert hits_at_k([3, 0, 1, 2]) == 3
    assert hits_at_k([3, 0, 1, 2], threshold=2) == 2


def test_recall_denominator_and_no_relevant():
    assert recall_at_k([1, 0, 1], 2, n_relevant=4) == 1 / 4
    assert recall_at_k([0, 0, 0], 2) == 0.0
    np.testing.assert_allclose(recall_at_k([[1, 0], [0, 1]], 1, n_relevant=[2, 3]), [1 / 2, 0])


# --- properties ---------------------------------------------------------------------


@given(binary(), cutoffs())
def test_ranges(r, k):
    assert 0 <= precision_at_k(r, k) <= 1
    assert 0 <= recall_at_k(r, k) <= 1
    assert hit_at_k(r, k) in (0.0, 1.0)
    assert hits_at_k(r, k) <= (len(r) if k is None else min(k, len(r)))


@given(grades(), st.integers(1, 14))
def test_recall_grows_with_k(r, k):
    assert recall_at_k(r, k) <= recall_at_k(r, k + 1)


# --- slow oracle --------------------------------------------------------------------


def slow_precision(r, k):
    hits = 0
    for i, g in enumerate(r):
        if k is not None and i >= k:
            break
        if g >= 1:
            hits += 1
    return hits / (len(r) if k is None else k)


def slow_recall(r, k):
    total = sum(1 for g in r if g >= 1)
    if total == 0:
        return 0.0
    top = r if k is None else r[:k]
    return sum(1 for g in top if g >= 1) / total


@pytest.mark.parametrize("k", [None, 1, 3, 10, 25])
def test_against_slow_oracle(k):
    rs = random_batch(seed=7)
    np.testing.assert_allclose(precision_at_k(rs, k), [slow_precision(r, k) for r in rs])
    np.testing.assert_allclose(recall_at_k(rs, k), [slow_recall(r, k) for r in rs])


# --- bad input ----------------------------------------------------------------------


def test_bad_options():
    with pytest.raises(ValueError, match="divide_by"):
        precision_at_k([1], 1, divide_by="n")
    with pytest.raises(ValueError, match="threshold must be > 0"):
        hits_at_k([1], threshold=0)
    with pytest.raises(ValueError, match="n_relevant is 1, smaller than the 2 relevant"):
        recall_at_k([1, 1], n_relevant=1)
    with pytest.raises(ValueError, match="n_relevant for query 1 is 0"):
        recall_at_k([[0], [1]], n_relevant=[0, 0])
    with pytest.raises(ValueError, match="one value per query"):
        recall_at_k([[0], [1]], n_relevant=[1, 1, 1])
