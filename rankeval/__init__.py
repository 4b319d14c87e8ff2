"""rankeval: ranking-evaluation metrics, each its formula in a few lines of NumPy.

The companion library of the book *Ranking Evaluation, executable*. Every
metric takes the relevance grades of a ranked list, best-ranked first: a 1-D
sequence is one query and gives a ``float``; a 2-D array or a (ragged) list of
lists is many queries and gives a 1-D array of per-query values. The mean of
that array over queries is the "mean" metric (MAP, MRR, MERR, ...).
"""

from .average_precision import average_precision
from .average_recall import average_recall
from .compare import adjust_pvalues, bootstrap_ci, compare, effect_size, paired_test
from .correlation import inversions, kendall_tau, kendall_tau_distance, spearman_rho
from .dcg import dcg, ndcg
from .err import err
from .graded_average_precision import graded_average_precision
from .hit import hit_at_k
from .ids import relevance_vector
from .measures import Measure, parse_measure, parse_measures
from .precision_recall import hits_at_k, precision_at_k, recall_at_k
from .rank_position import first_relevant_position, mean_rank
from .rbp import rbp
from .reciprocal_rank import reciprocal_rank
from .runs import evaluate
from .trec import read_qrels, read_run, write_qrels, write_run

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
    "mean_rank",
    "first_relevant_position",
    "spearman_rho",
    "kendall_tau",
    "kendall_tau_distance",
    "inversions",
    "relevance_vector",
    "evaluate",
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
]
