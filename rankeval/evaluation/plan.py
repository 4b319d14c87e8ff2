"""One request, resolved once: the measures and the conventions of an evaluation.

A :class:`Plan` is made once per request, from the measure names and the
conventions (a preset and the keyword arguments given, through
:func:`rankeval.evaluation.conventions.resolve`): the names are parsed and checked
once, each column knows its :class:`~rankeval.Measure`, its aggregation and its
direction, and the conventions' measure parameters (the gain of nDCG and DCG, the
recall rounding of ``IPrec``, what ``AP@k`` divides by, RBP's gain) are given to the
measures once. Every entry point is
an adapter over it: :func:`rankeval.evaluate` and each batch of its bounded path,
the command line, :func:`rankeval.evaluate_groups`, :class:`rankeval.Evaluator`, and
the Dask and Spark partitions, which receive the plan itself (it is frozen and
pickles).

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..metrics.judged import is_judged
from .conventions import SETTINGS, Conventions, resolve
from .core import (
    CELL_BUDGET,
    check_needs,
    check_tie_averaging,
    measures_and_labels,
    score_ranked,
    with_gain,
)

__all__ = ["Plan", "plan", "make_plan"]

#: The advice of evaluate's message when ties="average" meets a measure not defined for it
SEPARATE_CALL = "; evaluate those with ties='trec_eval' or ties='input' in a separate call"


@dataclass(frozen=True)
class Plan:
    r"""What one evaluation computes: its measures, its columns and its conventions.

    Make it with :func:`rankeval.plan`; it is frozen, compares by value and pickles,
    so that one object can be shipped to every partition of a distributed
    evaluation and every batch of a bounded one.

    Attributes
    ----------
    measures : tuple of rankeval.Measure
        The measures scored, each once, with the measure parameters that the
        conventions set (the gain of nDCG and DCG, the ``rounding`` of ``IPrec``
        and ``11pt_avg``, the ``cap`` of ``AP@k``, RBP's ``graded``) where the
        measure does not name its own.
    columns : tuple of (str, int)
        One column per name asked for, in the order asked: its label (the name as
        given) and the position of its measure in ``measures``.
    conventions : rankeval.Conventions
        The resolved conventions (a preset and the keywords given over it).
    needs : {"ranking", "subtopics"}
        What the measures read.

    Notes
    -----
    ``labels``, ``column_measures``, ``aggregations`` and ``lower_is_better`` give
    each column's label, measure, aggregation (``"mean"``, ``"sum"`` or
    ``"gmean"``) and direction, read from the registry's declarations.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> import pickle
    >>> import rankeval
    >>> p = rankeval.plan(["nDCG@10", "MR@10"], conventions="lightgbm")
    >>> [str(m) for m in p.measures]
    ["nDCG(dcg='exp-log2')@10", 'MR@10']
    >>> p.labels, p.lower_is_better
    (('nDCG@10', 'MR@10'), {'nDCG@10': False, 'MR@10': True})
    >>> pickle.loads(pickle.dumps(p)) == p
    True
    >>> qrels = {"q1": {"a": 2, "b": 1}}
    >>> table = rankeval.evaluate(qrels, {"q1": {"a": 0.2, "b": 0.9}}, p)
    >>> table.loc["q1"].round(4).to_dict()
    {'nDCG@10': 0.7967, 'MR@10': 1.5}
    """

    measures: tuple
    columns: tuple
    conventions: Conventions
    needs: str = "ranking"

    @property
    def labels(self) -> tuple:
        """The columns' labels, in order."""
        return tuple(label for label, _ in self.columns)

    @property
    def column_measures(self) -> dict:
        """``{label: Measure}``, in the order of the columns."""
        return {label: self.measures[i] for label, i in self.columns}

    @property
    def aggregations(self) -> dict:
        """``{label: "mean" | "sum" | "gmean"}``: how each column combines over queries."""
        return {label: m.aggregate for label, m in self.column_measures.items()}

    @property
    def lower_is_better(self) -> dict:
        """``{label: bool}``: whether a smaller value of the column is the better one."""
        return {label: m.lower_is_better for label, m in self.column_measures.items()}

    def replace(self, **conventions) -> Plan:
        """This plan with some conventions changed (checked again); the measures stay as
        they are, so the conventions that set a measure parameter or decide which
        measures are allowed (``gain``, ``recall_rounding``, ``ap_denominator``,
        ``rbp_gain``, ``ties``) may not change."""
        setting = {"gain", "recall_rounding", "ap_denominator", "rbp_gain",
                   "ties"} & set(conventions)
        if setting:
            raise ValueError(f"{', '.join(sorted(setting))}: these decide the measures of the "
                             "plan; make a new plan (rankeval.plan) instead")
        return dataclasses.replace(self, conventions=self.conventions.replace(**conventions))

    def check_grades(self, grades, name=None) -> None:
        """A ValueError unless every judged grade is a whole number that the conventions'
        table of gains (LightGBM's ``label_gain``) covers; nothing for a named gain."""
        gain = self.conventions.gain
        if isinstance(gain, str) or grades is None:
            return
        size = len(gain)
        g = np.asarray(grades, dtype=np.float64)
        g = g[is_judged(g)]
        bad = (g != np.round(g)) | (g >= size)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            where = f"{name}[{i}] is" if name else "a grade of"
            raise ValueError(
                f"{where} {g[i]:g}: with a label_gain table of {size} gains the "
                f"{name or 'grades'} must be whole numbers 0..{size - 1}"
            )

    def check_defined(self, ranked) -> None:
        """A ValueError for a measure with no value on an empty ranking (MR, FRP without a
        cut-off: rank positions, unbounded above) when a query of ``ranked`` has no ranked
        document; a lower-is-better share (FallOut) is 0 there."""
        empty = np.flatnonzero(ranked.lengths == 0)
        if empty.size:
            undefined = [str(m) for m in self.measures if m.lower_is_better and m.cutoff is None
                         and m.declaration.bounds[1] == np.inf]
            if undefined:
                raise ValueError(
                    f"{', '.join(undefined)} without a cut-off has no value for query "
                    f"{ranked.query_ids[empty[0]]!r}, which has no ranked document "
                    "(judged but not in the run, counted by missing='zero', the default for "
                    "ranked lists; or left empty by judged_only=True); give a cut-off, e.g. "
                    f"{undefined[0]}@1000, so that it scores k + 1"
                )

    def score(self, ranked, max_cells: int = CELL_BUDGET) -> dict:
        """Every measure's values on the queries of ``ranked`` (a RankedRun),
        ``{measure: array}``, with the conventions' ``no_relevant`` applied."""
        values = score_ranked(self.measures, ranked, ranked.threshold, max_cells)
        no_relevant = self.conventions.no_relevant
        if no_relevant is not None:
            empty = ranked.max_judged_grade() <= 0
            if empty.any():
                for m in self.measures:
                    # a share of the relevant found, not one that is lower-is-better
                    # (Unj, FallOut: defined, and not a matter of convention, there)
                    if (m.declaration.bounds == (0.0, 1.0) and m.aggregate == "mean"
                            and not m.lower_is_better):
                        values[m][empty] = no_relevant
        return values

    def frame(self, values: dict, ids, index_name: str = "query_id"):
        """The table of ``values`` (from :meth:`score`): one column per label, indexed by
        ``ids``; ``attrs["rankeval.measures"]`` names each column's measure."""
        import pandas as pd

        frame = pd.DataFrame({label: values[self.measures[i]] for label, i in self.columns})
        frame.attrs["rankeval.measures"] = {label: str(self.measures[i])
                                            for label, i in self.columns}  # fmt: skip
        frame.index = pd.Index(ids, name=index_name,
                               dtype=ids.dtype if ids.dtype.kind == "i" else object)
        return frame


def make_plan(measures, conventions=None, given=None, *, allowed=SETTINGS, others=(),
              caller=None, needs="ranking", advice=SEPARATE_CALL, labels=None) -> Plan:  # fmt: skip
    """The plan of one request: the conventions resolved (``conventions`` and the
    keywords ``given``, by :func:`~rankeval.evaluation.conventions.resolve`), then the
    measures parsed and checked once.

    ``allowed``, ``others`` and ``caller`` are the resolver's; ``advice`` is added to the
    message of a measure not defined for ``ties="average"``. ``labels``: the columns'
    labels, one per measure of ``measures`` (Measure objects), when the caller names
    them itself (the command line's trec_eval names).
    """
    chosen = resolve(conventions, dict(given or {}), allowed=allowed, others=others,
                     caller=caller)  # fmt: skip
    if labels is None:
        parsed, columns = measures_and_labels(measures)
    else:
        parsed = list(dict.fromkeys(measures))
        columns = tuple((label, parsed.index(m)) for label, m in zip(labels, measures,
                                                                      strict=True))
    return build(parsed, columns, chosen, needs=needs, advice=advice)


def build(parsed, columns, chosen: Conventions, *, needs="ranking", advice="") -> Plan:
    """A plan of parsed measures: checked for ``needs`` and ``ties="average"``, given the
    conventions' measure parameters."""
    check_needs(parsed, needs)
    if needs == "ranking":
        parsed = chosen.apply(parsed)  # the measure parameters a convention sets
        if chosen.ties == "average":
            check_tie_averaging(parsed, advice)
        if chosen.gain != "linear":
            parsed = with_gain(parsed, chosen.gain)
    return Plan(tuple(parsed), tuple(columns), chosen, needs)


def plan(measures, conventions=None, **settings) -> Plan:
    r"""The plan of an evaluation: measures parsed once, conventions resolved once.

    Parameters
    ----------
    measures : str, Measure or list of them
        Measure names, as for :func:`rankeval.evaluate`.
    conventions : str or Conventions, optional
        A preset (``"trec_eval"``, ``"pytrec_eval"``, ``"sklearn"``,
        ``"lightgbm"``, ``"xgboost"``, ``"recbole"``, ``"recommenders"``,
        ``"mllib"``, ``"ir_measures"``) or a :class:`~rankeval.Conventions`.
    **settings
        Any field of :class:`~rankeval.Conventions` (``threshold``, ``ties``,
        ``ideal``, ``missing``, ``judged_only``, ``score_precision``, ``grades``,
        ``max_docs``, ``gain``, ``no_relevant``, ``recall_rounding``,
        ``ap_denominator``, ``rbp_gain``): each one given
        overrides the preset, one equal to its default included.

    Returns
    -------
    Plan
        Frozen and picklable; :func:`rankeval.evaluate`, :class:`rankeval.Evaluator`
        and :func:`rankeval.dask.evaluate` / :func:`rankeval.spark.evaluate` take it in
        the place of the measures (then without conventions of their own).

    Raises
    ------
    ValueError
        An unknown measure or preset, a setting out of range, a diversity measure,
        ``ties="average"`` with a measure other than nDCG and DCG.
    TypeError
        An unknown keyword (the message names the allowed ones and the closest).

    Notes
    -----
    Every entry point makes or takes one plan: :func:`rankeval.evaluate` (and each
    batch of a run file read within ``max_memory``), the command line (its flags
    are the settings), :func:`rankeval.evaluate_groups`,
    :class:`rankeval.Evaluator`, and the Dask and Spark adapters, which make it on
    the driver and ship it to every partition. A plan made once and given to
    several of them computes the same columns under the same conventions.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> import rankeval
    >>> p = rankeval.plan(["P@1", "RR"], conventions="lightgbm", ties="trec_eval")
    >>> p.conventions.ties, p.aggregations
    ('trec_eval', {'P@1': 'mean', 'RR': 'mean'})
    >>> rankeval.evaluate({"q1": {"a": 1}}, {"q1": {"a": 0.5, "b": 0.9}}, p)
              P@1   RR
    query_id
    q1        0.0  0.5
    """
    return make_plan(measures, conventions, settings, caller="plan")


def given_plan(measures, conventions, settings, caller) -> Plan | None:
    """``measures`` when it is a Plan, with no conventions or settings beside it (a
    TypeError otherwise: the plan holds them); else None."""
    if not isinstance(measures, Plan):
        return None
    extra = (["conventions"] if conventions is not None else []) + list(settings)
    if extra:
        raise TypeError(
            f"{caller}() got a Plan and {', '.join(extra)}: a Plan holds its conventions; "
            "give them to rankeval.plan(measures, conventions=..., ...)"
        )
    return measures
