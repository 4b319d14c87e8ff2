r"""Beyond-accuracy measures of recommendation lists, and sampled-metric evaluation.

Every measure takes the recommendations as a *run*: ``{user: [item, ...]}`` (ranked
lists, best first) or a table with columns ``query_id``, ``doc_id``, ``score`` as
:func:`rankeval.evaluate` reads it, ranked by the function that ranks it for
``evaluate`` (:func:`rankeval.ranking.ranked_ids`: score descending; ties by ``doc_id``
descending compared as text, integer ids as their decimal text, the trec_eval rule). Item popularity, features or genres come as mappings
from item id to value.

Chapter: :doc:`/chapters/24_beyond_accuracy`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..metrics.validation import check_k, check_probability
from ..ranking import ranked_ids

__all__ = [
    "ranked_lists",
    "catalogue_coverage",
    "novelty",
    "intra_list_diversity",
    "average_recommendation_popularity",
    "popularity_lift",
    "exposure_gini",
    "exposure_entropy",
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
        ``query_id``, ``doc_id``, ``score`` (or ``rank``), read and ranked as
        :func:`rankeval.evaluate` reads and ranks a run: score descending, equal
        scores by ``doc_id`` descending compared as text, byte by byte (integer ids
        as their decimal text, so ``9``, ``100``, ``10``), trec_eval's rule.
    k : int or None, default=None
        Cut-off; ``None`` keeps whole lists.

    Returns
    -------
    dict
        User id to the list of its top-``k`` items, users in input order (sorted for
        a table: strings by their UTF-8 bytes, integers numerically).

    Raises
    ------
    TypeError
        ``k`` not an integer; a run of another kind; a user's list that is a string
        or not a sequence.
    ValueError
        ``k < 1``; a run without users; a list that names an item twice (a
        recommendation list shows each item once); a table the reader refuses
        (a missing or non-finite score, a document listed twice for one user, ...:
        the message names the row).

    Notes
    -----
    The order of a table comes from :func:`rankeval.ranking.ranked_ids`, the function
    that ranks a run for :func:`rankeval.evaluate`'s tie rule, so the top ``k`` here
    are the documents ``evaluate`` scores at ``k``.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    Examples
    --------
    >>> from rankeval.beyond import ranked_lists
    >>> ranked_lists({"u": ["a", "b", "c"]}, k=2)
    {'u': ['a', 'b']}
    >>> import pandas as pd
    >>> table = pd.DataFrame({"query_id": ["u"] * 3, "doc_id": [100, 10, 9],
    ...                       "score": [1.0, 1.0, 1.0]})
    >>> ranked_lists(table)
    {'u': [9, 100, 10]}
    """
    k = check_k(k)
    if isinstance(run, pd.DataFrame):
        lists = ranked_ids(run)
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
        repeated = _first_repeat(items)
        if repeated is not None:
            raise ValueError(f"the list of user {user!r} repeats the item {repeated!r}")
    return {u: items[:k] for u, items in lists.items()}


def _first_repeat(items):
    """The first item of ``items`` that an earlier one equals, or None."""
    seen = set()
    for item in items:
        try:
            if item in seen:
                return item
        except TypeError:
            raise TypeError(f"item {item!r} is not hashable: ids must be") from None
        seen.add(item)
    return None


def _positive_int(x, name):
    """``x`` as an int >= 1: TypeError for a non-integer (``3.5``, ``2.0``, True),
    ValueError below 1; the message names the argument."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {x!r}")
    if x < 1:
        raise ValueError(f"{name} must be a positive integer, got {x!r}")
    return int(x)


def _items_of(items, what, user):
    """One user's profile or history as a list: a sequence of distinct item ids."""
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(f"the {what} of user {user!r} must be a sequence of items")
    items = list(items)
    if not items:
        raise ValueError(f"the {what} of user {user!r} is empty")
    repeated = _first_repeat(items)
    if repeated is not None:
        raise ValueError(f"the {what} of user {user!r} names the item {repeated!r} twice; "
                         f"a {what} lists each item once")
    return items


def _finite_number(value, item, what):
    """A popularity, relevance or weight of one item: a finite real number."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"the {what} of item {item!r} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"the {what} of item {item!r} must be finite, got {value}")
    return value


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
    elif isinstance(catalogue, (str, bytes)) or not hasattr(catalogue, "__iter__"):
        raise TypeError("catalogue must be the number of items (an int) or the item ids, "
                        f"got {catalogue!r}")
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
    With :math:`s_i = \mathrm{pop}(i) / n_{\mathrm{users}}` the popularity share of
    item :math:`i` (the share of the training users who know it),

    .. math:: \mathrm{Nov@}k(u) = \frac{1}{|L_k(u)|} \sum_{i \in L_k(u)} -\log_2 s_i.

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
    n_users = _positive_int(n_users, "n_users")
    values = {}
    for user, items in ranked_lists(run, k).items():
        if not items:
            raise ValueError(f"user {user!r} has an empty list")
        bits = []
        for item in items:
            count = _finite_number(_lookup(popularity, item, "popularity"), item, "popularity")
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
        if distance.index.has_duplicates:
            repeated = distance.index[distance.index.duplicated()][0]
            raise ValueError(f"distance names the item {repeated!r} twice")
        matrix = distance.to_numpy(dtype=float)
        if not np.isfinite(matrix).all():
            raise ValueError("distance must hold finite numbers")
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
            vectors = [np.asarray(_lookup(features, it, "features"), dtype=float)
                       for it in items]
            if any(v.ndim != 1 or v.shape != vectors[0].shape for v in vectors):
                raise ValueError("feature vectors must be 1-D and all of one length")
            x = np.array(vectors)
            if not np.isfinite(x).all():
                bad = items[int(np.flatnonzero(~np.isfinite(x).all(axis=1))[0])]
                raise ValueError(f"the feature vector of item {bad!r} is not finite")
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
        pops = [_finite_number(_lookup(popularity, it, "popularity"), it, "popularity")
                for it in items]
        if min(pops) < 0:
            bad = items[pops.index(min(pops))]
            raise ValueError(f"the popularity of item {bad!r} is negative ({min(pops)!r})")
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

    for the lists :math:`L` and profiles :math:`P` of the same users. A profile is a
    set of items (each named once, at least one): one that names an item twice raises
    ``ValueError`` naming the user and the item, rather than counting it twice.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Abdollahpouri, Mansoury, Burke and Mobasher (2019), "The unfairness of popularity
    bias in recommendation" (their :math:`\Delta\mathrm{GAP}`, here with all users as
    one group).

    Examples
    --------
    >>> from rankeval.beyond import popularity_lift
    >>> popularity_lift({"u": ["a"]}, {"u": ["b"]}, {"a": 6, "b": 2})
    2.0
    """
    lists = ranked_lists(run, k)
    if not isinstance(profiles, Mapping):
        raise TypeError(f"profiles must be a mapping user -> items, got {type(profiles).__name__}")
    missing = [u for u in lists if u not in profiles]
    if missing:
        raise ValueError(f"no profile for users {missing[:5]}")
    chosen = {u: _items_of(profiles[u], "profile", u) for u in lists}
    gap_l = average_recommendation_popularity(lists, popularity)
    gap_p = average_recommendation_popularity(chosen, popularity)
    if gap_p == 0:
        raise ValueError("the profiles' mean popularity is 0")
    return (gap_l - gap_p) / gap_p


# --- concentration of the recommendations ------------------------------------------


def _recommendation_counts(run, catalogue, k):
    """How often each catalogue item appears in the top-``k`` lists (0 if never), in
    the order of the catalogue; the catalogue's size checked as in coverage."""
    lists = ranked_lists(run, k)
    counts: dict = {}
    for items in lists.values():
        for item in items:
            counts[item] = counts.get(item, 0) + 1
    if isinstance(catalogue, (int, np.integer)) and not isinstance(catalogue, bool):
        size = int(catalogue)
        if size < 1:
            raise ValueError("the catalogue is empty")
        if size < len(counts):
            raise ValueError(f"catalogue of {size} items, but {len(counts)} are recommended")
        values = list(counts.values()) + [0] * (size - len(counts))
    elif isinstance(catalogue, (str, bytes)) or not hasattr(catalogue, "__iter__"):
        raise TypeError("catalogue must be the number of items (an int) or the item ids, "
                        f"got {catalogue!r}")
    else:
        items = list(dict.fromkeys(catalogue))
        if not items:
            raise ValueError("the catalogue is empty")
        outside = [i for i in counts if i not in set(items)]
        if outside:
            raise ValueError(f"the recommended item {outside[0]!r} is not in the catalogue")
        values = [counts.get(i, 0) for i in items]
    if sum(values) == 0:
        raise ValueError("the lists recommend nothing: the concentration of no "
                         "recommendations is undefined")
    return np.array(values, dtype=float)


def exposure_gini(run, catalogue, k=None):
    r"""Gini index of how often each catalogue item is recommended.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`ranked_lists`).
    catalogue : int or iterable
        The number of items in the catalogue, or the item ids themselves; an item
        never recommended counts 0.
    k : int or None, default=None
        Cut-off.

    Returns
    -------
    float
        0 when every item is recommended equally often, 1 when one item takes every
        slot (a catalogue of one item has no inequality to measure: 0).

    Notes
    -----
    With :math:`c_x` the number of lists whose top :math:`k` holds item :math:`x`,
    sorted increasingly as :math:`c_{(1)} \le \dots \le c_{(n)}` over the
    :math:`n = |I|` items of the catalogue,

    .. math:: G = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{(n - 1) \sum_{j} c_{(j)}}
              = \frac{\sum_{x, y} |c_x - c_y|}{2 (n - 1) \sum_x c_x},

    the normalisation of Shani and Gunawardana, so that one item taking every slot
    gives 1 (without the factor :math:`n/(n - 1)`, the textbook Gini coefficient of
    the counts, its maximum is :math:`(n - 1)/n`). Lists that recommend nothing at
    all raise ``ValueError``.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Shani and Gunawardana (2011), "Evaluating recommendation systems".

    Examples
    --------
    >>> from rankeval.beyond import exposure_gini
    >>> exposure_gini({"u": ["a", "b"], "v": ["a", "c"]}, 4)
    0.5
    """
    c = np.sort(_recommendation_counts(run, catalogue, k), kind="stable")
    n = c.size
    if n == 1:
        return 0.0
    j = np.arange(1, n + 1, dtype=float)
    return math.fsum((2 * j - n - 1) * c) / ((n - 1) * math.fsum(c))


def exposure_entropy(run, catalogue, k=None, *, base=2.0):
    r"""Shannon entropy of the share of recommendations that each catalogue item gets.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`ranked_lists`).
    catalogue : int or iterable
        The number of items in the catalogue, or the item ids themselves; an item
        never recommended counts 0 (and adds nothing to the entropy).
    k : int or None, default=None
        Cut-off.
    base : float, default=2.0
        Base of the logarithm (2: bits).

    Returns
    -------
    float
        0 when one item takes every slot, :math:`\log |I|` when every item is
        recommended equally often.

    Notes
    -----
    With :math:`c_x` the number of lists whose top :math:`k` holds item :math:`x` and
    :math:`q_x = c_x / \sum_y c_y`,

    .. math:: H = -\sum_{x \in I,\, q_x > 0} q_x \log q_x.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Shani and Gunawardana (2011), "Evaluating recommendation systems".

    Examples
    --------
    >>> from rankeval.beyond import exposure_entropy
    >>> exposure_entropy({"u": ["a", "b"], "v": ["a", "c"]}, 4)
    1.5
    """
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, numbers.Real) \
            or not math.isfinite(base) or not base > 0 or base == 1:
        raise ValueError(f"base must be positive and not 1, got {base!r}")
    c = _recommendation_counts(run, catalogue, k)
    q = c[c > 0] / math.fsum(c)
    return -math.fsum(q * np.log(q)) / math.log(base)


# --- exposure --------------------------------------------------------------------------


def position_exposure(n, *, model="log", patience=0.5):
    r"""Attention that a browsing model gives positions 1 to ``n``.

    Parameters
    ----------
    n : int
        Number of positions.
    model : {"log", "rbp"}, default="log"
        ``"log"``: :math:`e_i = 1/\log_2(1 + i)` (the DCG discount, Singh and
        Joachims 2018); ``"rbp"``: :math:`e_i = p^{i-1}` (a patient reader who
        goes on with probability :math:`p`, RBP's persistence, Diaz et al. 2020).
    patience : float, default=0.5
        :math:`p` of ``"rbp"``, in :math:`(0, 1)`.

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
    n = _positive_int(n, "n")
    i = np.arange(1, n + 1, dtype=float)
    if model == "log":
        return 1.0 / np.log2(1.0 + i)
    if model == "rbp":
        return check_probability(patience, "patience") ** (i - 1)
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
        Item id to its relevance (utility, a finite number >= 0), for every item of
        ``groups``; adds the columns ``utility`` (the group's mean relevance) and
        ``ratio`` (exposure / utility). A group of utility 0 has no ratio and raises
        ``ValueError`` naming it (leave ``relevance`` out for the exposure alone).
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

    A user's empty list shows nothing: it counts among the :math:`|\mathcal{U}|`
    lists and gives every group 0.

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
    position_exposure(1, model=model, patience=patience)  # checks model and patience
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
            value = _finite_number(_lookup(relevance, item, "relevance"), item, "relevance")
            if value < 0:
                raise ValueError(f"the relevance of item {item!r} is negative ({value!r})")
            utility[g] += value
        zero = [g for g in names if utility[g] == 0]
        if zero:
            raise ValueError(f"group {zero[0]!r} has utility 0: its exposure / utility ratio "
                             "is undefined (leave relevance= out for the exposure alone)")
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


def expected_exposure(rankings, relevance, *, patience=0.5, weights=None):
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
        :math:`p` of the RBP browsing model, :math:`e_i = p^{i-1}`.
    weights : sequence of float, optional
        The probability of each ranking, for a policy given exactly rather than by
        samples (for instance every permutation with its Plackett-Luce probability):
        finite, at least 0, with a positive sum; normalised to sum 1. Default: every
        ranking weighs the same (samples).

    Returns
    -------
    dict
        ``loss`` (EE-L), ``disparity`` (EE-D), ``relevance`` (EE-R), and the vectors
        ``exposure`` and ``target`` as pandas Series indexed by item.

    Notes
    -----
    With :math:`\varepsilon_d` the mean over samples of item :math:`d`'s exposure
    (weighted by ``weights`` when given: its expectation under the policy) and
    :math:`\varepsilon^*_d` its exposure under the ideal policy (items sorted by
    grade, ties shuffled uniformly, so equally relevant items share their positions'
    exposure),

    .. math:: \text{EE-L} = \lVert \varepsilon - \varepsilon^* \rVert_2^2
              = \underbrace{\lVert \varepsilon \rVert_2^2}_{\text{EE-D}}
              - 2\,\underbrace{\varepsilon^\top \varepsilon^*}_{\text{EE-R}}
              + \lVert \varepsilon^* \rVert_2^2.

    Lower EE-D means exposure spread evenly; higher EE-R means exposure on relevant
    items. EE-R is :math:`\varepsilon^\top \varepsilon^*`, without the factor 2 of
    the expansion, as Diaz et al. define it and their ``expeval`` computes it, so the
    values compare with published ones; all three are the unnormalised values
    (``expeval -U``) under its RBP browsing model (``-u rbp``).

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
    patience = check_probability(patience, "patience")
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
    if weights is None:
        w = np.ones(len(samples))
    else:
        try:
            w = np.asarray(weights, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("weights must be a sequence of numbers, one per ranking") from None
        if w.shape != (len(samples),):
            raise ValueError(f"weights has {w.size} values for {len(samples)} rankings")
        if not np.isfinite(w).all() or (w < 0).any() or not w.sum() > 0:
            raise ValueError("weights must be finite, at least 0, with a positive sum")
    n = len(items)
    v = position_exposure(n, model="rbp", patience=patience)
    total = np.zeros(n)
    for number, ranking in enumerate(samples):
        if isinstance(ranking, (str, bytes)) or not hasattr(ranking, "__iter__"):
            raise TypeError(f"ranking {number} is {ranking!r}, not a sequence of items: "
                            "rankings is a sequence of rankings (give one as [ranking])")
        ranking = list(ranking)
        repeated = _first_repeat(ranking)
        if repeated is not None:
            raise ValueError(f"sampled ranking {number} names the item {repeated!r} twice")
        idx = [where[d] if d in where else _lookup({}, d, "grade") for d in ranking]
        total[idx] += w[number] * v[: len(idx)]
    eps = total / w.sum()
    target = _ideal_exposure(grades, patience)
    disparity = float(eps @ eps)
    rel = float(eps @ target)
    loss = float(((eps - target) ** 2).sum())
    return {"loss": loss, "disparity": disparity, "relevance": rel,
            "exposure": pd.Series(eps, index=items), "target": pd.Series(target, index=items)}


# --- calibration ------------------------------------------------------------------------


def _item_genres(item, genres) -> dict:
    """``p(g | i)``: item ``i``'s genres as shares summing to 1."""
    dist = _lookup(genres, item, "genres")
    if isinstance(dist, Mapping) and not dist:
        raise ValueError(f"item {item!r} has no genre")
    if isinstance(dist, Mapping):
        weights = {g: _finite_number(w, item, f"weight of genre {g!r}")
                   for g, w in dist.items()}
        negative = [g for g, w in weights.items() if w < 0]
        if negative:
            raise ValueError(f"item {item!r} gives genre {negative[0]!r} a negative weight")
        mass = math.fsum(weights.values())
        if mass == 0:
            raise ValueError(
                f"the genre weights of item {item!r} sum to 0 ({dict(dist)!r}): its genre "
                "distribution p(g | i) is undefined; give a genre a positive weight")
        return {g: w / mass for g, w in weights.items()}
    if isinstance(dist, (str, bytes)) or not hasattr(dist, "__iter__"):
        raise TypeError(f"the genres of item {item!r} must be a list of genres or a mapping "
                        f"genre -> weight, got {dist!r}")
    dist = list(dist)
    if not dist:
        raise ValueError(f"item {item!r} has no genre")
    repeated = _first_repeat(dist)
    if repeated is not None:
        raise ValueError(f"item {item!r} names the genre {repeated!r} twice")
    return {g: 1 / len(dist) for g in dist}


def _genre_distribution(items, genres) -> pd.Series:
    """The mean of ``p(g | i)`` over ``items`` (each item has mass 1)."""
    total: dict = {}
    for item in items:
        for g, share in _item_genres(item, genres).items():
            total[g] = total.get(g, 0.0) + share
    series = pd.Series(total, dtype=float)
    return series / series.sum()


def miscalibration(run, history, genres, k=None, *, smoothing=0.01, per_user=False):
    r"""Steck's miscalibration: KL divergence of the lists' genres from the profiles'.

    Parameters
    ----------
    run : dict or pandas.DataFrame
        The recommendations (see :func:`ranked_lists`).
    history : mapping
        User id to the items the user consumed (every user of the run), each named
        once.
    genres : mapping
        Item id to its genres: a list of distinct genres (each an equal share) or a
        mapping genre -> weight (finite, >= 0, not all 0; normalised to shares).
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

    The sum runs over the genres of the history: a genre with :math:`p(g \mid u) = 0`
    (a weight of 0 in every item that names it) adds nothing (the limit
    :math:`p \log p \to 0`), and for every other one :math:`\tilde q \ge \alpha p > 0`,
    so the value is finite; this is Steck's reason for the smoothing. An item whose
    genre weights are all 0 has no distribution :math:`p(g \mid i)` and raises
    ``ValueError`` naming it; so does a history that names an item twice.

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
    smoothing = check_probability(smoothing, "smoothing")
    if not isinstance(history, Mapping):
        raise TypeError(f"history must be a mapping user -> items, got {type(history).__name__}")
    values = {}
    for user, items in ranked_lists(run, k).items():
        if user not in history:
            raise ValueError(f"no history for user {user!r}")
        consumed = _items_of(history[user], "history", user)
        if not items:
            raise ValueError(f"user {user!r} has an empty list")
        p = _genre_distribution(consumed, genres)
        p = p[p > 0]  # 0 log 0 = 0: a genre of zero mass adds nothing
        q = _genre_distribution(items, genres).reindex(p.index, fill_value=0.0)
        q_tilde = (1 - smoothing) * q + smoothing * p
        values[user] = float(np.sum(p * np.log(p / q_tilde)))
    return _per_user(values, per_user)


# --- sampled metrics ---------------------------------------------------------------------


def _scores_and_targets(scores, held_out):
    s = np.asarray(scores, dtype=float)
    if s.ndim != 2 or s.shape[1] < 2 or s.shape[0] < 1:
        raise ValueError("scores must be a 2-D array (users x items) with >= 1 user and "
                         f">= 2 items, got shape {s.shape}")
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


def _exclusion_mask(exclude, held_out: np.ndarray, n_items: int) -> np.ndarray:
    """``exclude`` (per user, item indices; or a users x items boolean mask) -> mask."""
    n_users = len(held_out)
    arr = None
    if isinstance(exclude, np.ndarray) and exclude.dtype == bool:
        arr = exclude
    elif isinstance(exclude, (list, tuple)) and exclude and all(
            isinstance(row, (list, tuple, np.ndarray)) and len(row) == n_items
            and all(isinstance(v, (bool, np.bool_)) for v in row) for row in exclude):
        arr = np.asarray(exclude, dtype=bool)  # a mask written as lists of booleans
    if arr is not None:
        if arr.shape != (n_users, n_items):
            raise ValueError(f"exclude as a boolean mask must have shape (n_users, n_items)"
                             f" = {(n_users, n_items)}, got {arr.shape}")
        mask = arr.copy()
    else:
        if isinstance(exclude, (str, bytes, Mapping)) or not hasattr(exclude, "__len__"):
            raise TypeError("exclude must hold one sequence of item indices per user (or "
                            f"a users x items boolean mask), got {type(exclude).__name__}")
        if len(exclude) != n_users:
            raise ValueError(f"exclude must have one entry per user ({n_users}), got "
                             f"{len(exclude)}")
        mask = np.zeros((n_users, n_items), dtype=bool)
        for u, items in enumerate(exclude):
            idx = np.asarray(list(items) if not isinstance(items, np.ndarray) else items)
            if idx.size == 0:
                continue
            if idx.ndim != 1 or idx.dtype == bool or not np.issubdtype(idx.dtype, np.integer):
                raise TypeError(f"exclude[{u}] must be a sequence of integer item indices, "
                                f"got {items!r}")
            bad = idx[(idx < 0) | (idx >= n_items)]
            if bad.size:
                raise ValueError(f"exclude[{u}] names the item index {int(bad[0])}, out of "
                                 f"range 0..{n_items - 1}")
            mask[u, idx] = True
    clash = np.flatnonzero(mask[np.arange(n_users), held_out])
    if clash.size:
        u = int(clash[0])
        raise ValueError(f"user {u}: the held-out item {int(held_out[u])} is also in "
                         "exclude; it cannot be both the target and an excluded item")
    return mask


def sampled_ranks(scores, held_out, n_negatives, *, seed=0, exclude=None):
    r"""Rank of each held-out item among itself and ``n_negatives`` sampled items.

    Parameters
    ----------
    scores : array_like, shape (n_users, n_items)
        Model scores.
    held_out : array_like of int, shape (n_users,)
        Index of each user's held-out item.
    n_negatives : int
        Items drawn per user, uniformly without replacement from the others (those
        not excluded).
    seed : int or numpy.random.Generator, default=0
    exclude : sequence of sequences of int, or ndarray of bool, optional
        Per user, item indices never drawn as negatives, typically the user's
        training items (one sequence per user, possibly empty; or a boolean mask of
        shape (n_users, n_items)). They do not count in the rank either. The
        held-out item may not be among them, and every user needs ``n_negatives``
        items left to draw from.

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
    With ``exclude``, the sample is drawn uniformly from the :math:`n_u` items that
    are neither held out nor excluded, so the law holds with :math:`n - 1` replaced
    by :math:`n_u` and :math:`r` the rank among those items; the keys are the same
    draws as without ``exclude``, and excluded items get key :math:`+\infty`.

    Chapter: :doc:`/chapters/24_beyond_accuracy`.

    References
    ----------
    Krichene and Rendle (2020), "On sampled metrics for item recommendation".

    Examples
    --------
    >>> from rankeval.beyond import sampled_ranks
    >>> sampled_ranks([[0.1, 0.9, 0.5, 0.3]], [0], n_negatives=3)
    array([4])
    >>> sampled_ranks([[0.1, 0.9, 0.5, 0.3]], [0], n_negatives=2, exclude=[[1]])
    array([3])
    """
    s, t = _scores_and_targets(scores, held_out)
    n_users, n_items = s.shape
    n_negatives = _positive_int(n_negatives, "n_negatives")
    if not n_negatives <= n_items - 1:
        raise ValueError(f"n_negatives must lie in 1..{n_items - 1}, got {n_negatives}")
    mask = None if exclude is None else _exclusion_mask(exclude, t, n_items)
    if mask is not None:
        left = n_items - 1 - mask.sum(axis=1)
        short = np.flatnonzero(left < n_negatives)
        if short.size:
            u = int(short[0])
            raise ValueError(f"user {u} has {int(left[u])} items left once the held-out "
                             f"and the excluded ones are set aside, fewer than "
                             f"n_negatives={n_negatives}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    keys = rng.random((n_users, n_items))
    keys[np.arange(n_users), t] = np.inf  # the held-out item is never its own negative
    if mask is not None:
        keys[mask] = np.inf  # nor is an excluded item
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
    k = _positive_int(k, "k")
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
        Sampled negatives per user, in ``1 .. n_items - 1``.
    k : int
        Cut-off, ``>= 1``.

    Returns
    -------
    float
        Mean over users of :math:`P(\tilde r \le k)`.

    Raises
    ------
    TypeError
        ``n_items``, ``n_negatives`` or ``k`` not an integer (``3.5``, also ``3.0``):
        a count of draws or positions has no fractional part, and the hypergeometric
        law would give ``nan`` or round it silently.
    ValueError
        Any of them out of range, or ranks that are not integers in ``1 .. n_items``.

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

    n_items = _positive_int(n_items, "n_items")
    n_negatives = _positive_int(n_negatives, "n_negatives")
    k = _positive_int(k, "k")
    r = np.asarray(ranks)
    if r.ndim != 1 or r.size == 0 or not np.issubdtype(r.dtype, np.integer):
        raise ValueError("ranks must be a non-empty 1-D array of integers")
    if (r < 1).any() or (r > n_items).any():
        raise ValueError(f"ranks must lie in 1..n_items = 1..{n_items}")
    if not n_negatives <= n_items - 1:
        raise ValueError(f"n_negatives must lie in 1..n_items - 1 = 1..{n_items - 1}, "
                         f"got {n_negatives}")
    return float(hypergeom.cdf(k - 1, n_items - 1, r - 1, n_negatives).mean())
