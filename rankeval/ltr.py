"""The public path of :mod:`rankeval.evaluation.groups` (``import rankeval.ltr``):
learning-to-rank arrays (labels, scores, query groups) scored as ``evaluate`` scores runs.

Chapter: :doc:`/chapters/21_recommenders_and_ltr`.
"""

from .evaluation.groups import *  # noqa: F403
from .evaluation.groups import CONVENTIONS, __all__, __doc__  # noqa: F401
