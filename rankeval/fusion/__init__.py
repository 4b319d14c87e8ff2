"""The fusion layer: several runs of the same queries combined into one (hybrid retrieval).

:func:`~rankeval.fusion.fuse` reads each run as :func:`rankeval.evaluate` does, ranks it
by :func:`rankeval.ranking.ranked_ids` (so a tie is broken as ``evaluate`` breaks it),
optionally normalises each run's scores per query (:func:`~rankeval.fusion.normalize`),
and combines them by one of the methods of the literature (CombSUM and its relatives,
reciprocal rank fusion, Borda, rank-biased centroids). The result is a run frame that
:func:`rankeval.evaluate` takes as it is.
"""

from rankeval.fusion.methods import FUSION_METHODS, NORMALIZATIONS, fuse, normalize

__all__ = ["fuse", "normalize", "FUSION_METHODS", "NORMALIZATIONS"]
