"""Checks that every metric function must pass, over one registry of all of them.

The pattern of scikit-learn's ``metrics/tests/test_common.py``: each metric is
registered once with a way to call it (its cut-off, threshold, scale...), in its
measure's row of the one table of measures (``tests/measure_table.py``, ``functions``),
and the invariants shared by all metrics are tested here, for every one of them:

- a batch gives the values of its queries one by one;
- a ragged list of lists gives the values of the same lists zero-padded into a
  2-D array (for the metrics on which zero padding is neutral);
- the caller's input is left unchanged;
- a pandas DataFrame or Series gives the values of the same NumPy array (its
  values are read, never its labels);
- a single query gives a ``float``, a batch a 1-D float64 array;
- every bad input raises ValueError or TypeError with a message saying why.

Module-specific behaviour (formulas, conventions, options) stays in
``tests/test_<module>.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from measure_table import MEASURES, Metric

import rankeval
from rankeval import (
    average_precision,
    average_recall,
    first_relevant_position,
    hit_at_k,
    hits_at_k,
    inversions,
    mean_rank,
    ndcg,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)

FEW = settings(max_examples=25)


# every way of calling a public metric function: the rows' functions of the one table of
# measures (tests/measure_table.py), and the functions that are no measure of evaluate
METRICS = [m for row in MEASURES.values() for m in row.functions] + [
    Metric("inversions", lambda r: inversions(r), k=lambda r, k: inversions(r, k)),
    Metric("inversions@4", lambda r: inversions(r, 4)),
]

BY_NAME = {m.name: m for m in METRICS}
NAMES = list(BY_NAME)
PAD_NEUTRAL = [m.name for m in METRICS if m.pad_neutral]
WITH_K = [m.name for m in METRICS if m.k is not None]
PLAIN = [m.name for m in METRICS if not m.judged]


def rankings(max_grade, min_size=1, max_size=10):
    return st.lists(st.integers(0, max_grade), min_size=min_size, max_size=max_size)


def batches(max_grade, max_queries=5):
    return st.lists(rankings(max_grade), min_size=1, max_size=max_queries)


def _random_batch(metric, seed, n_queries=6, width=8, ragged=True):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, width + 1, n_queries) if ragged else np.full(n_queries, width)
    return [rng.integers(0, metric.max_grade + 1, n).astype(np.float64) for n in lengths]


def _pad(rows, width=None):
    width = width or max(len(r) for r in rows)
    return np.array([list(r) + [0] * (width - len(r)) for r in rows], dtype=np.float64)


def test_the_registry_covers_every_public_metric():
    """Every public function whose first argument is ``relevance`` is registered here."""
    import inspect

    metric_like = set()
    for name in rankeval.__all__:
        obj = getattr(rankeval, name)
        if inspect.isfunction(obj):
            params = list(inspect.signature(obj).parameters)
            if params and params[0] == "relevance":
                metric_like.add(name)
    registered = {m.name.split("(")[0].split("@")[0] for m in METRICS}
    # The diversity measures take one (documents x subtopics) matrix per query, not a
    # grade list, so the checks here do not apply; tests/test_diversity.py has their own.
    per_subtopic = {"alpha_ndcg", "err_ia"}
    # group_auc is a weighted mean of AUROC over users (one number per batch, not one per
    # query), so it is not a measure; tests/test_group_auc.py checks it against RecBole.
    over_users = {"group_auc"}
    unregistered = metric_like - per_subtopic - over_users - registered
    assert not unregistered, sorted(unregistered)


# --- batch equals per query, single float ---------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@FEW
@given(data=st.data())
def test_batch_equals_per_query(name, data):
    metric = BY_NAME[name]
    rows = data.draw(batches(metric.max_grade))
    batch = metric.call(rows)
    assert isinstance(batch, np.ndarray) and batch.dtype == np.float64
    assert batch.shape == (len(rows),)
    singles = [metric.call(r) for r in rows]
    assert all(type(v) is float for v in singles)
    np.testing.assert_allclose(batch, singles, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", PAD_NEUTRAL)
@FEW
@given(data=st.data())
def test_ragged_equals_zero_padded(name, data):
    metric = BY_NAME[name]
    rows = data.draw(batches(metric.max_grade))
    np.testing.assert_allclose(
        metric.call(_pad(rows)), metric.call(rows), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("name", NAMES)
def test_one_row_2d_is_a_batch_of_one(name):
    metric = BY_NAME[name]
    r = _random_batch(metric, 1, n_queries=1)[0]
    value = metric.call(r)
    batch = metric.call(r[None, :])
    assert batch.shape == (1,) and batch[0] == pytest.approx(value, rel=1e-12, abs=1e-12)


# --- input left unchanged, pandas input ------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_input_left_unchanged(name):
    metric = BY_NAME[name]
    rows = _random_batch(metric, 2)
    copies = [r.copy() for r in rows]
    metric.call(rows)
    for r, c in zip(rows, copies, strict=True):
        np.testing.assert_array_equal(r, c)
    matrix = _pad(rows)
    before = matrix.copy()
    metric.call(matrix)
    metric.call(matrix[0])
    np.testing.assert_array_equal(matrix, before)
    frame = pd.DataFrame(matrix, columns=[f"c{i}" for i in range(matrix.shape[1])])
    frame_before = frame.copy()
    metric.call(frame)
    pd.testing.assert_frame_equal(frame, frame_before)


@pytest.mark.parametrize("name", NAMES)
def test_pandas_input_equals_numpy_input(name):
    metric = BY_NAME[name]
    matrix = _pad(_random_batch(metric, 3, ragged=False))
    want = metric.call(matrix)
    # column labels that would be read as grades if the frame were iterated
    labels = [metric.max_grade] * matrix.shape[1]
    frame = pd.DataFrame(matrix, columns=labels, index=[f"q{i}" for i in range(len(matrix))])
    np.testing.assert_allclose(metric.call(frame), want, rtol=1e-12)
    np.testing.assert_allclose(metric.call(frame.astype(int)), want, rtol=1e-12)
    series = pd.Series(matrix[0], index=np.arange(10, 10 + matrix.shape[1]))
    assert metric.call(series) == pytest.approx(metric.call(matrix[0]), rel=1e-12)
    rows = [pd.Series(r) for r in matrix]
    np.testing.assert_allclose(metric.call(rows), want, rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_polars_input_equals_numpy_input(name):
    import polars as pl  # pinned in requirements-test.txt: missing is a failure, not a skip
    metric = BY_NAME[name]
    matrix = _pad(_random_batch(metric, 3, ragged=False))
    want = metric.call(matrix)
    # one column per rank, each named after a grade that iterating would read
    frame = pl.DataFrame({f"{metric.max_grade}.{j}": matrix[:, j] for j in range(matrix.shape[1])})
    np.testing.assert_allclose(metric.call(frame), want, rtol=1e-12)
    assert metric.call(pl.Series(matrix[0])) == pytest.approx(metric.call(matrix[0]), rel=1e-12)


@pytest.mark.parametrize("name", PLAIN)
def test_polars_missing_values_are_named_not_misread(name):
    import polars as pl  # pinned in requirements-test.txt: missing is a failure, not a skip
    with pytest.raises(ValueError, match="NaN"):
        BY_NAME[name].call(pl.DataFrame({"a": [1, 0], "b": [None, 1], "c": [0, 1]}))


@pytest.mark.parametrize("name", PLAIN)
def test_pandas_missing_values_are_named_not_misread(name):
    frame = pd.DataFrame([[1, None, 0], [0, 1, 1]]).astype("Int64")
    with pytest.raises(ValueError, match="NaN"):
        BY_NAME[name].call(frame)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("name", NAMES)
def test_array_subclasses_are_read_as_plain_arrays(name):
    plain = np.array([[1, 0, 1], [0, 1, 1]])
    want = BY_NAME[name].call(plain)
    for other in (np.matrix(plain), np.ma.array(plain)):  # a masked array, nothing masked
        got = BY_NAME[name].call(other)
        assert type(got) is np.ndarray and got.shape == (2,)
        np.testing.assert_array_equal(got, want)


def test_dataframe_values_not_labels_regression():
    # issue 9: the column labels 0, 1, 2 were read as the grades of one query
    frame = pd.DataFrame([[3, 3, 3], [3, 3, 3]])
    np.testing.assert_array_equal(precision_at_k(frame, 3), [1.0, 1.0])
    np.testing.assert_array_equal(recall_at_k(frame, 1), [1 / 3, 1 / 3])


def test_a_labelled_series_of_counts_is_matched_by_label_regression():
    # A qrels count (groupby(...).size(), sorted by id) beside a frame in another row
    # order: matched by position it gave [0.5, 0.5] for these rows, with no warning.
    frame = pd.DataFrame([[1, 0, 0], [1, 1, 0]], index=["q2", "q1"])
    counts = pd.Series({"q1": 2, "q2": 4, "q9": 1})  # a query without a row is ignored
    # q2: one relevant item at rank 1 of 4 relevant: AP = 1/4; q1: both of its 2 found
    np.testing.assert_allclose(average_precision(frame, n_relevant=counts), [1 / 4, 1.0])
    np.testing.assert_allclose(recall_at_k(frame, 3, n_relevant=counts), [1 / 4, 2 / 2])
    # the same numbers in the frame's order, without labels
    np.testing.assert_allclose(average_precision(frame, n_relevant=[4, 2]), [1 / 4, 1.0])


def test_a_labelled_series_that_cannot_be_matched_is_refused():
    frame = pd.DataFrame([[1, 0, 0], [1, 1, 0]], index=["q2", "q1"])
    with pytest.raises(ValueError, match=r"no value for 1 .* e\.g\. 'q2'"):
        recall_at_k(frame, 3, n_relevant=pd.Series({"q1": 2, "q3": 4}))
    with pytest.raises(ValueError, match="names a query twice"):
        recall_at_k(frame, 3, n_relevant=pd.Series([2, 4, 4], index=["q1", "q2", "q2"]))
    # rankings without labels: a Series with labels has nothing to be matched with
    with pytest.raises(ValueError, match=r"labels \(e\.g\. 'q1'\).*to_numpy"):
        recall_at_k([[1, 0], [1, 1]], 2, n_relevant=pd.Series({"q1": 2, "q2": 4}))
    # ... while a Series with the default index is read by position
    np.testing.assert_allclose(
        recall_at_k([[1, 0], [1, 1]], 2, n_relevant=pd.Series([2, 4])), [1 / 2, 2 / 4]
    )


def test_an_ideal_frame_in_another_row_order_is_refused():
    frame = pd.DataFrame([[1, 0, 0], [1, 1, 0]], index=["q2", "q1"])
    same = pd.DataFrame([[1, 1, 1], [1, 1, 0]], index=["q2", "q1"])
    np.testing.assert_allclose(ndcg(frame, ideal=same), ndcg(frame, ideal=same.to_numpy()))
    with pytest.raises(ValueError, match="row labels are not those of relevance"):
        ndcg(frame, ideal=same.iloc[::-1])


# --- bad inputs ------------------------------------------------------------------------

BAD_RELEVANCE = [
    ([], ValueError, "is empty"),
    ([[1, 0], []], ValueError, r"relevance\[1\] is empty"),
    (np.zeros((2, 0)), ValueError, "empty"),
    (np.zeros((0, 3)), ValueError, "no queries"),
    (np.zeros((2, 2, 2)), ValueError, "got 3-D"),
    ("1010", TypeError, "got a string"),
    ({1, 0}, TypeError, "got a set"),
    ({"a": 1}, TypeError, "got a dict"),
    (3, TypeError, "got the scalar 3"),
    (["b", "f"], TypeError, "must contain numbers"),
    ([1, [1, 0]], TypeError, "mixes numbers and sequences"),
    ([[1, 0], "ab"], TypeError, "must contain numbers.*got 'ab'"),
    ([[1, 0], [[1]]], ValueError, r"relevance\[1\] must be a 1-D ranking"),
    (np.array([1.0, np.inf]), ValueError, "infinite"),
    # found by an adversarial review: a None among grades, a row nesting a list, text
    # that NumPy or pandas would parse as numbers, dates and durations in pandas
    ([1, None, 1], TypeError, "contains None"),
    ([[1, [0]], [1]], ValueError, r"relevance\[0\] nests sequences"),
    (np.array(["1", "0"], dtype=object), TypeError, "must contain numbers.*'1'"),
    (pd.Series(["7067032", "0"]), TypeError, "must contain numbers.*'7067032'"),
    (pd.DataFrame({"a": [1, 0], "b": ["x", "y"]}), TypeError, "must contain numbers.*'x'"),
    (pd.Series(pd.to_datetime(["2024-01-01", "2024-01-02"])), TypeError, "must contain numbers"),
    (pd.Series(pd.to_timedelta([0, 5], unit="s")), TypeError, "must contain numbers"),
    (np.ma.array([1, 0, 5], mask=[0, 0, 1]), TypeError, "masked array with masked items"),
    ([np.ma.array([0, 3], mask=[0, 1]), [1]], TypeError, r"relevance\[0\] is a masked array"),
    # a ragged batch whose zero padding would dwarf its grades (20,001 x 5,000 cells for
    # 25,000 grades) is refused before anything of that size is allocated
    ([[1]] * 20_000 + [[0] * 5_000], ValueError, "would be padded to 20,001 x 5,000"),
]
BAD_PLAIN_ONLY = [
    ([1, -1], ValueError, "negative grades"),
    ([1.0, float("nan")], ValueError, "NaN"),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("relevance, exc, match", BAD_RELEVANCE)
def test_bad_relevance_is_refused_with_a_message(name, relevance, exc, match):
    with pytest.raises(exc, match=match):
        BY_NAME[name].call(relevance)


@pytest.mark.parametrize("name", PLAIN)
@pytest.mark.parametrize("relevance, exc, match", BAD_PLAIN_ONLY)
def test_negative_and_nan_grades_are_refused(name, relevance, exc, match):
    with pytest.raises(exc, match=match):
        BY_NAME[name].call(relevance)


@pytest.mark.parametrize("name", WITH_K)
@pytest.mark.parametrize(
    "k, exc, match",
    [
        (0, ValueError, "k must be a positive int"),
        (-2, ValueError, "k must be a positive int"),
        (2.5, TypeError, "k must be a positive int"),
        (True, TypeError, "k must be a positive int"),
        ("3", TypeError, "k must be a positive int"),
    ],
)
def test_bad_cut_off_is_refused(name, k, exc, match):
    with pytest.raises(exc, match=match):
        BY_NAME[name].k([1, 0, 1], k)


THRESHOLDED = [
    hits_at_k, precision_at_k, recall_at_k, hit_at_k, average_precision, average_recall,
    reciprocal_rank, mean_rank, first_relevant_position,
]


@pytest.mark.parametrize("f", THRESHOLDED, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "threshold, exc, match",
    [
        (0, ValueError, "threshold must be > 0"),
        (-1, ValueError, "threshold must be > 0"),
        (float("nan"), ValueError, "threshold must be finite"),
        ("1", TypeError, "threshold must be a real number"),
        (None, TypeError, "threshold must be a real number"),
    ],
)
def test_bad_threshold_is_refused(f, threshold, exc, match):
    with pytest.raises(exc, match=match):
        f([1, 0, 1], threshold=threshold)


RECALL_TYPE = [recall_at_k, average_precision, average_recall, mean_rank]


@pytest.mark.parametrize("f", RECALL_TYPE, ids=lambda f: f.__name__)
def test_n_relevant_in_list_is_the_explicit_default(f):
    import inspect

    assert inspect.signature(f).parameters["n_relevant"].default == "in_list"
    r = [[0, 1, 0, 0, 1, 0], [1, 0, 0]]
    # "in_list" counts the whole list, not its top k
    np.testing.assert_allclose(f(r, 3), f(r, 3, n_relevant=[2, 1]))


@pytest.mark.parametrize("f", RECALL_TYPE, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "n_relevant, exc, match",
    [
        (None, TypeError, 'n_relevant must be "in_list"'),
        ("all", ValueError, 'n_relevant must be "in_list"'),
        (1, ValueError, "n_relevant is 1, smaller than the 2 relevant"),
        (2.5, TypeError, "whole numbers"),
        ([3, 3, 3], ValueError, "one value per query"),
        (-1, ValueError, "n_relevant"),
        # wrapped around by a cast to int64 before, and named as a negative count
        (10**19, ValueError, "must fit in a 64-bit integer"),
        (1e20, ValueError, "must fit in a 64-bit integer"),
        (10**20, ValueError, "must fit in a 64-bit integer"),  # Python ints: object array
    ],
)
def test_bad_n_relevant_is_refused(f, n_relevant, exc, match):
    with pytest.raises(exc, match=match):
        f([1, 0, 1], n_relevant=n_relevant)


def test_the_recommender_denominator_trap():
    # issue 14: one hit among a user's 7 held-out items is recall 1/7, not 1
    shown = [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert recall_at_k(shown, 10) == 1.0
    assert recall_at_k(shown, 10, n_relevant=7) == pytest.approx(1 / 7)


# --- pairs of rankings (correlation) ---------------------------------------------------

PAIRS = {
    "spearman_rho": lambda x, y: rankeval.spearman_rho(x, y),
    "kendall_tau": lambda x, y: rankeval.kendall_tau(x, y),
    "kendall_tau(a)": lambda x, y: rankeval.kendall_tau(x, y, variant="a"),
    "kendall_tau_distance": lambda x, y: rankeval.kendall_tau_distance(x, y, tie_penalty=0.5),
}


def _pairs(seed, n_rows=5, width=9):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(2, width + 1, n_rows)
    xs = [rng.integers(0, 5, n).astype(float) for n in lengths]
    ys = [rng.integers(0, 5, n).astype(float) for n in lengths]
    return xs, ys


@pytest.mark.parametrize("name", list(PAIRS))
def test_pairs_batch_equals_per_row_and_input_unchanged(name):
    f = PAIRS[name]
    xs, ys = _pairs(4)
    copies = [x.copy() for x in xs + ys]
    batch = f(xs, ys)
    for a, b in zip(xs + ys, copies, strict=True):
        np.testing.assert_array_equal(a, b)
    assert batch.shape == (len(xs),) and batch.dtype == np.float64
    singles = [f(x, y) for x, y in zip(xs, ys, strict=True)]
    assert all(type(v) is float for v in singles)
    np.testing.assert_allclose(batch, singles, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", list(PAIRS))
def test_pairs_pandas_input_equals_numpy(name):
    f = PAIRS[name]
    rng = np.random.default_rng(5)
    x, y = rng.integers(0, 6, (3, 7)), rng.integers(0, 6, (3, 7))
    want = f(x, y)
    # the values are read (never the labels), and items are matched by their labels:
    # the same items in another column order give the same values
    items = [f"i{j}" for j in range(7)]
    shuffled = rng.permutation(7)
    fy = pd.DataFrame(y, columns=items).iloc[:, shuffled]
    got = f(pd.DataFrame(x, columns=items), fy)
    np.testing.assert_allclose(got, want, equal_nan=True)
    sx, sy = pd.Series(x[0], index=items), pd.Series(y[0], index=items).iloc[shuffled]
    assert f(sx, sy) == pytest.approx(f(x[0], y[0]), nan_ok=True)
    with pytest.raises(ValueError, match="must rank the same items"):
        f(pd.Series(x[0], index=range(5, 12)), pd.Series(y[0]))
    with pytest.raises(ValueError, match="duplicate label"):
        f(pd.DataFrame(x, columns=[9] * 7), pd.DataFrame(y))


@pytest.mark.parametrize("name", list(PAIRS))
@pytest.mark.parametrize(
    "x, y, exc, match",
    [
        ([1, 2, 3], [1, 2], ValueError, "rank the same items"),
        ([1], [1], ValueError, "at least 2 items"),
        ("abc", [1, 2, 3], TypeError, "got a string"),
        ([1, np.nan], [1, 2], ValueError, "NaN"),
        ([[1, 2], [1, 2]], [[1, 2]] * 3, ValueError, "x holds 2 rankings but y holds 3"),
    ],
)
def test_pairs_bad_input(name, x, y, exc, match):
    with pytest.raises(exc, match=match):
        PAIRS[name](x, y)


def test_a_pandas_index_of_counts_is_read_by_position():
    # a pandas Index is no Series: it has no labels to match, only values in order
    np.testing.assert_allclose(
        average_precision([[1, 0, 1], [0, 1, 0]], n_relevant=pd.Index([2, 3])),
        [(1 + 2 / 3) / 2, (1 / 2) / 3],
    )
