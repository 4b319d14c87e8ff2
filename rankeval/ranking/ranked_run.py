"""The result of the ranking step, :class:`rankeval.RankedRun`: its fields, its
slices and its blocks of queries. Its two other parts are its grades as matrices
(:mod:`rankeval.ranking.ranked_grades`) and what the judgments say about each query
(:mod:`rankeval.ranking.judgment_counts`); it implements the ranked-block interface
that the metric kernels read (:class:`rankeval.metrics.block.RankedBlock`).

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .judgment_counts import JudgmentCounts
from .ranked_grades import RankedGrades

__all__ = ["RankedRun"]


@dataclass(frozen=True, eq=False)
class RankedRun(RankedGrades, JudgmentCounts):
    r"""Every query's retrieved documents in rank order, with their grades.

    Build it with :func:`rank_run`. The ``n`` queries are in ``query_ids``
    order; query ``i``'s ranked grades are ``grades[offsets[i]:offsets[i+1]]``.

    Its methods come in two parts: the ranked grades as the metric functions take
    them (:meth:`padded`, :meth:`ragged`, :meth:`tie_groups_padded`), and what the
    judgments say about each query (:meth:`n_relevant`, :meth:`n_judged`,
    :meth:`n_judged_nonrelevant`, :meth:`max_judged_grade`, :meth:`ideal_grades`,
    :meth:`grade_counts`, :meth:`checked_pool`).

    Attributes
    ----------
    query_ids : ndarray of shape (n,)
        Query ids, sorted: strings by their UTF-8 bytes (as C's ``strcmp``),
        integer ids (``int64``) numerically.
    grades : ndarray of float64
        The grades of all queries' ranked documents, query after query, best
        rank first. ``NaN`` marks a document the qrels do not judge; a
        negative grade (some TREC qrels use -1 or -2) is kept as given:
        trec_eval reads it as "in the pool but unjudged".
    offsets : ndarray of int64, shape (n + 1,)
        Where each query's ranking starts in ``grades``.
    scores : ndarray of float64
        The scores of the ranked documents, aligned with ``grades`` (rounded
        to 32-bit floats with ``score_precision="float"``).
    threshold : float
        The default relevance threshold (a grade ``>= threshold`` is relevant).
    ideal : {"judged", "retrieved"}
        Where the relevant counts and ideal lists come from (see
        :func:`rank_run`).
    tie_groups : ndarray of int64 or None
        With ``ties="average"``: for every ranked document, the number of its
        group of equal scores (increasing along the flat array); else None.
    judged : ndarray of float64
        The judged grades (``>= 0``) of every query, query after query, in no
        particular order within a query, ranked or not: where
        ``ideal="judged"`` takes relevant counts, judged counts and ideal
        lists from (trec_eval's view of the qrels).
    judged_offsets : ndarray of int64, shape (n + 1,)
        Where each query's grades start in ``judged``.
    in_run : ndarray of bool, shape (n,)
        True for a query with at least one line in the run; False for a query
        that only ``missing="zero"`` brings in (judged, never retrieved: trec_eval
        ``-c`` averages over it but ``-q`` prints no line for it).

    Chapter: :doc:`/chapters/14_evaluating_a_run`.
    """

    query_ids: np.ndarray
    grades: np.ndarray
    offsets: np.ndarray
    scores: np.ndarray
    threshold: float
    ideal: str
    tie_groups: np.ndarray | None
    judged: np.ndarray = field(repr=False)
    judged_offsets: np.ndarray = field(repr=False)
    in_run: np.ndarray | None = field(default=None, repr=False)  # None: every query
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.in_run is None:
            object.__setattr__(self, "in_run", np.ones(len(self.query_ids), dtype=bool))

    def __len__(self) -> int:
        return len(self.query_ids)

    @property
    def lengths(self) -> np.ndarray:
        """Number of ranked documents of every query (int64)."""
        return np.diff(self.offsets)

    def __getitem__(self, where) -> RankedRun:
        """The queries ``where`` (a slice with step 1) as a RankedRun of their own."""
        if not isinstance(where, slice) or where.step not in (None, 1):
            raise TypeError("a RankedRun is sliced with a contiguous slice, e.g. ranked[10:20]")
        start, stop, _ = where.indices(len(self))
        stop = max(start, stop)
        a, b = self.offsets[start], self.offsets[stop]
        ja, jb = self.judged_offsets[start], self.judged_offsets[stop]
        return RankedRun(
            self.query_ids[start:stop],
            self.grades[a:b],
            self.offsets[start : stop + 1] - a,
            self.scores[a:b],
            self.threshold,
            self.ideal,
            None if self.tie_groups is None else self.tie_groups[a:b],
            self.judged[ja:jb],
            self.judged_offsets[start : stop + 1] - ja,
            self.in_run[start:stop],
        )

    def chunks(self, max_cells=1 << 24):
        """Yield ``(slice, RankedRun)`` blocks of queries whose padded matrices have
        at most ``max_cells`` cells each (a single longer query forms its own block).

        A query's width is its ranking's length or, if longer, the number of its
        judged documents: the ideal list (:meth:`ideal_grades` without ``k``)
        is as wide as that, and a query with many judgments and a short ranking
        must not make every other query of its block as wide.
        """
        lengths = self.lengths
        if self.ideal == "judged":
            lengths = np.maximum(lengths, np.diff(self.judged_offsets))
        n = len(lengths)
        if n == 0:
            return
        if n * max(int(lengths.max()), 1) <= max_cells:
            yield slice(0, n), self
            return
        start, width = 0, 1
        for i, m in enumerate(lengths.tolist()):
            wide = max(width, m, 1)
            if i > start and (i - start + 1) * wide > max_cells:
                yield slice(start, i), self[start:i]
                start, wide = i, max(m, 1)
            width = wide
        yield slice(start, n), self[start:n]

