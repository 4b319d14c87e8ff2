#!/usr/bin/env python3
"""Where Dask and Spark start to pay off: a sweep of run sizes, one process against 1 and 2 workers.

For every size (run rows) and every engine, in a fresh process each, the script times
two things apart: the **start-up** (importing the engine and starting it: a local Dask
cluster of one-thread worker processes and its client, or a Spark session) and the
**evaluation** (from the data on disk as Parquet to the means over the queries). Their
sum is what one evaluation costs a user who starts from nothing. It also samples the
peak resident memory of the whole process tree (driver, Dask workers, Spark's JVM and
its Python workers).

The engines: ``rankeval`` (plain :func:`rankeval.evaluate` in one process, the
baseline), ``dask-1`` and ``dask-2`` (:func:`rankeval.dask.evaluate` on a
``LocalCluster`` of 1 or 2 worker processes), ``spark-1`` and ``spark-2``
(:func:`rankeval.spark.evaluate` on ``local[1]`` or ``local[2]``). Spark needs
pyspark and a Java runtime; without them the script says so and leaves Spark out.
``mllib-1``/``mllib-2`` (Spark MLlib's ``RankingMetrics``, other conventions) and
``daskfile-1``/``daskfile-2`` (``rankeval.dask`` reading TREC files, the files written
before the clock starts) can be added with ``--engines``.

The data: ``rows / 100`` queries of 100 scored documents (a TREC run's shape), scores
with ties, about 40 judged documents per query with binary grades, and 10 % of the
judged queries missing from the run (left out: ``missing="skip"``, trec_eval's rule).
Measures: P@10, R@10, AP and nDCG@10. Every engine's means are checked against plain
evaluate's in the same run (to 1e-12); MLlib's are printed but not checked (its
conventions differ, chapter 20).

Each (size, engine) runs ``--repeat`` times, the engines taking turns, and the minimum
of each time is kept. Then, per engine, a least-squares line ``seconds = a + b * rows``
(a, b >= 0) through the minima (a: the fixed cost, b: the cost per row), and from the lines the
crossing points: the run size at which 2 workers beat 1, and at which each distributed
path beats plain evaluate, both on the total (start-up included) and on the evaluation
alone (a cluster that is already running). The measured crossing (the smallest size
measured from which on the faster path won at every size) is printed beside it, or
"not reached up to N rows on this machine".

    python benchmarks/bench_distributed.py                  # 50k to 5M rows, --repeat 2
    python benchmarks/bench_distributed.py --rows 50000 500000 2000000 5000000
    python benchmarks/bench_distributed.py --json benchmarks/distributed.json
    python benchmarks/bench_distributed.py --rows 1000000 --engines rankeval dask-2

``--json`` writes the table, the lines and the crossings; the guide page "Evaluate at
scale" and chapter 20 read that file (``benchmarks/distributed.json``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

DOCS_PER_QUERY = 100
MEASURES = ["P@10", "R@10", "AP", "nDCG@10"]
ENGINES = ["rankeval", "dask-1", "dask-2", "spark-1", "spark-2"]
OTHER_ENGINES = ["mllib-1", "mllib-2", "daskfile-1", "daskfile-2"]
ROWS = [50_000, 200_000, 1_000_000, 2_000_000, 5_000_000]
TOLERANCE = 1e-12  # the largest difference of a mean from plain evaluate's
LABELS = {"rankeval": "plain evaluate", "dask": "Dask", "spark": "Spark", "mllib": "MLlib",
          "daskfile": "Dask, TREC files"}  # fmt: skip


def label(engine: str) -> str:
    name, _, workers = engine.partition("-")
    if name == "rankeval":
        return LABELS[name]
    return f"{LABELS[name]}, {workers} worker{'s' * (workers != '1')}"


# --- data ------------------------------------------------------------------------------


def make_data(rows: int, folder: Path, seed: int = 0) -> tuple[Path, Path]:
    """Write qrels.parquet and run.parquet: variable-length string ids, ties, unjudged."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    n_q = max(rows // DOCS_PER_QUERY, 1)
    qids = np.char.add("q", rng.permutation(10 * n_q)[:n_q].astype(str))
    # run: 100 documents per query from a pool of 140, scores rounded so some tie
    doc_num = np.argsort(rng.random((n_q, 140)), axis=1)[:, :DOCS_PER_QUERY]
    scores = np.round(rng.random((n_q, DOCS_PER_QUERY)) * 20, 2)
    run = pa.table(
        {
            "query_id": np.repeat(qids, DOCS_PER_QUERY),
            "doc_id": np.char.add("doc", doc_num.ravel().astype(str)),
            "score": scores.ravel(),
        }
    )
    # qrels: 40 judged documents per query of the same pool, about a quarter relevant;
    # 10 % of the judged queries are not in the run
    judged = np.argsort(rng.random((n_q, 140)), axis=1)[:, :40]
    grades = (rng.random((n_q, 40)) < 0.25).astype(np.int64)
    extra = np.char.add("z", np.arange(n_q // 10).astype(str))
    qrels = pa.table(
        {
            "query_id": np.concatenate([np.repeat(qids, 40), np.repeat(extra, 40)]),
            "doc_id": np.char.add(
                "doc", np.concatenate([judged.ravel(), judged[: n_q // 10].ravel()]).astype(str)
            ),
            "relevance": np.concatenate([grades.ravel(), grades[: n_q // 10].ravel()]),
        }
    )
    qpath, rpath = folder / "qrels.parquet", folder / "run.parquet"
    pq.write_table(qrels, qpath, row_group_size=1 << 20)
    pq.write_table(run, rpath, row_group_size=1 << 20)
    return qpath, rpath


# --- engines (each runs in a fresh process) --------------------------------------------
# start_*: a context manager that starts the engine (timed as start-up) and yields what
# evaluate_* needs; evaluate_*: from the Parquet files to the means (timed as evaluation)


@contextlib.contextmanager
def start_rankeval(workers):
    import pyarrow.parquet  # noqa: F401

    import rankeval  # noqa: F401

    yield None


def evaluate_rankeval(_, qpath, rpath, workers):
    import pyarrow.parquet as pq

    import rankeval

    per_query = rankeval.evaluate(
        pq.read_table(qpath), pq.read_table(rpath), MEASURES, missing="skip"
    )
    means = per_query.mean()
    return {m: float(means[m]) for m in MEASURES}


@contextlib.contextmanager
def start_dask(workers):
    """A local Dask cluster of ``workers`` one-thread processes, with its client."""
    import logging

    import dask.dataframe  # noqa: F401
    from distributed import Client, LocalCluster

    import rankeval.dask  # noqa: F401

    with LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
        memory_limit="8GiB", silence_logs=logging.ERROR,
    ) as cluster, Client(cluster) as client:  # fmt: skip
        client.wait_for_workers(workers)
        yield client


def evaluate_dask(_, qpath, rpath, workers):
    import dask.dataframe as dd

    import rankeval.dask

    per_query = rankeval.dask.evaluate(
        dd.read_parquet(str(qpath)), dd.read_parquet(str(rpath)), MEASURES,
        npartitions=4 * workers, missing="skip",
    )  # fmt: skip
    means = rankeval.dask.means(per_query)
    return {m: float(means[m]) for m in MEASURES}


def trec_files(qpath, rpath):
    """The TREC qrels and run files beside the Parquet files (written once)."""
    import pyarrow.parquet as pq

    import rankeval

    qtext, rtext = Path(qpath).with_suffix(".qrels"), Path(rpath).with_suffix(".run")
    if not rtext.exists():
        rankeval.write_qrels(pq.read_table(qpath).to_pandas(), qtext)
        rankeval.write_run(pq.read_table(rpath).to_pandas(), rtext)
    return qtext, rtext


def evaluate_daskfile(_, qpath, rpath, workers):
    import rankeval.dask

    qtext, rtext = trec_files(qpath, rpath)
    per_query = rankeval.dask.evaluate(
        str(qtext), str(rtext), MEASURES, npartitions=4 * workers, missing="skip",
        blocksize=os.environ.get("BENCH_BLOCKSIZE", "16MB"),
    )  # fmt: skip
    means = rankeval.dask.means(per_query)
    return {m: float(means[m]) for m in MEASURES}


@contextlib.contextmanager
def start_spark(workers):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    import rankeval.spark  # noqa: F401

    session = (
        SparkSession.builder.master(f"local[{workers}]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "8g")
        .config("spark.sql.shuffle.partitions", str(4 * workers))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


def evaluate_spark(spark, qpath, rpath, workers):
    import rankeval.spark

    per_query = rankeval.spark.evaluate(
        spark.read.parquet(str(qpath)), spark.read.parquet(str(rpath)), MEASURES,
        num_partitions=4 * workers, missing="skip",
    )  # fmt: skip
    means = rankeval.spark.means(per_query)
    return {m: float(means[m]) for m in MEASURES}


def evaluate_mllib(spark, qpath, rpath, workers):
    """MLlib's RankingMetrics, fed the way its documentation shows: per query, the
    ranked document ids (score descending, ties by id descending as in trec_eval) and
    the relevant ids; the judged queries of the run."""
    from pyspark.mllib.evaluation import RankingMetrics
    from pyspark.sql import functions as F

    run = spark.read.parquet(str(rpath))
    qrels = spark.read.parquet(str(qpath))
    ranked = run.groupBy("query_id").agg(
        F.sort_array(F.collect_list(F.struct(F.col("score"), F.col("doc_id"))), asc=False)
        .getField("doc_id")
        .alias("ranked")
    )
    relevant = (
        qrels.where(F.col("relevance") >= 1)
        .groupBy("query_id")
        .agg(F.collect_list("doc_id").alias("relevant"))
    )
    judged = qrels.select("query_id").distinct()
    pairs = (
        ranked.join(judged, "query_id")
        .join(relevant, "query_id", "left")
        .select("ranked", F.coalesce("relevant", F.array().cast("array<string>")))
        .rdd.map(tuple)
    )
    metrics = RankingMetrics(pairs)
    return {
        "P@10": metrics.precisionAt(10),
        "R@10": metrics.recallAt(10),
        "AP": metrics.meanAveragePrecision,
        "nDCG@10": metrics.ndcgAt(10),
    }


ENGINE_CODE = {
    "rankeval": (start_rankeval, evaluate_rankeval),
    "dask": (start_dask, evaluate_dask),
    "daskfile": (start_dask, evaluate_daskfile),
    "spark": (start_spark, evaluate_spark),
    "mllib": (start_spark, evaluate_mllib),
}


def child(engine, qpath, rpath):
    name, _, workers = engine.partition("-")
    workers = int(workers or 1)
    start, evaluate = ENGINE_CODE[name]
    began = time.perf_counter()
    with start(workers) as handle:
        started = time.perf_counter()
        means = evaluate(handle, qpath, rpath, workers)
        done = time.perf_counter()
    result = {"startup": started - began, "evaluate": done - started, "means": means}
    print(json.dumps(result), flush=True)


# --- measurement -----------------------------------------------------------------------


def spark_missing() -> str | None:
    """Why Spark cannot run here (no pyspark, no Java), or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install pyspark)"
    java = Path(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else None
    if not (java and java.exists()) and not shutil.which("java"):
        return "no Java runtime (java is not on PATH and JAVA_HOME is not set)"
    return None


def dask_missing() -> str | None:
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        return 'Dask is not installed (pip install "dask[dataframe]" distributed)'
    return None


def versions() -> dict:
    import importlib.metadata as md

    found = {"python": platform.python_version()}
    for package in ("rankeval-book", "pandas", "pyarrow", "dask", "distributed", "pyspark"):
        with contextlib.suppress(md.PackageNotFoundError):
            found[package] = md.version(package)
    if shutil.which("java"):
        out = subprocess.run(["java", "-version"], capture_output=True, text=True)
        found["java"] = (out.stderr or out.stdout).splitlines()[0] if out.returncode == 0 else "?"
    return found


def _tree_rss(pid):
    import psutil

    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total


def measure(engine, qpath, rpath, timeout):
    """One fresh process: start-up and evaluation seconds, means, peak MB (or None)."""
    cmd = [sys.executable, __file__, "--child", engine, str(qpath), str(rpath)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        err = f"timed out after {timeout} s\n{err}"
    done.set()
    sampler.join()
    if proc.returncode != 0:
        print(f"  {engine} failed: {err.strip().splitlines()[-1:] or proc.returncode}",
              file=sys.stderr)  # fmt: skip
        return None
    result = json.loads(out.strip().splitlines()[-1])
    result["total"] = result["startup"] + result["evaluate"]
    result["peak_mb"] = peak / 2**20
    return result


def best(results: list[dict]) -> dict:
    """The minimum of each time over the repetitions; the means of the first."""
    return {
        "startup": min(r["startup"] for r in results),
        "evaluate": min(r["evaluate"] for r in results),
        "total": min(r["total"] for r in results),
        "peak_mb": max(r["peak_mb"] for r in results),
        "means": results[0]["means"],
        "repeats": len(results),
    }


# --- lines and crossings ---------------------------------------------------------------


def fit(rows: list[int], seconds: list[float]) -> dict | None:
    """Least squares ``seconds = a + b * rows`` with a, b >= 0 (a time has no negative
    part; on a loaded machine a plain line through a few noisy minima can slope down):
    a in s, b in s per million rows."""
    from scipy.optimize import nnls

    if len(rows) < 2:
        return None
    design = np.column_stack([np.ones(len(rows)), np.asarray(rows, float) / 1e6])
    (a, b), _ = nnls(design, np.asarray(seconds, float))
    return {"a": float(a), "b_per_million": float(b)}


def fitted_crossing(slow: dict | None, fast: dict | None) -> float | None:
    """Rows from which ``fast`` (more fixed cost, less per row) takes less time than
    ``slow`` by their lines; 0 if it always does, None if never (not cheaper per row)."""
    if slow is None or fast is None:
        return None
    extra_fixed = fast["a"] - slow["a"]
    saved_per_row = (slow["b_per_million"] - fast["b_per_million"]) / 1e6
    if saved_per_row <= 0:  # a larger run never favours it
        return None
    return max(extra_fixed / saved_per_row, 0.0)


def measured_crossing(rows: list[int], slow: list[float], fast: list[float]) -> int | None:
    """The smallest measured size from which on ``fast`` was faster at every size."""
    found = None
    for n, s, f in sorted(zip(rows, slow, fast, strict=True), reverse=True):
        if f < s:
            found = n
        else:
            break
    return found


def describe_rows(n: float | None, largest: int) -> str:
    if n is None:
        return "never (not cheaper per row)"
    if n == 0:
        return "at every size"
    if n >= 1e6:
        text = f"{n / 1e6:,.1f} M rows"
    else:
        text = f"{n / 1e3:,.0f} k rows"
    return text + (" (beyond the sizes measured)" if n > largest else "")


def crossings(table: dict, sizes: list[int], fits: dict) -> list[dict]:
    """For each pair (slower, faster): where the faster path starts to win."""
    pairs = []
    for name in ("dask", "spark", "mllib", "daskfile"):
        one, two = f"{name}-1", f"{name}-2"
        if one in table and two in table:
            pairs.append((one, two))
    for engine in table:
        if engine != "rankeval" and "rankeval" in table and not engine.startswith("mllib"):
            pairs.append(("rankeval", engine))
    out = []
    for slow, fast in pairs:
        for kind in ("total", "evaluate"):
            common = [n for n in sizes if n in table[slow] and n in table[fast]]
            measured = measured_crossing(
                common, [table[slow][n][kind] for n in common], [table[fast][n][kind] for n in common]
            )
            fitted = fitted_crossing(fits[slow][kind], fits[fast][kind])
            out.append({"slower": slow, "faster": fast, "time": kind,
                        "measured_rows": measured, "fitted_rows": fitted,
                        "largest_measured": max(common) if common else 0})  # fmt: skip
    return out


def crossing_text(c: dict) -> str:
    largest = c["largest_measured"]
    if c["measured_rows"] is None:
        measured = f"not reached up to {largest:,} rows on this machine"
    else:
        measured = f"from {c['measured_rows']:,} rows"
    return f"measured: {measured}; by the lines: {describe_rows(c['fitted_rows'], largest)}"


# --- main ------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=ROWS)
    parser.add_argument("--engines", nargs="+", default=ENGINES, choices=ENGINES + OTHER_ENGINES)
    parser.add_argument("--repeat", type=int, default=2,
                        help="fresh-process runs per size and engine; the minimum is kept")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per run")
    parser.add_argument("--blocksize", default="16MB",
                        help="bytes per partition of a TREC file (daskfile engines)")
    parser.add_argument("--json", type=Path, help="write the results to this file")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    os.environ["BENCH_BLOCKSIZE"] = args.blocksize  # (read by the child processes)
    engines = list(args.engines)
    skipped = {}
    for prefix, why in (("spark", spark_missing()), ("mllib", spark_missing()),
                        ("dask", dask_missing()), ("daskfile", dask_missing())):  # fmt: skip
        if why and any(e.split("-")[0] == prefix for e in engines):
            skipped[prefix] = why
            engines = [e for e in engines if e.split("-")[0] != prefix]
    for prefix, why in skipped.items():
        print(f"{LABELS[prefix]} left out: {why}")
    # the baseline every result is checked against, measured first at each size
    engines = ["rankeval", *[e for e in engines if e != "rankeval"]]
    sizes = sorted(args.rows)
    found = versions()
    load_before = os.getloadavg()
    print(", ".join(f"{k} {v}" for k, v in found.items()) + f", {os.cpu_count()} cores")
    print(f"load average before: {load_before[0]:.2f} (1 min), {load_before[1]:.2f} (5 min)")
    print(f"{args.repeat} fresh-process run(s) per size and engine, the minimum kept\n")
    header = ("| run rows | engine | start-up s | evaluation s | total s | peak MB | "
              "means = plain |")  # fmt: skip
    print(header, flush=True)
    print("|---:|---|---:|---:|---:|---:|---|", flush=True)
    table: dict[str, dict[int, dict]] = {e: {} for e in engines}
    with tempfile.TemporaryDirectory(prefix="bench_distributed_") as tmp:
        for rows in sizes:
            qpath, rpath = make_data(rows, Path(tmp))
            if any(e.startswith("daskfile") for e in engines):
                trec_files(qpath, rpath)  # written before any clock starts
            runs: dict[str, list] = {e: [] for e in engines}
            for _ in range(args.repeat):
                for engine in engines:  # the engines take turns
                    result = measure(engine, qpath, rpath, args.timeout)
                    if result is not None:
                        runs[engine].append(result)
            for engine in engines:
                if not runs[engine]:
                    print(f"| {rows:,} | {label(engine)} | failed | | | | |", flush=True)
                    continue
                entry = best(runs[engine])
                if engine == "rankeval":
                    entry["max_diff"], check = 0.0, "(baseline)"
                elif rows not in table["rankeval"]:
                    entry["max_diff"], check = None, "no baseline"
                else:
                    plain = table["rankeval"][rows]["means"]
                    diff = max(abs(entry["means"][m] - plain[m]) for m in MEASURES)
                    entry["max_diff"] = diff
                    if engine.startswith("mllib"):
                        check = f"other conventions ({diff:.1e})"
                    else:
                        entry["equal"] = bool(diff <= TOLERANCE)
                        check = ("yes" if entry["equal"] else "NO") + f" ({diff:.0e})"
                table[engine][rows] = entry
                print(f"| {rows:,} | {label(engine)} | {entry['startup']:.2f} | "
                      f"{entry['evaluate']:.2f} | {entry['total']:.2f} | "
                      f"{entry['peak_mb']:,.0f} | {check} |", flush=True)  # fmt: skip
            for path in Path(tmp).iterdir():  # the next size's data replaces it
                path.unlink()
    load_after = os.getloadavg()
    print(f"\nload average after: {load_after[0]:.2f} (1 min), {load_after[1]:.2f} (5 min)")

    fits = {}
    print("\nLines through the minima, seconds = a + b * rows (b per million rows):")
    for engine in engines:
        got = sorted(table[engine])
        fits[engine] = {
            kind: fit(got, [table[engine][n][kind] for n in got]) for kind in ("total", "evaluate")
        }
        total, evaluation = fits[engine]["total"], fits[engine]["evaluate"]
        if total:
            print(f"  {label(engine):22} total: {total['a']:6.2f} s + "
                  f"{total['b_per_million']:5.2f} s/M rows;  evaluation alone: "
                  f"{evaluation['a']:6.2f} s + {evaluation['b_per_million']:5.2f} s/M rows")  # fmt: skip
    found_crossings = crossings(table, sizes, fits)
    print("\nWhere the faster path starts to win (total: start-up included; evaluation: "
          "on a running cluster):")  # fmt: skip
    for c in found_crossings:
        print(f"  {label(c['faster'])} beats {label(c['slower'])}, {c['time']}: "
              f"{crossing_text(c)}")  # fmt: skip
    unequal = [(e, n) for e in table for n, r in table[e].items() if r.get("equal") is False]
    if unequal:
        print(f"\nMEANS DIFFER from plain evaluate (more than {TOLERANCE:g}): {unequal}")
    else:
        print(f"\nEvery engine's means equal plain evaluate's to {TOLERANCE:g} at every size.")
    if args.json:
        data = {
            "script": "benchmarks/bench_distributed.py",
            "command": "python " + " ".join([Path(__file__).name, *sys.argv[1:]]),
            "date": datetime.date.today().isoformat(),
            "cores": os.cpu_count(),
            "load_average": {"before": list(load_before), "after": list(load_after)},
            "versions": found,
            "left_out": skipped,
            "repeat": args.repeat,
            "measures": MEASURES,
            "docs_per_query": DOCS_PER_QUERY,
            "tolerance": TOLERANCE,
            "rows": sizes,
            "results": {
                e: {str(n): {k: v for k, v in r.items()} for n, r in sorted(table[e].items())}
                for e in engines
            },
            "fits": fits,
            "crossings": found_crossings,
        }
        args.json.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.json}")
    if unequal:
        sys.exit(1)


if __name__ == "__main__":
    main()
