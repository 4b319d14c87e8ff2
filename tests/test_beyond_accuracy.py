"""Beyond-accuracy measures and sampled metrics of rankeval.beyond: arithmetic expected
values, and the sampled Hit@k's mean against its hypergeometric closed form."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import hypergeom

from rankeval.beyond import (
    average_recommendation_popularity,
    catalogue_coverage,
    expected_exposure,
    expected_sampled_hit,
    full_ranks,
    group_exposure,
    intra_list_diversity,
    miscalibration,
    novelty,
    popularity_lift,
    position_exposure,
    rank_metrics,
    ranked_lists,
    sampled_ranks,
)

RUN = {"u1": ["a", "b", "c"], "u2": ["a", "d", "e"]}
POP = {"a": 8, "b": 4, "c": 2, "d": 1, "e": 1, "f": 1}


def test_ranked_lists_from_a_table_breaks_ties_by_doc_id_descending():
    table = pd.DataFrame({"query_id": ["u", "u", "u"], "doc_id": ["a", "c", "b"],
                          "score": [1.0, 2.0, 1.0]})
    assert ranked_lists(table) == {"u": ["c", "b", "a"]}
    with pytest.raises(ValueError, match="repeats"):
        ranked_lists({"u": ["a", "a"]})
    with pytest.raises(TypeError):
        ranked_lists([["a"]])


def test_coverage():
    assert catalogue_coverage(RUN, 10) == 5 / 10
    assert catalogue_coverage(RUN, list("abcdefghij"), k=1) == 1 / 10
    with pytest.raises(ValueError, match="not in the catalogue"):
        catalogue_coverage(RUN, ["a", "b"])


def test_novelty_is_mean_self_information():
    n = 8
    u1 = (0 + 1 + 2) / 3  # -log2(8/8), -log2(4/8), -log2(2/8)
    u2 = (0 + 3 + 3) / 3
    assert novelty(RUN, POP, n) == pytest.approx((u1 + u2) / 2, abs=1e-15)
    per = novelty(RUN, POP, n, per_user=True)
    assert per.to_dict() == {"u1": u1, "u2": u2}
    with pytest.raises(ValueError, match="popularity"):
        novelty({"u": ["z"]}, {"z": 0}, 8)


def test_intra_list_diversity_from_features_and_from_a_matrix():
    feats = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]}
    # cosine distances: ab = 1, ac = bc = 1 - 1/sqrt(2)
    expected = (1 + 2 * (1 - 1 / math.sqrt(2))) / 3
    assert intra_list_diversity({"u": ["a", "b", "c"]}, features=feats) == \
        pytest.approx(expected, abs=1e-15)
    d = pd.DataFrame([[0, 1, 2], [1, 0, 3], [2, 3, 0]], index=list("abc"),
                     columns=list("abc"), dtype=float)
    assert intra_list_diversity({"u": ["c", "a", "b"]}, distance=d) == 2.0
    assert intra_list_diversity({"u": ["c", "a", "b"]}, distance=d, k=2) == 2.0
    with pytest.raises(ValueError, match="two items"):
        intra_list_diversity({"u": ["a"]}, distance=d)
    with pytest.raises(ValueError, match="exactly one"):
        intra_list_diversity({"u": ["a", "b"]})
    with pytest.raises(ValueError, match="symmetric"):
        intra_list_diversity({"u": ["a", "b"]}, distance=d.T * 0 + np.triu(np.ones((3, 3))))


def test_popularity_measures():
    assert average_recommendation_popularity(RUN, POP) == ((8 + 4 + 2) / 3 + (8 + 1 + 1) / 3) / 2
    profiles = {"u1": ["d", "e"], "u2": ["f", "c"]}  # GAP = (1 + 1.5) / 2 = 1.25
    gap_l = ((8 + 4 + 2) / 3 + (8 + 1 + 1) / 3) / 2
    assert popularity_lift(RUN, profiles, POP) == pytest.approx((gap_l - 1.25) / 1.25, abs=1e-15)
    with pytest.raises(ValueError, match="no profile"):
        popularity_lift(RUN, {"u1": ["a"]}, POP)


def test_group_exposure_and_position_exposure():
    assert position_exposure(2).tolist() == [1.0, 1 / math.log2(3)]
    groups = {"a": "x", "b": "y", "c": "y", "d": "y", "e": "x", "f": "x"}
    table = group_exposure(RUN, groups, model="rbp", patience=0.5)
    # two lists; x = {a, e, f}: a at 1 twice, e at 3 once -> 2.25 / (2 * 3)
    # y = {b, c, d}: b at 2, c at 3, d at 2 -> 1.25 / (2 * 3)
    assert table.loc["x", "exposure"] == pytest.approx(2.25 / 6, abs=1e-15)
    assert table.loc["y", "exposure"] == pytest.approx(1.25 / 6, abs=1e-15)
    rel = {"a": 1, "b": 1, "c": 0.5, "d": 0.5, "e": 1, "f": 0}
    table = group_exposure(RUN, groups, relevance=rel, model="rbp")
    assert table.loc["y", "utility"] == pytest.approx(2 / 3, abs=1e-15)
    assert table.loc["x", "ratio"] == pytest.approx((2.25 / 6) / (2 / 3), abs=1e-15)
    with pytest.raises(ValueError, match="no group"):
        group_exposure(RUN, {"a": "x"})
    with pytest.raises(ValueError, match="model"):
        position_exposure(3, model="cascade")


def test_expected_exposure_of_deterministic_and_uniform_policies():
    rel = {"a": 1, "b": 1, "c": 0}
    # ideal policy: a, b share positions 1-2 (exposure 0.75 each), c gets 0.25
    det = expected_exposure([["a", "b", "c"]], rel, patience=0.5)
    assert det["target"].tolist() == [0.75, 0.75, 0.25]
    assert det["exposure"].tolist() == [1.0, 0.5, 0.25]
    assert det["loss"] == pytest.approx(0.125, abs=1e-15)
    both = expected_exposure([["a", "b", "c"], ["b", "a", "c"]], rel, patience=0.5)
    assert both["loss"] == pytest.approx(0.0, abs=1e-15)
    # the decomposition EE-L = EE-D - EE-R + |target|^2
    t2 = float((det["target"] ** 2).sum())
    assert det["loss"] == pytest.approx(det["disparity"] - det["relevance"] + t2, abs=1e-15)
    with pytest.raises(ValueError, match="no grade"):
        expected_exposure([["z"]], rel)


def test_miscalibration_by_hand():
    genres = {"a": ["drama"], "b": ["comedy"], "c": ["drama", "comedy"]}
    history = {"u": ["a", "a2"], "v": ["b"]}
    genres["a2"] = ["drama"]
    # u: p = drama 1; list [b]: q = comedy 1 -> q~(drama) = 0.01 -> KL = log(100)
    assert miscalibration({"u": ["b"]}, history, genres) == pytest.approx(math.log(100), abs=1e-12)
    # v: p = comedy 1; list [c]: q(comedy) = 0.5 -> q~ = 0.99*0.5 + 0.01 -> KL = -log(0.505)
    assert miscalibration({"v": ["c"]}, history, genres) == pytest.approx(-math.log(0.505), abs=1e-12)
    with pytest.raises(ValueError, match="no history"):
        miscalibration({"w": ["a"]}, history, genres)


def test_full_and_sampled_ranks():
    scores = np.array([[0.5, 0.9, 0.1, 0.5], [0.3, 0.2, 0.1, 0.0]])
    assert full_ranks(scores, [0, 0]).tolist() == [3, 1]  # the tie at 0.5 counts against
    s = sampled_ranks(scores, [0, 0], n_negatives=3)
    assert s.tolist() == [3, 1]  # all three others sampled: the full rank
    with pytest.raises(ValueError, match="n_negatives"):
        sampled_ranks(scores, [0, 0], n_negatives=4)
    assert rank_metrics([1, 2, 11], 10) == {"Hit@10": 2 / 3, "NDCG@10": (1 + 1 / math.log2(3)) / 3}


def test_sampled_hit_mean_matches_its_closed_form():
    rng = np.random.default_rng(7)
    n_users, n_items, m, k = 400, 300, 20, 3
    scores = rng.random((n_users, n_items))
    held = rng.integers(0, n_items, n_users)
    ranks = full_ranks(scores, held)
    closed = expected_sampled_hit(ranks, n_items, m, k)
    # the closed form, term by term, for the first user
    r = int(ranks[0])
    by_hand = sum(math.comb(r - 1, j) * math.comb(n_items - r, m - j)
                  for j in range(k)) / math.comb(n_items - 1, m)
    assert hypergeom.cdf(k - 1, n_items - 1, r - 1, m) == pytest.approx(by_hand, abs=1e-12)
    # Monte Carlo: mean over 200 seeds of the sampled Hit@k
    draws = [rank_metrics(sampled_ranks(scores, held, m, seed=s), k)[f"Hit@{k}"]
             for s in range(200)]
    se = np.std(draws, ddof=1) / np.sqrt(len(draws))
    assert abs(np.mean(draws) - closed) < 4 * se
    # sampling can only move the held-out item up
    assert (sampled_ranks(scores, held, m) <= ranks).all()
