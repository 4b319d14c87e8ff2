"""Bounded-memory evaluation of run files and the incremental Evaluator, each equal
to ``evaluate`` to the last bit (issue 41)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval.evaluation.bounded import evaluate_bounded, parse_memory
from rankeval.evaluation.conventions import conventions as as_conventions
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
           dict(judged_only=True), dict(ties="input"), dict(max_docs=7),
           dict(ideal="retrieved", threshold=2)]  # fmt: skip


def measures_for(options):
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
    got, _ = evaluate_bounded(score_run, qrels, str(path), measures, chosen, 1 << 20,
                           block=block, partitions=3 if block else None)
    equal(got, expected)


def test_public_keyword_and_unusual_layout(tmp_path):
    qrels, run = make_data(2)
    for shuffle in (None, 5):
        path = write_run(tmp_path / f"run{shuffle}.txt", run, shuffle, sep="  \t")
        with open(path, "a") as f:
            f.write("# a comment\n\n")
        expected = rankeval.evaluate(qrels, str(path), MEASURES)
        equal(rankeval.evaluate(qrels, str(path), MEASURES, max_memory="1MB"), expected)


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
    if options.get("ties") == "input":
        options = {}  # input order is the order of the batches: not order-free
    measures = CUT_MEASURES if truncated else measures_for(options)
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
    assert as_conventions(chosen, threshold=1).threshold == 2.0


@pytest.mark.parametrize("shuffle", [None, 4])
def test_command_line_max_memory(tmp_path, capsys, shuffle):
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
