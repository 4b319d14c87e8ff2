"""Paired comparisons: agreement with SciPy, seeded determinism, corrections, errors."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from rankeval import (
    adjust_pvalues,
    bootstrap_ci,
    compare,
    effect_size,
    evaluate,
    paired_test,
    report,
)


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


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", range(3))
def test_exact_permutation_equals_scipy(seed, alternative):
    a, b = scores(seed, n=10)  # 2**10 = 1024 <= 2000: every sign pattern, no randomness
    ref = stats.permutation_test(
        (a, b), mean_difference, permutation_type="samples", vectorized=True,
        n_resamples=2000, alternative=alternative, rng=np.random.default_rng(seed + 7),
    )
    got = paired_test(a, b, test="permutation", n_resamples=2000, seed=seed,
                      alternative=alternative)
    assert got.statistic == pytest.approx(np.mean(a - b), rel=1e-15)
    assert got.pvalue == ref.pvalue


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", range(4))
def test_sampled_permutation_agrees_with_scipys_permutation_test(seed, alternative):
    """Random sign patterns: the p-value is a Monte Carlo estimate of the same
    quantity SciPy's permutation_test (swapping each query's two scores) estimates,
    with the same convention; two estimates from 20,000 patterns each differ by
    at most a few standard errors."""
    rng = np.random.default_rng(seed)
    n = 40
    a = rng.random(n)
    b = a - rng.normal(0.02 * seed, 0.1, n)  # from no difference to a clear one
    B = 20_000
    ref = stats.permutation_test(
        (a, b), mean_difference, permutation_type="samples", vectorized=True,
        n_resamples=B, alternative=alternative, rng=np.random.default_rng(100 + seed),
    ).pvalue
    got = paired_test(a, b, test="permutation", n_resamples=B, seed=seed,
                      alternative=alternative).pvalue
    k = 2 if alternative == "two-sided" else 1  # the two-sided p doubles a one-sided tail
    q = min(max(ref, got) / k, 0.5)  # that tail (the larger estimate: the wider bound)
    assert abs(got - ref) <= 5 * k * np.sqrt(2 * q * (1 - q) / B) + 2 * k / B
    assert got >= k / (B + 1)  # the observed pattern counts: never 0


def test_sampled_permutation_agrees_with_the_exact_test():
    a, b = scores(5, n=12)  # 2**12 = 4096 patterns
    exact = paired_test(a, b, test="permutation", n_resamples=4096).pvalue
    sampled = paired_test(a, b, test="permutation", n_resamples=4000, seed=1).pvalue
    q = min(exact / 2, 0.5)
    assert abs(sampled - exact) <= 5 * 2 * np.sqrt(q * (1 - q) / 4000) + 4 / 4000


def test_randomization_test_needs_two_queries():
    with pytest.raises(ValueError, match="at least 2 queries"):
        paired_test([0.3], [0.1], test="permutation")
    with pytest.raises(ValueError, match="at least 2 queries"):
        paired_test([0.3], [0.1], test="permutation", n_resamples=1)


def test_sampled_permutation_null_flips_each_sign_with_probability_one_half():
    from rankeval.stats.compare import _sign_flips

    d = np.array([1.0, -2.0, 3.0, 0.0])
    flipped = _sign_flips(d, np.random.default_rng(0))(size=(100_000, 4))
    assert flipped.shape == (100_000, 4)
    assert np.array_equal(np.abs(flipped), np.broadcast_to(np.abs(d), flipped.shape))
    share = (flipped[:, :3] == d[:3]).mean(axis=0)  # kept sign, per query
    assert np.all(np.abs(share - 0.5) < 0.01)  # about 6 standard errors of 100,000 draws


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
    table = compare({"one": r1, "two": r2}, measures="AP")
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
    with pytest.raises(ValueError, match="use compare"):
        paired_test(frame, frame)
    with pytest.raises(ValueError, match="has no column 'P@5'"):
        compare({"x": frame, "y": frame}, measures="P@5")
    with pytest.raises(ValueError, match="one column of scores, but 2 measures"):
        compare({"x": a, "y": b}, measures=["AP", "RR"])
    with pytest.raises(TypeError, match="measures must be names"):
        compare({"x": frame, "y": frame}, measures=[1])
    with pytest.raises(ValueError, match="pvalues must lie in"):
        adjust_pvalues([0.5, 1.5])
    with pytest.raises(ValueError, match="n_resamples must be a positive integer"):
        paired_test(a, b, test="permutation", n_resamples=0)
    with pytest.raises(TypeError, match="n_resamples must be a positive integer"):
        paired_test(a, b, test="permutation", n_resamples=1.5)
    with pytest.raises(ValueError, match="correction must be one of"):
        adjust_pvalues([0.5], correction="sidak")
    with pytest.raises(TypeError, match="pvalues must hold numbers"):
        adjust_pvalues(["0.5"])


# --- regression tests of issue 9, point 5 ------------------------------------------------


def test_huge_permutation_count_is_refused_before_allocating():
    a, b = scores(0, n=40)
    with pytest.raises(ValueError, match="above the limit of 10,000,000 resamples"):
        paired_test(a, b, test="permutation", n_resamples=2**30)


def test_huge_resample_count_with_few_queries_runs_the_exact_test():
    # 2**30 resamples of 5 queries: SciPy enumerates the 32 sign patterns instead.
    a, b = [0.5, 0.3, 0.6, 0.7, 0.2], [0.2, 0.2, 0.4, 0.3, 0.1]
    exact = paired_test(a, b, test="permutation", n_resamples=2**30)
    # all five differences are positive: only the all-positive and all-negative
    # patterns reach the observed |mean|, so p = 2 / 32
    assert exact.pvalue == pytest.approx(2 / 32)


def test_huge_bootstrap_is_refused():
    a, b = scores(0, n=40)
    with pytest.raises(ValueError, match="above the limit"):
        bootstrap_ci(a, b, n_resamples=10**8)


def test_resampling_in_batches_keeps_the_seeded_result(monkeypatch):
    # The batch size bounds memory; a fixed seed still gives a fixed answer.
    import sys

    module = sys.modules["rankeval.stats.compare"]

    a, b = scores(4, n=30)
    first = paired_test(a, b, test="permutation", n_resamples=3000, seed=7).pvalue
    monkeypatch.setattr(module, "_BATCH_CELLS", 30 * 100)  # batches of 100 resamples
    assert module._batch(3000, 30) == 100
    batched = paired_test(a, b, test="permutation", n_resamples=3000, seed=7).pvalue
    again = paired_test(a, b, test="permutation", n_resamples=3000, seed=7).pvalue
    assert batched == again
    assert batched == first  # the batches consume one stream of random numbers in order
    low, high = bootstrap_ci(a, b, n_resamples=3000, seed=7)
    assert (low, high) == bootstrap_ci(a, b, n_resamples=3000, seed=7)


@pytest.mark.parametrize("shift", [0.1, -0.25, 1 / 3])
def test_t_test_on_constant_nonzero_differences_is_an_error(shift):
    b = np.array([0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="zero variance"):
        paired_test(b + shift, b, test="t")
    # the permutation test has an answer: all differences share one sign
    assert paired_test(b + shift, b, test="permutation").pvalue == pytest.approx(2 / 16)


def test_bootstrap_needs_two_queries():
    with pytest.raises(ValueError, match="at least 2 queries"):
        bootstrap_ci([0.5], [0.2])


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"confidence": "0.95"}, TypeError, "confidence must be a real number"),
        ({"confidence": None}, TypeError, "confidence must be a real number"),
        ({"confidence": 95}, ValueError, r"confidence must lie in \(0, 1\)"),
        ({"confidence": float("nan")}, ValueError, "confidence must be finite"),
    ],
)
def test_bad_confidence(kwargs, exc, match):
    a, b = scores(0, n=10)
    with pytest.raises(exc, match=match):
        bootstrap_ci(a, b, **kwargs)
    with pytest.raises(exc, match=match):
        compare({"x": a, "y": b}, **kwargs)


@pytest.mark.parametrize(
    "alpha, exc, match",
    [
        ("0.05", TypeError, "alpha must be a real number"),
        (None, TypeError, "alpha must be a real number"),
        (5, ValueError, r"alpha must lie in \(0, 1\)"),
        (True, TypeError, "alpha must be a real number"),
    ],
)
def test_bad_alpha(alpha, exc, match):
    a, b = scores(0, n=10)
    with pytest.raises(exc, match=match):
        compare({"x": a, "y": b}, alpha=alpha)


def test_default_seed_is_reproducible():
    a, b = scores(3, n=20)
    assert paired_test(a, b, test="permutation") == paired_test(a, b, test="permutation")
    assert bootstrap_ci(a, b) == bootstrap_ci(a, b)


@pytest.mark.parametrize(
    "seed, exc, match",
    [("x", TypeError, "got str 'x'"), (1.5, TypeError, "got float 1.5"),
     (True, TypeError, "got bool True"), (-1, ValueError, "seed must be >= 0")],
)  # fmt: skip
def test_bad_seed_is_named(seed, exc, match):
    a, b = scores(3, n=20)
    with pytest.raises(exc, match=match):
        paired_test(a, b, test="permutation", seed=seed)
    with pytest.raises(exc, match=match):
        bootstrap_ci(a, b, seed=seed)
    # an int from NumPy and a Generator are seeds
    assert paired_test(a, b, test="permutation", seed=np.int64(3)) == paired_test(
        a, b, test="permutation", seed=np.random.default_rng(3)
    )


# --- several measures, several systems, reports ------------------------------------------


def _frames(n=30):
    rng = np.random.default_rng(11)
    index = pd.Index([f"q{i}" for i in range(n)], name="query_id")
    base = rng.uniform(0, 1, (n, 2))
    return {
        "bm25": pd.DataFrame(base, columns=["AP", "nDCG@10"], index=index),
        "dense": pd.DataFrame(np.clip(base + rng.normal(0.15, 0.1, (n, 2)), 0, 1),
                              columns=["AP", "nDCG@10"], index=index),
        "same": pd.DataFrame(np.clip(base + rng.normal(0.0, 0.1, (n, 2)), 0, 1),
                             columns=["AP", "nDCG@10"], index=index),
    }


def test_compare_several_measures_and_systems_is_one_tidy_family():
    frames = _frames()
    table = compare(frames, baseline="bm25", correction="holm")
    assert list(zip(table["system"], table["measure"], strict=True)) == [
        ("dense", "AP"), ("same", "AP"), ("dense", "nDCG@10"), ("same", "nDCG@10")
    ]
    assert (table["other"] == "bm25").all()
    raw = [
        paired_test(frames[s][m], frames["bm25"][m]).pvalue
        for m in ("AP", "nDCG@10") for s in ("dense", "same")
    ]
    np.testing.assert_allclose(table["p_value"], raw)
    # corrected once over all four comparisons, not per measure
    np.testing.assert_allclose(table["p_adjusted"], adjust_pvalues(raw, "holm"))
    for m in ("AP", "nDCG@10"):
        rows = table[table["measure"] == m]
        np.testing.assert_allclose(rows["mean"], [frames[s][m].mean() for s in ("dense", "same")])
        np.testing.assert_allclose(rows["other_mean"], frames["bm25"][m].mean())
    assert table.attrs["correction"] == "holm" and table.attrs["baseline"] == "bm25"
    # one measure picked from the frames gives the rows of that measure (same seed stream
    # for the t-test, which draws nothing)
    one = compare(frames, "AP", baseline="bm25")
    np.testing.assert_allclose(one["p_value"], raw[:2])


def test_report_markdown_marks_best_and_significant():
    frames = _frames()
    table = compare(frames, baseline="bm25")
    text = report(table)
    lines = text.splitlines()
    assert lines[0] == "| system | AP | nDCG@10 |"
    assert lines[1] == "| --- | ---: | ---: |"
    means = {s: f.mean() for s, f in frames.items()}
    best_ap = max(means, key=lambda s: means[s]["AP"])
    assert best_ap == "dense"
    row = next(line for line in lines if line.startswith("| (b) dense"))
    ap_cell = row.split("|")[2].strip()
    assert ap_cell.startswith(f"**{means['dense']['AP']:.4f}**")
    significant = table[(table["system"] == "dense") & (table["measure"] == "AP")]["significant"]
    assert ap_cell.endswith("<sup>a</sup>") == bool(significant.iloc[0])
    assert "Holm correction over 4 comparisons, alpha = 0.05" in text


def test_report_latex_and_lower_is_better():
    a = np.array([3.0, 2.0, 4.0, 5.0, 2.0, 3.0])  # mean rank: lower is better
    b = a + np.array([1.0, 2.0, 1.0, 2.0, 1.5, 1.0])
    table = compare({"x_1": a, "y&z": b}, "MR")
    text = report(table, "latex", digits=2, lower_is_better={"MR"})
    assert r"\begin{tabular}{lr}" in text and r"\toprule" in text
    assert r"(a) x\_1 & \textbf{3.17}$^{b}$ \\" in text
    assert r"(b) y\&z & 4.58 \\" in text  # 19/6 + 8.5/6


def test_report_markdown_escapes_bars_in_names():
    a = np.array([3.0, 2.0, 4.0, 5.0, 2.0, 3.0])
    table = compare({"a|b": a, "c": a + np.array([1.0, 2.0, 1.0, 2.0, 1.5, 1.0])}, "P|5")
    lines = report(table, digits=1).splitlines()
    assert lines[0] == "| system | P\\|5 |"
    # every row has its two cells: the escaped bar does not split one
    rows = lines[2:4]
    assert rows[0].startswith("| (a) a\\|b | 3.2") and rows[1].startswith("| (b) c | ")
    assert all(len(re.split(r"(?<!\\)\|", row)) == 4 for row in rows)


def test_report_errors():
    with pytest.raises(ValueError, match="format must be"):
        report(compare({"x": [0.1, 0.2, 0.4], "y": [0.2, 0.3, 0.3]}), "html")
    with pytest.raises(ValueError, match="returned by rankeval.compare"):
        report(pd.DataFrame({"a": [1]}))
    with pytest.raises(TypeError, match="digits must be an int"):
        report(compare({"x": [0.1, 0.2, 0.4], "y": [0.2, 0.3, 0.3]}), digits=2.5)



def test_compare_names_the_measure_of_named_series():
    a, b = scores(6, n=12)
    index = [f"q{i}" for i in range(12)]
    table = compare({"x": pd.Series(a, index=index, name="AP"),
                     "y": pd.Series(b, index=index, name="AP")})
    assert table["measure"].tolist() == ["AP"]
    unnamed = compare({"x": a, "y": b})
    assert unnamed["measure"].tolist() == ["score"]


# --- differences equal up to rounding -----------------------------------------------------

# per-query differences (0.1 + 0.2) - 0.2, 0.6 - 0.5 and 0.7 - 0.6: all "0.1", not bit-equal
ROUNDED_A, ROUNDED_B = np.array([0.1 + 0.2, 0.6, 0.7]), np.array([0.2, 0.5, 0.6])


def test_effect_size_of_differences_equal_up_to_rounding_is_infinite():
    d = ROUNDED_A - ROUNDED_B
    assert np.ptp(d) > 0  # the case: equal only up to rounding
    with pytest.raises(ValueError, match="zero variance"):
        paired_test(ROUNDED_A, ROUNDED_B)  # the t-test's rule, which effect_size now shares
    assert effect_size(ROUNDED_A, ROUNDED_B)["cohens_d"] == np.inf
    assert effect_size(ROUNDED_B, ROUNDED_A)["cohens_d"] == -np.inf
    table = compare({"a": list(ROUNDED_A), "b": list(ROUNDED_B)}, test="permutation")
    assert table["cohens_d"].tolist() == [np.inf]
    assert effect_size(ROUNDED_A, ROUNDED_A)["cohens_d"] == 0.0


@pytest.mark.parametrize("shift", [0.1, -0.25, 1 / 3, 0.7])
@pytest.mark.parametrize("seed", range(3))
def test_effect_size_is_infinite_exactly_when_the_t_test_sees_zero_variance(shift, seed):
    b = np.random.default_rng(seed).random(8)
    a = b + shift  # differences equal to shift, up to rounding
    with pytest.raises(ValueError, match="zero variance"):
        paired_test(a, b)
    assert effect_size(a, b)["cohens_d"] == np.copysign(np.inf, shift)


def test_effect_size_just_past_the_rounding_tolerance_is_finite():
    eps = np.finfo(np.float64).eps
    d = np.array([0.1, 0.1 * (1 + 64 * eps), 0.1])  # 64 epsilons apart: beyond the 16 allowed
    e = effect_size(d, np.zeros(3))
    assert np.isfinite(e["cohens_d"])
    assert e["cohens_d"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    assert paired_test(d, np.zeros(3)).statistic == pytest.approx(e["cohens_d"] * np.sqrt(3))


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_bootstrap_of_differences_equal_up_to_rounding(method):
    # SciPy's BCa gives NaN and warnings on such data; the interval is their range
    d = ROUNDED_A - ROUNDED_B
    b = np.random.default_rng(0).random(11)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bootstrap_ci(ROUNDED_A, ROUNDED_B, method=method) == (d.min(), d.max())
        low, high = bootstrap_ci(b + 1 / 3, b, method=method)
    assert low <= 1 / 3 <= high and high - low <= 16 * np.finfo(np.float64).eps


# the randomization test: a sign pattern whose mean is the observed one, up to rounding, ties


@pytest.mark.parametrize(
    "alternative, want",
    [("greater", 3 / 4), ("less", 3 / 4), ("two-sided", 1.0)],
)
def test_permutation_counts_ties_hidden_by_rounding(alternative, want):
    # differences 0.2 - 0.7 and 1.0 - 0.5, that is -0.5 and +0.5: the 4 sign patterns give
    # means 0, 0, -0.5 and +0.5, three of them >= the observed 0 (and three <= it). In
    # floating point the observed mean is 2.8e-17, and SciPy's tolerance, relative to it,
    # dropped the tied pattern: p was 1/2 instead of 3/4.
    a, b = [0.2, 1.0], [0.7, 0.5]
    assert np.mean(np.subtract(a, b)) != 0  # the case: 0 only up to rounding
    assert paired_test(a, b, test="permutation", alternative=alternative).pvalue == want
    # sampled (3 random patterns): the same draws on the scores times 10, whose means
    # are exact, give the p-value of exact arithmetic (seed 0, "greater": 3/4, was 1/2)
    for seed in range(3):
        got, exact = (
            paired_test(x, y, test="permutation", alternative=alternative, n_resamples=3,
                        seed=seed).pvalue
            for x, y in ((a, b), ([2.0, 10.0], [7.0, 5.0]))
        )
        assert got == exact


def test_permutation_of_a_mean_difference_of_zero_in_decimals_gives_one():
    # differences 0.1, -0.3, 0.5, 0.1, -0.1, -0.3, 0: mean 0 in decimals, 2.4e-17 in floats;
    # the two-sided p-value was 31/32 (both orders)
    a = [0.8, 0.3, 0.5, 1.0, 0.4, 0.4, 0.6]
    b = [0.7, 0.6, 0.0, 0.9, 0.5, 0.7, 0.6]
    assert paired_test(a, b, test="permutation").pvalue == 1.0
    assert paired_test(b, a, test="permutation").pvalue == 1.0


def test_permutation_ties_of_differences_small_beside_the_scores():
    # differences 0.463 - 0.474 and 0.278 - 0.267, -0.011 and +0.011 in decimals: their
    # rounding comes from the scores, larger than 16 epsilons times 0.011 (p was 1/2)
    a, b = [0.463, 0.278], [0.474, 0.267]
    assert paired_test(a, b, test="permutation", alternative="greater").pvalue == 3 / 4


def _decimal_cases(seed, decimals, count=100):
    """``count`` pairs of integer score columns 0..10**decimals (scores of ``decimals``
    decimals times 10**decimals), 2 to 10 queries each."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, 11))
        yield rng.integers(0, 10**decimals + 1, n), rng.integers(0, 10**decimals + 1, n)


def _exact_randomization_pvalue(a10, b10, alternative):
    """The exact test in integer arithmetic: the share of the 2**n sign patterns of the
    integer differences whose sum is >=, <= or (two-sided) in absolute value >= the
    observed sum."""
    d = np.asarray(a10, dtype=np.int64) - np.asarray(b10, dtype=np.int64)
    n = d.size
    signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)  # every pattern, once
    sums = signs @ d
    observed = d.sum()
    extreme = {
        "greater": sums >= observed,
        "less": sums <= observed,
        "two-sided": np.abs(sums) >= abs(observed),
    }[alternative]
    return np.count_nonzero(extreme) / 2**n


@pytest.mark.parametrize("decimals", [1, 3])
@pytest.mark.parametrize("seed", range(4))
def test_exact_permutation_of_decimal_scores_equals_integer_arithmetic(seed, decimals):
    # about 1.6% of the one-decimal cases were wrong, all with an observed mean of 0 in
    # decimals; with three decimals, differences small beside the scores inherit the
    # scores' own rounding (see the next test)
    wrong = []
    for a10, b10 in _decimal_cases(seed, decimals):
        a, b = a10 / 10**decimals, b10 / 10**decimals
        for alternative in ("two-sided", "greater", "less"):
            got = paired_test(a, b, test="permutation", alternative=alternative).pvalue
            want = _exact_randomization_pvalue(a10, b10, alternative)
            if got != want:
                wrong.append((a10.tolist(), b10.tolist(), alternative, got, want))
    assert wrong == []


@pytest.mark.parametrize("seed", range(4))
def test_sampled_permutation_of_one_decimal_scores_equals_integer_arithmetic(seed):
    # The same seed draws the same sign patterns whatever the scores, and the means of
    # integer scores carry no rounding error: the scores times 10 give the p-value that
    # exact arithmetic gives on these draws.
    wrong = []
    for a10, b10 in _decimal_cases(seed, 1):
        a, b = a10 / 10, b10 / 10
        n_resamples = 2 ** a.size - 1  # one short of every pattern: the sampled path
        for alternative in ("two-sided", "greater", "less"):
            got, want = (
                paired_test(x, y, test="permutation", alternative=alternative,
                            n_resamples=n_resamples, seed=seed).pvalue
                for x, y in ((a, b), (a10.astype(float), b10.astype(float)))
            )
            if got != want:
                wrong.append((a10.tolist(), b10.tolist(), alternative, got, want))
    assert wrong == []


# --- too few resamples -----------------------------------------------------------------------


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
@pytest.mark.parametrize("n_resamples", [1, 2, 199])
def test_bootstrap_with_too_few_resamples_is_refused(method, n_resamples):
    # n_resamples=1 gave a zero-width interval and NumPy warnings, 2 with BCa NaN
    a, b = scores(0, n=20)
    with pytest.raises(ValueError, match=r"n_resamples=\d+ is too few for a 0\.95 bootstrap"):
        bootstrap_ci(a, b, n_resamples=n_resamples, method=method)


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99])
def test_bootstrap_needs_five_resamples_beyond_each_end(confidence):
    a, b = scores(1, n=20)
    need = round(2 * 5 / (1 - confidence))  # (1 - confidence) / 2 of them is 5 resamples
    with pytest.raises(ValueError, match=f"must be at least 10 / \\(1 - confidence\\) = {need:,}$"):
        bootstrap_ci(a, b, confidence=confidence, n_resamples=need - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for method in ("percentile", "basic", "BCa"):
            low, high = bootstrap_ci(a, b, confidence=confidence, n_resamples=need,
                                     method=method)
            assert low < high


def test_compare_needs_enough_resamples_for_its_bootstrap_whatever_the_test():
    a, b = scores(2, n=10)
    for test in ("t", "permutation"):
        with pytest.raises(ValueError, match="n_resamples=199 is too few for a 0.95 bootstrap"):
            compare({"x": a, "y": b}, test=test, n_resamples=199)
    with pytest.raises(ValueError, match="n_resamples=999 is too few for a 0.99 bootstrap"):
        compare({"x": a, "y": b}, confidence=0.99, n_resamples=999)
    table = compare({"x": a, "y": b}, n_resamples=200)
    assert table["ci_low"].iloc[0] < table["ci_high"].iloc[0]


@pytest.mark.parametrize("alternative, floor", [("two-sided", 2), ("greater", 1), ("less", 1)])
@pytest.mark.parametrize("n_resamples", [1, 2, 5, 38])
def test_permutation_test_with_few_sign_patterns_is_coarse_but_valid(n_resamples, alternative,
                                                                     floor):
    # sampled patterns: the observed one counts, so p >= 1 / (B + 1) per tail; no warning
    a, b = scores(3, n=30)  # 2**30 patterns: sampled, not exact
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = paired_test(a, b, test="permutation", n_resamples=n_resamples,
                        alternative=alternative).pvalue
    assert min(1.0, floor / (n_resamples + 1)) <= p <= 1.0


# --- Series, arrays and their pairing ----------------------------------------------------------


def test_compare_pairs_an_array_with_series_by_position():
    a, b = scores(7, n=8)
    ids = [f"q{i}" for i in range(8)]
    s = pd.Series(a, index=ids)
    table = compare({"s": s, "arr": b})
    assert table["p_value"].iloc[0] == paired_test(a, b).pvalue  # as paired_test does
    assert table["difference"].iloc[0] == pytest.approx(np.mean(a - b))
    # two Series listing their queries in one order, with an array: one pairing
    table = compare({"s": s, "arr": b, "t": pd.Series(b / 2, index=ids)})
    np.testing.assert_allclose(table["difference"], [np.mean(a - b), np.mean(a - b / 2),
                                                     np.mean(b / 2)])
    # in two orders, the array would be paired with each of them differently
    backwards = pd.Series(b / 2, index=ids).iloc[::-1]
    with pytest.raises(ValueError, match="system 'arr' has no index.*'s' and 't' do not list "
                       "the same queries in the same order"):
        compare({"s": s, "arr": b, "t": backwards})
    # without the array, the Series are matched by query id
    table = compare({"s": s, "t": backwards})
    assert table["difference"].iloc[0] == pytest.approx(np.mean(a - b / 2))


def test_paired_index_errors_name_the_labels_without_warnings():
    s = pd.Series([0.1, 0.2, 0.3], index=["q0", "q0", "q1"])
    t = pd.Series([0.1, 0.2, 0.3], index=["q0", "q1", "q2"])
    with pytest.raises(ValueError, match=r"a has 1 duplicate label \(e\.g\. \['q0'\]\): "
                       "per-query scores must have one value per query"):
        paired_test(s, t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # labels of two types: no warning from pandas' sort
        with pytest.raises(ValueError, match=r"not scored on the same queries: 3 only in a "
                           r"\(e\.g\. \[1, 2, 3\]\), 3 only in b \(e\.g\. \['q0'"):
            paired_test(pd.Series([0.1, 0.2, 0.3], index=[1, 2, 3]), t)


def test_arrow_arrays_pair_by_position():
    pa = pytest.importorskip("pyarrow")
    a, b = [0.2, 0.5, 0.4, 0.9], [0.1, 0.3, 0.5, 0.6]
    want = paired_test(a, b)
    got = paired_test(pa.array(a), pa.array(b))
    assert got.statistic == want.statistic and got.pvalue == want.pvalue
    table = compare({"x": pa.array(a), "y": np.array(b), "z": pd.Series(b)})
    assert len(table) == 3


# --- a zero-variance row in a table -------------------------------------------------------


def test_compare_leaves_a_zero_variance_row_untested_and_tests_the_others():
    # P@1: system b wins every query by exactly 1 (the t statistic would be infinite);
    # AP differs by varying amounts. The table keeps both rows; only AP is tested.
    a = pd.DataFrame({"P@1": [0.0, 0.0, 0.0, 0.0], "AP": [0.2, 0.4, 0.1, 0.3]})
    b = pd.DataFrame({"P@1": [1.0, 1.0, 1.0, 1.0], "AP": [0.5, 0.6, 0.5, 0.9]})
    c = pd.DataFrame({"P@1": [1.0, 0.0, 1.0, 0.0], "AP": [0.3, 0.3, 0.2, 0.6]})
    table = compare({"a": a, "b": b, "c": c}, correction="holm")
    row = table[(table["measure"] == "P@1") & (table["system"] == "a") & (table["other"] == "b")]
    assert len(row) == 1
    assert np.isnan(row["statistic"].iloc[0]) and np.isnan(row["p_value"].iloc[0])
    assert np.isnan(row["p_adjusted"].iloc[0]) and not row["significant"].iloc[0]
    assert row["difference"].iloc[0] == -1.0  # its mean and interval are still given
    assert row["ci_low"].iloc[0] == row["ci_high"].iloc[0] == pytest.approx(-1.0)
    # the other five rows are tested, and corrected as one family of five
    tested = table[table["p_value"].notna()]
    assert len(tested) == 5
    np.testing.assert_allclose(tested["p_adjusted"], adjust_pvalues(tested["p_value"], "holm"))
    for _, r in tested.iterrows():
        x, y = {"a": a, "b": b, "c": c}[r["system"]], {"a": a, "b": b, "c": c}[r["other"]]
        want = stats.ttest_rel(x[r["measure"]], y[r["measure"]]).pvalue
        assert r["p_value"] == pytest.approx(want)
    # report names the untested row and counts only the tested ones
    text = report(table)
    assert "correction over 5 comparisons" in text
    assert "Not tested, zero variance" in text and "a vs b on P@1" in text
    # the permutation test is defined there, and compare then tests every row
    assert compare({"a": a, "b": b, "c": c}, test="permutation")["p_value"].notna().all()


def test_wilcoxon_counts_ties_hidden_by_rounding():
    # 0.3 - 0.2, 0.4 - 0.3 and 0.1 - 0.0 are one difference, 0.1, as three doubles
    # (likewise 0.7 - 0.4 and 0.9 - 0.6); (0.1 + 0.2) - 0.3 is 0 as 5.6e-17. SciPy
    # ranks exact ties only; which ties rounding breaks changes with the order of
    # adding (the CPU's vector instructions, the BLAS kernel), and the p-value with it.
    x = np.array([0.3, 0.4, 0.1, 0.7, 0.25, 0.9, 0.5, 0.1 + 0.2, 0.8])
    y = np.array([0.2, 0.3, 0.0, 0.4, 0.0, 0.6, 0.6, 0.3, 0.35])
    exact = np.array([0.1, 0.1, 0.1, 0.3, 0.25, 0.3, -0.1, 0.0, 0.45])
    want = stats.wilcoxon(exact)
    assert stats.wilcoxon(x, y).pvalue != pytest.approx(want.pvalue)  # SciPy alone
    for alternative in ("two-sided", "greater", "less"):
        got = paired_test(x, y, test="wilcoxon", alternative=alternative)
        ref = stats.wilcoxon(exact, alternative=alternative)
        assert (got.statistic, got.pvalue) == (ref.statistic, ref.pvalue)
    # a difference of 1e-9 is a difference, not rounding
    apart = paired_test(x + np.arange(9) * 1e-9, y, test="wilcoxon")
    assert apart.pvalue == stats.wilcoxon(x + np.arange(9) * 1e-9 - y).pvalue


def test_wins_ties_and_losses_per_query():
    # q1: a better; q2: equal up to rounding (0.3 vs 0.1 + 0.2); q3, q4: a worse
    a = pd.DataFrame({"AP": [0.9, 0.3, 0.2, 0.1], "MR@10": [1.0, 2.0, 3.0, 3.0]},
                     index=["q1", "q2", "q3", "q4"])
    b = pd.DataFrame({"AP": [0.5, 0.1 + 0.2, 0.4, 0.6], "MR@10": [2.0, 2.0, 1.0, 5.0]},
                     index=["q1", "q2", "q3", "q4"])
    table = compare({"a": a, "b": b}, ["AP", "MR@10"]).set_index("measure")
    assert table.loc["AP", ["wins", "ties", "losses"]].tolist() == [1, 1, 2]
    # MR: lower is better, so a lower rank is a win
    assert table.loc["MR@10", ["wins", "ties", "losses"]].tolist() == [2, 1, 1]


def test_report_shows_wins_ties_and_losses_against_the_baseline():
    a = pd.Series([0.9, 0.3, 0.2, 0.1], index=["q1", "q2", "q3", "q4"])
    b = pd.Series([0.5, 0.3, 0.4, 0.6], index=["q1", "q2", "q3", "q4"])
    c = pd.Series([0.6, 0.3, 0.5, 0.7], index=["q1", "q2", "q3", "q4"])
    table = compare({"base": b, "a": a, "c": c}, baseline="base")
    text = report(table, wins=True)
    assert "| (b) a | 0.3750 1/1/2 |" in text
    assert "| (c) c | **0.5250** 3/1/0 |" in text.replace("<sup>a</sup>", "")
    assert "W/T/L: queries won, tied and lost against the baseline (base)." in text
    with pytest.raises(ValueError, match="against a baseline"):
        report(compare({"a": a, "b": b}), wins=True)


def test_report_wraps_its_legend_to_a_width():
    table = compare({"a": [0.2, 0.4, 0.3, 0.5], "b": [0.4, 0.7, 0.5, 0.6]})
    one_line = report(table).split("\n\n")[1]
    wrapped = report(table, width=60).split("\n\n")[1]
    assert "\n" not in one_line and len(one_line) > 60
    assert all(len(line) <= 60 for line in wrapped.splitlines())
    assert " ".join(wrapped.split()) == " ".join(one_line.split())
    latex = report(table, format="latex", width=60).split("\\end{tabular}\n")[1]
    assert all(line.startswith("% ") and len(line) <= 60 for line in latex.splitlines())
    with pytest.raises(ValueError, match="width must be"):
        report(table, width=5)
