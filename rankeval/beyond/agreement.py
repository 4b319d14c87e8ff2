r"""Agreement between assessors, and between the system rankings their labels give.

Chapter: :doc:`/chapters/25_judging_the_judges`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.correlation import kendall_tau

__all__ = ["cohen_kappa", "fleiss_kappa", "rating_table", "krippendorff_alpha", "system_tau"]


def cohen_kappa(a, b, *, weights=None, labels=None):
    r"""Cohen's kappa between two assessors' labels of the same items.

    Parameters
    ----------
    a, b : array_like, shape (n_items,)
        The two assessors' labels, aligned by item.
    weights : {None, "linear", "quadratic"}, default=None
        Disagreement weights on the labels' positions :math:`i, j` in ``labels``:
        none (every disagreement weighs 1), :math:`|i - j|` or :math:`(i - j)^2`.
    labels : sequence, optional
        The label set in order; default: the sorted labels that occur.

    Returns
    -------
    float
        1 for perfect agreement, 0 for agreement at chance level.

    Notes
    -----
    With :math:`O` the confusion matrix of the two assessors (as shares),
    :math:`E = O\mathbf{1}\,\mathbf{1}^\top O` the matrix chance would give with the
    same marginals, and :math:`w_{ij}` the disagreement weights,

    .. math:: \kappa = 1 - \frac{\sum_{ij} w_{ij} O_{ij}}{\sum_{ij} w_{ij} E_{ij}}.

    Without weights this is :math:`(p_o - p_e)/(1 - p_e)`. It equals scikit-learn's
    ``cohen_kappa_score``. If chance already explains every agreement (the
    denominator is 0), the value is undefined and ``ValueError`` is raised.

    Chapter: :doc:`/chapters/25_judging_the_judges`.

    References
    ----------
    Cohen (1960), "A coefficient of agreement for nominal scales".

    Examples
    --------
    >>> from rankeval.beyond import cohen_kappa
    >>> round(cohen_kappa([0, 1, 1, 0, 1], [0, 1, 0, 0, 1]), 6)
    0.615385
    """
    a = np.asarray(a)
    b = np.asarray(b)
    if a.ndim != 1 or a.shape != b.shape or a.size == 0:
        raise ValueError("a and b must be non-empty 1-D arrays of one length")
    if labels is None:
        labels = np.unique(np.concatenate([a, b]))
    labels = list(labels)
    index = {lab: i for i, lab in enumerate(labels)}
    if len(index) != len(labels):
        raise ValueError("labels repeat a value")
    try:
        ia = np.array([index[x] for x in a.tolist()])
        ib = np.array([index[x] for x in b.tolist()])
    except KeyError as err:
        raise ValueError(f"label {err.args[0]!r} is not in labels") from None
    q = len(labels)
    observed = np.zeros((q, q))
    np.add.at(observed, (ia, ib), 1.0)
    observed /= observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    i, j = np.indices((q, q))
    if weights is None:
        w = (i != j).astype(float)
    elif weights == "linear":
        w = np.abs(i - j).astype(float)
    elif weights == "quadratic":
        w = ((i - j) ** 2).astype(float)
    else:
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    denominator = float((w * expected).sum())
    if denominator == 0:
        raise ValueError("kappa is undefined: chance agreement is perfect")
    return 1.0 - float((w * observed).sum()) / denominator


def rating_table(ratings, categories=None):
    """Counts per subject and category, from a subjects x raters matrix of labels.

    Parameters
    ----------
    ratings : array_like, shape (n_subjects, n_raters)
        Each row: the labels the raters gave one subject.
    categories : sequence, optional
        The categories in order (default: the sorted labels that occur).

    Returns
    -------
    pandas.DataFrame
        Shape (n_subjects, n_categories), columns the categories.

    Notes
    -----
    The input :func:`fleiss_kappa` wants (statsmodels calls it ``aggregate_raters``).

    Chapter: :doc:`/chapters/25_judging_the_judges`.

    Examples
    --------
    >>> from rankeval.beyond import rating_table
    >>> rating_table([[0, 1, 1], [2, 2, 2]]).to_numpy().tolist()
    [[1, 2, 0], [0, 0, 3]]
    """
    r = np.asarray(ratings)
    if r.ndim != 2 or r.size == 0:
        raise ValueError("ratings must be a non-empty 2-D array (subjects x raters)")
    cats = list(np.unique(r)) if categories is None else list(categories)
    if len(set(np.asarray(cats).tolist())) != len(cats):
        raise ValueError(f"categories repeat a value: {cats}; each would count its "
                         "labels again")
    extra = set(np.unique(r).tolist()) - set(np.asarray(cats).tolist())
    if extra:
        raise ValueError(f"labels {sorted(extra)} are not among the categories")
    counts = np.stack([(r == c).sum(axis=1) for c in cats], axis=1)
    return pd.DataFrame(counts, columns=cats)


def fleiss_kappa(table):
    r"""Fleiss' kappa of many raters, from a subjects x categories table of counts.

    Parameters
    ----------
    table : array_like, shape (n_subjects, n_categories)
        How many raters put each subject in each category; every subject must have
        the same number :math:`n \ge 2` of ratings (see :func:`rating_table`).

    Returns
    -------
    float

    Notes
    -----
    With :math:`n_{ij}` the count of subject :math:`i` in category :math:`j`,
    :math:`N` subjects,

    .. math:: P_i = \frac{\sum_j n_{ij}^2 - n}{n(n - 1)}, \quad
              p_j = \frac{1}{Nn}\sum_i n_{ij}, \quad
              \kappa = \frac{\bar P - \sum_j p_j^2}{1 - \sum_j p_j^2}.

    It equals statsmodels' ``fleiss_kappa(table, method="fleiss")``.

    Chapter: :doc:`/chapters/25_judging_the_judges`.

    References
    ----------
    Fleiss (1971), "Measuring nominal scale agreement among many raters".

    Examples
    --------
    >>> from rankeval.beyond import fleiss_kappa
    >>> round(fleiss_kappa([[3, 0], [0, 3], [2, 1]]), 6)
    0.55
    """
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] < 1 or t.shape[1] < 2:
        raise ValueError("table must be 2-D: subjects x (at least two) categories")
    if (t < 0).any() or not np.all(t == np.round(t)):
        raise ValueError("table must hold non-negative whole counts")
    n = t.sum(axis=1)
    if not np.all(n == n[0]) or n[0] < 2:
        raise ValueError("every subject needs the same number (>= 2) of ratings")
    n = n[0]
    p_i = ((t**2).sum(axis=1) - n) / (n * (n - 1))
    p_j = t.sum(axis=0) / t.sum()
    p_e = float((p_j**2).sum())
    if p_e == 1:
        raise ValueError("kappa is undefined: every rating is in one category")
    return (float(p_i.mean()) - p_e) / (1 - p_e)


def _missing(value) -> bool:
    return value is None or value is pd.NA or (
        isinstance(value, (float, np.floating)) and bool(np.isnan(value)))


def _nominal_codes(raw: np.ndarray) -> np.ndarray:
    """Labels of any hashable kind -> float codes 0, 1, ... (NaN where missing)."""
    if raw.ndim != 2:
        raise ValueError("data must be 2-D: raters (at least two) x units, got shape "
                         f"{raw.shape}")
    codes: dict = {}
    x = np.full(raw.shape, np.nan)
    for (r, u), value in np.ndenumerate(raw):
        if _missing(value):
            continue
        try:
            x[r, u] = codes.setdefault(value, len(codes))
        except TypeError:
            raise TypeError(f"rater {r}, unit {u}: the label {value!r} is not hashable"
                            ) from None
    return x


def krippendorff_alpha(data, *, level="nominal"):
    r"""Krippendorff's alpha of raters x units data with missing values.

    Parameters
    ----------
    data : array_like, shape (n_raters, n_units)
        The labels; ``NaN`` (or ``None``) where a rater did not label a unit. At the
        nominal level the labels may be any hashable values (strings, numbers,
        booleans), compared only for equality; the ordinal and interval levels need
        numbers.
    level : {"nominal", "ordinal", "interval"}, default="nominal"
        The level of measurement, which sets the distance :math:`\delta_{ck}` between
        two values.

    Returns
    -------
    float
        1 for perfect reliability, 0 at chance level.

    Notes
    -----
    Units with fewer than two labels are left out. The coincidence matrix counts, in
    each unit :math:`u` with :math:`m_u` labels, every ordered pair of labels by
    different raters with weight :math:`1/(m_u - 1)`:
    :math:`o_{ck} = \sum_u \#(c, k \text{ pairs in } u)/(m_u - 1)`, with marginals
    :math:`n_c = \sum_k o_{ck}` and :math:`n = \sum_c n_c`. Then

    .. math:: \alpha = 1 - (n - 1)
              \frac{\sum_{c,k} o_{ck}\, \delta_{ck}}{\sum_{c,k} n_c n_k\, \delta_{ck}}

    with :math:`\delta_{ck} = [c \ne k]` (nominal), :math:`(c - k)^2` (interval) or
    :math:`\bigl(\sum_{g=c}^{k} n_g - (n_c + n_k)/2\bigr)^2` (ordinal, over the values
    in order). It equals the ``krippendorff`` package's ``alpha`` (which wants numeric
    codes: nominal labels of any kind are coded as such here, first, and alpha depends
    only on which labels are equal, not on the codes).

    Chapter: :doc:`/chapters/25_judging_the_judges`.

    References
    ----------
    Krippendorff (2011), "Computing Krippendorff's alpha-reliability".

    Examples
    --------
    >>> import numpy as np
    >>> from rankeval.beyond import krippendorff_alpha
    >>> data = [[1, 2, 3, 3, np.nan], [1, 2, 3, 2, 1], [np.nan, 2, 3, 3, 1]]
    >>> round(krippendorff_alpha(data), 6)
    0.785714
    >>> words = [["a", "b", "c", "c", None], ["a", "b", "c", "b", "a"],
    ...          [None, "b", "c", "c", "a"]]
    >>> round(krippendorff_alpha(words), 6)
    0.785714
    """
    if level not in ("nominal", "ordinal", "interval"):
        raise ValueError(f"level must be 'nominal', 'ordinal' or 'interval', got {level!r}")
    raw = np.asarray(data)
    if raw.dtype.kind not in "biuf" and isinstance(data, (list, tuple)):
        raw = np.asarray(data, dtype=object)  # 1 and "1" stay two labels
    if raw.dtype.kind in "biuf":
        x = raw.astype(float)
    elif level == "nominal":
        x = _nominal_codes(raw)
    else:
        try:
            x = raw.astype(float)
        except (TypeError, ValueError):
            raise TypeError(f"the {level} level needs numeric labels (NaN or None for a "
                            "missing one); labels of any other kind are nominal: give "
                            "level='nominal'") from None
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError("data must be 2-D: raters (at least two) x units")
    if np.isinf(x).any():
        raise ValueError("labels must be finite (NaN marks a missing label)")
    values = np.unique(x[~np.isnan(x)])
    if values.size < 2:
        raise ValueError("alpha needs at least two distinct values")
    v = len(values)
    index = np.searchsorted(values, np.nan_to_num(x, nan=values[0]))
    present = ~np.isnan(x)
    counts = np.zeros((x.shape[1], v))  # per unit, how many labels of each value
    for r in range(x.shape[0]):
        np.add.at(counts, (np.flatnonzero(present[r]), index[r, present[r]]), 1.0)
    m = counts.sum(axis=1)
    pairable = m >= 2
    counts, m = counts[pairable], m[pairable]
    if counts.size == 0:
        raise ValueError("no unit has two labels")
    # o_ck = sum_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1)
    scaled = counts / (m - 1)[:, None]
    o = scaled.T @ counts - np.diag(scaled.sum(axis=0))
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if level == "nominal":
        delta = 1.0 - np.eye(v)
    elif level == "interval":
        delta = (values[:, None] - values[None, :]) ** 2
    else:
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        lo = np.minimum.outer(np.arange(v), np.arange(v))
        hi = np.maximum.outer(np.arange(v), np.arange(v))
        delta = (cum[hi + 1] - cum[lo] - (n_c[lo] + n_c[hi]) / 2) ** 2
    expected = np.outer(n_c, n_c) - np.diag(n_c)  # e_ck (n - 1): pairs from n values
    denominator = float((expected * delta).sum())
    if denominator == 0:
        raise ValueError("alpha is undefined: the labels have no variation")
    return float(1.0 - (n - 1) * float((o * delta).sum()) / denominator)


def system_tau(scores_a, scores_b):
    r"""Kendall's tau-b between two orderings of the same systems by their scores.

    Parameters
    ----------
    scores_a, scores_b : mapping or pandas.Series
        System name to its mean score under two sets of labels (or two measures).

    Returns
    -------
    float

    Notes
    -----
    .. math:: \tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_x)(n_0 - n_y)}}

    over the :math:`n_0 = \binom{V}{2}` pairs of :math:`V` systems; computed by
    :func:`rankeval.kendall_tau`. A correlation :math:`\tau \ge 0.9` is commonly read as
    an equivalent ranking of the systems (in the tradition of Voorhees 2000).

    Chapter: :doc:`/chapters/25_judging_the_judges`.

    References
    ----------
    Voorhees (2000), "Variations in relevance judgments and the measurement of
    retrieval effectiveness".

    Examples
    --------
    >>> from rankeval.beyond import system_tau
    >>> first = {"A": 0.3, "B": 0.2, "C": 0.1}
    >>> second = {"A": 0.3, "B": 0.1, "C": 0.2}
    >>> round(system_tau(first, second), 6)
    0.333333
    """
    a = pd.Series(scores_a, dtype=float)
    b = pd.Series(scores_b, dtype=float)
    if set(a.index) != set(b.index) or len(a) < 2:
        raise ValueError("both must score the same (at least two) systems")
    b = b.reindex(a.index)
    return float(kendall_tau(a.to_numpy(), b.to_numpy()))
