"""Where ``rankeval.evaluate``'s time goes, step by step (issue 51's profile).

Runs ``evaluate(qrels, run, measures, max_memory=...)`` once to import and warm up,
then once under :mod:`cProfile`, and prints the cumulative time of the functions of
each step: the read (parsing, and the search for a document listed twice), the query
ids, the join of grades, the ranking, the judged lists, the scoring, the output frame,
and the bounded path's own work (its index of the qrels, each batch's qrels rows, the
partitioning of a shuffled run, the final concatenation). cProfile sees the main
thread only: the bounded path parses the next batch on a second thread, which shows
as the wait for it. Shares under cProfile are a little inflated for steps of many
small calls; the wall time is ``bench_scale.py``'s.

Usage::

    python benchmarks/profile_evaluate.py QRELS RUN [--max-memory 512MB|None]

The files of ``bench_scale.py`` (``generate``) are the ones profiled in
``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

MEASURES = ["nDCG@10", "AP", "RR", "P@10", "R@100"]

STEPS = {  # label -> [(file ending, function)]; indented labels are parts of the one above
    "read (parse the files)": [("io/trec.py", "_read_fast"), ("io/trec.py", "_read_general")],
    "  wait for the reader thread": [("io/stream.py", "prefetch")],
    "check: a document listed twice": [("io/tables.py", "first_duplicate")],
    "  batch tables (the check included)": [("io/tables.py", "from_arrow")],
    "query ids (encode, match)": [("ranking/id_matching.py", f)
                                  for f in ("_split", "_codes", "_sorted_unique")],
    "join (grades of the run's rows)": [("ranking/grade_join.py", "grades_of_run_rows")],
    "rank (order, tie rule)": [("ranking/ordering.py", "_rank_order"),
                               ("ranking/ordering.py", "_by_doc_id_descending")],
    "  of which: sort a run not grouped": [("ranking/ordering.py", "by_query_and_score")],
    "  of which: each query by score": [("ranking/ordering.py", "_by_score_within")],
    "judged lists": [("ranking/pipeline.py", "_judged_of_queries")],
    "score (the measures)": [("evaluation/plan.py", "score")],
    "  of which: ideal grades": [("ranking/judgment_counts.py", "ideal_grades")],
    "output frame (Plan.frame)": [("evaluation/plan.py", "frame")],
    "bounded: partition a shuffled run": [("io/stream.py", "partition_batches")],
    "bounded: index of the qrels": [("evaluation/bounded.py", "__init__")],
    "bounded: each batch's qrels": [("evaluation/bounded.py", "judgments_of")],
    "bounded: concatenate, sort the frames": [("evaluation/bounded.py", "finish")],
}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("qrels")
    p.add_argument("run")
    p.add_argument("--max-memory", default="512MB", help="a budget, or None")
    args = p.parse_args(argv)
    import pandas  # noqa: F401 - imports are not profiled
    import pyarrow  # noqa: F401

    import rankeval

    budget = None if args.max_memory == "None" else args.max_memory
    rankeval.evaluate(args.qrels, args.run, MEASURES, max_memory=budget)
    profile = cProfile.Profile()
    t = time.perf_counter()
    profile.enable()
    rankeval.evaluate(args.qrels, args.run, MEASURES, max_memory=budget)
    profile.disable()
    total = time.perf_counter() - t
    stats = pstats.Stats(profile).stats

    def cumulative(pairs) -> float:
        return sum(v[3] for k, v in stats.items()
                   if any(k[0].endswith(f) and k[2] == name for f, name in pairs))

    print(f"evaluate({args.run}, max_memory={budget}): {total:.2f} s under cProfile")
    counted = 0.0
    for label, pairs in STEPS.items():
        spent = cumulative(pairs)
        if not label.startswith("  "):
            counted += spent
        print(f"  {label:40s} {spent:7.2f} s  {100 * spent / total:5.1f}%")
    print(f"  {'rest (main thread)':40s} {total - counted:7.2f} s  "
          f"{100 * (total - counted) / total:5.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
