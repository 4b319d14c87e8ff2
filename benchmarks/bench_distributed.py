#!/usr/bin/env python3
"""rankeval on Dask and on Spark against single-process rankeval and Spark MLlib.

One table, printed in one run: for every size (run rows) and every engine, the wall
time from data already on disk as Parquet to the four means, the throughput in run
rows per second, and the peak resident memory of the whole process tree (Python
driver, Dask workers, Spark's JVM and its Python workers). Each measurement runs in a
fresh process, so no engine profits from another's warm caches.

The data: ``queries x 100`` run rows, scores with ties, about 40 judged documents per
query, binary grades (MLlib's MAP, precision and recall are binary; its nDCG is binary
unless relevance values are passed), and 10 % of the judged queries missing from the
run. The four measures are those MLlib has: P@10, R@10, AP (MLlib
``meanAveragePrecision``) and nDCG@10. The means of every engine are printed next to
the times: where the conventions agree, they agree to the digits shown.

    python benchmarks/bench_distributed.py                         # 1M, 5M and 20M rows
    python benchmarks/bench_distributed.py --rows 1000000 --engines rankeval dask-2

``--engines daskfile-2`` (not in the default list) times ``rankeval.dask`` reading the
same data from TREC files, the run split into partitions of ``--blocksize`` bytes
(default 16MB, rankeval.dask's) at line ends; the time includes parsing the files, and the files are
written before the clock starts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

DOCS_PER_QUERY = 100
MEASURES = ["P@10", "R@10", "AP", "nDCG@10"]
ENGINES = ["rankeval", "dask-1", "dask-2", "spark-1", "spark-2", "mllib-1", "mllib-2"]
OTHER_ENGINES = ["daskfile-1", "daskfile-2"]


# --- data ------------------------------------------------------------------------------


def make_data(rows: int, folder: Path, seed: int = 0) -> tuple[Path, Path]:
    """Write qrels.parquet and run.parquet: variable-length string ids, ties, unjudged."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    n_q = rows // DOCS_PER_QUERY
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


def run_rankeval(qpath, rpath, workers):
    import pyarrow.parquet as pq

    import rankeval

    start = time.perf_counter()
    per_query = rankeval.evaluate(pq.read_table(qpath), pq.read_table(rpath), MEASURES)
    means = per_query.mean()
    return time.perf_counter() - start, {m: float(means[m]) for m in MEASURES}


@contextlib.contextmanager
def dask_cluster(workers):
    """A local Dask cluster of ``workers`` one-thread processes, with its client."""
    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
        memory_limit="8GiB",
    ) as cluster, Client(cluster):
        yield


def run_dask(qpath, rpath, workers):
    import dask.dataframe as dd

    import rankeval.dask

    with dask_cluster(workers):
        start = time.perf_counter()
        per_query = rankeval.dask.evaluate(
            dd.read_parquet(str(qpath)), dd.read_parquet(str(rpath)), MEASURES,
            npartitions=4 * workers,
        )
        means = rankeval.dask.means(per_query)
        seconds = time.perf_counter() - start
    return seconds, {m: float(means[m]) for m in MEASURES}


def trec_files(qpath, rpath):
    """The TREC qrels and run files beside the Parquet files (written once)."""
    import pyarrow.parquet as pq

    import rankeval

    qtext, rtext = Path(qpath).with_suffix(".qrels"), Path(rpath).with_suffix(".run")
    if not rtext.exists():
        rankeval.write_qrels(pq.read_table(qpath).to_pandas(), qtext)
        rankeval.write_run(pq.read_table(rpath).to_pandas(), rtext)
    return qtext, rtext


def run_daskfile(qpath, rpath, workers):
    import rankeval.dask

    qtext, rtext = trec_files(qpath, rpath)
    with dask_cluster(workers):
        start = time.perf_counter()
        per_query = rankeval.dask.evaluate(
            str(qtext), str(rtext), MEASURES, npartitions=4 * workers,
            blocksize=os.environ.get("BENCH_BLOCKSIZE", "16MB"),
        )
        means = rankeval.dask.means(per_query)
        seconds = time.perf_counter() - start
    return seconds, {m: float(means[m]) for m in MEASURES}


def _spark(workers):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master(f"local[{workers}]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "8g")
        .config("spark.sql.shuffle.partitions", str(4 * workers))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def run_spark(qpath, rpath, workers):
    import rankeval.spark

    spark = _spark(workers)
    start = time.perf_counter()
    per_query = rankeval.spark.evaluate(
        spark.read.parquet(str(qpath)), spark.read.parquet(str(rpath)), MEASURES,
        num_partitions=4 * workers,
    )
    means = rankeval.spark.means(per_query)
    seconds = time.perf_counter() - start
    spark.stop()
    return seconds, {m: float(means[m]) for m in MEASURES}


def run_mllib(qpath, rpath, workers):
    """MLlib's RankingMetrics, fed the way its documentation shows: per query, the
    ranked document ids (score descending, ties by id descending as in trec_eval) and
    the relevant ids; queries of both the run and the qrels."""
    from pyspark.mllib.evaluation import RankingMetrics
    from pyspark.sql import functions as F

    spark = _spark(workers)
    start = time.perf_counter()
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
    means = {
        "P@10": metrics.precisionAt(10),
        "R@10": metrics.recallAt(10),
        "AP": metrics.meanAveragePrecision,
        "nDCG@10": metrics.ndcgAt(10),
    }
    seconds = time.perf_counter() - start
    spark.stop()
    return seconds, means


RUNNERS = {"rankeval": run_rankeval, "dask": run_dask, "spark": run_spark, "mllib": run_mllib,
           "daskfile": run_daskfile}  # fmt: skip


def child(engine, qpath, rpath):
    name, _, workers = engine.partition("-")
    seconds, means = RUNNERS[name](qpath, rpath, int(workers or 2))
    print(json.dumps({"seconds": seconds, "means": means}))


# --- measurement -----------------------------------------------------------------------


def _tree_rss(pid):
    import psutil

    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def measure(engine, qpath, rpath):
    cmd = [sys.executable, __file__, "--child", engine, str(qpath), str(rpath)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = 0
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = proc.communicate()
    done.set()
    sampler.join()
    if proc.returncode != 0:
        return None
    result = json.loads(out.strip().splitlines()[-1])
    result["peak_mb"] = peak / 2**20
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 5_000_000, 20_000_000])
    parser.add_argument("--engines", nargs="+", default=ENGINES, choices=ENGINES + OTHER_ENGINES)
    parser.add_argument("--blocksize", default="16MB",
                        help="bytes per partition of a TREC file (daskfile engines)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    os.environ["BENCH_BLOCKSIZE"] = args.blocksize  # (read by the child processes)
    import pyspark

    import rankeval

    print(
        f"rankeval {rankeval.__version__}, pyspark {pyspark.__version__}, Python "
        f"{platform.python_version()}, {os.cpu_count()} cores"
    )
    header = "| run rows | engine | seconds | rows/s | peak MB | " + " | ".join(MEASURES) + " |"
    lines = [header, "|" + "---|" * (5 + len(MEASURES))]
    print(header, flush=True)
    print(lines[1], flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for rows in args.rows:
            qpath, rpath = make_data(rows, Path(tmp))
            if any(e.startswith("daskfile") for e in args.engines):
                trec_files(qpath, rpath)  # written before any clock starts
            for engine in args.engines:
                result = measure(engine, qpath, rpath)
                if result is None:
                    line = f"| {rows:,} | {engine} | failed | | | " + " | " * len(MEASURES)
                else:
                    means = " | ".join(f"{result['means'][m]:.6f}" for m in MEASURES)
                    line = (
                        f"| {rows:,} | {engine} | {result['seconds']:.1f} | "
                        f"{rows / result['seconds']:,.0f} | {result['peak_mb']:,.0f} | {means} |"
                    )
                print(line, flush=True)
                lines.append(line)
    if args.markdown:
        args.markdown.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
