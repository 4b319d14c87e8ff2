"""Graded average precision (GAP), Robertson, Kanoulas and Yilmaz 2010.

Chapter: :doc:`/chapters/04_average_precision`.

PLACEHOLDER: being written; every function raises NotImplementedError.
"""

__all__ = ["graded_average_precision"]


def graded_average_precision(relevance, k=None, *, max_grade=None, grade_probabilities=None):
    raise NotImplementedError("not written yet")
