"""Reciprocal rank (RR, MRR): sources' examples, properties, oracle, errors."""

import numpy as np
import pytest
from conftest import binary, cutoffs, grades, random_batch
from hypothesis import assume, given
from hypothesis import strategies as st

from rankeval import hit_at_k, reciprocal_rank


def as_grades(ranking, relevant):
    """Item ids, best first, to 0/1 grades (the item-list notebook works with ids)."""
    return [int(item in relevant) for item in ranking]


# --- worked examples of the sources -------------------------------------------------


def test_model_evaluation_five_queries():
    # Model Evaluation, Part 4: first relevant item at positions 3, 1, 2, 4, 5.
    rankings = [
        [0, 0, 1, 0, 0],
        [1, 0, 0, 0, 0],
        [0, 1, 0, 0, 0],
        [0, 0, 0, 1, 0],
        [0, 0, 0, 0, 1],
    ]
    rr = reciprocal_rank(rankings)
    np.testing.assert_allclose(rr, [1 / 3, 1, 1 / 2, 1 / 4, 1 / 5])
    assert rr.mean() == pytest.approx((1 / 3 + 1 + 1 / 2 + 1 / 4 + 1 / 5) / 5)


def test_notebook_rankings_of_a_to_g():
    # The item-list notebook: items a..g, relevant b and f; it prints 0.5 and 1.0 (both right).
    relevant = {"b", "f"}
    ranking1 = ["c", "b", "f", "a", "g", "e", "d"]
    ranking2 = ["b", "f", "g", "c", "g", "a", "e"]  # g twice in the notebook; not relevant
    assert reciprocal_rank(as_grades(ranking1, relevant)) == 1 / 2
    assert reciprocal_rank(as_grades(ranking2, relevant)) == 1 / 1


@pytest.mark.parametrize("position", range(1, 11))
def test_single_relevant_item_at_position(position):
    # The Comprehensive Guide: a first relevant document at position k gives RR = 1/k;
    # Model Evaluation, Part 4 plots the same curve for positions 1..10.
    ranking = [0] * 10
    ranking[position - 1] = 1
    assert reciprocal_rank(ranking) == 1 / position


def test_mrr_is_the_mean_of_rr_over_queries():
    # All five sources: MRR = (1/|Q|) * sum of RR over the queries.
    rankings = [[0, 1, 0], [0, 0, 0, 0, 1], [1]]
    assert reciprocal_rank(rankings).mean() == pytest.approx((1 / 2 + 1 / 5 + 1) / 3)


# --- conventions --------------------------------------------------------------------


def test_no_relevant_item_gives_zero():
    assert reciprocal_rank([0, 0, 0]) == 0.0
    np.testing.assert_array_equal(reciprocal_rank([[0, 0], [0, 1]]), [0, 1 / 2])


def test_cut_off():
    assert reciprocal_rank([0, 0, 0, 1], k=3) == 0.0
    assert reciprocal_rank([0, 0, 0, 1], k=4) == 1 / 4
    assert reciprocal_rank([0, 0, 1], k=10) == 1 / 3  # k past the list: whole list


def test_only_the_first_relevant_item_counts():
    assert reciprocal_rank([0, 1, 0, 0]) == reciprocal_rank([0, 1, 1, 1]) == 1 / 2


def test_graded_input_and_threshold():
    assert reciprocal_rank([0, 1, 3]) == 1 / 2
    assert reciprocal_rank([0, 1, 3], threshold=2) == 1 / 3
    assert reciprocal_rank([0, 1, 1], threshold=2) == 0.0
    assert reciprocal_rank([0, 0.5, 1], threshold=0.5) == 1 / 2


# --- properties ---------------------------------------------------------------------


@given(grades(), cutoffs())
def test_range_and_values(r, k):
    rr = reciprocal_rank(r, k)
    assert 0 <= rr <= 1
    assert rr == 0 or rr in {1 / i for i in range(1, len(r) + 1)}


@given(binary(), st.data())
def test_moving_a_relevant_item_up_never_lowers_rr(r, data):
    ups = [i for i in range(1, len(r)) if r[i] == 1]
    assume(ups)
    i = data.draw(st.sampled_from(ups))
    k = data.draw(cutoffs())
    moved = list(r)
    moved[i - 1], moved[i] = moved[i], moved[i - 1]
    assert reciprocal_rank(moved, k) >= reciprocal_rank(r, k)


@given(grades(), st.integers(1, 14))
def test_rr_never_falls_as_k_grows(r, k):
    assert reciprocal_rank(r, k) <= reciprocal_rank(r, k + 1)


@given(grades(), cutoffs())
def test_positive_exactly_when_hit(r, k):
    assert (reciprocal_rank(r, k) > 0) == (hit_at_k(r, k) == 1)


@given(grades())
def test_rr_at_1_is_hit_at_1(r):
    assert reciprocal_rank(r, 1) == hit_at_k(r, 1)


# --- slow oracle --------------------------------------------------------------------


def slow_reciprocal_rank(r, k, threshold=1):
    for i, g in enumerate(r, start=1):
        if k is not None and i > k:
            break
        if g >= threshold:
            return 1 / i
    return 0.0


@pytest.mark.parametrize("k", [None, 1, 3, 10, 25])
@pytest.mark.parametrize("threshold", [1, 2, 3])
def test_against_slow_oracle(k, threshold):
    rs = random_batch(seed=11, max_grade=3)
    np.testing.assert_allclose(
        reciprocal_rank(rs, k, threshold=threshold),
        [slow_reciprocal_rank(r, k, threshold) for r in rs],
    )


def test_against_slow_oracle_sparse_relevance():
    # Few relevant items, long lists: many queries with nothing in the top k.
    rng = np.random.default_rng(3)
    rs = [list((rng.random(rng.integers(1, 60)) < 0.05).astype(int)) for _ in range(200)]
    for k in (None, 5, 20):
        np.testing.assert_allclose(reciprocal_rank(rs, k), [slow_reciprocal_rank(r, k) for r in rs])


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "relevance, k, exc, match",
    [
        ({1, 0}, None, TypeError, "ordered sequence"),
    ],
)
def test_bad_input(relevance, k, exc, match):
    with pytest.raises(exc, match=match):
        reciprocal_rank(relevance, k)


def test_bad_threshold():
    with pytest.raises(ValueError, match="threshold must be > 0"):
        reciprocal_rank([1, 0], threshold=0)
    with pytest.raises(TypeError, match="threshold must be a real number"):
        reciprocal_rank([1, 0], threshold="1")
