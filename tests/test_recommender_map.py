"""The recommender MAP@k as a convention (issue 48): ``ap_denominator="min(k,R)"`` and
the presets ``recbole``, ``recommenders`` and ``mllib``.

Oracles, none of them rankeval: RecBole's ``MAP`` metric (recbole/evaluator/metrics.py,
``MAP.metric_info``) and Spark MLlib's ``RankingMetrics.meanAveragePrecisionAt``
(its ``averagePrecision(pred, lab, k)``), each written out as loops; values worked by
hand; and, where pyspark and a Java runtime are present, MLlib itself.
"""

from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval import Conventions
from rankeval.evaluation.conventions import PRESETS

RECOMMENDER_PRESETS = ("recbole", "recommenders", "mllib")


# --- the oracles, transcribed as loops ------------------------------------------------------


def recbole_map_at_k(hits: list[bool], n_positive: int, k: int) -> float:
    """RecBole's MAP@k of one user: ``pos_index`` (whether the item at each rank is a
    positive) and ``pos_len`` (the user's positives). Its code: ``pre`` = the
    precision at each rank, ``sum_pre`` = cumulative sum of ``pre * pos_index``,
    ``actual_len = min(pos_len, topk)``, ``ranges[i] = i + 1`` up to ``actual_len`` and
    ``actual_len`` after; MAP@k is ``sum_pre[k - 1] / ranges[k - 1]``."""
    depth = max(k, 1)
    pos_index = [bool(h) for h in hits[:depth]] + [False] * (depth - len(hits[:depth]))
    found, sum_pre = 0, []
    for i, hit in enumerate(pos_index):
        found += hit
        pre = found / (i + 1)
        sum_pre.append((sum_pre[-1] if sum_pre else 0.0) + pre * hit)
    actual_len = min(n_positive, depth)
    ranges = []
    for i in range(depth):
        ranges.append(i + 1 if i < actual_len else actual_len)
    if ranges[k - 1] == 0:  # no positive: RecBole leaves such users out; 0 here
        return 0.0
    return sum_pre[k - 1] / ranges[k - 1]


def mllib_average_precision_at(pred: list, lab: list, k: int) -> float:
    """Spark MLlib's ``averagePrecision(pred, lab, k)`` (RankingMetrics, Spark 3+):
    precision summed at each hit in the first ``min(k, pred.length)``, divided by
    ``min(labSet.size, k)``; 0 for an empty ground truth."""
    lab_set = set(lab)
    if not lab_set:
        return 0.0
    i, cnt, prec_sum = 0, 0, 0.0
    n = min(k, len(pred))
    while i < n:
        if pred[i] in lab_set:
            cnt += 1
            prec_sum += cnt / (i + 1)
        i += 1
    return prec_sum / min(len(lab_set), k)


def random_users(seed: int, n_users: int = 40):
    """{user: relevant items} and {user: ranked items}, with users whose relevant items
    outnumber k and users with fewer (each has one at least: a user with none is not
    in the judgments, and RecBole leaves such users out)."""
    rng = np.random.default_rng(seed)
    liked, ranked = {}, {}
    for u in range(n_users):
        items = [f"i{j}" for j in rng.permutation(50)]
        n_rel = int(rng.integers(1, 15))
        liked[f"u{u}"] = set(rng.choice(items, size=n_rel, replace=False).tolist())
        ranked[f"u{u}"] = items[: int(rng.integers(1, 25))]
    return liked, ranked


# --- by hand ------------------------------------------------------------------------------


def test_by_hand_values():
    # R = 4, the top 2 both relevant: 1 over min(2, 4) = 2, 1/2 over R = 4
    # R = 5, relevant at ranks 2 and 3 of k = 3: (1/2 + 2/3) / 3 and / 5
    liked = {"a": {"x", "y", "z", "w"}, "b": {"p", "q", "r", "s", "t"}}
    run = {"a": ["x", "y", "n"], "b": ["n", "p", "q"]}
    te = rankeval.evaluate(liked, run, ["AP@2", "AP@3"])
    rec = rankeval.evaluate(liked, run, ["AP@2", "AP@3"], conventions="recbole")
    assert te.loc["a", "AP@2"] == 0.5 and rec.loc["a", "AP@2"] == 1.0
    assert te.loc["b", "AP@3"] == pytest.approx((1 / 2 + 2 / 3) / 5, abs=1e-15)
    assert rec.loc["b", "AP@3"] == pytest.approx((1 / 2 + 2 / 3) / 3, abs=1e-15)
    assert round(rec.loc["b", "AP@3"], 6) == 0.388889
    assert round(te.loc["b", "AP@3"], 6) == 0.233333


def test_the_default_is_trec_evals_and_data_independent():
    assert Conventions().ap_denominator == "R"
    assert PRESETS["trec_eval"].ap_denominator == "R"
    for name in RECOMMENDER_PRESETS:
        preset = PRESETS[name]
        assert preset.ap_denominator == "min(k,R)"
        # the one convention they change
        assert preset == Conventions(ap_denominator="min(k,R)")


# --- against the oracles ------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 3, 10, 30])
def test_recbole_and_mllib_formulas(seed, k):
    liked, ranked = random_users(seed)
    name = f"AP@{k}"
    for preset in (*RECOMMENDER_PRESETS, None):
        kw = {"conventions": preset} if preset else {"ap_denominator": "min(k,R)"}
        got = rankeval.evaluate(liked, ranked, [name], **kw)[name]
        for user, items in ranked.items():
            hits = [item in liked[user] for item in items]
            want = recbole_map_at_k(hits, len(liked[user]), k)
            mllib = mllib_average_precision_at(items, sorted(liked[user]), k)
            assert want == pytest.approx(mllib, abs=1e-15)
            assert got[user] == pytest.approx(want, abs=1e-15), (preset, user)
    # trec_eval's: over R, smaller wherever R > k and a hit is found
    over_r = rankeval.evaluate(liked, ranked, [name])[name]
    capped = rankeval.evaluate(liked, ranked, [name], conventions="mllib")[name]
    assert (over_r <= capped).all()
    bigger = [u for u in ranked if len(liked[u]) > k and capped[u] > 0]
    assert all(over_r[u] < capped[u] for u in bigger)
    if k < 14:  # some user has more relevant items than k (at most 14 here)
        assert bigger
    else:  # R <= k for every user: min(k, R) = R
        pd.testing.assert_series_equal(over_r, capped)


def test_a_named_cap_is_kept_and_ap_without_a_cutoff_is_unchanged():
    liked, ranked = random_users(3)
    names = ["AP(cap=False)@5", "AP(cap=True)@5", "AP@5", "AP", "GMAP"]
    te = rankeval.evaluate(liked, ranked, names)
    for preset in RECOMMENDER_PRESETS:
        rec = rankeval.evaluate(liked, ranked, names, conventions=preset)
        pd.testing.assert_series_equal(rec["AP(cap=False)@5"], te["AP(cap=False)@5"])
        pd.testing.assert_series_equal(rec["AP(cap=True)@5"], te["AP(cap=True)@5"])
        pd.testing.assert_series_equal(rec["AP@5"], te["AP(cap=True)@5"], check_names=False)
        pd.testing.assert_series_equal(rec["AP"], te["AP"])
        pd.testing.assert_series_equal(rec["GMAP"], te["GMAP"])
    # AP(cap=False)@5 is its own spelling, kept as given (the default of cap is the
    # conventions' choice), and so is printed
    p = rankeval.plan(names, conventions="recbole")
    assert [str(m) for m in p.measures] == ["AP(cap=False)@5", "AP(cap=True)@5",
                                            "AP(cap=True)@5", "AP", "GMAP"]


def test_the_public_function_agrees():
    liked, ranked = random_users(4)
    got = rankeval.evaluate(liked, ranked, ["AP@7"], conventions="recommenders")["AP@7"]
    for user, items in ranked.items():
        hits = [int(item in liked[user]) for item in items]
        value = rankeval.average_precision(hits, k=7, n_relevant=len(liked[user]),
                                           cap_at_k=True)  # fmt: skip
        assert got[user] == value


def test_every_entry_point_takes_the_setting():
    liked, ranked = random_users(5, n_users=8)
    want = rankeval.evaluate(liked, ranked, ["AP@4"], conventions="recbole")
    kw = {"ap_denominator": "min(k,R)"}
    assert rankeval.evaluate(liked, ranked, ["AP@4"], **kw).equals(want)
    ev = rankeval.Evaluator(liked, ["AP@4"], **kw)
    ev.update([u for u, items in ranked.items() for _ in items],
              [i for items in ranked.values() for i in items],
              [-float(r) for items in ranked.values() for r in range(len(items))])
    got = ev.compute()
    users = [u for u in want.index if u in got.index]
    np.testing.assert_array_equal(got.loc[users, "AP@4"], want.loc[users, "AP@4"])
    # labels and scores: every row judged, so R is the user's relevant rows here
    labels = [1.0, 1.0, 1.0, 0.0, 1.0]
    scores = [0.9, 0.8, 0.1, 0.7, 0.2]
    groups = rankeval.evaluate_groups(labels, scores, [5], ["AP@2"], **kw)
    assert groups.iloc[0, 0] == 1.0
    groups = rankeval.evaluate_groups(labels, scores, [5], ["AP@2"], conventions="mllib")
    assert groups.iloc[0, 0] == 1.0
    assert rankeval.evaluate_groups(labels, scores, [5], ["AP@2"]).iloc[0, 0] == 0.5


def test_bad_values_and_plan_replace():
    with pytest.raises(ValueError, match="ap_denominator must be one of 'R', 'min"):
        Conventions(ap_denominator="min(k, R)")
    with pytest.raises(ValueError, match="ap_denominator"):
        rankeval.plan(["AP@5"]).replace(ap_denominator="min(k,R)")


def test_command_line(tmp_path, capsys):
    from rankeval.cli import main

    qrels = tmp_path / "qrels"
    qrels.write_text("u1 0 a 1\nu1 0 b 1\nu1 0 c 1\nu1 0 d 1\n")
    run = tmp_path / "run"
    run.write_text("u1 Q0 a 1 0.9 t\nu1 Q0 b 2 0.8 t\nu1 Q0 x 3 0.7 t\n")
    for options, value in (([], 0.5), (["--ap-denominator", "min(k,R)"], 1.0),
                           (["--conventions", "recbole"], 1.0)):  # fmt: skip
        assert main(["-m", "map_cut.2", *options, str(qrels), str(run)]) == 0
        out = capsys.readouterr().out.split()
        assert out[:2] == ["map_cut_2", "all"] and float(out[2]) == value


# --- MLlib itself ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spark_context():
    pytest.importorskip("pyspark", reason="MLlib's own MAP@k needs pyspark")
    if not shutil.which("java"):
        pytest.skip("MLlib's own MAP@k needs a Java runtime (the loops above still run)")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[1]")
        .appName("rankeval-mllib-map")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session.sparkContext
    session.stop()


def test_mllib_mean_average_precision_at(spark_context):
    from pyspark.mllib.evaluation import RankingMetrics

    liked, ranked = random_users(6, n_users=25)
    pairs = [(ranked[u], sorted(liked[u])) for u in ranked]
    metrics = RankingMetrics(spark_context.parallelize(pairs, 2))
    apart = []
    for k in (1, 3, 10):
        table = rankeval.evaluate(liked, ranked, [f"AP@{k}"], conventions="mllib")
        want = metrics.meanAveragePrecisionAt(k)
        assert table[f"AP@{k}"].mean() == pytest.approx(want, abs=1e-12), k
        over_r = rankeval.evaluate(liked, ranked, [f"AP@{k}"])[f"AP@{k}"].mean()
        apart.append(abs(over_r - want))
    # and trec_eval's AP@k is not MLlib's on these users (some have R > k)
    assert max(apart) > 1e-3
    # without a cut-off MLlib divides by R: rankeval's AP under every preset
    assert rankeval.evaluate(liked, ranked, ["AP"], conventions="mllib")["AP"].mean() == \
        pytest.approx(metrics.meanAveragePrecision, abs=1e-12)
