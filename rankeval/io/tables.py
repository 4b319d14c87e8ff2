"""Any form of qrels or a run -> one canonical Arrow table.

Every entry point of the run layer (``evaluate``, the ranking step, the
writers) calls :func:`qrels_table` or :func:`run_table` once and works on
what they return; no other code inspects the caller's data. The canonical
tables are

========= ========================================= ==================
column    type                                      meaning
========= ========================================= ==================
query_id  ``string``, ``large_string`` or ``int64`` the query
doc_id    ``string``, ``large_string`` or ``int64`` the document
relevance ``float64``, finite (qrels)               the judged grade
score     ``float64``, finite (run)                 higher ranks first
========= ========================================= ==================

with one row per judgment or retrieved document, **in input order** (file
order, dict order, frame order): the ranking step uses that order for
``ties="input"``. Integer ids keep their integer type (``int64``) and string
ids stay strings, exactly as given: ``"007"`` is never read as ``7``. Every
table is checked: no missing value, numeric finite grades and scores, and no
document twice for one query; a failed check raises ``ValueError`` (or
``TypeError`` for a value of the wrong kind) naming where: the file and line,
the dict key, or the frame row.

The sources understood:

- a path, ``"-"`` (standard input) or a file object: a TREC file, read by
  :mod:`rankeval.io.trec`;
- a dict ``{query_id: {doc_id: grade}}`` (qrels) or ``{query_id: {doc_id:
  score}}`` (run);
- a dict ``{query_id: set or list of relevant doc ids}`` (qrels; grade 1);
- a dict ``{query_id: [doc ids, best first]}`` (run; the document at
  position ``i`` of ``n`` gets score ``n - i``, so the order is kept and
  nothing ties);
- a pandas DataFrame, a pyarrow Table or RecordBatch, or a polars DataFrame
  (polars is optional and imported only if such a frame is given), with the
  canonical column names or a ``columns`` mapping to the caller's names. A
  run frame with a ``rank`` column and no ``score`` gets ``score = -rank``.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import io
import numbers
import os
from collections.abc import Mapping
from itertools import chain

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["kind_label", "first_duplicate", "codes", "finish", "from_mapping", "from_subtopic_mapping", "from_pandas", "from_arrow", "to_numpy_bool", "take_ascending", "first_true", "VALUE", "WHAT", "is_parquet", "mixed_id_types", "id_kind", "id_array", "dict_values"]

VALUE = {"qrels": "relevance", "run": "score", "subtopics": "relevance"}
WHAT = {"qrels": "grade", "run": "score", "subtopics": "grade"}
_CANONICAL = ("query_id", "doc_id", "relevance", "score", "rank", "subtopic")
# Rows hashed together when looking for duplicates: small enough that Arrow's
# hash table stays in the CPU cache (faster than one table for all rows).
_DUPLICATE_SLICE = 1 << 12


def kind_label(kind: str) -> str:
    return "subtopic qrels" if kind == "subtopics" else kind


# --- checks shared by every source --------------------------------------------------------


def finish(table: pa.Table, kind: str, where, *, unique: bool = False) -> pa.Table:
    """Check values (finite) and uniqueness of (query_id, doc_id); return the table.

    ``where(row) -> str`` names a row for messages (a file line, a dict key,
    a frame row); ``where(row, other)`` names two rows (a duplicate).
    ``unique=True`` skips the duplicate search (dict keys are unique already).
    """
    value = VALUE[kind]
    values = table[value]
    if values.null_count:
        row = first_true(values.is_null())
        raise ValueError(f"{where(row)}: the {WHAT[kind]} is missing")
    finite = pc.is_finite(values)
    if len(values) and not pc.all(finite).as_py():
        row = first_true(pc.invert(finite))
        raise ValueError(
            f"{where(row)}: {WHAT[kind]} {values[row].as_py()!r} is not finite"
        )
    if not unique:
        if kind == "subtopics":  # one judgment per (query, subtopic, document)
            keys = pa.table({"query_id": _pair_codes(table["query_id"], table["subtopic"]),
                             "doc_id": table["doc_id"]})
        else:
            keys = table
        pair = first_duplicate(keys)
        if pair is not None:
            first, second = pair
            what = "listed" if kind == "run" else "judged"
            once = "once per query"
            for_query = f"for query {_text(table['query_id'][second])}"
            if kind == "subtopics":
                for_query += f", subtopic {_text(table['subtopic'][second])}"
                once = "once per query and subtopic"
            raise ValueError(
                f"{where(first, second)}: document {_text(table['doc_id'][second])} "
                f"{what} twice {for_query}; each document may appear {once}"
            )
    return table


def codes(column):
    """``(codes, values)``: the distinct values of an id column (Arrow's dictionary
    encoding, in order of first appearance) and each row's position among them (int64)."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    encoded = pc.dictionary_encode(column)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    return encoded.indices.to_numpy().astype(np.int64), encoded.dictionary


def _pair_codes(a, b) -> np.ndarray:
    """One int64 code per row for the pair of values ``(a[i], b[i])``: equal pairs,
    equal codes."""
    (first, _), (second, values) = codes(a), codes(b)
    return first * max(len(values), 1) + second


def _text(scalar) -> str:
    return repr(scalar.as_py())


def first_true(mask) -> int:
    """Index of the first True of a boolean Arrow array (nulls count as False)."""
    return int(pc.index(mask, True).as_py())


def first_duplicate(table: pa.Table):
    """The rows ``(i, j)``, ``i < j``, of a (query_id, doc_id) pair given twice, or None.

    Of all repeated pairs, the one repeated earliest (smallest ``j``) is
    returned, with ``i`` its first occurrence. Text ids are compared exactly
    by Arrow's hash kernels: queries are first cut into runs of equal ids (rows
    of one query usually sit together, as in TREC files; otherwise the rows
    are grouped by query with a stable sort), then the documents of slices
    of about ``_DUPLICATE_SLICE`` rows, made of whole queries, are
    dictionary-encoded, so that each hash table stays in the CPU cache.
    Integer document ids need no hashing: each (query, document) pair
    becomes one int64 key, and one sort of the keys finds the repeats.

    Parameters
    ----------
    table : pyarrow.Table
        With columns ``query_id`` and ``doc_id``.

    Returns
    -------
    tuple of (int, int) or None
        Row indices, or None when every pair is distinct.

    Examples
    --------
    >>> import pyarrow as pa
    >>> t = pa.table({"query_id": ["a", "b", "a", "a"],
    ...               "doc_id": ["x", "x", "y", "x"]})
    >>> first_duplicate(t)
    (0, 3)
    """
    n = table.num_rows
    if n < 2:
        return None
    queries = table["query_id"]
    if pa.types.is_dictionary(queries.type):
        queries = queries.cast(queries.type.value_type)
    docs = table["doc_id"]
    change = np.empty(n, dtype=bool)
    change[0] = True
    change[1:] = to_numpy_bool(pc.not_equal(queries.slice(1), queries.slice(0, n - 1)))
    heads = np.flatnonzero(change)
    codes = np.zeros(1, dtype=np.int64)  # each run of equal query ids: the query's number
    if len(heads) > 1:
        head_ids = take_ascending(queries, heads)
        codes = pc.dictionary_encode(head_ids).combine_chunks().indices.to_numpy()
    if pa.types.is_integer(docs.type):
        found = _first_duplicate_integer(codes, heads, docs, n)
        if found is not False:
            return found
    elif _surely_distinct(codes, heads, docs, n):
        return None
    order = None
    if len(heads) > 1:
        if codes.max() + 1 < len(heads):  # some query appears in two places
            qcode = np.repeat(codes, np.diff(heads, append=n))
            order = np.argsort(qcode, kind="stable")
            qsorted = qcode[order]
            change[0] = True
            np.not_equal(qsorted[1:], qsorted[:-1], out=change[1:])
            heads = np.flatnonzero(change)
            docs = docs.take(pa.array(order))
    bounds = np.append(heads, n)
    pairs = []
    start = 0
    while start < n:
        # whole queries: as many as fit in _DUPLICATE_SLICE rows, and at least one
        stop = int(bounds[np.searchsorted(bounds, start + _DUPLICATE_SLICE, side="right") - 1])
        if stop <= start:
            stop = int(bounds[np.searchsorted(bounds, start, side="right")])
        piece = docs.slice(start, stop - start)
        if isinstance(piece, pa.ChunkedArray):
            piece = piece.combine_chunks()
        encoded = pc.dictionary_encode(piece)
        if len(encoded.dictionary) < len(piece):  # some document id occurs twice here
            # ... within one query, or in two queries (common: an item many users see)
            local = encoded.indices.to_numpy().astype(np.int64)
            inner = bounds[np.searchsorted(bounds, start) : np.searchsorted(bounds, stop, "right")]
            inner = inner - start
            segment = np.repeat(np.arange(len(inner) - 1, dtype=np.int64), np.diff(inner))
            key = segment * len(encoded.dictionary) + local
            ordered = np.sort(key)
            if (ordered[1:] == ordered[:-1]).any():  # a (query, document) pair twice
                pairs.extend(_repeated(key, start))
        start = stop
    if not pairs:
        return None
    if order is not None:
        pairs = [tuple(sorted((int(order[a]), int(order[b])))) for a, b in pairs]
    return min(pairs, key=lambda p: (p[1], p[0]))


_ODD = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9))
# Runs of at most this many rows are searched for a repeat by comparing neighbours.
_NEAR = 16
_NEAR_SLICE = 1 << 20  # rows compared at a time


def _packed(ids: pa.Array):
    """Every string of ``ids`` (at most 16 bytes, no NUL byte) as two uint64 holding its
    bytes, zero-padded, so that equal strings give equal pairs and unequal ones unequal
    pairs (the second is None when no string is longer than 8 bytes); None for longer
    strings or a NUL byte. Arrow pads every string with NUL bytes to 8 or 16 bytes
    (``ascii_rpad`` counts bytes), and the padded data are read as words: no loop. A
    chunked array is combined first."""
    if isinstance(ids, pa.ChunkedArray):
        ids = ids.combine_chunks()
    if not len(ids) or not (pa.types.is_string(ids.type) or pa.types.is_binary(ids.type)):
        return None
    _, offsets, data = ids.buffers()
    bounds = np.frombuffer(offsets, dtype=np.int32, count=len(ids) + 1, offset=4 * ids.offset)
    longest = int(np.diff(bounds).max())
    if longest > 16:
        return None
    raw = np.frombuffer(data, dtype=np.uint8)[bounds[0] : bounds[-1]]
    if raw.size and raw.min() == 0:
        return None
    width = 16 if longest > 8 else 8
    text = ids if pa.types.is_string(ids.type) else ids.cast(pa.string(), safe=False)
    padded = pc.ascii_rpad(text, width=width, padding="\x00")
    start = np.frombuffer(padded.buffers()[1], dtype=np.int32, count=1,
                          offset=4 * padded.offset)[0]
    words = np.frombuffer(padded.buffers()[2], dtype="<u8", count=len(ids) * width // 8,
                          offset=int(start)).reshape(len(ids), width // 8)
    return words[:, 0].astype(np.uint64), (words[:, 1].astype(np.uint64) if width == 16
                                           else None)


def _surely_distinct(codes, heads, docs, n) -> bool:
    """True when no (query, document) pair can repeat: each pair's document bytes
    (:func:`_packed`) and query number (times an odd constant) are xor-ed into one
    64-bit key, and no two keys are equal. Equal pairs always give equal keys; unequal
    pairs rarely do (then, or for ids longer than 16 bytes, False: the exact search
    decides). A sort of
    integers, no hashing of strings: the common case, ids of up to 16 bytes with
    no repeat, costs a few passes over the column."""
    lengths = np.diff(heads, append=n)
    if lengths.max() <= _NEAR and np.max(codes) + 1 == len(heads):
        # each query in one run of few rows (many small queries): compare each row
        # with the next rows of its run, on the bytes themselves (exact; no sort),
        # whole queries of about _NEAR_SLICE rows at a time (small arrays)
        at = np.searchsorted(heads, np.arange(0, n, _NEAR_SLICE))
        cuts = np.unique(np.append(heads[np.minimum(at, len(heads) - 1)], n))
        for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            if not _neighbours_differ(docs.slice(a, b - a), lengths[
                    np.searchsorted(heads, a) : np.searchsorted(heads, b)]):
                return False
        return True
    words = _packed(docs)
    if words is None:
        return False
    low, high = words
    key = low if high is None else low ^ (high * _ODD[1])  # equal ids, equal keys
    common = int(np.bincount(lengths).argmax())
    if common > 1 and np.max(codes) + 1 == len(heads):
        # each query in one run of rows: the runs of the most common length (a run's
        # usual depth) are sorted row by row, which is cheaper than one sort of all
        inside = np.repeat(lengths == common, lengths)
        square = (key if inside.all() else key[inside]).reshape(-1, common)
        square.sort(axis=1)
        if (square[:, 1:] == square[:, :-1]).any():
            return False
        if inside.all():
            return True
        codes, key = np.asarray(codes)[lengths != common], key[~inside]
        lengths = lengths[lengths != common]
    query = np.repeat(np.asarray(codes, dtype=np.uint64), lengths)
    key = key ^ (query * _ODD[0])  # within one query: equal keys exactly for equal ids
    key.sort()
    return not (key[1:] == key[:-1]).any()


def _neighbours_differ(docs, lengths) -> bool:
    """True when no id of ``docs`` repeats within its run (runs of ``lengths`` rows,
    each at most ``_NEAR``); False for a repeat, or ids :func:`_packed` cannot hold."""
    words = _packed(docs)
    if words is None:
        return False
    low, high = words
    block = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
    for shift in range(1, int(lengths.max())):
        same = (block[shift:] == block[:-shift]) & (low[shift:] == low[:-shift])
        if high is not None:
            same &= high[shift:] == high[:-shift]
        if same.any():
            return False
    return True


def _pair_keys(codes, ids):
    """One int64 key per (number, integer id) pair, or None if a key could overflow.

    ``codes`` (>= 0) and ``ids`` (any integer type) are arrays of one length;
    each pair becomes ``code * span + (id - low)``, where ``low`` and ``span``
    cover the ids given, so two pairs get the same key exactly when they are
    equal. None when a key could reach 2**62 (then the caller hashes the ids).
    """
    ids = np.asarray(ids).astype(np.int64, copy=False)
    if not ids.size:
        return np.zeros(0, dtype=np.int64)
    low = int(ids.min())
    span = int(ids.max()) - low + 1
    if (int(np.max(codes)) + 1) * span >= 2**62:
        return None
    return np.asarray(codes).astype(np.int64) * span + (ids - low)


def _first_duplicate_integer(codes, heads, docs, n):
    """:func:`first_duplicate` for integer document ids: each (query number, id)
    pair becomes one int64 key (:func:`_pair_keys`), and one sort of the
    keys finds any repeat (no hashing of the ids). False when the keys could
    overflow (then the general path decides)."""
    doc = docs.to_numpy() if isinstance(docs, pa.Array) else docs.combine_chunks().to_numpy()
    key = _pair_keys(np.repeat(codes, np.diff(heads, append=n)), doc)
    if key is None:
        return False
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    return min(_repeated(key, 0), key=lambda p: (p[1], p[0]))


def _repeated(key: np.ndarray, offset: int):
    """(first, second) rows of each value repeated in ``key``, offset added."""
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if not same.size:
        return []
    # within a run of equal keys the stable sort keeps row order: the run's first
    # row is the first occurrence, the next one the earliest repeat
    starts = same[np.r_[True, np.diff(same) > 1]]
    return [(int(order[s]) + offset, int(order[s + 1]) + offset) for s in starts]


def take_ascending(values, rows: np.ndarray):
    """``values.take(rows)`` for ascending ``rows`` (int64) of a chunked array or a
    table, chunk by chunk (a table: record batch by record batch), so that the cost
    follows the rows taken: Arrow's take of a chunked array or table of many chunks
    costs about its whole length (the 2 million heads of 26 million qrels rows read in
    121 chunks: 0.20 s on its first call, 0.05 to 0.09 s after, against 0.03 s chunk by
    chunk; ``benchmarks/bench_steps.py``). An array, or a chunked array of one chunk,
    is taken as Arrow takes it."""
    if isinstance(values, pa.Table):
        chunks = values.to_batches()
    elif isinstance(values, pa.ChunkedArray) and values.num_chunks > 1:
        chunks = values.chunks
    else:
        return values.take(pa.array(rows))
    lengths = [len(chunk) for chunk in chunks]
    ends = np.cumsum(lengths, dtype=np.int64)
    cuts = np.searchsorted(rows, ends).tolist()
    parts, lo = [], 0
    for chunk, end, n, hi in zip(chunks, ends.tolist(), lengths, cuts, strict=True):
        if hi > lo:
            parts.append(chunk.take(pa.array(rows[lo:hi] - (end - n))))
        lo = hi
    if isinstance(values, pa.Table):
        return pa.Table.from_batches(parts, schema=values.schema)
    return pa.chunked_array(parts, type=values.type)


def to_numpy_bool(values) -> np.ndarray:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    return values.to_numpy(zero_copy_only=False)


# --- ids -------------------------------------------------------------------------------


def is_parquet(source) -> bool:
    """True for a Parquet file: a path ending in ``.parquet``, or a regular file or a
    seekable binary file object that starts with Parquet's magic bytes ``PAR1``."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if isinstance(path, bytes) or path == "-":
            return False
        if path.lower().endswith(".parquet"):
            return True
        if not os.path.isfile(path):
            return False
        try:
            with open(path, "rb") as f:
                return f.read(4) == b"PAR1"
        except OSError:
            return False  # the reader reports it
    read, seek = getattr(source, "read", None), getattr(source, "seek", None)
    if read is None or seek is None or isinstance(source, io.TextIOBase):
        return False
    try:
        if not source.seekable():
            return False
        position = source.tell()
        head = read(4)
        source.seek(position)
    except (OSError, ValueError, AttributeError):
        return False
    return head == b"PAR1"


def mixed_id_types(column: str, first: str, second: str, where: str = "") -> TypeError:
    """The one error for ids of two types (evaluate, evaluate_groups, Dask, Spark).

    ``first`` and ``second`` name the types (``"int"``, ``"str"``); ``where`` says
    which inputs hold them, e.g. ``" (qrels: int, run: str)"``.
    """
    return TypeError(
        f"column {column!r} holds ids of two types, {first} and {second}{where}: ids are "
        "compared exactly and never converted (1 and '1' would be different ids); give "
        f"every {column} as an integer or every one as a string"
    )


def id_kind(value) -> str | None:
    """``"int"`` or ``"str"`` for an id value, an Arrow type or a NumPy/pandas dtype;
    None for anything else (left to the readers' own checks)."""
    if isinstance(value, (pa.DataType,)):
        if pa.types.is_integer(value):
            return "int"
        if pa.types.is_string(value) or pa.types.is_large_string(value) or _is_string_view(
            value
        ):
            return "str"
        return None
    if isinstance(value, str):
        return "str"
    if _is_int(value):
        return "int"
    return None


def _is_int(x) -> bool:
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))


def id_array(values: list, describe) -> pa.Array:
    """A list of ids (all str or all int) as a ``string`` or ``int64`` Arrow array;
    TypeError or ValueError naming the element (``describe(i)``) otherwise."""
    return _id_array(values, describe)


def _id_array(values: list, describe) -> pa.Array:
    """Ids (all str or all int) as a ``string`` or ``int64`` Arrow array.

    ``describe(i)`` names element ``i`` for a message. Integers are never
    turned into strings nor strings into integers.
    """
    if not values:
        return pa.array([], pa.string())
    first = values[0]
    try:
        if isinstance(first, str):
            array = pa.array(values, type=pa.string())
            if not array.null_count:
                return array  # (a None among them is refused by the loop below)
        if _is_int(first):
            array = pa.array(values)  # inferred: a float or a bool among them is refused
            if array.type == pa.int64() and not array.null_count:
                return array
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, UnicodeError):
        pass
    if not (isinstance(first, str) or _is_int(first)):
        raise TypeError(
            f"{describe(0)}: ids must be strings or integers; got {type(first).__name__} "
            f"{first!r}"
        )
    kind = str if isinstance(first, str) else int
    for i, x in enumerate(values):
        ok = isinstance(x, str) if kind is str else _is_int(x)
        if not ok:
            raise TypeError(
                f"{describe(i)}: ids must be all strings or all integers (the first is "
                f"{kind.__name__}); got {type(x).__name__} {x!r}"
            )
        if kind is str:
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(f"{describe(i)}: id {x!r} cannot be encoded as UTF-8") from None
        elif not -(2**63) <= int(x) < 2**63:
            raise ValueError(
                f"{describe(i)}: integer id {int(x)} does not fit in a signed 64-bit integer "
                "(int64)"
            )
    return pa.array(values, type=pa.string() if kind is str else pa.int64())


def _is_string_view(t) -> bool:
    return bool(getattr(pa.types, "is_string_view", lambda _: False)(t))


def _id_column(array, name: str, where) -> pa.ChunkedArray:
    """A frame's id column as ``string``/``large_string`` or ``int64`` (never re-parsed)."""
    array = array if isinstance(array, pa.ChunkedArray) else pa.chunked_array([array])
    t = array.type
    if pa.types.is_dictionary(t):
        array = array.cast(t.value_type)
        t = array.type
    if pa.types.is_large_string(t) or _is_string_view(t):
        try:
            array = array.cast(pa.string())
        except (pa.ArrowInvalid, pa.ArrowCapacityError):  # a chunk over 2 GiB: keep it large
            pass
    elif pa.types.is_integer(t):
        if t != pa.int64():
            try:
                array = array.cast(pa.int64())
            except pa.ArrowInvalid:
                # only uint64 can overflow; the bound is a uint64 scalar, as a Python
                # int would make Arrow cast the column to int64 (and fail again)
                row = first_true(pc.greater(array, pa.scalar(2**63 - 1, t)))
                raise ValueError(
                    f"{where(row)}: {name} {array[row].as_py()} does not fit in a signed "
                    "64-bit integer (int64)"
                ) from None
    elif not pa.types.is_string(t):
        hint = " (missing ids make an integer column float)" if pa.types.is_floating(t) else ""
        raise TypeError(
            f"{where(None)}: column {name!r} must hold strings or integers, got {t}{hint}"
        )
    if array.null_count:
        raise ValueError(f"{where(first_true(array.is_null()))}: {name} is missing")
    return array


# --- dicts -----------------------------------------------------------------------------


_COLLECTIONS = (list, tuple, set, frozenset, np.ndarray)
# Containers of document ids read without a check per query (a set has no order: qrels only)
_PLAIN_LISTS = {"run": {list, tuple}, "qrels": {list, tuple, set, frozenset}}
# Documents per conversion of dict keys and values to Arrow: a batch of whole queries,
# small enough that the Python objects a batch's list has just touched are still in the
# CPU cache when Arrow reads them (a list of every document would be read back from
# memory).
_CONVERT_ROWS = 1 << 16


def from_mapping(data: Mapping, kind: str) -> pa.Table:
    """``{query_id: {doc_id: value}}`` (or lists and sets of ids) as the canonical table.

    Python objects are read by Arrow's and NumPy's converters, never one by one
    in Python: the documents of a batch of whole queries (about
    ``_CONVERT_ROWS``) are chained into one list, whose ids and values Arrow
    converts; query codes come from ``np.repeat`` over the queries' lengths;
    a list run's scores (``n - i + 1``) are one NumPy expression. When every
    query holds a ``dict`` (or every one a list or tuple; sets too for qrels),
    one type test of all of them replaces the check of each query; other
    containers (NumPy arrays, mappings of other kinds) are checked query by
    query. Only a failed conversion goes element by element, to name the
    culprit. A dict's keys are unique, so a run or qrels of mappings skips the
    duplicate search; lists may repeat a document, so they do not.

    What remains is the converters' own cost per object: at 10,000 queries x
    100 documents (1.4 million rows of qrels and run), about 0.15 s of a 0.4 s
    ``evaluate`` call on the machine of issue 41.
    """
    queries, inner, lengths, form, mapping_at = _queries_with_documents(data, kind)
    all_mappings = form in ("dicts", "mappings")
    n = int(lengths.sum())
    qcodes = np.repeat(np.arange(len(queries), dtype=np.int32), lengths)
    starts = np.cumsum(lengths) - lengths
    ends = starts + lengths

    def describe_query(i):
        return f"{kind} query id {queries[i]!r}"

    def describe_doc(row):
        q = int(qcodes[row])
        return f"{kind}[{queries[q]!r}], document {row - int(starts[q]) + 1}"

    query_values = _id_array(queries, describe_query)
    # batches of whole queries, about _CONVERT_ROWS documents each: [cuts[i], cuts[i + 1])
    cuts = np.unique(
        np.concatenate(
            ([0], np.searchsorted(ends, np.arange(_CONVERT_ROWS, n, _CONVERT_ROWS)) + 1,
             [len(inner)])
        ).clip(0, len(inner))
    ).tolist()  # fmt: skip
    batches = list(zip(cuts[:-1], cuts[1:], strict=True))
    parts = []
    for a, b in batches:
        row = int(starts[a])
        batch = list(chain.from_iterable(inner[a:b]))
        if parts:  # the batch's first id is of the kind of the first batch's ids
            first_is_str, x = pa.types.is_string(parts[0].type), batch[0]
            if not (isinstance(x, str) if first_is_str else _is_int(x)):
                raise TypeError(
                    f"{describe_doc(row)}: ids must be all strings or all integers (the "
                    f"first is {'str' if first_is_str else 'int'}); got "
                    f"{type(x).__name__} {x!r}"
                )
        parts.append(_id_array(batch, lambda i, row=row: describe_doc(row + i)))
        del batch
    docs_array = pa.chunked_array(parts, type=parts[0].type if parts else pa.string())
    values = np.empty(n, dtype=np.float64)
    if all_mappings:
        for a, b in batches:
            lo, hi = int(starts[a]), int(ends[b - 1])
            values[lo:hi] = _dict_values(inner[a:b], queries[a:b], kind, hi - lo,
                                         form == "dicts")
    else:
        # lists and sets: grade 1 (qrels); position i of n scores n - i + 1 (run)
        if kind == "qrels":
            values.fill(1.0)
        else:
            np.subtract(np.repeat(ends, lengths), np.arange(n), out=values, casting="unsafe")
        for i in mapping_at:  # the dicts among them
            lo, hi = int(starts[i]), int(ends[i])
            values[lo:hi] = _dict_values([inner[i]], [queries[i]], kind, hi - lo, False)
    if len(query_values) and len(queries):
        query_ids = pa.DictionaryArray.from_arrays(pa.array(qcodes), query_values)
    else:
        query_ids = pa.array([], query_values.type)
    table = pa.table({"query_id": query_ids, "doc_id": docs_array, VALUE[kind]: values})

    def where(row, other=None):
        q = queries[int(qcodes[row])]
        if other is None:
            return f"{kind}[{q!r}][{docs_array[row].as_py()!r}]"
        return (
            f"{kind}[{q!r}], positions {row - int(starts[qcodes[row]]) + 1} and "
            f"{other - int(starts[qcodes[other]]) + 1}"
        )

    return finish(table, kind, where, unique=all_mappings)


def _queries_with_documents(data: Mapping, kind: str):
    """``(queries, inner, lengths, form, mapping_at)``: the queries that have at
    least one document, their dicts, lists or sets (NumPy arrays as lists), the
    number of documents of each (int64), the ``form`` of ``inner`` (``"dicts"``:
    every one is a ``dict``; ``"mappings"``: every one is a mapping, some of
    another kind; ``"lists"``: none is a mapping; ``"mixed"``), and for
    ``"mixed"`` the positions of the mappings in ``inner``. A query with no
    document has no row (``{q: {}}``, ``{q: []}``)."""
    inner = list(data.values())
    types = set(map(type, inner))
    form = "dicts" if types <= {dict} else "lists" if types <= _PLAIN_LISTS[kind] else None
    if form is not None:  # the usual cases: no check per query needed
        lengths = np.fromiter(map(len, inner), np.int64, len(inner))
        queries = list(data)
        if not lengths.all():
            keep = np.flatnonzero(lengths).tolist()
            queries = [queries[i] for i in keep]
            inner = [inner[i] for i in keep]
            lengths = lengths[keep]
        return queries, inner, lengths, form, []
    what = WHAT[kind]
    queries, inner, mapping_at = [], [], []
    for q, docs in data.items():
        if type(docs) is dict or isinstance(docs, Mapping):
            if len(docs):
                mapping_at.append(len(inner))
        elif isinstance(docs, _COLLECTIONS):
            if kind == "run" and isinstance(docs, (set, frozenset)):
                raise TypeError(
                    f"{kind}[{q!r}] is a set, which has no order; give a list of "
                    "document ids, best first, or a dict {doc_id: score}"
                )
            if isinstance(docs, np.ndarray):
                docs = docs.tolist()
        else:
            raise TypeError(
                f"{kind}[{q!r}] must be a dict {{doc_id: {what}}} or a "
                f"{'set or list of relevant' if kind == 'qrels' else 'list of'} document "
                f"ids, got {type(docs).__name__}"
            )
        if len(docs):
            queries.append(q)
            inner.append(docs)
    lengths = np.fromiter(map(len, inner), np.int64, len(inner))
    if len(mapping_at) == len(inner):
        form = "mappings"
    else:
        form = "mixed" if mapping_at else "lists"
    return queries, inner, lengths, form, mapping_at


def from_subtopic_mapping(data: Mapping) -> pa.Table:
    """``{query_id: {subtopic: {doc_id: grade}}}`` (or a set or list of relevant
    ids, grade 1, for a subtopic) as the canonical subtopic qrels table."""
    rows = []  # (query, subtopic, document, grade)
    for q, by_subtopic in data.items():
        if not isinstance(by_subtopic, Mapping):
            raise TypeError(
                f"subtopic qrels[{q!r}] must be a dict {{subtopic: {{doc_id: grade}}}}, "
                f"got {type(by_subtopic).__name__}"
            )
        for s, docs in by_subtopic.items():
            if isinstance(docs, Mapping):
                pairs = docs.items()
            elif isinstance(docs, _COLLECTIONS):
                pairs = ((d, 1) for d in (docs.tolist() if isinstance(docs, np.ndarray)
                                          else docs))
            else:
                hint = ""
                if isinstance(docs, (numbers.Real, np.bool_)):
                    hint = (" (ordinary qrels {query_id: {doc_id: grade}} have no "
                            "subtopics; diversity needs {query_id: {subtopic: {doc_id: "
                            "grade}}})")
                raise TypeError(
                    f"subtopic qrels[{q!r}][{s!r}] must be a dict {{doc_id: grade}} or a "
                    f"set or list of relevant document ids, got {type(docs).__name__}{hint}"
                )
            for d, g in pairs:
                if not isinstance(g, (numbers.Real, np.bool_)):
                    raise TypeError(
                        f"subtopic qrels[{q!r}][{s!r}][{d!r}]: grade must be a number, "
                        f"got {type(g).__name__} {g!r}"
                    )
                rows.append((q, s, d, float(g)))

    def describe(column):
        return lambda i: "subtopic qrels" + "".join(f"[{x!r}]" for x in rows[i][: column + 1])

    def where(row, other=None):
        return describe(2 if other is None else 1)(row)

    names = ("query_id", "subtopic", "doc_id")
    table = pa.table(
        {name: _id_array([r[i] for r in rows], describe(i)) for i, name in enumerate(names)}
        | {"relevance": pa.array([r[3] for r in rows], pa.float64())}
    )
    return finish(table, "subtopics", where)


def dict_values(inner, queries, kind: str, n: int, plain: bool) -> np.ndarray:
    """The values of dicts ``inner`` (of the queries ``queries``), in order, as float64,
    read as :func:`from_mapping` reads them (the same converter and messages); for
    the dict path of :mod:`rankeval.ranking.from_dicts`."""
    return _dict_values(inner, queries, kind, n, plain)


def _dict_values(inner, queries, kind: str, n: int, plain: bool) -> np.ndarray:
    """The values of dicts ``inner``, in order, as float64 (numbers only, no strings).

    ``plain``: every one of ``inner`` is a ``dict`` (its values are read by
    ``dict.values`` without a Python call per dict)."""
    views = map(dict.values, inner) if plain else (d.values() for d in inner)
    flat = list(chain.from_iterable(views))
    try:
        array = pa.array(flat, type=pa.float64())
        if not array.null_count:
            return array.to_numpy()
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        pass
    out = np.empty(n, dtype=np.float64)
    row = 0
    for q, docs in zip(queries, inner, strict=True):
        for d, v in docs.items():
            if isinstance(v, (numbers.Real, np.bool_)):
                try:
                    out[row] = float(v)
                except OverflowError:
                    shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:37] + "..."
                    raise ValueError(
                        f"{kind}[{q!r}][{d!r}]: {WHAT[kind]} {shown} is too large for a "
                        "double (64-bit float)"
                    ) from None
            else:
                raise TypeError(
                    f"{kind}[{q!r}][{d!r}]: {WHAT[kind]} must be a number, got "
                    f"{type(v).__name__} {v!r}"
                )
            row += 1
    return out


# --- frames ----------------------------------------------------------------------------


def _column_names(kind: str, columns, available) -> dict:
    """canonical name -> the frame's column name, for the columns present."""
    columns = dict(columns or {})
    unknown = set(columns) - set(_CANONICAL)
    if unknown:
        raise ValueError(
            f"columns: unknown canonical name(s) {sorted(unknown)}; use {list(_CANONICAL)}"
        )
    names = {c: columns.get(c, c) for c in _CANONICAL}
    missing_mapped = [v for k, v in columns.items() if v not in available]
    if missing_mapped:
        raise ValueError(
            f"{kind}: columns maps to {missing_mapped}, which the frame does not have "
            f"(it has {list(available)})"
        )
    return {c: n for c, n in names.items() if n in available}


def from_pandas(frame, kind: str, columns) -> pa.Table:
    import pandas as pd

    source = f"{kind_label(kind)} DataFrame"
    names = _column_names(kind, columns, list(frame.columns))
    needed = _needed(kind, names, list(frame.columns), source)
    index = frame.index

    def label(row) -> str:
        value = index[row]
        return repr(value.item() if isinstance(value, np.generic) else value)

    def where(row, other=None):
        if row is None:
            return source
        if not index.is_unique:  # (after pd.concat, say): the labels name no one row
            if other is None:
                return f"{source}, row at position {row}"
            return f"{source}, rows at positions {row} and {other}"
        if other is None:
            return f"{source}, row {label(row)}"
        return f"{source}, rows {label(row)} and {label(other)}"

    if len(frame) == 0:
        raise ValueError(f"the {source} has no rows: there is nothing to evaluate")
    arrays = {}
    for canonical, name in needed.items():
        col = frame[name]
        if isinstance(col, pd.DataFrame):
            raise ValueError(f"{source}: more than one column is named {name!r}")
        try:
            arrays[canonical] = pa.chunked_array([pa.Array.from_pandas(col)])
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as error:
            raw = col.to_numpy(dtype=object)
            first = next((x for x in raw if x is not None), None)
            for i, x in enumerate(raw):
                if type(x) is not type(first):
                    raise TypeError(
                        f"{where(i)}: column {name!r} mixes {type(first).__name__} and "
                        f"{type(x).__name__} values ({x!r})"
                    ) from None
            raise TypeError(f"{source}: column {name!r} cannot be read: {error}") from None
    return _from_columns(arrays, kind, where)


def row_names(source: str, base: int = 0):
    """``where(row, other=None)`` for messages: ``source``, its row ``base + row``, or its
    rows ``base + row`` and ``base + other`` (``base``: the first row of a batch)."""
    def where(row, other=None):
        if row is None:
            return source
        if other is None:
            return f"{source}, row {base + row}"
        return f"{source}, rows {base + row} and {base + other}"

    return where


def from_arrow(table: pa.Table, kind: str, columns, source: str, *,
               unique: bool = False) -> pa.Table:
    names = _column_names(kind, columns, table.column_names)
    needed = _needed(kind, names, table.column_names, source)
    return _from_columns({c: table[n] for c, n in needed.items()}, kind,
                         row_names(source), unique)


def _needed(kind: str, names: dict, available, source: str) -> dict:
    value = VALUE[kind]
    if kind == "subtopics":
        missing = [c for c in ("query_id", "subtopic", "doc_id", value) if c not in names]
        if missing:
            raise ValueError(
                f"{source} needs the columns query_id, subtopic, doc_id, {value}; missing "
                f"{missing} (it has {list(available)}); map your names with "
                "columns={'query_id': ..., 'subtopic': ..., 'doc_id': ..., "
                f"'{value}': ...}}"
            )
        return {c: names[c] for c in ("query_id", "subtopic", "doc_id", value)}
    need = {"query_id", "doc_id"}
    if value in names or kind == "qrels" or "rank" not in names:
        need.add(value)
    else:
        need.add("rank")
    missing = [c for c in ("query_id", "doc_id", value) if c in need and c not in names]
    if missing:
        alternative = f" (or '{value}' as 'rank')" if kind == "run" else ""
        raise ValueError(
            f"{source} needs the columns query_id, doc_id, {value}{alternative}; missing "
            f"{missing} (it has {list(available)}); map your names with "
            "columns={'query_id': ..., 'doc_id': ..., " f"'{value}': ...}}"
        )
    return {c: names[c] for c in ("query_id", "doc_id", value, "rank") if c in need}


def _from_columns(arrays: dict, kind: str, where, unique: bool = False) -> pa.Table:
    value = VALUE[kind]
    query_ids = _id_column(arrays["query_id"], "query_id", where)
    doc_ids = _id_column(arrays["doc_id"], "doc_id", where)
    if value in arrays:
        values = _number_column(arrays[value], value, where)
    else:
        values = pc.negate(_number_column(arrays["rank"], "rank", where))
    columns = {"query_id": query_ids, "doc_id": doc_ids, value: values}
    if "subtopic" in arrays:
        columns = {"query_id": query_ids,
                   "subtopic": _id_column(arrays["subtopic"], "subtopic", where), **columns}
    return finish(pa.table(columns), kind, where, unique=unique)


def _number_column(array, name: str, where) -> pa.ChunkedArray:
    array = array if isinstance(array, pa.ChunkedArray) else pa.chunked_array([array])
    t = array.type
    if pa.types.is_dictionary(t):
        array = array.cast(t.value_type)
        t = array.type
    if not (
        pa.types.is_integer(t)
        or pa.types.is_floating(t)
        or pa.types.is_boolean(t)
        or pa.types.is_decimal(t)
        or pa.types.is_null(t)
    ):
        raise TypeError(f"{where(None)}: column {name!r} must be numeric, got {t}")
    if array.null_count:
        raise ValueError(f"{where(first_true(array.is_null()))}: {name} is missing")
    if pa.types.is_integer(t):
        # to the nearest double, as float() and trec_eval's atof read a number: Arrow's
        # safe cast refuses integers past 2**53 (nanosecond times as scores, say)
        return array.cast(pa.float64(), safe=False)
    return array.cast(pa.float64())
