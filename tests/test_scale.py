"""Bounded-memory evaluation of run files and the incremental Evaluator, each equal
to ``evaluate`` to the last bit (issue 41)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval.evaluation.bounded import evaluate_bounded, parse_memory
from rankeval.evaluation.conventions import conventions as as_conventions
from rankeval.evaluation.plan import make_plan
from rankeval.evaluation.runs import score_run

MEASURES = ["P@5", "AP", "nDCG@10", "nDCG", "RR", "R@20", "Rprec", "bpref", "NumRet",
            "NumRelRet", "NumRel", "ERR@10", "P@100", "iprec_at_recall_0.10", "infAP",
            "Judged@10", "RBP(p=0.8)@20", "AP@10"]  # fmt: skip


def make_data(seed: int, n_queries: int = 30, depth: int = 40):
    """qrels and run dicts with ties, unjudged documents, one-sided queries and
    variable-length ids."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for i in range(n_queries):
        qid = f"q{i * 7919 % 1000}" + "x" * int(rng.integers(0, 4))
        docs = [f"d{int(j)}" for j in rng.choice(10 * depth, size=depth, replace=False)]
        if i % 10 != 9:  # a query of the run only
            judged = rng.choice(docs + [f"u{j}" for j in range(5)], size=depth // 2,
                                replace=False)
            qrels[qid] = {d: int(rng.integers(-1, 4)) for d in judged}
        if i % 10 != 8:  # a query of the qrels only
            k = int(rng.integers(1, depth + 1))
            scores = np.round(rng.normal(size=k), 1)  # many ties
            run[qid] = {d: float(s) for d, s in zip(docs[:k], scores, strict=True)}
    return qrels, run


def write_run(path, run, shuffle_seed=None, sep=" "):
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    if shuffle_seed is not None:
        order = np.random.default_rng(shuffle_seed).permutation(len(rows))
        rows = [rows[i] for i in order]
    with open(path, "w") as f:
        for r, (q, d, s) in enumerate(rows):
            f.write(sep.join([q, "Q0", d, str(r), repr(s), "tag"]) + "\n")
    return path


def equal(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Same index, columns, dtypes, counts and NaNs; floats equal to the last bit.

    ``evaluate``'s kernels add every per-query sum in rank order
    (``rankeval.metrics.portable.row_sum``), so a query's value does not depend on the
    block it is scored in (``test_evaluate_is_the_same_in_any_blocks``); batches and
    partitions are other blocks.
    """
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), c


def test_evaluate_is_the_same_in_any_blocks(monkeypatch):
    import rankeval.evaluation.runs as runs

    qrels, run = make_data(0)
    whole = rankeval.evaluate(qrels, run, ["nDCG@10"])["nDCG@10"].to_numpy()
    monkeypatch.setattr(runs, "CELL_BUDGET", 200)
    blocks = rankeval.evaluate(qrels, run, ["nDCG@10"])["nDCG@10"].to_numpy()
    assert np.array_equal(whole, blocks)


PRESETS = [dict(), dict(missing="zero"), dict(conventions="pytrec_eval"),
           dict(conventions="sklearn"), dict(conventions="lightgbm"),
           dict(conventions="xgboost"),
           dict(judged_only=True), dict(ties="input"), dict(max_docs=7),
           dict(ideal="retrieved", threshold=2)]  # fmt: skip


def measures_for(options):
    if options.get("conventions") == "sklearn":  # tied scores averaged: the DCG family
        return ["nDCG@10", "nDCG", "DCG@5"]
    if options.get("missing") == "zero" or options.get("judged_only"):
        return [m for m in MEASURES if m not in ("infAP",)]
    return MEASURES


@pytest.mark.parametrize("options", PRESETS)
@pytest.mark.parametrize("shuffle", [None, 3])
@pytest.mark.parametrize("block", [200, 5000, None])
def test_bounded_equals_evaluate(tmp_path, options, shuffle, block):
    qrels, run = make_data(1)
    path = write_run(tmp_path / "run.txt", run, shuffle)
    measures = measures_for(options)
    expected = rankeval.evaluate(qrels, str(path), measures, **options)
    chosen = as_conventions(options.get("conventions"),
                            **{k: v for k, v in options.items() if k != "conventions"})
    got, _ = evaluate_bounded(score_run, qrels, str(path), make_plan(measures, chosen), 1 << 20,
                           block=block, partitions=3 if block else None)
    equal(got, expected)


@pytest.fixture
def stream_always(monkeypatch):
    """Make the bounded path stream even a small file (no file is small enough to be
    read at once, and no ungrouped run fits)."""
    import rankeval.evaluation.bounded as bounded

    monkeypatch.setattr(bounded, "_WHOLE_FACTOR", 10**12)
    monkeypatch.setattr(bounded, "_FIT_FACTOR", 10**12)


def test_public_keyword_and_unusual_layout(tmp_path, stream_always):
    qrels, run = make_data(2)
    for shuffle in (None, 5):
        path = write_run(tmp_path / f"run{shuffle}.txt", run, shuffle, sep="  \t")
        with open(path, "a") as f:
            f.write("# a comment\n\n")
        expected = rankeval.evaluate(qrels, str(path), MEASURES, max_memory=None)
        equal(rankeval.evaluate(qrels, str(path), MEASURES, max_memory="1MB"), expected)
        equal(rankeval.evaluate(qrels, str(path), MEASURES), expected)  # the default


@pytest.mark.parametrize("shuffle", [None, 6])
def test_streams_stdin_and_file_objects(tmp_path, monkeypatch, stream_always, shuffle):
    """Standard input and file objects are spooled to a temporary file in blocks and
    streamed (never held whole); messages still name the source."""
    import io
    import sys

    qrels, run = make_data(4, n_queries=60)
    path = write_run(tmp_path / "run.txt", run, shuffle)
    expected = rankeval.evaluate(qrels, str(path), MEASURES, max_memory=None)
    with open(path, "rb") as f:
        equal(rankeval.evaluate(qrels, f, MEASURES, max_memory="1MB"), expected)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    equal(rankeval.evaluate(qrels, "-", MEASURES, max_memory="1MB"), expected)
    bad = path.read_bytes() + b"q1 Q0 dz 1 nan tag\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bad)))
    lines = bad.count(b"\n")
    with pytest.raises(ValueError, match=rf"<stdin>, line {lines}\b"):
        rankeval.evaluate(qrels, "-", MEASURES, max_memory="1MB")


def test_streaming_big_file_through_the_default(tmp_path):
    """A file larger than an eighth of the budget is streamed without any patching."""
    import rankeval.evaluation.bounded as bounded

    qrels, run = make_data(7, n_queries=400, depth=60)
    path = write_run(tmp_path / "run.txt", run)
    assert path.stat().st_size * bounded._WHOLE_FACTOR > parse_memory("1MB")
    calls = []
    real = bounded._grouped_pass
    monkey = pytest.MonkeyPatch()
    monkey.setattr(bounded, "_grouped_pass", lambda *a: calls.append(1) or real(*a))
    try:
        got = rankeval.evaluate(qrels, str(path), MEASURES, max_memory="1MB")
    finally:
        monkey.undo()
    assert calls, "the file was not streamed"
    equal(got, rankeval.evaluate(qrels, str(path), MEASURES, max_memory=None))


def test_prefetch_raises_and_stops():
    import threading

    from rankeval.io.stream import prefetch

    def items():
        yield 1
        yield 2
        raise ValueError("boom at item 3")

    got = []
    with pytest.raises(ValueError, match="boom at item 3"):
        for x in prefetch(items()):
            got.append(x)
    assert got == [1, 2]
    closed = []

    def endless():
        try:
            i = 0
            while True:
                yield i
                i += 1
        finally:
            closed.append(True)

    before = threading.active_count()
    stream = prefetch(endless())
    assert [next(stream) for _ in range(5)] == [0, 1, 2, 3, 4]
    stream.close()
    assert closed == [True] and threading.active_count() == before


def test_bounded_errors(tmp_path):
    qrels, run = make_data(3)
    path = write_run(tmp_path / "run.txt", run)
    with open(path, "a") as f:  # a document twice, far apart in a grouped run
        q = next(iter(run))
        d = next(iter(run[q]))
        f.write(f"{q} Q0 {d} 1 0.5 tag\n")
    with pytest.raises(ValueError, match="twice|more than once|duplicate"):
        rankeval.evaluate(qrels, str(path), ["P@5"], max_memory="1MB")
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 1 nan tag\n")
    with pytest.raises(ValueError, match="line 2"):
        rankeval.evaluate({"q1": {"d1": 1}}, str(bad), ["P@5"], max_memory="1MB")
    with pytest.raises(ValueError, match="no query in common"):
        rankeval.evaluate({"zz": {"d1": 1}}, str(write_run(tmp_path / "ok.txt", run)),
                          ["P@5"], max_memory="1MB")
    for value in ("12 parsecs", "0.1MB"):
        with pytest.raises(ValueError):
            parse_memory(value)
    with pytest.raises(TypeError):
        parse_memory(1.5)
    assert parse_memory("512MB") == 512 * 2**20


# --- the incremental evaluator ----------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import rankeval.evaluation.incremental as incremental  # noqa: E402

CUT_MEASURES = ["P@5", "nDCG@10", "AP@10", "RR@20", "R@10", "ERR@10", "Judged@5",
                "Hits@10", "RBP(p=0.8)@20"]  # fmt: skip


def rows_of(run):
    return [(q, d, s) for q, docs in run.items() for d, s in docs.items()]


def feed(ev, rows, cuts):
    """update() with the rows cut at ``cuts`` (positions), in the given order."""
    bounds = [0, *sorted(set(cuts)), len(rows)]
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        part = rows[a:b]
        ev.update([r[0] for r in part], [r[1] for r in part], [r[2] for r in part])
    return ev


@pytest.fixture(autouse=True)
def _small_compaction(monkeypatch):
    monkeypatch.setattr(incremental, "_COMPACT_ROWS", 16)  # cut the state back often


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), cuts=st.lists(st.integers(0, 2000), max_size=12),
       preset=st.sampled_from(range(len(PRESETS))), truncated=st.booleans())
def test_evaluator_any_batches_any_order(seed, cuts, preset, truncated):
    qrels, run = make_data(seed % 7, n_queries=12, depth=30)
    options = PRESETS[preset]
    ties = as_conventions(options.get("conventions"),
                          **{k: v for k, v in options.items() if k != "conventions"}).ties
    if ties == "input":
        options = {}  # input order is the order of the batches: not order-free
    measures = CUT_MEASURES if truncated and ties != "average" else measures_for(options)
    expected = rankeval.evaluate(qrels, run, measures, **options)
    rows = rows_of(run)
    order = np.random.default_rng(seed).permutation(len(rows))
    rows = [rows[i] for i in order]
    cuts = [c % (len(rows) + 1) for c in cuts]
    ev = feed(rankeval.Evaluator(qrels, measures, **options), rows, cuts)
    equal(ev.compute(), expected)
    if truncated and not options:
        assert ev.depth == 20
    # two workers, merged
    half = len(rows) // 2
    a = feed(rankeval.Evaluator(qrels, measures, **options), rows[:half], cuts)
    b = feed(rankeval.Evaluator(qrels, measures, **options), rows[half:], cuts)
    equal(a.merge(b).compute(), expected)


def test_evaluator_truncates_and_keeps_ties():
    qrels = {"q": {"d05": 1, "d07": 2}}
    docs = [f"d{i:02d}" for i in range(40)]
    ev = rankeval.Evaluator(qrels, ["P@5", "nDCG@5"])
    assert ev.depth == 5
    for d in docs:  # every score tied: the tie rule (doc id descending) picks the top 5
        ev.update(["q"], [d], [1.0])
    assert ev.rows <= 16 + 5
    run = {"q": dict.fromkeys(docs, 1.0)}
    equal(ev.compute(), rankeval.evaluate(qrels, run, ["P@5", "nDCG@5"]))
    # float32 scores: 1 + 1e-12 ties with 1 as trec_eval 9 compares
    ev = rankeval.Evaluator(qrels, ["P@1"], score_precision="float")
    ev.update(["q"] * 20, [f"x{i}" for i in range(20)], [1.0] * 20)
    ev.update(["q", "q"], ["d05", "d07"], [1.0 + 1e-12, 1.0])
    run = {"q": {**{f"x{i}": 1.0 for i in range(20)}, "d05": 1.0 + 1e-12, "d07": 1.0}}
    equal(ev.compute(), rankeval.evaluate(qrels, run, ["P@1"], score_precision="float"))


def test_evaluator_full_lists_and_errors():
    assert rankeval.Evaluator({"q": {"a": 1}}, ["AP", "P@5"]).depth is None
    assert rankeval.Evaluator({"q": {"a": 1}}, ["P@5"], ties="input").depth is None
    assert rankeval.Evaluator({"q": {"a": 1}}, ["P@5"], judged_only=True).depth is None
    ev = rankeval.Evaluator({"q": {"a": 1}}, ["P@5"])
    with pytest.raises(ValueError, match="no document"):
        ev.compute()
    with pytest.raises(ValueError, match="one length"):
        ev.update(["q"], ["a", "b"], [1.0])
    with pytest.raises(ValueError):
        ev.update(["q"], ["a"], [float("nan")])
    ev.update(["q"], ["a"], [1.0])
    ev.update(["q"], ["a"], [2.0])
    with pytest.raises(ValueError):  # the same document twice, across batches
        ev.compute()
    with pytest.raises(ValueError, match="same qrels"):
        ev.merge(rankeval.Evaluator({"q": {"a": 1}}, ["P@10"]))
    with pytest.raises(TypeError):
        ev.merge(object())


def test_default_keywords_keep_the_conventions_threshold():
    # evaluate(conventions=Conventions(threshold=2)) used to score with threshold 1:
    # the keyword's default 1 (int) was taken for a change of the stored 1.0 (float)
    qrels, run = make_data(1)
    chosen = as_conventions(None, threshold=2)
    equal(rankeval.evaluate(qrels, run, ["P@5", "AP"], conventions=chosen),
          rankeval.evaluate(qrels, run, ["P@5", "AP"], threshold=2))
    # a keyword given explicitly overrides, even one equal to trec_eval's default
    # (issue 45); a keyword not given keeps the object's value
    assert as_conventions(chosen, threshold=1).threshold == 1.0
    assert as_conventions(chosen).threshold == 2.0


@pytest.mark.parametrize("shuffle", [None, 4])
def test_command_line_max_memory(tmp_path, capsys, shuffle, stream_always):
    from rankeval.cli import main

    qrels, run = make_data(5)
    qpath = tmp_path / "qrels.txt"
    qpath.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                             for d, g in docs.items()))
    rpath = write_run(tmp_path / "run.txt", run, shuffle)
    base = [str(qpath), str(rpath), "-m", "P.5", "-m", "ndcg_cut.10", "-m", "num_ret",
            "-q", "-c"]
    assert main(base) == 0
    whole = capsys.readouterr().out
    assert main([*base, "--max-memory", "1MB"]) == 0
    assert capsys.readouterr().out == whole
    assert main([*base, "--max-memory", "none"]) == 0
    assert capsys.readouterr().out == whole


def test_partition_of_is_fixed_and_total():
    """The partition of a query id is a function of its bytes alone: the same in every
    batch, process and machine (no hash seed), for ids of any length."""
    import pyarrow as pa

    from rankeval.io.stream import partition_of

    ids = ["q", "q1", "x" * 8, "x" * 9, "é", "y" * 64, "z" * 70, "q1"]
    parts = partition_of(pa.array(ids), 5)
    assert parts.tolist() == partition_of(pa.array(ids[::-1]), 5)[::-1].tolist()
    assert parts[1] == parts[-1] and ((parts >= 0) & (parts < 5)).all()
    assert partition_of(pa.array(ids).cast(pa.large_string()), 5).tolist() == parts.tolist()
    # SplitMix64 over the id's own NUL-padded words, then its length: fixed numbers
    assert partition_of(pa.array(["q1", "q2"]), 1000).tolist() == [179, 841]


def _hash_by_hand(data: bytes) -> int:
    """The documented hash of ``_id_hashes``, written out in Python integers."""
    mask = (1 << 64) - 1

    def mix(x):
        x = (x + 0x9E3779B97F4A7C15) & mask
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
        return x ^ (x >> 31)

    h = 0
    padded = data + b"\0" * (-len(data) % 8)
    for j in range(0, len(padded), 8):
        h = mix(h ^ int.from_bytes(padded[j:j + 8], "little"))
    return mix(h ^ len(data))


def test_partition_of_depends_on_the_id_alone():
    """Issue 52, item 1: ids of every length from 1 to 200 bytes (ASCII and multi-byte
    UTF-8) hash the same alone, in any batch beside any other ids (the batch's longest
    id used to set the padding, and an id over 64 bytes switched the whole batch to
    pandas' hash), as a large_string, and as the documented formula says."""
    import pyarrow as pa

    from rankeval.io.stream import _id_hashes

    rng = np.random.default_rng(52)
    ids = [("q" * n) for n in range(1, 201)] + [("é" * n)[:n] for n in range(1, 101)] \
        + ["".join(rng.choice(list("ab€𝄞7"), size=int(rng.integers(1, 60)))) for _ in range(200)]
    alone = {i: int(_id_hashes(pa.array([i]))[0]) for i in ids}
    for i in ids[:: 7]:
        assert alone[i] == _hash_by_hand(i.encode("utf-8"))
    for _ in range(20):
        batch = list(rng.choice(ids, size=int(rng.integers(1, 80))))
        got = _id_hashes(pa.array(batch))
        assert got.tolist() == [alone[i] for i in batch]
        assert _id_hashes(pa.array(batch, pa.large_string())).tolist() == got.tolist()
    # concatenated shards: chunked arrays hash as their values
    from rankeval.io.stream import partition_of

    chunked = pa.chunked_array([pa.array(ids[:50]), pa.array(ids[50:])])
    assert partition_of(chunked, 7).tolist() == [alone[i] % 7 for i in ids]


def test_bounded_path_never_splits_a_query(tmp_path):
    """Issue 52, item 1, as reported: a shuffled run of 30,000 lines with ids of mixed
    widths plus one query with a 10-byte id, at max_memory="1MB", gave 961 rows (q0
    twice, NumRet 12 and 48) and a wrong mean AP; it must equal reading at once."""
    rng = np.random.default_rng(0)
    lines, qrels = [], {}
    for q in range(500):
        qid = f"q{q}"
        docs = rng.choice(5000, size=60, replace=False)
        qrels[qid] = {f"d{d}": int(rng.integers(0, 3)) for d in docs[:20]}
        lines += [(qid, f"d{d}", float(rng.normal())) for d in docs]
    lines.append(("q_longer_1", "d1", 1.0))  # a 10-byte id
    qrels["q_longer_1"] = {"d1": 1}
    order = rng.permutation(len(lines))
    path = tmp_path / "run.txt"
    with open(path, "w") as f:
        for i in order:
            q, d, s = lines[i]
            f.write(f"{q} Q0 {d} 0 {s!r} t\n")
    measures = ["AP", "NumRet", "nDCG@10"]
    at_once = rankeval.evaluate(qrels, str(path), measures, max_memory=None)
    bounded = rankeval.evaluate(qrels, str(path), measures, max_memory="1MB")
    assert len(bounded) == 501 and bounded.index.is_unique
    equal(bounded, at_once)


@pytest.mark.parametrize("ties", ["input", "trec_eval", "average"])
def test_partitions_keep_float32_ties_in_file_order(tmp_path, ties):
    """Scores equal as 32-bit floats but not as doubles tie under score_precision="float":
    the partition's regrouping must not order them by their doubles."""
    rows = []
    for q in range(6):
        for d in range(12):
            base = 1.0 + (d // 3)  # three documents per score level
            rows.append((f"q{q}", f"d{d}", base + (d % 3) * 1e-9))
    order = np.random.default_rng(0).permutation(len(rows))
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, d, s in (rows[i] for i in order)))
    qrels = {f"q{q}": {f"d{d}": int(d % 4 == 0) for d in range(12)} for q in range(6)}
    measures = ["P@1", "P@2", "AP", "nDCG@3"] if ties != "average" else ["nDCG@3", "nDCG"]
    options = dict(ties=ties, score_precision="float")
    expected = rankeval.evaluate(qrels, str(path), measures, max_memory=None, **options)
    got, _ = evaluate_bounded(score_run, qrels, str(path),
                              make_plan(measures, as_conventions(None, **options)), 1 << 20, block=300,
                              partitions=3)
    equal(got, expected)


@pytest.mark.parametrize("shuffle", [None, 8])
def test_streams_a_compressed_run(tmp_path, stream_always, shuffle):
    import gzip

    qrels, run = make_data(9, n_queries=50)
    path = write_run(tmp_path / "run.txt", run, shuffle)
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    expected = rankeval.evaluate(qrels, str(path), MEASURES, max_memory=None)
    equal(rankeval.evaluate(qrels, str(packed), MEASURES, max_memory="1MB"), expected)


@pytest.mark.parametrize("shuffle", [None, 10])
@pytest.mark.parametrize("integer_ids", [False, True])
def test_streams_a_parquet_run(tmp_path, stream_always, shuffle, integer_ids):
    """A Parquet run is read in batches of its row groups, your column names mapped and
    ``rank`` taken for ``score``, grouped or not, with string or integer ids."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    qrels, run = make_data(11, n_queries=40)
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    if shuffle is not None:
        rows = [rows[i] for i in np.random.default_rng(shuffle).permutation(len(rows))]
    if integer_ids:  # ids as integers on both sides
        qnum = {q: i for i, q in enumerate(sorted({r[0] for r in rows} | set(qrels)))}
        dnum = {}
        rows = [(qnum[q], dnum.setdefault(d, len(dnum)), s) for q, d, s in rows]
        qrels = {qnum[q]: {dnum.setdefault(d, len(dnum)): g for d, g in docs.items()}
                 for q, docs in qrels.items()}
    table = pa.table({"user": [r[0] for r in rows], "item": [r[1] for r in rows],
                      "pred": [r[2] for r in rows]})
    path = tmp_path / "run.parquet"
    pq.write_table(table, path, row_group_size=97)
    columns = {"query_id": "user", "doc_id": "item", "score": "pred"}
    expected = rankeval.evaluate(qrels, str(path), MEASURES, max_memory=None, columns=columns)
    got = rankeval.evaluate(qrels, str(path), MEASURES, max_memory="1MB", columns=columns)
    equal(got, expected)
    assert len(got) > 20
    zero = dict(missing="zero", columns=columns)
    measures = measures_for({"missing": "zero"})
    equal(rankeval.evaluate(qrels, str(path), measures, max_memory="1MB", **zero),
          rankeval.evaluate(qrels, str(path), measures, max_memory=None, **zero))
    if integer_ids:  # text qrels against an integer run: the whole path's TypeError
        text = {str(q): docs for q, docs in qrels.items()}
        with pytest.raises(TypeError, match="query_id"):
            rankeval.evaluate(text, str(path), MEASURES, max_memory="1MB", columns=columns)
