"""What a measure declares about itself: one :class:`Declaration` per measure.

Every metric module ends with a tuple ``DECLARATIONS``: for each measure that
:func:`rankeval.evaluate` computes with the module's kernel, its names, typed
parameters, trec_eval spelling, print order, conventions and bounds, and the
function that scores a block of ranked queries. :mod:`rankeval.measures`
collects these tuples into the one registry; nothing else in the package
knows a measure by its name. ARCHITECTURE.md ("Adding a measure") shows the
recipe.

The helpers below are shared by the scoring functions of the metric modules:
they read a block of ranked queries (a :class:`rankeval.metrics.block.RankedBlock`:
the interface :class:`rankeval.RankedRun` implements) as the matrices the kernels take.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .block import RankedBlock

__all__ = [
    "counts",
    "Param",
    "Declaration",
    "REL",
    "relevant",
    "nonempty",
    "judged_batch",
    "check_scale",
    "show",
    "as_number",
    "check_gains",
]


# --- parameters --------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """A typed measure parameter: name, kind, default and meaning.

    ``kind`` is ``"threshold"`` (a grade > 0), ``"probability"`` (in (0, 1)),
    ``"positive"`` (a number > 0), ``"non-negative"`` (a number >= 0),
    ``"choice"`` (one of ``choices``), ``"boolean"`` (True or False), ``"gains"`` (a map grade -> gain),
    ``"coefficients"`` (4 numbers: trec_eval's utility) or ``"levels"`` (recall levels in
    [0, 1]: trec_eval's ``11pt_avg.L1,L2,...``).
    ``shown``: the default is part of the canonical spelling. ``graded``: giving
    the parameter makes a binary measure graded (RBP's ``max_grade``).
    ``trec_eval``: trec_eval can take it (in its dotted syntax, or as a
    convention that leaves its printed name alone).
    """

    name: str
    kind: str
    default: object = None
    doc: str = ""
    choices: tuple = ()
    shown: bool = False
    graded: bool = False
    trec_eval: bool = False

    def check(self, value, text):
        def bad(expected):
            return ValueError(
                f"measure {text!r}: parameter {self.name}={value!r} must be {expected}"
            )

        number = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if self.kind in ("threshold", "positive"):
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
        if self.kind == "boolean":
            spelled = {True: True, False: False, "True": True, "False": False,
                       "true": True, "false": False}
            if isinstance(value, (bool, str)) and value in spelled:
                return spelled[value]
            raise bad("True or False")
        if self.kind == "choice":
            if value not in self.choices:
                raise bad(" or ".join(map(repr, self.choices)))
            return value
        if self.kind == "gains":
            return check_gains(value, text)
        if self.kind == "coefficients":
            items = tuple(value) if isinstance(value, (tuple, list)) else (value,)
            if len(items) != 4 or not all(
                isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)
                for x in items
            ):
                raise bad("4 finite numbers a, b, c, d")
            return tuple(as_number(x) for x in items)
        if self.kind == "levels":
            items = value if isinstance(value, (tuple, list)) else (value,)
            if not items or not all(
                isinstance(x, numbers.Real) and not isinstance(x, bool) and 0 <= x <= 1
                for x in items
            ):
                raise bad("recall levels in [0, 1]")
            return tuple(float(x) for x in items)
        raise AssertionError(self.kind)  # pragma: no cover


def check_gains(value, text):
    """A map grade -> gain, checked, as the canonical tuple of the grades whose gain is
    not the grade itself (``text`` names the measure in messages)."""
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
    negative = sorted(as_number(g) for g, v in pairs if g < 0 and v != 0)
    if negative:
        raise ValueError(
            f"measure {text!r}: gains gives a non-zero gain to the negative grade(s) "
            f"{negative}, but a negative grade is judged non-relevant and always has gain "
            "0 (as an unjudged document has); give negative grades gain 0 or leave them out"
        )
    # a grade's default gain is the grade itself (0 for grades <= 0): leave those out
    return tuple(sorted((as_number(g), as_number(v)) for g, v in pairs if v != max(g, 0.0)))


def as_number(x: float):
    """``x`` as an int when it is a whole number (``3.0`` -> ``3``), else as a float."""
    return int(x) if float(x).is_integer() else float(x)


def show(value) -> str:
    """A parameter value as the canonical spelling writes it."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple) and all(isinstance(x, tuple) for x in value):  # gains
        return "{" + ",".join(f"{show(g)}:{show(v)}" for g, v in value) + "}"
    if isinstance(value, tuple):  # recall levels, coefficients
        return "{" + ",".join(show(x) for x in value) + "}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


#: The relevance threshold parameter of the binary measures.
REL = Param("rel", "threshold", None, "relevance threshold (a grade >= rel is relevant)")


# --- declarations ------------------------------------------------------------------------


@dataclass(frozen=True)
class Declaration:
    """Everything rankeval knows about one measure.

    Attributes
    ----------
    name : str
        ir_measures name (the canonical spelling).
    summary : str
        One line: what the measure means (the ``--help`` text).
    score : callable
        ``score(ranked, k, **settings) -> ndarray``: the values of a block of
        ranked queries (a :class:`rankeval.metrics.block.RankedBlock`, such as a
        :class:`rankeval.RankedRun`); ``settings`` holds every
        parameter (defaults filled in; ``rel`` resolved from the threshold).
        For ``needs="subtopics"``: ``score(block, k, **settings)`` with a
        :class:`rankeval.metrics.block.SubtopicBlock`.
    function : callable or None
        The public rankeval function that computes the measure on grade lists.
    params : tuple of Param
    aliases : tuple of str
        Other accepted names (book and ir_measures variants).
    trec_eval : str or None
        trec_eval's name without a cut-off (``"map"``), if it has the measure.
    trec_eval_cut : str or None
        trec_eval's name of the cut-off family (``"map_cut"``, ``"P"``).
    trec_eval_param : str or None
        The parameter that trec_eval's dotted syntax sets (``ndcg.0=0,1=1``:
        ``gains``; ``set_F.0.5``: ``beta``); the printed name then carries the
        parameter text (``ndcg_0=0,1=1``), as trec_eval prints it.
    trec_eval_cuts : tuple
        trec_eval's default cut-offs of the family (``P`` alone is P@5 ... P@1000).
    print_order : int
        Position of ``trec_eval`` in trec_eval 10's measure table
        (``measures.c``): the order of its output.
    print_order_cut : int
        Position of ``trec_eval_cut`` in that table.
    cutoff : {"optional", "required", "none", "recall", "multiple"}
        What may follow ``@``: a rank cut-off k, (``"recall"``) a recall
        level in [0, 1], or (``"multiple"``) a multiple of R, a number >= 0.
    aggregate : {"mean", "sum", "gmean"}
        How per-query values combine over queries (trec_eval sums the counts;
        ``"gmean"``: trec_eval's geometric mean, each value floored at 1e-5, of
        gm_map and gm_bpref).
    per_query : bool
        trec_eval prints a line per query (False for ``num_q``, whose value is
        the number of queries).
    lower_is_better : bool
        The measure's direction: True when a smaller value is the better one
        (the rank positions MR and FRP, the unjudged share Unj); False (the
        default) for the others. :func:`rankeval.report` marks the best system
        by it, and :func:`rankeval.compare`'s table carries it.
    binary : bool
        Uses the relevance threshold (``rel`` parameter / ``threshold``).
    integer : bool
        Per-query values are whole counts (int64 columns).
    tie_averaging : bool
        Defined for ``ties="average"`` (scikit-learn's tie-averaged gains).
    gain : bool
        Has the ``gain`` / ``gains`` parameters that a convention's gain
        (LightGBM's :math:`2^l - 1`) fills in.
    bounds : (float, float)
        The range of a query's value (``inf`` for no upper bound).
    needs : {"ranking", "subtopics"}
        What the measure reads: one grade per ranked document, or subtopic
        judgments (the diversity measures, :func:`rankeval.evaluate_diversity`).
    """

    name: str
    summary: str
    score: Callable = field(repr=False)
    function: Callable | None = field(default=None, repr=False)
    params: tuple = ()
    aliases: tuple = ()
    trec_eval: str | None = None
    trec_eval_cut: str | None = None
    trec_eval_param: str | None = None
    trec_eval_cuts: tuple = ()
    print_order: int = 1000
    print_order_cut: int = 1000
    cutoff: str = "optional"
    aggregate: str = "mean"
    per_query: bool = True
    lower_is_better: bool = False
    binary: bool = False
    integer: bool = False
    tie_averaging: bool = False
    gain: bool = False
    bounds: tuple = (0.0, 1.0)
    needs: str = "ranking"

    def param(self, name):
        return next((p for p in self.params if p.name == name), None)


# --- reading a block of ranked queries -----------------------------------------------------


def relevant(ranked: RankedBlock, k, t):
    """Boolean (n, width) relevance of the top k."""
    return ranked.padded(k) >= t


def nonempty(ranked: RankedBlock, fn, empty_value):
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


def judged_batch(ranked: RankedBlock, k=None):
    """(grades with NaN for unjudged, lengths) as the trec_eval kernels take them."""
    lengths = ranked.lengths if k is None else np.minimum(ranked.lengths, k)
    return ranked.padded(k, unjudged=np.nan), lengths


def check_scale(ranked: RankedBlock, k, c, what):
    """The top-k grades; a ValueError if one is above the declared top grade ``c``."""
    top = ranked.padded(k)
    if top.size and top.max() > c:
        raise ValueError(
            f"{what}: a grade of {top.max():g} is above max_grade={c:g}; give the top of "
            f"your grade scale, e.g. {what.split('(')[0]}(max_grade={top.max():g})"
        )
    return top


def counts(ranked: RankedBlock, k, rel):
    """(retrieved, relevant retrieved, relevant) per query, of the top k."""
    top = ranked.padded(k)
    n_ret = ranked.lengths if k is None else np.minimum(ranked.lengths, k)
    return n_ret, (top >= rel).sum(axis=1), ranked.n_relevant(rel)
