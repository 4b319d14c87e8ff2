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

    def columns(self, run_queries_only=False):
        """The per-query values column by column, for writers that format whole columns.

        Returns ``(queries, shown)``: the query ids as strings, in the table's order
        (with ``run_queries_only``, only those the run has), and for each measure
        :meth:`per_query` yields, ``(label, kind, values)`` with ``values`` a float64
        array aligned with ``queries``.
        """
        import numpy as np

        keep = None
        if run_queries_only and self.in_run is not None:
            keep = np.asarray(self.in_run, dtype=bool)
        index = self.table.index if keep is None else self.table.index[keep]
        queries = [str(q) for q in index.tolist()]
        # (one array for the whole table: a column taken by iloc copies the frame's attrs)
        table = self.table.to_numpy(dtype=np.float64)
        if keep is not None:
            table = table[keep]
        shown = [(self.labels[j], self.kinds[j], table[:, j])
                 for j in range(len(self.labels)) if self.shown[j]]  # fmt: skip
        return queries, shown

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


def write_lines(lines, write, batch=4096, size=1 << 20):
    """Write an iterable of lines, or of blocks of lines, in batches.

    A ``-q`` output can have millions of lines: the writers of :func:`lines` yield
    blocks of many lines each, and this joins up to ``batch`` items, or about ``size``
    characters, into one call of ``write``.
    """
    buffer = []
    held = 0
    for line in lines:
        buffer.append(line)
        held += len(line)
        if len(buffer) >= batch or held >= size:
            write("".join(buffer))
            buffer.clear()
            held = 0
    write("".join(buffer))


def runid_line(value) -> str:
    return f"{'runid':<22}\tall\t{value}\n"


# --- per-query lines in bulk --------------------------------------------------------------
# A -q output has a line per query and measure (tens of millions on a large run), and
# formatting them one by one in Python took most of the command's time. Here a line is
# three parts: a fixed head per measure (its label, or the run's name), the query id, and
# a tail: the value between two fixed texts. Each measure's column is factorised, so a
# value is written once per distinct value (P@5 takes six), as number() writes it:
# vectorised (_fixed) where that is provably the same text, by number() itself elsewhere.
# The tails carry the next line's head, so a block of queries is the query ids and the
# tails interleaved: an index array that NumPy builds and pyarrow's take gathers into one
# buffer, decoded into one string.

_BLOCK = 1024  # queries per block of text (about 4 MB of all_trec lines)


def _distinct(values):
    """(codes, distinct values) of a float64 column, by bit pattern (-0.0 is not 0.0)."""
    import numpy as np
    import pandas as pd

    codes, bits = pd.factorize(np.ascontiguousarray(values, dtype=np.float64).view(np.int64))
    return codes, np.asarray(bits).view(np.float64)


def _fixed(values, kind, digits):
    """``number(v, kind, digits)`` of each value, as a pyarrow string array.

    Vectorised where the text is sure to be the same: a sum is an integer below 2**52
    (``np.rint`` rounds half to even, as ``round``); a mean is ``|v| * 10**digits`` below
    2**52 and not within its rounding error of a half (so ``np.rint`` of the product
    rounds as ``format`` does on the exact binary value), its integer and decimal parts
    written by pyarrow, with the sign of ``v`` (``-0.0000`` as ``format``). Every other
    value (NaN, infinities, near-ties, huge values) goes through :func:`number`.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    v = np.asarray(values, dtype=np.float64)
    size = np.abs(v)
    with np.errstate(invalid="ignore", over="ignore"):
        if kind == "sum":
            scaled = v  # (signed: int(round(-0.4)) is 0, written "0")
            fast = np.isfinite(v) & (size < 2.0**52)
        else:
            scaled = size * 10.0**digits
            near = np.abs(scaled - np.floor(scaled) - 0.5)  # distance to a tie
            fast = np.isfinite(scaled) & (scaled < 2.0**52) & (near > scaled * 2.0**-50 + 2.0**-60)
    n = np.where(fast, np.rint(np.where(fast, scaled, 0.0)), 0.0).astype(np.int64)
    if kind == "sum" or digits == 0:
        text = pc.cast(pa.array(n), pa.string())
    else:
        unit = 10**digits
        fraction = pc.utf8_lpad(pc.cast(pa.array(n % unit), pa.string()), digits, "0")
        text = pc.binary_join_element_wise(pc.cast(pa.array(n // unit), pa.string()),
                                           fraction, ".")  # fmt: skip
    if kind != "sum":  # format keeps the sign of a value that rounds to zero
        text = pc.binary_join_element_wise(
            pa.array(np.where(np.signbit(v), "-", "")), text, "")
    if not fast.all():
        slow = [number(x, kind, digits) for x in v[~fast].tolist()]
        text = pc.replace_with_mask(text, pa.array(~fast), pa.array(slow, pa.string()))
    return text


def _bulk(queries, shown, heads, value_text, before, after):
    """Blocks of text, query by query then measure by measure: ``heads[j]``, the query
    id, ``before(label)``, ``value_text(values, kind)`` (a pyarrow string array),
    ``after`` (which ends the line)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n, m = len(queries), len(shown)
    raw = pa.large_binary()
    parts = [pa.array([q.encode("utf-8", "surrogateescape") for q in queries], raw)]
    held = n
    codes = np.empty((n, m), dtype=np.int64)
    for j, (label, kind, values) in enumerate(shown):
        column, distinct = _distinct(values)
        codes[:, j] = column + held
        held += len(distinct)
        # the tail carries the next line's head: the next measure's, or the first
        # measure's on the next query's line
        tail = pc.binary_join_element_wise(
            pa.scalar(before(label).encode("utf-8", "surrogateescape"), raw),
            value_text(distinct, kind).cast(raw),
            pa.scalar((after + heads[(j + 1) % m]).encode("utf-8", "surrogateescape"), raw),
            pa.scalar(b"", raw),
        )  # fmt: skip
        parts.append(tail)
    table = pa.concat_arrays(parts)
    rows = np.arange(n, dtype=np.int64)
    first, skip = heads[0], len(heads[0].encode("utf-8", "surrogateescape"))
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        index = np.empty((stop - start, m, 2), dtype=np.int64)
        index[:, :, 0] = rows[start:stop, None]
        index[:, :, 1] = codes[start:stop]
        gathered = table.take(pa.array(index.ravel()))
        offsets = np.frombuffer(gathered.buffers()[1], dtype=np.int64,
                                count=len(gathered) + 1, offset=gathered.offset * 8)
        data = gathered.buffers()[2]
        text = data[offsets[0] : offsets[-1] - skip].to_pybytes()  # (without the last head)
        yield first + text.decode("utf-8", "surrogateescape")


def _per_query_text(r, heads, value_text, before, after, run_queries_only=False, quote=None):
    """Blocks of ``r``'s per-query lines (:func:`_bulk`); ``heads(labels)``: each
    measure's line head, ``quote``: a query id's text (default: the id)."""
    queries, shown = r.columns(run_queries_only)
    if not queries or not shown:
        return
    if quote is not None:
        queries = [quote(q) for q in queries]
    yield from _bulk(queries, shown, heads([label for label, _, _ in shown]), value_text,
                     before, after)  # fmt: skip


def _json_value(value, kind) -> str:
    """A value as jsonl writes it: null for NaN, an integer for a sum."""
    if math.isnan(value):
        return "null"
    if kind == "sum":
        return str(int(round(value)))
    return json.dumps(value)


def _json_values(values, kind):
    import pyarrow as pa

    return pa.array([_json_value(v, kind) for v in values.tolist()], pa.string())


def _trec_lines(results, options):
    several = len(results) > 1
    digits = options.digits
    for r in results:
        if several:  # one block per run
            yield runid_line(r.name)
        if options.per_query:
            yield from _per_query_text(
                r, lambda labels: [f"{label:<22}\t" for label in labels],
                lambda values, kind: _fixed(values, kind, digits), lambda label: "\t", "\n",
                run_queries_only=options.skip_missing_lines,
            )  # fmt: skip
        if options.no_summary:
            continue
        if r.runid and not several:
            yield runid_line(r.tag or r.name)
        for label, value, kind in r.summary():
            yield f"{label:<22}\tall\t{number(value, kind, options.digits)}\n"


def _tsv_lines(results, options):
    yield "run\tquery\tmeasure\tvalue\n"
    digits = options.digits
    for r in results:
        if options.per_query:
            yield from _per_query_text(
                r, lambda labels, run=r.name: [f"{run}\t"] * len(labels),
                lambda values, kind: _fixed(values, kind, digits),
                lambda label: f"\t{label}\t", "\n",
            )  # fmt: skip
        if not options.no_summary:
            for label, value, kind in r.summary():
                yield f"{r.name}\tall\t{label}\t{number(value, kind, options.digits)}\n"


def _json_text(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def _jsonl_lines(results, options):
    for r in results:
        if options.per_query:
            head = '{"run": ' + _json_text(r.name) + ', "query": '
            yield from _per_query_text(
                r, lambda labels, head=head: [head] * len(labels), _json_values,
                lambda label: ', "measure": ' + _json_text(label) + ', "value": ', "}\n",
                quote=_json_text,
            )  # fmt: skip
        if not options.no_summary:
            for label, value, kind in r.summary():
                if math.isnan(value):
                    value = None
                elif kind == "sum":
                    value = int(round(value))
                record = {"run": r.name, "query": "all", "measure": label, "value": value}
                yield _json_text(record) + "\n"


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
