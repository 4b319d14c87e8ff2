r"""How well a measure and a topic set tell systems apart: discriminative power and
swap rates.

Both take a topics x systems matrix of per-topic scores, built by :func:`topic_matrix`
from the per-query frames that :func:`rankeval.evaluate` returns.

Chapter: :doc:`/chapters/25_judging_the_judges`.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

import numpy as np
import pandas as pd

__all__ = ["topic_matrix", "discriminative_power", "swap_rate"]


def topic_matrix(per_query, measure=None):
    """A topics x systems matrix of one measure's per-topic scores.

    Parameters
    ----------
    per_query : pandas.DataFrame or mapping
        Either already the matrix (index: topics, columns: systems), or
        ``{system: frame}`` with each frame as :func:`rankeval.evaluate` returns it
        (index or column ``query_id``, one column per measure).
    measure : str, optional
        The measure's column; required with a mapping.

    Returns
    -------
    pandas.DataFrame
        Rows sorted by topic id, columns the systems in input order.

    Notes
    -----
    Every system must score the same topics (``rankeval.evaluate(...,
    missing="zero")`` gives a row to every judged topic); otherwise ``ValueError``.
    A matrix that names a topic (row) or a system (column) twice raises ``ValueError``
    too: the topic would weigh twice in every mean.

    Chapter: :doc:`/chapters/25_judging_the_judges`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.beyond import topic_matrix
    >>> a = pd.DataFrame({"query_id": ["q1", "q2"], "AP": [0.5, 0.1]})
    >>> b = pd.DataFrame({"query_id": ["q2", "q1"], "AP": [0.2, 0.4]})
    >>> topic_matrix({"A": a, "B": b}, "AP")
          A    B
    q1  0.5  0.4
    q2  0.1  0.2
    """
    if isinstance(per_query, pd.DataFrame):
        for axis, what in [(per_query.index, "topic"), (per_query.columns, "system")]:
            if axis.has_duplicates:
                raise ValueError(f"the matrix names the {what} {axis[axis.duplicated()][0]!r} "
                                 "twice; each row is one topic, each column one system")
        matrix = per_query.astype(float)
    elif isinstance(per_query, Mapping):
        if measure is None:
            raise ValueError("measure= names the column to use")
        columns, topics = {}, None
        for system, frame in per_query.items():
            if "query_id" in frame.columns:
                frame = frame.set_index("query_id")
            if frame.index.name != "query_id" or measure not in frame.columns:
                raise ValueError(f"the frame of {system!r} lacks query_id or {measure!r}")
            series = frame[measure].astype(float)
            if series.index.has_duplicates:
                raise ValueError(f"the frame of {system!r} repeats a query")
            if topics is not None and set(series.index) != topics:
                raise ValueError(f"{system!r} scores other topics than the first system")
            topics = set(series.index)
            columns[system] = series
        matrix = pd.DataFrame(columns)
    else:
        raise TypeError("per_query must be a DataFrame or a mapping system -> frame")
    matrix = matrix.sort_index(kind="stable")
    matrix.index.name = None
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        raise ValueError("need at least two topics and two systems")
    if not np.isfinite(matrix.to_numpy()).all():
        raise ValueError("scores must be finite")
    return matrix


def _t(values: np.ndarray) -> np.ndarray:
    """Paired t statistic along the last axis; sd 0 gives 0 (mean 0) or +-inf."""
    n = values.shape[-1]
    mean = values.mean(axis=-1)
    sd = values.std(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    flat = sd == 0
    t[flat] = np.where(np.abs(mean[flat]) <= 1e-15, 0.0, np.copysign(np.inf, mean[flat]))
    return t


def discriminative_power(per_topic, *, alpha=0.05, n_bootstrap=1000, seed=0):
    r"""Sakai's discriminative power: the share of system pairs a paired bootstrap test
    finds significant.

    Parameters
    ----------
    per_topic : pandas.DataFrame
        Topics x systems scores (see :func:`topic_matrix`).
    alpha : float, default=0.05
        Significance level.
    n_bootstrap : int, default=1000
        Bootstrap samples :math:`B`; one set of resampled topics serves every pair.
    seed : int or numpy.random.Generator, default=0

    Returns
    -------
    power : float
        Share of the :math:`\binom{V}{2}` pairs with ASL :math:`< \alpha`.
    pairs : pandas.DataFrame
        One row per pair, sorted by ASL (stable, pairs in column order on ties):
        ``a``, ``b``, ``delta`` (mean of a minus b) and ``asl``. ASL against pair
        index is the curve of Sakai (2006).

    Notes
    -----
    For the per-topic differences :math:`z` of a pair, shift them to mean zero,
    :math:`w = z - \bar z`, resample the topics :math:`B` times and count

    .. math:: \mathrm{ASL} = \frac{1}{B}\,\bigl|\{b : |t(w^{*b})| \ge |t(z)|\}\bigr|,
              \qquad t(x) = \frac{\bar x}{s_x/\sqrt{n}}.

    Chapter: :doc:`/chapters/25_judging_the_judges`.

    References
    ----------
    Sakai (2006), "Evaluating evaluation metrics based on the bootstrap".

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.beyond import discriminative_power
    >>> m = pd.DataFrame({"A": [0.9, 0.8, 0.7, 0.9, 0.8, 0.9, 0.7, 0.8],
    ...                   "B": [0.1, 0.2, 0.1, 0.3, 0.2, 0.1, 0.3, 0.2],
    ...                   "C": [0.2, 0.1, 0.2, 0.2, 0.3, 0.2, 0.1, 0.2]})
    >>> power, pairs = discriminative_power(m, n_bootstrap=200)
    >>> round(power, 4), pairs[["a", "b", "asl"]].values.tolist()
    (0.6667, [['A', 'C', 0.0], ['A', 'B', 0.025], ['B', 'C', 0.965]])
    """
    matrix = topic_matrix(per_topic)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) \
            or n_bootstrap < 1:
        raise ValueError("n_bootstrap must be a positive integer")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    x = matrix.to_numpy()
    n = x.shape[0]
    samples = rng.integers(0, n, size=(n_bootstrap, n))
    rows = []
    for i, j in combinations(range(x.shape[1]), 2):
        z = x[:, i] - x[:, j]
        t_obs = _t(z[None, :])[0]
        w = z - z.mean()
        t_star = _t(w[samples])
        asl = float(np.mean(np.abs(t_star) >= np.abs(t_obs)))
        rows.append({"a": matrix.columns[i], "b": matrix.columns[j],
                     "delta": float(z.mean()), "asl": asl})
    pairs = pd.DataFrame(rows).sort_values("asl", kind="stable").reset_index(drop=True)
    return float((pairs["asl"] < alpha).mean()), pairs


def swap_rate(per_topic, sizes, *, n_trials=100, bin_width=None, seed=0):
    r"""Voorhees and Buckley's swap rate: how often two disjoint topic sets of one size
    order a pair of systems differently.

    Parameters
    ----------
    per_topic : pandas.DataFrame
        Topics x systems scores (see :func:`topic_matrix`).
    sizes : sequence of int
        Topic-set sizes :math:`c`, each at most half the topics.
    n_trials : int, default=100
        Random splits per size.
    bin_width : float, optional
        If given, also bin the comparisons by the absolute difference of the two
        systems' means on the first set (bins :math:`[0, w), [w, 2w), \dots`).
    seed : int or numpy.random.Generator, default=0

    Returns
    -------
    pandas.DataFrame
        Columns ``topics``, (``bin``, the lower edge,) ``comparisons``, ``swaps`` and
        ``swap_rate``.

    Notes
    -----
    In each trial the topics are shuffled and split into two disjoint sets
    :math:`A, B` of :math:`c` topics each; for every pair of systems with mean
    differences :math:`d_A, d_B`,

    .. math:: \text{swap} = \mathbf{1}[d_A \, d_B < 0],

    and the swap rate is the share of swaps over all pairs and trials. A tie on either
    set (:math:`d = 0`) is no swap.

    Chapter: :doc:`/chapters/25_judging_the_judges`.

    References
    ----------
    Voorhees and Buckley (2002), "The effect of topic set size on retrieval experiment
    error".

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.beyond import swap_rate
    >>> m = pd.DataFrame({"A": [0.9, 0.1, 0.8, 0.2], "B": [0.1, 0.9, 0.2, 0.8]})
    >>> swap_rate(m, [2], n_trials=10)["comparisons"].tolist()
    [10]
    """
    matrix = topic_matrix(per_topic)
    x = matrix.to_numpy()
    n, v = x.shape
    sizes = list(sizes)
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"sizes repeats a size: {sizes}")
    if not sizes or any(isinstance(c, bool) or not isinstance(c, (int, np.integer))
                        or not 1 <= c <= n // 2 for c in sizes):
        raise ValueError(f"every size must be an integer in 1..{n // 2}")
    if isinstance(n_trials, bool) or not isinstance(n_trials, (int, np.integer)) \
            or n_trials < 1:
        raise ValueError("n_trials must be a positive integer")
    if bin_width is not None and not bin_width > 0:
        raise ValueError("bin_width must be positive")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    ii, jj = np.triu_indices(v, 1)
    rows = []
    for c in sizes:
        d_first, swapped = [], []
        for _ in range(n_trials):
            order = rng.permutation(n)
            mean_a = x[order[:c]].mean(axis=0)
            mean_b = x[order[c:2 * c]].mean(axis=0)
            da, db = mean_a[ii] - mean_a[jj], mean_b[ii] - mean_b[jj]
            d_first.append(np.abs(da))
            swapped.append(da * db < 0)
        d_first, swapped = np.concatenate(d_first), np.concatenate(swapped)
        if bin_width is None:
            rows.append({"topics": c, "comparisons": swapped.size,
                         "swaps": int(swapped.sum())})
        else:
            bins = np.floor(d_first / bin_width + 1e-9).astype(int)
            for b in np.unique(bins):
                mask = bins == b
                rows.append({"topics": c, "bin": b * bin_width,
                             "comparisons": int(mask.sum()),
                             "swaps": int(swapped[mask].sum())})
    table = pd.DataFrame(rows)
    table["swap_rate"] = table["swaps"] / table["comparisons"]
    return table
