"""rankeval.online.sensitivity: exact expected outcomes, click patterns, sign-test power.

Every exact value is checked against an oracle that is not the function itself:
* click patterns: their margins are click_probabilities, the simulated pattern
  frequencies match them, and a hand-written recursion gives the same probabilities;
* expected_outcome: the simulated mean outcome of team-draft (interleave +
  simulate_clicks) lies within 4 standard errors of the exact one, and Hofmann et al.'s
  fidelity example is enumerated here independently, in fractions, over every coin and
  every draw of probabilistic interleaving;
* sign_test_power: the rejection region agrees with scipy.stats.binomtest for every
  count, and the power with a Monte Carlo estimate within 4 standard errors.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binomtest

from rankeval.online import (
    click_patterns,
    click_probabilities,
    expected_outcome,
    interleave,
    interleaving_credit,
    sign_test_power,
    simulate_clicks,
)

GRADES = [3, 0, 2, 1, 0, 3]


@pytest.mark.parametrize("model", ["cascade", "pbm", "dbn"])
def test_pattern_margins_are_the_click_probabilities(model):
    patterns, probs = click_patterns(GRADES, model, max_grade=3)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    margins = (patterns * probs[:, None]).sum(axis=0)
    np.testing.assert_allclose(margins, click_probabilities(GRADES, model, max_grade=3),
                               atol=1e-12)


def _dbn_pattern_by_hand(pattern, attract, satisfy, gamma):
    """P(pattern) by the DBN's story, position by position, in fractions."""

    def from_position(i):  # the user examines position i
        if i == len(pattern):
            return Fraction(1)
        a, s = attract[i], satisfy[i]
        if pattern[i]:
            go_on = (1 - s) * gamma
            rest = from_position(i + 1)
            stop = 1 if not any(pattern[i + 1:]) else 0
            return a * (go_on * rest + (1 - go_on) * stop)
        stop = 1 if not any(pattern[i + 1:]) else 0
        return (1 - a) * (gamma * from_position(i + 1) + (1 - gamma) * stop)

    return from_position(0)


def test_dbn_pattern_probabilities_match_a_hand_recursion():
    grades = [3, 1, 2, 0, 2]
    attract = [Fraction(2**g - 1, 8) for g in grades]
    gamma = Fraction(9, 10)
    patterns, probs = click_patterns(grades, "dbn", max_grade=3, continuation=0.9)
    for row, p in zip(patterns, probs, strict=True):
        exact = _dbn_pattern_by_hand(row.tolist(), attract, attract, gamma)
        assert p == pytest.approx(float(exact), abs=1e-15)


@pytest.mark.parametrize("model", ["cascade", "dbn"])
def test_simulated_pattern_frequencies_match_the_exact_probabilities(model):
    grades = [3, 1, 2, 0]
    patterns, probs = click_patterns(grades, model, max_grade=3)
    size = 200_000
    sims = simulate_clicks(grades, model, rng=np.random.default_rng(5), size=size,
                           max_grade=3)
    codes = sims.astype(int) @ (2 ** np.arange(len(grades) - 1, -1, -1))
    freq = np.bincount(codes, minlength=2 ** len(grades)) / size
    se = np.sqrt(probs * (1 - probs) / size)
    assert np.all(np.abs(freq - probs) <= 4 * se + 1e-12)
    assert np.all(freq[probs == 0] == 0)


def test_simulated_team_draft_outcome_agrees_with_the_exact_mean():
    # a small version of chapter 22's experiment: exact value vs a simulation
    rng = np.random.default_rng(22)
    grades = {f"d{i}": g for i, g in enumerate([3, 2, 0, 1, 3, 0, 2, 1])}
    a = ["d0", "d4", "d1", "d6", "d3", "d2"]  # the better ranker
    b = ["d2", "d0", "d5", "d1", "d7", "d4"]

    def user(shown):
        return click_patterns([grades[d] for d in shown], "dbn", max_grade=3)

    exact = expected_outcome(a, b, user, "team_draft")
    size = 40_000
    outcomes = np.empty(size)
    for t in range(size):
        shown = interleave(a, b, "team_draft", rng=rng)
        clicks = simulate_clicks([grades[d] for d in shown.ranking], "dbn", rng=rng,
                                 max_grade=3)
        outcomes[t] = interleaving_credit(shown, clicks[0])
    se = outcomes.std(ddof=1) / np.sqrt(size)
    assert exact.mean > 4 * se  # A is better, and the test can tell
    assert abs(outcomes.mean() - exact.mean) < 4 * se
    assert abs(outcomes.var() - exact.variance) < 0.02
    assert abs(np.mean(outcomes > 0) - exact.p_win) < 4 * np.sqrt(exact.p_win / size)


def _probabilistic_fidelity_by_hand(a, b, clicked, tau=3):
    """E[o] for one clicked item: every coin and every draw, in fractions (the outcome
    with the teams drawn has the same mean as the marginalised one)."""

    def weight(ranking, d):
        return Fraction(1, (ranking.index(d) + 1) ** tau)

    def expand(remaining, prob):
        total = Fraction(0)
        for side, ranking in ((1, a), (-1, b)):
            mass = sum(weight(ranking, d) for d in remaining)
            for d in remaining:
                p = prob * Fraction(1, 2) * weight(ranking, d) / mass
                if d == clicked:
                    total += side * p
                else:
                    total += expand([x for x in remaining if x != d], p)
        return total

    return expand(list(a), Fraction(1))


def test_fidelity_example_of_hofmann_et_al():
    a, b = ["d1", "d2", "d3", "d4"], ["d2", "d3", "d4", "d1"]
    # team-draft: d3 is always third, given to A or B by one fair coin
    assert expected_outcome(a, b, {"d3"}, "team_draft").mean == 0.0
    exact = _probabilistic_fidelity_by_hand(a, b, "d3")
    got = expected_outcome(a, b, {"d3"}, "probabilistic")
    assert got.mean == pytest.approx(float(exact), abs=1e-12)
    assert got.mean == pytest.approx(-0.2214, abs=5e-5)
    # balanced interleaving: both coins give d1, d2, d3, d4; k* = 2, only B's top 2
    # holds d3
    assert expected_outcome(a, b, {"d3"}, "balanced").mean == -1.0


def test_expected_outcome_of_team_draft_matches_a_fraction_enumeration():
    a, b = ["a", "b", "c", "d"], ["c", "a", "e", "f"]
    probs = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(1, 5)]

    def user(shown):  # a position-based user, independent of the items
        pats = np.array(list(itertools.product([0, 1], repeat=4)))
        pr = [np.prod([float(p if c else 1 - p) for p, c in zip(probs, row,
                                                                strict=True)])
              for row in pats]
        return pats, np.array(pr)

    total = Fraction(0)
    for coins in itertools.product([True, False], repeat=2):
        shown = interleave(a, b, "team_draft", coins=list(coins))
        for row in itertools.product([0, 1], repeat=4):
            p = Fraction(1, 4)
            for q, c in zip(probs, row, strict=True):
                p *= q if c else 1 - q
            total += p * int(np.sign(np.dot(row, shown.teams)))
    assert total == 0  # team-draft is fair
    assert expected_outcome(a, b, user, "team_draft").mean == pytest.approx(0, abs=1e-15)


def test_probabilistic_expected_outcome_matches_a_simulation():
    a, b = ["a", "b", "c"], ["c", "d", "a"]
    exact = expected_outcome(a, b, {"c"}, "probabilistic")
    rng = np.random.default_rng(3)
    draws = np.array([interleaving_credit(s, [d == "c" for d in s.ranking])
                      for s in (interleave(a, b, "probabilistic", rng=rng)
                                for _ in range(20_000))])
    se = draws.std(ddof=1) / np.sqrt(draws.size)
    assert abs(draws.mean() - exact.mean) < 4 * se
    assert abs(draws.var() - exact.variance) < 0.01


def test_expected_outcome_refuses_bad_input():
    with pytest.raises(ValueError, match="method"):
        expected_outcome(["a"], ["b"], {"a"}, "interleave")
    with pytest.raises(ValueError, match="longer than the shorter"):
        expected_outcome(["a", "b"], ["b"], {"a"}, k=2)
    with pytest.raises(TypeError, match="string"):
        expected_outcome(["a", "b"], ["b", "a"], "a")
    with pytest.raises(ValueError, match="not a distribution"):
        expected_outcome(["a", "b"], ["b", "a"],
                         lambda shown: (np.array([[1, 0]]), np.array([0.5])))
    many = [f"x{i}" for i in range(10)]
    with pytest.raises(ValueError, match="at most"):
        expected_outcome(many, many[::-1] + [], {"x1"}, "probabilistic")
    with pytest.raises(ValueError, match="at most 20"):
        click_patterns([1] * 21, "pbm")


def test_sign_test_power_without_ties_agrees_with_binomtest():
    # no ties: the power is the binomial probability of the counts binomtest rejects
    from scipy.stats import binom

    for t in (1, 5, 17, 40, 101):
        for q in (0.5, 0.6, 0.8):
            region = [w for w in range(t + 1) if binomtest(w, t, 0.5).pvalue <= 0.05]
            oracle = sum(binom.pmf(w, t, q) for w in region)
            assert sign_test_power(q, 1 - q, t) == pytest.approx(oracle, abs=1e-12)


def test_sign_test_power_matches_monte_carlo():
    rng = np.random.default_rng(11)
    p_win, p_loss, t, reps = 0.35, 0.25, 300, 20_000
    outcomes = rng.choice([1, -1, 0], size=(reps, t), p=[p_win, p_loss, 1 - p_win - p_loss])
    wins, losses = (outcomes > 0).sum(axis=1), (outcomes < 0).sum(axis=1)
    rejected = np.array([binomtest(int(w), int(w + m), 0.5).pvalue <= 0.05
                         for w, m in zip(wins, losses, strict=True)])
    exact = sign_test_power(p_win, p_loss, t)
    se = np.sqrt(exact * (1 - exact) / reps)
    assert abs(rejected.mean() - exact) < 4 * se


def test_sign_test_power_under_the_null_is_at_most_alpha():
    for t in (5, 20, 101, 400):
        assert sign_test_power(0.3, 0.3, t) <= 0.05
    assert sign_test_power(0.0, 0.0, 50) == 0.0
    with pytest.raises(ValueError, match="exceeds 1"):
        sign_test_power(0.6, 0.5, 10)
