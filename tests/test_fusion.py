"""Run fusion and normalisation against ranx (the peer with the most fusion methods), by-hand
values, and the properties a fused run must have."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankeval import evaluate
from rankeval.fusion import FUSION_METHODS, NORMALIZATIONS, fuse, normalize

ranx = pytest.importorskip("ranx")


def _runs(seed: int, n_runs: int = 3, n_queries: int = 4, ties: bool = False):
    """Random runs over overlapping document pools; distinct scores unless ``ties``."""
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in range(n_queries):
            pool = [f"d{j}" for j in range(12)]
            size = int(rng.integers(1, 9))
            docs = rng.choice(pool, size=size, replace=False)
            scores = rng.normal(5.0, 3.0, size=size) if not ties else rng.integers(0, 3, size)
            run[f"q{q}"] = {str(d): float(s) for d, s in zip(docs, scores, strict=True)}
        runs.append(run)
    return runs


def _ranx_fused(runs, method, norm, params):
    ranx_runs = [ranx.Run({q: dict(sorted(docs.items(), key=lambda x: -x[1]))
                           for q, docs in run.items()}) for run in runs]
    out = ranx.fuse(ranx_runs, norm=norm, method=method, params=params or {})
    return {q: dict(docs) for q, docs in out.to_dict().items()}


def _as_dict(frame: pd.DataFrame):
    out: dict = {}
    for q, d, s in frame[["query_id", "doc_id", "score"]].itertuples(index=False):
        out.setdefault(q, {})[d] = s
    return out


RANX_NAMES = {"sum": "sum", "max": "max", "min": "min", "med": "med", "anz": "anz",
              "mnz": "mnz", "gmnz": "gmnz", "wsum": "wsum", "wmnz": "wmnz", "rrf": "rrf",
              "isr": "isr", "log_isr": "log_isr", "bordafuse": "bordafuse", "rbc": "rbc"}
PARAMS = {"gmnz": {"gamma": 0.5}, "wsum": {"weights": [0.2, 0.5, 0.3]},
          "wmnz": {"weights": [0.2, 0.5, 0.3]}, "rrf": {"k": 10}, "rbc": {"phi": 0.7}}


def test_every_method_is_compared_with_ranx():
    assert set(RANX_NAMES) == set(FUSION_METHODS)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("method", sorted(FUSION_METHODS))
def test_fusion_equals_ranx(method, seed):
    runs = _runs(seed)
    kind = FUSION_METHODS[method][0]
    params = PARAMS.get(method, {})
    ours = _as_dict(fuse(runs, method, **params))
    # ranx applies its default min-max to every method; on a rank method it changes nothing
    theirs = _ranx_fused(runs, RANX_NAMES[method], "min-max" if kind == "score" else None, params)
    assert ours.keys() == theirs.keys()
    for q in ours:
        assert ours[q].keys() == theirs[q].keys(), q
        for d in ours[q]:
            assert ours[q][d] == pytest.approx(theirs[q][d], rel=1e-12, abs=1e-12), (q, d)


@pytest.mark.parametrize("norm", NORMALIZATIONS)
def test_each_normalisation_equals_ranx(norm):
    runs = _runs(7)
    ours = _as_dict(fuse(runs, "sum", norm=norm))
    theirs = _ranx_fused(runs, "sum", norm, {})
    for q in ours:
        assert ours[q].keys() == theirs[q].keys()
        for d in ours[q]:
            assert ours[q][d] == pytest.approx(theirs[q][d], rel=1e-12, abs=1e-12), (q, d)


def test_rrf_by_hand():
    # a: ranks 1 and 2 -> 1/61 + 1/62; c: 3 and 1; b: 2 only; d: 3 only
    bm25 = {"q": {"a": 12.0, "b": 9.5, "c": 3.1}}
    dense = {"q": {"c": 0.91, "a": 0.85, "d": 0.40}}
    out = fuse([bm25, dense], "rrf")
    expected = {"a": 1 / 61 + 1 / 62, "c": 1 / 63 + 1 / 61, "b": 1 / 62, "d": 1 / 63}
    assert out["doc_id"].tolist() == ["a", "c", "b", "d"]
    assert dict(zip(out["doc_id"], out["score"], strict=True)) == pytest.approx(expected)
    assert out["rank"].tolist() == [1, 2, 3, 4]


def test_borda_by_hand():
    # 4 candidates; run 1 lists a, b, c (4, 3, 2 points; d unlisted: (4 - 3 + 1)/2 = 1);
    # run 2 lists c, a, d (4, 3, 2; b: 1)
    bm25 = {"q": {"a": 12.0, "b": 9.5, "c": 3.1}}
    dense = {"q": {"c": 0.91, "a": 0.85, "d": 0.40}}
    out = fuse([bm25, dense], "bordafuse")
    assert dict(zip(out["doc_id"], out["score"], strict=True)) == {"a": 7, "c": 6, "b": 4, "d": 3}


def test_ties_are_ranked_as_evaluate_ranks_them():
    # equal scores: document id descending (trec_eval), so RRF's ranks are b=1, a=2
    run1 = {"q": {"a": 1.0, "b": 1.0}}
    run2 = {"q": {"a": 1.0, "b": 1.0}}
    out = fuse([run1, run2], "rrf", k=0)
    assert dict(zip(out["doc_id"], out["score"], strict=True)) == {"b": 2.0, "a": 1.0}


def test_tied_inputs_give_the_same_fusion_whatever_the_input_order():
    runs = _runs(3, ties=True)
    shuffled = [{q: dict(reversed(list(docs.items()))) for q, docs in run.items()} for run in runs]
    for method in ("rrf", "bordafuse", "rbc", "isr"):
        a, b = fuse(runs, method), fuse(shuffled, method)
        pd.testing.assert_frame_equal(a, b)


def test_a_query_missing_from_one_run_counts_as_an_empty_list():
    run1 = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 1.0}}
    run2 = {"q1": {"b": 2.0}}
    out = fuse([run1, run2], "rrf", k=0)
    got = {(q, d): s for q, d, s in out[["query_id", "doc_id", "score"]].itertuples(index=False)}
    assert got == {("q1", "b"): 0.5 + 1.0, ("q1", "a"): 1.0, ("q2", "x"): 1.0}


def test_depth_cuts_each_run_before_fusing():
    run1 = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    run2 = {"q": {"c": 3.0, "b": 2.0, "a": 1.0}}
    out = fuse([run1, run2], "rrf", k=0, depth=1)
    assert dict(zip(out["doc_id"], out["score"], strict=True)) == {"a": 1.0, "c": 1.0}


def test_the_fused_run_is_evaluated_as_it_is():
    qrels = {"q": {"a": 1, "c": 1, "d": 0}}
    bm25 = {"q": {"a": 12.0, "b": 9.5, "c": 3.1}}
    dense = {"q": {"c": 0.91, "a": 0.85, "d": 0.40}}
    fused = fuse({"bm25": bm25, "dense": dense}, "rrf")
    table = evaluate(qrels, fused, ["P@2", "AP"])
    assert table.loc["q", "P@2"] == 1.0
    assert table.loc["q", "AP"] == 1.0


def test_normalize_min_max_by_hand():
    out = normalize({"q": {"a": 3.0, "b": 1.0, "c": 2.0}}, "min-max")
    assert out["doc_id"].tolist() == ["a", "c", "b"]
    assert out["score"].tolist() == [1.0, 0.5, 0.0]


@pytest.mark.parametrize("bad, message", [
    (dict(runs=[{"q": {"a": 1.0}}], method="rrf"), "at least two runs"),
    (dict(method="combsum"), "method must be one of"),
    (dict(method="rrf", norm="min-max"), "combines ranks"),
    (dict(method="sum", norm="l2"), "norm must be one of"),
    (dict(method="wsum"), "needs weights"),
    (dict(method="wsum", weights=[1.0]), "one per run"),
    (dict(method="sum", k=10), "does not read k"),
    (dict(method="rbc", phi=1.0), "strictly between 0 and 1"),
    (dict(method="rrf", depth=0), "depth must be a positive integer"),
])
def test_bad_requests_are_refused_with_a_reason(bad, message):
    kwargs = {"runs": [{"q": {"a": 1.0, "b": 0.5}}, {"q": {"b": 1.0}}], **bad}
    with pytest.raises((ValueError, TypeError), match=message):
        fuse(**kwargs)


def test_max_normalisation_refuses_non_positive_scores():
    with pytest.raises(ValueError, match="not positive"):
        fuse([{"q": {"a": -1.0, "b": -2.0}}, {"q": {"a": 1.0}}], "sum", norm="max")


def test_mixed_id_types_are_refused():
    with pytest.raises(TypeError, match="different types"):
        fuse([{"q": {"a": 1.0}}, {1: {"a": 1.0}}], "rrf")
