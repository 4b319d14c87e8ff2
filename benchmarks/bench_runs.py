"""Benchmark: evaluating whole TREC runs with rankeval, pytrec_eval, ir_measures and ranx.

Generates synthetic, seeded TREC runs and qrels, then times for each tool

- ``files``: end to end, reading the qrels and run files included;
- ``dicts``: from in-memory ``{query: {doc: value}}`` dicts (built before the
  clock starts, with the same plain parser for every tool);
- ``frames`` (rankeval only): pandas DataFrames with integer ids and a
  recommender's column names, given through ``evaluate(..., columns=...)``;

each in fresh Python processes (``--cold-runs`` subprocesses per tool, mode
and size), each of which reports the import time, the **first** call (cold:
nothing imported lazily yet, no page warmed) and the best of ``--repeat``
further calls (warm), plus the peak resident memory of the process
(``VmHWM``: interpreter, data and tool) and, as ``before MB``, the same peak
just before the first call (interpreter, the tool's imports and, for ``dicts`` and
``frames``, reading the inputs into memory). The table shows the median over
the processes (the maximum for memory), which tames a noisy machine.
The measures are nDCG@10, AP, RR, P@10 and R@100; their means are printed
too, so that the tools can be seen to agree.

The tool ``rankeval-sysmalloc`` is rankeval with ``ARROW_DEFAULT_MEMORY_POOL=system``:
Arrow allocates with the C library's malloc instead of its default (mimalloc), which
keeps freed memory for reuse; it shows what that allocator choice does to time and peak
memory (the user's choice: the variable must be set before pyarrow is imported).

The tool ``rankeval-pandas-first`` is rankeval in a process that imports pandas before
rankeval, inside the timed import: pyarrow loads pandas on its first conversion of Python
objects, and ``evaluate`` returns a pandas DataFrame, so plain rankeval's first call
includes pandas' import. This row's first call is the rest of the first call; the import
column shows what moved there. (A split of the time, not a faster path.)

ir_measures (which calls pytrec_eval for these measures) runs in this Python when it is
installed, and is skipped with a message when it is not.

ranx is not a dependency of this project: it is run from a separate virtual
environment (``--ranx-python``, default ``/tmp/ranxvenv/bin/python``) if one
exists; otherwise it is skipped with a message.

Usage::

    python benchmarks/bench_runs.py                       # both sizes
    python benchmarks/bench_runs.py --sizes 10000x100 --repeat 3
    python benchmarks/bench_runs.py --sizes 10000x100 --shuffle   # lines in random order
    python benchmarks/bench_runs.py --markdown table.md   # also write a table
    python benchmarks/bench_runs.py --json runs.json      # every measurement, for plot_runs.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

# rankeval as installed; with ARROW_DEFAULT_MEMORY_POOL=system (run_worker); and with
# pandas imported first, inside the timed import (worker)
RANKEVAL_TOOLS = ("rankeval", "rankeval-sysmalloc", "rankeval-pandas-first")

MEASURES = {  # column -> (rankeval and ir_measures, pytrec_eval, ranx)
    "nDCG@10": ("nDCG@10", "ndcg_cut_10", "ndcg@10"),
    "AP": ("AP", "map", "map"),
    "RR": ("RR", "recip_rank", "mrr"),
    "P@10": ("P@10", "P_10", "precision@10"),
    "R@100": ("R@100", "recall_100", "recall@100"),
}
PEERS = ("pytrec_eval", "ir_measures", "ranx")
REPO = Path(__file__).resolve().parents[1]


# --- data -----------------------------------------------------------------------------


def _ids(rng, n):
    """``n`` distinct integer ids of 1 to 8 digits, longer ones more often (as in
    MS MARCO, whose 8.8 M passage ids run from 0 to 8841822)."""
    out = np.empty(0, dtype=np.int64)
    while out.size < n:
        digits = rng.choice(
            np.arange(1, 9), size=2 * n, p=[0.01, 0.02, 0.04, 0.08, 0.15, 0.2, 0.25, 0.25]
        )
        low = np.where(digits == 1, 0, 10 ** (digits - 1))
        drawn = rng.integers(low, 10**digits)
        out = np.unique(np.concatenate((out, drawn)))
    return rng.permutation(out)[:n]


def generate(directory: Path, n_queries: int, depth: int, seed: int = 0):
    """Write a run (``depth`` documents per query) and qrels; return their paths.

    Query and document ids are integers of 1 to 8 digits (variable length, as
    in MS MARCO). Scores have 4 decimals, so some tie; each query has
    ``min(30, depth)`` judged retrieved documents with grades 0..3 and 10 judged
    documents never retrieved (about 40 judgments; 30 at 300x20).
    """
    run_path = directory / f"run_{n_queries}x{depth}.txt"
    qrels_path = directory / f"qrels_{n_queries}x{depth}.txt"
    if run_path.exists() and qrels_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    queries = _ids(rng, n_queries)
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for q in queries:
            docs = _ids(rng, depth + 10)
            retrieved, missed = docs[:depth], docs[depth:]
            scores = np.sort(np.round(rng.gamma(2.0, 3.0, size=depth), 4))[::-1]
            run.write(
                "".join(
                    f"{q} Q0 {d} {r} {s:.4f} bench\n"
                    for r, (d, s) in enumerate(zip(retrieved, scores, strict=True), start=1)
                )
            )
            judged = rng.choice(retrieved, size=min(30, depth), replace=False)
            grades = rng.choice(4, size=judged.size, p=[0.5, 0.25, 0.15, 0.1])
            lines = [f"{q} 0 {d} {g}\n" for d, g in zip(judged, grades, strict=True)]
            lines += [f"{q} 0 {d} {rng.integers(1, 4)}\n" for d in missed]
            qrels.write("".join(lines))
    return qrels_path, run_path


def shuffled(qrels_path: Path, run_path: Path, seed: int = 1):
    """Copies of both files with their lines in a random (seeded) order: a run written
    by a tool that does not group the lines by query, or a qrels file built by merging
    judgments. Returns the copies' paths."""
    rng = np.random.default_rng(seed)
    copies = []
    for path in (qrels_path, run_path):
        copy = path.with_name(path.stem + "_shuffled" + path.suffix)
        if not copy.exists():
            lines = path.read_text().splitlines(keepends=True)
            copy.write_text("".join(lines[i] for i in rng.permutation(len(lines))))
        copies.append(copy)
    return tuple(copies)


def parse_dicts(path: Path, kind: str) -> dict:
    """A plain TREC parser, used to build the same in-memory dicts for every tool."""
    out: dict = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if kind == "qrels":
                out.setdefault(fields[0], {})[fields[2]] = int(fields[3])
            else:
                out.setdefault(fields[0], {})[fields[2]] = float(fields[4])
    return out


# --- workers: one tool, one mode, one size, in a fresh process --------------------------


def _peak_mb() -> float:
    """This process's peak resident memory, in MB.

    Linux's ``VmHWM`` (the high-water mark of this process's own memory), not
    ``ru_maxrss``: Linux carries ``ru_maxrss`` over ``exec``, so a worker would report
    the driver's memory at the moment it started the worker whenever that was larger
    (as it is after ``--shuffle`` has read the files). ``ru_maxrss`` only where there is
    no ``/proc``.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def parse_frames(qrels_path: Path, run_path: Path):
    """pandas frames with integer ids and a recommender's column names (``frames`` mode)."""
    import pandas as pd

    qrels = pd.read_csv(
        qrels_path, sep=" ", header=None, usecols=[0, 2, 3], names=["user", "it", "item", "rating"]
    )
    run = pd.read_csv(
        run_path,
        sep=" ",
        header=None,
        usecols=[0, 2, 4],
        names=["user", "q0", "item", "rank", "pred", "tag"],
    )
    return qrels, run


COLUMNS = {"query_id": "user", "doc_id": "item", "score": "pred", "relevance": "rating"}


def worker(tool: str, mode: str, qrels_path: str, run_path: str, repeat: int) -> dict:
    if mode == "dicts":
        qrels_d, run_d = parse_dicts(Path(qrels_path), "qrels"), parse_dicts(Path(run_path), "run")
    if mode == "frames":
        if tool not in RANKEVAL_TOOLS:
            raise SystemExit(f"{tool} takes no DataFrame")
        qrels_d, run_d = parse_frames(Path(qrels_path), Path(run_path))
    t0 = time.perf_counter()
    if tool in RANKEVAL_TOOLS:
        if tool == "rankeval-pandas-first":
            import pandas  # noqa: F401  (timed as part of the import: see the docstring)
        import rankeval

        names = [v[0] for v in MEASURES.values()]

        def call():
            if mode == "files":
                frame = rankeval.evaluate(qrels_path, run_path, names)
            elif mode == "frames":
                frame = rankeval.evaluate(qrels_d, run_d, names, columns=COLUMNS)
            else:
                frame = rankeval.evaluate(qrels_d, run_d, names)
            return dict(zip(MEASURES, rankeval.aggregate(frame).tolist(), strict=True))

    elif tool == "pytrec_eval":
        import pytrec_eval

        names = [v[1] for v in MEASURES.values()]

        def call():
            if mode == "files":
                with open(qrels_path) as f:
                    qrels = pytrec_eval.parse_qrel(f)
                with open(run_path) as f:
                    run = pytrec_eval.parse_run(f)
            else:
                qrels, run = qrels_d, run_d
            result = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
            n = len(result)
            return {col: sum(r[v[1]] for r in result.values()) / n for col, v in MEASURES.items()}

    elif tool == "ir_measures":
        import ir_measures

        measures = [ir_measures.parse_measure(v[0]) for v in MEASURES.values()]

        def call():
            if mode == "files":
                qrels = ir_measures.read_trec_qrels(qrels_path)
                run = ir_measures.read_trec_run(run_path)
            else:
                qrels, run = qrels_d, run_d
            scores = ir_measures.calc_aggregate(measures, qrels, run)
            return {col: float(scores[m]) for col, m in zip(MEASURES, measures, strict=True)}

    elif tool == "ranx":
        from ranx import Qrels, Run, evaluate

        names = [v[2] for v in MEASURES.values()]

        def call():
            if mode == "files":
                qrels = Qrels.from_file(qrels_path, kind="trec")
                run = Run.from_file(run_path, kind="trec")
            else:
                qrels, run = Qrels(qrels_d), Run(run_d)
            scores = evaluate(qrels, run, names)
            return {col: float(scores[v[2]]) for col, v in MEASURES.items()}

    else:
        raise ValueError(tool)
    t1 = time.perf_counter()
    before_mb = _peak_mb()  # imports (and inputs in memory) done, nothing evaluated yet
    means = call()
    t2 = time.perf_counter()
    warm = []
    for _ in range(repeat):
        s = time.perf_counter()
        call()
        warm.append(time.perf_counter() - s)
    return {
        "import": t1 - t0,
        "first": t2 - t1,
        "warm": min(warm) if warm else float("nan"),
        "peak_mb": _peak_mb(),
        "before_mb": before_mb,
        "means": means,
        "arrow_pool": _arrow_pool(tool),
    }


def _arrow_pool(tool: str) -> str | None:
    """The allocator Arrow used in this process (rankeval only); the sysmalloc variant
    must really have run on the C library's malloc, or its row would be plain rankeval."""
    if tool not in RANKEVAL_TOOLS:
        return None
    import pyarrow as pa

    name = pa.default_memory_pool().backend_name
    if tool == "rankeval-sysmalloc" and name != "system":
        raise SystemExit(f"rankeval-sysmalloc ran on Arrow's {name!r} pool, not 'system'")
    return name


def run_worker(python: str, tool: str, mode: str, qrels, run, repeat: int) -> dict:
    """One measurement in a fresh process. The environment's ARROW_DEFAULT_MEMORY_POOL
    is dropped for every tool, so that only ``rankeval-sysmalloc`` changes Arrow's
    allocator (to ``system``); ``rankeval-pandas-first`` gets the mimalloc option that
    ``import rankeval`` would have set (see ``rankeval/__init__.py``)."""
    cmd = [
        python,
        str(Path(__file__).resolve()),
        "--worker",
        tool,
        mode,
        str(qrels),
        str(run),
        "--repeat",
        str(repeat),
    ]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("ARROW_DEFAULT_MEMORY_POOL", None)
    if tool == "rankeval-sysmalloc":
        env["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    if tool == "rankeval-pandas-first":
        # pandas loads pyarrow before rankeval could set mimalloc's option: set it here,
        # so that this variant differs from plain rankeval only in where pandas loads
        env["MIMALLOC_ARENA_EAGER_COMMIT"] = "0"
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if done.returncode != 0:
        lines = (done.stderr.strip() or "failed").splitlines()
        return {"error": lines[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- driver ----------------------------------------------------------------------------------


def _summary(results: list) -> dict:
    """Median times and largest peak memory over several worker processes."""
    import statistics

    errors = [r for r in results if "error" in r]
    if errors:
        return errors[0]
    out = {k: statistics.median(r[k] for r in results) for k in ("import", "first", "warm")}
    out["peak_mb"] = max(r["peak_mb"] for r in results)
    out["before_mb"] = max(r["before_mb"] for r in results)
    out["means"] = results[0]["means"]
    return out


def _ratios(results: dict) -> list:
    """Each rankeval variant / pytrec_eval, side by side: time (first call, warm) and peak memory,
    each the median over the rounds of the ratio within a round."""
    import statistics

    lines = []
    for (size, mode, tool), ours in results.items():
        theirs = results.get((size, mode, "pytrec_eval"))
        if tool not in RANKEVAL_TOOLS or theirs is None:
            continue
        pairs = [
            (a, b)
            for a, b in zip(ours, theirs, strict=False)
            if "error" not in a and "error" not in b
        ]
        if not pairs:
            continue

        def ratio(key, pairs=pairs):
            return statistics.median(a[key] / b[key] for a, b in pairs)

        lines.append(
            f"{size} {mode}: {tool} / pytrec_eval = {ratio('first'):.2f}x time (first call), "
            f"{ratio('warm'):.2f}x (warm), {ratio('peak_mb'):.2f}x peak memory"
        )
    return lines


def _versions(tools) -> dict:
    """The version of each tool's package in this Python (ranx: in its own venv)."""
    from importlib import metadata

    packages = {"rankeval": "rankeval-book", "pytrec_eval": "pytrec-eval-terrier",
                "ir_measures": "ir_measures"}
    out = {}
    for tool in tools:
        name = packages.get(tool.split("-")[0] if tool.startswith("rankeval") else tool)
        try:
            out[tool] = metadata.version(name) if name else None
        except metadata.PackageNotFoundError:
            out[tool] = None
    return out


def _write_json(path: Path, args, results_by: dict) -> None:
    """Every worker's measurement, with the conditions of the run."""
    import datetime
    import platform

    records = []
    for (size, mode, tool), runs in results_by.items():
        n_queries, depth = (int(x) for x in size.split()[0].lower().split("x"))
        for round_, result in enumerate(runs):
            records.append({"size": size, "queries": n_queries, "depth": depth,
                            "run_lines": n_queries * depth, "mode": mode, "tool": tool,
                            "round": round_, **result})
    tools = sorted({tool for _, _, tool in results_by})
    meta = {"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
            "machine": platform.machine(), "python": platform.python_version(),
            "repeat": args.repeat, "cold_runs": args.cold_runs, "shuffle": args.shuffle,
            "versions": _versions(tools), "argv": sys.argv[1:]}
    if "ranx" in tools:  # from its own virtual environment
        asked = subprocess.run([args.ranx_python, "-c", "import importlib.metadata as m; "
                                "print(m.version('ranx'))"], capture_output=True, text=True)
        meta["versions"]["ranx"] = asked.stdout.strip() or None
    path.write_text(json.dumps({"meta": meta, "measurements": records}, indent=1) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["10000x100", "7000x1000"])
    parser.add_argument("--repeat", type=int, default=3, help="warm calls (best is kept)")
    parser.add_argument("--cold-runs", type=int, default=3, help="fresh processes (median)")
    parser.add_argument("--dir", default="/tmp/rankeval_bench", help="where the data goes")
    parser.add_argument("--ranx-python", default="/tmp/ranxvenv/bin/python")
    parser.add_argument(
        "--tools",
        nargs="+",
        default=["rankeval", "pytrec_eval", "ir_measures", "ranx"],
        choices=[*RANKEVAL_TOOLS, *PEERS],
    )
    parser.add_argument(
        "--modes",
        nargs="+",
        default=["files", "dicts", "frames"],
        help="files, dicts, frames (pandas, integer ids, column mapping; rankeval only)",
    )
    parser.add_argument(
        "--shuffle",
        action="store_true",
        help="the files' lines in random order (files and dicts modes read the same files)",
    )
    parser.add_argument("--markdown", help="also write the table, in Markdown, to this file")
    parser.add_argument("--json", help="also write every measurement, as JSON, to this file "
                        "(benchmarks/plot_runs.py draws the chart from it)")
    parser.add_argument("--worker", nargs=4, metavar=("TOOL", "MODE", "QRELS", "RUN"))
    args = parser.parse_args(argv)
    if args.worker:
        tool, mode, qrels, run = args.worker
        print(json.dumps(worker(tool, mode, qrels, run, args.repeat)))
        return 0

    tools = list(args.tools)
    if "ranx" in tools and not Path(args.ranx_python).exists():
        print(
            f"ranx skipped: no Python at {args.ranx_python} (make a separate venv, e.g. "
            "python -m venv /tmp/ranxvenv && /tmp/ranxvenv/bin/pip install ranx)"
        )
        tools.remove("ranx")
    if "ir_measures" in tools:
        import importlib.util

        if importlib.util.find_spec("ir_measures") is None:
            print("ir_measures skipped: not installed in this Python (pip install ir_measures)")
            tools.remove("ir_measures")
    header = ["size", "mode", "tool", "import s", "first call s", "warm s", "before MB",
              "peak MB", *MEASURES]
    rows = []
    results_by = {}
    print("\t".join(header), flush=True)
    for size in args.sizes:
        n_queries, depth = (int(x) for x in size.lower().split("x"))
        qrels, run = generate(Path(args.dir), n_queries, depth)
        if args.shuffle:
            qrels, run = shuffled(qrels, run)
            size = f"{size} shuffled"
        for mode in args.modes:
            mode_tools = (
                tools if mode != "frames" else [t for t in tools if t in RANKEVAL_TOOLS]
            )
            # the tools take turns, one process each per round, so that they share the
            # machine's load (a busy machine slows every tool of a round alike)
            per_tool = {tool: [] for tool in mode_tools}
            for _ in range(max(args.cold_runs, 1)):
                for tool in mode_tools:
                    python = args.ranx_python if tool == "ranx" else sys.executable
                    per_tool[tool].append(run_worker(python, tool, mode, qrels, run, args.repeat))
            for tool in mode_tools:
                r = _summary(per_tool[tool])
                if "error" in r:
                    row = [size, mode, tool, "error: " + r["error"]]
                else:
                    row = [
                        size,
                        mode,
                        tool,
                        f"{r['import']:.2f}",
                        f"{r['first']:.2f}",
                        f"{r['warm']:.2f}",
                        f"{r['before_mb']:.0f}",
                        f"{r['peak_mb']:.0f}",
                        *(f"{r['means'][m]:.4f}" for m in MEASURES),
                    ]
                rows.append(row)
                results_by[(size, mode, tool)] = per_tool[tool]
                print("\t".join(row), flush=True)
    ratios = _ratios(results_by)
    if ratios:
        print()
        print("\n".join(ratios))
    if args.json:
        _write_json(Path(args.json), args, results_by)
    if args.markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        Path(args.markdown).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
