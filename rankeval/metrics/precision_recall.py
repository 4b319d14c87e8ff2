"""Counting metrics: hits@k, precision@k and recall@k.

Chapter: :doc:`/chapters/02_precision_recall`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, relevant
from .validation import as_batch, check_k, check_n_relevant, check_threshold, finish

__all__ = ["hits_at_k", "precision_at_k", "recall_at_k"]


def _relevant(batch, threshold):
    return batch.grades >= check_threshold(threshold)


def _hits(relevant, k):
    """Relevant items among the first ``k`` positions of each row."""
    return relevant[:, :k].sum(axis=1)


def hits_at_k(relevance, k=None, *, threshold=1):
    r"""Number of relevant items among the top ``k`` of a ranking.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off. ``None`` counts the whole list; a ``k`` past the end of a list
        counts the whole list too.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        The count, between 0 and ``min(k, n_items)``.

    Notes
    -----
    .. math:: \text{hits@}k = \sum_{i=1}^{\min(k, n)} \text{rel}(i),
       \qquad \text{rel}(i) = \mathbf{1}[g_i \ge \text{threshold}]

    Chapter: :doc:`/chapters/02_precision_recall`.

    Examples
    --------
    Items b and e are relevant in the ranking a, b, c, d, e (the item-list
    notebook); the top three hold one of them:

    >>> from rankeval import hits_at_k
    >>> hits_at_k([0, 1, 0, 0, 1], k=3)
    1.0
    >>> hits_at_k([[0, 1, 0, 0, 1], [1, 1]], k=3)
    array([1., 2.])
    """
    batch = as_batch(relevance)
    k = check_k(k)
    return finish(_hits(_relevant(batch, threshold), k), batch)


def precision_at_k(relevance, k=None, *, threshold=1, divide_by="k"):
    r"""Fraction of the top ``k`` items that are relevant.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first (see :func:`hits_at_k`).
    k : int or None, default=None
        Cut-off; ``None`` means the whole list (then P = hits / n_items).
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.
    divide_by : {"k", "retrieved"}, default="k"
        Denominator when the list is shorter than ``k``. ``"k"`` (trec_eval, and
        the code of the item-list notebook) treats missing positions as non-relevant;
        ``"retrieved"`` divides by ``min(k, n_items)``, the items actually shown,
        which is what ``np.mean(r[:k])`` in *Model Evaluation, Part 4*
        computes.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        Precision in [0, 1].

    Notes
    -----
    .. math:: P@k = \frac{\text{hits@}k}{k}

    Chapter: :doc:`/chapters/02_precision_recall`.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schütze, *Introduction to
       Information Retrieval*, ch. 8, Cambridge University Press, 2008.

    Examples
    --------
    The *Comprehensive Guide*'s seven documents A to G; the top five hold three
    relevant ones (A, C, G):

    >>> from rankeval import precision_at_k
    >>> precision_at_k([1, 0, 1, 0, 1, 1, 0], k=5) == 3 / 5
    True
    >>> r = [1, 0]  # two items retrieved, k = 4
    >>> precision_at_k(r, k=4), precision_at_k(r, k=4, divide_by="retrieved")
    (0.25, 0.5)
    """
    batch = as_batch(relevance)
    k = check_k(k)
    if divide_by not in ("k", "retrieved"):
        raise ValueError(f'divide_by must be "k" or "retrieved", got {divide_by!r}')
    hits = _hits(_relevant(batch, threshold), k)
    if k is None:
        denominator = batch.lengths
    elif divide_by == "k":
        denominator = np.full(batch.n_queries, k)
    else:
        denominator = np.minimum(batch.lengths, k)
    return finish(hits / denominator, batch)


def recall_at_k(relevance, k=None, *, n_relevant="in_list", threshold=1):
    r"""Fraction of a query's relevant items that the top ``k`` retrieve.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first (see :func:`hits_at_k`).
    k : int or None, default=None
        Cut-off; ``None`` means the whole list.
    n_relevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        How many relevant items the query has in all (the denominator).
        ``"in_list"``: the relevant grades of the **whole** given list (not
        cut at ``k``), which is right only when the list holds every relevant
        item of the query. An int, or one int per query: the true count, as
        trec_eval takes it from the qrels (every item judged relevant,
        retrieved or not). Must not be smaller than the relevant items in the
        list. See Notes.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        Recall in [0, 1]; 0 for a query with no relevant item.

    Notes
    -----
    .. math:: R@k = \frac{\text{hits@}k}{|\text{Rel}_q|}

    *The denominator trap.* A list of grades cannot know which relevant
    items it missed. A recommender that shows 10 items to a user with 7
    held-out items and hits one of them has R@10 = 1/7; its grade list
    ``[0, 1, 0, 0, 0, 0, 0, 0, 0, 0]`` alone gives 1.0 with the default
    ``n_relevant="in_list"``. In any evaluation against judgments (qrels,
    held-out sets), pass the judgments' count, as :func:`rankeval.evaluate`
    does.

    Chapter: :doc:`/chapters/02_precision_recall`.

    Examples
    --------
    In the *Comprehensive Guide*'s example the top five hold three of the four
    relevant documents (A, C, G of A, C, F, G), F being ranked sixth:

    >>> from rankeval import recall_at_k
    >>> recall_at_k([1, 0, 1, 0, 1, 1, 0], k=5) == 3 / 4
    True

    If the list holds only part of the relevant items, say so:

    >>> recall_at_k([1, 0, 1, 0, 1], n_relevant=4)
    0.75

    The recommender trap: one hit among 7 held-out items is not recall 1.

    >>> recall_at_k([0, 1, 0, 0, 0, 0, 0, 0, 0, 0], 10)
    1.0
    >>> recall_at_k([0, 1, 0, 0, 0, 0, 0, 0, 0, 0], 10, n_relevant=7) == 1 / 7
    True
    """
    batch = as_batch(relevance)
    k = check_k(k)
    relevant = _relevant(batch, threshold)
    total = check_n_relevant(n_relevant, relevant.sum(axis=1), batch)
    hits = _hits(relevant, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(total > 0, hits / np.maximum(total, 1), 0.0)
    return finish(values, batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval's default cut-offs of P, recall


def _score_p(ranked: RankedBlock, k, rel):
    hits = _hits(relevant(ranked, k, rel), k)
    if k is not None:
        return hits / k
    n = ranked.lengths
    return np.where(n > 0, hits / np.maximum(n, 1), 0.0)


def _score_r(ranked: RankedBlock, k, rel):
    hits = _hits(relevant(ranked, k, rel), k)
    total = ranked.n_relevant(rel)
    return np.where(total > 0, hits / np.maximum(total, 1), 0.0)


def _score_hits(ranked: RankedBlock, k, rel):
    return relevant(ranked, k, rel).sum(axis=1).astype(np.float64)


DECLARATIONS = (
    Declaration("P", "precision: share of relevant documents in the top k", _score_p,
                precision_at_k, params=(REL,), aliases=("Precision",), trec_eval_cut="P",
                trec_eval_cuts=_CUTS, print_order_cut=11, binary=True),
    Declaration("R", "recall: share of the query's relevant documents in the top k", _score_r,
                recall_at_k, params=(REL,), aliases=("Recall",), trec_eval_cut="recall",
                trec_eval_cuts=_CUTS, print_order_cut=13, binary=True),
    Declaration("Hits", "number of relevant documents in the top k", _score_hits, hits_at_k,
                params=(REL,), binary=True, bounds=(0.0, np.inf)),
)  # fmt: skip
