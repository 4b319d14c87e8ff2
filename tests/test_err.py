"""ERR and MERR: sources' examples, properties, slow oracle, errors."""

import math

import numpy as np
import pytest
from conftest import binary, cutoffs, grades, random_batch
from hypothesis import assume, given
from hypothesis import strategies as st

from rankeval import err

# --- worked examples of the sources -------------------------------------------------

SMARTPHONE = [3, 2, 3, 1, 0]  # Ranking Evaluation: "smartphone reviews", grades 0..3


def test_ranking_evaluation_smartphone_example():
    # R_i = (2^g - 1) / 2^3 = 7/8, 3/8, 7/8, 1/8, 0.
    want = (
        7 / 8
        + (1 / 2) * (3 / 8) * (1 / 8)
        + (1 / 3) * (7 / 8) * (1 / 8) * (5 / 8)
        + (1 / 4) * (1 / 8) * (1 / 8) * (5 / 8) * (1 / 8)
    )
    assert err(SMARTPHONE, max_grade=3) == pytest.approx(want)
    # The source prints 0.936. It multiplied by 1 - P(stop at 2) = 1 - 0.047 = 0.953
    # where 1 - R_2 = 5/8 belongs, and by 1 - P(stop at 3) = 1 - 0.104 = 0.896 where
    # 1 - R_3 = 1/8 belongs, then added rounded terms:
    # 0.875 + 0.047/2 + (0.875*0.125*0.953)/3 + (0.125*0.125*0.953*0.896)/4
    # ~= 0.875 + 0.023 + 0.035 + 0.003 = 0.936.
    slip = 0.875 + 0.023 + 0.035 + 0.003
    assert slip == pytest.approx(0.936)
    assert abs(err(SMARTPHONE, max_grade=3) - slip) > 0.01


def test_ranking_evaluation_stop_probabilities_one_by_one():
    # ERR@i - ERR@(i-1) = P(stop at i) / i: the per-rank terms of the example.
    stops = [7 / 8, (3 / 8) * (1 / 8), (7 / 8) * (1 / 8) * (5 / 8), (1 / 8) * (1 / 8) * (5 / 8) * (1 / 8), 0]
    at_k = [err(SMARTPHONE, k, max_grade=3) for k in range(1, 6)]
    np.testing.assert_allclose(np.diff([0, *at_k]), [s / i for i, s in enumerate(stops, 1)])


def test_ranking_evaluation_merr_is_mean_of_err():
    queries = [SMARTPHONE, [0, 3], [1, 1, 1]]
    values = err(queries, max_grade=3)
    want = [
        err(SMARTPHONE, max_grade=3),
        (1 / 2) * (7 / 8),
        1 / 8 + (1 / 2) * (1 / 8) * (7 / 8) + (1 / 3) * (1 / 8) * (7 / 8) ** 2,
    ]
    np.testing.assert_allclose(values, want)
    assert values.mean() == pytest.approx(sum(want) / 3)


def test_comprehensive_guide_continuation_probability():
    # The Comprehensive Guide: after an unsatisfying item the user goes on with probability p.
    p = 0.5
    want = (
        7 / 8
        + (1 / 2) * (3 / 8) * p * (1 / 8)
        + (1 / 3) * (7 / 8) * p**2 * (1 / 8) * (5 / 8)
        + (1 / 4) * (1 / 8) * p**3 * (1 / 8) * (5 / 8) * (1 / 8)
    )
    assert err(SMARTPHONE, max_grade=3, p=p) == pytest.approx(want)


# --- transforms and conventions ----------------------------------------------------


def test_sigmoid_transform():
    a, b = 2.0, 1.5
    r = [1 / (1 + math.exp(-a * (g - b))) for g in (3, 0)]
    want = r[0] + (1 / 2) * (1 - r[0]) * r[1]
    assert err([3, 0], transform="sigmoid", alpha=a, beta=b) == pytest.approx(want)
    # Defaults alpha=1, beta=0: a grade-0 item stops half the users.
    assert err([0], transform="sigmoid") == pytest.approx(1 / 2)


def test_probability_transform_and_binary_equals_reciprocal_rank():
    assert err([0.5, 0.5], transform="probability") == pytest.approx(1 / 2 + 1 / 4 * 1 / 2)
    assert err([0, 0, 1, 1], transform="probability") == pytest.approx(1 / 3)
    assert err([0, 0, 0], transform="probability") == 0.0


def test_one_item_list_gives_the_stopping_probability():
    for g in range(4):
        assert err([g], max_grade=3) == pytest.approx((2**g - 1) / 2**3)


def test_no_relevant_item_is_zero():
    assert err([0, 0, 0], max_grade=3) == 0.0
    np.testing.assert_array_equal(err([[0], [0, 0]], max_grade=1), [0.0, 0.0])


def test_k_cuts_and_k_past_the_list():
    assert err([0, 3], 1, max_grade=3) == 0.0
    assert err([1, 1], 10, max_grade=1) == err([1, 1], max_grade=1)


def test_padding_with_sigmoid_does_not_count_absent_items():
    # Under the sigmoid a grade 0 has R > 0, so padding must not become grade 0.
    ragged_batch = err([[2], [2, 0, 0]], transform="sigmoid", beta=1)
    r2, r0 = 1 / (1 + math.exp(-1)), 1 / (1 + math.exp(1))
    want_long = r2 + (1 / 2) * (1 - r2) * r0 + (1 / 3) * (1 - r2) * (1 - r0) * r0
    np.testing.assert_allclose(ragged_batch, [r2, want_long])


# --- properties ---------------------------------------------------------------------


@given(grades(), cutoffs(), st.sampled_from([1.0, 0.9, 0.5]))
def test_range(r, k, gamma):
    value = err(r, k, max_grade=3, p=gamma)
    assert 0 <= value <= 1
    assert 0 < err(r, k, transform="sigmoid", p=gamma) <= 1


@given(grades(max_size=12), st.integers(1, 8))
def test_persistence_below_one_never_raises_err(r, tenths):
    assert err(r, max_grade=3, p=tenths / 10) <= err(r, max_grade=3) + 1e-12


@given(grades(), st.data())
def test_moving_a_more_relevant_item_up_never_lowers_err(r, data):
    assume(len(r) >= 2)
    i = data.draw(st.integers(0, len(r) - 2))
    j = data.draw(st.integers(i + 1, len(r) - 1))
    low, high = sorted((r[i], r[j]))
    worse, better = list(r), list(r)
    worse[i], worse[j] = low, high
    better[i], better[j] = high, low
    gamma = data.draw(st.sampled_from([1.0, 0.7]))
    for opts in ({"max_grade": 3}, {"transform": "sigmoid", "alpha": 2, "beta": 1.5}):
        assert err(better, p=gamma, **opts) >= err(worse, p=gamma, **opts) - 1e-12


@given(grades(), st.integers(1, 14))
def test_err_grows_with_k(r, k):
    assert err(r, k, max_grade=3) <= err(r, k + 1, max_grade=3) + 1e-12


@given(binary())
def test_binary_probabilities_give_reciprocal_rank(r):
    first = next((i for i, g in enumerate(r, 1) if g), None)
    assert err(r, transform="probability") == pytest.approx(0 if first is None else 1 / first)


# --- slow oracle --------------------------------------------------------------------


def slow_err(r, k, transform, max_grade=None, alpha=1.0, beta=0.0, gamma=1.0):
    total, reach = 0.0, 1.0
    for i, g in enumerate(r, start=1):
        if k is not None and i > k:
            break
        if transform == "exponential":
            stop = (2**g - 1) / 2**max_grade
        elif transform == "sigmoid":
            stop = 1 / (1 + math.exp(-alpha * (g - beta)))
        else:
            stop = g
        total += reach * stop / i
        reach *= gamma * (1 - stop)
    return total


@pytest.mark.parametrize("k", [None, 1, 3, 10, 25])
@pytest.mark.parametrize("gamma", [1.0, 0.8])
def test_against_slow_oracle(k, gamma):
    rs = random_batch(seed=11)
    np.testing.assert_allclose(
        err(rs, k, max_grade=3, p=gamma),
        [slow_err(r, k, "exponential", max_grade=3, gamma=gamma) for r in rs],
    )
    np.testing.assert_allclose(
        err(rs, k, transform="sigmoid", alpha=1.5, beta=2, p=gamma),
        [slow_err(r, k, "sigmoid", alpha=1.5, beta=2, gamma=gamma) for r in rs],
    )
    probs = [list(np.asarray(r) / 3) for r in rs]
    np.testing.assert_allclose(
        err(probs, k, transform="probability", p=gamma),
        [slow_err(r, k, "probability", gamma=gamma) for r in probs],
    )


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({}, ValueError, "max_grade is required"),
        ({"max_grade": 2}, ValueError, "grade 3, above max_grade=2"),
        ({"max_grade": 0}, ValueError, "max_grade must be > 0"),
        ({"max_grade": "3"}, TypeError, "max_grade must be a real number"),
        ({"max_grade": float("inf")}, ValueError, "max_grade must be finite"),
        ({"transform": "log"}, ValueError, "transform must be one of"),
        ({"transform": "sigmoid", "max_grade": 3}, ValueError, "max_grade is used only"),
        ({"transform": "sigmoid", "alpha": 0}, ValueError, "alpha must be > 0"),
        ({"transform": "sigmoid", "beta": None}, TypeError, "beta must be a real number"),
        ({"transform": "probability"}, ValueError, r"needs stopping probabilities in \[0, 1\]"),
        ({"max_grade": 3, "p": 0}, ValueError, r"p must lie in \(0, 1\]"),
        ({"max_grade": 3, "p": 1.5}, ValueError, r"p must lie in \(0, 1\]"),
        ({"max_grade": 3, "p": True}, TypeError, "p must be a real number"),
    ],
)
def test_bad_options(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        err([3, 0, 1], **kwargs)


