"""Benchmark for issue 41: runs larger than memory, dicts, and the incremental Evaluator,
printed side by side in one run.

The data come from this script's generator (seeded, vectorised, written in slices):
MS MARCO-like runs of ``Q x D`` lines, query and document ids of 1 to 8 digits (longer
ones more often), scores with 4 decimals sorted best first within each query (some tie),
and qrels of ``min(30, D)`` judged retrieved documents (grades 0-3) plus 10 judged
documents never retrieved, per query. Each run is written twice: **grouped** by query
(as TREC runs are written) and **shuffled** (every line in a random order).

Tables printed (each measurement in a fresh Python process; time is that of the one
call, after ``import pandas, pyarrow``; memory is the process's peak resident memory,
``VmHWM``: interpreter, imports, data and work; the median time and the largest peak
over ``--processes`` processes):

1. **Files, 7,000 x 1,000** (about 245 MB): pytrec_eval (``parse_qrel`` + ``parse_run``
   + ``RelevanceEvaluator.evaluate``) against ``rankeval.evaluate(qrels_path, run_path,
   measures)`` with its default budget (``max_memory="512MB"``: streamed) and with
   ``max_memory=None`` (read at once), grouped and shuffled; the ratios to pytrec_eval
   (targets: at most 0.25x its time, 0.5x its peak memory).
1b. **Files, many small queries** (a recommender's shape: ``--small-queries``, by default
   2,000,000 x 3, 6 million lines, about 190 MB, with 26 million qrels lines): pyarrow's
   raw ``read_csv`` of the run (and of the run and the qrels), pytrec_eval, and
   ``evaluate`` with the default budget and with ``max_memory=None``; every tool in turn
   in each round, the minimum of each (targets: at most 0.25x pytrec_eval's time and 3x
   the raw read; the default budget at most 1.2x the time of ``max_memory=None``).
2. **Dicts** (``{query: {doc: value}}`` parsed before the clock by a plain parser, so
   that nothing is imported yet), at 10,000 x 100, 7,000 x 1,000 and 200,000 x 10, each
   query's documents in score order (``grouped``) and in random order (``shuffled``):
   the first call with the tool's import (``import rankeval`` and every import the call
   makes, pandas and pyarrow included; ``import pytrec_eval``, which loads NumPy), its
   CPU time, and the best of ``--warm`` further calls; each tool in ``--processes``
   fresh processes taken in turn, medians (target: at most 1.0x pytrec_eval's time).
3. **Scale**: 70,000 x 1,000 (about 2.5 GB) grouped and shuffled, with the default
   budget (target: peak under 1.5 GB), and the time per million lines next to the
   7,000 x 1,000 runs' (cost should grow linearly).
4. **Evaluator.update**: ``--batches`` batches of ``--batch-rows`` rows (random queries,
   a new document per row; cut-off measures only, so the state is cut to depth 10);
   the time counts the ``update`` calls only, ``compute`` is timed apart.

Every rankeval result is checked equal, to the last bit, to the whole-file one of its
size (and the means to pytrec_eval's to 1e-12). The measures: nDCG@10, AP, RR, P@10,
R@100. No timed test uses any of this.

Usage::

    python benchmarks/bench_scale.py                    # everything (about 25 min)
    python benchmarks/bench_scale.py --large-queries 0  # without the 70,000 x 1,000 run
    python benchmarks/bench_scale.py --json benchmarks/scale.json   # for plot_runs.py
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MEASURES = {  # rankeval -> pytrec_eval
    "nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank", "P@10": "P_10",
    "R@100": "recall_100",
}  # fmt: skip
CUT_MEASURES = ["nDCG@10", "P@10", "RR@10"]


# --- data ---------------------------------------------------------------------------------


def _ids(rng, n: int):
    """``n`` integers of 1 to 8 digits (not distinct), longer ones more often."""
    import numpy as np

    digits = rng.choice(np.arange(1, 9), size=n,
                        p=[0.01, 0.02, 0.04, 0.08, 0.15, 0.2, 0.25, 0.25])
    low = np.where(digits == 1, 0, 10 ** (digits - 1))
    return rng.integers(low, 10**digits)


def _slice(rng, first: int, n_queries: int, depth: int, qnum):
    """Run and qrels tables of queries ``first .. first + n_queries - 1``."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    need = depth + 10  # retrieved + judged but never retrieved
    draw = int(need * 1.1) + 8
    cand = _ids(rng, n_queries * draw).reshape(n_queries, draw)
    # distinct within each query: keep each id's first draw, in draw order
    order = np.argsort(cand, axis=1, kind="stable")
    ranked = np.take_along_axis(cand, order, axis=1)
    first_seen = np.ones_like(ranked, dtype=bool)
    first_seen[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    keep = np.zeros_like(first_seen)
    np.put_along_axis(keep, order, first_seen, axis=1)
    docs = np.empty((n_queries, need), dtype=np.int64)
    for i in range(n_queries):  # one short vector per query; 10**9 + i: never drawn
        row = cand[i][keep[i]][:need]
        if row.size < need:
            row = np.concatenate([row, 10**9 + np.arange(need - row.size)])
        docs[i] = row
    scores = np.round(rng.gamma(2.0, 3.0, size=(n_queries, depth)), 4)
    scores = -np.sort(-scores, axis=1)  # best first
    qids = pc.cast(pa.array(qnum[first : first + n_queries]), pa.string())
    q_of_row = pa.array(np.repeat(np.arange(n_queries), depth))
    run = pa.table({
        "q": qids.take(q_of_row), "it": pa.array(np.full(n_queries * depth, "Q0")),
        "d": pc.cast(pa.array(docs[:, :depth].ravel()), pa.string()),
        "r": pa.array(np.tile(np.arange(1, depth + 1), n_queries)),
        "s": pc.cast(pa.array(scores.ravel()), pa.string()),
        "tag": pa.array(np.full(n_queries * depth, "bench")),
    })
    judged_n = min(30, depth)
    pick = np.argsort(rng.random((n_queries, depth)), axis=1)[:, :judged_n]
    judged = np.concatenate([np.take_along_axis(docs[:, :depth], pick, axis=1),
                             docs[:, depth:]], axis=1)
    grades = np.concatenate([
        rng.choice(4, size=(n_queries, judged_n), p=[0.5, 0.25, 0.15, 0.1]),
        rng.integers(1, 4, size=(n_queries, 10))], axis=1)
    width = judged.shape[1]
    qrels = pa.table({
        "q": qids.take(pa.array(np.repeat(np.arange(n_queries), width))),
        "it": pa.array(np.full(n_queries * width, "0")),
        "d": pc.cast(pa.array(judged.ravel()), pa.string()),
        "g": pa.array(grades.ravel()),
    })
    return run, qrels


def generate(directory: Path, n_queries: int, depth: int, seed: int = 0) -> dict:
    """Write ``qrels``, ``grouped`` and ``shuffled`` files (cached by size); their paths."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    stem = directory / f"scale_{n_queries}x{depth}"
    paths = {k: Path(f"{stem}_{k}.txt") for k in ("qrels", "grouped", "shuffled")}
    if all(p.exists() for p in paths.values()):
        return paths
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    qnum = rng.permutation(np.unique(_ids(rng, 3 * n_queries)))[:n_queries]
    while qnum.size < n_queries:  # (only for a very large n_queries)
        qnum = np.unique(np.concatenate([qnum, _ids(rng, n_queries)]))[:n_queries]
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    step = max(1, 2_000_000 // depth)
    runs = []
    with pacsv.CSVWriter(f"{paths['grouped']}.tmp", _RUN_SCHEMA, write_options=options) \
            as grouped, pacsv.CSVWriter(f"{paths['qrels']}.tmp", _QRELS_SCHEMA,
                                        write_options=options) as qrels:
        for first in range(0, n_queries, step):
            run, judged = _slice(rng, first, min(step, n_queries - first), depth, qnum)
            grouped.write_table(run.cast(_RUN_SCHEMA))
            qrels.write_table(judged.cast(_QRELS_SCHEMA))
            runs.append(run.cast(_RUN_SCHEMA))
    whole = pa.concat_tables(runs).combine_chunks()
    del runs
    order = rng.permutation(whole.num_rows)
    with pacsv.CSVWriter(f"{paths['shuffled']}.tmp", _RUN_SCHEMA, write_options=options) as out:
        for start in range(0, order.size, 2_000_000):
            out.write_table(whole.take(pa.array(order[start : start + 2_000_000])))
    for p in paths.values():
        os.replace(f"{p}.tmp", p)
    return paths


def _schemas():
    import pyarrow as pa

    run = pa.schema([("q", pa.string()), ("it", pa.string()), ("d", pa.string()),
                     ("r", pa.int64()), ("s", pa.string()), ("tag", pa.string())])
    qrels = pa.schema([("q", pa.string()), ("it", pa.string()), ("d", pa.string()),
                       ("g", pa.int64())])
    return run, qrels


_RUN_SCHEMA = _QRELS_SCHEMA = None


# --- workers: one measurement in a fresh process -----------------------------------------

CHILD = r"""
import json, math, sys, time
args = json.loads(sys.argv[1])
import pandas, pyarrow, pyarrow.csv  # imports are not timed
sys.path.insert(0, args["benchmarks"])
from bench_runs import _peak_mb as peak, parse_dicts  # the same parser for every tool
from pathlib import Path
mode = args["mode"]
out = {}
if mode == "pytrec_eval":
    import pytrec_eval
    names = set(args["pytrec"])
    t0 = time.perf_counter()
    with open(args["qrels"]) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(args["run"]) as f:
        run = pytrec_eval.parse_run(f)
    result = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
    out["time"] = time.perf_counter() - t0
    n = len(result)
    # (math.fsum: a plain sum of 2 million floats drifts by about 1e-12)
    out["means"] = {m: math.fsum(r[m] for r in result.values()) / n for m in names}
elif mode == "raw":  # the floor: pyarrow's CSV reader (its threads), nothing checked
    import pyarrow.csv as pacsv
    options = dict(read_options=pacsv.ReadOptions(autogenerate_column_names=True),
                   parse_options=pacsv.ParseOptions(delimiter=" "))
    t0 = time.perf_counter()
    pacsv.read_csv(args["run"], **options)
    out["time"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    pacsv.read_csv(args["qrels"], **options)
    out["qrels_time"] = time.perf_counter() - t0
elif mode == "update":
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import rankeval
    qrels = rankeval.read_qrels(args["qrels"], as_table=True)
    qids = pc.unique(qrels.column("query_id"))
    ev = rankeval.Evaluator(qrels, args["measures"])
    rng = np.random.default_rng(1)
    spent = 0.0
    rows = args["rows"]
    for b in range(args["batches"]):
        q = qids.take(pa.array(rng.integers(0, len(qids), size=rows)))
        d = pc.binary_join_element_wise(f"B{b}-", pc.cast(pa.array(np.arange(rows)),
                                                         pa.string()), "")
        s = pa.array(np.round(rng.normal(size=rows), 3))
        t = time.perf_counter()
        ev.update(q, d, s)
        spent += time.perf_counter() - t
    t = time.perf_counter()
    frame = ev.compute()
    out.update(time=spent, compute=time.perf_counter() - t, rows_held=ev.rows,
               queries=len(frame))
else:
    import rankeval
    options = {} if args["budget"] == "default" else {"max_memory": args["budget"]}
    t0 = time.perf_counter()
    frame = rankeval.evaluate(args["qrels"], args["run"], args["measures"], **options)
    out["time"] = time.perf_counter() - t0
    out["queries"] = len(frame)
    frame.to_pickle(args["out"])
out["peak_mb"] = peak()
print(json.dumps(out))
"""


CHILD_DICTS = r"""
import json, sys, time
args = json.loads(sys.argv[1])


def parse(path, kind):  # a plain parser: nothing imported before the clock
    out = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if kind == "qrels":
                out.setdefault(fields[0], {})[fields[2]] = int(fields[3])
            else:
                out.setdefault(fields[0], {})[fields[2]] = float(fields[4])
    return out


def peak():
    with open("/proc/self/status") as status:
        return next(int(x.split()[1]) / 1024 for x in status if x.startswith("VmHWM:"))


qrels, run = parse(args["qrels"], "qrels"), parse(args["run"], "run")
out = {"before_mb": peak()}
c, t = time.process_time(), time.perf_counter()
if args["tool"] == "rankeval":
    import rankeval
    evaluate = rankeval.evaluate  # imports rankeval.evaluation and pyarrow (pyarrow
    # loads pandas later, on its first conversion of Python objects: inside the call)
    call = lambda: evaluate(qrels, run, args["measures"])
else:
    import pytrec_eval
    names = set(args["pytrec"])
    call = lambda: pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
out["import"] = time.perf_counter() - t
call()
out["time"], out["cpu"] = time.perf_counter() - t, time.process_time() - c
warm = []
for _ in range(args["warm"]):
    t = time.perf_counter(); call(); warm.append(time.perf_counter() - t)
out["warm"] = min(warm) if warm else float("nan")
out["peak_mb"] = peak()
print(json.dumps(out))
"""
PYCACHE = os.path.join(tempfile.gettempdir(), "rankeval-bench-pycache")


def child(**args) -> dict:
    env = dict(os.environ, PYTHONPATH=str(args.pop("repo", None) or REPO))
    env.pop("ARROW_DEFAULT_MEMORY_POOL", None)
    # compiled modules cached, as an installed package's are (with PYTHONDONTWRITEBYTECODE
    # every process would compile rankeval's sources again: about 0.1 s of a first call)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = PYCACHE
    args = dict(args, benchmarks=str(Path(__file__).resolve().parent))
    code = CHILD_DICTS if args["mode"] == "dicts" else CHILD
    done = subprocess.run([sys.executable, "-c", code, json.dumps(args)], capture_output=True,
                          text=True, env=env, timeout=7200)
    if done.returncode != 0:
        raise SystemExit(f"{args['mode']} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def repeated(n: int, **args) -> dict:
    """``n`` fresh processes: the median time, the largest peak, the last other fields."""
    runs = [child(**args) for _ in range(n)]
    out = dict(runs[-1])
    out["time"] = statistics.median(r["time"] for r in runs)
    out["peak_mb"] = max(r["peak_mb"] for r in runs)
    out["times"] = [r["time"] for r in runs]
    return out


# --- the report ---------------------------------------------------------------------------


def _row(cells, widths):
    return "  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                     for i, (c, w) in enumerate(zip(cells, widths, strict=True)))


def table(title: str, header: list, rows: list, out: list) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    lines = [title, _row(header, widths), _row(["-" * w for w in widths], widths)]
    lines += [_row(r, widths) for r in rows]
    print("\n".join(lines) + "\n", flush=True)
    out.append((title, header, rows))


def files_section(paths, lines, depth, processes, tmp, records, report, check):
    import pandas as pd

    names = list(MEASURES)
    py = repeated(processes, mode="pytrec_eval", qrels=str(paths["qrels"]),
                  run=str(paths["grouped"]), pytrec=list(MEASURES.values()))
    rows = [("pytrec_eval (grouped file)", f"{py['time']:.2f}", f"{py['peak_mb']:.0f}",
             "1.00", "1.00")]
    records.append(_record("pytrec_eval", lines, py, depth=depth))
    rows[0] += ("",)
    frames = {}
    for layout in ("grouped", "shuffled"):
        raw = repeated(processes, mode="raw", qrels=str(paths["qrels"]), run=str(paths[layout]))
        rows.append((f"pyarrow read_csv of the run ({layout})", f"{raw['time']:.2f}",
                     f"{raw['peak_mb']:.0f}", f"{raw['time'] / py['time']:.2f}",
                     f"{raw['peak_mb'] / py['peak_mb']:.2f}", "1.00"))
        for budget in ("default", None):
            out = os.path.join(tmp, f"{layout}-{budget}.pkl")
            r = repeated(processes, mode="evaluate", qrels=str(paths["qrels"]),
                         run=str(paths[layout]), measures=names, budget=budget, out=out)
            frames[layout, budget] = pd.read_pickle(out)
            label = "default (512MB)" if budget == "default" else "max_memory=None"
            rows.append((f"rankeval {label} ({layout})", f"{r['time']:.2f}",
                         f"{r['peak_mb']:.0f}", f"{r['time'] / py['time']:.2f}",
                         f"{r['peak_mb'] / py['peak_mb']:.2f}",
                         f"{r['time'] / raw['time']:.2f}"))
            if layout == "grouped" and budget == "default":
                records.append(_record("rankeval", lines, r, depth=depth))
    check(frames, py["means"])
    table(f"1. Files, {lines:,} lines: median of {processes} fresh processes (targets: at "
          "most 1.5x the raw read grouped, 2.0x shuffled)",
          ["tool", "time s", "peak MB", "x pytrec time", "x pytrec memory", "x raw read"],
          rows, report)
    return frames["grouped", "default"]


def small_queries_section(paths, n_queries, depth, processes, tmp, report, check):
    """Table 1b: many small queries (a recommender's shape, 2,000,000 x 3 by default),
    every tool in turn in each of ``processes`` rounds (so that a load on the machine
    falls on all), the minimum of each. The raw read is pyarrow's ``read_csv`` of the
    run, and of the run and the qrels (here the qrels, 13 lines a query, are the larger
    file: reading them is part of any evaluation). Targets: at most 0.25x pytrec_eval's
    time and 3x the raw read with the default budget; the default budget at most 1.2x
    the time of ``max_memory=None``."""
    import pandas as pd

    names, lines = list(MEASURES), n_queries * depth
    common = dict(qrels=str(paths["qrels"]), run=str(paths["grouped"]))
    got, frames = {}, {}
    child(mode="evaluate", measures=names, budget=None,  # compiles rankeval's modules once
          out=os.path.join(tmp, "small-warm.pkl"), **common)
    for _ in range(processes):
        for key in ("raw", "pytrec_eval", "default", None):
            if key == "raw":
                r = child(mode="raw", **common)
            elif key == "pytrec_eval":
                r = child(mode="pytrec_eval", pytrec=list(MEASURES.values()), **common)
            else:
                out = os.path.join(tmp, f"small-{key}.pkl")
                r = child(mode="evaluate", measures=names, budget=key, out=out, **common)
                frames[key] = pd.read_pickle(out)
            got.setdefault(key, []).append(r)
    best = {k: min(v, key=lambda r: r["time"]) for k, v in got.items()}
    peak = {k: max(r["peak_mb"] for r in v) for k, v in got.items()}
    raw, py = best["raw"]["time"], best["pytrec_eval"]["time"]
    both = min(r["time"] + r["qrels_time"] for r in got["raw"])
    rows = [("pyarrow read_csv, run", f"{raw:.2f}", "", "", "", ""),
            ("pyarrow read_csv, run + qrels", f"{both:.2f}", f"{peak['raw']:.0f}", "", "", "")]
    rows.append(("pytrec_eval", f"{py:.2f}", f"{peak['pytrec_eval']:.0f}", "1.00",
                 f"{py / raw:.1f}", f"{py / both:.2f}"))
    for key, label in (("default", "rankeval default (512MB)"),
                       (None, "rankeval max_memory=None")):
        t = best[key]["time"]
        rows.append((label, f"{t:.2f}", f"{peak[key]:.0f}", f"{t / py:.2f}", f"{t / raw:.1f}",
                     f"{t / both:.2f}"))
    check(frames, best["pytrec_eval"]["means"])
    table(f"1b. Files, many small queries: {n_queries:,} x {depth} = {lines:,} lines; "
          f"minimum of {processes} rounds, the tools in turn (default / None: "
          f"{best['default']['time'] / best[None]['time']:.2f}x)",
          ["tool", "time s", "peak MB", "x pytrec time", "x raw run", "x raw run + qrels"],
          rows, report)


def dicts_section(args, directory, records, report):
    """Table 2: from dicts, each tool in ``--processes`` fresh processes, taken in turn
    (so that a load on the machine falls on both); the first call counts the tool's
    import (``import rankeval`` and every import of the first call, pandas and pyarrow
    included; ``import pytrec_eval``, NumPy included)."""
    target = 1.0  # first call + import, at most this times pytrec_eval's (issue 51)
    rows, verdicts = [], []
    for spec in args.dict_sizes:
        q, d = (int(x) for x in spec.split("x"))
        paths = generate(directory, q, d)
        for layout in args.dict_layouts:
            common = dict(mode="dicts", qrels=str(paths["qrels"]), run=str(paths[layout]),
                          measures=list(MEASURES), pytrec=list(MEASURES.values()),
                          warm=args.warm)
            tools = {"rankeval": REPO, "pytrec_eval": REPO}
            if args.baseline:
                tools["baseline"] = args.baseline
            for tool, repo in tools.items():  # compiles each copy's modules once
                if tool != "pytrec_eval":
                    child(tool="rankeval", repo=repo, **dict(common, warm=0))
            got = {tool: [] for tool in tools}
            for _ in range(args.processes):
                for tool, repo in tools.items():
                    got[tool].append(child(tool=tool.replace("baseline", "rankeval"),
                                           repo=repo, **common))
            med = {tool: {key: statistics.median(r[key] for r in runs)
                          for key in ("time", "cpu", "import", "warm")}
                   for tool, runs in got.items()}
            ours, theirs = med["rankeval"], med["pytrec_eval"]
            size = f"{q:,} x {d:,} {layout}"
            for label, key in (("first call + import", "time"),
                               ("  of which import statements", "import"),
                               ("first call + import, CPU", "cpu"),
                               ("best warm call", "warm")):
                rows.append((size, label, f"{ours[key]:.2f}", f"{theirs[key]:.2f}",
                             f"{ours[key] / theirs[key]:.2f}")
                            + ((f"{med['baseline'][key] / theirs[key]:.2f}",) if args.baseline
                               else ()))
            peak = {tool: max(r["peak_mb"] for r in runs) for tool, runs in got.items()}
            rows.append((size, "peak MB", f"{peak['rankeval']:.0f}",
                         f"{peak['pytrec_eval']:.0f}",
                         f"{peak['rankeval'] / peak['pytrec_eval']:.2f}")
                        + ((f"{peak['baseline'] / peak['pytrec_eval']:.2f}",) if args.baseline
                           else ()))
            for tool, runs in got.items():
                if tool == "baseline":
                    continue
                r = dict(med[tool], peak_mb=peak[tool], times=[x["time"] for x in runs])
                records.append(_record(tool, q * d, r, mode=f"dicts-{layout}", depth=d))
            ratio = ours["time"] / theirs["time"]
            verdicts.append((size, ratio))
            print(f"dicts {size}: rankeval {ours['time']:.2f} s, pytrec_eval "
                  f"{theirs['time']:.2f} s (first call + import): {ratio:.2f}x, target "
                  f"<= {target:.1f}x {'met' if ratio <= target else 'not met'}",
                  flush=True)
    table(f"2. From dicts (parsed before the clock; {args.processes} fresh processes per "
          "tool, taken in turn; medians; grouped: each query's documents in score order, "
          "shuffled: in random order)",
          ["size", "call", "rankeval s", "pytrec_eval s", "ratio"]
          + (["baseline ratio"] if args.baseline else []), rows, report)
    table(f"2b. Dicts target: first call + import at most {target:.1f}x pytrec_eval's "
          "time (issue 51)", ["size", "ratio", "target"],
          [(size, f"{ratio:.2f}", "met" if ratio <= target else "not met")
           for size, ratio in verdicts], report)


def _record(tool, lines, r, mode="files", depth=1000) -> dict:
    """One measurement as ``plot_runs.py`` reads it (``bench_runs.py``'s fields); the tool
    is named for this script, so that its points are their own line on the chart."""
    return {"tool": f"{tool} (bench_scale.py)", "mode": mode, "run_lines": lines,
            "size": f"{lines // depth}x{depth}", "round": 0, "first": r["time"],
            "warm": r.get("warm", float("nan")), "peak_mb": r["peak_mb"],
            "times": r.get("times", [r["time"]])}


def main(argv=None) -> int:  # noqa: C901 - one linear report
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=7000)
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--large-queries", type=int, default=70000,
                   help="queries of the large run (0: skip it)")
    p.add_argument("--small-queries", default="2000000x3",
                   help="files, many small queries: QUERIES x DEPTH (table 1b)")
    p.add_argument("--dict-sizes", nargs="*", default=["10000x100", "7000x1000", "200000x10"])
    p.add_argument("--dict-layouts", nargs="+", default=["grouped", "shuffled"],
                   choices=["grouped", "shuffled"], help="dicts: documents in score order "
                   "(grouped) or in random order (shuffled)")
    p.add_argument("--warm", type=int, default=3, help="dicts: further calls, the best kept")
    p.add_argument("--baseline", help="dicts: the root of another copy of rankeval (an "
                   "earlier commit, say) measured in turn with the two tools")
    p.add_argument("--processes", type=int, default=3, help="fresh processes per measurement")
    p.add_argument("--batches", type=int, default=10_000)
    p.add_argument("--batch-rows", type=int, default=1000)
    p.add_argument("--dir", default="/tmp/rankeval_scale", help="where the data go (cached)")
    p.add_argument("--parts", nargs="+", default=["files", "small", "dicts", "scale", "update"],
                   choices=["files", "small", "dicts", "scale", "update"],
                   help="tables to print")
    p.add_argument("--json", help="write the measurements here (benchmarks/plot_runs.py)")
    args = p.parse_args(argv)
    global _RUN_SCHEMA, _QRELS_SCHEMA
    _RUN_SCHEMA, _QRELS_SCHEMA = _schemas()
    import numpy as np

    directory = Path(args.dir)
    print(f"{time.strftime('%Y-%m-%d %H:%M')} on {platform.node()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}; Python {platform.python_version()}\n", flush=True)
    report, records, problems = [], [], []

    def check(frames, means=None):
        reference = next(iter(frames.values()))
        for key, f in frames.items():
            same = f.index.equals(reference.index) and all(
                np.array_equal(f[c].to_numpy(), reference[c].to_numpy(), equal_nan=True)
                for c in reference.columns)
            if not same:
                problems.append(f"{key}: differs from {next(iter(frames))}")
        if means:
            for name, key in MEASURES.items():
                if abs(float(reference[name].mean()) - means[key]) > 1e-12:
                    problems.append(f"{name}: mean {reference[name].mean()} vs pytrec_eval "
                                    f"{means[key]}")

    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        t = time.perf_counter()
        small = generate(directory, args.queries, args.depth)
        lines = args.queries * args.depth
        size = small["grouped"].stat().st_size / 2**20
        print(f"run {args.queries:,} x {args.depth:,} = {lines:,} lines, {size:.0f} MB "
              f"(made or found in {time.perf_counter() - t:.0f} s)\n", flush=True)
        if "files" in args.parts:
            files_section(small, lines, args.depth, args.processes, tmp, records, report, check)
        if "small" in args.parts:
            q, d = (int(x) for x in args.small_queries.split("x"))
            t = time.perf_counter()
            few = generate(directory, q, d)
            print(f"run {q:,} x {d} = {q * d:,} lines, "
                  f"{few['grouped'].stat().st_size / 2**20:.0f} MB (made or found in "
                  f"{time.perf_counter() - t:.0f} s)\n", flush=True)
            small_queries_section(few, q, d, args.processes, tmp, report, check)
        per_m = {}
        for layout in ("grouped", "shuffled") if "scale" in args.parts else ():
            r = child(mode="evaluate", qrels=str(small["qrels"]), run=str(small[layout]),
                      measures=list(MEASURES), budget="default",
                      out=os.path.join(tmp, "x.pkl"))
            per_m[args.queries, layout] = (r, lines, size)

        if "dicts" in args.parts:
            dicts_section(args, directory, records, report)

        if args.large_queries and "scale" in args.parts:
            t = time.perf_counter()
            large = generate(directory, args.large_queries, args.depth)
            big_lines = args.large_queries * args.depth
            big_size = large["grouped"].stat().st_size / 2**20
            print(f"run {args.large_queries:,} x {args.depth:,} = {big_lines:,} lines, "
                  f"{big_size:,.0f} MB (made or found in {time.perf_counter() - t:.0f} s)\n",
                  flush=True)
            frames = {}
            for layout in ("grouped", "shuffled"):
                out = os.path.join(tmp, f"large-{layout}.pkl")
                r = child(mode="evaluate", qrels=str(large["qrels"]), run=str(large[layout]),
                          measures=list(MEASURES), budget="default", out=out)
                import pandas as pd

                frames[layout] = pd.read_pickle(out)
                per_m[args.large_queries, layout] = (r, big_lines, big_size)
                if layout == "grouped":
                    records.append(_record("rankeval", big_lines, r, depth=args.depth))
            check(frames)
        rows = []
        for (q, layout), (r, n, mb) in per_m.items():  # (empty without "scale")
            rows.append((f"{q:,} x {args.depth:,} {layout}", f"{mb:,.0f}", f"{r['time']:.1f}",
                         f"{r['time'] / n * 1e6:.3f}", f"{r['peak_mb']:.0f}"))
        if rows:
            table("3. Scale: evaluate(qrels_path, run_path, measures), default budget 512MB, "
                  "one process each",
                  ["run", "file MB", "time s", "s per M lines", "peak MB"], rows, report)
        if "update" not in args.parts:
            return _finish(args, problems, records)
        u = child(mode="update", qrels=str(small["qrels"]), measures=CUT_MEASURES,
                  batches=args.batches, rows=args.batch_rows)
        n = args.batches * args.batch_rows
        table(f"4. Evaluator.update: {args.batches:,} batches x {args.batch_rows:,} rows, "
              f"{CUT_MEASURES} (state cut to depth 10)",
              ["update s", "M rows/s", "compute s", "rows held", "peak MB"],
              [(f"{u['time']:.2f}", f"{n / u['time'] / 1e6:.2f}", f"{u['compute']:.2f}",
                f"{u['rows_held']:,}", f"{u['peak_mb']:.0f}")], report)
    return _finish(args, problems, records)


def _finish(args, problems, records) -> int:
    print("checks: " + ("every rankeval frame equal to the last bit to the whole-file one "
                        "of its size; means equal to pytrec_eval's to 1e-12"
                        if not problems else "; ".join(problems)))
    if args.json:
        from importlib.metadata import version

        import pyarrow

        meta = {"date": time.strftime("%Y-%m-%d"), "cores": os.cpu_count(),
                "python": platform.python_version(), "script": "bench_scale.py",
                "versions": {"pyarrow": pyarrow.__version__,
                             "pytrec_eval": version("pytrec-eval-terrier")}}
        Path(args.json).write_text(json.dumps({"meta": meta, "measurements": records},
                                              indent=1) + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
