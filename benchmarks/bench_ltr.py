"""Time rankeval.ltr.evaluate_groups on learning-to-rank arrays and print a table.

    .venv/bin/python benchmarks/bench_ltr.py [--rows 2000000] [--repeat 3] [--sklearn-groups 2000]

The data imitate a web learning-to-rank set (seeded): queries of 10 to 250
rows (about 120 on average, as in MSLR-WEB30K), labels 0..4 with mostly
non-relevant rows, model scores that follow the label with noise, rounded
to 3 decimals so that some tie. Timed on the same data, nDCG@10 each time:

- ``evaluate_groups`` with LightGBM group sizes, with sorted integer query ids,
  and with the rows shuffled (query ids not adjacent);
- ``rankeval.evaluate`` on the same data as two pandas frames (qrels: query,
  row number as document id, label; run: query, row number, score);
- a Python loop over the groups calling ``sklearn.metrics.ndcg_score`` once
  per group (on ``--sklearn-groups`` groups, scaled to all of them).

Each line is the best of ``--repeat`` runs, as wall-clock seconds and as the
process's CPU seconds (on a shared machine the CPU time is the steadier of
the two). This is a measurement, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import rankeval
from rankeval.ltr import evaluate_groups


def make_data(rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(10, 251, size=rows // 10 + 1)
    sizes = sizes[: np.searchsorted(np.cumsum(sizes), rows) + 1]
    sizes[-1] -= sizes.sum() - rows
    sizes = sizes[sizes > 0]
    labels = rng.choice(5, size=rows, p=[0.52, 0.32, 0.13, 0.02, 0.01]).astype(np.float64)
    scores = np.round(labels * 0.5 + rng.normal(size=rows), 3)
    qid = np.repeat(np.arange(sizes.size, dtype=np.int64) * 7 + 3, sizes)
    return labels, scores, sizes, qid


def timed(fn, repeat):
    best_wall, best_cpu, out = np.inf, np.inf, None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        best_wall = min(best_wall, time.perf_counter() - w)
        best_cpu = min(best_cpu, time.process_time() - c)
    return best_wall, best_cpu, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sklearn-groups", type=int, default=2000)
    args = parser.parse_args()

    import pandas as pd

    labels, scores, sizes, qid = make_data(args.rows)
    perm = np.random.default_rng(1).permutation(labels.size)
    print(
        f"rankeval {rankeval.__version__}, NumPy {np.__version__}, pandas {pd.__version__}, "
        f"Python {platform.python_version()}, {platform.machine()}"
    )
    print(
        f"{labels.size:,} rows, {sizes.size:,} queries ({sizes.min()}-{sizes.max()} rows), "
        f"nDCG@10, best of {args.repeat}\n"
    )
    print(f"{'how':52s} {'wall s':>7s} {'CPU s':>7s}")

    def line(name, wall, cpu):
        print(f"{name:52s} {wall:7.3f} {cpu:7.3f}", flush=True)

    m = "nDCG@10"
    wall, cpu, by_sizes = timed(
        lambda: evaluate_groups(labels, scores, sizes, m, group_kind="sizes"), args.repeat
    )
    line("evaluate_groups, group sizes", wall, cpu)
    wall, cpu, by_ids = timed(lambda: evaluate_groups(labels, scores, qid, m), args.repeat)
    line("evaluate_groups, sorted integer query ids", wall, cpu)
    wall, cpu, shuffled = timed(
        lambda: evaluate_groups(labels[perm], scores[perm], qid[perm], m, ties="average"),
        args.repeat,
    )
    line("evaluate_groups, shuffled ids, ties averaged", wall, cpu)
    wall, cpu, _ = timed(
        lambda: evaluate_groups(labels, scores, sizes, m, conventions="lightgbm"), args.repeat
    )
    line("evaluate_groups, sizes, conventions='lightgbm'", wall, cpu)

    doc = np.arange(labels.size, dtype=np.int64)
    qrels = pd.DataFrame({"query_id": qid, "doc_id": doc, "relevance": labels})
    run = pd.DataFrame({"query_id": qid, "doc_id": doc, "score": scores})
    wall, cpu, frames = timed(lambda: rankeval.evaluate(qrels, run, m, ties="input"), args.repeat)
    line("rankeval.evaluate, two frames, integer ids", wall, cpu)

    from sklearn.metrics import ndcg_score

    n = min(args.sklearn_groups, sizes.size)
    starts = np.cumsum(sizes) - sizes

    def loop():
        return [
            ndcg_score(labels[a : a + k][None, :], scores[a : a + k][None, :], k=10)
            for a, k in zip(starts[:n].tolist(), sizes[:n].tolist(), strict=True)
        ]

    wall, cpu, ref = timed(loop, 1)
    scale = sizes.size / n
    line(f"sklearn ndcg_score loop ({n:,} groups, x{scale:.1f})", wall * scale, cpu * scale)

    # the same values every way (ties aside: scikit-learn averages them)
    same = np.allclose(by_sizes[m].to_numpy(), by_ids[m].to_numpy()) and np.allclose(
        by_sizes[m].to_numpy(), frames[m].to_numpy()
    )
    sk = evaluate_groups(labels, scores, sizes, m, conventions="sklearn")[m].to_numpy()[:n]
    print(
        f"\nsizes = ids = evaluate: {same}; sklearn convention = ndcg_score loop: "
        f"{np.allclose(sk, ref)}; shuffled (averaged ties) mean {shuffled[m].mean():.4f}"
    )


if __name__ == "__main__":
    main()
