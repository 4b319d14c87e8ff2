"""The randomised Tukey HSD test against its exact permutation distribution (all (m!)^n
reassignments enumerated), and wins/losses by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from rankeval.stats.multiple import tukey_hsd, wins_losses

SCORES = pd.DataFrame({"a": [0.9, 0.8, 0.7, 0.9], "b": [0.5, 0.4, 0.6, 0.5],
                       "c": [0.6, 0.5, 0.6, 0.4]}, index=["q1", "q2", "q3", "q4"])


def _exact_p_values(values: np.ndarray) -> dict:
    """The p-value of each pair over every one of the (m!)^n reassignments (the observed
    one included), as Carterette's randomised HSD estimates it."""
    n, m = values.shape
    perms = list(itertools.permutations(range(m)))
    ranges = []
    for choice in itertools.product(perms, repeat=n):
        means = np.mean([values[q, list(p)] for q, p in enumerate(choice)], axis=0)
        ranges.append(means.max() - means.min())
    ranges = np.array(ranges)
    means = values.mean(axis=0)
    return {(i, j): float(np.mean(ranges >= abs(means[i] - means[j]) - 1e-12))
            for i in range(m) for j in range(i + 1, m)}


def test_randomised_p_values_are_within_three_standard_errors_of_the_exact_ones():
    exact = _exact_p_values(SCORES.to_numpy())  # 6^4 = 1296 reassignments
    table = tukey_hsd(SCORES, n_permutations=20_000, seed=1)
    names = list(SCORES.columns)
    for row in table.itertuples():
        p = exact[names.index(row.system), names.index(row.other)]
        se = np.sqrt(p * (1 - p) / 20_000) + 1 / 20_000
        assert abs(row.p_value - p) <= 3 * se, (row.system, row.other, row.p_value, p)
    # the clear gap (a against b) is significant, the small one (b against c) is not
    assert table.set_index(["system", "other"]).loc[("a", "b"), "significant"]
    assert not table.set_index(["system", "other"]).loc[("b", "c"), "significant"]


def test_systems_as_evaluate_tables_are_paired_by_query_id():
    a = pd.DataFrame({"AP": [0.9, 0.8, 0.7, 0.9]}, index=["q1", "q2", "q3", "q4"])
    b = pd.DataFrame({"AP": [0.5, 0.6, 0.4, 0.5]}, index=["q4", "q3", "q2", "q1"])
    c = pd.DataFrame({"AP": [0.6, 0.5, 0.6, 0.4]}, index=["q1", "q2", "q3", "q4"])
    table = tukey_hsd({"a": a, "b": b, "c": c}, "AP", n_permutations=500)
    pd.testing.assert_series_equal(table["difference"],
                                   tukey_hsd(SCORES, n_permutations=500)["difference"])


def test_a_query_missing_from_one_system_is_an_error():
    a = pd.Series([0.9, 0.8], index=["q1", "q2"])
    b = pd.Series([0.5], index=["q1"])
    with pytest.raises(ValueError, match="has no score for 1 query"):
        tukey_hsd({"a": a, "b": b})
    with pytest.raises(ValueError, match="has no score"):
        wins_losses({"a": a, "b": b}, "a")


@pytest.mark.parametrize("kwargs, message", [
    (dict(systems=SCORES[["a"]]), "at least two"),
    (dict(systems=SCORES, n_permutations=10), "n_permutations"),
    (dict(systems=SCORES.assign(a=np.nan)), "finite"),
    (dict(systems={"a": pd.DataFrame({"AP": [1.0, 2.0], "P": [1.0, 0.0]})}), "measure="),
])
def test_bad_input_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tukey_hsd(**kwargs)


def test_wins_losses_by_hand():
    scores = pd.DataFrame({"bm25": [0.5, 0.2, 0.7, 0.30], "dense": [0.6, 0.2, 0.4, 0.31]})
    assert wins_losses(scores, "bm25").values.tolist() == [["dense", 2, 1, 1, 4]]
    assert wins_losses(scores, "bm25", tolerance=0.05).values.tolist() == [["dense", 1, 1, 2, 4]]
    with pytest.raises(ValueError, match="baseline 'x'"):
        wins_losses(scores, "x")


def test_across_runs_against_scipy_and_by_hand():
    from scipy.stats import ttest_rel

    from rankeval.stats.multiple import across_runs

    rng = np.random.default_rng(3)
    a = [pd.DataFrame({"AP": rng.random(30) * 0.5 + 0.3}) for _ in range(5)]
    b = [pd.DataFrame({"AP": rng.random(30) * 0.5 + 0.2}) for _ in range(5)]
    out = across_runs({"a": a, "b": b}, "AP")
    ma = np.array([t["AP"].mean() for t in a])
    mb = np.array([t["AP"].mean() for t in b])
    summary = out["summary"]
    assert summary.loc["a", "mean"] == pytest.approx(ma.mean())
    assert summary.loc["a", "std"] == pytest.approx(ma.std(ddof=1))
    assert summary.loc["b", "se"] == pytest.approx(mb.std(ddof=1) / np.sqrt(5))
    assert summary.loc["a", "runs"] == 5
    row = out["pairs"].iloc[0]
    expected = ttest_rel(ma, mb)
    assert row["p_value"] == pytest.approx(expected.pvalue)
    assert row["difference"] == pytest.approx((ma - mb).mean())
    with pytest.raises(ValueError, match="same number of repetitions"):
        across_runs({"a": a, "b": b[:3]}, "AP")
    with pytest.raises(ValueError, match="at least two"):
        across_runs({"a": a[:1], "b": b[:1]}, "AP")
