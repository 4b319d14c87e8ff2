"""The plots a practitioner draws after an evaluation: interpolated precision-recall curves,
per-query differences against a baseline, and systems ranked by their mean with intervals.

Each function computes its numbers with the library (:func:`rankeval.evaluate`,
:func:`rankeval.aggregate`, SciPy's bootstrap), draws them on a Matplotlib ``Axes`` (a new
figure unless ``ax`` is given), and returns the ``Axes``; the numbers drawn are also in
``ax.rankeval_data`` (a DataFrame), so a test or a caption can read them back.
Matplotlib is imported on first use.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..evaluation.aggregate import aggregate
from ..evaluation.runs import evaluate

#: the eleven standard recall levels of trec_eval's interpolated precision
RECALL_LEVELS = tuple(round(0.1 * i, 1) for i in range(11))


def _axes(ax, title: str):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6, 4))
    ax.set_title(title)
    return ax


def _named(runs) -> dict:
    if isinstance(runs, dict):
        return {str(k): v for k, v in runs.items()}
    if isinstance(runs, (list, tuple)):
        return {str(i): run for i, run in enumerate(runs)}
    raise TypeError(f"runs must be a dict name -> run or a list of runs, got {type(runs).__name__}")


def precision_recall_plot(qrels, runs, *, ax=None, **settings):
    """Interpolated precision at the eleven standard recall levels, one curve per run.

    Parameters
    ----------
    qrels : str, os.PathLike, dict or DataFrame
        Judgments, in any form :func:`rankeval.evaluate` reads.
    runs : dict of {str: run} or list of runs
        The runs to draw, each in any form :func:`rankeval.evaluate` reads.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure by default.
    **settings
        Passed to :func:`rankeval.evaluate` (e.g. ``conventions=``, ``threshold=``).

    Returns
    -------
    matplotlib.axes.Axes
        With ``ax.rankeval_data``: one row per run, one column per recall level, the
        means over queries that :func:`rankeval.aggregate` gives (trec_eval's
        ``iprec_at_recall`` lines).

    Notes
    -----
    The interpolated precision at recall :math:`r` is the highest precision at any rank
    whose recall is at least :math:`r` (chapter 6).

    Chapter: :doc:`/chapters/06_pr_curves`.

    Examples
    --------
    >>> from rankeval.reporting.plots import precision_recall_plot
    >>> qrels = {"q": {"a": 1, "b": 1}}
    >>> run = {"q": {"a": 2.0, "x": 1.5, "b": 1.0}}
    >>> ax = precision_recall_plot(qrels, {"run": run})
    >>> ax.rankeval_data.loc["run", [0.0, 0.5, 1.0]].tolist()
    [1.0, 1.0, 0.6666666666666666]
    """
    names = [f"IPrec@{level}" for level in RECALL_LEVELS]
    rows = {}
    for name, run in _named(runs).items():
        means = aggregate(evaluate(qrels, run, names, **settings))
        rows[name] = [float(means[n]) for n in names]
    data = pd.DataFrame.from_dict(rows, orient="index", columns=list(RECALL_LEVELS))
    ax = _axes(ax, "Interpolated precision-recall")
    for name, values in data.iterrows():
        ax.plot(data.columns, values.to_numpy(), marker="o", label=name)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.legend()
    ax.rankeval_data = data
    return ax


def _column(scores, measure, name):
    if isinstance(scores, pd.DataFrame):
        if measure is None:
            if scores.shape[1] != 1:
                raise ValueError(f"{name} has columns {list(scores.columns)}: say which with measure=")
            return scores.iloc[:, 0]
        if measure not in scores.columns:
            raise ValueError(f"{name} has no column {measure!r}; it has {list(scores.columns)}")
        return scores[measure]
    if isinstance(scores, pd.Series):
        return scores
    raise TypeError(f"{name} must be per-query scores (a Series or evaluate's table), "
                    f"got {type(scores).__name__}")


def difference_plot(system, baseline, measure: str | None = None, *, ax=None):
    """Per-query differences of a system against a baseline, sorted, as bars.

    Parameters
    ----------
    system, baseline : DataFrame or Series
        Per-query scores (the tables :func:`rankeval.evaluate` returns), paired by query id;
        both must hold the same queries.
    measure : str, optional
        The column, when the tables have several.
    ax : matplotlib.axes.Axes, optional
        Where to draw.

    Returns
    -------
    matplotlib.axes.Axes
        With ``ax.rankeval_data``: the differences ``system - baseline`` per query, sorted
        from the largest gain to the largest loss.

    Raises
    ------
    ValueError
        The two tables do not hold the same queries.

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.reporting.plots import difference_plot
    >>> a = pd.Series([0.5, 0.9, 0.2], index=["q1", "q2", "q3"])
    >>> b = pd.Series([0.4, 0.3, 0.6], index=["q1", "q2", "q3"])
    >>> difference_plot(a, b, ax=None).rankeval_data.round(2).to_dict()
    {'q2': 0.6, 'q1': 0.1, 'q3': -0.4}
    """
    a, b = _column(system, measure, "system"), _column(baseline, measure, "baseline")
    if set(a.index) != set(b.index):
        only = sorted(set(a.index) ^ set(b.index), key=str)[:5]
        raise ValueError(f"system and baseline must hold the same queries; not in both: {only}")
    diff = (a - b.reindex(a.index)).astype(np.float64)
    order = np.lexsort((np.arange(diff.size), -diff.to_numpy()))  # largest gain first, stable
    diff = diff.iloc[order]
    ax = _axes(ax, "Per-query difference against the baseline")
    colors = np.where(diff.to_numpy() >= 0, "tab:blue", "tab:red")
    ax.bar(np.arange(diff.size), diff.to_numpy(), color=colors)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"query ({diff.size}, sorted by difference)")
    ax.set_ylabel(f"difference{'' if measure is None else ' in ' + measure}")
    ax.rankeval_data = diff
    return ax


def system_rank_plot(systems, measure: str | None = None, *, confidence: float = 0.95,
                     n_resamples: int = 10_000, seed: int = 0, ax=None):
    """Systems ordered by their mean, each with a bootstrap confidence interval.

    Parameters
    ----------
    systems : dict of {str: DataFrame or Series}
        Each system's per-query scores.
    measure : str, optional
        The column, when the tables have several.
    confidence : float, default=0.95
        Level of each interval (SciPy's percentile bootstrap over queries).
    n_resamples : int, default=10000
        Bootstrap resamples.
    seed : int, default=0
        Seed of the resampling.
    ax : matplotlib.axes.Axes, optional
        Where to draw.

    Returns
    -------
    matplotlib.axes.Axes
        With ``ax.rankeval_data``: columns ``mean``, ``low``, ``high``, one row per system,
        best first (ties by name).

    Notes
    -----
    An interval here is each system's own, over its queries; two overlapping intervals do
    not mean that the systems' difference is not significant (the paired test of
    :func:`rankeval.compare` is the test to read).

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.reporting.plots import system_rank_plot
    >>> s = {"a": pd.Series([0.5, 0.7, 0.6]), "b": pd.Series([0.2, 0.4, 0.3])}
    >>> system_rank_plot(s, n_resamples=1000).rankeval_data.index.tolist()
    ['a', 'b']
    """
    from scipy.stats import bootstrap

    if not isinstance(systems, dict) or len(systems) < 1:
        raise TypeError("systems must be a non-empty dict name -> per-query scores")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    rows = {}
    for name, scores in systems.items():
        values = _column(scores, measure, f"system {name!r}").to_numpy(dtype=np.float64)
        if values.size < 2 or not np.isfinite(values).all():
            raise ValueError(f"system {name!r} needs at least two finite per-query scores")
        if np.ptp(values) == 0:
            low = high = float(values[0])
        else:
            result = bootstrap((values,), np.mean, confidence_level=confidence,
                               n_resamples=n_resamples, method="percentile",
                               rng=np.random.default_rng(seed))
            low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
        rows[str(name)] = (float(values.mean()), low, high)
    data = pd.DataFrame.from_dict(rows, orient="index", columns=["mean", "low", "high"])
    data = data.iloc[np.lexsort((data.index.to_numpy(dtype=str), -data["mean"].to_numpy()))]
    ax = _axes(ax, f"Systems by mean, {confidence:.0%} intervals")
    y = np.arange(len(data))[::-1]
    ax.errorbar(data["mean"], y, xerr=[data["mean"] - data["low"], data["high"] - data["mean"]],
                fmt="o", capsize=3)
    ax.set_yticks(y, data.index.tolist())
    ax.set_xlabel("mean" if measure is None else f"mean {measure}")
    ax.rankeval_data = data
    return ax


__all__ = ["precision_recall_plot", "difference_plot", "system_rank_plot", "RECALL_LEVELS"]
