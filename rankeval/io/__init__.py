"""The I/O layer: qrels and runs in any form <-> one canonical Arrow table.

- :mod:`rankeval.io.tables`: the canonical table, its checks, and its builders from
  dicts and frames (pandas, polars, Arrow);
- :mod:`rankeval.io.trec`: the TREC file reader (plain or compressed files, stdin);
- :mod:`rankeval.io.canonical`: :func:`qrels_table` and :func:`run_table`, the one
  entry that sends each source to its reader;
- :mod:`rankeval.io.writers`: TREC files out.

This is where rankeval first imports pyarrow, and so where it sets one default for
Arrow's allocator (mimalloc, linked into pyarrow): ``MIMALLOC_ARENA_EAGER_COMMIT=0``,
only if the environment does not set it and pyarrow is not imported yet. mimalloc
then commits its arenas' memory page by page as it is used, instead of whole arenas
when they are reserved; that lowers the peak memory of ``evaluate`` on large runs
and changes no value (``benchmarks/README.md`` says how it was measured). mimalloc
reads the variable when pyarrow is loaded and later, so it stays set, and child
processes inherit it. ``import rankeval`` alone loads no pyarrow and changes nothing.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

import os as _os
import sys as _sys

if "pyarrow" not in _sys.modules:
    _os.environ.setdefault("MIMALLOC_ARENA_EAGER_COMMIT", "0")

from .canonical import qrels_table, run_table  # noqa: E402
from .trec import read_qrels, read_run  # noqa: E402
from .writers import write_qrels, write_run  # noqa: E402

__all__ = ["qrels_table", "run_table", "read_qrels", "read_run", "write_qrels", "write_run"]
