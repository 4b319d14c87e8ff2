"""Inferred average precision (infAP), for judgments made on a sample of the pool.

Chapter: :doc:`/chapters/15_conventions`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, judged_batch
from .judged import in_pool_unjudged, is_judged
from .portable import row_sum
from .validation import as_judged_batch, check_n_relevant, check_threshold, finish

__all__ = ["inferred_average_precision"]

INFAP_EPSILON = 1e-5  # trec_eval.h


def _inferred_average_precision(grades, lengths, n_relevant, threshold):
    """Kernel: validated ``grades`` (NaN = not in the pool, negative = pooled but
    unjudged, positions past ``lengths`` ignored), ``n_relevant`` (n_queries,) ints."""
    inside = np.arange(grades.shape[1]) < lengths[:, None]
    relevant = (grades >= threshold) & inside
    nonrelevant = is_judged(grades) & (grades < threshold) & inside
    unjudged = in_pool_unjudged(grades) & inside
    rel_so_far = np.cumsum(relevant, axis=1)  # this document included
    nonrel_so_far = np.cumsum(nonrelevant, axis=1)  # above a relevant document
    unjudged_so_far = np.cumsum(unjudged, axis=1)
    fj = np.arange(grades.shape[1], dtype=np.float64)  # 0-based rank j
    r1 = rel_so_far - 1
    eps = INFAP_EPSILON
    with np.errstate(invalid="ignore", divide="ignore"):
        # Same operations, same order as trec_eval's m_infap.c.
        term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
            (r1 + nonrel_so_far + unjudged_so_far) / fj
        ) * ((r1 + eps) / (r1 + nonrel_so_far + 2 * eps))
    term[:, 0] = 1.0
    # Sequential sum, as trec_eval adds: padding leaves the value unchanged to the bit.
    total = row_sum(np.where(relevant, term, 0.0))
    return np.where(n_relevant > 0, total / np.maximum(n_relevant, 1), 0.0)


def inferred_average_precision(relevance, *, n_relevant, threshold=1):
    r"""Inferred AP (infAP): average precision estimated from a random sample of judgments.

    The judges judged a uniform random sample of the pool. Each relevant
    document retrieved contributes an estimate of the precision at its rank:
    documents ranked above it that are outside the pool count as
    non-relevant, and among the pooled ones, the unjudged are assumed
    relevant in the same proportion as the judged.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked documents, best-ranked first, with trec_eval's
        codes: a grade ``>= 0`` is a judgment; a **negative** grade (``-1`` in
        the qrels) is a document in the pool that was not sampled for
        judgment; ``np.nan`` is a document outside the pool (not in the
        qrels). A 1-D input is one query; a 2-D array or a (possibly ragged)
        list of lists is one query per row.
    n_relevant : "in_list", int or array_like of shape (n_queries,)
        R, the query's number of *judged* relevant documents in the qrels
        (grade ``>= threshold``), retrieved or not. trec_eval does not
        extrapolate R to the unjudged part of the pool. ``"in_list"`` counts
        those of the given list.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        infAP, 0 for a query with no relevant document. It is an estimate: it
        can exceed 1 when many pooled documents are unjudged.

    Notes
    -----
    For the relevant document at 0-based rank :math:`j > 0`, with
    :math:`r` the judged relevant documents ranked above it, :math:`n` the
    judged non-relevant and :math:`u` the pooled but unjudged ones above it,
    and :math:`\epsilon = 10^{-5}`:

    .. math:: E[\text{prec}@(j+1)] = \frac{1}{j+1} + \frac{j}{j+1}
       \cdot \frac{r + n + u}{j} \cdot \frac{r + \epsilon}{r + n + 2\epsilon}

    and 1 at rank 0; infAP is the sum over the retrieved relevant documents,
    divided by R. The first factor is the document itself, the second the
    share of the documents above it that are in the pool, the third the
    smoothed share of relevant ones among the judged (1/2 when none above is
    judged). This is trec_eval's ``m_infap.c`` to the operation.

    *With complete judgments* (no NaN, no negative grade) :math:`r + n = j`
    and infAP equals AP up to the smoothing: each term differs from
    :math:`(r + 1)/(j + 1)` by at most :math:`\epsilon / (j + 1)`, so
    :math:`|\text{infAP} - \text{AP}| \le \epsilon / 2`.

    Names: trec_eval ``infAP`` (9 and 10 agree), ir_measures ``infAP``;
    parameter ``rel`` = ``threshold``. trec_eval's ``-J`` drops the negative
    and unknown documents first; then infAP is the same as AP on the judged
    documents, up to the smoothing.

    Chapter: :doc:`/chapters/15_conventions`.

    References
    ----------
    .. [1] E. Yilmaz and J. A. Aslam, "Estimating average precision with
       incomplete and imperfect judgments", *Proceedings of CIKM 2006*,
       pp. 102-111.

    Examples
    --------
    Relevant at ranks 1 and 3; a document outside the pool at rank 2. R = 2:

    >>> from rankeval.metrics.infap import inferred_average_precision
    >>> nan = float("nan")
    >>> eps = 1e-5
    >>> third = 1 / 3 + (2 / 3) * (1 / 2) * ((1 + eps) / (1 + 2 * eps))
    >>> inferred_average_precision([1, nan, 1], n_relevant=2) == (1 + third) / 2
    True

    With every document judged it is AP (here 1/2 · (1 + 2/3)) to 5 decimals:

    >>> round(inferred_average_precision([1, 0, 1], n_relevant=2), 5)
    0.83333
    """
    batch = as_judged_batch(relevance)
    threshold = check_threshold(threshold)
    total = check_n_relevant(n_relevant, (batch.grades >= threshold).sum(axis=1), batch)
    return finish(_inferred_average_precision(batch.grades, batch.lengths, total, threshold), batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_infap(ranked: RankedBlock, k, rel):
    g, n = judged_batch(ranked)
    return _inferred_average_precision(g, n, ranked.n_relevant(rel), rel)


DECLARATIONS = (
    Declaration("infAP", "inferred AP (Yilmaz and Aslam 2006); AP when judgments are complete",
                _score_infap, inferred_average_precision, params=(REL,), trec_eval="infAP",
                print_order=14, cutoff="none", binary=True),
)  # fmt: skip
