"""Arrow's freed memory handed back between the large steps of :func:`rankeval.rank_run`."""

from __future__ import annotations

__all__ = ["release_memory"]

def release_memory() -> None:
    """Hand the memory Arrow's pool has freed back to the operating system now.

    Arrow's default allocator (mimalloc) keeps freed pages for a while before
    returning them. Between the large steps of :func:`rank_run` (reading,
    joining, sorting) that memory would otherwise add to the peak of the next
    step, whose NumPy arrays come from the C library's malloc, not from
    Arrow's pool (the ``peak MB`` column of ``benchmarks/bench_runs.py``).

    The C heap (NumPy's freed arrays) is left to the C library, which keeps
    it for the next allocation, as it does for any program: trimming it
    (glibc's ``malloc_trim``) after each call would make the next call fault
    every page back in. It changes no value.
    """
    import pyarrow as pa

    pa.default_memory_pool().release_unused()

