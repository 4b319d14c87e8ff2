"""Concentration of the recommendations (rankeval.beyond.exposure_gini and
exposure_entropy) against independent oracles: the Gini index as the mean absolute
difference of the counts (a transcription of the pairwise formula, not the sorted one
the library uses) and scipy.stats.entropy; and merit-based exposure
(group_exposure(relevance=...)) against a value worked by hand."""

import math

import numpy as np
import pytest
from scipy.stats import entropy

from rankeval.beyond import exposure_entropy, exposure_gini, group_exposure


def _counts(lists, catalogue):
    counts = dict.fromkeys(catalogue, 0)
    for items in lists.values():
        for item in items:
            counts[item] += 1
    return np.array([counts[i] for i in catalogue], dtype=float)


def _gini_pairwise(c):
    n = c.size
    return np.abs(c[:, None] - c[None, :]).sum() / (2 * (n - 1) * c.sum())


def test_gini_and_entropy_by_hand():
    run = {"u": ["a", "b"], "v": ["a", "c"]}
    # counts a 2, b 1, c 1, d 0: sum |c_x - c_y| over ordered pairs = 12,
    # G = 12 / (2 * 3 * 4) = 1/2; shares 1/2, 1/4, 1/4: H = 1.5 bits
    assert exposure_gini(run, 4) == pytest.approx(0.5, abs=1e-15)
    assert exposure_gini(run, ["d", "c", "b", "a"]) == pytest.approx(0.5, abs=1e-15)
    assert exposure_entropy(run, 4) == pytest.approx(1.5, abs=1e-15)
    assert exposure_entropy(run, 4, base=math.e) == pytest.approx(1.5 * math.log(2))
    # the extremes: one item in every slot, and every item equally often
    assert exposure_gini({"u": ["a"], "v": ["a"]}, 5) == pytest.approx(1.0)
    assert exposure_entropy({"u": ["a"], "v": ["a"]}, 5) == 0.0
    even = {"u": ["a", "b"], "v": ["c", "d"]}
    assert exposure_gini(even, 4) == 0.0
    assert exposure_entropy(even, 4) == pytest.approx(2.0, abs=1e-15)
    assert exposure_gini({"u": ["a"]}, 1) == 0.0


@pytest.mark.parametrize("seed", range(20))
def test_gini_and_entropy_against_independent_formulas(seed):
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(2, 40))
    catalogue = [f"i{j}" for j in range(n_items)]
    weights = rng.pareto(1.0, n_items) + 0.01
    k = int(rng.integers(1, min(n_items, 8) + 1))
    lists = {
        u: [catalogue[j] for j in rng.choice(n_items, k, replace=False,
                                             p=weights / weights.sum())]
        for u in range(int(rng.integers(1, 30)))
    }
    c = _counts(lists, catalogue)
    assert exposure_gini(lists, catalogue) == pytest.approx(_gini_pairwise(c), abs=1e-12)
    assert exposure_gini(lists, n_items) == pytest.approx(_gini_pairwise(c), abs=1e-12)
    assert exposure_entropy(lists, catalogue) == pytest.approx(entropy(c, base=2),
                                                               abs=1e-12)
    cut = max(1, k - 1)
    c_cut = _counts({u: items[:cut] for u, items in lists.items()}, catalogue)
    assert exposure_gini(lists, catalogue, k=cut) == pytest.approx(_gini_pairwise(c_cut),
                                                                   abs=1e-12)


def test_concentration_refuses_bad_input():
    with pytest.raises(ValueError, match="not in the catalogue"):
        exposure_gini({"u": ["z"]}, ["a", "b"])
    with pytest.raises(ValueError, match="catalogue of 1 items"):
        exposure_entropy({"u": ["a", "b"]}, 1)
    with pytest.raises(ValueError, match="recommend nothing"):
        exposure_gini({"u": []}, 3)
    with pytest.raises(TypeError, match="catalogue"):
        exposure_gini({"u": ["a"]}, "abc")
    with pytest.raises(ValueError, match="base"):
        exposure_entropy({"u": ["a"]}, 2, base=1)


def test_merit_based_exposure_by_hand():
    # two lists under the RBP reader (theta = 1/2): exposures 1, 1/2, 1/4 by position.
    # Group x = {a, e}: a is first in both lists (1 + 1), e third in one (1/4);
    # mean per item and list: 2.25 / (2 * 2) = 0.5625. Group y = {b, c, d}: b second
    # (1/2), c third (1/4), d second (1/2): 1.25 / (2 * 3) = 0.208333...
    # Merit: x's items have relevance 3 and 1 (mean 2), y's 1, 1 and 0 (mean 2/3).
    # Exposure per unit of merit: x 0.5625 / 2 = 0.28125, y 0.208333 / (2/3) = 0.3125.
    run = {"u1": ["a", "b", "c"], "u2": ["a", "d", "e"]}
    groups = {"a": "x", "e": "x", "b": "y", "c": "y", "d": "y"}
    merit = {"a": 3, "e": 1, "b": 1, "c": 1, "d": 0}
    table = group_exposure(run, groups, relevance=merit, model="rbp", patience=0.5)
    assert table["exposure"].tolist() == pytest.approx([0.5625, 1.25 / 6], abs=1e-15)
    assert table["utility"].tolist() == pytest.approx([2.0, 2 / 3], abs=1e-15)
    assert table["ratio"].tolist() == pytest.approx([0.28125, 0.3125], abs=1e-15)


def test_expected_exposure_of_a_policy_given_with_its_probabilities():
    from rankeval.beyond import expected_exposure

    # a (grade 1) first with probability 3/4, b (grade 0) first otherwise; RBP with
    # theta = 1/2. By hand: eps_a = 3/4 + 1/2 * 1/4 = 7/8, eps_b = 3/4 * 1/2 + 1/4 =
    # 5/8; the ideal policy gives a 1 and b 1/2. EE-L = 2 * (1/8)^2 = 1/32,
    # EE-D = 49/64 + 25/64 = 74/64, EE-R = 7/8 + 5/16 = 19/16.
    rel = {"a": 1, "b": 0}
    ee = expected_exposure([["a", "b"], ["b", "a"]], rel, weights=[0.75, 0.25])
    assert ee["exposure"].tolist() == pytest.approx([7 / 8, 5 / 8], abs=1e-15)
    assert ee["loss"] == pytest.approx(1 / 32, abs=1e-15)
    assert ee["disparity"] == pytest.approx(74 / 64, abs=1e-15)
    assert ee["relevance"] == pytest.approx(19 / 16, abs=1e-15)
    # weights are normalised, and integer weights equal repeated samples
    same = expected_exposure([["a", "b"], ["b", "a"]], rel, weights=[3, 1])
    repeated = expected_exposure([["a", "b"]] * 3 + [["b", "a"]], rel)
    assert same["loss"] == pytest.approx(repeated["loss"], abs=1e-15)
    assert same["loss"] == pytest.approx(ee["loss"], abs=1e-15)
    with pytest.raises(ValueError, match="2 rankings"):
        expected_exposure([["a", "b"], ["b", "a"]], rel, weights=[1.0])
    with pytest.raises(ValueError, match="at least 0"):
        expected_exposure([["a", "b"], ["b", "a"]], rel, weights=[1.0, -1.0])
    with pytest.raises(ValueError, match="positive sum"):
        expected_exposure([["a", "b"], ["b", "a"]], rel, weights=[0, 0])
