"""The statistics layer: comparing systems query by query (:mod:`~rankeval.stats.compare`),
many systems at once (:mod:`~rankeval.stats.multiple`: the randomised Tukey HSD test,
wins and losses), comparing rankings (:mod:`~rankeval.stats.correlation`) and lists
(:mod:`~rankeval.stats.similarity`: rank-biased overlap, tau_AP).

``rankeval.stats.rbo``, ``tau_ap``, ``tukey_hsd`` and ``wins_losses`` are the short names.
"""

from rankeval.stats.multiple import across_runs, tukey_hsd, wins_losses
from rankeval.stats.similarity import rank_biased_overlap, tau_ap

rbo = rank_biased_overlap

__all__ = ["rbo", "rank_biased_overlap", "tau_ap", "tukey_hsd", "wins_losses", "across_runs"]
