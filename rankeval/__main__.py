"""Command line: ``python -m rankeval QRELS RUN -m nDCG@10 AP`` prints a trec_eval-like table.

Each output line is ``measure <TAB> query <TAB> value``: the mean over
queries under the query name ``all``, and with ``-q`` one line per query and
measure before the means. Errors in the input (unknown measure, malformed
line, duplicate document, unreadable file) print one line to stderr and exit
with status 1; bad command-line usage exits with status 2.

Chapter: :doc:`/chapters/13_evaluating_a_run`.
"""

from __future__ import annotations

import argparse
import sys

DEFAULT_MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m rankeval",
        description=(
            "Evaluate a TREC run against TREC qrels, trec_eval style: one line per "
            "measure with its mean over queries ('all'); -q adds per-query lines."
        ),
    )
    p.add_argument("qrels", help="qrels file: query_id iteration doc_id grade")
    p.add_argument("run", help="run file: query_id Q0 doc_id rank score tag")
    p.add_argument(
        "-m",
        "--measures",
        nargs="+",
        metavar="MEASURE",
        default=None,
        help=(
            "measures in ir_measures spelling, e.g. nDCG@10 AP P@5 RR R@100 'RBP(p=0.9)'; "
            f"default: {' '.join(DEFAULT_MEASURES)}"
        ),
    )
    p.add_argument("-q", "--per-query", action="store_true", help="also print every query")
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score judged queries missing from the run as 0 (trec_eval -c)",
    )
    p.add_argument(
        "-l",
        "--level",
        type=float,
        default=1,
        metavar="GRADE",
        help="relevance threshold of the binary measures (trec_eval -l; default 1)",
    )
    p.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="drop unjudged documents before scoring (trec_eval -J)",
    )
    p.add_argument(
        "--ties",
        choices=("trec_eval", "input", "average"),
        default="trec_eval",
        help="order of equal scores (default: doc id descending, as trec_eval)",
    )
    p.add_argument(
        "--ideal",
        choices=("judged", "retrieved"),
        default="judged",
        help="relevant set from all judged documents (default) or the retrieved ones",
    )
    p.add_argument(
        "--digits", type=int, default=4, metavar="N", help="decimals printed (default 4)"
    )
    return p


def main(argv=None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        from .runs import evaluate

        table = evaluate(
            args.qrels,
            args.run,
            args.measures or DEFAULT_MEASURES,
            threshold=args.level,
            ties=args.ties,
            ideal=args.ideal,
            missing="zero" if args.complete else "skip",
            judged_only=args.judged_only,
        )
    except (ValueError, TypeError, OSError) as err:
        message = " ".join(str(err).split())  # one line
        print(f"rankeval: error: {message}", file=sys.stderr)
        return 1
    width = max(22, *(len(c) for c in table.columns))
    out = []
    fmt = f"{{:<{width}}}\t{{}}\t{{:.{max(args.digits, 0)}f}}"
    if args.per_query:
        for qid, row in zip(table.index, table.itertuples(index=False), strict=True):
            for name, value in zip(table.columns, row, strict=True):
                out.append(fmt.format(name, qid, value))
    out.append(f"{'num_q':<{width}}\tall\t{len(table)}")
    means = table.mean()
    for name in table.columns:
        out.append(fmt.format(name, "all", means[name]))
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    sys.exit(main())
