"""Intent-aware measures over subtopics, as TREC's ndeval computes them: P-IA@k, AP-IA,
subtopic recall, and novelty- and rank-biased precision (NRBP, nNRBP).

Each query's judgments are a (documents x subtopics) matrix; a document is relevant to a
subtopic when its grade there reaches the threshold. The query's subtopics are those with
at least one relevant judged document (ndeval's count).

Chapter: :doc:`/chapters/09_err`.
"""

from __future__ import annotations

import numpy as np

from .block import SubtopicBlock
from .declaration import Declaration

__all__ = ["intent_aware"]


def _relevant(matrix, threshold):
    return np.nan_to_num(matrix, nan=0.0) >= threshold


def _one(run, judged, k, threshold, alpha, beta, which):
    """One query: ``run`` (ranked docs x subtopics), ``judged`` (every judged doc)."""
    j = _relevant(judged, threshold)
    subtopics = np.flatnonzero(j.any(axis=0))
    n = subtopics.size
    if n == 0:
        return 0.0
    r = _relevant(run, threshold)[:, subtopics]
    top = r if k is None else r[:k]
    if which == "P-IA":
        return float(top.sum(axis=0).sum() / (k * n))
    if which == "StRecall":
        return float(top.any(axis=0).sum() / n)
    if which == "AP-IA":
        total = 0.0
        n_rel = j[:, subtopics].sum(axis=0)
        for s in range(n):
            hits = np.cumsum(top[:, s])
            ranks = np.flatnonzero(top[:, s]) + 1
            total += float(np.sum(hits[ranks - 1] / ranks)) / n_rel[s]
        return total / n
    return _nrbp(top, n, alpha, beta)


def _nrbp(top, n, alpha, beta):
    """Clarke et al.'s NRBP of a 0/1 (ranks x subtopics) matrix over ``n`` subtopics."""
    seen = np.zeros(top.shape[1])
    total = 0.0
    weight = 1.0
    for row in top:
        total += weight * float(np.sum(row * (1 - alpha) ** seen))
        seen += row
        weight *= beta
    return (1 - (1 - alpha) * beta) * total / n


def _ideal_nrbp(judged, threshold, alpha, beta):
    """NRBP of ndeval's greedy ideal: at each rank the judged document with the largest
    novelty-discounted gain (ties by the matrix's row order)."""
    j = _relevant(judged, threshold)
    subtopics = np.flatnonzero(j.any(axis=0))
    if subtopics.size == 0:
        return 0.0
    rel = j[:, subtopics].astype(float)
    seen = np.zeros(rel.shape[1])
    left = list(range(rel.shape[0]))
    order = []
    while left:
        gains = [float(np.sum(rel[d] * (1 - alpha) ** seen)) for d in left]
        best = left[int(np.argmax(gains))]
        order.append(best)
        seen += rel[best]
        left.remove(best)
    return _nrbp(rel[order].astype(bool), subtopics.size, alpha, beta)


def intent_aware(run, judged, k=None, *, measure="P-IA", threshold=1, alpha=0.5, beta=0.5):
    r"""An intent-aware measure of one query's ranking, over its subtopics.

    Parameters
    ----------
    run : array_like, shape (n_ranked, n_subtopics)
        Subtopic grades of the ranked documents, best first (NaN: unjudged).
    judged : array_like, shape (n_judged, n_subtopics)
        Subtopic grades of every judged document of the query.
    k : int or None
        Cut-off; P-IA and StRecall need one.
    measure : {"P-IA", "StRecall", "AP-IA", "NRBP", "nNRBP"}, default="P-IA"
    threshold : float, default=1
        A subtopic grade at least this is relevant to the subtopic.
    alpha : float, default=0.5
        NRBP's novelty discount (each earlier document relevant to a subtopic discounts it
        by :math:`1 - \alpha`).
    beta : float, default=0.5
        NRBP's persistence.

    Returns
    -------
    float

    Notes
    -----
    With :math:`S` the query's subtopics (those with a relevant judged document),
    :math:`J(d, s) \in \{0, 1\}` and :math:`C_s(i)` the documents above rank :math:`i`
    relevant to :math:`s`:

    .. math::

       \text{P-IA@}k = \frac{1}{|S|} \sum_{s} \frac{1}{k}\sum_{i \le k} J(d_i, s), \quad
       \text{StRecall@}k = \frac{|\{s : \exists i \le k,\ J(d_i, s)\}|}{|S|},

    AP-IA the mean over :math:`s` of the average precision of the ranking judged by
    :math:`J(\cdot, s)`, and

    .. math:: \text{NRBP} = \frac{1 - (1-\alpha)\beta}{|S|} \sum_i \beta^{i-1}
              \sum_s J(d_i, s) (1-\alpha)^{C_s(i)}

    (Clarke, Kolla and Vechtomova 2009); nNRBP divides by the NRBP of ndeval's greedy
    ideal ranking. A query without a relevant subtopic scores 0 (ndeval prints NaN for
    its nNRBP, the 0/0 of its normaliser).

    Chapter: :doc:`/chapters/09_err`.

    Examples
    --------
    >>> from rankeval.metrics.intent_aware import intent_aware
    >>> run = [[1, 0], [1, 0], [0, 1]]
    >>> judged = [[1, 0], [1, 0], [0, 1], [0, 0]]
    >>> intent_aware(run, judged, 2, measure="StRecall")
    0.5
    >>> round(intent_aware(run, judged, 2, measure="P-IA"), 4)
    0.5
    """
    if measure not in ("P-IA", "StRecall", "AP-IA", "NRBP", "nNRBP"):
        raise ValueError(f"measure must be P-IA, StRecall, AP-IA, NRBP or nNRBP, got {measure!r}")
    if measure in ("P-IA", "StRecall") and k is None:
        raise ValueError(f"{measure} needs a cut-off k")
    run = np.asarray(run, dtype=np.float64)
    judged = np.asarray(judged, dtype=np.float64)
    if run.ndim != 2 or judged.ndim != 2 or run.shape[1] != judged.shape[1]:
        raise ValueError("run and judged must be 2-D with one column per subtopic each")
    value = _one(run, judged, k, threshold, alpha, beta, "NRBP" if measure == "nNRBP" else measure)
    if measure == "nNRBP":
        ideal = _ideal_nrbp(judged, threshold, alpha, beta)
        return value / ideal if ideal > 0 else 0.0
    return value


def _scorer(measure):
    def score(block: SubtopicBlock, k):
        return np.array([intent_aware(r, j, k, measure=measure, threshold=block.threshold,
                                      alpha=block.alpha)
                         for r, j in zip(block.runs, block.judged, strict=True)])

    score.__name__ = f"_score_{measure.replace('-', '_').lower()}"
    return score


DECLARATIONS = (
    Declaration("P-IA", "intent-aware precision: P@k averaged over the subtopics (ndeval)",
                _scorer("P-IA"), aliases=("P_IA",), cutoff="required", needs="subtopics"),
    Declaration("StRecall", "subtopic recall: share of the subtopics the top k cover (ndeval)",
                _scorer("StRecall"), aliases=("strec", "S-recall"), cutoff="required",
                needs="subtopics"),
    Declaration("AP-IA", "intent-aware AP: AP averaged over the subtopics (ndeval's MAP-IA)",
                _scorer("AP-IA"), aliases=("AP_IA", "MAP-IA", "MAP_IA"), cutoff="none",
                needs="subtopics"),
    Declaration("NRBP", "novelty- and rank-biased precision (Clarke et al. 2009; ndeval)",
                _scorer("NRBP"), cutoff="none", needs="subtopics"),
    Declaration("nNRBP", "NRBP over the NRBP of ndeval's greedy ideal ranking",
                _scorer("nNRBP"), cutoff="none", needs="subtopics"),
)  # fmt: skip
