"""How recommendations spread over the catalogue and its groups: the long-tail share,
serendipity, and the group-fairness ratios RSP and REO.

Each function reads the run as :func:`rankeval.beyond.ranked_lists` does (score
descending, ties by item id descending, as :func:`rankeval.evaluate` ranks).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .accuracy import ranked_lists


def _items(mapping, name: str) -> dict:
    if not isinstance(mapping, Mapping):
        raise TypeError(f"{name} must be a dict user -> items, got {type(mapping).__name__}")
    return {u: set(v) for u, v in mapping.items()}


def long_tail(popularity: Mapping, head: float = 0.2) -> set:
    """The long-tail items: all but the ``head`` share of the catalogue that is most popular
    (ties in popularity by item id, so the split is the same on every machine)."""
    if not isinstance(popularity, Mapping) or not popularity:
        raise ValueError("popularity must be a non-empty dict item -> popularity")
    if not 0 < head < 1:
        raise ValueError(f"head must be a share in (0, 1), got {head!r}")
    order = sorted(popularity, key=lambda x: (-popularity[x], str(x)))
    n_head = int(np.ceil(head * len(order)))
    return set(order[n_head:])


def tail_share(run, popularity: Mapping, k=None, *, head: float = 0.2) -> float:
    r"""Average share of long-tail items in a user's list (APLT).

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`rankeval.beyond.ranked_lists`).
    popularity : mapping
        Item id to its popularity, for every item of the catalogue.
    k : int or None, default=None
        Cut-off.
    head : float, default=0.2
        The share of the catalogue, by popularity, that is the short head.

    Returns
    -------
    float
        In [0, 1]: 0 when every list holds only head items.

    Raises
    ------
    ValueError
        A recommended item without a popularity, or an empty list.

    Notes
    -----
    With :math:`\Phi` the long tail (the catalogue without its ``head`` most popular
    share) and :math:`L_k(u)` user :math:`u`'s top :math:`k`,

    .. math:: \mathrm{APLT} = \frac{1}{|U|} \sum_u \frac{|L_k(u) \cap \Phi|}{|L_k(u)|}

    (Abdollahpouri, Burke and Mobasher 2019, as Elliot computes it).

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    Examples
    --------
    >>> from rankeval.beyond.spread import tail_share
    >>> popularity = {"a": 50, "b": 30, "c": 5, "d": 3, "e": 1}
    >>> tail_share({"u1": ["a", "c"], "u2": ["b", "a"]}, popularity, head=0.4)
    0.25
    """
    tail = long_tail(popularity, head)
    lists = ranked_lists(run, k)
    shares = []
    for user, items in lists.items():
        if not items:
            raise ValueError(f"user {user!r} has an empty list")
        unknown = [i for i in items if i not in popularity]
        if unknown:
            raise ValueError(f"user {user!r}: item {unknown[0]!r} has no popularity")
        shares.append(sum(i in tail for i in items) / len(items))
    return float(np.mean(shares))


def serendipity(run, relevant: Mapping, expected: Mapping, k=None) -> float:
    r"""Share of each list that is both relevant and unexpected, averaged over users.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`rankeval.beyond.ranked_lists`).
    relevant : mapping
        User id to the items the user found useful (held-out positives).
    expected : mapping
        User id to the items an obvious recommender would give (e.g. the most popular
        items the user has not seen): what is not surprising.
    k : int or None, default=None
        Cut-off of the run (the expected lists are used whole).

    Returns
    -------
    float
        In [0, 1].

    Notes
    -----
    .. math:: \mathrm{SER@}k = \frac{1}{|U|} \sum_u
              \frac{|\{i \in L_k(u) : i \in \mathrm{Rel}_u,\ i \notin \mathrm{Exp}_u\}|}{k}

    (Ge, Delgado-Battenfeld and Jannach 2010); a list shorter than :math:`k` still divides
    by :math:`k`; without a cut-off, by the list's length.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    Examples
    --------
    >>> from rankeval.beyond.spread import serendipity
    >>> run = {"u1": ["a", "b", "c", "d"]}
    >>> serendipity(run, {"u1": ["a", "c"]}, {"u1": ["a", "x"]}, k=4)  # c only
    0.25
    """
    rel = _items(relevant, "relevant")
    exp = _items(expected, "expected")
    lists = ranked_lists(run, k)
    values = []
    for user, items in lists.items():
        if user not in rel or user not in exp:
            raise ValueError(f"user {user!r} is missing from "
                             f"{'relevant' if user not in rel else 'expected'}")
        depth = k if k is not None else max(len(items), 1)
        values.append(sum(i in rel[user] and i not in exp[user] for i in items) / depth)
    return float(np.mean(values))


def _ratio(p: np.ndarray) -> float:
    mean = float(np.mean(p))
    if mean == 0:
        raise ValueError("every group's probability is 0: the ratio is undefined")
    return float(np.std(p) / mean)


def _group_of(groups: Mapping) -> tuple[dict, list]:
    if not isinstance(groups, Mapping) or not groups:
        raise ValueError("groups must be a non-empty dict item -> group")
    names = sorted(set(groups.values()), key=str)
    if len(names) < 2:
        raise ValueError("RSP and REO compare at least two groups")
    return dict(groups), names


def ranking_statistical_parity(run, groups: Mapping, train: Mapping, k=None) -> float:
    r"""RSP: how unequally the groups' items are recommended, relative to what could be.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`rankeval.beyond.ranked_lists`).
    groups : mapping
        Item id to its group (for every catalogue item), e.g. ``"head"`` / ``"tail"``.
    train : mapping
        User id to the user's training items, which cannot be recommended.
    k : int or None, default=None
        Cut-off.

    Returns
    -------
    float
        The relative standard deviation of the groups' probabilities: 0 is parity.

    Notes
    -----
    For each group :math:`g`, :math:`P(R@k \mid g) = \sum_u |L_k(u) \cap I_g| / \sum_u |I_g
    \setminus \mathrm{Train}_u|`; RSP is the population standard deviation of these
    probabilities over their mean (Zhu, Wang and Caverlee 2020, as Elliot computes it).

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    Examples
    --------
    >>> from rankeval.beyond.spread import ranking_statistical_parity
    >>> groups = {"a": "head", "b": "head", "c": "tail", "d": "tail"}
    >>> run = {"u1": ["a", "c"], "u2": ["b", "a"]}
    >>> round(ranking_statistical_parity(run, groups, {"u1": [], "u2": []}), 4)
    0.5
    """
    group_of, names = _group_of(groups)
    trained = _items(train, "train")
    lists = ranked_lists(run, k)
    shown = dict.fromkeys(names, 0)
    possible = dict.fromkeys(names, 0)
    sizes = {g: sum(1 for x in group_of.values() if x == g) for g in names}
    for user, items in lists.items():
        for i in items:
            if i not in group_of:
                raise ValueError(f"user {user!r}: item {i!r} has no group")
            shown[group_of[i]] += 1
        seen = trained.get(user, set())
        for g in names:
            possible[g] += sizes[g] - sum(1 for i in seen if group_of.get(i) == g)
    return _ratio(np.array([shown[g] / possible[g] for g in names]))


def ranking_equal_opportunity(run, groups: Mapping, test: Mapping, k=None) -> float:
    r"""REO: how unequally the groups' relevant items are recommended.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`rankeval.beyond.ranked_lists`).
    groups : mapping
        Item id to its group.
    test : mapping
        User id to the user's held-out relevant items.
    k : int or None, default=None
        Cut-off.

    Returns
    -------
    float
        The relative standard deviation of the groups' recall: 0 is equal opportunity.

    Notes
    -----
    For each group :math:`g`, :math:`P(R@k \mid g, y = 1) = \sum_u |L_k(u) \cap I_g \cap
    \mathrm{Test}_u| / \sum_u |I_g \cap \mathrm{Test}_u|`; REO is their population standard
    deviation over their mean (Zhu, Wang and Caverlee 2020, as Elliot computes it).

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    Examples
    --------
    >>> from rankeval.beyond.spread import ranking_equal_opportunity
    >>> groups = {"a": "head", "b": "head", "c": "tail", "d": "tail"}
    >>> run = {"u1": ["a", "c"], "u2": ["b", "a"]}
    >>> test = {"u1": ["a", "d"], "u2": ["c"]}
    >>> round(ranking_equal_opportunity(run, groups, test), 4)
    1.0
    """
    group_of, names = _group_of(groups)
    tested = _items(test, "test")
    lists = ranked_lists(run, k)
    hits = dict.fromkeys(names, 0)
    relevant = dict.fromkeys(names, 0)
    for user, items in lists.items():
        positives = tested.get(user, set())
        for i in positives:
            if i not in group_of:
                raise ValueError(f"user {user!r}: test item {i!r} has no group")
            relevant[group_of[i]] += 1
        for i in items:
            if i in positives:
                hits[group_of[i]] += 1
    empty = [g for g in names if relevant[g] == 0]
    if empty:
        raise ValueError(f"group {empty[0]!r} has no relevant test item: its recall is undefined")
    return _ratio(np.array([hits[g] / relevant[g] for g in names]))


__all__ = ["long_tail", "tail_share", "serendipity", "ranking_statistical_parity",
           "ranking_equal_opportunity"]
