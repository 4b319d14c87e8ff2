"""infAP: arithmetic, equality with AP under complete judgments."""

import numpy as np
import pytest
from _judged_collection import judged_grades, judged_ragged
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.metrics.infap import inferred_average_precision

nan = np.nan
EPS = 1e-5  # trec_eval's INFAP_EPSILON


def test_values_by_hand():
    # rel, nonrel, -1 (pooled, unjudged), not pooled, rel. R = 3.
    # Rank 0: 1. Rank 4 (j = 4): r = 1 relevant, n = 1 non-relevant, u = 1 pooled above.
    r = [1, 0, -1, nan, 1]
    fifth = 1 / 5 + (4 / 5) * ((1 + 1 + 1) / 4) * ((1 + EPS) / (1 + 1 + 2 * EPS))
    assert inferred_average_precision(r, n_relevant=3) == pytest.approx((1 + fifth) / 3, abs=1e-15)


def test_first_judged_after_unpooled_only():
    # Two unpooled docs, then a relevant one: r = n = u = 0 above, j = 2.
    # 1/3 + (2/3)(0/2)(eps / 2 eps) = 1/3: the unpooled count as non-relevant.
    assert inferred_average_precision([nan, nan, 1], n_relevant=1) == pytest.approx(
        1 / 3, abs=1e-15
    )
    # Two pooled-unjudged above: share pooled 2/2, relevant share eps / 2 eps = 1/2.
    assert inferred_average_precision([-1, -1, 1], n_relevant=1) == pytest.approx(
        1 / 3 + (2 / 3) * 1 * 0.5, abs=1e-15
    )


def test_no_relevant():
    assert inferred_average_precision([0, nan], n_relevant=0) == 0.0


def _average_precision(r, n_rel):
    r = np.asarray(r) >= 1
    ranks = np.flatnonzero(r) + 1
    return float(np.sum(np.arange(1, len(ranks) + 1) / ranks) / n_rel) if n_rel else 0.0


@settings(max_examples=80)
@given(judged_grades(codes=(0.0, 1.0, 2.0)), st.integers(0, 3))
def test_equals_ap_with_complete_judgments(r, missed):
    # |infAP - AP| <= eps / 2 (see the docstring's Notes).
    n_rel = sum(1 for g in r if g >= 1) + missed
    got = inferred_average_precision(r, n_relevant=n_rel)
    assert abs(got - _average_precision(r, n_rel)) <= EPS / 2


@settings(max_examples=40)
@given(judged_ragged())
def test_batch_equals_per_query(rs):
    n_rel = [sum(1 for g in r if g >= 1) + 1 for r in rs]
    got = inferred_average_precision(rs, n_relevant=n_rel)
    want = [inferred_average_precision(r, n_relevant=n) for r, n in zip(rs, n_rel, strict=True)]
    np.testing.assert_array_equal(got, want)




def test_errors():
    with pytest.raises(TypeError, match="n_relevant"):
        inferred_average_precision([1, 0])
    with pytest.raises(ValueError, match="smaller than the 2 relevant"):
        inferred_average_precision([1, 1], n_relevant=1)
    with pytest.raises(ValueError, match="infinite"):
        inferred_average_precision([1, -np.inf], n_relevant=1)
