"""Benchmark for issue 51, item 1: the command line's per-query output (``-q``).

Times, side by side in one run, each command in a fresh process (wall time, Python's
start and imports included, output to a file) and its peak memory (``ru_maxrss``):

- ``rankeval -m all_trec``: the summary only (reading, scoring, the ``all`` lines);
- ``rankeval -q -m all_trec`` with the line-by-line writer of before issue 51 (kept
  below as ``_line_by_line``, swapped in for the run);
- ``rankeval -q -m all_trec`` as it is (the per-query lines written in bulk);
- compiled trec_eval, ``-m all_trec`` and ``-q -m all_trec``, when there is one
  (``--trec-eval PATH``, or ``trec_eval`` on the PATH); none: the table says so.

The data are ``bench_scale.py``'s MS MARCO-like runs (``--queries`` x ``--depth`` lines,
grouped by query; default 10,000 x 100, 1 M lines: about 950,000 per-query lines). The
commands take turns (``--repeat`` rounds; the median is printed), so the machine's load
falls on all of them alike: compare the ratios, not the seconds. The checks: the two
writers' outputs are the same bytes, and equal to trec_eval's less its ``relstring``
lines (a string that rankeval does not compute). No test times anything.

Usage::

    python benchmarks/bench_cli.py                                  # 10,000 x 100
    python benchmarks/bench_cli.py --queries 30000 --depth 100      # 3 M lines
    python benchmarks/bench_cli.py --trec-eval /path/to/trec_eval
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


# --- the writer before issue 51: one f-string per (query, measure) ------------------------


def _line_by_line():
    """The ``lines`` writers of rankeval.reporting.text before issue 51, by format."""
    import numpy as np

    from rankeval.reporting.text import number, runid_line

    def per_query(r, run_queries_only=False):
        cols = [np.asarray(r.table.iloc[:, j], dtype=np.float64) for j in range(len(r.labels))]
        todo = [j for j in range(len(r.labels)) if r.shown[j]]
        for i, q in enumerate(r.table.index):
            if run_queries_only and r.in_run is not None and not r.in_run[i]:
                continue
            for j in todo:
                yield str(q), r.labels[j], cols[j][i], r.kinds[j]

    def trec(results, options):
        several = len(results) > 1
        for r in results:
            if several:
                yield runid_line(r.name)
            if options.per_query:
                for q, label, value, kind in per_query(r, options.skip_missing_lines):
                    yield f"{label:<22}\t{q}\t{number(value, kind, options.digits)}\n"
            if options.no_summary:
                continue
            if r.runid and not several:
                yield runid_line(r.tag or r.name)
            for label, value, kind in r.summary():
                yield f"{label:<22}\tall\t{number(value, kind, options.digits)}\n"

    def rows(results, options):
        for r in results:
            if options.per_query:
                yield from ((r.name, q, label, value, kind)
                            for q, label, value, kind in per_query(r))  # fmt: skip
            if not options.no_summary:
                yield from ((r.name, "all", label, value, kind)
                            for label, value, kind in r.summary())  # fmt: skip

    def tsv(results, options):
        yield "run\tquery\tmeasure\tvalue\n"
        for run, q, label, value, kind in rows(results, options):
            yield f"{run}\t{q}\t{label}\t{number(value, kind, options.digits)}\n"

    def jsonl(results, options):
        for run, q, label, value, kind in rows(results, options):
            if math.isnan(value):
                value = None
            elif kind == "sum":
                value = int(round(value))
            record = {"run": run, "query": q, "measure": label, "value": value}
            yield json.dumps(record, ensure_ascii=False) + "\n"

    return {"trec_eval": trec, "tsv": tsv, "jsonl": jsonl}


def _old_write_lines(lines, write, batch=4096):
    buffer = []
    for line in lines:
        buffer.append(line)
        if len(buffer) >= batch:
            write("".join(buffer))
            buffer.clear()
    write("".join(buffer))


CHILD = r"""
import sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
if sys.argv[3] == "line-by-line":
    import bench_cli
    from rankeval.reporting import text
    text._LINES = bench_cli._line_by_line()
    text.write_lines = bench_cli._old_write_lines
from rankeval.cli import main
sys.exit(main(sys.argv[4:]))
"""


WRITERS_ALONE = r"""
import json, os, sys, time
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import bench_cli
from rankeval.reporting import text
from rankeval.cli import main
caught = {}
def capture(results, options):
    caught.update(results=results, options=options)
    return iter(())
text.lines = capture
assert main(sys.argv[4:]) == 0
results, options = caught["results"], caught["options"]
old = bench_cli._line_by_line()[options.format]
times = {"before": [], "now": []}
with open(os.devnull, "w", encoding="utf-8") as sink:
    for _ in range(int(sys.argv[3])):
        start = time.perf_counter()
        bench_cli._old_write_lines(old(results, options), sink.write)
        times["before"].append(time.perf_counter() - start)
        start = time.perf_counter()
        text.write_lines(text._LINES[options.format](results, options), sink.write)
        times["now"].append(time.perf_counter() - start)
print(json.dumps(times))
"""


# --- measuring ----------------------------------------------------------------------------


def timed(command, out_path) -> dict:
    """Wall time and peak memory (MB) of ``command`` in a fresh process, stdout to a file."""
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"{command[:4]}... exited {proc.returncode}: {err[-2000:]}")
    return {"time": seconds, "peak_mb": usage.ru_maxrss / 1024}


def _split(data: bytes):
    """(per-query lines, summary lines) of a trec_eval text, less relstring's lines."""
    kept = [line for line in data.splitlines(keepends=True) if not line.startswith(b"relstring")]
    return ([line for line in kept if b"\tall\t" not in line],
            [line for line in kept if b"\tall\t" in line])


def _generate(directory, queries, depth) -> dict:
    """bench_scale.py's runs, written by a child process (so that this one stays small:
    a child forked from it starts with its memory, which ``ru_maxrss`` would count)."""
    code = ("import sys, json; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
            "import bench_scale as b; b._RUN_SCHEMA, b._QRELS_SCHEMA = b._schemas(); "
            "p = b.generate(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])); "
            "print(json.dumps({k: str(v) for k, v in p.items()}))")
    done = subprocess.run([sys.executable, "-c", code, str(HERE), str(directory), str(queries),
                           str(depth)], capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("--depth", type=int, default=100)
    p.add_argument("--repeat", type=int, default=3, help="rounds of all commands (median)")
    p.add_argument("--measures", default="all_trec", help="the -m argument")
    p.add_argument("--trec-eval", default=shutil.which("trec_eval"),
                   help="compiled trec_eval (default: trec_eval on the PATH)")
    p.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "rankeval-bench"),
                   help="where the generated runs are kept (reused across calls)")
    args = p.parse_args(argv)

    paths = _generate(args.dir, args.queries, args.depth)
    files = [paths["qrels"], paths["grouped"]]
    lines = args.queries * args.depth
    print(f"{time.strftime('%Y-%m-%d %H:%M')} on {platform.node()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}; Python {platform.python_version()}")
    print(f"run {args.queries:,} x {args.depth:,} = {lines:,} lines "
          f"({os.path.getsize(paths['grouped']) / 1e6:.0f} MB), -m {args.measures}\n", flush=True)

    def rankeval(writer, *flags):
        return [sys.executable, "-c", CHILD, str(REPO), str(HERE), writer, *flags,
                "-m", args.measures, *files]  # fmt: skip

    commands = {
        "rankeval, summary only": rankeval("bulk"),
        "rankeval -q, line by line (before)": rankeval("line-by-line", "-q"),
        "rankeval -q, in bulk (now)": rankeval("bulk", "-q"),
    }
    if args.trec_eval:
        commands["trec_eval, summary only"] = [args.trec_eval, "-m", args.measures, *files]
        commands["trec_eval -q"] = [args.trec_eval, "-q", "-m", args.measures, *files]
    runs = {name: [] for name in commands}
    with tempfile.TemporaryDirectory() as tmp:
        outputs = {name: os.path.join(tmp, f"out{i}.txt") for i, name in enumerate(commands)}
        for _ in range(args.repeat):
            for name, command in commands.items():
                runs[name].append(timed(command, outputs[name]))
        before = Path(outputs["rankeval -q, line by line (before)"]).read_bytes()
        now = Path(outputs["rankeval -q, in bulk (now)"]).read_bytes()
        n_lines = now.count(b"\n")
        checks = {f"the two writers' outputs are the same bytes ({n_lines:,} lines, "
                  f"{len(now) / 1e6:.0f} MB)": before == now}
        if args.trec_eval:
            ours, our_means = _split(now)
            theirs, their_means = _split(Path(outputs["trec_eval -q"]).read_bytes())
            checks["per-query lines equal to trec_eval -q's (less relstring)"] = ours == theirs
            off = sum(a != b for a, b in zip(our_means, their_means, strict=False))
            if off or len(our_means) != len(their_means):  # (not the writer's: the means)
                print(f"note: {off} of {len(their_means)} summary lines differ from "
                      "trec_eval's (a mean summed in another order, near a rounding tie)")
    median = {name: statistics.median(r["time"] for r in rs) for name, rs in runs.items()}
    peak = {name: max(r["peak_mb"] for r in rs) for name, rs in runs.items()}
    reference = median.get("trec_eval -q")
    header = f"{'command':<36} {'time s':>8} {'peak MB':>8} {'/ before':>9} {'/ trec_eval -q':>15}"
    print(header + "\n" + "-" * len(header))
    for name in commands:
        ratio_te = f"{median[name] / reference:.2f}" if reference else "-"
        print(f"{name:<36} {median[name]:>8.2f} {peak[name]:>8.0f} "
              f"{median[name] / median['rankeval -q, line by line (before)']:>9.2f} "
              f"{ratio_te:>15}")
    if not args.trec_eval:
        print("(no compiled trec_eval on this machine: compared with the old writer only)")
    summary = median["rankeval, summary only"]
    print(f"\nthe per-query lines' own cost (-q time less the summary-only time): "
          f"before {median['rankeval -q, line by line (before)'] - summary:.2f} s, "
          f"now {median['rankeval -q, in bulk (now)'] - summary:.2f} s")
    alone = subprocess.run(
        [sys.executable, "-c", WRITERS_ALONE, str(REPO), str(HERE), str(max(3, args.repeat)),
         "-q", "-m", args.measures, *files], capture_output=True, text=True, check=True,
    )  # fmt: skip
    alone = json.loads(alone.stdout.strip().splitlines()[-1])
    best = {k: min(v) for k, v in alone.items()}
    print(f"the writers alone, in one process on the same results (best of "
          f"{len(alone['now'])}, to {os.devnull}): before {best['before']:.2f} s, now "
          f"{best['now']:.2f} s ({best['now'] / best['before']:.2f}x; "
          f"{best['before'] / n_lines * 1e6:.2f} and {best['now'] / n_lines * 1e6:.2f} us a line)")
    print("checks: " + "; ".join(f"{what}: {ok}" for what, ok in checks.items()))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
