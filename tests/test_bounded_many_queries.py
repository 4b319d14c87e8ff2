"""The bounded path with many small queries (issue 51, item 4): every batch looks its
queries up among the qrels' without a pass over all of them, and the values stay the
whole path's to the last bit, whatever the ids (widths that change from batch to batch,
integers, text past 16 bytes, non-ASCII), the order of the lines (qrels and run
shuffled), ties and one-sided queries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval
from rankeval.evaluation.bounded import evaluate_bounded
from rankeval.evaluation.conventions import conventions as as_conventions
from rankeval.evaluation.plan import make_plan
from rankeval.evaluation.runs import score_run
from rankeval.io import stream, tables
from rankeval.io.tables import first_duplicate

MEASURES = ["P@5", "AP", "nDCG@10", "RR", "R@100", "NumRet", "NumRelRet", "bpref"]


def _query_id(i: int, n: int) -> str:
    """Ids whose width changes along the file (batches of 64 KiB hold about 2,500
    lines): 1-8 bytes first, then 9-16 bytes that differ only past the 8th byte, then
    longer ones, and non-ASCII ones to the end."""
    if i < n // 3:
        return f"q{i}"
    if i < 2 * n // 3:
        return f"abcdefgh{i}"  # 11 to 12 bytes: the second word tells them apart
    if i < 5 * n // 6:
        return f"query-number-{i:08d}-long"  # past 16 bytes
    return f"é{i}"


def make_files(tmp_path, seed=0, n=4000, shuffle_run=False, shuffle_qrels=False):
    """Many small queries (1 to 4 documents), ties, queries of one side only."""
    rng = np.random.default_rng(seed)
    run_lines, qrels_lines = [], []
    for i in range(n):
        q = _query_id(i, n)
        k = int(rng.integers(1, 5))
        docs = [f"d{j}" for j in rng.choice(50, size=k + 2, replace=False)]
        if i % 7 != 3:  # a query of the qrels only when 3
            scores = rng.integers(0, 3, size=k) / 2  # many ties
            run_lines += [f"{q} Q0 {d} {r} {s} t" for r, (d, s) in
                          enumerate(zip(docs[:k], scores, strict=True))]
        if i % 11 != 5:  # a query of the run only when 5
            qrels_lines += [f"{q} 0 {d} {int(g)}" for d, g in
                            zip(docs[1:], rng.integers(0, 3, size=k + 1), strict=True)]
    for lines, shuffle in ((run_lines, shuffle_run), (qrels_lines, shuffle_qrels)):
        if shuffle:
            lines[:] = [lines[j] for j in rng.permutation(len(lines))]
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("\n".join(run_lines) + "\n")
    qrels.write_text("\n".join(qrels_lines) + "\n")
    return str(qrels), str(run)


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    """Batches of 64 KiB of file (the smallest piece, not joined by eight)."""
    monkeypatch.setattr(stream, "_PIECES", 1)


def equal(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), c


@pytest.mark.parametrize("options", [dict(), dict(missing="zero"), dict(missing="skip"),
                                     dict(ties="input"), dict(score_precision="float")])
@pytest.mark.parametrize("shuffle_run", [False, True])
@pytest.mark.parametrize("shuffle_qrels", [False, True])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_many_small_queries_equal_the_whole_path(tmp_path, options, shuffle_run,
                                                  shuffle_qrels):
    qrels, run = make_files(tmp_path, shuffle_run=shuffle_run, shuffle_qrels=shuffle_qrels)
    expected = rankeval.evaluate(qrels, run, MEASURES, max_memory=None, **options)
    plan = make_plan(MEASURES, as_conventions(None, **options))
    for block in (300, 1 << 17):  # batches of 64 and 128 KiB: 4 and 2
        got, _ = evaluate_bounded(score_run, qrels, run, plan, 1 << 20, block=block,
                                  partitions=3)
        equal(got, expected)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_integer_ids_from_a_frame_and_a_parquet_run(tmp_path):
    rng = np.random.default_rng(3)
    q = np.repeat(np.arange(400) * 1_000_003 % 10**9, 3)
    run = pa.table({"query_id": q, "doc_id": np.tile(np.arange(3), 400),
                    "score": rng.integers(0, 2, size=q.size).astype(float)})
    path = tmp_path / "run.parquet"
    pq.write_table(run, path, row_group_size=100)
    qrels = pd.DataFrame({"query_id": q[::3][::2], "doc_id": 1, "relevance": 1})
    expected = rankeval.evaluate(qrels, run, MEASURES)
    got, _ = evaluate_bounded(score_run, qrels, str(path), make_plan(MEASURES), 1 << 20,
                              block=2000)
    equal(got, expected)


def test_a_batch_never_looks_up_its_queries_among_all_of_the_qrels(tmp_path, monkeypatch):
    """The cost per batch follows the batch: Arrow's index_in is never given the whole
    set of the qrels' queries, whose hash table it would build at every batch."""
    qrels, run = make_files(tmp_path, n=8000)
    n_judged = len(pc.unique(rankeval.read_qrels(qrels, as_table=True).column("query_id")))
    sizes = []
    real = pc.index_in

    def spy(values, value_set=None, **kw):
        sizes.append(len(value_set))
        return real(values, value_set=value_set, **kw)

    monkeypatch.setattr(pc, "index_in", spy)
    evaluate_bounded(score_run, qrels, run, make_plan(MEASURES), 1 << 20, block=300)
    assert all(size < n_judged / 2 for size in sizes)  # (each batch: its own queries)


def test_a_grouped_batch_comes_with_its_queries_matched(tmp_path, monkeypatch):
    """The grouped pass hands every batch its queries' codes (from its index of the
    qrels): rank_run does not match the batch's ids a second time."""
    from rankeval.ranking import pipeline

    qrels, run = make_files(tmp_path, n=3000)
    matched = []
    real = pipeline._query_codes
    monkeypatch.setattr(pipeline, "_query_codes",
                        lambda *a: matched.append(1) or real(*a))
    got = evaluate_bounded(score_run, qrels, run, make_plan(MEASURES), 1 << 20,
                           block=300)[0]
    assert not matched
    whole = rankeval.evaluate(qrels, run, MEASURES, max_memory=None)
    pd.testing.assert_frame_equal(got, whole)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["", "a", "b", "ab", "abcdefgh", "abcdefgh1",
                                 "abcdefgh2", "abcdefghijklmnop", "abcdefghijklmnopq",
                                 "é", "日本語x", "a\x00", "ab\x00c"]), min_size=0, max_size=12,
                unique=True),
       st.lists(st.sampled_from(["", "a", "c", "abcdefgh", "abcdefgh2", "abcdefgh3",
                                 "abcdefghijklmnop", "abcdefghijklmnopq", "é", "日本語x",
                                 "a\x00", "zzzzzzzzzzzzzzzzzzzz"]), max_size=12))
def test_query_lookup_matches_index_in(values, queries):
    from rankeval.evaluation.bounded import _QueryLookup

    table = pa.array(values, pa.string())
    lookup = _QueryLookup(table)
    batch = pa.array(queries, pa.string())
    expected = pc.fill_null(pc.index_in(batch, value_set=table), -1).to_numpy(
        zero_copy_only=False)
    assert lookup(batch).tolist() == expected.tolist()
    if len(queries) > 1:  # a slice, and chunks
        assert lookup(batch.slice(1)).tolist() == expected[1:].tolist()
        chunked = pa.chunked_array([batch.slice(0, 1), batch.slice(1)])
        assert lookup(chunked).tolist() == expected.tolist()


def test_query_lookup_of_integers():
    from rankeval.evaluation.bounded import _QueryLookup

    values = pa.array([7, -3, 2**40, 0], pa.int64())
    lookup = _QueryLookup(values)
    assert lookup(pa.array([0, 5, 2**40, -3, 7], pa.int64())).tolist() == [3, -1, 2, 1, 0]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["x", "y", "xy", "abcdefgh1", "abcdefgh2",
                                          "é", "x" * 20]), min_size=1, max_size=20),
                min_size=1, max_size=8))
def test_first_duplicate_of_small_grouped_queries(blocks):
    for rows in (tables._NEAR_SLICE, 1, 7):  # whole queries of about `rows` at a time
        old = tables._NEAR_SLICE
        tables._NEAR_SLICE = rows
        try:
            _check_small_grouped(blocks)
        finally:
            tables._NEAR_SLICE = old


def _check_small_grouped(blocks):
    """Queries of at most ``_NEAR`` rows, each in one run: the neighbours are compared
    (no sort); the result is the oracle's (a query of more rows takes the sort)."""
    queries = [f"q{i}" for i, block in enumerate(blocks) for _ in block]
    docs = [d for block in blocks for d in block]
    table = pa.table({"query_id": queries, "doc_id": docs})
    expected = None
    for i, block in enumerate(blocks):
        start = sum(len(b) for b in blocks[:i])
        seen = {}
        for j, d in enumerate(block):
            if d in seen:
                pair = (start + seen[d], start + j)
                expected = pair if expected is None or pair[1] < expected[1] else expected
                break
            seen[d] = j
    assert first_duplicate(table) == expected


def test_small_grouped_queries_are_compared_with_their_neighbours(monkeypatch):
    """Queries of at most ``_NEAR`` rows, each in one run of rows, decide without the
    sort of one key per row: ``_surely_distinct`` answers with no key sort at all
    (the sort would go through ``np.repeat`` of the query numbers, spied here)."""
    n = 50_000
    table = pa.table({"query_id": np.repeat(np.arange(n // 5), 5).astype(str),
                      "doc_id": np.tile(np.arange(5), n // 5).astype(str)})
    heads = np.arange(0, n, 5)
    docs = table.column("doc_id").combine_chunks()
    repeated = []
    real = np.repeat
    monkeypatch.setattr(tables.np, "repeat", lambda a, r, *x, **k: (
        repeated.append(np.asarray(a).dtype), real(a, r, *x, **k))[1])
    assert tables._surely_distinct(np.arange(n // 5), heads, docs, n)
    assert np.dtype(np.uint64) not in repeated  # no query number per row for a sort key
    assert first_duplicate(table) is None
    twice = pa.table({"query_id": ["a", "a", "a", "b"], "doc_id": ["x", "y", "x", "x"]})
    assert not tables._surely_distinct(np.array([0, 1]), np.array([0, 3]),
                                       twice.column("doc_id").combine_chunks(), 4)
    assert first_duplicate(twice) == (0, 2)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(0, 20)), min_size=1, max_size=12),
       st.integers(0, 10**6))
def test_first_duplicate_of_queries_of_one_usual_depth(blocks, seed):
    """Queries each in one run of rows, most of one length (a run's depth): those are
    sorted row by row, the others together; the result is the oracle's."""
    rng = np.random.default_rng(seed)
    queries, docs = [], []
    for i, (kind, extra) in enumerate(blocks):
        n = 20 if kind < 4 else 20 + extra  # most queries of 20 rows
        pool = ["x", "y", "abcdefgh1", "abcdefgh2", "é"] + [f"d{j}" for j in range(40)]
        chosen = rng.choice(len(pool), size=n, replace=kind == 1)  # repeats in some
        queries += [f"q{i}"] * n
        docs += [pool[j] for j in chosen]
    table = pa.table({"query_id": queries, "doc_id": docs})
    seen, expected = {}, None
    for row, pair in enumerate(zip(queries, docs, strict=True)):
        if pair in seen and expected is None:
            expected = (seen[pair], row)
        seen.setdefault(pair, row)
    assert first_duplicate(table) == expected


@pytest.mark.parametrize("gaps", [False, True])
def test_a_run_in_the_qrels_order_takes_slices_of_the_qrels(tmp_path, monkeypatch, gaps):
    """Queries in the same order in both files: each batch's qrels are a few ranges,
    sliced, not gathered; with a query of the qrels only every few queries, gathered.
    The values are the whole path's either way."""
    from rankeval.evaluation import bounded

    rng = np.random.default_rng(5)
    run_lines, qrels_lines = [], []
    for i in range(3000):
        q = _query_id(i, 3000)
        if not (gaps and i % 5 == 2):
            run_lines += [f"{q} Q0 d{j} {j} {rng.integers(0, 3)} t" for j in range(3)]
        qrels_lines += [f"{q} 0 d{j} {rng.integers(0, 3)}" for j in (1, 2, 7)]
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("\n".join(run_lines) + "\n")
    qrels.write_text("\n".join(qrels_lines) + "\n")
    gathered = []
    real = bounded.take_ascending
    monkeypatch.setattr(bounded, "take_ascending",
                        lambda t, rows: (isinstance(t, pa.Table) and gathered.append(len(rows)),
                                         real(t, rows))[1])  # (the qrels' rows, not the ids)
    expected = rankeval.evaluate(str(qrels), str(run), MEASURES, max_memory=None)
    got, _ = evaluate_bounded(score_run, str(qrels), str(run), make_plan(MEASURES), 1 << 20,
                              block=300)
    equal(got, expected)
    assert bool(gathered) == gaps


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(["a", "b", "z", "0", "9", "é", "日", "\x01",
                                                  "\x7f", "\U0001f600"]), max_size=20),
                unique=True, max_size=40))
def test_text_order_is_the_order_of_the_bytes(values):
    """The query ids' final order (strings as big-endian words) against Python's order
    of str (by code point, which is the order of the UTF-8 bytes) and Arrow's sort."""
    from rankeval.evaluation.bounded import _text_order

    ids = pa.array(values, pa.string())
    got = [values[i] for i in _text_order(ids)]
    assert got == sorted(values)
    assert _text_order(ids).tolist() == pc.sort_indices(ids).to_numpy().tolist()


def test_text_order_of_long_ids_and_nul_bytes():
    from rankeval.evaluation.bounded import _text_order

    values = ["b" * 70, "a" * 70, "a\x00b", "a", "", "a\x00"]  # past 64 bytes; NUL bytes
    assert [values[i] for i in _text_order(pa.array(values))] == sorted(values)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), max_size=6), min_size=1, max_size=8),
       st.data())
def test_take_ascending_is_arrows_take(chunks, data):
    """The chunk-by-chunk take against Arrow's take of the same rows."""
    values = pa.chunked_array([pa.array([f"q{x}" for x in c], pa.string()) for c in chunks],
                              type=pa.string())
    n = len(values)
    rows = np.array(sorted(data.draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=12)
                                     if n else st.just([]))), dtype=np.int64)
    got = tables.take_ascending(values, rows)
    assert got.to_pylist() == values.take(pa.array(rows, pa.int64())).to_pylist()
    table = pa.Table.from_batches(
        [pa.record_batch({"q": c}) for c in values.chunks], schema=pa.schema([("q", pa.string())])
    ) if values.num_chunks else pa.table({"q": values})
    assert tables.take_ascending(table, rows).to_pylist() == \
        table.take(pa.array(rows, pa.int64())).to_pylist()
