"""Four steps of issue 51's evaluation, each against the way it was done before, side
by side in one run: the figures that the docstrings and comments of
``rankeval/ranking/ordering.py``, ``rankeval/evaluation/bounded.py`` and
``rankeval/io/tables.py`` quote.

1. The order of a run not grouped by query (shuffled rows, scores of 4 decimals with
   ties): Arrow's stable multi-key ``sort_indices`` against the per-query NumPy sort
   (``ordering._by_query_then_score``), at several query sizes; the two orders are
   checked equal.
2. The order of 2 million distinct string query ids (of 1 to 8 digits, and of 20
   characters): Arrow's ``sort_indices`` against their bytes as big-endian words
   (``bounded._text_order``); checked equal.
3. The bounded path's lookup: 25 batches of 80,000 query keys searched among 2
   million sorted keys, in random order against in ascending order; checked equal.
4. The heads of the 26 million qrels rows of ``bench_scale.py``'s 2,000,000 x 3
   shape, read by ``rankeval.read_qrels`` (121 chunks): Arrow's take of the chunked
   array (first and second call) against ``rankeval.io.tables.take_ascending``
   (``--skip-take`` leaves it out: the file is 503 MB).

Usage::

    python benchmarks/bench_steps.py [--dir /tmp/rankeval_scale] [--skip-take]

Each time is the best of ``--repeat`` calls in this process (the take of part 4: one
call each, in the order printed, as the first call is the one that differs).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rankeval.evaluation.bounded import _text_order  # noqa: E402
from rankeval.io.tables import take_ascending  # noqa: E402
from rankeval.ranking.ordering import _by_query_then_score  # noqa: E402


def best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def row(cells, widths):
    return "  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                     for i, (c, w) in enumerate(zip(cells, widths, strict=True)))


def table(title, header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    print(title)
    print(row(header, widths))
    print(row(["-" * w for w in widths], widths))
    for r in rows:
        print(row(r, widths))
    print(flush=True)


def sorts(repeat):
    rng = np.random.default_rng(0)
    rows = []
    for n_queries, depth in ((875, 1000), (10_000, 100), (33_000, 30), (60_000, 16),
                             (200_000, 10)):
        q = np.repeat(np.arange(n_queries, dtype=np.int32), depth)
        s = np.round(rng.gamma(2.0, 3.0, q.size), 4)
        shuffle = rng.permutation(q.size)
        q, s = q[shuffle], s[shuffle]
        arrow, a = best(lambda q=q, s=s: pc.sort_indices(
            pa.table({"q": q, "s": s}),
            sort_keys=[("q", "ascending"), ("s", "descending")]).to_numpy(), repeat)
        numpy, b = best(lambda q=q, s=s: _by_query_then_score(q, s), repeat)
        rows.append((f"{n_queries:,} x {depth:,}", f"{arrow:.3f}", f"{numpy:.3f}",
                     f"{arrow / numpy:.2f}", str(bool(np.array_equal(a, b)))))
    table("1. A shuffled run's order by query, then score descending (stable)",
          ["queries x rows", "Arrow s", "per query s", "Arrow / per query", "same"], rows)


def id_orders(repeat):
    rng = np.random.default_rng(1)
    short = list(dict.fromkeys(str(x) for x in rng.integers(0, 10**8, 2_100_000)))[:2_000_000]
    long = [f"query-{i:08d}-{j:05d}"[:20] for i, j in
            zip(rng.permutation(2_000_000), rng.integers(0, 10**5, 2_000_000), strict=True)]
    rows = []
    for label, values in (("1 to 8 digits", short), ("20 characters", long)):
        ids = pa.array(values, pa.string())
        arrow, a = best(lambda ids=ids: pc.sort_indices(ids).to_numpy(), repeat)
        words, b = best(lambda ids=ids: _text_order(ids), repeat)
        rows.append((label, f"{len(values):,}", f"{arrow:.3f}", f"{words:.3f}",
                     f"{arrow / words:.2f}", str(bool(np.array_equal(a, b)))))
    table("2. The order of distinct string ids by their bytes",
          ["ids", "n", "Arrow s", "words s", "Arrow / words", "same"], rows)


def lookups(repeat):
    rng = np.random.default_rng(2)
    keys = np.sort(rng.integers(0, 2**63, 2_000_000).astype(np.uint64))
    batches = [keys[rng.integers(0, keys.size, 80_000)] for _ in range(25)]

    def random_order():
        return [np.searchsorted(keys, b) for b in batches]

    def ascending():
        out = []
        for b in batches:
            by_key = np.argsort(b, kind="stable")
            pos = np.empty(b.size, dtype=np.intp)
            pos[by_key] = np.searchsorted(keys, b[by_key])
            out.append(pos)
        return out

    t_random, a = best(random_order, repeat)
    t_sorted, b = best(ascending, repeat)
    same = all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    table("3. 25 batches of 80,000 keys searched among 2,000,000 sorted keys",
          ["keys", "random order s", "ascending s", "random / ascending", "same"],
          [("uint64", f"{t_random:.3f}", f"{t_sorted:.3f}", f"{t_random / t_sorted:.2f}",
            str(same))])


def takes(directory):
    import rankeval

    path = Path(directory) / "scale_2000000x3_qrels.txt"
    if not path.exists():
        sys.path.insert(0, str(REPO / "benchmarks"))
        from bench_scale import generate

        generate(Path(directory), 2_000_000, 3)
    qrels = rankeval.read_qrels(str(path), as_table=True)
    ids = qrels.column("query_id")
    n = len(ids)
    change = np.empty(n, dtype=bool)
    change[0] = True
    change[1:] = pc.not_equal(ids.slice(1), ids.slice(0, n - 1)).to_numpy()
    heads = np.flatnonzero(change)
    rows = []
    for label, fn in (("take_ascending", lambda: take_ascending(ids, heads)),
                      ("Arrow's take, first call", lambda: ids.take(pa.array(heads))),
                      ("Arrow's take, second call", lambda: ids.take(pa.array(heads)))):
        t = time.perf_counter()
        got = fn()
        rows.append((label, f"{time.perf_counter() - t:.3f}", f"{len(got):,}"))
    table(f"4. The {len(heads):,} heads of {n:,} qrels rows in {ids.num_chunks} chunks "
          "(one call each, in this order)", ["take", "s", "rows"], rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--dir", default="/tmp/rankeval_scale", help="bench_scale.py's data")
    p.add_argument("--skip-take", action="store_true")
    args = p.parse_args(argv)
    print(f"{time.strftime('%Y-%m-%d %H:%M')} on {platform.node()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}; pyarrow {pa.__version__}, NumPy "
          f"{np.__version__}\n", flush=True)
    sorts(args.repeat)
    id_orders(args.repeat)
    lookups(args.repeat)
    if not args.skip_take:
        takes(args.dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
