r"""Evaluate a whole run against qrels: one row per query, one column per measure.

:func:`evaluate` takes judgments (qrels) and a system's scored documents (a
run), orders every query's documents by score, looks up their grades and hands
the grade lists of all queries, as one padded matrix, to the metric functions
of this package. Its defaults reproduce trec_eval; each convention where tools
differ is a keyword parameter.

Chapter: :doc:`/chapters/13_evaluating_a_run`.
"""

from __future__ import annotations

from itertools import chain, repeat

import numpy as np

from ._validation import check_threshold
from .measures import Measure, parse_measure, parse_measures
from .trec import _table

__all__ = ["evaluate"]

_TIES = ("trec_eval", "input", "average")
_IDEAL = ("judged", "retrieved")
_MISSING = ("skip", "zero")
_AVERAGE_OK = ("nDCG", "DCG")  # measures defined for tie-averaged gains
_CELL_BUDGET = 1 << 24  # cells of one padded (queries x depth) matrix per chunk


def evaluate(
    qrels,
    run,
    metrics,
    *,
    threshold=1,
    ties="trec_eval",
    ideal="judged",
    missing="skip",
    judged_only=False,
):
    r"""Score every query of a run with the given measures.

    Parameters
    ----------
    qrels : dict, pandas.DataFrame, str or os.PathLike
        Relevance judgments: ``{query_id: {doc_id: grade}}``, a DataFrame with
        columns ``query_id``, ``doc_id``, ``relevance``, or the path of a TREC
        qrels file (``query_id iteration doc_id grade``). Grades are numbers;
        a negative grade (some TREC collections use -1, -2) counts as judged
        and not relevant, and contributes a gain of 0, as in trec_eval.
    run : dict, pandas.DataFrame, str or os.PathLike
        Scored documents: ``{query_id: {doc_id: score}}``, a DataFrame with
        columns ``query_id``, ``doc_id``, ``score``, or the path of a TREC run
        file (``query_id Q0 doc_id rank score tag``; the rank column is
        ignored, as trec_eval ignores it). Higher scores rank first.
    metrics : str, Measure or list of them
        Measure names in ir_measures spelling, e.g. ``["nDCG@10", "AP",
        "P@5", "RR", "R@100", "RBP(p=0.9)"]``; see :mod:`rankeval.measures`
        for every name (book names such as MAP, MAR, GAP, MR, FRP and
        trec_eval names such as ``ndcg_cut_10`` work too).
    threshold : float, default=1
        A grade ``>= threshold`` is relevant for the binary measures (P, R,
        Success, AP, RR, AR, MR, FRP, RBP): trec_eval's ``-l``
        (relevance_level). A measure's own ``rel`` parameter, as in
        ``"P(rel=2)@10"``, overrides it. Graded measures (nDCG, DCG, ERR, GAP)
        use the grades themselves.
    ties : {"trec_eval", "input", "average"}, default="trec_eval"
        Order of documents with equal scores. ``"trec_eval"``: by document id,
        descending, compared as strings (byte by byte, like C's ``strcmp``),
        so ``"d9"`` ranks before ``"d10"``. ``"input"``: the order in which
        the run lists them (file or dict order). ``"average"``: no order;
        every document of a tied group gets the group's mean gain, i.e. the
        expected value over all orders of the group, as scikit-learn's
        ``ndcg_score`` and ``dcg_score`` do (``ignore_ties=False``); defined
        for nDCG and DCG only (a ValueError names any other measure).
    ideal : {"judged", "retrieved"}, default="judged"
        Which documents define a query's relevant set. ``"judged"``
        (trec_eval): every judged document of the query, retrieved or not:
        the denominators of R@k, AP, AR and MR count all relevant judged
        documents, the ideal list of nDCG holds all judged grades, GAP counts
        all judged grades. ``"retrieved"`` (scikit-learn): only the documents
        the run scored; nDCG then equals ``sklearn.metrics.ndcg_score`` on
        the scored documents, and a relevant document the run missed costs
        nothing.
    missing : {"skip", "zero"}, default="skip"
        Judged queries that the run does not contain. ``"skip"`` (trec_eval's
        default): left out of the result. ``"zero"`` (trec_eval's ``-c``):
        kept and scored as an empty ranking: 0 for every measure except the
        rank positions MR and FRP, which get the cut-off plus one (``k + 1``)
        or NaN without a cut-off. Queries of the run that have no judgment
        are always ignored, as trec_eval ignores them.
    judged_only : bool, default=False
        Drop unjudged documents from each ranking before scoring (trec_eval's
        ``-J``; the "condensed list" of Sakai 2007). As in trec_eval, whose
        internal code for "unjudged" is a negative grade, documents judged
        with a negative grade are dropped too. By default an unjudged document
        counts as non-relevant (grade 0) and stays in the ranking.

    Returns
    -------
    pandas.DataFrame
        Index ``query_id`` (strings, sorted), one float column per measure,
        labelled as given in ``metrics`` (repeats removed). The mean over
        queries is ``result.mean()``; the measures lie in [0, 1] except DCG
        (>= 0), MR and FRP (positions >= 1, lower is better) and Hits (a
        count).

    Raises
    ------
    ValueError
        Unknown measure names, options out of range, malformed qrels or run
        files (with file, line number and reason), a document listed twice for
        one query, non-numeric or non-finite scores, or qrels and run with no
        query in common.

    Notes
    -----
    Conventions that match trec_eval (checked against ``pytrec_eval`` in the
    test suite, every per-query value to 1e-9, for P@k, R@k, Success@k, AP,
    AP@k, RR, nDCG, nDCG@k):

    - documents are ranked by score descending, ties by document id
      descending (as strings); ids are never converted to numbers;
    - P@k divides by k even when fewer than k documents were retrieved;
    - R@k, AP and AP@k (trec_eval's ``map_cut``) divide by the number of
      relevant judged documents of the query, retrieved or not; nDCG's and
      nDCG@k's (``ndcg_cut``) ideal list is built from all judged grades
      (linear gain, :math:`\log_2(i+1)` discount), cut at k for nDCG@k;
    - a judged query with no relevant document is kept and scores 0 on every
      measure (trec_eval evaluates it and reports zeros);
    - relevance is ``grade >= threshold`` for binary measures, while nDCG
      uses the grade whatever the threshold; negative grades give gain 0.

    trec_eval has no ERR, RBP, AR, GAP, MR or FRP. ERR needs the top of the
    grade scale: by default the largest grade in the qrels (over all
    queries); ``"ERR(max_grade=4)@20"`` fixes it, e.g. to gdeval's 4. RBP is
    binary (``grade >= rel``) unless ``max_grade`` is given, then its gain is
    ``grade / max_grade``.

    Chapter: :doc:`/chapters/13_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import evaluate
    >>> qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}}
    >>> run = {"q1": {"a": 0.9, "b": 0.8, "d": 0.7, "c": 0.1}, "q2": {"y": 1.0, "x": 0.5}}
    >>> df = evaluate(qrels, run, ["P@2", "AP", "RR"])
    >>> df
              P@2        AP   RR
    query_id
    q1        0.5  0.750000  1.0
    q2        0.5  0.500000  0.5
    >>> df.mean()
    P@2    0.500
    AP     0.625
    RR     0.750
    dtype: float64

    In q1, the relevant documents stand at ranks 1 and 4: AP = (1/1 + 2/4) / 2.
    """
    if isinstance(metrics, (str, Measure)):
        metrics = [metrics]
    elif hasattr(metrics, "__iter__"):
        metrics = list(metrics)
    measures = parse_measures(metrics)
    labels = _labels(metrics, measures)
    threshold = check_threshold(threshold)
    _choice("ties", ties, _TIES)
    _choice("ideal", ideal, _IDEAL)
    _choice("missing", missing, _MISSING)
    if not isinstance(judged_only, (bool, np.bool_)):
        raise TypeError(f"judged_only must be True or False, got {judged_only!r}")
    if ties == "average":
        bad = [str(m) for m in measures if m.name not in _AVERAGE_OK]
        if bad:
            raise ValueError(
                f"ties='average' (scikit-learn's tie-averaged gains) is defined for nDCG "
                f"and DCG only, not for {', '.join(bad)}; evaluate those with "
                "ties='trec_eval' or ties='input' in a separate call"
            )

    qt = _table(qrels, "qrels")
    rt = _table(run, "run")
    if qt.docs.is_bytes != rt.docs.is_bytes:  # compare ids of one kind: convert the qrels
        qt.docs = qt.docs.as_bytes() if rt.docs.is_bytes else qt.docs.as_strings()

    judged = _Judged(qt)
    qindex = {q: i for i, q in enumerate(qt.queries)}
    run_to_judged = np.array([qindex.get(q, -1) for q in rt.queries], dtype=np.int64)
    in_run = np.zeros(len(qt.queries), dtype=bool)  # judged queries the run contains
    in_run[run_to_judged[run_to_judged >= 0]] = True
    for q in rt.empty:
        if q in qindex:
            in_run[qindex[q]] = True
    if not in_run.any():
        raise ValueError(
            f"the run and the qrels have no query in common (run: {len(rt.queries)} "
            f"queries, e.g. {rt.queries[:3]}; qrels: {len(qt.queries)}, e.g. "
            f"{qt.queries[:3]}); query ids are compared as strings"
        )

    # rows of the run that belong to judged queries, with their grades
    jq = run_to_judged[rt.qcode] if len(rt) else np.zeros(0, np.int64)
    rows = np.flatnonzero(jq >= 0)
    grades = _grades(rt, qt, jq, rows)
    if judged_only:  # as trec_eval -J: a negative grade counts as unjudged too
        keep = grades >= 0
        rows, grades = rows[keep], grades[keep]
    grades = np.where(np.isnan(grades), 0.0, np.maximum(grades, 0.0))
    jq = jq[rows]
    scores = rt.values[rows]
    if jq.size and np.any(jq[1:] < jq[:-1]):  # group the rows by query
        order = np.argsort(jq, kind="stable")
        rows, grades, jq, scores = rows[order], grades[order], jq[order], scores[order]

    queries = np.flatnonzero(in_run if missing == "skip" else np.ones_like(in_run))
    counts = np.bincount(jq, minlength=len(qt.queries))
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    values = {m: np.empty(len(queries)) for m in measures}
    ranked = queries[counts[queries] > 0]
    where_in_out = np.searchsorted(queries, ranked)
    for chunk in _chunks(counts[ranked]):
        sel = ranked[chunk]
        batch = _rank(rt, rows, grades, scores, starts[sel], counts[sel], ties)
        for m in measures:
            values[m][where_in_out[chunk]] = _score(m, batch, judged, sel, threshold, ideal)
    empty = np.flatnonzero(counts[queries] == 0)
    for m in measures:
        values[m][empty] = _empty_value(m)

    import pandas as pd

    ids = np.asarray(qt.queries, dtype=object)[queries]
    frame = pd.DataFrame({label: values[m] for label, m in zip(labels, measures, strict=True)})
    frame.index = pd.Index(ids, name="query_id", dtype=object)
    return frame.sort_index()


def _choice(name, value, allowed):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


def _labels(metrics, measures):
    """Column labels: each measure as the caller spelled it first."""
    first = {}
    for item in metrics:
        first.setdefault(parse_measure(item), item if isinstance(item, str) else str(item))
    return [first[m].strip() for m in measures]


class _Judged:
    """Per-query facts from the qrels: relevant counts, judged grades, grade counts."""

    def __init__(self, qt):
        self.qt = qt
        self.grades = np.maximum(qt.values, 0.0)
        self.max_grade = float(self.grades.max()) if len(self.grades) else 0.0
        self._n_rel = {}
        self._ideal = {}

    def ideal(self, k):
        """(queries, width): each query's positive judged grades, best first, zero-padded.

        Grades of 0 add nothing to an ideal DCG, so only positive ones are
        kept, and only the best ``k`` with a cut-off: the matrix stays small.
        """
        if k not in self._ideal:
            qcode, g = self.qt.qcode, self.grades
            pos = np.flatnonzero(g > 0)
            order = pos[np.lexsort((-g[pos], qcode[pos]))]
            counts = np.bincount(qcode[order], minlength=len(self.qt.queries))
            rank = np.arange(order.size) - np.repeat(np.cumsum(counts) - counts, counts)
            width = max(int(counts.max()) if counts.size else 0, 1)
            width = width if k is None else min(width, k)
            keep = rank < width
            matrix = np.zeros((len(self.qt.queries), width))
            matrix[qcode[order][keep], rank[keep]] = g[order][keep]
            self._ideal[k] = matrix
        return self._ideal[k]

    def n_relevant(self, threshold):
        if threshold not in self._n_rel:
            self._n_rel[threshold] = np.bincount(
                self.qt.qcode,
                weights=(self.qt.values >= threshold).astype(np.float64),
                minlength=len(self.qt.queries),
            )
        return self._n_rel[threshold]

    def grade_counts(self, c: int, queries):
        """(len(queries), c): judged documents of grade 1..c per query."""
        g = self.grades
        whole = g == np.round(g)
        ok = whole & (g >= 1) & (g <= c)
        counts = np.zeros((len(self.qt.queries), c))
        np.add.at(counts, (self.qt.qcode[ok], g[ok].astype(np.int64) - 1), 1)
        return counts[queries]


def _grades(rt, qt, jq, rows):
    """Grade of every run row in ``rows`` (NaN for an unjudged document).

    A vectorised hash join: every (query, document) pair gets a 64-bit key;
    the qrels' keys go into an open table indexed by the key's low bits, each
    run key is looked up with one gather, and every match is verified by
    comparing the ids themselves, so a hash collision can never pair the wrong
    documents (it only sends the lookup down an exact, slower path).
    """
    out = np.full(len(rows), np.nan)
    if not len(rows) or not len(qt):
        return out
    if rt.mapping is not None and qt.mapping is not None:
        # both are dicts keyed by the ids themselves: one dict lookup per document
        nan, none, judgments = float("nan"), {}, qt.mapping
        found = chain.from_iterable(
            map(judgments.get(q, none).get, docs, repeat(nan)) for q, docs in rt.mapping.items()
        )
        return np.fromiter(found, np.float64, len(rt))[rows]
    run_keys = rt.pair_keys()[rows]
    qrels_keys = qt.pair_keys()
    bits = max(12, int(np.ceil(np.log2(8 * len(qrels_keys)))))  # at most 1/8 full
    mask = np.uint64((1 << bits) - 1)
    slot = (qrels_keys & mask).astype(np.intp)
    index = np.arange(len(qrels_keys), dtype=np.int32 if len(qrels_keys) < 2**31 else np.int64)
    table = np.full(1 << bits, -1, dtype=index.dtype)
    table[slot] = index
    shared = np.flatnonzero(table[slot] != index)  # lost a slot to another key
    table[slot[shared]] = -2  # slots holding several qrels keys
    cand = table[(run_keys & mask).astype(np.intp)]
    hit = np.flatnonzero(cand >= 0)
    hit = hit[qrels_keys[cand[hit]] == run_keys[hit]]
    found_at = cand[hit]
    crowded = np.flatnonzero(cand == -2)
    if crowded.size:  # the few run keys landing in a shared slot: binary search
        order = np.argsort(qrels_keys)
        sorted_keys = qrels_keys[order]
        pos = np.minimum(np.searchsorted(sorted_keys, run_keys[crowded]), len(order) - 1)
        same = sorted_keys[pos] == run_keys[crowded]
        hit = np.concatenate((hit, crowded[same]))
        found_at = np.concatenate((found_at, order[pos[same]]))
        if np.any(sorted_keys[1:] == sorted_keys[:-1]):
            found_at = None  # two qrels pairs share a key: only the exact path is sure
    if found_at is not None:
        r = rows[hit]
        exact = (jq[r] == qt.qcode[found_at]) & (rt.docs.take(r) == qt.docs.take(found_at))
        if exact.all():
            out[hit] = qt.values[found_at]
            return out
    # a 64-bit hash collision (practically never): look every document up exactly
    lookup = {}
    qdocs = qt.docs.as_strings().strings
    for q, d, g in zip(qt.qcode.tolist(), qdocs.tolist(), qt.values.tolist(), strict=True):
        lookup[(q, d)] = g
    rdocs = rt.docs.as_strings().strings[rows]
    out[:] = [
        lookup.get(key, np.nan) for key in zip(jq[rows].tolist(), rdocs.tolist(), strict=True)
    ]
    return out


def _chunks(lengths):
    """Split queries (in order) so that each padded matrix stays within the budget."""
    n = len(lengths)
    if n == 0:
        return []
    if n * int(lengths.max()) <= _CELL_BUDGET:
        return [slice(0, n)]
    out, start, width = [], 0, 0
    for i, m in enumerate(lengths.tolist()):
        width_i = max(width, m)
        if i > start and (i - start + 1) * width_i > _CELL_BUDGET:
            out.append(slice(start, i))
            start, width_i = i, m
        width = width_i
    out.append(slice(start, n))
    return out


class _Batch:
    """Grades of a block of queries, ranked: a (queries, depth) matrix, zero-padded."""

    def __init__(self, grades, lengths, groups):
        self.grades = grades
        self.lengths = lengths
        self.groups = groups  # tie-group id per cell (ties="average"), else None

    def ragged(self):
        return [row[:n] for row, n in zip(self.grades, self.lengths.tolist(), strict=True)]


def _rank(rt, rows, grades, scores, starts, lengths, ties):
    """Order the documents of the given queries by score; return a _Batch."""
    n_q, width = len(lengths), int(lengths.max())
    qi = np.repeat(np.arange(n_q), lengths)
    pos = np.arange(qi.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    src = np.repeat(starts, lengths) + pos  # index into the query-grouped row arrays
    score_m = np.full((n_q, width), -np.inf)
    score_m[qi, pos] = scores[src]
    grade_m = np.zeros((n_q, width))
    grade_m[qi, pos] = grades[src]
    order = np.argsort(-score_m, axis=1, kind="stable" if ties == "input" else None)
    ranked_scores = np.take_along_axis(score_m, order, axis=1)
    tied = np.zeros((n_q, width), dtype=bool)  # tied[i, j]: same score as position j - 1
    np.equal(ranked_scores[:, 1:], ranked_scores[:, :-1], out=tied[:, 1:])
    tied &= np.isfinite(ranked_scores)
    groups = None
    if ties == "trec_eval" and tied.any():
        _by_doc_id_descending(rt, rows, starts, order, tied)
    elif ties == "average":
        groups = np.cumsum(~tied.ravel()).reshape(n_q, width) - 1
    ranked = np.take_along_axis(grade_m, order, axis=1)
    return _Batch(ranked, lengths, groups)


def _by_doc_id_descending(rt, rows, starts, order, tied):
    """Reorder every group of equal scores by document id, descending (in place)."""
    member = tied.copy()
    member[:, :-1] |= tied[:, 1:]  # the first document of a group too
    cells = np.flatnonzero(member)  # row-major: by query, then rank
    group = np.cumsum((member & ~tied).ravel()[cells])
    width = order.shape[1]
    q_of = cells // width
    flat_order = order.ravel()
    run_rows = rows[starts[q_of] + flat_order[cells]]
    ids = rt.docs.take(run_rows)
    _, rank = np.unique(ids, return_inverse=True)
    perm = np.lexsort((-rank.ravel(), group))
    flat_order[cells] = flat_order[cells][perm]


def _score(m, batch, judged, queries, threshold, ideal):
    """Values of measure ``m`` for the queries of one batch."""
    t = m.param.get("rel", threshold)
    k = m.cutoff
    full = batch.grades
    top = full if k is None or k >= full.shape[1] else full[:, :k]
    name = m.name
    fn = m.function

    def n_relevant():
        if ideal == "judged":
            return judged.n_relevant(t)[queries]
        return (full >= t).sum(axis=1)

    if name == "P":
        return fn(batch.ragged() if k is None else top, k, threshold=t)
    if name in ("Success", "Hits", "RR"):
        return fn(top, k, threshold=t)
    if name in ("R", "AP", "AR"):
        return fn(top, k, n_relevant=n_relevant(), threshold=t)
    if name == "MR":
        rel = batch.ragged() if k is None else top
        return fn(rel, k, threshold=t, n_relevant=n_relevant())
    if name == "FRP":
        return fn(batch.ragged() if k is None else top, k, threshold=t)
    if name in ("nDCG", "DCG"):
        gain = m.param.get("gain", "linear")
        pool = judged.ideal(k)[queries] if ideal == "judged" else full
        if batch.groups is None:
            if name == "DCG":
                return fn(top, k, gain=gain)
            return fn(top, k, gain=gain, ideal=pool)
        # ties="average": every member of a tied group gets the group's mean gain
        from .dcg import dcg

        gains = (2.0**full - 1.0) if gain == "exponential" else full
        cells = batch.groups.ravel()
        sums = np.bincount(cells, weights=gains.ravel())
        gains = (sums / np.bincount(cells))[cells].reshape(gains.shape)
        value = dcg(gains if k is None else gains[:, :k], k)
        if name == "DCG":
            return value
        # IDCG apart: averaged gains need not fit under the ideal list position by
        # position, which ndcg() checks
        pool_gains = (2.0**pool - 1.0) if gain == "exponential" else pool
        idcg = dcg(-np.sort(-pool_gains, axis=1), k)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(idcg > 0, value / np.where(idcg > 0, idcg, 1.0), 0.0)
    if name == "ERR":
        c = m.param.get("max_grade", judged.max_grade)
        return fn(top, k, max_grade=c if c > 0 else 1.0)
    if name == "RBP":
        if "max_grade" in m.param:
            c = m.param["max_grade"]
            if np.any(top > c):
                raise ValueError(
                    f"{m}: a grade of {top.max():g} exceeds max_grade={c:g}; RBP's gain "
                    "grade / max_grade must lie in [0, 1]"
                )
            gains = top / c
        else:
            gains = (top >= t).astype(np.float64)
        return fn(gains, k, p=m.param["p"])
    if name == "GAP":
        c = m.param.get("max_grade", judged.max_grade)
        c = max(int(np.ceil(c)), 1)
        counts = judged.grade_counts(c, queries) if ideal == "judged" else None
        return fn(top, k, max_grade=c, grade_counts=counts)
    raise AssertionError(name)  # pragma: no cover - every parsed name is handled


def _empty_value(m):
    """Value of a query with nothing retrieved (trec_eval's -c gives 0)."""
    if m.lower_is_better:
        return np.nan if m.cutoff is None else m.cutoff + 1.0
    return 0.0

