"""Evaluate a run file larger than memory, in memory bounded by a budget.

``rankeval.evaluate(qrels, "run.txt", measures)`` works within ``max_memory``
(default ``"512MB"``; the command line's ``--max-memory``). A plain run file of at most
an eighth of the budget is read at once (the whole path's peak is about three times the
file). Any other run file (larger, compressed, standard input, a pipe) is read in
record batches of about 1/64 of the budget (:func:`rankeval.io.stream.run_batches`; a
second thread reads and parses the next batch while this one is scored,
:func:`~rankeval.io.stream.prefetch`), and whole queries are scored by the same path
as :func:`rankeval.evaluate` (``score_run`` on a table of whole queries). A query's
values never depend on the other queries scored with it (the kernels sum in rank
order, whatever the padded width of a block), so the values are a whole-file call's
to the last bit. The qrels stay in memory.

- **A run grouped by query** (every query's lines together, as TREC runs are
  written) is streamed once: the last query of a batch may go on in the next one,
  so its rows are carried over; the complete queries before it are scored as they
  arrive, and the per-query frames are concatenated and sorted as ``evaluate``
  sorts them.
- **A run not grouped by query** (an id seen again after another query) is
  detected at the first batch where it shows. If the file is at most a quarter of
  the budget it is then read at once; otherwise it is read again in a partitioning
  pass: every row goes to one of ``n`` temporary Arrow IPC files by a fixed hash of
  its query id (``n`` from the file size and the budget: about 1/16 of the budget
  of file per partition), and each partition, which holds its queries whole, is
  scored in turn and deleted.
- **Standard input, pipes and file objects** are first copied, a batch at a time, to
  a file in the spill folder (:func:`~rankeval.io.stream.spooled`), which is then
  streamed; messages still name the source and its line. The command line does the
  same for a run given as ``-`` or as a pipe (``<(zcat run.gz)``), and reads the run's
  tag and its lines from the copy (:class:`~rankeval.io.stream.Spooled`); qrels given
  as ``-`` are read at once, as the qrels always are.

Messages name the source and the line of the whole file (for a Parquet file, the row,
counted from 0), as ``evaluate(max_memory=None)`` names them: every batch carries the
line of each of its rows, into the partitions too, so that a document listed twice,
found on a whole query long after its batch was read, is named by its two lines (of
several, the one repeated nearest the top of the file, as the whole path picks it). The
whole path reads and checks the whole file before it scores, so a bad line anywhere,
else a document listed twice, is the error it names: when scoring fails in a grouped
pass, the file is read again to its end (on that error only) and a bad line or a
repeat found there is raised instead.
What the whole path refuses before it reads the run (a ``columns`` that is not a dict
or has a key that is no canonical name, an unknown measure, a diversity measure,
``ties="average"`` for a measure other than nDCG and DCG) is refused here too, with
the same error type and text. ``columns`` maps the qrels' columns (a frame or table)
and a Parquet run's, as on the whole path (a text run has no column names).

The spill files (partitions, spooled copies) sit in one folder,
``rankeval-<pid>-<random>`` in :func:`tempfile.gettempdir` (``TMPDIR``), removed at
the end, on an error, on Ctrl-C and on SIGTERM, which a batch scheduler sends to stop
a job (:func:`spill_directory`: while the bounded path runs in the main thread, and
SIGTERM has its default action, a handler turns it into an exception; the folder is
removed on the way out and the process then ends by SIGTERM, exit status 143). A
process killed by SIGKILL cannot clean up: its folder holds a marker file with its pid
and host, and the next bounded evaluation removes the folders of this user and host
whose process is gone (:func:`remove_stale_folders`).

Why a pyarrow spill and not DuckDB or polars' streaming engine: the rows are already
Arrow batches from the same reader (the same parsing rules and error messages as
``read_run``), writing them to IPC files costs about a copy (no re-parsing, no
conversion of types), and scoring a partition needs the same whole-query tables as
the grouped path; DuckDB would add a dependency and a second CSV parser whose rules
differ from trec_eval's (whitespace runs, comments, ``#`` lines, line numbers in
errors). Measured by ``benchmarks/bench_spill.py`` on a shuffled 231 MB run (7,000 x
1,000 lines) with a 512MB budget, the regrouping alone (nothing scored): this pass took
2.23 s with a 201 MB peak; DuckDB 2.0.1 (``COPY ... PARTITION_BY``, ``memory_limit`` the
budget, 2 threads) 2.58 s and 591 MB; DuckDB sorting the run by query, 3.90 s and 635 MB.
polars was not measured (not installed here).

What is bounded: the batches being read (Arrow's CSV reader reads up to 32 blocks
ahead, so it reads blocks of an eighth of a batch), the carried query, one partition
and its scoring; what grows with the run: the output frame (one row per query), the
set of finished query ids (to detect an ungrouped run) and, with ``missing="zero"``,
the judged queries not yet seen. One query larger than the budget is held whole.
A Parquet run is read by row groups (:func:`~rankeval.io.stream.parquet_batches`, its
columns mapped by ``columns``), its size taken as 8 times the file's. The measured
peaks, at 7,000 x 1,000 and 70,000 x 1,000 lines, are in ``benchmarks/README.md``.

The budget bounds what the run adds, not the process itself: Python with NumPy,
pandas and pyarrow imported takes about 107 MB, and the command line scoring the first
1,000 lines of a run peaks at 127 MB. On a grouped 43 MB run (45 million bytes) at
``--max-memory 16MB`` it peaks at 137 MB, read from the file, from standard input or from a pipe alike
(``python benchmarks/bench_spill.py --command-line --budget 16MB``): the 129 MB that
issue 52 measured from the file was that floor, not the run; the 174 MB from standard
input was the run read whole into memory, which it no longer is.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import socket
import tempfile
import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io import qrels_table
from ..io.stream import (
    NotUsual,
    Spooled,
    parquet_batches,
    partition_batches,
    plain_size,
    prefetch,
    run_batches,
    source_size,
    spooled,
)
from ..io.tables import (
    finish,
    first_duplicate,
    id_kind,
    is_parquet,
    mixed_id_types,
    take_ascending,
)
from ..ranking import columns_of, release_memory
from ..ranking.ordering import stable_order
from ..ranking.pipeline import Checked
from .core import warn_skipped
from .plan import Plan

__all__ = ["parse_memory", "evaluate_bounded", "spill_directory", "remove_stale_folders",
           "DEFAULT_MEMORY"]

DEFAULT_MEMORY = 512 * 2**20

_UNITS = {"": 1, "B": 1, "KB": 2**10, "K": 2**10, "MB": 2**20, "M": 2**20, "GB": 2**30,
          "G": 2**30, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30}  # fmt: skip
_MIN_BLOCK = 1 << 16
_MAX_BLOCK = 1 << 28
# A plain run file of at most budget / _WHOLE_FACTOR bytes is read at once (the whole
# path's peak is about 3 times the file: benchmarks/bench_scale.py); a run found not
# grouped is read at once if it is at most budget / _FIT_FACTOR bytes.
_WHOLE_FACTOR = 8
_FIT_FACTOR = 4
# A compressed run's text is taken to be this many times its file (gzip makes TREC runs
# about 4 to 6 times smaller), for the number of partitions.
_COMPRESSION = 8


def parse_memory(value) -> int:
    """A budget in bytes from an int or a text such as ``"512MB"`` or ``"2 GB"``
    (binary units: 1 MB = 2**20 bytes)."""
    if isinstance(value, bool):
        raise TypeError(f"max_memory must be bytes or a text such as '512MB', got {value!r}")
    if isinstance(value, (int, np.integer)):
        n = int(value)
    elif isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", value)
        if not m or m.group(2).upper() not in _UNITS:
            raise ValueError(f"max_memory must look like '512MB' or '2GB', got {value!r}")
        n = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    else:
        raise TypeError(f"max_memory must be bytes or a text such as '512MB', got {value!r}")
    if n < 1 << 20:
        raise ValueError(f"max_memory must be at least 1MB, got {value!r}")
    return n


def block_size(budget: int) -> int:
    """Bytes of file per batch: 1/64 of the budget, within [64 KiB, 256 MiB]."""
    return int(min(max(budget // 64, _MIN_BLOCK), _MAX_BLOCK))


# --- the spill folder -------------------------------------------------------------------

_MARKER = "rankeval-spill"  # in every spill folder: "<pid> <host>" of the process using it
_FOLDER = re.compile(r"rankeval-([0-9]+)-.+")


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that the spill folder is removed on the way
    out (as KeyboardInterrupt removes it on Ctrl-C)."""


@contextlib.contextmanager
def spill_directory():
    """A temporary folder for spill files, removed when the block ends, also when the
    process is stopped by Ctrl-C or SIGTERM; folders left by a process that was killed
    (SIGKILL, a crash) are removed first.

    The folder is ``rankeval-<pid>-<random>`` in :func:`tempfile.gettempdir` (``TMPDIR``)
    and holds a marker file ``rankeval-spill`` with the process id and the host name.
    On entry, every folder of that form that belongs to this user, holds a marker naming
    this host and the pid of its name, and whose process is no longer alive is removed
    (:func:`remove_stale_folders`; not on Windows, where there is no check of a pid
    that leaves the process alone).

    While the block runs in the main thread, and SIGTERM has its default action (to
    end the process), a handler turns SIGTERM into an exception: the folder is removed
    on the way out, the previous handler is restored, and the process then ends by
    SIGTERM itself (exit status 143 in a shell, ``-15`` from :mod:`subprocess`), as a
    batch scheduler that stops a job expects. A handler of yours is left in place (it
    decides; an exception it raises removes the folder all the same).

    Yields
    ------
    str
        The folder's path.

    Examples
    --------
    >>> import os
    >>> from rankeval.evaluation.bounded import spill_directory
    >>> with spill_directory() as folder:
    ...     print(os.path.basename(folder).startswith(f"rankeval-{os.getpid()}-"),
    ...           sorted(os.listdir(folder)))
    True ['rankeval-spill']
    >>> os.path.exists(folder)
    False
    """
    remove_stale_folders()
    with _sigterm_as_exception(), tempfile.TemporaryDirectory(
            prefix=f"rankeval-{os.getpid()}-") as tmp:
        with open(os.path.join(tmp, _MARKER), "w") as f:
            f.write(f"{os.getpid()} {socket.gethostname()}\n")
        yield tmp


@contextlib.contextmanager
def _sigterm_as_exception():
    import signal

    if (not hasattr(signal, "SIGTERM")
            or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return
    raised = []

    def handler(signum, frame):
        if not raised:  # once: a second SIGTERM does not cut the clean-up short
            raised.append(signum)
            raise _Terminated

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        # (also when an ExitStack is closed in a `finally`, which passes no exception)
        if signal.getsignal(signal.SIGTERM) is handler:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if raised:  # the folder is removed: now end as SIGTERM ends a process
            os.kill(os.getpid(), signal.SIGTERM)
            raise SystemExit(128 + signal.SIGTERM)  # pragma: no cover


def remove_stale_folders(directory: str | None = None) -> list:
    """Remove the spill folders (:func:`spill_directory`) left by processes of this host
    that are no longer alive (killed by SIGKILL, or crashed).

    A folder without the marker file, of another user or host, or whose process is
    alive (or whose pid was taken by a live process since) is left alone. Nothing is
    done on Windows.

    Parameters
    ----------
    directory : str, optional
        Where to look; default :func:`tempfile.gettempdir` (``TMPDIR``).

    Returns
    -------
    list of str
        The folders removed.

    Examples
    --------
    >>> import os, tempfile
    >>> from rankeval.evaluation.bounded import remove_stale_folders
    >>> with tempfile.TemporaryDirectory() as base:
    ...     os.mkdir(os.path.join(base, "rankeval-1-no-marker"))  # not ours
    ...     print(remove_stale_folders(base), os.listdir(base))
    [] ['rankeval-1-no-marker']
    """
    if os.name != "posix":
        return []
    directory = directory or tempfile.gettempdir()
    host, removed = socket.gethostname(), []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    for entry in entries:
        match = _FOLDER.fullmatch(entry.name)
        if match is None:
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) \
                    or entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
            with open(os.path.join(entry.path, _MARKER)) as f:
                pid, marked_host = f.read().split()
        except (OSError, ValueError):
            continue  # no marker (not ours, or being made): left alone
        if pid != match.group(1) or marked_host != host or _alive(int(pid)):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(entry.path)
    return removed


def _alive(pid: int) -> bool:
    """True if a process ``pid`` exists (signal 0 checks, sends nothing; POSIX only)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (PermissionError: it exists, another user's)
        return True
    return True


class _Ungrouped(Exception):
    """A query id came back after another query: the run is not grouped by query."""


def evaluate_bounded(score, qrels, run, plan: Plan, budget: int, *, block: int | None = None,
                     partitions: int | None = None, columns: dict | None = None,
                     encoding: str = "utf-8"):  # fmt: skip
    """``score_run``'s (frame, in_run) for the run file ``run``, read in batches (module
    docstring).

    ``score`` is ``run_plan`` (passed in, so that this module does not import the
    one that calls it), called with ``plan`` for every part of the run: the measures
    are parsed and the conventions resolved once, before. ``block`` and
    ``partitions`` override the sizes derived from the budget (the tests make them
    tiny); ``columns`` maps your column names, of the qrels (a frame or table) and of
    a Parquet run, as ``evaluate`` maps them. Every input ``evaluate(max_memory=None)``
    refuses is refused here, with the same error type, and messages about a line name
    the source and its line in the whole file.
    """
    if columns is not None and not isinstance(columns, dict):
        raise TypeError(f"columns must be a dict canonical name -> yours, got {columns!r}")
    qrels_columns = columns_of(columns, ("query_id", "doc_id", "relevance"))
    run_columns = columns_of(columns, ("query_id", "doc_id", "score", "rank"))
    parquet = is_parquet(run)
    whole = plain_size(run)
    if parquet and source_size(run) is not None:
        whole = source_size(run) * _COMPRESSION  # columns compressed: more in memory
    if whole is not None and whole * _WHOLE_FACTOR <= budget and block is None:
        return score(qrels, _at_once(run), plan, max_memory=None, columns=columns,
                     encoding=encoding)  # small: read at once
    q = qrels_table(qrels, columns=qrels_columns, encoding=encoding)
    block = block or block_size(budget)
    state = _State(score, q, plan, columns)

    def batches(path, name, general):
        if parquet:
            return prefetch(parquet_batches(path, block, run_columns, name=name))
        return prefetch(run_batches(path, block, general=general, name=name,
                                    encoding=encoding))

    with spill_directory() as tmp, spooled(run, tmp, block, encoding) as (path, name):
        state.name_rows(name or os.fsdecode(os.fspath(path)), parquet)
        for general in (False, True):
            try:
                try:
                    _grouped_pass(batches(path, name, general), state)
                except _Scoring as failed:
                    # the whole path reads and checks the whole file before it scores: a
                    # bad line, or a document listed twice, further on is what it names
                    raise _first_error(lambda g: batches(path, name, g), state) \
                        or failed.error from None
                except _Ungrouped:
                    state.reset()
                    size = source_size(path)
                    if size is not None and plain_size(path) is None:
                        size *= _COMPRESSION  # compressed: its text is larger
                    if partitions is None and whole is not None \
                            and whole * _FIT_FACTOR <= budget:
                        # (the qrels as read, under your names again: columns maps them)
                        named = q.rename_columns([(qrels_columns or {}).get(c, c)
                                                  for c in q.column_names])
                        return score(named, _at_once(run), plan, max_memory=None,
                                     columns=columns, encoding=encoding)
                    n = partitions or _partition_count(size, budget)
                    parts = os.path.join(tmp, "parts")
                    os.makedirs(parts, exist_ok=True)
                    paths = partition_batches(batches(path, name, general), n, parts)
                    _score_partitions(paths, state)
                break
            except NotUsual:
                state.reset()
    return state.finish()


def _at_once(run):
    """The run to read at once: a spooled copy's bytes, named as its source."""
    return run.reader() if isinstance(run, Spooled) else run


def _read_partition(path: str) -> pa.Table:
    """A partition's rows, read (not mapped: freed after) and its file deleted."""
    with pa.OSFile(path) as source:
        table = pa.ipc.open_file(source).read_all()
    os.remove(path)
    return table


def _score_partitions(paths: list, state) -> None:
    """Score each partition in turn. The whole path checks the whole run for a document
    listed twice before it scores, and names the repeat nearest the top of the file: if
    a partition fails, the partitions not yet read are searched too, and the repeat of
    the smallest line (if any) is raised, else the partition's error. A partition's
    rows are in file order, its queries whole: the ranking sorts them as it sorts
    any run not grouped by query (each query's rows by score, ties in file order)."""
    for i, part in enumerate(paths):
        table = _read_partition(part)
        try:
            state.score_queries(table)
        except (ValueError, TypeError) as error:
            found = [state.duplicate(table)]
            found += [state.duplicate(_read_partition(rest)) for rest in paths[i + 1:]]
            found = [f for f in found if f is not None]
            if found:
                raise min(found, key=lambda f: f[0])[1] from None
            raise error from None
        del table
        release_memory()


def _partition_count(size: int | None, budget: int) -> int:
    """Partitions of about 1/16 of the budget of text each (16 if the size is unknown)."""
    if size is None:
        return 16
    return max(1, math.ceil(size / max(budget // 16, 1)))


class _Scoring(Exception):
    """An error met scoring the queries of a grouped pass (``error``), before the rest of
    the file was read."""

    def __init__(self, error: Exception):
        super().__init__(str(error))
        self.error = error


def _first_error(batches_of, state):
    """The error the whole path meets first on the whole file, or None: a bad line
    (reading), else, in a run grouped by query, the first document listed twice.
    ``batches_of(general)`` reads the file again (only when scoring failed)."""
    for general in (False, True):
        search = _DuplicateSearch(state)
        try:
            batches = batches_of(general)
            try:
                _grouped_pass(batches, search)
            except _Ungrouped:  # not grouped after all: read on for a bad line only
                search.found = None
                for _ in batches:
                    pass
            return None if search.found is None else search.found[1]
        except NotUsual:
            continue
        except (ValueError, TypeError) as error:
            return error
    return None  # pragma: no cover - the general reader never raises NotUsual


class _DuplicateSearch:
    """A state for :func:`_grouped_pass` that scores nothing: it keeps the first document
    listed twice in the whole queries it is given."""

    def __init__(self, state):
        self.state, self.seen, self.found = state, set(), None

    def score_queries(self, table: pa.Table, queries: pa.Array, ids=None,
                      starts=None) -> None:
        self.seen.update(queries.to_pylist() if ids is None else ids)
        if self.found is None:
            self.found = self.state.duplicate(table)


def _score_streamed(state, table, queries, ids, starts) -> None:
    try:
        state.score_queries(table, queries, ids, starts)
    except (ValueError, TypeError) as error:
        raise _Scoring(error) from None


def _grouped_pass(batches, state) -> None:
    carry = None
    for table in batches:
        if carry is not None:
            table = pa.concat_tables([carry, table])
        if table.num_rows == 0:
            continue
        ids = table.column("query_id").combine_chunks()
        starts = _run_starts(ids)
        head_ids = ids.take(pa.array(starts))
        heads = head_ids.to_pylist()
        if len(set(heads)) < len(heads) or not state.seen.isdisjoint(heads[:-1]) \
                or heads[-1] in state.seen:
            raise _Ungrouped
        last = int(starts[-1])
        if last:
            _score_streamed(state, table.slice(0, last), head_ids.slice(0, len(heads) - 1),
                            heads[:-1], starts[:-1])
        carry = table.slice(last)
        carry_id, carry_ids = head_ids.slice(len(heads) - 1), heads[-1:]
    if carry is not None and carry.num_rows:
        _score_streamed(state, carry, carry_id, carry_ids, np.zeros(1, np.int64))


def _run_starts(ids: pa.Array) -> np.ndarray:
    """Rows where a new query id begins (row 0 included)."""
    n = len(ids)
    if n == 1:
        return np.zeros(1, dtype=np.int64)
    change = pc.not_equal(ids.slice(1), ids.slice(0, n - 1))
    return np.concatenate([[0], np.flatnonzero(change.to_numpy(zero_copy_only=False)) + 1])


_ODD = np.uint64(0x9E3779B97F4A7C15)
# A batch's qrels rows in at most this many ranges are taken as slices, not gathered
_MAX_SLICES = 64
# Query ids of at most this many bytes are looked up by their bytes (_QueryLookup)
_MAX_WIDTH = 64


def _id_words(ids: pa.Array, width: int | None = None):
    """Every string of ``ids`` as its bytes, zero-padded to ``width`` bytes (a multiple
    of 8, by default the longest string's), read as 64-bit words: an ``(n, width // 8)``
    array, so that equal strings give equal rows and unequal ones unequal rows. None
    for strings longer than ``_MAX_WIDTH`` bytes or holding a NUL byte (which the
    padding could not tell apart), and for ids that are not strings."""
    if not (pa.types.is_string(ids.type) or pa.types.is_binary(ids.type)):
        return None
    _, offsets, data = ids.buffers()
    bounds = np.frombuffer(offsets, dtype=np.int32, count=len(ids) + 1, offset=4 * ids.offset)
    longest = int(np.diff(bounds).max()) if len(ids) else 0
    if longest > _MAX_WIDTH or data is None and longest:
        return None
    if longest:
        raw = np.frombuffer(data, dtype=np.uint8)[bounds[0] : bounds[-1]]
        if raw.min() == 0:
            return None
    width = max(width or 0, 8 * max(1, -(-longest // 8)))
    text = ids if pa.types.is_string(ids.type) else ids.cast(pa.string(), safe=False)
    padded = pc.ascii_rpad(text, width=width, padding="\x00")  # (counts bytes)
    start = np.frombuffer(padded.buffers()[1], dtype=np.int32, count=1,
                          offset=4 * padded.offset)[0]
    return np.frombuffer(padded.buffers()[2], dtype="<u8", count=len(ids) * width // 8,
                         offset=int(start)).reshape(len(ids), width // 8)


def _mixed(words: np.ndarray) -> np.ndarray:
    """One 64-bit key per row of words (equal rows, equal keys)."""
    key = words[:, 0].copy()
    with np.errstate(over="ignore"):
        for j in range(1, words.shape[1]):
            key *= _ODD
            key ^= words[:, j]
    return key


class _QueryLookup:
    """The position of query ids among the qrels' distinct ids (``values``), batch
    after batch: the keys of ``values`` are sorted once, and each batch costs a
    binary search of its own ids (Arrow's ``index_in`` builds a hash table of all
    the qrels' queries at every call, a cost per batch that grows with the queries).

    An integer id is its own key. A string id of at most ``_MAX_WIDTH`` bytes (no NUL
    byte) is its bytes, zero-padded, as 64-bit words, and its key mixes the words;
    a match of keys is then confirmed on the words, so that it is exact. Ids that
    do not fit (longer strings, a NUL byte in the qrels, two distinct ids of one
    key) are looked up by ``index_in``, as before.
    """

    def __init__(self, values: pa.Array):
        self.values, self.sorted, self.words = values, None, None
        if not len(values):
            return
        if pa.types.is_integer(values.type):
            key = values.to_numpy(zero_copy_only=False).astype(np.int64)
        else:
            self.words = _id_words(values)
            if self.words is None:
                return
            key = _mixed(self.words)
        order = np.argsort(key, kind="stable")
        ordered = key[order]
        if ordered.size > 1 and (ordered[1:] == ordered[:-1]).any():
            return  # two distinct ids of one key: Arrow's lookup instead
        self.order, self.sorted = order, ordered

    def __call__(self, queries: pa.Array) -> np.ndarray:
        """Every id's position in ``values`` (int64), -1 if absent."""
        if isinstance(queries, pa.ChunkedArray):
            queries = queries.combine_chunks()
        if not len(queries):
            return np.zeros(0, dtype=np.int64)
        words = None
        if self.sorted is not None and self.words is None \
                and pa.types.is_integer(queries.type):
            key = queries.to_numpy(zero_copy_only=False).astype(np.int64)
        elif self.sorted is not None and self.words is not None:
            words = _id_words(queries, 8 * self.words.shape[1])
            if words is None:
                return self._by_arrow(queries)
            width = self.words.shape[1]
            key = _mixed(words[:, :width])
        else:
            return self._by_arrow(queries)
        # (the keys searched in ascending order: each search starts where the last
        # ended, so that the sorted keys are read once: 2.0x to 2.3x faster for 80,000
        # keys among 2 million, benchmarks/bench_steps.py)
        by_key = np.argsort(key, kind="stable")
        pos = np.empty(key.size, dtype=np.intp)
        pos[by_key] = np.searchsorted(self.sorted, key[by_key])
        np.minimum(pos, self.sorted.size - 1, out=pos)
        at = self.order[pos]
        hit = self.sorted[pos] == key
        if words is not None:  # the same bytes, and none beyond the qrels' longest id
            hit &= (self.words[at] == words[:, :width]).all(axis=1)
            hit &= ~words[:, width:].any(axis=1)
        return np.where(hit, at, -1).astype(np.int64)

    def _by_arrow(self, queries: pa.Array) -> np.ndarray:
        at = pc.index_in(queries, value_set=self.values)
        return pc.fill_null(at, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def _id_order(ids: np.ndarray, integers: bool) -> np.ndarray:
    """The order of the query ids ``ids`` (distinct) as evaluate sorts them: integers
    by value, strings by their UTF-8 bytes (Python's str order, by code point, is the
    same), without a comparison of Python objects."""
    if integers:
        return np.argsort(ids.astype(np.int64), kind="stable")
    try:
        return _text_order(pa.array(ids, pa.string()))
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # (not all str: Python's order)
        return np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)


def _text_order(ids: pa.Array) -> np.ndarray:
    """The stable order of the strings ``ids`` by their bytes (C's ``strcmp``, as
    Arrow's ``sort_indices`` orders them). Strings of at most ``_MAX_WIDTH`` bytes
    without a NUL byte are sorted as their zero-padded bytes read as big-endian
    64-bit words (the order of the words is the order of the bytes, and a shorter
    string sorts before its extensions), by NumPy's stable sorts: 3.3 times faster
    than Arrow's comparison of strings for 2 million ids of up to 8 bytes, 1.4 times
    for ids of 20 (``benchmarks/bench_steps.py``). Others by Arrow."""
    words = _id_words(ids)
    if words is None or not len(ids):
        return pc.sort_indices(ids).to_numpy().astype(np.int64)
    big = words.byteswap()
    if big.shape[1] == 1:
        return np.argsort(big[:, 0], kind="stable")
    return np.lexsort(big.T[::-1])


class _State:
    """The per-query frames scored so far, and the ids of the finished queries."""

    def __init__(self, score, qrels, plan, columns=None):
        self.score, self.qrels, self.plan, self.chosen = score, qrels, plan, plan.conventions
        # the tables scored are canonical: only the name of your query column is kept,
        # for the index (as evaluate names it)
        self.index_name = (columns or {}).get("query_id", "query_id")
        # the qrels by query (each query's rows in file order), and each query's row
        # range: a batch takes its queries' rows without a scan of all the qrels (a scan
        # per batch would make the time grow with queries x batches). Queries are
        # numbered in order of first appearance; qrels grouped by query (as written)
        # are kept as they are, others are put in that order by a stable sort.
        ids = qrels.column("query_id")
        starts = _run_starts(ids) if len(ids) else np.zeros(0, np.int64)
        heads = take_ascending(ids, starts)
        if isinstance(heads, pa.ChunkedArray):
            heads = heads.combine_chunks()
        if len(pc.unique(heads)) == len(heads):  # grouped: no id of all the rows hashed
            self.query_values, self.by_query = heads, qrels
            self.bounds = np.append(starts, len(ids)).astype(np.int64)
        else:
            encoded = pc.dictionary_encode(ids)
            if isinstance(encoded, pa.ChunkedArray):
                encoded = encoded.combine_chunks()
            codes = encoded.indices.to_numpy(zero_copy_only=False)
            self.query_values = encoded.dictionary
            order = stable_order(codes, len(self.query_values))
            self.by_query = qrels.take(pa.array(order))
            counts = np.bincount(codes, minlength=len(self.query_values))
            self.bounds = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.judged = self.query_values
        self.lookup = _QueryLookup(self.query_values)
        self.name_rows("run table", True)
        self.reset()

    def name_rows(self, name: str, parquet: bool) -> None:
        """Messages name the rows of the batches (their column ``line``) as the whole
        path names them: ``name, line 7`` (a text file) or ``run Parquet file name,
        row 6`` (counted from 0)."""
        if parquet:
            self.source, self.one, self.two = f"run Parquet file {name}", "row", "rows"
        else:
            self.source, self.one, self.two = name, "line", "lines"

    def duplicate(self, table: pa.Table):
        """``(line, ValueError)`` for the first document listed twice in ``table`` (the
        repeat of the smallest line, named by both lines, as the whole path names it),
        or None."""
        lines = table.column("line").to_numpy()
        if len(lines) > 1 and (np.diff(lines) < 0).any():  # a partition, sorted by score
            order = np.argsort(lines, kind="stable")
            table, lines = table.take(pa.array(order)), lines[order]
        keys = table.select(["query_id", "doc_id"])
        pair = first_duplicate(keys)
        if pair is None:
            return None

        def where(row, other=None):
            if other is None:
                return f"{self.source}, {self.one} {lines[row]}"
            return f"{self.source}, {self.two} {lines[row]} and {lines[other]}"

        try:
            finish(table.select(["query_id", "doc_id", "score"]), "run", where)
        except ValueError as error:
            return int(lines[pair[1]]), error
        return None  # pragma: no cover - finish finds the pair first_duplicate found

    def check(self, table: pa.Table) -> None:
        """ValueError if a document is listed twice in ``table`` (whole queries)."""
        found = self.duplicate(table)
        if found is not None:
            raise found[1]

    def judgments_of(self, queries: pa.Array, starts=None, n_rows: int = 0) -> Checked:
        """The qrels rows of ``queries`` (distinct; grouped by query, each in file
        order), as :class:`~rankeval.ranking.pipeline.Checked`. With ``starts``, the
        row where each of ``queries`` begins in a run table of ``n_rows`` rows grouped
        by query (in the order of ``queries``), the queries come matched: numbered in
        the run's order, so that :func:`rankeval.rank_run` neither matches the ids again
        nor moves a query (the codes of a grouped run then never decrease)."""
        if queries.type != self.query_values.type and len(self.query_values):
            # a run's integer ids against text ones: the whole path's TypeError
            ours, theirs = id_kind(self.query_values.type), id_kind(queries.type)
            if ours != theirs:
                raise mixed_id_types("query_id", ours, theirs,
                                     f" (qrels: {ours}, run: {theirs})")
            queries = queries.cast(self.query_values.type)
        found = self.lookup(queries)
        judged = found >= 0
        by_position = np.argsort(found[judged], kind="stable")
        at = found[judged][by_position]  # (ascending: the qrels rows in file order)
        begin, stop = self.bounds[at], self.bounds[at + 1]
        lengths = stop - begin
        if not at.size:
            table = self.by_query.slice(0, 0)
        else:
            # a run in the qrels' order of queries (as both files are often written):
            # the batch's qrels are a few ranges of rows, taken as slices (no copy)
            joins = np.flatnonzero(begin[1:] != stop[:-1]) + 1
            if joins.size < _MAX_SLICES:
                first, last = np.append(0, joins), np.append(joins, at.size) - 1
                pieces = [self.by_query.slice(lo, hi - lo) for lo, hi in
                          zip(begin[first].tolist(), stop[last].tolist(), strict=True)]
                table = pa.concat_tables(pieces)
            else:
                rows = np.repeat(begin - (np.cumsum(lengths) - lengths), lengths) \
                    + np.arange(int(lengths.sum()), dtype=np.int64)
                table = take_ascending(self.by_query, rows)
        if starts is None:
            return Checked(table)
        code = np.cumsum(judged, dtype=np.int64) - 1  # judged queries in the run's order
        code[~judged] = -1
        index = np.int32 if max(n_rows, len(table)) < 2**31 - 1 else np.int64
        run_codes = np.repeat(code.astype(index), np.diff(np.append(starts, n_rows)))
        codes = np.repeat(code[judged][by_position].astype(index), lengths)
        ids = self.query_values.take(pa.array(found[judged]))
        return Checked(table, ids, codes, run_codes)

    def reset(self):
        self.frames, self.in_run, self.seen, self.run_queries = [], [], set(), 0
        self.texts = []  # each frame's query ids as Arrow strings (None: not known)
        self.first_ids = []  # the run's first query ids, for a message

    def score_queries(self, table: pa.Table, queries: pa.Array | None = None,
                      ids: list | None = None, starts=None) -> None:
        """Score the whole queries of ``table`` (every row of each query is in it);
        ``queries``, their distinct ids, if known (and ``ids``, as a list), and
        ``starts``, the row where each begins if the table is grouped by query in the
        order of ``queries``."""
        if queries is None:
            queries = pc.unique(table.column("query_id"))
        self.run_queries += len(queries)
        if ids is None:
            ids = queries.to_pylist()
        self.seen.update(ids)
        self.first_ids += ids[: 3 - len(self.first_ids)]
        try:
            sub = self.judgments_of(queries, starts, table.num_rows)
            frame = None if sub.table.num_rows == 0 else self.score(
                sub, table, self.plan, max_memory=None)[0]
        except (ValueError, TypeError):
            # the whole path looks for a document listed twice first, and names its lines
            self.check(table)
            raise
        if frame is None:
            self.check(table)  # no judged query: checked all the same
            return
        self.frames.append(frame)
        self.in_run.append(np.ones(len(frame), dtype=bool))
        # (every matched query of the batch has rows in it: the frame lists them all,
        # in the order of the codes)
        known = sub.queries is not None and len(sub.queries) == len(frame) \
            and pa.types.is_string(sub.queries.type)
        self.texts.append(sub.queries if known else None)

    def finish(self):
        import pandas as pd

        if self.chosen.missing == "zero":
            seen = pa.array(list(self.seen), self.judged.type) if self.seen else None
            unseen = self.qrels if seen is None else self.qrels.filter(
                pc.invert(pc.is_in(self.qrels.column("query_id"), value_set=seen)))
            if unseen.num_rows:
                empty = pa.table({"query_id": pa.array([], pa.string()),
                                  "doc_id": pa.array([], pa.string()),
                                  "score": pa.array([], pa.float64())})
                frame, _ = self.score(unseen, empty, self.plan, max_memory=None)
                self.frames.append(frame)
                self.texts.append(None)
                self.in_run.append(np.zeros(len(frame), dtype=bool))
        skipped = 0
        if self.chosen.missing is None and self.frames:  # a file: skipped, with a word
            # each judged query of the run is scored in one part, once: the others
            # were skipped
            skipped = len(self.judged) - sum(len(f) for f in self.frames)
        if not self.frames:
            raise ValueError(
                f"the run and the qrels have no query in common (run: {self.run_queries} "
                f"queries, e.g. {self.first_ids}; qrels: {len(self.judged)}, e.g. {self.judged[:3].to_pylist()}); "
                "query ids are compared as exact strings"
            )
        integers = all(f.index.dtype.kind == "i" for f in self.frames)
        if not integers and all(t is not None for t in self.texts):
            # the ids as Arrow strings already: sorted without Python objects
            texts = pa.concat_arrays(self.texts)
            order = _text_order(texts)
            ids = texts.take(pa.array(order)).to_numpy(zero_copy_only=False)
        else:
            ids = np.concatenate([f.index.to_numpy(dtype=object) for f in self.frames])
            order = _id_order(ids, integers)
            ids = ids[order]
        frame = pd.concat(self.frames, ignore_index=True) if len(self.frames) > 1 \
            else self.frames[0].reset_index(drop=True)
        frame = frame.iloc[order]
        # named and typed as evaluate's index: your query column's name, int64 or object
        frame.index = pd.Index(ids, name=self.index_name,
                               dtype=np.int64 if integers else object)
        warn_skipped(skipped, len(self.judged))
        return frame, np.concatenate(self.in_run)[order]
