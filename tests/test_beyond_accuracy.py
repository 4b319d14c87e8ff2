"""Beyond-accuracy measures and sampled metrics of rankeval.beyond: arithmetic expected
values, and the sampled Hit@k's mean against its hypergeometric closed form."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import hypergeom

import rankeval
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
    with pytest.raises(ValueError, match="repeats the item 'a'"):
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
    # the decomposition EE-L = EE-D - 2 EE-R + |target|^2
    t2 = float((det["target"] ** 2).sum())
    assert det["loss"] == pytest.approx(det["disparity"] - 2 * det["relevance"] + t2,
                                        abs=1e-15)
    # by hand: EE-R = 1 * 0.75 + 0.5 * 0.75 + 0.25 * 0.25 = 1.1875 (Diaz et al.'s
    # eps . eps*, not twice it); EE-D = 1 + 0.25 + 0.0625
    assert det["relevance"] == pytest.approx(1.1875, abs=1e-15)
    assert det["disparity"] == pytest.approx(1.3125, abs=1e-15)
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


def _expeval_transcription(samples, qrels, p):
    """Diaz et al.'s expeval (github.com/diazf/expeval: exposure.expected,
    exposure.target and the compute() of metrics.Disparity, Relevance and Difference),
    RBP user model, unnormalised, written out again here from its formulas."""
    run = {}
    for ranking in samples:  # exposure of base-0 rank i is p**i, averaged over samples
        for i, doc in enumerate(ranking):
            run[doc] = run.get(doc, 0.0) + p**i / len(samples)
    counts = {}
    for grade in qrels.values():
        counts[grade] = counts.get(grade, 0) + 1
    per_grade, above = {}, 0  # above: documents of a higher grade
    for grade in sorted(counts, reverse=True):
        m = counts[grade]
        per_grade[grade] = (p**above - p ** (above + m)) / (m * (1.0 - p))
        above += m
    target = {doc: per_grade[grade] for doc, grade in qrels.items()}
    disparity = sum(v * v for v in run.values())
    relevance = sum(target[d] * run[d] for d in set(target) & set(run))
    difference = sum((target.get(d, 0.0) - run.get(d, 0.0)) ** 2
                     for d in set(target) | set(run))
    return difference, disparity, relevance


def test_expected_exposure_matches_a_transcription_of_expeval():
    # regression: EE-R was reported as 2 eps . eps*, twice Diaz et al.'s value
    rng = np.random.default_rng(2020)
    for _ in range(200):
        n = int(rng.integers(2, 12))
        docs = [f"d{i}" for i in range(n)]
        qrels = {d: int(g) for d, g in zip(docs, rng.integers(0, 4, n), strict=True)}
        samples = []
        for _ in range(int(rng.integers(1, 15))):
            order = [docs[i] for i in rng.permutation(n)]
            samples.append(order[: int(rng.integers(1, n + 1))])  # prefixes, too
        p = float(rng.uniform(0.05, 0.95))
        ee = expected_exposure(samples, qrels, patience=p)
        loss, disparity, relevance = _expeval_transcription(samples, qrels, p)
        assert ee["loss"] == pytest.approx(loss, rel=1e-12, abs=1e-14)
        assert ee["disparity"] == pytest.approx(disparity, rel=1e-12, abs=1e-14)
        assert ee["relevance"] == pytest.approx(relevance, rel=1e-12, abs=1e-14)


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


def test_sampled_ranks_never_draw_an_excluded_item():
    # regression: a user's training items could not be kept out of the negatives.
    # Item 0 is held out; the excluded items 1, 2, 3 beat it, the others lose to it:
    # its sampled rank is 1 exactly when no excluded item is drawn.
    n_users = 3000
    scores = np.tile([0.5, 0.9, 0.9, 0.9, 0.1, 0.1, 0.1, 0.1], (n_users, 1))
    held = np.zeros(n_users, dtype=int)
    for m in (1, 2, 4):  # 4: every item left is drawn
        for seed in range(3):
            ranks = sampled_ranks(scores, held, m, seed=seed, exclude=[[1, 2, 3]] * n_users)
            assert (ranks == 1).all()
    # without exclude, the excluded items are drawn (the support is what changed)
    assert (sampled_ranks(scores, held, 2, seed=0) > 1).any()
    # a boolean mask says the same as the lists, with the same draws
    mask = np.zeros(scores.shape, dtype=bool)
    mask[:, 1:4] = True
    lists = sampled_ranks(scores, held, 2, seed=5, exclude=[[1, 2, 3]] * n_users)
    assert (sampled_ranks(scores, held, 2, seed=5, exclude=mask) == lists).all()
    assert (sampled_ranks(scores, held, 2, seed=5, exclude=mask.tolist()) == lists).all()
    # empty exclusions change nothing, draw for draw
    rng_scores = np.random.default_rng(1).random((50, 9))
    held9 = np.arange(50) % 9
    assert (sampled_ranks(rng_scores, held9, 4, seed=2, exclude=[[]] * 50)
            == sampled_ranks(rng_scores, held9, 4, seed=2)).all()


def test_sampled_ranks_with_exclude_draw_uniformly_from_the_rest():
    # held out 0, excluded {1, 3}: the 2 negatives are a pair of {2, 4, 5}, each of
    # the 3 pairs with probability 1/3. In row type p only the pair p beats item 0,
    # so the rank is 3 exactly when that pair is drawn.
    pairs = [(2, 4), (2, 5), (4, 5)]
    n = 20_000
    rows = []
    for pair in pairs:
        row = np.full(6, 0.1)
        row[0] = 0.5
        row[[1, 3]] = 0.9  # excluded: would beat item 0 if ever drawn
        row[list(pair)] = 0.9
        rows.append(np.tile(row, (n, 1)))
    scores = np.vstack(rows)
    ranks = sampled_ranks(scores, np.zeros(3 * n, dtype=int), 2, seed=11,
                          exclude=[[1, 3]] * (3 * n))
    assert set(np.unique(ranks)) <= {1, 2, 3}
    se = math.sqrt((1 / 3) * (2 / 3) / n)
    for i in range(3):
        share = np.mean(ranks[i * n:(i + 1) * n] == 3)
        assert abs(share - 1 / 3) < 4.5 * se, (pairs[i], share)
        # two draws from three items always take one of the pair at least
        assert (ranks[i * n:(i + 1) * n] >= 2).all()


def test_sampled_ranks_exclude_errors():
    scores = np.random.default_rng(0).random((2, 5))
    with pytest.raises(ValueError, match="user 1: the held-out item 2 is also in exclude"):
        sampled_ranks(scores, [0, 2], 1, exclude=[[1], [2, 3]])
    with pytest.raises(ValueError, match="user 0 has 1 items left"):
        sampled_ranks(scores, [0, 0], 2, exclude=[[1, 2, 3], []])
    with pytest.raises(ValueError, match="item index 5, out of range"):
        sampled_ranks(scores, [0, 0], 1, exclude=[[5], []])
    with pytest.raises(ValueError, match="one entry per user"):
        sampled_ranks(scores, [0, 0], 1, exclude=[[1]])
    with pytest.raises(TypeError, match="integer item indices"):
        sampled_ranks(scores, [0, 0], 1, exclude=[[1.5], []])
    with pytest.raises(ValueError, match="boolean mask must have shape"):
        sampled_ranks(scores, [0, 0], 1, exclude=np.zeros((2, 4), dtype=bool))


# --- issue 52, item 4: a table's ties are broken by evaluate's rule -----------------------
# trec_eval sorts equal scores by document id, descending, compared as C strings
# (strcmp, byte by byte); an integer id compares as its decimal text. The orders
# below are written out by hand from that rule.
TIE_CASES = [
    # all tied: "9" > "100" > "10" as text (numerically it would be 100, 10, 9)
    ([100, 10, 9], [1.0, 1.0, 1.0], [9, 100, 10]),
    # mixed widths, two tied groups under a distinct top score:
    # 2.0: 5; 1.0: "3" > "200" > "20" > "1000" > "1" (a proper prefix is the smaller);
    # 0.5: "7" > "60"
    ([1, 20, 5, 3, 200, 1000, 60, 7], [1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 0.5, 0.5],
     [5, 3, 200, 20, 1000, 1, 7, 60]),
    # string ids: "d9" > "d100" > "d10"; "B" (0x42) < "a" (0x61): byte order, not case
    (["d10", "d9", "d100", "a", "B"], [1.0, 1.0, 1.0, 0.0, 0.0],
     ["d9", "d100", "d10", "a", "B"]),
]


@pytest.mark.parametrize(("docs", "scores", "expected"), TIE_CASES)
def test_ranked_lists_of_a_table_order_ties_as_trec_eval(docs, scores, expected):
    table = pd.DataFrame({"query_id": ["u"] * len(docs), "doc_id": docs, "score": scores})
    assert ranked_lists(table) == {"u": expected}
    assert ranked_lists(table, k=2) == {"u": expected[:2]}
    # the same order as the ranking evaluate scores: grade = 1 + position in `expected`
    qrels = {"u": {d: float(i + 1) for i, d in enumerate(expected)}}
    grades = rankeval.rank_run(qrels, table).ragged()[0]
    assert grades.tolist() == [float(i + 1) for i in range(len(expected))]


def test_a_measure_cut_at_k_from_a_table_keeps_evaluates_top_k():
    table = pd.DataFrame({"query_id": ["u"] * 3, "doc_id": [100, 10, 9], "score": [1.0] * 3})
    pop = {9: 1, 100: 5, 10: 7}
    # trec_eval's top 1 is 9 (see above), not 100
    assert average_recommendation_popularity(table, pop, k=1) == 1.0
    assert catalogue_coverage(table, [9, 10, 100, 11], k=1) == 0.25


def test_ranked_lists_match_rank_run_on_random_tied_tables():
    rng = np.random.default_rng(52)
    n = 400
    widths = rng.integers(1, 6, n)
    ids = np.unique(rng.integers(0, 10 ** widths))  # integer ids of 1 to 5 digits
    ids = rng.permutation(ids)[:120]
    rows = []
    for q in ["q1", "q2", "q10"]:
        chosen = rng.choice(ids, 40, replace=False)
        for d in chosen:
            rows.append((q, int(d), float(rng.integers(0, 4))))  # four score levels: ties
    table = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]).sample(
        frac=1.0, random_state=1)  # rows in no order
    for frame in [table, table.astype({"doc_id": str})]:
        lists = ranked_lists(frame)
        assert list(lists) == ["q1", "q10", "q2"]  # query ids by their bytes
        for q, items in lists.items():
            # oracle: trec_eval's rule by two stable Python sorts: ids by their
            # text's bytes, descending; then scores, descending
            sub = list(zip(frame.loc[frame["query_id"] == q, "doc_id"],
                           frame.loc[frame["query_id"] == q, "score"], strict=True))
            sub.sort(key=lambda t: str(t[0]).encode(), reverse=True)
            sub.sort(key=lambda t: -t[1])
            oracle = [d for d, _ in sub]
            assert items == oracle
            qrels = {q: {d: float(i + 1) for i, d in enumerate(items)}}
            grades = rankeval.rank_run(qrels, frame[frame["query_id"] == q]).ragged()[0]
            assert grades.tolist() == [float(i + 1) for i in range(len(items))]


def test_ranked_lists_refuse_what_evaluate_refuses():
    with pytest.raises(ValueError, match="score"):  # NaN was ranked last, silently
        ranked_lists(pd.DataFrame({"query_id": ["u", "u"], "doc_id": [1, 2],
                                   "score": [1.0, np.nan]}))
    with pytest.raises(ValueError, match="document 1 listed twice"):
        ranked_lists(pd.DataFrame({"query_id": ["u", "u"], "doc_id": [1, 1],
                                   "score": [1.0, 2.0]}))
    with pytest.raises(TypeError, match="k must be"):
        ranked_lists(RUN, k=2.5)
    with pytest.raises(ValueError, match="k must be"):
        ranked_lists(RUN, k=0)


# --- issue 52, item 11, and other silent failures of beyond ------------------------------


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"n_negatives": 3.5}, "n_negatives"),  # was nan
    ({"k": 2.5}, "k"),  # was nan or floored
    ({"k": 2.0}, "k"),
    ({"n_items": 100.5}, "n_items"),
    ({"n_negatives": True}, "n_negatives"),
])
def test_expected_sampled_hit_refuses_a_non_integer_count(kwargs, name):
    args = {"ranks": [5, 40], "n_items": 100, "n_negatives": 3, "k": 2} | kwargs
    with pytest.raises(TypeError, match=f"^{name} must be a positive integer"):
        expected_sampled_hit(**args)


def test_expected_sampled_hit_names_the_argument_out_of_range():
    with pytest.raises(ValueError, match="^k must be a positive integer"):
        expected_sampled_hit([5], 100, 3, 0)
    with pytest.raises(ValueError, match="n_negatives must lie in 1..n_items - 1 = 1..99"):
        expected_sampled_hit([5], 100, 100, 1)


def test_other_counts_of_beyond_refuse_non_integers():
    scores = np.array([[0.5, 0.9, 0.1, 0.5]])
    with pytest.raises(TypeError, match="^n_negatives must be a positive integer, got 2.5"):
        sampled_ranks(scores, [0], n_negatives=2.5)
    with pytest.raises(TypeError, match="^k must be"):
        rank_metrics([1, 2], 2.5)
    with pytest.raises(TypeError, match="^n must be"):
        position_exposure(2.5)
    with pytest.raises(TypeError, match="^n_users must be"):
        novelty(RUN, POP, 8.0)
    with pytest.raises(ValueError, match="patience"):
        position_exposure(3, model="rbp", patience=float("nan"))
    with pytest.raises(ValueError, match="shape"):
        full_ranks(np.zeros((0, 3)), np.zeros(0, dtype=int))


def test_miscalibration_of_a_zero_mass_genre():
    # an item whose genre weights are all 0 has no p(g | i): a ValueError naming it
    # (was ZeroDivisionError)
    genres = {"a": {"x": 1.0}, "b": {"x": 0.0}}
    with pytest.raises(ValueError, match=r"genre weights of item 'b' sum to 0 \(\{'x': 0.0\}\)"):
        miscalibration({"u": ["a"]}, {"u": ["a", "b"]}, genres)
    # a genre of weight 0 next to others: p(y | u) = 0 adds nothing (0 log 0 = 0)
    genres = {"a": {"x": 1.0, "y": 0.0}, "b": {"z": 2.0}, "c": {"y": 1.0}}
    # p = x 0.5, z 0.5 (y 0); list [b]: q = z 1 -> q~(x) = 0.005, q~(z) = 0.995
    expected = 0.5 * math.log(0.5 / 0.005) + 0.5 * math.log(0.5 / 0.995)
    assert miscalibration({"u": ["b"]}, {"u": ["a", "b"]}, genres) == \
        pytest.approx(expected, abs=1e-12)
    # a list with mass on y, which p does not hold: not in the sum, still finite
    value = miscalibration({"u": ["c", "b"]}, {"u": ["a", "b"]}, genres)
    q_x, q_z = 0.99 * 0 + 0.01 * 0.5, 0.99 * 0.5 + 0.01 * 0.5
    assert value == pytest.approx(0.5 * math.log(0.5 / q_x) + 0.5 * math.log(0.5 / q_z),
                                  abs=1e-12)
    with pytest.raises(ValueError, match="item 'b' has no genre"):
        miscalibration({"u": ["a"]}, {"u": ["a", "b"]}, {"a": ["x"], "b": {}})
    with pytest.raises(ValueError, match="negative weight"):
        miscalibration({"u": ["a"]}, {"u": ["a"]}, {"a": {"x": 2.0, "y": -1.0}})
    with pytest.raises(ValueError, match="names the genre 'x' twice"):  # was mass 1/2
        miscalibration({"u": ["a"]}, {"u": ["a", "b"]}, {"a": ["x", "x"], "b": ["y"]})
    with pytest.raises(ValueError, match="history of user 'u' names the item 'a' twice"):
        miscalibration({"u": ["a"]}, {"u": ["a", "a"]}, {"a": ["x"]})
    with pytest.raises(ValueError, match="smoothing"):
        miscalibration({"u": ["a"]}, {"u": ["a"]}, {"a": ["x"]}, smoothing=1.5)


def test_popularity_lift_blames_the_profile_for_a_repeated_item():
    with pytest.raises(ValueError, match="the profile of user 'u' names the item 'b' twice"):
        popularity_lift({"u": ["a"]}, {"u": ["b", "b"]}, {"a": 1, "b": 2})
    with pytest.raises(ValueError, match="the profile of user 'u' is empty"):
        popularity_lift({"u": ["a"]}, {"u": []}, {"a": 1})


def test_non_finite_inputs_and_repeats_are_refused():
    with pytest.raises(ValueError, match="popularity of item 'a' must be finite"):
        average_recommendation_popularity({"u": ["a"]}, {"a": float("nan")})  # was nan
    with pytest.raises(ValueError, match="popularity of item 'a' is negative"):
        average_recommendation_popularity({"u": ["a"]}, {"a": -1})
    with pytest.raises(ValueError, match="feature vector of item 'a' is not finite"):
        intra_list_diversity({"u": ["a", "b"]}, features={"a": [1, np.nan], "b": [1, 0]})
    with pytest.raises(ValueError, match="one length"):
        intra_list_diversity({"u": ["a", "b"]}, features={"a": [1, 0, 0], "b": [1, 0]})
    d = pd.DataFrame([[0, 1], [1, 0]], index=["a", "a"], columns=["a", "a"], dtype=float)
    with pytest.raises(ValueError, match="distance names the item 'a' twice"):
        intra_list_diversity({"u": ["a", "b"]}, distance=d)
    with pytest.raises(TypeError, match="not a sequence of items"):
        expected_exposure(["a", "b"], {"a": 1, "b": 0})  # was two one-item rankings
    with pytest.raises(ValueError, match="ranking 1 names the item 'a' twice"):
        expected_exposure([["a"], ["a", "a"]], {"a": 1})
    with pytest.raises(ValueError, match="group 'y' has utility 0"):  # ratio was NaN
        group_exposure({"u": ["a"]}, {"a": "x", "b": "y"}, relevance={"a": 1, "b": 0})
    with pytest.raises(ValueError, match="relevance of item 'b' must be finite"):
        group_exposure({"u": ["a"]}, {"a": "x", "b": "y"},
                       relevance={"a": 1, "b": float("nan")})
    with pytest.raises(TypeError, match="catalogue"):  # was the set of its characters
        catalogue_coverage({"u": ["a"]}, "abc")
