r"""The ranking step: qrels + run -> every query's grades in rank order.

:func:`rank_run` joins a run with its judgments and sorts every query's
documents by score. Its result, a :class:`RankedRun`, holds the grades of
the ranked documents of all queries in one flat array (with offsets), plus
what the judgments say about each query (its relevant count, its judged
grades). :func:`rankeval.evaluate` scores those grades with the measures of
:mod:`rankeval.measures`; any metric function of the package takes them
too, through :meth:`RankedRun.ragged` (each query's ranking at its own length) or
:meth:`RankedRun.padded` (one matrix, for the measures that a ranking's length
does not change: see its Notes).

The engine is **pyarrow** (pinned in ``requirements.txt``): the inputs arrive
as Arrow tables (from :mod:`rankeval.io`), ids are matched by Arrow's
hash kernels (``pyarrow.compute.index_in`` and ``dictionary_encode`` for the
query ids, an Acero hash join for the (query, document) pairs) that compare
the ids as exact strings (or integers), and documents are ordered by
Arrow's stable multi-key sort (``pyarrow.compute.sort_indices``), which
compares strings byte by byte, as C's ``strcmp`` does in trec_eval. A run
as systems write it (each query's documents together, best first) needs no
sort of its rows: only whole queries move (NumPy). pyarrow
was chosen over polars because pandas (the result type of ``evaluate``) already
builds on it, its CSV reader reads TREC files, and it needs no second
dataframe library. Arrow compares the ids, whatever their type.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .io.canonical import canonical_table
from .metrics.judged import is_judged
from .metrics.validation import check_choice, check_k, check_threshold

__all__ = ["RankedRun", "rank_run", "release_memory", "check_options", "by_query_and_score",
           "columns_of", "compared_scores", "ranked_ids"]

TIES = ("trec_eval", "input", "average")
IDEAL = ("judged", "retrieved")
MISSING = ("skip", "zero")
SCORE_PRECISION = ("double", "float")
GRADES = ("float", "trec_eval")


@dataclass(frozen=True, eq=False)
class RankedRun:
    r"""Every query's retrieved documents in rank order, with their grades.

    Build it with :func:`rank_run`. The ``n`` queries are in ``query_ids``
    order; query ``i``'s ranked grades are ``grades[offsets[i]:offsets[i+1]]``.

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

    # --- the ranked grades -----------------------------------------------------------

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

    # --- what the judgments say about each query ----------------------------------------

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
        if values.size and values.max() < 2**bits and len(self) < 2 ** (63 - bits) and np.all(
            values == np.floor(values)
        ):
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


def columns_of(columns, names):
    """The part of one ``columns`` mapping (canonical -> yours) that concerns one input,
    the qrels or the run (``names``, its canonical columns); None if none. ValueError
    for a key that is no canonical name. The bounded path splits the mapping the same
    way."""
    if columns is None:
        return None
    unknown = sorted(set(columns) - {"query_id", "doc_id", "relevance", "score", "rank"})
    if unknown:
        raise ValueError(
            f"columns maps {unknown}, which are not canonical column names; use query_id, "
            "doc_id, relevance, score or rank as keys"
        )
    return {k: v for k, v in columns.items() if k in names} or None


def _mark_empty_rankings(present, run, queries) -> None:
    """Mark as present the judged queries that a dict run holds with an empty ranking
    (``{q: {}}``, ``{q: []}``): the run has them, so they are scored (0, as pytrec_eval
    and ranx score them), not dropped as absent queries are."""
    from collections.abc import Mapping

    import pyarrow as pa

    from .io.tables import id_kind

    if not isinstance(run, Mapping):
        return
    kind = id_kind(queries.type)
    rankings = list(run.values())
    if set(map(type, rankings)) <= {dict, list, tuple}:  # lengths without a Python loop
        lengths = np.fromiter(map(len, rankings), np.int64, len(rankings))
        ids = list(run)
        empty = [ids[i] for i in np.flatnonzero(lengths == 0).tolist() if id_kind(ids[i]) == kind]
    else:
        empty = [
            q for q, v in run.items()
            if hasattr(v, "__len__") and not isinstance(v, str) and not len(v) and id_kind(q) == kind
        ]  # fmt: skip
    if empty:
        codes = _codes(pa.array(empty, type=queries.type), queries)
        present[codes[codes >= 0]] = True


def _unify(a, b, column):
    """Give two id columns (the qrels', the run's) one Arrow type; integer ids and
    string ids are a TypeError, as no id is ever converted."""
    import pyarrow as pa

    from .io.tables import id_kind, mixed_id_types

    ta, tb = a.type, b.type
    if ta == tb:
        return a, b
    if not len(a) or not len(b):  # an empty side has no type of its own
        return (a.cast(tb), b) if not len(a) else (a, b.cast(ta))
    ka, kb = id_kind(ta), id_kind(tb)
    if ka != kb:
        raise mixed_id_types(column, ka, kb, f" (qrels: {ka}, run: {kb})")
    if pa.types.is_integer(ta) and pa.types.is_integer(tb):
        return a.cast(pa.int64()), b.cast(pa.int64())
    large = pa.types.is_large_string(ta) or pa.types.is_large_string(tb)
    target = pa.large_string() if large else pa.string()
    return a.cast(target), b.cast(target)


def _codes(values, value_set) -> np.ndarray:
    """Position of every value in ``value_set`` (exact match by Arrow), -1 if absent."""
    import pyarrow.compute as pc

    found = pc.index_in(values, value_set=value_set)
    return pc.fill_null(found, -1).to_numpy()  # int32


def _sorted_unique(column):
    import pyarrow.compute as pc

    unique = pc.unique(column)
    return unique.take(pc.sort_indices(unique))


def _by_doc_id_descending(order, q_sorted, s_sorted, rows, docs):
    """Reorder, in place, each group of equal scores of ``order`` by document id,
    descending, compared byte by byte (C's ``strcmp``, as trec_eval).

    ``q_sorted`` and ``s_sorted`` are the query codes and scores in ``order``:
    only rows of equal query and score change places, so ``q_sorted`` stays
    valid, and ``s_sorted`` is reordered with them (``-0.0`` ties ``0.0``, and
    each keeps its sign).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    tied = np.zeros(order.size, dtype=bool)  # tied[i]: same query and score as i - 1
    np.equal(q_sorted[1:], q_sorted[:-1], out=tied[1:])
    tied[1:] &= s_sorted[1:] == s_sorted[:-1]
    if not tied.any():
        return
    member = tied.copy()
    member[:-1] |= tied[1:]  # the first document of each group too
    cells = np.flatnonzero(member)
    group = np.cumsum(~tied, dtype=np.int64 if order.size >= 2**31 else np.int32)[cells]
    ids = docs.take(pa.array(rows[order[cells]]))
    if not (pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type)):
        ids = ids.cast(pa.string())  # integer ids tie-break as their text
    within = pc.sort_indices(
        pa.table({"g": group, "d": ids}), sort_keys=[("g", "ascending"), ("d", "descending")]
    ).to_numpy()
    order[cells] = order[cells][within]
    s_sorted[cells] = s_sorted[cells][within]


def _split(column):
    """``(values, codes)`` of an id column: its distinct values (Arrow's dictionary
    encoding) and, for every row, the position of its value among them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    return encoded.dictionary, encoded.indices.to_numpy()


def _inner_join(left, right, keys, left_output, right_output):
    """Acero's hash join (inner: matched rows only), keeping the columns asked for.

    Acero builds its hash table over the right input and probes it with the
    left one; building costs more per row than probing, so the smaller table
    is made the build side (qrels judged deeper than a run is cut, say). The
    output columns are the same either way (left's, then right's); only the
    order of the matched rows may differ.
    """
    from pyarrow import acero

    columns = [*left_output, *right_output]
    if left.num_rows < right.num_rows:
        left, right, left_output, right_output = right, left, right_output, left_output
    options = acero.HashJoinNodeOptions(
        "inner", left_keys=keys, right_keys=keys,
        left_output=left_output, right_output=right_output,
    )  # fmt: skip
    plan = acero.Declaration(
        "hashjoin",
        options,
        inputs=[
            acero.Declaration("table_source", acero.TableSourceNodeOptions(left)),
            acero.Declaration("table_source", acero.TableSourceNodeOptions(right)),
        ],
    )
    return plan.to_table().select(columns)


def release_memory() -> None:
    """Hand the memory Arrow's pool has freed back to the operating system now.

    Arrow's default allocator (mimalloc) keeps freed pages for a while before
    returning them. Between the large steps of :func:`rank_run` (reading,
    joining, sorting) that memory would otherwise add to the peak of the next
    step, whose NumPy arrays come from the C library's malloc, not from
    Arrow's pool (the ``peak MB`` column of ``benchmarks/bench_runs.py``).

    The C heap (NumPy's freed arrays) is left to the C library, which keeps
    it for the next allocation, as it does for any program: trimming it
    (glibc's ``malloc_trim``) after each call would make the next call fault
    every page back in. It changes no value.
    """
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _group_starts(keys: np.ndarray) -> np.ndarray:
    """True where a run of equal ``keys`` begins."""
    starts = np.ones(keys.size, dtype=bool)
    if keys.size > 1:
        np.not_equal(keys[1:], keys[:-1], out=starts[1:])
    return starts


def _blocks(codes: np.ndarray, n_distinct: int):
    """``(starts, lengths)`` of the runs of equal ``codes`` if each of the
    ``n_distinct`` codes forms one run (rows of one query together), else None."""
    starts = np.flatnonzero(_group_starts(codes))
    if starts.size != n_distinct:
        return None
    return starts, np.diff(np.append(starts, codes.size))


def _move_blocks(codes, starts, lengths) -> np.ndarray:
    """The order that puts whole blocks in ascending code, each kept as it is."""
    by_code = np.argsort(codes[starts], kind="stable")
    lengths = lengths[by_code]
    shift = np.cumsum(lengths) - lengths - starts[by_code]
    return np.arange(codes.size) - np.repeat(shift, lengths)


def _stable_order(codes: np.ndarray, n_distinct: int) -> np.ndarray:
    """``np.argsort(codes, kind="stable")``, without a sort when every code's
    rows are together (qrels as written, dicts): then only whole blocks move."""
    blocks = _blocks(codes, n_distinct)
    if blocks is None:
        return np.argsort(codes, kind="stable")
    return _move_blocks(codes, *blocks)


def _rank_order(q, s, rows, ties: str, n_distinct: int) -> np.ndarray:
    """The order of rows by query code ascending, then score descending; rows of
    equal query and score stay in input order (``rows`` ascending).

    A run as systems write it (each query's documents together, best first)
    is already in that order within each query (one pass over neighbouring
    rows checks it): then only whole queries move, without a sort. Any other
    run is sorted by Arrow's stable ``sort_indices`` (:func:`by_query_and_score`).
    """
    blocks = _blocks(q, n_distinct) if q.size else None
    if blocks is not None:
        descending = np.empty(q.size, dtype=bool)
        np.less_equal(s[1:], s[:-1], out=descending[:-1])
        descending[blocks[0][1:] - 1] = True  # where one query ends and the next begins
        descending[-1] = True
        if descending.all():
            return _move_blocks(q, *blocks)
    return by_query_and_score(q, s)


def compared_scores(scores: np.ndarray, score_precision: str) -> np.ndarray:
    """The scores as the ranking compares them (float64): as given with
    ``score_precision="double"``; rounded to 32-bit floats with ``"float"`` (trec_eval 9,
    pytrec_eval), where scores beyond float32's range become infinite, as there, without
    a warning."""
    if score_precision != "float":
        return scores
    with np.errstate(over="ignore"):
        return np.asarray(scores).astype(np.float32).astype(np.float64)


def by_query_and_score(q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The stable order of rows by query code ``q`` ascending, then score ``s``
    descending: rows of equal query and score keep their input order.

    Arrow's multi-key ``sort_indices``, which is stable, so that its result is the one
    order whatever the CPU (``np.lexsort((-s, q))``'s). Measured against two stable
    NumPy sorts (by score, then by query codes as 16-bit integers, a radix sort): about
    equal on shuffled rows, 2.5 to 6 times faster on rows already grouped by query, as
    a model's scores per query are. ``-0.0`` ties ``0.0``, as the comparison of scores
    does.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    order = pc.sort_indices(pa.table({"q": q, "s": s}),
                            sort_keys=[("q", "ascending"), ("s", "descending")])
    return order.to_numpy().astype(np.intp)


def ranked_ids(run, *, columns=None) -> dict:
    """Every query's document ids in the order :func:`rankeval.rank_run` ranks them.

    Parameters
    ----------
    run : str, os.PathLike, file, dict, pandas.DataFrame or pyarrow.Table
        A run in any form :func:`rankeval.rank_run` reads, read and checked the same way.
    columns : dict, optional
        The run's column names, canonical -> yours (see :func:`rankeval.rank_run`).

    Returns
    -------
    dict
        Query id to the list of its document ids, best first; queries sorted as
        ``RankedRun.query_ids`` (strings by their UTF-8 bytes, integers numerically).

    Notes
    -----
    The order is :func:`rankeval.rank_run`'s with its default ``ties="trec_eval"`` and
    ``score_precision="double"``: score descending, then equal scores by document id
    descending, compared byte by byte as text (integer ids as their decimal text, so
    ``9``, ``100``, ``10``), by the same two steps (the sort by query and score, then
    the tie rule on the ids). For callers that need the ids rather than the grades
    (:func:`rankeval.beyond.ranked_lists`): a cut at ``k`` keeps the documents that
    :func:`rankeval.evaluate` scores at ``k``.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval.ranking import ranked_ids
    >>> ranked_ids({"u": {100: 1.0, 10: 1.0, 9: 1.0, 7: 2.0}})
    {'u': [7, 9, 100, 10]}
    """
    if columns is not None and not isinstance(columns, dict):
        raise TypeError(f"columns must be a dict canonical name -> yours, got {columns!r}")
    rt = canonical_table(run, "run", columns_of(columns, ("query_id", "doc_id", "score", "rank")))
    values, index = _split(rt.column("query_id"))
    queries = _sorted_unique(values)
    codes = _codes(values, queries)[index]
    scores = rt.column("score").to_numpy().astype(np.float64, copy=False)
    rows = np.arange(codes.size, dtype=np.intp)
    order = _rank_order(codes, scores, rows, "trec_eval", len(queries))
    if order.size > 1:
        _by_doc_id_descending(order, codes[order], scores[order], rows, rt.column("doc_id"))
    counts = np.bincount(codes, minlength=len(queries)).tolist()
    docs = rt.column("doc_id").take(order).to_pylist()
    out, start = {}, 0
    for query, n in zip(queries.to_pylist(), counts, strict=True):
        out[query] = docs[start : start + n]
        start += n
    return out


def check_options(*, threshold, ties, judged_only, missing, ideal, score_precision, grades,
                  max_docs) -> float:
    """Check the options of :func:`rank_run`; return the threshold as a float."""
    threshold = check_threshold(threshold)
    check_choice("ties", ties, TIES)
    check_choice("missing", missing, MISSING)
    check_choice("ideal", ideal, IDEAL)
    check_choice("score_precision", score_precision, SCORE_PRECISION)
    check_choice("grades", grades, GRADES)
    if not isinstance(judged_only, (bool, np.bool_)):
        raise TypeError(f"judged_only must be True or False, got {judged_only!r}")
    if max_docs is not None:
        if isinstance(max_docs, (bool, np.bool_)) or not isinstance(max_docs, (int, np.integer)):
            raise TypeError(f"max_docs must be a positive int or None, got {max_docs!r}")
        if max_docs <= 0:
            raise ValueError(f"max_docs must be a positive int or None, got {max_docs}")
    return threshold


def rank_run(
    qrels,
    run,
    *,
    threshold=1,
    ties="trec_eval",
    judged_only=False,
    missing="skip",
    ideal="judged",
    score_precision="double",
    grades="float",
    max_docs=None,
    columns=None,
    encoding="utf-8",
) -> RankedRun:
    r"""Join a run with its judgments and rank every query's documents by score.

    Parameters
    ----------
    qrels : str, os.PathLike, file, dict, pandas.DataFrame or pyarrow.Table
        Judgments: a TREC qrels file (``query_id iteration doc_id grade``),
        ``{query_id: {doc_id: grade}}``, ``{query_id: set_of_relevant_ids}``
        (grade 1), or a table with columns ``query_id``, ``doc_id``,
        ``relevance`` (see ``columns``).
    run : str, os.PathLike, file, dict, pandas.DataFrame or pyarrow.Table
        Ranked documents: a TREC run file (``query_id Q0 doc_id rank score
        tag``; the rank column is ignored, as in trec_eval),
        ``{query_id: {doc_id: score}}``, ``{query_id: [doc ids, best first]}``,
        or a table with columns ``query_id``, ``doc_id``, ``score`` (or
        ``rank``, lower is better). Higher scores rank first.
    threshold : float, default=1
        Default relevance threshold of the result (trec_eval's ``-l``).
    ties : {"trec_eval", "input", "average"}, default="trec_eval"
        Order of documents with equal scores: ``"trec_eval"`` by document id,
        descending, compared byte by byte (C's ``strcmp``; ``"d9"`` before
        ``"d10"``; integer ids are compared as their decimal text, so a
        file and a frame of the same data agree); ``"input"`` in the order
        the run lists them; ``"average"`` like ``"input"``, and the groups of
        equal scores are recorded in ``tie_groups`` (for tie-averaged DCG,
        as scikit-learn's ``ndcg_score``).
    judged_only : bool, default=False
        trec_eval's ``-J``: drop every document the qrels do not judge, and
        every negatively judged one (trec_eval stores "unjudged" as a
        negative grade), after ranking and after ``max_docs``.
    missing : {"skip", "zero"}, default="skip"
        Judged queries the run does not contain: left out (trec_eval), or
        kept with an empty ranking (trec_eval's ``-c``).
    ideal : {"judged", "retrieved"}, default="judged"
        Relevant counts, judged counts and ideal lists come from all judged
        documents of the query (trec_eval), or from the ranked ones only
        (scikit-learn).
    score_precision : {"double", "float"}, default="double"
        ``"double"`` compares scores as 64-bit floats (trec_eval 10);
        ``"float"`` rounds them to 32-bit floats first, as trec_eval 9 and
        pytrec_eval(-terrier) store them, so that scores differing only
        beyond float32's 7 digits tie (and are then ordered by ``ties``);
        scores beyond float32's range (about 3.4e38) become infinite, as
        there, and tie with each other.
    grades : {"float", "trec_eval"}, default="float"
        ``"float"`` keeps fractional grades (1.5 stays 1.5); ``"trec_eval"``
        truncates them toward zero as trec_eval's ``atol`` does (1.5 -> 1,
        -0.5 -> 0). The grade is truncated after it is read as a number, so
        exponent notation differs: ``2e-1`` is 0 here, and 2 for ``atol``,
        which stops at the ``e``.
    max_docs : int or None, default=None
        Keep only the top ``max_docs`` documents of every query (trec_eval's
        ``-M``), after ranking.
    columns : dict, optional
        Column names of table inputs, canonical -> yours, e.g.
        ``{"query_id": "user", "doc_id": "item", "score": "pred",
        "relevance": "rating"}``.
    encoding : str, default="utf-8"
        The text encoding of TREC files, as for :func:`rankeval.read_run`.

    Returns
    -------
    RankedRun
        Queries judged in the qrels and present in the run (all judged
        queries with ``missing="zero"``), sorted by id; queries of the run
        without judgments are ignored, as trec_eval ignores them.

    Raises
    ------
    ValueError
        Options out of range, malformed inputs (from the readers: file, line
        and reason), or (with ``missing="skip"``) a run and qrels with no
        query in common. With ``missing="zero"`` every judged query is scored,
        so such inputs give every query an empty ranking, as trec_eval's
        ``-c`` does (a partition of a larger input may hold judged queries
        only).

    Notes
    -----
    Only the engine compares ids: query ids are matched with
    ``pyarrow.compute.index_in`` against the qrels' sorted unique ids, and the
    (query, document) pairs of the run with those of the qrels by one hash
    join (an Acero hash-join plan, inner, its hash table built over the
    smaller of the two: a run document it does not match is unjudged and
    gets NaN), for text and integer document ids alike. The
    documents are then ordered by query and score descending: if each
    query's documents already sit together, best first (as systems write
    runs), by moving whole queries only; otherwise by one
    stable multi-key sort (``pyarrow.compute.sort_indices``). Tied scores are
    then ordered by ``ties``. Either way the result is the same.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import rank_run, precision_at_k
    >>> qrels = {"q1": {"d1": 1}, "q2": {"a": 2, "b": 0}}
    >>> run = {"q1": {"d1": 2.0, "abcdefghij": 1.0},
    ...        "q2": {"a": 0.1, "b": 0.9, "c": 0.5}}
    >>> ranked = rank_run(qrels, run)
    >>> ranked.query_ids.tolist(), ranked.ragged()
    (['q1', 'q2'], [array([1., 0.]), array([0., 0., 2.])])
    >>> ranked.n_relevant().tolist()
    [1, 1]
    >>> precision_at_k(ranked.padded(), k=1)
    array([1., 0.])
    """
    import pyarrow as pa

    t = check_options(threshold=threshold, ties=ties, judged_only=judged_only, missing=missing,
                  ideal=ideal, score_precision=score_precision, grades=grades,
                  max_docs=max_docs)  # fmt: skip
    if columns is not None and not isinstance(columns, dict):
        raise TypeError(f"columns must be a dict canonical name -> yours, got {columns!r}")
    qt = canonical_table(qrels, "qrels", columns_of(columns, ("query_id", "doc_id", "relevance")),
                         encoding=encoding)
    release_memory()
    rt = canonical_table(run, "run", columns_of(columns, ("query_id", "doc_id", "score", "rank")),
                         encoding=encoding)
    release_memory()

    # queries: the qrels' ids, sorted (bytes order / numbers), and every row's code
    q_values, q_index = _split(qt.column("query_id"))
    r_values, r_index = _split(rt.column("query_id"))
    qt, rt = qt.drop_columns("query_id"), rt.drop_columns("query_id")  # codes replace ids
    release_memory()
    q_values, r_values = _unify(q_values, r_values, "query_id")
    queries = _sorted_unique(q_values)
    q_code = _codes(q_values, queries)[q_index]
    r_code = _codes(r_values, queries)[r_index]
    del q_index, r_index
    keep = r_code >= 0  # run rows of judged queries
    present = np.bincount(r_code[keep], minlength=len(queries)) > 0
    _mark_empty_rankings(present, run, queries)
    if not present.any() and missing == "skip":  # nothing would be scored
        raise ValueError(
            f"the run and the qrels have no query in common (run: {len(r_values)} "
            f"queries, e.g. {r_values[:3].to_pylist()}; qrels: {len(queries)}, e.g. "
            f"{queries[:3].to_pylist()}); query ids are compared "
            + ("as integers" if pa.types.is_integer(queries.type) else "as exact strings")
        )

    judged = qt.column("relevance").to_numpy().astype(np.float64, copy=True)
    if grades == "trec_eval":
        judged = np.trunc(judged)

    # grades: one hash join (Acero) of the run's (query, document) pairs with the qrels'
    # (the query is matched by its code: an integer key is cheaper than the id's text)
    q_doc, r_doc = _unify(qt.column("doc_id"), rt.column("doc_id"), "doc_id")
    index = np.int32 if max(r_code.size, q_code.size) < 2**31 - 1 else np.int64
    left = pa.table(
        {
            "q": r_code.astype(index, copy=False),
            "doc_id": r_doc,
            "row": np.arange(r_code.size, dtype=index),
        }
    )
    if not keep.all():
        left = left.filter(pa.array(keep))
    right = pa.table(
        {
            "q": q_code.astype(index, copy=False),
            "doc_id": q_doc,
            "at": np.arange(q_code.size, dtype=index),
        }
    )
    joined = _inner_join(left, right, ["q", "doc_id"], ["row"], ["at"])
    del left, right
    at = np.full(r_code.size, -1, dtype=index)  # back in input order; -1: not judged
    at[joined.column("row").to_numpy()] = joined.column("at").to_numpy()
    del joined
    if not keep.all():
        at = at[keep]
    release_memory()
    # from here on only the kept rows, in input order; rows[i]: the run's row of row i
    if keep.all():
        rows = np.arange(r_code.size, dtype=index)
    else:
        rows = np.flatnonzero(keep).astype(index)
        r_code = r_code[keep]
    row_grades = np.append(judged, np.nan)[at]  # at = -1: not judged, NaN
    del at, qt, q_doc, keep  # the qrels' ids are no longer needed

    # order: query, score descending, then the tie rule
    scores = rt.column("score").to_numpy().astype(np.float64, copy=False)
    if rows.size < scores.size:
        scores = scores[rows]
    scores = compared_scores(scores, score_precision)
    # (input order among equal scores: kept for ties="input"/"average"; "trec_eval"
    # re-sorts the tied groups by document id just below)
    order = _rank_order(r_code, scores, rows, ties, int(np.count_nonzero(present)))
    q_sorted, s_sorted = r_code[order], scores[order]
    del r_code, scores
    if ties == "trec_eval" and order.size > 1:
        _by_doc_id_descending(order, q_sorted, s_sorted, rows, r_doc)
    del rows, rt, r_doc  # the ids are no longer needed: free them before the tail
    release_memory()
    g_sorted = row_grades[order]
    del row_grades, order

    n_all = len(queries)
    if max_docs is not None or judged_only:
        counts = np.bincount(q_sorted, minlength=n_all)
        rank = np.arange(q_sorted.size) - np.repeat(np.cumsum(counts) - counts, counts)
        mask = np.ones(q_sorted.size, dtype=bool)
        if max_docs is not None:
            mask &= rank < max_docs
        if judged_only:
            mask &= is_judged(g_sorted)
        q_sorted, g_sorted, s_sorted = q_sorted[mask], g_sorted[mask], s_sorted[mask]

    tie_groups = None
    if ties == "average":
        new = _group_starts(q_sorted) | _group_starts(s_sorted)
        tie_groups = np.cumsum(new) - 1

    selected = np.flatnonzero(present) if missing == "skip" else np.arange(n_all)
    counts = np.bincount(q_sorted, minlength=n_all)
    offsets = np.concatenate(([0], np.cumsum(counts[selected]))).astype(np.int64)

    # every selected query's judged grades (>= 0), for relevant counts and ideal lists
    j_keep = is_judged(judged) & present[q_code] if missing == "skip" else is_judged(judged)
    j_order = np.flatnonzero(j_keep)
    j_codes = q_code[j_order]
    j_all = np.bincount(j_codes, minlength=n_all)
    j_order = j_order[_stable_order(j_codes, int(np.count_nonzero(j_all)))]
    j_counts = j_all[selected]
    j_offsets = np.concatenate(([0], np.cumsum(j_counts))).astype(np.int64)

    if pa.types.is_integer(queries.type):
        query_ids = queries.to_numpy().astype(np.int64)[selected]
    else:
        query_ids = np.asarray(queries.to_pylist(), dtype=object)[selected]
    return RankedRun(
        query_ids=query_ids,
        grades=g_sorted,
        offsets=offsets,
        scores=s_sorted,
        threshold=t,
        ideal=ideal,
        tie_groups=tie_groups,
        judged=judged[j_order],
        judged_offsets=j_offsets,
        in_run=present[selected],
    )
