"""The formulas: one module per family of metrics, each with its kernel, its validated
public function and its declarations (:mod:`rankeval.metrics.declaration`).

This layer imports nothing else of rankeval: a metric takes grades in rank order and
knows nothing of files, ids or tables.
"""
