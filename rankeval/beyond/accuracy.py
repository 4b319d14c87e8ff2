r"""Beyond-accuracy measures of recommendation lists, and sampled-metric evaluation.

Every measure takes the recommendations as a *run*: ``{user: [item, ...]}`` (ranked
lists, best first) or a table with columns ``query_id``, ``doc_id``, ``score`` as
:func:`rankeval.evaluate` reads it (ranked by score, descending; ties by ``doc_id``
descending, the trec_eval rule). Item popularity, features or genres come as mappings
from item id to value.

Chapter: :doc:`/chapters/24_beyond_accuracy`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = [
    "ranked_lists",
    "catalogue_coverage",
    "novelty",
    "intra_list_diversity",
    "average_recommendation_popularity",
    "popularity_lift",
    "position_exposure",
    "group_exposure",
    "expected_exposure",
    "miscalibration",
    "full_ranks",
    "sampled_ranks",
    "rank_metrics",
    "expected_sampled_hit",
]


# --- input ------------------------------------------------------------------------------


def ranked_lists(run, k=None):
    """The ranked lists of a run, cut to ``k`` items: ``{user: [item, ...]}``.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        ``{user: sequence of items, best first}``, or a table with columns
        ``query_id``, ``doc_id``, ``score`` (ranked by score descending, ties by
        ``doc_id`` descending, as trec_eval breaks them).
    k : int or None, default=None
        Cut-off; ``None`` keeps whole lists.

    Returns
    -------
    dict
        User id to the list of its top-``k`` items, users in input order (sorted for
        a table).

    Notes
    -----
    A list that names an item twice raises ``ValueError``: a recommendation list
    shows each item once.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    Examples
    --------
    >>> from rankeval.beyond import ranked_lists
    >>> ranked_lists({"u": ["a", "b", "c"]}, k=2)
    {'u': ['a', 'b']}
    """
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer or None, got {k!r}")
        k = int(k)
    if isinstance(run, pd.DataFrame):
        missing = {"query_id", "doc_id", "score"} - set(run.columns)
        if missing:
            raise ValueError(f"run table lacks columns {sorted(missing)}")
        frame = run.sort_values("doc_id", ascending=False, kind="stable")
        frame = frame.sort_values(["query_id", "score"], ascending=[True, False],
                                  kind="stable")
        lists = {q: list(g["doc_id"]) for q, g in frame.groupby("query_id", sort=True)}
    elif isinstance(run, Mapping):
        lists = {}
        for user, items in run.items():
            if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
                raise TypeError(f"the list of user {user!r} must be a sequence of items")
            lists[user] = list(items)
    else:
        raise TypeError("run must be a dict {user: items} or a DataFrame with "
                        f"query_id, doc_id, score; got {type(run).__name__}")
    if not lists:
        raise ValueError("run holds no user")
    for user, items in lists.items():
        if len(set(items)) != len(items):
            raise ValueError(f"the list of user {user!r} repeats an item")
    return {u: items[:k] for u, items in lists.items()}


def _lookup(mapping, item, what):
    try:
        return mapping[item]
    except KeyError:
        raise ValueError(f"item {item!r} has no {what}") from None


def _per_user(values: dict, per_user: bool):
    series = pd.Series(values, dtype=float)
    series.index.name = "query_id"
    return series if per_user else float(series.mean())


# --- coverage, novelty, diversity, popularity -----------------------------------------


def catalogue_coverage(run, catalogue, k=None):
    r"""Share of the catalogue that appears in at least one top-``k`` list.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`ranked_lists`).
    catalogue : int or iterable
        The number of items in the catalogue, or the item ids themselves.
    k : int or None, default=None
        Cut-off.

    Returns
    -------
    float
        In :math:`[0, 1]`.

    Notes
    -----
    .. math:: \mathrm{Cov@}k = \frac{|\bigcup_u L_k(u)|}{|I|}

    with :math:`L_k(u)` the top-:math:`k` list of user :math:`u` and :math:`I` the
    catalogue. With item ids, a recommended item outside the catalogue raises
    ``ValueError``.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Castells, Hurley and Vargas (2022), "Novelty and diversity in recommender systems".

    Examples
    --------
    >>> from rankeval.beyond import catalogue_coverage
    >>> catalogue_coverage({"u": ["a", "b"], "v": ["a", "c"]}, 10)
    0.3
    """
    lists = ranked_lists(run, k)
    shown = set().union(*map(set, lists.values()))
    if isinstance(catalogue, (int, np.integer)) and not isinstance(catalogue, bool):
        size = int(catalogue)
        if size < len(shown):
            raise ValueError(f"catalogue of {size} items, but {len(shown)} are recommended")
    else:
        items = set(catalogue)
        if not shown <= items:
            raise ValueError("a recommended item is not in the catalogue")
        size = len(items)
    if size < 1:
        raise ValueError("the catalogue is empty")
    return len(shown) / size


def novelty(run, popularity, n_users, k=None, *, per_user=False):
    r"""Mean self-information of the recommended items' popularity, in bits.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`ranked_lists`).
    popularity : mapping
        Item id to the number of users who interacted with it (training data).
    n_users : int
        The number of users the counts come from.
    k : int or None, default=None
        Cut-off.
    per_user : bool, default=False
        Return one value per user instead of their mean.

    Returns
    -------
    float or pandas.Series

    Notes
    -----
    With :math:`p(i) = \mathrm{pop}(i) / |U|` the share of users who know item
    :math:`i`,

    .. math:: \mathrm{Nov@}k(u) = \frac{1}{|L_k(u)|} \sum_{i \in L_k(u)} -\log_2 p(i).

    An item nobody interacted with has infinite self-information and raises
    ``ValueError``.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Castells, Hurley and Vargas (2022), "Novelty and diversity in recommender systems".

    Examples
    --------
    >>> from rankeval.beyond import novelty
    >>> novelty({"u": ["a", "b"]}, {"a": 4, "b": 1}, n_users=4)
    1.0
    """
    if isinstance(n_users, bool) or not isinstance(n_users, (int, np.integer)) or n_users < 1:
        raise ValueError(f"n_users must be a positive integer, got {n_users!r}")
    values = {}
    for user, items in ranked_lists(run, k).items():
        if not items:
            raise ValueError(f"user {user!r} has an empty list")
        bits = []
        for item in items:
            count = _lookup(popularity, item, "popularity")
            if not 0 < count <= n_users:
                raise ValueError(f"popularity of {item!r} must lie in (0, n_users], "
                                 f"got {count!r}")
            bits.append(-math.log2(count / n_users))
        values[user] = math.fsum(bits) / len(bits)
    return _per_user(values, per_user)


def intra_list_diversity(run, *, features=None, distance=None, k=None, per_user=False):
    r"""Mean pairwise distance between the items of each list.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`ranked_lists`).
    features : mapping, optional
        Item id to a feature vector; the distance is the cosine distance
        :math:`1 - \cos(x_i, x_j)`.
    distance : pandas.DataFrame, optional
        A symmetric matrix of distances, indexed by item id on both axes. Give exactly
        one of ``features`` and ``distance``.
    k : int or None, default=None
        Cut-off.
    per_user : bool, default=False
        Return one value per user instead of their mean.

    Returns
    -------
    float or pandas.Series

    Notes
    -----
    .. math:: \mathrm{ILD}(L) = \frac{2}{|L|(|L| - 1)} \sum_{i < j} d(L_i, L_j)

    A list of fewer than two items has no pair and raises ``ValueError``.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Castells, Hurley and Vargas (2022), "Novelty and diversity in recommender systems".

    Examples
    --------
    >>> from rankeval.beyond import intra_list_diversity
    >>> feats = {"a": [1, 0], "b": [0, 1], "c": [1, 0]}
    >>> round(intra_list_diversity({"u": ["a", "b", "c"]}, features=feats), 6)
    0.666667
    """
    if (features is None) == (distance is None):
        raise ValueError("give exactly one of features= and distance=")
    if distance is not None:
        if not isinstance(distance, pd.DataFrame):
            raise TypeError("distance must be a DataFrame indexed by item id on both axes")
        matrix = distance.to_numpy(dtype=float)
        if (not distance.index.equals(distance.columns) or not np.allclose(matrix, matrix.T)
                or (matrix < 0).any()):
            raise ValueError("distance must be square, symmetric, non-negative, with the "
                             "same item ids on both axes")
        position = {item: i for i, item in enumerate(distance.index)}
    values = {}
    for user, items in ranked_lists(run, k).items():
        if len(items) < 2:
            raise ValueError(f"the list of user {user!r} has fewer than two items")
        if features is not None:
            x = np.array([_lookup(features, it, "features") for it in items], dtype=float)
            if x.ndim != 2:
                raise ValueError("feature vectors must all have one length")
            norms = np.linalg.norm(x, axis=1)
            if (norms == 0).any():
                raise ValueError("a zero feature vector has no cosine distance")
            unit = x / norms[:, None]
            d = 1.0 - unit @ unit.T
        else:
            idx = [position[it] if it in position else _lookup({}, it, "distances")
                   for it in items]
            d = matrix[np.ix_(idx, idx)]
        n = len(items)
        upper = d[np.triu_indices(n, 1)]
        values[user] = math.fsum(upper) / (n * (n - 1) / 2)
    return _per_user(values, per_user)


def average_recommendation_popularity(run, popularity, k=None, *, per_user=False):
    r"""Mean popularity of the recommended items (ARP).

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`ranked_lists`).
    popularity : mapping
        Item id to its popularity (for instance the number of training interactions).
    k : int or None, default=None
        Cut-off.
    per_user : bool, default=False
        Return one value per user instead of their mean.

    Returns
    -------
    float or pandas.Series

    Notes
    -----
    .. math:: \mathrm{ARP} = \frac{1}{|U|} \sum_u \frac{1}{|L_k(u)|}
              \sum_{i \in L_k(u)} \mathrm{pop}(i)

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Abdollahpouri, Burke and Mobasher (2019), "Managing popularity bias in
    recommender systems with personalized re-ranking".

    Examples
    --------
    >>> from rankeval.beyond import average_recommendation_popularity
    >>> average_recommendation_popularity({"u": ["a", "b"], "v": ["a"]},
    ...                                   {"a": 4, "b": 2})
    3.5
    """
    values = {}
    for user, items in ranked_lists(run, k).items():
        if not items:
            raise ValueError(f"user {user!r} has an empty list")
        pops = [float(_lookup(popularity, it, "popularity")) for it in items]
        if min(pops) < 0:
            raise ValueError("popularity must be non-negative")
        values[user] = math.fsum(pops) / len(pops)
    return _per_user(values, per_user)


def popularity_lift(run, profiles, popularity, k=None):
    r"""Relative change of mean popularity from the users' profiles to their lists.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`ranked_lists`).
    profiles : mapping
        User id to the items of the user's training profile (every user of the run).
    popularity : mapping
        Item id to its popularity.
    k : int or None, default=None
        Cut-off.

    Returns
    -------
    float
        Positive when the lists are more popular than what the users consumed.

    Notes
    -----
    With :math:`\mathrm{GAP}(X) = \frac{1}{|U|}\sum_u \frac{1}{|X_u|}\sum_{i \in X_u}
    \mathrm{pop}(i)`,

    .. math:: \mathrm{lift} = \frac{\mathrm{GAP}(L) - \mathrm{GAP}(P)}{\mathrm{GAP}(P)}

    for the lists :math:`L` and profiles :math:`P` of the same users.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Abdollahpouri, Burke and Mobasher (2019), "Managing popularity bias in
    recommender systems with personalized re-ranking".

    Examples
    --------
    >>> from rankeval.beyond import popularity_lift
    >>> popularity_lift({"u": ["a"]}, {"u": ["b"]}, {"a": 6, "b": 2})
    2.0
    """
    lists = ranked_lists(run, k)
    missing = [u for u in lists if u not in profiles]
    if missing:
        raise ValueError(f"no profile for users {missing[:5]}")
    gap_l = average_recommendation_popularity(lists, popularity)
    gap_p = average_recommendation_popularity({u: profiles[u] for u in lists}, popularity)
    if gap_p == 0:
        raise ValueError("the profiles' mean popularity is 0")
    return (gap_l - gap_p) / gap_p


# --- exposure --------------------------------------------------------------------------


def position_exposure(n, *, model="log", patience=0.5):
    r"""Attention that a browsing model gives positions 1 to ``n``.

    Parameters
    ----------
    n : int
        Number of positions.
    model : {"log", "rbp"}, default="log"
        ``"log"``: :math:`v_i = 1/\log_2(1 + i)` (the DCG discount, Singh and
        Joachims 2018); ``"rbp"``: :math:`v_i = \gamma^{i-1}` (a patient reader who
        goes on with probability :math:`\gamma`, Diaz et al. 2020).
    patience : float, default=0.5
        :math:`\gamma` of ``"rbp"``, in :math:`(0, 1)`.

    Returns
    -------
    ndarray of shape (n,)

    Notes
    -----
    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Singh and Joachims (2018), "Fairness of exposure in rankings".

    Examples
    --------
    >>> from rankeval.beyond import position_exposure
    >>> position_exposure(3, model="rbp", patience=0.5)
    array([1.  , 0.5 , 0.25])
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    i = np.arange(1, n + 1, dtype=float)
    if model == "log":
        return 1.0 / np.log2(1.0 + i)
    if model == "rbp":
        if not 0 < patience < 1:
            raise ValueError(f"patience must lie in (0, 1), got {patience!r}")
        return patience ** (i - 1)
    raise ValueError(f"model must be 'log' or 'rbp', got {model!r}")


def group_exposure(run, groups, *, relevance=None, k=None, model="log", patience=0.5):
    r"""Mean exposure per item of each group of items, over the users' lists.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The rankings (see :func:`ranked_lists`).
    groups : mapping
        Item id to its group (for instance the provider), for **every** item of the
        catalogue: a group's size is its number of items here, shown or not.
    relevance : mapping, optional
        Item id to its relevance (utility), for every item of ``groups``; adds the
        columns ``utility`` (the group's mean relevance) and ``ratio`` (exposure /
        utility).
    k : int or None, default=None
        Cut-off: items below it get no exposure.
    model, patience
        The browsing model (see :func:`position_exposure`).

    Returns
    -------
    pandas.DataFrame
        One row per group (sorted), column ``exposure`` (and ``utility``, ``ratio``).

    Notes
    -----
    An item :math:`d` at position :math:`i` of a list gets the exposure :math:`e_i`;
    an item a list does not show gets 0. Per group :math:`\mathcal{G}`, averaged over
    its items and over the :math:`|\mathcal{U}|` lists,

    .. math:: \mathrm{Exposure}(\mathcal{G}) = \frac{1}{|\mathcal{U}|}\sum_u
              \frac{1}{|\mathcal{G}|} \sum_{d \in \mathcal{G}} e_{\mathrm{rank}_u(d)}.

    Demographic parity of exposure asks for equal exposure per group; disparate
    treatment compares exposure to utility, :math:`\mathrm{Exposure}(\mathcal{G}) /
    U(\mathcal{G})`.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Singh and Joachims (2018), "Fairness of exposure in rankings".

    Examples
    --------
    >>> from rankeval.beyond import group_exposure
    >>> group_exposure({"u": ["a", "b"]}, {"a": "x", "b": "y", "c": "y"},
    ...                model="rbp")
       exposure
    x      1.00
    y      0.25
    """
    if not isinstance(groups, Mapping) or not groups:
        raise ValueError("groups must be a non-empty mapping item -> group")
    lists = ranked_lists(run, k)
    sizes: dict = {}
    for g in groups.values():
        sizes[g] = sizes.get(g, 0) + 1
    total = dict.fromkeys(sizes, 0.0)
    for items in lists.values():
        if not items:
            continue
        v = position_exposure(len(items), model=model, patience=patience)
        for item, e in zip(items, v, strict=True):
            total[_lookup(groups, item, "group")] += float(e)
    names = sorted(sizes)
    table = pd.DataFrame(
        {"exposure": [total[g] / (len(lists) * sizes[g]) for g in names]}, index=names)
    if relevance is not None:
        utility = dict.fromkeys(sizes, 0.0)
        for item, g in groups.items():
            utility[g] += float(_lookup(relevance, item, "relevance"))
        table["utility"] = [utility[g] / sizes[g] for g in names]
        table["ratio"] = table["exposure"] / table["utility"]
    return table


def _ideal_exposure(grades: np.ndarray, patience: float) -> np.ndarray:
    """Expected exposure of each item under the ideal stochastic policy: items sorted by
    grade, each block of equal grade shuffled uniformly (so it shares its positions)."""
    n = len(grades)
    v = position_exposure(n, model="rbp", patience=patience)
    order = np.argsort(-grades, kind="stable")
    target = np.empty(n)
    start = 0
    sorted_grades = grades[order]
    while start < n:
        stop = start
        while stop < n and sorted_grades[stop] == sorted_grades[start]:
            stop += 1
        target[order[start:stop]] = v[start:stop].mean()
        start = stop
    return target


def expected_exposure(rankings, relevance, *, patience=0.5):
    r"""Expected-exposure loss, disparity and relevance of a stochastic ranker.

    Parameters
    ----------
    rankings : sequence of sequences
        Rankings of one query sampled from the stochastic ranker (each a permutation
        of some of the items, best first). Items missing from a sample get exposure 0
        in it.
    relevance : mapping
        Every candidate item of the query to its grade.
    patience : float, default=0.5
        :math:`\gamma` of the RBP browsing model, :math:`v_i = \gamma^{i-1}`.

    Returns
    -------
    dict
        ``loss`` (EE-L), ``disparity`` (EE-D), ``relevance`` (EE-R), and the vectors
        ``exposure`` and ``target`` as pandas Series indexed by item.

    Notes
    -----
    With :math:`\varepsilon_d` the mean over samples of item :math:`d`'s exposure and
    :math:`\varepsilon^*_d` its exposure under the ideal policy (items sorted by
    grade, ties shuffled uniformly, so equally relevant items share their positions'
    exposure),

    .. math:: \text{EE-L} = \lVert \varepsilon - \varepsilon^* \rVert_2^2
              = \underbrace{\lVert \varepsilon \rVert_2^2}_{\text{EE-D}}
              - \underbrace{2\,\varepsilon^\top \varepsilon^*}_{\text{EE-R}}
              + \lVert \varepsilon^* \rVert_2^2.

    Lower EE-D means exposure spread evenly; higher EE-R means exposure on relevant
    items.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Diaz, Mitra, Ekstrand, Biega and Carterette (2020), "Evaluating stochastic
    rankings with expected exposure".

    Examples
    --------
    >>> from rankeval.beyond import expected_exposure
    >>> ee = expected_exposure([["a", "b"], ["b", "a"]], {"a": 1, "b": 1})
    >>> float(ee["loss"])
    0.0
    """
    if not 0 < patience < 1:
        raise ValueError(f"patience must lie in (0, 1), got {patience!r}")
    if not isinstance(relevance, Mapping) or not relevance:
        raise ValueError("relevance must be a non-empty mapping item -> grade")
    items = list(relevance)
    where = {item: i for i, item in enumerate(items)}
    grades = np.array([float(relevance[i]) for i in items])
    if not np.isfinite(grades).all():
        raise ValueError("grades must be finite")
    samples = list(rankings)
    if not samples:
        raise ValueError("no sampled ranking")
    n = len(items)
    v = position_exposure(n, model="rbp", patience=patience)
    total = np.zeros(n)
    for ranking in samples:
        ranking = list(ranking)
        if len(set(ranking)) != len(ranking):
            raise ValueError("a sampled ranking repeats an item")
        idx = [where[d] if d in where else _lookup({}, d, "grade") for d in ranking]
        total[idx] += v[: len(idx)]
    eps = total / len(samples)
    target = _ideal_exposure(grades, patience)
    disparity = float(eps @ eps)
    rel = float(2 * eps @ target)
    loss = float(((eps - target) ** 2).sum())
    return {"loss": loss, "disparity": disparity, "relevance": rel,
            "exposure": pd.Series(eps, index=items), "target": pd.Series(target, index=items)}


# --- calibration ------------------------------------------------------------------------


def _genre_distribution(items, genres, weights=None) -> pd.Series:
    total = {}
    w = [1.0] * len(items) if weights is None else weights
    for item, wi in zip(items, w, strict=True):
        dist = _lookup(genres, item, "genres")
        if isinstance(dist, Mapping):
            mass = sum(dist.values())
            shares = {g: s / mass for g, s in dist.items()}
        else:
            dist = list(dist)
            if not dist:
                raise ValueError(f"item {item!r} has no genre")
            shares = {g: 1 / len(dist) for g in dist}
        for g, s in shares.items():
            total[g] = total.get(g, 0.0) + wi * s
    series = pd.Series(total, dtype=float)
    return series / series.sum()


def miscalibration(run, history, genres, k=None, *, smoothing=0.01, per_user=False):
    r"""Steck's miscalibration: KL divergence of the lists' genres from the profiles'.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`ranked_lists`).
    history : mapping
        User id to the items the user consumed (every user of the run).
    genres : mapping
        Item id to its genres: a list (each genre an equal share) or a mapping
        genre -> weight.
    k : int or None, default=None
        Cut-off.
    smoothing : float, default=0.01
        :math:`\alpha` in :math:`\tilde q = (1 - \alpha) q + \alpha p`, which keeps the
        divergence finite when the list misses a genre of the profile.
    per_user : bool, default=False
        Return one value per user instead of their mean.

    Returns
    -------
    float or pandas.Series
        0 for a perfectly calibrated list; larger is worse (natural logarithm).

    Notes
    -----
    With :math:`p(g \mid u)` the genre distribution of the user's history (each item
    spreading unit mass over its genres) and :math:`q(g \mid u)` that of the list,

    .. math:: C_{\mathrm{KL}}(p, q) = \sum_g p(g \mid u)
              \log \frac{p(g \mid u)}{\tilde q(g \mid u)}.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Steck (2018), "Calibrated recommendations".

    Examples
    --------
    >>> from rankeval.beyond import miscalibration
    >>> g = {"a": ["drama"], "b": ["comedy"]}
    >>> miscalibration({"u": ["a", "b"]}, {"u": ["a", "b"]}, g)
    0.0
    """
    if not 0 < smoothing < 1:
        raise ValueError(f"smoothing must lie in (0, 1), got {smoothing!r}")
    values = {}
    for user, items in ranked_lists(run, k).items():
        if user not in history or not list(history[user]):
            raise ValueError(f"no history for user {user!r}")
        if not items:
            raise ValueError(f"user {user!r} has an empty list")
        p = _genre_distribution(list(history[user]), genres)
        q = _genre_distribution(items, genres).reindex(p.index, fill_value=0.0)
        q_tilde = (1 - smoothing) * q + smoothing * p
        values[user] = float(np.sum(p * np.log(p / q_tilde)))
    return _per_user(values, per_user)


# --- sampled metrics ---------------------------------------------------------------------


def _scores_and_targets(scores, held_out):
    s = np.asarray(scores, dtype=float)
    if s.ndim != 2 or s.shape[1] < 2:
        raise ValueError("scores must be a 2-D array (users x items) with >= 2 items")
    if not np.isfinite(s).all():
        raise ValueError("scores must be finite")
    t = np.asarray(held_out)
    if t.shape != (s.shape[0],) or not np.issubdtype(t.dtype, np.integer):
        raise ValueError("held_out must be one integer item index per user")
    if (t < 0).any() or (t >= s.shape[1]).any():
        raise ValueError("held_out index out of range")
    return s, t.astype(np.int64)


def full_ranks(scores, held_out):
    r"""Rank of each user's held-out item among all items (ties count against it).

    Parameters
    ----------
    scores : array_like, shape (n_users, n_items)
        Model scores.
    held_out : array_like of int, shape (n_users,)
        Index of each user's held-out item.

    Returns
    -------
    ndarray of int, shape (n_users,)

    Notes
    -----
    .. math:: r_u = 1 + |\{j \ne h_u : s_{uj} \ge s_{u h_u}\}|

    A tie is resolved against the held-out item (the pessimistic rule), so a model
    that scores everything alike ranks it last, not first.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    Examples
    --------
    >>> from rankeval.beyond import full_ranks
    >>> full_ranks([[0.1, 0.9, 0.5], [1.0, 1.0, 0.0]], [2, 0])
    array([2, 2])
    """
    s, t = _scores_and_targets(scores, held_out)
    target = s[np.arange(len(t)), t]
    return (s >= target[:, None]).sum(axis=1).astype(np.int64)


def sampled_ranks(scores, held_out, n_negatives, *, seed=0):
    r"""Rank of each held-out item among itself and ``n_negatives`` sampled items.

    Parameters
    ----------
    scores : array_like, shape (n_users, n_items)
        Model scores.
    held_out : array_like of int, shape (n_users,)
        Index of each user's held-out item.
    n_negatives : int
        Items drawn per user, uniformly without replacement from the others.
    seed : int or numpy.random.Generator, default=0

    Returns
    -------
    ndarray of int, shape (n_users,)
        In :math:`1 \dots n_{\mathrm{neg}} + 1`.

    Notes
    -----
    .. math:: \tilde r_u = 1 + |\{j \in S_u : s_{uj} \ge s_{u h_u}\}|

    with :math:`S_u` the sample. Given the full rank :math:`r`, :math:`\tilde r - 1`
    follows the hypergeometric law: :math:`r - 1` of the :math:`n - 1` other items
    beat the held-out one, and :math:`m` are drawn (see
    :func:`expected_sampled_hit`). Each user's sample is the first ``n_negatives``
    items of a uniform random order of the others (stable argsort of uniform keys).

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Krichene and Rendle (2020), "On sampled metrics for item recommendation".

    Examples
    --------
    >>> from rankeval.beyond import sampled_ranks
    >>> sampled_ranks([[0.1, 0.9, 0.5, 0.3]], [0], n_negatives=3)
    array([4])
    """
    s, t = _scores_and_targets(scores, held_out)
    n_users, n_items = s.shape
    if isinstance(n_negatives, bool) or not isinstance(n_negatives, (int, np.integer)):
        raise TypeError("n_negatives must be an integer")
    if not 1 <= n_negatives <= n_items - 1:
        raise ValueError(f"n_negatives must lie in 1..{n_items - 1}, got {n_negatives}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    keys = rng.random((n_users, n_items))
    keys[np.arange(n_users), t] = np.inf  # the held-out item is never its own negative
    chosen = np.argsort(keys, axis=1, kind="stable")[:, :n_negatives]
    target = s[np.arange(n_users), t]
    beaten = np.take_along_axis(s, chosen, axis=1) >= target[:, None]
    return 1 + beaten.sum(axis=1).astype(np.int64)


def rank_metrics(ranks, k):
    r"""Hit@k and NDCG@k of one held-out item per user, from its rank.

    Parameters
    ----------
    ranks : array_like of int
        Rank of the held-out item (1 = top), per user.
    k : int
        Cut-off.

    Returns
    -------
    dict
        ``"Hit@k"`` and ``"NDCG@k"``: the means over users.

    Notes
    -----
    .. math:: \mathrm{Hit@}k = \mathbf{1}[r \le k], \qquad
              \mathrm{NDCG@}k = \frac{\mathbf{1}[r \le k]}{\log_2(1 + r)}

    (the ideal DCG of one relevant item is 1).

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    Examples
    --------
    >>> from rankeval.beyond import rank_metrics
    >>> rank_metrics([1, 3, 20], k=10)
    {'Hit@10': 0.6666666666666666, 'NDCG@10': 0.5}
    """
    r = np.asarray(ranks)
    if r.ndim != 1 or r.size == 0 or not np.issubdtype(r.dtype, np.integer) or (r < 1).any():
        raise ValueError("ranks must be a non-empty 1-D array of integers >= 1")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    hit = r <= k
    return {f"Hit@{k}": float(hit.mean()),
            f"NDCG@{k}": float(np.where(hit, 1.0 / np.log2(1.0 + r), 0.0).mean())}


def expected_sampled_hit(ranks, n_items, n_negatives, k):
    r"""Expected sampled Hit@k given the full ranks: the hypergeometric closed form.

    Parameters
    ----------
    ranks : array_like of int
        Full rank of each user's held-out item among ``n_items``.
    n_items : int
        Items ranked in the full evaluation (the held-out one included).
    n_negatives : int
        Sampled negatives per user.
    k : int
        Cut-off.

    Returns
    -------
    float
        Mean over users of :math:`P(\tilde r \le k)`.

    Notes
    -----
    :math:`\tilde r - 1 \sim \mathrm{Hypergeom}(n - 1, r - 1, m)`: :math:`m` draws
    without replacement from :math:`n - 1` items of which :math:`r - 1` beat the
    held-out item, so

    .. math:: \mathbb{E}[\widetilde{\mathrm{Hit}}@k] = \frac{1}{|U|}\sum_u
              \sum_{j=0}^{k-1} \frac{\binom{r_u - 1}{j}\binom{n - r_u}{m - j}}
              {\binom{n - 1}{m}}.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Krichene and Rendle (2020), "On sampled metrics for item recommendation".

    Examples
    --------
    >>> from rankeval.beyond import expected_sampled_hit
    >>> round(expected_sampled_hit([51], n_items=101, n_negatives=1, k=1), 6)
    0.5
    """
    from scipy.stats import hypergeom

    r = np.asarray(ranks)
    if r.ndim != 1 or r.size == 0 or not np.issubdtype(r.dtype, np.integer):
        raise ValueError("ranks must be a non-empty 1-D array of integers")
    if (r < 1).any() or (r > n_items).any():
        raise ValueError("ranks must lie in 1..n_items")
    if not 1 <= n_negatives <= n_items - 1:
        raise ValueError(f"n_negatives must lie in 1..{n_items - 1}")
    if k < 1:
        raise ValueError("k must be a positive integer")
    return float(hypergeom.cdf(k - 1, n_items - 1, r - 1, n_negatives).mean())
