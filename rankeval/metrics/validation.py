"""Input checks shared by every metric (private module).

Every public metric turns its ``relevance`` argument into a :class:`Batch` with
:func:`as_batch`: a zero-padded 2-D float array of grades, the true length of
each ranking, and a flag saying whether the caller passed a single query (then
the metric returns a ``float``) or many (then it returns a 1-D array).

Padding with zeros is safe for every metric in this package because a grade of
0 is "not relevant" and contributes nothing to any sum; metrics that need the
true list length (precision over the whole list, say) read ``lengths``.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

__all__ = [
    "check_choice",
    "Batch",
    "as_array",
    "first_non_number",
    "as_batch",
    "check_k",
    "check_real",
    "check_threshold",
    "check_probability",
    "per_query",
    "check_n_relevant",
    "IN_LIST",
    "finish",
]


class Batch(NamedTuple):
    """Rankings of one or many queries, zero-padded to a common width."""

    grades: np.ndarray  # (n_queries, width) float64, zero-padded
    lengths: np.ndarray  # (n_queries,) int64, true length of each ranking
    single: bool  # True when the caller passed one 1-D ranking
    # the row labels of a pandas DataFrame given as the rankings (its index), else None:
    # per_query matches a pandas Series of per-query values by them
    labels: object = None

    @property
    def n_queries(self) -> int:
        return self.grades.shape[0]

    @property
    def mask(self) -> np.ndarray:
        """Boolean (n_queries, width): True where a real item stands."""
        width = self.grades.shape[1]
        return np.arange(width) < self.lengths[:, None]


def is_scalar(x) -> bool:
    return isinstance(x, (numbers.Number, np.generic)) or (
        isinstance(x, np.ndarray) and x.ndim == 0
    )


def first_non_number(arr: np.ndarray, *, none_ok: bool = False) -> int:
    """The flat position of the first element of an object array that is not a real
    number (text, a date, None unless ``none_ok``...), or -1 if there is none. NumPy's
    ``astype(float)`` would parse the text "1" as 1.0: grades are never read from text."""
    for i, x in enumerate(arr.flat):
        if (x is None and none_ok) or (
            isinstance(x, (numbers.Number, np.bool_))
            and not isinstance(x, (complex, np.complexfloating))
        ):
            continue
        return i
    return -1


def _numeric(arr: np.ndarray, name: str) -> np.ndarray:
    if arr.dtype.kind == "O":
        bad = first_non_number(arr)
        if bad >= 0:
            raise TypeError(
                f"{name} must contain numbers (relevance grades), got non-numeric "
                f"values such as {arr.flat[bad]!r}; to turn item ids into grades use "
                "rankeval.relevance_vector"
            )
        arr = arr.astype(np.float64)
    if arr.dtype.kind not in "biuf":
        example = arr.flat[0] if arr.size else ""
        raise TypeError(
            f"{name} must contain numbers (relevance grades), got dtype "
            f"{arr.dtype} with values such as {example!r}; to turn item ids into "
            "grades use rankeval.relevance_vector"
        )
    # No copy when the input is already float64: metrics never write into grades.
    arr = arr.astype(np.float64, copy=False)
    if arr.size:
        lowest, highest = arr.min(), arr.max()  # NaN propagates through both
        if not (np.isfinite(lowest) and np.isfinite(highest)):
            raise ValueError(
                f"{name} contains NaN or infinite grades (NaN marks an unjudged item "
                "only for the measures that read judgments, such as bpref)"
            )
        if lowest < 0:
            raise ValueError(
                f"{name} contains negative grades (smallest {lowest:g}); grades must be >= 0. "
                "rankeval.evaluate reads a negative qrels grade (TREC's -1, -2) as judged "
                "non-relevant, with gain 0: for its values here, pass np.maximum(grades, 0)"
            )
    return arr


def pandas_kind(v):
    """``"series"`` or ``"frame"`` for a pandas Series or DataFrame, else None (pandas
    is never imported for this check; a pyarrow array, whose ``index`` is a method,
    is not one)."""
    if type(v).__module__.split(".")[0] != "pandas":
        return None
    if hasattr(v, "columns"):
        return "frame"
    return "series" if hasattr(v, "index") else None


def frame_values(x):
    """The values of a pandas (or polars) DataFrame or Series, else ``x`` itself.

    Iterating over a DataFrame yields its column labels, so a frame must be turned
    into its values before anything else; pandas is never imported for this check.
    """
    if isinstance(x, np.ndarray) or not hasattr(x, "to_numpy"):
        return x
    module = type(x).__module__.split(".")[0]
    if module not in ("pandas", "polars", "pyarrow"):
        return x
    if module == "pandas":
        # Only numeric and boolean columns (NumPy's or pandas' nullable ones) are read as
        # numbers: to_numpy(float64) would also turn text, dates and durations into
        # numbers. Other columns go on as they are, and the checks name their values.
        dtypes = list(x.dtypes) if pandas_kind(x) == "frame" else [x.dtype]
        if all(getattr(t, "kind", "O") in "biuf" for t in dtypes):
            try:  # missing values (pd.NA, None) become NaN, which the checks then name
                return x.to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError):
                pass
    return np.asarray(x.to_numpy())


def as_batch(relevance, name: str = "relevance") -> Batch:
    """Validate ``relevance`` and return it as a zero-padded :class:`Batch`.

    Accepted forms: a 1-D sequence or array (one query); a 2-D array (many
    queries of equal length); a list of 1-D sequences (many queries, ragged
    allowed); a pandas Series (one query) or DataFrame (one query per row),
    whose *values* are read, never its labels. Grades must be finite,
    non-negative numbers; booleans count as 0/1. Every ranking must hold at
    least one item.
    """
    return _to_batch(relevance, name, judged=False)


def _to_batch(relevance, name: str, *, judged: bool) -> Batch:
    """The checks and the padding shared by :func:`as_batch` and
    :func:`as_judged_batch`; ``judged`` lets NaN and negative grades through
    (:func:`_judged_numeric`) and pads with NaN instead of 0. A pandas DataFrame's
    index is kept as the batch's ``labels``."""
    labels = _row_labels(relevance)
    batch = _to_batch_values(frame_values(relevance), name, judged=judged)
    if labels is not None and len(labels) == batch.n_queries and not batch.single:
        batch = batch._replace(labels=labels)
    return batch


def _row_labels(x):
    """The index of a pandas DataFrame (one query per row), else None."""
    return x.index if pandas_kind(x) == "frame" else None


def _to_batch_values(relevance, name: str, *, judged: bool) -> Batch:
    numeric = _judged_numeric if judged else _numeric
    if isinstance(relevance, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numeric grades, got a string")
    if isinstance(relevance, (set, frozenset, dict)):
        raise TypeError(
            f"{name} must be an ordered sequence of grades, got a {type(relevance).__name__}"
        )
    if is_scalar(relevance):
        raise TypeError(
            f"{name} must be a sequence of grades (1-D) or of rankings (2-D), "
            f"got the scalar {relevance!r}"
        )

    if isinstance(relevance, np.ndarray) and type(relevance) is not np.ndarray:
        # a subclass: np.matrix would shape every result as a matrix
        relevance = as_array(relevance, name)
    if isinstance(relevance, np.ndarray) and relevance.dtype.kind != "O":
        if relevance.ndim == 1:
            return _single(numeric(relevance, name), name)
        if relevance.ndim == 2:
            return _matrix(numeric(relevance, name), name)
        raise ValueError(
            f"{name} must be 1-D (one query) or 2-D (many queries), got {relevance.ndim}-D"
        )

    try:
        items = list(relevance)
    except TypeError:
        raise TypeError(
            f"{name} must be a sequence of grades, got {type(relevance).__name__}"
        ) from None
    if not items:
        raise ValueError(f"{name} is empty: a ranking needs at least one item")
    strings = [x for x in items if isinstance(x, (str, bytes))]
    if strings:
        raise TypeError(
            f"{name} must contain numbers (relevance grades), got {strings[0]!r}; "
            "to turn item ids into grades use rankeval.relevance_vector"
        )
    # a None among judged grades is a scalar, which _judged_numeric then names
    if not judged and any(x is None for x in items):
        raise TypeError(
            f"{name} contains None at position "
            f"{next(i for i, x in enumerate(items) if x is None)}; "
            "grades must be numbers (the measures that read judgments, such as bpref, "
            "take NaN for an unjudged item)"
        )
    scalars = [(judged and x is None) or is_scalar(x) for x in items]
    if all(scalars):
        flat = np.asarray(items, dtype=object) if judged else np.asarray(items)
        return _single(numeric(flat, name), name)
    if any(scalars):
        raise TypeError(
            f"{name} mixes numbers and sequences: pass one ranking (a flat list of "
            "grades) or a list of rankings"
        )
    rows = _rows(items, name)
    lengths = np.array([r.size for r in rows], dtype=np.int64)
    check_padding(lengths, name)
    if judged:  # each ranking checked on its own, so that a message names it
        flat = np.concatenate([numeric(r, f"{name}[{i}]") for i, r in enumerate(rows)])
    else:
        flat = numeric(np.concatenate(rows), name)
    grades = np.full((len(rows), int(lengths.max())), np.nan if judged else 0.0)
    grades[np.arange(grades.shape[1]) < lengths[:, None]] = flat
    return Batch(grades, lengths, False)


# A ragged batch is padded to (queries x longest ranking). When that would take more
# cells than this and many times more than the grades given, the padding, not the data,
# would fill the memory: such a batch is refused with a message instead.
MAX_PADDED_CELLS = 1 << 26  # 64 M cells: 512 MB per float64 array of the batch's shape
MAX_PADDING_RATIO = 4


def check_padding(lengths: np.ndarray, name: str) -> None:
    """Refuse ragged rankings whose zero-padded matrix would dwarf their grades."""
    cells = len(lengths) * int(lengths.max())
    given = int(lengths.sum())
    if cells > MAX_PADDED_CELLS and cells > MAX_PADDING_RATIO * given:
        raise ValueError(
            f"{name}: {len(lengths):,} rankings of {int(lengths.min()):,} to "
            f"{int(lengths.max()):,} items would be padded to {len(lengths):,} x "
            f"{int(lengths.max()):,} = {cells:,} cells for {given:,} grades; evaluate the "
            "long rankings apart from the short ones, or, for a measure that reads only "
            "the top k, cut each ranking to its first k items"
        )


def _matrix(grades: np.ndarray, name: str) -> Batch:
    """A checked 2-D grade matrix as a Batch of equal-length rankings."""
    if grades.shape[0] == 0:
        raise ValueError(f"{name} holds no queries")
    if grades.shape[1] == 0:
        raise ValueError(f"{name}: the rankings are empty (width 0)")
    return Batch(grades, np.full(grades.shape[0], grades.shape[1], dtype=np.int64), False)


def _rows(items: list, name: str) -> list:
    """The rankings of a list of rankings as 1-D arrays (values not yet checked)."""
    rows = []
    for i, row in enumerate(items):
        if isinstance(row, (str, bytes, set, frozenset, dict)):
            raise TypeError(
                f"{name}[{i}] must be a sequence of numeric grades, got {type(row).__name__}"
            )
        r = as_array(frame_values(row), f"{name}[{i}]")
        if r.ndim != 1:
            raise ValueError(f"{name}[{i}] must be a 1-D ranking, got {r.ndim}-D")
        if r.size == 0:
            raise ValueError(
                f"{name}[{i}] is empty: every query's ranking needs at least one item (a "
                "query with no ranked document of a RankedRun: see RankedRun.ragged)"
            )
        rows.append(r)
    return rows


def refuse_masked(x, name: str) -> None:
    """Refuse a NumPy masked array with masked items: ``np.asarray`` would read the
    values under the mask as they are, and NumPy's operations would skip them."""
    if np.ma.isMaskedArray(x) and np.ma.getmaskarray(x).any():
        raise TypeError(
            f"{name} is a masked array with masked items, whose values would be read as "
            "they are: fill them with the value they stand for (say .filled(0)), or leave "
            "them out of the ranking (.compressed())"
        )


def as_array(x, name: str) -> np.ndarray:
    """``np.asarray(x)``, with a message that names ``name`` when ``x`` nests
    sequences of different lengths (NumPy's own error names neither); a masked array
    with masked items is refused (:func:`refuse_masked`)."""
    refuse_masked(x, name)
    try:
        return np.asarray(x)
    except ValueError:
        raise ValueError(
            f"{name} nests sequences of different lengths (or a sequence among numbers), "
            "so it is no array of grades"
        ) from None


def _single(arr: np.ndarray, name: str) -> Batch:
    if arr.size == 0:
        raise ValueError(f"{name} is empty: a ranking needs at least one item")
    return Batch(arr[None, :], np.array([arr.size], dtype=np.int64), True)


def check_k(k, name: str = "k") -> int | None:
    """Return ``k`` as an int (or None); reject non-integers and k <= 0."""
    if k is None:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{name} must be a positive int or None, got {k!r}")
    if k <= 0:
        raise ValueError(f"{name} must be a positive int or None, got {k}")
    return int(k)


def check_real(x, name: str) -> float:
    """Return ``x`` as a finite float; reject booleans, non-numbers, NaN and infinity."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {x!r}")
    x = float(x)
    if not np.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    return x


def check_threshold(threshold, name: str = "threshold") -> float:
    """A grade at or above ``threshold`` counts as relevant; it must be > 0."""
    t = check_real(threshold, name)
    if t <= 0:
        raise ValueError(
            f"{name} must be > 0 (a grade of 0 always means not relevant), got {t:g}"
        )
    return t


def check_probability(p, name: str, *, low_open=True, high_open=True) -> float:
    """Check that ``p`` lies in the interval (0, 1), ends open or closed as told."""
    p = check_real(p, name)
    lo_ok = p > 0 if low_open else p >= 0
    hi_ok = p < 1 if high_open else p <= 1
    if not (lo_ok and hi_ok):
        lo = "(0" if low_open else "[0"
        hi = "1)" if high_open else "1]"
        raise ValueError(f"{name} must lie in {lo}, {hi}, got {p:g}")
    return p


def per_query(value, batch: Batch, name: str, *, integer: bool = False) -> np.ndarray:
    """Broadcast a scalar or a per-query sequence to shape (n_queries,).

    A pandas Series is matched to the rankings by its labels when the rankings came as
    a DataFrame (its index), as pandas aligns them; otherwise only a Series with the
    default index 0..n-1 is taken, by position. A label it lacks, or labels with
    nothing to match them, is an error, never a value matched to the wrong query.
    """
    value = _aligned(value, batch, name)
    arr = np.asarray(value)
    if arr.dtype.kind == "O" and arr.size and all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in arr.flat
    ):  # Python ints that fit no 64-bit integer
        raise ValueError(
            f"{name} must fit in a 64-bit integer (below 2**63), got "
            f"{max(arr.flat, key=abs)}"
        )
    if arr.dtype.kind not in "biuf" or arr.dtype.kind == "b":
        raise TypeError(f"{name} must be a number or a sequence of numbers, got {value!r}")
    if arr.ndim == 0:
        arr = np.full(batch.n_queries, arr)
    elif arr.ndim != 1 or arr.size != batch.n_queries:
        raise ValueError(
            f"{name} must be a scalar or hold one value per query "
            f"({batch.n_queries}), got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if integer:
        if arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
            raise TypeError(f"{name} must hold whole numbers, got {value!r}")
        # int64 always fits; uint64 and float values must lie below 2**63
        too_big = np.abs(arr) >= 2**63 if arr.dtype.kind in "uf" else np.False_
        if np.any(too_big):
            x = arr[too_big][0]
            shown = f"{x:g}" if arr.dtype.kind == "f" else str(x)
            raise ValueError(f"{name} must fit in a 64-bit integer (below 2**63), got {shown}")
        arr = arr.astype(np.int64)
    return arr


def _aligned(value, batch: Batch, name: str):
    """A pandas Series of per-query values in the order of the batch's rows."""
    if pandas_kind(value) != "series":
        return value
    index = value.index
    if batch.labels is not None:
        if not index.is_unique:
            raise ValueError(f"{name}: its index names a query twice")
        missing = batch.labels.difference(index)
        if len(missing):
            raise ValueError(
                f"{name} has no value for {len(missing)} of the rankings' row labels, e.g. "
                f"{missing[0]!r} (a pandas Series is matched to the rows by label)"
            )
        return value.reindex(batch.labels).to_numpy()
    if not index.equals(_positions(len(value))):
        raise ValueError(
            f"{name} is a pandas Series with labels (e.g. {index[0]!r}), but the "
            "rankings have none to match them (give them as a DataFrame with those row "
            f"labels, or pass {name}.to_numpy() in the order of the rankings)"
        )
    return value.to_numpy()


def _positions(n: int):
    """pandas' default index 0..n-1 (called only when a pandas object is at hand, so
    pandas is loaded already)."""
    import pandas as pd

    return pd.RangeIndex(n)


def check_same_rows(other: Batch, batch: Batch, name: str) -> None:
    """Refuse ``other`` (rankings of the same queries, matched to ``batch`` row by row)
    when it came as a DataFrame whose row labels are not ``batch``'s, in order."""
    if other.labels is None:
        return
    expected = batch.labels if batch.labels is not None else _positions(other.n_queries)
    if not other.labels.equals(expected):
        raise ValueError(
            f"{name} is a DataFrame whose row labels are not those of relevance, in the "
            "same order: its rows are matched to the rankings by position (reindex it first)"
        )


IN_LIST = "in_list"


def check_n_relevant(n_relevant, found: np.ndarray, batch: Batch, name="n_relevant"):
    """Denominator of recall-like metrics: the query's number of relevant items.

    ``"in_list"`` (the default of every recall-type metric) means the relevant
    items in the whole given list (``found``, never cut at k). Otherwise an int
    or one int per query, at least ``found`` for every query.
    """
    if isinstance(n_relevant, str):
        if n_relevant != IN_LIST:
            raise ValueError(
                f'{name} must be "in_list", an int or one int per query, got {n_relevant!r}'
            )
        return found.astype(np.int64)
    if n_relevant is None:
        raise TypeError(
            f'{name} must be "in_list" (count the relevant grades of the given list), '
            "an int or one int per query (the query's true number of relevant items, "
            "e.g. from the qrels), got None"
        )
    return _at_least_found(n_relevant, found, batch, name, "relevant items")


def finish(values: np.ndarray, batch: Batch):
    """Return a float for a single query, a 1-D float array otherwise."""
    values = np.asarray(values, dtype=np.float64)
    return float(values[0]) if batch.single else values


# ======================================================================================
# Rankings that mark unjudged documents (block added by the MEASURES helper for bpref,
# infAP, Judged@k, R-precision, set measures and trec_eval's rbp). trec_eval's codes:
# a document absent from the qrels is NaN here (RELVALUE_NONPOOL); a negative grade is
# "in the judging pool but not judged" (-1 in a qrels file, RELVALUE_UNJUDGED), which
# only infAP tells apart. Both count as not relevant everywhere.
# ======================================================================================


def _judged_numeric(arr: np.ndarray, name: str) -> np.ndarray:
    if arr.dtype.kind == "O":
        if any(x is None for x in arr.flat):
            raise TypeError(f"{name} contains None; mark an unjudged document with np.nan")
        bad = first_non_number(arr)
        if bad >= 0:
            raise TypeError(
                f"{name} must contain numbers (relevance grades, NaN for unjudged), got "
                f"non-numeric values such as {arr.flat[bad]!r}"
            )
        arr = arr.astype(np.float64)
    if arr.dtype.kind not in "biuf":
        example = arr.flat[0] if arr.size else ""
        raise TypeError(
            f"{name} must contain numbers (relevance grades, NaN for unjudged), got dtype "
            f"{arr.dtype} with values such as {example!r}"
        )
    arr = arr.astype(np.float64, copy=False)
    if np.any(np.isinf(arr)):
        raise ValueError(f"{name} contains infinite grades")
    return arr


def as_judged_batch(relevance, name: str = "relevance") -> Batch:
    """Like :func:`as_batch`, for the measures that read judgments as trec_eval does.

    Same accepted forms and structural checks, but a grade may be NaN (the
    document is not in the qrels) or negative (in the pool but not judged);
    infinite grades are refused. A ragged batch is padded with NaN; kernels read
    ``lengths`` for the true length of each ranking.
    """
    return _to_batch(relevance, name, judged=True)


def check_count(value, found: np.ndarray, batch: Batch, name: str, what: str) -> np.ndarray:
    """A per-query count of judged documents (``what``), at least ``found`` in the list.

    ``"in_list"`` means ``found``; otherwise an int or one int per query, >= 0.
    """
    if isinstance(value, str):
        if value != IN_LIST:
            raise ValueError(f'{name} must be "in_list", an int or one int per query, got {value!r}')
        return found.astype(np.int64)
    if value is None:
        raise TypeError(
            f'{name} must be "in_list", an int or one int per query (the number of {what} '
            "in the qrels), got None"
        )
    return _at_least_found(value, found, batch, name, what)


def _at_least_found(value, found: np.ndarray, batch: Batch, name: str,
                    what: str) -> np.ndarray:
    """``value`` as one int per query, >= 0 and >= ``found`` (the ``what`` already in
    the ranking)."""
    n = per_query(value, batch, name, integer=True)
    if np.any(n < 0):
        raise ValueError(f"{name} must be >= 0, got {n[n < 0][0]}")
    bad = np.flatnonzero(n < found)
    if bad.size:
        q = bad[0]
        where = "" if batch.single else f" for query {q}"
        raise ValueError(
            f"{name}{where} is {n[q]}, smaller than the {int(found[q])} {what} already "
            "in the ranking"
        )
    return n


def check_choice(name, value, allowed) -> None:
    """ValueError unless ``value`` is one of the strings ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
