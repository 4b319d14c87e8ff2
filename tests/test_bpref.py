"""bpref: arithmetic, properties, errors."""

import numpy as np
import pytest
from _judged_collection import judged_grades, judged_ragged
from hypothesis import given, settings

from rankeval.metrics.bpref import bpref

nan = np.nan


# --- arithmetic ---------------------------------------------------------------------


def test_buckley_voorhees_by_hand():
    # R = 3, N = 4. Ranking: rel, nonrel, unjudged, rel, nonrel, -1 (pooled, unjudged), rel.
    # Relevant docs see 0, 1 and 2 judged non-relevant docs above them; min(N, R) = 3.
    r = [1, 0, nan, 1, 0, -1, 1]
    assert bpref(r, n_relevant=3, n_nonrelevant=4) == pytest.approx(
        (1 + (1 - 1 / 3) + (1 - 2 / 3)) / 3, abs=1e-15
    )


def test_min_r_n_denominator():
    # N = 1 < R = 3: the one non-relevant doc above a relevant one costs it everything.
    assert bpref([0, 1, 1], n_relevant=3, n_nonrelevant=1) == 0.0
    # Non-relevant docs above beyond R are capped at R: min(5, 2) / min(6, 2) = 1.
    assert bpref([0, 0, 0, 0, 0, 1], n_relevant=2, n_nonrelevant=6) == 0.0


def test_unjudged_are_skipped_and_missing_relevant_score_zero():
    assert bpref([nan, -1, nan, 1], n_relevant=1, n_nonrelevant=5) == 1.0
    assert bpref([1, 0], n_relevant=4, n_nonrelevant=1) == 1 / 4
    assert bpref([0, 0], n_relevant=0, n_nonrelevant=2) == 0.0


def test_threshold():
    # Threshold 2: grade 1 is judged non-relevant. R = 1 (the 2), N = 2 (the 1 and the 0).
    assert bpref([1, 2, 0], n_relevant=1, n_nonrelevant=2, threshold=2) == 1 - 1 / 1


# --- properties ---------------------------------------------------------------------


@settings(max_examples=60)
@given(judged_grades())
def test_relevant_first_scores_one_and_range(r):
    g = np.array(r)
    n_rel, n_non = int((g >= 1).sum()), int(((g >= 0) & (g < 1)).sum())
    value = bpref(r, n_relevant=n_rel, n_nonrelevant=n_non)
    assert 0 <= value <= 1
    best = sorted(r, key=lambda x: -x if x >= 0 else 0.5)  # relevant, then unjudged, then 0
    assert bpref(best, n_relevant=n_rel, n_nonrelevant=n_non) == (1.0 if n_rel else 0.0)


@settings(max_examples=40)
@given(judged_ragged())
def test_batch_equals_per_query(rs):
    n_rel = [int((np.array(r) >= 1).sum()) + 1 for r in rs]
    n_non = [int(((np.array(r) >= 0) & (np.array(r) < 1)).sum()) + 2 for r in rs]
    got = bpref(rs, n_relevant=n_rel, n_nonrelevant=n_non)
    want = [
        bpref(r, n_relevant=a, n_nonrelevant=b) for r, a, b in zip(rs, n_rel, n_non, strict=True)
    ]
    np.testing.assert_array_equal(got, want)


# --- trec_eval: per-query agreement with pytrec_eval is in test_judged_measures_oracle.py




# --- errors -------------------------------------------------------------------------


def test_errors():
    with pytest.raises(TypeError, match="n_nonrelevant"):
        bpref([1, 0], n_relevant=1)
    with pytest.raises(ValueError, match="smaller than the 2 judged non-relevant"):
        bpref([0, 1, 0], n_relevant=1, n_nonrelevant=1)
    with pytest.raises(ValueError, match="n_nonrelevant for query 1 is 0"):
        bpref([[0, 1], [1, 0]], n_relevant=1, n_nonrelevant=[1, 0])
    with pytest.raises(ValueError, match="n_nonrelevant must be >= 0"):
        bpref([1], n_relevant=1, n_nonrelevant=-1)
    with pytest.raises(TypeError, match="None"):
        bpref([1, 0], n_relevant=1, n_nonrelevant=None)
    with pytest.raises(ValueError, match="smaller than the 1 relevant"):
        bpref([1, 0], n_relevant=0, n_nonrelevant=1)
