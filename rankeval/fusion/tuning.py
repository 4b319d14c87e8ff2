"""Picking a weighted fusion's weights on training queries, and reporting the others."""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..evaluation.aggregate import aggregate
from ..evaluation.runs import evaluate
from ..io.canonical import qrels_table
from .methods import FUSION_METHODS, _long_frame, fuse
from .trained import TrainingQueriesWarning


@dataclass(frozen=True)
class Tuning:
    """What :func:`rankeval.fusion.tune_weights` found.

    Attributes
    ----------
    weights : tuple of float
        The best weights on the training queries (one per run, summing to 1).
    train : float
        The measure's mean on the training queries with those weights.
    held_out : float or None
        Its mean on the other queries (``None`` when there are none).
    grid : pandas.DataFrame
        Every weight vector tried, with its training mean, best first.
    """

    weights: tuple
    train: float
    held_out: float | None
    grid: pd.DataFrame


def _simplex(n: int, step: float):
    units = round(1 / step)
    if not np.isclose(units * step, 1.0):
        raise ValueError(f"step must divide 1 (0.1, 0.05, 0.25, ...), got {step!r}")
    for combo in itertools.product(range(units + 1), repeat=n - 1):
        if sum(combo) <= units:
            yield tuple(c / units for c in (*combo, units - sum(combo)))


def _subset(run, queries):
    long = _long_frame([run], minimum=1)
    return long[long["query_id"].isin(queries)][["query_id", "doc_id", "score"]]


def tune_weights(qrels, runs, measure: str, *, train_queries, method: str = "wsum",
                 step: float = 0.1, norm: str | None = None, **settings) -> Tuning:
    """Weights of a weighted fusion chosen on training queries, reported on the others.

    Parameters
    ----------
    qrels : qrels in any form :func:`rankeval.evaluate` reads
        Judgments of every query (training and held out).
    runs : list of runs
        The systems' runs on every query.
    measure : str
        The measure to maximise (one name, e.g. ``"nDCG@10"``).
    train_queries : collection of query ids
        The queries the weights are chosen on; the others are the held-out set.
    method : {"wsum", "wmnz"}, default="wsum"
        The weighted fusion.
    step : float, default=0.1
        The grid's spacing: every weight vector on the simplex (non-negative, summing to
        1) whose weights are multiples of ``step``.
    norm : str, optional
        The normalisation (as in :func:`rankeval.fuse`).
    **settings
        Passed to :func:`rankeval.evaluate`.

    Returns
    -------
    Tuning
        The weights, the training mean, the held-out mean and the grid.

    Warns
    -----
    TrainingQueriesWarning
        When no query is held out: a mean over the queries the weights were tuned on
        overstates the fusion (report the held-out mean, or cross-validate).

    Notes
    -----
    Ties in the training mean go to the first weight vector of the grid's order (the
    lexicographic order of the weights). The held-out mean is the number to report; the
    gap between the two shows how much the tuning fitted the training queries.

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> from rankeval.fusion import tune_weights
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> lexical = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"x": 2.0, "b": 1.0},
    ...            "q3": {"c": 2.0, "x": 1.0}}
    >>> dense = {"q1": {"x": 2.0, "a": 1.0}, "q2": {"b": 2.0, "x": 1.0},
    ...          "q3": {"x": 2.0, "c": 1.0}}
    >>> result = tune_weights(qrels, [lexical, dense], "RR",
    ...                       train_queries=["q1", "q2"], step=0.5)
    >>> result.weights, result.train, result.held_out
    ((0.0, 1.0), 0.75, 0.5)
    """
    if method not in ("wsum", "wmnz"):
        raise ValueError(f"method must be 'wsum' or 'wmnz' (the weighted fusions), got {method!r}")
    if FUSION_METHODS[method][0] != "score":  # pragma: no cover - the table says so
        raise AssertionError(method)
    if not isinstance(measure, str):
        raise TypeError(f"measure must be one measure name, got {measure!r}")
    if isinstance(runs, dict):
        runs = list(runs.values())
    train = set(train_queries)
    every = set(_long_frame(runs)["query_id"])
    unknown = train - every
    if unknown:
        raise ValueError(f"train_queries names {len(unknown)} queries no run has: "
                         f"{sorted(unknown, key=str)[:5]}")
    held = every - train
    if not held:
        warnings.warn("every query is a training query: the tuned mean overstates the "
                      "fusion; hold some queries out (train_queries=) and report those",
                      TrainingQueriesWarning, stacklevel=2)
    judged = qrels_table(qrels).to_pandas()
    train_qrels = judged[judged["query_id"].isin(train)]
    train_runs = [_subset(run, train) for run in runs]
    rows = []
    for weights in _simplex(len(runs), step):
        fused = fuse(train_runs, method, weights=list(weights), norm=norm)
        score = float(aggregate(evaluate(train_qrels, fused, [measure], **settings))[measure])
        rows.append((weights, score))
    grid = pd.DataFrame(rows, columns=["weights", measure])
    best = int(np.argmax(grid[measure].to_numpy()))  # the first of equal maxima
    weights = grid.loc[best, "weights"]
    held_out = None
    if held:
        fused = fuse([_subset(run, held) for run in runs], method, weights=list(weights),
                     norm=norm)
        held_qrels = judged[judged["query_id"].isin(held)]
        held_out = float(aggregate(evaluate(held_qrels, fused, [measure], **settings))[measure])
    order = np.lexsort((np.arange(len(grid)), -grid[measure].to_numpy()))
    return Tuning(tuple(weights), float(grid.loc[best, measure]), held_out,
                  grid.iloc[order].reset_index(drop=True))


__all__ = ["tune_weights", "Tuning"]
