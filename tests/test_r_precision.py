"""R-precision: arithmetic, properties, errors."""

import numpy as np
import pytest
from _judged_collection import judged_grades, judged_ragged
from hypothesis import given, settings

from rankeval.metrics.r_precision import r_precision

nan = np.nan


# --- arithmetic ---------------------------------------------------------------------


def test_values_by_hand():
    # R = 3 in the list; the top 3 hold ranks 1 and 3.
    assert r_precision([1, 0, 1, 0, 1]) == 2 / 3
    # R = 5 from the qrels, only 3 retrieved: the top min(3, 5) hold 2, divided by 5.
    assert r_precision([1, 0, 1], n_relevant=5) == 2 / 5
    # Unjudged (NaN) and pooled-unjudged (-1) count as not relevant.
    assert r_precision([nan, -1, 1, 1], n_relevant=2) == 0.0
    assert r_precision([0, 0]) == 0.0  # no relevant document


def test_threshold_and_batch():
    assert r_precision([2, 1, 0, 2], threshold=2) == 1 / 2  # R = 2: grade 2 at ranks 1, 4
    got = r_precision([[1, 0, 1], [0, 1]], n_relevant=[2, 4])
    np.testing.assert_allclose(got, [1 / 2, 1 / 4])


# --- properties ---------------------------------------------------------------------


@settings(max_examples=60)
@given(judged_grades())
def test_perfect_ranking_scores_one(r):
    relevant = sum(1 for g in r if g >= 1)
    ideal = [1.0] * relevant + [0.0] * (len(r) - relevant)
    assert r_precision(ideal) == (1.0 if relevant else 0.0)
    assert 0 <= r_precision(r) <= 1


@settings(max_examples=40)
@given(judged_ragged())
def test_batch_equals_per_query(rs):
    total = [sum(1 for g in r if g >= 1) + 1 for r in rs]
    got = r_precision(rs, n_relevant=total)
    want = [r_precision(r, n_relevant=n) for r, n in zip(rs, total, strict=True)]
    np.testing.assert_array_equal(got, want)


# --- trec_eval: per-query agreement with pytrec_eval is in test_judged_measures_oracle.py




# --- errors -------------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match="smaller than the 2 relevant"):
        r_precision([1, 1], n_relevant=1)
    with pytest.raises(ValueError, match="infinite"):
        r_precision([1, np.inf])
    with pytest.raises(TypeError, match="None"):
        r_precision([1, None])
    with pytest.raises(ValueError, match="threshold must be > 0"):
        r_precision([1, 0], threshold=0)
    with pytest.raises(ValueError, match='"in_list"'):
        r_precision([1, 0], n_relevant="qrels")


def test_input_forms_of_the_judged_batch():
    # The shared NaN-aware input (_validation.as_judged_batch) of every judgment measure.
    pd = pytest.importorskip("pandas")
    assert r_precision(pd.Series([1, nan, 0])) == 1.0
    np.testing.assert_array_equal(r_precision(np.array([[1, nan], [nan, 1]])), [1.0, 0.0])
    np.testing.assert_array_equal(r_precision([np.array([1.0]), [nan, 1]]), [1.0, 0.0])
    with pytest.raises(ValueError, match=r"relevance\[1\] is empty"):
        r_precision([[1], []])
    with pytest.raises(ValueError, match="relevance is empty"):
        r_precision([])
    with pytest.raises(TypeError, match="mixes numbers and sequences"):
        r_precision([[1, 0], 1])
    with pytest.raises(TypeError, match="got a string"):
        r_precision("101")
    with pytest.raises(ValueError, match="got 3-D"):
        r_precision(np.zeros((2, 2, 2)))
