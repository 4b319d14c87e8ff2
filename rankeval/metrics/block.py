"""What a measure's scoring function reads: a block of ranked queries.

The metric modules are the bottom layer: they know no type of the layers above them.
A scoring function (``score(ranked, k, **params)`` of a :class:`Declaration
<rankeval.metrics.declaration.Declaration>`) takes any object with the methods and
attributes of :class:`RankedBlock`; :class:`rankeval.RankedRun` (the ranking layer)
has them, and a test checks that it does (``tests/test_architecture.py``). A diversity
measure takes a :class:`SubtopicBlock` instead, which
:func:`rankeval.evaluate_diversity` builds.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

__all__ = ["RankedBlock", "SubtopicBlock"]


@runtime_checkable
class RankedBlock(Protocol):
    """A block of ranked queries, as the scoring functions of ``metrics/`` read it.

    Exactly the names the kernels' scoring functions use (each documented on
    :class:`rankeval.RankedRun`, which implements them): the ranked grades
    (:meth:`padded`, :meth:`ragged`, :attr:`lengths`, the tie groups of
    ``ties="average"``) and what the judgments say about each query
    (:meth:`n_relevant`, :meth:`n_judged_nonrelevant`, :meth:`max_judged_grade`,
    :meth:`ideal_grades`, :meth:`checked_pool`). ``len(block)`` is its number of
    queries; ``block[a:b]`` its queries ``a`` to ``b - 1`` as a block of their own.
    """

    tie_groups: np.ndarray | None

    @property
    def lengths(self) -> np.ndarray:
        """Number of ranked documents of every query."""

    def __len__(self) -> int: ...

    def __getitem__(self, where: slice) -> RankedBlock: ...

    def padded(self, k: int | None = None, unjudged: float = 0.0) -> np.ndarray:
        """The ranked grades as one ``(queries, width)`` matrix, cut at ``k``."""

    def ragged(self, k: int | None = None, unjudged: float = 0.0) -> list:
        """The ranked grades as one array per query, cut at ``k``."""

    def tie_groups_padded(self, k: int | None = None) -> np.ndarray:
        """``(queries, width)`` tie-group numbers, -1 in padding."""

    def n_relevant(self, threshold: float | None = None) -> np.ndarray:
        """Relevant documents per query."""

    def n_judged_nonrelevant(self, threshold: float | None = None) -> np.ndarray:
        """Judged non-relevant documents per query."""

    def max_judged_grade(self) -> np.ndarray:
        """Each query's largest judged grade."""

    def ideal_grades(self, k: int | None = None,
                     gain: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
        """Each query's judged grades (or gains), best first, zero-padded."""

    def checked_pool(self, max_grade: float, what: str) -> tuple[np.ndarray, np.ndarray]:
        """The judged grades and their query numbers, whole and at most ``max_grade``."""


class SubtopicBlock(NamedTuple):
    """What a diversity measure's declaration scores: every query's (documents x
    subtopics) matrix in rank order (``runs``), the matrix of all its judged documents
    for the ideal ranking (``judged``), and the options ``alpha`` and ``threshold``."""

    runs: list
    judged: list
    alpha: float
    threshold: float
