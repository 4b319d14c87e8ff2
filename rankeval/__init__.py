"""rankeval: ranking-evaluation metrics, each its formula in a few lines of NumPy.

The companion library of the book *Ranking Evaluation, executable*. Every
metric takes the relevance grades of a ranked list, best-ranked first: a 1-D
sequence is one query and gives a ``float``; a 2-D array or a (ragged) list of
lists is many queries and gives a 1-D array of per-query values. The mean of
that array over queries is the "mean" metric (MAP, MRR, MERR, ...).

Importing rankeval before pyarrow sets one default for Arrow's allocator
(mimalloc, linked into pyarrow): ``MIMALLOC_ARENA_EAGER_COMMIT=0``, unless the
environment already sets it. mimalloc then commits its arenas' memory page by
page as it is used, instead of whole arenas (backed by huge pages where the
system allows) when they are reserved. That lowers the peak memory of
``evaluate`` on large runs and changes no value (``benchmarks/README.md``
says how it was measured). mimalloc reads the variable when
pyarrow is loaded and again later, so it stays set, and child processes inherit
it; if pyarrow was imported first, nothing is changed.
"""

import os as _os
import sys as _sys

if "pyarrow" not in _sys.modules:
    _os.environ.setdefault("MIMALLOC_ARENA_EAGER_COMMIT", "0")

from .average_precision import average_precision
from .average_recall import average_recall
from .bpref import bpref
from .compare import adjust_pvalues, bootstrap_ci, compare, effect_size, paired_test, report
from .correlation import inversions, kendall_tau, kendall_tau_distance, spearman_rho
from .dcg import dcg, ndcg
from .diversity import alpha_ndcg, err_ia
from .diversity_runs import evaluate_diversity
from .err import err
from .graded_average_precision import graded_average_precision
from .hit import hit_at_k
from .ids import relevance_vector
from .infap import inferred_average_precision
from .interpolated_precision import eleven_point_average, interpolated_precision
from .judged import judged_at_k
from .ltr import evaluate_groups, weighted_mean
from .measures import Measure, describe, parse_measure, parse_measures, parse_trec_eval
from .precision_recall import hits_at_k, precision_at_k, recall_at_k
from .r_precision import r_precision
from .rank_position import first_relevant_position, mean_rank
from .ranking import RankedRun, rank_run
from .rbp import rbp
from .reciprocal_rank import reciprocal_rank
from .runs import aggregate, evaluate
from .set_measures import set_f, set_precision, set_recall
from .trec import read_qrels, read_run, write_qrels, write_run
from .trec_rbp import trec_rbp

__version__ = "0.1.0"

__all__ = [
    "hits_at_k",
    "precision_at_k",
    "recall_at_k",
    "hit_at_k",
    "average_precision",
    "average_recall",
    "graded_average_precision",
    "reciprocal_rank",
    "dcg",
    "ndcg",
    "err",
    "rbp",
    "trec_rbp",
    "r_precision",
    "bpref",
    "interpolated_precision",
    "eleven_point_average",
    "inferred_average_precision",
    "judged_at_k",
    "set_precision",
    "set_recall",
    "set_f",
    "mean_rank",
    "first_relevant_position",
    "spearman_rho",
    "kendall_tau",
    "kendall_tau_distance",
    "inversions",
    "relevance_vector",
    "evaluate",
    "aggregate",
    "evaluate_groups",
    "weighted_mean",
    "alpha_ndcg",
    "err_ia",
    "evaluate_diversity",
    "rank_run",
    "RankedRun",
    "parse_trec_eval",
    "describe",
    "Measure",
    "parse_measure",
    "parse_measures",
    "read_qrels",
    "read_run",
    "write_qrels",
    "write_run",
    "compare",
    "paired_test",
    "bootstrap_ci",
    "effect_size",
    "adjust_pvalues",
    "report",
]
