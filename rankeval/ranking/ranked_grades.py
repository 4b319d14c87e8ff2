"""A :class:`rankeval.RankedRun`'s ranked grades as the metric functions take them:
one padded matrix (:meth:`~RankedGrades.padded`), one array per query
(:meth:`~RankedGrades.ragged`), and the tie groups of ``ties="average"`` as a matrix.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import numpy as np

from ..metrics.judged import is_judged
from ..metrics.validation import check_k

__all__ = ["RankedGrades"]


class RankedGrades:
    """The ranked grades of a :class:`rankeval.RankedRun` as matrices (a part of it).

    Reads the fields ``grades``, ``offsets``, ``tie_groups``, ``lengths`` and
    ``_cache`` of the class it is part of.
    """

    __slots__ = ()

    def _cells(self, k):
        lengths = self.lengths
        width = max(int(lengths.max()) if lengths.size else 0, 1)
        if k is not None:
            width = min(width, k)
        kept = np.minimum(lengths, width)
        mask = np.arange(width) < kept[:, None]
        return width, kept, mask

    def _flat(self, k, unjudged):
        """The grades of the top ``k`` of every ranking, flat, unjudged replaced."""
        g = self.grades
        if k is not None and np.any(self.lengths > k):
            pos = np.arange(g.size) - np.repeat(self.offsets[:-1], self.lengths)
            g = g[pos < k]
        if unjudged != unjudged:  # NaN: negative grades stay as given (pooled, unjudged)
            return g
        return np.where(is_judged(g), g, unjudged)

    def padded(self, k=None, unjudged=0.0) -> np.ndarray:
        r"""The ranked grades as one ``(n_queries, width)`` matrix.

        Parameters
        ----------
        k : int or None, default=None
            Keep the top ``k`` of each ranking (the width is then at most ``k``).
        unjudged : float, default=0.0
            Value of an unjudged document and of the padding past the end of
            a ranking; a number also replaces negative grades. ``0.0`` treats
            them as not relevant (most measures, and trec_eval). ``np.nan``
            keeps them apart, for the measures that read judgments as
            trec_eval does (bpref, infAP, Judged@k): then negative grades are
            kept as given, trec_eval's "in the pool but unjudged".

        Returns
        -------
        ndarray of float64, shape (n_queries, width)
            Row ``i`` holds query ``i``'s grades, best rank first; ``width`` is
            the longest ranking (cut at ``k``), at least 1.

        Notes
        -----
        A metric function reads every row of a matrix as a whole ranking of
        ``width`` documents, so the padding counts as ranked documents that are
        not relevant. Measures that depend on a ranking's length then differ
        from :func:`rankeval.evaluate`'s values for the shorter rankings:
        precision and the set measures without a cut-off (they divide by the
        length), the first relevant position and mean rank without a cut-off
        (a query with no relevant document gets ``width + 1``), Judged@k
        (it divides by ``min(k, length)``). Give those :meth:`ragged`. Measures
        that add gains (DCG, RR, ERR, RBP) or divide by ``k`` or by the
        relevant count (P@k, nDCG@k, AP) give the same values either way.

        Examples
        --------
        >>> from rankeval import rank_run, precision_at_k
        >>> ranked = rank_run({"q1": {"a": 1, "b": 1}, "q2": {"x": 1}},
        ...                   {"q1": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5},
        ...                    "q2": {"x": 1.0}})
        >>> precision_at_k(ranked.ragged())  # q2 retrieved one document, relevant
        array([0.5, 1. ])
        >>> precision_at_k(ranked.padded())  # q2's row read as 4 documents
        array([0.5 , 0.25])
        >>> precision_at_k(ranked.padded(), k=2)  # a cut-off: the same either way
        array([1. , 0.5])
        """
        k = check_k(k)
        key = ("padded", k, repr(unjudged))
        if key not in self._cache:
            width, _, mask = self._cells(k)
            out = np.full((len(self), width), unjudged, dtype=np.float64)
            out[mask] = self._flat(k, unjudged)
            self._cache[key] = out
        return self._cache[key]

    def ragged(self, k=None, unjudged=0.0) -> list:
        """The ranked grades as a list of 1-D arrays (one per query), cut at ``k``.

        A query without a ranked document (judged but missing from the run, brought
        in by ``missing="zero"``, or left empty by ``judged_only=True``) is an empty
        array. The metric functions refuse an empty ranking (it has no items to score:
        for P without a cut-off or MR the value would be a choice, not a count), so
        score the non-empty ones and give the empty ones the value of your convention;
        :func:`rankeval.evaluate` gives them 0 (k + 1 for FRP@k and MR@k).

        >>> from rankeval import rank_run, precision_at_k
        >>> ranked = rank_run({"q1": {"a": 1}, "q2": {"x": 1}}, {"q1": {"a": 2.0}},
        ...                   missing="zero")
        >>> [g.tolist() for g in ranked.ragged()]
        [[1.0], []]
        >>> import numpy as np
        >>> scored = ranked.lengths > 0
        >>> p = np.zeros(len(ranked))
        >>> p[scored] = precision_at_k([g for g in ranked.ragged() if g.size], 1)
        >>> p.tolist()
        [1.0, 0.0]
        """
        k = check_k(k)
        g = self._flat(None, unjudged)
        return [
            g[a : b if k is None else min(b, a + k)]
            for a, b in zip(self.offsets[:-1].tolist(), self.offsets[1:].tolist(), strict=True)
        ]

    def tie_groups_padded(self, k=None) -> np.ndarray:
        """``(n_queries, width)`` tie-group numbers (``ties="average"``), -1 in padding."""
        if self.tie_groups is None:
            raise ValueError("tie groups exist only for a run ranked with ties='average'")
        k = check_k(k)
        width, _, mask = self._cells(k)
        out = np.full((len(self), width), -1, dtype=np.int64)
        flat = self.tie_groups
        if k is not None and np.any(self.lengths > k):
            pos = np.arange(flat.size) - np.repeat(self.offsets[:-1], self.lengths)
            flat = flat[pos < k]
        out[mask] = flat - (flat.min() if flat.size else 0)
        return out

