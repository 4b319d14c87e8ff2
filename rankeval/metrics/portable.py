r"""Numbers that are the same to the last bit for any padding and on any CPU.

**Sums in rank order.**

The kernels score a block of queries as one matrix, each row a ranking padded with
zeros to the block's longest list. NumPy's ``sum`` along a row adds the terms
pairwise, in groups set by the row's *width*, and a matrix product (``@``) in the
order of the CPU's BLAS kernel; either way a query's value can move in its last bit
when it is scored in another block, alone, or next to a longer query. Adding the
terms one after the other, in rank order (as trec_eval's loops add them), gives
one result for every width: the padding adds ``0.0``, which changes nothing.

:func:`row_sum` is that sum, vectorised across the queries: it adds column after
column (rank after rank) to a running total of every row, in tiles of rows that
stay in the cache; for a handful of rows ``np.cumsum`` along the row, which adds
in the same order, costs less than a Python loop over the columns.

**The C library's functions.** On a CPU with AVX-512, NumPy computes ``log2``,
``log`` and ``power`` of float64 arrays with its own vector code, which differs from
the C library's result in the last bit for some arguments (``0.8 ** 2``, ``log2(1621)``);
on other CPUs (or under ``NPY_DISABLE_CPU_FEATURES``) it calls the C library. A
discount or a gain computed by NumPy would then differ between machines.
:func:`each` computes them with Python's :mod:`math` (the C library's scalar
functions) once per distinct argument: ranks and grades take few distinct values.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["row_sum", "each", "log2", "exp2"]

_TILE_CELLS = 1 << 19  # cells of one tile of rows (4 MB of float64): fits the cache
_FEW_ROWS = 256  # below this many rows, np.cumsum beats a loop over the columns


def row_sum(terms) -> np.ndarray:
    r"""Each row's sum, its terms added left to right: :math:`(\dots((0 + t_1) + t_2)
    + \dots) + t_w`.

    Parameters
    ----------
    terms : array_like of shape (n_rows, width)
        Numbers (booleans count as 0 and 1).

    Returns
    -------
    ndarray of float64, shape (n_rows,)
        The sums; a row of zeros (or of ``-0.0``) sums to ``0.0``.

    Notes
    -----
    Every addition is one IEEE-754 double addition, in a fixed order, so the result
    does not depend on the row's width (trailing zeros add nothing), on the other
    rows, or on the CPU's vector instructions. ``np.sum`` adds a row of 8 or more
    terms pairwise, in an order set by the width; ``@`` and ``np.dot`` in the BLAS
    kernel's order.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.1] * 10])
    >>> row_sum(x) == row_sum(np.pad(x, ((0, 0), (0, 30))))  # padding adds nothing
    array([ True])
    >>> float(row_sum(x)[0]) == sum([0.1] * 10)  # Python's sum adds in order too
    True
    """
    x = np.asarray(terms, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"row_sum takes a 2-D array, got {x.ndim}-D")
    n, width = x.shape
    if width == 0 or n == 0:
        return np.zeros(n)
    if n < _FEW_ROWS:
        out = np.cumsum(x, axis=1)[:, -1]
    else:
        out = np.empty(n)
        rows = max(_TILE_CELLS // width, 64)
        for start in range(0, n, rows):
            tile = x[start : start + rows]
            total = out[start : start + rows]
            total[...] = tile[:, 0]
            for j in range(1, width):
                total += tile[:, j]
    out += 0.0  # -0.0 (a row of -0.0 alone) is 0.0, as it is once padded with 0.0
    return out


def each(fn, x, fallback) -> np.ndarray:
    r"""``fn(v)`` for every element ``v`` of ``x``, by a scalar function of the C library.

    Parameters
    ----------
    fn : callable
        A function of one float, e.g. :func:`math.log2`, or ``lambda v: p ** v``
        (Python's ``**`` on floats is the C library's ``pow``).
    x : array_like
        The arguments (converted to float64).
    fallback : callable
        NumPy's version of ``fn``, for the arguments where Python raises (``log2(0)``,
        an overflow) or returns a complex number: it gives the special value
        (``-inf``, ``inf``, ``nan``), the same on every CPU.

    Returns
    -------
    ndarray of float64, shape of ``x``

    Notes
    -----
    ``fn`` is called once per distinct value: through a table over the range when
    the arguments are whole numbers in a short range (ranks, grades), else through
    ``np.unique``. The values are those of NumPy on a CPU without AVX-512, on every
    CPU.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> each(math.log2, [[2, 4], [8, 0]], np.log2)
    array([[  1.,   2.],
           [  3., -inf]])
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return np.zeros(x.shape)
    flat = x.ravel()
    lo, hi = flat.min(), flat.max()
    if (
        np.isfinite(lo) and np.isfinite(hi) and hi - lo < min(1 << 20, 2 * flat.size + 4096)
        and bool((flat == np.floor(flat)).all())
    ):  # fmt: skip
        table = np.array([_one(fn, fallback, float(v)) for v in range(int(lo), int(hi) + 1)])
        return table[(flat - lo).astype(np.intp)].reshape(x.shape)
    values, inverse = np.unique(flat, return_inverse=True)
    table = np.array([_one(fn, fallback, v) for v in values.tolist()])
    return table[inverse].reshape(x.shape)


def _one(fn, fallback, v: float) -> float:
    try:
        out = fn(v)
        if isinstance(out, float):
            return out
        if isinstance(out, int):
            return float(out)
    except (ValueError, OverflowError, ZeroDivisionError):
        pass
    with np.errstate(all="ignore"):
        return float(fallback(np.float64(v)))


def log2(x) -> np.ndarray:
    """``np.log2(x)``, the same on every CPU (:func:`each` with :func:`math.log2`)."""
    return each(math.log2, x, np.log2)


def exp2(x) -> np.ndarray:
    """``2.0 ** x``, the same on every CPU (:func:`each` with :func:`math.exp2`)."""
    return each(math.exp2, x, np.exp2)
