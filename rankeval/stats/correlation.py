"""Rank correlation between two rankings: Spearman, Kendall, inversions.

:func:`spearman_rho`, :func:`kendall_tau` and :func:`kendall_tau_distance`
compare two rankings *of the same items*: ``x[i]`` and ``y[i]`` are what the
first and the second ranking say about item ``i`` (its rank, or a score from
which a rank follows). Both must point the same way: two rank vectors (1 =
best) or two score vectors (higher = better). Only the order matters, so any
strictly increasing transformation of ``x`` or ``y`` leaves every value
unchanged; a row of integers is compared exactly, never rounded to float64 (which
would tie nanosecond times or 64-bit ids past :math:`2^{53}`; a row that mixes
integers and floats is a row of floats). A 1-D pair is one
comparison and gives a ``float``; a 2-D array or a (ragged) list of rows gives
one value per row; a 1-D ``x`` with a 2-D ``y`` compares ``x`` with every row
of ``y``. Two pandas objects are matched by their labels, as
:func:`rankeval.paired_test` matches per-query scores: the items by a Series'
index or a DataFrame's columns, the rows by a DataFrame's index.

:func:`inversions` follows the metrics' convention instead: it takes the
relevance grades of one ranked list, best-ranked first, and counts the pairs
the list puts in the wrong order.

Chapter: :doc:`/chapters/12_rank_correlation`.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..metrics.validation import (
    Batch,
    as_array,
    as_batch,
    check_k,
    check_probability,
    finish,
    frame_values,
    is_scalar,
    pandas_kind,
)
from .compare import _match_labels

__all__ = ["spearman_rho", "kendall_tau", "kendall_tau_distance", "inversions"]


# --- input checks for a pair of rankings ----------------------------------------------


def _as_rows(v, name):
    """Return ``v`` as a list of 1-D arrays (see :func:`_numbers`), whether it was a
    single 1-D ranking, the item labels of each row and the row labels.

    Item labels: a pandas Series' index, a DataFrame's columns (for each of its
    rows), or the index of a Series given as one row of a list; None for an
    unlabelled row. Row labels: a DataFrame's index (or that of a Series whose
    values are rows); else None.
    """
    rows, single, items = _unlabelled_rows(v, name)
    kind = pandas_kind(v)
    row_labels = None
    if kind == "frame":
        items = [v.columns] * len(rows)
        row_labels = v.index
    elif kind == "series" and single:
        items = [v.index]
    elif kind == "series":  # a Series whose values are rankings: one row per label
        row_labels = v.index
    return rows, single, items, row_labels


def _unlabelled_rows(v, name):
    """Return ``v`` as a list of 1-D arrays (see :func:`_numbers`), whether it was a
    single 1-D ranking, and the index of each row given as a pandas Series (else None)."""
    v = _values(v)  # a DataFrame's values; _paired matches its labels
    if isinstance(v, np.ndarray) and type(v) is not np.ndarray:  # np.matrix, masked
        v = as_array(v, name)
    if isinstance(v, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numbers, got a string")
    if isinstance(v, (set, frozenset, dict)):
        raise TypeError(f"{name} must be an ordered sequence of numbers, got a {type(v).__name__}")
    if is_scalar(v):
        raise TypeError(f"{name} must be a sequence of numbers (1-D) or of rows (2-D), got {v!r}")
    if isinstance(v, np.ndarray) and v.dtype.kind != "O":
        if v.ndim == 1:
            return [_numbers(v, name)], True, [None]
        if v.ndim == 2:
            return list(_numbers(v, name)), False, [None] * v.shape[0]
        raise ValueError(f"{name} must be 1-D (one ranking) or 2-D (one per row), got {v.ndim}-D")
    try:
        items = list(v)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of numbers, got {type(v).__name__}") from None
    strings = [item for item in items if isinstance(item, (str, bytes))]
    if strings:
        raise TypeError(f"{name} must contain numbers (ranks or scores), got {strings[0]!r}")
    is_row = [hasattr(item, "__iter__") and not is_scalar(item) for item in items]
    if not any(is_row):
        return [_numbers(_as_array(items, name), name)], True, [None]
    if not all(is_row):
        raise TypeError(
            f"{name} mixes numbers and sequences: pass one ranking (a flat list of "
            "numbers) or a list of rankings"
        )
    rows, labels = [], []
    for i, row in enumerate(items):
        if isinstance(row, (str, bytes, set, frozenset, dict)):
            raise TypeError(f"{name}[{i}] must be a sequence of numbers, got {type(row).__name__}")
        labels.append(row.index if pandas_kind(row) == "series" else None)
        row = _as_array(_values(row), f"{name}[{i}]")
        if row.ndim != 1:
            raise ValueError(f"{name}[{i}] must be a 1-D ranking, got {row.ndim}-D")
        rows.append(_numbers(row, f"{name}[{i}]"))
    return rows, False, labels


def _values(v):
    """The values of a pandas, polars or pyarrow object, else ``v`` itself, as
    :func:`frame_values` gives them, except that pandas integer and boolean columns
    keep their whole numbers (``frame_values`` reads every pandas column as float64,
    which rounds integers past :math:`2^{53}`)."""
    kind = pandas_kind(v)
    if kind is not None:
        dtypes = list(v.dtypes) if kind == "frame" else [v.dtype]
        if dtypes and all(getattr(t, "kind", None) in ("b", "i", "u") for t in dtypes):
            values = v.to_numpy()  # a nullable column with missing values: float or object
            if values.dtype.kind in "biu":
                return values
            if all(isinstance(t, np.dtype) for t in dtypes):  # int64 and uint64 columns
                return v.to_numpy(dtype=object)  # (their common type is float64)
    return frame_values(v)


def _as_array(values, name):
    """``as_array(values, name)`` (masked items refused, ragged nesting named), except
    that a list of whole numbers that NumPy would turn into float64 (a Python int past
    int64 among them) becomes an object array of them, which :func:`_numbers` ranks
    exactly."""
    arr = as_array(values, name)
    if (
        arr.dtype.kind == "f"
        and isinstance(values, (list, tuple))
        and all(isinstance(v, (numbers.Integral, np.bool_)) for v in values)
    ):
        return np.asarray(values, dtype=object)
    return arr


def _numbers(arr, name):
    """Check that ``arr`` holds finite numbers (booleans count as 0/1); return float64
    for floats, and int64 for whole numbers, in the same order.

    Only the order of the values counts, and float64 would tie distinct integers past
    :math:`2^{53}` (nanosecond times, 64-bit ids), so integers never become floats:
    booleans and signed integers are cast to int64; uint64 values past int64 are all
    shifted down by :math:`2^{63}`; Python ints of any size are replaced by their
    dense ranks (0, 1, ...) when they do not fit in 64 bits.
    """
    if arr.dtype.kind == "O":
        bad = [v for v in arr.flat if not isinstance(v, (numbers.Real, np.generic))]
        if bad:
            raise TypeError(f"{name} must contain numbers (ranks or scores), got {bad[0]!r}")
        if all(isinstance(v, (numbers.Integral, np.bool_)) for v in arr.flat):
            arr = _whole_numbers(arr)
        else:
            arr = arr.astype(np.float64)
    if arr.dtype.kind not in "biuf":
        example = arr.flat[0] if arr.size else ""
        raise TypeError(
            f"{name} must contain numbers (ranks or scores), got dtype {arr.dtype} "
            f"with values such as {example!r}"
        )
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        # v - 2**63 for every value: flipping the top bit of a uint64 and reading the
        # bits as an int64 keeps the order
        return (arr ^ np.uint64(1 << 63)).view(np.int64)
    if arr.dtype.kind in "biu":
        return arr.astype(np.int64)
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _whole_numbers(arr):
    """An object array of whole numbers (Python or NumPy ints, booleans) as an int64 or
    a uint64 array if they fit, else as their dense ranks: int64 in the same order."""
    values = [int(v) for v in arr.flat]
    low, high = min(values, default=0), max(values, default=0)
    if -(2**63) <= low and high < 2**63:
        return np.array(values, dtype=np.int64).reshape(arr.shape)
    if 0 <= low and high < 2**64:
        return np.array(values, dtype=np.uint64).reshape(arr.shape)
    ranks = np.unique(np.array(values, dtype=object), return_inverse=True)[1]
    return ranks.astype(np.int64).reshape(arr.shape)


def _padded(rows, mask):
    """One side's rows in one zero-padded array of ``mask``'s shape, each row's order
    kept exactly: int64 when every row is int64, else float64. An int64 row among
    float rows is cast to float64 when that is exact (every value within
    :math:`\\pm 2^{53}`), else replaced by its dense ranks (0, 1, ...)."""
    kinds = {r.dtype.kind for r in rows}
    if kinds == {"i", "f"}:
        exact = 2**53
        rows = [
            r
            if r.dtype.kind == "f" or (r.min() >= -exact and r.max() <= exact)
            else np.unique(r, return_inverse=True)[1]
            for r in rows
        ]
    out = np.zeros(mask.shape, dtype=np.int64 if kinds == {"i"} else np.float64)
    out[mask] = np.concatenate(rows)
    return out


def _paired(x, y):
    """Validate two rankings of the same items; return zero-padded arrays.

    Each side is int64 if all its values are whole numbers, else float64
    (:func:`_padded`): integers are never rounded (only their order counts).

    Where both sides carry pandas labels they are matched as in
    :func:`rankeval.paired_test`: items by a Series' index or a DataFrame's
    columns, rows by a DataFrame's index; ``y`` is reordered to ``x``'s labels.

    Returns ``(X, Y, batch)``: ``X`` and ``Y`` of shape (n_rows, width), and a
    :class:`Batch` holding ``X``, the row lengths and whether both inputs were
    1-D (then :func:`finish` returns a float); ``batch.mask`` is True where a
    real item stands.
    """
    xs, x_single, x_items, x_rows = _as_rows(x, "x")
    ys, y_single, y_items, y_rows = _as_rows(y, "y")
    single = x_single and y_single
    if not xs or not ys:
        raise ValueError("x and y must hold at least one ranking each")
    if x_rows is not None and y_rows is not None:
        order = _match_labels(
            x_rows,
            y_rows,
            ("x", "y"),
            differ="x and y do not hold the same rows",
            need="rows are matched by their index labels, so both must hold the same ones",
            repeated="each row must have its own label",
            equal_may_repeat=True,
        )
        if order is not None:
            ys = [ys[j] for j in order]
            y_items = [y_items[j] for j in order]
    if x_single and not y_single:
        xs = xs * len(ys)  # one reference ranking against every row of y
        x_items = x_items * len(ys)
    elif y_single and not x_single:
        ys = ys * len(xs)
        y_items = y_items * len(xs)
    if len(xs) != len(ys):
        raise ValueError(f"x holds {len(xs)} rankings but y holds {len(ys)}")
    orders = {}  # one match per pair of label objects (a DataFrame's columns: once)
    for i, (a, b) in enumerate(zip(xs, ys, strict=True)):
        where = "" if single else f" (row {i})"
        if x_items[i] is not None and y_items[i] is not None:
            key = (id(x_items[i]), id(y_items[i]))
            if key not in orders:
                orders[key] = _match_labels(
                    x_items[i],
                    y_items[i],
                    ("x", "y"),
                    differ=f"x and y must rank the same items{where}",
                    need="items are matched by their labels (a Series' index, a DataFrame's "
                    "columns), so both must name the same ones",
                    repeated="each item must have its own label",
                    equal_may_repeat=True,
                )
            if orders[key] is not None:
                ys[i] = b = b[orders[key]]
        if a.size != b.size:
            raise ValueError(
                f"x and y must rank the same items{where}: x has {a.size} values, "
                f"y has {b.size}"
            )
        if a.size < 2:
            raise ValueError(
                f"x and y must hold at least 2 items to compare an order{where}, got {a.size}"
            )
    lengths = np.array([a.size for a in xs], dtype=np.int64)
    mask = np.arange(lengths.max()) < lengths[:, None]
    X, Y = _padded(xs, mask), _padded(ys, mask)
    return X, Y, Batch(X, lengths, single)


# --- Spearman -------------------------------------------------------------------------


def _average_ranks(values, mask):
    """Rank each row ascending (1 = smallest); tied values share their mean rank.

    Sorting puts equal values next to each other. A run of ties that fills
    sorted positions ``first..last`` (0-based) would receive ranks
    ``first + 1, ..., last + 1``; each member gets their mean ``(first + last) / 2 + 1``.
    ``values`` are float64 or int64 (never rounded). Padded cells get the largest
    value of the dtype (+inf, or the largest int64, which a real value may equal);
    they come last in each row of the mask and so, sorted stably, after every real
    value; each starts a run of its own, so that no real value shares one with them.
    """
    width = values.shape[1]
    top = np.inf if values.dtype.kind == "f" else np.iinfo(values.dtype).max
    padded = np.where(mask, values, values.dtype.type(top))
    order = np.argsort(padded, axis=1, kind="stable")
    s = np.take_along_axis(padded, order, axis=1)
    pos = np.arange(width)
    starts = np.ones(s.shape, dtype=bool)  # a new run of equal values starts here
    starts[:, 1:] = (s[:, 1:] != s[:, :-1]) | ~mask[:, 1:]  # the n real values come first
    ends = np.ones(s.shape, dtype=bool)  # a run ends here
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, pos, width)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty(s.shape)
    np.put_along_axis(ranks, order, (first + last) / 2 + 1, axis=1)
    return np.where(mask, ranks, 0.0)


def spearman_rho(x, y):
    r"""Spearman's rank correlation between two rankings of the same items.

    Parameters
    ----------
    x, y : array_like, shape (n_items,) or (n_rows, n_items) or list of lists
        What two rankings say about the same items, aligned by item: ``x[i]``
        and ``y[i]`` are item ``i``'s rank (or score) in the first and the
        second ranking. Both must point the same way (both ranks, or both
        scores). Finite numbers (integers of any size are compared exactly);
        at least 2 items. A 2-D array or a (ragged) list of rows is one
        comparison per row; a 1-D ``x`` with a 2-D ``y`` compares ``x`` with
        every row of ``y`` (and the other way round).
        pandas labels are matched when both sides have them, as in
        :func:`rankeval.paired_test`: the items of two Series by their index
        (of a Series and a DataFrame, its index and the frame's columns; of
        two DataFrames, their columns; of two Series given as rows of lists,
        their index), and the rows of two DataFrames by their index; the labels
        must be the same on both sides, each once, in any order (two equal
        indexes, in the same order, pair by position even if they repeat a
        label: two columns of one frame). Arrays and
        lists are matched by position, also against a Series or DataFrame:
        their i-th value is the Series' i-th item.

    Returns
    -------
    float or ndarray of shape (n_rows,)
        :math:`\rho \in [-1, 1]`: 1 for the same order, -1 for the reversed
        order. ``nan`` when ``x`` or ``y`` is constant (every item tied: the
        ranks have no spread), as in ``scipy.stats.spearmanr``, but without
        a warning.

    Raises
    ------
    ValueError
        ``x`` and ``y`` of different lengths or numbers of rows, fewer than 2
        items, NaN or infinite values; pandas labels that differ between ``x``
        and ``y`` (the message names some found on one side only) or that
        repeat where they must be matched. The same holds for :func:`kendall_tau` and
        :func:`kendall_tau_distance`.
    TypeError
        Values that are not numbers.

    Notes
    -----
    Replace every value by its rank, tied values by the mean of the ranks they
    occupy ("average ranks"), and take Pearson's correlation of the two rank
    vectors :math:`a` and :math:`b`:

    .. math:: \rho = \frac{\sum_i (a_i - \bar a)(b_i - \bar b)}
              {\sqrt{\sum_i (a_i - \bar a)^2 \sum_i (b_i - \bar b)^2}},
              \qquad \bar a = \bar b = \frac{n + 1}{2}.

    Without ties the ranks are a permutation of :math:`1, \dots, n` and this
    equals the classical formula, with :math:`d_i = a_i - b_i`,

    .. math:: \rho = 1 - \frac{6 \sum_i d_i^2}{n (n^2 - 1)}.

    With ties the classical formula is only an approximation; this function
    always computes the Pearson form, which is what ``scipy.stats.spearmanr``
    returns. trec_eval computes no rank correlation. Cost: a sort per row,
    :math:`O(n \log n)` time and :math:`O(n)` memory per row.

    Chapter: :doc:`/chapters/12_rank_correlation`.

    References
    ----------
    - C. Spearman, "The proof and measurement of association between two
      things", *American Journal of Psychology*, vol. 15, no. 1, pp. 72-101, 1904.

    Examples
    --------
    The "Slightly Different" ranking of *Model Evaluation, Part 4* swaps three
    neighbouring pairs of the true order 1..10, so that :math:`\sum d_i^2 = 6`:

    >>> from rankeval import spearman_rho
    >>> rho = spearman_rho(range(1, 11), [1, 3, 2, 4, 6, 5, 7, 9, 8, 10])
    >>> rho, 1 - 6 * 6 / (10 * (10**2 - 1))
    (0.9636, 0.9636)

    The true order against several predictions at once (that source's
    "Identical" and "Reverse" rankings):

    >>> spearman_rho(range(1, 11), [range(1, 11), range(10, 0, -1)])
    array([ 1., -1.])

    Ties get average ranks (2.5 for the two 20s):

    >>> spearman_rho([10, 20, 20, 30], [1, 2, 3, 4])
    0.9487
    """
    X, Y, batch = _paired(x, y)
    mask = batch.mask
    n = mask.sum(axis=1, keepdims=True)
    a = np.where(mask, _average_ranks(X, mask) - (n + 1) / 2, 0.0)
    b = np.where(mask, _average_ranks(Y, mask) - (n + 1) / 2, 0.0)
    spread = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(spread > 0, (a * b).sum(axis=1) / spread, np.nan)
    return finish(np.clip(rho, -1.0, 1.0), batch)


# --- Kendall --------------------------------------------------------------------------


def _dense_ranks(row, values):
    """Per row, the rank of each value among the row's distinct values (0, 1, ...).

    ``row`` must be sorted (row-major order of the items).
    """
    order = np.argsort(values, kind="stable")
    order = order[np.argsort(row[order], kind="stable")]  # by row, then by value
    r, v = row[order], values[order]
    new = np.ones(r.size, dtype=bool)
    new[1:] = (r[1:] != r[:-1]) | (v[1:] != v[:-1])
    dense = np.cumsum(new) - 1  # global ids of the (row, value) groups
    row_start = np.flatnonzero(np.concatenate([[True], r[1:] != r[:-1]]))
    first = np.repeat(dense[row_start], np.diff(np.append(row_start, r.size)))
    ranks = np.empty(r.size, dtype=np.int64)
    ranks[order] = dense - first
    return ranks


def _tied_pairs(keys, scale, n_rows):
    """Per row, the pairs of items with equal ``keys`` (``keys // scale`` is the row)."""
    groups, sizes = np.unique(keys, return_counts=True)
    sizes = sizes.astype(np.float64)
    return np.bincount(groups // scale, weights=sizes * (sizes - 1) / 2, minlength=n_rows)


def _count_inversions(row, position, values, n_rows):
    """Per row, the pairs ``i`` before ``j`` (by ``position``) with ``values[i] > values[j]``.

    Parameters
    ----------
    row, position : ndarray of int, shape (n,)
        Each item's row (0 to ``n_rows - 1``) and its place in that row (distinct
        within a row). Both callers pass the items ordered by row, then position;
        any other order is sorted once first.
    values : ndarray of int, shape (n,)
        Whole numbers from 0 (dense ranks).
    n_rows : int
        The number of rows; a row without items counts 0.

    Returns
    -------
    ndarray of float64, shape (n_rows,)
        The exact counts.

    Notes
    -----
    A radix partition on the bits of the values, most significant bit first, in
    every row at once: the levels of a wavelet tree (Grossi et al. 2003), whose
    successive reshuffling takes the items from position order to value order
    (Navarro 2014). Two different values first differ at one bit, the highest where
    they disagree; the pair is inverted when the earlier item has a 1 there and the
    later item a 0. So, at bit ``b``, within each *group* of items that share their
    row and their value's bits above ``b``, every item whose bit is 0 is inverted
    with each item before it in the group whose bit is 1, and every inverted pair
    is counted at exactly one bit.

    Invariant: before bit ``b`` is read, the items fill the slots in order of row,
    then of their value's bits above ``b``, then of position, so that each group is
    a run of slots in position order. Partitioning each group stably, its 0s first
    and then its 1s, keeps the invariant for bit ``b - 1``, and moves each 0 left
    past exactly the 1s before it in its group: the distance a 0 moves is its count
    of inversions at bit ``b``. The partition stays inside a group, so a slot never
    changes row.

    Each bit takes about fifteen linear NumPy passes (cumulative sums, ``np.repeat``
    and one scatter, no sort), hence :math:`O(n \\log V)` time for ``n`` items and
    ``V = values.max() + 1`` distinct ranks (at most the longest row's length, so
    :math:`O(n \\log n)`), and :math:`O(n)` memory, where Knight's merge sort
    (Knight 1966) would sort all ``n`` items again at each level. No key combines
    row and value, so nothing can overflow: each slot's count is kept as an int64,
    and the rows' sums in float64 are exact below :math:`2^{53}` pairs per row (rows
    under :math:`10^8` items).

    References
    ----------
    - R. Grossi, A. Gupta and J. S. Vitter, "High-order entropy-compressed text
      indexes", *Proceedings of SODA*, pp. 841-850, 2003.
    - G. Navarro, "Wavelet trees for all", *Journal of Discrete Algorithms*,
      vol. 25, pp. 2-20, 2014.
    - W. R. Knight, "A computer method for calculating Kendall's tau with
      ungrouped data", *Journal of the American Statistical Association*,
      vol. 61, no. 314, pp. 436-439, 1966.
    """
    n = row.size
    if n == 0:
        return np.zeros(n_rows)
    same_row = row[1:] == row[:-1]
    if not np.all((row[1:] > row[:-1]) | (same_row & (position[1:] > position[:-1]))):
        order = np.lexsort((position, row))
        row, values = row[order], values[order]
        same_row = row[1:] == row[:-1]
    index = np.int32 if n < 2**31 else np.int64  # slots and ranks; int32 halves the traffic
    v = values.astype(index)  # the value in each slot, reordered at every bit
    slot = np.arange(n, dtype=index)
    row_start = np.ones(n, dtype=bool)
    row_start[1:] = ~same_row
    moved = np.zeros(n, dtype=np.int64)  # per slot, over all bits: how far its 0s moved left
    start = np.empty(n, dtype=bool)
    ones = np.zeros(n + 1, dtype=index)  # ones[i]: items with bit 1 in slots before i
    for b in reversed(range(int(v.max()).bit_length())):
        # Invariant: the slots hold the items in order of row, then of the bits of their
        # value above b, then of position; a group (same row, same bits above b) is a run.
        zero = (v & (1 << b)) == 0
        high = v >> (b + 1)
        np.not_equal(high[1:], high[:-1], out=start[1:])
        start |= row_start  # a group starts here: a new row, or new bits above b
        bounds = np.append(np.flatnonzero(start), n)  # group g fills bounds[g]:bounds[g + 1]
        first, end, sizes = bounds[:-1], bounds[1:], np.diff(bounds)
        np.cumsum(~zero, out=ones[1:])
        before = ones[:-1]
        ones_before_in_group = before - np.repeat(ones[first], sizes)
        # The 0s of a group keep their order at its front, the 1s at its back: a 0 moves
        # left past the 1s before it, a 1 goes to the group's end less the 1s from it on.
        dest = np.where(
            zero, slot - ones_before_in_group, before + np.repeat(end - ones[end], sizes)
        )
        moved += ones_before_in_group * zero  # the inversions at bit b
        v_next = np.empty_like(v)
        v_next[dest] = v
        v = v_next
    return np.bincount(row, weights=moved, minlength=n_rows)


def _kendall_counts(X, Y, mask):
    """Per row: ``n0`` pairs, ``n_x`` and ``n_y`` tied pairs, ``n_xy`` tied in both,
    ``D`` discordant pairs; in :math:`O(n \\log n)` memory-light passes.

    After sorting each row by (x, y), a pair is discordant exactly when its y
    values are strictly inverted (pairs tied in x are sorted by y and so never
    inverted), so ``D`` is an inversion count.
    """
    n_rows = X.shape[0]
    row, _ = np.nonzero(mask)
    xr, yr = _dense_ranks(row, X[mask]), _dense_ranks(row, Y[mask])
    span = int(max(xr.max(), yr.max())) + 1
    if n_rows * span * span >= 2**62:
        raise ValueError("too many items to compare with 64-bit keys")
    key_x = row * span + xr
    key_xy = key_x * span + yr  # row, then x, then y
    n = mask.sum(axis=1).astype(np.float64)
    n0 = n * (n - 1) / 2
    n_x = _tied_pairs(key_x, span, n_rows)
    n_y = _tied_pairs(row * span + yr, span, n_rows)
    n_xy = _tied_pairs(key_xy, span * span, n_rows)
    order = np.argsort(key_xy, kind="stable")  # row by row, by x then y
    r = row[order]
    starts = np.concatenate([[0], np.cumsum(mask.sum(axis=1))[:-1]])
    position = np.arange(r.size) - starts[r]
    discordant = _count_inversions(r, position, yr[order], n_rows)
    return n0, n_x, n_y, n_xy, discordant


def kendall_tau(x, y, *, variant="b"):
    r"""Kendall's rank correlation tau between two rankings of the same items.

    Parameters
    ----------
    x, y : array_like, shape (n_items,) or (n_rows, n_items) or list of lists
        Two rankings (ranks or scores) of the same items, aligned by item
        (pandas Series and DataFrames by their labels); see
        :func:`spearman_rho`.
    variant : {"b", "a"}, default="b"
        ``"b"`` (tau-b, the default of ``scipy.stats.kendalltau``) corrects
        the denominator for tied pairs, so that two identical rankings with
        ties still score 1. ``"a"`` (tau-a) divides by all :math:`n(n-1)/2`
        pairs; with ties it cannot reach 1. Without ties the two agree.

    Returns
    -------
    float or ndarray of shape (n_rows,)
        :math:`\tau \in [-1, 1]`. For tau-b, ``nan`` when ``x`` or ``y`` is
        constant (no untied pair to compare), as in scipy, without a warning;
        tau-a is then 0.

    Raises
    ------
    ValueError
        An unknown ``variant``; bad rankings or pandas labels that differ
        between ``x`` and ``y``, as for :func:`spearman_rho`.
    TypeError
        Values that are not numbers.

    Notes
    -----
    A pair of items is concordant when both rankings order it the same way,
    discordant when they order it oppositely, and counts for neither when
    either ranking ties it. With :math:`C` concordant and :math:`D`
    discordant pairs among :math:`n_0 = n(n-1)/2`, and :math:`n_x`,
    :math:`n_y` the pairs tied in ``x`` and in ``y``:

    .. math:: \tau_a = \frac{C - D}{n_0}, \qquad
              \tau_b = \frac{C - D}{\sqrt{(n_0 - n_x)(n_0 - n_y)}}.

    The counts come from Knight's algorithm (as in ``scipy.stats.kendalltau``,
    which computes tau-b only): the tied pairs from sorted runs, and :math:`D`
    as the inversions of ``y`` once the items are sorted by ``x`` (then
    ``y``), counted in every row at once by a stable partition on each bit of
    the ranks (the levels of a wavelet tree) instead of Knight's merge sort.
    Cost: :math:`O(n \log n)` time and :math:`O(n)` memory per row.
    trec_eval computes no rank correlation.

    Chapter: :doc:`/chapters/12_rank_correlation`.

    References
    ----------
    - M. G. Kendall, "A new measure of rank correlation", *Biometrika*,
      vol. 30, no. 1/2, pp. 81-93, 1938.
    - M. G. Kendall, "The treatment of ties in ranking problems",
      *Biometrika*, vol. 33, no. 3, pp. 239-251, 1945.

    Examples
    --------
    The three neighbouring swaps of *Model Evaluation, Part 4*'s "Slightly
    Different" ranking make 3 of the 45 pairs discordant, so
    :math:`\tau = (42 - 3) / 45`:

    >>> from rankeval import kendall_tau
    >>> kendall_tau(range(1, 11), [1, 3, 2, 4, 6, 5, 7, 9, 8, 10])
    0.8667

    With ties, tau-b and tau-a differ:

    >>> x = [1, 1, 2]
    >>> kendall_tau(x, x), kendall_tau(x, x, variant="a")
    (1.0, 0.6667)

    Two pandas Series are matched by their index, whatever the order they list
    their items in:

    >>> import pandas as pd
    >>> a = pd.Series([0.3, 0.2, 0.1], index=["s1", "s2", "s3"])
    >>> b = pd.Series([0.1, 0.2, 0.3], index=["s3", "s2", "s1"])  # a, backwards
    >>> kendall_tau(a, b)
    1.0
    """
    if variant not in ("a", "b"):
        raise ValueError(f'variant must be "a" or "b", got {variant!r}')
    X, Y, batch = _paired(x, y)
    n0, n_x, n_y, n_xy, discordant = _kendall_counts(X, Y, batch.mask)
    c_minus_d = (n0 - n_x - n_y + n_xy) - 2 * discordant  # C = n0 - n_x - n_y + n_xy - D
    if variant == "a":
        tau = c_minus_d / n0
    else:
        denominator = np.sqrt((n0 - n_x) * (n0 - n_y))
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = np.where(denominator > 0, c_minus_d / denominator, np.nan)
    return finish(np.clip(tau, -1.0, 1.0), batch)


def kendall_tau_distance(x, y, *, normalize=False, tie_penalty=0.0):
    r"""Kendall tau distance: the number of pairs two rankings order oppositely.

    Parameters
    ----------
    x, y : array_like, shape (n_items,) or (n_rows, n_items) or list of lists
        Two rankings (ranks or scores) of the same items, aligned by item
        (pandas Series and DataFrames by their labels); see
        :func:`spearman_rho`.
    normalize : bool, default=False
        Divide by the number of pairs :math:`n(n-1)/2`, giving a value in [0, 1].
    tie_penalty : float in [0, 1], default=0.0
        What a pair tied in one ranking but not in the other costs. The
        classical distance is defined for rankings without ties and counts only
        discordant pairs (penalty 0). Fagin et al. (2004) charge such pairs a
        penalty :math:`p`; :math:`p = 1/2` makes the distance a metric on
        rankings with ties. Pairs tied in both rankings never cost anything.

    Returns
    -------
    float or ndarray of shape (n_rows,)
        A count between 0 and :math:`n(n-1)/2` (a whole number when
        ``tie_penalty`` is 0 or 1), or a fraction in [0, 1] if ``normalize``.

    Raises
    ------
    ValueError
        ``tie_penalty`` outside [0, 1]; bad rankings or pandas labels that
        differ between ``x`` and ``y``, as for :func:`spearman_rho`.
    TypeError
        ``normalize`` not a bool, values that are not numbers.

    Notes
    -----
    With :math:`D` the discordant pairs and :math:`T` the pairs tied in exactly
    one of the two rankings:

    .. math:: K = D + p\,T, \qquad K_{\text{norm}} = \frac{K}{n(n-1)/2}.

    Without ties, :math:`K_{\text{norm}} = (1 - \tau_a) / 2` (see
    :func:`kendall_tau`), and :math:`K` is the number of swaps of neighbours
    (bubble-sort steps) that turn one ranking into the other. Cost as for
    :func:`kendall_tau`: :math:`O(n \log n)` time and :math:`O(n)` memory
    per row (Knight's counts, the discordant pairs bit by bit).

    Chapter: :doc:`/chapters/12_rank_correlation`.

    References
    ----------
    - M. G. Kendall, "A new measure of rank correlation", *Biometrika*,
      vol. 30, no. 1/2, pp. 81-93, 1938.
    - R. Fagin, R. Kumar, M. Mahdian, D. Sivakumar and E. Vee, "Comparing
      and aggregating rankings with ties", *Proceedings of PODS*, pp. 47-58, 2004.

    Examples
    --------
    Swapping neighbours 2-3, 5-6 and 8-9 of the order 1..10 (the "Slightly
    Different" ranking of *Model Evaluation, Part 4*) makes three discordant
    pairs out of 45:

    >>> from rankeval import kendall_tau_distance
    >>> predicted = [1, 3, 2, 4, 6, 5, 7, 9, 8, 10]
    >>> kendall_tau_distance(range(1, 11), predicted)
    3.0
    >>> kendall_tau_distance(range(1, 11), predicted, normalize=True) == 3 / 45
    True
    """
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be True or False, got {normalize!r}")
    p = check_probability(tie_penalty, "tie_penalty", low_open=False, high_open=False)
    X, Y, batch = _paired(x, y)
    n0, n_x, n_y, n_xy, discordant = _kendall_counts(X, Y, batch.mask)
    tied_in_one = n_x + n_y - 2 * n_xy
    distance = discordant + p * tied_in_one
    if normalize:
        distance = distance / n0
    return finish(distance, batch)


# --- inversions of a ranked list -------------------------------------------------------


_FEW_LEVELS = 64  # up to this many distinct grades, count inversions level by level


def inversions(relevance, k=None):
    r"""Number of pairs a ranked list puts in the wrong order.

    A pair of positions :math:`i < j` is an inversion when the item ranked
    higher (at :math:`i`) is strictly less relevant than the item ranked lower
    (at :math:`j`). Ties in relevance are never inversions.

    Parameters
    ----------
    relevance : array_like, shape (n_items,) or (n_queries, n_items) or list of lists
        Grades of the ranked items, best-ranked first. A 1-D input is one query;
        a 2-D array or a (possibly ragged) list of lists is one query per row.
    k : int or None, default=None
        Judge only the first ``k`` items (pairs inside the top ``k``). ``None``
        means the whole list; a ``k`` past the end of a list means the whole list.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        The count, a whole number between 0 and :math:`m(m-1)/2` for a list of
        :math:`m` judged items; 0 for a list sorted by decreasing relevance. A
        query with no relevant item has no inversion.

    Notes
    -----
    .. math:: \text{inv} = \sum_{i < j \le m} \mathbf{1}[g_i < g_j]

    It is the Kendall tau distance (:func:`kendall_tau_distance`) between the
    list's order and the order of the grades, the pairs tied in relevance
    counting nothing. With binary grades it counts, for every relevant item,
    the non-relevant items ranked above it. Zero-padding a ragged batch adds no
    inversion, since a padded 0 at the end is never more relevant than any
    grade before it. Cost: :math:`O(m \cdot L)` for :math:`L` distinct
    grades up to 64, else a count bit by bit of the grades' ranks in
    :math:`O(m \log m)`.

    Chapter: :doc:`/chapters/01_why_ranking`.

    Examples
    --------
    One relevant item (grade 1) behind three non-relevant ones, and a second
    behind all five:

    >>> from rankeval import inversions
    >>> inversions([0, 0, 0, 1, 0, 0, 1])
    8.0
    >>> inversions([[3, 2, 1, 0], [0, 1, 2, 3], [2, 3, 3, 0]])
    array([0., 6., 2.])
    """
    batch = as_batch(relevance)
    k = check_k(k)
    g = batch.grades[:, :k]
    levels = np.unique(g)
    if levels.size <= _FEW_LEVELS:
        # Few distinct grades (the usual case): for each grade v, every item of grade v
        # is inverted with each item of a lower grade ranked above it.
        count = np.zeros(g.shape[0])
        for v in levels[1:]:
            lower_above = np.cumsum(g < v, axis=1, dtype=np.float64)
            count += np.where(g == v, lower_above, 0.0).sum(axis=1)
        return finish(count, batch)
    # Many distinct grades: a count, bit by bit, of the pairs in the wrong order.
    mask = batch.mask[:, :k]
    row, position = np.nonzero(mask)
    values = _dense_ranks(row, -g[mask])  # higher grade, lower value
    return finish(_count_inversions(row, position, values, g.shape[0]), batch)
