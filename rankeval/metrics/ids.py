"""Turn ranked item ids and relevance judgments into a relevance vector.

Every metric in :mod:`rankeval` reads grades, not item ids. A system, though,
returns ids (documents, movies, products) and the judges say which ids are
relevant. :func:`relevance_vector` is the bridge: it looks each ranked id up in
the judgments and writes its grade at the id's position.

Chapter: :doc:`/chapters/02_precision_recall`.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping

import numpy as np

__all__ = ["relevance_vector"]

_UNORDERED = (set, frozenset, dict, Mapping)


def _grade(value, name: str) -> float:
    """Check one grade (a judgment value or ``default``) and return it as float."""
    if not isinstance(value, (numbers.Real, np.bool_)):
        raise TypeError(f"{name} must be a number (a relevance grade), got {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite grade, got {value}")
    if value < 0:
        raise ValueError(f"{name} must be a grade >= 0, got {value:g}")
    return value


def _is_query_list(x) -> bool:
    """A ranking of one query inside a batch: a list or a 1-D array (never an id)."""
    return isinstance(x, list) or (isinstance(x, np.ndarray) and x.ndim == 1)


def _ids(ranking, name: str) -> list:
    """Return one query's ranking as a list of hashable ids, best first."""
    if isinstance(ranking, (str, bytes)):
        raise TypeError(
            f"{name} must be a sequence of item ids, got the string {ranking!r}; "
            f"write list({ranking!r}) if each character is an item"
        )
    if isinstance(ranking, _UNORDERED):
        raise TypeError(
            f"{name} must be an ordered sequence of item ids (best first), "
            f"got a {type(ranking).__name__}, which has no order"
        )
    if isinstance(ranking, np.ndarray) and ranking.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of item ids, got {ranking.ndim}-D")
    try:
        items = list(ranking)
    except TypeError:
        raise TypeError(
            f"{name} must be a sequence of item ids, got {type(ranking).__name__}"
        ) from None
    if not items:
        raise ValueError(f"{name} is empty: a ranking needs at least one item")
    for i, item in enumerate(items):
        if not isinstance(item, Hashable):
            raise TypeError(
                f"{name}[{i}] is a {type(item).__name__}, which cannot be an item id "
                "(ids must be hashable); to pass many queries give a list of rankings "
                "with a list of judgments"
            )
    return items


def _check_unique(items: list, name: str) -> None:
    """Raise ValueError naming every id that appears more than once, with its positions."""
    positions: dict = {}
    for pos, item in enumerate(items, start=1):
        positions.setdefault(item, []).append(pos)
    repeated = [(item, pos) for item, pos in positions.items() if len(pos) > 1]
    if repeated:
        where = "; ".join(
            f"{item!r} at positions {', '.join(map(str, pos))}" for item, pos in repeated
        )
        raise ValueError(
            f"{name} contains duplicate ids (positions count from 1): {where}. "
            "A ranked list shows each item once; remove the repeats first, e.g. "
            "list(dict.fromkeys(ranking)) keeps each id's first position"
        )


def _lookup(judgments, name: str) -> dict:
    """Return the judgments of one query as a dict id -> grade (float)."""
    if isinstance(judgments, (str, bytes)):
        raise TypeError(
            f"{name} must be a collection of relevant ids or a dict id -> grade, "
            f"got the string {judgments!r}; write {{{judgments!r}}} for a single id"
        )
    if isinstance(judgments, Mapping):
        grades = {}
        for item, value in judgments.items():
            grades[item] = _grade(value, f"{name}[{item!r}]")
        return grades
    if isinstance(judgments, np.ndarray) and judgments.ndim != 1:
        raise ValueError(f"{name} must be a 1-D collection of ids, got {judgments.ndim}-D")
    try:
        items = list(judgments)
    except TypeError:
        raise TypeError(
            f"{name} must be a set, list or tuple of relevant ids or a dict id -> grade, "
            f"got {type(judgments).__name__}"
        ) from None
    for i, item in enumerate(items):
        if not isinstance(item, Hashable):
            raise TypeError(
                f"{name} holds a {type(item).__name__} (entry {i}), which cannot be an "
                "item id; for many queries pass the rankings as a list of lists"
            )
    return dict.fromkeys(items, 1.0)


def _one(ranking, judgments, default: float, rname: str, jname: str) -> np.ndarray:
    items = _ids(ranking, rname)
    _check_unique(items, rname)
    grades = _lookup(judgments, jname)
    return np.array([grades.get(item, default) for item in items], dtype=np.float64)


def relevance_vector(ranking, judgments, *, default=0):
    r"""Grades of the ranked items, best first, from item ids and judgments.

    Parameters
    ----------
    ranking : sequence of hashable ids, or list of such sequences
        The items the system returned, best-ranked first: a list, tuple or
        1-D array of ids (strings, ints, tuples, ... anything hashable). Each
        id may appear once. A list of lists (or of 1-D arrays, or a 2-D array)
        is many queries, one ranking each; tuples inside a list are taken as
        ids, not as rankings. A bare string such as ``"abc"`` is refused: pass
        ``list("abc")`` if each character is an item.
    judgments : set, list, tuple or dict, or list of these (one per query)
        Which items are relevant. A set, list, tuple or 1-D array of ids gives
        each listed id the grade 1 (binary relevance); a dict ``{id: grade}``
        gives graded relevance (grades finite and ``>= 0``). Ids that are
        judged but not ranked are ignored here; count them with
        ``n_relevant`` in :func:`rankeval.recall_at_k`. With many queries,
        a list or tuple holding one of these per query.
    default : float, default=0
        Grade of a ranked id that the judgments do not mention. 0 ("not
        relevant") is the usual convention, the one trec_eval and the sources
        use for unjudged documents.

    Returns
    -------
    ndarray of shape (n_items,), dtype float64, or list of such arrays
        The grade of each ranked item, in ranked order; every value is a grade
        from ``judgments`` or ``default``. For many queries, a list with one
        array per query (lengths may differ), which every metric of
        :mod:`rankeval` accepts as a ragged batch.

    Raises
    ------
    ValueError
        If a ranking repeats an id (the message names each repeated id and its
        positions, counted from 1), is empty, if a grade is negative, NaN or
        infinite, or if the numbers of rankings and judgments differ.
    TypeError
        If a ranking is a string or an unordered set/dict, if an id is not
        hashable, or if a grade is not a number.

    Notes
    -----
    For a ranking :math:`d_1, \dots, d_n` and judgments :math:`J` (a map from
    ids to grades),

    .. math:: g_i = \begin{cases} J(d_i) & \text{if } d_i \in J \\
              \text{default} & \text{otherwise} \end{cases}
              \qquad i = 1, \dots, n.

    A set of relevant ids :math:`R` is the map :math:`J(d) = 1` for
    :math:`d \in R`. Ids are compared with Python equality, so ``1``, ``1.0``
    and ``True`` are the same id.

    A repeated id is refused rather than counted twice. Counting it twice
    would inflate hits@k and precision@k (the list ``[g, g]`` with ``g``
    relevant would score P@2 = 1 though it shows one relevant item) and would
    distort recall; which copy to keep is the caller's decision, not a
    metric's.

    Chapter: :doc:`/chapters/02_precision_recall`.

    References
    ----------
    .. [1] C. Buckley and the NIST TREC team, *trec_eval*, the TREC evaluation
       program (qrels: judged ids and grades per query; unjudged retrieved
       documents count as not relevant), https://github.com/usnistgov/trec_eval.
    .. [2] C. D. Manning, P. Raghavan and H. Schütze, *Introduction to
       Information Retrieval*, ch. 8, Cambridge University Press, 2008.

    Examples
    --------
    Items a to e ranked in order, b and e relevant (the item-list notebook):

    >>> from rankeval import relevance_vector, precision_at_k, recall_at_k
    >>> r = relevance_vector(["a", "b", "c", "d", "e"], {"b", "e"})
    >>> r
    array([0., 1., 0., 0., 1.])
    >>> precision_at_k(r, k=3) == 1 / 3, recall_at_k(r, k=3)
    (True, 0.5)

    Graded judgments, and an unjudged item given the default grade:

    >>> relevance_vector(["x", "y", "z"], {"x": 2, "z": 3})
    array([2., 0., 3.])

    Many queries, one judgment set each; the result is a ragged batch:

    >>> batch = relevance_vector([["c", "b", "a"], ["f", "b"]], [{"b"}, {"b", "f"}])
    >>> batch
    [array([0., 1., 0.]), array([1., 1.])]
    >>> precision_at_k(batch, k=2)
    array([0.5, 1. ])

    A ranking that shows an item twice (method B of the item-list notebook) is
    refused:

    >>> shown_twice = ["b", "a", "g", "c", "g", "f", "e"]
    >>> relevance_vector(shown_twice, {"b", "f"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ranking contains duplicate ids (positions count from 1):
    'g' at positions 3, 5. ...
    """
    default = _grade(default, "default")
    if isinstance(ranking, np.ndarray) and ranking.ndim == 2:
        ranking = list(ranking)
    many = (
        isinstance(ranking, (list, tuple))
        and len(ranking) > 0
        and all(_is_query_list(q) for q in ranking)
    )
    if not many:
        return _one(ranking, judgments, default, "ranking", "judgments")
    if isinstance(judgments, (str, bytes)) or not isinstance(judgments, (list, tuple)):
        raise TypeError(
            f"judgments must be a list with one entry per query ({len(ranking)}) when "
            f"ranking holds many queries, got {type(judgments).__name__}; to reuse one "
            f"judgment set for every query write [judgments] * {len(ranking)}"
        )
    if len(judgments) != len(ranking):
        raise ValueError(
            f"judgments holds {len(judgments)} entries but ranking holds "
            f"{len(ranking)} queries; give one judgment set per query"
        )
    return [
        _one(r, j, default, f"ranking[{q}]", f"judgments[{q}]")
        for q, (r, j) in enumerate(zip(ranking, judgments, strict=True))
    ]
