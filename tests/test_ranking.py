"""rankeval.rank_run: the joined, ranked grades of a run (RankedRun)."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import trec_collection
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval
from rankeval import RankedRun, rank_run

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "z": 1}, "q2": {"x": 1, "neg": -1}, "q3": {"m": 0}}
RUN = {
    "q1": {"a": 0.9, "b": 0.8, "d": 0.7, "c": 0.1},
    "q2": {"y": 1.0, "x": 0.5, "neg": 0.7},
    "q9": {"a": 1.0},
}


def _grades(ranked, unjudged=0.0):
    return [g.tolist() for g in ranked.ragged(unjudged=unjudged)]


def test_ranked_grades_offsets_and_counts():
    r = rank_run(QRELS, RUN)
    assert isinstance(r, RankedRun) and len(r) == 2
    assert r.query_ids.tolist() == ["q1", "q2"]  # q3 not in the run, q9 not judged
    assert r.offsets.tolist() == [0, 4, 7] and r.lengths.tolist() == [4, 3]
    np.testing.assert_array_equal(r.grades, [2, 0, np.nan, 1, np.nan, -1, 1])
    assert _grades(r) == [[2, 0, 0, 1], [0, 0, 1]]  # unjudged and negative -> 0
    assert r.padded().tolist() == [[2, 0, 0, 1], [0, 0, 1, 0]]
    assert r.padded(k=2).shape == (2, 2)
    nan = r.padded(unjudged=np.nan)
    assert np.isnan(nan[0, 2]) and nan[1, 1] == -1 and np.isnan(nan[1, 3])
    assert r.n_relevant().tolist() == [3, 1] and r.n_relevant(2).tolist() == [1, 0]
    assert r.n_judged_nonrelevant().tolist() == [1, 0]  # -1 is not judged non-relevant
    assert r.ideal_grades().tolist() == [[2, 1, 1], [1, 0, 0]]
    assert r.ideal_grades(k=1).tolist() == [[2], [1]]
    assert r.grade_counts(2).tolist() == [[2, 1], [1, 0]]
    assert r.max_judged_grade().tolist() == [2, 1]
    np.testing.assert_array_equal(r.scores, [0.9, 0.8, 0.7, 0.1, 1.0, 0.7, 0.5])


def test_judged_pool_holds_every_judged_grade_of_each_query():
    r = rank_run(QRELS, RUN, missing="zero")  # q3 kept, with an empty ranking
    assert r.query_ids.tolist() == ["q1", "q2", "q3"]
    edges = r.judged_offsets
    pools = [sorted(r.judged[a:b].tolist()) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    # ranked or not ("z" is not in the run); the -1 of q2 is left out (unjudged in trec_eval)
    assert pools == [[0, 1, 1, 2], [1], [0]]
    tail = r[1:]
    assert tail.judged_offsets.tolist() == [0, 1, 2] and sorted(tail.judged.tolist()) == [0, 1]


def test_ideal_retrieved_counts_only_the_ranked_documents():
    r = rank_run(QRELS, RUN, ideal="retrieved")
    assert r.n_relevant().tolist() == [2, 1]
    assert r.ideal_grades().tolist() == [[2, 1], [1, 0]]


def test_metric_functions_take_the_ranked_grades():
    r = rank_run(QRELS, RUN)
    np.testing.assert_allclose(
        rankeval.average_precision(r.padded(), n_relevant=r.n_relevant()),
        [(1 + 2 / 4) / 3, 1 / 3],
    )
    assert rankeval.precision_at_k(r.ragged(), 2).tolist() == [0.5, 0.0]


def test_query_ids_sorted_by_bytes_and_integers_numerically():
    ids = ["b", "Z", "\u00e9", "a", "\u4e2d", "a10", "a9"]
    qrels = {q: {"d": 1} for q in ids}
    run = {q: {"d": 1.0} for q in ids}
    got = rank_run(qrels, run).query_ids.tolist()
    assert got == sorted(ids, key=lambda s: s.encode())
    assert got == ["Z", "a", "a10", "a9", "b", "\u00e9", "\u4e2d"]
    ints = rank_run(
        {10: {1: 1}, 9: {1: 1}, 100: {1: 1}}, {10: {1: 1.0}, 9: {1: 1.0}, 100: {1: 1.0}}
    )
    assert ints.query_ids.dtype == np.int64 and ints.query_ids.tolist() == [9, 10, 100]


def test_ties_by_doc_id_descending_as_bytes():
    docs = ["d10", "d9", "d2", "\u00e9", "z", "Z", "d1\u00e9"]
    qrels = {"q": {d: i + 1 for i, d in enumerate(docs)}}
    run = {"q": dict.fromkeys(docs, 1.0)}
    order = sorted(docs, key=lambda s: s.encode(), reverse=True)  # strcmp, descending
    want = [qrels["q"][d] for d in order]
    assert _grades(rank_run(qrels, run)) == [want]
    assert _grades(rank_run(qrels, run, ties="input")) == [list(range(1, len(docs) + 1))]


def test_ties_average_records_groups():
    qrels = {"q": {"a": 3, "b": 0, "c": 1}, "r": {"x": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}, "r": {"x": 1.0, "y": 1.0}}
    r = rank_run(qrels, run, ties="average")
    assert r.tie_groups.tolist() == [0, 0, 1, 2, 2]
    assert r.tie_groups_padded().tolist() == [[0, 0, 1], [2, 2, -1]]
    assert rank_run(qrels, run).tie_groups is None


def test_judged_only_after_max_docs_as_trec_eval():
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "neg": -1}}
    run = {"q": {"a": 5.0, "u1": 4.0, "neg": 3.5, "b": 3.0, "u2": 2.5, "c": 2.0}}
    assert _grades(rank_run(qrels, run, judged_only=True)) == [[1, 0, 1]]
    # -M 4 keeps a, u1, neg, b; then -J drops u1 and neg
    assert _grades(rank_run(qrels, run, judged_only=True, max_docs=4)) == [[1, 0]]
    assert _grades(rank_run(qrels, run, max_docs=2)) == [[1, 0]]


def test_missing_zero_keeps_judged_queries_with_empty_rankings():
    r = rank_run(QRELS, RUN, missing="zero")
    assert r.query_ids.tolist() == ["q1", "q2", "q3"]
    assert r.lengths.tolist() == [4, 3, 0]
    assert r.padded()[2].tolist() == [0, 0, 0, 0]
    assert r.n_judged_nonrelevant().tolist() == [1, 0, 1]


def test_score_precision_float_ties_scores_equal_in_float32():
    qrels = {"q": {"a": 1, "z": 0}}
    run = {"q": {"a": 1.0 + 1e-12, "z": 1.0}}
    assert _grades(rank_run(qrels, run)) == [[1, 0]]
    assert _grades(rank_run(qrels, run, score_precision="float")) == [[0, 1]]


def test_grades_trec_eval_truncates():
    qrels = {"q": {"a": 1.5, "b": 0.5, "c": -1.5}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert rank_run(qrels, run).grades.tolist() == [1.5, 0.5, -1.5]
    assert rank_run(qrels, run, grades="trec_eval").grades.tolist() == [1, 0, -1]


def test_slices_and_chunks_cover_every_query():
    qrels, run = trec_collection(5, n_queries=30)
    r = rank_run(qrels, run)
    part = r[3:7]
    assert part.query_ids.tolist() == r.query_ids[3:7].tolist()
    assert _grades(part, -9.0) == _grades(r, -9.0)[3:7]
    assert part.n_relevant().tolist() == r.n_relevant()[3:7].tolist()
    blocks = list(r.chunks(max_cells=40))
    assert len(blocks) > 3
    joined = [g for _, b in blocks for g in _grades(b, -9.0)]
    assert joined == _grades(r, -9.0)
    assert [i for s, _ in blocks for i in range(s.start, s.stop)] == list(range(len(r)))
    with pytest.raises(TypeError, match="contiguous slice"):
        r[::2]


@pytest.mark.parametrize("ideal", ["judged", "retrieved"])
def test_chunks_keep_both_padded_matrices_within_budget(ideal):
    # query "big" has a short ranking and 50 judged documents; the others are short
    qrels = {"big": {f"d{i}": 1 for i in range(50)}}
    qrels.update({f"q{i:02d}": {"a": 1, "b": 2} for i in range(30)})
    run = {q: {"a": 2.0, "b": 1.0} for q in qrels}
    r = rank_run(qrels, run, ideal=ideal)
    budget = 40
    blocks = list(r.chunks(max_cells=budget))
    for _, block in blocks:
        if len(block) > 1:  # a single query forms its own block, however wide
            assert block.padded().size <= budget and block.ideal_grades().size <= budget
    assert [i for s, _ in blocks for i in range(s.start, s.stop)] == list(range(len(r)))


@pytest.mark.parametrize("method", ["padded", "ragged", "ideal_grades"])
@pytest.mark.parametrize(
    ("k", "error", "message"),
    [(-1, ValueError, "k must be a positive int"), (0, ValueError, "k must be a positive int"),
     (2.5, TypeError, "k must be a positive int"), (True, TypeError, "k must be a positive int")],
)  # fmt: skip
def test_ranked_run_views_check_k(method, k, error, message):
    r = rank_run(QRELS, RUN)
    with pytest.raises(error, match=message):
        getattr(r, method)(k=k)
    averaged = rank_run(QRELS, RUN, ties="average")
    with pytest.raises(error, match=message):
        averaged.tie_groups_padded(k=k)


def test_float_scores_beyond_float32_become_infinite_quietly():
    import warnings

    run = {"q1": {"a": 1e39, "b": 2e39, "c": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from NumPy's cast
        r = rank_run({"q1": {"a": 1}}, run, score_precision="float")
    # a and b tie at +inf and are ordered by document id, descending (trec_eval)
    assert r.scores.tolist() == [np.inf, np.inf, 1.0] and _grades(r) == [[0, 1, 0]]  # b, a, c


def test_regression_ids_of_different_lengths():
    r = rank_run({"q1": {"d1": 1}}, {"q1": {"d1": 2.0, "abcdefghij": 1.0}})
    assert _grades(r) == [[1, 0]]


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"ties": "random"}, ValueError, r"ties must be one of 'trec_eval', 'input', 'average'"),
        ({"missing": "drop"}, ValueError, r"missing must be one of 'skip', 'zero'"),
        ({"ideal": "all"}, ValueError, r"ideal must be one of 'judged', 'retrieved'"),
        ({"score_precision": 32}, ValueError, r"score_precision must be one of"),
        ({"grades": "int"}, ValueError, r"grades must be one of 'float', 'trec_eval'"),
        ({"judged_only": "yes"}, TypeError, r"judged_only must be True or False"),
        ({"max_docs": 1.5}, TypeError, r"max_docs must be a positive int or None"),
        ({"max_docs": -1}, ValueError, r"max_docs must be a positive int or None, got -1"),
        ({"threshold": 0}, ValueError, r"threshold must be > 0"),
        ({"columns": ["a"]}, TypeError, r"columns must be a dict"),
        ({"columns": {"qid": "x"}}, ValueError, r"not canonical column names"),
    ],
)
def test_option_errors(options, error, message):
    with pytest.raises(error, match=message):
        rank_run(QRELS, RUN, **options)


def test_no_query_in_common():
    with pytest.raises(ValueError, match=r"no query in common \(run: 1 queries, e.g. \['b'\]"):
        rank_run({"a": {"d": 1}}, {"b": {"d": 1.0}})


# --- property: the same data in any form gives the same ranking --------------------------


def _forms(qrels, run):
    q = pd.DataFrame(
        [(qid, d, float(g)) for qid, docs in qrels.items() for d, g in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    r = pd.DataFrame(
        [(qid, d, s) for qid, docs in run.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    return {
        "dicts": (qrels, run),
        "pandas": (q, r),
        "shuffled pandas": (q.sample(frac=1.0, random_state=3), r.sample(frac=1.0, random_state=4)),
        "arrow": (pa.Table.from_pandas(q), pa.Table.from_pandas(r)),
        "mixed": (pa.Table.from_pandas(q), run),
    }


def _same(a, b):
    assert a.query_ids.tolist() == b.query_ids.tolist()
    np.testing.assert_array_equal(a.offsets, b.offsets)
    np.testing.assert_array_equal(a.grades, b.grades)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.n_relevant(), b.n_relevant())
    np.testing.assert_array_equal(a.ideal_grades(), b.ideal_grades())


@settings(max_examples=40)
@given(st.integers(0, 10**6), st.sampled_from(["trec_eval", "input", "average"]), st.booleans())
def test_every_input_form_ranks_alike(seed, ties, judged_only):
    qrels, run = trec_collection(seed, n_queries=8, max_docs=10)
    forms = _forms(qrels, run)
    want = rank_run(*forms["dicts"], ties=ties, judged_only=judged_only)
    for name, (q, r) in forms.items():
        if ties != "trec_eval" and name == "shuffled pandas":
            continue  # tied documents keep the input order there: a shuffle moves them
        _same(rank_run(q, r, ties=ties, judged_only=judged_only), want)


@settings(max_examples=40)
@given(st.integers(0, 10**6))
def test_integer_ids_rank_as_their_text(seed):
    # integer ids take a sorted-search join; their decimal text takes the hash join:
    # same grades, same order (ties compare the ids as text in both)
    rng = np.random.default_rng(seed)
    rows_q, rows_r = [], []
    for q in rng.choice(10**6, size=5, replace=False):
        docs = rng.choice(10 ** int(rng.integers(1, 7)) + 20, size=12, replace=False)
        for d in docs[: int(rng.integers(1, 12))]:
            rows_q.append((int(q), int(d), float(rng.integers(-1, 4))))
        for d in docs[int(rng.integers(0, 6)) :]:
            rows_r.append((int(q), int(d), float(rng.integers(0, 3))))
    q = pd.DataFrame(rows_q, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(rows_r, columns=["query_id", "doc_id", "score"])
    as_text = rank_run(
        q.astype({"query_id": str, "doc_id": str}), r.astype({"query_id": str, "doc_id": str})
    )
    as_int = rank_run(q, r)
    assert as_int.query_ids.dtype == np.int64
    order = np.argsort(as_int.query_ids.astype(str))  # the text ids sort as text
    assert as_int.query_ids.astype(str)[order].tolist() == as_text.query_ids.tolist()
    by_query = dict(zip(as_int.query_ids.tolist(), as_int.ragged(unjudged=-9.0), strict=True))
    for qid, grades in zip(as_text.query_ids.tolist(), as_text.ragged(unjudged=-9.0), strict=True):
        assert by_query[int(qid)].tolist() == grades.tolist()


@settings(max_examples=60)
@given(st.integers(0, 10**6), st.booleans(), st.booleans())
def test_rank_order_is_the_stable_sort_by_query_then_score(seed, together, best_first):
    # both ways: a run as systems write it (each query's rows together, best first:
    # only whole queries move) and any other (Arrow's sort); signed zeros tie
    from rankeval.ranking import _rank_order, stable_order

    rng = np.random.default_rng(seed)
    n_queries = int(rng.integers(1, 6))
    sizes = rng.integers(1, 8, size=n_queries)
    q = np.repeat(rng.permutation(n_queries), sizes).astype(np.int32)
    s = rng.choice([-0.0, 0.0, 1.0, 2.5, -3.0], size=q.size)
    if best_first:
        starts = np.cumsum(sizes) - sizes
        for a, n in zip(starts, sizes, strict=True):
            s[a : a + n] = np.sort(s[a : a + n])[::-1]
    if not together:
        shuffle = rng.permutation(q.size)
        q, s = q[shuffle], s[shuffle]
    rows = np.arange(q.size) * 3  # ascending, not necessarily 0..n-1
    want = np.lexsort((rows, -s, q))
    assert _rank_order(q, s, rows, "input", n_queries).tolist() == want.tolist()
    got = _rank_order(q, s, rows, "trec_eval", n_queries)  # ties: any order (re-sorted later)
    assert sorted(got.tolist()) == list(range(q.size))
    assert q[got].tolist() == q[want].tolist() and s[got].tolist() == s[want].tolist()
    assert stable_order(q, n_queries).tolist() == np.argsort(q, kind="stable").tolist()


@settings(max_examples=40)
@given(st.integers(0, 10**6), st.integers(0, 30), st.integers(0, 30))
def test_join_matches_every_pair_whichever_side_is_larger(seed, n_left, n_right):
    # the join builds its hash table over the smaller table: the pairs it finds must
    # not depend on which one that is (checked against a set intersection)
    from rankeval.ranking import _inner_join

    rng = np.random.default_rng(seed)
    ids = np.array(["d", "d1", "é", "x" * 40, "D", "10"])

    def side(n, label):
        return pa.table(
            {
                "q": rng.integers(0, 3, n).astype(np.int32),
                "doc_id": pa.array(rng.choice(ids, n).tolist(), pa.string()),
                label: np.arange(n, dtype=np.int32),
            }
        )

    left, right = side(n_left, "row"), side(n_right, "at")
    joined = _inner_join(left, right, ["q", "doc_id"], ["row"], ["at"])
    assert joined.column_names == ["row", "at"]
    got = sorted(zip(*joined.to_pydict().values(), strict=True))
    lk = list(zip(left.column("q").to_pylist(), left.column("doc_id").to_pylist(), strict=True))
    rk = list(zip(right.column("q").to_pylist(), right.column("doc_id").to_pylist(), strict=True))
    want = sorted((i, j) for i, a in enumerate(lk) for j, b in enumerate(rk) if a == b)
    assert got == want


@settings(max_examples=60)
@given(
    st.lists(
        st.lists(st.sampled_from([-1, 0, 1, 2, 3, 0.5, 2.0**21, 2.0**22 + 0.5]), max_size=6),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from([None, 1, 2]),
)
def test_ideal_grades_are_each_querys_positive_grades_best_first(per_query, k):
    # whole grades below 2**21 take one packed sort, any other a lexsort: same result
    qrels = {f"q{i}": {f"d{j}": g for j, g in enumerate(gs)} for i, gs in enumerate(per_query)}
    qrels = {q: docs for q, docs in qrels.items() if docs}
    if not qrels:
        return
    ranked = rank_run(qrels, {q: {"d0": 1.0} for q in qrels})
    for gain in (None, lambda g: 2.0**np.minimum(g, 30) - 1):
        got = ranked.ideal_grades(k=k, gain=gain)
        for row, q in zip(got, ranked.query_ids.tolist(), strict=True):
            values = [float(g) for g in qrels[q].values() if g >= 0]
            if gain is not None:
                values = gain(np.array(values)).tolist()
            want = sorted((v for v in values if v > 0), reverse=True)[:k]
            assert row.tolist() == want + [0.0] * (len(row) - len(want))


def test_tied_signed_zeros_keep_their_own_scores():
    # -0.0 ties 0.0, so trec_eval orders them by document id (b before a); each score
    # moves with its document
    r = rank_run({"q": {"a": 1}}, {"q": {"a": -0.0, "b": 0.0}})
    assert np.signbit(r.scores).tolist() == [False, True]
    assert _grades(r, unjudged=-9.0) == [[-9.0, 1.0]]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40000), st.sampled_from([0.0, -0.0, 1.5, -2.0, 1e300,
                                                                   3.0, 1.5 + 1e-12])),
                max_size=60))
def test_by_query_and_score_is_the_stable_order(rows):
    """Arrow's stable sort gives lexsort's order: query ascending,
    score descending, equal scores (-0.0 with 0.0) in input order."""
    from rankeval.ranking import by_query_and_score

    q = np.array([r[0] for r in rows], dtype=np.int64)
    s = np.array([r[1] for r in rows], dtype=np.float64)
    expected = np.lexsort((-s, q))
    assert by_query_and_score(q, s).tolist() == expected.tolist()
    small = q % 7
    assert by_query_and_score(small, s).tolist() == np.lexsort((-s, small)).tolist()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**32 - 1), st.sampled_from([0, 70000]))
def test_few_long_queries_are_ordered_as_lexsort_orders_them(n_queries, seed, offset):
    """Shuffled queries of many rows (by query, then by score within each query,
    two stable NumPy sorts) against lexsort: query ascending, score descending, equal
    scores (-0.0 with 0.0) in input order; codes beyond 16 bits too."""
    from rankeval.ranking import by_query_and_score
    from rankeval.ranking.ordering import _PER_QUERY_ROWS, _by_query_then_score

    rng = np.random.default_rng(seed)
    n = _PER_QUERY_ROWS * n_queries + int(rng.integers(0, 300))
    q = rng.integers(0, n_queries, size=n).astype(np.int64)
    s = rng.choice([0.0, -0.0, 1.5, -2.0, 1e300, 3.0, 1.5 + 1e-12], size=n)
    expected = np.lexsort((-s, q))
    assert by_query_and_score(q, s).tolist() == expected.tolist()
    assert _by_query_then_score(q + offset, s).tolist() == expected.tolist()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_grouped_long_queries_not_in_score_order(n_queries, seed):
    """Each query's rows together (a partition regrouped by query), scores in any
    order: the ranking's order against lexsort's."""
    from rankeval.ranking.ordering import _PER_QUERY_ROWS, _rank_order

    rng = np.random.default_rng(seed)
    lengths = rng.integers(_PER_QUERY_ROWS, 400, size=n_queries)
    codes = rng.permutation(n_queries * 3)[:n_queries]  # not dense, not in order
    q = np.repeat(codes, lengths).astype(np.int64)
    s = rng.choice([0.0, -0.0, 1.5, -2.0, 1e300, 3.0, 1.5 + 1e-12], size=q.size)
    rows = np.arange(q.size)
    assert _rank_order(q, s, rows, "input", n_queries).tolist() == \
        np.lexsort((-s, q)).tolist()
