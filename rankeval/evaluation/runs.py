r"""Evaluate a whole run against qrels: one row per query, one column per measure.

:func:`evaluate` only orchestrates: it parses the measure names
(:mod:`rankeval.measures`), ranks the run once (:func:`rankeval.rank_run`),
lets every measure's declaration score the ranked grades, block by block of
queries, and builds the table. Its defaults reproduce trec_eval (but for a run
of ranked lists, such as a recommender's, in which every judged query counts:
see ``missing``); each convention where tools differ is a keyword parameter,
with a default that does not depend on the data's values. :func:`aggregate`
summarises the table over queries as trec_eval's ``all`` line does.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import os

import numpy as np

from ..io.canonical import looks_swapped
from ..ranking import rank_run, release_memory
from .bounded import evaluate_bounded, parse_memory
from .conventions import UNSET, given
from .core import CELL_BUDGET, queries_in_run, warn_skipped
from .plan import given_plan, make_plan

__all__ = ["evaluate", "score_run", "run_plan"]


def evaluate(
    qrels,
    run,
    measures,
    *,
    threshold=UNSET["threshold"],
    ties=UNSET["ties"],
    ideal=UNSET["ideal"],
    missing=UNSET["missing"],
    judged_only=UNSET["judged_only"],
    score_precision=UNSET["score_precision"],
    grades=UNSET["grades"],
    max_docs=UNSET["max_docs"],
    gain=UNSET["gain"],
    no_relevant=UNSET["no_relevant"],
    recall_rounding=UNSET["recall_rounding"],
    ap_denominator=UNSET["ap_denominator"],
    rbp_gain=UNSET["rbp_gain"],
    columns=None,
    conventions=None,
    max_memory="512MB",
    encoding="utf-8",
    **unknown,
):
    r"""Score every query of a run with the given measures.

    Parameters
    ----------
    qrels : str, os.PathLike, file, dict, pandas.DataFrame or pyarrow.Table
        Relevance judgments: the path of a TREC qrels file (``query_id
        iteration doc_id grade``; ``"-"`` for stdin, ``.gz``/``.bz2``/``.xz``
        read transparently), ``{query_id: {doc_id: grade}}``,
        ``{query_id: set_of_relevant_ids}`` (grade 1), or a table with
        columns ``query_id``, ``doc_id``, ``relevance`` (a pandas, polars or
        Arrow table, or a Parquet file: a path ending in ``.parquet`` or a
        file that starts with Parquet's magic bytes). A negative grade
        (some TREC collections use -1, -2) is read as trec_eval reads it: a
        document in the pool but not judged, not relevant, with gain 0, and
        unjudged for Judged@k, Unj@k, bpref, infAP and ``judged_only``.
    run : str, os.PathLike, file, dict, pandas.DataFrame or pyarrow.Table
        Ranked documents: the path of a TREC run file (``query_id Q0 doc_id
        rank score tag``; the rank column is ignored, as trec_eval ignores
        it), ``{query_id: {doc_id: score}}``, ``{query_id: [doc ids, best
        first]}`` (a recommender's lists), or a table with columns
        ``query_id``, ``doc_id`` and ``score`` (or ``rank``), in memory or
        in a Parquet file, as for ``qrels``. Higher scores rank first.
    measures : str, Measure, Plan or list of them
        A :class:`~rankeval.Plan` made by :func:`rankeval.plan`
        (then without conventions or settings here), or measure names in
        ir_measures spelling, e.g. ``["nDCG@10", "AP",
        "P@5", "RR", "R@100", "RBP(p=0.9)"]``; see :mod:`rankeval.measures`
        for every name (book names such as MAP, MAR, GAP, MR, FRP and
        trec_eval names such as ``ndcg_cut_10`` work too).
    threshold : float, default=1
        A grade ``>= threshold`` is relevant for the binary measures:
        trec_eval's ``-l`` (relevance_level). A measure's own ``rel``
        parameter, as in ``"P(rel=2)@10"``, overrides it. Graded measures
        (nDCG, DCG, ERR, GAP) use the grades themselves.
    ties : {"trec_eval", "input", "average"}, default="trec_eval"
        Order of documents with equal scores. ``"trec_eval"``: by document id,
        descending, compared byte by byte like C's ``strcmp``, so ``"d9"``
        ranks before ``"d10"``. ``"input"``: the order in which the run lists
        them. ``"average"``: every document of a tied group gets the group's
        mean gain, as scikit-learn's ``ndcg_score`` and ``dcg_score`` do;
        defined for nDCG and DCG only.
    ideal : {"judged", "retrieved"}, default="judged"
        Which documents define a query's relevant set: every judged document
        (trec_eval), or only the documents the run scored (scikit-learn).
    missing : {None, "skip", "zero"}, default=None
        Judged queries that the run does not contain: ``"skip"`` leaves them out
        of the table, and so out of every mean (trec_eval's default);
        ``"zero"`` scores each as an empty ranking (trec_eval's ``-c``): 0 for
        every measure, counts of 0, FRP@k and MR@k ``k + 1`` (FRP and MR
        without a cut-off have no value for an empty ranking: a ValueError
        asks for a cut-off rather than a NaN that a mean would skip).
        ``None`` chooses by the form of the run, never by its values:

        - ``"zero"`` for a run of **ranked lists**: a dict in which every
          query holds a list, tuple or NumPy array of ids (``{user: [items,
          best first]}``), or a pandas, polars or Arrow table with a
          ``rank`` column and no ``score`` column. A recommender's test users
          all count, whether or not the model listed items for them.
        - ``"skip"`` for a run **with scores**: a dict ``{query_id: {doc_id:
          score}}``, a TREC run file, a Parquet file (whatever its columns),
          a table with a ``score`` column: trec_eval's rule. When judged
          queries are left out this way, a
          :class:`~rankeval.SkippedQueriesWarning` says how many; pass
          ``missing="skip"`` to leave them out without it.

        Queries of the run without judgments are always ignored, as in
        trec_eval. A query that the run holds with an empty ranking
        (``{q: {}}`` or ``{q: []}``) is in the run, so it is always scored,
        as an empty ranking, as pytrec_eval and ranx score it.
    judged_only : bool, default=False
        Drop unjudged (and negatively judged) documents from each ranking
        before scoring: trec_eval's ``-J``. A query left with no document
        gets the values of an empty ranking (0 for the precision, recall and
        gain measures, ``k + 1`` for FRP@k and MR@k; counts such as NumRel
        still count the qrels); pytrec_eval (trec_eval 9's code) reports NaN
        there for ``iprec_at_recall_0.00`` and ``11pt_avg`` (a 0/0), where
        rankeval gives 0.
    score_precision : {"double", "float"}, default="double"
        Compare scores as 64-bit floats (trec_eval 10), or as 32-bit floats
        as trec_eval 9 and pytrec_eval do (``"float"``): scores that differ
        only beyond float32's precision then tie.
    grades : {None, "float", "trec_eval"}, default=None
        ``"float"`` keeps fractional grades; ``"trec_eval"`` truncates them
        toward zero as trec_eval reads them (1.5 -> 1; a grade in exponent
        notation is truncated after it is read as a number, see
        :func:`rankeval.rank_run`). ``None`` keeps them as ``"float"`` does,
        but refuses qrels and a run that look swapped: when both are dicts
        ``{query_id: {doc_id: number}}``, every score of the run is a whole
        number and some grade of the qrels is not (a ValueError asks for
        ``grades="float"`` if such grades are meant). Files are told apart by
        their fields (4 in qrels, 6 in a run) and tables by their columns.
    max_docs : int or None, default=None
        Score only the top ``max_docs`` of every ranking (trec_eval's ``-M``).
    gain : {"linear", "exponential"} or sequence of float, default="linear"
        Gain of the nDCG and DCG measures that do not name their own
        (``"nDCG(gain='linear')@10"`` keeps its gain): the grade,
        :math:`2^g - 1`, or a gain per whole grade (LightGBM's ``label_gain``;
        every judged grade must then be a whole number the table covers).
    no_relevant : float or None, default=None
        Value of every measure bounded by [0, 1] for a query with no relevant
        document (LightGBM's and XGBoost's 1); None: the measure's own value.
    recall_rounding : {"nearest", "trec_eval9"}, default="nearest"
        How ``IPrec@r`` and ``11pt_avg`` turn a recall level into a number of
        relevant documents: trec_eval 10's rounding, or trec_eval 9's (and
        pytrec_eval's) :math:`\lfloor rR + 0.9 \rfloor` (see
        :class:`~rankeval.Conventions`).
    ap_denominator : str, default="R"
        What ``AP@k`` divides by: every relevant document (trec_eval's
        ``map_cut``), or :math:`\min(k, R)`, the recommender MAP@k of RecBole,
        Microsoft Recommenders and Spark MLlib (``AP(cap=True)@k``; see
        :class:`~rankeval.Conventions`).
    rbp_gain : {"binary", "grade"}, default="binary"
        The gain of ``RBP`` that names neither ``rel`` nor ``max_grade``: 1 for
        a relevant grade (rankeval's, ir_measures' ``RBP(rel=1)``), or the grade
        itself (ir_measures' ``RBP``; ``RBP(graded=True)``).
    columns : dict, optional
        Column names of DataFrame and Arrow inputs, canonical -> yours:
        ``{"query_id": "user", "doc_id": "item", "score": "pred",
        "relevance": "rating"}``.
    conventions : str or Conventions, optional
        A preset, ``"trec_eval"`` (the defaults above), ``"pytrec_eval"``,
        ``"sklearn"``, ``"lightgbm"``, ``"xgboost"``, ``"ir_measures"``, one of the
        recommender presets ``"recbole"``, ``"recommenders"``, ``"mllib"``, or a
        :class:`~rankeval.Conventions`; every keyword argument above that is
        given overrides it, one equal to its default included
        (``conventions="lightgbm", ties="trec_eval"`` orders ties by document
        id), and one left out keeps the preset's value (``convention=``, the
        old spelling, warns). The LightGBM and XGBoost presets also give nDCG
        and DCG the gain :math:`2^g - 1` and a query without a relevant
        document the value 1 for the measures bounded by [0, 1]; the
        pytrec_eval preset gives ``iprec_at_recall`` and ``11pt_avg`` trec_eval
        9's recall levels, :math:`\lfloor rR + 0.9 \rfloor` relevant
        documents (see :class:`~rankeval.Conventions`).
    max_memory : int, str or None, default="512MB"
        For a run file (a path, ``"-"`` for standard input, or a file object):
        the memory budget (bytes, or a text such as ``"512MB"``, ``"2GB"``). A
        plain file of at most an eighth of the budget is read at once. A larger
        one, a compressed one or standard input is read in batches of about a
        64th of the budget, the next batch read by a second thread while this
        one is scored: a run grouped by query (as TREC runs are written) is
        streamed once, scoring each query as it is complete; any other run
        takes a partitioning pass through temporary Arrow files by query (or is
        read at once if it is at most a quarter of the budget). Standard input
        and file objects are first copied to a temporary file, in blocks. The
        values are those of a whole-file call. The qrels are held in memory;
        a Parquet run is read by row groups, in batches, the same way.
        ``None`` reads every run at once.
        Ignored for dicts and frames, which are in memory already.
    encoding : str, default="utf-8"
        The text encoding of TREC qrels and run files, any Python codec name:
        ``"latin-1"`` reads any bytes, one character per byte, as trec_eval
        reads ids (see :func:`rankeval.read_run`).

    Returns
    -------
    pandas.DataFrame
        Index ``query_id``, or your name of it in ``columns`` (sorted: strings by bytes; integer ids keep their
        ``int64`` dtype and numeric order), one column per measure, labelled
        as given in ``measures`` (two names of one measure, such as ``"MRR"``
        and ``"RR"``, are two columns; an exact repeat is one): float64, or int64 for the
        counts (NumQ, NumRet, NumRel, NumRelRet). Summarise it with
        :func:`aggregate`, which sums the counts and averages the rest.

    Raises
    ------
    ValueError
        Unknown measure names, options out of range, malformed qrels or run
        files (with file, line number and reason), a document listed twice for
        one query, non-numeric or non-finite scores, qrels and run with no
        query in common, qrels and run dicts that look swapped (see
        ``grades``), or a grade above a measure's ``max_grade``.
    TypeError
        An unknown keyword argument: the message names the allowed ones and the
        closest (``tie=`` -> ``ties``).

    Warns
    -----
    rankeval.SkippedQueriesWarning
        With ``missing=None`` and a run with scores: how many judged queries
        the run lacks, left out of the table (see ``missing``).

    Notes
    -----
    Conventions that match trec_eval (checked against ``pytrec_eval`` in the
    test suite, every per-query value to 1e-9):

    - documents are ranked by score descending, ties by document id
      descending (as bytes); ids are never converted to numbers;
    - P@k divides by k even when fewer than k documents were retrieved;
    - recall-type measures divide by the number of relevant judged documents
      of the query, retrieved or not; nDCG's ideal list is built from all
      judged grades (linear gain, :math:`\log_2(i+1)` discount);
    - a judged query with no relevant document is kept and scores 0;
    - relevance is ``grade >= threshold`` for binary measures, while nDCG
      uses the grade whatever the threshold; negative grades give gain 0.

    ERR and GAP use a fixed top grade, ``max_grade=4`` (gdeval's), unless the
    measure says otherwise (``"ERR(max_grade=3)@20"``); a query's value never
    depends on the other queries. RBP is binary (``grade >= rel``) unless
    ``max_grade`` is given, then its gain is ``grade / max_grade``;
    ``trec_rbp`` is trec_eval 10's ``rbp``, whose gain divides by the query's
    own top grade.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import evaluate, aggregate
    >>> qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}}
    >>> run = {"q1": {"a": 0.9, "b": 0.8, "d": 0.7, "c": 0.1},
    ...        "q2": {"y": 1.0, "x": 0.5}}
    >>> df = evaluate(qrels, run, ["P@2", "AP", "RR", "NumRelRet"])
    >>> df
              P@2        AP   RR  NumRelRet
    query_id
    q1        0.5  0.750000  1.0          2
    q2        0.5  0.500000  0.5          1
    >>> aggregate(df)
    P@2          0.500
    AP           0.625
    RR           0.750
    NumRelRet    3.000
    dtype: float64

    In q1, the relevant documents stand at ranks 1 and 4: AP = (1/1 + 2/4) / 2.

    A recommender's lists: the user without a list counts, with 0
    (``missing=None`` chooses ``"zero"`` for ranked lists).

    >>> liked = {"u1": {"i1"}, "u2": {"i2"}}
    >>> evaluate(liked, {"u1": ["i1", "i3"]}, ["P@1", "RR"])
              P@1   RR
    query_id
    u1        1.0  1.0
    u2        0.0  0.0
    """
    settings = given(
        threshold=threshold, ties=ties, ideal=ideal, missing=missing, judged_only=judged_only,
        score_precision=score_precision, grades=grades, max_docs=max_docs, gain=gain,
        no_relevant=no_relevant, recall_rounding=recall_rounding,
        ap_denominator=ap_denominator, rbp_gain=rbp_gain,
    )  # fmt: skip
    frame, _ = score_run(qrels, run, measures, columns=columns, conventions=conventions,
                         max_memory=max_memory, encoding=encoding, **settings, **unknown)
    return frame


def score_run(qrels, run, measures, *, columns=None, conventions=None, max_memory="512MB",
              encoding="utf-8", **settings):  # fmt: skip
    """:func:`evaluate`'s table, and for each of its rows whether the query has a line in
    the run (the command line's ``-c -q`` prints no line for the others, as trec_eval).
    ``settings``: the keyword arguments of :func:`evaluate` that the caller gave;
    ``measures`` may be a :class:`~rankeval.Plan` (then without them)."""
    plan = given_plan(measures, conventions, settings, "evaluate") or make_plan(
        measures, conventions, settings, caller="evaluate",
        others=("columns", "max_memory", "encoding"))  # fmt: skip
    return run_plan(qrels, run, plan, columns=columns, max_memory=max_memory,
                    encoding=encoding)


def run_plan(qrels, run, plan, *, columns=None, max_memory="512MB", encoding="utf-8"):
    """:func:`score_run` of a made plan: a run file within ``max_memory`` goes to the
    bounded path, which calls this function again for each part of the run."""
    if max_memory is not None and (isinstance(run, (str, os.PathLike)) or hasattr(run, "read")):
        return evaluate_bounded(run_plan, qrels, run, plan, parse_memory(max_memory),
                                columns=columns, encoding=encoding)  # fmt: skip
    chosen = plan.conventions
    if chosen.grades is None:
        _refuse_swapped(qrels, run)
    options = chosen.ranking_options(run, columns)  # missing=None: by the run's form
    # missing=None that skips: every judged query is ranked, so that those the run
    # lacks are counted (and named in a warning), then only the run's are kept
    counting = chosen.missing is None and options["missing"] == "skip"
    if counting:
        options["missing"] = "zero"
    ranked = rank_run(qrels, run, **options, columns=columns, encoding=encoding)
    judged = len(ranked)
    if counting:
        if not ranked.in_run.any():
            _no_query_in_common(qrels, run, options, columns, ranked)
        ranked = queries_in_run(ranked)
    if not isinstance(chosen.gain, str):
        plan.check_grades(np.concatenate([ranked.grades, ranked.judged]))
    plan.check_defined(ranked)
    # indexed by the caller's name of the query column, when columns= gives one
    frame = plan.frame(plan.score(ranked, CELL_BUDGET), ranked.query_ids,
                       (columns or {}).get("query_id", "query_id"))  # fmt: skip
    in_run = ranked.in_run
    if counting:
        warn_skipped(judged - len(ranked), judged)
    del ranked
    release_memory()  # Arrow's freed pages go back to the system before the next call
    return frame, in_run


def _refuse_swapped(qrels, run) -> None:
    """A ValueError for qrels and a run that look swapped (``grades=None``)."""
    swapped = looks_swapped(qrels, run)
    if swapped is not None:
        query, doc, grade = swapped
        raise ValueError(
            f"the qrels look like a run: qrels[{query!r}][{doc!r}] is {grade!r}, a grade "
            "that is not a whole number, while every score of the run is a whole "
            "number, as grades are; were qrels and run given the wrong way round "
            "(evaluate(qrels, run, measures))? If the fractional grades are meant, "
            "pass grades='float'"
        )


def _no_query_in_common(qrels, run, options, columns, ranked):
    """Raise rank_run's ValueError for a run and qrels with no query in common (it reads
    the inputs again, which only this error path does); for an input that cannot be
    read twice (a file object, standard input), a message of the qrels' side."""
    def stream(source):
        return hasattr(source, "read") or (isinstance(source, str) and source == "-")

    if not (stream(qrels) or stream(run)):
        rank_run(qrels, run, **{**options, "missing": "skip"}, columns=columns)
    ids = ranked.query_ids
    raise ValueError(
        f"the run and the qrels have no query in common (qrels: {len(ids)} queries, "
        f"e.g. {ids[:3].tolist()}); query ids are compared "
        + ("as integers" if ids.dtype.kind == "i" else "as exact strings")
    )
