"""Paired comparisons: agreement with SciPy, seeded determinism, corrections, errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from rankeval import adjust_pvalues, bootstrap_ci, compare, effect_size, evaluate, paired_test


def scores(seed, n=40, shift=0.05):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(shift, 0.1, n), 0, 1)
    return a, b


def mean_difference(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


# --- agreement with SciPy ----------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_t_and_wilcoxon_equal_scipy(seed, alternative):
    a, b = scores(seed)
    t = stats.ttest_rel(a, b, alternative=alternative)
    got = paired_test(a, b, test="t", alternative=alternative)
    assert (got.statistic, got.pvalue) == pytest.approx((t.statistic, t.pvalue), rel=1e-12)
    w = stats.wilcoxon(a, b, alternative=alternative)
    got = paired_test(a, b, test="wilcoxon", alternative=alternative)
    assert (got.statistic, got.pvalue) == pytest.approx((w.statistic, w.pvalue), rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_permutation_equals_scipy_with_the_same_seed(seed):
    a, b = scores(seed, n=25)
    ref = stats.permutation_test(
        (a, b), mean_difference, permutation_type="samples", vectorized=True,
        n_resamples=2000, rng=np.random.default_rng(seed),
    )
    got = paired_test(a, b, test="permutation", n_resamples=2000, seed=seed)
    assert got.statistic == pytest.approx(np.mean(a - b))
    assert got.pvalue == ref.pvalue


def test_exact_permutation_test_by_hand():
    # 3 queries, differences 0.3, 0.1, 0.2: of the 8 sign patterns only the
    # all-positive and all-negative ones reach |mean| >= 0.2, so p = 2/8.
    a, b = [0.5, 0.3, 0.6], [0.2, 0.2, 0.4]
    got = paired_test(a, b, test="permutation", n_resamples=10_000, seed=0)
    assert got.pvalue == pytest.approx(2 / 8)


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_bootstrap_equals_scipy_with_the_same_seed(method):
    a, b = scores(9)
    ref = stats.bootstrap((a - b,), np.mean, n_resamples=3000, method=method,
                          confidence_level=0.9, rng=np.random.default_rng(5))
    low, high = bootstrap_ci(a, b, n_resamples=3000, method=method, confidence=0.9, seed=5)
    assert (low, high) == (ref.confidence_interval.low, ref.confidence_interval.high)


def test_effect_size_by_hand():
    e = effect_size([0.5, 0.7, 0.4, 0.9, 0.6], [0.4, 0.6, 0.45, 0.7, 0.5])
    # differences 0.1, 0.1, -0.05, 0.2, 0.1: mean 0.09, variance 0.032 / 4
    assert e["mean_difference"] == pytest.approx(0.09)
    assert e["cohens_d"] == pytest.approx(0.09 / np.sqrt(0.032 / 4))
    assert effect_size([1, 2], [1, 2])["cohens_d"] == 0.0
    assert effect_size([2, 3], [1, 2])["cohens_d"] == np.inf


# --- determinism and degenerate cases ------------------------------------------------------


def test_seeded_resampling_is_reproducible():
    a, b = scores(1)
    p1 = paired_test(a, b, test="permutation", n_resamples=500, seed=42).pvalue
    p2 = paired_test(a, b, test="permutation", n_resamples=500, seed=42).pvalue
    assert p1 == p2
    assert bootstrap_ci(a, b, n_resamples=500, seed=3) == bootstrap_ci(a, b, n_resamples=500, seed=3)
    t1 = compare({"x": a, "y": b, "z": a[::-1]}, test="permutation", n_resamples=300)
    t2 = compare({"x": a, "y": b, "z": a[::-1]}, test="permutation", n_resamples=300)
    pd.testing.assert_frame_equal(t1, t2)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "permutation"])
def test_identical_runs(test):
    a, _ = scores(2)
    r = paired_test(a, a, test=test, seed=0)
    assert r.pvalue == 1.0 and r.statistic == 0.0
    assert bootstrap_ci(a, a) == (0.0, 0.0)


@given(st.lists(st.floats(0, 1), min_size=2, max_size=30), st.integers(0, 100))
def test_permutation_pvalue_is_a_probability(values, seed):
    a = np.array(values)
    b = a[::-1].copy()
    p = paired_test(a, b, test="permutation", n_resamples=200, seed=seed).pvalue
    assert 0 < p <= 1


# --- multiple comparisons --------------------------------------------------------------------


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.5]
    np.testing.assert_allclose(adjust_pvalues(p, "bonferroni"), [0.04, 0.16, 0.12, 1.0])
    # sorted 0.01, 0.03, 0.04, 0.5 times 4, 3, 2, 1 -> 0.04, 0.09, 0.08, 0.5, then running max
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), [0.04, 0.09, 0.09, 0.5])
    np.testing.assert_allclose(adjust_pvalues(p, "none"), p)


def _holm_loops(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_against_loops_and_bh_against_scipy(p):
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), _holm_loops(p))
    np.testing.assert_allclose(adjust_pvalues(p, "bh"), stats.false_discovery_control(p))
    holm, bonf = adjust_pvalues(p, "holm"), adjust_pvalues(p, "bonferroni")
    assert np.all(np.asarray(p) <= holm + 1e-15) and np.all(holm <= bonf + 1e-15)


# --- compare --------------------------------------------------------------------------------


def test_compare_pairs_baseline_and_correction():
    a, b = scores(0)
    c = np.clip(a + 0.2, 0, 1)
    table = compare({"A": a, "B": b, "C": c})
    assert list(zip(table["system"], table["other"], strict=True)) == [("A", "B"), ("A", "C"), ("B", "C")]
    raw = [paired_test(x, y).pvalue for x, y in [(a, b), (a, c), (b, c)]]
    np.testing.assert_allclose(table["p_value"], raw)
    np.testing.assert_allclose(table["p_adjusted"], adjust_pvalues(raw, "holm"))
    assert (table["significant"] == (table["p_adjusted"] <= 0.05)).all()
    np.testing.assert_allclose(table["difference"], [np.mean(a - b), np.mean(a - c), np.mean(b - c)])
    assert (table["ci_low"] <= table["difference"]).all() and (table["difference"] <= table["ci_high"]).all()
    base = compare({"A": a, "B": b, "C": c}, baseline="A", correction="bonferroni")
    assert list(zip(base["system"], base["other"], strict=True)) == [("B", "A"), ("C", "A")]
    np.testing.assert_allclose(
        base["p_adjusted"], np.minimum(1, 2 * np.array([paired_test(b, a).pvalue, paired_test(c, a).pvalue]))
    )
    two = compare([a, b])  # one comparison: nothing to correct
    assert two["p_adjusted"].tolist() == two["p_value"].tolist()
    assert two["system"].tolist() == ["0"]


def test_compare_evaluate_frames_aligned_by_query():
    qrels = {f"q{i}": {"a": 1, "b": i % 3} for i in range(12)}
    run1 = {f"q{i}": {"a": 1.0, "b": 0.5 * (i % 2)} for i in range(12)}
    run2 = {f"q{i}": {"b": 1.0, "a": 0.5} for i in range(12)}
    r1 = evaluate(qrels, run1, ["AP", "RR"])
    r2 = evaluate(qrels, run2, ["AP", "RR"]).iloc[::-1]  # another order: aligned by index
    table = compare({"one": r1, "two": r2}, metric="AP")
    assert table["difference"].iloc[0] == pytest.approx((r1["AP"] - r2["AP"].loc[r1.index]).mean())
    single = compare({"one": r1[["RR"]], "two": r2[["RR"]]})
    assert single["difference"].iloc[0] == pytest.approx(r1["RR"].mean() - r2["RR"].mean())


# --- errors ---------------------------------------------------------------------------------


def test_errors():
    a, b = scores(0, n=10)
    with pytest.raises(ValueError, match="10 queries and b has 9"):
        paired_test(a, b[:9])
    s1 = pd.Series(a, index=[f"q{i}" for i in range(10)])
    s2 = pd.Series(b, index=[f"q{i}" for i in range(1, 11)])
    with pytest.raises(ValueError, match=r"not scored on the same queries: 1 only in a \(e\.g\. \['q0'\]\), 1 only in b"):
        paired_test(s1, s2)
    with pytest.raises(ValueError, match="not scored on the same queries"):
        compare({"x": s1, "y": s2})
    with pytest.raises(ValueError, match="NaN"):
        paired_test([0.1, np.nan], [0.2, 0.3])
    with pytest.raises(ValueError, match="test must be one of"):
        paired_test(a, b, test="sign")
    with pytest.raises(ValueError, match="at least two systems"):
        compare({"x": a})
    with pytest.raises(ValueError, match="baseline 'z' is not one of"):
        compare({"x": a, "y": b}, baseline="z")
    with pytest.raises(ValueError, match="correction must be one of"):
        compare({"x": a, "y": b}, correction="sidak")
    frame = pd.DataFrame({"AP": a, "RR": b})
    with pytest.raises(ValueError, match="pass metric= to choose one"):
        compare({"x": frame, "y": frame})
    with pytest.raises(ValueError, match="has no column 'P@5'"):
        compare({"x": frame, "y": frame}, metric="P@5")
    with pytest.raises(ValueError, match="pvalues must lie in"):
        adjust_pvalues([0.5, 1.5])
    with pytest.raises(ValueError, match="n_resamples must be a positive integer"):
        paired_test(a, b, test="permutation", n_resamples=0)
