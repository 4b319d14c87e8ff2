"""Expected reciprocal rank (ERR); MERR is its mean over queries.

Chapter: :doc:`/chapters/09_err`.
"""

from __future__ import annotations

import math

import numpy as np

from .block import RankedBlock
from .declaration import Declaration, Param, check_scale
from .portable import each, exp2, row_sum
from .validation import as_batch, check_k, check_probability, check_real, finish

__all__ = ["err"]

_TRANSFORMS = ("exponential", "sigmoid", "probability")


def _stop_probabilities(grades, transform, max_grade, alpha, beta):
    """Map grades to the probability R that an item satisfies the user."""
    if transform not in _TRANSFORMS:
        raise ValueError(
            f"transform must be one of {', '.join(map(repr, _TRANSFORMS))}, got {transform!r}"
        )
    if transform != "exponential" and max_grade is not None:
        raise ValueError(
            f"max_grade is used only by transform='exponential', not by {transform!r}; "
            "leave it as None"
        )
    if transform == "exponential":
        if max_grade is None:
            raise ValueError(
                "max_grade is required with transform='exponential': pass the highest "
                "grade of the judgment scale (e.g. max_grade=3 for grades 0..3)"
            )
        g_max = check_real(max_grade, "max_grade")
        if g_max <= 0:
            raise ValueError(f"max_grade must be > 0, got {g_max:g}")
        if np.any(grades > g_max):
            raise ValueError(
                f"relevance contains the grade {grades.max():g}, above max_grade={g_max:g}"
            )
        # (2^g - 1) / 2^g_max, written so that large grades cannot overflow
        # (the C library's exp2, not NumPy's AVX-512 power: the same on every CPU)
        return exp2(grades - g_max) - math.exp2(-g_max)
    if transform == "sigmoid":
        a = check_real(alpha, "alpha")
        if a <= 0:
            raise ValueError(f"alpha must be > 0 (the steepness of the sigmoid), got {a:g}")
        b = check_real(beta, "beta")
        return 1.0 / (1.0 + each(math.exp, -a * (grades - b), np.exp))
    if np.any(grades > 1):
        raise ValueError(
            f"relevance contains {grades.max():g}, but transform='probability' needs "
            "stopping probabilities in [0, 1]; for integer grades use "
            "transform='exponential' with max_grade"
        )
    return grades


def err(
    relevance,
    k=None,
    *,
    transform="exponential",
    max_grade=None,
    alpha=1.0,
    beta=0.0,
    p=1.0,
):
    r"""Expected reciprocal rank: the expected 1/(rank where a cascade user stops).

    The user of the cascade model reads the list from the top; the item at rank
    :math:`i` satisfies them with probability :math:`R_i` and they stop there,
    otherwise they go on to the next item. ERR is the expected reciprocal of the
    rank at which they stop, counting 0 for a user who is never satisfied.
    MERR is the mean of the returned per-query values.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Cut-off (ERR@k); ``None`` means the whole list. Positions past the end
        of a list hold no item and add nothing.
    transform : {"exponential", "sigmoid", "probability"}, default="exponential"
        How a grade :math:`g` becomes the stopping probability :math:`R`:

        - ``"exponential"`` (Chapelle et al. 2009 and *Ranking Evaluation*):
          :math:`R = (2^g - 1) / 2^{g_{\max}}`, with ``max_grade`` required;
        - ``"sigmoid"``: :math:`R = 1 / (1 + e^{-\alpha (g - \beta)})`;
        - ``"probability"``: the grades already are the probabilities, in [0, 1].
    max_grade : float, optional
        :math:`g_{\max}`, the top of the judgment scale (3 for grades 0..3).
        Required by, and only allowed with, ``transform="exponential"``; it is
        never guessed from the data, because the same grades would then give
        different values on different query sets. A grade above it is an error.
    alpha : float, default=1.0
        Steepness of the sigmoid (> 0); used only by ``transform="sigmoid"``.
    beta : float, default=0.0
        Midpoint of the sigmoid: the grade mapped to :math:`R = 1/2`; used only
        by ``transform="sigmoid"``. The sigmoid never reaches 0, so with the
        default ``beta=0`` a non-relevant item (grade 0) still stops half of the
        users: set ``beta`` between the grades meant to satisfy and the others.
    p : float, default=1.0
        The continuation probability :math:`\gamma \in (0, 1]` (``p``, as in
        :func:`rankeval.rbp`): the probability that a user who was *not*
        satisfied by an item goes on to the next one (the cascade with
        abandonment described in the *Comprehensive Guide*). ``1`` is the
        standard ERR of Chapelle et al.; ``< 1`` gives a different, smaller
        metric.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        ERR in [0, 1]; 0 for a query none of whose items can satisfy the user
        (all grades 0 under ``"exponential"`` or ``"probability"``).

    Notes
    -----
    With :math:`R_i` the stopping probability of the item at rank :math:`i`,

    .. math:: \mathrm{ERR@}k = \sum_{i=1}^{k} \frac{1}{i}\, R_i
       \prod_{j=1}^{i-1} \gamma\,(1 - R_j),

    where the product is the probability of reaching rank :math:`i`
    unsatisfied and :math:`\gamma` is ``p`` (1 by default).
    The standard trec_eval does not compute ERR; the TREC Web track script
    ``gdeval`` reports ERR@k with the exponential map, :math:`\gamma = 1` and
    the maximum grade given by its ``-j`` option; that is the convention used
    here and in the worked example of *Ranking Evaluation*.

    Chapter: :doc:`/chapters/09_err`.

    References
    ----------
    .. [1] O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected
       reciprocal rank for graded relevance", *Proc. CIKM*, pp. 621-630, 2009.

    Examples
    --------
    *Ranking Evaluation*'s search for smartphone reviews, grades 3, 2, 3, 1, 0 on
    a 0..3 scale: :math:`R = 7/8, 3/8, 7/8, 1/8, 0`.

    >>> from rankeval import err
    >>> round(err([3, 2, 3, 1, 0], max_grade=3), 4)
    0.9215
    >>> err([3, 2, 3, 1, 0], max_grade=3) == 45295 / 49152
    True

    That source prints 0.936, from a slip in the products (see the chapter).
    With binary stopping probabilities ERR is the reciprocal rank:

    >>> err([[0, 0, 1, 0], [0, 1, 1, 0]], transform="probability")
    array([0.33333333, 0.5       ])
    """
    batch = as_batch(relevance)
    k = check_k(k)
    gamma = check_probability(p, "p", high_open=False)
    grades = batch.grades[:, :k]
    mask = batch.mask[:, :k]
    # Padding is not "grade 0" here: the sigmoid maps 0 to a positive R.
    stop = np.where(mask, _stop_probabilities(grades, transform, max_grade, alpha, beta), 0.0)
    return finish(_err_kernel(stop, gamma), batch)


def _err_kernel(stop, p=1.0):
    """Kernel of ERR on a validated batch: ``stop`` (n, k) stopping probabilities of
    the top k (0 in padding), ``p`` the persistence."""
    go_on = p * (1.0 - stop)
    reach = np.ones_like(stop)
    reach[:, 1:] = np.cumprod(go_on[:, :-1], axis=1)
    return row_sum(stop * reach / np.arange(1, stop.shape[1] + 1))  # in rank order


# --- declarations: the measures of rankeval.evaluate this module computes ------------------


def _score_err(ranked: RankedBlock, k, max_grade=4):
    top = check_scale(ranked, k, max_grade, "ERR")
    return _err_kernel(exp2(top - max_grade) - math.exp2(-max_grade), p=1.0)


DECLARATIONS = (
    Declaration("ERR", "expected reciprocal rank, gains (2^g - 1) / 2^max_grade", _score_err,
                err, params=(Param("max_grade", "positive", 4,
                                   "top of the grade scale (default 4, gdeval's)"),),
                aliases=("MERR",)),
)  # fmt: skip
