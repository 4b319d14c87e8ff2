"""Rank-biased overlap and tau_AP against a peer library's values, the published formulas
written out as loops, and their defining properties."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.stats.similarity import rank_biased_overlap, tau_ap

REFERENCE = json.loads((Path(__file__).parent / "data" / "rbo_reference.json").read_text())


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda c: f"{len(c[0])}x{len(c[1])}")
def test_rbo_equals_the_rbo_package(case):
    a, b, p, expected = case
    assert rank_biased_overlap(a, b, p) == pytest.approx(expected, abs=1e-12)


def _rbo_by_the_series(a, b, p, depth=4000):
    """Even lengths: RBO = (1 - p) sum_d p^(d-1) A_d, with A_d = X_k / k below depth k
    (the extrapolation's assumption), summed far enough that p^depth is negligible."""
    k = len(a)
    total = 0.0
    for d in range(1, depth + 1):
        if d <= k:
            agreement = len(set(a[:d]) & set(b[:d])) / d
        else:
            agreement = len(set(a) & set(b)) / k
        total += p ** (d - 1) * agreement
    return (1 - p) * total


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(9))), st.integers(1, 9), st.sampled_from([0.5, 0.8, 0.9]))
def test_rbo_of_even_lists_is_the_extrapolated_series(perm, k, p):
    a = list(range(9))[:k]
    b = list(perm)[:k]
    assert rank_biased_overlap(a, b, p) == pytest.approx(_rbo_by_the_series(a, b, p), abs=1e-10)


def test_rbo_properties():
    assert rank_biased_overlap(list("abc"), list("abc")) == pytest.approx(1.0)
    assert rank_biased_overlap(list("abc"), list("xyz")) == 0.0
    assert rank_biased_overlap([], []) == 1.0
    assert rank_biased_overlap([], list("a")) == 0.0
    # symmetric, and a swap at the top costs more than one at the bottom
    a, b = list("abcdef"), list("bacdef")
    assert rank_biased_overlap(a, b) == pytest.approx(rank_biased_overlap(b, a))
    assert rank_biased_overlap(a, b) < rank_biased_overlap(a, list("abcdfe"))


@pytest.mark.parametrize("bad, error, message", [
    (dict(a=list("aba"), b=list("ab")), ValueError, "twice"),
    (dict(a="abc", b=list("ab")), TypeError, "list of ids"),
    (dict(a=list("ab"), b=list("ab"), p=1.0), ValueError, "strictly between"),
    (dict(a=[["x"]], b=list("ab")), TypeError, "hashable"),
])
def test_rbo_refuses_bad_input(bad, error, message):
    with pytest.raises(error, match=message):
        rank_biased_overlap(**bad)


def _tau_ap_by_the_paper(truth, estimate):
    """Yilmaz et al. 2008, as written: rank by the estimate; C(i) counts the items above
    rank i that truth places above the item at rank i."""
    ranked = sorted(range(len(truth)), key=lambda j: -estimate[j])
    n = len(truth)
    total = 0.0
    for i in range(1, n):
        c = sum(1 for j in ranked[:i] if truth[j] > truth[ranked[i]])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=12, unique=True),
       st.randoms(use_true_random=False))
def test_tau_ap_is_the_published_formula(truth, rnd):
    estimate = list(truth)
    rnd.shuffle(estimate)
    assert tau_ap(truth, estimate) == pytest.approx(_tau_ap_by_the_paper(truth, estimate))


def test_tau_ap_by_hand_and_properties():
    assert tau_ap([4, 3, 2, 1], [4, 3, 2, 1]) == 1.0
    assert tau_ap([4, 3, 2, 1], [1, 2, 3, 4]) == -1.0
    # swapping the last two costs less than swapping the first two (Kendall's tau: equal,
    # 2/3 each). Last two: C = 1, 2, 2 over i - 1 = 1, 2, 3 -> 2/3 (1 + 1 + 2/3) - 1 = 7/9
    assert tau_ap([4, 3, 2, 1], [4, 3, 1, 2]) == pytest.approx(7 / 9)
    assert tau_ap([4, 3, 2, 1], [3, 4, 2, 1]) == pytest.approx(1 / 3)


def test_tau_ap_has_expectation_zero_over_all_orders():
    # exact: the mean over all 5! estimated orders
    truth = [5, 4, 3, 2, 1]
    values = [tau_ap(truth, list(perm)) for perm in itertools.permutations(truth)]
    assert np.mean(values) == pytest.approx(0.0, abs=1e-12)


def test_tau_ap_symmetric_averages_both_directions():
    x, y = [5, 1, 4, 2, 3], [1, 2, 3, 4, 5]
    assert tau_ap(x, y, symmetric=True) == pytest.approx((tau_ap(x, y) + tau_ap(y, x)) / 2)
    assert tau_ap(x, y) != tau_ap(y, x)


@pytest.mark.parametrize("truth, estimate, message", [
    ([1.0], [1.0], "at least two"),
    ([1, 2, 3], [1, 2], "same length"),
    ([1, 2, 3], [1, 1, 2], "tied"),
    ([1, 2, float("nan")], [1, 2, 3], "finite"),
])
def test_tau_ap_refuses_bad_input(truth, estimate, message):
    with pytest.raises(ValueError, match=message):
        tau_ap(truth, estimate)
