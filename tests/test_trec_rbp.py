"""trec_eval 10's rbp and rbp_resid: arithmetic (pytrec_eval has neither), properties."""

import numpy as np
import pytest
from _judged_collection import judged_grades, judged_ragged
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.metrics.rbp import rbp
from rankeval.metrics.trec_rbp import trec_rbp

nan = np.nan


# --- arithmetic ---------------------------------------------------------------------


def test_graded_gains_divided_by_the_top_grade():
    # Grades 2, 0, 4, 1 with the query's top grade 4: gains 1/2, 0, 1, 1/4; p = 0.9.
    want = 0.1 * (0.5 + 0.81 * 1 + 0.729 * 0.25)
    assert trec_rbp([2, 0, 4, 1]) == pytest.approx(want, abs=1e-15)
    # The top grade comes from the qrels: a 4 that was not retrieved still scales.
    want = 0.1 * (2 / 4 + 0.9 * 1 / 4)
    assert trec_rbp([2, 1], max_grade=4) == pytest.approx(want, abs=1e-15)


def test_binary_grades_are_not_scaled():
    # Top grade 1 (or below): the grade is the gain.
    assert trec_rbp([1, 0, 1], p=0.5) == 0.5 * (1 + 0.25)
    assert trec_rbp([0.5, 0], p=0.5, max_grade=1) == 0.25
    assert trec_rbp([0, 0, nan]) == 0.0


def test_unjudged_gain_nothing_and_threshold_plays_no_part():
    assert trec_rbp([nan, -1, 1], p=0.5) == 0.5 * 0.25


def test_residual_trec_eval_style():
    # Unjudged at ranks 2 and 3 of four documents, p = 0.5:
    # p^4 + (1 - p)(p^1 + p^2) = 1/16 + 1/2 (1/2 + 1/4).
    value, residual = trec_rbp([1, nan, -1, 0], p=0.5, return_residual=True)
    assert value == 0.5
    assert residual == 1 / 16 + 0.5 * (0.5 + 0.25)
    # Every document judged: trec_eval reports 0, not p^n.
    assert trec_rbp([1, 0], p=0.5, return_residual=True) == (0.5, 0.0)
    # Depth k cuts both.
    assert trec_rbp([1, 0, nan], k=2, p=0.5, return_residual=True) == (0.5, 0.0)
    assert trec_rbp([nan, 1], k=1, p=0.5, return_residual=True) == (0.0, 0.5 + 0.5 * 1)


# --- properties ---------------------------------------------------------------------


@settings(max_examples=50)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12), st.sampled_from([0.5, 0.8, 0.9]))
def test_equals_book_rbp_on_scaled_gains(r, p):
    top = max(r)
    gains = np.array(r, dtype=float) / top if top > 1 else np.array(r, dtype=float)
    assert trec_rbp(r, p=p) == pytest.approx(rbp(gains, p=p), abs=1e-12)


@settings(max_examples=50)
@given(judged_grades(), st.sampled_from([0.5, 0.9]))
def test_true_value_within_the_residual(r, p):
    # Filling every unjudged document with the top gain cannot exceed rbp + residual.
    value, residual = trec_rbp(r, p=p, max_grade=3, return_residual=True)
    filled = [3.0 if (np.isnan(g) or g < 0) else g for g in r]
    assert value <= trec_rbp(filled, p=p, max_grade=3) <= value + residual + 1e-12


@settings(max_examples=40)
@given(judged_ragged())
def test_batch_equals_per_query(rs):
    top = [3] * len(rs)
    got, resid = trec_rbp(rs, max_grade=top, return_residual=True)
    want = [trec_rbp(r, max_grade=3, return_residual=True) for r in rs]
    np.testing.assert_array_equal(got, [w[0] for w in want])
    np.testing.assert_array_equal(resid, [w[1] for w in want])


# --- errors -------------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match="max_grade is 2, but the list holds the grade 3"):
        trec_rbp([3, 1], max_grade=2)
    with pytest.raises(ValueError, match="max_grade must be >= 0"):
        trec_rbp([nan], max_grade=-1)
    with pytest.raises(ValueError, match=r"p must lie in \(0, 1\)"):
        trec_rbp([1], p=1)
    with pytest.raises(TypeError, match="return_residual must be True or False"):
        trec_rbp([1], return_residual=1)
    with pytest.raises(ValueError, match="max_grade must be a scalar or hold one value per query"):
        trec_rbp([[1], [2]], max_grade=[3])
