"""The public path of :mod:`rankeval.distributed.spark` (``import rankeval.spark``).

Evaluate runs stored as Spark DataFrames: the same kernels, per partition.

Chapter: :doc:`/chapters/20_evaluating_at_scale`.
"""

from .distributed.spark import *  # noqa: F403
from .distributed.spark import __all__, __doc__  # noqa: F401
