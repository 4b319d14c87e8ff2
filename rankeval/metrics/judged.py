"""Judged@k and trec_eval's unj: the share of the top k that has (or lacks) a judgment;
and the one rule of what "judged" means, which every measure and option reads.

The rule is trec_eval's (``form_res_rels.c``): a document is **judged** when the qrels
give it a grade ``>= 0``. A negative grade (-1, -2, ...) is a document in the pool that
was not judged (trec_eval's ``RELVALUE_UNJUDGED``, the sample left out by infAP's
assessors); a document the qrels do not list (``np.nan`` here, trec_eval's
``RELVALUE_NONPOOL``) is not in the pool. Both are unjudged. ``is_judged`` and
``in_pool_unjudged`` below are that rule; Judged@k, unj, bpref, infAP, trec_eval's RBP
and its residual, num_nonrel_judged_ret, ``judged_only`` (``-J``) and the judged
counts of :class:`rankeval.RankedRun` call them.

Chapter: :doc:`/chapters/15_conventions`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import Declaration, judged_batch, nonempty
from .validation import as_judged_batch, check_k, finish

__all__ = ["judged_at_k"]


def is_judged(grades):
    r"""Which grades are judgments, by trec_eval's rule: a grade ``>= 0``.

    Parameters
    ----------
    grades : array_like of float
        Grades as rankeval holds them: ``np.nan`` for a document the qrels
        do not list, a negative grade for a document in the pool but not
        judged, any other number a judgment.

    Returns
    -------
    ndarray of bool
        True where the grade is ``>= 0``; False for NaN and negative grades.

    Notes
    -----
    trec_eval (``form_res_rels.c``) gives a retrieved document the code
    ``RELVALUE_NONPOOL`` (-1) when the qrels do not list it and
    ``RELVALUE_UNJUDGED`` (-2) when the qrels give it any negative grade; its
    measures test for these codes, never for the grade itself, so every
    negative grade means the same: in the pool, not judged. It counts as
    unjudged for ``unj`` (``m_unjudged.c``), is neither relevant nor judged
    non-relevant for ``bpref`` (``m_bpref.c``), counts in the pooled-unjudged
    term of ``infAP`` (``m_infap.c``), is dropped by ``-J``, is left out of the
    relevant and judged counts (``rel_levels``) and has gain 0.

    Examples
    --------
    >>> from rankeval.metrics.judged import is_judged
    >>> is_judged([2.0, 0.0, -1.0, -2.0, float("nan")]).tolist()
    [True, True, False, False, False]
    """
    return np.asarray(grades, dtype=np.float64) >= 0  # NaN >= 0 is False


def in_pool_unjudged(grades):
    r"""Which grades mark a document in the pool but not judged: a negative grade.

    The part of the unjudged documents (``is_judged`` False) that the qrels
    list; trec_eval's ``RELVALUE_UNJUDGED``, which infAP counts apart from the
    documents outside the pool (``np.nan``).

    Parameters
    ----------
    grades : array_like of float

    Returns
    -------
    ndarray of bool
        True where the grade is negative; False for NaN and grades ``>= 0``.

    Examples
    --------
    >>> from rankeval.metrics.judged import in_pool_unjudged
    >>> in_pool_unjudged([1.0, -1.0, float("nan")]).tolist()
    [False, True, False]
    """
    return np.asarray(grades, dtype=np.float64) < 0  # NaN < 0 is False


def _judged_at_k(grades, lengths, k, divide_by="retrieved"):
    """Kernel: validated ``grades`` (NaN or negative = no judgment, positions past
    ``lengths`` ignored), ``k`` a positive int."""
    top = grades[:, :k]
    inside = np.arange(top.shape[1]) < lengths[:, None]
    judged = (is_judged(top) & inside).sum(axis=1)
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
        document that the qrels do not list. A grade ``>= 0`` counts as
        judged; a negative grade (a document in the pool that nobody judged,
        trec_eval's reading of it) counts as unjudged. A 1-D input is one
        query; a 2-D array or a (possibly ragged) list of lists is one query
        per row.
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
       \sum_{i=1}^{\min(k, n)} \mathbf{1}[g_i \ge 0]

    with :math:`g_i` the grade of the document at rank :math:`i` (none for a
    document the qrels do not list): a negative grade is
    unjudged, as in trec_eval (``m_unjudged.c``, ``-J``, bpref, infAP), which
    reads every negative grade as "in the pool, not judged".

    Names: ir_measures ``Judged@k`` (its ``judged`` provider). trec_eval 9
    has no such measure; trec_eval 10's ``unj`` (``-m unj.10``, printed
    ``unj_10``) is its mirror image, dividing by ``k``:
    ``unj_k = min(k, n) / k - judged_at_k(r, k, divide_by="k")``, negative
    grades included. ir_measures counts every document its qrels list,
    a negative grade included, as judged: on qrels with negative grades its
    ``Judged@k`` is higher than rankeval's by the share of negatively graded
    documents in the top k (equal without negative grades).

    Chapter: :doc:`/chapters/15_conventions`.

    Examples
    --------
    Three of the top four documents are judged (two non-relevant, one relevant):

    >>> from rankeval.metrics.judged import judged_at_k
    >>> nan = float("nan")
    >>> judged_at_k([0, nan, 1, 0, nan], 4)
    0.75

    A negative grade is in the pool but not judged:

    >>> judged_at_k([0, -1, 1, 0], 4)
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


def _score_judged(ranked: RankedBlock, k):
    return nonempty(ranked, lambda r: _judged_at_k(*judged_batch(r), k), 0.0)



def _score_unj(ranked: RankedBlock, k):
    """trec_eval's unj: unjudged documents (not in the qrels, or graded negative) in the
    top k, divided by k."""
    g, n = judged_batch(ranked, k)
    inside = np.arange(g.shape[1]) < n[:, None]
    return (inside & ~is_judged(g)).sum(axis=1) / k


DECLARATIONS = (
    Declaration("Judged", "share of the top k that is judged (Judged@k)", _score_judged,
                judged_at_k, cutoff="required"),
    Declaration("Unj", "share of the top k that is unjudged (k divides)", _score_unj,
                aliases=("unj",), trec_eval_cut="unj", trec_eval_cuts=(5, 10, 20),
                print_order_cut=39, cutoff="required", lower_is_better=True),
)  # fmt: skip
