"""The fusion layer: several runs of the same queries combined into one (hybrid retrieval).

:func:`rankeval.fuse` reads each run as :func:`rankeval.evaluate` does, ranks it
by :func:`rankeval.ranking.ranked_ids` (so a tie is broken as ``evaluate`` breaks it),
optionally normalises each run's scores per query (:func:`~rankeval.fusion.normalize`),
and combines them by one of the methods of the literature (CombSUM and its relatives,
reciprocal rank fusion, Borda, rank-biased centroids, and PosFuse, ProbFuse and
BayesFuse, which learn from judged training queries). Each method is also a function of
its own (``rankeval.fusion.rrf``, ``combsum``, ``combmnz``, ...). The result is a run
that :func:`rankeval.evaluate` takes as it is; :func:`rankeval.fusion.tune_weights`
picks the weights of a weighted fusion on training queries.
"""

from rankeval.fusion.methods import FUSION_METHODS, NORMALIZATIONS, fuse, normalize
from rankeval.fusion.named import (  # noqa: F401
    bayesfuse,
    bordafuse,
    combanz,
    combgmnz,
    combmax,
    combmed,
    combmin,
    combmnz,
    combsum,
    isr,
    log_isr,
    posfuse,
    probfuse,
    rbc,
    rrf,
    wmnz,
    wsum,
)
from rankeval.fusion.trained import TrainingQueriesWarning
from rankeval.fusion.tuning import tune_weights

__all__ = ["fuse", "normalize", "tune_weights", "FUSION_METHODS", "NORMALIZATIONS",
           "TrainingQueriesWarning", "bayesfuse", "bordafuse", "combanz", "combgmnz",
           "combmax", "combmed", "combmin", "combmnz", "combsum", "isr", "log_isr",
           "posfuse", "probfuse", "rbc", "rrf", "wmnz", "wsum"]
