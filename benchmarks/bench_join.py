"""Benchmark: which table the (query, document) join of ``rank_run`` should hash.

``rank_run`` matches the run's (query, document) pairs with the qrels' by one Acero
hash join. Acero builds its hash table over one input (the right one) and probes it
with the other; ``rankeval.ranking._inner_join`` makes the smaller table the build
side. This script times, side by side in one run, the same join with the hash table
built over the qrels, over the run, and as rankeval chooses, on generated data of two
shapes:

- ``qrels smaller``: 10,000 queries, 100 run documents and 40 judgments each (the
  shape of ``bench_runs.py``, and of most TREC runs);
- ``qrels larger``: 2,000 queries, 20 run documents each (a run cut at 20) against
  300 judgments each (a deep pool): qrels larger than the run, as in chapter 16's
  simulation (80,000 run rows against 285,504 judgments).

Document ids are text of 3 to 8 digits (varying length); the keys are the query's
number (int32) and the document id, as in ``rank_run``. Every variant must find the
same pairs (checked). The variants take turns; the best of ``--repeat`` calls of
each is printed, in milliseconds.

Usage::

    python benchmarks/bench_join.py
    python benchmarks/bench_join.py --repeat 9
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyarrow as pa
from pyarrow import acero

from rankeval.ranking import _inner_join

SHAPES = {  # name -> (queries, run documents per query, judgments per query)
    "qrels smaller": (10_000, 100, 40),
    "qrels larger": (2_000, 20, 300),
}


def tables(n_queries: int, depth: int, judged: int, seed: int = 0):
    """(run, qrels) join inputs: columns q (int32), doc_id (string), row / at (int32).

    Each query's run documents and judgments are drawn from one pool of its own
    (``max(depth, judged) + depth // 2`` ids), so that about a quarter of the run's
    documents are judged in the first shape and nearly all in the second.
    """
    rng = np.random.default_rng(seed)
    pool = max(depth, judged) + depth // 2

    def draw(rows):  # ids of 3 to 8 digits; the same id may serve several queries
        digits = rng.integers(3, 9, size=(rows, pool))
        return rng.integers(10 ** (digits - 1), 10**digits)

    ids = draw(n_queries)
    while True:  # no id twice in one query's pool (a run lists a document once)
        ordered = np.sort(ids, axis=1)
        repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not repeated.any():
            break
        ids[repeated] = draw(int(repeated.sum()))

    def side(per_query, label):
        picked = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :per_query]
        docs = np.take_along_axis(ids, picked, axis=1).ravel()
        n = docs.size
        return pa.table(
            {
                "q": np.repeat(np.arange(n_queries, dtype=np.int32), per_query),
                "doc_id": pa.array(docs.astype(str).tolist(), pa.string()),
                label: np.arange(n, dtype=np.int32),
            }
        )

    return side(depth, "row"), side(judged, "at")


def join_building_over_right(left, right):
    """The join with Acero's hash table built over ``right``, whatever its size."""
    options = acero.HashJoinNodeOptions(
        "inner", left_keys=["q", "doc_id"], right_keys=["q", "doc_id"],
        left_output=[name for name in left.column_names if name in ("row", "at")],
        right_output=[name for name in right.column_names if name in ("row", "at")],
    )  # fmt: skip
    return acero.Declaration(
        "hashjoin",
        options,
        inputs=[
            acero.Declaration("table_source", acero.TableSourceNodeOptions(left)),
            acero.Declaration("table_source", acero.TableSourceNodeOptions(right)),
        ],
    ).to_table()


def pairs(table) -> set:
    return set(zip(table.column("row").to_pylist(), table.column("at").to_pylist(), strict=True))


def best_ms(variants: dict, repeat: int) -> list:
    """Best time of each variant, in ms; the variants take turns, so that a machine
    slowing down or speeding up during the run favours none of them."""
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(repeat):
        for name, fn in variants.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return [1000 * t for t in best.values()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="calls per variant (best kept)")
    args = parser.parse_args()
    print(f"pyarrow {pa.__version__}, {pa.cpu_count()} threads; best of {args.repeat} calls")
    header = ("shape", "run rows", "qrels rows", "matched", "hash qrels ms", "hash run ms",
              "rankeval ms")  # fmt: skip
    print("\t".join(header))
    for name, shape in SHAPES.items():
        run, qrels = tables(*shape)
        variants = {
            "hash qrels": lambda run=run, qrels=qrels: join_building_over_right(run, qrels),
            "hash run": lambda run=run, qrels=qrels: join_building_over_right(qrels, run),
            "rankeval": lambda run=run, qrels=qrels: _inner_join(
                run, qrels, ["q", "doc_id"], ["row"], ["at"]
            ),
        }
        found = [pairs(fn()) for fn in variants.values()]
        if any(f != found[0] for f in found):
            raise SystemExit(f"{name}: the variants found different pairs")
        times = best_ms(variants, args.repeat)
        cells = [name, f"{run.num_rows:,}", f"{qrels.num_rows:,}", f"{len(found[0]):,}"]
        print("\t".join(cells + [f"{t:.1f}" for t in times]))


if __name__ == "__main__":
    main()
