"""Average precision (AP); MAP is its mean over queries.

Chapter: :doc:`/chapters/04_average_precision`.

PLACEHOLDER: being written; every function raises NotImplementedError.
"""

__all__ = ["average_precision"]


def average_precision(relevance, k=None, *, n_relevant=None, threshold=1):
    raise NotImplementedError("not written yet")
