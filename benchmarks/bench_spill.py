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

With ``--command-line`` it measures instead the command line's peak memory
(``VmHWM``) on one run at a budget, read from the file, from standard input and from a
pipe (``<(cat run)``), each in a fresh process, next to the same process on the run's
first 1,000 lines: the floor that Python, NumPy, pandas, pyarrow and the compiled
kernels take whatever the run, which no budget bounds (issue 52: a 44 MB run at
``--max-memory 16MB`` peaked at 129 MB from the file, most of it this floor, and at
174 MB from standard input, then read whole). Without ``--run`` it writes a grouped
run of about 44 MB (1,400 queries x 1,000 lines) and its qrels to a temporary folder.

Usage::

    python benchmarks/bench_spill.py                       # bench_scale's 7,000 x 1,000 run
    python benchmarks/bench_spill.py --run path/to/run.txt --budget 512MB
    python benchmarks/bench_spill.py --command-line --budget 16MB
"""

from __future__ import annotations

import argparse
import itertools
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


CLI_CHILD = r"""
import json, os, sys
args = json.loads(sys.argv[1])
sys.path.insert(0, args["benchmarks"])
from bench_runs import _peak_mb as peak
from rankeval.cli import main
with open(os.devnull, "w") as sys.stdout:
    status = main(args["argv"])
sys.stdout = sys.__stdout__
print(json.dumps({"status": status, "peak_mb": peak()}))
"""


def _write_run(folder: str) -> tuple:
    """A grouped run of about 44 MB (1,400 queries x 1,000 lines) and its qrels."""
    import numpy as np

    rng = np.random.default_rng(0)
    qrels, run = os.path.join(folder, "qrels.txt"), os.path.join(folder, "run.txt")
    with open(qrels, "w") as f:
        for q in range(1400):
            f.writelines(f"q{q} 0 doc{d} {rng.integers(0, 3)}\n"
                         for d in rng.choice(2000, 50, replace=False))
    with open(run, "w") as f:
        for q in range(1400):
            scores = np.sort(rng.random(1000))[::-1]
            f.writelines(f"q{q} Q0 doc{d} {r} {scores[r]:.6f} tag\n"
                         for r, d in enumerate(rng.permutation(2000)[:1000]))
    return qrels, run


def command_line(run, qrels, budget: str) -> None:
    """Print the command line's peak memory on ``run`` read from the file, standard
    input and a pipe, and on its first 1,000 lines (the floor), each in a fresh process."""
    import tempfile

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        if run is None:
            qrels, run = _write_run(tmp)
        head = os.path.join(tmp, "head.txt")
        with open(run, "rb") as f, open(head, "wb") as out:
            out.writelines(itertools.islice(f, 1000))
        fifo = os.path.join(tmp, "pipe")
        print(f"{run}: {os.path.getsize(run) / 2**20:.0f} MB; --max-memory {budget}\n")
        print(f"{'read from':<28} {'peak MB':>8}")
        for label, source, stdin in [("the first 1,000 lines", head, None),
                                     ("the file", run, None), ("standard input", "-", run),
                                     ("a pipe", fifo, None)]:
            feeder = None
            if source == fifo:
                os.mkfifo(fifo)
                feeder = subprocess.Popen(f"cat '{run}' > '{fifo}'", shell=True)
            with open(stdin or os.devnull, "rb") as given:
                done = subprocess.run([sys.executable, "-c", CLI_CHILD, json.dumps(
                    {"argv": [qrels, source, "-m", "P.5", "-m", "ndcg_cut.10",
                              "--max-memory", budget],
                     "benchmarks": str(Path(__file__).resolve().parent)})],
                    stdin=given, capture_output=True, text=True, env=env, timeout=3600)
            if feeder is not None:
                feeder.wait(timeout=600)
            if done.returncode:
                print(f"{label:<28} failed: {done.stderr.strip().splitlines()[-1]}")
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{label:<28} {r['peak_mb']:>8.0f}", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", default=None,
                   help="a run file in random line order (default: bench_scale.py's "
                        "7,000 x 1,000 run; with --command-line, a generated 44 MB run)")
    p.add_argument("--qrels", default=None, help="with --command-line and --run: its qrels")
    p.add_argument("--budget", default="512MB")
    p.add_argument("--command-line", action="store_true",
                   help="the command line's peak memory: file, standard input, pipe")
    args = p.parse_args(argv)
    sys.path.insert(0, str(REPO))
    if args.command_line:
        if (args.run is None) != (args.qrels is None):
            p.error("--command-line takes both --run and --qrels, or neither")
        command_line(args.run, args.qrels, args.budget)
        return 0
    args.run = args.run or "/tmp/rankeval_scale/scale_7000x1000_shuffled.txt"
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
