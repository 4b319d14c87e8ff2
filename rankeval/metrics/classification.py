"""Measures of the classification view of a ranking, as torchmetrics and RecBole offer them:
F1@k, FallOut@k, AUROC, and the normalised cumulative gain NCG@k.

Chapter: :doc:`/chapters/02_precision_recall`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, relevant
from .validation import (
    as_batch,
    as_judged_batch,
    check_count,
    check_k,
    check_n_relevant,
    check_threshold,
    finish,
)

__all__ = ["f1_at_k", "fallout_at_k", "auroc", "group_auc", "ncg_at_k"]


def _f1(hits, k_or_len, total):
    precision = hits / np.maximum(k_or_len, 1)
    recall = hits / np.maximum(total, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 2 * precision * recall / (precision + recall)
    return np.where(hits > 0, value, 0.0)


def f1_at_k(relevance, k=None, *, n_relevant="in_list", threshold=1):
    r"""F1@k: the harmonic mean of precision at ``k`` and recall at ``k``.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best first. A 1-D input is one query; a 2-D array or
        a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off; ``None`` means the whole list (then precision divides by its length).
    n_relevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        The query's number of relevant items, recall's denominator (as in
        :func:`rankeval.recall_at_k`; :func:`rankeval.evaluate` gives the judgments' count).
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0 when the top ``k`` hold no relevant item.

    Notes
    -----
    With :math:`h` the relevant items in the top :math:`k`, :math:`P = h/k` (trec_eval's
    P@k: a shorter list still divides by :math:`k`) and :math:`R = h / |\text{Rel}|`,

    .. math:: F_1@k = \frac{2PR}{P + R} = \frac{2h}{k + |\text{Rel}|}.

    torchmetrics' ``RetrievalFBetaScore`` (beta = 1) and RecBole's ``F1`` compute the same
    harmonic mean. ``SetF`` is F over the whole retrieved set (trec_eval's ``set_F``).

    Chapter: :doc:`/chapters/02_precision_recall`.

    Examples
    --------
    >>> from rankeval.metrics.classification import f1_at_k
    >>> round(f1_at_k([1, 0, 1, 0, 0], k=4, n_relevant=4), 4)  # P = 2/4, R = 2/4
    0.5
    """
    batch = as_batch(relevance)
    k = check_k(k)
    rel = batch.grades >= check_threshold(threshold)
    total = check_n_relevant(n_relevant, rel.sum(axis=1), batch)
    hits = rel[:, :k].sum(axis=1)
    depth = batch.lengths if k is None else np.full(len(batch.lengths), k)
    return finish(_f1(hits, depth, total), batch)


def fallout_at_k(relevance, k=None, *, n_nonrelevant="in_list", threshold=1):
    r"""FallOut@k: the share of a query's judged non-relevant items that the top ``k`` show.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best first; ``np.nan`` or a negative grade marks an
        item without judgment, which is neither relevant nor judged non-relevant.
    k : int or None, default=None
        Cut-off; ``None`` means the whole list.
    n_nonrelevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        How many judged non-relevant items the query has in all (the denominator);
        :func:`rankeval.evaluate` gives the judgments' count.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant; a judged grade below it (0 included)
        is non-relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; lower is better; 0 for a query without judged non-relevant items.

    Notes
    -----
    .. math:: \text{FallOut@}k = \frac{|\{i \le k : 0 \le g_i < t\}|}{|\text{NonRel}|}

    torchmetrics' ``RetrievalFallOut`` divides by the non-relevant items among the
    targets it is given; with every judged item given, that is the same count.

    Chapter: :doc:`/chapters/02_precision_recall`.

    Examples
    --------
    >>> from rankeval.metrics.classification import fallout_at_k
    >>> grades = [1, 0, float("nan"), 0, 1]  # NaN: unjudged
    >>> fallout_at_k(grades, k=3, n_nonrelevant=4)  # one of the 4 shown
    0.25
    """
    batch = as_judged_batch(relevance)
    k = check_k(k)
    t = check_threshold(threshold)
    g = batch.grades
    inside = np.arange(g.shape[1]) < batch.lengths[:, None]
    nonrel = inside & ~np.isnan(g) & (g >= 0) & (g < t)
    total = check_count(n_nonrelevant, nonrel.sum(axis=1), batch, "n_nonrelevant",
                        "judged non-relevant items")
    shown = nonrel[:, :k].sum(axis=1)
    return finish(np.where(total > 0, shown / np.maximum(total, 1), 0.0), batch)


def _auroc(rel, judged_nonrel, lengths):
    """Per query: the share of (relevant, judged non-relevant) pairs ranked in that order."""
    n_rel = rel.sum(axis=1)
    n_non = judged_nonrel.sum(axis=1)
    # for each non-relevant item, the relevant items above it; summed: the ordered pairs
    above = np.cumsum(rel, axis=1) * judged_nonrel
    ordered = above.sum(axis=1)
    pairs = n_rel * n_non
    return np.where(pairs > 0, ordered / np.maximum(pairs, 1), 0.0)


def _judged_classes(relevance, k, threshold):
    """(batch, relevant, judged non-relevant) masks of the top ``k`` of each list."""
    batch = as_judged_batch(relevance)
    k = check_k(k)
    t = check_threshold(threshold)
    g = batch.grades[:, :k]
    inside = np.arange(g.shape[1]) < batch.lengths[:, None]
    judged = inside & ~np.isnan(g) & (g >= 0)
    return batch, judged & (g >= t), judged & (g < t)


def auroc(relevance, k=None, *, threshold=1):
    r"""AUROC of a ranking: how often a relevant item is ranked above a non-relevant one.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best first; ``np.nan`` or a negative grade marks an
        unjudged item, left out of every pair.
    k : int or None, default=None
        Only the top ``k`` items (torchmetrics' ``top_k``); ``None``: the whole list.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant; a judged grade below it is
        non-relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.5 is a random order; 0 when the list has no relevant or no judged
        non-relevant item (torchmetrics' default for an empty target).

    Notes
    -----
    Over the relevant items :math:`R` and the judged non-relevant items :math:`N` of the
    (cut) list,

    .. math:: \text{AUROC} = \frac{|\{(r, n) \in R \times N : \text{pos}(r) < \text{pos}(n)\}|}{|R|\,|N|},

    the area under the ROC curve of the ranking (scikit-learn's ``roc_auc_score`` with
    the positions as scores). Its mean over users with a weight per user is the group
    AUC (GAUC) of recommender papers: :func:`rankeval.group_auc` (RecBole weights a
    user by the number of relevant items).

    Chapter: :doc:`/chapters/02_precision_recall`.

    Examples
    --------
    >>> from rankeval.metrics.classification import auroc
    >>> round(auroc([1, 0, 1, 0]), 4)  # pairs in order: 2 + 1 of 4
    0.75
    """
    batch, rel, nonrel = _judged_classes(relevance, k, threshold)
    return finish(_auroc(rel.astype(np.int64), nonrel.astype(np.int64), batch.lengths),
                  batch)


def group_auc(relevance, k=None, *, threshold=1, weights="relevant"):
    r"""Group AUC (GAUC): the users' AUROC averaged with a weight per user.

    Parameters
    ----------
    relevance : array_like, shape (n_queries, n_items) or list of lists
        One ranked list of grades per user, best first (NaN: unjudged, left out
        of every pair, as in :func:`auroc`).
    k : int or None, default=None
        Only the top ``k`` items of each list; ``None``: the whole list.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant; a judged grade below it is
        non-relevant.
    weights : {"relevant", "judged", "equal"} or array_like, default="relevant"
        A user's weight: the number of relevant items (RecBole's ``GAUC``), the
        number of judged items (the impressions of Zhou et al.'s GAUC), 1 each, or
        one number >= 0 per user.

    Returns
    -------
    float
        :math:`\sum_u w_u \,\mathrm{AUROC}_u / \sum_u w_u` over the users that
        have both a relevant and a judged non-relevant item; NaN (with a warning)
        when no user has both.

    Warns
    -----
    UserWarning
        Naming how many users were left out because their list has no relevant
        or no judged non-relevant item (their AUROC is undefined; RecBole drops
        them the same way).

    Notes
    -----
    With :math:`M_u` relevant and :math:`N_u` judged non-relevant items in user
    :math:`u`'s list,

    .. math:: \mathrm{GAUC} = \frac{\sum_u w_u\,\mathrm{AUROC}_u}{\sum_u w_u},
       \qquad w_u = M_u \text{ (RecBole)}.

    References
    ----------
    .. [1] Zhou et al., "Deep Interest Network for Click-Through Rate Prediction",
       KDD 2018 (GAUC weighted by impressions or clicks).
    .. [2] Zhao et al., "RecBole: Towards a Unified, Comprehensive and Efficient
       Framework for Recommendation Algorithms", CIKM 2021 (``GAUC``).

    Chapter: :doc:`/chapters/02_precision_recall`.

    Examples
    --------
    >>> from rankeval.metrics.classification import group_auc
    >>> round(group_auc([[1, 0, 1, 0], [0, 1]]), 4)  # (0.75 * 2 + 0 * 1) / 3
    0.5
    """
    import warnings

    batch, rel, nonrel = _judged_classes(relevance, k, threshold)
    values = np.atleast_1d(_auroc(rel.astype(np.int64), nonrel.astype(np.int64),
                                  batch.lengths))
    n_rel = rel.sum(axis=1)
    n_non = nonrel.sum(axis=1)
    if isinstance(weights, str):
        choices = {"relevant": n_rel, "judged": n_rel + n_non,
                   "equal": np.ones(len(values))}
        if weights not in choices:
            raise ValueError(f"weights must be one of {sorted(choices)} or one number "
                             f"per user, got {weights!r}")
        w = np.asarray(choices[weights], dtype=np.float64)
    else:
        w = np.asarray(weights, dtype=np.float64).reshape(-1)
        if w.shape != values.shape:
            raise ValueError(f"weights: {len(values)} users need {len(values)} "
                             f"weights, got {w.size}")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("weights must be finite numbers >= 0")
    defined = (n_rel > 0) & (n_non > 0)
    left_out = int((~defined).sum())
    if left_out:
        warnings.warn(f"group_auc: {left_out} of {len(values)} users left out: their "
                      "list has no relevant or no judged non-relevant item",
                      UserWarning, stacklevel=2)
    total = w[defined].sum()
    if total == 0:
        warnings.warn("group_auc: no user with a defined AUROC and a weight > 0",
                      UserWarning, stacklevel=2)
        return float("nan")
    return float((w[defined] * values[defined]).sum() / total)


def ncg_at_k(relevance, k=None, *, ideal=None):
    r"""NCG@k: the cumulative gain of the top ``k`` over the best possible one.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best first, >= 0 (the gain of an item is its grade;
        :func:`rankeval.evaluate` gives an unjudged or negatively graded item gain 0).
    k : int or None, default=None
        Cut-off; ``None`` means the whole list.
    ideal : array_like or list of lists, optional
        Every grade the query's judgments hold (the ideal list); by default the list's
        own grades (:func:`rankeval.evaluate` gives the judgments).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0 for a query without a positive grade.

    Notes
    -----
    .. math:: \text{NCG@}k = \frac{\sum_{i=1}^{k} g_i}{\sum_{i=1}^{k} g^*_i}

    with :math:`g^*` the grades sorted in decreasing order: nDCG without the discount,
    so the order inside the top :math:`k` does not matter.

    Chapter: :doc:`/chapters/08_ndcg`.

    Examples
    --------
    >>> from rankeval.metrics.classification import ncg_at_k
    >>> round(ncg_at_k([0, 2, 1], k=2, ideal=[2, 1, 1, 0]), 4)  # (0 + 2) / (2 + 1)
    0.6667
    """
    batch = as_batch(relevance)
    k = check_k(k)
    g = batch.grades
    inside = np.arange(g.shape[1]) < batch.lengths[:, None]
    gain = np.where(inside, g, 0.0)[:, :k].sum(axis=1)
    if ideal is None:
        best = np.sort(np.where(inside, g, 0.0), axis=1, kind="stable")[:, ::-1]
    else:
        other = as_batch(ideal, "ideal")
        if len(other.lengths) != len(batch.lengths):
            raise ValueError(f"ideal has {len(other.lengths)} queries, relevance "
                             f"{len(batch.lengths)}")
        h = np.where(np.arange(other.grades.shape[1]) < other.lengths[:, None],
                     other.grades, 0.0)
        best = np.sort(h, axis=1, kind="stable")[:, ::-1]
    top = best[:, :k].sum(axis=1)
    return finish(np.where(top > 0, gain / np.where(top > 0, top, 1.0), 0.0), batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_f1(ranked: RankedBlock, k, rel):
    hits = relevant(ranked, k, rel).sum(axis=1)
    depth = ranked.lengths if k is None else np.full(len(ranked), k)
    return _f1(hits, depth, ranked.n_relevant(rel))


def _score_fallout(ranked: RankedBlock, k, rel):
    g = ranked.padded(k, unjudged=np.nan)
    inside = np.arange(g.shape[1]) < (ranked.lengths if k is None
                                      else np.minimum(ranked.lengths, k))[:, None]
    shown = (inside & ~np.isnan(g) & (g >= 0) & (g < rel)).sum(axis=1)
    total = ranked.n_judged_nonrelevant(rel)
    return np.where(total > 0, shown / np.maximum(total, 1), 0.0)


def _score_auroc(ranked: RankedBlock, k, rel):
    g = ranked.padded(k, unjudged=np.nan)
    n = ranked.lengths if k is None else np.minimum(ranked.lengths, k)
    inside = np.arange(g.shape[1]) < n[:, None]
    judged = inside & ~np.isnan(g) & (g >= 0)
    return _auroc((judged & (g >= rel)).astype(np.int64),
                  (judged & (g < rel)).astype(np.int64), n)


def _score_ncg(ranked: RankedBlock, k):
    g = np.maximum(ranked.padded(k), 0.0)
    best = np.maximum(ranked.ideal_grades(k), 0.0)
    top = best.sum(axis=1)
    return np.where(top > 0, g.sum(axis=1) / np.where(top > 0, top, 1.0), 0.0)


DECLARATIONS = (
    Declaration("F1", "harmonic mean of P@k and R@k (torchmetrics, RecBole)", _score_f1,
                f1_at_k, params=(REL,), cutoff="required", binary=True),
    Declaration("FallOut", "share of the judged non-relevant documents in the top k",
                _score_fallout, fallout_at_k, params=(REL,), binary=True,
                lower_is_better=True),
    Declaration("AUROC", "share of (relevant, judged non-relevant) pairs ranked in order",
                _score_auroc, auroc, params=(REL,), binary=True),
    Declaration("NCG", "cumulative gain of the top k over the ideal's (nDCG undiscounted)",
                _score_ncg, ncg_at_k),
)  # fmt: skip
