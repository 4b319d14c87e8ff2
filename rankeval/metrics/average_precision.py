"""Average precision (AP); MAP is its mean over queries.

Chapter: :doc:`/chapters/04_average_precision`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, Param, relevant
from .portable import row_sum
from .validation import as_batch, check_k, check_n_relevant, check_threshold, finish

__all__ = ["average_precision"]


def average_precision(relevance, k=None, *, n_relevant="in_list", threshold=1,
                      cap_at_k=False):
    r"""Mean of the precisions P@i taken at the ranks i that hold a relevant item.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off (AP@k): only ranks ``1..k`` contribute. ``None`` means the whole
        list; a ``k`` past the end of a list gives the same value as ``None``
        (the missing positions hold no relevant item).
    n_relevant : "in_list", "in_top_k", int or array_like of shape (n_queries,), default="in_list"
        The denominator: how many relevant items the query has in all.

        - ``"in_list"`` (default): the relevant grades of the **whole** given
          list (not cut at ``k``). Right only when the list holds every
          relevant item of the query (a reranker over a complete candidate set).
        - ``"in_top_k"``: the relevant items found in the top ``k``,
          :math:`\sum_{i \le k} \text{rel}(i)`: the formula of *Ranking
          Evaluation* and the AP@k of the *Comprehensive Guide*.
        - an int, or one int per query: the number of items judged relevant
          for the query, retrieved or not (trec_eval's ``map`` and
          ``map_cut``; *Ranking Metrics*, the item-list notebook's code). Must
          not be smaller than the relevant items in the whole given list.

        In an evaluation against judgments (qrels), the qrels' count is the
        right one; see Notes.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.
    cap_at_k : bool, default=False
        Divide by :math:`\min(k, D)` instead of :math:`D`: the recommender MAP@k of
        RecBole (``MAP@k``), Microsoft Recommenders (``map_at_k``) and Spark MLlib
        (``RankingMetrics.meanAveragePrecisionAt(k)``), under which a list that
        fills its top ``k`` with relevant items scores 1 however many relevant
        items the user has. Needs ``k``. In :func:`rankeval.evaluate`:
        ``AP(cap=True)@k``, or ``AP@k`` under the convention
        ``ap_denominator="min(k,R)"`` (the presets ``"recbole"``,
        ``"recommenders"`` and ``"mllib"``; see :class:`rankeval.Conventions`).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        AP in [0, 1]; 0 for a query with no relevant item in the top ``k``
        (trec_eval's convention, and that of the sources' code). The mean of
        the array over queries is MAP (or MAP@k).

    Notes
    -----
    With :math:`\text{rel}(i) = \mathbf{1}[g_i \ge \text{threshold}]` and
    :math:`P(i) = \frac{1}{i}\sum_{j \le i} \text{rel}(j)`,

    .. math:: \text{AP@}k &= \frac{1}{D} \sum_{i=1}^{k} P(i)\,\text{rel}(i), \\
       D &= \begin{cases} \sum_{i=1}^{n} \text{rel}(i) &
       \text{(default } \texttt{in\_list} \text{: relevant items in the list)} \\
       \sum_{i=1}^{k} \text{rel}(i) &
       \text{(} \texttt{in\_top\_k} \text{: relevant items in the top } k) \\
       R_q & \text{(an int: all relevant items of } q)
       \end{cases}

    The denominators agree when every relevant item of the query stands in
    the top ``k``. Otherwise the list's own counts are smaller and AP
    larger: they average precision over the relevant items that were found
    and ignore the ones that were missed, so a list that finds one relevant
    item at rank 1 and misses nine others still scores 1. **In evaluation
    against qrels, pass the qrels' count** (:func:`rankeval.evaluate` does):
    the list alone cannot know what it missed.

    *Which convention where.* trec_eval's ``map`` divides by the number of
    relevant documents in the judgments (qrels) of the query, retrieved or
    not; to match it, pass that number as ``n_relevant``. Its ``map_cut.k``
    truncates the sum at rank ``k`` but still divides by all relevant
    documents, so AP@k there never exceeds ``k / R_q``. The
    *Comprehensive Guide*'s AP@k divides by the relevant items in the top
    ``k`` (``n_relevant="in_top_k"`` here). A third convention (common in
    recommender-system code) divides by :math:`\min(k, R_q)`: ``cap_at_k=True``
    here, ``AP(cap=True)@k`` in :func:`rankeval.evaluate` (or ``AP@k`` with
    ``conventions="recbole"``, ``"recommenders"`` or ``"mllib"``).

    *Each tool's name.* The tools name the two measures so:

    ======================  =====================================  ====================
    tool                    its name of AP@k                       divides by
    ======================  =====================================  ====================
    trec_eval               ``map_cut.k`` (printed ``map_cut_k``)  :math:`R_q`
    ir_measures             ``AP@k``                               :math:`R_q`
    RecBole                 ``MAP@k``                              :math:`\min(k, R_q)`
    Microsoft Recommenders  ``map_at_k``                           :math:`\min(k, R_q)`
    Spark MLlib             ``meanAveragePrecisionAt(k)``          :math:`\min(k, R_q)`
    rankeval                ``AP@k``, ``AP(cap=False)@k``          :math:`R_q`
    rankeval                ``AP(cap=True)@k``                     :math:`\min(k, R_q)`
    ======================  =====================================  ====================

    In rankeval, ``AP@k`` divides by :math:`R_q` (trec_eval's) unless the
    conventions say ``ap_denominator="min(k,R)"``; the spellings with ``cap``
    keep their meaning under every preset. Without a cut-off (MLlib's
    ``meanAveragePrecision``, trec_eval's ``map``) both divide by :math:`R_q`.

    AP equals the area under the precision-recall curve drawn as a step
    function (precision :math:`P(i)` held over each recall step of width
    :math:`1/D`); with ``n_relevant`` = all relevant items, recall runs over
    [0, 1] and the unretrieved items add steps of height 0.

    Chapter: :doc:`/chapters/04_average_precision`.

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval system evaluation", in
       *TREC: Experiment and Evaluation in Information Retrieval*, MIT Press,
       2005 (the ``map`` measure of trec_eval).
    .. [2] C. D. Manning, P. Raghavan and H. Schütze, *Introduction to
       Information Retrieval*, sec. 8.4, Cambridge University Press, 2008.

    Examples
    --------
    Ranking B of *Ranking Evaluation*, relevant at ranks 1, 3, 5:
    AP = (1 + 2/3 + 3/5) / 3.

    >>> from rankeval import average_precision
    >>> average_precision([1, 0, 1, 0, 1])
    0.7556

    AP@5 of the two queries of the *Comprehensive Guide* (relevant at ranks
    1, 3, 4 and at 2, 4, 5), and MAP@5 as their mean:

    >>> two = [[1, 0, 1, 1, 0], [0, 1, 0, 1, 1]]
    >>> ap = average_precision(two, k=5, n_relevant="in_top_k")
    >>> ap
    array([0.8056, 0.5333])
    >>> ap.mean()
    np.float64(0.6694)

    If the query has four relevant items in all, one of them not retrieved:

    >>> average_precision([1, 0, 1, 0, 1], n_relevant=4)
    0.5667
    """
    batch = as_batch(relevance)
    k = check_k(k)
    relevant = batch.grades >= check_threshold(threshold)
    in_top_k = isinstance(n_relevant, str) and n_relevant == "in_top_k"
    total = check_n_relevant("in_list" if in_top_k else n_relevant, relevant.sum(axis=1), batch)

    rel = relevant[:, :k]
    denominator = rel.sum(axis=1) if in_top_k else total
    if not isinstance(cap_at_k, (bool, np.bool_)):
        raise TypeError(f"cap_at_k must be True or False, got {cap_at_k!r}")
    if cap_at_k:
        if k is None:
            raise ValueError("cap_at_k=True divides by min(k, R): give a cut-off k")
        denominator = np.minimum(denominator, k)
    return finish(_average_precision_kernel(rel, denominator), batch)


def _average_precision_kernel(relevant, denominator):
    """Kernel of AP on a validated batch: ``relevant`` (n, k) booleans of the top k,
    ``denominator`` (n,) the relevant count of each query (0 gives AP 0)."""
    ranks = np.arange(1, relevant.shape[1] + 1)
    precision = np.cumsum(relevant, axis=1, dtype=np.float64) / ranks
    summed = row_sum(precision * relevant)  # in rank order: the same for any padding
    return np.where(denominator > 0, summed / np.maximum(denominator, 1), 0.0)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_ap(ranked: RankedBlock, k, rel, cap=None):
    n = ranked.n_relevant(rel)
    if cap:
        if k is None:
            raise ValueError("AP(cap=True) divides by min(k, R): give a cut-off, e.g. "
                             "AP(cap=True)@10")
        n = np.minimum(n, k)
    return _average_precision_kernel(relevant(ranked, k, rel), n)


DECLARATIONS = (
    Declaration("AP", "average precision (mean: MAP), over all relevant documents; with "
                "cap=True over min(k, R): the recommender MAP@k", _score_ap,
                average_precision, params=(REL, Param(
                    "cap", "boolean", None, "divide by min(k, R): the recommender MAP@k "
                    "(RecBole's MAP@k, Microsoft Recommenders' map_at_k, Spark MLlib's "
                    "meanAveragePrecisionAt); default: the conventions' ap_denominator "
                    "(R, trec_eval's map_cut)")),
                aliases=("MAP",), trec_eval="map",
                trec_eval_cut="map_cut",
                trec_eval_cuts=(5, 10, 15, 20, 30, 100, 200, 500, 1000), print_order=5, print_order_cut=27,
                binary=True),
    Declaration("GMAP", "AP, averaged over queries by a geometric mean (values floored at 1e-5)",
                _score_ap, average_precision, params=(REL,), aliases=("gm_map",),
                trec_eval="gm_map", print_order=6, cutoff="none", aggregate="gmean",
                per_query=False, binary=True),
)  # fmt: skip
