"""From two inputs to a :class:`rankeval.RankedRun`: :func:`rankeval.rank_run` and its
steps (read, match the queries, join the grades, order, cut, gather the judgments), and
:func:`ranked_ids`, the same order of a run alone.

Each step is a function of its own; :func:`rank_run` calls them in turn and frees what
a step no longer needs before the next (``release_memory``), so its peak memory is that
of its largest step.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import numpy as np

from ..io.canonical import canonical_table
from ..metrics.judged import is_judged
from .from_dicts import rank_dicts
from .grade_join import grades_of_run_rows
from .id_matching import _codes, _mark_empty_rankings, _sorted_unique, _split, _unify
from .memory import release_memory
from .options import check_options, columns_of
from .ordering import (
    _by_doc_id_descending,
    _rank_order,
    compared_scores,
    stable_order,
)
from .ranked_run import RankedRun
from .rows import offsets as row_offsets
from .rows import ranked_rows

__all__ = ["rank_run", "ranked_ids"]


def rank_run(
    qrels,
    run,
    *,
    threshold=1,
    ties="trec_eval",
    judged_only=False,
    missing="skip",
    ideal="judged",
    score_precision="double",
    grades="float",
    max_docs=None,
    columns=None,
    encoding="utf-8",
) -> RankedRun:
    r"""Join a run with its judgments and rank every query's documents by score.

    Parameters
    ----------
    qrels : str, os.PathLike, file, dict, pandas.DataFrame or pyarrow.Table
        Judgments: a TREC qrels file (``query_id iteration doc_id grade``),
        ``{query_id: {doc_id: grade}}``, ``{query_id: set_of_relevant_ids}``
        (grade 1), or a table with columns ``query_id``, ``doc_id``,
        ``relevance`` (see ``columns``).
    run : str, os.PathLike, file, dict, pandas.DataFrame or pyarrow.Table
        Ranked documents: a TREC run file (``query_id Q0 doc_id rank score
        tag``; the rank column is ignored, as in trec_eval),
        ``{query_id: {doc_id: score}}``, ``{query_id: [doc ids, best first]}``,
        or a table with columns ``query_id``, ``doc_id``, ``score`` (or
        ``rank``, lower is better). Higher scores rank first.
    threshold : float, default=1
        Default relevance threshold of the result (trec_eval's ``-l``).
    ties : {"trec_eval", "input", "average"}, default="trec_eval"
        Order of documents with equal scores: ``"trec_eval"`` by document id,
        descending, compared byte by byte (C's ``strcmp``; ``"d9"`` before
        ``"d10"``; integer ids are compared as their decimal text, so a
        file and a frame of the same data agree); ``"input"`` in the order
        the run lists them; ``"average"`` like ``"input"``, and the groups of
        equal scores are recorded in ``tie_groups`` (for tie-averaged DCG,
        as scikit-learn's ``ndcg_score``).
    judged_only : bool, default=False
        trec_eval's ``-J``: drop every document the qrels do not judge, and
        every negatively judged one (trec_eval stores "unjudged" as a
        negative grade), after ranking and after ``max_docs``.
    missing : {"skip", "zero"}, default="skip"
        Judged queries the run does not contain: left out (trec_eval), or
        kept with an empty ranking (trec_eval's ``-c``).
    ideal : {"judged", "retrieved"}, default="judged"
        Relevant counts, judged counts and ideal lists come from all judged
        documents of the query (trec_eval), or from the ranked ones only
        (scikit-learn).
    score_precision : {"double", "float"}, default="double"
        ``"double"`` compares scores as 64-bit floats (trec_eval 10);
        ``"float"`` rounds them to 32-bit floats first, as trec_eval 9 and
        pytrec_eval(-terrier) store them, so that scores differing only
        beyond float32's 7 digits tie (and are then ordered by ``ties``);
        scores beyond float32's range (about 3.4e38) become infinite, as
        there, and tie with each other.
    grades : {"float", "trec_eval"}, default="float"
        ``"float"`` keeps fractional grades (1.5 stays 1.5); ``"trec_eval"``
        truncates them toward zero as trec_eval's ``atol`` does (1.5 -> 1,
        -0.5 -> 0). The grade is truncated after it is read as a number, so
        exponent notation differs: ``2e-1`` is 0 here, and 2 for ``atol``,
        which stops at the ``e``.
    max_docs : int or None, default=None
        Keep only the top ``max_docs`` documents of every query (trec_eval's
        ``-M``), after ranking.
    columns : dict, optional
        Column names of table inputs, canonical -> yours, e.g.
        ``{"query_id": "user", "doc_id": "item", "score": "pred",
        "relevance": "rating"}``.
    encoding : str, default="utf-8"
        The text encoding of TREC files, as for :func:`rankeval.read_run`.

    Returns
    -------
    RankedRun
        Queries judged in the qrels and present in the run (all judged
        queries with ``missing="zero"``), sorted by id; queries of the run
        without judgments are ignored, as trec_eval ignores them.

    Raises
    ------
    ValueError
        Options out of range, malformed inputs (from the readers: file, line
        and reason), or (with ``missing="skip"``) a run and qrels with no
        query in common. With ``missing="zero"`` every judged query is scored,
        so such inputs give every query an empty ranking, as trec_eval's
        ``-c`` does (a partition of a larger input may hold judged queries
        only).

    Notes
    -----
    Only the engine compares ids: query ids are matched with
    ``pyarrow.compute.index_in`` against the qrels' sorted unique ids, and the
    (query, document) pairs of the run with those of the qrels by one hash
    join (an Acero hash-join plan, inner, its hash table built over the
    smaller of the two: a run document it does not match is unjudged and
    gets NaN), for text and integer document ids alike. The
    documents are then ordered by query and score descending: if each
    query's documents already sit together, best first (as systems write
    runs), by moving whole queries only; otherwise by one
    stable multi-key sort (``pyarrow.compute.sort_indices``), or, for queries
    of 64 rows or more on average, by a stable sort of each query's scores
    (NumPy) after one by query. Tied scores are then ordered by ``ties``. Either way the
    result is the same.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import rank_run, precision_at_k
    >>> qrels = {"q1": {"d1": 1}, "q2": {"a": 2, "b": 0}}
    >>> run = {"q1": {"d1": 2.0, "abcdefghij": 1.0},
    ...        "q2": {"a": 0.1, "b": 0.9, "c": 0.5}}
    >>> ranked = rank_run(qrels, run)
    >>> ranked.query_ids.tolist(), ranked.ragged()
    (['q1', 'q2'], [array([1., 0.]), array([0., 0., 2.])])
    >>> ranked.n_relevant().tolist()
    [1, 1]
    >>> precision_at_k(ranked.padded(), k=1)
    array([1., 0.])
    """

    t = check_options(threshold=threshold, ties=ties, judged_only=judged_only, missing=missing,
                  ideal=ideal, score_precision=score_precision, grades=grades,
                  max_docs=max_docs)  # fmt: skip
    ranked = rank_dicts(qrels, run, threshold=t, ties=ties, judged_only=judged_only,
                        missing=missing, ideal=ideal, score_precision=score_precision,
                        grades=grades, max_docs=max_docs, columns=columns, encoding=encoding)
    if ranked is not None:  # two plain dicts of dicts: no tables (from_dicts)
        return ranked
    qt, rt = _read_inputs(qrels, run, columns, encoding)
    if isinstance(qrels, Checked) and qrels.codes is not None \
            and len(qrels.run_codes) == rt.num_rows:
        queries, q_code, r_code = qrels.queries, qrels.codes, qrels.run_codes  # matched
        r_values = queries
    else:
        queries, q_code, r_values, r_code = _query_codes(qt, rt)
    qt, rt = qt.drop_columns("query_id"), rt.drop_columns("query_id")  # codes replace ids
    release_memory()
    present = _present_queries(r_code, run, queries, r_values, missing)
    judged = qt.column("relevance").to_numpy().astype(np.float64, copy=True)
    if grades == "trec_eval":
        judged = np.trunc(judged)

    q_doc, r_doc = _unify(qt.column("doc_id"), rt.column("doc_id"), "doc_id")
    del qt  # the qrels' ids are no longer needed after the join
    rows, r_code, row_grades = grades_of_run_rows(q_code, q_doc, r_code, r_doc, judged)
    del q_doc
    release_memory()

    # order: query, score descending, then the tie rule
    scores = _run_scores(rt, rows, score_precision)
    # (input order among equal scores: kept for ties="input"/"average"; "trec_eval"
    # re-sorts the tied groups by document id just below)
    order = _rank_order(r_code, scores, rows, ties, int(np.count_nonzero(present)))
    q_sorted, s_sorted = r_code[order], scores[order]
    del r_code, scores
    if ties == "trec_eval" and order.size > 1:
        _by_doc_id_descending(order, q_sorted, s_sorted, rows, r_doc)
    del rows, rt, r_doc  # the ids are no longer needed: free them before the tail
    release_memory()
    g_sorted = row_grades[order]
    del row_grades, order

    selected, rows = ranked_rows(q_sorted, g_sorted, s_sorted, present, missing=missing,
                                 max_docs=max_docs, judged_only=judged_only, ties=ties)
    j_order, j_offsets = _judged_of_queries(judged, q_code, present, selected, missing)
    return RankedRun(query_ids=_query_id_array(queries, selected), threshold=t, ideal=ideal,
                     judged=judged[j_order], judged_offsets=j_offsets, **rows)


# --- the steps of rank_run -------------------------------------------------------------


class Checked:
    """Qrels already read and checked, as a canonical table (``query_id``, ``doc_id``,
    ``relevance``): :func:`rankeval.rank_run` takes the table as it is, without the readers'
    checks again. The bounded path (:mod:`rankeval.evaluation.bounded`) reads and
    checks the qrels once and passes each batch the rows of its queries this way: a
    second search for a document judged twice, batch after batch, would find nothing
    new and cost as much as the scoring.

    With ``queries``, ``codes`` and ``run_codes`` the queries are matched already (the
    bounded path knows them from its index of the qrels): ``queries`` are the distinct
    judged query ids of the batch, in any order, each once; ``codes`` each qrels row's
    position among them; ``run_codes`` each row of the run table's (-1: a query the
    qrels do not judge). :func:`rankeval.rank_run` then numbers the queries by these
    codes instead of matching the ids again (its result lists the queries in the order
    of ``queries``, not sorted by id)."""

    __slots__ = ("table", "queries", "codes", "run_codes")

    def __init__(self, table, queries=None, codes=None, run_codes=None):
        self.table, self.queries, self.codes, self.run_codes = table, queries, codes, run_codes



def _query_codes(qt, rt):
    """``(queries, q_code, r_values, r_code)``: the qrels' distinct query ids, sorted
    (bytes order / numbers), the code of every qrels row and of every run row among
    them (-1: not judged), and the run's distinct ids (for messages)."""
    (q_values, q_index), (r_values, r_index) = _split(qt.column("query_id")), _split(
        rt.column("query_id"))  # fmt: skip
    q_values, r_values = _unify(q_values, r_values, "query_id")
    queries = _sorted_unique(q_values)
    return (queries, _codes(q_values, queries)[q_index], r_values,
            _codes(r_values, queries)[r_index])


def _read_inputs(qrels, run, columns, encoding):
    """The qrels and the run as canonical Arrow tables (``columns`` split between them),
    Arrow's freed memory released after each."""
    if columns is not None and not isinstance(columns, dict):
        raise TypeError(f"columns must be a dict canonical name -> yours, got {columns!r}")
    if isinstance(qrels, Checked):
        qt = qrels.table
    else:
        qt = canonical_table(qrels, "qrels",
                             columns_of(columns, ("query_id", "doc_id", "relevance")),
                             encoding=encoding)
        release_memory()
    rt = canonical_table(run, "run", columns_of(columns, ("query_id", "doc_id", "score", "rank")),
                         encoding=encoding)
    release_memory()
    return qt, rt


def _present_queries(r_code, run, queries, r_values, missing) -> np.ndarray:
    """For every judged query, whether the run holds it (a line, or an empty ranking of
    a dict run). ValueError with ``missing="skip"`` when no query is in both: nothing
    would be scored."""
    import pyarrow as pa

    keep = r_code >= 0  # run rows of judged queries
    present = np.bincount(r_code[keep], minlength=len(queries)) > 0
    _mark_empty_rankings(present, run, queries)
    if not present.any() and missing == "skip":
        raise ValueError(
            f"the run and the qrels have no query in common (run: {len(r_values)} "
            f"queries, e.g. {r_values[:3].to_pylist()}; qrels: {len(queries)}, e.g. "
            f"{queries[:3].to_pylist()}); query ids are compared "
            + ("as integers" if pa.types.is_integer(queries.type) else "as exact strings")
        )
    return present


def _run_scores(rt, rows, score_precision) -> np.ndarray:
    """The scores of the kept run rows (``rows``), as the ranking compares them."""
    scores = rt.column("score").to_numpy().astype(np.float64, copy=False)
    if rows.size < scores.size:
        scores = scores[rows]
    return compared_scores(scores, score_precision)





def _judged_of_queries(judged, q_code, present, selected, missing):
    """``(order, offsets)``: the qrels rows of every selected query's judged grades
    (>= 0), query after query, for relevant counts and ideal lists."""
    j_keep = is_judged(judged) & present[q_code] if missing == "skip" else is_judged(judged)
    j_order = np.flatnonzero(j_keep)
    j_codes = q_code[j_order]
    j_all = np.bincount(j_codes, minlength=len(present))
    j_order = j_order[stable_order(j_codes, int(np.count_nonzero(j_all)))]
    return j_order, row_offsets(j_all[selected])


def _query_id_array(queries, selected) -> np.ndarray:
    """The selected query ids as NumPy: ``int64`` for integer ids, else objects (str)."""
    import pyarrow as pa

    if pa.types.is_integer(queries.type):
        return queries.to_numpy().astype(np.int64)[selected]
    return np.asarray(queries.to_pylist(), dtype=object)[selected]


# --- a run alone -------------------------------------------------------------------------


def ranked_ids(run, *, columns=None) -> dict:
    """Every query's document ids in the order :func:`rankeval.rank_run` ranks them.

    Parameters
    ----------
    run : str, os.PathLike, file, dict, pandas.DataFrame or pyarrow.Table
        A run in any form :func:`rankeval.rank_run` reads, read and checked the same way.
    columns : dict, optional
        The run's column names, canonical -> yours (see :func:`rankeval.rank_run`).

    Returns
    -------
    dict
        Query id to the list of its document ids, best first; queries sorted as
        ``RankedRun.query_ids`` (strings by their UTF-8 bytes, integers numerically).

    Notes
    -----
    The order is :func:`rankeval.rank_run`'s with its default ``ties="trec_eval"`` and
    ``score_precision="double"``: score descending, then equal scores by document id
    descending, compared byte by byte as text (integer ids as their decimal text, so
    ``9``, ``100``, ``10``), by the same two steps (the sort by query and score, then
    the tie rule on the ids). For callers that need the ids rather than the grades
    (:func:`rankeval.beyond.ranked_lists`): a cut at ``k`` keeps the documents that
    :func:`rankeval.evaluate` scores at ``k``.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval.ranking import ranked_ids
    >>> ranked_ids({"u": {100: 1.0, 10: 1.0, 9: 1.0, 7: 2.0}})
    {'u': [7, 9, 100, 10]}
    """
    if columns is not None and not isinstance(columns, dict):
        raise TypeError(f"columns must be a dict canonical name -> yours, got {columns!r}")
    rt = canonical_table(run, "run", columns_of(columns, ("query_id", "doc_id", "score", "rank")))
    values, index = _split(rt.column("query_id"))
    queries = _sorted_unique(values)
    codes = _codes(values, queries)[index]
    scores = rt.column("score").to_numpy().astype(np.float64, copy=False)
    rows = np.arange(codes.size, dtype=np.intp)
    order = _rank_order(codes, scores, rows, "trec_eval", len(queries))
    if order.size > 1:
        _by_doc_id_descending(order, codes[order], scores[order], rows, rt.column("doc_id"))
    counts = np.bincount(codes, minlength=len(queries)).tolist()
    docs = rt.column("doc_id").take(order).to_pylist()
    out, start = {}, 0
    for query, n in zip(queries.to_pylist(), counts, strict=True):
        out[query] = docs[start : start + n]
        start += n
    return out
