"""How sensitive an interleaved comparison is: exact expected outcomes and the sign test.

* :func:`click_patterns`: every click pattern a click model can produce on one list,
  with its exact probability;
* :func:`expected_outcome`: the exact mean and variance of an interleaving outcome,
  by enumerating every list the method can show and every click pattern;
* :func:`sign_test_power`: the exact power of the two-sided sign test on the wins of
  an interleaving experiment.

Chapter: :doc:`/chapters/22_online_evaluation`.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy.stats import binom

from ._checks import check_count, check_number
from .clicks import _parameters
from .interleaving import Interleaving, _ranked_ids, interleave, interleaving_credit

__all__ = ["OutcomeMoments", "click_patterns", "expected_outcome", "sign_test_power"]

MAX_PATTERN_POSITIONS = 20  # 2**20 patterns of clicks
MAX_LISTS = 200_000  # distinct lists enumerated by expected_outcome


def click_patterns(grades, model="cascade", *, max_grade=None, persistence=0.8,
                   continuation=0.9, examination=None):
    r"""Every click pattern on one ranked list, with its exact probability.

    Parameters
    ----------
    grades : array_like, shape (n_items,)
        Relevance grades (>= 0) of the items as shown, top first; at most 20 items
        (:math:`2^{20}` patterns).
    model : {"cascade", "pbm", "dbn"}, default="cascade"
        The click model; see :func:`rankeval.online.click_probabilities`.
    max_grade, persistence, continuation, examination
        As in :func:`rankeval.online.click_probabilities`.

    Returns
    -------
    patterns : ndarray of bool, shape (2**n_items, n_items)
        All click patterns, in binary order (row :math:`j` has a click at position
        :math:`i` when bit :math:`n - i` of :math:`j` is set; the first row has no click).
    probabilities : ndarray of shape (2**n_items,)
        The probability of each pattern; they sum to 1.

    Notes
    -----
    The position-based user clicks independently at every position:
    :math:`P(c) = \prod_i (e_i \pi_i)^{c_i} (1 - e_i \pi_i)^{1 - c_i}`. The DBN user
    (the cascade user is the DBN with :math:`\gamma = 1` and certain satisfaction)
    reads from the top; at an examined position it clicks with probability
    :math:`\pi_i`, stops after a click with probability :math:`\sigma_i` (satisfied),
    and otherwise reads on with probability :math:`\gamma`. The probability of a
    pattern is a sum over the two states "still reading" and "stopped", carried
    from position to position. The click probabilities of
    :func:`rankeval.online.click_probabilities` are the margins:
    :math:`P(c_i = 1) = \sum_c c_i P(c)`.

    Chapter: :doc:`/chapters/22_online_evaluation`.

    References
    ----------
    .. [1] O. Chapelle and Y. Zhang, "A dynamic Bayesian network click model for
       web search ranking", WWW 2009.

    Examples
    --------
    >>> from rankeval.online import click_patterns
    >>> patterns, probs = click_patterns([1, 1], "cascade", max_grade=1)
    >>> patterns.astype(int).tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    >>> probs.tolist()
    [0.25, 0.25, 0.5, 0.0]
    """
    attract, satisfy, gamma, theta = _parameters(
        grades, model, max_grade, persistence, continuation, examination)
    n = attract.size
    if n > MAX_PATTERN_POSITIONS:
        raise ValueError(f"grades has {n} positions: click_patterns enumerates 2**n "
                         f"patterns and takes at most {MAX_PATTERN_POSITIONS} positions")
    codes = np.arange(2**n)
    patterns = ((codes[:, None] >> np.arange(n - 1, -1, -1)[None, :]) & 1).astype(bool)
    if model == "pbm":
        p = theta * attract
        probs = np.prod(np.where(patterns, p, 1.0 - p), axis=1)
        return patterns, probs
    reading = np.ones(2**n)  # P(pattern so far, user reads position i)
    stopped = np.zeros(2**n)  # P(pattern so far, user has stopped)
    for i in range(n):
        c = patterns[:, i]
        click = reading * attract[i]
        go_on_after_click = (1.0 - satisfy[i]) * gamma
        skip = reading * (1.0 - attract[i])
        new_reading = np.where(c, click * go_on_after_click, skip * gamma)
        new_stopped = np.where(c, click * (1.0 - go_on_after_click),
                               stopped + skip * (1.0 - gamma))
        reading, stopped = new_reading, new_stopped
    return patterns, reading + stopped


def _probabilistic_lists(a, b, k, tau):
    """Every list of k items probabilistic interleaving can show, with its probability."""
    weight_a = {d: 1.0 / (r + 1) ** tau for r, d in enumerate(a)}
    weight_b = {d: 1.0 / (r + 1) ** tau for r, d in enumerate(b)}
    items = list(dict.fromkeys(a + b))
    n_lists = math.perm(len(items), k)
    if n_lists > MAX_LISTS:
        raise ValueError(f"probabilistic interleaving of these rankings can show "
                         f"{n_lists} lists of {k} items; expected_outcome enumerates "
                         f"at most {MAX_LISTS}: use a smaller k")
    out = []

    def extend(shown, remaining, prob, p_a):
        if len(shown) == k or not remaining:
            out.append((prob, Interleaving(tuple(shown), np.zeros(len(shown), np.int8),
                                           "probabilistic", a, b, np.array(p_a))))
            return
        mass_a = sum(weight_a.get(d, 0.0) for d in remaining)
        mass_b = sum(weight_b.get(d, 0.0) for d in remaining)
        coin_a = 0.5 if (mass_a > 0 and mass_b > 0) else float(mass_a > 0)
        for j, d in enumerate(remaining):
            pa = coin_a * (weight_a.get(d, 0.0) / mass_a if mass_a > 0 else 0.0)
            pb = (1.0 - coin_a) * (weight_b.get(d, 0.0) / mass_b if mass_b > 0 else 0.0)
            if pa + pb == 0.0:
                continue
            extend(shown + [d], remaining[:j] + remaining[j + 1:], prob * (pa + pb),
                   p_a + [pa / (pa + pb)])

    extend([], items, 1.0, [])
    return out


def _lists(a, b, method, k, tau):
    if method == "probabilistic":
        return _probabilistic_lists(a, b, k, tau)
    # team-draft flips one coin per round of two positions, balanced one coin in all
    n_coins = (k + 1) // 2 if method == "team_draft" else 1
    return [(0.5**n_coins, interleave(a, b, method, coins=list(coins), k=k))
            for coins in itertools.product([True, False], repeat=n_coins)]


class OutcomeMoments(NamedTuple):
    """Exact distribution summary of one impression's interleaving outcome."""

    mean: float
    variance: float
    p_win: float
    p_loss: float


def expected_outcome(a, b, clicks, method="team_draft", *, k=None, tau=3.0):
    r"""Exact mean and variance of the outcome of one interleaved impression.

    Every list the method can show is enumerated with its probability (team-draft:
    every coin sequence; balanced: both coins; probabilistic: every ordering of
    :math:`k` items, each with the probability of drawing it), and on each list every
    click pattern with its probability.

    Parameters
    ----------
    a, b : sequence of hashable
        The item ids ranked by A and by B, top first, as in
        :func:`rankeval.online.interleave`.
    clicks : callable or collection of hashable
        The user. A callable takes the list shown (a tuple of item ids) and returns
        ``(patterns, probabilities)``, an array of 0/1 click patterns of shape
        ``(n_patterns, len(list))`` and their probabilities (summing to 1), e.g.
        from :func:`click_patterns`. A collection of item ids is a user who clicks
        exactly those items wherever they are shown.
    method : {"team_draft", "balanced", "probabilistic"}, default="team_draft"
        The interleaving method.
    k : int or None, default=None
        Length of the list, as in :func:`rankeval.online.interleave`.
    tau : float, default=3.0
        Exponent :math:`\beta` of probabilistic interleaving.

    Returns
    -------
    OutcomeMoments
        ``mean`` :math:`E[o]`, ``variance`` :math:`E[o^2] - E[o]^2`, and the
        probabilities ``p_win`` :math:`P(o > 0)` and ``p_loss`` :math:`P(o < 0)`.
        Probabilistic interleaving is scored with the marginalised outcome of
        :func:`rankeval.online.interleaving_credit`; its mean is also the mean of the
        outcome with the teams drawn, but its variance is smaller.

    Notes
    -----
    .. math:: E[o] = \sum_{L} P(L) \sum_{c} P(c \mid L)\, o(L, c),

    over the lists :math:`L` and click patterns :math:`c`. The number of lists grows
    as :math:`2^{\lceil k/2 \rceil}` for team-draft and as
    :math:`n!/(n-k)!` (with :math:`n` the items of both rankings) for probabilistic
    interleaving, which is refused beyond 200,000 lists.

    Chapter: :doc:`/chapters/22_online_evaluation`.

    References
    ----------
    .. [1] K. Hofmann, S. Whiteson and M. de Rijke, "A probabilistic method for
       inferring preferences from clicks", CIKM 2011.

    Examples
    --------
    Hofmann et al.'s example: B ranks d3 higher, but team-draft is blind to it.

    >>> from rankeval.online import expected_outcome
    >>> a, b = ["d1", "d2", "d3", "d4"], ["d2", "d3", "d4", "d1"]
    >>> expected_outcome(a, b, {"d3"}, "team_draft").mean
    0.0
    >>> round(expected_outcome(a, b, {"d3"}, "probabilistic").mean, 4)
    -0.2214
    """
    if method not in ("team_draft", "balanced", "probabilistic"):
        raise ValueError(f"method must be 'team_draft', 'balanced' or 'probabilistic', "
                         f"got {method!r}")
    a, b = _ranked_ids(a, "a"), _ranked_ids(b, "b")
    shorter = min(len(a), len(b))
    if shorter == 0:
        raise ValueError("a and b must each rank at least one item")
    k = shorter if k is None else check_count(k, "k")
    if k > shorter:
        raise ValueError(f"k={k} is longer than the shorter ranking ({shorter} items)")
    tau = check_number(tau, "tau", low=0.0, low_open=True)
    if callable(clicks):
        user = clicks
    else:
        if isinstance(clicks, (str, bytes)):
            raise TypeError("clicks must be a callable or a collection of item ids, "
                            f"got the string {clicks!r}")
        clicked = set(clicks)

        def user(shown):
            return np.array([[d in clicked for d in shown]]), np.ones(1)

    mean = second = win = loss = 0.0
    for prob, shown in _lists(a, b, method, k, tau):
        patterns, probs = user(shown.ranking)
        probs = np.asarray(probs, dtype=float)
        if probs.ndim != 1 or np.any(probs < 0) or abs(probs.sum() - 1.0) > 1e-9:
            raise ValueError(f"the click model gave probabilities that are not a "
                             f"distribution (sum {probs.sum()!r}) for the list "
                             f"{shown.ranking}")
        o = np.atleast_1d(interleaving_credit(shown, patterns))
        mean += prob * float(probs @ o)
        second += prob * float(probs @ o**2)
        win += prob * float(probs[o > 0].sum())
        loss += prob * float(probs[o < 0].sum())
    return OutcomeMoments(mean, max(second - mean**2, 0.0), win, loss)


def sign_test_power(p_win, p_loss, impressions, *, alpha=0.05):
    r"""Exact power of the two-sided sign test on the wins of an interleaving experiment.

    Each of ``impressions`` impressions is a win for A with probability ``p_win``, a
    win for B with probability ``p_loss``, and a tie otherwise. The sign test drops
    the ties and tests whether A's share of the :math:`N` decided impressions differs
    from 1/2 (``scipy.stats.binomtest(wins, N)``).

    Parameters
    ----------
    p_win, p_loss : float
        Per-impression probabilities that A wins and that B wins (sum at most 1).
    impressions : int
        The number of impressions :math:`T` of the experiment.
    alpha : float, default=0.05
        The level of the test.

    Returns
    -------
    float
        The probability that the test rejects "no preference" at level ``alpha``.

    Notes
    -----
    With :math:`q = p_{\text{win}}/(p_{\text{win}} + p_{\text{loss}})`, :math:`N` the
    decided impressions, :math:`N \sim \mathrm{Bin}(T, p_{\text{win}} +
    p_{\text{loss}})`, and :math:`W \mid N \sim \mathrm{Bin}(N, q)` A's wins, the test
    rejects when :math:`W \le c_N` or :math:`W \ge N - c_N`, with :math:`c_N` the
    largest count for which :math:`P(W \le c_N \mid q = 1/2) \le \alpha/2`:

    .. math:: \text{power} = \sum_{N=0}^{T} P(N)\,
       \big[P(W \le c_N \mid N, q) + P(W \ge N - c_N \mid N, q)\big].

    Chapter: :doc:`/chapters/22_online_evaluation`.

    Examples
    --------
    >>> from rankeval.online import sign_test_power
    >>> round(sign_test_power(0.5, 0.5, 20), 4)  # no preference: the test's level
    0.0414
    >>> round(sign_test_power(0.4, 0.3, 500), 4)
    0.7479
    """
    p_win = check_number(p_win, "p_win", low=0.0, high=1.0)
    p_loss = check_number(p_loss, "p_loss", low=0.0, high=1.0)
    if p_win + p_loss > 1.0 + 1e-12:
        raise ValueError(f"p_win + p_loss = {p_win + p_loss!r} exceeds 1")
    t = check_count(impressions, "impressions")
    alpha = check_number(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    decided = p_win + p_loss
    if decided == 0.0:
        return 0.0
    q = p_win / decided
    n = np.arange(t + 1)
    # c_N: the largest c with P(W <= c | N, 1/2) <= alpha/2 (-1 when there is none)
    c = binom.ppf(alpha / 2, n, 0.5).astype(int)
    c = np.where(binom.cdf(c, n, 0.5) <= alpha / 2, c, c - 1)
    low = np.where(c >= 0, binom.cdf(c, n, q), 0.0)
    high = np.where(c >= 0, binom.sf(n - c - 1, n, q), 0.0)
    return float(np.sum(binom.pmf(n, t, decided) * (low + high)))
