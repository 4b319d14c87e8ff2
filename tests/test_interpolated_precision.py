"""Interpolated precision and the 11-point average: arithmetic, properties, trec_eval."""

import numpy as np
import pytest
from _judged_collection import judged_grades, judged_ragged
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.metrics.interpolated_precision import eleven_point_average, interpolated_precision

nan = np.nan
LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


# --- arithmetic ---------------------------------------------------------------------


def test_manning_style_curve_by_hand():
    # Relevant at ranks 1, 3, 6, 10; R = 5 (one never retrieved).
    # Precision at those ranks: 1, 2/3, 3/6, 4/10. Interpolated: max at or below.
    r = [1, 0, 1, 0, 0, 1, 0, 0, 0, 1]
    want = {
        0.0: 1.0,  # c = 0: best precision anywhere
        0.2: 1.0,  # c = 1 (rank 1)
        0.4: 2 / 3,  # c = 2 (rank 3)
        0.6: 1 / 2,  # c = 3 (rank 6)
        0.8: 4 / 10,  # c = 4 (rank 10)
        1.0: 0.0,  # c = 5: never reached
    }
    for level, value in want.items():
        assert interpolated_precision(r, level, n_relevant=5) == value


def test_interpolation_takes_the_best_precision_below():
    # Relevant at ranks 2 and 3, R = 2: P(2) = 1/2, P(3) = 2/3; IPrec at c = 1 is 2/3.
    assert interpolated_precision([0, 1, 1], 0.5) == 2 / 3


def test_trec_eval_10_and_9_roundings():
    # R = 3, level 0.4: 1.2 relevant documents. trec_eval 10 rounds to c = 1,
    # trec_eval 9 computes (long)(1.2 + 0.9) = 2.
    r = [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]  # one of three relevant, at rank 2
    assert interpolated_precision(r, 0.4, n_relevant=3) == 1 / 2
    assert interpolated_precision(r, 0.4, n_relevant=3, rounding="trec_eval9") == 0.0
    # R = 5, level 0.5: 2.5 rounds half away from zero, to 3 in both versions.
    r5 = [1, 1, 0, 1, 0, 0, 0, 0]  # third relevant at rank 4: P = 3/4
    assert interpolated_precision(r5, 0.5, n_relevant=5) == 3 / 4
    assert interpolated_precision(r5, 0.5, n_relevant=5, rounding="trec_eval9") == 3 / 4


def test_unjudged_count_as_not_relevant():
    assert interpolated_precision([nan, -1, 1], 1.0) == 1 / 3


def test_eleven_point_by_hand():
    # Relevant at ranks 1 and 4, R = 2: c = lround(2 r) is 0 for r <= 0.2, 1 for
    # 0.3..0.7 (0.6 -> 1.2 -> 1, 0.7 -> 1.4 -> 1), 2 for r >= 0.8 (1.6 -> 2).
    # Levels with c <= 1 read 1; c = 2 reads P(4) = 1/2. Eight ones, three halves.
    r = [1, 0, 0, 1, 0]
    assert eleven_point_average(r) == pytest.approx((8 * 1 + 3 * 0.5) / 11, abs=1e-15)
    assert eleven_point_average([0, 0]) == 0.0


# --- properties ---------------------------------------------------------------------


@settings(max_examples=50)
@given(judged_grades(), st.sampled_from(LEVELS))
def test_perfect_ranking_and_monotone(r, level):
    n_rel = sum(1 for g in r if g >= 1)
    ideal = [1] * n_rel + [0] * (len(r) - n_rel)
    assert interpolated_precision(ideal, level) == (1.0 if n_rel else 0.0)
    values = [interpolated_precision(r, v) for v in LEVELS]
    assert all(a >= b for a, b in zip(values, values[1:], strict=False))  # non-increasing
    assert eleven_point_average(r) == pytest.approx(np.mean(values), abs=1e-12)


@settings(max_examples=40)
@given(judged_ragged(), st.sampled_from(LEVELS))
def test_batch_equals_per_query(rs, level):
    n_rel = [sum(1 for g in r if g >= 1) + 1 for r in rs]
    got = interpolated_precision(rs, level, n_relevant=n_rel)
    want = [interpolated_precision(r, level, n_relevant=n) for r, n in zip(rs, n_rel, strict=True)]
    np.testing.assert_array_equal(got, want)
    got = eleven_point_average(rs, n_relevant=n_rel)
    want = [eleven_point_average(r, n_relevant=n) for r, n in zip(rs, n_rel, strict=True)]
    np.testing.assert_array_equal(got, want)


# --- trec_eval: per-query agreement with pytrec_eval is in test_judged_measures_oracle.py




# --- errors -------------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match=r"recall_level must lie in \[0, 1\]"):
        interpolated_precision([1, 0], 1.5)
    with pytest.raises(TypeError, match="recall_level must be a real number"):
        interpolated_precision([1, 0], "0.5")
    with pytest.raises(ValueError, match='rounding must be "nearest" or "trec_eval9"'):
        eleven_point_average([1, 0], rounding="up")
    with pytest.raises(ValueError, match="smaller than the 1 relevant"):
        eleven_point_average([1, 0], n_relevant=0)


@pytest.mark.parametrize("rounding", ["trec_eval9", "nearest"])
def test_every_cutoff_of_the_eleven_levels_against_trec_eval(rounding):
    """R = 1..80 relevant documents, every relevant one at its own rank: the count c that
    each of the 11 levels reads is the rank of the value, so this pins the rule itself,
    in doubles (0.7 * 3 + 0.9 is just below 3, so trec_eval 9 reads c = 2 there).
    trec_eval9 against pytrec_eval (trec_eval 9.0.8); nearest against trec_eval 10's
    lround, computed here with Python's exact decimal arithmetic of the double."""
    from decimal import ROUND_HALF_UP, Decimal

    levels = [i / 10 for i in range(11)]
    for r in range(1, 81):
        # relevant at ranks 1, 3, 5, ...: the i-th relevant at rank 2i - 1, precision
        # i / (2i - 1), strictly decreasing, so IPrec reads exactly the c-th
        ranking = [1 if j % 2 == 0 else 0 for j in range(2 * r)]
        got = [interpolated_precision(ranking, lv, n_relevant=r, rounding=rounding)
               for lv in levels]  # fmt: skip
        if rounding == "trec_eval9":
            pytrec_eval = pytest.importorskip("pytrec_eval")
            qrels = {"q": {f"d{j:03d}": g for j, g in enumerate(ranking)}}
            run = {"q": {f"d{j:03d}": float(1000 - j) for j in range(len(ranking))}}
            ref = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)["q"]
            want = [ref[f"iprec_at_recall_{lv:.2f}"] for lv in levels]
        else:
            counts = [int(Decimal(lv * r).quantize(Decimal(1), ROUND_HALF_UP)) for lv in levels]
            want = [1.0 if c == 0 else c / (2 * c - 1) for c in counts]
        assert got == want, r
