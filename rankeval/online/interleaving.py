"""Interleaved comparison of two rankers: team-draft, balanced and probabilistic.

Chapter: :doc:`/chapters/22_online_evaluation`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import bool_array, check_count, check_number, check_rng

__all__ = ["Interleaving", "interleave", "interleaving_credit"]

METHODS = ("team_draft", "balanced", "probabilistic")


class Interleaving(NamedTuple):
    """One interleaved list and what its credit assignment needs.

    ``ranking`` holds the item ids shown, top first; ``teams`` is +1 where ranker A
    contributed the item and -1 where B did (0 throughout for balanced interleaving,
    which has no teams); ``p_a`` (probabilistic interleaving only) is, per position, the
    probability that A contributed the item given the list shown.
    """

    ranking: tuple
    teams: np.ndarray
    method: str
    a: tuple
    b: tuple
    p_a: np.ndarray | None = None


def _ranked_ids(x, name: str) -> tuple:
    if isinstance(x, (str, bytes)) or not hasattr(x, "__len__"):
        raise TypeError(f"{name} must be a sequence of item ids, got {type(x).__name__}")
    items = tuple(x.tolist() if isinstance(x, np.ndarray) else x)
    if isinstance(x, np.ndarray) and x.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {x.shape}")
    seen = set()
    for item in items:
        try:
            hash(item)
        except TypeError:
            raise TypeError(f"{name} holds an unhashable id {item!r}") from None
        if item in seen:
            raise ValueError(f"{name} shows the item {item!r} twice")
        seen.add(item)
    return items


class _Coins:
    """Coin flips from a Generator, or from a given sequence (True = A first)."""

    def __init__(self, rng, coins):
        if (rng is None) == (coins is None):
            raise TypeError("give exactly one of rng= (a numpy Generator) and coins=")
        self.rng = None if rng is None else check_rng(rng)
        self.coins = None if coins is None else [bool(c) for c in bool_array(coins, "coins")]
        self.used = 0

    def flip(self) -> bool:
        self.used += 1
        if self.rng is not None:
            return bool(self.rng.random() < 0.5)
        if self.used > len(self.coins):
            raise ValueError(f"coins ran out: this interleaving needs more than "
                             f"{len(self.coins)} coin flips")
        return self.coins[self.used - 1]


def _team_draft(a, b, k, coins):
    shown, teams, taken = [], [], set()
    ia = ib = 0
    size_a = size_b = 0
    while len(shown) < k:
        while ia < len(a) and a[ia] in taken:
            ia += 1
        while ib < len(b) and b[ib] in taken:
            ib += 1
        a_left, b_left = ia < len(a), ib < len(b)
        if not (a_left or b_left):
            break
        a_turn = size_a < size_b or (size_a == size_b and coins.flip())
        if (a_turn and a_left) or not b_left:
            shown.append(a[ia])
            teams.append(1)
            size_a += 1
        else:
            shown.append(b[ib])
            teams.append(-1)
            size_b += 1
        taken.add(shown[-1])
    return shown, teams


def _balanced(a, b, k, coins):
    a_first = coins.flip()
    shown, taken = [], set()
    ka = kb = 0
    while len(shown) < k and (ka < len(a) or kb < len(b)):
        a_turn = ka < kb or (ka == kb and a_first)
        if (a_turn and ka < len(a)) or kb >= len(b):
            item, ka = a[ka], ka + 1
        else:
            item, kb = b[kb], kb + 1
        if item not in taken:
            shown.append(item)
            taken.add(item)
    return shown, [0] * len(shown)


def _probabilistic(a, b, k, tau, rng):
    weight_a = {d: 1.0 / (r + 1) ** tau for r, d in enumerate(a)}
    weight_b = {d: 1.0 / (r + 1) ** tau for r, d in enumerate(b)}
    remaining = list(dict.fromkeys(a + b))  # a's order, then b's new items: stable
    shown, teams, p_a = [], [], []
    while len(shown) < k and remaining:
        wa = np.array([weight_a.get(d, 0.0) for d in remaining])
        wb = np.array([weight_b.get(d, 0.0) for d in remaining])
        mass_a, mass_b = wa.sum(), wb.sum()
        coin_a = 0.5 if (mass_a > 0 and mass_b > 0) else float(mass_a > 0)
        use_a = rng.random() < coin_a
        w = wa if use_a else wb
        cdf = np.cumsum(w / w.sum())
        j = min(int(np.searchsorted(cdf, rng.random(), side="right")), len(w) - 1)
        while w[j] == 0.0:  # guard against a rounding step onto a zero-weight item
            j -= 1
        pa = coin_a * (wa[j] / mass_a if mass_a > 0 else 0.0)
        pb = (1.0 - coin_a) * (wb[j] / mass_b if mass_b > 0 else 0.0)
        shown.append(remaining.pop(j))
        teams.append(1 if use_a else -1)
        p_a.append(pa / (pa + pb))
    return shown, teams, p_a


def interleave(a, b, method="team_draft", *, rng=None, coins=None, k=None, tau=3.0):
    r"""Interleave the rankings of two rankers A and B into one list to show a user.

    Parameters
    ----------
    a, b : sequence of hashable
        The item ids ranked by A and by B, top first, each without repeats.
    method : {"team_draft", "balanced", "probabilistic"}, default="team_draft"
        ``"team_draft"``: in each round a coin decides which ranker picks first, then
        each adds its best item not yet shown, and the item joins that ranker's team.
        ``"balanced"``: one coin decides which ranker leads; the list then takes items
        alternately from the two rankings, keeping each one's top prefix in the list.
        ``"probabilistic"``: each ranking becomes a distribution over its items,
        :math:`P(d) \propto r(d)^{-\beta}` (:math:`\beta` = ``tau``); at each position a coin picks a ranker, an
        item is drawn from its distribution over the items not yet shown, and removed.
    rng : numpy.random.Generator, optional
        Source of the coin flips (and, for probabilistic interleaving, of the draws).
    coins : sequence of bool, optional
        Instead of ``rng`` (team-draft and balanced only): the coin flips to use, in
        order, ``True`` meaning "A first". Lets a test enumerate every outcome.
    k : int or None, default=None
        Length of the interleaved list, at most the length of the shorter ranking;
        ``None`` is that length, ``min(len(a), len(b))``. A larger ``k`` raises
        ``ValueError`` (see Notes).
    tau : float, default=3.0
        Exponent of probabilistic interleaving (> 0).

    Returns
    -------
    Interleaving
        The list shown (``ranking``), the team of each position (``teams``), and for
        probabilistic interleaving ``p_a``, the posterior probability of team A at each
        position given the list.

    Notes
    -----
    Team-draft keeps the teams balanced: after each round both have contributed the
    same number of items, so under clicks that ignore the items every position is A's
    or B's with probability 1/2. For probabilistic interleaving, with :math:`W_L` the
    items of the list not yet shown at step :math:`i` and coin probabilities
    :math:`c_A = c_B = 1/2` (1 and 0 once a ranking has nothing left),

    .. math::

       \begin{aligned}
       P(t_i = A \mid \text{list}) &= \frac{c_A P_A(d_i \mid W)}
       {c_A P_A(d_i \mid W) + c_B P_B(d_i \mid W)}, \\
       P_L(d \mid W) &= \frac{r_L(d)^{-\beta}}{\sum_{d' \in W} r_L(d')^{-\beta}},
       \end{aligned}

    and the positions' teams are independent given the list, because the items
    removed at each step do not depend on which ranker contributed them.

    **Length of the list.** These properties hold only while both rankers still have
    an item to give. Once one ranking is used up, filling the list from the other
    gives every remaining position to one ranker: for two unrelated lists of 2 and 4
    items shown in full, a single click at a uniformly random position has expected
    outcome -1/3. Radlinski et al. [2]_ stop the interleaving loop as soon as either
    ranking has no item left to add, which is not enough either: the list then
    stops at a length that depends on the coins (for the same lists, +1/6 in A's
    favour). A list of at most :math:`\min(|A|, |B|)` items never meets the end of
    either ranking (a ranker runs out only when all its items are already shown), so
    every coin flip is used as the method intends and team-draft's expected outcome
    under clicks that ignore the items is exactly 0. ``k`` defaults to that length
    and may not exceed it.

    Chapter: :doc:`/chapters/22_online_evaluation`.

    References
    ----------
    .. [1] T. Joachims, "Optimizing search engines using clickthrough data", KDD 2002.
    .. [2] F. Radlinski, M. Kurup and T. Joachims, "How does clickthrough data reflect
       retrieval quality?", CIKM 2008.
    .. [3] K. Hofmann, S. Whiteson and M. de Rijke, "A probabilistic method for
       inferring preferences from clicks", CIKM 2011.

    Examples
    --------
    >>> from rankeval.online import interleave
    >>> shown = interleave(["a", "b", "c"], ["b", "d", "a"],
    ...                    coins=[True, False])
    >>> shown.ranking, shown.teams.tolist()
    (('a', 'b', 'd'), [1, -1, -1])
    >>> interleave(["a", "b", "c"], ["b", "d", "a"], "balanced",
    ...            coins=[False]).ranking
    ('b', 'a', 'd')
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    a, b = _ranked_ids(a, "a"), _ranked_ids(b, "b")
    shorter = min(len(a), len(b))
    if shorter == 0:
        raise ValueError(f"{'a' if not a else 'b'} is empty: there is nothing to "
                         "interleave with")
    if k is None:
        k = shorter
    elif (k := check_count(k, "k")) > shorter:
        raise ValueError(
            f"k={k} is longer than the shorter ranking ({len(a)} items in a, {len(b)} "
            f"in b): past {shorter} positions one ranker may have no item left to give "
            f"and the other would fill the list alone, which biases the outcome; give "
            f"k <= {shorter} (or None)")
    if method == "probabilistic":
        if coins is not None:
            raise TypeError("probabilistic interleaving draws items too: give rng=, "
                            "not coins=")
        check_rng(rng)
        tau = check_number(tau, "tau", low=0.0, low_open=True)
        shown, teams, p_a = _probabilistic(a, b, k, tau, rng)
        return Interleaving(tuple(shown), np.array(teams, dtype=np.int8), method, a, b,
                            np.array(p_a))
    flips = _Coins(rng, coins)
    shown, teams = (_team_draft if method == "team_draft" else _balanced)(a, b, k, flips)
    return Interleaving(tuple(shown), np.array(teams, dtype=np.int8), method, a, b)


def _balanced_credit(result, clicks):
    n = len(result.ranking)
    rank_a = {d: r for r, d in enumerate(result.a)}
    rank_b = {d: r for r, d in enumerate(result.b)}
    # for each possible lowest click l: which shown items lie in A's and B's top k*(l)
    in_a = np.zeros((n, n))
    in_b = np.zeros((n, n))
    for low, item in enumerate(result.ranking):
        depth = min(rank_a.get(item, np.inf), rank_b.get(item, np.inf)) + 1
        for pos, d in enumerate(result.ranking):
            in_a[low, pos] = rank_a.get(d, np.inf) < depth
            in_b[low, pos] = rank_b.get(d, np.inf) < depth
    any_click = clicks.any(axis=1)
    lowest = n - 1 - np.argmax(clicks[:, ::-1], axis=1)
    h_a = (clicks * in_a[lowest]).sum(axis=1)
    h_b = (clicks * in_b[lowest]).sum(axis=1)
    return np.where(any_click, np.sign(h_a - h_b), 0.0)


def _probabilistic_credit(result, clicks):
    rows, n = clicks.shape
    dist = np.zeros((rows, n + 1))
    dist[:, 0] = 1.0
    for i in range(n):  # distribution of the number of clicks credited to A
        q = result.p_a[i]
        shifted = np.zeros_like(dist)
        shifted[:, 1:] = dist[:, :-1]
        moved = (1.0 - q) * dist + q * shifted
        dist = np.where(clicks[:, [i]], moved, dist)
    m = clicks.sum(axis=1)
    x = np.arange(n + 1)
    wins = (dist * (2 * x[None, :] > m[:, None])).sum(axis=1)
    losses = (dist * (2 * x[None, :] < m[:, None])).sum(axis=1)
    return wins - losses


def interleaving_credit(result, clicks, *, marginalize=True):
    r"""Credit the clicks on an interleaved list to ranker A or B.

    Parameters
    ----------
    result : Interleaving
        What :func:`interleave` returned.
    clicks : array_like of bool, shape (n,) or (n_users, n)
        Clicks on ``result.ranking`` (one row per user shown that list).
    marginalize : bool, default=True
        Probabilistic interleaving only: average the outcome over every team
        assignment that could have produced the list (Hofmann et al.'s marginalised
        estimator); ``False`` uses the teams actually drawn.

    Returns
    -------
    float or ndarray of shape (n_users,)
        The outcome: +1 when A wins, -1 when B wins, 0 for a tie (or no click); the
        marginalised probabilistic outcome is the expected outcome, in [-1, 1].

    Notes
    -----
    Team-draft (and probabilistic without marginalising): with :math:`c_i` the clicks
    and :math:`t_i = \pm 1` the teams, :math:`o = \operatorname{sign}(\sum_i c_i t_i)`.
    Balanced: with :math:`\ell` the lowest clicked position and :math:`k^*` the
    smaller of the ranks of its item in A and in B, :math:`h_A` and :math:`h_B` count
    the clicked items in A's and B's top :math:`k^*`, and
    :math:`o = \operatorname{sign}(h_A - h_B)`. Probabilistic, marginalised:
    :math:`o = P(X_A > m/2) - P(X_A < m/2)`, where :math:`m` is the number of clicks
    and :math:`X_A` the number of them credited to A, a sum of independent
    Bernoulli(:math:`P(t_i = A \mid \text{list})`) over the clicked positions.

    Chapter: :doc:`/chapters/22_online_evaluation`.

    References
    ----------
    .. [1] T. Joachims, "Optimizing search engines using clickthrough data", KDD 2002.
    .. [2] F. Radlinski, M. Kurup and T. Joachims, "How does clickthrough data reflect
       retrieval quality?", CIKM 2008.
    .. [3] K. Hofmann, S. Whiteson and M. de Rijke, "A probabilistic method for
       inferring preferences from clicks", CIKM 2011.

    Examples
    --------
    >>> from rankeval.online import interleave, interleaving_credit
    >>> shown = interleave(["a", "b", "c"], ["b", "d", "a"],
    ...                    coins=[True, False])
    >>> # b and d clicked: both on B's team
    >>> interleaving_credit(shown, [0, 1, 1])
    -1.0
    >>> interleaving_credit(shown, [[1, 1, 0], [0, 0, 0]]).tolist()
    [0.0, 0.0]
    """
    if not isinstance(result, Interleaving):
        raise TypeError("result must be the Interleaving that interleave() returned")
    if not isinstance(marginalize, (bool, np.bool_)):
        raise TypeError(f"marginalize must be True or False, got {marginalize!r}")
    c = bool_array(clicks, "clicks")
    single = c.ndim == 1
    c = np.atleast_2d(c)
    if c.ndim != 2 or c.shape[1] != len(result.ranking):
        raise ValueError(f"clicks must have {len(result.ranking)} columns (one per "
                         f"position shown), got shape {np.shape(clicks)}")
    if result.method == "balanced":
        out = _balanced_credit(result, c)
    elif result.method == "probabilistic" and marginalize:
        out = _probabilistic_credit(result, c)
    else:
        out = np.sign(c.astype(np.int64) @ result.teams.astype(np.int64)).astype(float)
    return float(out[0]) if single else out
