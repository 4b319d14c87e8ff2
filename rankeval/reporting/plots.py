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


#: stands for "the plot's own default" in the ``title=`` of every function
DEFAULT = "default"

#: markers told apart without colour (one per curve, cycled)
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*")


def _axes(ax, title, default: str):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6, 4))
    if title is not None:
        ax.set_title(default if title == DEFAULT else str(title))
    return ax


def _cycle(values, i: int, name: str):
    """The i-th of a user's style sequence (cycled); None when none was given."""
    if values is None:
        return None
    if isinstance(values, str) or len(values) == 0:
        raise TypeError(f"{name} must be a non-empty sequence (one entry per curve), "
                        f"got {values!r}")
    return values[i % len(values)]


def _named(runs) -> dict:
    if isinstance(runs, dict):
        return {str(k): v for k, v in runs.items()}
    if isinstance(runs, (list, tuple)):
        return {str(i): run for i, run in enumerate(runs)}
    raise TypeError(f"runs must be a dict name -> run or a list of runs, got {type(runs).__name__}")


def precision_recall_plot(qrels, runs, *, ax=None, title=DEFAULT, colors=None,
                          markers=MARKERS, line_kw=None, legend: bool = True,
                          **settings):
    """Interpolated precision at the eleven standard recall levels, one curve per run.

    Parameters
    ----------
    qrels : str, os.PathLike, dict or DataFrame
        Judgments, in any form :func:`rankeval.evaluate` reads.
    runs : dict of {str: run} or list of runs
        The runs to draw, each in any form :func:`rankeval.evaluate` reads.
    ax : matplotlib.axes.Axes, optional
        Where to draw (e.g. one panel of a figure with several); a new figure by default.
    title : str or None, default: "Interpolated precision-recall"
        The Axes' title; ``None`` leaves the title as it is.
    colors : sequence of colours, optional
        One per run (cycled); Matplotlib's colour cycle by default.
    markers : sequence of str, default: ``MARKERS``
        One per run (cycled), so that the curves differ without colour.
    line_kw : dict, optional
        Passed to every ``Axes.plot`` call (e.g. ``{"linestyle": "none",
        "markersize": 4}``).
    legend : bool, default=True
        Draw a legend of the runs.
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
    ax = _axes(ax, title, "Interpolated precision-recall")
    for i, (name, values) in enumerate(data.iterrows()):
        style = {"marker": _cycle(markers, i, "markers") or "o", **(line_kw or {})}
        color = _cycle(colors, i, "colors")
        if color is not None:
            style["color"] = color
        ax.plot(list(data.columns), values.to_numpy(), label=name, **style)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    if legend:
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


def difference_plot(system, baseline, measure: str | None = None, *, kind: str = "bars",
                    bins=None, ax=None, title=DEFAULT, xlabel: str | None = None,
                    ylabel: str | None = None, colors=None):
    """Per-query differences of a system against a baseline: sorted bars, or a histogram.

    Parameters
    ----------
    system, baseline : DataFrame or Series
        Per-query scores (the tables :func:`rankeval.evaluate` returns), paired by query id;
        both must hold the same queries.
    measure : str, optional
        The column, when the tables have several.
    kind : {"bars", "hist"}, default="bars"
        ``"bars"``: one bar per query, sorted from the largest gain to the largest loss
        (losses hatched, so that they differ without colour). ``"hist"``: a histogram of
        the differences, with a line at 0 and a dashed line at their mean.
    bins : int or sequence of float, optional
        The histogram's bins (``kind="hist"``), as ``Axes.hist`` takes them; 10 by
        default.
    ax : matplotlib.axes.Axes, optional
        Where to draw (e.g. one panel of a figure with several); a new figure by default.
    title : str or None, default: "Per-query difference against the baseline"
        The Axes' title; ``None`` leaves the title as it is.
    xlabel, ylabel : str, optional
        Axis labels, in place of the plot's own.
    colors : pair of colours, optional
        ``kind="bars"``: gains, losses (default blue, red); ``kind="hist"``: the bars,
        the mean line (default blue, red).

    Returns
    -------
    matplotlib.axes.Axes
        With ``ax.rankeval_data``: the differences ``system - baseline`` per query, sorted
        from the largest gain to the largest loss (ties in query order).

    Raises
    ------
    ValueError
        The two tables do not hold the same queries, or ``kind`` is unknown.

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
    if kind not in ("bars", "hist"):
        raise ValueError(f"kind must be 'bars' or 'hist', got {kind!r}")
    first, second = ("tab:blue", "tab:red") if colors is None else tuple(colors)
    a, b = _column(system, measure, "system"), _column(baseline, measure, "baseline")
    if set(a.index) != set(b.index):
        only = sorted(set(a.index) ^ set(b.index), key=str)[:5]
        raise ValueError(f"system and baseline must hold the same queries; not in both: {only}")
    diff = (a - b.reindex(a.index)).astype(np.float64)
    order = np.lexsort((np.arange(diff.size), -diff.to_numpy()))  # largest gain first, stable
    diff = diff.iloc[order]
    ax = _axes(ax, title, "Per-query difference against the baseline")
    what = f"difference{'' if measure is None else ' in ' + measure}"
    values = diff.to_numpy()
    if kind == "bars":
        loss = values < 0
        bars = ax.bar(np.arange(diff.size), values, color=np.where(loss, second, first))
        for bar, lost in zip(bars, loss, strict=True):
            if lost:
                bar.set_hatch("//")
        ax.axhline(0.0, color="black", linewidth=0.8)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # queries are counted
        ax.set_xlabel(xlabel or f"query ({diff.size}, sorted by difference)")
        ax.set_ylabel(ylabel or what)
    else:
        ax.hist(values, bins=10 if bins is None else bins, color=first, edgecolor="black")
        ax.axvline(0.0, color="grey", linewidth=1)
        ax.axvline(float(values.mean()), color=second, linestyle="--",
                   label=f"mean {values.mean():.4f}")
        ax.set_xlabel(xlabel or f"per-query {what}")
        ax.set_ylabel(ylabel or "number of queries")
    ax.rankeval_data = diff
    return ax


def system_rank_plot(systems, measure: str | None = None, *, confidence: float = 0.95,
                     n_resamples: int = 10_000, seed: int = 0, ax=None, title=DEFAULT,
                     xlabel: str | None = None, color=None, marker: str = "o"):
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
        Where to draw (e.g. one panel of a figure with several); a new figure by default.
    title : str or None, default: "Systems by mean, <confidence> intervals"
        The Axes' title; ``None`` leaves the title as it is.
    xlabel : str, optional
        The x axis' label, in place of "mean <measure>".
    color : colour, optional
        Of the points and intervals; the colour cycle's next by default.
    marker : str, default="o"
        Of the means.

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
    ax = _axes(ax, title, f"Systems by mean, {confidence:.0%} intervals")
    y = np.arange(len(data))[::-1]
    ax.errorbar(data["mean"], y, xerr=[data["mean"] - data["low"], data["high"] - data["mean"]],
                fmt=marker, capsize=3, **({} if color is None else {"color": color}))
    ax.set_yticks(y, data.index.tolist())
    ax.set_xlabel(xlabel or ("mean" if measure is None else f"mean {measure}"))
    ax.rankeval_data = data
    return ax


__all__ = ["precision_recall_plot", "difference_plot", "system_rank_plot", "RECALL_LEVELS",
           "MARKERS", "DEFAULT"]
