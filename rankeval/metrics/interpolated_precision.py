"""Interpolated precision at recall levels, and the 11-point average.

Chapter: :doc:`/chapters/04_average_precision`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, Param, judged_batch
from .validation import as_judged_batch, check_n_relevant, check_real, check_threshold, finish

__all__ = ["interpolated_precision", "eleven_point_average"]

ELEVEN_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_ROUNDINGS = ("nearest", "trec_eval9")


def _cutoffs(levels, n_relevant, rounding):
    """Recall levels turned into numbers of relevant documents, as trec_eval does.

    trec_eval 10: ``lround(level * R)`` (halves away from zero); trec_eval 9 and
    pytrec_eval: ``(long) (level * R + 0.9)`` (``m_iprec_at_recall.c`` and
    ``m_11pt_avg.c`` of 9.0.8). ``level * R`` is the double product in both, as in C;
    ``floor`` is C's truncation of a number >= 0.
    """
    x = levels[None, :] * n_relevant[:, None].astype(np.float64)
    if rounding == "nearest":
        whole = np.floor(x)
        return (whole + (x - whole >= 0.5)).astype(np.int64)
    return np.floor(x + 0.9).astype(np.int64)


def _interpolated_precision(grades, lengths, n_relevant, levels, threshold, rounding="nearest"):
    """Kernel: (n_queries, n_levels) interpolated precision.

    ``grades`` validated (NaN / negative = unjudged, positions past ``lengths``
    ignored), ``n_relevant`` (n_queries,) ints, ``levels`` 1-D floats in [0, 1].
    """
    n_q, width = grades.shape
    positions = np.arange(1, width + 1)
    inside = positions <= lengths[:, None]
    relevant = (grades >= threshold) & inside
    hits = np.cumsum(relevant, axis=1)
    precision = np.where(inside, hits / positions, 0.0)
    # Int_Prec(rank x) = max precision at any rank y >= x (trec_eval's interpolation).
    interpolated = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    found = hits[:, -1]
    cut = _cutoffs(np.asarray(levels, dtype=np.float64), n_relevant, rounding)
    # Rank (0-based) of the cut-th relevant document, by binary search in each row's
    # non-decreasing hit counts (rows shifted apart); cut 0 reads rank 1, the maximum.
    shift = np.arange(n_q)[:, None] * (width + 1)
    at = np.searchsorted((hits + shift).ravel(), (np.maximum(cut, 1) + shift).ravel())
    at = at.reshape(cut.shape) - np.arange(n_q)[:, None] * width
    at = np.where(cut > 0, np.minimum(at, width - 1), 0)
    values = np.take_along_axis(interpolated, at, axis=1)
    return np.where(cut <= found[:, None], values, 0.0)


def _check_rounding(rounding):
    if rounding not in _ROUNDINGS:
        raise ValueError(f'rounding must be "nearest" or "trec_eval9", got {rounding!r}')
    return rounding


def _check_level(level, name="recall_level"):
    level = check_real(level, name)
    if not 0 <= level <= 1:
        raise ValueError(f"{name} must lie in [0, 1], got {level:g}")
    return level


def _prepare(relevance, n_relevant, threshold, rounding):
    batch = as_judged_batch(relevance)
    threshold = check_threshold(threshold)
    total = check_n_relevant(n_relevant, (batch.grades >= threshold).sum(axis=1), batch)
    return batch, total, threshold, _check_rounding(rounding)


def interpolated_precision(
    relevance, recall_level, *, n_relevant="in_list", threshold=1, rounding="nearest"
):
    r"""Interpolated precision at a recall level: the best precision at that recall or beyond.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked documents, best-ranked first; ``np.nan`` (or a
        negative grade) marks a document without judgment, counted as not
        relevant. A 1-D input is one query; a 2-D array or a (possibly
        ragged) list of lists is one query per row.
    recall_level : float
        The recall level :math:`r`, in [0, 1] (0.1 for ``IPrec@0.1``).
    n_relevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        R, the query's number of relevant documents. ``"in_list"``: those in
        the whole given list. trec_eval counts the qrels' relevant documents,
        retrieved or not: pass that number to match it.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant (trec_eval's ``-l``).
    rounding : {"nearest", "trec_eval9"}, default="nearest"
        How the level becomes a number of relevant documents :math:`c`.
        ``"nearest"``: :math:`c = \operatorname{lround}(rR)`, halves away from
        zero (trec_eval 10). ``"trec_eval9"``: :math:`c = \lfloor rR + 0.9
        \rfloor` (trec_eval 9 and earlier, and pytrec_eval). They differ when
        the fractional part of :math:`rR` lies in [0.1, 0.5), e.g. R = 3 at
        level 0.4: c = 1 or 2. Both are computed in doubles, as trec_eval
        does: :math:`rR` is the double product, so at R = 3, level 0.7,
        ``0.7 * 3 + 0.9`` is just below 3 and ``"trec_eval9"`` reads c = 2.
        :func:`rankeval.evaluate` takes the rounding from its conventions
        (``recall_rounding``: ``"trec_eval9"`` under
        ``conventions="pytrec_eval"``) unless the measure names its own.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        Interpolated precision in [0, 1]; 0 when the list holds fewer than
        :math:`c` relevant documents.

    Notes
    -----
    With :math:`P(i)` the precision at rank :math:`i`, :math:`n` the list
    length and :math:`\rho_c` the rank of the :math:`c`-th relevant document:

    .. math:: \text{IPrec}@r = \max_{\rho_c \le i \le n} P(i)

    For :math:`c = 0` (level 0, or a small :math:`rR`) it is the highest
    precision anywhere in the list. This is trec_eval's
    ``iprec_at_recall_r`` (``m_iprec_at_recall.c``); the interpolation takes
    the precision *at or below* the point where recall reaches :math:`r`.

    Names: trec_eval ``iprec_at_recall_0.10`` (``-m iprec_at_recall.0.1``),
    ir_measures ``IPrec@0.1``, parameter ``rel`` = ``threshold``.

    Chapter: :doc:`/chapters/04_average_precision`.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schütze, *Introduction to
       Information Retrieval*, section 8.4, Cambridge University Press, 2008.

    Examples
    --------
    Relevant at ranks 1, 3 and 6, R = 4. Recall 0.5 is c = 2 relevant
    documents, reached at rank 3; the best precision from there on is 2/3:

    >>> from rankeval.metrics.interpolated_precision import interpolated_precision
    >>> ranking = [1, 0, 1, 0, 0, 1]
    >>> interpolated_precision(ranking, 0.5, n_relevant=4) == 2 / 3
    True
    >>> interpolated_precision(ranking, 1.0, n_relevant=4)  # the 4th is never found
    0.0
    """
    batch, total, threshold, rounding = _prepare(relevance, n_relevant, threshold, rounding)
    level = _check_level(recall_level)
    values = _interpolated_precision(
        batch.grades, batch.lengths, total, np.array([level]), threshold, rounding
    )
    return finish(values[:, 0], batch)


def _eleven_point_average(grades, lengths, n_relevant, threshold, rounding="nearest",
                          levels=ELEVEN_LEVELS):
    """Kernel of :func:`eleven_point_average` (same inputs as the precision kernel)."""
    levels = np.array(levels, dtype=np.float64)
    values = _interpolated_precision(grades, lengths, n_relevant, levels, threshold, rounding)
    total = np.zeros(grades.shape[0])
    for j in range(len(levels) - 1, -1, -1):  # trec_eval's order of summation
        total = total + values[:, j]
    return total / len(levels)


def eleven_point_average(relevance, *, n_relevant="in_list", threshold=1, rounding="nearest"):
    r"""The 11-point average: interpolated precision averaged over recall 0, 0.1, ..., 1.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked documents, best-ranked first; ``np.nan`` (or a
        negative grade) marks a document without judgment, counted as not
        relevant.
    n_relevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        R, the query's number of relevant documents (see
        :func:`interpolated_precision`).
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.
    rounding : {"nearest", "trec_eval9"}, default="nearest"
        How each level becomes a number of relevant documents; see
        :func:`interpolated_precision` (trec_eval 10 vs 9 / pytrec_eval; the
        ``recall_rounding`` convention of :func:`rankeval.evaluate`).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        The average, in [0, 1].

    Notes
    -----
    .. math:: \text{11pt\_avg} = \frac{1}{11} \sum_{r \in \{0, 0.1, \ldots, 1\}}
       \text{IPrec}@r

    Like AP, an estimate of the area under the interpolated precision-recall
    curve; trec_eval calls it obsolete, kept to compare with old results.

    Names: trec_eval ``11pt_avg`` (default levels), ir_measures has no name
    for it.

    Chapter: :doc:`/chapters/04_average_precision`.

    Examples
    --------
    One relevant document, at rank 2: every level reads precision 1/2.

    >>> from rankeval.metrics.interpolated_precision import eleven_point_average
    >>> eleven_point_average([0, 1, 0])
    0.5
    """
    batch, total, threshold, rounding = _prepare(relevance, n_relevant, threshold, rounding)
    return finish(
        _eleven_point_average(batch.grades, batch.lengths, total, threshold, rounding), batch
    )


# --- declarations: the measures of rankeval.evaluate this module computes ------------------

# The default None is "the conventions' rounding" (recall_rounding of rankeval.evaluate,
# trec_eval 10's "nearest" unless a preset says otherwise): a measure that names a
# rounding, "nearest" included, keeps it under every preset.
_ROUNDING = Param(
    "rounding",
    "choice",
    None,
    "recall level x R rounded to the nearest "
    "count ('nearest', trec_eval 10) or as trec_eval 9 and pytrec_eval do ('trec_eval9'); "
    "default: the conventions' recall_rounding",
    ("nearest", "trec_eval9"),
    trec_eval=True,
)


def _score_iprec(ranked: RankedBlock, k, rel, rounding=None):
    g, n = judged_batch(ranked)
    rounding = rounding or "nearest"
    return _interpolated_precision(g, n, ranked.n_relevant(rel), [k], rel, rounding)[:, 0]


def _score_11pt(ranked: RankedBlock, k, rel, rounding=None, levels=()):
    rounding = rounding or "nearest"
    g, n = judged_batch(ranked)
    # (with levels: trec_eval's 11pt_avg with its own levels, the mean of iprec at them,
    # added in the same order)
    return _eleven_point_average(g, n, ranked.n_relevant(rel), rel, rounding,
                                 levels or ELEVEN_LEVELS)  # fmt: skip


_LEVELS = Param(
    "levels", "levels", (), "recall levels averaged instead of 0, 0.1, ..., 1 "
    "(trec_eval's 11pt_avg.L1,L2,...)", trec_eval=True,
)


DECLARATIONS = (
    Declaration("IPrec", "interpolated precision at recall level r (IPrec@0.1)", _score_iprec,
                interpolated_precision, params=(REL, _ROUNDING),
                trec_eval_cut="iprec_at_recall",
                trec_eval_cuts=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
                print_order_cut=10, cutoff="recall", binary=True),
    Declaration("11pt_avg", "interpolated precision averaged over recall 0, 0.1, ..., 1",
                _score_11pt, eleven_point_average, params=(REL, _ROUNDING, _LEVELS),
                trec_eval="11pt_avg", trec_eval_param="levels", print_order=18, cutoff="none", binary=True),
)  # fmt: skip
