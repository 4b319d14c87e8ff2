"""Read a TREC run file in record batches, for evaluation in bounded memory.

:func:`run_batches` yields the run as tables ``query_id, doc_id, score`` of about
``block_size`` bytes of file each, in file order, with the same parsing rules as
:func:`rankeval.read_run` (:mod:`rankeval.io.trec`): a file in the usual layout is
read with typed columns; any other file (runs of whitespace, comments, extra
fields, a bad value) line by line, each line checked, the first bad one named.
:func:`partition_batches` spreads the rows over ``n`` temporary Arrow IPC files by a
hash of the query id, so that every query is whole in one partition.

The batches are not yet checked for a document listed twice: the caller checks each
whole query (through :func:`rankeval.io.run_table`), whose rows then all sit in one
table.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import trec

__all__ = ["run_batches", "parquet_batches", "partition_batches", "source_size", "plain_size", "spooled",
           "prefetch", "NotUsual"]

_FIELDS = ("query_id", "doc_id", "score")


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


@contextlib.contextmanager
def spooled(source, directory: str, encoding: str = "utf-8"):
    """``(path, name)``: ``source`` itself if it is a regular file path, else its bytes
    copied, in blocks, to a file in ``directory`` (standard input, a pipe, a file
    object: read once, never held whole in memory), and the name to use in messages.
    A text stream is refused with an ``encoding`` other than UTF-8 (it is decoded
    already), as :func:`rankeval.read_run` refuses it."""
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        path = os.fspath(source)
        if not os.path.exists(path) or os.path.isfile(path) or os.path.isdir(path):
            yield source, None  # (missing or a directory: the reader says so)
            return
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
    copy = os.path.join(directory, "run-input")
    try:
        with open(copy, "wb") as out:
            while True:
                chunk = stream.read(1 << 22)
                if not chunk:
                    break
                if isinstance(chunk, str):
                    if trec.text_encoding(encoding) is not None:
                        raise trec.text_stream_error(name, encoding)
                    chunk = chunk.encode("utf-8", "surrogateescape")
                out.write(chunk)
    except UnicodeDecodeError as error:
        raise ValueError(f"{name}: not valid UTF-8 text ({error})") from None
    finally:
        if close:
            stream.close()
    yield copy, name


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
    """Yield the run file ``source`` as tables ``query_id, doc_id, score`` (strings,
    strings, float64) of about ``block_size`` bytes of file each, in file order.

    With ``general=False`` a file in the usual layout (single spaces or single tabs)
    is read with typed columns, and :class:`NotUsual` is raised at the first batch
    outside it (the caller then reads again with ``general=True``). Standard input
    and file objects are held in memory (they cannot be read twice: the bounded
    path hands a spooled copy instead, :func:`spooled`); paths are streamed. A malformed line raises ValueError naming the file (``name`` if given:
    the name of the source a spooled copy was made of) and the line. ``encoding``: the
    file's text encoding, as for :func:`rankeval.read_run`.
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
        tables = (pa.table({name: columns[name] for name in _FIELDS})
                  for columns, _ in _general_batches(inp, layout, piece))
    any_rows = False
    for table in _joined(tables, _PIECES):
        any_rows = any_rows or table.num_rows > 0
        yield table
    if not any_rows:
        raise ValueError(f"{inp.name}: the {layout.label} file holds no lines")


_PIECES = 8


def parquet_batches(source, block_size: int, columns=None, *, name: str | None = None):
    """Yield a Parquet run file as canonical tables ``query_id, doc_id, score`` of about
    ``block_size`` bytes of text each (row groups read in batches, in file order, only
    the columns needed), each batch checked as :func:`rankeval.run_table` checks a table
    (types, missing and non-finite values, ``rank`` instead of ``score``; ``columns``
    maps your names). A document listed twice is found by the caller, on whole queries."""
    import pyarrow.parquet as pq

    from . import tables

    label = f"run Parquet file {name or os.fspath(source)}"
    file = pq.ParquetFile(source)
    wanted = {**{c: c for c in ("query_id", "doc_id", "score", "rank")}, **(columns or {})}
    read = [c for c in dict.fromkeys(wanted.values()) if c in file.schema_arrow.names]
    rows = max(1024, block_size // 40)  # about 40 bytes a line of a TREC run
    seen = False
    for batch in file.iter_batches(batch_size=rows, columns=read or None):
        seen = True
        table = tables.from_arrow(pa.Table.from_batches([batch]), "run", columns, label,
                                  unique=True)
        if pa.types.is_dictionary(table.column("query_id").type):
            table = table.set_column(0, "query_id", table.column("query_id").cast(pa.string()))
        yield table.select(list(_FIELDS)).cast(pa.schema(
            [(f, table.schema.field(f).type) for f in _FIELDS]))
    if not seen:
        yield tables.from_arrow(file.schema_arrow.empty_table(), "run", columns, label,
                                unique=True).select(list(_FIELDS))


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
    """trec's typed batches, as tables ``query_id, doc_id, score``."""
    for batch in trec.typed_batches(inp, layout, delimiter, block_size):
        yield pa.Table.from_batches([batch]).select(list(_FIELDS))


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
    each partition). The files' schema is the first batch's (string or integer ids);
    every batch is cast to it."""
    paths = [os.path.join(directory, f"part-{i:05d}.arrow") for i in range(n)]
    writers, schema = [], None
    try:
        for table in batches:
            if schema is None:
                schema = pa.schema([(f, table.schema.field(f).type) for f in _FIELDS])
                writers = [pa.ipc.new_file(path, schema) for path in paths]
            table = table.select(list(_FIELDS)).cast(schema)
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
