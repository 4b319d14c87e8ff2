"""rankeval.ltr.evaluate_groups: worked cases, the nDCG@k that LightGBM and XGBoost log
while training a real ranker, scikit-learn and evaluate oracles, properties, errors;
evaluate's recommender inputs (id lists, sets, frames)."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval
from rankeval.ltr import CONVENTIONS, evaluate_groups, weighted_mean

L3 = math.log2(3)  # discount of rank 2
L4 = 2.0  # log2(4), discount of rank 3

# two queries of three rows and one of two, rows adjacent
LABELS = np.array([2, 0, 1, 0, 0, 0, 1, 3], dtype=float)
SCORES = np.array([0.1, 0.9, 0.5, 0.3, 0.2, 0.4, 0.7, 0.6])
SIZES = [3, 3, 2]


# --- worked cases, computed by hand -----------------------------------------------------


def test_lightgbm_convention_worked_by_hand():
    # LightGBM's ndcg: label_gain 2^l - 1, a query whose ideal DCG is 0 scores 1
    got = evaluate_groups(LABELS, SCORES, SIZES, ["nDCG@1", "nDCG@2", "nDCG"],
                          conventions="lightgbm")  # fmt: skip
    # query 0 ranks labels 0, 1, 2 (gains 0, 1, 3); ideal 2, 1, 0 (gains 3, 1, 0)
    q0 = [0 / 3, (1 / L3) / (3 + 1 / L3), (1 / L3 + 3 / L4) / (3 + 1 / L3)]
    # query 1: all labels 0 -> 1 at every cut-off
    # query 2 ranks labels 1, 3 (gains 1, 7); ideal 3, 1 (gains 7, 1)
    q2 = [1 / 7, (1 + 7 / L3) / (7 + 1 / L3), (1 + 7 / L3) / (7 + 1 / L3)]
    assert got.index.name == "group" and got.index.tolist() == [0, 1, 2]
    np.testing.assert_allclose(got.to_numpy(), [q0, [1, 1, 1], q2], rtol=1e-12)
    # query weights as LightGBM computes them: the mean weight of the query's rows
    rows = [1, 1, 4, 2, 2, 2, 0.5, 1.5]
    weighted = evaluate_groups(LABELS, SCORES, SIZES, "nDCG@2", conventions="lightgbm",
                               row_weights=rows)  # fmt: skip
    w = [2.0, 2.0, 1.0]
    assert weighted.attrs["weights"].tolist() == w
    want = (w[0] * q0[1] + w[1] * 1 + w[2] * q2[1]) / sum(w)
    assert weighted_mean(weighted)["nDCG@2"] == pytest.approx(want, rel=1e-12)


def test_xgboost_conventions_by_hand():
    # XGBoost's ndcg: 2^l - 1 (ndcg_exp_gain=True), an all-zero group scores 1; "ndcg-": 0
    plus = evaluate_groups(LABELS, SCORES, SIZES, "nDCG@2", conventions="xgboost")
    minus = evaluate_groups(LABELS, SCORES, SIZES, "nDCG@2", conventions="xgboost",
                            no_relevant=0)  # fmt: skip
    q0 = (1 / L3) / (3 + 1 / L3)
    assert plus["nDCG@2"].tolist() == pytest.approx([q0, 1.0, (1 + 7 / L3) / (7 + 1 / L3)])
    assert minus["nDCG@2"].tolist() == pytest.approx([q0, 0.0, (1 + 7 / L3) / (7 + 1 / L3)])
    # ndcg_exp_gain=False: the label itself is the gain
    linear = evaluate_groups(LABELS, SCORES, SIZES, "nDCG@2", conventions="xgboost",
                             gain="linear")  # fmt: skip
    assert linear["nDCG@2"][2] == pytest.approx((1 + 3 / L3) / (3 + 1 / L3))
    # group weights (one per group), as XGBoost takes them
    w = evaluate_groups(LABELS, SCORES, SIZES, "nDCG@2", conventions="xgboost",
                        weights=[1, 0, 3])  # fmt: skip
    assert weighted_mean(w)["nDCG@2"] == pytest.approx((q0 + 3 * plus["nDCG@2"][2]) / 4)


def test_trec_eval_convention_by_hand():
    got = evaluate_groups(LABELS, SCORES, SIZES, ["nDCG@2", "AP", "P@2", "RR"])
    # query 0: labels 0, 1, 2 in rank order; relevant at ranks 2 and 3
    assert got.loc[0].tolist() == pytest.approx(
        [(1 / L3) / (2 + 1 / L3), (1 / 2 + 2 / 3) / 2, 1 / 2, 1 / 2]
    )
    assert got.loc[1].tolist() == [0.0, 0.0, 0.0, 0.0]  # no relevant row: 0 everywhere
    lgb = evaluate_groups(LABELS, SCORES, SIZES, ["AP", "RR"], conventions="lightgbm")
    assert lgb.loc[1].tolist() == [1.0, 1.0]  # no_relevant reaches every mean measure


def test_label_gain_table_is_lightgbms_label_gain():
    table = [0, 1, 3, 7]  # LightGBM's default label_gain, cut to 4 labels
    a = evaluate_groups(LABELS, SCORES, SIZES, "nDCG@3", gain=table, conventions="lightgbm")
    b = evaluate_groups(LABELS, SCORES, SIZES, "nDCG@3", conventions="lightgbm")
    pd.testing.assert_frame_equal(a, b)
    flat = evaluate_groups(LABELS, SCORES, SIZES, "DCG@1", gain=[0, 5, 5, 5])
    assert flat["DCG@1"].tolist() == [0.0, 0.0, 5.0]
    # a measure that names its own gain keeps it
    own = evaluate_groups(LABELS, SCORES, SIZES, "DCG(gain='linear')@1", conventions="lightgbm")
    assert own.iloc[:, 0].tolist() == [0.0, 0.0, 1.0]


def test_ties_keep_row_order_or_are_averaged():
    labels, scores = [0, 1, 0], [1.0, 1.0, 1.0]
    first = evaluate_groups(labels, scores, [3], "DCG", group_kind="sizes")
    assert first["DCG"][0] == pytest.approx(1 / L3)  # row order: the relevant row is 2nd
    avg = evaluate_groups(labels, scores, [3], "DCG", group_kind="sizes", ties="average")
    assert avg["DCG"][0] == pytest.approx((1 + 1 / L3 + 1 / L4) / 3)


def test_query_ids_any_order_and_index():
    qid = np.array(["b", "a", "b", "a", "b", "c", "c", "a"])
    got = evaluate_groups(LABELS, SCORES, qid, ["nDCG", "NumRel"])
    assert got.index.name == "query_id" and got.index.tolist() == ["a", "b", "c"]
    # rows of query "a": 1, 3, 7 (labels 0, 0, 3) ... gathered in their order
    a = [LABELS[[1, 3, 7]], SCORES[[1, 3, 7]]]
    alone = evaluate_groups(*a, [3], ["nDCG", "NumRel"], group_kind="sizes")
    assert got.loc["a"].tolist() == alone.loc[0].tolist()
    assert got["NumRel"].dtype == np.int64 and got["NumRel"].tolist() == [1, 2, 1]
    ints = evaluate_groups(LABELS, SCORES, [10, 9, 10, 9, 10, 100, 100, 9], "nDCG")
    assert ints.index.dtype == np.int64 and ints.index.tolist() == [9, 10, 100]
    assert ints["nDCG"].tolist() == got["nDCG"].tolist()


def test_ambiguous_ones_need_group_kind():
    with pytest.raises(ValueError, match=r"groups of one row .* or one query with id 1"):
        evaluate_groups([1, 0], [0.5, 0.2], [1, 1], "nDCG")
    one = evaluate_groups([1, 0], [0.2, 0.5], [1, 1], "nDCG", group_kind="ids")
    two = evaluate_groups([1, 0], [0.2, 0.5], [1, 1], "nDCG", group_kind="sizes")
    assert one.index.tolist() == [1] and one["nDCG"][1] == pytest.approx(1 / L3)
    assert two["nDCG"].tolist() == [1.0, 0.0]


def test_labels_as_given_and_every_name_a_column():
    got = evaluate_groups(LABELS, SCORES, SIZES, ["MAP", "AP", "ndcg_cut_2", "nDCG@2"])
    assert got.columns.tolist() == ["MAP", "AP", "ndcg_cut_2", "nDCG@2"]
    assert got["MAP"].tolist() == got["AP"].tolist()
    assert got["MAP"].tolist() == evaluate_groups(LABELS, SCORES, SIZES, "AP")["AP"].tolist()


# --- oracles ----------------------------------------------------------------------------


def _groups(seed, n_groups=60, ties=True):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 25, size=n_groups)
    n = int(sizes.sum())
    labels = rng.choice(4, size=n, p=[0.55, 0.25, 0.15, 0.05]).astype(float)
    scores = rng.integers(0, 6, size=n).astype(float) if ties else rng.permutation(n) / n
    return labels, scores, sizes


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("k", [None, 1, 5, 30])
def test_agrees_with_sklearn_ndcg_score_per_group(seed, k):
    from sklearn.metrics import ndcg_score

    labels, scores, sizes = _groups(seed)
    name = "nDCG" if k is None else f"nDCG@{k}"
    got = evaluate_groups(labels, scores, sizes, name, conventions="sklearn")[name]
    starts = np.cumsum(sizes) - sizes
    want = [
        ndcg_score([labels[a : a + m]], [scores[a : a + m]], k=k, ignore_ties=False)
        for a, m in zip(starts, sizes, strict=True)
    ]
    np.testing.assert_allclose(got.to_numpy(), want, rtol=1e-12, atol=1e-15)
    # without ties, ignore_ties=True (sort only) gives the same as row order
    labels, scores, sizes = _groups(seed, ties=False)
    got = evaluate_groups(labels, scores, sizes, name, conventions="sklearn", ties="input")
    want = [
        ndcg_score([labels[a : a + m]], [scores[a : a + m]], k=k, ignore_ties=True)
        for a, m in zip(np.cumsum(sizes) - sizes, sizes, strict=True)
    ]
    np.testing.assert_allclose(got[name].to_numpy(), want, rtol=1e-12, atol=1e-15)


# --- the real peers: LightGBM and XGBoost train a tiny ranker and log their nDCG@k -------


def _peer(module):
    """Import a peer library; skip without it, but fail in CI, which installs it."""
    import importlib
    import os

    try:
        return importlib.import_module(module)
    except ImportError:
        message = f"{module} is not installed: pip install -r requirements-test.txt"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


KS = (1, 3, 5, 10)


def _ltr_data(seed=1, n_queries=40, n_train=28):
    """A few hundred rows in which ties matter. The two features take 3 values each, so
    a query holds duplicate rows (equal features, equal scores) with different labels;
    every 6th query has only label 0. Returns training and validation arrays."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 14, size=n_queries)
    n = int(sizes.sum())
    x = rng.integers(0, 3, size=(n, 2)).astype(float)
    labels = np.clip(x[:, 0] + rng.integers(-1, 2, n), 0, 3).astype(float)
    starts = np.cumsum(sizes) - sizes
    for q in range(0, n_queries, 6):
        labels[starts[q] : starts[q] + sizes[q]] = 0
    train = np.repeat(np.arange(n_queries) < n_train, sizes)
    return (x[train], labels[train], sizes[:n_train]), (x[~train], labels[~train],
                                                        sizes[n_train:])  # fmt: skip


def _reversed_within(values, sizes):
    """Each group's rows in reverse order: the same scores, ties met the other way."""
    return np.concatenate([part[::-1] for part in np.split(values, np.cumsum(sizes)[:-1])])


def _mean(labels, scores, sizes, measure, **options):
    return float(evaluate_groups(labels, scores, sizes, measure, **options)[measure].mean())


def _lightgbm(train, valid, *, rounds=4, weight=None, **extra):
    lgb = _peer("lightgbm")
    params = {
        "objective": "lambdarank", "metric": "ndcg", "eval_at": list(KS), "num_threads": 1,
        "deterministic": True, "force_row_wise": True, "seed": 0, "verbose": -1,
        "num_leaves": 4, "min_data_in_leaf": 5, "learning_rate": 0.3, **extra,
    }  # fmt: skip
    dtrain = lgb.Dataset(train[0], train[1], group=train[2])
    dvalid = lgb.Dataset(valid[0], valid[1], group=valid[2], weight=weight, reference=dtrain)
    logged = {}
    model = lgb.train(params, dtrain, rounds, valid_sets=[dvalid],
                      callbacks=[lgb.record_evaluation(logged)])  # fmt: skip
    return model, {k: logged["valid_0"][f"ndcg@{k}"][-1] for k in KS}


def _xgboost(train, valid, *, rounds=4, weight=None, minus=False, **extra):
    xgb = _peer("xgboost")
    names = [f"ndcg@{k}{'-' if minus else ''}" for k in KS]
    params = {"objective": "rank:ndcg", "eval_metric": names, "nthread": 1, "seed": 0,
              "max_depth": 2, "eta": 0.3, "tree_method": "hist", **extra}  # fmt: skip
    dtrain = xgb.DMatrix(train[0], train[1], group=train[2])
    dvalid = xgb.DMatrix(valid[0], valid[1], group=valid[2], weight=weight)
    logged = {}
    model = xgb.train(params, dtrain, rounds, evals=[(dvalid, "valid")], evals_result=logged,
                      verbose_eval=False)  # fmt: skip
    last = {k: logged["valid"][name][-1] for k, name in zip(KS, names, strict=True)}
    return model.predict(dvalid), last


def test_lightgbm_logged_ndcg_equals_evaluate_groups_ties_and_empty_queries_included():
    train, valid = _ltr_data()
    model, logged = _lightgbm(train, valid)
    x, y, sizes = valid
    scores = model.predict(x, num_threads=1)
    assert np.unique(scores).size < scores.size / 4  # tied scores throughout
    assert (np.bincount(np.repeat(np.arange(sizes.size), sizes), y) == 0).sum() >= 2
    for k in KS:
        got = _mean(y, scores, sizes, f"nDCG@{k}", conventions="lightgbm")
        assert got == pytest.approx(logged[k], abs=1e-6), k
    # the ties decide: met in the other order, the same scores give other values
    flipped = [_mean(_reversed_within(y, sizes), _reversed_within(scores, sizes), sizes,
                     f"nDCG@{k}", conventions="lightgbm") for k in KS]  # fmt: skip
    assert all(abs(a - logged[k]) > 1e-3 for a, k in zip(flipped, KS, strict=True))
    # and so does the rule for queries without a relevant row (1, not trec_eval's 0)
    zero = _mean(y, scores, sizes, "nDCG@5", conventions="lightgbm", no_relevant=0)
    assert zero < logged[5] - 0.1


def _library_weighted_mean(per_query, weights, labels, sizes, empty_value=1.0):
    """The weighted mean as LightGBM's and XGBoost's ndcg compute it: a query without a
    relevant row adds its value (1, or 0 for XGBoost's ndcg-) to the sum unweighted, but
    its weight still counts in the divisor (rank_metric.hpp; rank_metric.cc)."""
    values = per_query.iloc[:, 0].to_numpy()
    empty = np.bincount(np.repeat(np.arange(sizes.size), sizes), labels) == 0
    return ((weights * values)[~empty].sum() + empty_value * empty.sum()) / weights.sum()


def test_lightgbm_label_gain_and_row_weights_as_lightgbm_computes_them():
    train, valid = _ltr_data(seed=2)
    x, y, sizes = valid
    rows = np.random.default_rng(3).uniform(0.5, 2.0, size=y.size)
    linear = [0.0, 1.0, 2.0, 3.0]
    model, logged = _lightgbm(train, valid, weight=rows, label_gain=linear)
    scores = model.predict(x, num_threads=1)
    for k in KS:
        per_query = evaluate_groups(y, scores, sizes, f"nDCG@{k}", conventions="lightgbm",
                                    gain=linear, row_weights=rows)  # fmt: skip
        w = per_query.attrs["weights"].to_numpy()  # a query's mean row weight
        want = _library_weighted_mean(per_query, w, y, sizes)
        assert want == pytest.approx(logged[k], abs=1e-6), k
        if k == 5:  # weighted_mean weights the empty queries' 1 like any value
            assert abs(weighted_mean(per_query)[f"nDCG@{k}"] - logged[k]) > 1e-3
    unweighted = _mean(y, scores, sizes, "nDCG@5", conventions="lightgbm", gain=linear)
    assert abs(unweighted - logged[5]) > 1e-4  # the weights matter
    # without queries lacking a relevant row, weighted_mean is LightGBM's mean
    keep = np.repeat(np.bincount(np.repeat(np.arange(sizes.size), sizes), y) > 0, sizes)
    valid = (x[keep], y[keep], sizes[np.bincount(np.repeat(np.arange(sizes.size), sizes),
                                                 y) > 0])  # fmt: skip
    model, logged = _lightgbm(train, valid, weight=rows[keep], label_gain=linear)
    per_query = evaluate_groups(valid[1], model.predict(valid[0], num_threads=1), valid[2],
                                "nDCG@5", conventions="lightgbm", gain=linear,
                                row_weights=rows[keep])  # fmt: skip
    assert weighted_mean(per_query)["nDCG@5"] == pytest.approx(logged[5], abs=1e-6)


def test_lightgbm_scores_a_query_without_relevant_rows_one():
    train, valid = _ltr_data(seed=4)
    x, y, sizes = valid
    _, logged = _lightgbm(train, (x, np.zeros_like(y), sizes))
    assert all(v == 1.0 for v in logged.values())
    assert _mean(np.zeros_like(y), np.arange(y.size, dtype=float), sizes, "nDCG@3",
                 conventions="lightgbm") == 1.0  # fmt: skip


def test_xgboost_logged_ndcg_equals_evaluate_groups_ties_and_empty_queries_included():
    train, valid = _ltr_data()
    x, y, sizes = valid
    scores, logged = _xgboost(train, valid)
    _, logged_minus = _xgboost(train, valid, minus=True)
    assert np.unique(scores).size < scores.size / 4
    for k in KS:
        got = _mean(y, scores, sizes, f"nDCG@{k}", conventions="xgboost")
        assert got == pytest.approx(logged[k], abs=1e-6), k
        # ndcg@k-: a query without a relevant row scores 0
        got = _mean(y, scores, sizes, f"nDCG@{k}", conventions="xgboost", no_relevant=0)
        assert got == pytest.approx(logged_minus[k], abs=1e-6), k
        assert logged_minus[k] < logged[k] - 0.1
    flipped = [_mean(_reversed_within(y, sizes), _reversed_within(scores, sizes), sizes,
                     f"nDCG@{k}", conventions="xgboost") for k in KS]  # fmt: skip
    assert all(abs(a - logged[k]) > 1e-3 for a, k in zip(flipped, KS, strict=True))


def test_xgboost_linear_gain_and_group_weights():
    train, valid = _ltr_data(seed=5)
    x, y, sizes = valid
    weights = np.random.default_rng(6).uniform(0.5, 2.0, size=sizes.size)
    w32 = weights.astype(np.float32).astype(np.float64)  # XGBoost keeps float32 weights
    scores, logged = _xgboost(train, valid, weight=weights, ndcg_exp_gain=False)
    exp_scores, exp_logged = _xgboost(train, valid, weight=weights)
    for k in KS:
        per_query = evaluate_groups(y, scores, sizes, f"nDCG@{k}", conventions="xgboost",
                                    gain="linear", weights=weights)  # fmt: skip
        want = _library_weighted_mean(per_query, w32, y, sizes)
        assert want == pytest.approx(logged[k], abs=1e-6), k
        per_query = evaluate_groups(y, exp_scores, sizes, f"nDCG@{k}", conventions="xgboost",
                                    weights=weights)  # fmt: skip
        want = _library_weighted_mean(per_query, w32, y, sizes)
        assert want == pytest.approx(exp_logged[k], abs=1e-6), k
        assert abs(weighted_mean(per_query)[f"nDCG@{k}"] - exp_logged[k]) > 1e-3
    assert abs(_mean(y, exp_scores, sizes, "nDCG@5", conventions="xgboost")
               - exp_logged[5]) > 1e-3  # the weights matter  # fmt: skip


def test_xgboost_query_ids_and_all_zero_queries():
    # query ids instead of sizes; an evaluation set whose queries all lack a relevant row
    train, valid = _ltr_data(seed=7)
    x, y, sizes = valid
    xgb = _peer("xgboost")
    qid = np.repeat(np.arange(sizes.size) * 10 + 3, sizes)
    model = xgb.train({"objective": "rank:ndcg", "nthread": 1, "seed": 0, "max_depth": 2},
                      xgb.DMatrix(train[0], train[1], group=train[2]), 3)  # fmt: skip
    for name, labels in (("some", y), ("none", np.zeros_like(y))):
        dvalid = xgb.DMatrix(x, labels, qid=qid)
        scores = model.predict(dvalid)
        for minus in ("", "-"):
            metric = xgb.train({"objective": "rank:ndcg", "nthread": 1, "seed": 0,
                                "max_depth": 2, "eval_metric": f"ndcg@5{minus}"},
                               xgb.DMatrix(train[0], train[1], group=train[2]), 3,
                               evals=[(dvalid, name)], evals_result=(res := {}),
                               verbose_eval=False)  # fmt: skip
            assert np.array_equal(metric.predict(dvalid), scores)
            got = _mean(labels, scores, qid, "nDCG@5", conventions="xgboost",
                        no_relevant=0 if minus else 1)  # fmt: skip
            assert got == pytest.approx(res[name][f"ndcg@5{minus}"][-1], abs=1e-6)
            if name == "none":
                assert got == (0.0 if minus else 1.0)


MEASURES = ["nDCG@10", "nDCG(gain='exponential')@5", "AP", "AP@10", "P@5", "R@5", "RR",
            "ERR@10", "RBP(p=0.8)", "Rprec", "NumRel", "NumRelRet", "DCG@3"]  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_equals_evaluate_on_the_same_data_as_frames(seed):
    labels, scores, sizes = _groups(seed)
    qid = np.repeat(np.arange(sizes.size) * 3 + 5, sizes)
    doc = np.arange(labels.size)
    qrels = pd.DataFrame({"query_id": qid, "doc_id": doc, "relevance": labels})
    run = pd.DataFrame({"query_id": qid, "doc_id": doc, "score": scores})
    want = rankeval.evaluate(qrels, run, MEASURES, ties="input")
    got = evaluate_groups(labels, scores, qid, MEASURES)
    pd.testing.assert_frame_equal(got, want)
    by_sizes = evaluate_groups(labels, scores, sizes, MEASURES)
    np.testing.assert_array_equal(by_sizes.to_numpy(), want.to_numpy())


def test_large_groups_are_sorted_in_blocks(monkeypatch):
    import rankeval.evaluation.groups as ltr

    labels, scores, sizes = _groups(7, n_groups=40)
    want = evaluate_groups(labels, scores, sizes, ["nDCG@5", "AP"])
    monkeypatch.setattr(ltr, "_SORT_CELLS", 30)  # one block per few groups
    monkeypatch.setattr(ltr, "CELL_BUDGET", 50)
    pd.testing.assert_frame_equal(evaluate_groups(labels, scores, sizes, ["nDCG@5", "AP"]), want)


# --- properties -------------------------------------------------------------------------


@st.composite
def ltr_arrays(draw):
    sizes = draw(st.lists(st.integers(1, 8), min_size=1, max_size=6))
    n = sum(sizes)
    labels = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    scores = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return np.array(labels, float), np.array(scores, float), np.array(sizes)


@settings(max_examples=40)
@given(ltr_arrays(), st.randoms(use_true_random=False))
def test_shuffling_rows_changes_nothing_with_averaged_ties(data, random):
    labels, scores, sizes = data
    qid = np.repeat(np.arange(sizes.size), sizes)
    want = evaluate_groups(labels, scores, qid, ["nDCG", "nDCG@3", "DCG@2"], group_kind="ids",
                           ties="average")  # fmt: skip
    perm = np.array(random.sample(range(labels.size), labels.size))
    got = evaluate_groups(labels[perm], scores[perm], qid[perm], ["nDCG", "nDCG@3", "DCG@2"],
                          group_kind="ids", ties="average")  # fmt: skip
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12)


@settings(max_examples=40)
@given(ltr_arrays(), st.sampled_from(sorted(CONVENTIONS)))
def test_values_lie_in_the_unit_interval(data, convention):
    labels, scores, sizes = data
    got = evaluate_groups(labels, scores, sizes, ["nDCG@3", "nDCG"], group_kind="sizes",
                          conventions=convention)  # fmt: skip
    assert ((got >= 0) & (got <= 1 + 1e-12)).all().all()
    # a perfect model scores 1 on every query with a relevant row
    best = evaluate_groups(labels, labels, sizes, "nDCG", group_kind="sizes",
                           conventions=convention)  # fmt: skip
    has = np.bincount(np.repeat(np.arange(sizes.size), sizes), labels >= 1) > 0
    assert np.allclose(best["nDCG"].to_numpy()[has], 1.0)


# --- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        (([1, 0, 1], [0.1, 0.2], [3]), {}, ValueError, r"labels has 3 rows but scores has 2"),
        (
            ([1, 0, 1], [0.1, 0.2, 0.3], [2, 2]),
            {},
            ValueError,
            r"the group sizes sum to 4 but there are 3 rows",
        ),
        (([1, 0, 1], [0.1, 0.2, 0.3], [3, 0]), {}, ValueError, r"group size 1 is 0"),
        (
            ([1, 0, 1], [0.1, 0.2, 0.3], [2, 2]),
            {"group_kind": "ids"},
            ValueError,
            r"2 query ids for 3 rows",
        ),
        # query ids (rows not sorted by query) given as if they were sizes
        (
            ([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], [7, 3, 7, 3]),
            {"group_kind": "sizes"},
            ValueError,
            r"the group sizes sum to 20 but there are 4 rows",
        ),
        (
            ([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], ["a", "b"]),
            {},
            ValueError,
            r"group has 2 entries for 4 rows",
        ),
        (([1, 0], [0.1, float("nan")], [2]), {}, ValueError, r"scores\[1\] is nan"),
        (([1, np.inf], [0.1, 0.2], [2]), {}, ValueError, r"labels\[1\] is inf"),
        (([1, -1], [0.1, 0.2], [2]), {}, ValueError, r"labels\[1\] is -1: labels must be >= 0"),
        (
            ([1, 0], [0.1, 0.2], [1, 1]),
            {"group_kind": "sizes", "weights": [1, -2]},
            ValueError,
            r"weights\[1\] is -2: weights must be >= 0",
        ),
        (
            ([1, 0], [0.1, 0.2], [1, 1]),
            {"group_kind": "sizes", "weights": [0, 0]},
            ValueError,
            r"weights are all 0",
        ),
        (
            ([1, 0], [0.1, 0.2], [2]),
            {"weights": [1, 2]},
            ValueError,
            r"weights has 2 values for 1 queries",
        ),
        (
            ([1, 0], [0.1, 0.2], [2]),
            {"row_weights": [1]},
            ValueError,
            r"row_weights has 1 values for 2 rows",
        ),
        (
            ([1, 0], [0.1, 0.2], [2]),
            {"weights": [1], "row_weights": [1, 1]},
            ValueError,
            r"not both",
        ),
        (
            ([1, 0], [0.1, 0.2], [1.0, 1.0]),
            {"group_kind": "ids"},
            TypeError,
            r"query ids must be integers or strings, got dtype float64",
        ),
        (([1, 0], [0.1, 0.2], [2]), {"group_kind": "idz"}, ValueError, r"group_kind must be"),
        (([[1, 0]], [0.1, 0.2], [2]), {}, ValueError, r"labels must be 1-D"),
        ((["a", "b"], [0.1, 0.2], [2]), {}, TypeError, r"labels must hold numbers"),
        (([1, 0], [0.1, 0.2], 2), {}, TypeError, r"group must be an array"),
        (
            ([1, 0], [0.1, 0.2], [2]),
            {"conventions": "catboost"},
            ValueError,
            r"conventions must be one of 'trec_eval', 'pytrec_eval', 'lightgbm', 'xgboost', 'sklearn'",
        ),
        (
            ([1, 0], [0.1, 0.2], [2]),
            {"ties": "trec_eval"},
            ValueError,
            r"needs ids: use rankeval.evaluate",
        ),
        (
            ([1, 0], [0.1, 0.2], [2]),
            {"ties": "average", "measures": "AP"},
            ValueError,
            r"defined for nDCG and DCG only, not for AP",
        ),
        (
            ([1, 0], [0.1, 0.2], [2]),
            {"no_relevant": "one"},
            TypeError,
            r"no_relevant must be a number or None",
        ),
        (
            ([32, 0], [0.1, 0.2], [2]),
            {"conventions": "xgboost"},
            ValueError,
            r"xgboost with gain 2\^l - 1 takes labels up to 31",
        ),
        (
            ([3, 0], [0.1, 0.2], [2]),
            {"gain": [0, 1, 3]},
            ValueError,
            r"labels\[0\] is 3: with a label_gain table of 3 gains",
        ),
        (([1, 0], [0.1, 0.2], [2]), {"gain": "log"}, ValueError, r"gain must be 'linear'"),
        (
            ([1.5, 0], [0.1, 0.2], [2]),
            {"conventions": "lightgbm"},
            ValueError,
            r"labels\[0\] is 1.5: LightGBM's ranking metrics take whole-number labels",
        ),
        (([], [], []), {}, ValueError, r"empty"),
    ],
)
def test_bad_shapes_and_options_get_clear_errors(args, kwargs, error, message):
    kwargs = dict(kwargs)
    measures = kwargs.pop("measures", "nDCG")
    with pytest.raises(error, match=message):
        evaluate_groups(*args, measures, **kwargs)


def test_weighted_mean_errors_and_counts():
    frame = pd.DataFrame({"nDCG": [1.0, 0.0], "NumRel": [3, 4]})
    out = weighted_mean(frame, [3, 1])
    assert out.tolist() == [0.75, 7.0]  # counts are summed, as aggregate sums them
    with pytest.raises(ValueError, match=r"no weights"):
        weighted_mean(frame)
    with pytest.raises(ValueError, match=r"weights has 3 values for 2 rows"):
        weighted_mean(frame, [1, 2, 3])
    with pytest.raises(ValueError, match=r"weights\[0\] is nan"):
        weighted_mean(frame, [np.nan, 1])
    # aggregate's one NaN rule: a NaN makes the column's mean NaN
    assert np.isnan(weighted_mean(pd.DataFrame({"AP": [np.nan, 1.0]}), [1, 1])["AP"])
    keyed = weighted_mean(frame.set_axis(["a", "b"]), {"b": 1, "a": 3})
    assert keyed.tolist() == [0.75, 7.0]


# --- evaluate with a recommender's inputs (issue 14 tests) -------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_id_lists_and_dict_runs_give_identical_results(seed):
    rng = np.random.default_rng(seed)
    lists, scored, held_out, graded = {}, {}, {}, {}
    for u in range(40):
        items = [f"i{j}" for j in rng.choice(200, size=int(rng.integers(1, 30)), replace=False)]
        lists[f"u{u}"] = items
        scored[f"u{u}"] = {d: float(len(items) - j) for j, d in enumerate(items)}
        truth = {f"i{j}" for j in rng.choice(200, size=int(rng.integers(1, 12)), replace=False)}
        held_out[f"u{u}"] = truth
        graded[f"u{u}"] = dict.fromkeys(truth, 1)
    measures = ["nDCG@10", "R@10", "P@10", "AP", "RR", "NumRel", "Rprec"]
    want = rankeval.evaluate(graded, scored, measures)
    pd.testing.assert_frame_equal(rankeval.evaluate(held_out, lists, measures), want)
    pd.testing.assert_frame_equal(rankeval.evaluate(graded, lists, measures), want)
    # the same lists as a frame with a rank column (1 = best), columns renamed
    frame = pd.DataFrame(
        [(u, d, r) for u, items in lists.items() for r, d in enumerate(items, start=1)],
        columns=["user", "item", "position"],
    ).sample(frac=1.0, random_state=seed)
    truth = pd.DataFrame(
        [(u, d, 1) for u, items in held_out.items() for d in sorted(items)],
        columns=["user", "item", "rating"],
    )
    columns = {"query_id": "user", "doc_id": "item", "rank": "position", "relevance": "rating"}
    got = rankeval.evaluate(truth, frame, measures, columns=columns)
    assert got.index.name == "user"  # indexed by your name of the query column (issue 37)
    pd.testing.assert_frame_equal(got.rename_axis("query_id"), want)


def test_integer_ids_round_trip_through_evaluate_and_groups():
    labels, scores, sizes = _groups(11, n_groups=12)
    qid = np.repeat([3, 20, 100, 7, 1000, 55, 8, 9, 10, 11, 12, 2], sizes)
    frame = pd.DataFrame({"user": qid, "item": np.arange(labels.size), "pred": scores,
                          "rating": labels})  # fmt: skip
    columns = {"query_id": "user", "doc_id": "item", "score": "pred", "relevance": "rating"}
    df = rankeval.evaluate(frame, frame, ["nDCG@5", "AP"], columns=columns, ties="input")
    assert df.index.dtype == np.int64 and df.index.tolist() == sorted(set(qid.tolist()))
    assert df.index.name == "user"  # your name of the query column (issue 37)
    pd.testing.assert_frame_equal(evaluate_groups(labels, scores, qid, ["nDCG@5", "AP"]),
                                  df.rename_axis("query_id"))  # fmt: skip


def test_many_groups_with_rows_not_adjacent():
    # more groups than a 16-bit code holds: the general gathering path
    rng = np.random.default_rng(5)
    qid = np.repeat(np.arange(70_000), 2)
    labels = rng.integers(0, 2, qid.size).astype(float)
    scores = rng.random(qid.size)
    want = evaluate_groups(labels, scores, qid, ["nDCG", "RR"])
    perm = rng.permutation(qid.size)
    got = evaluate_groups(labels[perm], scores[perm], qid[perm], ["nDCG", "RR"])
    pd.testing.assert_frame_equal(got, want)
