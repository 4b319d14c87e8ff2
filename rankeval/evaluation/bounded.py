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
- **Standard input, pipes and file objects** are first copied, in blocks, to a
  temporary file (:func:`~rankeval.io.stream.spooled`), which is then streamed;
  messages still name the source and its line.

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

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import math
import os
import re
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io import qrels_table
from ..io.stream import (
    NotUsual,
    parquet_batches,
    partition_batches,
    plain_size,
    prefetch,
    run_batches,
    source_size,
    spooled,
)
from ..io.tables import id_kind, is_parquet, mixed_id_types
from ..ranking import by_query_and_score, compared_scores, release_memory
from .conventions import Conventions

__all__ = ["parse_memory", "evaluate_bounded", "DEFAULT_MEMORY"]

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


class _Ungrouped(Exception):
    """A query id came back after another query: the run is not grouped by query."""


def evaluate_bounded(score, qrels, run, measures, chosen: Conventions, budget: int,
                     *, block: int | None = None, partitions: int | None = None,
                     columns: dict | None = None, encoding: str = "utf-8"):  # fmt: skip
    """``score_run``'s (frame, in_run) for the run file ``run``, read in batches (module
    docstring).

    ``score`` is ``score_run`` (passed in, so that this module does not import the
    one that calls it); ``block`` and ``partitions`` override the sizes derived from
    the budget (the tests make them tiny); ``columns`` maps a Parquet run's columns;
    ``encoding`` is the TREC files' text encoding.
    """
    parquet = is_parquet(run)
    whole = plain_size(run)
    if parquet and source_size(run) is not None:
        whole = source_size(run) * _COMPRESSION  # columns compressed: more in memory
    if whole is not None and whole * _WHOLE_FACTOR <= budget and block is None:
        return score(qrels, run, measures, conventions=chosen, max_memory=None,
                     columns=columns, encoding=encoding)  # small: read at once
    q = qrels_table(qrels, encoding=encoding)
    block = block or block_size(budget)
    state = _State(score, q, measures, chosen, columns)

    def batches(path, name, general):
        if parquet:
            return prefetch(parquet_batches(path, block, columns, name=name))
        return prefetch(run_batches(path, block, general=general, name=name,
                                    encoding=encoding))

    with tempfile.TemporaryDirectory(prefix="rankeval-") as tmp:
        with spooled(run, tmp, encoding) as (path, name):
            for general in (False, True):
                try:
                    try:
                        _grouped_pass(batches(path, name, general), state)
                    except _Ungrouped:
                        state.reset()
                        size = source_size(path)
                        if size is not None and plain_size(path) is None:
                            size *= _COMPRESSION  # compressed: its text is larger
                        if partitions is None and whole is not None \
                                and whole * _FIT_FACTOR <= budget:
                            return score(q, run, measures, conventions=chosen,
                                         max_memory=None, columns=columns,
                                         encoding=encoding)
                        n = partitions or _partition_count(size, budget)
                        parts = os.path.join(tmp, "parts")
                        os.makedirs(parts, exist_ok=True)
                        paths = partition_batches(batches(path, name, general), n, parts)
                        for part in paths:
                            with pa.OSFile(part) as source:  # read, not mapped: freed after
                                table = pa.ipc.open_file(source).read_all()
                            os.remove(part)
                            state.score_queries(_by_query_and_score(table, chosen))
                            del table
                            release_memory()
                    break
                except NotUsual:
                    state.reset()
    return state.finish()


def _by_query_and_score(table: pa.Table, chosen: Conventions) -> pa.Table:
    """The rows of a partition grouped by query, best score first, equal scores in file
    order (a stable sort): the order a system writes a run in, which the ranking then
    takes without a sort of its own (and the search for a document listed twice without
    one either). Scores are compared as the ranking compares them (as 32-bit floats
    with ``score_precision="float"``), so that its ties stay in file order and the
    values are those of the partition as read."""
    codes = pc.dictionary_encode(table.column("query_id")).combine_chunks().indices
    scores = compared_scores(table.column("score").to_numpy(), chosen.score_precision)
    order = by_query_and_score(codes.to_numpy(zero_copy_only=False), scores)
    return table.take(pa.array(order))


def _partition_count(size: int | None, budget: int) -> int:
    """Partitions of about 1/16 of the budget of text each (16 if the size is unknown)."""
    if size is None:
        return 16
    return max(1, math.ceil(size / max(budget // 16, 1)))


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
            state.score_queries(table.slice(0, last), head_ids.slice(0, len(heads) - 1))
        carry = table.slice(last)
        carry_id = head_ids.slice(len(heads) - 1)
    if carry is not None and carry.num_rows:
        state.score_queries(carry, carry_id)


def _run_starts(ids: pa.Array) -> np.ndarray:
    """Rows where a new query id begins (row 0 included)."""
    n = len(ids)
    if n == 1:
        return np.zeros(1, dtype=np.int64)
    change = pc.not_equal(ids.slice(1), ids.slice(0, n - 1))
    return np.concatenate([[0], np.flatnonzero(change.to_numpy(zero_copy_only=False)) + 1])


class _State:
    """The per-query frames scored so far, and the ids of the finished queries."""

    def __init__(self, score, qrels, measures, chosen, columns=None):
        self.score, self.qrels, self.measures, self.chosen = score, qrels, measures, chosen
        # the tables scored are canonical: only the name of your query column is kept,
        # for the index (as evaluate names it)
        self.index_name = (columns or {}).get("query_id", "query_id")
        self.judged = pc.unique(qrels.column("query_id"))
        # the qrels by query (a stable sort keeps each query's rows in file order), and
        # each query's row range: a batch takes its queries' rows without a scan of all
        # the qrels (a scan per batch would make the time grow with queries x batches)
        ids = qrels.column("query_id")
        self.by_query = qrels.take(pc.sort_indices(ids))
        sorted_ids = self.by_query.column("query_id").combine_chunks()
        starts = _run_starts(sorted_ids) if len(sorted_ids) else np.zeros(0, np.int64)
        self.query_values = sorted_ids.take(pa.array(starts))
        self.bounds = np.append(starts, len(sorted_ids)).astype(np.int64)
        self.reset()

    def judgments_of(self, queries: pa.Array) -> pa.Table:
        """The qrels rows of ``queries`` (grouped by query, each in file order)."""
        if queries.type != self.query_values.type and len(self.query_values):
            # a run's integer ids against text ones: the whole path's TypeError
            ours, theirs = id_kind(self.query_values.type), id_kind(queries.type)
            if ours != theirs:
                raise mixed_id_types("query_id", ours, theirs,
                                     f" (qrels: {ours}, run: {theirs})")
            queries = queries.cast(self.query_values.type)
        at = pc.index_in(queries, value_set=self.query_values)
        at = np.sort(pc.drop_null(at).to_numpy().astype(np.int64))
        starts, stops = self.bounds[at], self.bounds[at + 1]
        lengths = stops - starts
        rows = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) \
            + np.arange(int(lengths.sum()), dtype=np.int64)
        return self.by_query.take(pa.array(rows))

    def reset(self):
        self.frames, self.in_run, self.seen, self.run_queries = [], [], set(), 0
        self.first_ids = []  # the run's first query ids, for a message

    def score_queries(self, table: pa.Table, queries: pa.Array | None = None) -> None:
        """Score the whole queries of ``table`` (every row of each query is in it);
        ``queries``, their distinct ids, if known."""
        from ..io import run_table

        if queries is None:
            queries = pc.unique(table.column("query_id"))
        self.run_queries += len(queries)
        ids = queries.to_pylist()
        self.seen.update(ids)
        self.first_ids += ids[: 3 - len(self.first_ids)]
        sub = self.judgments_of(queries)
        if sub.num_rows == 0:
            run_table(table)  # checked all the same: finite scores, no document twice
            return
        frame, _ = self.score(sub, table, self.measures, conventions=self.chosen,
                              max_memory=None)
        self.frames.append(frame)
        self.in_run.append(np.ones(len(frame), dtype=bool))

    def finish(self):
        import pandas as pd

        if self.chosen.missing == "zero":
            seen = pa.array(sorted(self.seen), self.judged.type) if self.seen else None
            unseen = self.qrels if seen is None else self.qrels.filter(
                pc.invert(pc.is_in(self.qrels.column("query_id"), value_set=seen)))
            if unseen.num_rows:
                empty = pa.table({"query_id": pa.array([], pa.string()),
                                  "doc_id": pa.array([], pa.string()),
                                  "score": pa.array([], pa.float64())})
                frame, _ = self.score(unseen, empty, self.measures, conventions=self.chosen,
                                      max_memory=None)
                self.frames.append(frame)
                self.in_run.append(np.zeros(len(frame), dtype=bool))
        if not self.frames:
            raise ValueError(
                f"the run and the qrels have no query in common (run: {self.run_queries} "
                f"queries, e.g. {self.first_ids}; qrels: {len(self.judged)}, e.g. {self.judged[:3].to_pylist()}); "
                "query ids are compared as exact strings"
            )
        ids = np.concatenate([f.index.to_numpy(dtype=object) for f in self.frames])
        integers = all(f.index.dtype.kind == "i" for f in self.frames)
        frame = pd.concat(self.frames, ignore_index=True) if len(self.frames) > 1 \
            else self.frames[0].reset_index(drop=True)
        # evaluate sorts string ids by their UTF-8 bytes: Python's str order is the same
        order = sorted(range(len(ids)), key=ids.__getitem__)
        frame = frame.iloc[order]
        # named and typed as evaluate's index: your query column's name, int64 or object
        frame.index = pd.Index(ids[order], name=self.index_name,
                               dtype=np.int64 if integers else object)
        return frame, np.concatenate(self.in_run)[order]
