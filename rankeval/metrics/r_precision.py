"""R-precision: precision at rank R, R being the query's number of relevant documents.

Chapter: :doc:`/chapters/04_average_precision`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, judged_batch
from .validation import as_judged_batch, check_n_relevant, check_threshold, finish

__all__ = ["r_precision"]


def _r_precision(grades, lengths, n_relevant, threshold):
    """Kernel: validated ``grades`` (n_queries, width; NaN or negative = unjudged,
    positions past ``lengths`` ignored), ``n_relevant`` (n_queries,) ints."""
    width = grades.shape[1]
    inside = np.arange(width) < lengths[:, None]
    relevant = (grades >= threshold) & inside
    hits = np.cumsum(relevant, axis=1)
    look = np.minimum(lengths, n_relevant)  # trec_eval's num_to_look_at
    found = hits[np.arange(grades.shape[0]), np.maximum(look, 1) - 1]
    found = np.where(look > 0, found, 0)
    return np.where(n_relevant > 0, found / np.maximum(n_relevant, 1), 0.0)


def r_precision(relevance, *, n_relevant="in_list", threshold=1):
    r"""R-precision: the share of relevant documents among the top R, where R is the
    query's number of relevant documents.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked documents, best-ranked first. ``np.nan`` marks a
        document without judgment (counted as not relevant), as does a
        negative grade. A 1-D input is one query; a 2-D array or a (possibly
        ragged) list of lists is one query per row.
    n_relevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        R, the query's number of relevant documents. ``"in_list"``: the
        relevant grades of the whole given list, right only when the list
        holds every relevant document. trec_eval counts the qrels' documents
        with a grade ``>= threshold``, retrieved or not: pass that number to
        match it. Must not be smaller than the relevant documents in the list.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        R-precision in [0, 1]; 0 for a query with no relevant document.

    Notes
    -----
    With :math:`R` relevant documents and :math:`n` retrieved:

    .. math:: \text{R-prec} = \frac{1}{R} \sum_{i=1}^{\min(R, n)} \mathbf{1}[g_i \ge t]

    A list shorter than :math:`R` is not padded: its missing positions count
    as misses, since the sum stops at :math:`n` but the divisor stays
    :math:`R`. At rank :math:`R` precision equals recall, so R-precision is
    also the recall at :math:`R`.

    Names: trec_eval ``Rprec`` (9 and 10 agree), ir_measures ``Rprec``
    (alias ``RPrec``), parameter ``rel`` = ``threshold``.

    Chapter: :doc:`/chapters/04_average_precision`.

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval system evaluation", in
       *TREC: Experiment and Evaluation in Information Retrieval*, MIT Press,
       2005.

    Examples
    --------
    Four relevant documents, two of them among the top four:

    >>> from rankeval.metrics.r_precision import r_precision
    >>> r_precision([1, 0, 0, 1, 1, 1])
    0.5
    >>> r_precision([1, 0, 0, 1], n_relevant=5)  # R = 5 but only 4 retrieved: 2 / 5
    0.4
    >>> r_precision([[1, 0, 1], [0, float("nan"), 1]], n_relevant=[2, 3])
    array([0.5       , 0.33333333])
    """
    batch = as_judged_batch(relevance)
    threshold = check_threshold(threshold)
    relevant = batch.grades >= threshold
    total = check_n_relevant(n_relevant, relevant.sum(axis=1), batch)
    return finish(_r_precision(batch.grades, batch.lengths, total, threshold), batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_rprec(ranked: RankedBlock, k, rel):
    g, n = judged_batch(ranked)
    return _r_precision(g, n, ranked.n_relevant(rel), rel)



def _score_rprec_mult(ranked: RankedBlock, k, rel):
    """trec_eval's Rprec_mult: precision at rank int(k R + 0.9), 0 where that is 0."""
    n_rel = ranked.n_relevant(rel)
    cut = (k * n_rel + 0.9).astype(np.int64)
    relevant = ranked.padded() >= rel
    hits = np.zeros(len(ranked))
    if relevant.shape[1]:
        seen = np.cumsum(relevant, axis=1)
        at = np.minimum(cut, relevant.shape[1]) - 1
        hits = np.where(at >= 0, seen[np.arange(len(ranked)), np.maximum(at, 0)], 0)
    return np.where(cut > 0, hits / np.maximum(cut, 1), 0.0)


DECLARATIONS = (
    Declaration("Rprec", "precision at rank R, R = the query's relevant count", _score_rprec,
                r_precision, params=(REL,), aliases=("RPrec", "R-Precision"), trec_eval="Rprec",
                print_order=7, cutoff="none", binary=True),
    Declaration("RprecMult", "precision at rank int(m R + 0.9), R the relevant count (@1: Rprec)",
                _score_rprec_mult, params=(REL,), aliases=("Rprec_mult",),
                trec_eval_cut="Rprec_mult",
                trec_eval_cuts=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
                print_order_cut=16, cutoff="multiple", binary=True),
)  # fmt: skip
