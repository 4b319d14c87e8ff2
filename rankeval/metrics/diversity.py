"""Diversity measures over subtopic judgments: alpha-nDCG and ERR-IA as ndeval computes them.

Chapter: :doc:`/chapters/08_ndcg`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .block import SubtopicBlock
from .declaration import Declaration
from .portable import each, row_sum
from .validation import (
    IN_LIST,
    as_array,
    check_k,
    check_probability,
    check_threshold,
    finish,
    first_non_number,
)

__all__ = ["alpha_ndcg", "err_ia"]

_NORMALIZATIONS = ("ideal", "ideal_ideal")


# --- input ---------------------------------------------------------------------------


def _matrix(x, name):
    """One query's (n_docs, n_subtopics) judgments as float64 (NaN = unjudged)."""
    if isinstance(x, (str, bytes, set, frozenset, dict)) or isinstance(x, numbers.Number):
        raise TypeError(
            f"{name} must be a (n_documents, n_subtopics) array of subtopic grades, "
            f"got {type(x).__name__}"
        )
    arr = as_array(x, name)
    if arr.dtype.kind == "O":  # never text parsed as numbers: see first_non_number
        bad = first_non_number(arr, none_ok=True)
        if bad >= 0:
            raise TypeError(
                f"{name} must contain numbers (subtopic grades), got {arr.flat[bad]!r}"
            )
        arr = arr.astype(np.float64)  # None, like NaN, marks an unjudged document
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must contain numbers (subtopic grades), got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (one row per document, one column per subtopic), got {arr.ndim}-D"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty: it needs at least one document and one subtopic")
    arr = arr.astype(np.float64)
    if np.any(np.isinf(arr)):
        raise ValueError(f"{name} contains infinite grades")
    return arr


def _queries(x, name):
    """(list of per-query matrices, single) from a 2-D, 3-D or list-of-2-D input."""
    if isinstance(x, np.ndarray) and x.dtype.kind != "O":
        if x.ndim == 2:
            return [_matrix(x, name)], True
        if x.ndim == 3:
            if x.shape[0] == 0:
                raise ValueError(f"{name} holds no queries")
            return [_matrix(m, f"{name}[{i}]") for i, m in enumerate(x)], False
        raise ValueError(
            f"{name} must be 2-D (one query: documents x subtopics) or 3-D (many), got {x.ndim}-D"
        )
    if isinstance(x, (list, tuple)):
        if not x:
            raise ValueError(f"{name} is empty")
        first = np.asarray(x[0], dtype=object)
        if first.ndim == 1:  # a list of rows: one query
            return [_matrix(x, name)], True
        return [_matrix(m, f"{name}[{i}]") for i, m in enumerate(x)], False
    return [_matrix(x, name)], True


def _binary(matrices, threshold):
    """Subtopic relevance as 0/1 (ndeval reads any positive judgment as 1)."""
    return [(m >= threshold) for m in matrices]


def _pad(binary, width, n_subtopics):
    out = np.zeros((len(binary), width, n_subtopics), dtype=bool)
    for q, m in enumerate(binary):
        rows = min(width, m.shape[0])
        out[q, :rows, : m.shape[1]] = m[:rows]
    return out


# --- kernels -------------------------------------------------------------------------

# The ideal-ideal normaliser is summed rank by rank for at most this many ranks; past them
# (a deep k with an alpha so small that the sum still grows there) _tail adds the rest.
_EXACT_RANKS = 1 << 22


def _weights(kind, start, stop):
    """Rank weights w(i) of the 0-based ranks start..stop-1.

    ``"dcg"``: ndeval's discount, 1 at rank 0, then log(2) / log(i + 2).
    ``"err"``: the reciprocal rank 1 / (i + 1).
    """
    i = np.arange(start, stop, dtype=np.float64)
    if kind == "err":
        return 1.0 / (i + 1.0)
    w = math.log(2.0) / each(math.log, i + 2.0, np.log)  # the C library's log: every CPU
    if start == 0:
        w[0] = 1.0
    return w


def _novelty_scores(rel, alpha):
    """Per rank, the sum over the subtopics of the document of (1 - alpha)^(times seen).

    ``rel`` (n_queries, depth, n_subtopics) bool. Repeated multiplication and
    sequential sums in subtopic order, as ndeval's C code.
    """
    n_q, depth, m = rel.shape
    gain = np.ones((n_q, m))
    scores = np.zeros((n_q, depth))
    for i in range(depth):
        row = rel[:, i, :]
        scores[:, i] = np.cumsum(np.where(row, gain, 0.0), axis=1)[:, -1] if m else 0.0
        gain = np.where(row, gain * (1.0 - alpha), gain)
    return scores


def _greedy_ideal(rel, alpha, depth):
    """ndeval's greedy ideal ordering of one query's judged documents (first row wins ties)."""
    n, m = rel.shape
    gain = np.ones(m)
    taken = np.zeros(n, dtype=bool)
    order = []
    for _ in range(min(n, depth)):
        score = np.cumsum(np.where(rel, gain, 0.0), axis=1)[:, -1]
        score[taken] = -np.inf
        best = int(np.argmax(score))
        order.append(best)
        taken[best] = True
        gain = np.where(rel[best], gain * (1.0 - alpha), gain)
    return rel[order]


def _unnormalised(rel, alpha, kind):
    """Each query's alpha-DCG (or ERR-IA) over all the ranks of ``rel``, added in rank
    order as ndeval does. Ranks past the end of a list add exactly 0, so this is also
    the value at any deeper k."""
    scores = _novelty_scores(rel, alpha)
    return row_sum(scores * _weights(kind, 0, rel.shape[1])[None, :])


def _ideal_ideal(n_subtopics, alpha, k, kind):
    r"""ndeval's collection-independent normaliser :math:`\sum_{i<k} S (1-\alpha)^i w(i)`
    for each query: the score of a document covering all S subtopics at every rank.

    Summed rank by rank in blocks, in ndeval's order ((1 - alpha)^i by repeated
    multiplication, a running sum), for each distinct S. The terms never grow (to
    rounding), so once the last one is below a quarter of the sum's ulp no later rank
    can change the sum, and the loop stops: the result is the sum over all k ranks, bit
    for bit. With alpha = 0.5 that happens in the first block of 256 ranks, whatever k is.
    """
    counts, per_query = np.unique(n_subtopics, return_inverse=True)
    s = counts.astype(np.float64)[:, None]
    total = np.zeros(len(counts))
    seen = 1.0  # (1 - alpha)^i of the last rank summed
    start, size = 0, 256
    while start < min(k, _EXACT_RANKS):
        stop = min(k, _EXACT_RANKS, start + size)
        steps = np.full(stop - start, 1.0 - alpha)
        if start == 0:
            steps[0] = 1.0
        novelty = np.cumprod(np.concatenate(([seen], steps)))[1:]
        terms = s * novelty[None, :] * _weights(kind, start, stop)[None, :]
        total = np.cumsum(np.concatenate((total[:, None], terms), axis=1), axis=1)[:, -1]
        if np.all(4 * terms[:, -1] < np.spacing(total)):
            return total[per_query]
        seen, start, size = novelty[-1], stop, min(2 * size, 1 << 16)
    if k > start:
        total = total + counts * _tail(seen, 1.0 - alpha, start, k, kind)
    return total[per_query]


def _tail(seen, r, a, k, kind):
    r"""The normaliser's ranks a..k-1 for S = 1, :math:`\sum_{i=a}^{k-1} f(i)` with
    :math:`f(x) = \text{seen} \cdot r^{x-a+1} w(x)`, for a >= 2**22 and r so close to 1
    that the terms still count there.

    f is smooth and varies slowly this deep, so Euler-Maclaurin,
    :math:`\int_a^k f + (f(a) - f(k)) / 2 + (f'(k) - f'(a)) / 12`, is exact to rounding;
    the integral is 30-point Gauss-Legendre on the panels [a 2^j, a 2^(j+1)].
    """
    log_r = np.log(r)

    def f(x):
        w = 1.0 / (x + 1.0) if kind == "err" else np.log(2.0) / np.log(x + 2.0)
        return seen * np.exp((x - a + 1.0) * log_r) * w

    def df(x):  # f'(x) = f(x) (log r + w'(x) / w(x))
        dlog_w = -1.0 / (x + 1.0) if kind == "err" else -1.0 / ((x + 2.0) * np.log(x + 2.0))
        return f(x) * (log_r + dlog_w)

    if k > 2**1000:
        if r == 1.0:
            raise ValueError(
                "k is too large (above 2**1000): with alpha this close to 0 the ideal-ideal "
                "normaliser grows with every rank up to k; pass a k of at most 2**1000"
            )
        k = 2**1000  # r^x underflows to 0 long before (x > 1e19 for any r < 1)
    b = float(k)
    edges = a * 2.0 ** np.arange(int(np.ceil(np.log2(b / a))) + 1)
    edges = np.append(edges[edges < b], b)
    lo, hi = edges[:-1, None], edges[1:, None]
    nodes, node_weights = np.polynomial.legendre.leggauss(30)
    with np.errstate(under="ignore"):
        x = (lo + hi) / 2 + (hi - lo) / 2 * nodes
        # (added in order, not by BLAS: the same value on every CPU)
        integral = row_sum(((hi - lo) / 2 * row_sum(f(x) * node_weights)[:, None]).T)[0]
        return integral + (f(a) - f(b)) / 2 + (df(b) - df(a)) / 12


def _diversity(relevance, k, alpha, judgments, threshold, normalization, kind):
    runs, single = _queries(relevance, "relevance")
    if isinstance(judgments, str):
        if judgments != IN_LIST:
            raise ValueError(
                f'judgments must be "in_list" or the qrels\' subtopic grades, got {judgments!r}'
            )
        ideal_sets = runs
    else:
        ideal_sets, _ = _queries(judgments, "judgments")
        if single and len(ideal_sets) != 1:
            raise ValueError("judgments must be one matrix for one query")
        if len(ideal_sets) != len(runs):
            raise ValueError(
                f"judgments hold {len(ideal_sets)} queries but relevance holds {len(runs)}"
            )
    for q, (r, j) in enumerate(zip(runs, ideal_sets, strict=True)):
        if r.shape[1] != j.shape[1]:
            where = "" if single else f" of query {q}"
            raise ValueError(
                f"relevance{where} has {r.shape[1]} subtopic columns but judgments has "
                f"{j.shape[1]}: both need the query's subtopics in the same columns"
            )
    k = check_k(k)
    if k is None:
        raise TypeError("k must be a positive int (ndeval reports @5, @10, @20), got None")
    alpha = check_probability(alpha, "alpha", low_open=False)
    threshold = check_threshold(threshold)
    if normalization not in _NORMALIZATIONS:
        raise ValueError(f'normalization must be "ideal" or "ideal_ideal", got {normalization!r}')

    run_rel = _binary(runs, threshold)
    judged_rel = _binary(ideal_sets, threshold)
    if ideal_sets is not runs:
        _check_judgments_hold_the_run(run_rel, judged_rel, single)
    m = max(r.shape[1] for r in run_rel)
    n_subtopics = np.array([j.any(axis=0).sum() for j in judged_rel])  # ndeval's actualSubtopics
    # ndeval divides by the ideal-ideal normaliser from depth 2 on, and leaves depth 1 alone.
    norm = _ideal_ideal(n_subtopics, alpha, k, kind) if k > 1 else np.ones(len(runs))

    def normalised(rel):
        # Only the ranks a list fills can add anything: depth min(k, longest list).
        depth = min(k, max(r.shape[0] for r in rel))
        with np.errstate(invalid="ignore", divide="ignore"):
            curve = _unnormalised(_pad(rel, depth, m), alpha, kind) / norm
        return np.where(n_subtopics > 0, curve, 0.0)

    curve = normalised(run_rel)
    if normalization == "ideal_ideal":
        return finish(curve, _Single(single))
    best = normalised([_greedy_ideal(j, alpha, k) for j in judged_rel])
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(curve != 0, curve / best, 0.0)
    return finish(values, _Single(single))


def _check_judgments_hold_the_run(run_rel, judged_rel, single):
    """Refuse judgments with fewer documents relevant to a subtopic than the ranking
    itself holds: they cannot be every judged document of the query (the ranking's
    among them), and their ideal would score below the ranking."""
    for q, (r, j) in enumerate(zip(run_rel, judged_rel, strict=True)):
        in_run, judged = r.sum(axis=0), j.sum(axis=0)
        short = np.flatnonzero(in_run > judged)
        if short.size:
            s = short[0]
            where = "" if single else f" of query {q}"
            raise ValueError(
                f"relevance{where} holds {in_run[s]} documents relevant to subtopic column "
                f"{s} but judgments only {judged[s]}: judgments must hold every judged "
                "document of the query, those of the ranking included"
            )


class _Single:
    """Minimal stand-in for a Batch in :func:`finish`."""

    def __init__(self, single):
        self.single = single


# --- public --------------------------------------------------------------------------


def alpha_ndcg(
    relevance, k=20, *, alpha=0.5, judgments="in_list", threshold=1, normalization="ideal"
):
    r"""alpha-nDCG: nDCG that rewards covering new subtopics, as ndeval computes it.

    Each document's gain is the number of the query's subtopics it is
    relevant to, each discounted by :math:`(1 - \alpha)` for every document
    ranked above it that already covered that subtopic.

    Parameters
    ----------
    relevance : array_like, shape (n_items, n_subtopics), or a 3-D array / list of those
        One row per ranked document (best first), one column per subtopic of
        the query: the document's grade for that subtopic (``np.nan`` or 0:
        not relevant). A 2-D input is one query; a 3-D array or a list of
        2-D arrays (lengths and subtopic counts may differ) is one query each.
    k : int, default=20
        Depth. ndeval reports 5, 10 and 20 and stops at 20; beyond 20 this
        function extends the same formula. The work grows with the lengths of
        the lists, not with ``k``.
    alpha : float, default=0.5
        Redundancy intolerance, in [0, 1): the chance that a document
        relevant to an already covered subtopic adds nothing for it.
    judgments : "in_list" or array_like, default="in_list"
        Every judged document of the query (rows, in any order except for
        ties, see Notes) with the same subtopic columns, to build the ideal
        ranking. ``"in_list"``: the given list itself, right only if it holds
        every relevant document. The subtopics that count are those with at
        least one relevant document here (ndeval's ``actualSubtopics``).
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant to the subtopic
        (pyndeval's ``relevance_level``; ndeval reads any grade ``>= 1``).
    normalization : {"ideal", "ideal_ideal"}, default="ideal"
        ``"ideal"``: divide by the alpha-DCG of ndeval's greedy ideal ranking
        (alpha-nDCG, collection-dependent). ``"ideal_ideal"``: divide by
        :math:`\sum_{i<k} S (1-\alpha)^i / \log_2(i + 2)`, the score of a
        document covering all :math:`S` subtopics at every rank (ndeval's
        alpha-DCG, collection-independent).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        The score; 0 for a query with no relevant document.

    Notes
    -----
    With :math:`c_{j}(i)` the documents above rank :math:`i` (0-based)
    relevant to subtopic :math:`j`:

    .. math:: \alpha\text{-DCG@}k &= \sum_{i=0}^{k-1} \frac{\sum_j \text{rel}_{ij}
       (1 - \alpha)^{c_j(i)}}{\log_2(i + 2)}, \\
       \alpha\text{-nDCG@}k &= \frac{\alpha\text{-DCG@}k}{\alpha\text{-DCG@}k(\text{ideal})}

    Finding the ideal ranking is NP-hard; ndeval builds it greedily, each
    rank taking the document with the largest gain given those above. Ties
    go to the first row of ``judgments``; ndeval gives them to the largest
    document id, so sort the rows by id, descending, to match it exactly.
    ndeval's ``"ideal_ideal"`` value at ``k = 1`` is left undivided (its
    loop starts at rank 2); this function does the same.

    Names: ndeval ``alpha-nDCG@k`` and ``alpha-DCG@k``, ir_measures
    ``alpha_nDCG@k`` and ``alpha_DCG@k`` (parameters ``alpha``, ``rel`` =
    ``threshold``). trec_eval has no diversity measure.

    Chapter: :doc:`/chapters/08_ndcg`.

    References
    ----------
    .. [1] C. L. A. Clarke et al., "Novelty and diversity in information
       retrieval evaluation", *Proceedings of SIGIR 2008*, pp. 659-666.

    Examples
    --------
    Two subtopics. The run shows a document on subtopic 1, another on
    subtopic 1, then one on subtopic 2; the ideal puts subtopic 2 second.

    >>> import numpy as np
    >>> from rankeval.metrics.diversity import alpha_ndcg
    >>> run = [[1, 0], [1, 0], [0, 1]]
    >>> got = alpha_ndcg(run, k=3)
    >>> dcg = 1 + 0.5 / np.log2(3) + 1 / np.log2(4)
    >>> ideal = 1 + 1 / np.log2(3) + 0.5 / np.log2(4)
    >>> bool(np.isclose(got, dcg / ideal))
    True
    """
    return _diversity(relevance, k, alpha, judgments, threshold, normalization, "dcg")


def err_ia(
    relevance, k=20, *, alpha=0.5, judgments="in_list", threshold=1, normalization="ideal_ideal"
):
    r"""ERR-IA: intent-aware expected reciprocal rank, as ndeval computes it.

    ndeval's ERR-IA is alpha-nDCG's novelty-discounted gain with the
    reciprocal rank :math:`1/(i+1)` as discount; with equal subtopic weights
    and a stopping probability :math:`\alpha` for a relevant document it is
    Chapelle et al.'s ERR-IA up to the factor :math:`\alpha / S`, which the
    normalization removes.

    Parameters
    ----------
    relevance : array_like, shape (n_items, n_subtopics), or a 3-D array / list of those
        One row per ranked document (best first), one column per subtopic
        (see :func:`alpha_ndcg`).
    k : int, default=20
        Depth (ndeval: 5, 10, 20).
    alpha : float, default=0.5
        Redundancy intolerance, in [0, 1).
    judgments : "in_list" or array_like, default="in_list"
        The query's judged documents, for the subtopic count and, with
        ``normalization="ideal"``, the ideal ranking (see :func:`alpha_ndcg`).
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant to the subtopic.
    normalization : {"ideal_ideal", "ideal"}, default="ideal_ideal"
        ``"ideal_ideal"``: ndeval's ERR-IA (collection-independent), divided
        by :math:`\sum_{i<k} S (1-\alpha)^i / (i + 1)`. ``"ideal"``: ndeval's
        nERR-IA, divided by the score of the greedy ideal ranking.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        The score; 0 for a query with no relevant document.

    Notes
    -----
    .. math:: \text{ERR-IA@}k = \frac{\sum_{i=0}^{k-1} \frac{1}{i+1}
       \sum_j \text{rel}_{ij} (1-\alpha)^{c_j(i)}}{\sum_{i=0}^{k-1}
       \frac{S (1-\alpha)^i}{i+1}}

    with :math:`S` the subtopics with a relevant document in the judgments.
    As in ndeval, the ``"ideal_ideal"`` value at ``k = 1`` is left
    undivided: it is the number of subtopics the first document covers.

    Names: ndeval ``ERR-IA@k`` and ``nERR-IA@k``; ir_measures ``ERR_IA@k`` and
    ``nERR_IA@k`` (parameter ``rel`` = ``threshold``; alpha fixed at 0.5).

    Chapter: :doc:`/chapters/09_err`.

    References
    ----------
    .. [1] O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected
       reciprocal rank for graded relevance", *Proceedings of CIKM 2009*,
       pp. 621-630.

    Examples
    --------
    Two subtopics, one document covering both at rank 1 and nothing else:

    >>> from rankeval.metrics.diversity import err_ia
    >>> got = err_ia([[1, 1], [0, 0]], k=2)
    >>> got == 2 / (2 + 2 * 0.5 / 2)
    True
    """
    return _diversity(relevance, k, alpha, judgments, threshold, normalization, "err")


# --- declarations: the measures of rankeval.evaluate_diversity ------------------------------


def _subtopic_score(fn, normalization):
    """A block of queries' subtopic matrices (:class:`rankeval.metrics.block.SubtopicBlock`:
    ``runs``, ``judged``, ``alpha``, ``threshold``) -> the values of ``fn``."""

    def score(block: SubtopicBlock, k):
        return np.atleast_1d(
            fn(block.runs, k, alpha=block.alpha, judgments=block.judged,
               threshold=block.threshold, normalization=normalization)
        )  # fmt: skip

    return score


_SUBTOPICS = {"cutoff": "required", "needs": "subtopics"}

DECLARATIONS = (
    Declaration("alpha-nDCG", "alpha-nDCG over subtopics, normalised by the greedy ideal "
                "(ndeval)", _subtopic_score(alpha_ndcg, "ideal"), alpha_ndcg,
                aliases=("alpha_nDCG",), **_SUBTOPICS),
    Declaration("alpha-DCG", "alpha-nDCG with ndeval's collection-independent normaliser",
                _subtopic_score(alpha_ndcg, "ideal_ideal"), alpha_ndcg,
                aliases=("alpha_DCG",), **_SUBTOPICS),
    Declaration("ERR-IA", "intent-aware ERR with ndeval's collection-independent normaliser",
                _subtopic_score(err_ia, "ideal_ideal"), err_ia, aliases=("ERR_IA",),
                **_SUBTOPICS),
    Declaration("nERR-IA", "intent-aware ERR normalised by the greedy ideal (ndeval)",
                _subtopic_score(err_ia, "ideal"), err_ia, aliases=("nERR_IA",), **_SUBTOPICS),
)  # fmt: skip
