"""rankeval.online.counterfactual: estimators of a new ranker's DCG@k from click logs.

The logs are simulated: queries with graded items, a production ranker that shows its
own order and, with probability EPS, a uniformly shuffled list instead (so every item
has a known, positive probability of every position), and users of the position-based
click model. Properties:

* IPS (and item-IPS) is unbiased when the propensities are right: over many simulated
  logs its mean lies within a few standard errors of the true DCG@k;
* the naive click average and clipped IPS are biased (down), by more than that;
* SNIPS has a smaller variance than IPS in this setting (the chapter's);
* every estimator equals a direct, loop-by-loop transcription of its formula;
* what has no estimate is refused, not reported as a number: a slot estimator's cut-off
  wider than the log, SNIPS's 0/0, a ranking (logged or new) that names an item twice.

An independent implementation was wanted as a reference: the Open Bandit Pipeline
(``obp==0.5.7``) has IPS and SNIPS estimators, but it cannot be installed here: it
requires Python < 3.11 and pins torch 1.12. The loop transcriptions below stand in.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankeval.online import counterfactual_dcg, swap_propensities

N_QUERIES, N_ITEMS, K, EPS = 12, 5, 3, 0.3
THETA = 1.0 / np.arange(1, N_ITEMS + 1)  # examination of positions 1..5


def collection(seed=0):
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 4, size=(N_QUERIES, N_ITEMS))
    rho = (2.0**grades - 1) / 8  # click probability of an examined item
    production = np.argsort(-(grades + rng.normal(0, 1.5, grades.shape)), axis=1,
                            kind="stable")
    new = np.argsort(-(grades + rng.normal(0, 0.7, grades.shape)), axis=1, kind="stable")
    return rho, production, new


def true_dcg(rho, new):
    discount = 1 / np.log2(np.arange(2, K + 2))
    return float(np.mean([(rho[q, new[q, :K]] * discount).sum() for q in range(N_QUERIES)]))


def simulate_log(rho, production, n, rng):
    queries = rng.integers(0, N_QUERIES, n)
    shuffled = rng.random(n) < EPS
    shown = production[queries].copy()
    perms = np.argsort(rng.random((n, N_ITEMS)), axis=1, kind="stable")
    shown[shuffled] = perms[shuffled]
    placement = EPS / N_ITEMS + (1 - EPS) * (shown == production[queries])
    clicks = rng.random((n, N_ITEMS)) < THETA * rho[queries[:, None], shown]
    return queries, shown, placement, clicks


def estimates(estimator, n_logs=300, size=300, clip=None, seed=1):
    rho, production, new = collection()
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_logs):
        queries, shown, placement, clicks = simulate_log(rho, production, size, rng)
        out.append(counterfactual_dcg(clicks, shown, new[queries], examination=THETA,
                                      placement=placement, k=K, estimator=estimator,
                                      clip=clip))
    return np.array(out), true_dcg(rho, new)


@pytest.mark.parametrize("estimator", ["ips", "item_ips"])
def test_ips_is_unbiased_when_the_propensities_are_right(estimator):
    values, truth = estimates(estimator)
    se = values.std(ddof=1) / np.sqrt(values.size)
    assert abs(values.mean() - truth) < 4 * se


@pytest.mark.parametrize("estimator, clip", [("naive", None), ("clipped_ips", 0.2)])
def test_naive_and_clipped_estimates_are_biased_down(estimator, clip):
    values, truth = estimates(estimator, clip=clip)
    se = values.std(ddof=1) / np.sqrt(values.size)
    assert values.mean() < truth - 4 * se


def test_snips_has_a_smaller_variance_than_ips():
    ips, truth = estimates("ips")
    snips, _ = estimates("snips")  # the same logs (same seed)
    assert snips.var(ddof=1) < 0.8 * ips.var(ddof=1)
    # and its bias is small next to its spread
    assert abs(snips.mean() - truth) < 0.25 * snips.std(ddof=1)


def by_the_formula(clicks, shown, target, theta, placement, k, estimator, clip=None):
    """The Notes of counterfactual_dcg, transcribed loop by loop."""
    n_imp, n = len(shown), len(shown[0])
    total = weights = slots = 0.0
    for i in range(n_imp):
        rank = {d: r for r, d in enumerate(target[i][:k], start=1) if d >= 0}
        for j in range(1, n + 1):
            d, c = shown[i][j - 1], clicks[i][j - 1]
            if estimator in ("naive", "item_ips"):
                if c and d in rank:
                    gain = 1 / math.log2(rank[d] + 1)
                    total += gain / (theta[j - 1] if estimator == "item_ips" else 1)
            elif j <= k and j <= len(target[i]) and target[i][j - 1] >= 0:
                slots += 1
                if target[i][j - 1] == d:
                    p = placement[i][j - 1] * theta[j - 1]
                    if estimator == "clipped_ips":
                        p = max(p, clip)
                    total += c / math.log2(j + 1) / p
                    weights += 1 / placement[i][j - 1]
    if estimator == "snips":
        return total / weights * slots / n_imp
    return total / n_imp


@pytest.mark.parametrize("estimator", ["naive", "item_ips", "ips", "clipped_ips", "snips"])
def test_every_estimator_equals_its_formula(estimator):
    rho, production, new = collection(3)
    queries, shown, placement, clicks = simulate_log(rho, production, 200,
                                                     np.random.default_rng(4))
    clip = 0.1 if estimator == "clipped_ips" else None
    got = counterfactual_dcg(clicks, shown, new[queries], examination=THETA,
                             placement=placement, k=K, estimator=estimator, clip=clip)
    want = by_the_formula(clicks.tolist(), shown.tolist(), new[queries].tolist(),
                          THETA.tolist(), placement.tolist(), K, estimator, clip)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_a_deterministic_log_leaves_ips_blind_to_what_it_never_showed():
    rho, production, new = collection()
    rng = np.random.default_rng(2)
    queries = rng.integers(0, N_QUERIES, 4000)
    shown = production[queries]
    clicks = rng.random(shown.shape) < THETA * rho[queries[:, None], shown]
    ips = counterfactual_dcg(clicks, shown, new[queries], examination=THETA, k=K,
                             estimator="ips")
    item = counterfactual_dcg(clicks, shown, new[queries], examination=THETA, k=K,
                              estimator="item_ips")
    truth = true_dcg(rho, new)
    assert ips < 0.9 * truth  # only slots where the two rankers agree count
    assert abs(item - truth) < 0.1 * truth  # every item is shown: item-IPS is fine


def test_swap_experiment_recovers_the_relative_propensities():
    rng = np.random.default_rng(8)
    rho, production, _ = collection()
    n = 60_000
    queries = rng.integers(0, N_QUERIES, n)
    swap = rng.integers(1, N_ITEMS + 1, n)
    shown = production[queries].copy()
    rows = np.arange(n)
    top = shown[:, 0].copy()
    shown[:, 0] = shown[rows, swap - 1]
    shown[rows, swap - 1] = top
    clicks = rng.random((n, N_ITEMS)) < THETA * rho[queries[:, None], shown]
    ratios = swap_propensities(clicks, swap)
    assert ratios[0] == 1.0
    np.testing.assert_allclose(ratios, THETA / THETA[0], atol=0.06)


def test_estimators_refuse_bad_input():
    shown, clicks, target = [[0, 1], [1, 0]], [[1, 0], [0, 0]], [[1, 0], [1, 0]]
    theta = [1.0, 0.5]
    with pytest.raises(ValueError, match="estimator"):
        counterfactual_dcg(clicks, shown, target, examination=theta, estimator="rips")
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        counterfactual_dcg(clicks, shown, target, examination=[1.0, 0.0])
    with pytest.raises(TypeError, match="clip="):
        counterfactual_dcg(clicks, shown, target, examination=theta, estimator="clipped_ips")
    with pytest.raises(TypeError, match="clip="):
        counterfactual_dcg(clicks, shown, target, examination=theta, clip=0.1)
    with pytest.raises(ValueError, match="must match"):
        counterfactual_dcg([[1, 0, 0]], [[0, 1]], [[1]], examination=theta)
    with pytest.raises(TypeError, match="integer"):
        counterfactual_dcg(clicks, [["a", "b"], ["b", "a"]], target, examination=theta)
    with pytest.raises(ValueError, match="0/1"):
        counterfactual_dcg([[2, 0], [0, 0]], shown, target, examination=theta)
    with pytest.raises(ValueError, match="placement"):
        counterfactual_dcg(clicks, shown, target, examination=theta,
                           placement=[[0.0, 1.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="no impression"):
        swap_propensities([[1, 0], [0, 0]], [1, 1])
    with pytest.raises(ValueError, match="undefined"):
        swap_propensities([[0, 1], [0, 1]], [1, 2])
    with pytest.raises(ValueError, match="1..2"):
        swap_propensities([[0, 1], [0, 1]], [1, 3])


@pytest.mark.parametrize("estimator, clip", [("ips", None), ("clipped_ips", 0.1),
                                             ("snips", None)])
def test_slot_estimators_refuse_a_cutoff_wider_than_the_log(estimator, clip):
    # regression: k=3 on a log of 2 positions silently returned DCG@2
    shown, clicks = [[0, 1], [1, 0]], [[1, 0], [0, 1]]
    target = [[0, 1, 2], [0, 1, 2]]
    with pytest.raises(ValueError, match=r"k=3 is wider than the log, which shows 2 "
                                         r"positions"):
        counterfactual_dcg(clicks, shown, target, examination=[1.0, 0.5], k=3,
                           estimator=estimator, clip=clip)
    with pytest.raises(ValueError, match=r"k=None \(the width of target, 3\) is wider"):
        counterfactual_dcg(clicks, shown, target, examination=[1.0, 0.5],
                           estimator=estimator, clip=clip)
    at_two = counterfactual_dcg(clicks, shown, target, examination=[1.0, 0.5], k=2,
                                estimator=estimator, clip=clip)
    assert at_two > 0


def test_item_estimators_credit_ranks_past_the_log_width_by_hand():
    # the log shows 2 positions; the new ranker puts item 0 third: DCG@3 counts it
    shown, clicks = [[0, 1]], [[1, 0]]
    got = counterfactual_dcg(clicks, shown, [[2, 1, 0]], examination=[0.5, 0.5], k=3,
                             estimator="item_ips")
    assert got == pytest.approx((1 / math.log2(4)) / 0.5, abs=1e-15)
    assert counterfactual_dcg(clicks, shown, [[2, 1, 0]], examination=[0.5, 0.5], k=2,
                              estimator="item_ips") == 0.0


@pytest.mark.parametrize("estimator", ["naive", "item_ips", "ips", "snips"])
def test_repeated_items_are_refused_naming_row_and_item(estimator):
    # regression: a repeated item was accepted and its click credited twice
    clicks, theta = [[1, 0, 0], [1, 0, 0]], [1.0, 0.5, 0.5]
    with pytest.raises(ValueError, match=r"target row 1 holds the item 4 twice"):
        counterfactual_dcg(clicks, [[4, 5, 6], [4, 5, 6]], [[4, 5, -1], [4, 4, -1]],
                           examination=theta, estimator=estimator)
    with pytest.raises(ValueError, match=r"shown row 0 holds the item 5 twice"):
        counterfactual_dcg(clicks, [[5, 6, 5], [4, 5, 6]], [[4, 5, 6], [4, 5, 6]],
                           examination=theta, estimator=estimator)
    # -1 pads may repeat
    value = counterfactual_dcg(clicks, [[4, 5, 6], [4, 5, 6]], [[4, -1, -1], [4, -1, -1]],
                               examination=theta, estimator=estimator)
    assert value == pytest.approx(1.0, abs=1e-15)


def test_snips_refuses_zero_over_zero():
    # regression: with no target item at its position in the log (every weight 0),
    # SNIPS returned 0.0; 0/0 has no estimate (IPS is 0 there, a real estimate)
    shown, clicks = [[0, 1], [0, 1]], [[1, 1], [1, 0]]
    target = [[1, 0], [1, 0]]
    with pytest.raises(ValueError, match=r"SNIPS is undefined here \(0/0\)"):
        counterfactual_dcg(clicks, shown, target, examination=[1.0, 0.5])
    assert counterfactual_dcg(clicks, shown, target, examination=[1.0, 0.5],
                              estimator="ips") == 0.0
