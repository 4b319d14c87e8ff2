"""Hit@k (also called Success@k): is any relevant item in the top k?

Chapter: :doc:`/chapters/03_hit`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, relevant
from .validation import as_batch, check_k, check_threshold, finish

__all__ = ["hit_at_k"]


def hit_at_k(relevance, k=None, *, threshold=1):
    r"""1 if at least one relevant item stands in the top ``k``, else 0.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off; ``None`` means the whole list.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 or 1.0 per query. Its mean over queries is the hit rate (Success@k).

    Notes
    -----
    .. math:: \text{Hit@}k = \mathbf{1}\Big[\sum_{i=1}^{k} \text{rel}(i) > 0\Big]

    Chapter: :doc:`/chapters/03_hit`.

    Examples
    --------
    >>> from rankeval import hit_at_k
    >>> hit_at_k([0, 0, 1, 0], k=2), hit_at_k([0, 0, 1, 0], k=3)
    (0.0, 1.0)
    >>> float(hit_at_k([[0, 1], [0, 0], [1, 0]], k=1).mean())  # hit rate
    0.3333333333333333
    """
    batch = as_batch(relevance)
    k = check_k(k)
    relevant = batch.grades[:, :k] >= check_threshold(threshold)
    return finish(relevant.any(axis=1), batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_success(ranked: RankedBlock, k, rel):
    return (relevant(ranked, k, rel).any(axis=1)).astype(np.float64)


DECLARATIONS = (
    Declaration("Success", "1 if the top k hold a relevant document, else 0", _score_success,
                hit_at_k, params=(REL,), aliases=("Hit", "HitRate", "HR"), trec_eval_cut="success",
                trec_eval_cuts=(1, 5, 10), print_order_cut=29, binary=True),
)  # fmt: skip
