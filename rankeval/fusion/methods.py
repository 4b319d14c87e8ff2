"""Run fusion and score normalisation (CombSUM and its relatives, RRF, Borda, RBC).

Each run is read once (:func:`rankeval.io.run_table`), ranked once by
:func:`rankeval.ranking.ranked_ids` (score descending, ties by document id descending,
as :func:`rankeval.evaluate` ranks), and turned into a long frame ``run, query_id,
doc_id, score, rank``; normalisation and fusion are pandas group operations on it.
The formulas are those of ranx (Bassani 2022), whose definitions follow the papers
cited in :func:`rankeval.fuse`; ``tests/test_fusion.py`` checks every method and normalisation
against ranx itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..io.canonical import run_table
from ..ranking import ranked_ids
from . import trained as _trained

#: normalisations of one run's scores for one query; ``None`` leaves them as they are
NORMALIZATIONS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")

# method -> (kind, the keyword parameters it reads); "score" methods combine (normalised)
# scores, "rank" methods only the positions
FUSION_METHODS = {
    "sum": ("score", ()),
    "max": ("score", ()),
    "min": ("score", ()),
    "med": ("score", ()),
    "anz": ("score", ()),
    "mnz": ("score", ()),
    "gmnz": ("score", ("gamma",)),
    "wsum": ("score", ("weights",)),
    "wmnz": ("score", ("weights",)),
    "rrf": ("rank", ("k",)),
    "isr": ("rank", ()),
    "log_isr": ("rank", ()),
    "bordafuse": ("rank", ()),
    "rbc": ("rank", ("phi",)),
    "posfuse": ("trained", ("training",)),
    "probfuse": ("trained", ("training", "n_segments")),
    "bayesfuse": ("trained", ("training",)),
}

# ranx's floor under a normaliser's denominator (a run whose scores are all equal)
_TINY = 1e-9


def _long_frame(runs, minimum: int = 2) -> pd.DataFrame:
    """Every run as rows ``run, query_id, doc_id, score, rank`` (rank 1 = best)."""
    if isinstance(runs, Mapping):
        runs = list(runs.values())
    if isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence):
        raise TypeError("runs must be a list (or dict name -> run) of at least two runs, "
                        f"got {type(runs).__name__}")
    if len(runs) < minimum:
        raise ValueError(f"fusion needs at least two runs, got {len(runs)}")
    frames, kinds = [], set()
    for i, run in enumerate(runs):
        table = run_table(run)
        kinds.add(str(table.schema.field("query_id").type))
        order = ranked_ids(table)
        scores = {(q, d): s for q, d, s in zip(table.column("query_id").to_pylist(),
                                               table.column("doc_id").to_pylist(),
                                               table.column("score").to_pylist(), strict=True)}
        rows = [(i, q, d, scores[q, d], r)
                for q, docs in order.items() for r, d in enumerate(docs, start=1)]
        frames.append(pd.DataFrame(rows, columns=["run", "query_id", "doc_id", "score", "rank"]))
    if len(kinds) > 1:
        raise TypeError(f"the runs' query ids are of different types ({', '.join(sorted(kinds))}); "
                        "give every run string ids or every run integer ids")
    return pd.concat(frames, ignore_index=True)


def _normalized(long: pd.DataFrame, norm: str | None) -> pd.DataFrame:
    """``long`` with its ``score`` column normalised per run and query."""
    if norm is None:
        return long
    if norm not in NORMALIZATIONS:
        raise ValueError(f"norm must be one of {', '.join(NORMALIZATIONS)} or None, got {norm!r}")
    if norm == "borda":
        return _borda_normalized(long)
    by = long.groupby(["run", "query_id"], sort=False)["score"]
    s = long["score"]
    if norm in ("min-max", "min-max-inverted"):
        low, high = by.transform("min"), by.transform("max")
        span = np.maximum(high - low, _TINY)
        value = (s - low) / span if norm == "min-max" else (high - s) / span
    elif norm == "max":
        high = by.transform("max")
        if (high <= 0).any():
            where = long.loc[high <= 0, ["run", "query_id"]].iloc[0]
            raise ValueError("norm='max' divides by the largest score, which is not positive "
                             f"for run {where['run']}, query {where['query_id']!r}; "
                             "use 'min-max' for scores that can be negative")
        value = s / high
    elif norm == "sum":
        low, total, n = by.transform("min"), by.transform("sum"), by.transform("size")
        value = (s - low) / np.maximum(total - low * n, _TINY)
    elif norm == "zmuv":
        mean, std = by.transform("mean"), by.transform(lambda x: float(np.std(x.to_numpy())))
        value = (s - mean) / np.maximum(std, _TINY)
    else:  # rank
        n = long.groupby(["run", "query_id"], sort=False)["rank"].transform("size")
        value = 1.0 - (long["rank"] - 1) / n
    return long.assign(score=value.astype(np.float64))


def _candidates(long: pd.DataFrame) -> pd.DataFrame:
    """Every (run, query, candidate) with the run's rank of it (NaN if unranked), the
    number of candidates of the query and of documents in the run's list."""
    docs = long[["query_id", "doc_id"]].drop_duplicates()
    runs = pd.DataFrame({"run": long["run"].unique()})
    grid = runs.merge(docs, how="cross")
    grid = grid.merge(long[["run", "query_id", "doc_id", "rank"]], how="left",
                      on=["run", "query_id", "doc_id"])
    grid["n_candidates"] = grid.groupby(["run", "query_id"], sort=False)["doc_id"].transform("size")
    grid["n_ranked"] = grid.groupby(["run", "query_id"], sort=False)["rank"].transform("count")
    return grid


def _borda_normalized(long: pd.DataFrame) -> pd.DataFrame:
    """Borda normalisation (ranx's ``borda_norm``): over the query's candidates (the union
    of the runs' documents), a ranked document scores ``1 - (rank - 1)/c``, an unranked
    one ``1/2 - (n - 1)/(2c)``; every run then lists every candidate."""
    grid = _candidates(long)
    c, n = grid["n_candidates"], grid["n_ranked"]
    ranked = 1.0 - (grid["rank"] - 1) / c
    unranked = 0.5 - (n - 1) / (2 * c)
    grid["score"] = ranked.where(grid["rank"].notna(), unranked).astype(np.float64)
    return grid[["run", "query_id", "doc_id", "score", "rank"]]


def _rank_scores(long: pd.DataFrame, method: str, k, phi) -> pd.DataFrame:
    """The per-run score a rank method gives each document (then summed or MNZ'd)."""
    rank = long["rank"].astype(np.float64)
    if method == "rrf":
        return long.assign(score=1.0 / (k + rank))
    if method in ("isr", "log_isr"):
        return long.assign(score=1.0 / rank**2)
    if method == "rbc":
        return long.assign(score=(1.0 - phi) * phi ** (rank - 1))
    # bordafuse: c - (rank - 1) points to a ranked document, (c - n + 1)/2 to the others
    grid = _candidates(long)
    c, n = grid["n_candidates"], grid["n_ranked"]
    points = (c - (grid["rank"] - 1)).where(grid["rank"].notna(), (c - n + 1) / 2)
    return grid.assign(score=points.astype(np.float64))


def _check_parameters(method, kind, reads, norm, weights, k, phi, gamma, n_runs,
                      training=None, n_segments=None):
    given = {"weights": weights is not None, "k": k is not None, "phi": phi is not None,
             "gamma": gamma is not None, "training": training is not None,
             "n_segments": n_segments is not None}
    extra = [name for name, was in given.items() if was and name not in reads]
    if extra:
        raise TypeError(f"method={method!r} does not read {', '.join(extra)}"
                        + (f"; it reads {', '.join(reads)}" if reads else ""))
    if kind in ("rank", "trained") and norm is not None:
        raise ValueError(f"method={method!r} combines ranks, not scores: leave norm=None")
    if "n_segments" in reads and (n_segments is None or isinstance(n_segments, bool)
                                  or not isinstance(n_segments, (int, np.integer))
                                  or n_segments < 1):
        raise ValueError(f"method={method!r} needs n_segments, a positive integer, "
                         f"got {n_segments!r}")
    if "weights" in reads:
        if weights is None:
            raise TypeError(f"method={method!r} needs weights, one per run")
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (n_runs,) or not np.isfinite(weights).all():
            raise ValueError(f"weights must be {n_runs} finite numbers (one per run), "
                             f"got {weights.tolist()}")
    k = 60 if k is None else k
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not (k >= 0):
        raise ValueError(f"k must be a number >= 0, got {k!r}")
    phi = 0.8 if phi is None else phi
    if isinstance(phi, bool) or not isinstance(phi, (int, float)) or not (0 < phi < 1):
        raise ValueError(f"phi must be a number strictly between 0 and 1, got {phi!r}")
    gamma = 1.0 if gamma is None else gamma
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not np.isfinite(gamma):
        raise ValueError(f"gamma must be a finite number, got {gamma!r}")
    return weights, k, phi, gamma


def _combine(long: pd.DataFrame, method: str, weights, gamma, n_runs=None) -> pd.Series:
    """One fused score per (query_id, doc_id) from the per-run scores in ``long``."""
    keys = ["query_id", "doc_id"]
    if method in ("wsum", "wmnz"):
        weight = weights[long["run"].to_numpy()]
        long = long.assign(weight=weight, weighted=weight * long["score"])
    by = long.groupby(keys, sort=False)
    if method in ("sum", "rrf", "bordafuse", "rbc", "posfuse", "probfuse"):
        return by["score"].sum()
    if method == "bayesfuse":  # a run that does not list the document adds the floor's odds
        return by["score"].sum() + (n_runs - by["score"].size()) * _trained.MISSING_LOG_ODDS
    if method in ("max", "min"):
        return by["score"].agg(method)
    if method == "med":
        return by["score"].median()
    total, count = by["score"].sum(), by["score"].size()
    if method == "anz":
        return total / count
    if method in ("mnz", "isr"):
        return total * count
    if method == "gmnz":
        return total * count.astype(np.float64) ** gamma
    if method == "log_isr":
        return total * np.log(count.astype(np.float64))
    if method == "wsum":
        return by["weighted"].sum()
    return total * by["weight"].sum()  # wmnz: the plain sum times the listing runs' weights


def _as_run(fused: pd.Series) -> pd.DataFrame:
    """A fused score per (query_id, doc_id) as a ranked run frame."""
    out = fused.rename("score").reset_index()
    table = out.astype({"score": np.float64})
    order = ranked_ids(table)
    ranked = pd.DataFrame(
        [(q, d, r) for q, docs in order.items() for r, d in enumerate(docs, start=1)],
        columns=["query_id", "doc_id", "rank"])
    out = ranked.merge(table, on=["query_id", "doc_id"], how="left", validate="one_to_one")
    return out[["query_id", "doc_id", "score", "rank"]]


def normalize(run, norm: str = "min-max") -> pd.DataFrame:
    r"""One run's scores normalised per query.

    Parameters
    ----------
    run : str, os.PathLike, dict, pandas.DataFrame or pyarrow.Table
        A run in any form :func:`rankeval.evaluate` reads.
    norm : {"min-max", "min-max-inverted", "max", "sum", "zmuv", "rank"}, default="min-max"
        How to normalise (``"borda"`` needs every run of a fusion: use :func:`rankeval.fuse`).

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id, doc_id, score, rank``, each query's documents best first
        (ties by document id descending, as :func:`rankeval.evaluate` ranks).

    Raises
    ------
    ValueError
        An unknown ``norm``, or ``"max"`` on a query whose largest score is not positive.

    Notes
    -----
    For the scores :math:`s_1, \dots, s_n` of one query, with a floor of :math:`10^{-9}`
    under each denominator (so a query whose scores are all equal gets zeros):
    min-max :math:`(s - \min s)/(\max s - \min s)`; min-max-inverted
    :math:`(\max s - s)/(\max s - \min s)`; max :math:`s / \max s`; sum
    :math:`(s - \min s)/\sum_j (s_j - \min s)`; zmuv :math:`(s - \bar s)/\sigma_s` with the
    population standard deviation; rank :math:`1 - (r - 1)/n` for the document at rank
    :math:`r`. These are ranx's normalisations (Bassani 2022).

    References
    ----------
    .. [1] E. Bassani, "ranx: A Blazing-Fast Python Library for Ranking Evaluation and
       Comparison", ECIR 2022.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval.fusion import normalize
    >>> out = normalize({"q": {"a": 3.0, "b": 1.0, "c": 2.0}})
    >>> out["doc_id"].tolist(), out["score"].tolist()
    (['a', 'c', 'b'], [1.0, 0.5, 0.0])
    """
    if norm == "borda":
        raise ValueError("norm='borda' scores a document against every run's candidates: "
                         "use fuse(runs, method, norm='borda')")
    if norm is None or norm not in NORMALIZATIONS:
        raise ValueError(f"norm must be one of {', '.join(NORMALIZATIONS[:-1])}, got {norm!r}")
    long = _normalized(_long_frame([run], minimum=1), norm)
    return _as_run(long.set_index(["query_id", "doc_id"])["score"])


def fuse(runs, method: str = "rrf", *, norm: str | None = None, weights=None, k=None,
         phi=None, gamma=None, depth: int | None = None, training=None, n_segments=None):
    r"""Several runs of the same queries fused into one.

    Parameters
    ----------
    runs : list of runs, or dict of {name: run}
        At least two runs, each in any form :func:`rankeval.evaluate` reads (TREC files,
        dicts, frames). A query missing from a run counts as an empty list in it.
    method : str, default="rrf"
        One of ``rankeval.fusion.FUSION_METHODS``. On scores: ``"sum"`` (CombSUM), ``"max"``,
        ``"min"``, ``"med"``, ``"anz"`` (CombANZ), ``"mnz"`` (CombMNZ), ``"gmnz"``,
        ``"wsum"`` and ``"wmnz"`` (weighted). On ranks: ``"rrf"`` (reciprocal rank
        fusion), ``"isr"``, ``"log_isr"``, ``"bordafuse"``, ``"rbc"`` (rank-biased
        centroid).
    norm : str or None, default=None
        For a score method, how to normalise each run's scores per query first (one of
        ``rankeval.fusion.NORMALIZATIONS``; :func:`rankeval.fusion.normalize` gives the formulas). ``None`` means
        ``"min-max"`` for a score method; a rank method takes no ``norm``.
    weights : sequence of float, optional
        One weight per run; read only by ``"wsum"`` and ``"wmnz"``, which need it.
    k : float, default=60
        RRF's constant; read only by ``"rrf"``.
    phi : float, default=0.8
        RBC's persistence, in (0, 1); read only by ``"rbc"``.
    gamma : float, default=1.0
        The exponent of the count in ``"gmnz"``; read only by it.
    depth : int, optional
        Keep only each run's top ``depth`` documents of a query before fusing.
    training : (qrels, list of runs), optional
        For the methods that learn (``"posfuse"``, ``"probfuse"``, ``"bayesfuse"``): judged
        training queries and the same systems' runs on them, in the same order as
        ``runs``. A :class:`rankeval.fusion.TrainingQueriesWarning` says when a
        fused query is also a training query.
    n_segments : int, optional
        ProbFuse's number of segments per list; read only by ``"probfuse"``.

    Returns
    -------
    dict or pandas.DataFrame
        The fused run in the runs' form: a dict ``{query_id: {doc_id: score}}`` (best
        first) when every run is a dict, else a frame with columns ``query_id, doc_id,
        score, rank``, each query's documents best first (ties by document id
        descending, as :func:`rankeval.evaluate` ranks). :func:`rankeval.evaluate` takes
        either as a run.

    Raises
    ------
    ValueError
        Fewer than two runs, an unknown method or normalisation, bad parameters.
    TypeError
        A parameter the method does not read, or runs whose ids differ in type.

    Notes
    -----
    With :math:`s_i(d)` the (normalised) score of document :math:`d` in run :math:`i`,
    :math:`r_i(d)` its rank, :math:`R(d)` the runs that list it and :math:`n = |R(d)|`:

    .. math::

       \text{CombSUM} = \sum_{i \in R(d)} s_i(d), \qquad
       \text{CombMNZ} = n \sum_{i \in R(d)} s_i(d),

       \text{RRF} = \sum_{i \in R(d)} \frac{1}{k + r_i(d)}, \qquad
       \text{RBC} = \sum_{i \in R(d)} (1 - \phi)\,\phi^{r_i(d) - 1}.

    CombANZ divides the sum by :math:`n`; gmnz multiplies it by :math:`n^\gamma`; wsum is
    :math:`\sum_i w_i s_i(d)` and wmnz :math:`(\sum_{i \in R(d)} s_i(d))(\sum_{i \in
    R(d)} w_i)` (ranx's definition: the weights of the runs that list the document
    replace CombMNZ's count); ISR is :math:`n \sum 1/r_i(d)^2` and log_ISR :math:`\ln(n) \sum
    1/r_i(d)^2` (so a document that only one run lists scores 0). BordaFuse gives a
    document :math:`c - r_i(d) + 1` points in run :math:`i`, where :math:`c` is the number
    of candidates (documents any run lists for the query), and an unlisted one
    :math:`(c - m_i + 1)/2`, with :math:`m_i` the length of run :math:`i`'s list.
    PosFuse scores a document at position :math:`j` of run :math:`i` by the share of run
    :math:`i`'s training lists with a relevant document at :math:`j`; ProbFuse by its
    segment's share of relevant documents over the segment's number; BayesFuse by the
    log-odds of relevance in its rank band (a run that does not list it adds
    :math:`\log(0.001/0.999)`); each then sums over the runs.

    References
    ----------
    .. [1] E. A. Fox and J. A. Shaw, "Combination of Multiple Searches", TREC-2, 1993.
    .. [2] G. V. Cormack, C. L. A. Clarke and S. Büttcher, "Reciprocal rank fusion
       outperforms Condorcet and individual rank learning methods", SIGIR 2009.
    .. [3] J. A. Aslam and M. Montague, "Models for Metasearch", SIGIR 2001.
    .. [4] P. Bailey, A. Moffat, F. Scholer and P. Thomas, "Retrieval Consistency in the
       Presence of Query Variations", SIGIR 2017.
    .. [5] A. Mourão, F. Martins and J. Magalhães, "Multimodal medical information
       retrieval with unsupervised rank fusion", Comput. Med. Imaging Graph. 39, 2015.
    .. [6] D. Lillis, F. Toolan, R. Collier and J. Dunnion, "ProbFuse: a probabilistic
       approach to data fusion", SIGIR 2006.
    .. [7] D. Lillis, L. Zhang, F. Toolan, R. W. Collier, D. Leonard and J. Dunnion,
       "Estimating probabilities for effective data fusion", SIGIR 2010.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval.fusion import fuse
    >>> bm25 = {"q": {"a": 12.0, "b": 9.5, "c": 3.1}}
    >>> dense = {"q": {"c": 0.91, "a": 0.85, "d": 0.40}}
    >>> fused = fuse([bm25, dense], "rrf")
    >>> {d: round(s, 5) for d, s in fused["q"].items()}
    {'a': 0.03252, 'c': 0.03227, 'b': 0.01613, 'd': 0.01587}
    """
    if method not in FUSION_METHODS:
        raise ValueError(f"method must be one of {', '.join(FUSION_METHODS)}, got {method!r}")
    kind, reads = FUSION_METHODS[method]
    long = _long_frame(runs)
    n_runs = len(runs)
    weights, k, phi, gamma = _check_parameters(method, kind, reads, norm, weights, k, phi,
                                               gamma, n_runs, training, n_segments)
    long = _cut(long, depth)
    if kind == "score":
        long = _normalized(long, "min-max" if norm is None else norm)
    elif kind == "rank":
        long = _rank_scores(long, method, k, phi)
    else:
        estimates = _trained.train(method, training, n_segments, set(long["query_id"]),
                                   lambda r: _cut(_long_frame(r), depth))
        if len(estimates) != n_runs:
            raise ValueError(f"training has {len(estimates)} runs; fusing {n_runs} needs "
                             "the same systems' training runs, in the same order")
        long = _trained.trained_scores(long, method, estimates, n_segments)
    fused = _as_run(_combine(long, method, weights, gamma, n_runs))
    return _same_form(fused, runs)


def _cut(long: pd.DataFrame, depth) -> pd.DataFrame:
    if depth is None:
        return long
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    return long[long["rank"] <= depth].reset_index(drop=True)


def _same_form(fused: pd.DataFrame, runs):
    """A dict of dicts (best first) when every run was a dict, else the frame."""
    values = runs.values() if isinstance(runs, Mapping) else runs
    if not all(isinstance(r, Mapping) for r in values):
        return fused
    out: dict = {}
    for q, d, score in fused[["query_id", "doc_id", "score"]].itertuples(index=False):
        out.setdefault(q, {})[d] = float(score)
    return out
