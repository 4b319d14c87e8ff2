"""What the judgments say about each query of a :class:`rankeval.RankedRun`: its
relevant, judged and judged non-relevant counts, its largest judged grade, its ideal
ranking, its counts per grade.

Which documents count is the run's ``ideal``: every judged document of the query
(``"judged"``, trec_eval) or the ranked ones (``"retrieved"``, scikit-learn).

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import numpy as np

from ..metrics.judged import is_judged
from ..metrics.validation import check_k, check_threshold

__all__ = ["JudgmentCounts"]


class JudgmentCounts:
    """What the judgments say about each query of a :class:`rankeval.RankedRun` (a part
    of it).

    Reads the fields ``ideal``, ``threshold``, ``judged``, ``judged_offsets``,
    ``grades``, ``lengths``, ``query_ids`` and ``_cache`` of the class it is part of.
    """

    __slots__ = ()

    def _pool(self):
        """Flat grades (>= 0) and query numbers of the documents that define each
        query's relevant counts and ideal list (computed once, then cached)."""
        if "pool" not in self._cache:
            if self.ideal == "judged":
                grades, offsets = self.judged, self.judged_offsets
                qcode = np.repeat(np.arange(len(self)), np.diff(offsets))
            else:
                g = self.grades
                keep = is_judged(g)
                grades = g[keep]
                qcode = np.repeat(np.arange(len(self)), self.lengths)[keep]
            self._cache["pool"] = (grades, qcode)
        return self._cache["pool"]

    def _per_query_count(self, flags):
        grades, qcode = self._pool()
        counts = np.bincount(qcode, weights=flags(grades), minlength=len(self))
        return counts.astype(np.int64)

    def n_relevant(self, threshold=None) -> np.ndarray:
        """Relevant documents per query (grade ``>= threshold``), retrieved or not
        (``ideal="judged"``), or among the retrieved ones (``ideal="retrieved"``)."""
        t = self.threshold if threshold is None else check_threshold(threshold)
        return self._per_query_count(lambda g: (g >= t).astype(np.float64))

    def n_judged_nonrelevant(self, threshold=None) -> np.ndarray:
        """Judged non-relevant documents per query (``0 <= grade < threshold``)."""
        t = self.threshold if threshold is None else check_threshold(threshold)
        return self._per_query_count(lambda g: (g < t).astype(np.float64))

    def n_judged(self) -> np.ndarray:
        """Judged documents per query (grade ``>= 0``)."""
        return self._per_query_count(lambda g: np.ones(g.shape))

    def max_judged_grade(self) -> np.ndarray:
        """Each query's largest judged grade (0 for a query without a positive one)."""
        grades, qcode = self._pool()
        out = np.zeros(len(self))
        np.maximum.at(out, qcode, grades)
        return out

    def ideal_grades(self, k=None, gain=None) -> np.ndarray:
        r"""Each query's judged grades, best first, zero-padded: the ideal ranking.

        Parameters
        ----------
        k : int or None, default=None
            Keep the best ``k``.
        gain : callable or None, default=None
            Map the grades to gains first (``gain(grades) -> gains``, element
            by element); the best *gains* are kept. Only positive values are
            kept: a gain of 0 or less adds nothing to an ideal DCG.

        Returns
        -------
        ndarray of float64, shape (n_queries, width)
        """
        k = check_k(k)
        grades, qcode = self._pool()
        # (a copy for the gain: the pool is cached, and a gain may work in place)
        values = grades if gain is None else np.asarray(gain(grades.copy()), dtype=np.float64)
        pos = np.flatnonzero(values > 0)
        values, qcode = values[pos], qcode[pos]
        bits = 21  # whole values below 2**21 (every usual grade and gain): one packed sort
        top_value = values.max() if values.size else 0.0
        if values.size and top_value < 2**bits and len(self) < 2 ** (63 - bits) and np.all(
            values == np.floor(values)
        ):
            span = int(top_value) + 1
            if len(self) * span <= 4 * values.size + 4096:
                # few distinct values (grades 1-3, say): a counting sort, no comparison;
                # the keys, and so the result, are the packed sort's
                key = qcode.astype(np.int64) * span + (span - 1 - values.astype(np.int64))
                key = np.repeat(np.arange(len(self) * span, dtype=np.int64),
                                np.bincount(key, minlength=len(self) * span))  # fmt: skip
                qcode, values = key // span, (span - 1 - key % span).astype(np.float64)
            else:
                top = (1 << bits) - 1
                key = np.sort((qcode.astype(np.int64) << bits) | (top - values.astype(np.int64)))
                qcode, values = key >> bits, (top - (key & top)).astype(np.float64)
        else:
            order = np.lexsort((-values, qcode))
            qcode, values = qcode[order], values[order]
        counts = np.bincount(qcode, minlength=len(self))
        rank = np.arange(qcode.size) - np.repeat(np.cumsum(counts) - counts, counts)
        width = max(int(counts.max()) if counts.size else 0, 1)
        width = width if k is None else min(width, k)
        keep = rank < width
        out = np.zeros((len(self), width))
        out[qcode[keep], rank[keep]] = values[keep]
        return out

    def grade_counts(self, max_grade: int, what: str = "grade_counts") -> np.ndarray:
        """``(n_queries, max_grade)``: judged documents of grade 1, 2, ..., max_grade
        per query (grade 0 is not counted).

        Raises ``ValueError`` (its message starting with ``what``) if a judged
        grade is above ``max_grade`` or not a whole number: such a document
        would otherwise be left out of the counts without a word.
        """
        grades, qcode = self.checked_pool(max_grade, what)
        ok = grades >= 1
        counts = np.zeros((len(self), max_grade))
        np.add.at(counts, (qcode[ok], grades[ok].astype(np.int64) - 1), 1)
        return counts

    def checked_pool(self, max_grade, what: str):
        """``_pool()``, after refusing (as ``grade_counts`` documents) a judged grade
        above ``max_grade`` or not a whole number."""
        grades, qcode = self._pool()
        bad = (grades != np.round(grades)) | (grades > max_grade)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            g, q = grades[i], self.query_ids[qcode[i]]
            if g != round(g):
                why = (
                    "not a whole number (whole grades only: round them, or pass "
                    "grades='trec_eval' to truncate them as trec_eval does)"
                )
            else:
                why = f"above max_grade={max_grade} (give the top of your grade scale as max_grade)"
            raise ValueError(f"{what}: query {q!r} has a judged grade of {g:g}, {why}")
        return grades, qcode

