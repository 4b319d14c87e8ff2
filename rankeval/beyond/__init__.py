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
from .spread import (
    long_tail,
    ranking_equal_opportunity,
    ranking_statistical_parity,
    serendipity,
    tail_share,
)

#: short names of the concentration measures (RecBole's and Elliot's ``Gini``/``entropy``)
gini = exposure_gini
entropy = exposure_entropy
reo = ranking_equal_opportunity
rsp = ranking_statistical_parity

__all__ = [
    "average_recommendation_popularity",
    "catalogue_coverage",
    "cohen_kappa",
    "discriminative_power",
    "entropy",
    "expected_exposure",
    "expected_sampled_hit",
    "exposure_entropy",
    "exposure_gini",
    "fleiss_kappa",
    "full_ranks",
    "gini",
    "group_exposure",
    "intra_list_diversity",
    "krippendorff_alpha",
    "long_tail",
    "miscalibration",
    "novelty",
    "popularity_lift",
    "position_exposure",
    "rank_metrics",
    "ranking_equal_opportunity",
    "ranking_statistical_parity",
    "ranked_lists",
    "rating_table",
    "reo",
    "rsp",
    "sampled_ranks",
    "serendipity",
    "swap_rate",
    "system_tau",
    "tail_share",
    "topic_matrix",
]
