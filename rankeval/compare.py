r"""Compare systems query by query: paired significance tests, confidence intervals, effect sizes.

Two systems evaluated on the same queries give two columns of per-query
scores (for instance two columns of :func:`rankeval.evaluate` results). Because
queries differ far more from each other than systems do, the comparison works
on the per-query **differences** :math:`d_q = a_q - b_q`:

- :func:`paired_test`: paired t-test, Wilcoxon signed-rank test, or a paired
  randomization (permutation) test that flips the sign of each difference;
- :func:`bootstrap_ci`: bootstrap confidence interval of the mean difference;
- :func:`effect_size`: mean difference and paired Cohen's :math:`d`;
- :func:`adjust_pvalues`: Holm, Bonferroni or Benjamini-Hochberg correction
  when several comparisons are made at once;
- :func:`compare`: all of the above for two or more systems, as a table.

The tests themselves are SciPy's (``ttest_rel``, ``wilcoxon``,
``permutation_test``, ``bootstrap``); SciPy is imported only when called.

Chapter: :doc:`/chapters/15_comparing_systems`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

__all__ = ["PairedTest", "paired_test", "bootstrap_ci", "effect_size", "adjust_pvalues", "compare"]

_TESTS = ("t", "wilcoxon", "permutation")
_CORRECTIONS = ("holm", "bonferroni", "bh", "none")
_ALTERNATIVES = ("two-sided", "greater", "less")


class PairedTest(NamedTuple):
    """Result of :func:`paired_test`."""

    test: str
    statistic: float
    pvalue: float


def _values(x, name):
    """(values, index or None) of a per-query score column."""
    index = None
    if hasattr(x, "columns") and hasattr(x, "index"):  # DataFrame
        if x.shape[1] != 1:
            raise ValueError(
                f"{name} is a DataFrame with {x.shape[1]} columns {list(x.columns)}; pass "
                "metric= to choose one, or a single column"
            )
        x = x.iloc[:, 0]
    if hasattr(x, "index") and hasattr(x, "to_numpy"):  # Series
        index = x.index
        x = x.to_numpy()
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers (per-query scores), got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one score per query), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: no query to compare")
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            f"{name} contains NaN or infinite scores; drop or fill those queries first"
        )
    return arr, index


def _paired(a, b, names=("a", "b")):
    """Align two per-query score columns; ValueError if their queries differ."""
    x, ix = _values(a, names[0])
    y, iy = _values(b, names[1])
    if ix is not None and iy is not None:
        if ix.has_duplicates or iy.has_duplicates:
            raise ValueError("per-query scores must have one value per query (duplicate index)")
        only_x = ix.difference(iy)
        only_y = iy.difference(ix)
        if len(only_x) or len(only_y):
            raise ValueError(
                f"{names[0]} and {names[1]} are not scored on the same queries: "
                f"{len(only_x)} only in {names[0]} (e.g. {list(only_x[:3])}), "
                f"{len(only_y)} only in {names[1]} (e.g. {list(only_y[:3])}); a paired "
                "comparison needs both systems on every query"
            )
        y = y[iy.get_indexer(ix)]
    elif x.size != y.size:
        raise ValueError(
            f"{names[0]} has {x.size} queries and {names[1]} has {y.size}; a paired "
            "comparison needs one score per query from both systems, in the same order"
        )
    return x, y


def _rng(seed):
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _mean_difference(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def paired_test(a, b, *, test="t", alternative="two-sided", n_resamples=10_000, seed=None):
    r"""Paired significance test of two systems' per-query scores.

    Parameters
    ----------
    a, b : array_like of shape (n_queries,), pandas.Series or one-column DataFrame
        Per-query scores of the two systems. Arrays are paired by position;
        Series and DataFrames by their index (query ids), which must hold the
        same queries.
    test : {"t", "wilcoxon", "permutation"}, default="t"
        ``"t"``: paired t-test (``scipy.stats.ttest_rel``). ``"wilcoxon"``:
        Wilcoxon signed-rank test (``scipy.stats.wilcoxon``; queries with a
        zero difference are dropped, its default). ``"permutation"``: paired
        randomization test (``scipy.stats.permutation_test`` with
        ``permutation_type="samples"``): under the null hypothesis each
        query's two scores are exchangeable, so the sign of each difference is
        flipped at random; the statistic is the mean difference. It is exact
        (all :math:`2^n` sign patterns) when ``n_resamples >= 2**n``.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: the alternative that ``a`` scores higher than ``b``.
    n_resamples : int, default=10000
        Random sign patterns of the permutation test.
    seed : int, numpy.random.Generator or None, default=None
        Seed of the permutation test; the same seed gives the same p-value.

    Returns
    -------
    PairedTest
        ``(test, statistic, pvalue)``: t, Wilcoxon's W, or the mean difference;
        p in [0, 1]. When every difference is 0 the tests are undefined
        (SciPy returns NaN for t); this function returns statistic 0 and p = 1
        (no evidence of any difference).

    Raises
    ------
    ValueError
        Different query sets or lengths, NaN scores, unknown test.

    Notes
    -----
    With :math:`d_q = a_q - b_q`, :math:`\bar d` their mean and :math:`s_d`
    their standard deviation over :math:`n` queries, the paired t statistic is
    :math:`t = \bar d / (s_d / \sqrt{n})` with :math:`n - 1` degrees of freedom.
    The randomization test's p-value is the share of sign patterns whose mean
    difference is at least as extreme as the observed one (SciPy adds the
    observed pattern to the count when sampling at random).

    Chapter: :doc:`/chapters/15_comparing_systems`.

    References
    ----------
    .. [1] M. D. Smucker, J. Allan and B. Carterette, "A comparison of
       statistical significance tests for information retrieval evaluation",
       CIKM 2007.

    Examples
    --------
    >>> from rankeval import paired_test
    >>> a = [0.50, 0.70, 0.40, 0.90, 0.60]
    >>> b = [0.40, 0.60, 0.45, 0.70, 0.50]
    >>> r = paired_test(a, b, test="t")
    >>> round(r.statistic, 10)  # mean 0.09 over standard error sqrt(0.008 / 5) = 0.04
    2.25
    >>> round(r.pvalue, 4)
    0.0876
    >>> paired_test(a, a, test="permutation", seed=0).pvalue
    1.0
    """
    if test not in _TESTS:
        raise ValueError(f"test must be one of {', '.join(map(repr, _TESTS))}, got {test!r}")
    if alternative not in _ALTERNATIVES:
        raise ValueError(
            f"alternative must be one of {', '.join(map(repr, _ALTERNATIVES))}, got "
            f"{alternative!r}"
        )
    x, y = _paired(a, b)
    if not np.any(x != y):
        return PairedTest(test, 0.0, 1.0)
    from scipy import stats

    if test == "t":
        if x.size < 2:
            raise ValueError("the paired t-test needs at least 2 queries")
        r = stats.ttest_rel(x, y, alternative=alternative)
    elif test == "wilcoxon":
        r = stats.wilcoxon(x, y, alternative=alternative)
    else:
        n = _positive_int(n_resamples, "n_resamples")
        r = stats.permutation_test(
            (x, y),
            _mean_difference,
            permutation_type="samples",
            vectorized=True,
            n_resamples=n,
            alternative=alternative,
            rng=_rng(seed),
        )
    return PairedTest(test, float(r.statistic), float(r.pvalue))


def _positive_int(n, name):
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def bootstrap_ci(a, b, *, confidence=0.95, n_resamples=10_000, method="percentile", seed=None):
    r"""Bootstrap confidence interval of the mean per-query difference ``a - b``.

    Parameters
    ----------
    a, b : array_like, pandas.Series or one-column DataFrame
        Per-query scores, paired as in :func:`paired_test`.
    confidence : float, default=0.95
        Confidence level, in (0, 1).
    n_resamples : int, default=10000
        Bootstrap resamples (queries drawn with replacement).
    method : {"percentile", "basic", "BCa"}, default="percentile"
        Interval method of ``scipy.stats.bootstrap``.
    seed : int, numpy.random.Generator or None, default=None
        Seed; the same seed gives the same interval.

    Returns
    -------
    (float, float)
        Lower and upper end. When every difference is the same number the
        interval is that number at both ends (SciPy's BCa would give NaN).

    Notes
    -----
    Resampling queries treats them as a sample from a population of queries;
    the interval says how far the mean difference could move on another
    sample of the same size.

    Chapter: :doc:`/chapters/15_comparing_systems`.

    Examples
    --------
    >>> from rankeval import bootstrap_ci
    >>> low, high = bootstrap_ci([0.5, 0.7, 0.4, 0.9, 0.6], [0.4, 0.6, 0.45, 0.7, 0.5], seed=0)
    >>> bool(low < 0.1 < high)
    True
    """
    x, y = _paired(a, b)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if method not in ("percentile", "basic", "BCa"):
        raise ValueError(f"method must be 'percentile', 'basic' or 'BCa', got {method!r}")
    n = _positive_int(n_resamples, "n_resamples")
    d = x - y
    if np.all(d == d[0]):
        return float(d[0]), float(d[0])
    from scipy import stats

    r = stats.bootstrap(
        (d,),
        np.mean,
        confidence_level=confidence,
        n_resamples=n,
        method=method,
        rng=_rng(seed),
    )
    return float(r.confidence_interval.low), float(r.confidence_interval.high)


def effect_size(a, b) -> dict:
    r"""Mean difference and paired Cohen's :math:`d` of ``a - b``.

    Parameters
    ----------
    a, b : array_like, pandas.Series or one-column DataFrame
        Per-query scores, paired as in :func:`paired_test`.

    Returns
    -------
    dict
        ``{"mean_difference": d̄, "cohens_d": d̄ / s_d}`` with :math:`s_d` the
        standard deviation of the differences (``ddof=1``): Cohen's
        :math:`d_z` for paired samples. ``cohens_d`` is 0 when every difference
        is 0, and ±inf when they are all equal but not 0; NaN for one query.

    Notes
    -----
    .. math:: d_z = \frac{\bar d}{s_d}, \qquad
       s_d = \sqrt{\tfrac{1}{n - 1} \sum_q (d_q - \bar d)^2}

    Unlike the t statistic, :math:`d_z` does not grow with the number of
    queries: it says how large the difference is, not how sure we are of it.

    Chapter: :doc:`/chapters/15_comparing_systems`.

    Examples
    --------
    >>> from rankeval import effect_size
    >>> e = effect_size([0.5, 0.7, 0.4, 0.9, 0.6], [0.4, 0.6, 0.45, 0.7, 0.5])
    >>> round(e["mean_difference"], 10), round(e["cohens_d"], 4)  # 0.09 / sqrt(0.008)
    (0.09, 1.0062)
    """
    x, y = _paired(a, b)
    d = x - y
    mean = float(d.mean())
    if d.size < 2:
        return {"mean_difference": mean, "cohens_d": float("nan")}
    sd = float(d.std(ddof=1))
    if sd == 0:
        cohen = 0.0 if mean == 0 else float(np.copysign(np.inf, mean))
    else:
        cohen = mean / sd
    return {"mean_difference": mean, "cohens_d": cohen}


def adjust_pvalues(pvalues, method="holm"):
    r"""Correct p-values for testing several hypotheses at once.

    Parameters
    ----------
    pvalues : array_like of shape (m,)
        Raw p-values in [0, 1].
    method : {"holm", "bonferroni", "bh", "none"}, default="holm"
        ``"bonferroni"``: :math:`\min(1, m p_i)`; controls the family-wise error
        rate. ``"holm"``: step-down Bonferroni, uniformly more powerful and
        also controlling it: sorted ascending, :math:`p_{(i)}` becomes
        :math:`\max_{j \le i} \min(1, (m - j + 1) p_{(j)})`. ``"bh"``:
        Benjamini-Hochberg (``scipy.stats.false_discovery_control``), which
        controls the false discovery rate instead. ``"none"``: unchanged.

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values in the original order; reject hypothesis i at level
        alpha when its adjusted p-value is <= alpha.

    Notes
    -----
    Comparing m systems pairwise makes :math:`m(m - 1)/2` tests; at level
    0.05 each, the chance of at least one false "significant" grows quickly
    with m. Bonferroni and Holm keep that chance (the family-wise error
    rate) at most alpha; Holm rejects everything Bonferroni rejects, and
    sometimes more.

    Chapter: :doc:`/chapters/15_comparing_systems`.

    Examples
    --------
    >>> from rankeval import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bonferroni")
    array([0.03, 0.12, 0.09])
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm")  # sorted: 3 * .01, 2 * .03, max(.06, 1 * .04)
    array([0.03, 0.06, 0.06])
    """
    if method not in _CORRECTIONS:
        raise ValueError(
            f"method must be one of {', '.join(map(repr, _CORRECTIONS))}, got {method!r}"
        )
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be 1-D, got shape {p.shape}")
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("pvalues must lie in [0, 1] (no NaN)")
    m = p.size
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    if method == "bh":
        from scipy import stats

        return stats.false_discovery_control(p, method="bh")
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = stepped
    return out


def compare(
    systems,
    *,
    metric=None,
    baseline=None,
    test="t",
    correction="holm",
    alpha=0.05,
    confidence=0.95,
    n_resamples=10_000,
    seed=0,
):
    r"""Compare two or more systems query by query; one row per pair of systems.

    Parameters
    ----------
    systems : dict of {str: scores} or list of scores
        Per-query scores of each system: 1-D arrays (same query order),
        pandas Series indexed by query id, or DataFrames from
        :func:`rankeval.evaluate` (then choose the column with ``metric``).
        A list is named ``"0"``, ``"1"``, ...
    metric : str, optional
        Column to take from DataFrames; needed when they have several.
    baseline : str, optional
        Compare every other system with this one (``m - 1`` comparisons). By
        default every pair is compared (``m (m - 1) / 2`` comparisons), in the
        given order.
    test : {"t", "wilcoxon", "permutation"}, default="t"
        As in :func:`paired_test`.
    correction : {"holm", "bonferroni", "bh", "none"}, default="holm"
        Multiple-comparison correction of the p-values (see
        :func:`adjust_pvalues`); with a single comparison it changes nothing.
    alpha : float, default=0.05
        Significance level for the ``significant`` column (adjusted p <= alpha).
    confidence : float, default=0.95
        Level of the bootstrap interval of the mean difference.
    n_resamples : int, default=10000
        Resamples of the permutation test and of the bootstrap.
    seed : int or None, default=0
        Seed of the resampling; every comparison draws from one generator
        seeded with it, so the table is reproducible.

    Returns
    -------
    pandas.DataFrame
        One row per comparison ``system`` vs ``other``, with columns
        ``system``, ``other``, ``mean``, ``other_mean``, ``difference``
        (mean of system - other), ``ci_low``, ``ci_high``, ``cohens_d``,
        ``statistic``, ``p_value``, ``p_adjusted``, ``significant``.

    Raises
    ------
    ValueError
        Fewer than two systems, an unknown baseline, systems scored on
        different queries, or bad options.

    Notes
    -----
    Each row uses :func:`paired_test`, :func:`bootstrap_ci` and
    :func:`effect_size` on the per-query differences of its two systems;
    the p-values of all rows are then corrected together with
    :func:`adjust_pvalues`.

    Chapter: :doc:`/chapters/15_comparing_systems`.

    Examples
    --------
    >>> from rankeval import compare
    >>> table = compare({"bm25": [0.2, 0.4, 0.3, 0.5], "dense": [0.3, 0.5, 0.3, 0.7]})
    >>> table[["system", "other", "difference"]]
      system other  difference
    0   bm25 dense       -0.1
    """
    if isinstance(systems, Mapping):
        items = list(systems.items())
    else:
        items = [(str(i), s) for i, s in enumerate(systems)]
    if len(items) < 2:
        raise ValueError(f"compare needs at least two systems, got {len(items)}")
    if correction not in _CORRECTIONS:
        raise ValueError(
            f"correction must be one of {', '.join(map(repr, _CORRECTIONS))}, got "
            f"{correction!r}"
        )
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    names = [str(n) for n, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"system names must be distinct, got {names}")
    scores = {}
    for name, s in items:
        if metric is not None and hasattr(s, "columns"):
            if metric not in s.columns:
                raise ValueError(
                    f"system {name!r} has no column {metric!r} (columns: {list(s.columns)})"
                )
            s = s[metric]
        scores[name] = s
    if baseline is not None:
        if str(baseline) not in scores:
            raise ValueError(f"baseline {baseline!r} is not one of the systems {names}")
        pairs = [(n, str(baseline)) for n in names if n != str(baseline)]
    else:
        pairs = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    rng = _rng(seed)
    rows = []
    for s, o in pairs:
        x, y = _paired(scores[s], scores[o], names=(s, o))
        t = paired_test(x, y, test=test, n_resamples=n_resamples, seed=rng)
        low, high = bootstrap_ci(x, y, confidence=confidence, n_resamples=n_resamples, seed=rng)
        e = effect_size(x, y)
        rows.append(
            {
                "system": s,
                "other": o,
                "mean": float(x.mean()),
                "other_mean": float(y.mean()),
                "difference": e["mean_difference"],
                "ci_low": low,
                "ci_high": high,
                "cohens_d": e["cohens_d"],
                "statistic": t.statistic,
                "p_value": t.pvalue,
            }
        )
    import pandas as pd

    table = pd.DataFrame(rows)
    table["p_adjusted"] = adjust_pvalues(table["p_value"].to_numpy(), correction)
    table["significant"] = table["p_adjusted"] <= alpha
    return table
