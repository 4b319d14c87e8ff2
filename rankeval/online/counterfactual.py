"""Counterfactual evaluation: a new ranker's DCG@k estimated from the click logs of another.

Chapter: :doc:`/chapters/23_counterfactual_evaluation`.
"""

from __future__ import annotations

import numpy as np

from ._checks import bool_array, check_count, check_number, real_array

__all__ = ["counterfactual_dcg", "swap_propensities"]

ESTIMATORS = ("naive", "item_ips", "ips", "clipped_ips", "snips")


def _ids(x, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype == bool or arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer item ids, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (one row per impression), got shape "
                         f"{arr.shape}")
    return arr.astype(np.int64)


def _dcg_kernel(clicks, shown, target, theta, placement, k, estimator, clip):
    """Validated arrays -> the estimate (see counterfactual_dcg)."""
    n_imp, n = shown.shape
    discount = 1.0 / np.log2(np.arange(2, k + 2))  # w(r) = 1 / log2(r + 1), r = 1..k
    top = target[:, :k]
    real = top >= 0  # -1 pads a target shorter than k
    if estimator in ("naive", "item_ips"):
        # credit every click at the position the new ranker gives that item
        same = (shown[:, :, None] == top[:, None, :]) & real[:, None, :]
        credit = (same * discount).sum(axis=2)  # (n_imp, n)
        if estimator == "item_ips":
            credit = credit / theta[None, :]
        return float((clicks * credit).sum() / n_imp)
    # slot form: a click counts where the log showed the new ranker's item there
    width = min(k, n)  # k <= n for the slot estimators (checked by the caller)
    match = (shown[:, :width] == top[:, :width]) & real[:, :width]
    propensity = placement[:, :width] * theta[None, :width]
    if estimator == "clipped_ips":
        propensity = np.maximum(propensity, clip)
    terms = match * clicks[:, :width] * discount[:width] / propensity
    total = terms.sum()
    if estimator != "snips":
        return float(total / n_imp)
    weights = (match / placement[:, :width]).sum()
    if weights == 0:
        raise ValueError(
            f"SNIPS is undefined here (0/0): in none of the {n_imp} impressions did the "
            f"log show an item of the new ranking at its position (top {k}), so the "
            "self-normalising weights sum to 0 and the log carries no information about "
            "the new ranker in the slot form")
    expected = real[:, :width].sum()  # E[sum of weights] = number of target slots
    return float(total / weights * expected / n_imp)


def _first_repeat(ids: np.ndarray, name: str, skip_pads: bool = False) -> None:
    """ValueError naming the first row (and its item) that holds an id twice."""
    if ids.shape[1] < 2:
        return
    ordered = np.sort(ids, axis=1)
    twice = ordered[:, 1:] == ordered[:, :-1]
    if skip_pads:
        twice &= ordered[:, 1:] >= 0
    rows = np.flatnonzero(twice.any(axis=1))
    if rows.size:
        row = int(rows[0])
        item = int(ordered[row, 1:][twice[row]][0])
        raise ValueError(f"{name} row {row} holds the item {item} twice: a ranking shows "
                         "each item once (it would be credited twice)")


def counterfactual_dcg(clicks, shown, target, *, examination, placement=None, k=None,
                       estimator="snips", clip=None):
    r"""Estimate the mean DCG@k a new ranker would get, from clicks logged on another.

    Parameters
    ----------
    clicks : array_like of bool, shape (n_impressions, n)
        The logged clicks, one row per impression, one column per position shown.
    shown : array_like of int, shape (n_impressions, n)
        The item ids the logging ranker showed, top first.
    target : array_like of int, shape (n_impressions, m)
        The new ranker's ranking of the same query, top first (-1 pads a short list).
        Neither a row of ``shown`` nor one of ``target`` may name an item twice
        (``ValueError`` naming the row and the item).
    examination : array_like of float, shape (n,)
        :math:`e_j`, the probability that a user examines position :math:`j`
        (the position-bias propensities, each in (0, 1]).
    placement : array_like of float, shape (n_impressions, n), optional
        :math:`\phi_{uj}`, the probability that the logging ranker put ``shown[u, j]`` at
        position :math:`j` (known when the log was randomised); ``None`` means a
        deterministic logger (all 1).
    k : int or None, default=None
        Cut-off of DCG; ``None`` is ``m``. The slot estimators (``"ips"``,
        ``"clipped_ips"``, ``"snips"``) need ``k <= n``, the width of the log: a
        position the log never showed has placement probability 0, so its clicks
        cannot be estimated, and ``ValueError`` is raised rather than a DCG@n
        reported as DCG@k.
    estimator : {"naive", "item_ips", "ips", "clipped_ips", "snips"}, default="snips"
        See Notes.
    clip : float, optional
        The propensity floor :math:`\eta` of ``"clipped_ips"`` (required there).

    Returns
    -------
    float
        The estimate of :math:`\frac{1}{T}\sum_u \sum_{r \le k} \pi(y_{ur}) /
        \log_2(r+1)`, DCG@k with the click probability of an examined item,
        :math:`\pi(d)`, as its gain.

    Notes
    -----
    With :math:`w(r) = 1/\log_2(r+1)`, :math:`c_{uj}` the clicks, :math:`d_{uj}`
    the item shown at position :math:`j` of impression :math:`u`, :math:`r_u(d)` its
    rank under the new ranker (:math:`w = 0` past :math:`k`) and
    :math:`a_{uj} = \mathbf{1}[y_{uj} = d_{uj}]`:

    .. math::
       \hat{\mathcal{V}}_{\text{naive}} = \frac{1}{T}\sum_{u,j} c_{uj}\,w(r_u(d_{uj})),\qquad
       \hat{\mathcal{V}}_{\text{item-IPS}} = \frac{1}{T}\sum_{u,j}
           \frac{c_{uj}\,w(r_u(d_{uj}))}{e_j},

    .. math::
       \hat{\mathcal{V}}_{\text{IPS}} = \frac{1}{T}\sum_{u}\sum_{j \le k}
           \frac{a_{uj}\, c_{uj}\,w(j)}{\phi_{uj}\,e_j},\qquad
       \hat{\mathcal{V}}_{\text{SNIPS}} = \hat{\mathcal{V}}_{\text{IPS}}\;
           \frac{\sum_{u}\sum_{j\le k} \mathbf{1}[y_{uj} \text{ exists}]}
                {\sum_{u}\sum_{j \le k} a_{uj}/\phi_{uj}},

    and clipped IPS replaces :math:`\phi_{uj}e_j` by
    :math:`\max(\phi_{uj}e_j, \eta)`. Under the position-based click model,
    item-IPS is unbiased when every candidate is shown in every impression, and IPS
    when every item the new ranker shows at :math:`j` has :math:`\phi_{uj} > 0`; SNIPS
    divides by weights whose expectation is known, trading a small bias for less
    variance; clipping bounds the weights and biases the estimate down.

    SNIPS is undefined when no impression showed an item of the new ranking at its
    position within the top :math:`k` (the denominator, and the numerator, are 0):
    ``ValueError`` is raised then, instead of reporting 0. The item estimators credit
    a click at the new ranker's rank of the item, whatever the position it was shown
    at, so they accept any :math:`k`; items the log never showed add nothing, for
    any :math:`k`.

    Chapter: :doc:`/chapters/23_counterfactual_evaluation`.

    References
    ----------
    .. [1] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased learning-to-rank
       with biased feedback", WSDM 2017.
    .. [2] A. Swaminathan and T. Joachims, "The self-normalized estimator for
       counterfactual learning", NeurIPS 2015.
    .. [3] K. Hofmann, L. Li and F. Radlinski, "Online evaluation for information
       retrieval", *Foundations and Trends in IR* 10(1), 2016.

    Examples
    --------
    Two impressions of the items 0, 1, 2; the new ranker puts 2 first. A click on item 2
    at position 3, examined with probability 1/2, counts twice under item-IPS:

    >>> from rankeval.online import counterfactual_dcg
    >>> shown = [[0, 1, 2], [0, 1, 2]]
    >>> clicks = [[1, 0, 1], [0, 0, 0]]
    >>> theta = [1.0, 0.5, 0.5]
    >>> counterfactual_dcg(clicks, shown, [[2, 0], [2, 0]], examination=theta,
    ...                    estimator="naive")  # (1 + 1/log2(3)) / 2
    0.8154648767857288
    >>> counterfactual_dcg(clicks, shown, [[2, 0], [2, 0]], examination=theta,
    ...                    estimator="item_ips")  # (2 + 1/log2(3)) / 2
    1.3154648767857288
    """
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
    shown = _ids(shown, "shown")
    target = _ids(target, "target")
    c = bool_array(clicks, "clicks")
    if c.shape != shown.shape:
        raise ValueError(f"clicks has shape {c.shape}, shown {shown.shape}: they must match")
    if target.shape[0] != shown.shape[0]:
        raise ValueError(f"target has {target.shape[0]} rows, shown {shown.shape[0]}")
    if shown.shape[0] == 0:
        raise ValueError("the log is empty")
    if np.any(shown < 0):
        raise ValueError("shown must hold item ids >= 0")
    if np.any(target < -1):
        raise ValueError("target must hold item ids >= 0, or -1 for padding")
    _first_repeat(shown, "shown")
    _first_repeat(target, "target", skip_pads=True)
    n = shown.shape[1]
    theta = real_array(examination, "examination", ndim=1)
    if theta.shape != (n,):
        raise ValueError(f"examination must have {n} entries (one per position)")
    if np.any((theta <= 0) | (theta > 1)):
        raise ValueError("examination propensities must lie in (0, 1]")
    if placement is None:
        p = np.ones(shown.shape)
    else:
        p = real_array(placement, "placement", ndim=2)
        if p.shape != shown.shape:
            raise ValueError(f"placement has shape {p.shape}, shown {shown.shape}")
        if np.any((p <= 0) | (p > 1)):
            raise ValueError("placement probabilities of shown items must lie in (0, 1]")
    named = "k" if k is None else "k="
    k = target.shape[1] if k is None else check_count(k, "k")
    if k > n and estimator in ("ips", "clipped_ips", "snips"):
        named = f"k={k}" if named == "k=" else f"k=None (the width of target, {k})"
        raise ValueError(
            f"{named} is wider than the log, which shows {n} positions per impression: "
            f"{estimator} counts a click only where the log showed the new ranker's "
            f"item at the same position, and positions {n + 1}..{k} were never shown; "
            f"give k <= {n}")
    if k > target.shape[1]:
        pad = -np.ones((target.shape[0], k - target.shape[1]), dtype=np.int64)
        target = np.hstack([target, pad])
    if estimator == "clipped_ips":
        if clip is None:
            raise TypeError("clipped_ips needs clip=, the propensity floor")
        clip = check_number(clip, "clip", low=0.0, high=1.0, low_open=True)
    elif clip is not None:
        raise TypeError(f"clip= is a parameter of clipped_ips, not of {estimator}")
    return _dcg_kernel(c, shown, target, theta, p, k, estimator, clip)


def swap_propensities(clicks, swap):
    r"""Relative examination propensities from a swap experiment.

    In each impression the logging ranker's top item was moved to a position drawn
    at random (and the item there moved to the top), so the same items are seen at
    every position: the click rate of the moved item at position :math:`j` over its
    click rate at the top measures :math:`e_j / e_1`.

    Parameters
    ----------
    clicks : array_like of bool, shape (n_impressions, n)
        Clicks on the lists shown.
    swap : array_like of int, shape (n_impressions,)
        The position (1-based) the top item was moved to; 1 means not moved.

    Returns
    -------
    ndarray of shape (n,)
        :math:`\hat e_j / \hat e_1` for :math:`j = 1, \dots, n` (the first is 1).

    Notes
    -----
    Under the position-based model, :math:`E[c_{uj} \mid \text{swap}_u = j] =
    e_j\, E[\pi(\text{top item})]` whatever :math:`j` is, so

    .. math:: \frac{\hat e_j}{\hat e_1} =
       \frac{\operatorname{mean}\{c_{uj} : \text{swap}_u = j\}}
            {\operatorname{mean}\{c_{u1} : \text{swap}_u = 1\}}.

    Only ratios are identified: IPS estimates of a metric scale with
    :math:`e_1`, which the experiment cannot tell.

    Chapter: :doc:`/chapters/23_counterfactual_evaluation`.

    References
    ----------
    .. [1] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased learning-to-rank
       with biased feedback", WSDM 2017.
    .. [2] X. Wang, M. Bendersky, D. Metzler and M. Najork, "Learning to rank with
       selection bias in personal search", SIGIR 2016.

    Examples
    --------
    >>> from rankeval.online import swap_propensities
    >>> clicks = [[1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 1], [0, 0, 0]]
    >>> swap_propensities(clicks, [1, 1, 2, 2, 3, 3]).tolist()
    [1.0, 1.0, 1.0]
    """
    c = bool_array(clicks, "clicks")
    if c.ndim != 2:
        raise ValueError(f"clicks must be 2-D, got shape {c.shape}")
    s = np.asarray(swap)
    if s.dtype == bool or s.dtype.kind not in "iu":
        raise TypeError(f"swap must hold integer positions, got dtype {s.dtype}")
    if s.shape != (c.shape[0],):
        raise ValueError(f"swap must have one entry per impression ({c.shape[0]})")
    n = c.shape[1]
    if np.any((s < 1) | (s > n)):
        raise ValueError(f"swap positions must lie in 1..{n}")
    rates = np.zeros(n)
    for j in range(1, n + 1):
        group = s == j
        if not group.any():
            raise ValueError(f"no impression was swapped to position {j}")
        rates[j - 1] = c[group, j - 1].mean()
    if rates[0] == 0:
        raise ValueError("no click at position 1 in the unswapped impressions: "
                         "the ratios are undefined")
    return rates / rates[0]
