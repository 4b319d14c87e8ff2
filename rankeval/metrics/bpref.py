"""bpref: binary preference, a measure built for incomplete judgments.

Chapter: :doc:`/chapters/15_conventions`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, judged_batch
from .judged import is_judged
from .portable import row_sum
from .validation import as_judged_batch, check_count, check_n_relevant, check_threshold, finish

__all__ = ["bpref"]


def _bpref(grades, lengths, n_relevant, n_nonrelevant, threshold):
    """Kernel: validated ``grades`` (NaN / negative = unjudged, positions past
    ``lengths`` ignored), ``n_relevant`` and ``n_nonrelevant`` (n_queries,) ints."""
    inside = np.arange(grades.shape[1]) < lengths[:, None]
    relevant = (grades >= threshold) & inside
    nonrelevant = is_judged(grades) & (grades < threshold) & inside  # judged non-relevant only
    above = np.cumsum(nonrelevant, axis=1)  # at a relevant position: those ranked above it
    r = n_relevant[:, None].astype(np.float64)
    denominator = np.minimum(n_nonrelevant, n_relevant)[:, None].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(above > 0, 1.0 - np.minimum(above, r) / denominator, 1.0)
    # Sequential sum, as trec_eval adds: padding leaves the value unchanged to the bit.
    total = row_sum(np.where(relevant, term, 0.0))
    return np.where(n_relevant > 0, total / np.maximum(n_relevant, 1), 0.0)


def bpref(relevance, *, n_relevant, n_nonrelevant, threshold=1):
    r"""bpref: how often the judged relevant documents come before judged non-relevant ones.

    Only judged documents count: a document without judgment (``np.nan``,
    or a negative grade) is skipped, neither relevant nor non-relevant. Each
    relevant document retrieved scores 1 minus the share of judged
    non-relevant documents ranked above it, both counted up to
    :math:`\min(R, N)`.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked documents, best-ranked first; ``np.nan`` (or a
        negative grade) for a document without judgment. A 1-D input is one
        query; a 2-D array or a (possibly ragged) list of lists is one query
        per row.
    n_relevant : "in_list", int or array_like of shape (n_queries,)
        R, the query's number of judged relevant documents (grade
        ``>= threshold``) in the qrels, retrieved or not. ``"in_list"`` counts
        those of the given list only. Required: bpref is meant for judgments
        that the list does not cover.
    n_nonrelevant : "in_list", int or array_like of shape (n_queries,)
        N, the query's number of judged non-relevant documents (grade ``>= 0``
        and ``< threshold``) in the qrels. ``"in_list"`` counts those of the
        given list only.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        bpref in [0, 1]; 0 for a query with no relevant document.

    Notes
    -----
    With :math:`n_r` the judged non-relevant documents ranked above the
    relevant document :math:`r`:

    .. math:: \text{bpref} = \frac{1}{R} \sum_{r\ \text{retrieved}}
       \left(1 - \frac{\min(n_r, R)}{\min(N, R)}\right)

    and a term of 1 when :math:`n_r = 0` (even if :math:`N = 0`). This is
    trec_eval's code (``m_bpref.c``), which divides by :math:`\min(N, R)`;
    Buckley and Voorhees' paper writes :math:`1 - |n \text{ ranked higher than }
    r| / R` over the first :math:`R` judged non-relevant documents, the same
    number when :math:`N \ge R`.

    Names: trec_eval ``bpref`` (9 and 10 agree), ir_measures ``Bpref``,
    parameter ``rel`` = ``threshold``. trec_eval's ``-J`` has no effect on it.

    Chapter: :doc:`/chapters/15_conventions`.

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval evaluation with incomplete
       information", *Proceedings of SIGIR 2004*, pp. 25-32.

    Examples
    --------
    Two relevant documents (R = 2) and three judged non-relevant ones (N = 3)
    in the qrels; the run retrieves a non-relevant, an unjudged, a relevant,
    a non-relevant and a relevant document:

    >>> from rankeval.metrics.bpref import bpref
    >>> nan = float("nan")
    >>> value = bpref([0, nan, 1, 0, 1], n_relevant=2, n_nonrelevant=3)
    >>> value == ((1 - 1 / 2) + (1 - 2 / 2)) / 2
    True

    The unjudged document changes nothing; a relevant one not retrieved scores 0:

    >>> bpref([1, 0, nan], n_relevant=2, n_nonrelevant=1)
    0.5
    """
    batch = as_judged_batch(relevance)
    threshold = check_threshold(threshold)
    g = batch.grades
    r = check_n_relevant(n_relevant, (g >= threshold).sum(axis=1), batch)
    found_nonrel = (is_judged(g) & (g < threshold)).sum(axis=1)
    n = check_count(
        n_nonrelevant, found_nonrel, batch, "n_nonrelevant", "judged non-relevant documents"
    )
    return finish(_bpref(g, batch.lengths, r, n, threshold), batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_bpref(ranked: RankedBlock, k, rel):
    g, n = judged_batch(ranked)
    return _bpref(g, n, ranked.n_relevant(rel), ranked.n_judged_nonrelevant(rel), rel)


DECLARATIONS = (
    Declaration("Bpref", "how often judged relevant documents precede judged non-relevant ones",
                _score_bpref, bpref, params=(REL,), aliases=("BPref",), trec_eval="bpref",
                print_order=8, cutoff="none", binary=True),
    Declaration("GMBpref", "Bpref, averaged over queries by a geometric mean (floored at 1e-5)",
                _score_bpref, bpref, params=(REL,), aliases=("gm_bpref",),
                trec_eval="gm_bpref", print_order=15, cutoff="none", aggregate="gmean",
                per_query=False, binary=True),
)  # fmt: skip
