"""Mean rank (MR) and first relevant position (FRP).

Chapter: :doc:`/chapters/10_mean_rank`.

PLACEHOLDER: being written; every function raises NotImplementedError.
"""

__all__ = ["mean_rank", "first_relevant_position"]


def mean_rank(relevance, k=None, *, threshold=1):
    raise NotImplementedError("not written yet")


def first_relevant_position(relevance, k=None, *, threshold=1):
    raise NotImplementedError("not written yet")
