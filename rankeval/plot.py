"""Plots of an evaluation (Matplotlib, imported on first use): ``rankeval.plot.precision_recall``,
``rankeval.plot.differences`` and ``rankeval.plot.system_ranks``; each returns the Axes it
drew on, with the numbers it drew in ``ax.rankeval_data``. See
``rankeval.reporting.plots``."""

from rankeval.reporting.plots import (  # noqa: F401
    MARKERS,
    RECALL_LEVELS,
    difference_plot,
    precision_recall_plot,
    system_rank_plot,
)

precision_recall = precision_recall_plot
differences = difference_plot
system_ranks = system_rank_plot

__all__ = ["precision_recall", "differences", "system_ranks", "precision_recall_plot",
           "difference_plot", "system_rank_plot", "RECALL_LEVELS", "MARKERS"]
