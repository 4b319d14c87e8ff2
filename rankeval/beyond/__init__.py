"""Beyond the test collection: beyond-accuracy measures of recommenders, agreement
between assessors, and the discriminative power of measures.

``import rankeval.beyond`` (the package is not imported by ``import rankeval``).

Chapters: :doc:`/chapters/24_beyond_accuracy`, :doc:`/chapters/25_judging_the_judges`.
"""

from .accuracy import (
    average_recommendation_popularity,
    catalogue_coverage,
    expected_exposure,
    expected_sampled_hit,
    exposure_entropy,
    exposure_gini,
    full_ranks,
    group_exposure,
    intra_list_diversity,
    miscalibration,
    novelty,
    popularity_lift,
    position_exposure,
    rank_metrics,
    ranked_lists,
    sampled_ranks,
)
from .agreement import cohen_kappa, fleiss_kappa, krippendorff_alpha, rating_table, system_tau
from .discriminative import discriminative_power, swap_rate, topic_matrix

__all__ = [
    "average_recommendation_popularity",
    "catalogue_coverage",
    "cohen_kappa",
    "discriminative_power",
    "expected_exposure",
    "expected_sampled_hit",
    "exposure_entropy",
    "exposure_gini",
    "fleiss_kappa",
    "full_ranks",
    "group_exposure",
    "intra_list_diversity",
    "krippendorff_alpha",
    "miscalibration",
    "novelty",
    "popularity_lift",
    "position_exposure",
    "rank_metrics",
    "ranked_lists",
    "rating_table",
    "sampled_ranks",
    "swap_rate",
    "system_tau",
    "topic_matrix",
]
