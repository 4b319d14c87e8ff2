r"""Learning-to-rank arrays: labels, model scores and query groups, as in LightGBM.

A learning-to-rank data set is three aligned arrays: a relevance label per
row, the model's score per row, and the query each row belongs to, given
either as a query id per row (XGBoost's ``qid``) or as the sizes of
consecutive groups of rows (LightGBM's and XGBoost's ``group``).
:func:`~rankeval.evaluate_groups` scores such arrays with the measures of
:func:`rankeval.evaluate`: it builds a :class:`rankeval.RankedRun` straight
from the arrays (no document ids, no join) and lets the same measure
declarations score it, so every formula is the one of ``evaluate``.
:func:`~rankeval.weighted_mean` averages the per-query values with query weights.

The libraries disagree on three conventions, which are named options here; a
preset of :func:`rankeval.evaluate`, ``conventions=``, sets all three:

===============  =====================  ==================  ==================
conventions      query without a        gain of label *l*   tied scores
                 relevant document
===============  =====================  ==================  ==================
``trec_eval``    0                      *l*                 row order
``pytrec_eval``  0                      *l*                 row order
``lightgbm``     1                      :math:`2^l - 1`     row order
``xgboost``      1 (0 with ``ndcg-``)   :math:`2^l - 1`     row order
``sklearn``      0                      *l*                 averaged
===============  =====================  ==================  ==================

LightGBM's ``ndcg`` metric (``rank_metric.hpp``) gives a query whose ideal
DCG is 0 the value 1, and its ``label_gain`` defaults to
:math:`0, 1, 3, 7, \ldots, 2^{30} - 1`. XGBoost's ``ndcg`` and ``ndcg@n``
give such a query 1 as well, and 0 when the metric name ends in ``-``
(``ndcg-``, ``ndcg@10-``); its gain is :math:`2^l - 1` while
``ndcg_exp_gain`` is true, the default. Both sort each group with a stable
sort, so tied scores keep the order of the rows. trec_eval gives such a
query 0 with the label itself as gain, and orders ties by document id,
which arrays do not have (row order is used); ``pytrec_eval`` (trec_eval 9)
also compares the scores as 32-bit floats. scikit-learn's
``ndcg_score`` gives 0 and, with ``ignore_ties=False``, gives every member of
a group of tied scores the group's mean gain.

Chapter: :doc:`/chapters/21_recommenders_and_ltr`.
"""

from __future__ import annotations

import numpy as np

from ..ranking import RankedRun, compared_scores
from .aggregate import aggregate
from .conventions import PRESET_S, PRESETS, UNSET, given, renamed
from .core import CELL_BUDGET
from .plan import make_plan

__all__ = ["evaluate_groups", "weighted_mean", "CONVENTIONS", "ranked_block", "codes_of_ids"]

#: The conventions of :func:`~rankeval.evaluate_groups`: no_relevant, gain, ties, read
#: from :data:`rankeval.evaluation.conventions.PRESETS` (arrays have no document ids:
#: trec_eval's ties by id become row order)
CONVENTIONS = {
    name: {
        "no_relevant": PRESETS[name].no_relevant,
        "gain": PRESETS[name].gain,
        "ties": "input" if PRESETS[name].ties == "trec_eval" else PRESETS[name].ties,
    }
    for name in ("trec_eval", "pytrec_eval", "lightgbm", "xgboost", "sklearn", "recbole",
                 "recommenders", "mllib", "ir_measures")
}
# the keywords of its settings
_SETTINGS = ("no_relevant", "gain", "ties", "threshold", "ap_denominator", "rbp_gain")
_MAX_LABEL = {"lightgbm": 30, "xgboost": 31}  # the libraries' limits with 2^l - 1
_SORT_CELLS = 1 << 21  # cells of one padded matrix of scores to sort


def _array(values, name: str) -> np.ndarray:
    """A 1-D float64 copy-free view of ``values``; finite numbers only."""
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        raise TypeError(f"{name} must be a 1-D array of numbers, got {type(values).__name__}")
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per row), got shape {arr.shape}")
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name}[{i}] is {arr[i]}: {name} must be finite numbers "
            f"({int(bad.sum())} row(s) are not)"
        )
    return arr


def _from_sizes(sizes, n: int):
    """Group sizes (LightGBM's and XGBoost's ``group``) -> row codes, group numbers."""
    arr = np.asarray(sizes)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or arr.dtype.kind == "b":
        raise TypeError(
            f"group sizes must be a 1-D array of integers, got dtype {arr.dtype}, shape {arr.shape}"
        )
    if arr.size and arr.min() < 1:
        i = int(np.flatnonzero(arr < 1)[0])
        raise ValueError(f"group size {i} is {arr[i]}: every group needs at least one row")
    total = int(arr.sum())
    if total != n:
        raise ValueError(
            f"the group sizes sum to {total} but there are {n} rows: the sizes of "
            "consecutive groups (LightGBM's and XGBoost's group=) must add up to "
            "len(labels); for a query id per row pass group_kind='ids'"
        )
    sizes = arr.astype(np.int64)
    return np.repeat(np.arange(sizes.size), sizes), np.arange(sizes.size), sizes


def _from_ids(ids, n: int):
    """A query id per row -> row codes (ids sorted as evaluate sorts them), ids."""
    if not isinstance(ids, np.ndarray) or ids.dtype.kind == "O":
        # np.asarray([1, "1"]) would make both strings: refuse ids of two types first
        from ..io.tables import id_kind, mixed_id_types

        values = ids.tolist() if hasattr(ids, "tolist") else list(ids)
        kinds = dict.fromkeys(k for k in map(id_kind, values) if k)
        if len(kinds) > 1:
            raise mixed_id_types("query_id", *kinds)
    arr = np.asarray(ids)
    if arr.ndim != 1:
        raise ValueError(f"query ids must be 1-D (one per row), got shape {arr.shape}")
    if arr.size != n:
        raise ValueError(
            f"{arr.size} query ids for {n} rows: give one query id per row, or the "
            "group sizes with group_kind='sizes'"
        )
    kind = arr.dtype.kind
    if kind == "b" or kind == "f" or kind == "c":
        raise TypeError(
            f"query ids must be integers or strings, got dtype {arr.dtype}; "
            "cast whole-number floats with .astype('int64')"
        )
    if kind in "iu":
        arr = arr.astype(np.int64, copy=False)
        if n == 0 or np.all(arr[1:] >= arr[:-1]):  # sorted already: no hashing
            starts = np.ones(n, dtype=bool)
            np.not_equal(arr[1:], arr[:-1], out=starts[1:])
            codes = np.cumsum(starts) - 1
            return codes, arr[starts], np.bincount(codes)
    import pyarrow as pa

    try:
        column = pa.array(arr, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as err:
        raise TypeError(f"query ids must be integers or strings, all of one type: {err}") from None
    return codes_of_ids(column)


def codes_of_ids(column):
    """An Arrow array of query ids (one per row) -> (row codes, the distinct ids sorted as
    :func:`rankeval.evaluate` sorts them, rows per id)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.null_count:
        i = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
        raise ValueError(f"query id of row {i} is missing (None/NaN)")
    if not (pa.types.is_integer(column.type) or pa.types.is_string(column.type)
            or pa.types.is_large_string(column.type)):  # fmt: skip
        raise TypeError(f"query ids must be integers or strings, got {column.type}")
    encoded = pc.dictionary_encode(column)
    rank = np.empty(len(encoded.dictionary), dtype=np.int64)
    order = pc.sort_indices(encoded.dictionary).to_numpy()  # bytes order, as evaluate
    rank[order] = np.arange(order.size)
    codes = rank[encoded.indices.to_numpy()]
    unique = encoded.dictionary.take(pa.array(order))
    if pa.types.is_integer(unique.type):
        values = unique.to_numpy().astype(np.int64)
    else:
        values = np.asarray(unique.to_pylist(), dtype=object)
    return codes, values, np.bincount(codes, minlength=order.size)


def _groups(group, n: int, group_kind: str):
    if group_kind not in ("auto", "ids", "sizes"):
        raise ValueError(f"group_kind must be 'auto', 'ids' or 'sizes', got {group_kind!r}")
    if isinstance(group, (str, bytes)) or np.isscalar(group):
        raise TypeError(
            f"group must be an array (query ids or group sizes), got {type(group).__name__}"
        )
    arr = np.asarray(group)
    if group_kind == "auto":
        if arr.ndim == 1 and arr.size == n and n > 1 and arr.dtype.kind in "iu":
            if np.all(arr == 1):
                raise ValueError(
                    f"group holds {n} ones for {n} rows: these are either {n} groups "
                    "of one row (sizes) or one query with id 1 (ids); say which with "
                    "group_kind='sizes' or group_kind='ids'"
                )
        group_kind = "ids" if arr.ndim == 1 and arr.size == n else "sizes"
        if group_kind == "sizes" and arr.dtype.kind not in "iu":
            raise ValueError(
                f"group has {arr.size} entries for {n} rows: query ids need one per "
                "row, and group sizes must be integers adding up to the number of rows"
            )
    if group_kind == "ids":
        return _from_ids(group, n), "query_id"
    return _from_sizes(arr, n), "group"


def _rank_rows(codes, scores, n_groups):
    """Row order: group, score descending, then row order (a stable sort)."""
    if codes.size and np.all(codes[1:] >= codes[:-1]):
        # contiguous groups (the usual case): sort each group's scores, padded
        return _rank_contiguous(codes, scores, n_groups)
    # gather each group's rows, keeping their order (a radix sort for < 65,536 groups)
    small = codes.astype(np.uint16) if n_groups <= 1 << 16 else codes
    gather = np.argsort(small, kind="stable")
    return gather[_rank_contiguous(codes[gather], scores[gather], n_groups)]


def _rank_contiguous(codes, scores, n_groups):
    """Stable per-group sort of contiguous groups: groups of similar size are
    padded into one matrix and sorted row by row."""
    sizes = np.bincount(codes, minlength=n_groups)
    starts = np.cumsum(sizes) - sizes
    out = np.empty(codes.size, dtype=np.int64)
    by_size = np.argsort(sizes, kind="stable")
    sorted_sizes = sizes[by_size]
    done = 0
    while done < by_size.size:
        # the most groups (taken by increasing size) whose padded matrix fits the budget
        cells = np.arange(1, by_size.size - done + 1) * sorted_sizes[done:]
        take = max(1, int(np.searchsorted(cells, _SORT_CELLS, side="right")))
        block = by_size[done : done + take]
        first, size = starts[block], sizes[block]
        col = np.arange(int(size.max()))
        inside = col < size[:, None]
        rows = np.where(inside, first[:, None] + col, 0)
        keys = np.where(inside, -scores[rows], np.inf)
        pos = np.argsort(keys, axis=1, kind="stable")  # ties keep row order
        out[rows[inside]] = np.take_along_axis(rows, pos, axis=1)[inside]
        done += take
    return out


def ranked_block(codes, ids, labels, scores, chosen) -> RankedRun:
    """The one way from rows to ranked queries: a query code per row (``codes``, into
    the sorted ``ids``), a relevance label and a score per row, ranked as
    :func:`rankeval.evaluate` ranks a run whose qrels are these rows.

    Each query's rows are sorted by score, descending (compared as ``chosen`` says),
    tied rows in row order (the rows have no document ids: trec_eval's order of ties
    is row order); ``ties="average"`` groups the equal scores. Every row is a judged
    document of its query: the labels are its judgments (a negative label is judged
    and not relevant, as a negative grade of qrels; ``grades="trec_eval"`` truncates
    them), and ``max_docs`` and ``judged_only`` cut the rankings after the sort, as
    :func:`rankeval.rank_run` cuts them. No document id is made up.
    """
    from ..metrics.judged import is_judged

    s = compared_scores(scores, chosen.score_precision)
    y = np.trunc(labels) if chosen.grades == "trec_eval" else labels
    order = _rank_rows(codes, s, len(ids))
    q, grades, s = codes[order], y[order], s[order]
    judged = is_judged(grades)
    pool = np.bincount(q[judged], minlength=len(ids))
    if chosen.max_docs is not None or chosen.judged_only:
        counts = np.bincount(q, minlength=len(ids))
        rank = np.arange(q.size) - np.repeat(np.cumsum(counts) - counts, counts)
        keep = rank < (chosen.max_docs or q.size + 1)
        if chosen.judged_only:
            keep &= judged
        q, s, judged_grades, grades = q[keep], s[keep], grades[judged], grades[keep]
    else:
        judged_grades = grades[judged]
    tie_groups = None
    if chosen.ties == "average":
        new = np.ones(q.size, dtype=bool)
        new[1:] = (s[1:] != s[:-1]) | (q[1:] != q[:-1])
        tie_groups = np.cumsum(new) - 1
    counts = np.bincount(q, minlength=len(ids))
    return RankedRun(
        query_ids=ids,
        grades=grades,
        offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        scores=s,
        threshold=chosen.threshold,
        ideal=chosen.ideal,
        tie_groups=tie_groups,
        judged=judged_grades,
        judged_offsets=np.concatenate(([0], np.cumsum(pool))).astype(np.int64),
    )


def _weights(weights, row_weights, codes, ids, n):
    """Per-query weights aligned with ``ids`` (or None)."""
    if weights is not None and row_weights is not None:
        raise ValueError("give weights (one per query) or row_weights (one per row), not both")
    if row_weights is not None:
        w = _array(row_weights, "row_weights")
        if w.size != n:
            raise ValueError(f"row_weights has {w.size} values for {n} rows: give one per row")
        _non_negative(w, "row_weights")
        # LightGBM's rule (Metadata::CalculateQueryWeights): a query's mean row weight
        return np.bincount(codes, weights=w, minlength=len(ids)) / np.bincount(
            codes, minlength=len(ids)
        )
    if weights is None:
        return None
    if isinstance(weights, dict) or hasattr(weights, "reindex"):  # keyed by query id
        import pandas as pd

        series = pd.Series(weights)
        missing = [q for q in ids.tolist() if q not in series.index]
        if missing:
            raise ValueError(f"weights has no weight for query {missing[0]!r}")
        weights = series.reindex(pd.Index(ids)).to_numpy()
    w = _array(weights, "weights")
    if w.size != len(ids):
        raise ValueError(
            f"weights has {w.size} values for {len(ids)} queries: give one weight per "
            "query, in the order of the result's index (or a dict/Series by query id); "
            "for one weight per row use row_weights="
        )
    _non_negative(w, "weights")
    return w


def _non_negative(w, name):
    if np.any(w < 0):
        i = int(np.flatnonzero(w < 0)[0])
        raise ValueError(f"{name}[{i}] is {w[i]:g}: weights must be >= 0")
    if w.size and not np.any(w > 0):
        raise ValueError(f"{name} are all 0: a weighted mean needs a positive weight")


def evaluate_groups(
    labels,
    scores,
    group,
    measures,
    *,
    group_kind="auto",
    conventions=None,
    no_relevant=PRESET_S,
    gain=PRESET_S,
    ties=PRESET_S,
    threshold=UNSET["threshold"],
    ap_denominator=PRESET_S,
    rbp_gain=PRESET_S,
    weights=None,
    row_weights=None,
    **unknown,
):
    r"""Score learning-to-rank arrays (labels, scores, query groups), one row per query.

    Parameters
    ----------
    labels : array-like of shape (n_rows,)
        Relevance label of every row (grades >= 0; LightGBM and XGBoost use
        whole numbers 0..30 or 0..31).
    scores : array-like of shape (n_rows,)
        The model's score of every row; higher ranks first.
    group : array-like
        Which query each row belongs to: a query id per row (integers or
        strings; XGBoost's ``qid``), or the sizes of consecutive groups of
        rows (LightGBM's and XGBoost's ``group``: ``[3, 2]`` means rows 0-2
        and rows 3-4), as ``group_kind`` says.
    measures : str, Measure or list of them
        Measure names as for :func:`rankeval.evaluate` (``"nDCG@10"``,
        ``"AP"``, ``"P@5"``, ...).
    group_kind : {"auto", "ids", "sizes"}, default="auto"
        ``"auto"``: ``group`` holds ids when it has one entry per row, sizes
        otherwise; ``n`` ones for ``n`` rows fit both readings (``n`` groups
        of one row, or one query with id 1) and raise a ValueError asking for
        ``"ids"`` or ``"sizes"``.
    conventions : str, optional
        One of ``"trec_eval"``, ``"pytrec_eval"``, ``"lightgbm"``, ``"xgboost"``,
        ``"sklearn"``, ``"recbole"``, ``"recommenders"``, ``"mllib"``,
        ``"ir_measures"``.
        A preset of :func:`rankeval.evaluate` (None: ``"trec_eval"``), which
        sets ``no_relevant``, ``gain`` and ``ties`` where they are not given
        (see ``CONVENTIONS`` and the module's table): ``"lightgbm"`` is
        LightGBM's ``ndcg`` metric with its default ``label_gain``;
        ``"xgboost"`` is XGBoost's ``ndcg`` with ``ndcg_exp_gain=True`` (its
        ``ndcg-`` is ``conventions="xgboost", no_relevant=0``, its
        ``ndcg_exp_gain=False`` is ``conventions="xgboost", gain="linear"``);
        ``"sklearn"`` is scikit-learn's ``ndcg_score`` with
        ``ignore_ties=False``; ``"pytrec_eval"`` compares the scores as 32-bit
        floats and reads the recall levels of ``IPrec`` and ``11pt_avg`` as
        trec_eval 9. A keyword given overrides the preset, a value equal to
        trec_eval's included. ``convention=`` is the old spelling (a
        FutureWarning); another keyword is a TypeError that names the allowed ones.
    no_relevant : float or None, default: the preset's
        Value of every measure that lies in [0, 1] (not DCG, Hits, the counts
        and the ranks MR, FRP) for a query whose labels are all 0 (its ideal
        DCG is 0): 1 in LightGBM and XGBoost, the measure's own value (0 for
        nDCG) with None, as trec_eval and scikit-learn. As in LightGBM, the
        rule does not depend on ``threshold``: a query whose best label is 1
        is scored, not set to ``no_relevant``, when ``threshold=2``.
    gain : {"linear", "exponential"} or sequence of float, default: the preset's
        Gain of nDCG and DCG measures that do not name their own
        (``"nDCG(gain='linear')@10"`` keeps its gain): the label itself
        (trec_eval, scikit-learn), :math:`2^l - 1` (LightGBM's default
        ``label_gain``, XGBoost's ``ndcg_exp_gain=True``), or a table of
        gains per whole-number label (LightGBM's ``label_gain``).
    ties : {"input", "average"}, default: the preset's
        Rows with equal scores in one query: in row order (the stable sort
        of LightGBM and XGBoost), or averaged gains (scikit-learn; nDCG and
        DCG only). trec_eval's order of ties (by document id) needs ids: use
        :func:`rankeval.evaluate` for it.
    threshold : float, default=1
        A label ``>= threshold`` is relevant for binary measures
        (``no_relevant`` does not depend on it).
    ap_denominator : str, default: the preset's
        What ``AP@k`` divides by: every relevant row (trec_eval's ``map_cut``),
        or :math:`\min(k, R)`, the recommender MAP@k (the presets ``"recbole"``,
        ``"recommenders"``, ``"mllib"``; see :class:`~rankeval.Conventions`).
    rbp_gain : {"binary", "grade"}, default: the preset's
        The gain of ``RBP`` that names neither ``rel`` nor ``max_grade``: 1 for
        a relevant label, or the label itself (ir_measures' ``RBP``; the preset
        ``"ir_measures"``).
    weights : array-like, dict or pandas.Series, optional
        One weight per query (XGBoost's group weights), in the order of the
        result's index, or keyed by query id. Kept in the result's
        ``attrs["weights"]`` for :func:`~rankeval.weighted_mean`.
    row_weights : array-like, optional
        One weight per row; a query's weight is the mean of its rows' weights,
        as LightGBM computes query weights.

    Returns
    -------
    pandas.DataFrame
        One row per query, one column per measure (labelled as given). With
        query ids the index is ``query_id``, sorted as :func:`rankeval.evaluate`
        sorts it (integers numerically, strings by their bytes); the rows of
        one query need not be adjacent: they are gathered, keeping their order,
        which decides ties with ``ties="input"``. With sizes the index is
        ``group``, the group's number 0, 1, ... in row order.

    Raises
    ------
    ValueError
        Arrays of different lengths, sizes that do not add up to the number of
        rows, a size below 1, NaN or infinite labels, scores or weights,
        negative labels or weights, labels above the library's limit with its
        exponential gain, ambiguous ``group``, unknown options, presets or measures.
    TypeError
        Non-numeric labels, scores or sizes; float query ids; an unknown keyword
        (the message names the allowed ones and the closest).

    See Also
    --------
    rankeval.evaluate : the same measures on qrels and runs with document ids.
    rankeval.weighted_mean : the mean over queries with query weights.

    Notes
    -----
    The rows are ranked within each query by a stable sort (each query's
    rows are first gathered by a stable sort on the query, if they are not
    adjacent; groups of similar size are then sorted together as the rows of
    a padded matrix), and the labels in rank order become a :class:`~rankeval.RankedRun`
    whose ideal lists come from the same labels: each query's rows are all
    its judged documents, as in scikit-learn. The measures are then the
    declarations of :mod:`rankeval.measures`, scored by the core that
    :func:`rankeval.evaluate` uses.

    Chapter: :doc:`/chapters/21_recommenders_and_ltr`.

    Examples
    --------
    >>> from rankeval.ltr import evaluate_groups
    >>> labels = [2, 0, 1, 0, 0, 0]
    >>> scores = [0.1, 0.9, 0.5, 0.3, 0.2, 0.4]
    >>> evaluate_groups(labels, scores, [3, 3], "nDCG@2", group_kind="sizes")
             nDCG@2
    group
    0      0.239812
    1      0.000000
    >>> evaluate_groups(labels, scores, [3, 3], "nDCG@2", conventions="lightgbm")
             nDCG@2
    group
    0      0.173765
    1      1.000000

    Query 0 ranks its labels as 0, 1, 2: trec_eval's DCG@2 is
    :math:`1/\log_2 3` and the ideal :math:`2 + 1/\log_2 3`; LightGBM's gains
    are :math:`2^l - 1` (1 over :math:`3 + 1/\log_2 3`). Query 1 has no
    relevant row: 0 for trec_eval, 1 for LightGBM.
    """
    settings = given(no_relevant=no_relevant, gain=gain, ties=ties, threshold=threshold,
                     ap_denominator=ap_denominator, rbp_gain=rbp_gain)
    plan, convention = _groups_plan(measures, conventions, {**settings, **unknown})
    y, s = _labels_and_scores(labels, scores, convention, plan.conventions.gain)
    (codes, ids, _), index_name = _groups(group, y.size, group_kind)
    plan.check_grades(y, "labels")
    w = _weights(weights, row_weights, codes, ids, y.size)
    ranked = ranked_block(codes, ids, y, s, plan.conventions)
    frame = plan.frame(plan.score(ranked, CELL_BUDGET), ids, index_name)
    if w is not None:
        import pandas as pd

        frame.attrs["weights"] = pd.Series(w, index=frame.index, name="weight")
    return frame


def _groups_plan(measures, conventions, settings):
    """(the plan of evaluate_groups, the preset's name): the preset with arrays' ties
    (row order for trec_eval's order by document id) and every keyword given over it."""
    convention, settings = renamed(conventions, settings, "evaluate_groups")
    if convention is None:
        convention = "trec_eval"
    if not isinstance(convention, str) or convention not in CONVENTIONS:
        raise ValueError(
            f"conventions must be one of {', '.join(map(repr, CONVENTIONS))}, got {convention!r}"
        )
    if settings.get("ties") not in (None, "input", "average"):
        ties = settings["ties"]
        extra = " (trec_eval's order by document id needs ids: use rankeval.evaluate)"
        raise ValueError(
            f"ties must be 'input' or 'average', got {ties!r}"
            + (extra if ties == "trec_eval" else "")
        )
    # arrays have no document ids: trec_eval's order of ties is row order
    preset = PRESETS[convention].replace(ties=CONVENTIONS[convention]["ties"], ideal="judged")
    plan = make_plan(measures, preset, settings, allowed=_SETTINGS, caller="evaluate_groups",
                     others=("group_kind", "weights", "row_weights"), advice="")  # fmt: skip
    return plan, convention


def _labels_and_scores(labels, scores, convention, gain):
    """The labels and scores as float64 arrays, checked: one score per label, labels
    >= 0 and within the library's limits with its exponential gain."""
    y = _array(labels, "labels")
    s = _array(scores, "scores")
    if y.size != s.size:
        raise ValueError(
            f"labels has {y.size} rows but scores has {s.size}: give one score per row"
        )
    if y.size == 0:
        raise ValueError("labels and scores are empty: there is nothing to evaluate")
    if y.min() < 0:
        i = int(np.argmin(y))
        raise ValueError(
            f"labels[{i}] is {y[i]:g}: labels must be >= 0 (LightGBM and XGBoost refuse "
            "negative labels too)"
        )
    if gain == "exponential" and convention in _MAX_LABEL and y.max() > _MAX_LABEL[convention]:
        i = int(np.argmax(y))
        raise ValueError(
            f"labels[{i}] is {y[i]:g}: {convention} with gain 2^l - 1 takes labels up to "
            f"{_MAX_LABEL[convention]}"
        )
    if convention == "lightgbm" and gain == "exponential":
        fractional = y != np.round(y)
        if fractional.any():
            i = int(np.flatnonzero(fractional)[0])
            raise ValueError(
                f"labels[{i}] is {y[i]:g}: LightGBM's ranking metrics take whole-number "
                "labels (its label_gain is indexed by the label); round them, or give "
                "gain='linear' or your own table of gains"
            )
    return y, s


def weighted_mean(frame, weights=None):
    r"""Mean of per-query values with query weights, as LightGBM and XGBoost report it.

    Parameters
    ----------
    frame : pandas.DataFrame
        Per-query values, e.g. from :func:`~rankeval.evaluate_groups` or
        :func:`rankeval.evaluate`.
    weights : array-like, dict or pandas.Series, optional
        One weight >= 0 per row of ``frame`` (in its order, or keyed by its
        index). Default: ``frame.attrs["weights"]``, set by
        :func:`~rankeval.evaluate_groups` when it was given weights.

    Returns
    -------
    pandas.Series
        :math:`\sum_q w_q v_q / \sum_q w_q` per column; counts (NumQ, NumRel,
        ...) are summed without weights: :func:`rankeval.aggregate` with weights.

    Raises
    ------
    ValueError
        No weights, a count that does not match the rows, negative or
        non-finite weights, or all weights 0.

    Notes
    -----
    LightGBM's ``ndcg`` divides :math:`\sum_q w_q \, \mathrm{nDCG}(q)` by
    :math:`\sum_q w_q`, with :math:`w_q` the mean weight of the query's rows;
    XGBoost does the same with one weight per group. Without weights both are
    the plain mean over queries. With weights, both libraries add the value
    of a query without a relevant row (1, or 0 for XGBoost's ``ndcg-``) to
    the sum *unweighted*, while its :math:`w_q` still counts in the divisor;
    this function weights it like any other value, so the two agree only when
    such queries have weight 1 or there are none (``tests/test_ltr.py`` trains
    both libraries and checks either formula). A NaN in a column gives NaN, as in
    :func:`rankeval.aggregate` (never a mean over fewer queries).

    Chapter: :doc:`/chapters/21_recommenders_and_ltr`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.ltr import weighted_mean
    >>> weighted_mean(pd.DataFrame({"nDCG@10": [1.0, 0.5]}), [1, 3])
    nDCG@10    0.625
    dtype: float64
    """
    import pandas as pd

    if weights is None:
        weights = frame.attrs.get("weights")
        if weights is None:
            raise ValueError(
                "no weights: pass weights=, or a frame from evaluate_groups(..., weights=...)"
            )
    if isinstance(weights, dict) or isinstance(weights, pd.Series):
        series = pd.Series(weights)
        missing = frame.index.difference(series.index)
        if len(missing):
            raise ValueError(
                f"weights has no weight for {frame.index.name or 'row'} {missing[0]!r}"
            )
        weights = series.reindex(frame.index).to_numpy()
    w = _array(weights, "weights")
    if w.size != len(frame):
        raise ValueError(f"weights has {w.size} values for {len(frame)} rows of the frame")
    _non_negative(w, "weights")
    return aggregate(frame, weights=w)
