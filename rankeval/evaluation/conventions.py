r"""The conventions where evaluation tools differ, as one frozen, validated object.

A :class:`Conventions` holds every choice that changes a number without changing
the measure's name: the relevance threshold, the order of tied scores, where the
ideal ranking comes from, what a query the run lacks scores, whether unjudged
documents count, the precision of scores and grades, a depth, the gain of nDCG
and DCG, and the value of a query with no relevant document. It is checked once,
when it is made; :data:`PRESETS` names the choices of five tools:

===============  ===========  =========  ===========  ===========  ============
preset           ties         ideal      scores       gain         no relevant
===============  ===========  =========  ===========  ===========  ============
``trec_eval``    by doc id    judged     double       linear       own value
``pytrec_eval``  by doc id    judged     float32      linear       own value
``sklearn``      averaged     retrieved  double       linear       own value
``lightgbm``     input order  retrieved  double       2^l - 1      1
``xgboost``      input order  retrieved  double       2^l - 1      1
===============  ===========  =========  ===========  ===========  ============

:func:`rankeval.evaluate` takes one as ``conventions=`` (a preset's name or the
object); its keyword arguments that differ from their defaults override it.
:func:`rankeval.evaluate_groups` takes a preset's name as ``convention=``.

Chapter: :doc:`/chapters/15_conventions`.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass

import numpy as np

from ..io.canonical import run_form
from ..ranking import check_options

__all__ = ["Conventions", "PRESETS", "conventions"]


@dataclass(frozen=True)
class Conventions:
    """Every convention of an evaluation; checked once, when made.

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


#: The conventions of five tools (see the module's table).
PRESETS = {
    "trec_eval": Conventions(),
    "pytrec_eval": Conventions(score_precision="float"),
    "sklearn": Conventions(ties="average", ideal="retrieved"),
    "lightgbm": Conventions(ties="input", ideal="retrieved", gain="exponential",
                            no_relevant=1.0),
    "xgboost": Conventions(ties="input", ideal="retrieved", gain="exponential",
                           no_relevant=1.0),
}  # fmt: skip

_DEFAULT = Conventions()


def conventions(preset=None, **given) -> Conventions:
    """The conventions of ``preset`` (a name of :data:`PRESETS`, a :class:`Conventions`,
    or None for trec_eval's), with every ``given`` value that differs from the
    default applied over it."""
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
    changes = {k: v for k, v in given.items() if not _same(v, getattr(_DEFAULT, k))}
    return base.replace(**changes) if changes else base


def _same(a, b) -> bool:
    def number(x):
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    if number(a) and number(b):  # threshold=1 is the default 1.0, not a change
        return a == b
    return type(a) is type(b) and a == b
