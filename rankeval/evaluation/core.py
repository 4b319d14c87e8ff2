"""The scoring core: parsed measures + a ranked run -> per-query values.

:func:`rankeval.evaluate`, :func:`rankeval.evaluate_groups` and the distributed
partitions (through ``evaluate``) all score with :func:`score_ranked`: the queries
are cut into blocks whose padded matrices fit a budget of cells, and every
measure's declaration scores each block. :func:`rankeval.evaluate_diversity` scores
its subtopic blocks with the same declarations' ``score``.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np

from ..measures import Measure, parse_measure, parse_measures
from ..metrics.declaration import check_gains
from ..ranking import RankedRun

__all__ = ["CELL_BUDGET", "measures_and_labels", "check_needs", "check_tie_averaging",
           "with_gain", "score_ranked", "SkippedQueriesWarning", "warn_skipped",
           "queries_in_run"]  # fmt: skip

CELL_BUDGET = 1 << 24  # cells of one padded (queries x depth) matrix per block


def measures_and_labels(measures):
    """The parsed measures, each once, and the result's columns ``[(label, i)]``: one
    column per name asked for, in the order asked, ``i`` the position of its measure
    in the parsed list. Each name is parsed once.

    Two spellings of one measure (``"MRR"`` and ``"RR"``) are two columns with the
    same values, so that every name asked for comes back; a name repeated exactly
    (after stripping spaces) is one column.
    """
    # one measure: a name, a Measure, or an object such as ir_measures' nDCG@10 (no __iter__)
    single = isinstance(measures, (str, Measure)) or not hasattr(measures, "__iter__")
    items = [measures] if single else list(measures)
    if not items:
        parse_measures(items)  # its message for an empty list
    parsed, columns = {}, {}
    for item in items:
        label = item.strip() if isinstance(item, str) else str(item)
        if label not in columns:
            columns[label] = parsed.setdefault(parse_measure(item), len(parsed))
    return list(parsed), list(columns.items())


def check_needs(measures, needs: str) -> None:
    """Refuse measures that read other inputs than ``needs`` (a ranking, or subtopics)."""
    for m in measures:
        if m.declaration.needs != needs:
            if needs == "ranking":
                raise ValueError(
                    f"{str(m)!r} is a diversity measure: it needs subtopic judgments; use "
                    "rankeval.evaluate_diversity (or the command line's --subtopics)"
                )
            raise ValueError(
                f"unknown diversity measure {str(m)!r}: use alpha-nDCG@k, alpha-DCG@k, "
                "ERR-IA@k or nERR-IA@k with a cut-off k >= 1 (ndeval's names; ir_measures' "
                "alpha_nDCG@k, ERR_IA@k, ... work too)"
            )


def check_tie_averaging(measures, advice: str = "") -> None:
    """Refuse ``ties="average"`` for a measure not declared for it (``advice`` is
    added to the message)."""
    bad = [str(m) for m in measures if not m.declaration.tie_averaging]
    if bad:
        ok = " and ".join(d.name for d in _tie_averaged())
        raise ValueError(
            f"ties='average' (scikit-learn's tie-averaged gains) is defined for {ok} "
            f"only, not for {', '.join(bad)}{advice}"
        )


def _tie_averaged():
    from ..measures import DECLARATIONS

    return [d for d in DECLARATIONS.values() if d.tie_averaging]


def score_ranked(measures, ranked, threshold: float, max_cells: int = CELL_BUDGET) -> dict:
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


def with_gain(parsed, gain) -> list:
    """The measures, those declared with a gain parameter given the conventions' ``gain``
    unless they name their own (``"nDCG(gain='linear')@10"`` keeps its gain).

    ``gain`` is ``"linear"``, ``"exponential"`` or a tuple of gains per whole grade
    (LightGBM's ``label_gain``; ``Plan.check_grades``
    checks that the grades are whole numbers it covers).
    """
    extra = {}
    if isinstance(gain, str):
        if gain == "exponential":
            extra = {"gain": "exponential"}
    else:
        table = np.asarray(gain, dtype=np.float64)
        extra = {"gains": check_gains({i: v for i, v in enumerate(table.tolist())},
                                      "label_gain")}  # fmt: skip
        if not extra["gains"]:
            extra = {}
    out = []
    for m in parsed:
        own = {"gain", "gains"} & set(m.param)
        if m.declaration.gain and extra and not own:
            m = Measure(m.name, m.cutoff, tuple(sorted({**m.param, **extra}.items())))
        out.append(m)
    return out


class SkippedQueriesWarning(UserWarning):
    """Judged queries that the run lacks were left out of the table, and so of every
    mean: :func:`rankeval.evaluate`'s ``missing=None`` chose ``"skip"``, trec_eval's
    rule, for a run given with scores.

    Attributes
    ----------
    skipped : int
        How many judged queries were left out.
    judged : int
        How many queries the qrels judge.

    Notes
    -----
    ``missing="skip"`` leaves them out without this warning; ``missing="zero"``
    scores each as an empty ranking. :meth:`rankeval.Evaluator.compute` warns the
    same way for the judged queries it never received.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> import warnings
    >>> import rankeval
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     table = rankeval.evaluate(qrels, {"q1": {"a": 0.5}}, ["P@1"])
    >>> len(table), caught[0].message.skipped, caught[0].message.judged
    (1, 1, 2)
    """

    def __init__(self, message: str, skipped: int = 0, judged: int = 0):
        super().__init__(message)
        self.skipped, self.judged = skipped, judged


def warn_skipped(skipped: int, judged: int) -> None:
    """Warn that ``skipped`` of ``judged`` judged queries left the table (nothing when 0).

    The warning points at the first caller outside rankeval (the line that called
    :func:`rankeval.evaluate`, or :meth:`rankeval.Evaluator.compute`).
    """
    if not skipped:
        return
    message = (
        f"{skipped} of the {judged} judged queries have no ranking in the run and are left "
        "out of the table and of its means (missing=None leaves them out for a run given "
        "with scores, as trec_eval does); pass missing='zero' to count each as an empty "
        "ranking (0 for P, R, nDCG, AP, RR), or missing='skip' to leave them out without "
        "this warning"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # rankeval/
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(root):
        frame, level = frame.f_back, level + 1
    warnings.warn(SkippedQueriesWarning(message, skipped, judged), stacklevel=level)


def queries_in_run(ranked: RankedRun) -> RankedRun:
    """The queries of ``ranked`` that the run holds (``in_run``), as ``missing="skip"``
    ranks them: the others (brought in by ``missing="zero"``) have no ranked document,
    so the ranked rows stay as they are and only the per-query arrays shrink."""
    keep = ranked.in_run
    if keep.all():
        return ranked
    lengths = ranked.lengths
    if lengths[~keep].any():
        raise AssertionError("a query outside the run has ranked documents")
    judged_lengths = np.diff(ranked.judged_offsets)
    return RankedRun(
        query_ids=ranked.query_ids[keep],
        grades=ranked.grades,
        offsets=np.concatenate(([0], np.cumsum(lengths[keep]))).astype(np.int64),
        scores=ranked.scores,
        threshold=ranked.threshold,
        ideal=ranked.ideal,
        tie_groups=ranked.tie_groups,
        judged=ranked.judged[np.repeat(keep, judged_lengths)],
        judged_offsets=np.concatenate(([0], np.cumsum(judged_lengths[keep]))).astype(np.int64),
        in_run=keep[keep],
    )
