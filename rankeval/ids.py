"""Turn ranked item ids and relevance judgments into a relevance vector.

Chapter: :doc:`/chapters/02_precision_recall`.

PLACEHOLDER: being written; every function raises NotImplementedError.
"""

__all__ = ["relevance_vector"]


def relevance_vector(ranking, judgments):
    raise NotImplementedError("not written yet")
