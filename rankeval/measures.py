"""Measures of :func:`rankeval.evaluate`: one declaration each, names in three spellings.

A measure is written as in ir_measures: a name, optional parameters in
parentheses, an optional cut-off after ``@`` (``"nDCG@10"``, ``"RBP(p=0.9)"``,
``"P(rel=2)@5"``, ``"IPrec@0.1"``). The book's names (MAP, MRR, MAR, GAP, MR,
FRP, ...) are accepted, and so are trec_eval's: ``P_10``, ``ndcg_cut_10``,
``iprec_at_recall_0.10``, ``num_rel_ret``, ... with :func:`rankeval.parse_measure`,
and trec_eval's dotted ``-m`` syntax (``P.5,10``, ``ndcg.0=0,1=1,2=3``,
``all_trec``, ``official``) with :func:`rankeval.parse_trec_eval`.

Every measure is declared once (``DECLARATIONS``): its names, its typed
parameters with their defaults and ranges, how its per-query values
aggregate over queries (mean, or sum for the counts), whether lower is
better, and the function that scores a block of ranked queries (a
:class:`rankeval.RankedRun`) by calling the private kernel of the public
metric function, on a batch that is already validated. The table below and
the command line's ``--help`` are generated from the declarations.

{table}

No default depends on the data. ERR and GAP need the top of the grade scale;
both default to ``max_grade=4``, the 0-4 scale of the TREC Web tracks that
gdeval (the official ERR script) fixes; a grade above it is an error, never a
silent rescaling. So a query's value depends on that query alone.

trec_eval 10's measures of ``all_trec`` are computed, except ``relstring``,
which :func:`rankeval.parse_trec_eval` leaves out of the sets: a string of each
query's top grades, not a number that a table column or a mean could hold.
``G``, ``Rndcg`` and ``ndcg_rel`` (experimental in trec_eval) take no gain map
(trec_eval's ``G.1=3``, gain = grade here); the preference
measures (``-R prefs``), the multiple-judge measures (``-R qrels_jg``) and
z-scores (``-Z``) need inputs that rankeval does not read.
``tests/test_trec_eval_quicktest.py`` lists the lines of trec_eval's own
tests that these leave unmatched. ``utility`` takes trec_eval's default
collection size, 0 (its ``-N`` is not offered), and ``unj`` counts as
unjudged only documents absent from the qrels, where trec_eval also counts
those judged -1 or -2.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import difflib
import math
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Measure",
    "Declaration",
    "Param",
    "DECLARATIONS",
    "parse_measure",
    "parse_measures",
    "parse_trec_eval",
    "trec_eval_name",
    "describe",
]


# --- parameters --------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """A typed measure parameter: name, kind, default and meaning.

    ``kind`` is ``"threshold"`` (a grade > 0), ``"probability"`` (in (0, 1)),
    ``"positive"`` (a number > 0), ``"non-negative"`` (a number >= 0),
    ``"choice"`` (one of ``choices``) or ``"gains"`` (a map grade -> gain).
    """

    name: str
    kind: str
    default: object = None
    doc: str = ""
    choices: tuple = ()
    shown: bool = False  # the default is part of the canonical spelling

    def check(self, value, text):
        def bad(expected):
            return ValueError(
                f"measure {text!r}: parameter {self.name}={value!r} must be {expected}"
            )

        number = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if self.kind == "threshold":
            if not number or not value > 0 or not math.isfinite(value):
                raise bad("a number > 0")
            return value
        if self.kind == "positive":
            if not number or not value > 0 or not math.isfinite(value):
                raise bad("a number > 0")
            return value
        if self.kind == "non-negative":
            if not number or not value >= 0 or not math.isfinite(value):
                raise bad("a number >= 0")
            return value
        if self.kind == "probability":
            if not number or not 0 < value < 1:
                raise bad("a probability in (0, 1)")
            return float(value)
        if self.kind == "choice":
            if value not in self.choices:
                raise bad(" or ".join(map(repr, self.choices)))
            return value
        if self.kind == "gains":
            return _check_gains(value, text)
        if self.kind == "coefficients":
            items = tuple(value) if isinstance(value, (tuple, list)) else (value,)
            if len(items) != 4 or not all(
                isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)
                for x in items
            ):
                raise bad("4 finite numbers a, b, c, d")
            return tuple(_num(x) for x in items)
        if self.kind == "levels":
            items = value if isinstance(value, (tuple, list)) else (value,)
            if not items or not all(
                isinstance(x, numbers.Real) and not isinstance(x, bool) and 0 <= x <= 1
                for x in items
            ):
                raise bad("recall levels in [0, 1]")
            return tuple(float(x) for x in items)
        raise AssertionError(self.kind)  # pragma: no cover


def _check_gains(value, text):
    if isinstance(value, dict):
        value = tuple(value.items())
    try:
        pairs = tuple((float(g), float(v)) for g, v in value)
    except (TypeError, ValueError):
        raise ValueError(
            f"measure {text!r}: gains must map grades to gains, e.g. gains={{0:0,1:1,2:3}}"
        ) from None
    if not all(math.isfinite(g) and math.isfinite(v) for g, v in pairs):
        raise ValueError(f"measure {text!r}: gains must be finite numbers")
    if len({g for g, _ in pairs}) != len(pairs):
        raise ValueError(f"measure {text!r}: gains lists a grade twice")
    negative = sorted(_num(g) for g, v in pairs if g < 0 and v != 0)
    if negative:
        raise ValueError(
            f"measure {text!r}: gains gives a non-zero gain to the negative grade(s) "
            f"{negative}, but a negative grade is judged non-relevant and always has gain "
            "0 (as an unjudged document has); give negative grades gain 0 or leave them out"
        )
    # a grade's default gain is the grade itself (0 for grades <= 0): leave those out
    return tuple(sorted((_num(g), _num(v)) for g, v in pairs if v != max(g, 0.0)))


def _num(x: float):
    return int(x) if float(x).is_integer() else float(x)


# --- declarations ------------------------------------------------------------------------


@dataclass(frozen=True)
class Declaration:
    """Everything :func:`rankeval.evaluate` knows about one measure.

    Attributes
    ----------
    name : str
        ir_measures name (the canonical spelling).
    summary : str
        One line: what the measure means (the ``--help`` text).
    score : callable
        ``score(ranked, k, **settings) -> ndarray``: the values of a block of
        ranked queries (:class:`rankeval.RankedRun`); ``settings`` holds every
        parameter (defaults filled in; ``rel`` resolved from the threshold).
    function : str
        The public rankeval function that computes the measure on grade lists.
    params : tuple of Param
    aliases : tuple of str
        Other accepted names (book and ir_measures variants).
    trec_eval : str or None
        trec_eval's name without a cut-off (``"map"``), if it has the measure.
    trec_eval_cut : str or None
        trec_eval's name of the cut-off family (``"map_cut"``, ``"P"``).
    cutoff : {"optional", "required", "none", "recall", "multiple"}
        What may follow ``@``: a rank cut-off k, (``"recall"``) a recall
        level in [0, 1], or (``"multiple"``) a multiple of R, a number >= 0.
    aggregate : {"mean", "sum", "gmean"}
        How per-query values combine over queries (trec_eval sums the counts;
        ``"gmean"``: trec_eval's geometric mean, each value floored at
        :data:`GM_FLOOR`, of gm_map and gm_bpref).
    lower_is_better : bool
    binary : bool
        Uses the relevance threshold (``rel`` parameter / ``threshold``).
    integer : bool
        Per-query values are whole counts (int64 columns).
    """

    name: str
    summary: str
    score: Callable = field(repr=False)
    function: str = ""
    params: tuple = ()
    aliases: tuple = ()
    trec_eval: str | None = None
    trec_eval_cut: str | None = None
    cutoff: str = "optional"
    aggregate: str = "mean"
    lower_is_better: bool = False
    binary: bool = False
    integer: bool = False

    def param(self, name):
        return next((p for p in self.params if p.name == name), None)


# --- scoring functions: a block of ranked queries -> values -----------------------------


def _rel(ranked, k, t):
    """Boolean (n, width) relevance of the top k."""
    return ranked.padded(k) >= t


def _score_p(ranked, k, rel):
    from .precision_recall import _hits

    hits = _hits(_rel(ranked, k, rel), k)
    if k is not None:
        return hits / k
    n = ranked.lengths
    return np.where(n > 0, hits / np.maximum(n, 1), 0.0)


def _score_r(ranked, k, rel):
    from .precision_recall import _hits

    hits = _hits(_rel(ranked, k, rel), k)
    total = ranked.n_relevant(rel)
    return np.where(total > 0, hits / np.maximum(total, 1), 0.0)


def _score_success(ranked, k, rel):
    return (_rel(ranked, k, rel).any(axis=1)).astype(np.float64)


def _score_hits(ranked, k, rel):
    return _rel(ranked, k, rel).sum(axis=1).astype(np.float64)


def _score_ap(ranked, k, rel):
    from .average_precision import _average_precision_kernel

    return _average_precision_kernel(_rel(ranked, k, rel), ranked.n_relevant(rel))


def _score_rr(ranked, k, rel):
    from .reciprocal_rank import _reciprocal_rank_kernel

    return _reciprocal_rank_kernel(_rel(ranked, k, rel))


def _gain_function(gain, gains):
    if gains:
        table = dict(gains)

        def mapped(g):
            g = np.asarray(g, dtype=np.float64)
            out = np.where(g > 0, g, 0.0)  # unlisted grades: the grade itself
            for grade, value in table.items():
                out = np.where(g == grade, value, out)
            return out

        return mapped
    if gain == "exponential":
        return lambda g: 2.0 ** np.asarray(g, dtype=np.float64) - 1.0
    return None


def _gain_matrix(ranked, k, gain, gains):
    top = ranked.padded(k)
    if not gains:
        fn = _gain_function(gain, gains)
        return top if fn is None else fn(top)
    # a gain map reads unjudged (NaN) and negative grades as gain 0, as trec_eval does
    raw = ranked.padded(k, unjudged=np.nan)
    out = _gain_function(gain, gains)(np.where(np.isnan(raw), -1.0, raw))
    return np.where(np.isnan(raw), 0.0, out)


def _averaged(ranked, k, gains_matrix):
    """ties="average": every member of a group of equal scores gets the group's mean gain."""
    groups = ranked.tie_groups_padded()
    full = gains_matrix
    cells = groups.ravel()
    real = cells >= 0
    sums = np.bincount(cells[real], weights=full.ravel()[real])
    sizes = np.bincount(cells[real])
    out = np.zeros(full.size)
    out[real] = (sums / np.maximum(sizes, 1))[cells[real]]
    out = out.reshape(full.shape)
    return out if k is None else out[:, :k]


def _dcg_values(ranked, k, gain, gains):
    from .dcg import _dcg_kernel

    if ranked.tie_groups is not None:
        gm = _averaged(ranked, k, _gain_matrix(ranked, None, gain, gains))
    else:
        gm = _gain_matrix(ranked, k, gain, gains)
    return _dcg_kernel(gm)


def _score_dcg(ranked, k, gain="linear", gains=()):
    return _dcg_values(ranked, k, gain, gains)


def _score_ndcg(ranked, k, gain="linear", gains=()):
    from .dcg import _dcg_kernel

    value = _dcg_values(ranked, k, gain, gains)
    ideal = _dcg_kernel(ranked.ideal_grades(k, gain=_gain_function(gain, gains)))
    return np.where(ideal > 0, value / np.where(ideal > 0, ideal, 1.0), 0.0)


def _check_scale(ranked, k, c, what):
    top = ranked.padded(k)
    if top.size and top.max() > c:
        raise ValueError(
            f"{what}: a grade of {top.max():g} is above max_grade={c:g}; give the top of "
            f"your grade scale, e.g. {what.split('(')[0]}(max_grade={top.max():g})"
        )
    return top


def _score_err(ranked, k, max_grade=4):
    from .err import _err_kernel

    top = _check_scale(ranked, k, max_grade, "ERR")
    return _err_kernel(2.0 ** (top - max_grade) - 2.0**-max_grade, p=1.0)


def _score_rbp(ranked, k, p=0.8, rel=1, max_grade=None):
    from .rbp import _rbp_kernel

    if max_grade is None:
        gains = _rel(ranked, k, rel).astype(np.float64)
    else:
        gains = _check_scale(ranked, k, max_grade, "RBP") / max_grade
    return _rbp_kernel(gains, p)


def _score_ar(ranked, k, rel):
    from .average_recall import average_recall

    return _nonempty(
        ranked,
        lambda r: average_recall(r.padded(k), k, n_relevant=r.n_relevant(rel), threshold=rel),
        0.0,
    )


def _score_gap(ranked, k, max_grade=4):
    from .graded_average_precision import _gap_over_pool

    c = int(max_grade)
    if c != max_grade:
        raise ValueError(f"GAP: max_grade must be a whole number, got {max_grade:g}")

    def f(r):
        top = _check_scale(r, None, c, "GAP")
        # the denominator counts the documents that define relevant counts, as AP's
        # does: every judged one (ideal="judged": unretrieved ones too; a grade above c
        # or a fractional one is refused, as the ranked grades are), or every ranked
        # one, not only the top k (ideal="retrieved"); summed per document, not as
        # grade_counts' (queries, c) matrix, so a large c costs nothing
        pool, query = r._checked_pool(c, "GAP")
        return _gap_over_pool(top, k, c, pool, query)

    return _nonempty(ranked, f, 0.0)


def _positions(ranked, k, rel, fn):
    def f(r):
        return fn(r, r.ragged() if k is None else r.padded(k))

    empty_value = np.nan if k is None else k + 1.0
    return _nonempty(ranked, f, empty_value)


def _score_mr(ranked, k, rel):
    from .rank_position import mean_rank

    return _positions(
        ranked, k, rel, lambda r, g: mean_rank(g, k, threshold=rel, n_relevant=r.n_relevant(rel))
    )


def _score_frp(ranked, k, rel):
    from .rank_position import first_relevant_position

    return _positions(ranked, k, rel, lambda r, g: first_relevant_position(g, k, threshold=rel))


def _nonempty(ranked, fn, empty_value):
    """Apply ``fn`` to the queries with a ranking; the others get ``empty_value``."""
    n = ranked.lengths
    out = np.full(len(ranked), empty_value, dtype=np.float64)
    if np.all(n > 0):
        return np.asarray(fn(ranked), dtype=np.float64)
    # queries without a ranking (missing="zero", judged_only) form blocks of their own
    start = 0
    for i in range(len(n) + 1):
        if i == len(n) or (n[i] == 0) != (n[start] == 0):
            if n[start] > 0:
                out[start:i] = fn(ranked[start:i])
            start = i
    return out


def _judged_batch(ranked, k=None):
    """(grades with NaN for unjudged, lengths) as the trec_eval kernels take them."""
    lengths = ranked.lengths if k is None else np.minimum(ranked.lengths, k)
    return ranked.padded(k, unjudged=np.nan), lengths


def _score_rprec(ranked, k, rel):
    from .r_precision import _r_precision

    g, n = _judged_batch(ranked)
    return _r_precision(g, n, ranked.n_relevant(rel), rel)


def _score_bpref(ranked, k, rel):
    from .bpref import _bpref

    g, n = _judged_batch(ranked)
    return _bpref(g, n, ranked.n_relevant(rel), ranked.n_judged_nonrelevant(rel), rel)


def _score_iprec(ranked, k, rel, rounding="nearest"):
    from .interpolated_precision import _interpolated_precision

    g, n = _judged_batch(ranked)
    return _interpolated_precision(g, n, ranked.n_relevant(rel), [k], rel, rounding)[:, 0]


def _score_11pt(ranked, k, rel, rounding="nearest", levels=()):
    from .interpolated_precision import _eleven_point_average, _interpolated_precision

    g, n = _judged_batch(ranked)
    if levels:  # trec_eval's 11pt_avg with its own levels: the mean of iprec at them
        values = _interpolated_precision(g, n, ranked.n_relevant(rel), list(levels), rel,
                                         rounding)  # fmt: skip
        return values.mean(axis=1)
    return _eleven_point_average(g, n, ranked.n_relevant(rel), rel, rounding)


def _score_infap(ranked, k, rel):
    from .infap import _inferred_average_precision

    g, n = _judged_batch(ranked)
    return _inferred_average_precision(g, n, ranked.n_relevant(rel), rel)


def _score_judged(ranked, k):
    from .judged import _judged_at_k

    return _nonempty(ranked, lambda r: _judged_at_k(*_judged_batch(r), k), 0.0)


def _score_set_p(ranked, k, rel):
    from .set_measures import _set_precision

    return _nonempty(ranked, lambda r: _set_precision(*_judged_batch(r), rel), 0.0)


def _score_set_r(ranked, k, rel):
    from .set_measures import _set_recall

    g, n = _judged_batch(ranked)
    return _set_recall(g, n, ranked.n_relevant(rel), rel)


def _score_set_f(ranked, k, rel, beta=1):
    from .set_measures import _set_f

    return _nonempty(ranked, lambda r: _set_f(*_judged_batch(r), r.n_relevant(rel), beta, rel), 0.0)


def _score_trec_rbp(ranked, k, p=0.9):
    from .trec_rbp import _trec_rbp

    g, n = _judged_batch(ranked)
    return _trec_rbp(g, n, k, p, ranked.max_judged_grade())


def _score_trec_rbp_resid(ranked, k, p=0.9):
    from .trec_rbp import _trec_rbp_residual

    g, n = _judged_batch(ranked)
    return _trec_rbp_residual(g, n, k, p)


def _counts(ranked, k, rel):
    """(retrieved, relevant retrieved, relevant) per query, of the top k."""
    top = ranked.padded(k)
    n_ret = ranked.lengths if k is None else np.minimum(ranked.lengths, k)
    return n_ret, (top >= rel).sum(axis=1), ranked.n_relevant(rel)


def _score_set_map(ranked, k, rel):
    n_ret, hits, n_rel = _counts(ranked, k, rel)
    ok = (n_ret > 0) & (n_rel > 0)
    return np.where(ok, hits.astype(np.float64) ** 2 / np.maximum(n_ret * n_rel, 1), 0.0)


def _score_set_relative_p(ranked, k, rel):
    n_ret, hits, n_rel = _counts(ranked, k, rel)
    ok = (n_ret > 0) & (n_rel > 0)
    return np.where(ok, hits / np.maximum(np.minimum(n_ret, n_rel), 1), 0.0)


def _score_relative_p(ranked, k, rel):
    _, hits, n_rel = _counts(ranked, k, rel)
    if k is None:
        return _score_set_relative_p(ranked, k, rel)
    return np.where(n_rel > 0, hits / np.maximum(np.minimum(k, n_rel), 1), 0.0)


def _score_bin_g(ranked, k, rel):
    relevant = _rel(ranked, k, rel)
    nonrel_before = np.cumsum(~relevant, axis=1) - ~relevant  # non-relevant above each rank
    inside = np.arange(relevant.shape[1]) < ranked.lengths[:, None]
    terms = np.where(relevant & inside, 1.0 / np.log2(2.0 + nonrel_before), 0.0)
    n_rel = ranked.n_relevant(rel)
    return np.where(n_rel > 0, terms.sum(axis=1) / np.maximum(n_rel, 1), 0.0)


def _score_num_nonrel_judged_ret(ranked, k, rel):
    g, n = _judged_batch(ranked, k)
    inside = np.arange(g.shape[1]) < n[:, None]
    with np.errstate(invalid="ignore"):
        judged_nonrel = inside & ~np.isnan(g) & (g >= 0) & (g < rel)
    return judged_nonrel.sum(axis=1).astype(np.int64)


def _score_rprec_mult(ranked, k, rel):
    """trec_eval's Rprec_mult: precision at rank int(k R + 0.9), 0 where that is 0."""
    n_rel = ranked.n_relevant(rel)
    cut = (k * n_rel + 0.9).astype(np.int64)
    relevant = ranked.padded() >= rel
    hits = np.zeros(len(ranked))
    if relevant.shape[1]:
        seen = np.cumsum(relevant, axis=1)
        at = np.minimum(cut, relevant.shape[1]) - 1
        hits = np.where(at >= 0, seen[np.arange(len(ranked)), np.maximum(at, 0)], 0)
    return np.where(cut > 0, hits / np.maximum(cut, 1), 0.0)


def _score_unj(ranked, k):
    """trec_eval's unj: unjudged documents in the top k, divided by k."""
    g, n = _judged_batch(ranked, k)
    inside = np.arange(g.shape[1]) < n[:, None]
    return (inside & np.isnan(g)).sum(axis=1) / k


def _score_utility(ranked, k, rel, coefficients=(1, -1, 0, 0)):
    """trec_eval's utility: a rel_ret + b nonrel_ret + c rel_not_ret + d nonrel_not_ret,
    with trec_eval's collection size 0 (it has no -N here)."""
    a, b, c, d = coefficients
    n_ret, hits, n_rel = _counts(ranked, k, rel)
    return a * hits + b * (n_ret - hits) + c * (n_rel - hits) + d * (hits - n_ret - n_rel)


def _score_g(ranked, k):
    """trec_eval's G (gains = grades): sum over ranks of gain / log2(2 + cost - gained),
    where cost adds max(ideal gain, 1) per rank, divided by the ideal gains' sum."""
    gains = np.maximum(ranked.padded(k), 0.0)
    ideal = ranked.ideal_grades()
    width = max(gains.shape[1], ideal.shape[1])
    gains = np.pad(gains, ((0, 0), (0, width - gains.shape[1])))
    best = np.pad(ideal, ((0, 0), (0, width - ideal.shape[1])))
    n_ret = ranked.lengths if k is None else np.minimum(ranked.lengths, k)
    inside = np.arange(width) < n_ret[:, None]
    gained = np.cumsum(gains, axis=1)
    cost = np.cumsum(np.maximum(best, 1.0), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(inside & (gains != 0), gains / np.log2(2.0 + cost - gained), 0.0)
    total = ideal.sum(axis=1)
    return np.where(total > 0, terms.sum(axis=1) / np.where(total > 0, total, 1.0), 0.0)


def _dcg_tables(ranked):
    """(gains, ideal gains, cumulative DCG, cumulative ideal DCG, retrieved) on a common
    width with two zero columns to spare: trec_eval's ndcg_rel and Rndcg walk both."""
    gains = np.maximum(ranked.padded(), 0.0)
    ideal = ranked.ideal_grades()
    width = max(gains.shape[1], ideal.shape[1]) + 2
    gains = np.pad(gains, ((0, 0), (0, width - gains.shape[1])))
    ideal = np.pad(ideal, ((0, 0), (0, width - ideal.shape[1])))
    discount = 1.0 / np.log2(np.arange(width) + 2.0)
    return gains, ideal, np.cumsum(gains * discount, axis=1), np.cumsum(ideal * discount, axis=1)


def _score_ndcg_rel(ranked, k):
    """trec_eval's ndcg_rel: nDCG averaged over the relevant documents (gain > 0), a
    document not retrieved counting the nDCG at the end of the ranking."""
    gains, ideal, dcg, idcg = _dcg_tables(ranked)
    with np.errstate(divide="ignore", invalid="ignore"):
        at_rel = np.where(gains > 0, dcg / idcg, 0.0)
        n_rel = (ideal > 0).sum(axis=1)
        found = (gains > 0).sum(axis=1)
        total = at_rel.sum(axis=1) + (n_rel - found) * np.where(
            idcg[:, -1] > 0, dcg[:, -1] / idcg[:, -1], 0.0
        )
    return np.where(total > 0, total / np.maximum(n_rel, 1), 0.0)


def _score_rndcg(ranked, k, rel):
    """trec_eval's Rndcg: nDCG averaged at the ranks where the ideal gain changes (and
    at the end of a ranking longer than the relevant ones plus one)."""
    gains, ideal, dcg, idcg = _dcg_tables(ranked)
    before = np.pad(dcg, ((0, 0), (1, 0)))[:, :-1]  # DCG of the ranks above i
    ideal_before = np.pad(idcg, ((0, 0), (1, 0)))[:, :-1]
    n_pos = (ideal > 0).sum(axis=1)
    column = np.arange(gains.shape[1])
    change = np.zeros_like(gains, dtype=bool)
    change[:, 1:] = ideal[:, 1:] != ideal[:, :-1]
    change &= (column >= 1) & (column <= n_pos[:, None]) & (ideal_before > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.where(change, before / ideal_before, 0.0).sum(axis=1)
        count = change.sum(axis=1)
        end = ranked.lengths > n_pos + 1
        total += np.where(end & (idcg[:, -1] > 0), dcg[:, -1] / idcg[:, -1], 0.0)
        count += end & (idcg[:, -1] > 0)
        value = total / count
    return np.where((ranked.n_relevant(rel) > 0) & (count > 0), value, 0.0)


def _score_num_q(ranked, k):
    return np.ones(len(ranked), dtype=np.int64)


def _score_num_ret(ranked, k):
    return ranked.lengths.astype(np.int64)


def _score_num_rel(ranked, k, rel):
    return ranked.n_relevant(rel).astype(np.int64)


def _score_num_rel_ret(ranked, k, rel):
    return (ranked.padded() >= rel).sum(axis=1).astype(np.int64)


# --- the registry --------------------------------------------------------------------------

_REL = Param("rel", "threshold", None, "relevance threshold (a grade >= rel is relevant)")
_GAIN = Param(
    "gain", "choice", "linear", "'linear' (g) or 'exponential' (2^g - 1)", ("linear", "exponential")
)
_GAINS = Param(
    "gains",
    "gains",
    (),
    "map grade -> gain, e.g. {0:0,1:1,2:3,3:7}; "
    "unlisted grades keep gain = grade (trec_eval's ndcg.0=0,1=1,...); a negative grade "
    "is judged non-relevant, gain 0 (a non-zero gain for it is refused)",
)
_ROUNDING = Param(
    "rounding",
    "choice",
    "nearest",
    "recall level x R rounded to the nearest "
    "count (trec_eval 10) or as trec_eval 9 and pytrec_eval do ('trec_eval9')",
    ("nearest", "trec_eval9"),
)
_LEVELS = Param(
    "levels", "levels", (), "recall levels averaged instead of 0, 0.1, ..., 1 "
    "(trec_eval's 11pt_avg.L1,L2,...)",
)
_MAX_GRADE4 = Param("max_grade", "positive", 4, "top of the grade scale (default 4, gdeval's)")


GM_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN: a 0 would make the geometric mean 0


def _d(name, summary, score, function="", **kw):
    return Declaration(name, summary, score, function, **kw)


DECLARATIONS = {
    d.name: d
    for d in [
        _d("P", "precision: share of relevant documents in the top k", _score_p,
           "precision_at_k", params=(_REL,), aliases=("Precision",), trec_eval_cut="P",
           binary=True),
        _d("R", "recall: share of the query's relevant documents in the top k", _score_r,
           "recall_at_k", params=(_REL,), aliases=("Recall",), trec_eval_cut="recall",
           binary=True),
        _d("Success", "1 if the top k hold a relevant document, else 0", _score_success,
           "hit_at_k", params=(_REL,), aliases=("Hit", "HitRate", "HR"),
           trec_eval_cut="success", binary=True),
        _d("Hits", "number of relevant documents in the top k", _score_hits, "hits_at_k",
           params=(_REL,), binary=True),
        _d("AP", "average precision (mean: MAP), over all relevant documents", _score_ap,
           "average_precision", params=(_REL,), aliases=("MAP",), trec_eval="map",
           trec_eval_cut="map_cut", binary=True),
        _d("RR", "reciprocal rank of the first relevant document (mean: MRR)", _score_rr,
           "reciprocal_rank", params=(_REL,), aliases=("MRR",), trec_eval="recip_rank",
           binary=True),
        _d("nDCG", "normalised discounted cumulative gain (log2 discount)", _score_ndcg,
           "ndcg", params=(_GAIN, _GAINS), aliases=("NDCG",), trec_eval="ndcg",
           trec_eval_cut="ndcg_cut"),
        _d("DCG", "discounted cumulative gain (log2 discount)", _score_dcg, "dcg",
           params=(_GAIN, _GAINS), trec_eval="dcg"),
        _d("ERR", "expected reciprocal rank, gains (2^g - 1) / 2^max_grade", _score_err,
           "err", params=(_MAX_GRADE4,), aliases=("MERR",)),
        _d("RBP", "rank-biased precision, binary or with gain grade / max_grade", _score_rbp,
           "rbp", params=(Param("p", "probability", 0.8, "persistence", shown=True), _REL,
                          Param("max_grade", "positive", None, "graded gains grade/max_grade")),
           binary=True),
        _d("GMAP", "AP, averaged over queries by a geometric mean (values floored at 1e-5)",
           _score_ap, "average_precision", params=(_REL,), aliases=("gm_map",),
           trec_eval="gm_map", cutoff="none", aggregate="gmean", binary=True),
        _d("GMBpref", "Bpref, averaged over queries by a geometric mean (floored at 1e-5)",
           _score_bpref, "bpref", params=(_REL,), aliases=("gm_bpref",),
           trec_eval="gm_bpref", cutoff="none", aggregate="gmean", binary=True),
        _d("AR", "average recall (mean: MAR)", _score_ar, "average_recall", params=(_REL,),
           aliases=("MAR",), binary=True),
        _d("GAP", "graded average precision", _score_gap, "graded_average_precision",
           params=(_MAX_GRADE4,)),
        _d("MR", "mean rank of the relevant documents (lower is better)", _score_mr,
           "mean_rank", params=(_REL,), lower_is_better=True, binary=True),
        _d("FRP", "rank of the first relevant document (lower is better)", _score_frp,
           "first_relevant_position", params=(_REL,), lower_is_better=True, binary=True),
        _d("Rprec", "precision at rank R, R = the query's relevant count", _score_rprec,
           "r_precision", params=(_REL,), aliases=("RPrec",), trec_eval="Rprec",
           cutoff="none", binary=True),
        _d("Bpref", "how often judged relevant documents precede judged non-relevant ones",
           _score_bpref, "bpref", params=(_REL,), trec_eval="bpref", cutoff="none",
           binary=True),
        _d("IPrec", "interpolated precision at recall level r (IPrec@0.1)", _score_iprec,
           "interpolated_precision", params=(_REL, _ROUNDING), trec_eval_cut="iprec_at_recall",
           cutoff="recall", binary=True),
        _d("11pt_avg", "interpolated precision averaged over recall 0, 0.1, ..., 1",
           _score_11pt, "eleven_point_average", params=(_REL, _ROUNDING, _LEVELS),
           trec_eval="11pt_avg",
           cutoff="none", binary=True),
        _d("infAP", "inferred AP (Yilmaz and Aslam 2006); AP when judgments are complete",
           _score_infap, "inferred_average_precision", params=(_REL,), trec_eval="infAP",
           cutoff="none", binary=True),
        _d("Judged", "share of the top k that is judged (Judged@k)", _score_judged,
           "judged_at_k", cutoff="required"),
        _d("SetP", "precision of the whole retrieved set", _score_set_p, "set_precision",
           params=(_REL,), trec_eval="set_P", cutoff="none", binary=True),
        _d("SetR", "recall of the whole retrieved set", _score_set_r, "set_recall",
           params=(_REL,), trec_eval="set_recall", cutoff="none", binary=True),
        _d("SetF", "F-beta of set precision and recall (default F1)", _score_set_f, "set_f",
           params=(_REL, Param("beta", "non-negative", 1, "weight of recall (0: precision)")),
           trec_eval="set_F", cutoff="none", binary=True),
        _d("trec_rbp", "trec_eval 10's rbp: grades / the query's top grade", _score_trec_rbp,
           "trec_rbp", params=(Param("p", "probability", 0.9, "persistence"),),
           trec_eval="rbp"),
        _d("trec_rbp_resid", "trec_eval 10's rbp_resid: rbp's residual", _score_trec_rbp_resid,
           "trec_rbp", params=(Param("p", "probability", 0.9, "persistence"),),
           trec_eval="rbp_resid"),
        _d("SetMAP", "set map: relevant retrieved squared / (retrieved x relevant)",
           _score_set_map, params=(_REL,), aliases=("set_map",), trec_eval="set_map",
           cutoff="none", binary=True),
        _d("SetRelP", "relevant retrieved / min(retrieved, relevant)", _score_set_relative_p,
           params=(_REL,), aliases=("set_relative_P",), trec_eval="set_relative_P",
           cutoff="none", binary=True),
        _d("RelP", "relative precision: relevant in the top k / min(k, relevant)",
           _score_relative_p, params=(_REL,), aliases=("relative_P",),
           trec_eval_cut="relative_P", cutoff="required", binary=True),
        _d("binG", "trec_eval's binary G: mean over relevant documents of "
           "1 / log2(2 + non-relevant above it)", _score_bin_g, params=(_REL,),
           trec_eval="binG", cutoff="none", binary=True),
        _d("NumNonRelJudgedRet", "judged non-relevant retrieved documents (summed)",
           _score_num_nonrel_judged_ret, params=(_REL,), aliases=("num_nonrel_judged_ret",),
           trec_eval="num_nonrel_judged_ret", cutoff="none", aggregate="sum", binary=True,
           integer=True),
        _d("RprecMult", "precision at rank int(k R + 0.9), R the relevant count (Rprec@1)",
           _score_rprec_mult, params=(_REL,), aliases=("Rprec_mult",),
           trec_eval_cut="Rprec_mult", cutoff="multiple", binary=True),
        _d("Unj", "share of the top k that is unjudged (k divides)", _score_unj,
           aliases=("unj",), trec_eval_cut="unj", cutoff="required"),
        _d("Utility", "a rel_ret + b nonrel_ret + c rel_missed + d (-ret - rel + rel_ret)",
           _score_utility, params=(_REL, Param(
               "coefficients", "coefficients", (1, -1, 0, 0), "a, b, c, d")),
           aliases=("utility",), trec_eval="utility", cutoff="none", binary=True),
        _d("G", "trec_eval's G (gains = grades), an experimental measure between MAP "
           "and nDCG", _score_g, trec_eval="G", cutoff="none"),
        _d("ndcg_rel", "trec_eval's ndcg_rel: nDCG averaged over the relevant documents",
           _score_ndcg_rel, trec_eval="ndcg_rel", cutoff="none"),
        _d("Rndcg", "trec_eval's Rndcg: nDCG averaged where the ideal gain changes",
           _score_rndcg, params=(_REL,), trec_eval="Rndcg", cutoff="none", binary=True),
        _d("NumQ", "1 per evaluated query (summed: the number of queries)", _score_num_q,
           trec_eval="num_q", cutoff="none", aggregate="sum", integer=True),
        _d("NumRet", "retrieved documents (summed over queries)", _score_num_ret,
           trec_eval="num_ret", cutoff="none", aggregate="sum", integer=True),
        _d("NumRel", "relevant judged documents (summed over queries)", _score_num_rel,
           params=(_REL,), trec_eval="num_rel", cutoff="none", aggregate="sum",
           binary=True, integer=True),
        _d("NumRelRet", "relevant retrieved documents (summed over queries)",
           _score_num_rel_ret, params=(_REL,), trec_eval="num_rel_ret", cutoff="none",
           aggregate="sum", binary=True, integer=True),
    ]
}  # fmt: skip

# the public function each measure needs, by module: a measure whose module is not
# there (yet) is left out of the registry rather than failing at scoring time
_MODULES = {
    "infAP": "infap",
    "Judged": "judged",
    "SetP": "set_measures",
    "SetR": "set_measures",
    "SetF": "set_measures",
    "trec_rbp": "trec_rbp",
    "trec_rbp_resid": "trec_rbp",
}


def _available(name) -> bool:
    module = _MODULES.get(name)
    if module is None:
        return True
    import importlib.util

    return importlib.util.find_spec(f"rankeval.{module}") is not None


DECLARATIONS = {k: v for k, v in DECLARATIONS.items() if _available(k)}

_ALIASES = {a: d.name for d in DECLARATIONS.values() for a in d.aliases}

# trec_eval names: plain name -> measure name; cut family -> measure name
_TREC_PLAIN = {d.trec_eval: d.name for d in DECLARATIONS.values() if d.trec_eval}
_TREC_CUT = {d.trec_eval_cut: d.name for d in DECLARATIONS.values() if d.trec_eval_cut}

# ir_measures / trec_eval names rankeval does not compute, for a helpful message
_NOT_HERE = {
    "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "SDCG", "Compat",
    "P_rel", "StRecall", "AP_IA", "nNRBP", "NRBP", "Accuracy",
    "relstring", "SetAP",
    "ideal_dcg", "runid", "yaap",
}  # fmt: skip


# --- measures ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Measure:
    r"""One evaluation measure: a name, a cut-off and parameters.

    Build it with :func:`~rankeval.parse_measure`; ``str(measure)`` gives the canonical
    ir_measures-style spelling (``"nDCG@10"``, ``"RBP(p=0.9)"``).

    Attributes
    ----------
    name : str
        Canonical name, e.g. ``"nDCG"`` (aliases such as ``"MAP"`` are mapped).
    cutoff : int, float or None
        The ``k`` after ``@`` (a recall level in [0, 1] for ``IPrec``); ``None``
        for the whole ranking.
    params : tuple of (str, object)
        Parameters given (defaults left out), sorted by name.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.
    """

    name: str
    cutoff: int | float | None = None
    params: tuple = ()

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={_show(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += f"@{_show(self.cutoff)}"
        return text

    @property
    def declaration(self):
        """The measure's declaration (``rankeval.measures.DECLARATIONS[name]``)."""
        return DECLARATIONS[self.name]

    @property
    def param(self) -> dict:
        """Parameters given, as a dict."""
        return dict(self.params)

    def settings(self, threshold=1) -> dict:
        """Every parameter with defaults filled in; ``rel`` from ``threshold`` if not given."""
        out = {p.name: p.default for p in self.declaration.params}
        out.update(self.params)
        if "rel" in out and out["rel"] is None:
            out["rel"] = threshold
        return out

    def score(self, ranked, threshold=1) -> np.ndarray:
        """Values of this measure for every query of ``ranked`` (a RankedRun)."""
        d = self.declaration
        return d.score(ranked, self.cutoff, **self.settings(threshold))

    @property
    def function(self):
        """The rankeval function that computes this measure on grade lists (None for
        the counts NumQ, NumRet, NumRel, NumRelRet, which have none)."""
        import rankeval

        name = self.declaration.function
        return getattr(rankeval, name) if name else None

    @property
    def binary(self) -> bool:
        """True if the measure counts items with grade >= a threshold as relevant."""
        if self.name == "RBP":
            return "max_grade" not in self.param
        return self.declaration.binary

    @property
    def lower_is_better(self) -> bool:
        """True for rank positions (MR, FRP), where a smaller value is better."""
        return self.declaration.lower_is_better

    @property
    def aggregate(self) -> str:
        """``"mean"``, ``"sum"`` for the counts (NumQ, NumRet, NumRel, NumRelRet), or
        ``"gmean"`` for the geometric means GMAP and GMBpref."""
        return self.declaration.aggregate

    @property
    def trec_eval_name(self) -> str | None:
        """trec_eval's printed name (``"P_10"``, ``"map"``), or None if it has none."""
        return trec_eval_name(self)


def _show(value) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple) and all(isinstance(x, tuple) for x in value):  # gains
        return "{" + ",".join(f"{_show(g)}:{_show(v)}" for g, v in value) + "}"
    if isinstance(value, tuple):  # recall levels
        return "{" + ",".join(_show(x) for x in value) + "}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _value(text: str):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text.startswith("{") and text.endswith("}"):
        pairs = []
        items = [x.strip() for x in text[1:-1].split(",") if x.strip()]
        if items and not any(":" in x for x in items):  # {0.25,0.5}: a list of numbers
            return tuple(_value(x) for x in items)
        for item in items:
            g, colon, v = item.partition(":")
            if not colon:
                raise ValueError(f"gains must be written {{grade:gain,...}}, got {text!r}")
            pairs.append((_value(g), _value(v)))
        return tuple(pairs)
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _split_params(text: str):
    """Split ``a=1,gains={0:0,1:1}`` on the commas outside braces."""
    items, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c == "{"
        depth -= c == "}"
        if c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def _known() -> str:
    return ", ".join(list(DECLARATIONS) + list(_ALIASES))


_SYNTAX = re.compile(
    r"""^\s*(?P<name>[A-Za-z0-9_]+?)
        \s*(?:\((?P<params>.*)\))?
        \s*(?:@\s*(?P<cutoff>[^\s@]+))?\s*$""",
    re.VERBOSE,
)
_TREC_UNDERSCORE = re.compile(r"^\s*(?P<base>[A-Za-z0-9_]+?)_(?P<cut>\d+(?:\.\d+)?)\s*$")


def _canonical(name: str) -> str:
    """The declaration a known name (canonical, alias or trec_eval's) stands for."""
    if name in DECLARATIONS:
        return name
    return _ALIASES.get(name) or _TREC_PLAIN.get(name) or name


def _unknown(text, name):
    hint = ""
    if name in _NOT_HERE:
        hint = " (an ir_measures/trec_eval measure that rankeval does not compute)"
    else:
        names = list(DECLARATIONS) + list(_ALIASES) + list(_TREC_PLAIN)
        lower = [k for k in names if k.lower() == name.lower()]
        # a short name is too close to too many others (HR and R): only its case is mended
        close = [] if len(name) <= 3 else difflib.get_close_matches(name, names, n=5, cutoff=0.75)
        close = list(dict.fromkeys(lower + close))
        if close:  # every suggestion names the measure of the best one, never another
            measure = _canonical(close[0])
            close = [c for c in close if _canonical(c) == measure][:3]
        if close:
            hint = f" (did you mean {' or '.join(map(repr, close))}?)"
    return ValueError(f"unknown measure {text!r}{hint}; known measures: {_known()}")


def _cutoff(decl, text, value):
    if decl.cutoff == "none":
        raise ValueError(f"measure {text!r}: {decl.name} takes no cut-off")
    if decl.cutoff == "recall":
        try:
            level = float(value)
        except ValueError:
            level = -1.0
        if not 0 <= level <= 1:
            raise ValueError(
                f"measure {text!r}: the recall level after '@' must lie in [0, 1], got {value!r}"
            )
        return _num(level)
    if decl.cutoff == "multiple":  # Rprec_mult: a multiple of R, a number >= 0
        try:
            times = float(value)
        except ValueError:
            times = -1.0
        if not (math.isfinite(times) and times >= 0):
            raise ValueError(
                f"measure {text!r}: the multiple of R after '@' must be a number >= 0, "
                f"got {value!r}"
            )
        return _num(times)
    if not (value.isascii() and value.isdigit()) or int(value) <= 0:
        raise ValueError(
            f"measure {text!r}: the cut-off after '@' must be a positive integer, got {value!r}"
        )
    return int(value)


def _make(decl, cutoff, given: dict, text) -> Measure:
    params = {}
    for key, value in given.items():
        p = decl.param(key)
        if p is None:
            allowed = ", ".join(q.name for q in decl.params) or "none"
            raise ValueError(
                f"measure {text!r}: {decl.name} has no parameter {key!r} (allowed: {allowed})"
            )
        params[key] = p.check(value, text)
    for p in decl.params:
        if p.name in params and params[p.name] == p.default and not p.shown:
            del params[p.name]  # the default: one spelling per measure
        elif p.shown and p.name not in params:
            params[p.name] = p.default
    if params.get("gains") == ():
        del params["gains"]
    if "gains" in params and "gain" in params:
        raise ValueError(f"measure {text!r}: give either gain= or gains=, not both")
    if decl.cutoff == "required" and cutoff is None:
        raise ValueError(f"measure {text!r}: {decl.name} needs a cut-off, e.g. {decl.name}@10")
    if decl.cutoff == "multiple" and cutoff is None:
        raise ValueError(
            f"measure {text!r}: {decl.name} needs a multiple of R, e.g. {decl.name}@0.5"
        )
    if decl.cutoff == "recall" and cutoff is None:
        raise ValueError(
            f"measure {text!r}: {decl.name} needs a recall level, e.g. {decl.name}@0.1"
        )
    return Measure(decl.name, cutoff, tuple(sorted(params.items())))


def parse_measure(text) -> Measure:
    r"""Parse one measure name such as ``"nDCG@10"`` into a :class:`~rankeval.Measure`.

    Parameters
    ----------
    text : str or Measure
        ``NAME``, ``NAME@k`` or ``NAME(key=value,...)@k`` in ir_measures
        spelling (see the table in :mod:`rankeval.measures`); book aliases
        (``MAP``, ``MRR``, ``MAR``, ...) and trec_eval names (``map``,
        ``P_10``, ``recall_100``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``,
        ``num_rel_ret``, ...) are accepted. For trec_eval's dotted syntax
        (``P.5,10``) use :func:`~rankeval.parse_trec_eval`.

    Returns
    -------
    Measure
        With the canonical name; ``str()`` of it is the canonical spelling.

    Raises
    ------
    ValueError
        Unknown name (with the closest known names), malformed syntax, a
        cut-off that is not a positive integer (a recall level in [0, 1] for
        IPrec), an unknown or invalid parameter.

    Notes
    -----
    The grammar is ``NAME [ "(" key=value {"," key=value} ")" ] [ "@" k ]``.
    Names are case-sensitive, as in ir_measures (``nDCG``; ``NDCG`` is a book
    alias, a wrong case gets a suggestion). ``dcg='exp-log2'`` means the gain
    :math:`2^g - 1` and ``dcg='log2'`` the gain :math:`g`, both with the
    discount :math:`\log_2(i + 1)`. A parameter equal to its default is
    dropped from the canonical spelling (``ERR(max_grade=4)@10`` is
    ``ERR@10``), except RBP's ``p``, which is always shown.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import parse_measure
    >>> parse_measure("nDCG@10")
    Measure(name='nDCG', cutoff=10, params=())
    >>> names = ["MAP", "ndcg_cut_5", "RBP", "P(rel=2)@5", "iprec_at_recall_0.10"]
    >>> [str(parse_measure(name)) for name in names]
    ['AP', 'nDCG@5', 'RBP(p=0.8)', 'P(rel=2)@5', 'IPrec@0.1']
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise TypeError(f"a measure must be a string such as 'nDCG@10', got {text!r}")
    underscore = _TREC_UNDERSCORE.match(text)
    if underscore and underscore.group("base") in _TREC_CUT:
        decl = DECLARATIONS[_TREC_CUT[underscore.group("base")]]
        return _make(decl, _cutoff(decl, text, underscore.group("cut")), {}, text)
    match = _SYNTAX.match(text)
    from .diversity_runs import is_diversity_name

    if is_diversity_name(text):
        raise ValueError(
            f"{text!r} is a diversity measure: it needs subtopic judgments; use "
            "rankeval.evaluate_diversity (or the command line's --subtopics)"
        )
    if not match:
        raise ValueError(
            f"cannot parse measure {text!r}: expected NAME, NAME@k or NAME(key=value)@k, "
            "e.g. 'nDCG@10' or 'RBP(p=0.9)'"
        )
    name, params_text, cutoff_text = match.group("name", "params", "cutoff")
    if _TREC_UNDERSCORE.match(name) and cutoff_text is not None:
        base = _TREC_UNDERSCORE.match(name).group("base")
        if base in _TREC_CUT:
            raise ValueError(f"measure {text!r} gives the cut-off twice")
    if name not in DECLARATIONS and name not in _ALIASES and name in _TREC_PLAIN:
        name = _TREC_PLAIN[name]
    name = _ALIASES.get(name, name)
    if name not in DECLARATIONS:
        raise _unknown(text, name)
    decl = DECLARATIONS[name]
    given = {}
    if params_text is not None and params_text.strip():
        for item in _split_params(params_text):
            key, eq, raw = item.partition("=")
            key = key.strip()
            if not eq or not key:
                raise ValueError(
                    f"measure {text!r}: parameters must be written key=value, got {item!r}"
                )
            if key in given:
                raise ValueError(f"measure {text!r}: parameter {key!r} is given twice")
            try:
                given[key] = _value(raw)
            except ValueError as err:
                raise ValueError(f"measure {text!r}: {err}") from None
    if "dcg" in given and decl.param("gain") is not None:  # ir_measures spelling
        if "gain" in given:
            raise ValueError(f"measure {text!r}: give either dcg= or gain=, not both")
        forms = {"log2": "linear", "exp-log2": "exponential"}
        if given["dcg"] not in forms:
            raise ValueError(
                f"measure {text!r}: parameter dcg={given['dcg']!r} must be 'log2' (linear "
                "gain) or 'exp-log2' (exponential gain)"
            )
        given["gain"] = forms[given.pop("dcg")]
    cutoff = None if cutoff_text is None else _cutoff(decl, text, cutoff_text)
    return _make(decl, cutoff, given, text)


def parse_measures(measures) -> list:
    r"""Parse one measure name or an iterable of them; duplicates are dropped.

    Parameters
    ----------
    measures : str, Measure or iterable of them
        A single string is one measure (``"nDCG@10"``); to give several,
        pass a list.

    Returns
    -------
    list of Measure
        In the given order, without repeats (compared after parsing, so
        ``"MAP"`` and ``"AP"`` are one measure).

    Notes
    -----
    Two spellings are the same measure when their parsed name, cut-off and
    parameters agree (a parameter equal to its default counts as absent); the
    first spelling is kept.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import parse_measures
    >>> [str(m) for m in parse_measures(["AP", "P_10", "MAP", "nDCG@10"])]
    ['AP', 'P@10', 'nDCG@10']
    """
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    try:
        items = list(measures)
    except TypeError:
        raise TypeError(
            f"measures must be a measure name or a list of them, got {type(measures).__name__}"
        ) from None
    if not items:
        raise ValueError("measures is empty: name at least one measure, e.g. ['nDCG@10', 'AP']")
    return list(dict.fromkeys(parse_measure(m) for m in items))


# --- scoring a ranked run -----------------------------------------------------------------

TIE_AVERAGED = ("nDCG", "DCG")  # the measures defined for tie-averaged gains


def check_tie_averaging(measures, advice: str = "") -> None:
    """Refuse ``ties="average"`` for a measure other than nDCG and DCG (``advice`` is
    added to the message)."""
    bad = [str(m) for m in measures if m.name not in TIE_AVERAGED]
    if bad:
        raise ValueError(
            f"ties='average' (scikit-learn's tie-averaged gains) is defined for nDCG "
            f"and DCG only, not for {', '.join(bad)}{advice}"
        )


def score_ranked(measures, ranked, threshold: float, max_cells: int) -> dict:
    """Every measure's value for every query of a RankedRun, ``{measure: array}``.

    The queries are scored block by block (``ranked.chunks(max_cells)``), so that no
    padded grade matrix holds more than ``max_cells`` cells; int64 for the counts,
    float64 otherwise.
    """
    values = {
        m: np.empty(len(ranked), dtype=np.int64 if m.declaration.integer else np.float64)
        for m in measures
    }
    for where, block in ranked.chunks(max_cells):
        for m in measures:
            values[m][where] = m.score(block, threshold)
    return values


# --- trec_eval's -m syntax --------------------------------------------------------------

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_TREC_DEFAULTS = {  # trec_eval's default parameters of its cut-off families
    "P": _CUTS, "recall": _CUTS, "map_cut": _CUTS, "ndcg_cut": _CUTS, "relative_P": _CUTS,
    "success": (1, 5, 10),
    "unj": (5, 10, 20),
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    "iprec_at_recall": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
}  # fmt: skip
# trec_eval's measure sets (measures.c of trec_eval 10: off_names, trec_names, set_names);
# names rankeval does not compute are left out of the expansion
_TREC_SETS = {
    "official": ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall",
                 "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg",
                 "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
                 "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
                 "set_map", "set_F", "num_nonrel_judged_ret"),
    "set": ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
}  # fmt: skip


def parse_trec_eval(name) -> list:
    r"""Measures named in trec_eval's ``-m`` syntax.

    Parameters
    ----------
    name : str
        One ``-m`` argument of trec_eval: a measure (``map``, ``P``,
        ``ndcg_cut``), with its parameters after a dot (``P.5,10``,
        ``ndcg_cut.10``, ``recall.100``, ``iprec_at_recall.0.10,0.50``,
        ``set_F.0.5`` for beta, ``ndcg.0=0,1=1,2=3`` for a gain map,
        ``rbp.p=0.8`` for p, ``11pt_avg..25,.5,.75`` for recall levels; a cut-off
        is read as trec_eval reads it, by its leading integer: ``ndcg_cut.23.4`` is
        ``nDCG@23``), or a set: ``official`` (the measures trec_eval
        prints by default), ``all_trec``, ``set``. Underscored names
        (``P_10``) work too.

    Returns
    -------
    list of Measure
        A family without parameters expands to trec_eval's default cut-offs
        (``P`` -> P@5, ..., P@1000). Members of a set that rankeval does not
        compute (``runid``, ``relstring``, ``unj``, ``utility``, ``G``, ``Rndcg``, ``ndcg_rel``,
        ``Rprec_mult`` and the like) are left out of the expansion.

    Raises
    ------
    ValueError
        An unknown name, or parameters a measure does not take.

    Notes
    -----
    The sets are those of trec_eval 10's ``measures.c``. A gain map
    ``ndcg.l=g,...`` sets the gain of grade ``l`` to ``g``; grades not listed
    keep their own value as gain, as in trec_eval. ``iprec_at_recall`` levels
    are recall levels in [0, 1], printed by trec_eval with two decimals
    (``iprec_at_recall_0.10``).

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval.measures import parse_trec_eval
    >>> [str(m) for m in parse_trec_eval("P.5,10")]
    ['P@5', 'P@10']
    >>> # grades 0 and 1 keep their gain, grade 2 gets gain 3
    >>> [str(m) for m in parse_trec_eval("ndcg.0=0,1=1,2=3")]
    ['nDCG(gains={2:3})']
    >>> [str(m) for m in parse_trec_eval("official")][:7]
    ['NumQ', 'NumRet', 'NumRel', 'NumRelRet', 'AP', 'GMAP', 'Rprec']
    """
    if not isinstance(name, str):
        raise TypeError(f"a trec_eval measure must be a string such as 'P.10', got {name!r}")
    text = name.strip()
    if text in _TREC_SETS:
        out = []
        for member in _TREC_SETS[text]:
            if member in _TREC_PLAIN or member in _TREC_CUT:
                out.extend(parse_trec_eval(member))
        return list(dict.fromkeys(out))
    base, dot, params = text.partition(".")
    if base in _TREC_CUT:
        decl = DECLARATIONS[_TREC_CUT[base]]
        if dot:
            values = [v.strip() for v in params.split(",")]
            if decl.cutoff not in ("recall", "multiple"):  # atol, as trec_eval: 23.4 is 23
                values = [_atol(v) for v in values]
        else:
            values = [_show(v) for v in _TREC_DEFAULTS.get(base, ())]
        if not values or "" in values:
            raise ValueError(f"trec_eval measure {text!r}: give cut-offs such as {base}.5,10")
        try:
            return list(
                dict.fromkeys(_make(decl, _cutoff(decl, text, v), {}, text) for v in values)
            )
        except ValueError as err:
            raise ValueError(f"trec_eval measure {text!r}: {err}") from None
    if base in _TREC_PLAIN:
        decl = DECLARATIONS[_TREC_PLAIN[base]]
        given = {}
        if dot:
            if base in ("ndcg", "dcg"):
                pairs = []
                for item in params.split(","):
                    g, eq, v = item.partition("=")
                    if not eq:
                        raise ValueError(
                            f"trec_eval measure {text!r}: gains are written level=gain, "
                            "e.g. ndcg.0=0,1=1,2=3"
                        )
                    pairs.append((_value(g), _value(v)))
                given["gains"] = tuple(pairs)
            elif base == "set_F":
                given["beta"] = _value(params)
            elif base in ("rbp", "rbp_resid"):
                for pair in params.split(","):  # trec_eval 10: name=value pairs
                    key, eq, value = pair.partition("=")
                    if not eq or key.strip() != "p":
                        raise ValueError(
                            f"trec_eval measure {text!r}: {base} takes its persistence as "
                            f"{base}.p=0.5, as trec_eval 10 does (which refuses {base}.0.5)"
                        )
                    given["p"] = _value(value)
            elif base == "utility":  # utility.a,b,c,d
                try:
                    given["coefficients"] = tuple(float(v) for v in params.split(","))
                except ValueError:
                    raise ValueError(
                        f"trec_eval measure {text!r}: utility takes 4 numbers, e.g. "
                        "utility.1,-1,0,0"
                    ) from None
            elif base == "11pt_avg":  # trec_eval's own recall levels: 11pt_avg..25,.5,.75
                given["levels"] = _levels(params, text)
            else:
                raise ValueError(f"trec_eval measure {base!r} takes no parameters, got {text!r}")
        return [_make(decl, None, given, text)]
    if not dot:
        try:
            return [parse_measure(text)]
        except ValueError:
            pass
    raise _unknown(text, base)


def _atol(text: str) -> str:
    """A cut-off as trec_eval reads it (C's ``atol``): its leading integer, so that
    ``"23.4"`` is 23; text without a leading integer is left for the checks to refuse."""
    match = re.match(r"\s*\+?(\d+)", text)
    return match.group(1) if match else text


def _levels(params: str, text: str) -> tuple:
    """Recall levels of ``11pt_avg.L1,L2,...`` (numbers in [0, 1], as trec_eval reads)."""
    try:
        levels = tuple(float(v) for v in params.split(","))
    except ValueError:
        raise ValueError(
            f"trec_eval measure {text!r}: recall levels are numbers in [0, 1], e.g. "
            "11pt_avg..25,.5,.75"
        ) from None
    return levels


def trec_eval_name(measure) -> str | None:
    """trec_eval's printed name of a measure (``"P_10"``, ``"map"``,
    ``"iprec_at_recall_0.10"``), or None when trec_eval has no such measure
    or cannot take its parameters."""
    m = parse_measure(measure)
    d = m.declaration
    extra = {k for k in m.param if k not in ("gains", "beta", "p", "rounding")}
    if d.name == "RBP" or extra:
        return None
    if m.cutoff is not None:
        if not d.trec_eval_cut:
            return None
        if d.cutoff in ("recall", "multiple"):
            return f"{d.trec_eval_cut}_{m.cutoff:.2f}"
        return f"{d.trec_eval_cut}_{m.cutoff}"
    return d.trec_eval


def describe(name=None) -> str:
    """One line per measure: its spelling with parameters, meaning and trec_eval names.

    Parameters
    ----------
    name : str, optional
        Only the measure this name parses to (``"MAP"``, ``"ndcg_cut_10"``);
        default: every measure.

    Returns
    -------
    str
        The lines of ``--help`` and ``--list-measures``, one per measure:
        ``NAME(params)@k  meaning [trec_eval: names]``.

    Notes
    -----
    Generated from the measure declarations, so that the list can never
    disagree with what :func:`~rankeval.parse_measure` accepts.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import describe
    >>> print(describe("Judged@5"))
    Judged@k  share of the top k that is judged (Judged@k)
    """
    if name is not None:
        d = parse_measure(name).declaration
        return f"{_spelling(d)}  {d.summary}{_trec_note(d)}"
    width = max(len(_spelling(d)) for d in DECLARATIONS.values())
    return "\n".join(
        f"  {_spelling(d):<{width}}  {d.summary}{_trec_note(d)}" for d in DECLARATIONS.values()
    )


def _spelling(d) -> str:
    params = ",".join(
        p.name if p.default in (None, ()) else f"{p.name}={_show(p.default)}" for p in d.params
    )
    text = d.name + (f"({params})" if params else "")
    if d.cutoff in ("optional", "required"):
        text += "@k"
    elif d.cutoff == "recall":
        text += "@r"
    return text


def _trec_note(d) -> str:
    cut = ".r" if d.cutoff == "recall" else ".k"
    names = [n for n in (d.trec_eval, d.trec_eval_cut and d.trec_eval_cut + cut) if n]
    return f" [trec_eval: {', '.join(names)}]" if names else ""


def _family(d) -> str:
    """The rubric a declaration's row goes under in the module docstring's tables."""
    if d.aggregate == "sum":
        return "Counts, summed over queries"
    if d.cutoff == "none":
        return "Measures of the whole ranking or of the retrieved set"
    return "Measures with a cut-off (``@k``, ``@r`` or a depth)"


def _table() -> str:
    """The module docstring's tables: three columns, so that they fit the API page.

    The function that computes a measure is linked from its meaning (the API page
    documents every public function); trec_eval's names get a column of their own.
    One table per family (cut-off measures, whole-ranking measures, counts), each
    under a rubric, so that no table grows too tall on a phone.
    """
    families: dict[str, list[tuple[str, str, str]]] = {}
    for d in DECLARATIONS.values():
        names = ", ".join(x for x in (d.trec_eval, d.trec_eval_cut and d.trec_eval_cut + "_k") if x)
        aliases = f" ({', '.join(d.aliases)})" if d.aliases else ""
        summary = d.summary.replace("*", r"\*")
        if d.aggregate == "sum" and "summed" not in summary:
            summary += "; summed over queries"
        if d.function:
            summary += f"; :func:`~rankeval.{d.function}`"
        spelling = _spelling(d).replace(",", ", ")  # a space lets a long name wrap
        row = (f"``{spelling}``{aliases}", summary, f"``{names}``" if names else "")
        families.setdefault(_family(d), []).append(row)
    order = [_family(d) for d in DECLARATIONS.values()]
    parts = []
    for family in sorted(families, key=order.index):
        rows = [("name", "meaning", "trec_eval"), *families[family]]
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        rule = "  ".join("=" * w for w in widths)
        body = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                for r in rows]
        parts.append("\n".join([f".. rubric:: {family}", "", rule, body[0], rule,
                                 *body[1:], rule]))
    return "\n\n".join(parts)


__doc__ = __doc__.replace("{table}", _table())
