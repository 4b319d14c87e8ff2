"""The evaluation layer: inputs -> ranked grades -> per-query values -> summaries.

- :mod:`~rankeval.evaluation.runs`: :func:`~rankeval.evaluate` (qrels and a run);
- :mod:`~rankeval.evaluation.groups`: :func:`~rankeval.evaluate_groups` (learning-to-rank
  arrays) and :func:`~rankeval.weighted_mean`;
- :mod:`~rankeval.evaluation.diversity`: :func:`~rankeval.evaluate_diversity` (subtopics);
- :mod:`~rankeval.evaluation.core`: the scoring core they share;
- :mod:`~rankeval.evaluation.aggregate`: the one aggregation over queries.
"""

from .aggregate import aggregate
from .diversity import evaluate_diversity
from .groups import evaluate_groups, weighted_mean
from .runs import evaluate

__all__ = ["evaluate", "aggregate", "evaluate_groups", "weighted_mean", "evaluate_diversity"]
