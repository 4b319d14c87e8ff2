"""Many systems at once: the randomised Tukey HSD test over every pair, and per-query wins
and losses against a baseline.

Both read the per-query scores of each system as :func:`rankeval.compare` does (a dict
name -> the table :func:`rankeval.evaluate` returns, or a Series per system) and pair the
systems by query id; a query that one system lacks is an error, never a silent drop.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd


def _column(name, scores, measure) -> pd.Series:
    """One system's per-query scores as a Series (the ``measure`` column of a table)."""
    if isinstance(scores, pd.DataFrame):
        if measure is None:
            if scores.shape[1] != 1:
                raise ValueError(f"system {name!r} has columns {list(scores.columns)}: "
                                 "say which with measure=")
            scores = scores.iloc[:, 0]
        elif measure not in scores.columns:
            raise ValueError(f"system {name!r} has no column {measure!r}; it has "
                             f"{list(scores.columns)}")
        else:
            scores = scores[measure]
    if not isinstance(scores, pd.Series):
        raise TypeError(f"system {name!r}: per-query scores must be a Series or a "
                        f"frame indexed by query id, got {type(scores).__name__}")
    return scores


def _matrix(systems, measure) -> pd.DataFrame:
    """Per-query scores as a frame: one row per query, one column per system."""
    if isinstance(systems, pd.DataFrame) and measure is None:
        frame = systems
    else:
        if not isinstance(systems, Mapping):
            raise TypeError("systems must be a dict name -> per-query scores (the table "
                            "evaluate returns, or a Series), or a frame queries x systems, "
                            f"got {type(systems).__name__}")
        columns = {str(name): _column(name, scores, measure)
                   for name, scores in systems.items()}
        if not columns:
            raise ValueError("no systems given")
        queries = [set(s.index) for s in columns.values()]
        union = set().union(*queries)
        for name, s in columns.items():
            missing = union - set(s.index)
            if missing:
                shown = ", ".join(map(repr, sorted(missing, key=str)[:5]))
                raise ValueError(f"system {name!r} has no score for {len(missing)} quer"
                                 f"{'y' if len(missing) == 1 else 'ies'} the others have "
                                 f"({shown}); evaluate every system on the same queries "
                                 "(missing='zero' counts an absent query as 0)")
        frame = pd.DataFrame(columns)
    values = frame.to_numpy(dtype=np.float64)
    if frame.shape[1] < 2:
        raise ValueError(f"comparing systems needs at least two, got {frame.shape[1]}")
    if frame.shape[0] < 2:
        raise ValueError(f"comparing systems needs at least two queries, got {frame.shape[0]}")
    if not np.isfinite(values).all():
        raise ValueError("per-query scores must be finite (no NaN): a query a system has "
                         "no value for is an error to fix, not a value to drop")
    return frame.astype(np.float64)


def tukey_hsd(systems, measure: str | None = None, *, n_permutations: int = 10_000,
              seed: int | None = 0, alpha: float = 0.05) -> pd.DataFrame:
    r"""The randomised Tukey HSD test: every pair of systems, one family, one null.

    Parameters
    ----------
    systems : dict of {str: DataFrame or Series}, or DataFrame
        Each system's per-query scores, paired by query id (see :func:`rankeval.compare`);
        or one frame, a row per query and a column per system.
    measure : str, optional
        The column to compare when the systems are :func:`rankeval.evaluate` tables with
        several columns.
    n_permutations : int, default=10000
        Random reassignments of the scores to the systems within each query.
    seed : int or None, default=0
        Seed of the permutations (a reproducible table).
    alpha : float, default=0.05
        Level of the ``significant`` column.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``system``, ``other``, ``mean``, ``other_mean``, ``difference``,
        ``p_value``, ``p_value_se`` (the Monte Carlo standard error of the p-value) and
        ``significant``.

    Raises
    ------
    ValueError
        Fewer than two systems or queries, a query one system lacks, a NaN score.

    Notes
    -----
    Under the null hypothesis that the systems are interchangeable, the :math:`m` scores of
    a query may be given to the systems in any order. For each of :math:`B` random
    reassignments (one permutation per query), record the range of the system means,
    :math:`\max_i \bar x_i - \min_i \bar x_i`. The p-value of pair :math:`(i, j)` is the
    share of reassignments whose range reaches :math:`|\bar x_i - \bar x_j|` (counting the
    observed assignment as one of them, so it is never 0). One null distribution for every
    pair controls the family-wise error rate without a further correction (Carterette 2012;
    Sakai 2014).

    References
    ----------
    .. [1] B. Carterette, "Multiple testing in statistical analysis of systems-based
       information retrieval experiments", ACM TOIS 30(1), 2012.
    .. [2] T. Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1),
       2014.

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.stats.multiple import tukey_hsd
    >>> scores = pd.DataFrame({"a": [0.9, 0.8, 0.7, 0.9], "b": [0.5, 0.4, 0.6, 0.5],
    ...                        "c": [0.6, 0.5, 0.6, 0.4]})
    >>> table = tukey_hsd(scores, n_permutations=2000)
    >>> table[["system", "other", "difference"]].round(3).values.tolist()
    [['a', 'b', 0.325], ['a', 'c', 0.3], ['b', 'c', -0.025]]
    """
    frame = _matrix(systems, measure)
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer)) \
            or n_permutations < 100:
        raise ValueError(f"n_permutations must be an integer >= 100, got {n_permutations!r}")
    values = frame.to_numpy()
    n_queries, m = values.shape
    rng = np.random.default_rng(seed)
    ranges = np.empty(n_permutations, dtype=np.float64)
    # one permutation of the m scores per query, drawn as argsorts of uniform keys
    # (ties among continuous keys have probability 0; stable for the record)
    for b in range(n_permutations):
        order = np.argsort(rng.random((n_queries, m)), axis=1, kind="stable")
        means = np.take_along_axis(values, order, axis=1).mean(axis=0)
        ranges[b] = means.max() - means.min()
    means = values.mean(axis=0)
    rows = []
    names = list(frame.columns)
    for i in range(m):
        for j in range(i + 1, m):
            diff = means[i] - means[j]
            hits = np.count_nonzero(ranges >= abs(diff) - 1e-12)
            p = (hits + 1) / (n_permutations + 1)
            rows.append({"system": names[i], "other": names[j], "mean": means[i],
                         "other_mean": means[j], "difference": diff, "p_value": p,
                         "p_value_se": float(np.sqrt(p * (1 - p) / n_permutations)),
                         "significant": bool(p <= alpha)})
    return pd.DataFrame(rows)


def wins_losses(systems, baseline: str, measure: str | None = None, *,
                tolerance: float = 0.0) -> pd.DataFrame:
    """Per-query wins, losses and ties of every system against a baseline.

    Parameters
    ----------
    systems : dict of {str: DataFrame or Series}, or DataFrame
        As for :func:`rankeval.tukey_hsd`.
    baseline : str
        The system the others are counted against.
    measure : str, optional
        The column, when the tables have several.
    tolerance : float, default=0.0
        A difference of at most ``tolerance`` in absolute value is a tie.

    Returns
    -------
    pandas.DataFrame
        One row per other system: ``system``, ``wins`` (queries where it scores higher than
        the baseline by more than ``tolerance``), ``losses``, ``ties``, ``queries``.

    Notes
    -----
    The counts PyTerrier's ``Experiment(baseline=...)`` reports as ``+`` and ``-``. For a
    measure where lower is better (mean rank), a "win" here is a higher value: swap the
    reading, or negate the scores.

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.stats.multiple import wins_losses
    >>> scores = pd.DataFrame({"bm25": [0.5, 0.2, 0.7], "dense": [0.6, 0.2, 0.4]})
    >>> wins_losses(scores, "bm25").values.tolist()
    [['dense', 1, 1, 1, 3]]
    """
    frame = _matrix(systems, measure)
    if baseline not in frame.columns:
        raise ValueError(f"baseline {baseline!r} is not among the systems "
                         f"{list(frame.columns)}")
    if not (np.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"tolerance must be a finite number >= 0, got {tolerance!r}")
    base = frame[baseline].to_numpy()
    rows = []
    for name in frame.columns:
        if name == baseline:
            continue
        diff = frame[name].to_numpy() - base
        wins = int(np.count_nonzero(diff > tolerance))
        losses = int(np.count_nonzero(diff < -tolerance))
        rows.append({"system": name, "wins": wins, "losses": losses,
                     "ties": len(diff) - wins - losses, "queries": len(diff)})
    return pd.DataFrame(rows)


def across_runs(systems, measure: str | None = None, *, paired: bool = True) -> dict:
    r"""Systems evaluated several times (folds, seeds): the spread of their means, and
    paired tests over the repetitions.

    Parameters
    ----------
    systems : dict of {str: list of DataFrame or Series}
        For each system, one table of per-query scores per repetition (the tables
        :func:`rankeval.evaluate` returns), in the same order for every system: fold
        :math:`i` (or seed :math:`i`) of one system is paired with fold :math:`i` of the
        others.
    measure : str, optional
        The column, when the tables have several.
    paired : bool, default=True
        Test every pair of systems over the repetitions (a paired t-test of the
        per-repetition means). With ``False`` only the summary is made.

    Returns
    -------
    dict
        ``"summary"``: a frame, one row per system, with ``mean`` (the mean of the
        per-repetition means), ``std`` (their sample standard deviation), ``se``,
        ``min``, ``max`` and ``runs``; ``"pairs"``: a frame with ``system``, ``other``,
        ``difference``, ``statistic`` and ``p_value`` (SciPy's ``ttest_rel``), or
        ``None``.

    Raises
    ------
    ValueError
        Systems with different numbers of repetitions, fewer than two repetitions for the
        tests, a repetition with a query missing (see :func:`rankeval.tukey_hsd`).

    Notes
    -----
    The unit of the test is the repetition, not the query: a difference across seeds
    says whether the gap survives retraining, which a test over the queries of one seed
    does not (ranx issue 60). The repetitions' means are averaged with equal weight.

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.stats.multiple import across_runs
    >>> a = [pd.Series([0.5, 0.7]), pd.Series([0.6, 0.6]), pd.Series([0.4, 0.8])]
    >>> b = [pd.Series([0.4, 0.6]), pd.Series([0.5, 0.5]), pd.Series([0.4, 0.6])]
    >>> out = across_runs({"a": a, "b": b})
    >>> out["summary"]["mean"].round(4).tolist()
    [0.6, 0.5]
    """
    from scipy.stats import ttest_rel

    if not isinstance(systems, Mapping) or len(systems) < 1:
        raise TypeError("systems must be a dict name -> list of per-query tables")
    counts = {name: len(runs) for name, runs in systems.items()}
    if len(set(counts.values())) != 1:
        raise ValueError(f"every system needs the same number of repetitions, got {counts}")
    n = next(iter(counts.values()))
    means = {}
    for name, runs in systems.items():
        values = []
        for i, scores in enumerate(runs):
            one = _column(f"{name}, repetition {i}", scores, measure).to_numpy(np.float64)
            if one.size == 0 or not np.isfinite(one).all():
                raise ValueError(f"system {name!r}, repetition {i}: per-query scores must be "
                                 "finite and not empty")
            values.append(float(one.mean()))
        means[str(name)] = np.array(values)
    rows = {name: {"mean": float(v.mean()), "std": float(v.std(ddof=1)) if n > 1 else np.nan,
                   "se": float(v.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan,
                   "min": float(v.min()), "max": float(v.max()), "runs": n}
            for name, v in means.items()}
    summary = pd.DataFrame.from_dict(rows, orient="index")
    pairs = None
    if paired and len(means) > 1:
        if n < 2:
            raise ValueError("a paired test over repetitions needs at least two of them")
        names = list(means)
        out = []
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                x, y = means[names[i]], means[names[j]]
                test = ttest_rel(x, y)
                out.append({"system": names[i], "other": names[j],
                            "difference": float((x - y).mean()),
                            "statistic": float(test.statistic), "p_value": float(test.pvalue)})
        pairs = pd.DataFrame(out)
    return {"summary": summary, "pairs": pairs}


__all__ = ["tukey_hsd", "wins_losses", "across_runs"]
