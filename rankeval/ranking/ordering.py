"""The order of a run's rows: by query, score descending, then the tie rule.

A run as systems write it (each query's documents together, best first) needs no
sort: only whole queries move (NumPy). Any other run is sorted by Arrow's stable
multi-key ``sort_indices``, or, for few long queries, by two stable NumPy sorts (by
query, then each query by score). trec_eval's tie rule then reorders each group of equal
scores by document id, descending, byte by byte (C's ``strcmp``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["compared_scores", "by_query_and_score", "stable_order"]

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


def stable_order(codes: np.ndarray, n_distinct: int) -> np.ndarray:
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
        if q.size >= _PER_QUERY_ROWS * n_distinct:  # few long queries: each one sorted
            counts = np.bincount(q)
            return _by_score_within(_move_blocks(q, *blocks), s, counts[counts > 0])
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
    if q.size and q.size >= _PER_QUERY_ROWS * (int(q.max()) + 1) and q.min() >= 0:
        return _by_query_then_score(q, s)
    import pyarrow as pa
    import pyarrow.compute as pc

    order = pc.sort_indices(pa.table({"q": q, "s": s}),
                            sort_keys=[("q", "ascending"), ("s", "descending")])
    return order.to_numpy().astype(np.intp)


# Queries of at least this many rows on average (a shuffled run of usual depth) are put
# in order by query first, then each query's rows by score, the same order: faster than
# Arrow's multi-key sort by 1.7x to 1.8x at 875 queries x 1,000 rows and 10,000 x 100,
# 1.2x at 30 rows a query, slower below (1.3x slower at 16, 2.1x at 10), as printed by
# benchmarks/bench_steps.py
_PER_QUERY_ROWS = 64


def _by_query_then_score(q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """:func:`by_query_and_score` by two stable NumPy sorts: the rows by query code (a
    radix sort of 16-bit codes when they fit), then each query's rows by score
    descending (one sort per query: few, long queries). Stable at both steps, so
    rows of equal query and score keep their input order; ``-0.0`` ties ``0.0``."""
    codes = q.astype(np.uint16) if q.max() < 2**16 else q
    order = np.argsort(codes, kind="stable")
    return _by_score_within(order, s, np.diff(np.flatnonzero(np.append(
        _group_starts(q[order]), True))))


def _by_score_within(order: np.ndarray, s: np.ndarray, lengths) -> np.ndarray:
    """``order`` (rows grouped by query, ``lengths`` rows each, in order) with each
    query's rows sorted by score descending, stably, in place."""
    negated = np.negative(s[order])
    bounds = np.cumsum(np.append(0, lengths)).tolist()
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        order[lo:hi] = order[lo:hi][np.argsort(negated[lo:hi], kind="stable")]
    return order.astype(np.intp, copy=False)



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

