"""The public path of :mod:`rankeval.distributed.dask` (``import rankeval.dask``).

Evaluate runs too large for one process with Dask: the same kernels, per partition.

Chapter: :doc:`/chapters/20_evaluating_at_scale`.
"""

from .distributed.dask import *  # noqa: F403
from .distributed.dask import __all__, __doc__  # noqa: F401
