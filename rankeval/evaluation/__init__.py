"""The evaluation layer: inputs -> ranked grades -> per-query values -> summaries.

- :mod:`~rankeval.evaluation.runs`: :func:`~rankeval.evaluate` (qrels and a run);
- :mod:`~rankeval.evaluation.groups`: :func:`~rankeval.evaluate_groups` (learning-to-rank
  arrays) and :func:`~rankeval.weighted_mean`;
- :mod:`~rankeval.evaluation.diversity`: :func:`~rankeval.evaluate_diversity` (subtopics);
- :mod:`~rankeval.evaluation.plan`: :func:`~rankeval.plan`, one request's measures and
  conventions, resolved once, which every entry point runs;
- :mod:`~rankeval.evaluation.core`: the scoring core they share;
- :mod:`~rankeval.evaluation.aggregate`: the one aggregation over queries;
- :mod:`~rankeval.evaluation.conventions`: the conventions as one frozen object,
  with the presets of trec_eval, pytrec_eval, scikit-learn, LightGBM and XGBoost.
"""

from .aggregate import aggregate
from .conventions import PRESETS, Conventions
from .diversity import evaluate_diversity
from .groups import evaluate_groups, weighted_mean
from .runs import evaluate

__all__ = ["evaluate", "aggregate", "evaluate_groups", "weighted_mean", "evaluate_diversity",
           "Conventions", "PRESETS"]  # fmt: skip
