"""Reciprocal rank (RR); MRR is its mean over queries.

Chapter: :doc:`/chapters/06_reciprocal_rank`.

PLACEHOLDER: being written; every function raises NotImplementedError.
"""

__all__ = ["reciprocal_rank"]


def reciprocal_rank(relevance, k=None, *, threshold=1):
    raise NotImplementedError("not written yet")
