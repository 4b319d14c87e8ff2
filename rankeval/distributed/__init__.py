"""The distributed layer: whole queries per partition, scored by :func:`rankeval.evaluate`.

:mod:`~rankeval.distributed.partition` is the unit of work; :mod:`rankeval.dask` and
:mod:`rankeval.spark` (public paths of :mod:`~rankeval.distributed.dask` and
:mod:`~rankeval.distributed.spark`) ship partitions to it. Nothing here imports Dask
or Spark until it is used.
"""
