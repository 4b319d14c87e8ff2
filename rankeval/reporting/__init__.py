"""The reporting layer: what a person reads. :mod:`~rankeval.reporting.tables` renders
tables of means (markdown, LaTeX) from :func:`rankeval.compare`;
:mod:`~rankeval.reporting.text` writes per-query and summary lines (trec_eval text,
tsv, jsonl) from evaluation tables."""
