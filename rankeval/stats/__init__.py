"""The statistics layer: comparing systems query by query (:mod:`~rankeval.stats.compare`)
and comparing rankings (:mod:`~rankeval.stats.correlation`)."""
