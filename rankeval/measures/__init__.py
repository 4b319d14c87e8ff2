"""Measures of :func:`rankeval.evaluate`: one declaration each, names in three spellings.

A measure is written as in ir_measures: a name, optional parameters in
parentheses, an optional cut-off after ``@`` (``"nDCG@10"``, ``"RBP(p=0.9)"``,
``"P(rel=2)@5"``, ``"IPrec@0.1"``). The book's names (MAP, MRR, MAR, GAP, MR,
FRP, ...) are accepted, and so are ranx's (``mrr@10``, ``hit_rate@10``) and
trec_eval's: ``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``,
``num_rel_ret``, ``P.5``, ... with :func:`rankeval.parse_measure`, and trec_eval's
dotted ``-m`` syntax for several measures (``P.5,10``, ``all_trec``,
``official``) with :func:`rankeval.parse_trec_eval`. A name not typed exactly is
read in any letter case and without its ``_`` and ``-`` (``Ndcg@10``), unless
that leaves two measures (``Rbp``: ``RBP`` or trec_eval's ``rbp``). The
diversity measures (``alpha-nDCG@20``, ``ERR-IA@20``) need subtopic
judgments: :func:`rankeval.evaluate_diversity` computes them.

Every measure is declared once, in the module of its formula
(a ``Declaration`` of ``rankeval.metrics.declaration``): its names, its typed
parameters with their defaults and ranges, its trec_eval spelling and print
order, how its per-query values aggregate over queries (mean, or sum for the
counts), its bounds, whether lower is better, and the function that scores a
block of ranked queries (a :class:`rankeval.RankedRun`) with the kernel of the
public metric function. ``DECLARATIONS`` collects them; the table below and
the command line's ``--help`` are generated from it.

{table}

No default depends on the data. ERR and GAP need the top of the grade scale;
both default to ``max_grade=4``, the 0-4 scale of the TREC Web tracks that
gdeval (the official ERR script) fixes; a grade above it is an error, never a
silent rescaling. So a query's value depends on that query alone.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from .registry import (
    DECLARATIONS,
    Declaration,
    Measure,
    Param,
    describe,
    parse_measure,
    parse_measures,
    table,
)
from .trec_eval import parse_trec_eval, trec_eval_name

__all__ = [
    "Measure",
    "Declaration",
    "Param",
    "DECLARATIONS",
    "parse_measure",
    "parse_measures",
    "parse_trec_eval",
    "trec_eval_name",
    "describe",
    "table",
]

__doc__ = __doc__.replace("{table}", table())
