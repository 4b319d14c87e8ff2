"""An incremental evaluator: batches of scored documents in, ``evaluate``'s table out.

For a training loop or a stream of predictions: :class:`Evaluator` takes batches
``(query_ids, doc_ids, scores)`` in any order with :meth:`~Evaluator.update`,
combines the evaluators of several workers with :meth:`~Evaluator.merge`, and
:meth:`~Evaluator.compute` returns the frame :func:`rankeval.evaluate` returns on
all the rows at once (to within a unit in the last place: see
the note on block widths in ``rankeval.evaluation.bounded``).

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io import qrels_table, run_table, tables
from ..io.canonical import plain_ids
from .conventions import conventions as as_conventions
from .core import check_needs, measures_and_labels
from .runs import evaluate

__all__ = ["Evaluator"]

_RANK_CUTOFFS = ("optional", "required")
_COMPACT_ROWS = 1 << 20  # rows added before the state is cut back to its depth


class Evaluator:
    r"""Evaluate a ranker batch by batch, with the values of :func:`rankeval.evaluate`.

    Parameters
    ----------
    qrels : str, os.PathLike, dict, pandas.DataFrame or pyarrow.Table
        Relevance judgments, in any form :func:`rankeval.evaluate` takes; read
        once and held in memory.
    measures : str, Measure or list of them
        As for :func:`rankeval.evaluate`.
    conventions : str or Conventions, optional
        A preset or a :class:`~rankeval.Conventions`, as for
        :func:`rankeval.evaluate`.
    **options
        ``threshold``, ``ties``, ``ideal``, ``missing``, ``judged_only``,
        ``score_precision``, ``grades``, ``max_docs``: as for
        :func:`rankeval.evaluate`.

    Notes
    -----
    The state is every query's scored documents. It is **truncated** to the
    deepest cut-off :math:`K = \max_m k_m` of the measures when all of these hold:
    every measure has a rank cut-off (``P@10``, ``nDCG@10``, ``AP@100``, ``R@1000``,
    ``RR@10``, ...), ``ties="trec_eval"``, ``ideal="judged"``, ``judged_only=False``
    and the document ids are strings. It then keeps, per query, the first
    :math:`K` documents by score (descending; as 32-bit floats with
    ``score_precision="float"``) and, among equal scores, by document id
    descending as bytes: exactly the documents ``evaluate`` ranks in the top
    :math:`K`, so the values are unchanged; the recall denominators and ideal
    lists come from the qrels. Otherwise the **full lists** are kept: measures
    without a cut-off (AP, R-precision, bpref, infAP, recall, nDCG without
    ``@k``, the interpolated precisions at recall levels, NumRet) read the whole
    ranking, ``ties="input"`` and ``"average"`` read the order or the tied
    groups, ``ideal="retrieved"`` and ``judged_only=True`` read documents below
    any depth. The state is cut back every million new rows.

    A document given twice for one query raises ValueError when the state is
    cut back or computed (not in ``update``: the search costs most of its time); with
    truncation, a repeat of a document already cut from the top :math:`K` is
    not detected. With ``ties="input"`` the input order is the order of the
    ``update`` calls (and of ``merge``: the other evaluator's rows come after).

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import Evaluator, evaluate
    >>> qrels = {"q1": {"a": 1, "c": 1}, "q2": {"x": 1}}
    >>> ev = Evaluator(qrels, ["P@2", "RR@10"])
    >>> ev.update(["q1", "q2"], ["a", "y"], [0.9, 1.0])
    >>> ev.update(["q2", "q1"], ["x", "b"], [0.5, 0.8])
    >>> ev.compute()
              P@2  RR@10
    query_id
    q1        0.5    1.0
    q2        0.5    0.5
    >>> ev.depth
    10
    """

    def __init__(self, qrels, measures, *, conventions=None, **options):
        self._qrels = qrels_table(qrels)
        self._conventions = as_conventions(conventions, **options)
        parsed, _ = measures_and_labels(measures)
        check_needs(parsed, "ranking")
        self._measures = [measures] if isinstance(measures, str) else list(measures)
        c = self._conventions
        cuts = [m.cutoff if m.declaration.cutoff in _RANK_CUTOFFS else None for m in parsed]
        simple = c.ties == "trec_eval" and c.ideal == "judged" and not c.judged_only
        self.depth = max(cuts) if simple and all(k is not None for k in cuts) else None
        self._tables = []
        self._new_rows = 0

    def update(self, query_ids, doc_ids, scores) -> None:
        """Add a batch: one scored document per position of the three sequences
        (lists or arrays of equal length; ids strings or integers)."""
        lengths = {len(query_ids), len(doc_ids), len(scores)}
        if len(lengths) != 1:
            raise ValueError(f"query_ids, doc_ids and scores must have one length, got "
                             f"{len(query_ids)}, {len(doc_ids)}, {len(scores)}")  # fmt: skip
        if not len(query_ids):
            return
        # types and finite scores now; a document twice when the state is cut back or
        # computed (the search for repeats costs most of a batch's time)
        table = plain_ids(tables.from_arrow(
            pa.table({"query_id": _array(query_ids), "doc_id": _array(doc_ids),
                      "score": _array(scores)}), "run", None, "update() batch", unique=True))
        self._add(table)

    def merge(self, other: Evaluator) -> Evaluator:
        """Add the state of ``other`` (another worker's evaluator of the same qrels,
        measures and conventions) to this one; returns self."""
        if not isinstance(other, Evaluator):
            raise TypeError(f"can merge only an Evaluator, got {type(other).__name__}")
        if (other._measures != self._measures or other._conventions != self._conventions
                or not other._qrels.equals(self._qrels)):
            raise ValueError("can merge only evaluators of the same qrels, measures and "
                             "conventions")
        for table in other._tables:
            self._add(table)
        return self

    def compute(self):
        """The frame :func:`rankeval.evaluate` returns on every row given so far."""
        if not self._tables:
            raise ValueError("no document yet: call update() with a batch first")
        table = pa.concat_tables(self._tables, promote_options="permissive")
        return evaluate(self._qrels, table, self._measures, conventions=self._conventions)

    @property
    def rows(self) -> int:
        """The rows held in the state."""
        return sum(t.num_rows for t in self._tables)

    def _add(self, table: pa.Table) -> None:
        self._tables.append(table)
        self._new_rows += table.num_rows
        if self._new_rows >= max(_COMPACT_ROWS, self.rows - self._new_rows):
            self._compact()

    def _compact(self) -> None:
        table = run_table(pa.concat_tables(self._tables, promote_options="permissive"))
        self._new_rows = 0
        if self.depth is not None and pa.types.is_string(table.column("doc_id").type):
            table = _top(table, self.depth, self._conventions.score_precision == "float")
        self._tables = [table]


def _array(values):
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values
    return pa.array(np.asarray(values) if not isinstance(values, list) else values)


def _top(table: pa.Table, depth: int, float32: bool) -> pa.Table:
    """Each query's first ``depth`` rows by score descending, then doc id descending."""
    score = table.column("score")
    if float32:
        score = pa.array(score.to_numpy().astype(np.float32))
    keys = pa.table({"q": table.column("query_id"), "s": score, "d": table.column("doc_id")})
    order = pc.sort_indices(keys, sort_keys=[("q", "ascending"), ("s", "descending"),
                                             ("d", "descending")])  # fmt: skip
    table = table.take(order)
    q = table.column("query_id").combine_chunks()
    n = len(q)
    if n <= depth:
        return table
    change = np.flatnonzero(pc.not_equal(q.slice(1), q.slice(0, n - 1))
                            .to_numpy(zero_copy_only=False)) + 1  # fmt: skip
    starts = np.concatenate([[0], change])
    rank = np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))
    return table.filter(pa.array(rank < depth))
