"""Judged@k: the share of the top k that has a relevance judgment.

Chapter: :doc:`/chapters/15_conventions`.
"""

from __future__ import annotations

import numpy as np

from .declaration import Declaration, judged_batch, nonempty
from .validation import as_judged_batch, check_k, finish

__all__ = ["judged_at_k"]


def _judged_at_k(grades, lengths, k, divide_by="retrieved"):
    """Kernel: validated ``grades`` (NaN = no judgment, positions past ``lengths``
    ignored), ``k`` a positive int."""
    top = grades[:, :k]
    inside = np.arange(top.shape[1]) < lengths[:, None]
    judged = (~np.isnan(top) & inside).sum(axis=1)
    denominator = np.minimum(lengths, k) if divide_by == "retrieved" else np.full(len(lengths), k)
    return judged / np.maximum(denominator, 1)  # an empty ranking scores 0


def judged_at_k(relevance, k, *, divide_by="retrieved"):
    r"""Judged@k: the share of the top ``k`` documents that the qrels judge.

    A diagnostic, not a measure of quality: a low Judged@10 warns that the
    other measures of the run treat many of its documents as non-relevant only
    because nobody judged them.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked documents, best-ranked first, ``np.nan`` for a
        document that the qrels do not list. Any other value, a negative grade
        included, counts as judged (the document is in the qrels). A 1-D input
        is one query; a 2-D array or a (possibly ragged) list of lists is one
        query per row.
    k : int
        Cut-off, a positive int.
    divide_by : {"retrieved", "k"}, default="retrieved"
        Denominator when the list is shorter than ``k``. ``"retrieved"``
        divides by ``min(k, n_items)``, as ir_measures does; ``"k"`` counts
        the missing positions as unjudged.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        The share in [0, 1].

    Notes
    -----
    .. math:: \text{Judged@}k = \frac{1}{\min(k, n)}
       \sum_{i=1}^{\min(k, n)} \mathbf{1}[d_i \in \text{qrels}]

    Names: ir_measures ``Judged@k`` (its ``judged`` provider). trec_eval 9
    has no such measure; trec_eval 10's ``unj`` (``-m unj.10``, printed
    ``unj_10``) is its mirror image with two different conventions: a
    negative grade counts as *unjudged*, and it divides by ``k``. Without
    negative grades, ``unj_k = min(k, n) / k - judged_at_k(r, k, divide_by="k")``.

    Chapter: :doc:`/chapters/15_conventions`.

    Examples
    --------
    Three of the top four documents are judged (two non-relevant, one relevant):

    >>> from rankeval.metrics.judged import judged_at_k
    >>> nan = float("nan")
    >>> judged_at_k([0, nan, 1, 0, nan], 4)
    0.75
    >>> judged_at_k([1, nan], 4), judged_at_k([1, nan], 4, divide_by="k")
    (0.5, 0.25)
    """
    batch = as_judged_batch(relevance)
    if k is None:
        raise TypeError("k must be a positive int (Judged@k needs a cut-off), got None")
    k = check_k(k)
    if divide_by not in ("retrieved", "k"):
        raise ValueError(f'divide_by must be "retrieved" or "k", got {divide_by!r}')
    return finish(_judged_at_k(batch.grades, batch.lengths, k, divide_by), batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_judged(ranked, k):
    return nonempty(ranked, lambda r: _judged_at_k(*judged_batch(r), k), 0.0)



def _score_unj(ranked, k):
    """trec_eval's unj: unjudged documents in the top k, divided by k."""
    g, n = judged_batch(ranked, k)
    inside = np.arange(g.shape[1]) < n[:, None]
    return (inside & np.isnan(g)).sum(axis=1) / k


DECLARATIONS = (
    Declaration("Judged", "share of the top k that is judged (Judged@k)", _score_judged,
                judged_at_k, cutoff="required"),
    Declaration("Unj", "share of the top k that is unjudged (k divides)", _score_unj,
                aliases=("unj",), trec_eval_cut="unj", trec_eval_cuts=(5, 10, 20),
                print_order_cut=39, cutoff="required"),
)  # fmt: skip
