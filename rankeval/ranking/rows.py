"""Row bookkeeping of a ranked table shared by the general path (pipeline) and the
dict path (from_dicts): cutting each query's ranking, tie groups, query offsets."""

from __future__ import annotations

import numpy as np

from ..metrics.judged import is_judged
from .ordering import _group_starts

__all__ = ["cut_rankings", "tie_groups", "offsets", "ranked_rows"]


def cut_rankings(q_sorted, g_sorted, s_sorted, n_all, max_docs, judged_only):
    """The ranked rows kept by trec_eval's ``-M`` (the top ``max_docs`` of each query)
    and ``-J`` (judged documents only), in this order."""
    counts = np.bincount(q_sorted, minlength=n_all)
    rank = np.arange(q_sorted.size) - np.repeat(np.cumsum(counts) - counts, counts)
    mask = np.ones(q_sorted.size, dtype=bool)
    if max_docs is not None:
        mask &= rank < max_docs
    if judged_only:
        mask &= is_judged(g_sorted)
    return q_sorted[mask], g_sorted[mask], s_sorted[mask]


def tie_groups(q_sorted, s_sorted) -> np.ndarray:
    """For every ranked row, the number of its group of equal (query, score)."""
    new = _group_starts(q_sorted) | _group_starts(s_sorted)
    return np.cumsum(new) - 1


def offsets(counts) -> np.ndarray:
    """Where each query's rows start, from the rows per query (int64, one more)."""
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


def ranked_rows(q_sorted, g_sorted, s_sorted, present, *, missing, max_docs, judged_only,
                ties):
    """``(selected, fields)``: the ranked rows (query codes, grades and scores in rank
    order) cut by ``-M``/``-J``, the selected queries (those in the run with
    ``missing="skip"``, else all), and :class:`~rankeval.RankedRun`'s fields of the
    rows (``grades``, ``offsets``, ``scores``, ``tie_groups``, ``in_run``), the same
    for the general path and the dict path."""
    n_all = present.size
    if max_docs is not None or judged_only:
        q_sorted, g_sorted, s_sorted = cut_rankings(q_sorted, g_sorted, s_sorted, n_all,
                                                     max_docs, judged_only)
    selected = np.flatnonzero(present) if missing == "skip" else np.arange(n_all)
    counts = np.bincount(q_sorted, minlength=n_all)
    return selected, {
        "grades": g_sorted,
        "offsets": offsets(counts[selected]),
        "scores": s_sorted,
        "tie_groups": tie_groups(q_sorted, s_sorted) if ties == "average" else None,
        "in_run": present[selected],
    }
