"""An incremental evaluator: batches of scored documents in, ``evaluate``'s table out.

For a training loop or a stream of predictions: :class:`Evaluator` takes batches
in any order with :meth:`~Evaluator.update`, combines the evaluators of several
workers with :meth:`~Evaluator.merge`, and :meth:`~Evaluator.compute` returns the
frame :func:`rankeval.evaluate` returns on all the rows at once, to the last bit (a
query's values never depend on the queries scored with it: ``tests/test_bitexact.py``).
It has two forms, which never mix:

- ``Evaluator(qrels, measures)``: judgments given up front, batches
  ``update(query_ids, doc_ids, scores)`` (a search engine's run);
- ``Evaluator.from_labels(measures)``: no qrels, every row carries its own
  relevance label, batches ``update(query_ids, labels=..., scores=...)`` (a
  learning-to-rank validation set, torchmetrics' ``indexes``, ``target``, ``preds``).

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io import qrels_table, run_table, tables
from ..io.canonical import plain_ids
from ..ranking import compared_scores
from .groups import _array as _finite
from .groups import codes_of_ids, ranked_block
from .plan import given_plan, make_plan
from .runs import evaluate

__all__ = ["Evaluator"]

_RANK_CUTOFFS = ("optional", "required")
_COMPACT_ROWS = 1 << 20  # rows added before the state is cut back to its depth


class Evaluator:
    r"""Evaluate a ranker batch by batch, with the values of :func:`rankeval.evaluate`.

    Two forms, made by two constructors: ``Evaluator(qrels, measures)`` for
    documents judged by qrels, and
    :meth:`Evaluator.from_labels <rankeval.Evaluator.from_labels>` for rows
    that carry their own relevance label (a learning-to-rank validation set).

    Parameters
    ----------
    qrels : str, os.PathLike, dict, pandas.DataFrame or pyarrow.Table
        Relevance judgments, in any form :func:`rankeval.evaluate` takes; read
        once and held in memory. None raises a TypeError that points to
        :meth:`~rankeval.Evaluator.from_labels`.
    measures : str, Measure, Plan or list of them
        As for :func:`rankeval.evaluate`: names, or a :class:`~rankeval.Plan`
        (then without conventions or settings here).
    conventions : str or Conventions, optional
        A preset or a :class:`~rankeval.Conventions`, as for
        :func:`rankeval.evaluate`.
    encoding : str, default="utf-8"
        The text encoding of a qrels file, as for :func:`rankeval.read_qrels`.
    **options
        ``threshold``, ``ties``, ``ideal``, ``missing``, ``judged_only``,
        ``score_precision``, ``grades``, ``max_docs``: as for
        :func:`rankeval.evaluate`; ``gain``, ``no_relevant``,
        ``recall_rounding``, ``ap_denominator``, ``rbp_gain``: as the fields
        of :class:`~rankeval.Conventions`.
        Each one given overrides ``conventions``, a value equal to the default
        included; another keyword is a TypeError that names the allowed ones.

    Attributes
    ----------
    depth : int or None
        The deepest cut-off the state is cut back to, or None when every row
        is kept (see Notes, and :meth:`~rankeval.Evaluator.from_labels` for the labels form).

    Notes
    -----
    With qrels, ``update(query_ids, doc_ids, scores)`` adds scored documents.
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

    The two forms do not mix: ``update(..., labels=...)`` on an evaluator with
    qrels, a document id list on one made by :meth:`~rankeval.Evaluator.from_labels`, and
    :meth:`~rankeval.Evaluator.merge` of one form into the other raise a TypeError or ValueError
    (integer document ids and integer labels look alike: passing labels by
    keyword makes a mix-up an error, never a silent wrong number).

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

    def __init__(self, qrels, measures, *, conventions=None, encoding="utf-8", **options):
        if qrels is None:
            raise TypeError(
                "Evaluator(qrels, measures) needs qrels; for rows that carry their own "
                "relevance labels (a learning-to-rank loop) use "
                "Evaluator.from_labels(measures, conventions=...)"
            )
        self._setup(measures, conventions, options, "Evaluator", ("encoding",))
        self._form = _Judged(qrels_table(qrels, encoding=encoding))
        c = self._plan.conventions
        simple = c.ties == "trec_eval" and c.ideal == "judged" and not c.judged_only
        self.depth = _deepest_cut(self._plan.measures) if simple else None

    @classmethod
    def from_labels(cls, measures, conventions=None, **options) -> Evaluator:
        r"""An evaluator of rows that carry their own relevance labels: no qrels.

        Each row given to :meth:`~rankeval.Evaluator.update`
        ``(query_ids, labels=..., scores=...)`` is one
        judged, scored document of its query, as in a learning-to-rank
        validation set (LightGBM's and XGBoost's ``label`` and ``group``,
        torchmetrics' ``target``, ``preds`` and ``indexes``).

        Parameters
        ----------
        measures : str, Measure or list of them
            As for :func:`rankeval.evaluate`.
        conventions : str or Conventions, optional
            A preset (``"trec_eval"``, the default, ``"pytrec_eval"``,
            ``"sklearn"``, ``"lightgbm"``, ``"xgboost"``) or a
            :class:`~rankeval.Conventions`, as for :func:`rankeval.evaluate`.
        **options
            ``threshold``, ``ties``, ``ideal``, ``judged_only``,
            ``score_precision``, ``grades``, ``max_docs``: as for
            :func:`rankeval.evaluate` (``missing`` changes nothing here:
            every query with a row is in the run); ``gain`` (LightGBM's
            ``label_gain`` as a sequence) and ``no_relevant`` (0 for XGBoost's
            ``ndcg-``), ``recall_rounding``, ``ap_denominator``, ``rbp_gain``:
            as the fields of :class:`~rankeval.Conventions`. Each one given overrides
            ``conventions``, a value equal to the default included
            (``conventions="xgboost", gain="linear"`` is XGBoost's
            ``ndcg_exp_gain=False``).

        Returns
        -------
        Evaluator
            Its :meth:`~rankeval.Evaluator.update` takes ``labels=`` and ``scores=`` by keyword.

        Raises
        ------
        TypeError
            An unknown keyword (the message names the allowed ones and the closest).
        ValueError
            An unknown measure or convention, a diversity measure, or
            ``ties="average"`` with a measure other than nDCG and DCG.

        See Also
        --------
        rankeval.evaluate_groups : the same rows, all at once, as arrays.

        Notes
        -----
        **What is computed.** The judgments are exactly the rows given: every
        row is a judged document that the ranker scored, so there is no
        unjudged document and no judged document left unscored. Number the
        rows :math:`i = 0, 1, \ldots` in the order they arrive (the rows of
        each :meth:`~rankeval.Evaluator.update` in order, the calls in order;
        :meth:`~rankeval.Evaluator.merge` puts the other evaluator's rows
        after this one's). :meth:`~rankeval.Evaluator.compute` returns
        exactly :func:`rankeval.evaluate` on the qrels
        :math:`\{(q_i, d_i, \ell_i)\}` and the run :math:`\{(q_i, d_i, s_i)\}`,
        with the conventions given, where :math:`d_i` is a document id of
        row :math:`i` alone. With ``ideal="judged"`` (trec_eval) or
        ``"retrieved"`` (LightGBM, scikit-learn) alike, a query's ideal list and
        its number of relevant documents are its rows' labels.

        **Ties.** trec_eval orders equal scores by document id, which rows do
        not have. Here the ids :math:`d_i` decrease as :math:`i` grows, so
        with ``ties="trec_eval"`` (the default, and the ``pytrec_eval``
        preset) as with ``ties="input"`` (LightGBM's and XGBoost's stable sort)
        **the earlier row ranks first** among equal scores, as in
        :func:`rankeval.evaluate_groups`. The values then depend on the order
        of the rows only where a query has equal scores; with
        ``ties="average"`` (scikit-learn) they do not depend on it (but for the
        last bit: a tied group's gains are summed in the order of its rows).
        A training loop that feeds
        the validation set in a fixed order gets the same values every epoch,
        and LightGBM's when it feeds the rows in LightGBM's order.

        **Labels** are finite numbers, one per row. A label
        :math:`\ge` ``threshold`` is relevant for the binary measures; graded
        measures use the label itself (or :math:`2^\ell - 1` with the
        ``lightgbm`` and ``xgboost`` presets); a negative label is read as
        trec_eval reads a negative grade: not relevant, gain 0, and not judged
        (Judged@k, bpref, ``judged_only``); LightGBM and XGBoost refuse negative
        labels. A query whose labels are all
        :math:`\le 0` is scored as :func:`rankeval.evaluate` scores it (0 for
        nDCG; 1 for the measures bounded by [0, 1] with the ``lightgbm`` and
        ``xgboost`` presets).

        **Why a second constructor.** ``Evaluator(qrels, measures)`` keeps its
        meaning (a changed order of arguments would break every call of it),
        and the line that makes an evaluator says which form it is;
        ``Evaluator(None, measures)`` would say it less clearly. Labels are
        given by keyword, and document ids by position, because both may be
        integers: a mix-up raises a TypeError instead of scoring the labels as
        document ids or the other way round.

        **State.** A query id, a row number, a score and a label per row. The
        rows below the deepest cut-off :math:`K = \max_m k_m` are the query's
        judgments too (its ideal list, its number of relevant documents, the
        grades GAP reads), so the state is cut back only to the first
        :math:`K` rows of each query by score (as 32-bit floats with
        ``score_precision="float"``), then by arrival, **plus every row with a
        label** :math:`> 0`; a row below the first :math:`K` with a label
        :math:`\le 0` is dropped, which changes no value when all of these
        hold (``depth`` is then :math:`K`, else None and every row is
        kept): every measure has a rank cut-off (``nDCG@10``, ``P@5``,
        ``AP@100``, ...; AP, nDCG, R-precision, bpref, NumRet and the other
        measures of the whole ranking read every row); ``ties`` is
        ``"trec_eval"`` or ``"input"`` (an averaged tie group can cross the
        cut-off); ``judged_only=False`` (it takes rows with negative labels out
        of the ranking, moving lower rows up); no ``max_docs``; a label 0 has
        gain 0 (always, except with a ``label_gain`` table whose first gain is
        not 0, or a measure's own ``gains``). Such a row is not relevant (every
        threshold is :math:`> 0`), adds no gain to an ideal list, and stays
        below the first :math:`K` as rows arrive. The state is cut back every
        million new rows; where most labels are 0 (a recommender's scores over
        every item, say) it stays near :math:`K` rows per query.

        Chapter: :doc:`/chapters/21_recommenders_and_ltr`.

        Examples
        --------
        >>> from rankeval import Evaluator
        >>> ev = Evaluator.from_labels(["nDCG@2", "P@2"], conventions="lightgbm")
        >>> ev.update(["q1", "q1", "q2"], labels=[2, 0, 0], scores=[0.1, 0.9, 0.3])
        >>> ev.update(["q1", "q2"], labels=[1, 1], scores=[0.5, 0.8])
        >>> ev.compute()
                    nDCG@2  P@2
        query_id
        q1        0.173765  0.5
        q2        1.000000  0.5

        Query ``q1`` ranks its labels 0, 1, 2: DCG@2 is :math:`1/\log_2 3`
        with LightGBM's gains :math:`2^\ell - 1`, the ideal :math:`3 + 1/\log_2 3`.
        """
        ev = cls.__new__(cls)
        ev._setup(measures, conventions, options, "Evaluator.from_labels")
        ev._form = _Labelled()
        ev.depth = _labels_depth(ev._plan.measures, ev._plan.conventions)
        return ev

    def _setup(self, measures, conventions, options, caller, others=()) -> None:
        # one plan: only the keywords given, each over the preset (a default's value
        # included); the names parsed and checked once
        self._plan = given_plan(measures, conventions, options, caller) or make_plan(
            measures, conventions, options, caller=caller, others=others, advice="")
        self._tables = []
        self._new_rows = 0

    @property
    def _labels(self) -> bool:
        """Whether this evaluator was made by :meth:`from_labels`."""
        return isinstance(self._form, _Labelled)

    def update(self, query_ids, doc_ids=None, scores=None, *, labels=None) -> None:
        """Add a batch: one row per position of the sequences (lists or arrays of
        equal length; ids strings or integers, scores and labels finite numbers).

        With qrels: ``update(query_ids, doc_ids, scores)``. Made by
        :meth:`~rankeval.Evaluator.from_labels`: ``update(query_ids, labels=..., scores=...)``,
        labels and scores by keyword (a list in the place of ``doc_ids`` raises
        a TypeError: integer document ids and integer labels look alike).

        Raises
        ------
        TypeError
            The arguments of the other form; an argument that is not a sequence
            (a string, a number, a set or a dict); ids that are not all strings or
            all integers, or not of the type of the earlier batches; labels or
            scores that are not numbers (booleans and numeric text included).
        ValueError
            Sequences of different lengths or of more than one dimension, a
            missing id, an integer id beyond int64, NaN or infinite labels or
            scores, a label outside a ``label_gain`` table of gains.

        Notes
        -----
        Each message names the argument and, where one is at fault, the
        element (``doc_ids[3]``). A refused batch adds nothing to the state.
        """
        table = self._form.batch(self._plan, query_ids, doc_ids, scores, labels)
        if table is not None:
            self._add(table)

    def merge(self, other: Evaluator) -> Evaluator:
        """Add the state of ``other`` (another worker's evaluator of the same form,
        qrels, measures and conventions) to this one; returns self.

        In the labels form, ``other``'s rows come after this one's (which decides
        ties, see :meth:`~rankeval.Evaluator.from_labels`); merging one
        evaluator twice counts its rows twice."""
        if not isinstance(other, Evaluator):
            raise TypeError(f"can merge only an Evaluator, got {type(other).__name__}")
        if other._labels != self._labels:
            raise ValueError(
                "can merge only evaluators of one form: one was made by "
                "Evaluator.from_labels (rows with labels), the other by "
                "Evaluator(qrels, measures) (documents judged by qrels)"
            )
        if other is self:
            raise ValueError("cannot merge an evaluator into itself (its rows would count twice)")
        if other._plan != self._plan or not self._form.same(other._form):
            raise ValueError("can merge only evaluators of the same qrels, measures and "
                             "conventions")
        for table in other._tables:
            self._add(self._form.after(table))
        self._form.follow(other._form)
        return self

    def compute(self):
        """The frame :func:`rankeval.evaluate` returns on every row given so far."""
        if not self._tables:
            raise ValueError("no document yet: call update() with a batch first")
        table = pa.concat_tables(self._tables, promote_options="permissive")
        return self._form.compute(table, self._plan)

    @property
    def rows(self) -> int:
        """The rows held in the state."""
        return sum(t.num_rows for t in self._tables)

    def _add(self, table: pa.Table) -> None:
        if self._tables:
            _same_id_types(self._tables[0], table)
        self._tables.append(table)
        self._new_rows += table.num_rows
        if self._new_rows >= max(_COMPACT_ROWS, self.rows - self._new_rows):
            self._new_rows = 0
            table = pa.concat_tables(self._tables, promote_options="permissive")
            float32 = self._plan.conventions.score_precision == "float"
            self._tables = [self._form.compact(table, self.depth, float32)]


class _Judged:
    """The form with qrels: rows of (query, document, score), judged by the qrels."""

    def __init__(self, qrels: pa.Table):
        self.qrels = qrels

    def batch(self, plan, query_ids, doc_ids, scores, labels):
        """The checked table of one update() batch (None for an empty one)."""
        if labels is not None:
            raise TypeError(
                "this Evaluator has qrels: update(query_ids, doc_ids, scores) takes document "
                "ids; for rows that carry their own labels make it with "
                "Evaluator.from_labels(measures, conventions=...)"
            )
        if doc_ids is None or scores is None:
            raise TypeError("update() needs query_ids, doc_ids and scores")
        # each argument checked on its own (its name in every message), then together
        q = _ids(query_ids, "query_ids")
        d = _ids(doc_ids, "doc_ids")
        s = _numbers(scores, "scores")
        if not len(q) == len(d) == s.size:
            raise ValueError(f"query_ids, doc_ids and scores must have one length, got "
                             f"{len(q)}, {len(d)}, {s.size}")  # fmt: skip
        if not len(q):
            return None
        # a document twice when the state is cut back or computed (the search for
        # repeats costs most of a batch's time)
        return plain_ids(tables.from_arrow(
            pa.table({"query_id": q, "doc_id": d, "score": pa.array(s)}), "run", None,
            "update() batch", unique=True))  # fmt: skip

    def same(self, other) -> bool:
        return other.qrels.equals(self.qrels)

    def after(self, table: pa.Table) -> pa.Table:
        return table

    def follow(self, other) -> None:
        pass

    def compact(self, table: pa.Table, depth, float32: bool) -> pa.Table:
        table = run_table(table)
        if depth is not None and pa.types.is_string(table.column("doc_id").type):
            table = _top(table, depth, float32)
        return table

    def compute(self, table: pa.Table, plan):
        return evaluate(self.qrels, table, plan)


class _Labelled:
    """The labels form: rows of (query, row number, score, label), numbered by arrival;
    each row is a judged document of its query, with no document id."""

    def __init__(self):
        self.next = 0  # the number of the next row

    def batch(self, plan, query_ids, doc_ids, scores, labels):
        """The checked table of one update() batch (None for an empty one)."""
        if doc_ids is not None:
            raise TypeError(
                "this Evaluator was made by Evaluator.from_labels: its rows carry "
                "relevance labels, not document ids; call "
                "update(query_ids, labels=..., scores=...)"
            )
        if labels is None or scores is None:
            raise TypeError("update() of Evaluator.from_labels needs query_ids, "
                            "labels=... and scores=...")  # fmt: skip
        q = _ids(query_ids, "query_ids")
        y = _numbers(labels, "labels")
        s = _numbers(scores, "scores")
        n = len(q)
        if not n == y.size == s.size:
            raise ValueError(f"query_ids, labels and scores must have one length, got "
                             f"{n}, {y.size}, {s.size}")  # fmt: skip
        if not n:
            return None
        plan.check_grades(y, "labels")  # a label_gain table: whole labels it covers
        row = pa.array(np.arange(self.next, self.next + n, dtype=np.int64))
        checked = plain_ids(tables.from_arrow(
            pa.table({"query_id": q, "doc_id": row, "score": pa.array(s)}), "run", None,
            "update() batch", unique=True))  # fmt: skip
        self.next += n
        return pa.table({"query_id": checked.column("query_id"), "row": row,
                         "score": pa.array(s), "relevance": pa.array(y)})  # fmt: skip

    def same(self, other) -> bool:
        return True

    def after(self, table: pa.Table) -> pa.Table:
        """Another evaluator's rows, numbered after this one's."""
        row = pc.add(table.column("row"), pa.scalar(self.next, pa.int64()))
        return table.set_column(1, "row", row)

    def follow(self, other) -> None:
        self.next += other.next

    def compact(self, table: pa.Table, depth, float32: bool) -> pa.Table:
        return table if depth is None else _top_labels(table, depth, float32)

    def compute(self, table: pa.Table, plan):
        """The rows, in the order of arrival, ranked by :func:`ranked_block` (the one
        way from rows to ranked queries, which evaluate_groups takes too) and scored
        by the plan, as :func:`rankeval.evaluate` scores them."""
        table = table.take(pc.sort_indices(table.column("row")))
        codes, ids, _ = codes_of_ids(table.column("query_id"))
        labels = table.column("relevance").to_numpy().astype(np.float64, copy=False)
        scores = table.column("score").to_numpy().astype(np.float64, copy=False)
        ranked = ranked_block(codes, ids, labels, scores, plan.conventions)
        plan.check_grades(labels, "labels")
        plan.check_defined(ranked)
        return plan.frame(plan.score(ranked), ids)


def _deepest_cut(measures) -> int | None:
    """The deepest rank cut-off of the measures, or None if one has none."""
    cuts = [m.cutoff if m.declaration.cutoff in _RANK_CUTOFFS else None for m in measures]
    return None if any(k is None for k in cuts) else max(cuts)


def _labels_depth(parsed, c) -> int | None:
    """The deepest cut-off of the measures when the labels form may drop rows below it
    (see :meth:`Evaluator.from_labels`), else None."""
    deepest = _deepest_cut(parsed)
    if deepest is None:
        return None
    if c.ties not in ("trec_eval", "input") or c.judged_only or c.max_docs is not None:
        return None
    if c.threshold <= 0 or any(m.param.get("rel", 1) <= 0 for m in parsed):
        return None  # a label <= 0 could be relevant
    zero_gain = isinstance(c.gain, str) or c.gain[0] == 0
    if not zero_gain or any(dict(m.param.get("gains", ())).get(0, 0) != 0 for m in parsed):
        return None  # a label 0 could have a gain (in an ideal list)
    return deepest


def _top_labels(table: pa.Table, depth: int, float32: bool) -> pa.Table:
    """The rows of the labels form that a measure cut at ``depth`` can read: each
    query's first ``depth`` rows by score descending, then by arrival, and every row
    with a label > 0; in the order of arrival."""
    score = table.column("score")
    if float32:  # as evaluate ranks them
        score = pa.array(compared_scores(score.to_numpy(), "float"))
    keys = pa.table({"q": table.column("query_id"), "s": score, "r": table.column("row")})
    order = pc.sort_indices(keys, sort_keys=[("q", "ascending"), ("s", "descending"),
                                             ("r", "ascending")])  # fmt: skip
    q = table.column("query_id").take(order).combine_chunks()
    n = len(q)
    if n <= depth:
        return table
    change = np.flatnonzero(pc.not_equal(q.slice(1), q.slice(0, n - 1))
                            .to_numpy(zero_copy_only=False)) + 1  # fmt: skip
    starts = np.concatenate([[0], change])
    rank = np.empty(n, dtype=np.int64)
    rank[order.to_numpy()] = np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))
    keep = (rank < depth) | (table.column("relevance").to_numpy() > 0)
    return table.filter(pa.array(keep))  # filter keeps the order of arrival


def _same_id_types(first: pa.Table, table: pa.Table) -> None:
    """Refuse a batch whose ids are integers where the earlier ones were strings, or
    the other way round (a concatenation would fail, or mix "1" and 1)."""
    for name in ("query_id", "doc_id"):
        if name not in table.column_names:
            continue
        a, b = first.column(name).type, table.column(name).type
        if pa.types.is_integer(a) != pa.types.is_integer(b):
            kind = {True: "integers", False: "strings"}
            raise TypeError(
                f"{name}s of this batch are {kind[pa.types.is_integer(b)]}, those of the "
                f"earlier batches {kind[pa.types.is_integer(a)]}: give one type throughout"
            )


def _numbers(values, name: str) -> np.ndarray:
    """``values`` as a 1-D float64 array of finite numbers (TypeError, ValueError naming
    ``name`` otherwise)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        if values.null_count:
            i = int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
            raise ValueError(f"{name}[{i}] is missing: {name} must be finite numbers")
        t = values.type
        if not (pa.types.is_integer(t) or pa.types.is_floating(t)):
            raise TypeError(f"{name} must hold numbers, got Arrow type {t}")
        values = values.to_numpy(zero_copy_only=False)
    elif isinstance(values, (str, bytes)) or values is None or np.isscalar(values):
        raise TypeError(f"{name} must be a 1-D array of numbers (one per row), got "
                        f"{type(values).__name__}")  # fmt: skip
    elif isinstance(values, (Mapping, set, frozenset)):
        raise TypeError(f"{name} must be a 1-D array of numbers (one per row), in order; "
                        f"got a {type(values).__name__}")  # fmt: skip
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError, OverflowError) as error:  # ragged lists, say
        raise ValueError(f"{name} must be a 1-D array of numbers (one per row): "
                         f"{error}") from None  # fmt: skip
    if arr.dtype == object and arr.ndim == 1:  # Python numbers beyond int64, or a mix
        for i, x in enumerate(arr.tolist()):
            if not isinstance(x, numbers.Real) or isinstance(x, (bool, np.bool_)):
                raise TypeError(f"{name}[{i}] is {type(x).__name__} {x!r}: {name} must hold "
                                "numbers")  # fmt: skip
        try:
            arr = arr.astype(np.float64)
        except (OverflowError, TypeError, ValueError) as error:
            raise ValueError(f"{name} must be numbers that fit a double (64-bit float): "
                             f"{error}") from None  # fmt: skip
    return _finite(arr, name)


def _ids(values, name: str):
    """``values`` as an Arrow array of ids: ``string`` or ``int64`` (all strings or all
    integers), one per row; TypeError or ValueError naming ``name`` and the element
    otherwise. Arrow arrays are taken as they are (their type and missing values are
    checked with the batch)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values
    if isinstance(values, (str, bytes)) or values is None or np.isscalar(values) \
            or isinstance(values, (Mapping, set, frozenset)):
        raise TypeError(f"{name} must be a sequence of ids (one per row), got "
                        f"{type(values).__name__}")  # fmt: skip
    if not isinstance(values, (list, tuple)):
        try:
            arr = np.asarray(values)
        except (ValueError, TypeError) as error:
            raise ValueError(f"{name} must be a 1-D sequence of ids: {error}") from None
        if arr.ndim != 1:
            raise ValueError(f"{name} must be 1-D (one id per row), got shape {arr.shape}")
        if arr.dtype.kind in "iu":
            if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
                i = int(np.flatnonzero(arr > np.iinfo(np.int64).max)[0])
                raise ValueError(f"{name}[{i}]: integer id {arr[i]} does not fit in a "
                                 "signed 64-bit integer (int64)")  # fmt: skip
            return pa.array(arr.astype(np.int64, copy=False))
        if arr.dtype.kind not in "UO":
            raise TypeError(f"{name} must hold strings or integers, got dtype {arr.dtype}")
        if arr.dtype.kind == "U":
            try:
                return pa.array(arr, pa.string())  # (NumPy's text: no object per id)
            except (UnicodeError, pa.ArrowException):
                pass  # a lone surrogate: named below
        values = arr.tolist()
    values = list(values)
    try:
        return tables.id_array(values, lambda i: f"{name}[{i}]")
    except TypeError:
        missing = next((i for i, x in enumerate(values) if x is None), None)
        if missing is None:
            raise
        raise ValueError(f"{name}[{missing}] is missing: {name} must be all strings or all "
                         "integers") from None  # fmt: skip


def _top(table: pa.Table, depth: int, float32: bool) -> pa.Table:
    """Each query's first ``depth`` rows by score descending, then doc id descending."""
    score = table.column("score")
    if float32:  # as evaluate ranks them
        score = pa.array(compared_scores(score.to_numpy(), "float"))
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
