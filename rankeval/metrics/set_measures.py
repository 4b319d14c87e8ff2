"""Set measures: precision, recall and F over the whole retrieved list, order ignored.

Chapter: :doc:`/chapters/02_precision_recall`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, Param, counts, judged_batch, nonempty
from .validation import as_judged_batch, check_n_relevant, check_real, check_threshold, finish

__all__ = ["set_precision", "set_recall", "set_f"]


def _relevant_retrieved(grades, lengths, threshold):
    inside = np.arange(grades.shape[1]) < lengths[:, None]
    return ((grades >= threshold) & inside).sum(axis=1)


def _set_precision(grades, lengths, threshold):
    """Kernel: validated ``grades`` (NaN / negative = not relevant), ``lengths``."""
    # An empty ranking (length 0) scores 0, as trec_eval's set_P leaves it.
    return _relevant_retrieved(grades, lengths, threshold) / np.maximum(lengths, 1)


def _set_recall(grades, lengths, n_relevant, threshold):
    """Kernel: ``n_relevant`` (n_queries,) ints."""
    found = _relevant_retrieved(grades, lengths, threshold)
    return np.where(n_relevant > 0, found / np.maximum(n_relevant, 1), 0.0)


def _set_f(grades, lengths, n_relevant, beta, threshold):
    """Kernel: trec_eval's set_F with weight ``beta`` (its parameter x)."""
    found = _relevant_retrieved(grades, lengths, threshold)
    precision = found / np.maximum(lengths, 1)
    recall = found / np.maximum(n_relevant, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (beta + 1.0) * precision * recall / (beta * precision + recall)
    return np.where(found > 0, value, 0.0)


def _setup(relevance, threshold):
    batch = as_judged_batch(relevance)
    return batch, check_threshold(threshold)


def set_precision(relevance, *, threshold=1):
    r"""Set precision: the share of relevant documents in the whole retrieved list.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the retrieved documents (order does not matter);
        ``np.nan`` or a negative grade marks a document without judgment,
        counted as not relevant. A 1-D input is one query; a 2-D array or a
        (possibly ragged) list of lists is one query per row.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        Set precision in [0, 1].

    Notes
    -----
    .. math:: \text{SetP} = \frac{|\text{Rel} \cap \text{Ret}|}{|\text{Ret}|}

    Unlike P@k it never pads a short list: trec_eval notes that
    ``-M 50 -m set_P`` differs from ``P.50`` for a run with fewer than 50
    documents.

    Names: trec_eval ``set_P``, ir_measures ``SetP``; parameter ``rel`` =
    ``threshold``.

    Chapter: :doc:`/chapters/02_precision_recall`.

    Examples
    --------
    >>> from rankeval.metrics.set_measures import set_precision
    >>> set_precision([1, 0, 1, 0, 0])
    0.4
    """
    batch, threshold = _setup(relevance, threshold)
    return finish(_set_precision(batch.grades, batch.lengths, threshold), batch)


def set_recall(relevance, *, n_relevant="in_list", threshold=1):
    r"""Set recall: the share of the query's relevant documents that the list retrieves.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the retrieved documents (order does not matter); ``np.nan``
        or a negative grade marks a document without judgment.
    n_relevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        The query's number of relevant documents. ``"in_list"``: those in the
        given list, which makes set recall 1 (or 0); trec_eval counts the
        qrels' relevant documents, so pass that number.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        Set recall in [0, 1]; 0 for a query with no relevant document.

    Notes
    -----
    .. math:: \text{SetR} = \frac{|\text{Rel} \cap \text{Ret}|}{|\text{Rel}|}

    Names: trec_eval ``set_recall``, ir_measures ``SetR``.

    Chapter: :doc:`/chapters/02_precision_recall`.

    Examples
    --------
    >>> from rankeval.metrics.set_measures import set_recall
    >>> set_recall([1, 0, 1, 0, 0], n_relevant=4)
    0.5
    """
    batch, threshold = _setup(relevance, threshold)
    total = check_n_relevant(n_relevant, (batch.grades >= threshold).sum(axis=1), batch)
    return finish(_set_recall(batch.grades, batch.lengths, total, threshold), batch)


def set_f(relevance, *, n_relevant="in_list", beta=1, threshold=1):
    r"""Set F: the weighted harmonic mean of set precision and set recall.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the retrieved documents (order does not matter); ``np.nan``
        or a negative grade marks a document without judgment.
    n_relevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        The query's number of relevant documents (see :func:`set_recall`).
    beta : float, default=1
        Weight of recall against precision, ``>= 0``, *as trec_eval and
        ir_measures define it*: :math:`F = (1 + \beta) P R / (\beta P + R)`.
        This is van Rijsbergen's :math:`F_b` with :math:`\beta = b^2`: the
        textbook :math:`F_2` is ``beta=4``, :math:`F_{0.5}` is ``beta=0.25``.
        ``beta=1`` is F1 in both conventions.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        Set F in [0, 1]; 0 when no relevant document is retrieved.

    Notes
    -----
    .. math:: \text{SetF} = \frac{(1 + \beta)\, P R}{\beta P + R}

    with :math:`P` = :func:`set_precision` and :math:`R` = :func:`set_recall`.

    Names: trec_eval ``set_F`` (``-m set_F.0.5`` sets :math:`\beta`),
    ir_measures ``SetF`` (``SetF(beta=0.5)``, passed to trec_eval unchanged).

    Chapter: :doc:`/chapters/02_precision_recall`.

    References
    ----------
    .. [1] C. J. van Rijsbergen, *Information Retrieval*, 2nd ed., ch. 7,
       Butterworths, 1979.

    Examples
    --------
    Two relevant documents among five retrieved, four relevant in all:
    P = 2/5, R = 1/2.

    >>> from rankeval.metrics.set_measures import set_f
    >>> p, r = 2 / 5, 1 / 2
    >>> set_f([1, 0, 1, 0, 0], n_relevant=4) == 2 * p * r / (p + r)
    True
    """
    batch, threshold = _setup(relevance, threshold)
    beta = check_real(beta, "beta")
    if beta < 0:
        raise ValueError(f"beta must be >= 0, got {beta:g}")
    total = check_n_relevant(n_relevant, (batch.grades >= threshold).sum(axis=1), batch)
    return finish(_set_f(batch.grades, batch.lengths, total, beta, threshold), batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_set_p(ranked: RankedBlock, k, rel):
    return nonempty(ranked, lambda r: _set_precision(*judged_batch(r), rel), 0.0)


def _score_set_r(ranked: RankedBlock, k, rel):
    g, n = judged_batch(ranked)
    return _set_recall(g, n, ranked.n_relevant(rel), rel)


def _score_set_f(ranked: RankedBlock, k, rel, beta=1):
    return nonempty(ranked, lambda r: _set_f(*judged_batch(r), r.n_relevant(rel), beta, rel), 0.0)



def _score_set_map(ranked: RankedBlock, k, rel):
    """trec_eval's set_map: relevant retrieved squared / (retrieved x relevant)."""
    n_ret, hits, n_rel = counts(ranked, k, rel)
    ok = (n_ret > 0) & (n_rel > 0)
    return np.where(ok, hits.astype(np.float64) ** 2 / np.maximum(n_ret * n_rel, 1), 0.0)


def _score_set_relative_p(ranked: RankedBlock, k, rel):
    """trec_eval's set_relative_P: relevant retrieved / min(retrieved, relevant)."""
    n_ret, hits, n_rel = counts(ranked, k, rel)
    ok = (n_ret > 0) & (n_rel > 0)
    return np.where(ok, hits / np.maximum(np.minimum(n_ret, n_rel), 1), 0.0)


def _score_utility(ranked: RankedBlock, k, rel, coefficients=(1, -1, 0, 0)):
    """trec_eval's utility: a rel_ret + b nonrel_ret + c rel_not_ret + d nonrel_not_ret,
    with trec_eval's collection size 0 (it has no -N here)."""
    a, b, c, d = coefficients
    n_ret, hits, n_rel = counts(ranked, k, rel)
    return a * hits + b * (n_ret - hits) + c * (n_rel - hits) + d * (hits - n_ret - n_rel)


DECLARATIONS = (
    Declaration("SetP", "precision of the whole retrieved set", _score_set_p, set_precision,
                params=(REL,), trec_eval="set_P", print_order=30, cutoff="none", binary=True),
    Declaration("SetR", "recall of the whole retrieved set", _score_set_r, set_recall,
                params=(REL,), trec_eval="set_recall", print_order=32, cutoff="none",
                binary=True),
    Declaration("SetF", "F-beta of set precision and recall (default F1)", _score_set_f, set_f,
                params=(REL, Param("beta", "non-negative", 1, "weight of recall (0: precision)",
                                   trec_eval=True)),
                trec_eval="set_F", trec_eval_param="beta", print_order=34, cutoff="none",
                binary=True),
    Declaration("SetMAP", "set map: relevant retrieved squared / (retrieved x relevant)",
                _score_set_map, params=(REL,), aliases=("set_map", "SetAP"), trec_eval="set_map",
                print_order=33, cutoff="none", binary=True),
    Declaration("SetRelP", "relevant retrieved / min(retrieved, relevant)",
                _score_set_relative_p, params=(REL,), aliases=("set_relative_P",),
                trec_eval="set_relative_P", print_order=31, cutoff="none", binary=True),
    Declaration("Utility", "a rel_ret + b nonrel_ret + c rel_missed + d (-ret - rel + rel_ret)",
                _score_utility, params=(REL, Param(
                    "coefficients", "coefficients", (1, -1, 0, 0), "a, b, c, d",
                    trec_eval=True)),
                aliases=("utility",), trec_eval="utility", trec_eval_param="coefficients",
                print_order=17, cutoff="none", binary=True, bounds=(-np.inf, np.inf)),
)  # fmt: skip
