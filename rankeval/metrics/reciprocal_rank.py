"""Reciprocal rank (RR); MRR is its mean over queries.

Chapter: :doc:`/chapters/07_reciprocal_rank`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, relevant
from .validation import as_batch, check_k, check_threshold, finish

__all__ = ["reciprocal_rank"]


def reciprocal_rank(relevance, k=None, *, threshold=1):
    r"""One over the position of the first relevant item in the top ``k``.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off (RR@k): only the first ``k`` positions are searched for a
        relevant item. ``None`` searches the whole list; a ``k`` past the end
        of a list searches the whole list too.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        RR in [0, 1]: 1 when the top item is relevant, ``1/i`` when the first
        relevant item stands at position ``i``, and **0 when no relevant item
        stands in the top** ``k`` (or in the whole list when ``k`` is None).
        The mean of the per-query values is MRR (MRR@k with a cut-off).

    Notes
    -----
    With :math:`\text{rel}(i) = \mathbf{1}[g_i \ge \text{threshold}]`,

    .. math:: \mathrm{RR@}k &= \begin{cases}
              \dfrac{1}{\min\{i \le k : \text{rel}(i) = 1\}} &
              \text{if } \sum_{i=1}^{k} \text{rel}(i) > 0 \\
              0 & \text{otherwise}
              \end{cases} \\
              \mathrm{MRR@}k &= \frac{1}{|Q|} \sum_{q \in Q} \mathrm{RR@}k(q)

    Only the first relevant item counts: the items after it, relevant or not,
    do not change RR. The value 0 for "nothing relevant found" is the
    convention of the sources that handle the case in code and of trec_eval's
    ``recip_rank`` (which searches the whole retrieved list and counts a
    document as relevant when its grade reaches ``relevance_level``, 1 by
    default, as ``threshold`` does here). RR is the first-relevant position
    (:func:`rankeval.first_relevant_position`) turned upside down; the
    reciprocal keeps a single very late hit from dominating the mean.

    Chapter: :doc:`/chapters/07_reciprocal_rank`.

    References
    ----------
    .. [1] P. B. Kantor and E. M. Voorhees, "The TREC-5 confusion track",
       *Information Retrieval* 2(2-3), pp. 165-176, 2000.
    .. [2] E. M. Voorhees, "The TREC-8 question answering track report",
       *Proc. TREC-8*, NIST, 1999.
    .. [3] C. D. Manning, P. Raghavan and H. Schütze, *Introduction to
       Information Retrieval*, ch. 8, Cambridge University Press, 2008.

    Examples
    --------
    Items a to g, b and f relevant (the item-list notebook). The ranking
    c, b, f, a, g, e, d finds b second; b, f, g, c, g, a, e finds it first:

    >>> from rankeval import reciprocal_rank
    >>> reciprocal_rank([0, 1, 1, 0, 0, 0, 0])
    0.5
    >>> reciprocal_rank([1, 1, 0, 0, 0, 0, 0])
    1.0

    The five queries of *Model Evaluation, Part 4*, first relevant item at positions
    3, 1, 2, 4 and 5; their mean is MRR:

    >>> rs = [[0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0],
    ...       [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]]
    >>> reciprocal_rank(rs)
    array([0.33333333, 1.        , 0.5       , 0.25      , 0.2       ])
    >>> mrr = reciprocal_rank(rs).mean()
    >>> bool(mrr == (1 / 3 + 1 + 1 / 2 + 1 / 4 + 1 / 5) / 5), round(float(mrr), 4)
    (True, 0.4567)

    Nothing relevant within the cut-off gives 0:

    >>> reciprocal_rank([0, 0, 0, 1], k=3)
    0.0
    """
    batch = as_batch(relevance)
    k = check_k(k)
    relevant = batch.grades[:, :k] >= check_threshold(threshold)
    return finish(_reciprocal_rank_kernel(relevant), batch)


def _reciprocal_rank_kernel(relevant):
    """Kernel of RR on a validated batch: ``relevant`` (n, k) booleans of the top k."""
    first = relevant.argmax(axis=1) + 1
    return np.where(relevant.any(axis=1), 1.0 / first, 0.0)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_rr(ranked: RankedBlock, k, rel):
    return _reciprocal_rank_kernel(relevant(ranked, k, rel))


DECLARATIONS = (
    Declaration("RR", "reciprocal rank of the first relevant document (mean: MRR)", _score_rr,
                reciprocal_rank, params=(REL,), aliases=("MRR",), trec_eval="recip_rank",
                print_order=9, binary=True),
)  # fmt: skip
