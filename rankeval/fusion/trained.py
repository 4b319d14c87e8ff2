"""Fusion methods that learn from judged training queries: PosFuse, ProbFuse and BayesFuse.

Each estimates, for each run, how likely a document at a given position is relevant (on
training queries with judgments), then scores the documents of the queries to fuse by
those estimates and sums over the runs. The estimates follow ranx's ``posfuse_train``,
``probfuse_train`` and ``bayesfuse_train`` (tested against them).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from ..io.canonical import qrels_table

#: BayesFuse's rank bands (Aslam and Montague 2001 as ranx implements it)
BAYES_CUTS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
_FLOOR = 0.001


class TrainingQueriesWarning(UserWarning):
    """Fusion parameters were learnt on queries that are also fused (and so evaluated)."""


def hit_lists(qrels, long_run: pd.DataFrame, rel: float = 1) -> list[np.ndarray]:
    """For each judged query the run ranks, 1/0 per position: is the document there relevant."""
    table = qrels_table(qrels).to_pandas()
    relevant = set(zip(table.loc[table["relevance"] >= rel, "query_id"],
                       table.loc[table["relevance"] >= rel, "doc_id"], strict=True))
    judged = set(table["query_id"])
    lists = []
    for query, group in long_run.sort_values(["query_id", "rank"], kind="stable").groupby(
            "query_id", sort=True):
        if query in judged:
            lists.append(np.array([(query, d) in relevant for d in group["doc_id"]], dtype=float))
    if not lists:
        raise ValueError("the training run ranks none of the judged training queries")
    return lists


def position_probabilities(lists: list[np.ndarray]) -> np.ndarray:
    """PosFuse: at each position, the share of the lists reaching it whose document there is
    relevant."""
    longest = max(len(x) for x in lists)
    hits, reach = np.zeros(longest), np.zeros(longest)
    for x in lists:
        hits[: len(x)] += x
        reach[: len(x)] += 1
    return hits / reach


def segment_probabilities(lists: list[np.ndarray], n_segments: int) -> np.ndarray:
    """ProbFuse: each list cut into ``n_segments`` segments of ceil(len/n) documents; a
    segment's probability is its share of relevant documents, averaged over the lists."""
    probs = np.zeros(n_segments)
    for x in lists:
        size = math.ceil(len(x) / n_segments)
        for k in range(n_segments):
            segment = x[k * size:(k + 1) * size]
            if segment.size:
                probs[k] += segment.mean()
    return probs / len(lists)


def band_log_odds(lists: list[np.ndarray]) -> np.ndarray:
    """BayesFuse: in each band of BAYES_CUTS, the mean precision p over the lists (a list
    shorter than the band counts its missing places as non-relevant), as log(p / (1 - p)),
    with p and 1 - p floored at 0.001."""
    odds = np.zeros(BAYES_CUTS[-1])
    for start, end in zip(BAYES_CUTS[:-1], BAYES_CUTS[1:], strict=True):
        p = float(np.mean([x[start:end].sum() / (end - start) for x in lists]))
        p = p if p != 0 else _FLOOR
        q = 1 - p if 1 - p != 0 else _FLOOR
        odds[start:end] = math.log(p / q)
    return odds


def trained_scores(long: pd.DataFrame, method: str, estimates: list[np.ndarray],
                   n_segments: int | None) -> pd.DataFrame:
    """Each run's documents scored by its estimates (run i by ``estimates[i]``)."""
    out = long.copy()
    rank = out["rank"].to_numpy()
    score = np.zeros(len(out))
    for i, est in enumerate(estimates):
        mine = out["run"].to_numpy() == i
        r = rank[mine] - 1
        if method == "posfuse":
            score[mine] = np.where(r < est.size, est[np.minimum(r, est.size - 1)], 0.0)
        elif method == "bayesfuse":
            if np.any(r >= est.size):
                raise ValueError(f"bayesfuse estimates positions up to {est.size}; cut the "
                                 f"runs with depth={est.size}")
            score[mine] = est[r]
        else:  # probfuse: the segment's probability over its number (1-based)
            n = out.loc[mine].groupby("query_id")["rank"].transform("size").to_numpy()
            size = np.ceil(n / n_segments).astype(int)
            segment = r // size
            score[mine] = est[segment] / (segment + 1)
    return out.assign(score=score)


def train(method: str, training, n_segments, fused_queries, long_of) -> list[np.ndarray]:
    """The estimates of each run from ``training = (qrels, runs)``; warn if the training
    queries are among the fused ones."""
    if not (isinstance(training, tuple) and len(training) == 2):
        raise TypeError(f"method={method!r} learns from judged queries: give "
                        "training=(qrels, runs), the same systems' runs on training queries")
    qrels, runs = training
    train_long = long_of(runs)
    shared = set(train_long["query_id"]) & fused_queries
    if shared:
        warnings.warn(f"{len(shared)} of the queries fused are also training queries: "
                      "parameters tuned on the queries they are evaluated on overstate "
                      "the fusion's quality; train on other queries",
                      TrainingQueriesWarning, stacklevel=4)
    estimates = []
    for i in range(int(train_long["run"].max()) + 1):
        lists = hit_lists(qrels, train_long[train_long["run"] == i])
        if method == "posfuse":
            estimates.append(position_probabilities(lists))
        elif method == "probfuse":
            estimates.append(segment_probabilities(lists, n_segments))
        else:
            estimates.append(band_log_odds(lists))
    return estimates


MISSING_LOG_ODDS = math.log(_FLOOR / (1 - _FLOOR))
