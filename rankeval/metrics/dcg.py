"""Discounted cumulative gain (DCG) and its normalised form (nDCG).

Both metrics are one weighted sum: each ranked item contributes its *gain*
(a function of its grade) divided by the *discount* of its position. The
module spells out the two ingredients as small functions, ``_gains`` and
``_discounts``, so that every convention of the literature is one keyword away.

Chapter: :doc:`/chapters/08_ndcg`.
"""

from __future__ import annotations

import math

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, Param, relevant
from .judged import is_judged
from .portable import each, exp2, log2, row_sum
from .validation import as_batch, check_k, check_real, check_same_rows, finish

__all__ = ["dcg", "ndcg"]

_GAINS = ("linear", "exponential")

# Each named discount and the keyword parameters it reads.
_DISCOUNT_PARAMS = {
    "log2": (),
    "log": ("log_base",),
    "jarvelin": ("log_base",),
    "linear": (),
    "exponential": ("exp_base",),
    "power": ("power_shift", "power_exponent"),
    "zipf": ("power_shift", "power_exponent"),
    "none": (),
}


# --- the gain of a grade ------------------------------------------------------------


def _call(fn, values, what, promise):
    """Call a user's gain or discount on a copy of ``values``; check shape and dtype."""
    out = np.asarray(fn(values.copy()))
    if out.shape != values.shape:
        raise ValueError(
            f"{what} callable must return {promise} (shape {values.shape}), "
            f"got shape {out.shape}"
        )
    if out.dtype.kind not in "biuf":
        raise TypeError(f"{what} callable must return numbers, got dtype {out.dtype}")
    return out


def _gains(batch, gain):
    """Gain of every ranked item, shape (n_queries, width); padding stays 0."""
    grades = batch.grades
    if isinstance(gain, str):
        if gain == "linear":
            values = grades.copy()
        elif gain == "exponential":
            with np.errstate(over="ignore"):
                values = exp2(grades) - 1.0  # the C library's exp2: the same on every CPU
        else:
            raise ValueError(
                f"gain must be {' or '.join(map(repr, _GAINS))} or a callable, got {gain!r}"
            )
    elif callable(gain):
        mask = batch.mask
        real = grades[mask]
        mapped = _call(gain, real, "gain", "one gain per grade")
        values = np.zeros_like(grades)
        values[mask] = mapped
    else:
        raise TypeError(
            f"gain must be 'linear', 'exponential' or a callable, got {type(gain).__name__}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(
            "gain produced NaN or infinite values (grades too large for the exponential "
            "gain 2**grade - 1?)"
        )
    if np.any(values < 0):
        raise ValueError("gain must be >= 0 for every grade, got a negative gain")
    return values


# --- the discount of a position -----------------------------------------------------


def _resolve_params(discount, given):
    """Check the discount's name and that only the parameters it reads were given;
    fill in the defaults."""
    if isinstance(discount, str) and discount not in _DISCOUNT_PARAMS:
        raise ValueError(
            "discount must be one of "
            + ", ".join(map(repr, _DISCOUNT_PARAMS))
            + f" or a callable, got {discount!r}"
        )
    used = _DISCOUNT_PARAMS.get(discount, ()) if isinstance(discount, str) else ()
    for name, value in given.items():
        if value is not None and name not in used:
            readers = [d for d, params in _DISCOUNT_PARAMS.items() if name in params]
            raise ValueError(
                f"{name} is read only by discount={' or '.join(map(repr, readers))}, "
                f"not by discount={discount!r}"
            )
    p = {"log_base": 2.0, "exp_base": 2.0, "power_shift": 0.0, "power_exponent": 1.0}
    for name in used:
        if given[name] is not None:
            p[name] = check_real(given[name], name)
    if p["log_base"] <= 1:
        raise ValueError(f"log_base must be > 1, got {p['log_base']:g}")
    if p["exp_base"] <= 1:
        raise ValueError(f"exp_base must be > 1, got {p['exp_base']:g}")
    if p["power_shift"] <= -1:
        raise ValueError(
            f"power_shift must be > -1 (so that 1 + power_shift > 0), got {p['power_shift']:g}"
        )
    if p["power_exponent"] <= 0:
        raise ValueError(f"power_exponent must be > 0, got {p['power_exponent']:g}")
    return p


def _discounts(n, discount, p):
    """Discount d(i) of positions i = 1..n, shape (n,), positive and non-decreasing."""
    i = np.arange(1, n + 1, dtype=np.float64)
    if isinstance(discount, str):
        # (logarithms and powers by the C library's scalar functions, not NumPy's
        # AVX-512 code: the same discounts on every CPU; see rankeval.metrics.portable)
        if discount == "log2":
            return log2(i + 1)
        if discount == "log":
            return each(math.log, i + 1, np.log) / math.log(p["log_base"])
        if discount == "jarvelin":
            return np.maximum(1.0, each(math.log, i, np.log) / math.log(p["log_base"]))
        if discount == "linear":
            return i
        if discount == "exponential":
            base = float(p["exp_base"])
            with np.errstate(over="ignore"):  # inf far down the list: weight 0
                return each(lambda v: base**v, i - 1, lambda v: np.power(base, v))
        if discount in ("power", "zipf"):
            e = float(p["power_exponent"])
            with np.errstate(over="ignore", under="ignore"):  # inf far down: weight 0
                d = each(lambda v: v**e, i + p["power_shift"], lambda v: np.power(v, e))
            if d[0] == 0:  # non-decreasing, so position 1 is the smallest
                raise ValueError(
                    f"discount={discount!r} is 0 at position 1: (1 + power_shift) ** "
                    f"power_exponent = {1 + p['power_shift']:g} ** {p['power_exponent']:g} "
                    "underflows float64; use a power_shift nearer 0 or a smaller power_exponent"
                )
            return d
        return np.ones(n)  # "none", the only name left after _resolve_params
    if not callable(discount):
        raise TypeError(
            f"discount must be a name such as 'log2' or a callable, got {type(discount).__name__}"
        )
    d = _call(discount, i, "discount", "one discount per position").astype(np.float64)
    if not np.all(np.isfinite(d)) or np.any(d <= 0):
        raise ValueError("discount callable must return finite discounts > 0")
    if np.any(np.diff(d) < 0):
        raise ValueError(
            "discount callable must be non-decreasing in the position (a lower item "
            "may not weigh more than a higher one)"
        )
    return d


def _weighted_sum(gains, discounts, k):
    """sum_{i <= k} gain_i / d(i) for every row; a ValueError if it overflows float64."""
    top = gains[:, :k]
    return _dcg_kernel(top, discounts[: top.shape[1]], name_rows=True)


def _finite(sums, gains, discounts, name_rows=False):
    """``sums``, or a ValueError if one overflowed float64 (finite gains divided by
    finite discounts can still add up to infinity)."""
    if np.isfinite(sums).all():
        return sums
    q = int(np.flatnonzero(~np.isfinite(sums))[0])
    where = f" of query {q}" if name_rows and len(sums) > 1 else ""
    raise ValueError(
        f"DCG{where} overflows float64 (it exceeds {np.finfo(np.float64).max:.3g}): the gains "
        f"(largest {gains.max():g}) divided by the discounts (smallest {discounts.min():g}) "
        "sum to infinity; rescale the grades, or choose a discount that does not come "
        "near 0"
    )


# --- public metrics -----------------------------------------------------------------


def _prepare(relevance, k, gain, discount, **params):
    """Checked inputs shared by dcg and ndcg: the batch, k, the gains, discount params."""
    batch = as_batch(relevance)
    k = check_k(k)
    p = _resolve_params(discount, params)
    return batch, k, _gains(batch, gain), p


def dcg(
    relevance,
    k=None,
    *,
    gain="linear",
    discount="log2",
    log_base=None,
    exp_base=None,
    power_shift=None,
    power_exponent=None,
):
    r"""Discounted cumulative gain: the gains of the top ``k`` items, each divided by
    the discount of its position.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off: only positions ``1..k`` count. ``None`` means the whole list; a
        ``k`` past the end of a list adds nothing for the missing positions.
    gain : {"linear", "exponential"} or callable, default="linear"
        Gain of a grade :math:`g`. ``"linear"``: the grade itself, as
        *Ranking Evaluation*, *Ranking Metrics* and trec_eval use.
        ``"exponential"``: :math:`2^g - 1`, the form of
        *Model Evaluation, Part 4* (its ``method=1``) and of the
        *Comprehensive Guide*, which stresses the top grades. A callable
        receives a 1-D float array of grades and must return an array of the
        same shape of finite gains ``>= 0``.
    discount : str or callable, default="log2"
        Discount :math:`d(i)` of position :math:`i` (the gain is divided by it):

        * ``"log2"``: :math:`\log_2(i + 1)`, the usual form (the formulas of
          the sources, trec_eval, scikit-learn).
        * ``"log"``: :math:`\log_b(i + 1)` with :math:`b` = ``log_base``. It
          equals ``"log2"`` divided by :math:`\log_2 b`, the same factor at every
          position, so it rescales DCG and leaves nDCG unchanged.
        * ``"jarvelin"``: :math:`\max(1, \log_b i)`, :math:`b` = ``log_base``,
          Järvelin and Kekäläinen's original DCG (see Notes); with
          :math:`b = 2` it is ``method=0`` of *Model Evaluation, Part 4*.
        * ``"linear"``: :math:`i`.
        * ``"exponential"``: :math:`a^{i-1}` with :math:`a` = ``exp_base``.
        * ``"power"`` (alias ``"zipf"``): :math:`(i + p)^s` with :math:`p` =
          ``power_shift`` and :math:`s` = ``power_exponent``, the Zipf-law form
          of *Ranking Evaluation*.
        * ``"none"``: 1 at every position, i.e. plain cumulative gain (CG).
        * a callable: receives the positions ``1..n`` as a float array of shape
          ``(n,)`` and returns ``(n,)`` discounts, finite, ``> 0`` and
          non-decreasing (a lower position may not weigh more).
    log_base : float > 1, optional
        :math:`b` of ``"log"`` and ``"jarvelin"``; default 2.
    exp_base : float > 1, optional
        :math:`a` of ``"exponential"``; default 2. With :math:`a = 1/p` the
        weights are :math:`p^{i-1}`, those of rank-biased precision.
    power_shift : float > -1, optional
        :math:`p` of ``"power"``; default 0.
    power_exponent : float > 0, optional
        :math:`s` of ``"power"``; default 1 (then ``"power"`` equals ``"linear"``).
        Any of these four given for a discount that does not read it raises
        ``ValueError``.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        DCG, ``>= 0``; not bounded above (it grows with the grades and with the
        number of relevant items). Divide by the ideal DCG to compare queries:
        :func:`ndcg`.

    Notes
    -----
    .. math:: \text{DCG@}k = \sum_{i=1}^{\min(k, n)} \frac{\text{gain}(g_i)}{d(i)}

    with :math:`g_i` the grade at position :math:`i`. The default is
    :math:`\text{gain}(g) = g` and :math:`d(i) = \log_2(i + 1)`.

    Lineage. Järvelin and Kekäläinen (2002) defined DCG with a patience
    parameter :math:`b`: ranks :math:`i < b` are not discounted and rank
    :math:`i \ge b` is divided by :math:`\log_b i`, i.e.
    :math:`d(i) = \max(1, \log_b i)`. With :math:`b = 2` the first two ranks
    count fully, :math:`\text{DCG} = g_1 + \sum_{i \ge 2} g_i / \log_2 i`, which
    is ``discount="jarvelin"`` and ``method=0`` of *Model Evaluation, Part 4*
    (there called "standard"). Burges et al. (2005) wrote the now usual form
    :math:`(2^{g} - 1) / \log_2(i + 1)`, which discounts every rank from the
    second on and is its ``method=1``; trec_eval keeps the
    :math:`\log_2(i + 1)` discount with linear gain.

    Chapter: :doc:`/chapters/08_ndcg`.

    References
    ----------
    - K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
      techniques", *ACM Trans. Inf. Syst.* 20(4), 2002, pp. 422-446.
    - C. Burges, T. Shaked, E. Renshaw, A. Lazier, M. Deeds, N. Hamilton and
      G. Hullender, "Learning to rank using gradient descent", *ICML*, 2005.
    - Y. Wang, L. Wang, Y. Li, D. He, W. Chen and T.-Y. Liu, "A theoretical
      analysis of NDCG type ranking measures", *COLT*, 2013.

    Examples
    --------
    *Ranking Evaluation*'s film ranking, grades 3, 3, 0, 3, 2:

    >>> from rankeval import dcg
    >>> round(dcg([3, 3, 0, 3, 2]), 4)  # 3 + 3/log2(3) + 0 + 3/log2(5) + 2/log2(6)
    6.9585
    >>> # 3 + 3/1 + 0 + 3/2 + 2/log2(5)
    >>> round(dcg([3, 3, 0, 3, 2], discount="jarvelin"), 4)
    8.3614
    >>> dcg([3, 3, 0, 3, 2], k=2, gain="exponential", discount="none")  # CG: 7 + 7
    14.0
    """
    batch, k, gains, p = _prepare(
        relevance, k, gain, discount,
        log_base=log_base, exp_base=exp_base,
        power_shift=power_shift, power_exponent=power_exponent,
    )
    discounts = _discounts(gains.shape[1], discount, p)
    return finish(_weighted_sum(gains, discounts, k), batch)


def _ideal_gains(ideal, batch, gains, gain):
    """Gains of the ideal list of every query, sorted best first."""
    if ideal is None:
        return -np.sort(-gains, axis=1)
    ib = as_batch(ideal, name="ideal")
    if batch.single and not ib.single:
        raise ValueError(
            "ideal must be 1-D (the judged grades of the one query) when relevance is "
            "a single ranking"
        )
    if not batch.single and ib.single:
        raise ValueError(
            f"ideal must hold one list of judged grades per query ({batch.n_queries}), "
            "as a list of lists or a 2-D array; got one 1-D list"
        )
    if ib.n_queries != batch.n_queries:
        raise ValueError(
            f"ideal holds {ib.n_queries} queries but relevance holds {batch.n_queries}; "
            "give the judged grades of every query"
        )
    check_same_rows(ib, batch, "ideal")
    ideal_gains = -np.sort(-_gains(ib, gain), axis=1)
    # The ranked items are judged items of the query, so the j-th best gain of the
    # ranking can never exceed the j-th best gain of the ideal list.
    ranked = -np.sort(-gains, axis=1)
    width = ranked.shape[1]
    padded = np.zeros_like(ranked)
    m = min(width, ideal_gains.shape[1])
    padded[:, :m] = ideal_gains[:, :m]
    bad = np.flatnonzero(np.any(ranked > padded, axis=1))
    if bad.size:
        q = bad[0]
        j = int(np.flatnonzero(ranked[q] > padded[q])[0])
        where = "" if batch.single else f" of query {q}"
        raise ValueError(
            f"ideal{where} does not contain the grades of the ranked items: the "
            f"ranking's best gain number {j + 1} is {ranked[q, j]:g}, ideal's is "
            f"{padded[q, j]:g}; ideal must list every judged grade of the query, "
            "ranked or not"
        )
    return ideal_gains


def ndcg(
    relevance,
    k=None,
    *,
    gain="linear",
    discount="log2",
    ideal=None,
    log_base=None,
    exp_base=None,
    power_shift=None,
    power_exponent=None,
):
    r"""Normalised DCG: the DCG of the ranking divided by the DCG of an ideal ranking.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off: DCG@k over the top ``k`` of the ranking, divided by IDCG@k over
        the top ``k`` of the ideal list. ``None`` uses whole lists.
    gain, discount, log_base, exp_base, power_shift, power_exponent
        As in :func:`dcg`; the same gain and discount serve both DCG and IDCG.
    ideal : array_like or list of array_like, optional
        The grades from which the ideal ranking is built (they are sorted by
        gain, best first). ``None`` (default): the ranking's own grades, as the
        example of *Ranking Evaluation*, the code of *Model Evaluation, Part 4*
        and scikit-learn's ``ndcg_score`` do.
        Otherwise every judged grade of the query, retrieved or not, as
        trec_eval does: a 1-D sequence when ``relevance`` is one query, a list
        of sequences (or a 2-D array) with one entry per query for a batch. It
        must contain the grades of the ranked items (use ``[0]`` for a query
        with no relevant judgment). Binary relevance with ``n`` relevant items
        is ``ideal=[1] * n`` (the item-list notebook's ``compute_IDCG(n)``).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        nDCG in [0, 1]; 1 for a ranking that orders the ideal list's best items
        first. A query whose IDCG is 0 (no item with a gain > 0) gets 0.

    Notes
    -----
    Grades must be >= 0 here (a negative grade is a ValueError), while
    :func:`rankeval.evaluate` reads a negative qrels grade (TREC's -1 or -2)
    as judged and not relevant, with gain 0, as trec_eval does:
    ``ndcg(np.maximum(grades, 0), k)`` gives the value ``evaluate`` gives.

    .. math::
        \text{nDCG@}k = \frac{\text{DCG@}k}{\text{IDCG@}k}, \qquad
        \text{IDCG@}k = \sum_{i=1}^{\min(k, m)} \frac{\text{gain}(g^*_i)}{d(i)}

    where :math:`g^*_1 \ge g^*_2 \ge \dots \ge g^*_m` are the ideal grades sorted
    by gain. With the default ``ideal=None`` the ideal list is the ranking
    itself, sorted, so nDCG says how well the system ordered what it returned,
    not whether it returned every relevant item; trec_eval's ``ndcg`` and
    ``ndcg_cut`` (linear gain, :math:`\log_2(i + 1)` discount, ideal from all
    judged grades) are ``ndcg(r, k, ideal=judged)``.

    For the default the value lies in [0, 1] because the discounts are
    non-decreasing (the rearrangement inequality); that is why a callable
    discount must be non-decreasing.

    Chapter: :doc:`/chapters/08_ndcg`.

    References
    ----------
    - K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
      techniques", *ACM Trans. Inf. Syst.* 20(4), 2002, pp. 422-446.
    - C. Buckley and the NIST TREC team, *trec_eval* (measures ``ndcg`` and
      ``ndcg_cut``), https://github.com/usnistgov/trec_eval.

    Examples
    --------
    *Ranking Evaluation*'s film ranking; the ideal order is 3, 3, 3, 2, 0:

    >>> from rankeval import ndcg
    >>> round(ndcg([3, 3, 0, 3, 2]), 4)
    0.9592

    The item-list notebook's binary example: b and f are relevant, the ranking c, a,
    f, b, g, e, d puts them third and fourth; IDCG counts two relevant items:

    >>> r = [0, 0, 1, 1, 0, 0, 0]
    >>> round(ndcg(r, ideal=[1, 1]), 7)  # (1/log2(4) + 1/log2(5)) / (1 + 1/log2(3))
    0.5706417

    An item judged relevant but not retrieved lowers nDCG only if ``ideal``
    says so:

    >>> round(ndcg([0, 1]), 4), round(ndcg([0, 1], ideal=[1, 1]), 4)
    (0.6309, 0.3869)
    >>> ndcg([[0, 0], [2, 1]], k=1)  # no relevant item: 0 by convention
    array([0., 1.])
    """
    batch, k, gains, p = _prepare(
        relevance, k, gain, discount,
        log_base=log_base, exp_base=exp_base,
        power_shift=power_shift, power_exponent=power_exponent,
    )
    ideal_gains = _ideal_gains(ideal, batch, gains, gain)
    discounts = _discounts(max(gains.shape[1], ideal_gains.shape[1]), discount, p)
    actual = _weighted_sum(gains, discounts, k)
    best = _weighted_sum(ideal_gains, discounts, k)
    values = np.divide(actual, best, out=np.zeros_like(actual), where=best > 0)
    return finish(values, batch)


def _dcg_kernel(gains, discounts=None, name_rows=False):
    """The one kernel of DCG, of :func:`dcg`, :func:`ndcg` and the measures of
    :func:`rankeval.evaluate`: ``gains`` (n, k) of the top k, any sign, times the
    reciprocal of each position's discount (``discounts``, shape (k,); default
    log2(i + 1), trec_eval's and scikit-learn's), summed in rank order. A ValueError
    if a sum overflows float64."""
    if discounts is None:
        discounts = log2(np.arange(2, gains.shape[1] + 2))  # the same on every CPU
    with np.errstate(over="ignore", invalid="ignore"):
        sums = row_sum(gains * (1.0 / discounts))  # in rank order: the same for any padding
    return _finite(sums, gains, discounts, name_rows=name_rows)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _gain_function(gain, gains):
    if gains:
        table = dict(gains)

        def mapped(g):
            g = np.asarray(g, dtype=np.float64)
            out = np.where(g > 0, g, 0.0)  # unlisted grades: the grade itself
            for grade, value in table.items():
                out = np.where(g == grade, value, out)
            return out

        return mapped
    if gain == "exponential":
        return lambda g: exp2(g) - 1.0  # the C library's exp2: the same on every CPU
    return None


def _gain_matrix(ranked: RankedBlock, k, gain, gains):
    top = ranked.padded(k)
    if not gains:
        fn = _gain_function(gain, gains)
        return top if fn is None else fn(top)
    # a gain map gives a gain to judged documents only: unjudged ones (NaN, negative
    # grades) have gain 0, as in trec_eval
    raw = ranked.padded(k, unjudged=np.nan)
    judged = is_judged(raw)
    return np.where(judged, _gain_function(gain, gains)(np.where(judged, raw, -1.0)), 0.0)


def _averaged(ranked: RankedBlock, k, gains_matrix):
    """ties="average": every member of a group of equal scores gets the group's mean gain."""
    groups = ranked.tie_groups_padded()
    full = gains_matrix
    cells = groups.ravel()
    real = cells >= 0
    sums = np.bincount(cells[real], weights=full.ravel()[real])
    sizes = np.bincount(cells[real])
    out = np.zeros(full.size)
    out[real] = (sums / np.maximum(sizes, 1))[cells[real]]
    out = out.reshape(full.shape)
    return out if k is None else out[:, :k]


def _dcg_values(ranked: RankedBlock, k, gain, gains, discount):
    if ranked.tie_groups is not None:
        gm = _averaged(ranked, k, _gain_matrix(ranked, None, gain, gains))
    else:
        gm = _gain_matrix(ranked, k, gain, gains)
    return _dcg_kernel(gm, discount(gm.shape[1]))


def _discount_of(discount, params):
    """``width -> discounts`` of the declared discount (None: log2, the kernel's own)."""
    if discount == "log2":
        return lambda width: None
    p = _resolve_params(discount, params)
    return lambda width: _discounts(width, discount, p)


def _score_dcg(ranked: RankedBlock, k, gain=None, gains=(), discount="log2", **params):
    return _dcg_values(ranked, k, gain or "linear", gains, _discount_of(discount, params))


def _score_ndcg(ranked: RankedBlock, k, gain=None, gains=(), discount="log2", **params):
    gain, of = gain or "linear", _discount_of(discount, params)
    value = _dcg_values(ranked, k, gain, gains, of)
    best = ranked.ideal_grades(k, gain=_gain_function(gain, gains))
    ideal = _dcg_kernel(best, of(best.shape[1]))
    return np.where(ideal > 0, value / np.where(ideal > 0, ideal, 1.0), 0.0)


def _check_discount(params: dict, text: str) -> None:
    """At parse time: the discount's parameters are those it reads, in range."""
    try:
        _resolve_params(params.get("discount", "log2"),
                        {name: params.get(name) for name in _DISCOUNT_NUMBERS})  # fmt: skip
    except ValueError as error:
        raise ValueError(f"measure {text!r}: {error}") from None


_score_dcg.check_params = _score_ndcg.check_params = _check_discount


# The default None is "the conventions' gain" (linear unless a preset says otherwise): a
# measure that names a gain, "linear" included, keeps it under every preset.
_GAIN_PARAM = Param(
    "gain", "choice", None,
    "'linear' (g) or 'exponential' (2^g - 1); default: the conventions' gain",
    ("linear", "exponential"),
)  # fmt: skip
_GAINS_PARAM = Param(
    "gains",
    "gains",
    (),
    "map grade -> gain, e.g. {0:0,1:1,2:3,3:7}; "
    "unlisted grades keep gain = grade (trec_eval's ndcg.0=0,1=1,...); a negative grade "
    "is judged non-relevant, gain 0 (a non-zero gain for it is refused)",
    trec_eval=True,
)


_DISCOUNT_NUMBERS = ("log_base", "exp_base", "power_shift", "power_exponent")
# The discounts of dcg and ndcg, as measure parameters (the same names and rules)
_DISCOUNT_PARAMS_DECLARED = (
    Param("discount", "choice", "log2",
          "position discount, as rankeval.ndcg's: 'log2' (default), 'log' (log_base), "
          "'jarvelin' (log_base), 'linear', 'exponential' (exp_base), 'power' or 'zipf' "
          "(power_shift, power_exponent), 'none'", tuple(_DISCOUNT_PARAMS)),
    Param("log_base", "positive", None, "base b > 1 of discount='log' and 'jarvelin'"),
    Param("exp_base", "positive", None, "base > 1 of discount='exponential'"),
    Param("power_shift", "non-negative", None, "shift s of discount='power', (i + s)^e"),
    Param("power_exponent", "positive", None, "exponent e of discount='power' and 'zipf'"),
)  # fmt: skip


# --- trec_eval's experimental gain measures (binG, G, ndcg_rel, Rndcg) ---------------------


def _score_bin_g(ranked: RankedBlock, k, rel):
    """trec_eval's binG: mean over relevant documents of 1 / log2(2 + non-relevant above)."""
    rel_top = relevant(ranked, k, rel)
    nonrel_before = np.cumsum(~rel_top, axis=1) - ~rel_top  # non-relevant above each rank
    inside = np.arange(rel_top.shape[1]) < ranked.lengths[:, None]
    scored = rel_top & inside
    terms = np.zeros(rel_top.shape)
    terms[scored] = 1.0 / log2(2.0 + nonrel_before[scored])
    n_rel = ranked.n_relevant(rel)
    return np.where(n_rel > 0, row_sum(terms) / np.maximum(n_rel, 1), 0.0)


def _score_g(ranked: RankedBlock, k):
    """trec_eval's G (gains = grades): sum over ranks of gain / log2(2 + cost - gained),
    where cost adds max(ideal gain, 1) per rank, divided by the ideal gains' sum."""
    gains = np.maximum(ranked.padded(k), 0.0)
    ideal = ranked.ideal_grades()
    width = max(gains.shape[1], ideal.shape[1])
    gains = np.pad(gains, ((0, 0), (0, width - gains.shape[1])))
    best = np.pad(ideal, ((0, 0), (0, width - ideal.shape[1])))
    n_ret = ranked.lengths if k is None else np.minimum(ranked.lengths, k)
    inside = np.arange(width) < n_ret[:, None]
    gained = np.cumsum(gains, axis=1)
    cost = np.cumsum(np.maximum(best, 1.0), axis=1)
    scored = inside & (gains != 0)
    terms = np.zeros_like(gains)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms[scored] = gains[scored] / log2(2.0 + cost[scored] - gained[scored])
    total = row_sum(ideal)
    return np.where(total > 0, row_sum(terms) / np.where(total > 0, total, 1.0), 0.0)


def _dcg_tables(ranked: RankedBlock):
    """(gains, ideal gains, cumulative DCG, cumulative ideal DCG) on a common width with
    two zero columns to spare: trec_eval's ndcg_rel and Rndcg walk both."""
    gains = np.maximum(ranked.padded(), 0.0)
    ideal = ranked.ideal_grades()
    width = max(gains.shape[1], ideal.shape[1]) + 2
    gains = np.pad(gains, ((0, 0), (0, width - gains.shape[1])))
    ideal = np.pad(ideal, ((0, 0), (0, width - ideal.shape[1])))
    discount = 1.0 / log2(np.arange(width) + 2.0)  # the same on every CPU
    return gains, ideal, np.cumsum(gains * discount, axis=1), np.cumsum(ideal * discount, axis=1)


def _score_ndcg_rel(ranked: RankedBlock, k):
    """trec_eval's ndcg_rel: nDCG averaged over the relevant documents (gain > 0), a
    document not retrieved counting the nDCG at the end of the ranking."""
    gains, ideal, dcg, idcg = _dcg_tables(ranked)
    with np.errstate(divide="ignore", invalid="ignore"):
        at_rel = np.where(gains > 0, dcg / idcg, 0.0)
        n_rel = (ideal > 0).sum(axis=1)
        found = (gains > 0).sum(axis=1)
        total = row_sum(at_rel) + (n_rel - found) * np.where(
            idcg[:, -1] > 0, dcg[:, -1] / idcg[:, -1], 0.0
        )
    return np.where(total > 0, total / np.maximum(n_rel, 1), 0.0)


def _score_rndcg(ranked: RankedBlock, k, rel):
    """trec_eval's Rndcg: nDCG averaged at the ranks where the ideal gain changes (and
    at the end of a ranking longer than the relevant ones plus one)."""
    gains, ideal, dcg, idcg = _dcg_tables(ranked)
    before = np.pad(dcg, ((0, 0), (1, 0)))[:, :-1]  # DCG of the ranks above i
    ideal_before = np.pad(idcg, ((0, 0), (1, 0)))[:, :-1]
    n_pos = (ideal > 0).sum(axis=1)
    column = np.arange(gains.shape[1])
    change = np.zeros_like(gains, dtype=bool)
    change[:, 1:] = ideal[:, 1:] != ideal[:, :-1]
    change &= (column >= 1) & (column <= n_pos[:, None]) & (ideal_before > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = row_sum(np.where(change, before / ideal_before, 0.0))
        count = change.sum(axis=1)
        end = ranked.lengths > n_pos + 1
        total += np.where(end & (idcg[:, -1] > 0), dcg[:, -1] / idcg[:, -1], 0.0)
        count += end & (idcg[:, -1] > 0)
        value = total / count
    return np.where((ranked.n_relevant(rel) > 0) & (count > 0), value, 0.0)


DECLARATIONS = (
    Declaration("nDCG", "normalised discounted cumulative gain (log2 discount)", _score_ndcg,
                ndcg, params=(_GAIN_PARAM, _GAINS_PARAM, *_DISCOUNT_PARAMS_DECLARED), aliases=("NDCG",), trec_eval="ndcg",
                trec_eval_cut="ndcg_cut", trec_eval_param="gains",
                trec_eval_cuts=(5, 10, 15, 20, 30, 100, 200, 500, 1000), print_order=23, print_order_cut=26,
                tie_averaging=True, gain=True),
    Declaration("DCG", "discounted cumulative gain (log2 discount)", _score_dcg, dcg,
                params=(_GAIN_PARAM, _GAINS_PARAM, *_DISCOUNT_PARAMS_DECLARED), trec_eval="dcg", trec_eval_param="gains",
                print_order=21, tie_averaging=True, gain=True, bounds=(0.0, np.inf)),
    Declaration("binG", "trec_eval's binary G: mean over relevant documents of "
                "1 / log2(2 + non-relevant above it)", _score_bin_g, params=(REL,),
                trec_eval="binG", print_order=19, cutoff="none", binary=True),
    Declaration("G", "trec_eval's G (gains = grades), an experimental measure between MAP "
                "and nDCG", _score_g, trec_eval="G", print_order=20, cutoff="none"),
    Declaration("ndcg_rel", "trec_eval's ndcg_rel: nDCG averaged over the relevant documents",
                _score_ndcg_rel, trec_eval="ndcg_rel", print_order=24, cutoff="none"),
    Declaration("Rndcg", "trec_eval's Rndcg: nDCG averaged where the ideal gain changes",
                _score_rndcg, params=(REL,), trec_eval="Rndcg", print_order=25, cutoff="none",
                binary=True),
)  # fmt: skip
