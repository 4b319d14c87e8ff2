"""Every measure's per-query value is the same to the last bit, whatever it is scored with.

:func:`rankeval.evaluate` scores the queries in blocks, each a matrix padded to its
longest ranking; a reduction along a row whose grouping of terms depends on the row's
width (NumPy's pairwise ``sum``, a BLAS product) would give a query a value that moves
in its last bit when the same query sits in another block, is scored alone, in a
streamed batch, or next to a much longer query. These tests compare with ``==`` (no
tolerance; NaN equals NaN): every measure of the registry, on queries with ties,
unjudged documents, negative and graded grades, no relevant document, and empty
rankings.

The same under older CPU features (``NPY_DISABLE_CPU_FEATURES``) is CI's second pass.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from measure_table import MEASURES

import rankeval
from rankeval.evaluation.core import score_ranked
from rankeval.measures import DECLARATIONS, parse_measure
from rankeval.metrics.portable import row_sum
from rankeval.ranking import rank_run

# name -> spellings, from the one table of measures (tests/measure_table.py): without a
# cut-off (when allowed), shallow and deep cut-offs, and the parameters that change the
# kernel's path (graded gains, another threshold, rounding)
SPELLINGS = {n: r.spellings for n, r in MEASURES.items()
             if n in DECLARATIONS and DECLARATIONS[n].needs == "ranking"}  # fmt: skip
DIVERSITY = {n: r.spellings for n, r in MEASURES.items()
             if n in DECLARATIONS and DECLARATIONS[n].needs == "subtopics"}  # fmt: skip

RANKING = sorted(SPELLINGS)
#: tie-averaged (scikit-learn's) gains: the measures declared for ties="average"
AVERAGED = sorted(n for n, d in DECLARATIONS.items() if d.tie_averaging)
LONG = "zz_long"  # a query of LONG_DOCS documents: pads every block it joins
LONG_DOCS = 700


def test_every_declaration_is_covered():
    assert set(DECLARATIONS) == set(MEASURES)
    for name, spellings in {**SPELLINGS, **DIVERSITY}.items():
        assert all(parse_measure(s).name == name for s in spellings)


# --- a collection --------------------------------------------------------------------------


def _query(rng, n_docs, n_retrieved):
    """One query's judgments (some documents unjudged; grades -2..4) and run (ties)."""
    docs = [f"d{i}" for i in range(n_docs)]
    grades = rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3, 4], n_docs)
    judged = {d: float(g) for d, g in zip(docs, grades, strict=True) if rng.random() < 0.8}
    picked = rng.permutation(n_docs)[:n_retrieved]
    scores = rng.integers(0, max(n_retrieved // 2, 1) + 1, n_retrieved) / 4  # many ties
    return judged, {docs[i]: float(s) for i, s in zip(picked, scores, strict=True)}


def _collection(seed=0, n_queries=40, long=False):
    """qrels and run dicts; q00 has no relevant document, q01 is judged but absent from
    the run, q02's ranking is empty; rankings of 1 to 60 documents (with ``long``, one
    of LONG_DOCS)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        n_docs = int(rng.integers(1, 80))
        judged, ranking = _query(rng, n_docs, int(rng.integers(1, min(n_docs, 60) + 1)))
        if not judged:
            judged = {"d0": 1.0}
        if q == 0:
            judged = {d: min(g, 0.0) for d, g in judged.items()}
        qid = f"q{q:02d}"
        qrels[qid] = judged
        if q == 2:
            run[qid] = {}
        elif q != 1:
            run[qid] = ranking
    if long:
        qrels[LONG], run[LONG] = _query(rng, LONG_DOCS + 100, LONG_DOCS)
    return qrels, run


QRELS, RUN = _collection()
OPTIONS = {"missing": "zero"}


def _alone(qrels, run, q):
    """Query q's qrels and run only (an empty ranking when the run lacks it)."""
    return {q: qrels[q]}, {q: run.get(q, {})}


def _assert_same(got, want):
    """Equal values, NaN equal to NaN, no tolerance."""
    assert list(got.index) == list(want.index)
    assert list(got.columns) == list(want.columns)
    for c in want.columns:
        a, b = got[c].to_numpy(dtype=float), want[c].to_numpy(dtype=float)
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        if not same.all():
            i = int(np.flatnonzero(~same)[0])
            raise AssertionError(
                f"{c}, query {want.index[i]!r}: {a[i]!r} != {b[i]!r} "
                f"({int((~same).sum())} queries differ)"
            )


def _spellings(name):
    return SPELLINGS[name]


# --- (a) the whole run, and every query alone ------------------------------------------------


@pytest.mark.parametrize("name", RANKING)
def test_every_query_alone(name):
    measures = _spellings(name)
    whole = rankeval.evaluate(QRELS, RUN, measures, **OPTIONS)
    alone = pd.concat(
        [rankeval.evaluate(*_alone(QRELS, RUN, q), measures, **OPTIONS) for q in whole.index]
    )
    _assert_same(alone, whole)


# --- (b) blocks of any size ------------------------------------------------------------------


BIG = _collection(seed=1, n_queries=400)  # blocks of hundreds of queries, and of one


@pytest.mark.parametrize("name", RANKING)
def test_any_block_size(name):
    measures = _spellings(name)
    whole = rankeval.evaluate(*BIG, measures, **OPTIONS)
    ranked = rank_run(*BIG, **OPTIONS)
    parsed = [parse_measure(s) for s in measures]
    for cells in (1, 7, 64, 500, 5000, 1 << 40):
        values = score_ranked(parsed, ranked, ranked.threshold, max_cells=cells)
        frame = pd.DataFrame({s: values[m] for s, m in zip(measures, parsed, strict=True)},
                             index=pd.Index(ranked.query_ids, name="query_id"))  # fmt: skip
        _assert_same(frame, whole)


# --- (c) next to a much longer query ---------------------------------------------------------


@pytest.mark.parametrize("name", RANKING)
def test_next_to_a_long_query(name):
    measures = _spellings(name)
    whole = rankeval.evaluate(QRELS, RUN, measures, **OPTIONS)
    qrels, run = _collection(long=True)
    for start in range(3):  # three subsets, each with the long query
        keep = [q for q in sorted(QRELS)[start::3]] + [LONG]
        sub_q = {q: qrels[q] for q in keep}
        sub_r = {q: run[q] for q in keep if q in run}
        got = rankeval.evaluate(sub_q, sub_r, measures, **OPTIONS).drop(LONG)
        _assert_same(got, whole.loc[got.index])


# --- the other ways in: input order, a file streamed in batches, an Evaluator ----------------


@pytest.mark.parametrize("name", RANKING)
def test_evaluator_batches(name):
    measures = _spellings(name)
    whole = rankeval.evaluate(QRELS, RUN, measures)
    ev = rankeval.Evaluator(QRELS, measures)
    rows = [(q, d, s) for q, r in RUN.items() for d, s in r.items()]
    rng = np.random.default_rng(3)
    rows = [rows[i] for i in rng.permutation(len(rows))]
    for i in range(0, len(rows), 97):
        q, d, s = zip(*rows[i : i + 97], strict=True)
        ev.update(list(q), list(d), list(s))
    got = ev.compute()
    _assert_same(got, whole.loc[got.index])


@pytest.mark.parametrize("name", AVERAGED)
def test_tie_averaged(name):
    measures = [s for s in SPELLINGS[name] if "gains=" not in s]
    options = {**OPTIONS, "ties": "average"}
    whole = rankeval.evaluate(QRELS, RUN, measures, **options)
    alone = pd.concat(
        [rankeval.evaluate(*_alone(QRELS, RUN, q), measures, **options) for q in whole.index]
    )
    _assert_same(alone, whole)
    qrels, run = _collection(long=True)
    keep = sorted(QRELS)[::2] + [LONG]
    got = rankeval.evaluate({q: qrels[q] for q in keep}, {q: run[q] for q in keep if q in run},
                            measures, **options).drop(LONG)  # fmt: skip
    _assert_same(got, whole.loc[got.index])


# --- evaluate_groups (labels, scores, groups) ------------------------------------------------


def _groups_frame(qrels, run):
    """Rows of (group, label, score): every ranked document, unjudged and negative as 0."""
    rows = [(q, max(qrels[q].get(d, 0.0), 0.0), s) for q, r in run.items() for d, s in r.items()]
    return pd.DataFrame(rows, columns=["group", "label", "score"])


@pytest.mark.parametrize("convention", ["trec_eval", "lightgbm", "sklearn"])
def test_evaluate_groups(convention):
    measures = [s for n in ("nDCG", "DCG", "AP", "P", "RR", "ERR", "RBP", "MR") for s in
                SPELLINGS.get(n, []) if "gains=" not in s]  # fmt: skip
    if convention == "sklearn":
        measures = [s for s in measures if parse_measure(s).declaration.tie_averaging]

    def groups(frame):
        return rankeval.evaluate_groups(frame["label"], frame["score"],
                                        frame["group"].to_numpy(dtype=object), measures,
                                        conventions=convention)  # fmt: skip

    frame = _groups_frame(QRELS, RUN)
    whole = groups(frame)
    alone = pd.concat([groups(frame[frame["group"] == q]) for q in whole.index])
    _assert_same(alone, whole)
    qrels, run = _collection(long=True)
    wide = _groups_frame(qrels, run)
    keep = set(sorted(RUN)[1::2]) | {LONG}
    got = groups(wide[wide["group"].isin(keep)]).drop(LONG)
    _assert_same(got, whole.loc[got.index])


# --- the diversity measures ------------------------------------------------------------------


def _subtopics(seed=0, n_queries=30, long=False):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    sizes = [int(rng.integers(2, 60)) for _ in range(n_queries)]
    if long:
        sizes.append(LONG_DOCS)
    for q, n_docs in enumerate(sizes):
        qid = LONG if q == n_queries else f"q{q:02d}"
        docs = [f"d{i}" for i in range(n_docs)]
        n_sub = int(rng.integers(1, 9))
        qrels[qid] = {
            s: {d: 1 for d in docs if rng.random() < 0.3} or {docs[0]: 1} for s in range(n_sub)
        }
        run[qid] = {d: float(rng.integers(0, 20)) for d in docs if rng.random() < 0.8} or {
            docs[-1]: 1.0
        }
    return qrels, run


@pytest.mark.parametrize("name", sorted(DIVERSITY))
def test_diversity(name):
    measures = DIVERSITY[name]
    qrels, run = _subtopics()
    whole = rankeval.evaluate_diversity(qrels, run, measures)
    alone = pd.concat([rankeval.evaluate_diversity({q: qrels[q]}, {q: run[q]}, measures)
                       for q in whole.index])  # fmt: skip
    _assert_same(alone, whole)
    wide_q, wide_r = _subtopics(long=True)
    keep = sorted(qrels)[::3] + [LONG]
    got = rankeval.evaluate_diversity({q: wide_q[q] for q in keep}, {q: wide_r[q] for q in keep},
                                      measures).drop(LONG)  # fmt: skip
    _assert_same(got, whole.loc[got.index])


# --- the sum itself --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (3, 700), (255, 40), (256, 40), (2000, 9),
                                   (300, 3000), (5, 0), (0, 5)])  # fmt: skip
def test_row_sum_adds_in_order(shape):
    rng = np.random.default_rng(sum(shape))
    x = rng.random(shape) * rng.choice([0.0, 1.0, 1e-3, 1e3], shape)
    got = row_sum(x)
    assert got.dtype == np.float64 and got.shape == (shape[0],)
    want = [float(sum(row.tolist(), 0.0)) for row in x]  # Python adds left to right
    assert got.tolist() == want
    assert row_sum(np.pad(x, ((0, 0), (0, 13)))).tolist() == want  # padding adds nothing
    assert [row_sum(x[i : i + 1])[0] for i in range(shape[0])] == want  # each row alone


def test_row_sum_of_negative_zeros_is_zero():
    assert np.signbit(row_sum(np.array([[-0.0, -0.0]]))).tolist() == [False]
    assert np.signbit(row_sum(np.full((300, 2), -0.0))).sum() == 0
    with pytest.raises(ValueError, match="2-D"):
        row_sum(np.zeros(3))


# --- a guard: no kernel computes a value by BLAS or by NumPy's vector log/exp/power ---------

_VECTOR_MATH = {"log", "log2", "log10", "log1p", "exp", "exp2", "expm1", "power", "float_power",
                "dot", "einsum", "matmul", "inner", "vdot", "tensordot"}  # fmt: skip
#: (module, function) allowed to: ndeval's normaliser past 2**22 ranks (Euler-Maclaurin
#: on a smooth tail, reached only with alpha near 0 and a k in the millions)
_ALLOWED = {("diversity", "_tail")}


def _offences(path):
    import ast

    tree = ast.parse(path.read_text())
    found = []

    def visit(node, function, fallback):
        if isinstance(node, ast.FunctionDef) and function is None:  # the module's function
            function = node.name
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "each":
            for arg in node.args[2:]:  # the fallback of each(): only special values
                visit(arg, function, True)
            for arg in node.args[:2]:
                visit(arg, function, fallback)
            return
        bad = isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            bad |= getattr(node.func.value, "id", None) == "np" and node.func.attr in _VECTOR_MATH
        if bad and not fallback and (path.stem, function) not in _ALLOWED:
            found.append(f"{path.name}:{node.lineno} in {function}")
        for child in ast.iter_child_nodes(node):
            visit(child, function, fallback)

    visit(tree, None, False)
    return found


def test_no_blas_or_vector_math_in_the_kernels():
    # ``@`` and np.dot add in the BLAS kernel's order; NumPy's AVX-512 log2, log, exp and
    # power differ from the C library's in the last bit for some arguments. The kernels
    # use rankeval.metrics.portable's row_sum and each (log2, exp2) instead.
    from pathlib import Path

    import rankeval.metrics

    folder = Path(rankeval.metrics.__file__).parent
    found = [o for p in sorted(folder.glob("*.py")) if p.stem != "portable" for o in _offences(p)]
    assert not found, found
