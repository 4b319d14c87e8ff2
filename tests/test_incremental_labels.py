"""The labels form of the incremental evaluator, ``Evaluator.from_labels`` (issue 41):
rows that carry their own relevance label, as a learning-to-rank loop has them.

Oracles: ``evaluate`` on qrels and a run built from the same rows (each row a
document of its own, ids made here independently of the evaluator's), ``evaluate_groups``
on the rows as arrays, and the nDCG@k that LightGBM and XGBoost log while training a
real ranker. ``compute`` calls ``evaluate`` on tables of the same queries and rankings as
the oracle's; with every row kept the kernels see the same blocks and the values agree
bit for bit. A state cut back to the deepest cut-off holds shorter rankings, so the
kernels' padded blocks are narrower; the kernels sum each query in rank order whatever
the block's width (``tests/test_bitexact.py``), so those values agree bit for bit too.
"""

from __future__ import annotations

import importlib
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval
import rankeval.evaluation.incremental as incremental
from rankeval import Evaluator
from rankeval.evaluation.conventions import PRESETS
from rankeval.evaluation.conventions import conventions as as_conventions

CUT = ["P@5", "nDCG@10", "AP@10", "RR@20", "R@10", "ERR@10", "Judged@5", "Hits@10",
       "RBP(p=0.8)@20", "nDCG@3", "GAP@5", "MR@10", "FRP@10", "AR@10", "RelP@5",
       "Success@3", "Unj@5", "DCG@5", "P(rel=2)@5", "trec_rbp_resid@10"]  # fmt: skip
FULL = ["AP", "nDCG", "RR", "Rprec", "bpref", "NumRel", "NumRet", "NumRelRet", "R@100",
        "iprec_at_recall_0.10", "P@5", "nDCG@10"]  # fmt: skip
TIE_AVERAGED = ["nDCG@3", "nDCG@10", "nDCG", "DCG@5"]  # what ties="average" defines


def measures_for(preset: str, full: bool) -> list[str]:
    if PRESETS[preset].ties == "average":
        return TIE_AVERAGED
    return FULL if full else CUT


def make_rows(seed: int, n_queries: int = 9, int_ids: bool = False):
    """(query id, label, score) rows: scores rounded to one decimal (many ties), labels
    -1..3, a query with only labels <= 0, a query of one row, variable-length ids."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_queries):
        qid = i * 37 if int_ids else f"q{i * 37}" + "x" * int(rng.integers(0, 3))
        n = 1 if i == 4 else int(rng.integers(2, 60))  # deeper than the cut-offs
        labels = rng.integers(-1, 4, size=n)
        if i % 4 == 1:
            labels = np.minimum(labels, 0)  # no relevant row
        scores = np.round(rng.normal(size=n), 1)
        rows += [(qid, int(g), float(s)) for g, s in zip(labels, scores, strict=True)]
    order = rng.permutation(len(rows))  # queries interleaved, as batches come
    return [rows[i] for i in order]


def oracle(rows, measures, preset, **options):
    """``evaluate`` on qrels and a run of the rows: row i is document "r<N - i>" with N
    digits fixed, so that trec_eval's ties (id descending) put the earlier row first;
    the run lists the rows in order (ties="input")."""
    n = len(rows)
    ids = [f"r{n - i:09d}" for i in range(n)]
    q = [r[0] for r in rows]
    qrels = pd.DataFrame({"query_id": q, "doc_id": ids, "relevance": [r[1] for r in rows]})
    run = pd.DataFrame({"query_id": q, "doc_id": ids, "score": [r[2] for r in rows]})
    return rankeval.evaluate(qrels, run, measures, conventions=as_conventions(preset, **options))


def feed(ev, rows, cuts):
    """update() with the rows cut at the positions ``cuts``, batches in order."""
    bounds = [0, *sorted({c % (len(rows) + 1) for c in cuts}), len(rows)]
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        part = rows[a:b]
        ev.update([r[0] for r in part], labels=[r[1] for r in part],
                  scores=[r[2] for r in part])  # fmt: skip
    return ev


def same(a: pd.DataFrame, b: pd.DataFrame, exact: bool = True) -> None:
    """Same index, columns, dtypes and NaNs; values bit for bit (``exact`` is kept for
    the callers: every comparison is exact now)."""
    pd.testing.assert_frame_equal(a, b, check_exact=True)


@pytest.fixture(autouse=True)
def _small_compaction(monkeypatch):
    monkeypatch.setattr(incremental, "_COMPACT_ROWS", 16)  # compact the state often


# --- equal to evaluate on the rows ------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), cuts=st.lists(st.integers(0, 500), max_size=10),
       preset=st.sampled_from(sorted(PRESETS)), full=st.booleans(), workers=st.integers(1, 4),
       int_ids=st.booleans())  # fmt: skip
def test_any_batches_and_workers_equal_evaluate_on_the_rows(seed, cuts, preset, full,
                                                            workers, int_ids):  # fmt: skip
    rows = make_rows(seed, int_ids=int_ids)
    measures = measures_for(preset, full)
    expected = oracle(rows, measures, preset)
    ev = feed(Evaluator.from_labels(measures, preset), rows, cuts)
    same(ev.compute(), expected, exact=ev.depth is None)
    # several workers, each fed its share in batches, merged in order
    bounds = np.linspace(0, len(rows), workers + 1).astype(int)
    evs = [feed(Evaluator.from_labels(measures, conventions=preset), rows[a:b], cuts)
           for a, b in zip(bounds[:-1], bounds[1:], strict=True)]  # fmt: skip
    first = evs[0]
    for other in evs[1:]:
        first.merge(other)
    assert first.rows == len(rows) if first.depth is None else first.rows <= len(rows)
    same(first.compute(), expected, exact=first.depth is None)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_rows_in_another_order_are_that_order_and_ties_alone_depend_on_it(preset):
    rows = make_rows(11)
    measures = measures_for(preset, full=True)
    shuffled = [rows[i] for i in np.random.default_rng(0).permutation(len(rows))]
    got = feed(Evaluator.from_labels(measures, conventions=preset), shuffled, [5, 40])
    same(got.compute(), oracle(shuffled, measures, preset))
    # without ties, or with averaged ties, the order of the rows changes nothing
    untied = [(q, g, s + 1e-6 * i) for i, (q, g, s) in enumerate(rows)]
    a = feed(Evaluator.from_labels(measures, conventions=preset), untied, [7])
    b = feed(Evaluator.from_labels(measures, conventions=preset), untied[::-1], [7])
    pd.testing.assert_frame_equal(a.compute(), b.compute(), check_exact=False, rtol=0,
                                  atol=1e-15)  # fmt: skip
    # the summation order of a query's gains may differ: to the last bit only
    if PRESETS[preset].ties == "average":
        a = feed(Evaluator.from_labels(measures, conventions=preset), rows, [3])
        b = feed(Evaluator.from_labels(measures, conventions=preset), shuffled, [9])
        pd.testing.assert_frame_equal(a.compute(), b.compute(), check_exact=False,
                                      rtol=0, atol=1e-15)  # fmt: skip


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("lightgbm", {"gain": (0, 1, 3, 7)}),  # LightGBM's label_gain
        ("trec_eval", {"ties": "input"}),
        ("trec_eval", {"threshold": 2}),
        ("trec_eval", {"grades": "trec_eval"}),  # 1.5 -> 1, -0.5 -> 0
        ("trec_eval", {"judged_only": True}),  # rows with labels < 0 leave the ranking
        ("trec_eval", {"max_docs": 7}),
        ("trec_eval", {"ideal": "retrieved"}),
        ("xgboost", {"no_relevant": 0}),  # XGBoost's ndcg-
    ],
)
@pytest.mark.parametrize("full", [False, True])
def test_options_over_a_preset_equal_evaluate_on_the_rows(preset, options, full):
    rows = [(q, g + 0.5 * (i % 5 == 0) * ("grades" in options), s)
            for i, (q, g, s) in enumerate(make_rows(21))]  # fmt: skip
    measures = measures_for(preset, full)
    if options.get("judged_only"):
        measures = [m for m in measures if m != "bpref"]
    ev = Evaluator.from_labels(measures, conventions=preset, **options)
    same(feed(ev, rows, [13, 50, 51, 120]).compute(), oracle(rows, measures, preset, **options))


@pytest.mark.parametrize("ties", ["trec_eval", "input"])
def test_the_earlier_row_ranks_first_among_equal_scores(ties):
    ev = Evaluator.from_labels(["P@1", "RR"], ties=ties)
    ev.update(["q", "q"], labels=[0, 1], scores=[0.5, 0.5])
    ev.update(["q"], labels=[1], scores=[0.5])
    assert ev.compute().loc["q"].tolist() == [0.0, 0.5]
    other = Evaluator.from_labels(["P@1", "RR"], ties=ties)
    other.update(["q"], labels=[1], scores=[0.5])
    other.merge(ev)  # ev's rows come after other's
    assert other.compute().loc["q"].tolist() == [1.0, 1.0]
    # more than 10 rows: ids compared as text stay in order past one digit
    ev = Evaluator.from_labels(["RR"], ties=ties)
    ev.update(["q"] * 12, labels=[0] * 11 + [1], scores=[1.0] * 12)
    assert ev.compute().loc["q", "RR"] == 1 / 12


def test_averaged_ties_and_float32_scores():
    ev = Evaluator.from_labels(["nDCG@1"], conventions="sklearn")
    ev.update(["q", "q"], labels=[0, 2], scores=[0.5, 0.5])
    assert ev.compute().loc["q", "nDCG@1"] == 0.5  # the tied group's mean gain
    ev = Evaluator.from_labels(["P@1"], conventions="pytrec_eval")
    ev.update(["q", "q"], labels=[0, 1], scores=[1.0, 1.0 + 1e-12])  # equal as float32
    assert ev.compute().loc["q", "P@1"] == 0.0
    ev = Evaluator.from_labels(["P@1"])
    ev.update(["q", "q"], labels=[0, 1], scores=[1.0, 1.0 + 1e-12])
    assert ev.compute().loc["q", "P@1"] == 1.0


@pytest.mark.parametrize("convention", ["trec_eval", "lightgbm", "xgboost", "sklearn"])
def test_equals_evaluate_groups_on_the_same_arrays(convention):
    rows = [r for r in make_rows(5) if r[1] >= 0]  # evaluate_groups refuses labels < 0
    measures = measures_for(convention, full=False)[:4]
    q = np.array([r[0] for r in rows], dtype=object)
    y = np.array([r[1] for r in rows], dtype=float)
    s = np.array([r[2] for r in rows])
    want = rankeval.evaluate_groups(y, s, q, measures, group_kind="ids", conventions=convention)
    ev = Evaluator.from_labels(measures, conventions=convention)
    ev.update(q[:20], labels=y[:20], scores=s[:20])
    ev.update(q[20:], labels=y[20:], scores=s[20:])
    pd.testing.assert_frame_equal(ev.compute(), want, check_exact=False, rtol=0, atol=1e-15)


def test_negative_labels_are_judged_not_relevant_with_gain_zero():
    ev = Evaluator.from_labels(["nDCG@2", "P@2", "Judged@2"], conventions="lightgbm")
    ev.update(["q"] * 3, labels=[-1, 2, 0], scores=[3.0, 2.0, 1.0])
    same(ev.compute(), oracle([("q", -1, 3.0), ("q", 2, 2.0), ("q", 0, 1.0)],
                              ["nDCG@2", "P@2", "Judged@2"], "lightgbm"))  # fmt: skip
    # not relevant, gain 0, and unjudged for Judged@k, as trec_eval reads a negative grade
    assert ev.compute().loc["q"].tolist() == [1 / np.log2(3), 0.5, 0.5]
    none = Evaluator.from_labels(["nDCG@2", "AP"], conventions="lightgbm")
    none.update(["q"] * 2, labels=[-1, 0], scores=[1.0, 2.0])
    assert none.compute().loc["q"].tolist() == [1.0, 1.0]  # LightGBM's 1 for such a query
    none = Evaluator.from_labels(["nDCG@2", "AP"])
    none.update(["q"] * 2, labels=[-1, 0], scores=[1.0, 2.0])
    assert none.compute().loc["q"].tolist() == [0.0, 0.0]


def test_arrays_of_any_kind_and_integer_query_ids():
    pa = pytest.importorskip("pyarrow")
    ev = Evaluator.from_labels(["nDCG@5", "AP"])
    ev.update(np.array([3, 3, 1]), labels=np.array([1, 0, 2], dtype=np.int8),
              scores=np.array([0.1, 0.2, 0.3], dtype=np.float32))  # fmt: skip
    ev.update(pa.array([1, 3]), labels=pa.array([0.5, 2.0]), scores=pd.Series([0.9, 0.4]))
    rows = [(3, 1, float(np.float32(0.1))), (3, 0, float(np.float32(0.2))),
            (1, 2, float(np.float32(0.3))), (1, 0.5, 0.9), (3, 2.0, 0.4)]  # fmt: skip
    got = ev.compute()
    assert got.index.tolist() == [1, 3] and got.index.dtype == np.int64
    same(got, oracle(rows, ["nDCG@5", "AP"], "trec_eval"))
    ev.update([], labels=[], scores=[])  # an empty batch changes nothing
    same(ev.compute(), got, exact=True)


# --- the state: cut back to the deepest cut-off where that is exact ---------------------


@pytest.mark.parametrize(
    ("measures", "options", "depth"),
    [
        (["P@5", "nDCG@10"], {}, 10),
        (["P@5", "nDCG@10"], {"conventions": "lightgbm"}, 10),
        (["P@5", "nDCG@10"], {"conventions": "pytrec_eval"}, 10),
        (["P@5", "nDCG@10"], {"conventions": "lightgbm", "gain": (0, 1, 3)}, 10),
        (["P@5", "AP"], {}, None),  # AP reads the whole ranking
        (["nDCG@5"], {"conventions": "sklearn"}, None),  # a tied group crosses the cut
        (["P@5"], {"judged_only": True}, None),  # labels < 0 leave the ranking
        (["P@5"], {"max_docs": 50}, None),
        (["nDCG@5"], {"conventions": "lightgbm", "gain": (1, 1, 3)}, None),  # gain of 0
        (["nDCG(gains={0:1,1:2})@5"], {}, None),
    ],
)
def test_depth_is_set_only_where_dropping_rows_is_exact(measures, options, depth):
    assert Evaluator.from_labels(measures, **options).depth == depth


def test_rows_below_the_cut_with_labels_up_to_0_are_dropped():
    rng = np.random.default_rng(3)
    rows = [(f"q{i % 3}", int(rng.random() < 0.05) * int(rng.integers(1, 4)) - (i % 7 == 0),
             float(np.round(rng.normal(), 1))) for i in range(3000)]  # fmt: skip
    measures = ["P@5", "nDCG@10", "AP@10", "R@10", "RR@10"]
    ev = feed(Evaluator.from_labels(measures), rows, range(0, 3000, 100))
    positives = sum(r[1] > 0 for r in rows)
    assert ev.depth == 10 and ev.rows <= 100 + 3 * 10 + positives < 400
    same(ev.compute(), oracle(rows, measures, "trec_eval"))


def test_the_cut_ranks_float32_ties_by_arrival():
    # 30 scores equal as 32-bit floats, rising as 64-bit ones: as float32 the top 5 are
    # rows 0-4 (label 0); cut by the 64-bit scores, rows 0-4 would be dropped
    rows = [("q", int(i >= 5), 1.0 + i * 1e-12) for i in range(30)]
    rows += [("q", 0, 0.5)] * 30  # below: dropped
    for preset, want in (("pytrec_eval", 0.0), ("trec_eval", 1.0)):
        ev = feed(Evaluator.from_labels(["P@5"], conventions=preset), rows, range(60))
        assert ev.rows < 60 and ev.compute().loc["q", "P@5"] == want
        same(ev.compute(), oracle(rows, ["P@5"], preset))
    # beyond float32's range scores become infinite and tie, without a warning
    rows = [("q", 0, 1e39), ("q", 1, 1e40)] + [("q", 0, 0.5)] * 30
    ev = feed(Evaluator.from_labels(["P@1"], conventions="pytrec_eval"), rows, range(32))
    assert ev.rows < 32 and ev.compute().loc["q", "P@1"] == 0.0


def test_one_measure_as_a_string_or_a_measure():
    one = rankeval.parse_measure("nDCG@3")
    for measures in ("nDCG@3", one, [one]):
        ev = Evaluator.from_labels(measures)
        ev.update(["q", "q"], labels=[0, 1], scores=[0.2, 0.1])
        assert ev.compute().columns.tolist() == ["nDCG@3"]
    ev = Evaluator({"q": {"a": 1}}, one)  # the qrels form too
    ev.update(["q"], ["a"], [1.0])
    assert ev.compute().loc["q", "nDCG@3"] == 1.0


def test_a_worker_s_evaluator_pickles_and_merges():
    import pickle

    rows = make_rows(8)
    measures = ["nDCG@10", "AP"]
    half = len(rows) // 2
    a = feed(Evaluator.from_labels(measures, conventions="xgboost"), rows[:half], [10])
    b = feed(Evaluator.from_labels(measures, conventions="xgboost"), rows[half:], [10])
    a = pickle.loads(pickle.dumps(a))
    a.merge(pickle.loads(pickle.dumps(b)))
    same(a.compute(), oracle(rows, measures, "xgboost"), exact=True)


# --- the forms do not mix; bad input is refused -----------------------------------------


def test_the_two_forms_do_not_mix():
    with pytest.raises(TypeError, match="from_labels"):
        Evaluator(None, ["P@5"])
    labels = Evaluator.from_labels(["P@5"])
    with pytest.raises(TypeError, match="labels="):
        labels.update(["q", "q"], [1, 0], [0.5, 0.4])  # labels where doc ids go
    with pytest.raises(TypeError, match="labels=.*scores="):
        labels.update(["q"], labels=[1])
    qrels = Evaluator({"q": {1: 1}}, ["P@5"])
    with pytest.raises(TypeError, match="from_labels"):
        qrels.update(["q"], labels=[1], scores=[0.5])
    with pytest.raises(TypeError, match="doc_ids"):
        qrels.update(["q"], scores=[0.5])
    labels.update(["q"], labels=[1], scores=[0.5])
    qrels.update(["q"], [1], [0.5])
    for a, b in ((labels, qrels), (qrels, labels)):
        with pytest.raises(ValueError, match="one form"):
            a.merge(b)
    with pytest.raises(ValueError, match="itself"):
        labels.merge(labels)
    with pytest.raises(ValueError, match="same qrels, measures and conventions"):
        labels.merge(Evaluator.from_labels(["P@10"]))
    with pytest.raises(ValueError, match="same qrels, measures and conventions"):
        labels.merge(Evaluator.from_labels(["P@5"], conventions="lightgbm"))
    with pytest.raises(TypeError):
        labels.merge(object())
    assert labels.compute().loc["q", "P@5"] == 0.2


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"labels": [1, 0], "scores": [0.5]}, ValueError, "one length, got 3, 2, 1"),
        ({"labels": [1, float("nan"), 0]}, ValueError, r"labels\[1\] is nan"),
        ({"labels": [1, None, 0]}, TypeError, "labels must hold numbers"),
        ({"labels": ["1", "0", "2"]}, TypeError, "labels must hold numbers"),
        ({"labels": [True, False, True]}, TypeError, "labels must hold numbers"),
        ({"labels": "102"}, TypeError, "labels must be a 1-D array"),
        ({"labels": [[1, 0, 2]]}, ValueError, "labels must be 1-D"),
        ({"scores": [0.1, float("inf"), 0.3]}, ValueError, r"scores\[1\] is inf"),
        ({"scores": ["a", "b", "c"]}, TypeError, "scores must hold numbers"),
        ({"query_ids": ["q", 1, "q"]}, TypeError,
         r"query_ids\[1\]: ids must be all strings or all integers"),
        ({"query_ids": [1.0, 2.0, 1.0]}, TypeError, r"query_ids\[0\]: ids must be strings or integers"),
        ({"query_ids": np.array([1.0, 2.0, 1.0])}, TypeError, "query_ids must hold strings or integers"),
        ({"query_ids": ["q", None, "q"]}, ValueError, r"query_ids\[1\] is missing"),
        ({"query_ids": "qqq"}, TypeError, "query_ids must be a sequence"),
    ],
)
def test_bad_batches_get_clear_errors(kwargs, error, message):
    ev = Evaluator.from_labels(["nDCG@5"])
    args = {"query_ids": ["q", "q", "r"], "labels": [1, 0, 2], "scores": [0.1, 0.2, 0.3],
            **kwargs}  # fmt: skip
    with pytest.raises(error, match=message):
        ev.update(args["query_ids"], labels=args["labels"], scores=args["scores"])
    assert ev.rows == 0  # nothing of a refused batch is kept


def test_errors_across_batches_and_options():
    ev = Evaluator.from_labels(["nDCG@5"])
    with pytest.raises(ValueError, match="no document yet"):
        ev.compute()
    ev.update(["q"], labels=[1], scores=[0.5])
    with pytest.raises(TypeError, match="query_ids of this batch are integers"):
        ev.update([7], labels=[1], scores=[0.5])
    # LightGBM's label_gain table: whole labels within the table, said at update()
    ev = Evaluator.from_labels(["nDCG@5"], conventions="lightgbm", gain=(0, 1, 3))
    with pytest.raises(ValueError, match=r"labels\[1\] is 3"):
        ev.update(["q", "q"], labels=[1, 3], scores=[0.5, 0.4])
    with pytest.raises(ValueError, match=r"labels\[0\] is 1.5"):
        ev.update(["q"], labels=[1.5], scores=[0.5])
    with pytest.raises(ValueError, match="ties='average'"):
        Evaluator.from_labels(["P@5"], conventions="sklearn")
    with pytest.raises(ValueError, match="diversity"):
        Evaluator.from_labels(["alpha-nDCG@5"])
    with pytest.raises(ValueError):
        Evaluator.from_labels(["nDCG@5"], conventions="trec")


# --- real peers: what LightGBM and XGBoost log while training a ranker -------------------

KS = (1, 3, 5, 10)


def _peer(module):
    """Import a peer library; skip without it, but fail in CI, which installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        message = f"{module} is not installed: pip install -r requirements-test.txt"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def _ltr_data(seed=1, n_queries=40, n_train=28):
    """Rows in which ties matter (two features of 3 values each: equal rows, equal
    scores, other labels); every 6th query has only label 0."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 14, size=n_queries)
    n = int(sizes.sum())
    x = rng.integers(0, 3, size=(n, 2)).astype(float)
    labels = np.clip(x[:, 0] + rng.integers(-1, 2, n), 0, 3).astype(float)
    starts = np.cumsum(sizes) - sizes
    for q in range(0, n_queries, 6):
        labels[starts[q] : starts[q] + sizes[q]] = 0
    train = np.repeat(np.arange(n_queries) < n_train, sizes)
    return ((x[train], labels[train], sizes[:n_train]),
            (x[~train], labels[~train], sizes[n_train:]))  # fmt: skip


def _evaluator_means(preset, y, scores, sizes, batch=17):
    """The validation rows fed in batches of ``batch`` rows, in the library's order,
    as a training loop would; the mean of each nDCG@k over queries."""
    qid = np.repeat(np.arange(sizes.size), sizes)
    ev = Evaluator.from_labels([f"nDCG@{k}" for k in KS], conventions=preset)
    for a in range(0, y.size, batch):
        ev.update(qid[a : a + batch], labels=y[a : a + batch], scores=scores[a : a + batch])
    means = ev.compute().mean()
    return {k: float(means[f"nDCG@{k}"]) for k in KS}


def test_lightgbm_logged_ndcg_equals_the_labels_evaluator():
    lgb = _peer("lightgbm")
    train, valid = _ltr_data()
    params = {
        "objective": "lambdarank", "metric": "ndcg", "eval_at": list(KS), "num_threads": 1,
        "deterministic": True, "force_row_wise": True, "seed": 0, "verbose": -1,
        "num_leaves": 4, "min_data_in_leaf": 5, "learning_rate": 0.3,
    }  # fmt: skip
    dtrain = lgb.Dataset(train[0], train[1], group=train[2])
    dvalid = lgb.Dataset(valid[0], valid[1], group=valid[2], reference=dtrain)
    logged = {}
    model = lgb.train(params, dtrain, 4, valid_sets=[dvalid],
                      callbacks=[lgb.record_evaluation(logged)])  # fmt: skip
    x, y, sizes = valid
    scores = model.predict(x, num_threads=1)
    assert np.unique(scores).size < scores.size / 4  # ties throughout: their order matters
    got = _evaluator_means("lightgbm", y, scores, sizes)
    for k in KS:
        assert got[k] == pytest.approx(logged["valid_0"][f"ndcg@{k}"][-1], abs=1e-6), k
    # the same rows in another order within each query: ties met otherwise, other values
    flip = np.concatenate([np.arange(a, b)[::-1] for a, b in
                           zip(np.cumsum(sizes) - sizes, np.cumsum(sizes), strict=True)])
    flipped = _evaluator_means("lightgbm", y[flip], scores[flip], sizes)
    assert any(abs(flipped[k] - logged["valid_0"][f"ndcg@{k}"][-1]) > 1e-3 for k in KS)
    # trec_eval's conventions (gain = label, 0 for a query without relevant rows) differ
    plain = _evaluator_means("trec_eval", y, scores, sizes)
    assert abs(plain[5] - logged["valid_0"]["ndcg@5"][-1]) > 1e-3


def test_xgboost_logged_ndcg_equals_the_labels_evaluator():
    xgb = _peer("xgboost")
    train, valid = _ltr_data(seed=2)
    names = [f"ndcg@{k}" for k in KS]
    params = {"objective": "rank:ndcg", "eval_metric": names, "nthread": 1, "seed": 0,
              "max_depth": 2, "eta": 0.3, "tree_method": "hist"}  # fmt: skip
    dtrain = xgb.DMatrix(train[0], train[1], group=train[2])
    dvalid = xgb.DMatrix(valid[0], valid[1], group=valid[2])
    logged = {}
    model = xgb.train(params, dtrain, 4, evals=[(dvalid, "valid")], evals_result=logged,
                      verbose_eval=False)  # fmt: skip
    got = _evaluator_means("xgboost", valid[1], model.predict(dvalid), valid[2])
    for k in KS:
        assert got[k] == pytest.approx(logged["valid"][f"ndcg@{k}"][-1], abs=1e-6), k
