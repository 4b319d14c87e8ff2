"""Tests driven by the registry: every declared measure, through every path.

Each measure has one row in ``tests/measure_table.py`` (the one table of measures
that this file, ``test_bitexact.py`` and ``test_common.py`` read): its spelling and its
value on one query's ranked grades, or on one query's subtopic matrices. A measure added
to the registry without a row fails ``test_every_declaration_has_a_row``;
with its row, it goes through every test of this file: ``evaluate`` per query equals
the function, its names round-trip, its values stay in its declared bounds, and the
paths that must agree (chunked scoring, ``evaluate_groups``, a distributed partition,
the order of the input lines) do agree, exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from measure_table import MEASURES

import rankeval
import rankeval.evaluation.runs as runs
from rankeval.distributed.partition import evaluate_partition, union
from rankeval.measures import DECLARATIONS, parse_measure, parse_trec_eval, trec_eval_name

# name -> (spelling, oracle) from the one table of measures (tests/measure_table.py):
# oracle(f, g, J) for one query's ranked grades, oracle(f, runs, judged) for one query's
# subtopic matrices (the diversity measures)
ROWS = {n: (r.spelling, r.oracle) for n, r in MEASURES.items()
        if n in DECLARATIONS and DECLARATIONS[n].needs == "ranking"}  # fmt: skip
SUBTOPIC_ROWS = {n: (r.spelling, r.oracle) for n, r in MEASURES.items()
                 if n in DECLARATIONS and DECLARATIONS[n].needs == "subtopics"}  # fmt: skip

RANKING = sorted(ROWS)
SUBTOPICS = sorted(SUBTOPIC_ROWS)


def test_every_declaration_has_a_row():
    # one row in tests/measure_table.py per declared measure, and no row of a measure
    # that is not declared
    assert set(DECLARATIONS) == set(MEASURES)


def test_every_metric_module_is_registered():
    # a metric module that declares measures but is missing from the registry's list
    # would be silently left out
    import importlib
    import pkgutil

    import rankeval.metrics
    from rankeval.measures import registry

    declaring = {
        name
        for _, name, _ in pkgutil.iter_modules(rankeval.metrics.__path__)
        if hasattr(importlib.import_module(f"rankeval.metrics.{name}"), "DECLARATIONS")
    }
    assert declaring == {m.__name__.rpartition(".")[2] for m in registry._MODULES}


def test_every_metric_function_is_public():
    functions = {d.function for d in DECLARATIONS.values() if d.function is not None}
    for f in functions:
        assert getattr(rankeval, f.__name__) is f
        assert f.__name__ in rankeval.__all__


# --- a collection: judged and unjudged documents, grades 0..4, distinct scores ------------


def _collection(seed=0, n_queries=12):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(int(rng.integers(4, 14)))]
        judged = rng.random(len(docs)) < 0.75
        grades = rng.integers(0, 5, len(docs))
        if q == 0:
            grades[:] = 0  # a query with no relevant document
        for d, j, g in zip(docs, judged, grades, strict=True):
            if j:
                qrels.append((f"q{q}", d, float(g)))
        retrieved = rng.permutation(len(docs))[: int(rng.integers(1, len(docs) + 1))]
        scores = rng.permutation(len(retrieved)).astype(float) + rng.random()
        run += [(f"q{q}", docs[i], s) for i, s in zip(retrieved, scores, strict=True)]
    qrels = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    return qrels, run


QRELS, RUN = _collection()


def _per_query(qrels, run):
    """query -> (ranked grades with NaN for unjudged, judged grades)."""
    out = {}
    for q, r in run.groupby("query_id"):
        judged = qrels[qrels["query_id"] == q].set_index("doc_id")["relevance"]
        ranked = r.sort_values("score", ascending=False, kind="stable")["doc_id"]
        g = judged.reindex(ranked).to_numpy(dtype=float)
        if len(judged):
            out[q] = (g, judged.to_numpy(dtype=float))
    return out


@pytest.mark.parametrize("name", RANKING)
def test_evaluate_per_query_equals_the_function(name):
    spelling, call = ROWS[name]
    m = parse_measure(spelling)
    got = rankeval.evaluate(QRELS, RUN, spelling)[spelling]
    for q, (g, J) in _per_query(QRELS, RUN).items():
        want = call(m.function, g, J)
        assert got[q] == pytest.approx(float(want), rel=1e-12, abs=1e-12), q


# --- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DECLARATIONS))
def test_names_round_trip(name):
    d = DECLARATIONS[name]
    spelling = (ROWS.get(name) or SUBTOPIC_ROWS[name])[0]
    m = parse_measure(spelling)
    assert m.declaration is d
    assert parse_measure(str(m)) == m  # the canonical spelling reads back
    suffix = "" if m.cutoff is None else f"@{m.cutoff}"
    for alias in d.aliases:
        assert parse_measure(alias + suffix).name == d.name
    if d.name.upper() != d.name and not any(
            o.name != d.name and o.name.upper() == d.name.upper() for o in DECLARATIONS.values()):
        # any letter case reads when no other measure shares the name in another case
        assert parse_measure(d.name.upper() + suffix).name == d.name
    te = trec_eval_name(m)
    if te is not None:  # trec_eval's spelling reads back, as a name and with -m
        assert parse_measure(te) == m
        assert parse_trec_eval(te) == [m]
    if d.trec_eval:
        assert parse_trec_eval(d.trec_eval)[0].name == d.name
    if d.trec_eval_cut and d.trec_eval_cuts:
        family = parse_trec_eval(d.trec_eval_cut)
        assert [x.cutoff for x in family] == list(d.trec_eval_cuts)


# --- values ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", RANKING)
def test_values_within_bounds(name):
    spelling = ROWS[name][0]
    low, high = DECLARATIONS[name].bounds
    for seed in range(3):
        qrels, run = _collection(seed)
        values = rankeval.evaluate(qrels, run, spelling)[spelling].to_numpy(dtype=float)
        assert np.all((values >= low) & (values <= high)), (values.min(), values.max())


@pytest.mark.parametrize("name", RANKING)
def test_chunked_equals_unchunked(name, monkeypatch):
    spelling = ROWS[name][0]
    whole = rankeval.evaluate(QRELS, RUN, spelling)
    monkeypatch.setattr(runs, "CELL_BUDGET", 20)  # blocks of one or two queries
    pd.testing.assert_frame_equal(rankeval.evaluate(QRELS, RUN, spelling), whole)


@pytest.mark.parametrize("name", RANKING)
def test_line_order_changes_nothing(name):
    spelling = ROWS[name][0]
    whole = rankeval.evaluate(QRELS, RUN, spelling)
    rng = np.random.default_rng(1)
    qrels = QRELS.iloc[rng.permutation(len(QRELS))]
    run = RUN.iloc[rng.permutation(len(RUN))]
    pd.testing.assert_frame_equal(rankeval.evaluate(qrels, run, spelling), whole)


@pytest.mark.parametrize("name", RANKING)
def test_a_partition_equals_evaluate(name):
    spelling = ROWS[name][0]
    whole = rankeval.evaluate(QRELS, RUN, spelling)
    part = evaluate_partition(union(QRELS, RUN), spelling).set_index("query_id")
    assert part.index.tolist() == whole.index.tolist()
    np.testing.assert_array_equal(
        part[spelling].to_numpy(dtype=float), whole[spelling].to_numpy(dtype=float)
    )


@pytest.mark.parametrize("name", RANKING)
def test_evaluate_groups_equals_evaluate(name):
    # complete judgments (every ranked document judged, every judged one ranked): the
    # arrays of evaluate_groups then hold all that evaluate reads
    spelling = ROWS[name][0]
    run = RUN.merge(QRELS, on=["query_id", "doc_id"])
    qrels = run[["query_id", "doc_id", "relevance"]]
    want = rankeval.evaluate(qrels, run[["query_id", "doc_id", "score"]], spelling)
    got = rankeval.evaluate_groups(
        run["relevance"], run["score"], run["query_id"].to_numpy(dtype=object), spelling
    )
    assert got.index.tolist() == want.index.tolist()
    np.testing.assert_array_equal(
        got[spelling].to_numpy(dtype=float), want[spelling].to_numpy(dtype=float)
    )


# --- the diversity measures ------------------------------------------------------------------


def _subtopic_collection(seed=0, n_queries=6):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(int(rng.integers(3, 9)))]
        qrels[f"q{q}"] = {
            s: {d: 1 for d in docs if rng.random() < 0.4} or {docs[0]: 1} for s in range(3)
        }
        run[f"q{q}"] = {d: float(rng.random()) for d in docs if rng.random() < 0.8} or {
            docs[-1]: 1.0
        }
    return qrels, run


def _matrices(qrels, run, q):
    """The run's and the judgments' (documents x subtopics) matrices of query q."""
    subtopics = sorted(qrels[q])
    judged = sorted({d for s in subtopics for d in qrels[q][s]}, reverse=True)
    ranked = sorted(run[q], key=lambda d: (-run[q][d], [-ord(c) for c in d]))

    def rows(docs):
        return np.array([[qrels[q][s].get(d, 0) for s in subtopics] for d in docs], float)

    return rows(ranked), rows(judged)


@pytest.mark.parametrize("name", SUBTOPICS)
def test_evaluate_diversity_per_query_equals_the_function(name):
    spelling, call = SUBTOPIC_ROWS[name]
    qrels, run = _subtopic_collection()
    got = rankeval.evaluate_diversity(qrels, run, [spelling])[spelling]
    f = parse_measure(spelling).function
    low, high = DECLARATIONS[name].bounds
    for q in got.index:
        r, j = _matrices(qrels, run, q)
        assert got[q] == pytest.approx(float(call(f, r, j)), rel=1e-12, abs=1e-12), q
        assert low <= got[q] <= high


@pytest.mark.parametrize("name", RANKING)
def test_command_line_prints_evaluate_and_aggregate(name, tmp_path, capsys):
    from rankeval.cli import main

    spelling = ROWS[name][0]
    qpath, rpath = tmp_path / "qrels", tmp_path / "run"
    rankeval.write_qrels(QRELS, qpath)
    rankeval.write_run(RUN, rpath)
    assert main(["-q", "--format", "tsv", "--digits", "17", "-m", spelling,
                 str(qpath), str(rpath)]) == 0  # fmt: skip
    out = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), sep="\t",
                      dtype={"query": str})  # fmt: skip
    out = out[out["measure"] == spelling].set_index("query")["value"]
    want = rankeval.evaluate(qpath, rpath, spelling)
    summary = rankeval.aggregate(want)[spelling]
    if DECLARATIONS[name].per_query:
        got = out.drop("all")
        assert got.index.tolist() == want.index.tolist()
        np.testing.assert_allclose(got.to_numpy(), want[spelling].to_numpy(), rtol=1e-15,
                                   atol=1e-16)  # fmt: skip
    assert out["all"] == pytest.approx(summary, rel=1e-15, abs=1e-16)
