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
- :func:`compare`: all of the above for several systems and several measures,
  as one tidy table, the p-values corrected across all its comparisons;
- :func:`rankeval.report` (:mod:`rankeval.reporting.tables`): that table as a
  markdown or LaTeX table, the best system of each measure marked and
  significant differences flagged.

The tests themselves are SciPy's (``ttest_rel``, ``wilcoxon``,
``permutation_test`` for the exact randomization test and ``monte_carlo_test``
with random sign flips for the sampled one, ``bootstrap``); SciPy is imported
only when called.

Chapter: :doc:`/chapters/17_comparing_systems`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ..evaluation.aggregate import GM_FLOOR, MEASURES_ATTR, aggregate, measure_of
from ..metrics.validation import check_probability, pandas_kind

__all__ = [
    "PairedTest",
    "paired_test",
    "bootstrap_ci",
    "effect_size",
    "adjust_pvalues",
    "compare",
]

_TESTS = ("t", "wilcoxon", "permutation")
_CORRECTIONS = ("holm", "bonferroni", "bh", "none")
_ALTERNATIVES = ("two-sided", "greater", "less")

#: Most resamples a permutation test or a bootstrap may draw. SciPy keeps every
#: resampled statistic (8 bytes each), so this bounds that array at 80 MB; the
#: resampling itself runs in batches of at most ``_BATCH_CELLS`` values.
MAX_RESAMPLES = 10_000_000
_BATCH_CELLS = 2**22


class _ZeroVariance(ValueError):
    """:func:`paired_test`'s refusal of a t-test on zero variance; :func:`compare`
    records such a row as untested instead of failing the table."""


class PairedTest(NamedTuple):
    """Result of :func:`paired_test`."""

    test: str
    statistic: float
    pvalue: float


def _index_of(x):
    """The index (query ids) of a pandas Series or DataFrame; None for arrays, lists
    and Arrow arrays."""
    return x.index if pandas_kind(x) else None


def _values(x, name):
    """(values, index or None) of a per-query score column."""
    index = None
    if hasattr(x, "columns") and hasattr(x, "index"):  # DataFrame
        if x.shape[1] != 1:
            raise ValueError(
                f"{name} is a DataFrame with {x.shape[1]} columns {list(x.columns)}; pass "
                "one column, or use compare(..., measures=...)"
            )
        x = x.iloc[:, 0]
    if _index_of(x) is not None:  # Series
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


def _match_labels(ix, iy, names, *, differ, need, repeated, equal_may_repeat=False):
    """Match two pandas indexes label by label (shared with :mod:`rankeval.stats.correlation`).

    Returns ``order`` such that ``y[order]`` lists the values labelled by ``iy`` in
    the order of ``ix``, or None when the two indexes are already equal (same
    labels, same order: nothing to move). ValueError when either index holds a
    label twice (message ``"{name} has k duplicate label(s) (e.g. [...]):
    {repeated}"``) or when some labels are on one side only (``"{differ}: k only
    in {names[0]} (e.g. [...]), k' only in {names[1]} (e.g. [...]); {need}"``,
    a side without such labels left out). With ``equal_may_repeat=True``, two
    equal indexes pair by position even if they repeat a label (nothing to
    match; two columns of one frame): repeats are refused only when matching.
    """
    if equal_may_repeat and ix.equals(iy):
        return None
    for index, name in zip((ix, iy), names, strict=True):
        if index.has_duplicates:
            twice = index[index.duplicated()].unique()
            s = "" if len(twice) == 1 else "s"
            raise ValueError(
                f"{name} has {len(twice)} duplicate label{s} (e.g. {twice[:3].tolist()}): "
                f"{repeated}"
            )
    if ix.equals(iy):
        return None
    # sort=False: labels of mixed types (1 and "1") give no warning
    only = [
        (names[0], ix.difference(iy, sort=False)),
        (names[1], iy.difference(ix, sort=False)),
    ]
    if any(len(labels) for _, labels in only):
        sides = ", ".join(
            f"{len(labels)} only in {name} (e.g. {labels[:3].tolist()})"
            for name, labels in only
            if len(labels)
        )
        raise ValueError(f"{differ}: {sides}; {need}")
    return iy.get_indexer(ix)


def _paired(a, b, names=("a", "b")):
    """Align two per-query score columns; ValueError if their queries differ."""
    x, ix = _values(a, names[0])
    y, iy = _values(b, names[1])
    if ix is not None and iy is not None:
        order = _match_labels(
            ix,
            iy,
            names,
            differ=f"{names[0]} and {names[1]} are not scored on the same queries",
            need="a paired comparison needs both systems on every query",
            repeated="per-query scores must have one value per query",
        )
        if order is not None:
            y = y[order]
    elif x.size != y.size:
        raise ValueError(
            f"{names[0]} has {x.size} queries and {names[1]} has {y.size}; a paired "
            "comparison needs one score per query from both systems, in the same order"
        )
    return x, y


#: Differences count as all equal when their range is at most this many machine
#: epsilons times the largest of them: ``0.1 + 0.2 - 0.2`` and ``0.6 - 0.5`` are
#: both "0.1", 1 and 2 units in the last place apart.
_ROUNDING_EPS = 16


def _rounding_tolerance(*arrays):
    """``16 * eps`` times the largest magnitude in ``arrays`` (``eps`` the float64
    machine epsilon): how far apart two numbers made of them (the per-query
    differences, or means of them with any signs) may lie and still count as equal,
    up to rounding. Given the scores too, it covers their own rounding, which a
    difference small beside them inherits (``0.463 - 0.474`` is not ``-0.011``)."""
    return _ROUNDING_EPS * np.finfo(np.float64).eps * max(np.max(np.abs(a)) for a in arrays)


def _snap_ties(d, tolerance):
    """``d`` with ties hidden by rounding made exact: the magnitudes, in ascending
    order, form groups wherever consecutive ones lie within ``tolerance``; each takes
    its group's smallest magnitude, and a group starting within ``tolerance`` of 0
    becomes 0 (signs are kept). For :func:`paired_test`'s Wilcoxon test, whose
    ranks SciPy gives by exact equality."""
    magnitude = np.abs(d)
    order = np.argsort(magnitude, kind="stable")
    ascending = magnitude[order]
    starts = np.diff(ascending, prepend=0.0) > tolerance  # a new group begins
    first = np.concatenate(([0.0], ascending[starts]))[np.cumsum(starts)]
    snapped = np.empty_like(magnitude)
    snapped[order] = first
    return np.sign(d) * snapped


def _constant(d):
    """Whether the differences ``d`` are all equal up to rounding (all 0 included).

    True when ``max(d) - min(d) <= 16 * eps * max(|d|)`` (``eps`` the float64
    machine epsilon, see :func:`_rounding_tolerance`): the zero-variance rule of
    :func:`paired_test`'s t-test, of :func:`effect_size` and of
    :func:`bootstrap_ci`. The differences then share one sign, since their range
    would otherwise exceed the largest of them. The randomization test counts
    ties by the same epsilons, scaled by the scores as well
    (:func:`_randomization_pvalue`).
    """
    return bool(np.ptp(d) <= _rounding_tolerance(d))


def _rng(seed):
    """A Generator from ``seed``: None, a non-negative int or a Generator (checked here,
    so that a bad seed is named instead of failing inside NumPy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None:
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise TypeError(
                f"seed must be None, an int or a numpy.random.Generator, got "
                f"{type(seed).__name__} {seed!r}"
            )
        if seed < 0:
            raise ValueError(f"seed must be >= 0, got {seed}")
    return np.random.default_rng(seed)


def _mean_difference(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def _mean(d, axis=-1):
    return np.mean(d, axis=axis)


def _sign_flips(d, rng):
    """``rvs`` of the randomization test: the differences ``d``, each sign
    flipped with probability 1/2 (a query's two scores swapped), ``size`` at once."""

    def rvs(size):
        return np.where(rng.random(size) < 0.5, -d, d)

    return rvs


def _randomization_pvalue(null, observed, tolerance, alternative, *, sampled):
    """p-value of the randomization test from the mean differences of its sign patterns.

    ``null`` holds the statistic of every pattern (exact test) or of the drawn ones
    (``sampled``: the observed pattern then counts once more, as in SciPy). A
    pattern is at least as extreme as the observed one when it lies beyond it or
    within ``tolerance`` of it (a tie up to rounding); the two-sided p-value is
    twice the smaller tail, at most 1. These are the conventions of SciPy's
    ``permutation_test`` and ``monte_carlo_test``, whose tie tolerance is instead
    relative to the observed statistic, and so vanishes when rounding leaves a
    mean difference of 0 at 1e-17.
    """
    null = np.ravel(null)
    extra = 1 if sampled else 0

    def share(extreme):
        return (int(np.count_nonzero(extreme)) + extra) / (null.size + extra)

    less = share(null <= observed + tolerance)
    greater = share(null >= observed - tolerance)
    p = {"less": less, "greater": greater, "two-sided": 2 * min(less, greater)}[alternative]
    return min(p, 1.0)


def paired_test(a, b, *, test="t", alternative="two-sided", n_resamples=10_000, seed=0):
    r"""Paired significance test of two systems' per-query scores.

    Parameters
    ----------
    a, b : array_like of shape (n_queries,), pandas.Series or one-column DataFrame
        Per-query scores of the two systems. Arrays are paired by position;
        two Series or DataFrames by their index (query ids), which must hold the
        same queries, each once, in any order. A Series paired with an array
        (or list) is paired by position: the array's i-th score belongs to the
        Series' i-th query.
    test : {"t", "wilcoxon", "permutation"}, default="t"
        ``"t"``: paired t-test (``scipy.stats.ttest_rel``). ``"wilcoxon"``:
        Wilcoxon signed-rank test (``scipy.stats.wilcoxon``; queries with a
        zero difference are dropped, its default); differences equal up to
        rounding count as tied, and as 0 near 0, by the tolerance of the
        randomization test (SciPy ranks exact ties only, so ``0.3 - 0.2`` and
        ``0.4 - 0.3`` would get two ranks, and which ties rounding breaks can
        change with the CPU's or BLAS's order of adding). ``"permutation"``: paired
        randomization test: under the null hypothesis each query's two scores
        are exchangeable, so the sign of each difference is flipped at random;
        the statistic is the mean difference. It is exact (all :math:`2^n`
        sign patterns, ``scipy.stats.permutation_test`` with
        ``permutation_type="samples"``) when ``n_resamples >= 2**n``;
        otherwise ``n_resamples`` random patterns are drawn
        (``scipy.stats.monte_carlo_test``, with the convention of
        ``permutation_test``'s sampled path: the observed pattern counts as
        one of them, and the two-sided p-value is twice the smaller tail).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: the alternative that ``a`` scores higher than ``b``.
    n_resamples : int, default=10000
        Random sign patterns of the permutation test, at most
        ``rankeval.stats.compare.MAX_RESAMPLES`` (10 million) unless the exact test (all
        :math:`2^n` patterns) needs fewer. They are drawn in batches of
        bounded memory. Any number is valid, since the observed pattern counts
        as one of them: the sampled p-value is never below
        :math:`1 / (\text{n\_resamples} + 1)` (twice that, two-sided), so few
        patterns give a coarse but never too small p-value; with fewer than 39,
        the two-sided p-value cannot reach 0.05.
    seed : int, numpy.random.Generator or None, default=0
        Seed of the permutation test; the same seed gives the same p-value
        (``None``: fresh randomness).

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
        Different query sets or lengths, a query id twice in an index, NaN
        scores, unknown test; for the t-test and the randomization test, fewer
        than 2 queries; for the t-test, every difference equal to the same
        non-zero number, up to rounding as in :func:`effect_size` (zero
        variance: t would be infinite and p = 0, a verdict the data cannot
        support; use ``test="permutation"``); ``n_resamples`` above
        ``rankeval.stats.compare.MAX_RESAMPLES``.

    Notes
    -----
    With :math:`d_q = a_q - b_q`, :math:`\bar d` their mean and :math:`s_d`
    their standard deviation over :math:`n` queries, the paired t statistic is
    :math:`t = \bar d / (s_d / \sqrt{n})` with :math:`n - 1` degrees of freedom.
    The randomization test's p-value is the share of sign patterns whose mean
    difference is at least as extreme as the observed one (SciPy adds the
    observed pattern to the count when sampling at random). A pattern's mean
    ties with the observed one when they are equal up to rounding: at most 16
    machine epsilons times the largest score or :math:`|d_q|` apart.
    Differences of -0.5 and 0.5 computed as ``0.2 - 0.7`` and ``1.0 - 0.5`` have
    mean 0, not the :math:`2.8 \cdot 10^{-17}` of floating point, so the
    pattern that flips both signs ties with the observed one
    (``alternative="greater"`` gives 3/4, not 1/2).

    Chapter: :doc:`/chapters/17_comparing_systems`.

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
    >>> round(r.statistic, 10)  # mean 0.09 / std. error sqrt(0.008 / 5) = 0.04
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
        d = x - y
        if _constant(d):  # zero variance, up to rounding
            raise _ZeroVariance(
                f"every per-query difference is {d[0]:g}: with zero variance the paired "
                "t statistic is infinite and its p-value 0, which no sample of queries "
                'can justify; use test="permutation" (exact for small samples) or '
                'test="wilcoxon"'
            )
        r = stats.ttest_rel(x, y, alternative=alternative)
    elif test == "wilcoxon":
        d = _snap_ties(x - y, _rounding_tolerance(x, y, x - y))
        r = stats.wilcoxon(d, alternative=alternative)
    else:
        if x.size < 2:
            raise ValueError(
                "the randomization test needs at least 2 queries (one query has only two "
                "sign patterns, and SciPy's test refuses it)"
            )
        n = _positive_int(n_resamples, "n_resamples")
        exact = x.size < 63 and n >= 2**x.size  # all 2^n sign patterns
        _check_resamples(2**x.size if exact else n, "n_resamples")
        d = x - y
        if exact:  # SciPy enumerates every pattern (swapping a query's two scores)
            r = stats.permutation_test(
                (x, y),
                _mean_difference,
                permutation_type="samples",
                vectorized=True,
                n_resamples=n,
                batch=_batch(n, x.size),
                alternative=alternative,
                rng=_rng(seed),
            )
        else:  # random patterns: SciPy's Monte Carlo test draws each batch at once
            r = stats.monte_carlo_test(
                d,
                _sign_flips(d, _rng(seed)),
                _mean,
                vectorized=True,
                n_resamples=n,
                batch=_batch(n, x.size),
                alternative=alternative,
            )
        # SciPy's p-value would miss ties hidden by rounding: count them by our rule
        pvalue = _randomization_pvalue(
            r.null_distribution,
            float(r.statistic),
            _rounding_tolerance(x, y, d),
            alternative,
            sampled=not exact,
        )
        return PairedTest(test, float(r.statistic), pvalue)
    return PairedTest(test, float(r.statistic), float(r.pvalue))


def _positive_int(n, name):
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name} must be a positive integer, got {n!r}")
    if n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def _check_resamples(n, name):
    if n > MAX_RESAMPLES:
        raise ValueError(
            f"{name}={n:,} is above the limit of {MAX_RESAMPLES:,} resamples (SciPy keeps "
            "every resampled statistic in memory); 10,000 to 100,000 resamples already "
            "give p-values and intervals to two or three digits"
        )


#: Resamples that must lie beyond each end of a bootstrap interval (see bootstrap_ci).
_TAIL_RESAMPLES = 5


def _check_bootstrap_resamples(n, confidence):
    """ValueError unless ``n`` resamples put at least ``_TAIL_RESAMPLES`` beyond each
    end of a ``confidence`` interval: ``n * (1 - confidence) / 2 >= 5``."""
    # rounded first, so that 10 / (1 - 0.95) = 199.99999999999983 asks for 200
    need = math.ceil(round(2 * _TAIL_RESAMPLES / (1 - confidence), 6))
    if n < need:
        limit = (
            f" (above the limit of {MAX_RESAMPLES:,}: choose a lower confidence)"
            if need > MAX_RESAMPLES
            else ""
        )
        raise ValueError(
            f"n_resamples={n:,} is too few for a {confidence:.10g} bootstrap interval: each "
            f"end is a {(1 - confidence) / 2:.10g} tail quantile of the resampled means, "
            f"which needs at least {_TAIL_RESAMPLES} resamples beyond it, so n_resamples "
            f"must be at least 10 / (1 - confidence) = {need:,}{limit}"
        )


def _batch(n_resamples, n_queries):
    """Resamples per batch, so that one batch holds at most ``_BATCH_CELLS`` values."""
    return int(max(1, min(n_resamples, _BATCH_CELLS // max(n_queries, 1))))


def bootstrap_ci(a, b, *, confidence=0.95, n_resamples=10_000, method="percentile", seed=0):
    r"""Bootstrap confidence interval of the mean per-query difference ``a - b``.

    Parameters
    ----------
    a, b : array_like, pandas.Series or one-column DataFrame
        Per-query scores, paired as in :func:`paired_test`.
    confidence : float, default=0.95
        Confidence level, in (0, 1).
    n_resamples : int, default=10000
        Bootstrap resamples (queries drawn with replacement), at most
        ``rankeval.stats.compare.MAX_RESAMPLES`` (10 million), drawn in batches of bounded
        memory; at least :math:`10 / (1 - \text{confidence})` (200 for a 95%
        interval, 1,000 for 99%), so that each end of the interval has at least 5
        resamples beyond it (see Notes).
    method : {"percentile", "basic", "BCa"}, default="percentile"
        Interval method of ``scipy.stats.bootstrap``.
    seed : int, numpy.random.Generator or None, default=0
        Seed; the same seed gives the same interval (``None``: fresh randomness).

    Returns
    -------
    (float, float)
        Lower and upper end. When every difference is the same number the
        interval is that number at both ends (SciPy's BCa would give NaN);
        when they are equal up to rounding (the rule of :func:`effect_size`),
        it runs from the smallest to the largest difference.

    Raises
    ------
    ValueError
        Fewer than 2 queries (one query has no spread to resample: the
        interval would have width 0), ``confidence`` outside (0, 1),
        ``n_resamples`` above ``rankeval.stats.compare.MAX_RESAMPLES`` or below
        :math:`10 / (1 - \text{confidence})`.
    TypeError
        ``confidence`` not a real number, ``n_resamples`` not an integer.

    Notes
    -----
    Resampling queries treats them as a sample from a population of queries;
    the interval says how far the mean difference could move on another
    sample of the same size.

    The ends of the interval are the :math:`(1 - \text{confidence}) / 2` and
    :math:`(1 + \text{confidence}) / 2` quantiles of the resampled means (BCa
    shifts these levels). With :math:`B` resamples, about
    :math:`B (1 - \text{confidence}) / 2` of them lie beyond each end; the
    function asks for at least 5, that is
    :math:`B \ge 10 / (1 - \text{confidence})`. With fewer, an end is the
    smallest or largest resample, or an interpolation between two resamples
    (one resample gives an interval of width 0, two an arbitrary BCa interval).
    Far more resamples (the default 10,000) are needed for ends stable to two
    or three digits.

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> from rankeval import bootstrap_ci
    >>> a = [0.5, 0.7, 0.4, 0.9, 0.6]
    >>> b = [0.4, 0.6, 0.45, 0.7, 0.5]
    >>> low, high = bootstrap_ci(a, b, seed=0)
    >>> bool(low < 0.1 < high)
    True
    """
    x, y = _paired(a, b)
    confidence = check_probability(confidence, "confidence")
    if method not in ("percentile", "basic", "BCa"):
        raise ValueError(f"method must be 'percentile', 'basic' or 'BCa', got {method!r}")
    n = _positive_int(n_resamples, "n_resamples")
    _check_resamples(n, "n_resamples")
    _check_bootstrap_resamples(n, confidence)
    if x.size < 2:
        raise ValueError(
            f"a bootstrap interval needs at least 2 queries, got {x.size}: resampling one "
            "query always returns it, so the interval would have width 0"
        )
    d = x - y
    if _constant(d):  # every resampled mean is one number, up to rounding
        return float(d.min()), float(d.max())
    from scipy import stats

    r = stats.bootstrap(
        (d,),
        np.mean,
        confidence_level=confidence,
        n_resamples=n,
        batch=_batch(n, d.size),
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
        is 0, and ±inf (the sign of the mean) when they are all equal but not 0,
        equal up to rounding included (see Notes); NaN for one query.

    Notes
    -----
    .. math:: d_z = \frac{\bar d}{s_d}, \qquad
       s_d = \sqrt{\tfrac{1}{n - 1} \sum_q (d_q - \bar d)^2}

    Unlike the t statistic, :math:`d_z` does not grow with the number of
    queries: it says how large the difference is, not how sure we are of it.

    Differences that are equal up to rounding, such as ``(0.1 + 0.2) - 0.2``
    and ``0.6 - 0.5`` (both "0.1"), have a tiny :math:`s_d` made of rounding
    errors alone, which would give :math:`d_z` near :math:`10^{15}`. They count
    as equal when their range is at most 16 machine epsilons times the largest
    :math:`|d_q|`, the rule by which :func:`paired_test` refuses the t-test for
    zero variance; :math:`s_d` is then taken as 0.

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> from rankeval import effect_size
    >>> e = effect_size([0.5, 0.7, 0.4, 0.9, 0.6], [0.4, 0.6, 0.45, 0.7, 0.5])
    >>> d = e["cohens_d"]  # 0.09 / sqrt(0.008)
    >>> round(e["mean_difference"], 10), round(d, 4)
    (0.09, 1.0062)

    Three differences of 0.1, equal but for rounding:

    >>> effect_size([0.1 + 0.2, 0.6, 0.7], [0.2, 0.5, 0.6])["cohens_d"]
    inf
    """
    x, y = _paired(a, b)
    d = x - y
    mean = float(d.mean())
    if d.size < 2:
        return {"mean_difference": mean, "cohens_d": float("nan")}
    if _constant(d):  # s_d is 0, or rounding noise that would give d_z near 1e15
        cohen = 0.0 if mean == 0 else float(np.copysign(np.inf, mean))
    else:
        cohen = mean / float(d.std(ddof=1))
    return {"mean_difference": mean, "cohens_d": cohen}


def adjust_pvalues(pvalues, correction="holm"):
    r"""Correct p-values for testing several hypotheses at once.

    Parameters
    ----------
    pvalues : array_like of shape (m,)
        Raw p-values in [0, 1].
    correction : {"holm", "bonferroni", "bh", "none"}, default="holm"
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

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> from rankeval import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bonferroni")
    array([0.03, 0.12, 0.09])
    >>> # sorted: 3 * .01, 2 * .03, max(.06, 1 * .04)
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm")
    array([0.03, 0.06, 0.06])
    """
    if correction not in _CORRECTIONS:
        raise ValueError(
            f"correction must be one of {', '.join(map(repr, _CORRECTIONS))}, got "
            f"{correction!r}"
        )
    p = np.asarray(pvalues)
    if p.dtype.kind not in "biuf":
        raise TypeError(f"pvalues must hold numbers, got dtype {p.dtype}")
    p = p.astype(np.float64)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be 1-D, got shape {p.shape}")
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("pvalues must lie in [0, 1] (no NaN)")
    m = p.size
    if correction == "none" or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, p * m)
    if correction == "bh":
        from scipy import stats

        return stats.false_discovery_control(p, method="bh")
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = stepped
    return out


def _measure_columns(items, measures):
    """``{system: {measure: per-query scores}}`` and the list of measures."""
    if measures is not None:
        if isinstance(measures, str):
            measures = [measures]
        measures = list(measures)
        if not measures:
            raise ValueError("measures is empty: name at least one measure")
        bad = [m for m in measures if not isinstance(m, str)]
        if bad:
            raise TypeError(f"measures must be names (str), got {bad[0]!r}")
        if len(set(measures)) != len(measures):
            raise ValueError(f"measures must be distinct, got {measures}")
    frames = [s for _, s in items if hasattr(s, "columns")]
    if measures is None:
        if frames:
            measures = [str(c) for c in frames[0].columns]
            for f in frames[1:]:
                measures = [m for m in measures if m in f.columns]
            if not measures:
                raise ValueError("the systems' DataFrames have no measure column in common")
        else:
            measures = ["score"]
    columns = {}
    for name, s in items:
        if hasattr(s, "columns"):
            missing = [m for m in measures if m not in s.columns]
            if missing:
                raise ValueError(
                    f"system {name!r} has no column {missing[0]!r} (columns: {list(s.columns)})"
                )
            columns[name] = {m: s[m] for m in measures}
        else:
            if len(measures) != 1:
                raise ValueError(
                    f"system {name!r} gives one column of scores, but {len(measures)} measures "
                    "were asked for; pass a DataFrame with one column per measure"
                )
            columns[name] = {measures[0]: s}
    return columns, measures


def _column_measures(columns, measures):
    """``{label: Measure or None}``: the measure of each compared column, as the
    systems' tables record it (:func:`rankeval.evaluate`'s ``attrs``, kept by a
    column taken out of the table) or, without a record, as its label names it
    (:func:`rankeval.evaluation.aggregate.measure_of`); None for a label that is
    no measure (``"score"``). ValueError if two systems' records give one column
    measures that aggregate differently or point in different directions."""
    out = {}
    for label in measures:
        known = []
        for name, column in columns.items():
            m = measure_of(label, getattr(column[label], "attrs", None))
            if m is not None:
                known.append((name, m))
        for name, m in known[1:]:
            first, m0 = known[0]
            if (m.aggregate, m.lower_is_better) != (m0.aggregate, m0.lower_is_better):
                raise ValueError(
                    f"column {label!r} holds {m0} in system {first!r} but {m} in system "
                    f"{name!r}, which are summarised or ordered differently; compare one "
                    "measure at a time"
                )
        out[label] = known[0][1] if known else None
    return out


def _summary(values, measure):
    """:func:`rankeval.aggregate` of one column of per-query values: the mean, the sum
    of a count, or trec_eval's geometric mean of GMAP and GMBpref."""
    import pandas as pd

    frame = pd.DataFrame({"values": values})
    return float(aggregate(frame, None if measure is None else [measure]).iloc[0])


def _check_one_query_order(columns, measures):
    """ValueError if an array (paired by position) sits among indexed systems whose
    indexes differ: the array would then be paired with each in another order."""
    for measure in measures:
        indexed = [(n, _index_of(c[measure])) for n, c in columns.items()]
        plain = [n for n, ix in indexed if ix is None]
        indexed = [(n, ix) for n, ix in indexed if ix is not None]
        if not plain or len(indexed) < 2:
            continue
        first, ix0 = indexed[0]
        for name, ix in indexed[1:]:
            if not ix.equals(ix0):
                raise ValueError(
                    f"{measure}: system {plain[0]!r} has no index, so its scores are paired "
                    f"by position with the indexed systems, but {first!r} and {name!r} do "
                    "not list the same queries in the same order; give every system a "
                    "query-id index (a pandas Series), or sort them alike"
                )


def compare(
    systems,
    measures=None,
    *,
    baseline=None,
    test="t",
    correction="holm",
    alpha=0.05,
    confidence=0.95,
    n_resamples=10_000,
    seed=0,
):
    r"""Compare several systems on several measures, query by query, in one tidy table.

    Parameters
    ----------
    systems : dict of {str: scores} or list of scores
        Per-query scores of each system: DataFrames of per-query values with
        one column per measure (what :func:`rankeval.evaluate` returns,
        aligned by their query-id index), or, for one measure, 1-D arrays
        (same query order) or pandas Series indexed by query id. A list is
        named ``"0"``, ``"1"``, ... Systems with an index (Series, DataFrames)
        are paired by query id, as in :func:`paired_test`; an array among them
        is paired by position, its i-th score belonging to their i-th query, so
        they must then list the same queries in the same order.
    measures : str or list of str, optional
        The measures (DataFrame columns) to compare. By default every column
        the DataFrames share, or the one column of arrays and Series (then
        named ``"score"``, or the given name).
    baseline : str, optional
        Compare every other system with this one (``m - 1`` comparisons per
        measure). By default every pair is compared (``m (m - 1) / 2`` per
        measure), in the given order.
    test : {"t", "wilcoxon", "permutation"}, default="t"
        As in :func:`paired_test`.
    correction : {"holm", "bonferroni", "bh", "none"}, default="holm"
        Multiple-comparison correction of the p-values (see
        :func:`adjust_pvalues`), applied **once across every row of the
        table**, all measures and all pairs together: they are one family of
        tests, and asking many of them raises the chance of a false alarm.
    alpha : float, default=0.05
        Significance level for the ``significant`` column (adjusted p <= alpha).
    confidence : float, default=0.95
        Level of the bootstrap interval of the mean difference.
    n_resamples : int, default=10000
        Resamples of the permutation test and of the bootstrap; the bootstrap
        needs at least :math:`10 / (1 - \text{confidence})` (200 at the default
        confidence 0.95, see :func:`bootstrap_ci`), whatever the test.
    seed : int or None, default=0
        Seed of the resampling; every comparison draws from one generator
        seeded with it, so the table is reproducible.

    Returns
    -------
    pandas.DataFrame
        One row per comparison and measure, with columns ``system``,
        ``other``, ``measure``, ``mean`` and ``other_mean`` (the summary over
        the queries that :func:`rankeval.aggregate` gives: the mean, the sum of
        a count such as NumRelRet, trec_eval's geometric mean of GMAP and
        GMBpref), ``difference`` (mean of the per-query differences system -
        other; for a count, times the number of queries: the difference of the
        sums; for GMAP and GMBpref, of the logs, see Notes), ``ci_low`` and
        ``ci_high`` (bootstrap interval of the difference), ``cohens_d``
        (effect size, see :func:`effect_size`), ``statistic``, ``p_value``,
        ``wins``, ``ties`` and ``losses`` (the queries where ``system`` does
        better than, as well as, worse than ``other``: a higher value, or a lower
        one for a measure where lower is better; equal up to rounding is a tie;
        PyTerrier's ``+``/``-`` counts), ``p_adjusted`` (corrected across the
        whole table) and ``significant``.
        ``table.attrs`` records the test, correction, alpha, confidence and
        baseline, which :func:`report` prints, and under
        ``"rankeval.measures"`` the measure of each compared column, from
        which :func:`report` reads whether lower is better.

        With the t-test, a row whose per-query differences are all equal and
        non-zero (zero variance, up to rounding; :func:`paired_test` refuses
        it) is not tested: its ``statistic``, ``p_value`` and ``p_adjusted``
        are NaN, ``significant`` is False, the correction leaves it out, and
        :func:`report` names it under the table. The other rows are unaffected;
        the permutation and Wilcoxon tests are defined for such a row.

    Raises
    ------
    ValueError
        Fewer than two systems, an unknown baseline or measure, systems scored
        on different queries, an array among indexed systems that do not list
        their queries in one order, or bad options (each message names the
        system and measure), ``n_resamples`` too few for the bootstrap interval.

    Notes
    -----
    Each row uses :func:`paired_test`, :func:`bootstrap_ci` and
    :func:`effect_size` on the per-query differences of its two systems;
    the p-values of all rows are then corrected together with
    :func:`adjust_pvalues`. Render the table with :func:`report`.

    Each column's measure is the one its table records (:func:`rankeval.evaluate`
    keeps it in ``frame.attrs``), or the one its label names (a table read from
    CSV); a column that is no measure is averaged. The summaries (``mean``,
    ``other_mean``) are :func:`rankeval.aggregate`'s, so a ``GMAP`` column shows
    trec_eval's ``gm_map``: the geometric mean of the per-query AP values, each
    floored at :math:`10^{-5}`. The paired tests always run on per-query values;
    for GMAP and GMBpref these are the floored logs
    :math:`\log \max(\mathrm{AP}_q, 10^{-5})`, whose mean is the log of the
    geometric mean: the test, the interval and the effect size then concern the
    ratio of the two geometric means (``difference`` is its log, and its sign is
    that of ``mean - other_mean``); Robertson ("On GMAP", CIKM 2006) reads
    GMAP the same way, as the arithmetic mean of log AP. A test on the AP values
    themselves would ask about MAP, which can order two systems the other way.

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> from rankeval import compare
    >>> table = compare({"bm25": [0.2, 0.4, 0.3, 0.5],
    ...                  "dense": [0.3, 0.5, 0.3, 0.7]})
    >>> table[["system", "other", "measure", "difference"]]
      system other measure  difference
    0   bm25 dense   score        -0.1

    Several measures of three systems against a baseline:

    >>> import pandas as pd
    >>> runs = {
    ...     "bm25": pd.DataFrame({"AP": [0.2, 0.4, 0.3, 0.5],
    ...                           "RR": [0.5, 1.0, 0.5, 1.0]}),
    ...     "dense": pd.DataFrame({"AP": [0.3, 0.5, 0.4, 0.7],
    ...                            "RR": [1.0, 1.0, 0.5, 1.0]}),
    ...     "hybrid": pd.DataFrame({"AP": [0.3, 0.6, 0.3, 0.6],
    ...                             "RR": [1.0, 1.0, 1.0, 1.0]}),
    ... }
    >>> table = compare(runs, baseline="bm25", test="permutation")
    >>> table[["system", "other", "measure", "mean", "other_mean"]]
       system other measure   mean  other_mean
    0   dense  bm25      AP  0.475        0.35
    1  hybrid  bm25      AP  0.450        0.35
    2   dense  bm25      RR  0.875        0.75
    3  hybrid  bm25      RR  1.000        0.75

    The four p-values are corrected together (Holm), never one measure at a
    time:

    >>> bool((table["p_adjusted"] >= table["p_value"]).all())
    True
    """
    items, names = _named_systems(systems)
    alpha, confidence = _check_compare_options(test, correction, alpha, confidence, n_resamples)
    columns, measures = _compared_columns(items, measures)
    _check_one_query_order(columns, measures)
    known = _column_measures(columns, measures)
    pairs = _pairs(names, baseline, columns)
    rng = _rng(seed)
    rows = [
        _comparison(columns, s, o, measure, known[measure], test, confidence, n_resamples, rng)
        for measure in measures
        for s, o in pairs
    ]
    import pandas as pd

    table = pd.DataFrame(rows)
    _correct_together(table, correction, alpha)
    table.attrs.update(
        test=test,
        correction=correction,
        alpha=alpha,
        confidence=confidence,
        baseline=None if baseline is None else str(baseline),
        systems=names,
        measures=measures,
    )
    # what each column is, for report's direction (and anyone reading the table)
    table.attrs[MEASURES_ATTR] = {str(k): str(m) for k, m in known.items() if m is not None}
    return table


# --- the parts of compare ------------------------------------------------------------------


def _named_systems(systems):
    """``(items, names)``: the systems as (name, scores) pairs, named ``"0"``, ``"1"``,
    ... when given as a list; ValueError for fewer than two or a name given twice."""
    if isinstance(systems, Mapping):
        items = list(systems.items())
    else:
        items = [(str(i), s) for i, s in enumerate(systems)]
    if len(items) < 2:
        raise ValueError(f"compare needs at least two systems, got {len(items)}")
    names = [str(n) for n, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"system names must be distinct, got {names}")
    return [(str(n), s) for n, s in items], names


def _check_compare_options(test, correction, alpha, confidence, n_resamples):
    """``(alpha, confidence)``, checked, after the test, the correction and the number
    of resamples (enough for the bootstrap interval)."""
    if test not in _TESTS:
        raise ValueError(f"test must be one of {', '.join(map(repr, _TESTS))}, got {test!r}")
    if correction not in _CORRECTIONS:
        raise ValueError(
            f"correction must be one of {', '.join(map(repr, _CORRECTIONS))}, got "
            f"{correction!r}"
        )
    alpha = check_probability(alpha, "alpha")
    confidence = check_probability(confidence, "confidence")
    _check_bootstrap_resamples(_positive_int(n_resamples, "n_resamples"), confidence)
    return alpha, confidence


def _compared_columns(items, measures):
    """:func:`_measure_columns`, with the one column of arrays and Series named by the
    Series' common name (a str), when they have one, instead of ``"score"``."""
    columns, measures = _measure_columns(items, measures)
    if len(measures) == 1 and measures[0] == "score":
        series_names = {getattr(s, "name", None) for _, s in items if not hasattr(s, "columns")}
        if len(series_names) == 1 and isinstance(next(iter(series_names)), str):
            measures = [next(iter(series_names))]
            columns = {n: {measures[0]: c["score"]} for n, c in columns.items()}
    return columns, measures


def _pairs(names, baseline, columns):
    """The (system, other) pairs compared: every system against ``baseline``, or every
    pair in the given order."""
    if baseline is None:
        return [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    if str(baseline) not in columns:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {names}")
    return [(n, str(baseline)) for n in names if n != str(baseline)]


def _comparison(columns, s, o, measure, known, test, confidence, n_resamples, rng) -> dict:
    """One row of :func:`compare`'s table: system ``s`` against ``o`` on ``measure``
    (``known``: its :class:`rankeval.Measure`, or None for a column that is no measure),
    before the correction. Errors name the pair and the measure."""
    kind = "mean" if known is None else known.aggregate
    where = f"{s} vs {o}, {measure}"
    try:
        x, y = _paired(columns[s][measure], columns[o][measure], names=(s, o))
        # what is tested: the values whose mean orders the systems as their
        # summaries do (see Notes): the floored logs of a geometric mean
        tx, ty = (x, y) if kind != "gmean" else (
            np.log(np.maximum(x, GM_FLOOR)), np.log(np.maximum(y, GM_FLOOR)))
        try:
            t = paired_test(tx, ty, test=test, n_resamples=n_resamples, seed=rng)
        except _ZeroVariance:
            t = PairedTest(test, math.nan, math.nan)  # no t-test: see Returns
        low, high = bootstrap_ci(tx, ty, confidence=confidence, n_resamples=n_resamples,
                                 seed=rng)  # fmt: skip
    except (ValueError, TypeError) as error:
        raise type(error)(f"{where}: {error}") from None
    e = effect_size(tx, ty)
    scale = x.size if kind == "sum" else 1  # a count: the difference of the sums
    # per-query wins, ties and losses of s (a tie: equal up to rounding; lower is better
    # for MR, FRP, Unj, FallOut: a win is then a lower value)
    d = _snap_ties(x - y, _rounding_tolerance(x, y)) if x.size else x - y
    if known is not None and known.lower_is_better:
        d = -d
    wins, losses = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
    return {
        "system": s,
        "other": o,
        "measure": measure,
        "mean": _summary(x, known),
        "other_mean": _summary(y, known),
        "difference": e["mean_difference"] * scale,
        "ci_low": low * scale,
        "ci_high": high * scale,
        "cohens_d": e["cohens_d"],
        "statistic": t.statistic,
        "p_value": t.pvalue,
        "wins": wins,
        "ties": int(x.size) - wins - losses,
        "losses": losses,
    }


def _correct_together(table, correction, alpha) -> None:
    """Add ``p_adjusted`` (every tested row's p-value corrected together) and
    ``significant`` to ``table``; a row not tested (NaN) stays NaN and not significant."""
    p = table["p_value"].to_numpy(dtype=np.float64)
    tested = ~np.isnan(p)  # NaN: a t-test on zero variance, not asked (see Returns)
    adjusted = np.full(p.shape, np.nan)
    if tested.any():
        adjusted[tested] = adjust_pvalues(p[tested], correction)
    table["p_adjusted"] = adjusted
    table["significant"] = tested & (adjusted <= alpha)
