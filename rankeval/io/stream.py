"""Read a TREC run file in record batches, for evaluation in bounded memory.

:func:`run_batches` yields the run as tables ``query_id, doc_id, score`` of about
``block_size`` bytes of file each, in file order, with the same parsing rules as
:func:`rankeval.read_run` (:mod:`rankeval.io.trec`): a file in the usual layout is
read with typed columns; any other file (runs of whitespace, comments, extra
fields, a bad value) line by line, each line checked, the first bad one named.
:func:`partition_batches` spreads the rows over ``n`` temporary Arrow IPC files by a
hash of the query id, so that every query is whole in one partition.

Every batch also has a column ``line``: the line of the file each row comes from
(for a Parquet file, its row, counted from 0, as :func:`rankeval.run_table` names
rows), kept through the partitions, so that a message about a row (a document listed
twice, found on a whole query long after its batch was read) names the line of the
whole file, as :func:`rankeval.read_run` would.

The batches are not yet checked for a document listed twice: the caller checks each
whole query, whose rows then all sit in one table.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import tempfile
import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import trec

__all__ = ["run_batches", "parquet_batches", "partition_batches", "source_size", "plain_size", "spooled",
           "prefetch", "NotUsual", "Spooled", "copy_in_blocks"]

_FIELDS = ("query_id", "doc_id", "score")
_COLUMNS = (*_FIELDS, "line")  # the batches': the fields and each row's line (or row)
_CHUNK = 1 << 22  # bytes copied at a time from standard input or a pipe


NotUsual = trec.NotUsual  # the fast reader met a line outside the usual layout


def source_size(source) -> int | None:
    """The size in bytes of a plain file path, else None (stdin, pipes, objects)."""
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        try:
            return os.path.getsize(source)
        except OSError:
            return None
    return None


def plain_size(source) -> int | None:
    """The size in bytes of a regular, uncompressed, non-Parquet file path, else None
    (its text may be larger than the file, or its size is unknown)."""
    from . import tables

    size = source_size(source)
    if size is None or tables.is_parquet(source):
        return None
    path = os.fspath(source)
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        if trec._opener(f.read(trec._MAGIC_SIZE)) is not None:
            return None
    return size


class Spooled(os.PathLike):
    """A copy on disk of standard input or a pipe (:func:`copy_in_blocks`): a path to
    read, which messages name as the source it copies (``name``, e.g. ``<stdin>``).

    The command line spools a run given as ``-`` or as a pipe (``<(zcat run.gz)``) once,
    so that its tag and its lines are both read from the copy; the bounded path reads
    the copy as it reads a file. :meth:`reader` gives its bytes in memory, named as the
    source (for a caller that reads a run at once anyway)."""

    def __init__(self, path: str, name: str):
        self.path, self.name = path, name

    def __fspath__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return f"Spooled({self.path!r}, name={self.name!r})"

    def reader(self):
        """The copy's bytes as a file object named as the source."""
        import io

        with open(self.path, "rb") as f:
            buffer = io.BytesIO(f.read())
        buffer.name = self.name
        return buffer


def copy_in_blocks(source, directory: str, chunk: int = _CHUNK,
                   encoding: str = "utf-8") -> Spooled:
    """Copy standard input (``"-"``), a pipe or FIFO path, or a file object to a file in
    ``directory``, ``chunk`` bytes at a time (never whole in memory); return it as a
    :class:`Spooled` named as the source (``<stdin>``, the pipe's path, the object's
    ``name``)."""
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        path = os.fspath(source)
        stream, name, close = open(path, "rb"), os.fsdecode(path), True
    elif isinstance(source, str):  # "-"
        if sys.stdin is None:  # started with standard input closed (`<&-`)
            raise ValueError("'-' names standard input, which is closed: no run to read")
        stream, name, close = getattr(sys.stdin, "buffer", sys.stdin), "<stdin>", False
    else:
        given = getattr(source, "name", None)
        stream = source
        name = given if isinstance(given, str) else f"<{type(source).__name__}>"
        close = False
    fd, copy = tempfile.mkstemp(prefix="run-input-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            while True:
                block = stream.read(chunk)
                if not block:
                    break
                if isinstance(block, str):
                    if trec.text_encoding(encoding) is not None:
                        raise trec.text_stream_error(name, encoding)
                    block = block.encode("utf-8", "surrogateescape")
                out.write(block)
    except UnicodeDecodeError as error:
        raise ValueError(f"{name}: not valid UTF-8 text ({error})") from None
    finally:
        if close:
            stream.close()
    return Spooled(copy, name)


@contextlib.contextmanager
def spooled(source, directory: str, chunk: int = _CHUNK, encoding: str = "utf-8"):
    """``(path, name)``: ``source`` itself if it is a regular file path (a
    :class:`Spooled` copy too, with its source's name), else its bytes copied, in
    blocks of ``chunk`` bytes, to a file in ``directory`` (standard input, a pipe, a
    file object: read once, never held whole in memory, :func:`copy_in_blocks`), and
    the name to use in messages (None: the path's own). A text stream is refused with
    an ``encoding`` other than UTF-8 (it is decoded already), as
    :func:`rankeval.read_run` refuses it."""
    if isinstance(source, Spooled):
        yield source.path, source.name
        return
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        path = os.fspath(source)
        if not os.path.exists(path) or os.path.isfile(path) or os.path.isdir(path):
            yield source, None  # (missing or a directory: the reader says so)
            return
    copy = copy_in_blocks(source, directory, chunk, encoding)
    yield copy.path, copy.name


def prefetch(items, depth: int = 2):
    """Yield the items of the generator ``items``, made by a second thread up to ``depth``
    items ahead (reading and parsing the next batch, which releases the GIL, overlaps
    the scoring of this one). An exception in the generator is raised here; closing this
    generator stops the thread and closes ``items``."""
    box = queue.Queue(maxsize=depth)
    stop = threading.Event()
    end = object()

    def put(entry) -> bool:
        while not stop.is_set():
            try:
                box.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def work():
        try:
            for item in items:
                if not put((item, None)):
                    return
            put((end, None))
        except BaseException as error:  # handed to the consumer, raised there
            put((None, error))

    thread = threading.Thread(target=work, name="rankeval-read", daemon=True)
    thread.start()
    try:
        while True:
            item, error = box.get()
            if error is not None:
                raise error
            if item is end:
                return
            yield item
    finally:
        stop.set()
        thread.join()
        items.close()


def run_batches(source, block_size: int, *, general: bool = False, name: str | None = None,
                encoding: str = "utf-8"):
    """Yield the run file ``source`` as tables ``query_id, doc_id, score, line`` (strings,
    strings, float64, int64: the line of the file each row comes from, counted from 1)
    of about ``block_size`` bytes of file each, in file order.

    With ``general=False`` a file in the usual layout (single spaces or single tabs)
    is read with typed columns, and :class:`NotUsual` is raised at the first batch
    outside it (the caller then reads again with ``general=True``). Standard input
    and file objects are held in memory (they cannot be read twice: the bounded
    path hands a spooled copy instead, :func:`spooled`); paths are streamed. A malformed line raises ValueError naming the file (``name`` if given:
    the name of the source a spooled copy was made of) and the line.
    """
    layout = trec._LAYOUTS["run"]
    inp = trec._Input(source, layout.label, encoding)
    if name is not None:
        inp.name = name
    delimiter = trec._sniff(inp.head())
    # Arrow's streaming CSV reader reads up to 32 blocks ahead on its I/O thread (at the
    # first 8 MB batch of a 242 MB run, 207 MB were allocated): it reads blocks of an
    # eighth of a batch, and eight are joined, so that the read-ahead stays near 4 batches
    piece = max(block_size // _PIECES, 1 << 16)
    if not general and delimiter is not None:
        tables = _fast_batches(inp, layout, delimiter, piece)
    else:
        tables = (pa.table({**{name: columns[name] for name in _FIELDS},
                            "line": pa.array(lines, pa.int64())})
                  for columns, lines in _general_batches(inp, layout, piece))
    any_rows = False
    for table in _joined(tables, _PIECES):
        any_rows = any_rows or table.num_rows > 0
        yield table
    if not any_rows:
        raise ValueError(f"{inp.name}: the {layout.label} file holds no lines")


_PIECES = 8


def parquet_batches(source, block_size: int, columns=None, *, name: str | None = None):
    """Yield a Parquet run file as canonical tables ``query_id, doc_id, score, line`` of
    about ``block_size`` bytes of text each (row groups read in batches, in file order,
    only the columns needed; ``line`` is the row of the file, counted from 0, as the
    whole path names Parquet rows), each batch checked as :func:`rankeval.run_table`
    checks a table (types, missing and non-finite values, ``rank`` instead of ``score``;
    ``columns`` maps your names of the run's columns), its messages naming the row of
    the whole file. A document listed twice is found by the caller, on whole queries."""
    import pyarrow.parquet as pq

    from . import tables

    label = f"run Parquet file {name or os.fspath(source)}"
    file = pq.ParquetFile(source)
    available = file.schema_arrow.names
    # the columns needed, or the whole path's message naming every column of the file
    needed = tables._needed("run", tables._column_names("run", columns, available),
                            available, label)
    rows = max(1024, block_size // 40)  # about 40 bytes a line of a TREC run
    base = 0
    for batch in file.iter_batches(batch_size=rows, columns=list(dict.fromkeys(needed.values()))):
        table = _checked(pa.Table.from_batches([batch]), needed, label, base)
        if pa.types.is_dictionary(table.column("query_id").type):
            table = table.set_column(0, "query_id", table.column("query_id").cast(pa.string()))
        table = table.select(list(_FIELDS)).cast(pa.schema(
            [(f, table.schema.field(f).type) for f in _FIELDS]))
        yield table.append_column("line", pa.array(
            np.arange(base, base + batch.num_rows, dtype=np.int64)))
        base += batch.num_rows
    if base == 0:
        table = _checked(file.schema_arrow.empty_table(), needed, label, 0)
        yield table.select(list(_FIELDS)).append_column("line", pa.array([], pa.int64()))


def _checked(table: pa.Table, needed: dict, label: str, base: int) -> pa.Table:
    """:func:`rankeval.run_table`'s checks of a Parquet file's batch whose first row is
    row ``base`` of the file (messages name the rows of the file)."""
    from . import tables

    return tables._from_columns({c: table[n] for c, n in needed.items()}, "run",
                                tables.row_names(label, base), unique=True)


def _joined(tables, n: int):
    """The tables of ``tables``, ``n`` at a time, each group as one (chunked) table."""
    group = []
    for table in tables:
        group.append(table)
        if len(group) == n:
            yield pa.concat_tables(group)
            group = []
    if group:
        yield pa.concat_tables(group)


def _fast_batches(inp, layout, delimiter: str, block_size: int):
    """trec's typed batches, as tables ``query_id, doc_id, score, line`` (in the usual
    layout every line is a row: row ``i`` of the file is line ``i + 1``)."""
    base = 0
    for batch in trec.typed_batches(inp, layout, delimiter, block_size):
        n = batch.num_rows
        table = pa.Table.from_batches([batch]).select(list(_FIELDS))
        yield table.append_column("line", pa.array(np.arange(base + 1, base + n + 1,
                                                             dtype=np.int64)))
        base += n


def _general_batches(inp, layout, block_size: int):
    """trec's line-by-line reader, with its retries (another delimiter, larger blocks)."""
    block = block_size
    delimiters = iter(trec._LINE_DELIMITERS)
    delimiter = next(delimiters)
    done = 0  # batches already yielded: a retry skips them
    while True:
        try:
            for i, item in enumerate(trec.split_batches(inp, layout, delimiter, block)):
                if i >= done:
                    done += 1
                    yield item
            return
        except pa.ArrowInvalid as error:
            message = str(error)
            if "Empty CSV" in message:
                return
            if done == 0 and "straddl" in message and block < trec._MAX_BLOCK_SIZE:
                block *= 4
                continue
            if done == 0 and "Expected 1 columns" in message:
                delimiter = next(delimiters, None)
                if delimiter is not None:
                    continue
            raise ValueError(f"{inp.name}: cannot be read: {message}") from None


def partition_of(query_ids, n: int) -> np.ndarray:
    """The partition (0 .. n-1) of each query id: a fixed hash of its bytes, the same on
    every machine and in every process (no hash seed)."""
    if isinstance(query_ids, pa.ChunkedArray):
        query_ids = query_ids.combine_chunks()
    if pa.types.is_dictionary(query_ids.type):
        hashes = _id_hashes(query_ids.dictionary)[query_ids.indices.to_numpy(
            zero_copy_only=False)]
    else:
        hashes = _id_hashes(query_ids)  # row by row: cheaper than a dictionary's hashing
    return (hashes % np.uint64(n)).astype(np.int64)


_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9),
        np.uint64(0x94D049BB133111EB))
_WORDS = 8  # ids of up to this many 8-byte words are hashed in one padded block


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser, elementwise on uint64 (wrapping arithmetic)."""
    x = x + _MIX[0]
    x = (x ^ (x >> np.uint64(30))) * _MIX[1]
    x = (x ^ (x >> np.uint64(27))) * _MIX[2]
    return x ^ (x >> np.uint64(31))


def _id_hashes(values: pa.Array) -> np.ndarray:
    """A 64-bit hash of every id of ``values`` that depends on the id's bytes alone: the
    same in every batch, file and process, whatever the other ids beside it.

    An id of ``L`` bytes is read as ``ceil(L / 8)`` little-endian words (its last one
    NUL-padded); ``h = 0``, then ``h = mix(h ^ word)`` for each of its own words, and
    last ``h = mix(h ^ L)`` (``mix`` is SplitMix64's finaliser). A block of ids is padded
    with NULs to one width (Arrow's ``ascii_rpad``, which counts bytes) to read the
    words at once, but a row mixes only its own words, so the width (the longest id
    beside it) never enters the hash. Ids are hashed in groups of similar length (up to
    64 bytes, then up to 128, 256, ...), so a long id costs about its own length, not
    the batch's rows times it. Integer ids hash their decimal text; binary ids their
    bytes. No Python object per id.

    (An earlier version padded every id to the longest id *of its batch* and mixed the
    padding too, and sent a batch with an id over 64 bytes to pandas' hash: one query
    could go to two partitions of the bounded path, issue 52.)
    """
    if not len(values):
        return np.zeros(0, dtype=np.uint64)
    if pa.types.is_binary(values.type) or pa.types.is_large_binary(values.type):
        # the same bytes as text, unchecked: ascii_rpad works on bytes
        target = pa.large_string() if pa.types.is_large_binary(values.type) else pa.string()
        values = pc.cast(values, options=pc.CastOptions(target_type=target,
                                                        allow_invalid_utf8=True))
    elif not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = values.cast(pa.string())
    lengths = pc.binary_length(values).to_numpy(zero_copy_only=False).astype(np.int64)
    words = (lengths + 7) // 8
    group = np.zeros(len(values), dtype=np.int64)  # words [0, 8], (8, 16], (16, 32], ...
    over = words > _WORDS
    if over.any():
        group[over] = np.ceil(np.log2(words[over] / _WORDS)).astype(np.int64)
    if not over.any():
        return _hash_block(values, lengths, words)
    hashes = np.empty(len(values), dtype=np.uint64)
    for g in np.unique(group):
        rows = np.flatnonzero(group == g)
        hashes[rows] = _hash_block(values.take(pa.array(rows)), lengths[rows], words[rows])
    return hashes


def _hash_block(values: pa.Array, lengths: np.ndarray, words: np.ndarray) -> np.ndarray:
    """:func:`_id_hashes` of a block of ids, read through one padded buffer."""
    n, width = len(values), max(8, int(words.max()) * 8)
    padded = pc.ascii_rpad(values, width=width, padding="\x00")
    large = pa.types.is_large_string(padded.type)
    offsets = np.frombuffer(padded.buffers()[1], dtype=np.int64 if large else np.int32,
                            count=1, offset=padded.offset * (8 if large else 4))
    block = np.frombuffer(padded.buffers()[2], dtype="<u8", count=n * width // 8,
                          offset=int(offsets[0])).reshape(n, width // 8)
    h = np.zeros(n, dtype=np.uint64)
    for j in range(width // 8):
        h = np.where(j < words, _mix(h ^ block[:, j]), h)
    return _mix(h ^ lengths.astype(np.uint64))


def partition_batches(batches, n: int, directory: str) -> list:
    """Write the rows of ``batches`` into ``n`` Arrow IPC files in ``directory`` by
    :func:`partition_of` their query id; return the paths (file order kept within
    each partition). The files' schema is the first batch's (string or integer ids,
    and each row's ``line``); every batch is cast to it."""
    paths = [os.path.join(directory, f"part-{i:05d}.arrow") for i in range(n)]
    writers, schema = [], None
    try:
        for table in batches:
            if schema is None:
                schema = pa.schema([(f, table.schema.field(f).type) for f in _COLUMNS])
                writers = [pa.ipc.new_file(path, schema) for path in paths]
            table = table.select(list(_COLUMNS)).cast(schema)
            part = partition_of(table.column("query_id"), n)
            # (a stable sort of small integers: NumPy's radix sort)
            order = np.argsort(part.astype(np.int16 if n < 2**15 else np.int64), kind="stable")
            bounds = np.searchsorted(part[order], np.arange(n + 1))
            moved = table.take(pa.array(order))
            for i in range(n):
                if bounds[i + 1] > bounds[i]:
                    writers[i].write_table(moved.slice(bounds[i], bounds[i + 1] - bounds[i]))
            del table, moved
            pa.default_memory_pool().release_unused()  # mimalloc keeps freed pages a while
    finally:
        for w in writers:
            w.close()
    return paths if writers else []
