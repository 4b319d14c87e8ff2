"""Tests driven by the registry: every declared measure, through every path.

Each measure has one row below: how its public function is called on one query's
ranked grades (``ROWS``), or on one query's subtopic matrices (``SUBTOPIC_ROWS``).
A measure added to the registry without a row fails ``test_every_declaration_has_a_row``;
with its row, it goes through every test of this file: ``evaluate`` per query equals
the function, its names round-trip, its values stay in its declared bounds, and the
paths that must agree (chunked scoring, ``evaluate_groups``, a distributed partition,
the order of the input lines) do agree, exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankeval
import rankeval.evaluation.runs as runs
from rankeval.distributed.partition import evaluate_partition, union
from rankeval.measures import DECLARATIONS, parse_measure, parse_trec_eval, trec_eval_name


def _z(g):
    """Unjudged (NaN) as grade 0: what the measures that do not read judgments see."""
    return np.nan_to_num(g, nan=0.0)


# trec_eval's measures without a public function: one query, written out with loops as
# trec_eval 10's m_*.c files compute them (tests/test_trec_eval_quicktest.py checks the
# values against trec_eval's own expected output)


def _set_map(g, J):
    hits, n, r = (_z(g) >= 1).sum(), len(g), (J >= 1).sum()
    return hits * hits / (n * r) if n and r else 0.0


def _set_relative_p(g, J):
    hits, n, r = (_z(g) >= 1).sum(), len(g), (J >= 1).sum()
    return hits / min(n, r) if n and r else 0.0


def _bin_g(g, J):
    r = (J >= 1).sum()
    total, nonrel = 0.0, 0
    for x in _z(g):
        if x >= 1:
            total += 1 / np.log2(2 + nonrel)
        else:
            nonrel += 1
    return total / r if r else 0.0


def _rprec_mult(g, J, times):
    cut = int(times * (J >= 1).sum() + 0.9)
    return (_z(g)[:cut] >= 1).sum() / cut if cut else 0.0


def _ideal(J):
    return sorted((x for x in J if x > 0), reverse=True)


def _g(g, J):
    ideal = _ideal(J)
    if not sum(ideal):
        return 0.0
    total = cost = gained = 0.0
    for i, x in enumerate(np.maximum(_z(g), 0)):
        cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        gained += x
        if x:
            total += x / np.log2(2 + cost - gained)
    return total / sum(ideal)


def _cumulative_dcg(values, width):
    out, acc = [], 0.0
    for i in range(width):
        acc += (values[i] if i < len(values) else 0.0) / np.log2(i + 2)
        out.append(acc)
    return out


def _ndcg_rel(g, J):
    gains, ideal = list(np.maximum(_z(g), 0)), _ideal(J)
    width = max(len(gains), len(ideal)) + 2
    dcg, idcg = _cumulative_dcg(gains, width), _cumulative_dcg(ideal, width)
    total = sum(dcg[i] / idcg[i] for i, x in enumerate(gains) if x > 0)
    found = sum(1 for x in gains if x > 0)
    total += (len(ideal) - found) * (dcg[-1] / idcg[-1] if idcg[-1] > 0 else 0.0)
    return total / max(len(ideal), 1) if total > 0 else 0.0


def _rndcg(g, J):
    gains, ideal = list(np.maximum(_z(g), 0)), _ideal(J)
    width = max(len(gains), len(ideal)) + 2
    dcg, idcg = _cumulative_dcg(gains, width), _cumulative_dcg(ideal, width)
    padded = ideal + [0.0] * (width - len(ideal))
    total, count = 0.0, 0
    for i in range(1, len(ideal) + 1):  # where the ideal gain changes, the nDCG above
        if padded[i] != padded[i - 1] and idcg[i - 1] > 0:
            total += dcg[i - 1] / idcg[i - 1]
            count += 1
    if len(gains) > len(ideal) + 1 and idcg[-1] > 0:
        total += dcg[-1] / idcg[-1]
        count += 1
    return total / count if (J >= 1).sum() and count else 0.0


# name -> (spelling, call): call(f, g, J) is the value of the measure's public function
# ``f`` for a query whose ranked grades are ``g`` (NaN: unjudged) and whose judged grades
# (every one, retrieved or not) are ``J``; R = J >= 1 counts the relevant documents
ROWS = {
    "P": ("P@3", lambda f, g, J: f(_z(g), 3)),
    "R": ("R@3", lambda f, g, J: f(_z(g), 3, n_relevant=(J >= 1).sum())),
    "Hits": ("Hits@3", lambda f, g, J: f(_z(g), 3)),
    "Success": ("Success@3", lambda f, g, J: f(_z(g), 3)),
    "AP": ("AP", lambda f, g, J: f(_z(g), n_relevant=(J >= 1).sum())),
    "RR": ("RR", lambda f, g, J: f(_z(g))),
    "nDCG": ("nDCG@5", lambda f, g, J: f(_z(g), 5, ideal=J)),
    "DCG": ("DCG@5", lambda f, g, J: f(_z(g), 5)),
    "ERR": ("ERR@5", lambda f, g, J: f(_z(g), 5, max_grade=4)),
    "RBP": ("RBP(p=0.7)@5", lambda f, g, J: f((_z(g) >= 1).astype(float), 5, p=0.7)),
    "AR": ("AR", lambda f, g, J: f(_z(g), n_relevant=(J >= 1).sum())),
    "GAP": ("GAP", lambda f, g, J: f(
        _z(g), max_grade=4, grade_counts=np.bincount(J.astype(int), minlength=5)[1:])),
    "MR": ("MR@10", lambda f, g, J: f(_z(g), 10, n_relevant=(J >= 1).sum())),
    "FRP": ("FRP@10", lambda f, g, J: f(_z(g), 10)),
    "Rprec": ("Rprec", lambda f, g, J: f(g, n_relevant=(J >= 1).sum())),
    "Bpref": ("Bpref", lambda f, g, J: f(
        g, n_relevant=(J >= 1).sum(), n_nonrelevant=(J < 1).sum())),
    "IPrec": ("IPrec@0.2", lambda f, g, J: f(g, 0.2, n_relevant=(J >= 1).sum())),
    "11pt_avg": ("11pt_avg", lambda f, g, J: f(g, n_relevant=(J >= 1).sum())),
    "infAP": ("infAP", lambda f, g, J: f(g, n_relevant=(J >= 1).sum())),
    "Judged": ("Judged@5", lambda f, g, J: f(g, 5)),
    "SetP": ("SetP", lambda f, g, J: f(g)),
    "SetR": ("SetR", lambda f, g, J: f(g, n_relevant=(J >= 1).sum())),
    "SetF": ("SetF(beta=2)", lambda f, g, J: f(g, n_relevant=(J >= 1).sum(), beta=2)),
    "trec_rbp": ("trec_rbp@5", lambda f, g, J: f(g, 5, max_grade=J.max())),
    "trec_rbp_resid": ("trec_rbp_resid@5", lambda f, g, J: f(
        g, 5, max_grade=J.max(), return_residual=True)[1]),
    "GMAP": ("GMAP", lambda f, g, J: f(_z(g), n_relevant=(J >= 1).sum())),
    "GMBpref": ("GMBpref", lambda f, g, J: f(
        g, n_relevant=(J >= 1).sum(), n_nonrelevant=(J < 1).sum())),
    "RelP": ("RelP@3", lambda f, g, J: f(_z(g), 3, n_relevant=(J >= 1).sum())),
    "SetMAP": ("SetMAP", lambda f, g, J: _set_map(g, J)),
    "SetRelP": ("SetRelP", lambda f, g, J: _set_relative_p(g, J)),
    "Utility": ("Utility", lambda f, g, J: 2 * (_z(g) >= 1).sum() - len(g)),
    "binG": ("binG", lambda f, g, J: _bin_g(g, J)),
    "G": ("G", lambda f, g, J: _g(g, J)),
    "ndcg_rel": ("ndcg_rel", lambda f, g, J: _ndcg_rel(g, J)),
    "Rndcg": ("Rndcg", lambda f, g, J: _rndcg(g, J)),
    "NumNonRelJudgedRet": ("NumNonRelJudgedRet", lambda f, g, J: (
        (~np.isnan(g)) & (_z(g) < 1)).sum()),
    "RprecMult": ("RprecMult@0.5", lambda f, g, J: _rprec_mult(g, J, 0.5)),
    "Unj": ("Unj@5", lambda f, g, J: np.isnan(g[:5]).sum() / 5),
    "NumQ": ("NumQ", lambda f, g, J: 1),
    "NumRet": ("NumRet", lambda f, g, J: len(g)),
    "NumRel": ("NumRel", lambda f, g, J: (J >= 1).sum()),
    "NumRelRet": ("NumRelRet", lambda f, g, J: (_z(g) >= 1).sum()),
}  # fmt: skip

# name -> (spelling, call): call(f, run_matrix, judged_matrix) for the diversity measures
SUBTOPIC_ROWS = {
    "alpha-nDCG": ("alpha-nDCG@5", lambda f, r, j: f(r, 5, judgments=j)),
    "alpha-DCG": ("alpha-DCG@5", lambda f, r, j: f(r, 5, judgments=j,
                                                   normalization="ideal_ideal")),
    "ERR-IA": ("ERR-IA@5", lambda f, r, j: f(r, 5, judgments=j)),
    "nERR-IA": ("nERR-IA@5", lambda f, r, j: f(r, 5, judgments=j, normalization="ideal")),
}  # fmt: skip

RANKING = sorted(ROWS)
SUBTOPICS = sorted(SUBTOPIC_ROWS)


def test_every_declaration_has_a_row():
    assert set(DECLARATIONS) == set(ROWS) | set(SUBTOPIC_ROWS)
    assert all(DECLARATIONS[n].needs == "ranking" for n in ROWS)
    assert all(DECLARATIONS[n].needs == "subtopics" for n in SUBTOPIC_ROWS)


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
