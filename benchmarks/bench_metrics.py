"""Time every rankeval metric on a large synthetic batch and print a table.

    .venv/bin/python benchmarks/bench_metrics.py [--queries 100000] [--depth 100] [--repeat 3]

The batch is a dense (queries x depth) array of graded relevance 0..3 (seeded), the
shape of a run evaluated at depth 100. Each metric is called once on the whole batch;
the table shows the best of ``--repeat`` runs, and the per-query cost. This is a
measurement, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import rankeval


def metrics(depth: int):
    """(name, callable taking the batch) for every metric of rankeval."""
    return [
        ("hits_at_k (k=10)", lambda r: rankeval.hits_at_k(r, 10)),
        ("precision_at_k (k=10)", lambda r: rankeval.precision_at_k(r, 10)),
        ("recall_at_k (k=10)", lambda r: rankeval.recall_at_k(r, 10)),
        ("hit_at_k (k=10)", lambda r: rankeval.hit_at_k(r, 10)),
        ("average_precision", rankeval.average_precision),
        ("average_recall", rankeval.average_recall),
        ("graded_average_precision", lambda r: rankeval.graded_average_precision(r, max_grade=3)),
        ("reciprocal_rank", rankeval.reciprocal_rank),
        ("dcg (k=10)", lambda r: rankeval.dcg(r, 10)),
        ("ndcg", rankeval.ndcg),
        ("ndcg (k=10, exponential gain)", lambda r: rankeval.ndcg(r, 10, gain="exponential")),
        ("err", lambda r: rankeval.err(r, max_grade=3)),
        ("rbp (p=0.8)", lambda r: rankeval.rbp(r / 3, p=0.8)),
        ("mean_rank", rankeval.mean_rank),
        ("first_relevant_position (k=10)", lambda r: rankeval.first_relevant_position(r, 10)),
        ("inversions", rankeval.inversions),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    # Mostly non-relevant, as in real runs: P(grade) = 0.7, 0.15, 0.1, 0.05.
    batch = rng.choice(4, size=(args.queries, args.depth), p=[0.7, 0.15, 0.1, 0.05])
    batch = batch.astype(np.float64)

    print(f"rankeval {rankeval.__version__}, NumPy {np.__version__}, "
          f"Python {platform.python_version()}, {platform.machine()}")
    print(f"batch: {args.queries:,} queries x {args.depth} ranks, best of {args.repeat} runs\n")
    print(f"{'metric':34s} {'seconds':>9s} {'us/query':>9s}")
    for name, fn in metrics(args.depth):
        best = float("inf")
        try:
            for _ in range(args.repeat):
                start = time.perf_counter()
                fn(batch)
                best = min(best, time.perf_counter() - start)
        except NotImplementedError:
            print(f"{name:34s} {'(not written yet)':>19s}")
            continue
        print(f"{name:34s} {best:9.3f} {1e6 * best / args.queries:9.2f}")


if __name__ == "__main__":
    main()
