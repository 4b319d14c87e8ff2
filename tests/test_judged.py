"""Judged@k: arithmetic, properties and errors (ir_measures' definition; no trec_eval)."""

import numpy as np
import pytest
from _judged_collection import judged_grades, judged_ragged
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.metrics.judged import judged_at_k

nan = np.nan


def test_values_by_hand():
    r = [0, nan, 1, -1, nan, 2]
    assert judged_at_k(r, 1) == 1.0
    assert judged_at_k(r, 2) == 1 / 2
    assert judged_at_k(r, 4) == 3 / 4  # -1 is in the qrels: judged for Judged@k
    assert judged_at_k(r, 6) == 4 / 6


def test_short_list_denominator():
    # ir_measures divides by the documents retrieved when fewer than k.
    assert judged_at_k([1, nan], 10) == 1 / 2
    assert judged_at_k([1, nan], 10, divide_by="k") == 1 / 10


def test_batch_padding_is_not_a_document():
    got = judged_at_k([[1, 0, 0], [nan]], 3)
    np.testing.assert_array_equal(got, [1.0, 0.0])
    got = judged_at_k(np.array([[1, nan], [nan, nan]]), 2)
    np.testing.assert_array_equal(got, [0.5, 0.0])


@settings(max_examples=50)
@given(judged_grades(), st.integers(1, 15))
def test_range_and_complete_judgments(r, k):
    assert 0 <= judged_at_k(r, k) <= 1
    complete = [0.0 if np.isnan(g) else g for g in r]
    assert judged_at_k(complete, k) == 1.0


@settings(max_examples=40)
@given(judged_ragged(), st.integers(1, 15))
def test_batch_equals_per_query(rs, k):
    np.testing.assert_array_equal(judged_at_k(rs, k), [judged_at_k(r, k) for r in rs])


def test_errors():
    with pytest.raises(TypeError, match="needs a cut-off"):
        judged_at_k([1, nan], None)
    with pytest.raises(ValueError, match="k must be a positive int"):
        judged_at_k([1, nan], 0)
    with pytest.raises(ValueError, match='divide_by must be "retrieved" or "k"'):
        judged_at_k([1], 2, divide_by="n")
    with pytest.raises(TypeError, match="must contain numbers"):
        judged_at_k(["d1", "d2"], 2)
