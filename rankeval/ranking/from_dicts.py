"""The ranking step for two plain dicts, ``{query_id: {doc_id: value}}`` (pytrec_eval's
input): :func:`rank_dicts`, the :class:`~rankeval.RankedRun` that
:func:`rankeval.rank_run` would build, without the tables of the general path.

The general path turns each dict into an Arrow table (every id converted to Arrow),
matches the query ids by Arrow's hash kernels and the (query, document) pairs by a
hash join. From dicts, Python has done that work already: the qrels are a hash
table keyed by query, then by document. So each run document's grade is read with
the qrels' own ``dict.get`` (``map(qrels[q].get, run[q])``, a loop in C), the
query ids are sorted and matched by Arrow (as the general path does), and the
document ids of the run are never converted, but for the few rows that tie on a
score (trec_eval's tie rule reads their ids).

Anything the general path would refuse or treat in a special way (ids of mixed
types, a value that is no float, a non-finite one, an id that is no valid UTF-8,
an empty side, ``columns``, another encoding, another kind of mapping) makes
:func:`rank_dicts` return None, and :func:`rankeval.rank_run` takes the general
path: its checks and messages stay the only ones. The values are the same, bit for
bit (``tests/test_dicts_rank_fast.py`` compares the two paths).

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

from itertools import chain, compress, repeat

import numpy as np

from .rows import offsets as row_offsets
from .rows import ranked_rows

__all__ = ["rank_dicts"]

_INT64 = (-(2**63), 2**63 - 1)
# Documents per batch: small enough that a batch's key objects, just touched, are still
# in the CPU cache for the next steps (measured at 200,000 x 10 in random order: 8192
# rows took 20% less time in the lookups than 65,536)
_BATCH = 1 << 13
# A run this many times longer than the qrels goes to the general path: one lookup per
# run document in Python costs more than Arrow's conversion of the ids and its hash join
# over the few judgments (7,000 x 1,000 with 40 judgments per query: 1.01x pytrec_eval's
# time here, 0.74x there; 10,000 x 100 with 40: 1.34x here, 2.1x there)
_RUN_PER_JUDGMENT = 8


def rank_dicts(qrels, run, *, threshold, ties, judged_only, missing, ideal, score_precision,
               grades, max_docs, columns=None, encoding="utf-8"):
    """:func:`rankeval.rank_run` of two plain dicts of dicts (options checked
    already), or None when the general path must decide (see the module's text)."""
    if type(qrels) is not dict or type(run) is not dict or columns is not None \
            or encoding != "utf-8":  # fmt: skip
        return None
    try:
        parts = _read(qrels, run)
    except (TypeError, ValueError, OverflowError, UnicodeError):
        return None  # the general path names the culprit
    if parts is None:
        return None
    return _ranked(*parts, threshold=threshold, ties=ties, judged_only=judged_only,
                   missing=missing, ideal=ideal, score_precision=score_precision,
                   grades=grades, max_docs=max_docs)  # fmt: skip


def _read(qrels, run):
    """The arrays of both dicts, or None (the general path decides).

    The dicts' objects are read batch by batch of whole queries (about ``_BATCH``
    documents): each batch's ids are checked, looked up and kept while they are still
    in the CPU cache, as the objects of a dict built in random order lie scattered in
    memory."""
    import pyarrow.compute as pc

    from ..io.tables import dict_values

    q_keys, q_dicts = list(qrels), list(qrels.values())
    r_keys, r_dicts = list(run), list(run.values())
    if not (set(map(type, q_dicts)) <= {dict} and set(map(type, r_dicts)) <= {dict}):
        return None
    q_len = np.fromiter(map(len, q_dicts), np.int64, len(q_dicts))
    r_len = np.fromiter(map(len, r_dicts), np.int64, len(r_dicts))
    n_judgments, n_rows = int(q_len.sum()), int(r_len.sum())
    if not n_judgments or not n_rows or n_rows > _RUN_PER_JUDGMENT * n_judgments:
        return None
    has = q_len > 0  # the queries judged: at least one judgment
    if not has.all():
        q_keys, q_dicts, q_len = list(compress(q_keys, has)), list(compress(q_dicts, has)), \
            q_len[has]  # fmt: skip
    # query ids: one Arrow array each (every id of one type, valid UTF-8 or int64, or
    # None), sorted and matched by Arrow as the general path does
    key_type = _one_type(chain(q_keys, r_keys))
    q_ids, r_ids = _key_array(q_keys, key_type), _key_array(r_keys, key_type)
    if q_ids is None or r_ids is None:
        return None
    by_id = pc.sort_indices(q_ids).to_numpy()
    queries = np.asarray(q_keys, dtype=object)[by_id] if key_type is str else \
        q_ids.to_numpy()[by_id]  # fmt: skip
    code = np.empty(len(q_keys) + 1, dtype=np.int64)  # by position in q_keys; last: -1
    code[by_id], code[-1] = np.arange(len(q_keys)), -1
    found = pc.fill_null(pc.index_in(r_ids, value_set=q_ids), -1).to_numpy()
    r_query = code[found]
    # the qrels: ids checked, grades read as the general path reads them (same function)
    doc_type, judged = None, np.empty(n_judgments, dtype=np.float64)
    for a, b, lo, hi in _batches(q_len, _BATCH):
        doc_type = _doc_type(chain.from_iterable(q_dicts[a:b]), doc_type)
        if doc_type is None:
            return None
        judged[lo:hi] = dict_values(q_dicts[a:b], q_keys[a:b], "qrels", hi - lo, True)
    # the run: ids checked and kept (for ties), each row's grade looked up in the qrels'
    # own dicts (None: not judged), scores read as the general path reads them
    qrels_of = list(map([*q_dicts, {}].__getitem__, found.tolist()))  # {}: not judged
    lengths = r_len.tolist()
    scores = np.empty(n_rows, dtype=np.float64)
    row_grades = np.empty(n_rows, dtype=np.float64)
    docs = []
    for a, b, lo, hi in _batches(r_len, _BATCH):
        batch = list(chain.from_iterable(r_dicts[a:b]))
        if _doc_type(batch, doc_type) is not doc_type:
            return None
        docs += batch
        owners = chain.from_iterable(map(repeat, qrels_of[a:b], lengths[a:b]))
        row_grades[lo:hi] = _floats(list(map(dict.get, owners, batch)))
        scores[lo:hi] = dict_values(r_dicts[a:b], r_keys[a:b], "run", hi - lo, True)
    if not (np.isfinite(judged).all() and np.isfinite(scores).all()):
        return None
    return (queries, key_type, (q_len, by_id), judged, r_query, r_len, docs, scores,
            row_grades, doc_type)  # fmt: skip


def _batches(lengths, rows):
    """``(a, b, lo, hi)``: queries ``a:b`` (whole queries, about ``rows`` documents; at
    least one query) and their documents' rows ``lo:hi``."""
    ends = np.cumsum(lengths)
    a, n = 0, len(lengths)
    while a < n:
        lo = int(ends[a - 1]) if a else 0
        b = max(a + 1, int(np.searchsorted(ends, lo + rows, side="right")))
        yield a, b, lo, int(ends[b - 1])
        a = b


def _floats(values) -> np.ndarray:
    """Grades looked up (the qrels' objects, None: not judged) as float64, NaN for None,
    by Arrow's converter (as :func:`rankeval.io.tables.dict_values` reads them); a
    ValueError for a grade Arrow does not convert (the general path reads it)."""
    import pyarrow as pa

    try:
        array = pa.array(values, type=pa.float64())
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise ValueError("a grade for the general path") from error
    return array.to_numpy(zero_copy_only=False)


def _key_array(keys, kind):
    """Query ids ``keys`` (all of type ``kind``) as an Arrow array, or None where the
    general path decides (a None, an id that is no valid UTF-8 or beyond int64)."""
    import pyarrow as pa

    if kind is None:
        return None
    try:
        array = pa.array(keys, type=pa.string() if kind is str else pa.int64())
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, UnicodeError):
        return None
    return array if not array.null_count else None


def _one_type(values):
    """``str`` or ``int`` if every value is exactly of that type, else None."""
    types = set(map(type, values))
    return types.pop() if len(types) == 1 and types <= {str, int} else None


def _valid_ids(ids, kind) -> bool:
    """Whether ids of type ``kind`` are what the general path reads without a word:
    UTF-8 text, or integers within int64."""
    if kind is str:
        text = "".join(ids)
        return text.isascii() or _utf8(text)
    return not ids or (_INT64[0] <= min(ids) and max(ids) <= _INT64[1])


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _doc_type(ids, expected):
    """The one type (``str`` or ``int``) of document ids ``ids`` (an iterable) if they
    are valid ids (see :func:`_valid_ids`) and of the type ``expected`` (None: any),
    else None."""
    ids = ids if isinstance(ids, list) else list(ids)
    if expected in (None, str):
        try:
            text = "".join(ids)  # TypeError: not all str
        except TypeError:
            if expected is str:
                return None
        else:
            return str if text.isascii() or _utf8(text) else None
    return int if _one_type(ids) is int and _valid_ids(ids, int) else None


class _TiedIds:
    """The run's document ids as :func:`~rankeval.ranking.ordering._by_doc_id_descending`
    takes them (``take`` of row numbers -> an Arrow array), made only for the rows that
    tie, from the dicts' keys."""

    def __init__(self, docs, doc_type):
        self._docs, self._type = docs, doc_type

    def take(self, rows):
        import pyarrow as pa

        docs = self._docs
        ids = [docs[i] for i in np.asarray(rows).tolist()]
        return pa.array(ids, type=pa.string() if self._type is str else pa.int64())


def _ranked(queries, key_type, q_blocks, judged, r_query, r_len, docs, scores, row_grades,
            doc_type, *, threshold, ties, judged_only, missing, ideal, score_precision,
            grades, max_docs):
    """The :class:`~rankeval.RankedRun` of the arrays :func:`_read` made: the steps of
    :func:`rankeval.rank_run` after its join."""
    from .ordering import _by_doc_id_descending, _rank_order, compared_scores
    from .ranked_run import RankedRun

    n_all = len(queries)
    present = np.zeros(n_all, dtype=bool)  # run keys, an empty ranking included
    present[r_query[r_query >= 0]] = True
    if not present.any() and missing == "skip":
        return None  # the general path's message
    if grades == "trec_eval":
        judged, row_grades = np.trunc(judged), np.trunc(row_grades)
    r_code = np.repeat(r_query, r_len)
    keep = r_code >= 0
    if keep.all():
        rows = np.arange(r_code.size, dtype=np.intp)
    else:
        rows = np.flatnonzero(keep)
        r_code, scores, row_grades = r_code[rows], scores[rows], row_grades[rows]
    scores = compared_scores(scores, score_precision)
    order = _rank_order(r_code, scores, rows, ties, int(np.count_nonzero(present)))
    q_sorted, s_sorted = r_code[order], scores[order]
    del r_code, scores
    if ties == "trec_eval" and order.size > 1:
        _by_doc_id_descending(order, q_sorted, s_sorted, rows, _TiedIds(docs, doc_type))
    g_sorted = row_grades[order]
    del row_grades, order, rows, docs
    selected, rows = ranked_rows(q_sorted, g_sorted, s_sorted, present, missing=missing,
                                 max_docs=max_docs, judged_only=judged_only, ties=ties)
    judged, j_counts = _judged_by_query(judged, *q_blocks, present, missing)
    ids = np.asarray(queries, dtype=np.int64 if key_type is int else object)
    return RankedRun(query_ids=ids[selected], threshold=threshold, ideal=ideal,
                     judged=judged, judged_offsets=row_offsets(j_counts), **rows)


def _judged_by_query(judged, q_len, by_id, present, missing):
    """``(grades, counts)``: the judged grades (``>= 0``) of every selected query (all, or
    with ``missing="skip"`` those in the run), query after query in sorted order, each
    query's in the qrels' order, and their number per query. The qrels' rows come query
    by query (``q_len`` rows each, dict order; ``by_id``: the queries in sorted order),
    so whole blocks move, without a sort (as ``_judged_of_queries`` of the general
    path orders them)."""
    from ..metrics.judged import is_judged

    blocks = by_id[present] if missing == "skip" else by_id
    lengths = q_len[blocks]
    if blocks.size == q_len.size and (blocks[1:] > blocks[:-1]).all():
        values = judged  # every query, already in sorted order
    else:
        starts = np.cumsum(q_len) - q_len
        shift = starts[blocks] - (np.cumsum(lengths) - lengths)
        values = judged[np.repeat(shift, lengths) + np.arange(int(lengths.sum()))]
    keep = is_judged(values)
    if keep.all():
        return values, lengths
    counts = np.add.reduceat(keep.astype(np.int64), np.cumsum(lengths) - lengths) \
        if lengths.size else lengths  # fmt: skip
    return values[keep], counts


# (the general path's own steps, in rankeval.ranking.pipeline, which imports this module)
