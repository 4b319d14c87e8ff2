"""The options of :func:`rankeval.rank_run`, checked once, and the split of a
``columns`` mapping between the qrels and the run.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import numpy as np

from ..metrics.validation import check_choice, check_threshold

__all__ = ["TIES", "IDEAL", "MISSING", "SCORE_PRECISION", "GRADES", "check_options",
           "columns_of"]

TIES = ("trec_eval", "input", "average")
IDEAL = ("judged", "retrieved")
MISSING = ("skip", "zero")
SCORE_PRECISION = ("double", "float")
GRADES = ("float", "trec_eval")


def check_options(*, threshold, ties, judged_only, missing, ideal, score_precision, grades,
                  max_docs) -> float:
    """Check the options of :func:`rankeval.rank_run`; return the threshold as a float."""
    threshold = check_threshold(threshold)
    check_choice("ties", ties, TIES)
    check_choice("missing", missing, MISSING)
    check_choice("ideal", ideal, IDEAL)
    check_choice("score_precision", score_precision, SCORE_PRECISION)
    check_choice("grades", grades, GRADES)
    if not isinstance(judged_only, (bool, np.bool_)):
        raise TypeError(f"judged_only must be True or False, got {judged_only!r}")
    if max_docs is not None:
        if isinstance(max_docs, (bool, np.bool_)) or not isinstance(max_docs, (int, np.integer)):
            raise TypeError(f"max_docs must be a positive int or None, got {max_docs!r}")
        if max_docs <= 0:
            raise ValueError(f"max_docs must be a positive int or None, got {max_docs}")
    return threshold



def columns_of(columns, names):
    """The part of one ``columns`` mapping (canonical -> yours) that concerns one input,
    the qrels or the run (``names``, its canonical columns); None if none. ValueError
    for a key that is no canonical name. The bounded path splits the mapping the same
    way."""
    if columns is None:
        return None
    unknown = sorted(set(columns) - {"query_id", "doc_id", "relevance", "score", "rank"})
    if unknown:
        raise ValueError(
            f"columns maps {unknown}, which are not canonical column names; use query_id, "
            "doc_id, relevance, score or rank as keys"
        )
    return {k: v for k, v in columns.items() if k in names} or None

