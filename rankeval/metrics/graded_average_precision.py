"""Graded average precision (GAP), Robertson, Kanoulas and Yilmaz 2010.

Chapter: :doc:`/chapters/04_average_precision`.
"""

from __future__ import annotations

import numbers

import numpy as np

from .block import RankedBlock
from .declaration import Declaration, Param, check_scale, nonempty
from .portable import row_sum
from .validation import as_batch, check_k, finish

__all__ = ["graded_average_precision"]


def _scale(batch, max_grade, grade_probabilities):
    """Check the grade scale 0..c; return ``G``, the function :math:`G(i) = \\sum_{j \\le i} g_j`.

    ``G`` maps an array of whole grades to the probability that a user counts
    them as relevant. Nothing of size c is allocated for the uniform default
    (:math:`G(i) = i / c`), so a top grade of a million costs nothing.
    """
    grades = batch.grades
    if not np.all(grades == np.floor(grades)):
        bad = grades[grades != np.floor(grades)][0]
        raise ValueError(
            f"relevance must hold whole-number grades 0, 1, ..., max_grade for GAP, got {bad:g}"
        )
    if max_grade is not None:
        if isinstance(max_grade, (bool, np.bool_)) or not isinstance(max_grade, numbers.Integral):
            raise TypeError(f"max_grade must be a positive int or None, got {max_grade!r}")
        if max_grade < 1:
            raise ValueError(f"max_grade must be a positive int or None, got {max_grade}")
    if grade_probabilities is None:
        c = int(max_grade) if max_grade is not None else max(int(grades.max()), 1)

        def G(i):
            return np.asarray(i, dtype=np.float64) / c

    else:
        probabilities = np.asarray(grade_probabilities)
        if probabilities.dtype.kind not in "iuf" or probabilities.ndim != 1:
            raise TypeError(
                "grade_probabilities must be a 1-D sequence of numbers (g_1, ..., g_c), "
                f"got {grade_probabilities!r}"
            )
        probabilities = probabilities.astype(np.float64)
        c = probabilities.size
        if c == 0:
            raise ValueError("grade_probabilities is empty: give one value per grade 1..c")
        if max_grade is not None and max_grade != c:
            raise ValueError(
                f"grade_probabilities holds {c} values but max_grade is {max_grade}: "
                "give one probability per relevant grade 1..max_grade"
            )
        if not np.all(np.isfinite(probabilities)) or np.any(probabilities < 0):
            raise ValueError(
                f"grade_probabilities must be finite and >= 0, got {probabilities.tolist()}"
            )
        if not np.isclose(probabilities.sum(), 1.0, rtol=0, atol=1e-9):
            raise ValueError(
                f"grade_probabilities must sum to 1, got sum {probabilities.sum():g}"
            )
        cumulative = np.concatenate([[0.0], np.cumsum(probabilities)])  # G(0..c)

        def G(i):
            return cumulative[np.asarray(i, dtype=np.int64)]

    if grades.max() > c:
        raise ValueError(
            f"relevance holds the grade {grades.max():g}, above the top grade {c} "
            "(max_grade, or the length of grade_probabilities)"
        )
    return c, G


def _denominator_from_counts(grade_counts, c, G, batch):
    """:math:`\\sum_i R_i G(i)` per query from the judged counts R_1..R_c, checked
    against the items of each grade already in the ranking."""
    n_queries = batch.n_queries
    counts = np.asarray(grade_counts)
    if counts.dtype.kind not in "iuf":
        raise TypeError(f"grade_counts must hold numbers, got {grade_counts!r}")
    if not (counts.ndim == 1 and counts.size == c) and counts.shape != (n_queries, c):
        raise ValueError(
            f"grade_counts must have shape ({c},) or ({n_queries}, {c}): one count per "
            f"grade 1..{c}, per query; got shape {np.shape(grade_counts)}"
        )
    if not np.all(np.isfinite(counts)) or np.any(counts < 0) or np.any(counts != np.round(counts)):
        raise ValueError("grade_counts must hold whole numbers >= 0")
    # Items of each (query, grade) in the whole list: one count per pair that occurs.
    mask = batch.mask & (batch.grades > 0)
    query = np.nonzero(mask)[0]
    grade = batch.grades[mask].astype(np.int64)
    pairs, found = np.unique(query * (c + 1) + grade, return_counts=True)
    q, g = np.divmod(pairs, c + 1)
    given = counts[g - 1] if counts.ndim == 1 else counts[q, g - 1]
    bad = np.flatnonzero(given < found)
    if bad.size:
        i = bad[0]
        where = "" if batch.single else f" for query {q[i]}"
        raise ValueError(
            f"grade_counts{where} gives {int(given[i])} items of grade {g[i]}, fewer "
            f"than the {int(found[i])} already in the ranking"
        )
    weights = G(np.arange(1, c + 1))  # G(1..c)
    # added grade by grade (not by a BLAS product, whose order depends on the CPU)
    if counts.ndim == 1:
        return np.full(n_queries, row_sum(counts.astype(np.float64)[None, :] * weights)[0])
    return row_sum(counts.astype(np.float64) * weights)


def graded_average_precision(
    relevance, k=None, *, max_grade=None, grade_probabilities=None, grade_counts="in_list"
):
    r"""Graded average precision (GAP): AP for grades 0..c, over users with random thresholds.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Whole-number grades 0, 1, ..., c of the ranked items, best-ranked
        first; 0 is not relevant. A 1-D input is one query; a 2-D array or a
        (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off (GAP@k): only ranks ``1..k`` contribute to the sum. ``None``
        means the whole list.
    max_grade : int or None, default=None
        The top grade c of the scale; a larger grade in ``relevance`` is an
        error. By default the length of ``grade_probabilities`` if given,
        else the largest grade in ``relevance``. With the default uniform
        probabilities the value of GAP does not depend on c (see Notes), so
        a batch and its queries one by one agree.
    grade_probabilities : sequence of c floats, optional
        :math:`g_1, \dots, g_c`: the probability that a user's relevance
        threshold is grade j (the user counts grades >= j as relevant).
        Non-negative, summing to 1. Default: uniform, :math:`g_j = 1/c`. The
        paper leaves the choice to the evaluator; this default is ours.
    grade_counts : "in_list", "in_top_k" or array_like of shape (c,) or (n_queries, c), default="in_list"
        For the ideal (the denominator): how many judged items of grade
        1, ..., c the query has in all, retrieved or not; the GAP analogue of
        ``n_relevant`` in :func:`rankeval.average_precision` and what the
        paper uses. ``"in_list"``: the items of the whole given list (not cut
        at ``k``), right only when the list holds every relevant item;
        ``"in_top_k"`` (or ``None``): the items of the top ``k``. Given counts must be at
        least the number of items of each grade in the whole given list; in
        an evaluation against qrels, pass the qrels' counts.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        GAP in [0, 1]; 0 for a query whose denominator is 0 (no relevant item,
        or only grades that no user counts as relevant).

    Notes
    -----
    Let :math:`g(n)` be the grade at rank :math:`n`, :math:`G(i) =
    \sum_{j=1}^{i} g_j` the probability that a user counts grade :math:`i` as
    relevant, and :math:`\delta_{mn} = G(\min(g(m), g(n)))` the probability
    that a user counts both the items at ranks m and n as relevant. Then
    (Robertson, Kanoulas and Yilmaz 2010)

    .. math:: \text{GAP} = \frac{\sum_{n=1}^{k} \frac{\mathbf{1}[g(n) > 0]}{n}
       \sum_{m=1}^{n} \mathbf{1}[g(m) > 0]\,\delta_{mn}}
       {\sum_{i=1}^{c} R_i\, G(i)}

    where :math:`R_i` is the number of items of grade :math:`i`: of the query
    (``grade_counts``) or, by default, of the whole given list (the same default as
    AP's, the relevant items found). With binary grades (c = 1, :math:`g_1 =
    1`) every :math:`\delta_{mn}` is 1 and GAP is AP.

    The code uses an equivalent form. Writing :math:`\delta_{mn} =
    \sum_j g_j \mathbf{1}[g(m) \ge j]\,\mathbf{1}[g(n) \ge j]` and swapping the
    sums turns the numerator into :math:`\sum_j g_j\, S_j`, where
    :math:`S_j` is the numerator of binary AP at threshold j, and the
    denominator into :math:`\sum_j g_j R_{\ge j}`. So GAP is the average of
    the binary APs at thresholds 1..c, weighted by :math:`g_j R_{\ge j}`
    (:math:`R_{\ge j}` = items of grade at least j):

    .. math:: \text{GAP} = \frac{\sum_j g_j R_{\ge j}\, \text{AP}_j}
       {\sum_j g_j R_{\ge j}}.

    This needs one cumulative sum per grade instead of a double sum over
    pairs of ranks. trec_eval has no GAP.

    With the uniform default, :math:`G(i) = i/c` and
    :math:`\delta_{mn} = \min(g(m), g(n))/c`: the factor :math:`1/c` cancels
    between numerator and denominator, so GAP compares grades by their
    ratios and the top grade of the scale does not matter.

    Chapter: :doc:`/chapters/04_average_precision`.

    References
    ----------
    .. [1] S. E. Robertson, E. Kanoulas and E. Yilmaz, "Extending average
       precision to graded relevance judgments", *Proc. SIGIR 2010*,
       pp. 603-610.

    Examples
    --------
    *Ranking Evaluation*'s sci-fi movies, grades 3, 3, 0, 3, 2 on
    a 0..3 scale, users' thresholds uniform over 1, 2, 3:

    >>> from rankeval import graded_average_precision, average_precision
    >>> graded_average_precision([3, 3, 0, 3, 2], max_grade=3)
    0.8955

    On binary grades it is AP:

    >>> r = [1, 0, 1, 0, 1]
    >>> graded_average_precision(r) == average_precision(r)
    True
    """
    batch = as_batch(relevance)
    k = check_k(k)
    c, G = _scale(batch, max_grade, grade_probabilities)

    top = batch.grades[:, :k]
    numerator = _numerator(top, G)

    if grade_counts is None:  # the convention before "in_list" existed
        grade_counts = "in_top_k"
    if isinstance(grade_counts, str):
        if grade_counts not in ("in_list", "in_top_k"):
            raise ValueError(
                'grade_counts must be "in_list", "in_top_k" or one count per grade 1..c, '
                f"got {grade_counts!r}"
            )
        counted = batch.grades if grade_counts == "in_list" else top
        denominator = row_sum(G(counted))  # sum of G(grade) = sum_j g_j R_{>=j}
    else:
        denominator = _denominator_from_counts(grade_counts, c, G, batch)
    return finish(_ratio(numerator, denominator), batch)


def _numerator(top, G):
    """:math:`\\sum_j g_j S_j` per query of the ``(n_queries, k)`` grades ``top``."""
    ranks = np.arange(1, top.shape[1] + 1)
    # S_j, the numerator of binary AP at threshold j, is the same for every j between two
    # consecutive grades that occur in the query's top k, so one pass per distinct grade
    # suffices: memory O(list length), whatever the scale c. Each query adds only the
    # grades of its own top k, with the weight from its own grade below: the same terms,
    # in the same order, whichever other queries share the batch.
    numerator = np.zeros(top.shape[0])
    previous = np.zeros(top.shape[0])
    for level in np.unique(top[top > 0]):
        present = (top == level).any(axis=1)
        relevant = top >= level
        precision = np.cumsum(relevant, axis=1, dtype=np.float64) / ranks
        weight = G(level) - G(previous)  # sum of g_j for previous < j <= level
        term = weight * row_sum(np.where(relevant, precision, 0.0))
        numerator += np.where(present, term, 0.0)
        previous = np.where(present, level, previous)
    return numerator


def _ratio(numerator, denominator):
    return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), 0.0)


def _gap_over_pool(relevance, k, max_grade, pool, query):
    """GAP of a batch under the uniform grade scale 0..``max_grade``, its denominator
    :math:`\\sum_i R_i G(i)` summed one document at a time over ``pool``: flat grades,
    one per document that counts (the judged pool, or the ranked documents), of query
    ``query[i]``; grades above ``max_grade`` or fractional are the caller's to refuse.
    Used by :func:`rankeval.evaluate`: nothing of size ``max_grade`` is allocated,
    unlike the ``grade_counts`` matrix."""
    batch = as_batch(relevance)
    k = check_k(k)
    _, G = _scale(batch, max_grade, None)
    relevant = pool >= 1
    denominator = np.bincount(query[relevant], weights=G(pool[relevant]),
                              minlength=batch.n_queries)
    return finish(_ratio(_numerator(batch.grades[:, :k], G), denominator), batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_gap(ranked: RankedBlock, k, max_grade=4):
    c = int(max_grade)
    if c != max_grade:
        raise ValueError(f"GAP: max_grade must be a whole number, got {max_grade:g}")

    def f(r):
        top = check_scale(r, None, c, "GAP")
        # the denominator counts the documents that define relevant counts, as AP's
        # does: every judged one (ideal="judged": unretrieved ones too; a grade above c
        # or a fractional one is refused, as the ranked grades are), or every ranked
        # one, not only the top k (ideal="retrieved"); summed per document, not as
        # grade_counts' (queries, c) matrix, so a large c costs nothing
        pool, query = r.checked_pool(c, "GAP")
        return _gap_over_pool(top, k, c, pool, query)

    return nonempty(ranked, f, 0.0)


DECLARATIONS = (
    Declaration("GAP", "graded average precision", _score_gap, graded_average_precision,
                params=(Param("max_grade", "positive", 4,
                              "top of the grade scale (default 4, gdeval's)"),)),
)  # fmt: skip
