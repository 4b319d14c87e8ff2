"""relevance_vector: sources' examples, properties, oracle, errors."""

import numpy as np
import pytest
from conftest import cutoffs
from hypothesis import given
from hypothesis import strategies as st

from rankeval import hit_at_k, hits_at_k, precision_at_k, recall_at_k, relevance_vector

# --- worked examples of the sources -------------------------------------------------


def test_notebook_items_a_to_e():
    # The item-list notebook: ranking a, b, c, d, e; relevant b and e.
    r = relevance_vector(["a", "b", "c", "d", "e"], ["b", "e"])
    np.testing.assert_array_equal(r, [0, 1, 0, 0, 1])
    assert r.dtype == np.float64 and r.ndim == 1
    assert hits_at_k(r, 3) == 1
    assert precision_at_k(r, 3) == pytest.approx(1 / 3)
    assert recall_at_k(r, 3) == pytest.approx(1 / 2)


def test_notebook_ranking_a():
    # The item-list notebook: A = [c, b, a, f, g, e, d] with relevant b, f.
    r = relevance_vector(list("cbafged"), {"b", "f"})
    np.testing.assert_array_equal(r, [0, 1, 0, 1, 0, 0, 0])
    assert hits_at_k(r, 3) == 1
    assert recall_at_k(r, 4) == 2 / 2


def test_notebook_same_hits_different_order():
    # The item-list notebook: A = [c, b, f, a, g, e, d] and B' = [b, f, g, c, a, e, ...] share hits@3.
    # (Its B repeats g; here the repeat is dropped, keeping g's first position.)
    a = relevance_vector(list("cbfaged"), {"b", "f"})
    b = relevance_vector(list(dict.fromkeys("bfgcgae")), {"b", "f"})
    assert hits_at_k(a, 3) == hits_at_k(b, 3) == 2


def test_comprehensive_guide_documents_a_to_g():
    # The Comprehensive Guide: documents A..G, relevant A, C, F, G; the top five hold A, C, G.
    # The text does not give the figure's order; any order with that top five works.
    ranking = ["A", "B", "C", "D", "G", "F", "E"]
    r = relevance_vector(ranking, {"A", "C", "F", "G"})
    np.testing.assert_array_equal(r, [1, 0, 1, 0, 1, 1, 0])
    assert precision_at_k(r, 5) == pytest.approx(3 / 5)
    assert recall_at_k(r, 5) == pytest.approx(3 / 4)


@pytest.mark.parametrize(
    "ranking, where",
    [
        # The item-list notebook, method B of the introduction: g at positions 3 and 5.
        (list("bagcgfe"), "'g' at positions 3, 5"),
        # The item-list notebook, AP example, ranking 2.
        (list("cbgfgae"), "'g' at positions 3, 5"),
        # The item-list notebook, the example after recall (B = [b, f, g, c, g, a, e]).
        (list("bfgcgae"), "'g' at positions 3, 5"),
    ],
)
def test_notebook_duplicates_are_named(ranking, where):
    with pytest.raises(ValueError, match=where):
        relevance_vector(ranking, {"b", "f"})


def test_notebook_ndcg_ranking_with_many_repeats():
    # The item-list notebook, NDCG example, ranking 2: 17 entries, only 7 distinct items.
    ranking = list("cbgegaagagegaegaf")
    with pytest.raises(ValueError) as info:
        relevance_vector(ranking, {"b", "f"})
    msg = str(info.value)
    assert "'g' at positions 3, 5, 8, 10, 12, 15" in msg
    assert "'e' at positions 4, 11, 14" in msg
    assert "'a' at positions 6, 7, 9, 13, 16" in msg
    assert "'c'" not in msg and "'b'" not in msg and "'f'" not in msg


# --- conventions --------------------------------------------------------------------


def test_graded_judgments_and_default():
    r = relevance_vector(["x", "y", "z", "w"], {"x": 2, "z": 3, "w": 0})
    np.testing.assert_array_equal(r, [2, 0, 3, 0])
    r = relevance_vector(["x", "y"], {"x": 2}, default=0.5)
    np.testing.assert_array_equal(r, [2, 0.5])


def test_judged_but_not_ranked_ids_are_ignored():
    r = relevance_vector(["a", "b"], {"b", "q", "z"})
    np.testing.assert_array_equal(r, [0, 1])
    # the unretrieved relevant items enter recall through n_relevant
    assert recall_at_k(r, 2, n_relevant=3) == 1 / 3


def test_any_hashable_ids():
    ranking = [3, ("doc", 7), "s", 2.5, None, frozenset({1})]
    r = relevance_vector(ranking, {("doc", 7): 2, None: 1, frozenset({1}): 3})
    np.testing.assert_array_equal(r, [0, 2, 0, 0, 1, 3])


def test_numpy_inputs():
    np.testing.assert_array_equal(relevance_vector(np.array(["a", "b"]), np.array(["b"])), [0, 1])
    np.testing.assert_array_equal(relevance_vector(np.arange(4), {np.int64(2)}), [0, 0, 1, 0])
    batch = relevance_vector(np.array([[1, 2], [3, 4]]), [{1}, {4: 2}])
    assert isinstance(batch, list)
    np.testing.assert_array_equal(batch[0], [1, 0])
    np.testing.assert_array_equal(batch[1], [0, 2])


def test_tuples_in_a_list_are_ids_not_queries():
    r = relevance_vector([("a", 1), ("b", 2)], {("b", 2)})
    np.testing.assert_array_equal(r, [0, 1])


def test_batch_is_ragged_and_usable_by_metrics():
    rankings = [list("abcde"), list("cbafged"), ["x"]]
    judgments = [{"b", "e"}, ["b", "f"], {"y": 1}]
    batch = relevance_vector(rankings, judgments)
    assert isinstance(batch, list) and [len(b) for b in batch] == [5, 7, 1]
    np.testing.assert_allclose(precision_at_k(batch, 3), [1 / 3, 1 / 3, 0 / 3])
    np.testing.assert_allclose(recall_at_k(batch, 3), [1 / 2, 1 / 2, 0])
    np.testing.assert_array_equal(hit_at_k(batch, 1), [0, 0, 0])
    # a tuple of judgments is as good as a list
    again = relevance_vector(tuple(rankings), tuple(judgments))
    for x, y in zip(batch, again, strict=True):
        np.testing.assert_array_equal(x, y)


# --- properties ---------------------------------------------------------------------

ids = st.one_of(st.integers(-50, 50), st.text(max_size=3))
unique_rankings = st.lists(ids, min_size=1, max_size=15, unique=True)
grade_values = st.one_of(st.integers(0, 3), st.floats(0, 5, allow_nan=False))


@given(unique_rankings, st.sets(ids, max_size=10))
def test_set_judgments_mark_exactly_the_relevant_ids(ranking, relevant):
    r = relevance_vector(ranking, relevant)
    assert r.shape == (len(ranking),)
    assert set(np.flatnonzero(r)) == {i for i, d in enumerate(ranking) if d in relevant}
    assert np.all((r == 0) | (r == 1))
    assert r.sum() == len(set(ranking) & relevant)


@given(unique_rankings, st.sets(ids, max_size=10), cutoffs())
def test_hits_match_set_intersection(ranking, relevant, k):
    r = relevance_vector(ranking, relevant)
    assert hits_at_k(r, k) == len(set(ranking[:k]) & relevant)


@given(unique_rankings, st.dictionaries(ids, grade_values, max_size=10))
def test_set_and_dict_agree_and_values_come_from_judgments(ranking, judged):
    r = relevance_vector(ranking, judged)
    assert set(r.tolist()) <= set(map(float, judged.values())) | {0.0}
    ones = relevance_vector(ranking, set(judged))
    np.testing.assert_array_equal(ones, relevance_vector(ranking, dict.fromkeys(judged, 1)))


@given(unique_rankings, st.dictionaries(ids, grade_values, max_size=10), st.randoms())
def test_permuting_the_ranking_permutes_the_vector(ranking, judged, rnd):
    order = list(range(len(ranking)))
    rnd.shuffle(order)
    r = relevance_vector(ranking, judged)
    shuffled = relevance_vector([ranking[i] for i in order], judged)
    np.testing.assert_array_equal(shuffled, r[order])


@given(
    st.lists(st.tuples(unique_rankings, st.sets(ids, max_size=6)), min_size=1, max_size=5),
    cutoffs(),
)
def test_batch_equals_per_query(pairs, k):
    rankings = [list(r) for r, _ in pairs]
    judgments = [j for _, j in pairs]
    batch = relevance_vector(rankings, judgments)
    assert len(batch) == len(pairs)
    for got, (r, j) in zip(batch, pairs, strict=True):
        np.testing.assert_array_equal(got, relevance_vector(r, j))
    np.testing.assert_allclose(
        precision_at_k(batch, k), [precision_at_k(relevance_vector(r, j), k) for r, j in pairs]
    )


@given(unique_rankings, st.data())
def test_any_repeat_is_caught_and_named(ranking, data):
    i = data.draw(st.integers(0, len(ranking) - 1))
    at = data.draw(st.integers(0, len(ranking)))
    with_repeat = ranking[:at] + [ranking[i]] + ranking[at:]
    positions = [p for p, d in enumerate(with_repeat, start=1) if d == ranking[i]]
    with pytest.raises(ValueError, match="duplicate ids") as info:
        relevance_vector(with_repeat, set())
    assert f"{ranking[i]!r} at positions {', '.join(map(str, positions))}" in str(info.value)


# --- slow oracle --------------------------------------------------------------------


def slow_relevance_vector(ranking, judgments, default=0.0):
    out = []
    for item in ranking:
        grade = default
        for judged, g in judgments.items():
            if judged == item:
                grade = g
        out.append(float(grade))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_against_slow_oracle(seed):
    rng = np.random.default_rng(seed)
    rankings, judgments = [], []
    for _ in range(40):
        n = int(rng.integers(1, 25))
        rankings.append([f"doc{i}" for i in rng.choice(60, size=n, replace=False)])
        judged = rng.choice(60, size=int(rng.integers(0, 15)), replace=False)
        judgments.append({f"doc{i}": int(rng.integers(0, 4)) for i in judged})
    batch = relevance_vector(rankings, judgments, default=0)
    for got, r, j in zip(batch, rankings, judgments, strict=True):
        np.testing.assert_array_equal(got, slow_relevance_vector(r, j))


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "ranking, judgments, exc, match",
    [
        ("abc", {"a"}, TypeError, "ranking must be a sequence of item ids, got the string"),
        (b"abc", {"a"}, TypeError, "got the string"),
        ({"a", "b"}, {"a"}, TypeError, "ordered sequence .* got a set"),
        ({"a": 1}, {"a"}, TypeError, "ordered sequence .* got a dict"),
        (5, {"a"}, TypeError, "ranking must be a sequence of item ids, got int"),
        ([], {"a"}, ValueError, "ranking is empty"),
        (np.zeros((2, 2, 2)), {0}, ValueError, "1-D"),
        (["a", {"b"}], {"a"}, TypeError, r"ranking\[1\] is a set, which cannot be an item id"),
        (["a", "b"], "ab", TypeError, "judgments must be .* got the string"),
        (["a", "b"], 3, TypeError, "judgments must be a set, list or tuple"),
        (["a", "b"], [["a"]], TypeError, "judgments holds a list"),
        (["a", "b"], {"a": -1}, ValueError, r"judgments\['a'\] must be a grade >= 0"),
        (["a", "b"], {"a": float("nan")}, ValueError, r"judgments\['a'\] must be a finite"),
        (["a", "b"], {"a": float("inf")}, ValueError, "must be a finite"),
        (["a", "b"], {"a": "high"}, TypeError, r"judgments\['a'\] must be a number"),
        (["a", "b"], {"a": None}, TypeError, "must be a number"),
        (["a", "b", "a"], {"a"}, ValueError, "'a' at positions 1, 3"),
        ([["a"], ["b"]], [{"a"}], ValueError, "judgments holds 1 entries but ranking holds 2"),
        ([["a"], ["b"]], {"a"}, TypeError, r"one entry per query \(2\)"),
        ([["a"], ["b"]], "ab", TypeError, "one entry per query"),
        ([["a"], []], [{"a"}, {"b"}], ValueError, r"ranking\[1\] is empty"),
        ([["a", "a"], ["b"]], [{"a"}, {"b"}], ValueError, r"ranking\[0\] contains duplicate"),
        ([["a"], ["b"]], [{"a"}, {"b": -2}], ValueError, r"judgments\[1\]\['b'\]"),
        ([["a"], "b"], [{"a"}, {"b"}], TypeError, r"ranking\[0\] is a list"),
    ],
)
def test_bad_input(ranking, judgments, exc, match):
    with pytest.raises(exc, match=match):
        relevance_vector(ranking, judgments)


@pytest.mark.parametrize(
    "default, exc, match",
    [
        (-1, ValueError, "default must be a grade >= 0"),
        (float("nan"), ValueError, "default must be a finite grade"),
        ("0", TypeError, "default must be a number"),
    ],
)
def test_bad_default(default, exc, match):
    with pytest.raises(exc, match=match):
        relevance_vector(["a"], {"a"}, default=default)
