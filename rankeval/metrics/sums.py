r"""Per-query sums in rank order: the same value to the last bit, whatever the padding.

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

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["row_sum"]

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
