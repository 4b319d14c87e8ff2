"""Benchmark: how a run file in random line order is regrouped by query, in bounded memory.

``evaluate(..., max_memory=...)`` meets a run whose lines are not grouped by query with
a partitioning pass (``rankeval.evaluation.bounded``): the file is read in record batches
by rankeval's own TREC reader and every row is written to one of ``n`` temporary Arrow
IPC files by a fixed hash of its query id; each file then holds whole queries. The issue
that asked for it named two engines that already group out of core: DuckDB and polars'
streaming engine. This script times the same step with each tool available, each in a
fresh process, and prints time and peak memory (``VmHWM``) side by side:

- ``rankeval``: ``partition_batches(prefetch(run_batches(...)))``, as ``evaluate`` runs
  it (the budget's batch size, 1/16 of the budget of file per partition);
- ``duckdb``: ``COPY (SELECT query_id, doc_id, score FROM read_csv(...)) TO dir
  (FORMAT parquet, PARTITION_BY (bucket))`` with ``bucket = hash(query_id) % n`` and
  ``memory_limit`` set to the budget, one thread per core;
- ``duckdb-sort``: the same, but one file sorted by query (``ORDER BY query_id``), after
  which a grouped pass would read it.

Only the regrouping is timed: none of them scores anything, and DuckDB's CSV reader
applies its own rules (it does not check trec_eval's layout, comments or line numbers).
DuckDB is not a dependency of rankeval; it is measured when it is installed
(``pip install duckdb``) and skipped otherwise.

Usage::

    python benchmarks/bench_spill.py                       # bench_scale's 7,000 x 1,000 run
    python benchmarks/bench_spill.py --run path/to/run.txt --budget 512MB
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, sys, tempfile, time
args = json.loads(sys.argv[1])
sys.path.insert(0, args["benchmarks"])
from bench_runs import _peak_mb as peak  # VmHWM, as every benchmark here
import pyarrow  # not timed
out = {}
with tempfile.TemporaryDirectory(prefix="spill-") as tmp:
    t = time.perf_counter()
    if args["tool"] == "rankeval":
        from rankeval.evaluation.bounded import block_size
        from rankeval.io.stream import partition_batches, prefetch, run_batches
        paths = partition_batches(prefetch(run_batches(args["run"], block_size(args["budget"]))),
                                  args["n"], tmp)
        out["files"] = len(paths)
    else:
        import duckdb
        con = duckdb.connect()
        con.execute(f"SET memory_limit='{args['budget'] // 2**20}MB'")
        con.execute(f"SET threads={os.cpu_count()}")
        con.execute(f"SET temp_directory='{tmp}/duck-temp'")
        source = ("read_csv('" + args["run"] + "', delim=' ', header=false, "
                  "columns={'query_id': 'VARCHAR', 'q0': 'VARCHAR', 'doc_id': 'VARCHAR', "
                  "'rank': 'VARCHAR', 'score': 'DOUBLE', 'tag': 'VARCHAR'})")
        if args["tool"] == "duckdb":
            con.execute(f"COPY (SELECT query_id, doc_id, score, hash(query_id) % {args['n']} "
                        f"AS bucket FROM {source}) TO '{tmp}/parts' "
                        "(FORMAT parquet, PARTITION_BY (bucket))")
        else:
            con.execute(f"COPY (SELECT query_id, doc_id, score FROM {source} "
                        f"ORDER BY query_id) TO '{tmp}/sorted.parquet' (FORMAT parquet)")
        out["files"] = sum(len(f) for _, _, f in os.walk(tmp))
    out["time"] = time.perf_counter() - t
out["peak_mb"] = peak()
print(json.dumps(out))
"""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", default="/tmp/rankeval_scale/scale_7000x1000_shuffled.txt",
                   help="a run file in random line order (bench_scale.py writes one)")
    p.add_argument("--budget", default="512MB")
    args = p.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from rankeval.evaluation.bounded import parse_memory

    budget = parse_memory(args.budget)
    size = os.path.getsize(args.run)
    n = max(1, -(-size // (budget // 16)))  # as evaluate counts them
    print(f"{args.run}: {size / 2**20:.0f} MB; budget {args.budget}; {n} partitions\n")
    print(f"{'tool':<12} {'time s':>8} {'peak MB':>9} {'files':>6}")
    for tool in ("rankeval", "duckdb", "duckdb-sort"):
        if tool.startswith("duckdb"):
            import importlib.util

            if importlib.util.find_spec("duckdb") is None:
                print(f"{tool:<12} skipped: duckdb is not installed (pip install duckdb)")
                continue
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
        done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(
            {"tool": tool, "run": args.run, "budget": budget, "n": n,
             "benchmarks": str(Path(__file__).resolve().parent)})],
            capture_output=True, text=True, env=env, timeout=3600)
        if done.returncode:
            print(f"{tool:<12} failed: {done.stderr.strip().splitlines()[-1]}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{tool:<12} {r['time']:>8.2f} {r['peak_mb']:>9.0f} {r['files']:>6}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
