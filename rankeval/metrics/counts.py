"""The counts trec_eval prints: queries, retrieved, relevant, relevant retrieved.

They have no metric function of their own (a count needs no formula); their
values per query are whole numbers, summed over queries as trec_eval sums them.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, judged_batch
from .judged import is_judged

__all__: list[str] = []


def _score_num_q(ranked: RankedBlock, k):
    return np.ones(len(ranked), dtype=np.int64)


def _score_num_ret(ranked: RankedBlock, k):
    return ranked.lengths.astype(np.int64)


def _score_num_rel(ranked: RankedBlock, k, rel):
    return ranked.n_relevant(rel).astype(np.int64)


def _score_num_rel_ret(ranked: RankedBlock, k, rel):
    return (ranked.padded() >= rel).sum(axis=1).astype(np.int64)


_COUNT = {"cutoff": "none", "aggregate": "sum", "integer": True, "bounds": (0.0, np.inf)}


def _score_num_nonrel_judged_ret(ranked: RankedBlock, k, rel):
    g, n = judged_batch(ranked, k)
    inside = np.arange(g.shape[1]) < n[:, None]
    judged_nonrel = inside & is_judged(g) & (g < rel)
    return judged_nonrel.sum(axis=1).astype(np.int64)


DECLARATIONS = (
    Declaration("NumQ", "1 per evaluated query (summed: the number of queries)", _score_num_q,
                trec_eval="num_q", print_order=1, per_query=False, **_COUNT),
    Declaration("NumRet", "retrieved documents (summed over queries)", _score_num_ret,
                trec_eval="num_ret", print_order=2, **_COUNT),
    Declaration("NumRel", "relevant judged documents (summed over queries)", _score_num_rel,
                params=(REL,), trec_eval="num_rel", print_order=3, binary=True, **_COUNT),
    Declaration("NumRelRet", "relevant retrieved documents (summed over queries)",
                _score_num_rel_ret, params=(REL,), trec_eval="num_rel_ret", print_order=4,
                binary=True, **_COUNT),
    Declaration("NumNonRelJudgedRet", "judged non-relevant retrieved documents (summed)",
                _score_num_nonrel_judged_ret, params=(REL,),
                aliases=("num_nonrel_judged_ret",), trec_eval="num_nonrel_judged_ret",
                print_order=35, binary=True, **_COUNT),
)  # fmt: skip
