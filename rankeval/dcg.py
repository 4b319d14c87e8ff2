"""Discounted cumulative gain (DCG) and its normalised form (nDCG).

Chapter: :doc:`/chapters/07_ndcg`.

PLACEHOLDER: being written; every function raises NotImplementedError.
"""

__all__ = ["dcg", "ndcg"]


def dcg(relevance, k=None, *, gain="linear", discount="log2"):
    raise NotImplementedError("not written yet")


def ndcg(relevance, k=None, *, gain="linear", discount="log2", ideal=None):
    raise NotImplementedError("not written yet")
