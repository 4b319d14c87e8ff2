"""Click models: simulated users built on the user models of ERR and RBP.

Chapter: :doc:`/chapters/22_online_evaluation`.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_count, check_number, check_rng, real_array

__all__ = ["click_probabilities", "simulate_clicks"]

MODELS = ("cascade", "pbm", "dbn")


def _parameters(grades, model, max_grade, persistence, continuation, examination):
    """Validated (attractiveness, satisfaction, continuation, examination) of one list."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    g = real_array(grades, "grades", ndim=1)
    if np.any(g < 0):
        raise ValueError("grades must be >= 0")
    if max_grade is None:
        max_grade = max(float(g.max()) if g.size else 0.0, 1.0)
    max_grade = check_number(max_grade, "max_grade", low=0.0, low_open=True)
    if g.size and g.max() > max_grade:
        raise ValueError(f"a grade {g.max():g} exceeds max_grade={max_grade:g}")
    # the ERR mapping of grades; Python's pow, element by element, so that the last bit
    # does not depend on which SIMD kernel NumPy's power picks on this CPU
    attract = np.array([(2.0**x - 1.0) / 2.0**max_grade for x in g.tolist()])
    n = g.size
    if model == "pbm":
        if examination is not None:
            theta = real_array(examination, "examination", ndim=1)
            if theta.size < n:
                raise ValueError(
                    f"examination has {theta.size} positions, the list has {n}")
            theta = theta[:n]
            if np.any((theta < 0) | (theta > 1)):
                raise ValueError("examination probabilities must lie in [0, 1]")
        else:
            p = check_number(persistence, "persistence", low=0.0, high=1.0, high_open=True)
            theta = np.array([p**i for i in range(n)])  # Python's pow (see above)
        return attract, np.zeros(n), None, theta
    if examination is not None:
        raise ValueError("examination= is a parameter of model='pbm' only")
    if model == "cascade":
        return attract, np.ones(n), 1.0, None
    gamma = check_number(continuation, "continuation", low=0.0, high=1.0)
    return attract, attract, gamma, None


def click_probabilities(grades, model="cascade", *, max_grade=None, persistence=0.8,
                        continuation=0.9, examination=None):
    r"""Exact probability that a simulated user clicks each position of a ranked list.

    Parameters
    ----------
    grades : array_like, shape (n_items,)
        Relevance grades (>= 0) of the items as shown, top first.
    model : {"cascade", "pbm", "dbn"}, default="cascade"
        ``"cascade"``: the user reads from the top, clicks an item with probability
        :math:`\pi(g)` and stops at the first click (the user of ERR). ``"pbm"``: the
        position-based model: the user examines position :math:`i` with probability
        :math:`e_i` (by default :math:`e_i = p^{i-1}`, the user of RBP) and clicks an
        examined item with probability :math:`\pi(g)`, independently of everything
        else. ``"dbn"``: the dynamic Bayesian network: the user reads from the top,
        clicks with probability :math:`\pi(g)`, is satisfied after a click with
        probability :math:`\pi(g)` (and then stops), and otherwise goes on to the next
        item with probability :math:`\gamma` (``continuation``).
    max_grade : float or None, default=None
        Top grade of the scale in :math:`\pi(g) = (2^g - 1)/2^{g_{\max}}`; ``None`` takes
        the largest grade of the list (at least 1). Give it explicitly when lists
        are compared: the scale must not change with the list.
    persistence : float, default=0.8
        :math:`p` of the position-based model's examination :math:`e_i = p^{i-1}`.
    continuation : float, default=0.9
        :math:`\gamma` of the DBN, in [0, 1].
    examination : array_like or None, default=None
        Explicit examination probabilities :math:`e_1, e_2, \dots` of the
        position-based model (replaces ``persistence``).

    Returns
    -------
    ndarray of shape (n_items,)
        :math:`P(c_i = 1)` for every position.

    Notes
    -----
    With :math:`\pi_i = \pi(g_i)`, the examination probability :math:`e_i` and
    :math:`P(c_i = 1) = e_i \pi_i`:

    .. math:: \text{cascade: } e_i = \prod_{j<i} (1 - \pi_j), \qquad
       \text{pbm: } e_i = p^{i-1}, \qquad
       \text{dbn: } e_1 = 1,\ e_{i+1} = e_i\, \gamma\, (1 - \pi_i^2).

    In the cascade model the user clicks at most once, and ERR is the expected
    reciprocal rank of that click: :math:`\mathrm{ERR} = \sum_i P(c_i = 1)/i`.
    The cascade model is the DBN with :math:`\gamma = 1` and certain satisfaction.

    Chapter: :doc:`/chapters/22_online_evaluation`.

    References
    ----------
    .. [1] N. Craswell, O. Zoeter, M. Taylor and B. Ramsey, "An experimental
       comparison of click position-bias models", WSDM 2008.
    .. [2] O. Chapelle and Y. Zhang, "A dynamic Bayesian network click model for
       web search ranking", WWW 2009.
    .. [3] A. Chuklin, I. Markov and M. de Rijke, *Click Models for Web Search*,
       Morgan & Claypool, 2015.

    Examples
    --------
    >>> from rankeval.online import click_probabilities
    >>> click_probabilities([2, 0, 1], "cascade", max_grade=2).round(4).tolist()
    [0.75, 0.0, 0.0625]
    >>> click_probabilities([2, 0, 1], "pbm", max_grade=2, persistence=0.5).tolist()
    [0.75, 0.0, 0.0625]
    >>> click_probabilities([1, 1], "dbn", max_grade=1, continuation=0.5).tolist()
    [0.5, 0.1875]
    """
    attract, satisfy, gamma, theta = _parameters(
        grades, model, max_grade, persistence, continuation, examination)
    if model == "pbm":
        return theta * attract
    n = attract.size
    eps = np.ones(n)
    for i in range(1, n):
        eps[i] = eps[i - 1] * gamma * (1.0 - attract[i - 1] * satisfy[i - 1])
    return eps * attract


def simulate_clicks(grades, model="cascade", *, rng, size=1, max_grade=None,
                    persistence=0.8, continuation=0.9, examination=None):
    r"""Simulate the clicks of ``size`` users on one ranked list.

    Parameters
    ----------
    grades : array_like, shape (n_items,)
        Relevance grades (>= 0) of the items as shown, top first.
    model : {"cascade", "pbm", "dbn"}, default="cascade"
        The click model; see :func:`click_probabilities`.
    rng : numpy.random.Generator
        Source of randomness (``np.random.default_rng(seed)``).
    size : int, default=1
        Number of simulated users (impressions of the list).
    max_grade, persistence, continuation, examination
        As in :func:`click_probabilities`.

    Returns
    -------
    ndarray of bool, shape (size, n_items)
        ``True`` where the user clicked.

    Notes
    -----
    Every user draws, per position, one uniform number for the click and (DBN only)
    one for satisfaction and one for continuing, so the same generator state gives
    the same clicks. The click frequencies converge to :func:`click_probabilities`:

    .. math:: \frac{1}{\text{size}} \sum_{u=1}^{\text{size}} c_{u,i}
       \;\to\; e_i \pi_i.

    Chapter: :doc:`/chapters/22_online_evaluation`.

    References
    ----------
    .. [1] N. Craswell, O. Zoeter, M. Taylor and B. Ramsey, "An experimental
       comparison of click position-bias models", WSDM 2008.
    .. [2] A. Chuklin, I. Markov and M. de Rijke, *Click Models for Web Search*,
       Morgan & Claypool, 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from rankeval.online import simulate_clicks
    >>> clicks = simulate_clicks([2, 0, 1], "cascade", rng=np.random.default_rng(0),
    ...                          size=100_000, max_grade=2)
    >>> clicks.sum(axis=1).max()  # a cascade user clicks at most once
    np.int64(1)
    >>> clicks.mean(axis=0).round(2).tolist()
    [0.75, 0.0, 0.06]
    """
    check_rng(rng)
    size = check_count(size, "size")
    attract, satisfy, gamma, theta = _parameters(
        grades, model, max_grade, persistence, continuation, examination)
    n = attract.size
    u = rng.random((size, n))
    if model == "pbm":
        return u < theta * attract
    v = rng.random((size, n)) if model == "dbn" else None
    w = rng.random((size, n)) if model == "dbn" else None
    clicks = np.zeros((size, n), dtype=bool)
    reading = np.ones(size, dtype=bool)
    for i in range(n):
        clicks[:, i] = reading & (u[:, i] < attract[i])
        if model == "cascade":
            reading &= ~clicks[:, i]
        else:
            satisfied = clicks[:, i] & (v[:, i] < satisfy[i])
            reading &= ~satisfied & (w[:, i] < gamma)
    return clicks
