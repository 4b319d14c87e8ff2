"""Counterfactual evaluation: a new ranker's DCG@k estimated from the click logs of another.

Chapter: :doc:`/chapters/23_counterfactual_evaluation`.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from ._checks import bool_array, check_count, check_number, real_array

__all__ = ["counterfactual_dcg", "counterfactual_interval", "swap_propensities"]

ESTIMATORS = ("naive", "item_ips", "ips", "clipped_ips", "snips", "dm", "dr",
              "cascade_ips", "list_ips")
SLOT = ("ips", "clipped_ips", "snips", "dm", "dr", "cascade_ips", "list_ips")


def _ids(x, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype == bool or arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer item ids, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (one row per impression), got shape "
                         f"{arr.shape}")
    return arr.astype(np.int64)


def _dcg_terms(clicks, shown, target, theta, placement, k, estimator, clip, model,
               prefix):
    """Validated arrays -> (terms, weights, slots), one row per impression.

    ``terms[t, j]`` is impression t's contribution at position (slot estimators) or log
    column (item estimators) j; ``weights[t, j]`` the placement weight a/phi of slot j
    and ``slots[t, j]`` whether the target has an item there (j < min(k, n)).
    """
    n = shown.shape[1]
    discount = 1.0 / np.log2(np.arange(2, k + 2))  # w(r) = 1 / log2(r + 1), r = 1..k
    top = target[:, :k]
    # slot form: a click counts where the log showed the new ranker's item there
    width = min(k, n)  # k <= n for the slot estimators (checked by the caller)
    real = top[:, :width] >= 0  # -1 pads a target shorter than k
    match = (shown[:, :width] == top[:, :width]) & real
    weights = match / placement[:, :width]
    if estimator in ("naive", "item_ips"):
        # credit every click at the position the new ranker gives that item
        same = (shown[:, :, None] == top[:, None, :]) & (top >= 0)[:, None, :]
        credit = (same * discount).sum(axis=2)  # (n_imp, n)
        if estimator == "item_ips":
            credit = credit / theta[None, :]
        return clicks * credit, weights, real
    gain = clicks[:, :width] / theta[None, :width]  # c / e: unbiased for pi under PBM
    if estimator == "dm":
        return np.where(real, model[:, :width], 0.0) * discount[:width], weights, real
    if estimator == "dr":
        fit = np.where(real, model[:, :width], 0.0)
        return (fit + weights * (gain - fit)) * discount[:width], weights, real
    if estimator in ("cascade_ips", "list_ips"):
        agree = np.cumprod(match, axis=1).astype(bool)  # the top j agree with the target
        if estimator == "cascade_ips":
            return agree * gain * discount[:width] / prefix[:, :width], weights, real
        whole = agree[:, width - 1] / prefix[:, width - 1]
        return whole[:, None] * gain * discount[:width], weights, real
    propensity = placement[:, :width] * theta[None, :width]
    if estimator == "clipped_ips":
        propensity = np.maximum(propensity, clip)
    return match * clicks[:, :width] * discount[:width] / propensity, weights, real


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


def _snips_denominator(weights, n_imp, k):
    total = weights.sum()
    if total == 0:
        raise ValueError(
            f"SNIPS is undefined here (0/0): in none of the {n_imp} impressions did the "
            f"log show an item of the new ranking at its position (top {k}), so the "
            "self-normalising weights sum to 0 and the log carries no information about "
            "the new ranker in the slot form")
    return total


def _check_log(clicks, shown, target):
    """The log's arrays, checked: clicks (bool), shown and target (item ids)."""
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
    return c, shown, target


def _check_propensities(examination, placement, shown):
    """The examination propensity of each position and the placement probabilities."""
    n = shown.shape[1]
    theta = real_array(examination, "examination", ndim=1)
    if theta.shape != (n,):
        raise ValueError(f"examination must have {n} entries (one per position)")
    if np.any((theta <= 0) | (theta > 1)):
        raise ValueError("examination propensities must lie in (0, 1]")
    if placement is None:
        return theta, np.ones(shown.shape)
    p = real_array(placement, "placement", ndim=2)
    if p.shape != shown.shape:
        raise ValueError(f"placement has shape {p.shape}, shown {shown.shape}")
    if np.any((p <= 0) | (p > 1)):
        raise ValueError("placement probabilities of shown items must lie in (0, 1]")
    return theta, p


def _check_depth(k, target, n, estimator):
    """The cut-off: k, or the width of target; a slot estimator cannot look past the log."""
    named = "k" if k is None else "k="
    k = target.shape[1] if k is None else check_count(k, "k")
    if k > n and estimator in SLOT:
        named = f"k={k}" if named == "k=" else f"k=None (the width of target, {k})"
        raise ValueError(
            f"{named} is wider than the log, which shows {n} positions per impression: "
            f"{estimator} counts a click only where the log showed the new ranker's "
            f"item at the same position, and positions {n + 1}..{k} were never shown; "
            f"give k <= {n}")
    return k


def _check_model(model, target, k, estimator):
    """The reward model of dm and dr (one estimate per item of target), padded to k."""
    if estimator not in ("dm", "dr"):
        if model is not None:
            raise TypeError(f"model= is a parameter of dm and dr, not of {estimator}")
        return None
    if model is None:
        raise TypeError(f"{estimator} needs model=, the reward model's estimate of "
                        "the attractiveness of each item of target")
    fit = real_array(model, "model", ndim=2)
    if fit.shape != target.shape:
        raise ValueError(f"model has shape {fit.shape}, target {target.shape}: one "
                         "estimate per item of target")
    if fit.shape[1] < k:
        fit = np.hstack([fit, np.zeros((fit.shape[0], k - fit.shape[1]))])
    return fit


def _check_prefix(prefix_placement, shown, target, k, estimator):
    """The logger's probability of each logged prefix (cascade_ips, list_ips)."""
    if estimator not in ("cascade_ips", "list_ips"):
        if prefix_placement is not None:
            raise TypeError(f"prefix_placement= is a parameter of cascade_ips and list_ips, "
                            f"not of {estimator}")
        return None
    if prefix_placement is None:
        raise TypeError(f"{estimator} needs prefix_placement=, the probability that "
                        "the logger showed each logged prefix")
    prefix = real_array(prefix_placement, "prefix_placement", ndim=2)
    if prefix.shape != shown.shape:
        raise ValueError(f"prefix_placement has shape {prefix.shape}, shown "
                         f"{shown.shape}")
    if np.any((prefix <= 0) | (prefix > 1)):
        raise ValueError("prefix_placement probabilities of logged prefixes must lie "
                         "in (0, 1]")
    rising = np.flatnonzero((np.diff(prefix, axis=1) > 1e-12).any(axis=1))
    if rising.size:
        raise ValueError(f"prefix_placement row {int(rising[0])} grows along the "
                         "list: a longer prefix cannot be likelier than a shorter one")
    n = shown.shape[1]
    short = np.flatnonzero((target[:, :min(k, n)] < 0).any(axis=1))
    if short.size:
        raise ValueError(f"target row {int(short[0])} has fewer than {min(k, n)} "
                         f"items: {estimator} weighs whole prefixes of the new "
                         "ranking, which must fill the top k")
    return prefix


def _check_clip(clip, estimator):
    if estimator == "clipped_ips":
        if clip is None:
            raise TypeError("clipped_ips needs clip=, the propensity floor")
        return check_number(clip, "clip", low=0.0, high=1.0, low_open=True)
    if clip is not None:
        raise TypeError(f"clip= is a parameter of clipped_ips, not of {estimator}")
    return None


def _estimate_terms(clicks, shown, target, examination, placement, k, estimator, clip,
                    model, prefix_placement):
    """Check every input (errors name the argument) -> _dcg_terms's output."""
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
    c, shown, target = _check_log(clicks, shown, target)
    theta, p = _check_propensities(examination, placement, shown)
    k = _check_depth(k, target, shown.shape[1], estimator)
    fit = _check_model(model, target, k, estimator)
    if k > target.shape[1]:
        pad = -np.ones((target.shape[0], k - target.shape[1]), dtype=np.int64)
        target = np.hstack([target, pad])
    prefix = _check_prefix(prefix_placement, shown, target, k, estimator)
    clip = _check_clip(clip, estimator)
    return _dcg_terms(c, shown, target, theta, p, k, estimator, clip, fit, prefix)


def counterfactual_dcg(clicks, shown, target, *, examination, placement=None, k=None,
                       estimator="snips", clip=None, model=None, prefix_placement=None):
    r"""Estimate the mean DCG@k a new ranker would get, from clicks logged on another.

    Parameters
    ----------
    clicks : array_like of bool, shape (n_impressions, n)
        The logged clicks, one row per impression, one column per position shown.
    shown : array_like of int, shape (n_impressions, n)
        The item ids the logging ranker showed, top first.
    target : array_like of int, shape (n_impressions, m)
        The new ranker's ranking of the same query, top first (-1 pads a short list;
        ``"cascade_ips"`` and ``"list_ips"`` need the top :math:`k` filled).
        Neither a row of ``shown`` nor one of ``target`` may name an item twice
        (``ValueError`` naming the row and the item).
    examination : array_like of float, shape (n,)
        :math:`e_j`, the probability that a user examines position :math:`j`
        (the position-bias propensities, each in (0, 1]).
    placement : array_like of float, shape (n_impressions, n), optional
        :math:`\phi_{tj}`, the probability that the logging ranker put ``shown[t, j]`` at
        position :math:`j` (known when the log was randomised); ``None`` means a
        deterministic logger (all 1).
    k : int or None, default=None
        Cut-off of DCG; ``None`` is ``m``. The slot estimators (``"ips"``,
        ``"clipped_ips"``, ``"snips"``) need ``k <= n``, the width of the log: a
        position the log never showed has placement probability 0, so its clicks
        cannot be estimated, and ``ValueError`` is raised rather than a DCG@n
        reported as DCG@k.
    estimator : str, default="snips"
        One of ``"naive"``, ``"item_ips"``, ``"ips"``, ``"clipped_ips"``, ``"snips"``,
        ``"dm"``, ``"dr"``, ``"cascade_ips"``, ``"list_ips"``; see Notes.
    clip : float, optional
        The propensity floor :math:`\eta` of ``"clipped_ips"`` (required there).
    model : array_like of float, shape (n_impressions, m), optional
        :math:`\hat\pi(y_{tj})`, a reward model's estimate of the attractiveness of
        each item of ``target`` (any value at a -1 pad); required by ``"dm"`` and
        ``"dr"``, refused by the others.
    prefix_placement : array_like of float, shape (n_impressions, n), optional
        :math:`\phi_{t,\le j}`, the probability that the logging ranker showed exactly
        ``shown[t, :j+1]`` as its top :math:`j`; required by ``"cascade_ips"`` and
        ``"list_ips"``, refused by the others.

    Returns
    -------
    float
        The estimate of :math:`\frac{1}{T}\sum_t \sum_{r \le k} \pi(y_{tr}) /
        \log_2(r+1)`, DCG@k with the click probability of an examined item,
        :math:`\pi(d)`, as its gain.

    Notes
    -----
    With :math:`w(r) = 1/\log_2(r+1)`, :math:`c_{tj}` the clicks, :math:`d_{tj}`
    the item shown at position :math:`j` of impression :math:`t`, :math:`r_t(d)` its
    rank under the new ranker (:math:`w = 0` past :math:`k`) and
    :math:`a_{tj} = \mathbf{1}[y_{tj} = d_{tj}]`:

    .. math::
       \hat{\mathcal{V}}_{\text{naive}} = \frac{1}{T}\sum_{t,j} c_{tj}\,w(r_t(d_{tj})),

       \hat{\mathcal{V}}_{\text{item-IPS}} = \frac{1}{T}\sum_{t,j}
           \frac{c_{tj}\,w(r_t(d_{tj}))}{e_j},

    .. math::
       \hat{\mathcal{V}}_{\text{IPS}} = \frac{1}{T}\sum_{t}\sum_{j \le k}
           \frac{a_{tj}\, c_{tj}\,w(j)}{\phi_{tj}\,e_j},

       \hat{\mathcal{V}}_{\text{SNIPS}} = \hat{\mathcal{V}}_{\text{IPS}}\;
           \frac{\sum_{t}\sum_{j\le k} \mathbf{1}[y_{tj} \text{ exists}]}
                {\sum_{t}\sum_{j \le k} a_{tj}/\phi_{tj}},

    and clipped IPS replaces :math:`\phi_{tj}e_j` by
    :math:`\max(\phi_{tj}e_j, \eta)`. The direct method and the doubly robust
    estimator (Dudik et al.) use a reward model :math:`\hat\pi`:

    .. math::
       \hat{\mathcal{V}}_{\text{DM}} = \frac{1}{T}\sum_{t}\sum_{j \le k}
           \hat\pi(y_{tj})\,w(j),

       \hat{\mathcal{V}}_{\text{DR}} = \frac{1}{T}\sum_{t}\sum_{j \le k} w(j)
           \Big[\hat\pi(y_{tj}) + \frac{a_{tj}}{\phi_{tj}}
           \Big(\frac{c_{tj}}{e_j} - \hat\pi(y_{tj})\Big)\Big].

    The cascade (RIPS) and whole-list estimators (Li et al.; McInerney et al.) weigh
    a click by the probability of the logged prefix, :math:`a_{t,\le j} = \prod_{i \le j} a_{ti}`:

    .. math::
       \hat{\mathcal{V}}_{\text{cascade}} = \frac{1}{T}\sum_{t}\sum_{j \le k}
           \frac{a_{t,\le j}\, c_{tj}\,w(j)}{\phi_{t,\le j}\,e_j},

       \hat{\mathcal{V}}_{\text{list}} = \frac{1}{T}\sum_{t}
           \frac{a_{t,\le k}}{\phi_{t,\le k}}\sum_{j \le k} \frac{c_{tj}\,w(j)}{e_j}.

    Under the position-based click model, item-IPS is unbiased when every candidate
    is shown in every impression, and IPS when the logger puts each item of the new
    ranking at its position with positive probability, :math:`\phi(y_{tj}, j) > 0`
    (the placement probability of the logged item is always positive; that of the
    new ranker's item is what matters). DR is unbiased if either the placement
    probabilities or the reward model are right. The cascade estimator needs only that
    a click at :math:`j` depend on the items at :math:`1..j` (with ``examination`` all
    1 it estimates the discounted clicks themselves), the whole-list estimator
    nothing about the clicks; each pays for the weaker assumption with larger weights.
    SNIPS divides by weights whose expectation is known, trading a small bias for less
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
    .. [4] M. Dudik, J. Langford and L. Li, "Doubly robust policy evaluation and
       learning", ICML 2011.
    .. [5] S. Li, Y. Abbasi-Yadkori, B. Kveton, S. Muthukrishnan, V. Vinay and Z. Wen,
       "Offline evaluation of ranking policies with click models", KDD 2018.
    .. [6] J. McInerney, B. Brost, P. Chandar, R. Mehrotra and B. Carterette,
       "Counterfactual evaluation of slate recommendations with sequential reward
       interactions", KDD 2020.

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
    terms, weights, slots = _estimate_terms(
        clicks, shown, target, examination, placement, k, estimator, clip, model,
        prefix_placement)
    n_imp = terms.shape[0]
    total = terms.sum()
    if estimator != "snips":
        return float(total / n_imp)
    denominator = _snips_denominator(weights, n_imp, terms.shape[1])
    return float(total / denominator * slots.sum() / n_imp)


def counterfactual_interval(clicks, shown, target, *, examination, placement=None,
                            k=None, estimator="snips", clip=None, model=None,
                            prefix_placement=None, level=0.95):
    r"""A counterfactual estimate with its standard error, confidence interval and ESS.

    The arguments are those of :func:`counterfactual_dcg`, plus ``level``.

    Parameters
    ----------
    clicks, shown, target, examination, placement, k, estimator, clip, model, prefix_placement
        As in :func:`counterfactual_dcg`.
    level : float, default=0.95
        The confidence level of the interval, in (0, 1).

    Returns
    -------
    dict
        ``"estimate"`` (what :func:`counterfactual_dcg` returns), ``"se"`` (its
        standard error), ``"low"`` and ``"high"`` (the normal-approximation interval
        at ``level``), ``"ess"`` (Kish's effective sample size of the placement
        weights) and ``"slots"`` (the number of target slots it compares with,
        :math:`\sum_t \sum_{j \le k} \mathbf{1}[y_{tj} \text{ exists}]`).

    Notes
    -----
    The impressions are independent draws, so every estimator but SNIPS is a mean of
    i.i.d. per-impression terms :math:`X_t`, and its standard error is
    :math:`s_X/\sqrt{T}` (:math:`s_X` the sample standard deviation, ``ddof=1``).
    SNIPS is a ratio, :math:`\bar X / \bar W` times the mean number of target slots,
    with :math:`W_t = \sum_{j \le k} a_{tj}/\phi_{tj}`; its standard error is the
    delta method's, :math:`\bar m\, s_{X - R W} / (\bar W \sqrt{T})` with
    :math:`R = \bar X/\bar W` (Swaminathan and Joachims). The interval is the estimate
    :math:`\pm z_{(1+\text{level})/2}` standard errors: it is only as good as the
    normal approximation, which heavy-tailed weights (small :math:`\phi`) undermine
    first.

    Kish's effective sample size of the weights :math:`\omega_{tj} = a_{tj}/\phi_{tj}`
    over the target slots,

    .. math:: \mathrm{ESS} = \frac{\big(\sum_{t,j} \omega_{tj}\big)^2}{\sum_{t,j} \omega_{tj}^2},

    is the number of on-policy observations that would carry as much information; far
    below ``slots``, a few large weights carry the estimate.

    Chapter: :doc:`/chapters/23_counterfactual_evaluation`.

    References
    ----------
    .. [1] A. Swaminathan and T. Joachims, "The self-normalized estimator for
       counterfactual learning", NeurIPS 2015.
    .. [2] L. Kish, *Survey Sampling*, Wiley, 1965.

    Examples
    --------
    Four impressions; the logger showed the new ranker's item at the top twice (with
    placement probability 1/2 each time), and it was clicked once:

    >>> from rankeval.online import counterfactual_interval
    >>> clicks, shown = [[1], [0], [0], [1]], [[7], [7], [8], [8]]
    >>> out = counterfactual_interval(
    ...     clicks, shown, [[7]] * 4, examination=[1.0],
    ...     placement=[[0.5]] * 4, estimator="ips")
    >>> out["estimate"], round(out["se"], 4), out["ess"], out["slots"]
    (0.5, 0.5, 2.0, 4)
    """
    level = check_number(level, "level", low=0.0, high=1.0, low_open=True,
                         high_open=True)
    terms, weights, slots = _estimate_terms(
        clicks, shown, target, examination, placement, k, estimator, clip, model,
        prefix_placement)
    n_imp = terms.shape[0]
    if n_imp < 2:
        raise ValueError("a standard error needs at least 2 impressions")
    x = terms.sum(axis=1)
    if estimator == "snips":
        w = weights.sum(axis=1)
        denominator = _snips_denominator(weights, n_imp, terms.shape[1])
        ratio = terms.sum() / denominator
        mean_slots = slots.sum() / n_imp
        estimate = float(ratio * mean_slots)
        se = float(mean_slots * np.std(x - ratio * w, ddof=1)
                   / (denominator / n_imp) / np.sqrt(n_imp))
    else:
        estimate = float(terms.sum() / n_imp)
        se = float(np.std(x, ddof=1) / np.sqrt(n_imp))
    v = weights[slots]
    square = float((v**2).sum())
    ess = float(v.sum() ** 2 / square) if square > 0 else 0.0
    z = NormalDist().inv_cdf((1 + level) / 2)
    return {"estimate": estimate, "se": se, "low": estimate - z * se,
            "high": estimate + z * se, "ess": ess, "slots": int(slots.sum())}


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
    Under the position-based model, :math:`E[c_{tj} \mid \text{swap}_t = j] =
    e_j\, E[\pi(\text{top item})]` whatever :math:`j` is, so

    .. math:: \frac{\hat e_j}{\hat e_1} =
       \frac{\operatorname{mean}\{c_{tj} : \text{swap}_t = j\}}
            {\operatorname{mean}\{c_{t1} : \text{swap}_t = 1\}}.

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
