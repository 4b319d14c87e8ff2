"""Read and write TREC qrels and run files.

A **qrels** file holds relevance judgments, one per line::

    query_id  iteration  doc_id  grade        e.g.   q1 0 d17 2

and a **run** file a system's ranked results, one document per line::

    query_id  Q0  doc_id  rank  score  tag     e.g.   q1 Q0 d17 1 12.5 bm25

Fields are separated by any amount of whitespace (spaces, tabs). As in
trec_eval, the ``iteration``, ``Q0``, ``rank`` and ``tag`` columns are read
but not used: a run is ordered by its **scores**, never by its rank column.
Query and document ids stay strings exactly as written (``"007"`` is not
``"7"``). Blank lines are skipped; every other line must have the right number
of fields, a numeric grade or a finite numeric score, and a document may appear
only once per query. A file breaking one of these rules raises ``ValueError``
naming the file, the line number and the reason.

The readers are vectorised with NumPy (the whole file is tokenised as one byte
array), so a run of millions of lines loads in seconds; only the public
functions that return dicts or DataFrames create one Python object per line.

Chapter: :doc:`/chapters/13_evaluating_a_run`.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

__all__ = ["read_qrels", "read_run", "write_qrels", "write_run"]

# Bytes that separate fields: tab, newline, vertical tab, form feed, carriage
# return, space (the set C's isspace() recognises).
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 11, 12, 13, 32]] = True
_NEWLINE = 10
_CHUNK_BYTES = 1 << 20  # tokenise 1 MiB at a time: temporaries stay small and reused

_NUMBER_TYPES = (numbers.Real, np.bool_)

_FIELDS = {
    "qrels": ("query_id", "iteration", "doc_id", "grade"),
    "run": ("query_id", "Q0", "doc_id", "rank", "score", "tag"),
}

def _splitmix(z: np.ndarray) -> np.ndarray:
    """Scramble 64-bit integers in place (the splitmix64 finaliser); wraps modulo 2**64."""
    t = np.right_shift(z, np.uint64(30))
    z ^= t
    z *= np.uint64(0xBF58476D1CE4E5B9)
    np.right_shift(z, np.uint64(27), out=t)
    z ^= t
    z *= np.uint64(0x94D049BB133111EB)
    np.right_shift(z, np.uint64(31), out=t)
    z ^= t
    return z


# --- ids: Python strings or tokens of a file's bytes ---------------------------------


class _Ids:
    """Document (or query) ids of a flat table, one per row.

    Either an object array of Python ``str`` (dict and DataFrame input), or
    the byte offsets of tokens inside a file buffer (file input), which avoids
    creating millions of Python strings. Both give 64-bit hashes for joining
    (always verified by an exact comparison afterwards), exact values for a
    subset of rows, and ``str`` for messages. Bytes compare like C's
    ``strcmp``, and UTF-8 bytes sort in the same order as the code points of
    the decoded strings, so the two kinds order ids identically.
    """

    def __init__(self, *, strings=None, buf=None, start=None, end=None):
        self.strings = strings
        self.buf, self.start, self.end = buf, start, end
        self._hashes = None

    @property
    def is_bytes(self) -> bool:
        return self.strings is None

    def __len__(self) -> int:
        return len(self.start) if self.is_bytes else len(self.strings)

    def hashes(self) -> np.ndarray:
        """A 64-bit hash per row (equal ids give equal hashes; the converse is verified)."""
        if self._hashes is None:
            self._hashes = self._compute_hashes()
        return self._hashes

    def _compute_hashes(self) -> np.ndarray:
        if not self.is_bytes:
            return np.fromiter(map(hash, self.strings), np.int64, len(self.strings)).view(
                np.uint64
            )
        words = _words(self.buf, self.start, self.end)
        h = words[:, 0].astype(np.uint64)
        for i in range(1, words.shape[1]):
            h = _splitmix(h) ^ words[:, i]
        return _splitmix(h ^ (self.end - self.start).astype(np.uint64))

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The ids of ``rows``, as an array comparable with ``==`` and sortable."""
        if not self.is_bytes:
            return self.strings[rows]
        return _gather(self.buf, self.start[rows], self.end[rows])

    def text(self, row: int) -> str:
        if not self.is_bytes:
            return self.strings[row]
        return bytes(self.buf[self.start[row] : self.end[row]]).decode("utf-8", "surrogateescape")

    def as_bytes(self) -> _Ids:
        """The same ids as tokens of a byte buffer (UTF-8), comparable with a file's."""
        if self.is_bytes:
            return self
        encoded = [s.encode("utf-8", "surrogateescape") for s in self.strings.tolist()]
        lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
        data = b" ".join(encoded)
        buf = np.zeros(len(data) + 1 + _PAD, dtype=np.uint8)
        buf[: len(data)] = np.frombuffer(data, dtype=np.uint8)
        start = np.concatenate(([0], np.cumsum(lengths + 1)[:-1])).astype(np.int64)
        return _Ids(buf=buf, start=start, end=start + lengths)

    def as_strings(self) -> _Ids:
        """The same ids as Python strings (decodes every token of a file)."""
        if not self.is_bytes:
            return self
        raw = _gather(self.buf, self.start, self.end)
        return _Ids(strings=_decode(raw))


def _decode(raw: np.ndarray) -> np.ndarray:
    out = np.empty(len(raw), dtype=object)
    out[:] = [b.decode("utf-8", "surrogateescape") for b in raw.tolist()]
    return out


# _MASKS[n] keeps the first n bytes of a little-endian 8-byte word
_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype="<u8")


def _words(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Tokens ``buf[start:end]`` as zero-padded little-endian 8-byte words, shape (n, w).

    Reads 8 bytes at a time at any byte offset (an unaligned view of the
    buffer), so a token of up to 8 bytes costs one gather. The buffer must
    carry at least 8 bytes after its last token (see ``_load``).
    """
    lengths = end - start
    n_words = max(-(-int(lengths.max()) // 8) if len(start) else 0, 1)
    unaligned = np.ndarray((len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))
    out = np.empty((len(start), n_words), dtype="<u8")
    last = len(unaligned) - 1
    for i in range(n_words):
        at = start + 8 * i
        if i:  # words past a short token's end are masked to 0; keep the read in bounds
            at = np.minimum(at, last)
        out[:, i] = unaligned[at] & _MASKS[np.clip(lengths - 8 * i, 0, 8)]
    return out


def _gather(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Copy the tokens ``buf[start:end]`` into a fixed-width, zero-padded bytes array."""
    words = _words(buf, start, end)
    return words.view(f"S{8 * words.shape[1]}").ravel()


# --- the flat table every input becomes ----------------------------------------------


@dataclass
class _Table:
    """Qrels or a run as flat rows: query code, document id and a number per row.

    ``queries`` lists the distinct query ids in order of first appearance and
    ``qcode`` points into it. ``values`` holds grades (qrels) or scores (run).
    For file input ``from_file`` is True and ``lines`` holds the 1-based line
    number of each row (``None`` when row ``i`` is line ``i + 1``), for error
    messages. ``empty`` lists queries given with no document at all (a dict
    entry ``{"q1": {}}``), which a run can express and a file cannot.
    """

    kind: str  # "qrels" or "run"
    source: str  # how to name the input in messages
    queries: list
    qcode: np.ndarray
    docs: _Ids
    values: np.ndarray
    lines: np.ndarray | None = None
    from_file: bool = False
    empty: list = field(default_factory=list)
    checked_unique: bool = False
    mapping: Mapping | None = None  # the input dict, when its keys are the ids as given
    _keys: tuple = (None, None)

    def __len__(self) -> int:
        return len(self.qcode)

    def line(self, row: int) -> int:
        return int(self.lines[row]) if self.lines is not None else row + 1

    def where(self, row: int) -> str:
        """Where a row came from, e.g. ``run.txt, line 12`` or ``run['q1']['d3']``."""
        if self.from_file:
            return f"{self.source}, line {self.line(row)}"
        return f"{self.source}[{self.queries[self.qcode[row]]!r}][{self.docs.text(row)!r}]"

    def pair_keys(self) -> np.ndarray:
        """A 64-bit key per row from its query id and document id (cached).

        Built from hashes of the ids themselves, not of table-specific codes,
        so equal (query, document) pairs of a run and of qrels get equal keys.
        """
        if self._keys[0] is not self.docs:
            qhash = np.fromiter(map(hash, self.queries), np.int64, len(self.queries))
            self._keys = (self.docs, _pair_keys(qhash.view(np.uint64)[self.qcode], self.docs.hashes()))
        return self._keys[1]

    def check_unique(self) -> None:
        """Raise ValueError if a document appears twice for the same query."""
        if self.checked_unique or len(self) < 2:
            return
        keys = self.pair_keys()
        ordered = np.sort(keys)
        if np.any(ordered[1:] == ordered[:-1]):
            order = np.argsort(keys, kind="stable")
            same = np.flatnonzero(keys[order[1:]] == keys[order[:-1]])
            first, second = order[same], order[same + 1]
            exact = (self.qcode[first] == self.qcode[second]) & (
                self.docs.take(first) == self.docs.take(second)
            )
            dup = np.flatnonzero(exact)
            if dup.size:  # report the earliest row that repeats an earlier one
                i = dup[np.argmin(second[dup])]
                self._duplicate(int(first[i]), int(second[i]))
            # only hash collisions: fall back to an exact check
            seen = {}
            pairs = zip(self.qcode.tolist(), self.docs.as_strings().strings, strict=True)
            for row, (q, d) in enumerate(pairs):
                if (q, d) in seen:
                    self._duplicate(seen[(q, d)], row)
                seen[(q, d)] = row
        self.checked_unique = True

    def _duplicate(self, a: int, b: int):
        what = "judged" if self.kind == "qrels" else "retrieved"
        earlier = f"line {self.line(a)}" if self.from_file else "an earlier entry"
        raise ValueError(
            f"{self.where(b)}: duplicate document {self.docs.text(b)!r} for query "
            f"{self.queries[self.qcode[b]]!r} (already {what} at {earlier}); each "
            "document may appear once per query"
        )


def _pair_keys(query_hash: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    """One 64-bit key per (query, document) pair (both hashes are already well mixed)."""
    key = query_hash * np.uint64(0x9E3779B97F4A7C15)
    key ^= doc_hash
    return key


# --- reading files ---------------------------------------------------------------------


def _tokenise(buf: np.ndarray, lo: int, hi: int, n_fields: int):
    """Tokens of the whole lines ``buf[lo:hi]``.

    Returns ``(starts, ends, first, counts)``: absolute token offsets, the
    0-based line (within the chunk) of the first token of each non-blank line,
    and the number of tokens on every line of the chunk. Only one pass runs
    over the bytes (finding the separators); the rest works on those.
    """
    chunk = buf[lo:hi]
    seps = np.flatnonzero(chunk <= 32)  # whitespace, if no other control byte occurs
    kind = chunk[seps]
    if np.any((kind < 9) | ((kind > 13) & (kind < 32))):  # e.g. \x01: part of a token
        seps = np.flatnonzero(_WHITESPACE[chunk])
        kind = chunk[seps]
    newline = kind == _NEWLINE
    n_lines = int(np.count_nonzero(newline))
    if len(seps) == n_fields * n_lines:
        # the usual layout: single separators, n_fields tokens, then the newline
        grid = newline.reshape(n_lines, n_fields)
        if grid[:, -1].all() and not grid[:, :-1].any():
            starts = np.empty_like(seps)
            starts[0] = 0
            starts[1:] = seps[:-1] + 1
            if np.all(seps > starts):  # no empty token (two separators in a row)
                return starts + lo, seps + lo, np.arange(n_lines), np.full(n_lines, n_fields)
    # general layout: a token is a gap of at least one byte between separators
    before = np.empty_like(seps)
    before[0] = -1
    before[1:] = seps[:-1]
    token = seps - before > 1  # a token ends at this separator
    starts, ends = before[token] + 1, seps[token]
    line = (np.cumsum(newline) - newline)[token]  # newlines before each token
    counts = np.bincount(line, minlength=n_lines)
    return starts + lo, ends + lo, line[::n_fields], counts


_PAD = 64  # zero bytes kept after a file's content, for fixed-width gathers


def _load(source: str) -> np.ndarray:
    """The file's bytes, ending with a newline, followed by _PAD zero bytes."""
    size = os.path.getsize(source)
    buf = np.zeros(size + 1 + _PAD, dtype=np.uint8)
    with open(source, "rb") as f:
        n = f.readinto(memoryview(buf)[:size])
    if n != size:
        raise OSError(f"{source}: read {n} bytes, expected {size} (file changed while read?)")
    if size == 0 or buf[size - 1] == _NEWLINE:
        return buf[: size + _PAD]
    buf[size] = _NEWLINE
    return buf


_UNDERSCORES = np.uint64(0x5F5F5F5F5F5F5F5F)
_LOW_BITS = np.uint64(0x0101010101010101)
_HIGH_BITS = np.uint64(0x8080808080808080)


def _has_underscore(raw: np.ndarray) -> np.ndarray:
    """True for the tokens holding a byte ``_`` (the "has a zero byte" bit trick)."""
    words = raw.view("<u8").reshape(len(raw), -1) ^ _UNDERSCORES
    return (((words - _LOW_BITS) & ~words & _HIGH_BITS) != 0).any(axis=1)


def _parse_values(raw: np.ndarray, lines, source: str, what: str) -> np.ndarray:
    """Numbers of the tokens ``raw`` (bytes); ValueError naming the first bad line."""
    try:
        values = raw.astype(np.float64)  # correctly rounded, like C's strtod
        # NumPy, unlike strtod, reads "1_000" as 1000: refuse underscores
        ok = np.isfinite(values) & ~_has_underscore(raw)
    except ValueError:
        values, ok = None, None
    if ok is None or not ok.all():
        for row, token in enumerate(raw.tolist()):
            text = token.decode("utf-8", "replace")
            try:
                number = float(token)
            except ValueError:
                number = None
            if number is None or "_" in text or not math.isfinite(number):
                reason = "not a number" if number is None or "_" in text else "not finite"
                raise ValueError(
                    f"{source}, line {int(lines[row])}: {what} {text!r} is {reason}"
                ) from None
    return values


def _read_file(path, kind: str) -> _Table:
    """Tokenise a qrels or run file into a :class:`_Table` (validated).

    The file is processed in chunks of whole lines; each chunk is tokenised,
    its numbers parsed, its query ids grouped and its document ids hashed
    while its bytes are still in cache.
    """
    names = _FIELDS[kind]
    n_fields = len(names)
    source = os.fspath(path)
    if os.path.isdir(source):
        raise IsADirectoryError(f"{source}: is a directory, not a {kind} file")
    buf = _load(source)
    content = len(buf) - _PAD  # bytes of the file (plus a final newline)
    # room for one row per line, filled chunk by chunk (no concatenation); a line
    # holds at least 2 * n_fields bytes, and pages never written cost nothing
    n_max = content // (2 * n_fields) + 1
    offset = np.int32 if len(buf) < 2**31 else np.int64
    qcode = np.empty(n_max, dtype=np.int32)
    d_start = np.empty(n_max, dtype=offset)
    d_end = np.empty(n_max, dtype=offset)
    hashes = np.empty(n_max, dtype=np.uint64)
    values = np.empty(n_max, dtype=np.float64)
    lines = None  # allocated at the first blank line
    value_field = 3 if kind == "qrels" else 4
    what = "grade" if kind == "qrels" else "score"
    queries: dict = {}
    previous = None  # last query id of the previous chunk, as bytes
    row = line_offset = lo = 0
    while lo < content:
        hi = min(lo + _CHUNK_BYTES, content)
        if hi < content:  # end the chunk on a line break (the content ends with one)
            cut = bytes(buf[lo:hi]).rfind(b"\n")
            if cut >= 0:
                hi = lo + cut + 1
            else:
                hi += bytes(buf[hi:content]).find(b"\n") + 1
        starts, ends, first, counts = _tokenise(buf, lo, hi, n_fields)
        bad = np.flatnonzero((counts != n_fields) & (counts != 0))
        if bad.size:
            at = int(bad[0])
            raise ValueError(
                f"{source}, line {line_offset + at + 1}: malformed {kind} line: expected "
                f"{n_fields} whitespace-separated fields ({' '.join(names)}), found "
                f"{int(counts[at])}"
            )
        chunk_lines = first + (line_offset + 1)
        n = len(chunk_lines)
        if lines is None and n != len(counts):  # a blank line: keep line numbers
            lines = np.empty(n_max, dtype=np.int64)
            lines[:row] = np.arange(1, row + 1)
        line_offset += len(counts)
        lo = hi
        if not n:
            continue
        rows = slice(row, row + n)
        if lines is not None:
            lines[rows] = chunk_lines
        # numbers
        vs, ve = starts[value_field::n_fields], ends[value_field::n_fields]
        values[rows] = _parse_values(_gather(buf, vs, ve), chunk_lines, source, what)
        # query ids: runs of equal ids, each run mapped to a code
        qraw = _gather(buf, starts[0::n_fields], ends[0::n_fields])
        change = np.empty(n, dtype=bool)
        change[0] = previous is None or qraw[0] != previous
        np.not_equal(qraw[1:], qraw[:-1], out=change[1:])
        heads = np.flatnonzero(change)
        codes = [queries.setdefault(q, len(queries)) for q in _decode(qraw[heads]).tolist()]
        if not change[0]:  # continues the last query of the previous chunk
            heads = np.concatenate(([0], heads))
            codes = [qcode[row - 1], *codes]
        qcode[rows] = np.repeat(np.asarray(codes, np.int32), np.diff(heads, append=n))
        previous = qraw[-1]
        # document ids: offsets and hash
        ds, de = starts[2::n_fields], ends[2::n_fields]
        d_start[rows] = ds
        d_end[rows] = de
        hashes[rows] = _Ids(buf=buf, start=ds, end=de).hashes()
        row += n
    if not row:
        raise ValueError(f"{source}: the {kind} file holds no lines")
    docs = _Ids(buf=buf, start=d_start[:row], end=d_end[:row])
    docs._hashes = hashes[:row]
    table = _Table(
        kind,
        source,
        list(queries),
        qcode[:row],
        docs,
        values[:row],
        lines=None if lines is None else lines[:row],
        from_file=True,
    )
    table.check_unique()
    return table


# --- in-memory inputs ----------------------------------------------------------------


def _as_id(x, what: str) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, (bytes, bytearray)):
        return bytes(x).decode("utf-8", "surrogateescape")
    if isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return str(x)
    raise TypeError(
        f"{what} must be a string (or an integer, converted with str), got "
        f"{type(x).__name__} {x!r}"
    )


def _from_mapping(data: Mapping, kind: str, source: str) -> _Table:
    what = "grade" if kind == "qrels" else "score"
    queries, inner = [], []
    for q, docs in data.items():
        if not isinstance(docs, Mapping):
            raise TypeError(
                f"{source}[{q!r}] must map document ids to {what}s (a dict), got "
                f"{type(docs).__name__}"
            )
        if kind == "qrels" and not docs:
            continue  # a query without judgments is not judged (pytrec_eval skips it too)
        queries.append(_as_id(q, f"{source} query id"))
        inner.append(docs)
    lengths = np.fromiter(map(len, inner), np.int64, len(inner))
    n = int(lengths.sum())
    doc_ids = np.empty(n, dtype=object)
    doc_ids[:] = list(chain.from_iterable(inner))
    converted = not all(t is str for t in set(map(type, doc_ids)))
    if converted:
        doc_ids[:] = [_as_id(d, f"{source} document id") for d in doc_ids]
    raw = list(chain.from_iterable(d.values() for d in inner))
    values = np.array(raw) if raw else np.zeros(0)
    if values.dtype.kind not in "biuf" or values.shape != (n,):  # a str, None, Decimal...
        for q, docs in zip(queries, inner, strict=True):
            for d, v in docs.items():
                if not isinstance(v, _NUMBER_TYPES):
                    raise TypeError(
                        f"{source}[{q!r}][{d!r}]: {what} must be a number, got "
                        f"{type(v).__name__} {v!r}"
                    )
        values = np.array([float(v) for v in raw])
    values = values.astype(np.float64)
    if not np.isfinite(values).all():
        row = int(np.flatnonzero(~np.isfinite(values))[0])
        q = queries[int(np.searchsorted(np.cumsum(lengths), row, side="right"))]
        raise ValueError(
            f"{source}[{q!r}][{doc_ids[row]!r}]: {what} {raw[row]!r} is not finite"
        )
    if len(set(queries)) != len(queries):
        dup = next(q for q in queries if queries.count(q) > 1)
        raise ValueError(
            f"{source}: query id {dup!r} appears twice once ids are read as strings "
            "(e.g. 1 and '1')"
        )
    qcode = np.repeat(np.arange(len(queries), dtype=np.int64), lengths)
    empty = [q for q, m in zip(queries, lengths.tolist(), strict=True) if m == 0]
    table = _Table(kind, source, queries, qcode, _Ids(strings=doc_ids), values, empty=empty)
    table.checked_unique = not converted  # dict keys of one query are distinct strings
    if not converted and all(type(q) is str for q in data):
        table.mapping = data  # ids are the dict's own keys: lookups can use it directly
    table.check_unique()
    return table


_FRAME_VALUE = {"qrels": "relevance", "run": "score"}


def _from_frame(frame, kind: str, source: str) -> _Table:
    import pandas as pd

    value_col = _FRAME_VALUE[kind]
    need = ["query_id", "doc_id", value_col]
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{source} DataFrame needs the columns {need}; missing {missing} "
            f"(it has {list(frame.columns)})"
        )
    if not len(frame):
        raise ValueError(f"{source} DataFrame is empty")
    qraw = frame["query_id"].to_numpy(dtype=object)
    draw = frame["doc_id"].to_numpy(dtype=object)
    q = np.empty(len(qraw), dtype=object)
    q[:] = [_as_id(x, f"{source} query_id") for x in qraw]
    d = np.empty(len(draw), dtype=object)
    d[:] = [_as_id(x, f"{source} doc_id") for x in draw]
    what = "grade" if kind == "qrels" else "score"
    col = frame[value_col]
    if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        values = col.to_numpy(dtype=np.float64, na_value=np.nan)
        good = np.isfinite(values)
    else:
        raw = col.to_numpy(dtype=object)
        good = np.array(
            [isinstance(v, _NUMBER_TYPES) and math.isfinite(v) for v in raw], dtype=bool
        )
        values = raw.astype(np.float64) if good.all() else None
    if not good.all():
        row = int(np.flatnonzero(~good)[0])
        raise ValueError(
            f"{source} DataFrame, row {frame.index[row]!r} (query {q[row]!r}, document "
            f"{d[row]!r}): {what} {col.iloc[row]!r} is not a finite number"
        )
    codes, uniques = pd.factorize(q, sort=False)
    table = _Table(kind, source, list(uniques), codes.astype(np.int64), _Ids(strings=d), values)
    try:
        table.check_unique()
    except ValueError:
        keys = pd.Series(list(zip(q.tolist(), d.tolist(), strict=True)))
        row = int(np.flatnonzero(keys.duplicated().to_numpy())[0])
        raise ValueError(
            f"{source} DataFrame, row {frame.index[row]!r}: duplicate document {d[row]!r} "
            f"for query {q[row]!r}; each document may appear once per query"
        ) from None
    return table


def _table(data, kind: str) -> _Table:
    """Turn qrels or a run (dict, DataFrame, or path of a TREC file) into a _Table."""
    if isinstance(data, _Table):
        return data
    if isinstance(data, (str, os.PathLike)):
        return _read_file(data, kind)
    if isinstance(data, Mapping):
        return _from_mapping(data, kind, kind)
    if hasattr(data, "columns") and hasattr(data, "to_numpy"):
        return _from_frame(data, kind, kind)
    raise TypeError(
        f"{kind} must be a dict {{query_id: {{doc_id: value}}}}, a pandas DataFrame or the "
        f"path of a TREC {kind} file, got {type(data).__name__}"
    )


# --- public readers and writers --------------------------------------------------------


def _output(table: _Table, value_col: str, as_frame: bool, integer: bool):
    docs = table.docs.as_strings().strings
    values = table.values
    if as_frame:
        import pandas as pd

        frame = pd.DataFrame(
            {
                "query_id": np.asarray(table.queries, dtype=object)[table.qcode],
                "doc_id": docs,
                value_col: values.astype(np.int64)
                if integer and np.all(values == np.round(values))
                else values,
            }
        )
        return frame
    if integer and np.all(values == np.round(values)):
        vals = values.astype(np.int64).tolist()
    else:
        vals = values.tolist()
    out: dict = {q: {} for q in table.queries}
    queries = table.queries
    for q, d, v in zip(table.qcode.tolist(), docs.tolist(), vals, strict=True):
        out[queries[q]][d] = v
    return out


def read_qrels(path, *, as_frame: bool = False):
    r"""Read a TREC qrels file: ``query_id iteration doc_id grade`` per line.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Fields are separated by whitespace; the ``iteration`` column
        is ignored (trec_eval ignores it too).
    as_frame : bool, default=False
        Return a pandas DataFrame with columns ``query_id``, ``doc_id``,
        ``relevance`` (one row per line, file order) instead of a dict.

    Returns
    -------
    dict of {str: dict of {str: int or float}} or pandas.DataFrame
        ``qrels[query_id][doc_id] = grade``. Grades are ints when every grade
        in the file is a whole number, else floats. Negative grades are kept
        (trec_eval reads them as judged non-relevant).

    Raises
    ------
    ValueError
        A line without exactly 4 fields, a non-numeric grade, or a document
        judged twice for the same query; the message names the file and line.

    Notes
    -----
    trec_eval reads the grade as an integer; this reader accepts any finite
    number so that fractional gains survive, and ``rankeval.evaluate`` treats
    a grade ``>= threshold`` as relevant.

    Chapter: :doc:`/chapters/13_evaluating_a_run`.

    Examples
    --------
    >>> import os, tempfile
    >>> from rankeval import read_qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = open(path, "w").write("q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n")
    >>> read_qrels(path)
    {'q1': {'d1': 2, 'd2': 0}, 'q2': {'d1': 1}}
    """
    return _output(_read_file(path, "qrels"), "relevance", as_frame, integer=True)


def read_run(path, *, as_frame: bool = False):
    r"""Read a TREC run file: ``query_id Q0 doc_id rank score tag`` per line.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Fields are separated by whitespace. ``Q0``, ``rank`` and
        ``tag`` are ignored, as trec_eval ignores them: documents are ranked
        by ``score`` (see ``rankeval.evaluate`` for the tie rule).
    as_frame : bool, default=False
        Return a pandas DataFrame with columns ``query_id``, ``doc_id``,
        ``score`` (file order) instead of a dict.

    Returns
    -------
    dict of {str: dict of {str: float}} or pandas.DataFrame
        ``run[query_id][doc_id] = score``, queries and documents in file order.

    Raises
    ------
    ValueError
        A line without exactly 6 fields, a score that is not a finite number,
        or a document listed twice for the same query; the message names the
        file, the line and the reason.

    Notes
    -----
    Scores are parsed as 64-bit floats, correctly rounded, like trec_eval's
    ``atof``; a score may be written ``12``, ``-0.5`` or ``1e-3``, but not
    ``nan``, ``inf`` or ``1_000``. Ties are kept as they are: the order among
    equal scores is decided when the run is evaluated.

    Chapter: :doc:`/chapters/13_evaluating_a_run`.

    Examples
    --------
    >>> import os, tempfile
    >>> from rankeval import read_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("q1 Q0 d2 1 9.5 bm25\nq1 Q0 d1 2 7 bm25\n")
    >>> read_run(path)
    {'q1': {'d2': 9.5, 'd1': 7.0}}
    """
    return _output(_read_file(path, "run"), "score", as_frame, integer=False)


def _items(data, kind: str):
    """(query, doc, value) triples of a dict or DataFrame, checked like the readers."""
    table = _table(data, kind)
    docs = table.docs.as_strings().strings.tolist()
    queries = np.asarray(table.queries, dtype=object)[table.qcode].tolist()
    return table, queries, docs


def _number(x: float, integer: bool) -> str:
    if integer and float(x).is_integer():
        return str(int(x))
    return repr(float(x))


def _check_token(text: str, what: str) -> None:
    if not text or any(c.isspace() for c in text):
        raise ValueError(
            f"{what} {text!r} cannot be written to a TREC file: ids must be non-empty "
            "and contain no whitespace"
        )


def write_qrels(qrels, path) -> None:
    r"""Write judgments as a TREC qrels file (``query_id 0 doc_id grade`` per line).

    Parameters
    ----------
    qrels : dict of {str: dict of {str: number}} or pandas.DataFrame
        Judgments as accepted by ``rankeval.evaluate``.
    path : str or os.PathLike
        Destination; overwritten.

    Returns
    -------
    None
        The file is written; nothing is returned.

    Notes
    -----
    Whole-number grades are written as integers (trec_eval reads integers);
    other grades in Python's shortest round-trip form. Ids must not contain
    whitespace. Reading the file back with :func:`read_qrels` gives the same
    judgments.

    Chapter: :doc:`/chapters/13_evaluating_a_run`.

    Examples
    --------
    >>> import os, tempfile
    >>> from rankeval import read_qrels, write_qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> write_qrels({"q1": {"d1": 2, "d2": 0}}, path)
    >>> open(path).read()
    'q1 0 d1 2\nq1 0 d2 0\n'
    >>> read_qrels(path)
    {'q1': {'d1': 2, 'd2': 0}}
    """
    table, queries, docs = _items(qrels, "qrels")
    lines = []
    for q, d, g in zip(queries, docs, table.values.tolist(), strict=True):
        _check_token(q, "query id")
        _check_token(d, "document id")
        lines.append(f"{q} 0 {d} {_number(g, True)}\n")
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.writelines(lines)


def write_run(run, path, *, tag: str = "rankeval") -> None:
    r"""Write a run as a TREC run file (``query_id Q0 doc_id rank score tag``).

    Parameters
    ----------
    run : dict of {str: dict of {str: float}} or pandas.DataFrame
        Scores as accepted by ``rankeval.evaluate``.
    path : str or os.PathLike
        Destination; overwritten.
    tag : str, default="rankeval"
        The run name written in the last column (no whitespace).

    Returns
    -------
    None
        The file is written; nothing is returned.

    Notes
    -----
    Within each query, lines are written in the order trec_eval ranks them:
    score descending, ties broken by document id descending (as strings), and
    the ``rank`` column numbers them 1, 2, ... in that order. Scores are
    written in Python's shortest round-trip form, so reading the file back
    gives the same floats.

    Chapter: :doc:`/chapters/13_evaluating_a_run`.

    Examples
    --------
    >>> import os, tempfile
    >>> from rankeval import write_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> write_run({"q1": {"a": 0.5, "b": 2.0, "c": 0.5}}, path, tag="demo")
    >>> print(open(path).read(), end="")
    q1 Q0 b 1 2.0 demo
    q1 Q0 c 2 0.5 demo
    q1 Q0 a 3 0.5 demo
    """
    _check_token(tag, "tag")
    table, queries, docs = _items(run, "run")
    by_query: dict = {}
    for q, d, s in zip(queries, docs, table.values.tolist(), strict=True):
        by_query.setdefault(q, []).append((s, d))
    lines = []
    for q, rows in by_query.items():
        _check_token(q, "query id")
        rows.sort(reverse=True)  # score descending, then doc id descending
        for rank, (s, d) in enumerate(rows, start=1):
            _check_token(d, "document id")
            lines.append(f"{q} Q0 {d} {rank} {_number(s, False)} {tag}\n")
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.writelines(lines)
