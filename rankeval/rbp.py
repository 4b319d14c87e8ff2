"""Rank-biased precision (RBP).

Chapter: :doc:`/chapters/09_rbp`.

PLACEHOLDER: being written; every function raises NotImplementedError.
"""

__all__ = ["rbp"]


def rbp(relevance, k=None, *, p=0.8):
    raise NotImplementedError("not written yet")
