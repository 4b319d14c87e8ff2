"""Mean rank (MR) and first relevant position (FRP): positions, so lower is better.

Both read the positions of the relevant items directly instead of turning them
into a score in [0, 1]. With a cut-off ``k`` a position past ``k`` is not
observed; by default it counts as ``k + 1``, one step past the part of the list
that was examined (the suggestion of *Ranking Evaluation*, the course text, for
FRP@k).

Chapter: :doc:`/chapters/11_mean_rank`.
"""

from __future__ import annotations

import numbers

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, nonempty
from .validation import as_batch, check_k, check_n_relevant, check_threshold, finish

__all__ = ["mean_rank", "first_relevant_position"]

_NOT_FOUND_WORDS = ("k+1", "nan", "raise")


def _positions(batch, k, threshold):
    """Relevant mask, 1-based positions, and the cut-off of each query.

    The cut-off is ``k`` for every query, or each list's own length when ``k``
    is None (then ``k + 1`` means "one past the end of this list").
    """
    relevant = batch.grades >= check_threshold(threshold)
    position = np.arange(1, batch.grades.shape[1] + 1)
    cut = batch.lengths if k is None else np.full(batch.n_queries, k)
    return relevant, position, cut.astype(np.float64)


def _fill(not_found, cut, empty, batch, what):
    """Value of the queries flagged ``empty``: they have no position to report."""
    n = batch.n_queries
    if isinstance(not_found, str):
        if not_found == "k+1":
            return cut + 1
        if not_found == "nan":
            return np.full(n, np.nan)
        if not_found == "raise":
            bad = np.flatnonzero(empty)
            if bad.size:
                name = "relevance" if batch.single else f"relevance[{bad[0]}]"
                raise ValueError(
                    f"{name} has {what} and not_found='raise'; pass not_found='k+1' "
                    "(the default), 'nan' or a number to give such queries a value"
                )
            return np.full(n, np.nan)  # no query uses it
        raise ValueError(
            f"not_found must be one of {', '.join(map(repr, _NOT_FOUND_WORDS))} or a number, "
            f"got {not_found!r}"
        )
    if isinstance(not_found, (bool, np.bool_)) or not isinstance(not_found, numbers.Real):
        raise TypeError(
            f"not_found must be one of {', '.join(map(repr, _NOT_FOUND_WORDS))} or a number, "
            f"got {not_found!r}"
        )
    value = float(not_found)
    if np.isnan(value):
        return np.full(n, np.nan)
    if not np.isfinite(value):
        raise ValueError(
            f"not_found must be finite, got {value}; use not_found='nan' to leave such "
            "queries out of a mean"
        )
    low = np.flatnonzero(value <= cut)
    if low.size:
        raise ValueError(
            f"not_found={value:g} must be larger than the cut-off ({cut[low[0]]:g}): a "
            "query with nothing relevant would otherwise rank ahead of one that "
            "found a relevant item"
        )
    return np.full(n, value)


def _within(k):
    return "in the list" if k is None else f"in the top {k}"


def first_relevant_position(relevance, k=None, *, threshold=1, not_found="k+1"):
    r"""Position of the first relevant item (FRP); lower is better.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off (FRP@k): only the first ``k`` positions are searched. ``None``
        searches the whole list.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.
    not_found : {"k+1", "nan", "raise"} or float, default="k+1"
        The value of a query with no relevant item in the searched part:

        - ``"k+1"``: one past the cut-off, the constant that
          *Ranking Evaluation* suggests for FRP@k. Without ``k`` the cut-off
          is the list's own length ``n``, so the value is ``n + 1`` ("the
          user read all ``n`` items and found nothing"); then lists of
          different lengths get different values.
        - ``"nan"``: NaN, to leave the query out (``np.nanmean``) or count it
          separately; a plain ``mean`` of the result is then NaN.
        - ``"raise"``: a ValueError naming the first such query, for data in
          which every query is known to have a relevant item.
        - a number: used as is, e.g. the depth of a deeper pool. It must be
          larger than the cut-off, so that finding nothing never scores better
          than finding something. ``float("nan")`` means ``"nan"``.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        FRP, a position: an integer in ``[1, k]`` (``[1, n]`` without ``k``)
        when a relevant item is found, else the ``not_found`` value (``k + 1``
        by default). **Lower is better.** Its mean over queries is the FRP of
        *Ranking Evaluation*; its median is often the more telling summary.

    Notes
    -----
    With :math:`\text{rel}(i) = \mathbf{1}[g_i \ge \text{threshold}]`,

    .. math:: \mathrm{FRP@}k = \begin{cases}
              \min\{i \le k : \text{rel}(i) = 1\} &
              \text{if } \sum_{i=1}^{k} \text{rel}(i) > 0 \\
              m & \text{otherwise (default } m = k + 1)
              \end{cases}

    When a relevant item is found, :math:`\mathrm{FRP@}k = 1 / \mathrm{RR@}k`
    (see :func:`rankeval.reciprocal_rank`). The mean of FRP over queries grows
    without bound with a single very late first hit, while MRR barely moves;
    the cut-off with the constant :math:`k + 1` bounds FRP by :math:`k + 1`.
    This is the metric called "mean rank" in link prediction, where each query
    has exactly one right answer. trec_eval has no FRP measure; its
    ``recip_rank`` reports :math:`1/\mathrm{FRP}`, with 0 where nothing
    relevant is retrieved.

    Chapter: :doc:`/chapters/11_mean_rank`.

    References
    ----------
    .. [1] *Ranking Evaluation*, the course text among the book's sources:
       FRP, and FRP@k with a constant such as k + 1 when the top k hold no
       relevant item.

    Examples
    --------
    The three queries of *Ranking Evaluation* (machine learning frameworks,
    neural networks, data visualization) find their first relevant result at
    positions 1, 1 and 2:

    >>> from rankeval import first_relevant_position
    >>> q1 = [1, 1, 0, 1, 1, 0, 1, 0, 1, 0]
    >>> q2 = [1, 0, 1, 0, 1, 0, 0, 1]
    >>> q3 = [0, 1, 1, 0, 1, 1]
    >>> first_relevant_position([q1, q2, q3])
    array([1., 1., 2.])

    Nothing relevant in the top 3: the value is k + 1, or what ``not_found`` says.

    >>> first_relevant_position([0, 0, 0, 1], k=3)
    4.0
    >>> first_relevant_position([0, 0, 0, 1], k=3, not_found="nan")
    nan
    >>> first_relevant_position([0, 0, 0], not_found=1000)
    1000.0
    """
    batch = as_batch(relevance)
    k = check_k(k)
    relevant, position, cut = _positions(batch, k, threshold)
    within = relevant & (position <= cut[:, None])
    found = within.any(axis=1)
    fill = _fill(not_found, cut, ~found, batch, f"no relevant item {_within(k)}")
    first = np.where(within, position, np.inf).min(axis=1)
    return finish(np.where(found, first, fill), batch)


def mean_rank(
    relevance, k=None, *, threshold=1, beyond="k+1", n_relevant="in_list", not_found="k+1"
):
    r"""Mean position of a query's relevant items (MR); lower is better.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
        Give the whole ranking: with ``beyond="k+1"`` the relevant items below
        the cut-off are counted too.
    k : int or None, default=None
        Cut-off (MR@k): positions past ``k`` are not observed. ``None`` keeps
        the whole list.
    threshold : float, default=1
        A grade ``>= threshold`` counts as relevant.
    beyond : {"k+1", "drop"}, default="k+1"
        What a relevant item below the cut-off contributes:

        - ``"k+1"``: it counts at position ``k + 1`` (``n + 1`` without
          ``k``, for relevant items missing from the list, see
          ``n_relevant``). MR@k is then the mean of the positions capped at
          ``k + 1``: bounded, equal to MR when nothing is cut, and never
          worse when a relevant item moves up.
        - ``"drop"``: it is left out; MR@k is the mean position of the
          relevant items *inside* the top ``k``. Bounded by ``k`` too, but it
          can reward pushing a relevant item out of the top ``k`` (the chapter
          shows an example), so read it with recall@k beside it.
    n_relevant : "in_list", int or array_like of shape (n_queries,), default="in_list"
        Number of relevant items of each query in all, including any the list
        does not contain; those count at the cut-off plus one. ``"in_list"``:
        the relevant grades of the whole given list, which is right only when
        the list holds every relevant item; in an evaluation against qrels,
        pass the qrels' count. An int or array only with ``beyond="k+1"``.
    not_found : {"k+1", "nan", "raise"} or float, default="k+1"
        The value of a query with no position to average: no relevant item at
        all, or (with ``beyond="drop"``) none in the top ``k``. Same choices as
        in :func:`first_relevant_position`; the default ``"k+1"`` is the
        cut-off plus one (``n + 1`` without ``k``), which is also what
        ``beyond="k+1"`` gives a query whose relevant items all lie below ``k``.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        MR, a mean position in ``[1, k + 1]`` (``[1, n + 1]`` without ``k``)
        with the defaults. **Lower is better.** Its mean over queries is the
        MR of *Ranking Evaluation* (each query weighs the same, however many
        relevant items it has).

    Notes
    -----
    Let :math:`\mathcal{R}_q` hold the relevant items of query :math:`q`
    and :math:`p_r` be the 1-based position of item :math:`r`.
    *Ranking Evaluation* averages the positions per query, then over the
    queries:

    .. math:: \mathrm{MR}(q) = \frac{1}{|\mathcal{R}_q|}
              \sum_{r \in \mathcal{R}_q} p_r,
              \qquad \mathrm{MR} = \frac{1}{|Q|} \sum_{q \in Q} \mathrm{MR}(q).

    With a cut-off and ``beyond="k+1"``, every position is capped at
    :math:`k + 1`:

    .. math:: \mathrm{MR@}k(q) = \frac{1}{|\mathcal{R}_q|}
              \sum_{r \in \mathcal{R}_q} \min(p_r,\, k + 1),

    a relevant item that is not in the list at all having
    :math:`p_r = \infty`. The same cap applied to the *smallest* position
    gives FRP@k, so :math:`\mathrm{MR@}k \ge \mathrm{FRP@}k`, with equality
    when a query has a single relevant item. With ``beyond="drop"``,
    :math:`\mathrm{MR@}k(q)` averages :math:`p_r` over the relevant items
    with :math:`p_r \le k` only.

    MR grows with the number of relevant items even for a perfect ranking
    (:math:`(|\mathcal{R}_q| + 1)/2` when they fill the top), so compare it only between
    systems on the same queries. trec_eval has no mean-rank measure.

    Chapter: :doc:`/chapters/11_mean_rank`.

    References
    ----------
    .. [1] *Ranking Evaluation*, the course text among the book's sources:
       MR, FRP, and the cut-off versions MR@k and FRP@k.

    Examples
    --------
    The three queries of *Ranking Evaluation* have their relevant results at
    positions 1, 2, 4, 5, 7, 9; at 1, 3, 5, 8; and at 2, 3, 5, 6:

    >>> from rankeval import mean_rank
    >>> q1 = [1, 1, 0, 1, 1, 0, 1, 0, 1, 0]
    >>> q2 = [1, 0, 1, 0, 1, 0, 0, 1]
    >>> q3 = [0, 1, 1, 0, 1, 1]
    >>> mr = mean_rank([q1, q2, q3])
    >>> mr
    array([4.66666667, 4.25      , 4.        ])
    >>> bool(mr.mean() == (28 / 6 + 17 / 4 + 16 / 4) / 3)
    True

    At k = 5 the items at 7 and 9 of the first query count at 6, or are
    dropped:

    >>> mean_rank(q1, k=5) == (1 + 2 + 4 + 5 + 6 + 6) / 6
    True
    >>> mean_rank(q1, k=5, beyond="drop") == (1 + 2 + 4 + 5) / 4
    True
    """
    batch = as_batch(relevance)
    k = check_k(k)
    if beyond not in ("k+1", "drop"):
        raise ValueError(f'beyond must be "k+1" or "drop", got {beyond!r}')
    relevant, position, cut = _positions(batch, k, threshold)
    if beyond == "k+1":
        capped = np.minimum(position, cut[:, None] + 1)
        in_list = relevant.sum(axis=1)
        total = check_n_relevant(n_relevant, in_list, batch)
        rank_sum = (relevant * capped).sum(axis=1) + (cut + 1) * (total - in_list)
        what = (
            "no relevant item in the whole list"
            if isinstance(n_relevant, str)
            else "n_relevant = 0"
        )
    else:
        if not (isinstance(n_relevant, str) and n_relevant == "in_list"):
            raise ValueError(
                'n_relevant is used only with beyond="k+1"; with beyond="drop" the '
                "relevant items outside the top k are left out anyway"
            )
        within = relevant & (position <= cut[:, None])
        total = within.sum(axis=1)
        rank_sum = (within * position).sum(axis=1)
        what = f"no relevant item {_within(k)}"
    fill = _fill(not_found, cut, total == 0, batch, what)
    values = np.where(total > 0, rank_sum / np.maximum(total, 1), fill)
    return finish(values, batch)


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _ranked_positions(ranked: RankedBlock, k, rel, fn):
    def f(r):
        return fn(r, r.ragged() if k is None else r.padded(k))

    empty_value = np.nan if k is None else k + 1.0
    return nonempty(ranked, f, empty_value)


def _score_mr(ranked: RankedBlock, k, rel):
    return _ranked_positions(
        ranked, k, rel, lambda r, g: mean_rank(g, k, threshold=rel, n_relevant=r.n_relevant(rel))
    )


def _score_frp(ranked: RankedBlock, k, rel):
    return _ranked_positions(
        ranked, k, rel, lambda r, g: first_relevant_position(g, k, threshold=rel)
    )


DECLARATIONS = (
    Declaration("MR", "mean rank of the relevant documents (lower is better)", _score_mr,
                mean_rank, params=(REL,), lower_is_better=True, binary=True,
                bounds=(1.0, np.inf)),
    Declaration("FRP", "rank of the first relevant document (lower is better)", _score_frp,
                first_relevant_position, params=(REL,), lower_is_better=True, binary=True,
                bounds=(1.0, np.inf)),
)  # fmt: skip
