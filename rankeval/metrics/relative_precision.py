"""Relative precision at k: precision over the most a ranking could reach, min(k, R).

Chapter: :doc:`/chapters/02_precision_recall`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, relevant
from .validation import as_batch, check_k, check_n_relevant, check_threshold, finish

__all__ = ["relative_precision"]


def _relative_precision_kernel(relevant, k, n_relevant):
    """Relevant items in the top ``k`` of each row over ``min(k, n_relevant)``."""
    hits = relevant[:, :k].sum(axis=1)
    best = np.minimum(k, n_relevant)
    return np.where(best > 0, hits / np.maximum(best, 1), 0.0)


def relative_precision(relevance, k, *, n_relevant="in_list", threshold=1):
    r"""Precision at ``k`` relative to the best precision a ranking could have at ``k``.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first.
    k : int
        Cut-off.
    n_relevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        The query's number of relevant items, :math:`R` (as in
        :func:`rankeval.recall_at_k`): pass the qrels' count to match trec_eval.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0 for a query with no relevant item.

    Notes
    -----
    .. math:: \mathrm{relP@}k = \frac{\text{hits@}k}{\min(k, R)}

    It is precision at k up to :math:`k = R` and recall from there on:
    trec_eval's ``relative_P``.

    References
    ----------
    .. [1] trec_eval 10, ``m_relative_P.c``.

    Chapter: :doc:`/chapters/02_precision_recall`.

    Examples
    --------
    Two relevant items, both in the top 5: P@5 is 0.4, relative P@5 is 1.

    >>> from rankeval import relative_precision
    >>> relative_precision([1, 0, 1, 0, 0], 5)
    1.0
    """
    batch = as_batch(relevance)
    k = check_k(k)
    if k is None:
        raise TypeError("k must be a positive int: relative precision needs a cut-off")
    rel = batch.grades >= check_threshold(threshold)
    total = check_n_relevant(n_relevant, rel.sum(axis=1), batch)
    return finish(_relative_precision_kernel(rel, k, total), batch)


def _score_relative_p(ranked: RankedBlock, k, rel):
    return _relative_precision_kernel(relevant(ranked, k, rel), k, ranked.n_relevant(rel))


DECLARATIONS = (
    Declaration("RelP", "relative precision: hits in the top k over min(k, R)",
                _score_relative_p, relative_precision, params=(REL,), aliases=("relative_P",),
                trec_eval_cut="relative_P",
                trec_eval_cuts=(5, 10, 15, 20, 30, 100, 200, 500, 1000), print_order_cut=28,
                cutoff="required", binary=True),
)  # fmt: skip
