"""Rank-biased precision (RBP).

Chapter: :doc:`/chapters/10_rbp`.
"""

from __future__ import annotations

import numpy as np

from .block import RankedBlock
from .declaration import REL, Declaration, Param, check_scale, relevant
from .portable import each, row_sum
from .validation import as_batch, check_k, check_probability, finish

__all__ = ["rbp"]


def rbp(relevance, k=None, *, p=0.8, return_residual=False, graded=False):
    r"""Rank-biased precision: the expected gain per item a patient user reads.

    The user always reads the first item and, after each item, reads the next
    one with probability ``p`` (the *persistence*), or stops with probability
    ``1 - p``. RBP is the expected total gain they collect divided by the
    expected number of items they read, ``1 / (1 - p)``.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Gains of the ranked items, best-ranked first, each in [0, 1]: 0/1 for
        binary judgments, or a graded judgment mapped into [0, 1] by the caller,
        for instance ``grades / max_grade``. A 1-D input is one query; a 2-D
        array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Depth of evaluation; ``None`` means the whole list. Positions past the
        end of a list hold no item and add nothing.
    p : float, default=0.8
        Persistence, in the open interval (0, 1). Moffat and Zobel discuss 0.5
        (impatient), 0.8 and 0.95 (patient); the expected number of items read
        is ``1 / (1 - p)``: 2, 5 and 20.
    return_residual : bool, default=False
        Also return the residual: the most that the items *not* scored could
        still add, if every one of them were fully relevant. The items scored
        are the first ``d = min(k, n_items)``; everything below depth ``d``
        (cut off by ``k``, unjudged or not retrieved) is assumed unknown, so
        the residual is ``p ** d`` and the true RBP of the full ranking lies in
        ``[rbp, rbp + residual]``. If the list is known to be complete and
        judged, the true residual is 0.
    graded : bool, default=False
        ``True``: ``relevance`` holds grades, each its own gain, not bounded
        by 1 (a negative grade, or NaN for an unjudged item, gains 0): the
        RBP that ir_measures names ``RBP`` (without ``rel``), computed by its
        trectools provider. Its values lie in [0, top grade). In
        :func:`rankeval.evaluate`: ``RBP(graded=True)``.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        RBP in [0, 1); 0 for a query with no relevant item. A list of ``n``
        fully relevant items scores ``1 - p ** n``, which tends to 1 only as
        the list grows without end.
    (rbp, residual) : tuple
        When ``return_residual=True``: both, each a float for one query or a
        1-D array for many; the residual lies in (0, 1).

    Notes
    -----
    With gain :math:`r_i \in [0, 1]` at rank :math:`i` and depth
    :math:`d = \min(k, n)`:

    .. math:: \mathrm{RBP} = (1 - p) \sum_{i=1}^{d} r_i\, p^{i-1},
       \qquad \text{residual} = (1 - p) \sum_{i > d} p^{i-1} = p^{d}.

    Moffat's ``rbp_eval`` computes it with the persistence given by ``-p`` and
    reports the residual too. trec_eval 10 has ``rbp`` and ``rbp_resid``
    (default :math:`p = 0.9`), which first divide each query's grades by that
    query's top grade; ``rankeval.trec_rbp`` reproduces them, while this
    function takes gains already in [0, 1] and leaves the scaling to the caller.

    *Gains: four readings of one name.* The measure ``RBP`` of
    :func:`rankeval.evaluate` is binary: :math:`r_i = 1` when the grade is at
    least the threshold (``rel``, by default the conventions' ``threshold``,
    1), as in Moffat and Zobel's definition, so that RBP stays in [0, 1) and
    reads as the rate at which a user meets relevant items. ir_measures'
    ``RBP(rel=1)`` (its cwl_eval provider) is this one. ir_measures' ``RBP``
    *without* ``rel`` is another measure: the gain of an item is its grade
    itself (trectools' ``get_rbp`` with ``binary_topical_relevance=False``),
    so a list of grade-3 items approaches 3. rankeval computes it as
    ``RBP(graded=True)``, or as plain ``RBP`` under the conventions
    ``rbp_gain="grade"`` (the preset ``"ir_measures"``). ``RBP(max_grade=G)``
    divides each grade by ``G`` (in [0, 1) again), and trec_eval's ``rbp``
    (:func:`rankeval.trec_rbp`) by the query's top grade. Two differences
    remain between ``RBP(graded=True)`` and trectools: trectools averages the
    weights :math:`(1-p)p^{i-1}` over documents with tied scores, while
    rankeval orders tied documents by its convention (``ties``); and
    trectools gives no value for a query none of whose ranked documents is
    relevant, where rankeval gives 0. ir_measures 0.4 leaves its trectools
    provider out of its default pipeline, so ``ir_measures.calc_aggregate``
    refuses ``RBP`` without ``rel``; ``ir_measures.trectools`` computes it.

    Chapter: :doc:`/chapters/10_rbp`.

    References
    ----------
    .. [1] A. Moffat and J. Zobel, "Rank-biased precision for measurement of
       retrieval effectiveness", *ACM Transactions on Information Systems*,
       27(1), article 2, 2008.

    Examples
    --------
    The *Comprehensive Guide*'s seven documents A..G, with A, C, G among the top
    five and F sixth: relevant at ranks 1, 3, 5, 6.

    >>> from rankeval import rbp
    >>> ranking = [1, 0, 1, 0, 1, 1, 0]
    >>> round(rbp(ranking, p=0.8), 6)  # 0.2 * (1 + 0.8**2 + 0.8**4 + 0.8**5)
    0.475456
    >>> value, residual = rbp(ranking, k=5, p=0.5, return_residual=True)
    >>> value, residual
    (0.65625, 0.03125)

    Graded judgments are scaled into [0, 1] first:

    >>> import numpy as np
    >>> gains = np.array([3, 2, 3, 1, 0]) / 3
    >>> round(rbp(gains, p=0.5), 6)  # 0.5 * (1 + 1/3 + 1/4 + 1/24)
    0.8125
    """
    batch = as_batch(relevance)
    k = check_k(k)
    p = check_probability(p, "p")
    if not isinstance(return_residual, (bool, np.bool_)):
        raise TypeError(f"return_residual must be True or False, got {return_residual!r}")
    if not isinstance(graded, (bool, np.bool_)):
        raise TypeError(f"graded must be True or False, got {graded!r}")
    if graded:
        gains = np.where(batch.grades > 0, batch.grades, 0.0)  # NaN and negatives: 0
        values = finish(_rbp_kernel(gains[:, :k], p), batch)
    elif np.any(batch.grades > 1):
        raise ValueError(
            f"relevance contains the gain {batch.grades.max():g}, but RBP needs gains in "
            "[0, 1]: divide graded judgments by the top grade (e.g. grades / 3)"
        )
    else:
        values = finish(_rbp_kernel(batch.grades[:, :k], p), batch)
    if not return_residual:
        return values
    depth = batch.lengths if k is None else np.minimum(batch.lengths, k)
    return values, finish(each(lambda d: p**d, depth, lambda d: np.power(p, d)), batch)


def _rbp_kernel(gains, p):
    """Kernel of RBP on a validated batch: ``gains`` (n, k) in [0, 1] of the top k."""
    # p^i by the C library's pow (NumPy's AVX-512 power differs in the last bit), the
    # terms added in rank order: the same value for any padding, on every CPU
    weights = each(lambda i: p**i, np.arange(gains.shape[1]), lambda i: np.power(p, i))
    return row_sum(gains * ((1.0 - p) * weights))


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_rbp(ranked: RankedBlock, k, p=0.8, rel=1, max_grade=None, graded=None):
    if graded:
        gains = ranked.padded(k)  # the grade itself; unjudged and negative grades 0
    elif max_grade is None:
        gains = relevant(ranked, k, rel).astype(np.float64)
    else:
        gains = check_scale(ranked, k, max_grade, "RBP") / max_grade
    return _rbp_kernel(gains, p)


def _check_gain(params: dict, text: str) -> None:
    """At parse time: ``graded=True`` (the grade as the gain) takes neither a threshold
    nor a scale."""
    if params.get("graded"):
        named = [name for name in ("rel", "max_grade") if name in params]
        if named:
            raise ValueError(
                f"measure {text!r}: graded=True takes the grade itself as the gain, so "
                f"{' and '.join(named)} has no meaning; RBP(rel=...) is binary, "
                "RBP(max_grade=...) divides the grade by it"
            )


_score_rbp.check_params = _check_gain

DECLARATIONS = (
    Declaration("RBP", "rank-biased precision: binary (ir_measures' RBP(rel=1)), gain "
                "grade / max_grade, or graded=True, the grade (ir_measures' RBP)",
                _score_rbp, rbp,
                params=(Param("p", "probability", 0.8, "persistence", shown=True), REL,
                        Param("max_grade", "positive", None, "graded gains grade/max_grade",
                              graded=True),
                        Param("graded", "boolean", None, "the grade itself is the gain, "
                              "as in ir_measures' RBP without rel (its trectools "
                              "provider); values in [0, top grade), not [0, 1]; default: "
                              "the conventions' rbp_gain (binary)", graded=True)),
                binary=True),
)  # fmt: skip
