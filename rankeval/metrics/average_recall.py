"""Average recall (AR); MAR is its mean over queries.

Chapter: :doc:`/chapters/05_average_recall`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, nonempty
from .portable import row_sum
from .validation import as_batch, check_k, check_n_relevant, check_threshold, finish

__all__ = ["average_recall"]


def average_recall(relevance, k=None, *, n_relevant="in_list", threshold=1):
    r"""Mean of the recalls R@i taken at the ranks i that hold a relevant item.

    This is the AR of *Ranking Evaluation* (the course text), the recall twin of
    :func:`rankeval.average_precision`. Read the warning in the Notes before
    using it to compare rankings: its value does not depend on where the
    relevant items stand, only on how many of them the top ``k`` holds.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off: only ranks ``1..k`` contribute. ``None`` means the whole list;
        a ``k`` past the end of a list gives the same value as ``None``.
    n_relevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        Denominator of each recall R@i: how many relevant items the query has
        in all. ``"in_list"``: the relevant grades of the whole given list
        (not cut at ``k``), exactly as :func:`rankeval.recall_at_k` counts
        them. An int or one int per query: the number of items judged
        relevant (retrieved or not), which is the right one in an evaluation
        against qrels when the list misses some. Must not be smaller than the
        relevant items in the given list.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        AR in (0, 1] for a query with a relevant item in the top ``k``; 0 for
        a query without one (by convention, as for AP). The mean over queries
        is MAR.

    Notes
    -----
    With :math:`\text{rel}(i) = \mathbf{1}[g_i \ge \text{threshold}]`,
    :math:`R` the number of relevant items of the query and
    :math:`R(i) = \frac{1}{R}\sum_{j \le i} \text{rel}(j)` (recall at rank i),

    .. math:: \text{AR@}k = \frac{\sum_{i=1}^{k} R(i)\,\text{rel}(i)}
       {\sum_{i=1}^{k} \text{rel}(i)}

    which is the definition of *Ranking Evaluation* with the outer
    denominator it gives (the relevant items in the top ``k``).

    *Warning: AR ignores positions.* At the j-th relevant rank the recall is
    exactly :math:`j/R`, wherever that rank lies. With :math:`m` relevant
    items in the top ``k``,

    .. math:: \text{AR@}k = \frac{1}{m}\sum_{j=1}^{m} \frac{j}{R}
       = \frac{m + 1}{2R},

    and with the default ``n_relevant`` (:math:`R = m` when ``k`` is None)
    :math:`\text{AR} = (m+1)/(2m)`: 1 for one relevant item, 3/4 for two,
    falling towards 1/2 as the list holds more. Two rankings with the same
    number of relevant items get the same AR however they are ordered, so
    AR and MAR say nothing about the order within the top ``k``: they are a
    function of two counts, :math:`m` and :math:`R` (see the chapter for the
    derivation and for position-aware alternatives).

    Chapter: :doc:`/chapters/05_average_recall`.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schütze, *Introduction to
       Information Retrieval*, ch. 8, Cambridge University Press, 2008
       (recall at a rank; precision-recall curves).

    Examples
    --------
    *Ranking Evaluation*'s query "neural networks", relevant at
    ranks 1, 3, 5 and 8 (four relevant items in all): the recalls at those
    ranks are 1/4, 2/4, 3/4, 4/4.

    >>> from rankeval import average_recall
    >>> average_recall([1, 0, 1, 0, 1, 0, 0, 1])
    0.625

    Moving every relevant item to the bottom does not change it:

    >>> average_recall([0, 0, 0, 0, 1, 1, 1, 1])
    0.625
    """
    batch = as_batch(relevance)
    k = check_k(k)
    relevant = batch.grades >= check_threshold(threshold)
    total = check_n_relevant(n_relevant, relevant.sum(axis=1), batch)

    rel = relevant[:, :k]
    recall = np.cumsum(rel, axis=1, dtype=np.float64) / np.maximum(total, 1)[:, None]  # R(i), i = 1..k
    summed = row_sum(recall * rel)  # sum of R(i) rel(i), in rank order
    found = rel.sum(axis=1)  # sum of rel(i)
    values = np.where(found > 0, summed / np.maximum(found, 1), 0.0)
    return finish(values, batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_ar(ranked: RankedBlock, k, rel):
    return nonempty(
        ranked,
        lambda r: average_recall(r.padded(k), k, n_relevant=r.n_relevant(rel), threshold=rel),
        0.0,
    )


DECLARATIONS = (
    Declaration("AR", "average recall (mean: MAR)", _score_ar, average_recall, params=(REL,),
                aliases=("MAR",), binary=True),
)  # fmt: skip
