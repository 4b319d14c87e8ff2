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


def _as_dict(frame):
    if isinstance(frame, dict):
        return frame
    out: dict = {}
    for q, d, s in frame[["query_id", "doc_id", "score"]].itertuples(index=False):
        out.setdefault(q, {})[d] = s
    return out


RANX_NAMES = {"sum": "sum", "max": "max", "min": "min", "med": "med", "anz": "anz",
              "mnz": "mnz", "gmnz": "gmnz", "wsum": "wsum", "wmnz": "wmnz", "rrf": "rrf",
              "isr": "isr", "log_isr": "log_isr", "bordafuse": "bordafuse", "rbc": "rbc",
              "posfuse": "posfuse", "probfuse": "probfuse", "bayesfuse": "bayesfuse"}
TRAINED = {"posfuse", "probfuse", "bayesfuse"}
PARAMS = {"gmnz": {"gamma": 0.5}, "wsum": {"weights": [0.2, 0.5, 0.3]},
          "wmnz": {"weights": [0.2, 0.5, 0.3]}, "rrf": {"k": 10}, "rbc": {"phi": 0.7}}


def test_every_method_is_compared_with_ranx():
    assert set(RANX_NAMES) == set(FUSION_METHODS)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("method", sorted(set(FUSION_METHODS) - TRAINED))
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


def _training(seed):
    rng = np.random.default_rng(seed)
    train_runs = _runs(seed + 100, n_queries=6)
    qrels = {f"q{q}": {f"d{j}": int(rng.integers(0, 3)) for j in range(12)} for q in range(6)}
    # the queries to fuse are other queries: ids t0.. so that none is a training query
    test_runs = [{q.replace("q", "t"): docs for q, docs in run.items()} for run in _runs(seed)]
    return qrels, train_runs, test_runs


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("method", sorted(TRAINED))
def test_trained_fusion_equals_ranx(method, seed):
    qrels, train_runs, test_runs = _training(seed)
    params = {"n_segments": 3} if method == "probfuse" else {}
    ours = _as_dict(fuse(test_runs, method, training=(qrels, train_runs), **params))
    ranx_qrels = ranx.Qrels({q: {d: g for d, g in docs.items() if g > 0}
                             for q, docs in qrels.items()})
    ranx_train = [ranx.Run(r) for r in train_runs]
    trainer = getattr(ranx.fusion, f"{method}_train")
    estimates = trainer(ranx_qrels, ranx_train, **params)
    key = "log_odds" if method == "bayesfuse" else "probs"
    theirs = _ranx_fused(test_runs, method, None, {key: estimates})
    assert ours.keys() == theirs.keys()
    for q in ours:
        assert ours[q].keys() == theirs[q].keys(), q
        for d in ours[q]:
            assert ours[q][d] == pytest.approx(theirs[q][d], rel=1e-12, abs=1e-12), (q, d)


def test_training_on_the_fused_queries_warns():
    from rankeval.fusion import TrainingQueriesWarning

    qrels, train_runs, _ = _training(0)
    with pytest.warns(TrainingQueriesWarning, match="also training queries"):
        fuse(train_runs, "posfuse", training=(qrels, train_runs))
    with pytest.raises(TypeError, match="training=\\(qrels, runs\\)"):
        fuse(train_runs, "posfuse")


def test_named_functions_are_fuse_with_the_method_fixed():
    from rankeval import fusion

    runs = _runs(5)
    for public in ("combsum", "combmnz", "combmax", "combmin", "combmed", "combanz", "rrf",
                   "isr", "log_isr", "bordafuse", "rbc"):
        method = {"combsum": "sum", "combmnz": "mnz", "combmax": "max", "combmin": "min",
                  "combmed": "med", "combanz": "anz"}.get(public, public)
        assert getattr(fusion, public)(runs) == fuse(runs, method), public
    assert fusion.wsum(runs, weights=[1, 2, 3]) == fuse(runs, "wsum", weights=[1, 2, 3])


def test_the_fused_run_comes_back_in_the_runs_form():
    runs = _runs(4)
    as_dict = fuse(runs, "rrf")
    assert isinstance(as_dict, dict)
    frames = [pd.DataFrame([(q, d, s) for q, docs in r.items() for d, s in docs.items()],
                           columns=["query_id", "doc_id", "score"]) for r in runs]
    as_frame = fuse(frames, "rrf")
    assert isinstance(as_frame, pd.DataFrame)
    from_frame = _as_dict(as_frame)
    assert from_frame.keys() == as_dict.keys()
    assert all(from_frame[q] == pytest.approx(as_dict[q]) for q in as_dict)
    # each query's documents best first in the dict
    for docs in as_dict.values():
        assert list(docs.values()) == sorted(docs.values(), reverse=True)


def test_tune_weights_reports_the_held_out_queries():
    from rankeval.fusion import TrainingQueriesWarning, tune_weights

    qrels = {f"q{q}": {f"d{j}": int(j % 3 == q % 3) for j in range(12)} for q in range(4)}
    runs = _runs(9)
    result = tune_weights(qrels, runs, "AP", train_queries=["q0", "q1"], step=0.5)
    assert len(result.weights) == 3 and sum(result.weights) == pytest.approx(1.0)
    # the grid: every weight vector on the simplex with step 0.5 (6 of them), best first
    assert len(result.grid) == 6
    assert result.train == result.grid["AP"].max()
    held = fuse([{q: r[q] for q in ("q2", "q3")} for r in runs], "wsum",
                weights=list(result.weights))
    held_qrels = {q: qrels[q] for q in ("q2", "q3")}
    assert result.held_out == pytest.approx(float(evaluate(held_qrels, held, ["AP"])["AP"].mean()))
    with pytest.warns(TrainingQueriesWarning, match="every query is a training query"):
        tune_weights(qrels, runs, "AP", train_queries=list(qrels), step=0.5)


def test_rrf_by_hand():
    # a: ranks 1 and 2 -> 1/61 + 1/62; c: 3 and 1; b: 2 only; d: 3 only
    bm25 = {"q": {"a": 12.0, "b": 9.5, "c": 3.1}}
    dense = {"q": {"c": 0.91, "a": 0.85, "d": 0.40}}
    out = fuse([bm25, dense], "rrf")["q"]
    expected = {"a": 1 / 61 + 1 / 62, "c": 1 / 63 + 1 / 61, "b": 1 / 62, "d": 1 / 63}
    assert list(out) == ["a", "c", "b", "d"]
    assert out == pytest.approx(expected)


def test_borda_by_hand():
    # 4 candidates; run 1 lists a, b, c (4, 3, 2 points; d unlisted: (4 - 3 + 1)/2 = 1);
    # run 2 lists c, a, d (4, 3, 2; b: 1)
    bm25 = {"q": {"a": 12.0, "b": 9.5, "c": 3.1}}
    dense = {"q": {"c": 0.91, "a": 0.85, "d": 0.40}}
    assert fuse([bm25, dense], "bordafuse")["q"] == {"a": 7, "c": 6, "b": 4, "d": 3}


def test_ties_are_ranked_as_evaluate_ranks_them():
    # equal scores: document id descending (trec_eval), so RRF's ranks are b=1, a=2
    run1 = {"q": {"a": 1.0, "b": 1.0}}
    run2 = {"q": {"a": 1.0, "b": 1.0}}
    assert fuse([run1, run2], "rrf", k=0)["q"] == {"b": 2.0, "a": 1.0}


def test_tied_inputs_give_the_same_fusion_whatever_the_input_order():
    runs = _runs(3, ties=True)
    shuffled = [{q: dict(reversed(list(docs.items()))) for q, docs in run.items()} for run in runs]
    for method in ("rrf", "bordafuse", "rbc", "isr"):
        a, b = fuse(runs, method), fuse(shuffled, method)
        assert a == b and all(list(a[q]) == list(b[q]) for q in a)


def test_a_query_missing_from_one_run_counts_as_an_empty_list():
    run1 = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 1.0}}
    run2 = {"q1": {"b": 2.0}}
    assert fuse([run1, run2], "rrf", k=0) == {"q1": {"b": 1.5, "a": 1.0}, "q2": {"x": 1.0}}


def test_depth_cuts_each_run_before_fusing():
    run1 = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    run2 = {"q": {"c": 3.0, "b": 2.0, "a": 1.0}}
    assert fuse([run1, run2], "rrf", k=0, depth=1)["q"] == {"c": 1.0, "a": 1.0}


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
