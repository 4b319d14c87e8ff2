r"""The conventions where evaluation tools differ, as one frozen, validated object.

A :class:`Conventions` holds every choice that changes a number without changing
the measure's name: the relevance threshold, the order of tied scores, where the
ideal ranking comes from, what a query the run lacks scores, whether unjudged
documents count, the precision of scores and grades, a depth, the gain of nDCG
and DCG, the value of a query with no relevant document, how a recall level
becomes a count of relevant documents, what AP@k divides by, and the gain of
RBP. It is checked once, when it is made; :data:`PRESETS` names the choices of
nine tools:

===============  ===========  =========  =======  =======  ===========  ==========
preset           ties         ideal      scores   gain     no relevant  recall
===============  ===========  =========  =======  =======  ===========  ==========
``trec_eval``    by doc id    judged     double   linear   own value    nearest
``pytrec_eval``  by doc id    judged     float32  linear   own value    trec_eval9
``sklearn``      averaged     retrieved  double   linear   own value    nearest
``lightgbm``     input order  retrieved  double   2^l - 1  1            nearest
``xgboost``      input order  retrieved  double   2^l - 1  1            nearest
===============  ===========  =========  =======  =======  ===========  ==========

The three recommender presets differ from ``trec_eval`` in one convention only,
what AP@k divides by (``ap_denominator``): trec_eval's ``map_cut`` divides by
every relevant document :math:`R` of the query, and RecBole (``MAP@k``),
Microsoft Recommenders (``map_at_k``) and Spark MLlib
(``RankingMetrics.meanAveragePrecisionAt(k)``) by :math:`\min(k, R)`, so that a
list that fills its top ``k`` with relevant items scores 1:

================  ===============  ===================================
preset            AP@k divides by  the tool's name of the measure
================  ===============  ===================================
``trec_eval``     :math:`R`        ``map_cut_k`` (rankeval: ``AP@k``)
``recbole``       min(k, R)        ``MAP@k``
``recommenders``  min(k, R)        ``map_at_k``
``mllib``         min(k, R)        ``meanAveragePrecisionAt(k)``
================  ===============  ===================================

Their other conventions are trec_eval's defaults. On the 0/1 feedback these
tools are built for, that is what they compute too: the ideal ranking of nDCG@k
made from the user's relevant items (``ideal="judged"``), recall over every
relevant item. MLlib reads lists already ranked, and the other two sort scores
without a documented order of ties, so the presets keep trec_eval's order by
document id, which gives the same value on every machine.

``ir_measures`` is ``pytrec_eval`` (ir_measures computes trec_eval's measures with
pytrec_eval) with ``rbp_gain="grade"``: ir_measures' ``RBP`` without ``rel`` takes
a document's grade as its gain (its trectools provider), where rankeval's ``RBP``
is binary, as ir_measures' ``RBP(rel=1)`` is (see :func:`rankeval.rbp`).

``trec_eval`` is trec_eval 10; ``pytrec_eval`` is trec_eval 9 (9.0.8, the code
pytrec_eval bundles): it compares scores as 32-bit floats and turns the recall
levels of ``iprec_at_recall`` and ``11pt_avg`` into counts as
:math:`\lfloor rR + 0.9 \rfloor` (``recall_rounding="trec_eval9"``). These two
are the differences between the versions in the measures pytrec_eval computes:
under the preset, every one of them that rankeval has equals pytrec_eval's value
query by query (``tests/test_trec_eval_agreement.py``). pytrec_eval's per-query
``gm_map`` and ``gm_bpref`` are the logs of AP and bpref floored at 1e-5, the terms
of trec_eval's geometric mean; rankeval's columns hold AP and bpref, and
:func:`rankeval.aggregate` takes the same geometric mean of them.

:func:`rankeval.evaluate`, :class:`rankeval.Evaluator` and the distributed adapters
take one as ``conventions=`` (a preset's name or the object),
:func:`rankeval.evaluate_groups` a preset's name. Every keyword argument the caller
gives overrides the preset, one equal to trec_eval's default included
(``conventions="lightgbm", ties="trec_eval"`` orders ties by document id); a
keyword left out keeps the preset's value. :func:`resolve` is this one rule, which
every entry point calls with the keywords it was given; an unknown keyword is a
TypeError that names the allowed ones, and the old spelling ``convention=``
still works, with a FutureWarning.

Chapter: :doc:`/chapters/15_conventions`.
"""

from __future__ import annotations

import dataclasses
import difflib
import numbers
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from ..io.canonical import run_form
from ..measures import Measure
from ..ranking import check_options

__all__ = ["Conventions", "PRESETS", "MEASURE_PARAMS", "SETTINGS", "conventions", "resolve"]

#: The values of ``recall_rounding`` (the ``rounding`` of IPrec and 11pt_avg).
RECALL_ROUNDINGS = ("nearest", "trec_eval9")

#: The values of ``ap_denominator``: what AP@k divides by (trec_eval's first).
AP_DENOMINATORS = ("R", "min(k,R)")

#: The values of ``rbp_gain``: the gain of RBP that names neither rel nor max_grade.
RBP_GAINS = ("binary", "grade")

#: Conventions that set a measure parameter: convention -> the parameter's name in the
#: declarations (a measure without that parameter is left alone).
MEASURE_PARAMS = {"recall_rounding": "rounding", "ap_denominator": "cap",
                  "rbp_gain": "graded"}

#: The parameter's value for a convention's value, where they are not the same:
#: convention -> {convention's value: parameter's value}.
PARAM_VALUES = {"ap_denominator": {"R": False, "min(k,R)": True},
                "rbp_gain": {"binary": False, "grade": True}}

#: The parameters a measure names that fix what a convention would set (RBP's gain is
#: fixed by its threshold rel or its scale max_grade): parameter -> those parameters.
FIXED_BY = {"graded": ("rel", "max_grade")}


@dataclass(frozen=True)
class Conventions:
    r"""Every convention of an evaluation; checked once, when made.

    ``ties``, ``ideal``, ``missing``, ``judged_only``, ``score_precision``,
    ``grades`` and ``max_docs`` are the keyword arguments of the same names of
    :func:`rankeval.evaluate`, with the same values and defaults (``missing=None``:
    chosen by the form of the run; ``grades=None``: fractional grades kept, and dicts
    that look swapped refused; see :func:`rankeval.evaluate`).

    Attributes
    ----------
    threshold : float
        A grade ``>= threshold`` is relevant for the binary measures.
    gain : {"linear", "exponential"} or tuple of float
        Gain of nDCG and DCG measures that do not name their own: the grade,
        :math:`2^g - 1`, or a gain per whole grade (LightGBM's ``label_gain``).
    no_relevant : float or None
        Value of every measure bounded by [0, 1] for a query with no relevant
        document; None: the measure's own value (0 for nDCG).
    recall_rounding : {"nearest", "trec_eval9"}
        How interpolated precision (``IPrec@r``, trec_eval's
        ``iprec_at_recall``) and ``11pt_avg`` turn a recall level :math:`r`
        into a number of relevant documents :math:`c`, given a query's
        :math:`R` relevant documents: ``"nearest"`` (the default, data
        independent: trec_eval 10's ``lround``): :math:`rR` rounded to the
        nearest count, halves away from zero; ``"trec_eval9"`` (trec_eval 9 and pytrec_eval):
        :math:`c = \lfloor rR + 0.9 \rfloor`, :math:`rR + 0.9` computed in
        doubles. They differ when the fractional part of :math:`rR` lies in
        [0.1, 0.5): at :math:`R = 3`, level 0.4 reads the 2nd relevant
        document under ``"trec_eval9"`` and the 1st under ``"nearest"``. A
        measure that names its own ``rounding`` keeps it, ``"nearest"``
        included (``"IPrec(rounding='nearest')@0.4"`` is trec_eval 10's under
        every preset).
    ap_denominator : str
        What AP with a cut-off, ``AP@k``, divides its sum of precisions by,
        given a query's :math:`R` relevant documents: ``"R"`` (the default,
        data independent: trec_eval's ``map_cut``, which never exceeds
        :math:`k / R`), or ``"min(k,R)"``, the recommender MAP@k of RecBole
        (``MAP@k``), Microsoft Recommenders (``map_at_k``) and Spark MLlib
        (``meanAveragePrecisionAt(k)``), under which a top ``k`` made only of
        relevant items scores 1 however many more the user has. It sets AP's
        ``cap`` parameter (``"min(k,R)"`` is ``AP(cap=True)@k``); a measure that
        names its own ``cap`` keeps it (``"AP(cap=False)@10"`` divides by
        :math:`R` under every preset), and AP without a cut-off is the same
        under both (:math:`\min(\infty, R) = R`).
    rbp_gain : {"binary", "grade"}
        The gain of ``RBP`` when the measure names neither ``rel`` nor
        ``max_grade``: ``"binary"`` (the default, rankeval's and Moffat and
        Zobel's: 1 for a grade at least ``threshold``; ir_measures'
        ``RBP(rel=1)``), or ``"grade"``, the grade itself (ir_measures' ``RBP``
        without ``rel``, computed by its trectools provider; values are then
        not bounded by 1). It sets RBP's ``graded`` parameter; a measure that
        names ``graded``, ``rel`` or ``max_grade`` keeps its own gain.

    Notes
    -----
    The measure parameters a convention sets are listed in ``MEASURE_PARAMS``
    (convention -> parameter); ``apply`` gives them to the measures.
    """

    threshold: float = 1
    ties: str = "trec_eval"
    ideal: str = "judged"
    missing: str | None = None
    judged_only: bool = False
    score_precision: str = "double"
    grades: str | None = None
    max_docs: int | None = None
    gain: object = "linear"
    no_relevant: float | None = None
    recall_rounding: str = "nearest"
    ap_denominator: str = "R"
    rbp_gain: str = "binary"

    def __post_init__(self):
        threshold = check_options(
            threshold=self.threshold, ties=self.ties, judged_only=self.judged_only,
            missing="skip" if self.missing is None else self.missing, ideal=self.ideal,
            score_precision=self.score_precision,
            grades="float" if self.grades is None else self.grades, max_docs=self.max_docs,
        )  # fmt: skip
        object.__setattr__(self, "threshold", threshold)
        gain = self.gain
        if isinstance(gain, str):
            if gain not in ("linear", "exponential"):
                raise ValueError(
                    f"gain must be 'linear', 'exponential' or a sequence of gains per label "
                    f"(LightGBM's label_gain), got {gain!r}"
                )
        else:
            table = np.asarray(gain, dtype=np.float64)
            if table.ndim != 1 or table.size == 0 or not np.all(np.isfinite(table)):
                raise ValueError(
                    "gain as a sequence (LightGBM's label_gain) must be finite numbers"
                )
            object.__setattr__(self, "gain", tuple(table.tolist()))
        no_relevant = self.no_relevant
        if no_relevant is not None:
            if isinstance(no_relevant, (bool, np.bool_)) or not isinstance(
                no_relevant, numbers.Real
            ):
                raise TypeError(f"no_relevant must be a number or None, got {no_relevant!r}")
            if not np.isfinite(no_relevant):
                raise ValueError(f"no_relevant must be finite, got {no_relevant}")
            object.__setattr__(self, "no_relevant", float(no_relevant))
        if self.recall_rounding not in RECALL_ROUNDINGS:
            raise ValueError(
                f"recall_rounding must be one of {', '.join(map(repr, RECALL_ROUNDINGS))}, "
                f"got {self.recall_rounding!r}"
            )
        if self.ap_denominator not in AP_DENOMINATORS:
            raise ValueError(
                f"ap_denominator must be one of {', '.join(map(repr, AP_DENOMINATORS))} "
                f"(trec_eval's map_cut, or the recommender MAP@k of RecBole, Microsoft "
                f"Recommenders and Spark MLlib), got {self.ap_denominator!r}"
            )
        if self.rbp_gain not in RBP_GAINS:
            raise ValueError(
                f"rbp_gain must be one of {', '.join(map(repr, RBP_GAINS))} (RBP's gain: 1 "
                f"for a relevant grade, or the grade itself as in ir_measures' RBP), got "
                f"{self.rbp_gain!r}"
            )

    def replace(self, **changes) -> Conventions:
        """A copy with some conventions changed (checked again)."""
        return dataclasses.replace(self, **changes)

    def ranking_options(self, run=None, columns=None) -> dict:
        """The keyword arguments of :func:`rankeval.rank_run` among these conventions.

        ``missing=None`` becomes ``"zero"`` for a run of ranked lists and ``"skip"``
        for any other, as :func:`rankeval.evaluate` reads ``run`` (and ``columns``)
        for its ``missing``; ``"skip"`` without a run. ``grades=None`` becomes
        ``"float"``.
        """
        names = ("threshold", "ties", "ideal", "missing", "judged_only", "score_precision",
                 "grades", "max_docs")  # fmt: skip
        options = {name: getattr(self, name) for name in names}
        if self.missing is None:
            positions = run is not None and run_form(run, columns) == "positions"
            options["missing"] = "zero" if positions else "skip"
        if self.grades is None:
            options["grades"] = "float"
        return options

    def apply(self, measures) -> list:
        """The parsed ``measures``, each given the measure parameters that these
        conventions set (``MEASURE_PARAMS``) where its declaration has the
        parameter, the convention differs from its default, and the measure does
        not name its own value (the parameter's default is None, so that a value
        named in the measure, the convention's default included, is kept).
        ``PARAM_VALUES`` translates a convention's value into the parameter's
        (``ap_denominator="min(k,R)"`` is ``cap=True``); AP's ``cap`` is given
        only to AP with a cut-off (without one, both denominators are R), and
        RBP's ``graded`` only to RBP that names neither ``rel`` nor ``max_grade``
        (``FIXED_BY``)."""
        out = []
        for m in measures:
            extra = {}
            for convention, param in MEASURE_PARAMS.items():
                value = getattr(self, convention)
                if (m.declaration.param(param) is not None and param not in m.param
                        and value != getattr(_DEFAULT, convention)):
                    if param == "cap" and m.cutoff is None:
                        continue
                    if any(name in m.param for name in FIXED_BY.get(param, ())):
                        continue
                    extra[param] = PARAM_VALUES.get(convention, {}).get(value, value)
            if extra:
                m = Measure(m.name, m.cutoff, tuple(sorted({**m.param, **extra}.items())))
            out.append(m)
        return out


#: The conventions of nine tools (see the module's tables).
PRESETS = {
    "trec_eval": Conventions(),
    "pytrec_eval": Conventions(score_precision="float", recall_rounding="trec_eval9"),
    "sklearn": Conventions(ties="average", ideal="retrieved"),
    "lightgbm": Conventions(ties="input", ideal="retrieved", gain="exponential",
                            no_relevant=1.0),
    "xgboost": Conventions(ties="input", ideal="retrieved", gain="exponential",
                           no_relevant=1.0),
    # the recommender MAP@k: RecBole's MAP@k, Microsoft Recommenders' map_at_k, Spark
    # MLlib's RankingMetrics.meanAveragePrecisionAt(k); otherwise trec_eval's
    "recbole": Conventions(ap_denominator="min(k,R)"),
    "recommenders": Conventions(ap_denominator="min(k,R)"),
    "mllib": Conventions(ap_denominator="min(k,R)"),
    # pytrec_eval's (ir_measures' provider of trec_eval's measures), and the gain of its
    # RBP without rel: the grade (its trectools provider)
    "ir_measures": Conventions(score_precision="float", recall_rounding="trec_eval9",
                               rbp_gain="grade"),
}  # fmt: skip

_DEFAULT = Conventions()

#: Every setting a keyword argument can give: the fields of :class:`Conventions`.
SETTINGS = tuple(f.name for f in dataclasses.fields(Conventions))

#: The settings that :func:`rankeval.evaluate` takes as keyword arguments: every one.
EVALUATE_SETTINGS = SETTINGS


class _Unset:
    """The default of a keyword argument the caller did not give; its repr is the
    documented default, so that signatures read as before (``threshold=1``)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


#: The defaults of the keyword arguments of the settings, which say "not given" (the
#: entry points' signatures: ``threshold=UNSET["threshold"]``, shown as ``threshold=1``)
UNSET = {f.name: _Unset(repr(f.default)) for f in dataclasses.fields(Conventions)}
#: The default of a keyword whose value, when not given, is the preset's
PRESET_S = _Unset("<the preset's>")


def given(**keywords) -> dict:
    """The keyword arguments that the caller gave: those whose value is not one of
    ``UNSET``."""
    return {k: v for k, v in keywords.items() if not isinstance(v, _Unset)}


def conventions(preset=None, /, **given) -> Conventions:
    """The conventions of ``preset`` (a name of :data:`PRESETS`, a :class:`Conventions`,
    or None for trec_eval's), with every ``given`` setting applied over it:
    :func:`resolve` with every field of :class:`Conventions` allowed."""
    return resolve(preset, given)


def resolve(preset, given, *, allowed=SETTINGS, others=(), caller=None) -> Conventions:
    """The one resolution of an evaluation's conventions, which every entry point calls.

    Parameters
    ----------
    preset : str, Conventions or None
        A name of :data:`PRESETS`, a :class:`Conventions`, or None (trec_eval's).
    given : dict
        The keyword arguments the caller gave, and only those: each is applied over
        the preset, a value equal to trec_eval's default included. ``convention``
        is the old spelling of ``preset`` (a FutureWarning).
    allowed : sequence of str, default=SETTINGS
        The settings the entry point takes as keywords.
    others : sequence of str, default=()
        The entry point's other keyword arguments (named in the error of an unknown
        keyword, and suggested for a misspelt one).
    caller : str, optional
        The entry point's name, for the messages.

    Returns
    -------
    Conventions
        Frozen and checked.

    Raises
    ------
    TypeError
        A keyword that is not ``allowed``: the message names the allowed ones and
        the closest (``tie`` -> ``ties``); ``convention=`` with ``conventions=``.
    ValueError
        An unknown preset, or a setting out of range.

    Examples
    --------
    >>> resolve("lightgbm", {"ties": "trec_eval"}).ties  # given, so it overrides
    'trec_eval'
    >>> resolve("lightgbm", {}).ties
    'input'
    """
    preset, given = renamed(preset, given, caller)
    unknown = [k for k in given if k not in allowed]
    if unknown:
        raise TypeError(unknown_keyword(unknown[0], (*allowed, *others, "conventions"), caller))
    if preset is None:
        base = _DEFAULT
    elif isinstance(preset, Conventions):
        base = preset
    elif isinstance(preset, str) and preset in PRESETS:
        base = PRESETS[preset]
    else:
        raise ValueError(
            f"conventions must be one of {', '.join(map(repr, PRESETS))} or a "
            f"rankeval.Conventions, got {preset!r}"
        )
    return base.replace(**given) if given else base


def renamed(preset, given, caller=None):
    """``(preset, given)`` with the old spelling ``convention=`` in ``given`` moved to
    ``preset``, with a FutureWarning that names ``conventions=``."""
    if "convention" not in given:
        return preset, given
    given = dict(given)
    old = given.pop("convention")
    if preset is not None:
        raise TypeError(
            f"{f'{caller}() got ' if caller else ''}conventions={preset!r} and "
            f"convention={old!r}: convention= is the old spelling of conventions=; give "
            "conventions= only"
        )
    warnings.warn(
        f"convention= is deprecated; write conventions={old!r} (the one spelling of "
        "every entry point of rankeval)",
        FutureWarning, stacklevel=_outside_stacklevel(),
    )  # fmt: skip
    return old, given


def unknown_keyword(name, allowed, caller=None) -> str:
    """The message of an unknown keyword ``name``: the allowed ones and the closest."""
    close = difflib.get_close_matches(name, allowed, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    call = f"{caller}() got an" if caller else "an"
    return (f"{call} unexpected keyword argument {name!r}{hint}; the keywords are "
            f"{', '.join(sorted(set(allowed)))}")


def _outside_stacklevel() -> int:
    """The stacklevel of a warning that points at the first caller outside rankeval."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("rankeval"):
        frame, level = frame.f_back, level + 1
    return level
