"""rankeval: ranking evaluation, each measure its formula in a few lines of NumPy.

The companion library of the book *Ranking Evaluation, executable*. It scores
rankings as trec_eval, pytrec_eval, scikit-learn, LightGBM and XGBoost do, with
each convention where they differ a named option.

Quick start
-----------
A metric takes the grades of a ranked list, best first; a list of lists is
many queries::

    >>> import rankeval
    >>> rankeval.ndcg([3, 2, 0, 1], k=3)
    0.895
    >>> rankeval.average_precision([[1, 0, 1], [0, 1]])
    array([0.83333333, 0.5       ])

A whole run against judgments (TREC files, dicts or data frames), one row per
query, then the means over queries as trec_eval's ``all`` line::

    >>> qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}}
    >>> run = {"q1": {"a": 0.9, "b": 0.8, "c": 0.1}, "q2": {"y": 1.0, "x": 0.5}}
    >>> per_query = rankeval.evaluate(qrels, run, ["nDCG@10", "AP", "P@2"])
    >>> float(rankeval.aggregate(per_query)["AP"])
    0.667

- ``evaluate(qrels_path, run_path, ["ndcg_cut_10", "map"])``: TREC files, and
  trec_eval's names; ``python -m rankeval -m map qrels run`` prints what
  trec_eval prints.
- ``compare({"bm25": df1, "dense": df2}, ["AP"])`` then ``report(...)``:
  paired tests over queries, as a markdown or LaTeX table.
- ``evaluate(qrels, {"u1": ["i3", "i1"]}, ["Hit@10"])``: recommender lists.
- ``evaluate_groups(labels, scores, group, "nDCG@10", conventions="lightgbm")``:
  learning-to-rank arrays, with LightGBM's, XGBoost's or scikit-learn's rules.
- ``rankeval.dask.evaluate`` and ``rankeval.spark.evaluate``: the same values,
  partition by partition.

Every measure name is listed by ``python -m rankeval --help`` and in
:mod:`rankeval.measures`. ``import rankeval`` is light: the I/O layer (and
pyarrow, pandas) loads on first use.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import importlib as _importlib

__version__ = "0.1.0"

# public name -> the module that defines it; each is imported on first use
_HOME = {
    "relevance_vector": "metrics.ids",
    "spearman_rho": "stats.correlation",
    "kendall_tau": "stats.correlation",
    "kendall_tau_distance": "stats.correlation",
    "inversions": "stats.correlation",
    "evaluate": "evaluation.runs",
    "aggregate": "evaluation.aggregate",
    "Conventions": "evaluation.conventions",
    "plan": "evaluation.plan",
    "Plan": "evaluation.plan",
    "SkippedQueriesWarning": "evaluation.core",
    "Evaluator": "evaluation.incremental",
    "evaluate_groups": "evaluation.groups",
    "weighted_mean": "evaluation.groups",
    "evaluate_diversity": "evaluation.diversity",
    "rank_run": "ranking",
    "RankedRun": "ranking",
    "Measure": "measures",
    "parse_measure": "measures",
    "parse_measures": "measures",
    "parse_trec_eval": "measures",
    "describe": "measures",
    "read_qrels": "io",
    "read_run": "io",
    "write_qrels": "io",
    "write_run": "io",
    "compare": "stats.compare",
    "paired_test": "stats.compare",
    "bootstrap_ci": "stats.compare",
    "effect_size": "stats.compare",
    "tukey_hsd": "stats.multiple",
    "wins_losses": "stats.multiple",
    "rank_biased_overlap": "stats.similarity",
    "tau_ap": "stats.similarity",
    "group_auc": "metrics.classification",
    "fuse": "fusion",
    "adjust_pvalues": "stats.compare",
    "report": "reporting.tables",
}
# the public modules reached as attributes (``rankeval.measures``, ``rankeval.dask``)
_MODULES = ("measures", "metrics", "io", "evaluation", "stats", "reporting", "distributed",
            "ranking", "dask", "spark", "ltr", "cli", "online", "beyond", "fusion",
            "plot")  # fmt: skip


def _metric_functions() -> dict:
    """Every metric function, by name, from the registry's declarations."""
    from .measures import DECLARATIONS

    return {
        d.function.__name__: d.function
        for d in DECLARATIONS.values()
        if d.function is not None
    }


def __getattr__(name):
    if name in _HOME:
        value = getattr(_importlib.import_module(f".{_HOME[name]}", __name__), name)
    elif name in _MODULES:
        value = _importlib.import_module(f".{name}", __name__)
    elif name == "__all__":
        value = sorted({*_metric_functions(), *_HOME})
    else:
        functions = _metric_functions() if not name.startswith("_") else {}
        if name not in functions:
            raise AttributeError(f"module 'rankeval' has no attribute {name!r}")
        value = functions[name]
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__():
    return sorted({*globals(), *_HOME, *_MODULES, *_metric_functions()})
