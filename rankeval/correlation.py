"""Rank correlation between two rankings: Spearman, Kendall, inversions.

Chapter: :doc:`/chapters/11_rank_correlation`.

PLACEHOLDER: being written; every function raises NotImplementedError.
"""

__all__ = ["spearman_rho", "kendall_tau", "kendall_tau_distance", "inversions"]


def spearman_rho(x, y):
    raise NotImplementedError("not written yet")


def kendall_tau(x, y):
    raise NotImplementedError("not written yet")


def kendall_tau_distance(x, y):
    raise NotImplementedError("not written yet")


def inversions(relevance):
    raise NotImplementedError("not written yet")
