r"""Evaluate a whole run for diversity, as ndeval does: subtopic qrels, one row per query.

:func:`evaluate_diversity` is :func:`rankeval.evaluate` for the measures of
:mod:`rankeval.metrics.diversity` (alpha-nDCG, alpha-DCG, ERR-IA, nERR-IA). It reads
the subtopic judgments (:mod:`rankeval.io`), numbers each judged
(query, document) pair, ranks the run once with :func:`rankeval.rank_run`
(which carries each ranked document's pair number as its "grade"), and
hands every query's (documents x subtopics) matrix, with the matrix of all
its judged documents for the ideal ranking, to the measure functions.

Chapter: :doc:`/chapters/08_ndcg`.
"""

from __future__ import annotations

import numpy as np

from ..io import tables
from ..io.canonical import canonical_table, plain_ids, run_table
from ..metrics.block import SubtopicBlock
from ..metrics.validation import check_choice, check_probability, check_threshold
from ..ranking import rank_run
from .core import check_needs, measures_and_labels

__all__ = ["evaluate_diversity", "SubtopicBlock"]


def _judged_pairs(subtopics):
    """Number the judged (query, document) pairs.

    Returns the canonical qrels table whose ``relevance`` is each pair's number
    (for :func:`rank_run`), and for every query of the subtopic qrels (keyed by
    its id) ``(matrix, first, judged)``: the grade matrix of its judged
    documents, one row per pair from pair number ``first`` on and one column per
    subtopic of the query, and the same rows sorted by document id, descending,
    byte by byte (ndeval gives ties of its greedy ideal to the larger id;
    integer ids compare as their decimal text, as the ranking's ties do).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    q, q_values = tables.codes(subtopics["query_id"])
    d, d_values = tables.codes(subtopics["doc_id"])
    s, s_values = tables.codes(subtopics["subtopic"])
    grades = subtopics["relevance"].to_numpy()
    # the pairs, by query: np.unique sorts the keys, so each query's pairs are contiguous
    pair_keys, pair_of_row = np.unique(q * len(d_values) + d, return_inverse=True)
    pair_q, pair_d = np.divmod(pair_keys, len(d_values))
    pair_first = np.searchsorted(pair_q, np.arange(len(q_values) + 1))
    # each query's own subtopics numbered 0, 1, ... the same way (one column per subtopic
    # of the query, not of the collection: the matrices stay as narrow as the query)
    sub_keys, column_of_row = np.unique(q * len(s_values) + s, return_inverse=True)
    sub_first = np.searchsorted(sub_keys // len(s_values), np.arange(len(q_values) + 1))
    column_of_row = column_of_row - sub_first[q]

    qrels = pa.table({
        "query_id": q_values.take(pa.array(pair_q)),
        "doc_id": d_values.take(pa.array(pair_d)),
        "relevance": np.arange(len(pair_keys), dtype=np.float64),
    })  # fmt: skip
    docs = qrels["doc_id"]
    if not (pa.types.is_string(docs.type) or pa.types.is_large_string(docs.type)):
        docs = docs.cast(pa.string())
    descending = pc.sort_indices(
        pa.table({"q": pair_q, "d": docs}), sort_keys=[("q", "ascending"), ("d", "descending")]
    ).to_numpy()

    matrices = {}
    by_query = np.argsort(q, kind="stable")
    row_starts = np.searchsorted(q[by_query], np.arange(len(q_values) + 1))
    for code, query in enumerate(q_values.to_pylist()):
        rows = by_query[row_starts[code] : row_starts[code + 1]]
        first, stop = int(pair_first[code]), int(pair_first[code + 1])
        m = np.zeros((stop - first, sub_first[code + 1] - sub_first[code]))
        m[pair_of_row[rows] - first, column_of_row[rows]] = grades[rows]
        matrices[query] = (m, first, m[descending[first:stop] - first])
    return qrels, matrices


def evaluate_diversity(
    qrels,
    run,
    measures=("alpha-nDCG@20", "ERR-IA@20"),
    *,
    alpha=0.5,
    threshold=1,
    missing="skip",
    score_precision="double",
    max_docs=None,
    columns=None,
):
    r"""Score every query of a run with diversity measures over subtopic judgments.

    Parameters
    ----------
    qrels : str, os.PathLike, file, dict, pandas.DataFrame or pyarrow.Table
        Subtopic judgments: the path of a subtopic qrels file as the TREC Web
        tracks' ``qrels.diversity`` (``query_id subtopic doc_id grade``, the
        second field being the subtopic; ``"-"`` for stdin, compressed files
        read transparently, the line rules of :func:`rankeval.read_qrels`),
        ``{query_id: {subtopic: {doc_id: grade}}}`` (or a set or list of the
        subtopic's relevant ids, grade 1), or a table with columns
        ``query_id``, ``subtopic``, ``doc_id``, ``relevance``. A document
        absent from a subtopic's judgments is not relevant to it; a document
        judged for no subtopic of the query is unjudged.
    run : str, os.PathLike, file, dict, pandas.DataFrame or pyarrow.Table
        Ranked documents, in any form :func:`rankeval.evaluate` takes.
    measures : str or list of str, default=("alpha-nDCG@20", "ERR-IA@20")
        ndeval's names: ``alpha-nDCG@k`` (normalised by the greedy ideal
        ranking), ``alpha-DCG@k`` (ndeval's collection-independent
        normalisation), ``ERR-IA@k`` (idem) and ``nERR-IA@k`` (greedy
        ideal); ir_measures' spellings (``alpha_nDCG@k``, ``ERR_IA@k``, ...)
        too, in any letter case. The cut-off is required (ndeval reports 5,
        10 and 20).
    alpha : float, default=0.5
        Redundancy intolerance, in [0, 1) (ndeval's ``-alpha``).
    threshold : float, default=1
        A subtopic grade ``>= threshold`` is relevant to the subtopic (ndeval
        reads every positive grade as relevant; pyndeval's
        ``relevance_level``).
    missing : {"skip", "zero"}, default="skip"
        Judged queries that the run lacks: left out, or scored 0 (ndeval's
        ``-c``). Queries of the run without judgments are ignored.
    score_precision : {"double", "float"}, default="double"
        As in :func:`rankeval.rank_run`.
    max_docs : int or None, default=None
        Keep only the top ``max_docs`` of every ranking (ndeval's ``-M``).
    columns : dict, optional
        Column names of table inputs, canonical -> yours (``query_id``,
        ``subtopic``, ``doc_id``, ``relevance``, ``score``, ``rank``).

    Returns
    -------
    pandas.DataFrame
        Index ``query_id`` (sorted as in :func:`rankeval.evaluate`), one
        float64 column per measure, labelled as given, each value in [0, 1]
        for the normalised measures; average it with
        :func:`rankeval.aggregate`.

    Raises
    ------
    ValueError
        An unknown measure, options out of range, a malformed file (file,
        line, reason), a document judged twice for one query and subtopic or
        listed twice in the run, or no query in common.

    Notes
    -----
    The run is ranked by score, descending, ties by document id, descending
    (as bytes): ndeval's ``-traditional`` order, which is trec_eval's.
    ndeval without ``-traditional`` orders a run file by its rank column
    instead (the same order whenever the ranks follow the scores); pyndeval
    breaks ties by document id *ascending*. A query's subtopics are those
    with at least one relevant judged document (ndeval's
    ``actualSubtopics``); the ideal ranking is ndeval's greedy one over
    every document judged for the query, ties to the larger document id. A
    judged query with no relevant document scores 0 and counts in the mean,
    as in ndeval. Cut-offs beyond 20 extend ndeval's formulas (ndeval stops
    at 20). Each value is the one :func:`rankeval.alpha_ndcg` or
    :func:`rankeval.err_ia` gives for the query's matrices.

    Chapter: :doc:`/chapters/08_ndcg`.

    Examples
    --------
    Two subtopics: ``a`` covers the first, ``b`` and ``c`` the second.

    >>> from rankeval import evaluate_diversity
    >>> qrels = {"q1": {1: {"a": 1}, 2: {"b": 1, "c": 1}}}
    >>> run = {"q1": {"b": 3.0, "c": 2.0, "a": 1.0}}
    >>> df = evaluate_diversity(qrels, run, ["alpha-nDCG@3", "alpha-nDCG@1"])
    >>> df.round(4)
              alpha-nDCG@3  alpha-nDCG@1
    query_id
    q1              0.9652           1.0

    The run shows the second subtopic twice before the first (gains 1, 0.5, 1);
    the ideal covers both first (gains 1, 1, 0.5):

    >>> import math
    >>> dcg = 1 + 0.5 / math.log2(3) + 1 / math.log2(4)
    >>> ideal = 1 + 1 / math.log2(3) + 0.5 / math.log2(4)
    >>> round(dcg / ideal, 4)
    0.9652
    """
    if isinstance(measures, (list, tuple)) and not measures:
        raise ValueError("measures is empty: name at least one, e.g. 'alpha-nDCG@20'")
    try:
        parsed, labels = measures_and_labels(measures)
    except ValueError as err:
        if "unknown measure" in str(err) or "cannot parse" in str(err):
            check_needs_message = (
                f"unknown diversity measure: {err}; use alpha-nDCG@k, alpha-DCG@k, ERR-IA@k "
                "or nERR-IA@k with a cut-off k >= 1"
            )
            raise ValueError(check_needs_message) from None
        raise
    check_needs(parsed, "subtopics")
    alpha = check_probability(alpha, "alpha", low_open=False)
    threshold = check_threshold(threshold)
    check_choice("missing", missing, ("skip", "zero"))
    if columns is not None and not isinstance(columns, dict):
        raise TypeError(f"columns must be a dict canonical name -> yours, got {columns!r}")
    columns = dict(columns or {})
    subtopic_names = {k: v for k, v in columns.items()
                      if k in ("query_id", "subtopic", "doc_id", "relevance")}
    run_names = {k: v for k, v in columns.items() if k in ("query_id", "doc_id", "score", "rank")}
    unknown = sorted(set(columns) - set(subtopic_names) - set(run_names))
    if unknown:
        raise ValueError(
            f"columns maps {unknown}, which are not canonical column names; use query_id, "
            "subtopic, doc_id, relevance, score or rank as keys"
        )
    subtopics = plain_ids(canonical_table(qrels, "subtopics", subtopic_names or None))
    if subtopics.num_rows == 0:
        raise ValueError("the subtopic qrels hold no judgment")
    pair_qrels, matrices = _judged_pairs(subtopics)
    run_t = run_table(run, columns=run_names or None)
    ranked = rank_run(
        pair_qrels, run_t, ties="trec_eval", missing=missing,
        score_precision=score_precision, max_docs=max_docs,
    )  # fmt: skip

    if ranked.query_ids.dtype.kind != "i":  # ids unified as text with a run of text ids
        matrices = {str(query): value for query, value in matrices.items()}
    runs, judged = [], []
    for i, query in enumerate(ranked.query_ids.tolist()):
        m, first, by_id = matrices[query]
        pairs = ranked.grades[ranked.offsets[i] : ranked.offsets[i + 1]]
        rows = np.zeros((max(len(pairs), 1), m.shape[1]))  # an empty ranking: one blank row
        found = ~np.isnan(pairs)
        rows[: len(pairs)][found] = m[pairs[found].astype(np.int64) - first]
        runs.append(rows)
        judged.append(by_id)

    import pandas as pd

    block = SubtopicBlock(runs, judged, alpha, threshold)
    frame = pd.DataFrame({
        label: m.declaration.score(block, m.cutoff)
        for label, m in [(label, parsed[i]) for label, i in labels]
    })  # fmt: skip
    ids = ranked.query_ids
    frame.index = pd.Index(
        ids, name="query_id", dtype=ids.dtype if ids.dtype.kind == "i" else object
    )
    return frame
