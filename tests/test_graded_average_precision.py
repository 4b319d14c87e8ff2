"""Graded average precision (GAP): reduction to AP, worked example, properties, oracle, errors."""

import numpy as np
import pytest
from conftest import binary, cutoffs, grades, random_batch
from hypothesis import assume, given
from hypothesis import strategies as st

from rankeval import average_precision, graded_average_precision

# --- worked examples ----------------------------------------------------------------


def test_sci_fi_movies_by_hand():
    # Ranking Evaluation's sci-fi movies, grades 3, 3, 0, 3, 2 (scale 0..3), g_j = 1/3 each, so
    # G(1) = 1/3, G(2) = 2/3, G(3) = 1 and delta_mn = G(min(grade_m, grade_n)).
    numerator = (
        1 / 1 * (1)  # rank 1 (grade 3): delta_11 = G(3)
        + 1 / 2 * (1 + 1)  # rank 2 (grade 3): delta_12, delta_22
        + 1 / 4 * (1 + 1 + 1)  # rank 4 (grade 3)
        + 1 / 5 * (2 / 3 + 2 / 3 + 2 / 3 + 2 / 3)  # rank 5 (grade 2): all G(2)
    )
    denominator = 3 * 1 + 1 * 2 / 3  # three items of grade 3, one of grade 2
    got = graded_average_precision([3, 3, 0, 3, 2], max_grade=3)
    assert got == pytest.approx(numerator / denominator)


def test_weighted_average_of_threshold_aps():
    # GAP = sum_j g_j R_j AP_j / sum_j g_j R_j (R_j: items with grade >= j).
    r = [3, 2, 3, 0, 1, 2, 0, 1, 0, 3]  # the graded ranking of Model Evaluation, Part 4
    g = [0.2, 0.3, 0.5]
    counts = [sum(x >= j for x in r) for j in (1, 2, 3)]
    aps = [average_precision(r, threshold=j) for j in (1, 2, 3)]
    weights = np.multiply(g, counts)
    want = (weights * aps).sum() / weights.sum()
    assert graded_average_precision(r, grade_probabilities=g) == pytest.approx(want)


def test_grade_counts_ideal():
    # Judgments hold two more items of grade 3 that were not retrieved.
    r = [3, 0, 2]
    numerator = 1 / 1 * 1 + 1 / 3 * (1 / 2 + 1 / 2)  # G(2) = 1/2 with g = (0, 1/2, 1/2)
    denominator = 3 * 1 + 1 * 1 / 2
    got = graded_average_precision(r, grade_probabilities=[0, 0.5, 0.5], grade_counts=[0, 1, 3])
    assert got == pytest.approx(numerator / denominator)


def test_no_relevant_and_zero_weight_grades():
    assert graded_average_precision([0, 0, 0], max_grade=2) == 0.0
    # Only grade 1 items, and no user counts grade 1 as relevant: denominator 0 -> 0.
    assert graded_average_precision([1, 0, 1], grade_probabilities=[0, 1]) == 0.0
    assert graded_average_precision([0, 0, 2], k=2, max_grade=2) == 0.0


@given(grades(3), cutoffs(), st.integers(0, 3))
def test_uniform_default_does_not_depend_on_the_top_grade(r, k, extra):
    # G(i) = i / c with uniform g_j = 1/c: the 1/c cancels, so c does not matter.
    c = max(max(r), 1)
    assert graded_average_precision(r, k, max_grade=c + extra) == pytest.approx(
        graded_average_precision(r, k)
    )


# --- reductions to AP ---------------------------------------------------------------


@given(binary(), cutoffs(), st.integers(0, 4))
def test_binary_grades_give_ap(r, k, extra):
    assert graded_average_precision(r, k) == pytest.approx(average_precision(r, k))
    total = sum(r) + extra
    assert graded_average_precision(r, k, grade_counts=[total]) == pytest.approx(
        average_precision(r, k, n_relevant=total)
    )


@given(binary(), cutoffs(), st.integers(2, 4))
def test_one_relevant_grade_gives_ap(r, k, c):
    # Grades 0 and c only: every user who counts anything counts all relevant items.
    top = [c * g for g in r]
    assert graded_average_precision(top, k, max_grade=c) == pytest.approx(average_precision(r, k))


@given(grades(3), cutoffs(), st.integers(1, 3))
def test_point_mass_threshold_gives_ap_at_that_threshold(r, k, j):
    g = [0.0, 0.0, 0.0]
    g[j - 1] = 1.0
    assert graded_average_precision(r, k, grade_probabilities=g) == pytest.approx(
        average_precision(r, k, threshold=j)
    )


# --- properties ---------------------------------------------------------------------

probabilities = st.lists(st.integers(0, 5), min_size=3, max_size=3).filter(sum).map(
    lambda w: [x / sum(w) for x in w]
)


@given(grades(3), cutoffs(), probabilities)
def test_range(r, k, g):
    assert 0 <= graded_average_precision(r, k, grade_probabilities=g) <= 1 + 1e-12


@given(grades(3), probabilities)
def test_ideal_order_scores_one(r, g):
    value = graded_average_precision(sorted(r, reverse=True), grade_probabilities=g)
    weight = sum(g[j - 1] for x in r for j in range(1, x + 1))
    assume(weight > 0)
    assert value == pytest.approx(1.0)


@given(grades(3, min_size=2), probabilities, st.data())
def test_moving_a_better_item_up_never_lowers_gap(r, g, data):
    pairs = [(i, j) for i in range(len(r)) for j in range(i) if r[i] > r[j]]
    assume(pairs)
    i, j = data.draw(st.sampled_from(pairs))
    moved = list(r)
    moved[i], moved[j] = moved[j], moved[i]
    before = graded_average_precision(r, grade_probabilities=g)
    assert graded_average_precision(moved, grade_probabilities=g) >= before - 1e-12


# --- slow oracle: the paper's double sum --------------------------------------------


def slow_gap(r, k, g, counts=None):
    big_g = np.concatenate([[0.0], np.cumsum(g)])  # big_g[i] = g_1 + ... + g_i
    top = r if k is None else r[:k]
    numerator = 0.0
    for n, gn in enumerate(top, start=1):
        if gn > 0:
            inner = 0.0
            for gm in top[:n]:
                if gm > 0:
                    inner += big_g[min(gm, gn)]
            numerator += inner / n
    if counts is None:
        denominator = sum(big_g[x] for x in r)  # grade_counts="in_list": the whole list
    else:
        denominator = sum(c * big_g[i] for i, c in enumerate(counts, start=1))
    return numerator / denominator if denominator > 0 else 0.0


@pytest.mark.parametrize("k", [None, 1, 5, 30])
@pytest.mark.parametrize("g", [None, [0.5, 0.3, 0.2], [0.0, 0.25, 0.75]])
def test_against_slow_oracle(k, g):
    rs = random_batch(seed=3, max_grade=3)
    probs = [1 / 3] * 3 if g is None else g
    np.testing.assert_allclose(
        graded_average_precision(rs, k, max_grade=3, grade_probabilities=g),
        [slow_gap(r, k, probs) for r in rs],
    )
    counts = [[sum(x == i for x in r) + (q + i) % 3 for i in (1, 2, 3)] for q, r in enumerate(rs)]
    np.testing.assert_allclose(
        graded_average_precision(rs, k, grade_probabilities=probs, grade_counts=counts),
        [slow_gap(r, k, probs, c) for r, c in zip(rs, counts, strict=True)],
    )


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"relevance": [1.5, 0]}, ValueError, "whole-number grades"),
        ({"relevance": [3, 0], "max_grade": 2}, ValueError, "above the top grade 2"),
        ({"relevance": [1, 0], "max_grade": 0}, ValueError, "max_grade must be a positive"),
        ({"relevance": [1, 0], "max_grade": 2.0}, TypeError, "max_grade must be a positive"),
        ({"relevance": [1, 0], "grade_probabilities": [0.5, 0.4]}, ValueError, "sum to 1"),
        ({"relevance": [1, 0], "grade_probabilities": [1.5, -0.5]}, ValueError, ">= 0"),
        ({"relevance": [1, 0], "grade_probabilities": []}, ValueError, "empty"),
        ({"relevance": [1, 0], "grade_probabilities": "ab"}, TypeError, "1-D sequence"),
        (
            {"relevance": [1, 0], "max_grade": 3, "grade_probabilities": [0.5, 0.5]},
            ValueError,
            "holds 2 values but max_grade is 3",
        ),
        ({"relevance": [2, 2, 1], "grade_counts": [1, 1]}, ValueError, "1 items of grade 2"),
        ({"relevance": [2, 1], "grade_counts": [1, 1, 1]}, ValueError, "shape"),
        ({"relevance": [2, 1], "grade_counts": [1, 1.5]}, ValueError, "whole numbers"),
        (
            {"relevance": [[2], [1]], "grade_counts": [[1, 1], [0, 0]]},
            ValueError,
            "for query 1 gives 0 items of grade 1",
        ),
    ],
)
def test_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        graded_average_precision(**kwargs)


# --- regression (issue 9): a huge top grade costs no memory -------------------------------


def test_a_grade_of_a_million_allocates_nothing_of_that_size():
    import tracemalloc

    tracemalloc.start()
    try:
        value = graded_average_precision([10**6, 0, 3], max_grade=10**6)
        batch = graded_average_precision([[10**6, 0, 3], [0, 2]])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20  # the former (query, rank, grade) array needed 7 GiB
    # uniform g_j = 1/c: delta = min(g_m, g_n) / c; numerator 1 * 1e6/1e6 + (1/3)(3 + 3)/1e6,
    # denominator (1e6 + 3) / 1e6
    assert value == pytest.approx((1e6 + 2) / (1e6 + 3), rel=1e-12)
    assert batch[0] == pytest.approx(value, rel=1e-12)
    assert batch[1] == pytest.approx(1 / 2)


def test_huge_scale_with_grade_counts_checks_only_the_grades_present():
    counts = np.zeros(10**5)
    counts[[2, 10**5 - 1]] = [2, 1]  # two items of grade 3, one of the top grade
    value = graded_average_precision([10**5, 0, 3], grade_counts=counts)
    # denominator sum_i R_i G(i) = (2 * 3 + 10**5) / c; numerator as in the test above
    assert value == pytest.approx((10**5 + 2) / (10**5 + 6), rel=1e-12)
    with pytest.raises(ValueError, match="gives 0 items of grade 3, fewer than the 1"):
        graded_average_precision([10**5, 0, 3], grade_counts=np.eye(1, 10**5, 10**5 - 1)[0])
