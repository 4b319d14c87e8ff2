"""How alike two rankings are, with the top weighted more: rank-biased overlap (RBO) of two
lists of ids, which need not hold the same items, and the AP rank correlation τ_AP of two
score vectors over the same items.

Kendall's τ (:func:`rankeval.kendall_tau`) counts a swap at the bottom as much as one at
the top; both coefficients here do not.
"""

from __future__ import annotations

import numpy as np


def _ids(values, name: str) -> list:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a list of ids, best first, got {type(values).__name__}")
    items = list(values)
    seen: set = set()
    for position, item in enumerate(items, start=1):
        try:
            if item in seen:
                raise ValueError(f"{name} lists {item!r} twice (again at position {position}); "
                                 "a ranking holds each item once")
        except TypeError:
            raise TypeError(f"{name}'s items must be hashable ids, got {item!r}") from None
        seen.add(item)
    return items


def _overlaps(a: list, b: list, depth: int) -> np.ndarray:
    """X_d = |a[:d] ∩ b[:d]| for d = 1..depth (lists shorter than d are taken whole)."""
    x = np.zeros(depth, dtype=np.int64)
    seen_a: set = set()
    seen_b: set = set()
    count = 0
    for d in range(depth):
        if d < len(a):
            item = a[d]
            seen_a.add(item)
            count += item in seen_b
        if d < len(b):
            item = b[d]
            seen_b.add(item)
            count += item in seen_a
        x[d] = count
    return x


def rank_biased_overlap(a, b, p: float = 0.9) -> float:
    r"""Rank-biased overlap of two rankings, extrapolated beyond their ends (RBO_ext).

    Parameters
    ----------
    a, b : sequence of hashable
        Two rankings, best first; each lists an item at most once. They may hold different
        items and have different lengths (one may be empty).
    p : float, default=0.9
        The persistence, in (0, 1): the weight of depth :math:`d` is proportional to
        :math:`p^{d-1}`, so the top :math:`1/(1-p)` ranks carry most of it.

    Returns
    -------
    float
        In [0, 1]; 1 for two equal lists, 0 for disjoint ones.

    Raises
    ------
    ValueError
        ``p`` outside (0, 1), or an item listed twice.
    TypeError
        A ranking that is not a sequence of hashable ids.

    Notes
    -----
    With :math:`X_d` the number of items the two top-:math:`d` prefixes share, the shorter
    list of length :math:`s` and the longer of length :math:`l`, Webber, Moffat and Zobel's
    extrapolated RBO (their equation 32) is

    .. math::

       \begin{aligned}
       \mathrm{RBO_{ext}} ={}& \frac{1-p}{p}\left(\sum_{d=1}^{l} \frac{X_d}{d}\,p^{d}
         + \sum_{d=s+1}^{l} \frac{X_s (d-s)}{s\,d}\,p^{d}\right) \\
         &+ \left(\frac{X_l - X_s}{l} + \frac{X_s}{s}\right) p^{l}.
       \end{aligned}

    It assumes the agreement seen at the lists' ends continues below them. Two empty lists
    give 1 (they agree on everything they show); one empty list gives 0.

    References
    ----------
    .. [1] W. Webber, A. Moffat and J. Zobel, "A similarity measure for indefinite
       rankings", ACM TOIS 28(4), 2010.

    Chapter: :doc:`/chapters/12_rank_correlation`.

    Examples
    --------
    >>> from rankeval.stats.similarity import rank_biased_overlap
    >>> round(rank_biased_overlap(list("abcde"), list("abcde")), 12)
    1.0
    >>> round(rank_biased_overlap(list("abcdefg"), list("zcavwxy"), p=0.9), 4)
    0.2882
    """
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not (0.0 < p < 1.0):
        raise ValueError(f"p must be a number strictly between 0 and 1, got {p!r}")
    a, b = _ids(a, "a"), _ids(b, "b")
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, n = len(short), len(long_)
    if n == 0:
        return 1.0
    if s == 0:
        return 0.0
    x = _overlaps(short, long_, n).astype(np.float64)
    d = np.arange(1, n + 1, dtype=np.float64)
    weights = p**d
    seen = float(np.sum(x / d * weights))
    tail_d = d[s:]
    extrapolated = float(np.sum(x[s - 1] * (tail_d - s) / (s * tail_d) * weights[s:]))
    end = ((x[n - 1] - x[s - 1]) / n + x[s - 1] / s) * p**n
    return float(min(1.0, (1 - p) / p * (seen + extrapolated) + end))


def tau_ap(truth, estimate, *, symmetric: bool = False) -> float:
    r"""The AP rank correlation τ_AP between a reference ordering and an estimated one.

    Parameters
    ----------
    truth : array-like of float
        The reference scores of N items (higher is better), e.g. systems' true means.
    estimate : array-like of float
        The estimated scores of the same N items, in the same order.
    symmetric : bool, default=False
        Average τ_AP(truth, estimate) and τ_AP(estimate, truth) (τ_AP is not symmetric).

    Returns
    -------
    float
        In [-1, 1]; 1 when the two orders agree, -1 when one reverses the other.

    Raises
    ------
    ValueError
        Fewer than two items, different lengths, a non-finite score, or tied scores in
        the vector that is ranked (τ_AP is defined for orders without ties).

    Notes
    -----
    Rank the items by ``estimate``, best first. For the item at rank :math:`i`, let
    :math:`C(i)` be the number of the :math:`i - 1` items above it that ``truth`` also
    places above it. Then (Yilmaz, Aslam and Robertson 2008)

    .. math::

       \tau_{AP} = \frac{2}{N-1} \sum_{i=2}^{N} \frac{C(i)}{i-1} - 1.

    An error near the top costs more than one near the bottom; for uniformly random
    orders its expectation is 0, as Kendall's τ's.

    References
    ----------
    .. [1] E. Yilmaz, J. A. Aslam and S. Robertson, "A new rank correlation coefficient
       for information retrieval", SIGIR 2008.

    Chapter: :doc:`/chapters/12_rank_correlation`.

    Examples
    --------
    >>> from rankeval.stats.similarity import tau_ap
    >>> round(tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), 4)  # the last two swapped: 7/9
    0.7778
    >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 4)  # the first two swapped: 1/3
    0.3333
    """
    x = np.asarray(truth, dtype=np.float64)
    y = np.asarray(estimate, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1 or x.size != y.size:
        raise ValueError(f"truth and estimate must be 1-D of the same length, got shapes "
                         f"{x.shape} and {y.shape}")
    if x.size < 2:
        raise ValueError(f"tau_ap needs at least two items, got {x.size}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("truth and estimate must be finite")
    if symmetric:
        return (_tau_ap(x, y, "estimate") + _tau_ap(y, x, "truth")) / 2
    return _tau_ap(x, y, "estimate")


def _tau_ap(x: np.ndarray, y: np.ndarray, ranked: str) -> float:
    order = np.argsort(-y, kind="stable")
    ys = y[order]
    if np.any(ys[1:] == ys[:-1]):
        raise ValueError(f"{ranked} has tied scores; tau_ap is defined for orders without ties")
    xs = x[order]
    n = x.size
    # C(i): items ranked above i by the estimate that truth also places above i
    above = np.array([np.count_nonzero(xs[:i] > xs[i]) for i in range(1, n)], dtype=np.float64)
    return float(2.0 / (n - 1) * np.sum(above / np.arange(1, n)) - 1.0)


__all__ = ["rank_biased_overlap", "tau_ap"]
