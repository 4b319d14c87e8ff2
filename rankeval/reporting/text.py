"""Evaluation results as text: trec_eval's lines, tsv, jsonl, and tables of means.

The command line (:mod:`rankeval.cli`) hands each run's per-query table to a
:class:`RunResult`; :func:`lines` writes them as trec_eval does (``-q`` lines,
then the ``all`` lines of :func:`rankeval.aggregate`), as tsv or as jsonl, and
:func:`table_text` as a markdown or LaTeX table of means (with
:func:`rankeval.compare`'s marks when the runs share their queries).

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from ..evaluation.aggregate import aggregate, with_measures
from .tables import latex, markdown, report

__all__ = ["TextOptions", "RunResult", "lines", "table_text", "write_lines", "runid_line",
           "number"]  # fmt: skip


@dataclass(frozen=True)
class TextOptions:
    """How results are written: ``format`` ("trec_eval", "tsv", "jsonl", "markdown" or
    "latex"), ``per_query`` (trec_eval's ``-q``), ``no_summary`` (``-n``), ``digits``;
    ``skip_missing_lines``: with ``-c -q``, no per-query line for a judged query missing
    from the run (trec_eval 9's output; trec_eval 10 prints them); ``test``,
    ``correction``, ``alpha`` and ``baseline``: the significance tests of the markdown
    and LaTeX tables (:func:`rankeval.compare`'s arguments; None: its defaults)."""

    format: str = "trec_eval"
    per_query: bool = False
    no_summary: bool = False
    digits: int = 4
    skip_missing_lines: bool = False
    test: str | None = None
    correction: str | None = None
    alpha: float | None = None
    baseline: str | None = None


class RunResult:
    """One run's values: per-query rows and summary rows, in print order."""

    def __init__(self, name, tag, table, measures, labels, trec_mode, runid, in_run=None):
        self.name, self.tag = name, tag
        # per row: does the run have the query? (None: all do) trec_eval -c averages over
        # the judged queries the run lacks, but -q prints lines only for those it has
        self.in_run = in_run
        self.table, self.measures, self.labels = table, measures, labels
        self.trec_mode, self.runid = trec_mode, runid
        self.kinds = [m.aggregate for m in measures]
        # trec_eval prints no per-query line for num_q, gm_map and gm_bpref
        self.shown = [m.declaration.per_query for m in measures]

    def per_query(self, run_queries_only=False):
        """(query, label, value, kind) in trec_eval's order: query by query; with
        ``run_queries_only``, only the queries the run has (trec_eval's ``-c -q``)."""
        import numpy as np

        cols = [
            np.asarray(self.table.iloc[:, j], dtype=np.float64) for j in range(len(self.labels))
        ]
        todo = [j for j in range(len(self.labels)) if self.shown[j]]
        for i, q in enumerate(self.table.index):
            if run_queries_only and self.in_run is not None and not self.in_run[i]:
                continue
            for j in todo:
                yield str(q), self.labels[j], cols[j][i], self.kinds[j]

    def summary(self):
        """(label, value, kind) of the ``all`` lines: :func:`rankeval.aggregate` of the
        table, after ``num_q``, the number of queries the means are taken over."""
        # (by position: two names of one measure, map and AP, are two equal columns)
        values = aggregate(self.table.set_axis(range(self.table.shape[1]), axis=1),
                           self.measures)  # fmt: skip
        n_q = len(self.table)
        out = []
        counted = any(not m.declaration.per_query and m.aggregate == "sum"
                      for m in self.measures)  # fmt: skip
        if not self.trec_mode and not counted:
            out.append(("num_q", n_q, "sum"))
        for label, value, kind in zip(self.labels, values.tolist(), self.kinds, strict=True):
            out.append((label, value, kind))
        return out


def number(value, kind, digits) -> str:
    if kind == "sum" and not math.isnan(value):
        return str(int(round(value)))
    return f"{value:.{digits}f}"


def write_lines(lines, write, batch=4096):
    """Write an iterable of lines in batches (a -q output can have millions)."""
    buffer = []
    for line in lines:
        buffer.append(line)
        if len(buffer) >= batch:
            write("".join(buffer))
            buffer.clear()
    write("".join(buffer))


def runid_line(value) -> str:
    return f"{'runid':<22}\tall\t{value}\n"


def _trec_lines(results, options):
    several = len(results) > 1
    for r in results:
        if several:  # one block per run
            yield runid_line(r.name)
        if options.per_query:
            for q, label, value, kind in r.per_query(
                run_queries_only=options.skip_missing_lines
            ):
                yield f"{label:<22}\t{q}\t{number(value, kind, options.digits)}\n"
        if options.no_summary:
            continue
        if r.runid and not several:
            yield runid_line(r.tag or r.name)
        for label, value, kind in r.summary():
            yield f"{label:<22}\tall\t{number(value, kind, options.digits)}\n"


def _rows(results, options):
    for r in results:
        if options.per_query:
            yield from ((r.name, q, label, value, kind) for q, label, value, kind in r.per_query())
        if not options.no_summary:
            yield from ((r.name, "all", label, value, kind) for label, value, kind in r.summary())


def _tsv_lines(results, options):
    yield "run\tquery\tmeasure\tvalue\n"
    for run, q, label, value, kind in _rows(results, options):
        yield f"{run}\t{q}\t{label}\t{number(value, kind, options.digits)}\n"


def _jsonl_lines(results, options):
    for run, q, label, value, kind in _rows(results, options):
        if math.isnan(value):
            value = None
        elif kind == "sum":
            value = int(round(value))
        record = {"run": run, "query": q, "measure": label, "value": value}
        yield json.dumps(record, ensure_ascii=False) + "\n"


def table_text(results, options) -> str:
    """The markdown or LaTeX table of means, one row per run.

    With several runs scored on the same two or more queries, :func:`rankeval.compare`
    tests every pair on every averaged measure (paired t-test, Holm correction
    over the whole table) and :func:`rankeval.report` marks the best mean and
    the significant wins. Otherwise a plain table of the summary values.
    """
    from ..stats.compare import compare

    first = results[0]
    averaged = [j for j, m in enumerate(first.measures) if m.aggregate == "mean"]
    same_queries = all(r.table.index.equals(first.table.index) for r in results)
    enough = len(first.table.index) >= 2  # a paired test (and a bootstrap) needs two queries
    if len(results) > 1 and same_queries and enough and averaged:
        systems = {}
        for r in results:
            frame = r.table.iloc[:, averaged].copy()
            frame.columns = [r.labels[j] for j in averaged]
            systems[r.name] = with_measures(frame, [r.measures[j] for j in averaged])
        labels = [first.labels[j] for j in averaged]
        chosen = {"test": options.test or "t", "correction": options.correction or "holm",
                  "baseline": options.baseline}  # fmt: skip
        if options.alpha is not None:
            chosen["alpha"] = options.alpha
        table = compare(systems, labels, **chosen)
        digits = min(options.digits, 15)  # report's limit
        text = report(table, options.format, digits=digits) + "\n"
        dropped = [first.labels[j] for j in range(len(first.measures)) if j not in averaged]
        if dropped:  # counts (sums) and geometric means are no means that a t-test compares
            note = (f"Not in the table: {', '.join(dropped)} (sums and geometric means over "
                    "queries, which the paired tests do not compare); --format tsv gives them.")
            text += f"\n{note}\n" if options.format == "markdown" else f"% {note}\n"
        return text
    note = ""
    if len(results) > 1 and not same_queries:
        note = (
            "No significance marks: the runs were scored on different queries "
            "(-c scores every judged query in every run)."
        )
    elif len(results) > 1 and not enough:
        note = "No significance marks: a paired test needs at least two queries."
    return _plain_table(results, options, note)


def _plain_table(results, options, note) -> str:
    labels = [label for label, _, _ in results[0].summary()]
    rows = []
    for r in results:
        values = {label: (value, kind) for label, value, kind in r.summary()}
        cells = [values.get(label, (math.nan, "mean")) for label in labels]
        rows.append((r.name, [number(v, k, options.digits) for v, k in cells]))
    if options.format == "markdown":
        lines = ["| system | " + " | ".join(markdown(x) for x in labels) + " |"]
        lines.append("| --- | " + " | ".join("---:" for _ in labels) + " |")
        lines += [f"| {markdown(name)} | " + " | ".join(cells) + " |" for name, cells in rows]
        return "\n".join(lines) + (f"\n\n{note}" if note else "") + "\n"
    lines = [r"\begin{tabular}{l" + "r" * len(labels) + "}", r"\toprule"]
    lines.append("System & " + " & ".join(latex(x) for x in labels) + r" \\")
    lines.append(r"\midrule")
    lines += [latex(name) + " & " + " & ".join(cells) + r" \\" for name, cells in rows]
    lines += [r"\bottomrule", r"\end{tabular}"] + ([f"% {note}"] if note else [])
    return "\n".join(lines) + "\n"


_LINES = {"trec_eval": _trec_lines, "tsv": _tsv_lines, "jsonl": _jsonl_lines}


def lines(results, options):
    """The lines of ``options.format`` (trec_eval text, tsv or jsonl) for the results."""
    return _LINES[options.format](results, options)
