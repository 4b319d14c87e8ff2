"""Compatibility (Clarke, Vtyurina and Smucker 2021): how close a ranking is to an ideal one,
measured by rank-biased overlap.

Chapter: :doc:`/chapters/12_rank_correlation`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import Declaration, Param

__all__ = ["compatibility"]


def _rbo_prefix(last: list[int], depth: int, p: float) -> float:
    """Truncated RBO: sum_{d<=depth} p^(d-1) X_d / d over sum_{d<=depth} p^(d-1), where X_d
    counts the shared items whose later position (in either list) is at most d."""
    if depth == 0:
        return 0.0
    shared_by = np.bincount(np.asarray(last, dtype=np.int64), minlength=depth + 1)[1:]
    x = np.cumsum(shared_by[:depth])
    score = normalizer = 0.0
    weight = 1.0
    for d in range(1, depth + 1):  # in order, in Python floats: the same on every CPU
        score += weight * float(x[d - 1]) / d
        normalizer += weight
        weight *= p
    return score / normalizer


def compatibility(grades, ideal, *, p: float = 0.95, normalize: bool = True) -> float:
    r"""Compatibility of one ranking with the ideal ranking of its judgments.

    Parameters
    ----------
    grades : array_like of shape (n,)
        The grades of the ranked documents, best first (NaN or a negative grade:
        unjudged or not relevant).
    ideal : array_like
        Every judged grade of the query (its qrels); the documents graded above 0 form
        the ideal ranking, by grade.
    p : float, default=0.95
        RBO's persistence.
    normalize : bool, default=True
        Divide by the ideal ranking's compatibility with itself.

    Returns
    -------
    float
        In [0, 1].

    Notes
    -----
    The ideal ranking lists the relevant documents by grade; among equal grades, the
    documents the ranking retrieved come first, in its order (ir_measures' rule: by the
    run's score). With :math:`X_d` the documents the two top-:math:`d` prefixes share and
    :math:`D` the longer list's length,

    .. math:: \text{Compat} = \frac{\sum_{d=1}^{D} p^{d-1} X_d / d}{\sum_{d=1}^{D} p^{d-1}},

    divided, when normalised, by the same sum for the ideal ranking against itself.

    References
    ----------
    .. [1] C. L. A. Clarke, A. Vtyurina and M. D. Smucker, "Assessing top-k preferences",
       ACM TOIS 39(3), 2021.

    Chapter: :doc:`/chapters/12_rank_correlation`.

    Examples
    --------
    >>> from rankeval.metrics.compat import compatibility
    >>> round(compatibility([2, 1, 0], [2, 1, 0]), 4)
    1.0
    >>> round(compatibility([0, 1, 2], [2, 1, 0]), 4)
    0.4219
    """
    g = np.asarray(grades, dtype=np.float64)
    j = np.asarray(ideal, dtype=np.float64)
    if g.ndim != 1 or j.ndim != 1:
        raise ValueError("compatibility scores one query: grades and ideal must be 1-D")
    if not (isinstance(p, float | int) and not isinstance(p, bool) and 0 < p < 1):
        raise ValueError(f"p must be a number strictly between 0 and 1, got {p!r}")
    return _one(np.nan_to_num(g, nan=0.0), int(np.count_nonzero(j > 0)),
                np.sort(j[j > 0])[::-1], float(p), bool(normalize))


def _one(g: np.ndarray, n_rel: int, ideal: np.ndarray, p: float, normalize: bool) -> float:
    """One query: ``g`` the ranked grades (unjudged 0), ``ideal`` the relevant grades, sorted."""
    depth = max(g.size, n_rel)
    last, seen = [], {}
    for r, grade in enumerate(g, start=1):
        if grade > 0:
            above = int(np.count_nonzero(ideal > grade))
            seen[grade] = seen.get(grade, 0) + 1
            position = above + seen[grade]
            last.append(max(r, position))
    score = _rbo_prefix(last, depth, p)
    if normalize:
        best = _rbo_prefix(list(range(1, n_rel + 1)), depth, p)
        if best > 0.0:
            score /= best
    return score


def _score_compat(ranked: RankedBlock, k, p=0.95, normalize=True):
    grades = ranked.padded(None, unjudged=0.0)
    ideal = ranked.ideal_grades(None)
    n_rel = ranked.n_relevant(np.nextafter(0.0, 1.0))
    out = np.empty(len(ranked))
    for q in range(len(ranked)):
        g = grades[q, : ranked.lengths[q]]
        best = ideal[q][ideal[q] > 0]
        out[q] = _one(g, int(n_rel[q]), best, float(p), bool(normalize))
    return out


DECLARATIONS = (
    Declaration("Compat", "compatibility: rank-biased overlap with the ideal ranking "
                "(Clarke et al.)", _score_compat,
                params=(Param("p", "probability", 0.95, "RBO's persistence", shown=True),
                        Param("normalize", "boolean", True, "divide by the ideal's own")),
                cutoff="none"),
)  # fmt: skip
