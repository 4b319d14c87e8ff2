"""Benchmark: evaluating run files in bounded memory, and the incremental Evaluator.

Generates a seeded TREC run of ``Q x D`` lines (variable-length query and document
ids, scores rounded so that ties occur) in two layouts, **grouped** by query (as TREC
runs are written) and **shuffled**, and qrels of 100 judgments per query (some
unjudged). Then, each in a fresh Python process, reports the time and the peak
resident memory (``ru_maxrss``: interpreter, imports, data and work) of

- ``evaluate(qrels, run_path, measures)``: the whole run read at once;
- the same with ``max_memory="512MB"`` (grouped: one streaming pass; shuffled: a
  partitioning pass through temporary Arrow IPC files, then one partition at a time);
- ``Evaluator.update`` on ``--batches`` batches of ``--batch-rows`` rows (random
  queries among ``Q``, a new document per row), with cut-off measures only, so that its
  state is truncated to depth 10; the time counts the ``update`` calls only (not the
  making of the batches), and ``compute`` is timed apart.

Every bounded result is checked equal (to the last bit) to the in-memory one. One run
of each, no repeats: the numbers are as noisy as the machine. No timed tests use this.

Usage::

    python benchmarks/bench_scale.py                     # 7,000 x 1,000
    python benchmarks/bench_scale.py --queries 1000 --batches 1000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

MEASURES = ["nDCG@10", "AP", "RR", "P@10", "R@100"]
CUT_MEASURES = ["nDCG@10", "P@10", "RR@10"]


def generate(directory: str, n_queries: int, depth: int, seed: int = 0):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    qnum = rng.choice(10**7, size=n_queries, replace=False)
    qids = pc.cast(pa.array(qnum), pa.string())
    rows = np.arange(n_queries * depth, dtype=np.int64)
    q = np.repeat(np.arange(n_queries), depth)
    docnum = (rows * 2654435761) % 10**9  # a bijection: no document twice
    docs = pc.binary_join_element_wise("D", pc.cast(pa.array(docnum), pa.string()), "")
    scores = np.round(rng.normal(size=rows.size), 3)
    rank = np.tile(np.arange(1, depth + 1), n_queries)

    def write(path, table):
        pacsv.write_csv(table, path, pacsv.WriteOptions(include_header=False, delimiter=" ",
                                                        quoting_style="none"))

    run = pa.table({"q": qids.take(pa.array(q)), "it": pa.array(["Q0"] * rows.size),
                    "d": docs, "r": pa.array(rank), "s": pa.array(scores),
                    "tag": pa.array(["bench"] * rows.size)})
    paths = {"grouped": os.path.join(directory, "run_grouped.txt"),
             "shuffled": os.path.join(directory, "run_shuffled.txt")}
    write(paths["grouped"], run)
    write(paths["shuffled"], run.take(pa.array(rng.permutation(rows.size))))
    del run
    # qrels: 80 judged documents of the run per query (from the top 300) + 20 unjudged
    judged_rank = np.concatenate([rng.choice(min(depth, 300), size=min(80, depth),
                                             replace=False) for _ in range(n_queries)])
    jq = np.repeat(np.arange(n_queries), min(80, depth))
    jdocs = docs.take(pa.array(jq * depth + judged_rank))
    extra = pc.binary_join_element_wise("U", pc.cast(pa.array(np.arange(n_queries * 20)),
                                                     pa.string()), "")
    qrels = pa.table({
        "q": pa.concat_arrays([qids.take(pa.array(jq)),
                               qids.take(pa.array(np.repeat(np.arange(n_queries), 20)))]),
        "it": pa.array(["0"] * (len(jq) + n_queries * 20)),
        "d": pa.concat_arrays([jdocs, extra]),
        "g": pa.array(rng.integers(0, 4, size=len(jq) + n_queries * 20)),
    })
    paths["qrels"] = os.path.join(directory, "qrels.txt")
    write(paths["qrels"], qrels)
    return paths


CHILD = r"""
import json, sys, time
args = json.loads(sys.argv[1])
import pandas, pyarrow, pyarrow.csv  # imports are not timed
import rankeval
import rankeval.evaluation.runs
t0 = time.perf_counter()
if args["mode"] == "update":
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    qrels = rankeval.read_qrels(args["qrels"], as_table=True)
    qids = pc.unique(qrels.column("query_id"))
    ev = rankeval.Evaluator(qrels, args["measures"])
    rng = np.random.default_rng(1)
    spent = 0.0
    n, rows = args["batches"], args["rows"]
    for b in range(n):
        q = qids.take(pa.array(rng.integers(0, len(qids), size=rows)))
        d = pa.array([f"D{b}-{i}" for i in range(rows)])
        s = pa.array(np.round(rng.normal(size=rows), 3))
        t = time.perf_counter()
        ev.update(q, d, s)
        spent += time.perf_counter() - t
    t = time.perf_counter()
    frame = ev.compute()
    out = {"time": spent, "compute": time.perf_counter() - t, "rows_held": ev.rows,
           "queries": len(frame)}
else:
    options = {} if args["mode"] == "memory" else {"max_memory": args["budget"]}
    frame = rankeval.evaluate(args["qrels"], args["run"], args["measures"], **options)
    out = {"time": time.perf_counter() - t0, "queries": len(frame)}
    frame.to_pickle(args["out"])
# VmHWM, not ru_maxrss: Linux keeps ru_maxrss across execve, so a child would report
# the generating parent's peak
with open("/proc/self/status") as f:
    hwm = next(line for line in f if line.startswith("VmHWM:"))
out["maxrss_mb"] = int(hwm.split()[1]) / 1024
print(json.dumps(out))
"""


def child(**args) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(args)], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=7000)
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--budget", default="512MB")
    p.add_argument("--batches", type=int, default=10_000)
    p.add_argument("--batch-rows", type=int, default=1000)
    args = p.parse_args(argv)
    import pandas as pd

    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        t = time.perf_counter()
        paths = generate(tmp, args.queries, args.depth)
        size = os.path.getsize(paths["grouped"]) / 2**20
        lines = args.queries * args.depth
        print(f"run: {args.queries:,} x {args.depth:,} = {lines:,} lines, {size:.0f} MB "
              f"(generated in {time.perf_counter() - t:.1f} s); measures {MEASURES}")
        rows = []
        frames = {}
        for layout in ("grouped", "shuffled"):
            for mode in ("memory", "bounded"):
                out = os.path.join(tmp, f"{layout}-{mode}.pkl")
                r = child(mode=mode, qrels=paths["qrels"], run=paths[layout],
                          measures=MEASURES, budget=args.budget, out=out)
                frames[layout, mode] = pd.read_pickle(out)
                label = "evaluate, whole file" if mode == "memory" else \
                    f"evaluate, max_memory={args.budget}"
                rows.append((f"{layout}: {label}", r["time"], r["maxrss_mb"],
                             r["time"] / lines * 1e6))
        reference = frames["grouped", "memory"]
        same_rows = all(f.index.equals(reference.index) and list(f.columns) == list(
            reference.columns) for f in frames.values())
        gap = max(float((f - reference).abs().max().max()) for f in frames.values())
        print(f"\n{'work':<48} {'call s':>8} {'peak MB':>9} {'s / M lines':>12}")
        for name, secs, mb, per in rows:
            print(f"{name:<48} {secs:>8.2f} {mb:>9.0f} {per:>12.3f}")
        print(f"same queries and columns in all four frames: {same_rows}; largest "
              f"difference of a value from the whole-file one: {gap:.1e} (blocks round "
              "differently in the last bit)")

        u = child(mode="update", qrels=paths["qrels"], measures=CUT_MEASURES,
                  batches=args.batches, rows=args.batch_rows)
        n = args.batches * args.batch_rows
        print(f"\nEvaluator.update: {args.batches:,} batches x {args.batch_rows:,} rows "
              f"({CUT_MEASURES}, state truncated to depth 10)")
        print(f"  update time {u['time']:.2f} s = {n / u['time'] / 1e6:.2f} M rows/s; "
              f"compute {u['compute']:.2f} s; rows held at the end {u['rows_held']:,}; "
              f"peak {u['maxrss_mb']:.0f} MB (process, batches included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
