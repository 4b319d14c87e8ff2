"""Rank-biased precision exactly as trec_eval 10 computes it (``rbp``, ``rbp_resid``).

Chapter: :doc:`/chapters/10_rbp`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import Declaration, Param, judged_batch
from .judged import is_judged
from .portable import row_sum
from .validation import as_judged_batch, check_k, check_probability, finish, per_query

__all__ = ["trec_rbp"]


def _powers(p, n):
    """p**0, p**1, ..., p**(n-1) by repeated multiplication, as trec_eval's cur_p."""
    steps = np.full(n, p)
    steps[0] = 1.0
    return np.cumprod(steps)


def _trec_rbp(grades, lengths, k, p, max_grade):
    """Kernel: validated ``grades`` (NaN / negative = unjudged, positions past
    ``lengths`` ignored), ``max_grade`` (n_queries,) floats, each the query's top grade."""
    g = grades if k is None else grades[:, :k]
    inside = np.arange(g.shape[1]) < lengths[:, None]
    judged = is_judged(g) & inside
    top = np.asarray(max_grade, dtype=np.float64)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        gain = np.where(judged, np.where(top > 1, g / top, g), 0.0)
    # Sequential sum, as trec_eval adds: padding leaves the value unchanged to the bit.
    return (1.0 - p) * row_sum(gain * _powers(p, g.shape[1]))


def _trec_rbp_residual(grades, lengths, k, p):
    """Kernel of trec_eval's ``rbp_resid`` (0 when every scored document is judged)."""
    g = grades if k is None else grades[:, :k]
    inside = np.arange(g.shape[1]) < lengths[:, None]
    unjudged = ~is_judged(g) & inside  # NaN (not in the qrels) or negative
    depth = lengths if k is None else np.minimum(lengths, k)
    powers = _powers(p, g.shape[1] + 1)
    residual = powers[depth] + (1.0 - p) * row_sum(unjudged * powers[:-1])
    return np.where(unjudged.any(axis=1), residual, 0.0)


def trec_rbp(relevance, k=None, *, p=0.9, max_grade=None, return_residual=False):
    r"""trec_eval 10's rank-biased precision: graded gains scaled by the query's top grade.

    :func:`rankeval.rbp` takes gains already in [0, 1] and leaves the scaling
    to the caller; this function reproduces trec_eval's ``rbp`` and
    ``rbp_resid`` from raw grades, conventions included.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked documents, best-ranked first; ``np.nan`` (not in
        the qrels) or a negative grade marks a document without judgment,
        whose gain is 0. A 1-D input is one query; a 2-D array or a (possibly
        ragged) list of lists is one query per row.
    k : int or None, default=None
        Depth; ``None`` means the whole list, as in trec_eval (which cuts
        only with ``-M``).
    p : float, default=0.9
        Persistence, in (0, 1). trec_eval's default is 0.9 (``-m rbp.p=0.8``
        changes it); the book's :func:`rankeval.rbp` defaults to 0.8.
    max_grade : float or array_like of shape (n_queries,), optional
        Each query's top grade :math:`G`. trec_eval takes the largest grade
        of the query's qrels, retrieved or not: pass it to match. By default,
        the largest judged grade in the given list (0 if none). Must be
        ``>= 0`` and at least every grade in the list.
    return_residual : bool, default=False
        Also return trec_eval's ``rbp_resid`` (see Notes).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        RBP in [0, 1).
    (rbp, residual) : tuple
        When ``return_residual=True``: both, each a float for one query or a
        1-D array for many.

    Notes
    -----
    With :math:`g_i` the grade at rank :math:`i` (0 if unjudged), depth
    :math:`d = \min(k, n)` and gain :math:`r_i = g_i / G` if :math:`G > 1`
    (binary grades are left as they are):

    .. math:: \text{rbp} = (1 - p) \sum_{i=1}^{d} r_i\, p^{i-1}

    The relevance threshold (``-l``) plays no part. The residual,
    with :math:`U` the unjudged documents among the first :math:`d`:

    .. math:: \text{rbp\_resid} = p^{d} + (1 - p) \sum_{i \in U} p^{i-1}
       \quad \text{if } U \neq \emptyset, \text{ else } 0.

    Differences from the book's :func:`rankeval.rbp`: the scaling by
    :math:`G` above (rbp takes gains); trec_eval's residual also counts the
    unjudged documents of the list, and is 0 (not :math:`p^d`) when every
    document in the list is judged; trec_eval's ``rbp_resid`` **always uses
    p = 0.9**, whatever ``rbp.p`` says, so pass ``p=0.9`` to reproduce it.

    trec_eval's ``m_rbp.c`` finds the smallest and largest gain with
    variables that it never initialises; the code means min = 0 (grade 0 is
    always a level) and max = :math:`G`, which is what this function
    computes. A trec_eval binary may differ where the compiler leaves other
    values there. trec_eval 9 (and pytrec_eval) has no ``rbp``.

    Names: trec_eval 10 ``rbp`` and ``rbp_resid``; ir_measures ``RBP``
    (parameters ``p`` and ``rel``) is computed by other providers without the
    scaling by :math:`G`.

    Chapter: :doc:`/chapters/10_rbp`.

    References
    ----------
    .. [1] A. Moffat and J. Zobel, "Rank-biased precision for measurement of
       retrieval effectiveness", *ACM Transactions on Information Systems*,
       27(1), article 2, 2008.

    Examples
    --------
    Grades 3, 0, 1 with top grade 3: gains 1, 0, 1/3.

    >>> from rankeval.metrics.trec_rbp import trec_rbp
    >>> trec_rbp([3, 0, 1], p=0.5) == 0.5 * (1 + 0.25 / 3)
    True

    An unjudged document at rank 2: the residual is :math:`p^3 + (1 - p) p`.

    >>> unjudged = float("nan")
    >>> value, residual = trec_rbp([1, unjudged, 0], p=0.5, return_residual=True)
    >>> value, residual
    (0.5, 0.375)
    """
    batch = as_judged_batch(relevance)
    k = check_k(k)
    p = check_probability(p, "p")
    if not isinstance(return_residual, (bool, np.bool_)):
        raise TypeError(f"return_residual must be True or False, got {return_residual!r}")
    g = batch.grades
    judged = is_judged(g)
    largest = np.where(judged, g, 0.0).max(axis=1)
    if max_grade is None:
        top = largest
    else:
        top = per_query(max_grade, batch, "max_grade").astype(np.float64)
        if np.any(top < 0):
            raise ValueError(f"max_grade must be >= 0, got {top[top < 0][0]:g}")
        bad = np.flatnonzero(largest > top)
        if bad.size:
            q = bad[0]
            where = "" if batch.single else f" for query {q}"
            raise ValueError(
                f"max_grade{where} is {top[q]:g}, but the list holds the grade "
                f"{largest[q]:g}: the top grade is the largest in the qrels"
            )
    values = finish(_trec_rbp(g, batch.lengths, k, p, top), batch)
    if not return_residual:
        return values
    return values, finish(_trec_rbp_residual(g, batch.lengths, k, p), batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------

_P = Param("p", "probability", 0.9, "persistence", trec_eval=True)


def _score_trec_rbp(ranked: RankedBlock, k, p=0.9):
    g, n = judged_batch(ranked)
    return _trec_rbp(g, n, k, p, ranked.max_judged_grade())


def _score_trec_rbp_resid(ranked: RankedBlock, k, p=0.9):
    g, n = judged_batch(ranked)
    return _trec_rbp_residual(g, n, k, p)


DECLARATIONS = (
    Declaration("trec_rbp", "trec_eval 10's rbp: grades / the query's top grade",
                _score_trec_rbp, trec_rbp, params=(_P,), trec_eval="rbp", trec_eval_param="p",
                print_order=37),
    Declaration("trec_rbp_resid", "trec_eval 10's rbp_resid: rbp's residual",
                _score_trec_rbp_resid, trec_rbp, params=(_P,), trec_eval="rbp_resid",
                trec_eval_param="p", print_order=38),
)  # fmt: skip
