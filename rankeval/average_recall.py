"""Average recall (AR); MAR is its mean over queries.

Chapter: :doc:`/chapters/05_average_recall`.

PLACEHOLDER: being written; every function raises NotImplementedError.
"""

__all__ = ["average_recall"]


def average_recall(relevance, k=None, *, n_relevant=None, threshold=1):
    raise NotImplementedError("not written yet")
