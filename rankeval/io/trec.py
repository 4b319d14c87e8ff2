"""Read and write TREC qrels and run files.

A **qrels** file holds relevance judgments, one per line::

    query_id  iteration  doc_id  grade        e.g.   q1 0 d17 2

and a **run** file a system's ranked results, one document per line::

    query_id  Q0  doc_id  rank  score  tag     e.g.   q1 Q0 d17 1 12.5 bm25

The rules are trec_eval's (version 10):

- fields are separated by any run of whitespace (space, tab, vertical tab,
  form feed, carriage return: C's ``isspace``), so CRLF line ends work;
- a qrels line has exactly 4 fields (trec_eval 10 calls any other line
  malformed); a run line has at least 6, and fields after the tag are ignored;
- the ``iteration``, ``Q0``, ``rank`` and ``tag`` fields are not used: a run
  is ordered by its **scores**, never by its rank column;
- a line whose first non-blank character is ``#`` is a comment, and blank
  lines are skipped (in both files; trec_eval 10 rejects blank qrels lines);
- the file is UTF-8 text (a byte-order mark at the start is skipped) unless
  ``encoding=`` names another encoding (``"latin-1"`` reads any bytes, as
  trec_eval does, see below); a line that cannot be decoded is named, with
  the option that reads it;
- a file has no header line: a first line that fails (its value is no
  number, or it has too few or too many fields) whose fields hold no number
  and a usual column name (``query_id Q0 doc_id rank score tag``, ``qid iter
  docno rel``, ``query_id,doc_id,score``) is named as a header, to be removed
  or made a comment (there is no option to skip it: with a ``#`` in front it
  is a comment, which every TREC tool skips);
- gzip, bzip2 and xz files are decompressed transparently (recognised by
  their first bytes, whatever their name); ``"-"`` reads standard input, and
  an open file object (text or binary, a pipe too) can be given instead of a
  path.

Ids stay strings exactly as written (``"007"`` is not ``"7"``). trec_eval
compares ids as bytes, whatever their encoding; here they are text, decoded
with ``encoding``. With ``encoding="latin-1"`` every byte is one character
(U+0000 to U+00FF), so any file can be read, two ids are equal exactly when
their bytes are, and the order of equal scores (ids compared as UTF-8 bytes,
which keep the order of the characters) is the order of the file's bytes, as
trec_eval's; written back as latin-1, every id is its original bytes. Other
encodings (``"cp1252"``, ``"shift_jis"``, ``"utf-16"``) read their files'
characters; the ties then follow the characters' UTF-8 bytes. Grades and
scores are parsed as finite 64-bit floats (``nan``, ``inf`` and ``1_000`` are
refused), and a document may appear only once per query, wherever the two
lines sit in the file. A file breaking a rule raises ``ValueError`` naming the
file, the line number(s) and the reason. One difference from trec_eval: a
carriage return *not* followed by a line feed also ends a line (as in every
CSV reader and text editor), where trec_eval reads it as a space.

**Why pyarrow.** The files are parsed by Apache Arrow's
streaming CSV reader and its compute kernels (``pyarrow``), not by
hand-written tokenising: it compares ids as exact strings, and gives columnar
tables that pandas, polars, Dask and Spark all read. End to end, ``evaluate``
from files takes less than half of pytrec_eval's time (measured by
``benchmarks/bench_runs.py``; its table is in ``benchmarks/README.md``). A file in the usual
layout (single spaces or single tabs between fields) is read in one pass with
typed columns; any other file (runs of whitespace, extra fields, comments,
blank lines, a bad value) is read again as one line per row, split with
``pyarrow.compute.ascii_split_whitespace``, and every line is checked, so
that the first bad line can be named.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import itertools
import lzma
import os
import re
import stat
import sys
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from . import tables

__all__ = ["read_qrels", "read_run", "read_table", "run_tag"]

# Bytes per block of Arrow's CSV reader (and so per chunk of the tables read).
# Tests shrink it to exercise files larger than any internal buffer; a line
# longer than a block is handled by retrying with larger blocks.
_BLOCK_SIZE = 1 << 22
_MAX_BLOCK_SIZE = 1 << 30


@dataclass(frozen=True)
class _Layout:
    kind: str
    names: tuple  # the fields of a line
    value: str  # the canonical name of the number column
    what: str  # the number, in messages
    exact: bool  # exactly len(names) fields (qrels), else at least (run)

    @property
    def value_field(self) -> int:
        return 4 if self.kind == "run" else 3

    @property
    def keep(self) -> tuple:
        """The fields kept, as (name, position in the line)."""
        kept = [("query_id", 0), ("doc_id", 2), (self.value, self.value_field)]
        if "subtopic" in self.names:
            kept.insert(1, ("subtopic", 1))
        return tuple(kept)

    @property
    def label(self) -> str:
        return tables.kind_label(self.kind)


_LAYOUTS = {
    "qrels": _Layout("qrels", ("query_id", "iteration", "doc_id", "relevance"), "relevance",
                     "grade", True),
    "run": _Layout("run", ("query_id", "Q0", "doc_id", "rank", "score", "tag"), "score",
                   "score", False),
    # ndeval's diversity qrels: the second field is the subtopic, and it is kept
    "subtopics": _Layout("subtopics", ("query_id", "subtopic", "doc_id", "relevance"),
                         "relevance", "grade", True),
}

# Whitespace for trec_eval (C's isspace) and NUL; none can occur inside a field.
_NOT_IN_FIELD = np.zeros(256, dtype=bool)
_NOT_IN_FIELD[[0, 9, 10, 11, 12, 13, 32]] = True
# The general path reads each line as a one-column CSV row: its "delimiter" must
# not occur in the file, so candidates are tried in turn (control characters).
_LINE_DELIMITERS = [chr(c) for c in (*range(1, 9), *range(14, 32), 127)]

# Compressed files are recognised by their first bytes. gzip's and xz's magic
# numbers cannot start UTF-8 text (0x8b and 0xfd never start a character), but
# bzip2's "BZh" + block size can ("BZh5 0 d1 1"): it must be followed by the
# magic of a first block (pi's digits) or of the end of an empty stream (sqrt(pi)).
_MAGIC_SIZE = 10
_BZIP2_BLOCK_SIZES = b"123456789"
_BZIP2_MAGIC = (b"1AY&SY", b"\x17rE8P\x90")


def _opener(magic: bytes):
    """The decompressing opener of a file starting with ``magic``; None for text."""
    if magic.startswith(b"\x1f\x8b"):
        return lambda raw: gzip.GzipFile(fileobj=raw)
    if magic.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMAFile
    if (
        magic.startswith(b"BZh")
        and len(magic) >= _MAGIC_SIZE
        and magic[3] in _BZIP2_BLOCK_SIZES
        and magic[4:10] in _BZIP2_MAGIC
    ):
        return bz2.BZ2File
    return None


# --- sources ------------------------------------------------------------------------------


class _Input:
    """A file to read, possibly compressed, that can be opened more than once.

    Paths are reopened; standard input and file objects are read into memory
    once (a pipe cannot be read twice).
    """

    def __init__(self, source, kind: str, encoding: str = "utf-8"):
        self.path = None
        self.data = None
        self.given_encoding = encoding
        self.encoding = text_encoding(encoding)  # None: UTF-8, read as it is
        if isinstance(source, str) and source == "-":
            self.name = "<stdin>"
            if sys.stdin is None:  # started with standard input closed (`<&-`)
                raise ValueError(f"'-' names standard input, which is closed: no {kind} to read")
            self.data = _read_all(getattr(sys.stdin, "buffer", sys.stdin), self.name,
                                  self.given_encoding if self.encoding else None)
        elif isinstance(source, (str, os.PathLike)):
            self.path = os.fspath(source)
            self.name = os.fsdecode(self.path)
            if os.path.isdir(self.path):
                raise IsADirectoryError(f"{self.name}: is a directory, not a {kind} file")
            if stat.S_ISREG(os.stat(self.path).st_mode):
                with open(self.path, "rb") as f:
                    magic = f.read(_MAGIC_SIZE)
            else:  # a named pipe, /dev/stdin, <(zcat run.gz): it can be read only once
                with open(self.path, "rb") as f:
                    self.data = _read_all(f, self.name)
                self.path = None
        elif hasattr(source, "read"):
            name = getattr(source, "name", None)
            self.name = name if isinstance(name, str) else f"<{type(source).__name__}>"
            self.data = _read_all(source, self.name,
                                  self.given_encoding if self.encoding else None)
        else:  # pragma: no cover - callers dispatch on these types
            raise TypeError(f"cannot read a {kind} file from {type(source).__name__}")
        if self.data is not None:
            magic = self.data[:_MAGIC_SIZE]
        self.opener = _opener(magic)

    def _python_file(self):
        raw = open(self.path, "rb") if self.path is not None else io.BytesIO(self.data)
        if self.opener is None:
            return raw
        return _Decompressed(self.opener(raw), raw, self.name)

    def open(self):
        """A fresh Arrow input stream over the (decompressed) bytes, as UTF-8 text
        (decoded from ``encoding`` on the fly when it is another)."""
        if self.opener is not None:
            stream = pa.PythonFile(self._python_file(), mode="r")
        elif self.path is not None:
            stream = pa.OSFile(self.path)
        else:
            stream = pa.BufferReader(self.data)
        if self.encoding is None:
            return stream
        return pa.transcoding_input_stream(stream, self.encoding, "utf-8")

    def head(self, size: int = 1 << 16) -> bytes:
        """The first ``size`` bytes (decompressed), as UTF-8 (for sniffing only)."""
        with self._python_file() as f:
            head = f.read(size)
        return head if self.encoding is None else self.decode(head).encode("utf-8")

    def decode(self, data: bytes) -> str:
        """``data``, a part of the file, as text (undecodable bytes replaced)."""
        decoder = codecs.getincrementaldecoder(self.encoding or "utf-8")(errors="replace")
        return decoder.decode(data)

    def decode_error(self) -> ValueError:
        """The error for a file that ``encoding`` cannot decode, naming the first line
        that fails (found by decoding again, line by line)."""
        decoder = codecs.getincrementaldecoder(self.encoding)()
        line = 1
        with self._python_file() as f:
            reader = io.BufferedReader(f) if isinstance(f, _Decompressed) else f
            for raw in itertools.chain(reader, [b""]):
                try:
                    line += decoder.decode(raw, final=not raw).count("\n")
                except UnicodeDecodeError as error:
                    bad = error.object[error.start : error.end]
                    return ValueError(
                        f"{self.name}, line {line}: not valid {self.given_encoding} text "
                        f"(bytes {bad!r}: {error.reason}); pass the file's own encoding, "
                        f"e.g. encoding='latin-1', which reads any bytes"
                    )
        return ValueError(f"{self.name}: cannot be decoded as {self.given_encoding}")


class _Decompressed(io.RawIOBase):
    """A decompressing reader whose errors name the file (ValueError, not EOFError)."""

    def __init__(self, stream, raw, name: str):
        self.stream, self.raw, self.name = stream, raw, name

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        try:
            return self.stream.read(size)
        except (OSError, EOFError, lzma.LZMAError) as error:
            raise ValueError(f"{self.name}: cannot be decompressed: {error}") from None

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.stream.close()
        self.raw.close()
        super().close()


def text_encoding(encoding) -> str | None:
    """The codec name of a file's ``encoding`` (any Python text codec: ``"utf-8"``,
    ``"latin-1"``, ``"cp1252"``, ``"utf-16"``, ...); None for UTF-8, which the readers
    take as it is. TypeError or ValueError for anything else."""
    if not isinstance(encoding, str):
        raise TypeError(f"encoding must be the name of a text encoding such as 'utf-8' or "
                        f"'latin-1', got {type(encoding).__name__}")  # fmt: skip
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True):
        raise ValueError(
            f"encoding {encoding!r} is not a text encoding known to Python (e.g. 'utf-8', "
            "'latin-1', 'cp1252'; 'latin-1' reads any bytes, one character per byte)"
        )
    return None if info.name in ("utf-8", "utf-8-sig") else info.name


def text_stream_error(name: str, encoding: str) -> ValueError:
    """The error for a text stream given with an ``encoding`` other than UTF-8."""
    return ValueError(
        f"{name}: a text stream is decoded already, by its own encoding; "
        f"encoding={encoding!r} decodes bytes: open the file in binary mode ('rb') "
        "or leave encoding at 'utf-8'"
    )


def _read_all(stream, name: str, encoding: str | None = None) -> bytes:
    """The bytes of a file object (or of standard input); a text stream's text as UTF-8
    (``encoding``, the option given if not UTF-8: refused for a text stream, which
    was decoded by its own encoding already)."""
    try:
        data = stream.read()
    except UnicodeDecodeError as error:
        raise ValueError(f"{name}: not valid text in the stream's own encoding ({error}); "
                         "give the file in binary mode ('rb'), with encoding=... naming "
                         "its encoding") from None  # fmt: skip
    if isinstance(data, str) and encoding is not None:
        raise text_stream_error(name, encoding)
    if isinstance(data, str):
        try:
            data = data.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as error:
            raise ValueError(f"{name}: cannot be encoded as UTF-8 ({error})") from None
    return bytes(data)


def _sniff(head: bytes):
    """The single delimiter of the first line (space or tab), or None."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    line = head.split(b"\n", 1)[0].rstrip(b"\r")
    if b"\t" in line and b" " not in line:
        return "\t"
    if b" " in line and b"\t" not in line:
        return " "
    return None


# --- the fast path: one CSV read with typed columns ------------------------------------------


class NotUsual(Exception):
    """The fast reader met a line outside the usual layout: read again line by line."""


def typed_batches(inp: _Input, layout: _Layout, delimiter: str, block_size: int):
    """Yield the file's record batches with the kept columns only (ids as strings, the
    value as float64), each checked to be in the usual layout; raise :class:`NotUsual`
    at the first batch (or Arrow error) outside it.

    Arrow's streaming CSV reader gives batches with the ids as strings, the
    number as float64 and the unused fields as raw bytes (the cheapest
    conversion); those are read only to prove that every line held exactly
    the expected fields, each non-empty, UTF-8 and free of whitespace, and
    are dropped batch by batch. Row ``i`` is then line ``i + 1``. It runs on the
    calling thread: as fast here (a block is converted while the next is read), and
    the freed buffers then return to the allocator with the rest (lower peak memory).
    """
    keep = [name for name, _ in layout.keep]
    types = {name: pa.binary() for name in layout.names}
    types.update({name: pa.string() for name in keep})
    types[layout.value] = pa.float64()
    try:
        with inp.open() as stream:
            reader = pacsv.open_csv(
                stream,
                read_options=pacsv.ReadOptions(column_names=list(layout.names),
                                               block_size=block_size, use_threads=False),
                parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                                 ignore_empty_lines=False),
                convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                                     strings_can_be_null=False,
                                                     quoted_strings_can_be_null=False),
            )
            for batch in reader:
                if not _usual_batch(batch, layout):
                    raise NotUsual
                yield pa.record_batch([batch.column(name) for name in keep], names=keep)
    except UnicodeDecodeError:  # from the decoding of encoding=
        raise inp.decode_error() from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        raise NotUsual from None


def _read_fast(inp: _Input, layout: _Layout, delimiter: str):
    """The table of a file in the usual layout (:func:`typed_batches`), or None if the
    file is not in it."""
    try:
        batches = list(typed_batches(inp, layout, delimiter, _BLOCK_SIZE))
    except NotUsual:
        return None
    if not batches:
        return None
    return pa.Table.from_batches(batches)


def _usual_batch(batch: pa.RecordBatch, layout: _Layout) -> bool:
    """True if every field of the batch is non-empty, whitespace-free, UTF-8 text."""
    for name in layout.names:
        if name == layout.value:
            continue
        column = batch.column(name)
        if not _clean_fields(column):
            return False
        if column.type == pa.binary():
            try:
                column.cast(pa.string())  # the whole file must be UTF-8
            except pa.ArrowInvalid:
                return False
    if not pc.all(pc.is_finite(batch.column(layout.value))).as_py():
        return False  # an error: the general path names the line and the text
    return not pc.any(pc.starts_with(batch.column("query_id"), "#")).as_py()  # comments


def _clean_fields(column: pa.Array) -> bool:
    """True if no field is empty or holds whitespace or NUL (checked on the raw bytes)."""
    if not len(column):
        return True
    _, offsets, data = column.buffers()
    bounds = np.frombuffer(offsets, dtype=np.int32, count=len(column) + 1,
                           offset=4 * column.offset)
    if np.diff(bounds).min() == 0:
        return False
    raw = np.frombuffer(data, dtype=np.uint8)[bounds[0] : bounds[-1]]
    return not (raw.min() <= 32 and _NOT_IN_FIELD[raw].any())


# --- the general path: one row per line, split and checked -------------------------------------


def _read_general(inp: _Input, layout: _Layout):
    """(table, line numbers) of any file, checking each line; ValueError on the first bad one.

    The file is streamed as a one-column CSV (one row per line, so row ``i``
    of the stream is line ``i + 1``) whose "delimiter" is a control character
    absent from the file: if the reader meets it, the next candidate is
    tried; a line longer than a block makes the blocks larger.
    """
    block = _BLOCK_SIZE
    delimiters = iter(_LINE_DELIMITERS)
    delimiter = next(delimiters)
    while True:
        try:
            return _split_lines(inp, layout, delimiter, block)
        except pa.ArrowInvalid as error:
            message = str(error)
            if "Empty CSV" in message:
                return _split_lines(None, layout, delimiter, block)
            if "straddl" in message and block < _MAX_BLOCK_SIZE:
                block *= 4  # a line longer than a block
                continue
            if "Expected 1 columns" in message:
                delimiter = next(delimiters, None)  # the delimiter occurs in the file
                if delimiter is not None:
                    continue
                raise ValueError(
                    f"{inp.name}: holds every ASCII control character; cannot be read"
                ) from None
            raise ValueError(f"{inp.name}: cannot be read: {message}") from None


def _line_batches(inp, delimiter: str, block: int):
    if inp is None:
        return
    try:
        with inp.open() as stream:
            yield from pacsv.open_csv(
                stream,
                read_options=pacsv.ReadOptions(column_names=["line"], block_size=block),
                parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                                 ignore_empty_lines=False),
                convert_options=pacsv.ConvertOptions(column_types={"line": pa.binary()}),
            )
    except UnicodeDecodeError:  # from the decoding of encoding=
        raise inp.decode_error() from None


def _first_failing(array, convert) -> int:
    """The index of the first element of ``array`` that ``convert`` refuses (bisection)."""
    lo, hi = 0, len(array)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            convert(array.slice(lo, mid - lo))
            lo = mid
        except pa.ArrowInvalid:
            hi = mid
    return lo


def _split_lines(inp, layout: _Layout, delimiter: str, block: int):
    """Split and check every line, batch by batch (see :func:`_read_general`)."""
    parts = {name: [] for name, _ in layout.keep}
    line_numbers = []
    for columns, lines in split_batches(inp, layout, delimiter, block):
        for name in parts:
            parts[name].append(columns[name])
        line_numbers.append(lines)
    types = {name: pa.string() for name in parts}
    types[layout.value] = pa.float64()
    table = pa.table({name: pa.chunked_array(parts[name], types[name]) for name in parts})
    lines = np.concatenate(line_numbers) if line_numbers else np.zeros(0, np.int64)
    return table, lines


def split_batches(inp, layout: _Layout, delimiter: str, block: int):
    """Yield ``({name: array}, line numbers)`` for each batch of checked, split lines."""
    n_fields = len(layout.names)
    base = 0
    first = True  # the batch holding the file's first line that is not blank or a comment
    for batch in _line_batches(inp, delimiter, block):
        chunk = batch.column(0)
        try:
            text = chunk.cast(pa.string())
        except pa.ArrowInvalid:
            at = _first_failing(chunk, lambda a: a.cast(pa.string()))
            raise _not_utf8(inp.name, base + at + 1, chunk[at].as_py()) from None
        if pc.any(pc.match_substring(text, "\x00")).as_py():
            at = tables.first_true(pc.match_substring(text, "\x00"))
            raise ValueError(f"{inp.name}, line {base + at + 1}: holds a NUL byte")
        text = pc.ascii_trim_whitespace(text)
        keep = pc.and_(pc.greater(pc.binary_length(text), 0),
                       pc.invert(pc.starts_with(text, "#")))
        rows = np.flatnonzero(keep.to_numpy(zero_copy_only=False))
        lines = base + rows + 1
        base += len(chunk)
        if not rows.size:
            continue
        kept = text.filter(keep)
        fields = pc.ascii_split_whitespace(kept)
        counts = pc.list_value_length(fields).to_numpy()
        bad = np.flatnonzero(counts != n_fields if layout.exact else counts < n_fields)
        good = int(bad[0]) if bad.size else len(counts)
        fields = fields.slice(0, good)
        raw = pc.list_element(fields, layout.value_field)
        try:
            values = raw.cast(pa.float64())
            problem = None
        except pa.ArrowInvalid:
            at = _first_failing(raw, lambda a: a.cast(pa.float64()))
            problem = (at, "is not a number")
        if problem is None and good and not pc.all(pc.is_finite(values)).as_py():
            problem = (tables.first_true(pc.invert(pc.is_finite(values))), "is not finite")
        if first and (problem is not None and problem[0] == 0 or good == 0):
            header = _header_error(inp.name, int(lines[0]), kept[0].as_py(), layout)
            if header is not None:
                raise header
        first = False
        if problem is not None:
            at, reason = problem
            raise ValueError(
                f"{inp.name}, line {lines[at]}: {layout.what} {raw[at].as_py()!r} {reason}"
            )
        if bad.size:
            expected = "" if layout.exact else "at least "
            csv = ""
            if "," in kept[good].as_py():
                csv = ("; the fields hold commas: for a CSV file read it with "
                       "pandas.read_csv and pass the DataFrame")
            raise ValueError(
                f"{inp.name}, line {lines[good]}: malformed {layout.label} line: expected "
                f"{expected}{n_fields} whitespace-separated fields ({' '.join(layout.names)}), "
                f"found {int(counts[good])}{csv}"
            )
        yield ({name: values if name == layout.value else pc.list_element(fields, position)
                for name, position in layout.keep}, lines)


def _not_utf8(name: str, line: int, raw: bytes) -> ValueError:
    """The error for a line that is not UTF-8, naming the option that reads it."""
    try:
        raw.decode("utf-8")
        where = ""
    except UnicodeDecodeError as error:
        where = f" (byte {raw[error.start:error.start + 1]!r} at column {error.start + 1})"
    return ValueError(
        f"{name}, line {line}: not valid UTF-8 text{where}; if the file is in another "
        "encoding, name it: encoding='latin-1' (or 'cp1252', ...; --encoding on the command "
        "line), where 'latin-1' reads any bytes, one character per byte, so that ids keep "
        "their bytes' order"
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# Words of a header line (lower case): the column names TREC files, pandas frames and
# learning-to-rank tables give their fields
_HEADER_WORDS = frozenset(
    "query_id qid topic topic_id topicid query_ids iter iteration doc_id docid docno "
    "doc_ids document document_id rank score scores sim similarity tag run_id runid rel "
    "relevance label grade judgment judgement rating user_id item_id".split()
)


def _header_error(name: str, line: int, text: str, layout: _Layout):
    """The error for the file's first line when it looks like a header (no field is a
    number, and one is a usual column name: ``query_id Q0 doc_id rank score tag``,
    ``qid iter docno rel``, ``query_id,doc_id,score``), else None."""
    words = text.replace(",", " ").replace(";", " ").split()
    if any(_is_number(w) for w in words) or not any(
        w.strip("\"'").lower() in _HEADER_WORDS for w in words
    ):
        return None
    hint = ""
    if "," in text or ";" in text:
        hint = ("; for a CSV file with a header, read it with pandas.read_csv and pass the "
                "DataFrame (columns= maps its names)")
    return ValueError(
        f"{name}, line {line} looks like a header: {text!r}; a TREC {layout.label} file has "
        f"no header line ({' '.join(layout.names)}, values only): remove it, or make it a "
        f"comment by starting it with '#'{hint}"
    )


# --- reading: the canonical table ------------------------------------------------------------


def read_table(source, kind: str, *, encoding: str = "utf-8") -> pa.Table:
    layout = _LAYOUTS[kind]
    inp = _Input(source, layout.label, encoding)
    delimiter = _sniff(inp.head())
    table = _read_fast(inp, layout, delimiter) if delimiter is not None else None
    lines = None  # row i is line i + 1
    if table is None:
        table, lines = _read_general(inp, layout)
    if table.num_rows == 0:
        raise ValueError(f"{inp.name}: the {layout.label} file holds no lines")

    def line(row) -> int:
        return int(lines[row]) if lines is not None else int(row) + 1

    def where(row, other=None) -> str:
        if other is None:
            return f"{inp.name}, line {line(row)}"
        return f"{inp.name}, lines {line(row)} and {line(other)}"

    return tables.finish(table, kind, where)


def read_qrels_table(source, *, encoding: str = "utf-8") -> pa.Table:
    """A qrels file as a checked table ``query_id, doc_id, relevance`` (file order)."""
    return read_table(source, "qrels", encoding=encoding)


def read_run_table(source, *, encoding: str = "utf-8") -> pa.Table:
    """A run file as a checked table ``query_id, doc_id, score`` (file order)."""
    return read_table(source, "run", encoding=encoding)


# --- outputs ------------------------------------------------------------------------------


def _whole(values: np.ndarray) -> bool:
    return bool(np.all(values == np.round(values))) and bool(np.all(np.abs(values) < 2**53))


def _output(table: pa.Table, value: str, as_frame: bool, as_table: bool, integer: bool):
    if as_frame and as_table:
        raise ValueError("as_frame and as_table cannot both be True")
    if as_table:
        return table
    values = table[value].to_numpy()
    whole = integer and _whole(values)
    if as_frame:
        frame = table.to_pandas()
        if whole:
            frame[value] = values.astype(np.int64)
        return frame
    return _to_dict(table, values.astype(np.int64) if whole else values)


def _to_dict(table: pa.Table, values: np.ndarray) -> dict:
    """``{query_id: {doc_id: value}}``: queries in order of first appearance, rows in order."""
    n = table.num_rows
    queries = table["query_id"]
    change = np.ones(n, dtype=bool)
    if n > 1:
        change[1:] = tables.to_numpy_bool(
            pc.not_equal(queries.slice(1), queries.slice(0, n - 1))
        )
    heads = np.flatnonzero(change)
    bounds = np.append(heads, n).tolist()
    head_ids = tables.take_ascending(queries, heads).to_pylist() if n else []
    docs = table["doc_id"].to_pylist()
    vals = values.tolist()
    out: dict = {}
    for i, q in enumerate(head_ids):
        lo, hi = bounds[i], bounds[i + 1]
        target = out.get(q)
        if target is None:
            out[q] = dict(zip(docs[lo:hi], vals[lo:hi], strict=True))
        else:
            target.update(zip(docs[lo:hi], vals[lo:hi], strict=True))
    return out


def read_qrels(path, *, as_frame: bool = False, as_table: bool = False,
               encoding: str = "utf-8"):
    r"""Read a TREC qrels file: ``query_id iteration doc_id grade`` per line.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The file, ``"-"`` for standard input, or an open file (text or
        binary; a pipe too). gzip, bzip2 and xz files are decompressed. Fields
        are separated by whitespace; the ``iteration`` column is ignored
        (trec_eval ignores it too); ``#`` lines and blank lines are skipped.
    as_frame : bool, default=False
        Return a pandas DataFrame with columns ``query_id``, ``doc_id``,
        ``relevance`` (one row per line, file order) instead of a dict.
    as_table : bool, default=False
        Return a pyarrow Table with those columns (``relevance`` as float64)
        instead of a dict.
    encoding : str, default="utf-8"
        The text encoding of the file's bytes, any Python codec name:
        ``"latin-1"`` (ISO 8859-1, which reads any bytes, one character per
        byte, as trec_eval reads ids), ``"cp1252"``, ``"utf-16"``, ... The ids
        are decoded to text, and come out as that text (written back in the
        same encoding, they are the same bytes). A text file object is
        decoded already, by its own encoding: with it, leave the default.

    Returns
    -------
    dict of {str: dict of {str: int or float}}, pandas.DataFrame or pyarrow.Table
        ``qrels[query_id][doc_id] = grade``. Grades are ints when every grade
        in the file is a whole number, else floats. Negative grades are kept
        (trec_eval reads them as judged non-relevant).

    Raises
    ------
    ValueError
        A line without exactly 4 fields, a grade that is not a finite
        number (a first line such as ``qid iter docno rel`` is named as a
        header), text that ``encoding`` cannot decode, or a document judged
        twice for the same query (anywhere in the file); the message names
        the file, the line(s) and the reason.

    Notes
    -----
    trec_eval reads the grade as an integer; this reader accepts any finite
    number so that fractional gains survive, and ``rankeval.evaluate`` treats
    a grade ``>= threshold`` as relevant. See the module documentation for
    every rule of the format.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankeval import read_qrels
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n")
    >>> read_qrels(path)
    {'q1': {'d1': 2, 'd2': 0}, 'q2': {'d1': 1}}
    >>> read_qrels(path, as_table=True).column("relevance").to_pylist()
    [2.0, 0.0, 1.0]
    """
    return _output(read_qrels_table(path, encoding=encoding), "relevance", as_frame, as_table,
                   integer=True)


def read_run(path, *, as_frame: bool = False, as_table: bool = False,
             encoding: str = "utf-8"):
    r"""Read a TREC run file: ``query_id Q0 doc_id rank score tag`` per line.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The file, ``"-"`` for standard input, or an open file (text or
        binary; a pipe too). gzip, bzip2 and xz files are decompressed.
        Fields are separated by whitespace. ``Q0``, ``rank`` and ``tag`` (and
        any field after the tag) are ignored, as trec_eval ignores them:
        documents are ranked by ``score`` (see ``rankeval.evaluate`` for the
        tie rule). ``#`` lines and blank lines are skipped.
    as_frame : bool, default=False
        Return a pandas DataFrame with columns ``query_id``, ``doc_id``,
        ``score`` (file order) instead of a dict.
    as_table : bool, default=False
        Return a pyarrow Table with those columns instead of a dict.
    encoding : str, default="utf-8"
        The text encoding of the file's bytes, any Python codec name:
        ``"latin-1"`` (ISO 8859-1, which reads any bytes, one character per
        byte, as trec_eval reads ids), ``"cp1252"``, ``"utf-16"``, ... The ids
        are decoded to text, and come out as that text (written back in the
        same encoding, they are the same bytes). A text file object is
        decoded already, by its own encoding: with it, leave the default.

    Returns
    -------
    dict of {str: dict of {str: float}}, pandas.DataFrame or pyarrow.Table
        ``run[query_id][doc_id] = score``, queries and documents in file order.

    Raises
    ------
    ValueError
        A line with fewer than 6 fields, a score that is not a finite
        number (a first line such as ``query_id Q0 doc_id rank score tag`` is
        named as a header), text that ``encoding`` cannot decode, or a
        document listed twice for the same query (anywhere in the file); the
        message names the file, the line(s) and the reason.

    Notes
    -----
    Scores are parsed as 64-bit floats, correctly rounded, like trec_eval's
    ``atof``; a score may be written ``12``, ``-0.5`` or ``1e-3``, but not
    ``nan``, ``inf`` or ``1_000``. Ties are kept as they are: the order among
    equal scores is decided when the run is evaluated.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankeval import read_run
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d2 1 9.5 bm25\nq1 Q0 d1 2 7 bm25\n")
    >>> read_run(path)
    {'q1': {'d2': 9.5, 'd1': 7.0}}
    """
    return _output(read_run_table(path, encoding=encoding), "score", as_frame, as_table,
                   integer=False)


# --- a run's tag -----------------------------------------------------------------------


# Lines end at LF, CR or CRLF; fields are split by C's isspace (as trec_eval): not by
# str.splitlines() and str.split(), which also split at U+0085, U+00A0, U+001C, ...
_SPACES = " \t\n\v\f\r"
_LINE_ENDS = re.compile(r"\r\n|\r|\n")
_WHITESPACE = re.compile(r"[ \t\n\v\f\r]+")


def _tag_of_last(last_lines: str) -> str | None:
    """The 6th field of the last line that is neither blank nor a ``#`` comment (the
    reader skips both)."""
    for line in reversed(_LINE_ENDS.split(last_lines)):
        fields = _WHITESPACE.split(line.lstrip("\ufeff").strip(_SPACES))
        fields = [] if fields == [""] else fields
        if fields and not fields[0].startswith("#"):
            return fields[5] if len(fields) >= 6 else None
    return None


def _tail(inp, size: int = 1 << 16) -> bytes:
    """The last ``size`` bytes (at least one whole line) of a run, decompressed: a seek for
    a plain file, one pass over the data otherwise."""
    if inp.opener is None and inp.path is not None:
        with open(inp.path, "rb") as f:
            end = f.seek(0, os.SEEK_END)
            f.seek(max(0, end - size) // 4 * 4)  # (not within a UTF-16 or -32 character)
            return f.read()
    if inp.opener is None:
        return bytes(inp.data[-size:])
    last = b""
    with inp._python_file() as f:
        while chunk := f.read(1 << 20):
            last = (last + chunk)[-size:]
    return last


def run_tag(source, encoding: str = "utf-8") -> str | None:
    """The tag (6th field) of a run file's last line, as trec_eval's runid (the tag of
    the last line it read); None if unknown, and for a Parquet file (a table has no
    tag: the run is named by its path). The file is opened as the reader opens it
    (compression, BOM, ``encoding``); an in-memory buffer is read and rewound after."""
    if tables.is_parquet(source):
        return None
    position = source.tell() if isinstance(source, io.BytesIO) else None
    try:
        inp = _Input(source, "run", encoding)
        return _tag_of_last(inp.decode(_tail(inp)))
    except (OSError, EOFError, ValueError):
        return None  # the reader will report the problem with the file
    finally:
        if position is not None:
            source.seek(position)
