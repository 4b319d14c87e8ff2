"""rankeval.online: click models and interleaving.

* The click models' exact click probabilities match simulated frequencies, and two of
  them reproduce the book's metrics: ERR is the expected reciprocal rank of the cascade
  user's click, and RBP is (1 - p) times the expected clicks of the position-based user.
* Interleaving is fair under clicks that ignore the items: for team-draft the expected
  outcome is EXACTLY 0 (every coin flip and every click pattern enumerated, in
  fractions); for probabilistic interleaving it is 0 within the simulation's standard
  error. Balanced interleaving is fair for disjoint lists but not in general (the
  example of Radlinski et al. 2008 is biased), which the chapter shows.
* The list is at most as long as the shorter ranking (the default): a longer one
  would be filled by one ranker alone, and one click at a random position of two
  unrelated lists would favour it.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

import rankeval
from rankeval.online import (
    Interleaving,
    click_probabilities,
    interleave,
    interleaving_credit,
    simulate_clicks,
)

GRADES = [3, 0, 2, 1, 0, 3, 1]


@pytest.mark.parametrize("model", ["cascade", "pbm", "dbn"])
def test_simulated_click_rates_match_the_exact_probabilities(model):
    exact = click_probabilities(GRADES, model, max_grade=3)
    sims = simulate_clicks(GRADES, model, rng=np.random.default_rng(7), size=200_000,
                           max_grade=3)
    se = np.sqrt(exact * (1 - exact) / sims.shape[0]) + 1e-12
    assert np.all(np.abs(sims.mean(axis=0) - exact) < 4.5 * se)


def test_err_is_the_expected_reciprocal_rank_of_the_cascade_click():
    probs = click_probabilities(GRADES, "cascade", max_grade=3)
    expected = (probs / np.arange(1, len(GRADES) + 1)).sum()
    assert expected == pytest.approx(rankeval.err(GRADES, max_grade=3), abs=1e-12)


def test_rbp_is_the_expected_clicks_of_the_position_based_user():
    gains = (2.0 ** np.array(GRADES) - 1) / 2.0**3
    probs = click_probabilities(GRADES, "pbm", max_grade=3, persistence=0.7)
    assert (1 - 0.7) * probs.sum() == pytest.approx(rankeval.rbp(gains, p=0.7), abs=1e-12)


def test_dbn_with_full_continuation_and_certain_satisfaction_is_the_cascade():
    # the cascade user stops at the first click; the DBN user with gamma = 1 continues
    # unless satisfied, so it clicks at least as often further down
    cascade = click_probabilities(GRADES, "cascade", max_grade=3)
    dbn = click_probabilities(GRADES, "dbn", max_grade=3, continuation=1.0)
    assert cascade[0] == dbn[0] and np.all(dbn >= cascade - 1e-15)
    assert simulate_clicks(GRADES, "cascade", rng=np.random.default_rng(1),
                           size=5000, max_grade=3).sum(axis=1).max() == 1


def test_click_models_refuse_bad_input():
    with pytest.raises(ValueError, match="model"):
        click_probabilities([1, 0], "ubm")
    with pytest.raises(ValueError, match=">= 0"):
        click_probabilities([1, -1])
    with pytest.raises(ValueError, match="exceeds max_grade"):
        click_probabilities([3, 0], max_grade=2)
    with pytest.raises(TypeError, match="Generator"):
        simulate_clicks([1, 0], rng=0)
    with pytest.raises(ValueError, match="pbm"):
        click_probabilities([1, 0], "dbn", examination=[1, 0.5])
    with pytest.raises(ValueError, match="positions"):
        click_probabilities([1, 0, 1], "pbm", examination=[1, 0.5])
    with pytest.raises(TypeError, match="numbers"):
        click_probabilities(["a", "b"])


PAIRS = [
    (("a", "b", "c", "d"), ("b", "a", "e", "d")),
    (("a", "b", "c"), ("b", "c", "a")),
    (("a", "b", "c", "d", "e"), ("f", "a", "g", "b", "h")),
    ((1, 2, 3), (4, 5, 6)),
]


def all_click_patterns(n, rates):
    """Every click pattern on n positions with its probability (clicks independent of
    the items, position i clicked with probability rates[i])."""
    for pattern in itertools.product([0, 1], repeat=n):
        prob = Fraction(1)
        for c, r in zip(pattern, rates, strict=True):
            prob *= r if c else 1 - r
        yield np.array(pattern), prob


def expected_outcome(a, b, method, coins_needed, k=None):
    total = Fraction(0)
    for coins in itertools.product([True, False], repeat=coins_needed):
        shown = interleave(a, b, method, coins=list(coins), k=k)
        n = len(shown.ranking)
        rates = [Fraction(1, i + 2) for i in range(n)]  # clicks fall with position only
        for pattern, prob in all_click_patterns(n, rates):
            outcome = Fraction(int(interleaving_credit(shown, pattern)))
            total += prob * outcome / 2**coins_needed
    return total


@pytest.mark.parametrize("a, b", PAIRS)
def test_team_draft_is_exactly_fair_under_clicks_that_ignore_the_items(a, b):
    # the list is as long as the rankings (k = 3 of 3, 4 of 4, ...), so neither ranker
    # runs out of items before it is full
    k = min(len(a), len(b))
    assert expected_outcome(a, b, "team_draft", (k + 1) // 2, k=k) == 0


def uniform_single_click_outcome(a, b, method, coins_needed, k=None):
    """Exact expected outcome of ONE click at a uniformly random position of the list
    shown, over every sequence of coin flips (in fractions)."""
    total = Fraction(0)
    for coins in itertools.product([True, False], repeat=coins_needed):
        shown = interleave(a, b, method, coins=list(coins), k=k)
        n = len(shown.ranking)
        for pos in range(n):
            click = np.arange(n) == pos
            total += Fraction(int(interleaving_credit(shown, click)), n * 2**coins_needed)
    return total


UNRELATED = [
    (("a1", "a2"), ("b1", "b2", "b3", "b4")),  # the old default (all 6 shown): -1/3
    (("a1",), ("b1", "b2", "b3")),
    (("a1", "a2", "a3", "a4", "a5"), ("b1", "b2")),
]


@pytest.mark.parametrize("a, b", UNRELATED)
@pytest.mark.parametrize("method", ["team_draft", "balanced"])
def test_default_length_is_fair_for_unrelated_lists_of_different_lengths(a, b, method):
    # regression: k=None used to show every item of the union, the longer list
    # filling the tail alone (expected outcome -1/3 for the first pair); the default is
    # now the shorter length, so a uniformly random single click favours no ranker
    coins = 6 if method == "team_draft" else 1
    assert uniform_single_click_outcome(a, b, method, coins) == 0
    assert len(interleave(a, b, method, coins=[True] * coins).ranking) == min(len(a), len(b))


def test_probabilistic_default_length_is_fair_for_unrelated_lists_of_different_lengths():
    # the old default (all 6 items) gave B the positions after A's 2 items were drawn:
    # one uniformly random click had expected outcome -1/3
    rng = np.random.default_rng(46)
    a, b = ("a1", "a2"), ("b1", "b2", "b3", "b4")
    outcomes = []
    for _ in range(4000):
        shown = interleave(a, b, "probabilistic", rng=rng)
        assert len(shown.ranking) == 2
        click = np.arange(2) == rng.integers(0, 2)
        outcomes.append(interleaving_credit(shown, click))
    outcomes = np.array(outcomes)
    assert abs(outcomes.mean()) < 4 * outcomes.std(ddof=1) / np.sqrt(outcomes.size)


def test_default_length_is_fair_for_overlapping_lists_of_different_lengths():
    # B's 5 items would run out first once A has taken some of them; with the
    # default k = 5 they never do, under any position-only click model
    a = ("a", "b", "c", "d", "e", "x", "y", "z")
    b = ("f", "a", "g", "b", "h")
    assert uniform_single_click_outcome(a, b, "team_draft", 3) == 0
    assert expected_outcome(a, b, "team_draft", 3) == 0


def test_a_list_longer_than_the_shorter_ranking_is_refused():
    a, b = ("a1", "a2"), ("b1", "b2", "b3", "b4")
    for method, kw in [("team_draft", {"coins": [True] * 3}),
                       ("balanced", {"coins": [True]}),
                       ("probabilistic", {"rng": np.random.default_rng(0)})]:
        with pytest.raises(ValueError, match=r"k=3 is longer than the shorter ranking "
                                             r"\(2 items in a, 4 in b\)"):
            interleave(a, b, method, k=3, **kw)
    with pytest.raises(ValueError, match="a is empty"):
        interleave([], b, coins=[True])


def test_balanced_is_fair_for_disjoint_lists_but_biased_in_general():
    assert expected_outcome((1, 2, 3), (4, 5, 6), "balanced", 1) == 0
    # Radlinski, Kurup and Joachims (2008): A = (a, b, c), B = (b, c, a) shows a, b, c
    # or b, a, c; a random click favours B
    assert expected_outcome(("a", "b", "c"), ("b", "c", "a"), "balanced", 1) < 0


@pytest.mark.parametrize("marginalize", [True, False])
def test_probabilistic_interleaving_is_fair_under_random_clicks(marginalize):
    rng = np.random.default_rng(11)
    a, b = tuple(range(6)), (5, 0, 3, 1, 6, 2)
    outcomes = []
    for _ in range(6000):
        shown = interleave(a, b, "probabilistic", rng=rng)
        clicks = rng.random(len(shown.ranking)) < 0.3
        outcomes.append(interleaving_credit(shown, clicks, marginalize=marginalize))
    outcomes = np.array(outcomes)
    se = outcomes.std(ddof=1) / np.sqrt(outcomes.size)
    assert abs(outcomes.mean()) < 4 * se


def test_team_draft_is_fair_by_simulation_too():
    rng = np.random.default_rng(5)
    a, b = ("a", "b", "c", "d"), ("b", "a", "e", "d")
    outcomes = np.array([
        interleaving_credit(interleave(a, b, rng=rng), rng.random(4) < 0.4)
        for _ in range(6000)
    ])
    assert abs(outcomes.mean()) < 4 * outcomes.std(ddof=1) / np.sqrt(outcomes.size)


def test_interleaving_prefers_the_ranker_with_the_relevant_items():
    rng = np.random.default_rng(3)
    a, b = (0, 1, 2, 3, 4, 5), (5, 4, 3, 2, 1, 0)
    grade = {0: 3, 1: 2, 2: 1, 3: 0, 4: 0, 5: 0}  # A ranks the relevant items first
    for method in ["team_draft", "balanced", "probabilistic"]:
        wins = 0.0
        for _ in range(400):
            shown = interleave(a, b, method, rng=rng)
            clicks = simulate_clicks([grade[d] for d in shown.ranking], "dbn", rng=rng,
                                     max_grade=3)
            wins += interleaving_credit(shown, clicks[0])
        assert wins > 100, method


def test_interleaved_lists_show_each_item_once_and_keep_the_prefixes():
    rng = np.random.default_rng(0)
    a, b = tuple("abcdefg"), tuple("gbdaxyz")
    for method in ["team_draft", "balanced", "probabilistic"]:
        for _ in range(50):
            shown = interleave(a, b, method, rng=rng, k=6)
            assert len(shown.ranking) == 6 == len(set(shown.ranking))
            assert set(shown.ranking) <= set(a) | set(b)
            if method == "team_draft":  # each team's items in its ranker's order
                for team, ranking in [(1, a), (-1, b)]:
                    mine = [d for d, t in zip(shown.ranking, shown.teams, strict=True) if t == team]
                    assert mine == sorted(mine, key=ranking.index)
                assert abs(int(shown.teams.sum())) <= 1
            if method == "balanced":  # the top of the list holds a top prefix of both
                top = set(shown.ranking[:4])
                assert set(a[:2]) <= top and set(b[:2]) <= top


def test_credit_assignment_by_hand():
    shown = interleave(["a", "b", "c"], ["b", "d", "a"], coins=[True, False])
    assert shown.ranking == ("a", "b", "d")  # k = 3, the length of either ranking
    assert interleaving_credit(shown, [1, 0, 0]) == 1.0
    assert interleaving_credit(shown, [1, 1, 1]) == -1.0
    assert interleaving_credit(shown, [1, 1, 0]) == 0.0
    balanced = interleave(["a", "b", "c"], ["b", "d", "a"], "balanced", coins=[True])
    assert balanced.ranking == ("a", "b", "d")
    # lowest click d: rank 2 in B, absent from A, k* = 2; A's top 2 {a, b}, B's {b, d}
    assert interleaving_credit(balanced, [0, 1, 1]) == -1.0
    # lowest click b: rank 2 in A, 1 in B, k* = 1; A's top 1 {a}, B's {b}: one each
    assert interleaving_credit(balanced, [1, 1, 0]) == 0.0
    assert interleaving_credit(balanced, [1, 0, 0]) == 1.0


def test_interleaving_refuses_bad_input():
    with pytest.raises(ValueError, match="twice"):
        interleave(["a", "a"], ["b"], coins=[True])
    with pytest.raises(ValueError, match="method"):
        interleave(["a"], ["b"], "optimized", coins=[True])
    with pytest.raises(TypeError, match="exactly one"):
        interleave(["a"], ["b"])
    with pytest.raises(ValueError, match="ran out"):
        interleave(["a", "b", "c"], ["d", "e", "f"], coins=[True])
    with pytest.raises(TypeError, match="rng"):
        interleave(["a"], ["b"], "probabilistic", coins=[True])
    shown = interleave(["a"], ["b"], coins=[True])
    with pytest.raises(ValueError, match="columns"):
        interleaving_credit(shown, [1, 0, 0])
    with pytest.raises(TypeError, match="Interleaving"):
        interleaving_credit(("a", "b"), [1, 0])
    assert isinstance(shown, Interleaving)


@pytest.mark.parametrize("name", ["click_probabilities", "simulate_clicks", "interleave",
                                  "interleaving_credit", "counterfactual_dcg",
                                  "swap_propensities"])
def test_numpydoc_docstrings_name_their_chapter(name):
    import inspect
    import re
    from pathlib import Path

    import rankeval.online

    doc = inspect.getdoc(getattr(rankeval.online, name))
    for section in ("Parameters", "Returns", "Notes", "References", "Examples"):
        assert re.search(rf"^{section}\n-+$", doc, re.M), f"{name}: no {section}"
    chapter = re.search(r":doc:`/(chapters/\w+)`", doc)
    root = Path(__file__).resolve().parents[1]
    assert chapter and (root / f"{chapter.group(1)}.ipynb").exists(), name
