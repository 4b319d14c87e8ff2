"""RBP: sources' examples, properties, slow oracle, errors."""

import numpy as np
import pytest
from conftest import cutoffs, grades, random_batch
from hypothesis import assume, given
from hypothesis import strategies as st

from rankeval import rbp

# --- worked examples of the sources -------------------------------------------------

SEVEN = [1, 0, 1, 0, 1, 1, 0]  # Comprehensive Guide: documents A..G, relevant at ranks 1, 3, 5, 6


def test_comprehensive_guide_seven_documents():
    p = 0.8
    assert rbp(SEVEN, p=p) == pytest.approx((1 - p) * (1 + p**2 + p**4 + p**5))
    assert rbp(SEVEN, 5, p=p) == pytest.approx((1 - p) * (1 + p**2 + p**4))
    assert rbp(SEVEN, p=0.5) == pytest.approx(0.5 * (1 + 1 / 4 + 1 / 16 + 1 / 32))


def test_comprehensive_guide_expected_depth_and_utility():
    # The Comprehensive Guide: RBP = expected utility / expected depth, depth = 1/(1-p).
    p = 0.8
    utility = sum(g * p ** (i - 1) for i, g in enumerate(SEVEN, 1))
    depth = 1 / (1 - p)
    assert rbp(SEVEN, p=p) == pytest.approx(utility / depth)


def test_ranking_evaluation_grades_scaled_into_gains():
    # The smartphone grades of Ranking Evaluation (0..3), divided by the top grade.
    gains = np.array([3, 2, 3, 1, 0]) / 3
    p = 0.5
    assert rbp(gains, p=p) == pytest.approx(0.5 * (1 + (2 / 3) / 2 + 1 / 4 + (1 / 3) / 8))


# --- residual and conventions ---------------------------------------------------------


def test_residual():
    value, residual = rbp(SEVEN, 5, p=0.5, return_residual=True)
    assert value == pytest.approx(0.5 * (1 + 1 / 4 + 1 / 16))
    assert residual == pytest.approx(0.5**5)
    # k past the list: only the seven given items are scored.
    assert rbp(SEVEN, 20, p=0.5, return_residual=True)[1] == pytest.approx(0.5**7)
    values, residuals = rbp([[1], [0, 1, 1]], p=0.8, return_residual=True)
    np.testing.assert_allclose(values, [0.2, 0.2 * (0.8 + 0.64)])
    np.testing.assert_allclose(residuals, [0.8, 0.8**3])


def test_no_relevant_item_is_zero():
    assert rbp([0, 0, 0]) == 0.0
    assert rbp([0, 0, 0], return_residual=True) == (0.0, pytest.approx(0.8**3))


def test_all_relevant_list_approaches_one():
    p = 0.9
    for n in (1, 10, 100, 400):
        assert rbp([1] * n, p=p) == pytest.approx(1 - p**n)
    assert rbp([1] * 400, p=p) == pytest.approx(1.0, abs=1e-12)
    # ... but never reaches 1 for a finite list.
    assert rbp([1] * 50, p=p) < 1


def test_k_cuts():
    assert rbp([0, 1], 1) == 0.0
    assert rbp([1, 1], 10) == rbp([1, 1])


# --- properties ---------------------------------------------------------------------


@given(grades(), cutoffs(), st.floats(0.01, 0.99))
def test_range_and_residual_bound(r, k, p):
    gains = np.array(r) / 3
    value, residual = rbp(gains, k, p=p, return_residual=True)
    n = len(r) if k is None else min(k, len(r))
    assert 0 <= value <= 1 - p**n + 1e-12
    assert residual == pytest.approx(p**n)
    assert value + residual <= 1 + 1e-12


@given(grades(), st.data())
def test_moving_a_more_relevant_item_up_never_lowers_rbp(r, data):
    assume(len(r) >= 2)
    i = data.draw(st.integers(0, len(r) - 2))
    j = data.draw(st.integers(i + 1, len(r) - 1))
    low, high = sorted((r[i], r[j]))
    worse, better = np.array(r) / 3, np.array(r) / 3
    worse[i], worse[j] = low / 3, high / 3
    better[i], better[j] = high / 3, low / 3
    p = data.draw(st.sampled_from([0.5, 0.8, 0.95]))
    if high > low:
        assert rbp(better, p=p) > rbp(worse, p=p)
    else:
        assert rbp(better, p=p) == rbp(worse, p=p)


@given(grades(), st.integers(1, 14))
def test_rbp_grows_with_depth_and_residual_shrinks(r, k):
    gains = np.array(r) / 3
    v1, res1 = rbp(gains, k, return_residual=True)
    v2, res2 = rbp(gains, k + 1, return_residual=True)
    assert v1 <= v2 + 1e-12
    assert res2 <= res1
    # Bounds nest: what depth k+1 learns stays inside the interval of depth k.
    assert v2 + res2 <= v1 + res1 + 1e-12


def test_sweep_over_p():
    # Relevant at the top: RBP falls as p grows; relevant at the bottom: it rises at first.
    ps = np.linspace(0.05, 0.95, 19)
    top = [rbp([1, 0, 0, 0, 0], p=p) for p in ps]
    np.testing.assert_allclose(top, 1 - ps)
    assert np.all(np.diff(top) < 0)
    bottom = [rbp([0, 0, 0, 0, 1], p=p) for p in ps]
    np.testing.assert_allclose(bottom, (1 - ps) * ps**4)
    assert np.argmax(bottom) == np.argmin(np.abs(ps - 0.8))  # maximum at p = 4/5


# --- slow oracle --------------------------------------------------------------------


def slow_rbp(gains, k, p):
    total, weight = 0.0, 1 - p
    for i, g in enumerate(gains, start=1):
        if k is not None and i > k:
            break
        total += g * weight
        weight *= p
    return total


@pytest.mark.parametrize("k", [None, 1, 3, 10, 25])
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_against_slow_oracle(k, p):
    rs = [list(np.asarray(r) / 3) for r in random_batch(seed=5)]
    np.testing.assert_allclose(rbp(rs, k, p=p), [slow_rbp(r, k, p) for r in rs])


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "relevance, kwargs, exc, match",
    [
        ([3, 0, 1], {}, ValueError, r"gain 3, but RBP needs gains in \[0, 1\]"),
        ([1, 0, 2], {"k": 1}, ValueError, "divide graded judgments by the top grade"),
        ([1, 0], {"p": 1}, ValueError, r"p must lie in \(0, 1\)"),
        ([1, 0], {"p": 0}, ValueError, r"p must lie in \(0, 1\)"),
        ([1, 0], {"p": -0.2}, ValueError, r"p must lie in \(0, 1\)"),
        ([1, 0], {"p": "0.8"}, TypeError, "p must be a real number"),
        ([1, 0], {"return_residual": "yes"}, TypeError, "return_residual must be True or False"),
    ],
)
def test_bad_input(relevance, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        rbp(relevance, **kwargs)
