r"""The ranking step: qrels + run -> every query's grades in rank order.

:func:`rank_run` joins a run with its judgments and sorts every query's
documents by score. Its result, a :class:`RankedRun`, holds the grades of
the ranked documents of all queries in one flat array (with offsets), plus
what the judgments say about each query (its relevant count, its judged
grades). :func:`rankeval.evaluate` scores those grades with the measures of
:mod:`rankeval.measures`; any metric function of the package takes them
too, through :meth:`RankedRun.ragged` (each query's ranking at its own length) or
:meth:`RankedRun.padded` (one matrix, for the measures that a ranking's length
does not change: see its Notes).

The engine is **pyarrow** (pinned in ``requirements.txt``): the inputs arrive
as Arrow tables (from :mod:`rankeval.io`), ids are matched by Arrow's
hash kernels (``pyarrow.compute.index_in`` and ``dictionary_encode`` for the
query ids, an Acero hash join for the (query, document) pairs) that compare
the ids as exact strings (or integers), and documents are ordered by
Arrow's stable multi-key sort (``pyarrow.compute.sort_indices``), which
compares strings byte by byte, as C's ``strcmp`` does in trec_eval. A run
as systems write it (each query's documents together, best first) needs no
sort of its rows: only whole queries move (NumPy); a run of few long queries in
any order is sorted by query, then each query by score (stable NumPy sorts). pyarrow
was chosen over polars because pandas (the result type of ``evaluate``) already
builds on it, its CSV reader reads TREC files, and it needs no second
dataframe library. Arrow compares the ids, whatever their type.

The layer is a folder of modules, each one step or one part:

- :mod:`~rankeval.ranking.pipeline`: :func:`rank_run` and its steps, :func:`ranked_ids`;
- :mod:`~rankeval.ranking.options`: the options, checked once (:func:`check_options`),
  and the split of a ``columns`` mapping (:func:`columns_of`);
- :mod:`~rankeval.ranking.id_matching`: query and document ids matched by Arrow;
- :mod:`~rankeval.ranking.grade_join`: every run row's grade, by one hash join;
- :mod:`~rankeval.ranking.from_dicts`: two plain dicts ranked without tables (grades by
  the qrels' own ``dict.get``), the general path's result to the last bit;
- :mod:`~rankeval.ranking.ordering`: the order by query and score, and the tie rules;
- :mod:`~rankeval.ranking.memory`: Arrow's freed memory released between steps;
- :mod:`~rankeval.ranking.ranked_run`: :class:`RankedRun`, with its two parts
  :mod:`~rankeval.ranking.ranked_grades` (the grades as matrices) and
  :mod:`~rankeval.ranking.judgment_counts` (what the judgments say per query).

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

# (_inner_join, _rank_order: private, and stable_order, re-exported for tests/test_ranking.py
# and benchmarks/bench_join.py, which import them by this path)
from .grade_join import _inner_join as _inner_join
from .memory import release_memory
from .options import GRADES, IDEAL, MISSING, SCORE_PRECISION, TIES, check_options, columns_of
from .ordering import _rank_order as _rank_order
from .ordering import by_query_and_score, compared_scores
from .ordering import stable_order as stable_order
from .pipeline import rank_run, ranked_ids
from .ranked_run import RankedRun

__all__ = ["RankedRun", "rank_run", "release_memory", "check_options", "by_query_and_score",
           "columns_of", "compared_scores", "ranked_ids", "TIES", "IDEAL", "MISSING",
           "SCORE_PRECISION", "GRADES"]
