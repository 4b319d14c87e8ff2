"""Average precision (AP) and MAP: sources' examples, properties, oracle, errors."""

import numpy as np
import pytest
from conftest import binary, cutoffs, grades, judged_collection, random_batch
from hypothesis import assume, given
from hypothesis import strategies as st

from rankeval import average_precision, precision_at_k, recall_at_k, relevance_vector

# --- worked examples of the sources -------------------------------------------------


def test_ranking_evaluation_rankings_a_and_b():
    # Ranking Evaluation (the course text): A = [R, R, R, N, N] and B = [R, N, R, N, R].
    assert average_precision([1, 1, 1, 0, 0]) == 1.0
    # The source prints "2.27/3 = 0.76": it rounds P@3 = 2/3 to 0.67 before summing.
    # The exact sum is 1 + 2/3 + 3/5 = 34/15 = 2.2667, so AP = 0.7556 (0.76 to 2 d.p.).
    b = average_precision([1, 0, 1, 0, 1])
    assert b == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    assert round(b, 2) == 0.76


RANKING_EVALUATION_QUERIES = [
    [1, 1, 0, 1, 1, 0, 1, 0, 1, 0],  # "machine learning frameworks": relevant 1, 2, 4, 5, 7, 9
    [1, 0, 1, 0, 1, 0, 0, 1],  # "neural networks": relevant 1, 3, 5, 8
    [0, 1, 1, 0, 1, 1],  # "data visualization": relevant 2, 3, 5, 6
]


def test_ranking_evaluation_three_query_map():
    ap = average_precision(RANKING_EVALUATION_QUERIES)
    want = [
        (1 + 2 / 2 + 3 / 4 + 4 / 5 + 5 / 7 + 6 / 9) / 6,
        (1 + 2 / 3 + 3 / 5 + 4 / 8) / 4,
        (1 / 2 + 2 / 3 + 3 / 5 + 4 / 6) / 4,
    ]
    np.testing.assert_allclose(ap, want)
    # Printed 0.822 and 0.692 are right to 3 d.p.
    assert round(ap[0], 3) == 0.822 and round(ap[1], 3) == 0.692
    # Printed 0.609 for query 3 comes from 0.500 + 0.667 + 0.600 + 0.667 = 2.434 (two
    # rounded 2/3); the exact sum is 2.4333, so AP = 0.6083.
    assert round(ap[2], 3) == 0.608
    # Printed MAP 0.708 = 2.123 / 3 from the rounded APs; the exact MAP is 0.7073.
    assert ap.mean() == pytest.approx(sum(want) / 3)
    assert round(ap.mean(), 3) == 0.707


def test_notebook_items_a_to_g():
    # The item-list notebook: items a..g, relevant b and f; its AP divides by len(rel_items) = 2.
    judged = {"b", "f"}
    r1 = relevance_vector(["c", "b", "f", "a", "g", "e", "d"], judged)
    assert average_precision(r1) == pytest.approx((1 / 2 + 2 / 3) / 2)  # printed 0.5833: right
    # Ranking 2 [c, b, g, f, g, a, e] repeats g; relevance_vector refuses it.
    with pytest.raises(ValueError, match="duplicate ids"):
        relevance_vector(["c", "b", "g", "f", "g", "a", "e"], judged)
    # Its relevant items b and f stand at ranks 2 and 4: AP = (1/2 + 2/4) / 2 = 0.5.
    # The notebook prints 0.9583 = (1/2 + 2/3 + 3/4) / 2: hits at ranks 2, 3, 4, three hits
    # for two relevant items, which the list shown cannot give (a stale output).
    assert average_precision([0, 1, 0, 1, 0, 0, 0], n_relevant=2) == pytest.approx(
        (1 / 2 + 2 / 4) / 2
    )
    # Three hits with two relevant items would need a duplicated relevant item; with the
    # true number of relevant items rankeval refuses such a list instead of scoring it.
    with pytest.raises(ValueError, match="n_relevant is 2, smaller than the 3 relevant"):
        average_precision([0, 1, 1, 1, 0, 0, 0], n_relevant=2)


def test_model_evaluation_single_ranking_and_four_queries():
    # Model Evaluation, Part 4: its code prints these with :.4f (outputs not shown).
    assert average_precision([1, 0, 1, 0, 1, 0, 0, 1, 0, 1]) == pytest.approx(
        (1 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 10) / 5
    )
    queries = [
        [1, 1, 0, 1, 0, 1, 0, 0, 0, 0],
        [0, 1, 0, 0, 1, 0, 1, 0, 1, 1],
        [1, 0, 1, 1, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1, 0, 1, 1, 1],
    ]
    want = [
        (1 + 2 / 2 + 3 / 4 + 4 / 6) / 4,
        (1 / 2 + 2 / 5 + 3 / 7 + 4 / 9 + 5 / 10) / 5,
        (1 + 2 / 3 + 3 / 4) / 3,
        (1 / 6 + 2 / 8 + 3 / 9 + 4 / 10) / 4,
    ]
    ap = average_precision(queries)
    np.testing.assert_allclose(ap, want)
    assert ap.mean() == pytest.approx(sum(want) / 4)


def test_comprehensive_guide_ap_at_5():
    # The Comprehensive Guide, AP@5 of two queries.
    # Q1: relevant at 1, 3, 4 (printed 0.81); Q2: irrelevant at 1 and 3, so relevant at
    # 2, 4, 5 (printed 0.53). Both printed values are the exact ones rounded to 2 d.p.
    ap = average_precision([[1, 0, 1, 1, 0], [0, 1, 0, 1, 1]], k=5)
    np.testing.assert_allclose(ap, [(1 + 2 / 3 + 3 / 4) / 3, (1 / 2 + 2 / 4 + 3 / 5) / 3])
    assert np.round(ap, 2).tolist() == [0.81, 0.53]


# --- conventions --------------------------------------------------------------------


def test_denominator_conventions_at_k():
    # Seven documents, relevant at 1, 3, 4 and 6: AP@5 of the Comprehensive Guide divides by the 3
    # relevant items in the top 5; trec_eval's map_cut.5 divides by all 4.
    r = [1, 0, 1, 1, 0, 1, 0]
    assert average_precision(r, 5, n_relevant="in_top_k") == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    # the default counts the relevant grades of the whole list (4), not of the top 5
    assert average_precision(r, 5) == pytest.approx((1 + 2 / 3 + 3 / 4) / 4)
    assert average_precision(r, 5, n_relevant=4) == pytest.approx((1 + 2 / 3 + 3 / 4) / 4)
    assert average_precision(r) == pytest.approx((1 + 2 / 3 + 3 / 4 + 4 / 6) / 4)


def test_default_rewards_finding_little():
    # One relevant item at rank 1, nine others never retrieved.
    assert average_precision([1, 0, 0]) == 1.0
    assert average_precision([1, 0, 0], n_relevant=10) == pytest.approx(1 / 10)


def test_k_past_the_list_and_no_relevant():
    assert average_precision([0, 1, 1], 10) == average_precision([0, 1, 1])
    assert average_precision([0, 0, 0]) == 0.0
    assert average_precision([0, 0, 0], n_relevant=0) == 0.0
    assert average_precision([0, 0, 0], n_relevant=3) == 0.0
    assert average_precision([0, 0, 1], 2) == 0.0  # relevant item below the cut-off


def test_graded_input_and_threshold():
    assert average_precision([3, 0, 1, 2]) == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    assert average_precision([3, 0, 1, 2], threshold=2) == pytest.approx((1 + 2 / 4) / 2)


def test_per_query_n_relevant():
    got = average_precision([[1, 0], [0, 1]], n_relevant=[2, 1])
    np.testing.assert_allclose(got, [1 / 2, 1 / 2])


def test_in_top_k_ap_at_k_can_drop_when_a_relevant_item_moves_up():
    # With the top-k denominator, pulling a relevant item into the top k adds a term to
    # the average that can be below the others: 1.0 -> 0.8333. map_cut does not do this.
    before, after = [1, 0, 0, 1], [1, 0, 1, 0]
    assert average_precision(before, 3, n_relevant="in_top_k") == 1.0
    assert average_precision(after, 3, n_relevant="in_top_k") == pytest.approx((1 + 2 / 3) / 2)
    assert average_precision(after, 3) > average_precision(before, 3)  # "in_list": 2
    assert average_precision(after, 3, n_relevant=2) > average_precision(before, 3, n_relevant=2)


# --- properties ---------------------------------------------------------------------


@st.composite
def ranking_and_total(draw, max_grade=3):
    r = draw(grades(max_grade))
    found = sum(g >= 1 for g in r)
    return r, found + draw(st.integers(0, 5))


@given(ranking_and_total(), cutoffs())
def test_range(case, k):
    r, total = case
    assert 0 <= average_precision(r, k) <= 1
    assert 0 <= average_precision(r, k, n_relevant=total) <= 1


@given(binary(), cutoffs())
def test_perfect_ranking_scores_one(r, k):
    assume(any(r[:k]))
    ideal = sorted(r, reverse=True)
    assert average_precision(ideal, k, n_relevant="in_top_k") == pytest.approx(1.0)
    if k is None or k >= sum(r):
        assert average_precision(ideal, k) == pytest.approx(1.0)
    assert average_precision(ideal, None, n_relevant=sum(r)) == pytest.approx(1.0)


@given(binary(min_size=2), st.data())
def test_moving_a_relevant_item_up_never_lowers_ap(r, data):
    rel = [i for i, g in enumerate(r) if g]
    non = [i for i, g in enumerate(r) if not g]
    pairs = [(i, j) for i in rel for j in non if j < i]
    assume(pairs)
    i, j = data.draw(st.sampled_from(pairs))
    moved = list(r)
    moved[i], moved[j] = moved[j], moved[i]
    total = sum(r) + data.draw(st.integers(0, 3))
    assert average_precision(moved) >= average_precision(r) - 1e-12
    k = data.draw(cutoffs())
    # With a fixed denominator (trec_eval) it holds at every cut-off.
    assert (
        average_precision(moved, k, n_relevant=total)
        >= average_precision(r, k, n_relevant=total) - 1e-12
    )


@given(binary())
def test_equals_area_under_step_precision_recall_curve(r):
    # AP (all relevant counted) = sum over ranks of (recall step) x (precision there).
    assume(any(r))
    ks = range(1, len(r) + 1)
    recall = [0.0] + [recall_at_k(r, k) for k in ks]
    area = sum((recall[k] - recall[k - 1]) * precision_at_k(r, k) for k in ks)
    assert average_precision(r) == pytest.approx(area)


# --- slow oracle --------------------------------------------------------------------


def slow_average_precision(r, k=None, n_relevant="in_list", threshold=1):
    """Straight from the formula: precision at each relevant rank, summed, divided."""
    if n_relevant == "in_list":
        n_relevant = sum(g >= threshold for g in r)
    hits, total = 0, 0.0
    for i, g in enumerate(r, start=1):
        if k is not None and i > k:
            break
        if g >= threshold:
            hits += 1
            total += hits / i
    denominator = hits if n_relevant == "in_top_k" else n_relevant
    return total / denominator if denominator else 0.0


@pytest.mark.parametrize("k", [None, 1, 3, 10, 25])
@pytest.mark.parametrize("threshold", [1, 2])
def test_against_slow_oracle(k, threshold):
    rs = random_batch(seed=11)
    np.testing.assert_allclose(
        average_precision(rs, k, threshold=threshold),
        [slow_average_precision(r, k, threshold=threshold) for r in rs],
    )
    np.testing.assert_allclose(
        average_precision(rs, k, n_relevant="in_top_k", threshold=threshold),
        [slow_average_precision(r, k, "in_top_k", threshold) for r in rs],
    )
    totals = [sum(g >= threshold for g in r) + extra for extra, r in enumerate(rs)]
    np.testing.assert_allclose(
        average_precision(rs, k, n_relevant=totals, threshold=threshold),
        [
            slow_average_precision(r, k, t, threshold)
            for r, t in zip(rs, totals, strict=True)
        ],
    )


@pytest.mark.parametrize("level", [1, 2])
def test_matches_trec_eval_map_and_map_cut(level):
    # trec_eval (through pytrec_eval) divides by every judged relevant document: pass
    # n_relevant. Scores decrease down the run so trec_eval keeps our order.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run, rankings, judged = judged_collection(seed=4, n_queries=40, min_docs=2, max_docs=15)
    totals = [sum(g >= level for g in grades) for grades in judged]
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "map_cut.3,5,10"}, relevance_level=level
    )
    result = evaluator.evaluate(run)
    for measure, k in (("map", None), ("map_cut_3", 3), ("map_cut_5", 5), ("map_cut_10", 10)):
        want = [result[f"q{q}"][measure] for q in range(40)]
        got = average_precision(rankings, k, n_relevant=totals, threshold=level)
        np.testing.assert_allclose(got, want)


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"relevance": [1, 1], "n_relevant": 1}, ValueError, "n_relevant is 1, smaller"),
        ({"relevance": [[0], [1]], "n_relevant": [1, 0]}, ValueError, "for query 1 is 0"),
        ({"relevance": [[0], [1]], "n_relevant": [1, 1, 1]}, ValueError, "one value per query"),
        ({"relevance": [1, 0], "n_relevant": 2.5}, TypeError, "whole numbers"),
        ({"relevance": [1, 0], "n_relevant": "2"}, ValueError, 'n_relevant must be "in_list"'),
        ({"relevance": [1, 0], "n_relevant": None}, TypeError, 'n_relevant must be "in_list"'),
        ({"relevance": [1, 0], "threshold": 0}, ValueError, "threshold must be > 0"),
    ],
)
def test_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        average_precision(**kwargs)


def _recommender_map_at_k(grades, relevant_total, k):
    """RecBole's MAP@k (recbole/evaluator/metrics.py, MAP.metric_info) written out: the
    precisions at the relevant ranks of the top k, summed, over min(k, |R|)."""
    hits, total = 0, 0.0
    for i, g in enumerate(grades[:k], start=1):
        if g >= 1:
            hits += 1
            total += hits / i
    return total / min(k, relevant_total) if relevant_total else 0.0


def test_cap_at_k_is_the_recommender_map_at_k():
    import numpy as np

    from rankeval import average_precision, evaluate

    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        grades = rng.integers(0, 2, n)
        total = int(grades.sum()) + int(rng.integers(0, 4))
        k = int(rng.integers(1, 14))
        got = average_precision(grades, k, n_relevant=total, cap_at_k=True)
        assert got == pytest.approx(_recommender_map_at_k(list(grades), total, k))
    # through evaluate, by hand: relevant at ranks 1 and 3 of 4 relevant; cut at 3
    qrels = {"u": {"a": 1, "b": 1, "c": 1, "d": 1}}
    run = {"u": {"a": 0.9, "x": 0.8, "b": 0.7}}
    table = evaluate(qrels, run, ["AP@3", "AP(cap=True)@3"])
    assert table.loc["u", "AP@3"] == pytest.approx((1 + 2 / 3) / 4)
    assert table.loc["u", "AP(cap=True)@3"] == pytest.approx((1 + 2 / 3) / 3)
    with pytest.raises(ValueError, match="give a cut-off"):
        evaluate(qrels, run, ["AP(cap=True)"])
    with pytest.raises(ValueError, match="give a cut-off k"):
        average_precision([1, 0], cap_at_k=True)
