"""The command line's per-query output written in bulk (issue 51): the same bytes as the
line-by-line writer it replaced, in every format.

The oracle, ``_reference_lines``, is the writer of rankeval 0.x before issue 51, kept
here word for word: one f-string per (query, measure), values through ``number``.
"""

from __future__ import annotations

import io
import json
import math
import sys

import numpy as np
import pandas as pd
import pytest

from rankeval.cli import _parse_items, main
from rankeval.reporting import text
from rankeval.reporting.text import RunResult, TextOptions, lines, number, runid_line

# --- the line-by-line writer before issue 51 (the oracle) --------------------------------


def _reference_per_query(r, run_queries_only=False):
    cols = [np.asarray(r.table.iloc[:, j], dtype=np.float64) for j in range(len(r.labels))]
    todo = [j for j in range(len(r.labels)) if r.shown[j]]
    for i, q in enumerate(r.table.index):
        if run_queries_only and r.in_run is not None and not r.in_run[i]:
            continue
        for j in todo:
            yield str(q), r.labels[j], cols[j][i], r.kinds[j]


def _reference_trec(results, options):
    several = len(results) > 1
    for r in results:
        if several:
            yield runid_line(r.name)
        if options.per_query:
            for q, label, value, kind in _reference_per_query(
                r, run_queries_only=options.skip_missing_lines
            ):
                yield f"{label:<22}\t{q}\t{number(value, kind, options.digits)}\n"
        if options.no_summary:
            continue
        if r.runid and not several:
            yield runid_line(r.tag or r.name)
        for label, value, kind in r.summary():
            yield f"{label:<22}\tall\t{number(value, kind, options.digits)}\n"


def _reference_rows(results, options):
    for r in results:
        if options.per_query:
            yield from ((r.name, q, label, value, kind)
                        for q, label, value, kind in _reference_per_query(r))  # fmt: skip
        if not options.no_summary:
            yield from ((r.name, "all", label, value, kind) for label, value, kind in r.summary())


def _reference_tsv(results, options):
    yield "run\tquery\tmeasure\tvalue\n"
    for run, q, label, value, kind in _reference_rows(results, options):
        yield f"{run}\t{q}\t{label}\t{number(value, kind, options.digits)}\n"


def _reference_jsonl(results, options):
    for run, q, label, value, kind in _reference_rows(results, options):
        if math.isnan(value):
            value = None
        elif kind == "sum":
            value = int(round(value))
        record = {"run": run, "query": q, "measure": label, "value": value}
        yield json.dumps(record, ensure_ascii=False) + "\n"


_REFERENCE = {"trec_eval": _reference_trec, "tsv": _reference_tsv, "jsonl": _reference_jsonl}


def _reference(results, options) -> str:
    return "".join(_REFERENCE[options.format](results, options))


# --- random results -----------------------------------------------------------------------

# floats that stress fixed-point rounding: exact ties in binary (0.5, 0.125, 2.5), decimal
# "ties" that are not exact in binary (0.00005, 0.12345), -0.0 and tiny negatives (written
# "-0.0000"), values near 1, and long fractions
_AWKWARD = [0.0, -0.0, 1.0, 0.5, 0.125, 0.375, 2.5, 0.00005, 0.00015, 0.12345, 0.99995,
            0.999949999, 1 / 3, 2 / 3, 1e-300, -1e-7, 5e-5 + 1e-17, 0.1 + 0.2, 1 - 1e-16,
            123456.78905, 0.4999999999999999, 1e-5]  # fmt: skip


def _queries(rng, n):
    """Query ids: digits, long ids, multi-byte ids, and text that looks like a template."""
    kinds = [
        lambda i: str(int(rng.integers(0, 10**8))) + f"-{i}",
        lambda i: "long" + "x" * int(rng.integers(50, 400)) + str(i),
        lambda i: f"東京-ü-{i}-é",
        lambda i: f"{{0}}%s{{{i}:.4f}}\\u00e9\"q{i}",
        lambda i: f"😀{i}",
    ]
    return [kinds[int(rng.integers(0, len(kinds)))](i) for i in range(n)]


def _results(seed, n_queries, items=("all_trec",), n_runs=1, nan=False, names=None):
    rng = np.random.default_rng(seed)
    measures, labels, trec_mode, runid = _parse_items(list(items))
    queries = _queries(rng, n_queries)
    out = []
    for k in range(n_runs):
        data = {}
        for j, m in enumerate(measures):
            if m.aggregate == "sum":
                column = rng.integers(0, 2000, n_queries).astype(np.float64)
            else:
                pick = rng.random(n_queries)
                column = np.where(pick < 0.3, rng.choice(_AWKWARD, n_queries),
                                  np.where(pick < 0.6, rng.integers(0, 11, n_queries) / 10,
                                           rng.random(n_queries)))  # fmt: skip
            if nan:
                column[rng.random(n_queries) < 0.1] = np.nan
            data[j] = column
        table = pd.DataFrame(data, index=pd.Index(queries, name="query"))
        table.columns = labels
        in_run = rng.random(n_queries) < 0.8
        name = names[k] if names else f"run{{{k}}}-é"
        out.append(RunResult(name, "tag", table, measures, labels, trec_mode, runid, in_run))
    return out


FORMATS = ["trec_eval", "tsv", "jsonl"]


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("digits", [4, 0, 1, 9, 17])
def test_bulk_writer_equals_line_by_line(format, digits):
    results = _results(digits, 300)
    options = TextOptions(format, per_query=True, digits=digits)
    assert "".join(lines(results, options)) == _reference(results, options)


@pytest.mark.parametrize("format", FORMATS)
def test_bulk_writer_several_runs_blocks_and_missing_lines(format, monkeypatch):
    monkeypatch.setattr(text, "_BLOCK", 7)  # many blocks, the last one short
    results = _results(1, 50, items=("all_trec", "runid"), n_runs=3)
    for skip in (False, True):
        for no_summary in (False, True):
            options = TextOptions(format, per_query=True, no_summary=no_summary,
                                  skip_missing_lines=skip)  # fmt: skip
            assert "".join(lines(results, options)) == _reference(results, options)


@pytest.mark.parametrize("format", FORMATS)
def test_bulk_writer_nan_and_infinite_values(format):
    results = _results(2, 80, nan=True)
    r = results[0]
    means = [j for j, kind in enumerate(r.kinds) if kind == "mean" and r.shown[j]]
    r.table.iloc[3, means[0]] = np.inf  # (a sum is never infinite: int() of it fails)
    r.table.iloc[4, means[1]] = -np.inf
    options = TextOptions(format, per_query=True)
    assert "".join(lines(results, options)) == _reference(results, options)


def test_bulk_writer_integer_measures_and_large_sums():
    results = _results(3, 40, items=("num_ret", "num_rel", "num_rel_ret", "P.5"))
    table = results[0].table
    table.iloc[0, 0] = 2.0**60  # beyond the vectorised integers: written by number()
    table.iloc[1, 0] = 2.5  # a tie: to even, as round()
    table.iloc[2, 0] = 3.5
    table.iloc[3, 0] = -0.0
    for format in FORMATS:
        options = TextOptions(format, per_query=True)
        assert "".join(lines(results, options)) == _reference(results, options)


def test_fixed_point_text_equals_format_on_near_ties():
    """The vectorised fixed-point text against Python's format, value by value."""
    rng = np.random.default_rng(5)
    grid = np.arange(0, 200001) / 200000  # k / 200000: every 5th digit a decimal tie
    values = np.concatenate([grid, np.nextafter(grid, 2), np.nextafter(grid, -1), -grid,
                             rng.random(10000) * 1e6, np.array(_AWKWARD)])  # fmt: skip
    for digits in (0, 1, 4, 5, 12, 17):
        got = text._fixed(values, "mean", digits).to_pylist()
        assert got == [f"{v:.{digits}f}" for v in values.tolist()]
    sums = np.concatenate([np.arange(-5, 5) + 0.5, [2.0**53, 1e300, -0.0]])
    assert text._fixed(sums, "sum", 4).to_pylist() == [str(int(round(v))) for v in sums]


def test_per_query_lines_come_in_blocks():
    """The per-query lines are written a block of queries at a time, not line by line
    (the line-by-line writer yielded one item per line)."""
    results = _results(4, 1000)
    options = TextOptions("trec_eval", per_query=True, no_summary=True)
    items = list(lines(results, options))
    n_lines = sum(item.count("\n") for item in items)
    assert n_lines == 1000 * sum(results[0].shown)
    assert len(items) <= 2


def test_columns_align_queries_and_values():
    results = _results(6, 30)
    r = results[0]
    queries, shown = r.columns(run_queries_only=True)
    keep = np.asarray(r.in_run)
    assert queries == [str(q) for q in r.table.index[keep]]
    assert [label for label, _, _ in shown] == [r.labels[j] for j in range(len(r.labels))
                                                if r.shown[j]]  # fmt: skip
    j = r.labels.index(shown[2][0])
    np.testing.assert_array_equal(shown[2][2], r.table.iloc[keep, j].to_numpy(np.float64))


# --- the command line, end to end ---------------------------------------------------------


def _files(tmp_path, encoding="utf-8"):
    rng = np.random.default_rng(7)
    qids = ["301", "q-é-東京", "x" * 300, "ÿq", "7"] if encoding == "utf-8" else \
        ["301", "q-é", "x" * 300, "ÿq", "7"]  # fmt: skip
    qrels, run = [], []
    for q in qids:
        for d in range(30):
            qrels.append(f"{q} 0 d{d} {int(rng.integers(0, 3))}\n")
        for rank, d in enumerate(rng.permutation(40)[:25]):
            run.append(f"{q} Q0 d{d} {rank + 1} {round(float(rng.random()), 3)} tag\n")
    (tmp_path / "qrels").write_bytes("".join(qrels).encode(encoding))
    (tmp_path / "run").write_bytes("".join(run).encode(encoding))
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _cli(argv, monkeypatch) -> bytes:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    monkeypatch.setattr(sys, "stdout", out)
    assert main(argv) == 0
    out.flush()
    return raw.getvalue()


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_cli_output_equals_line_by_line(format, encoding, tmp_path, monkeypatch):
    qrels, run = _files(tmp_path, encoding)
    argv = ["-q", "-c", "-m", "all_trec", "--format", format, "--encoding", encoding,
            qrels, run, run]  # fmt: skip
    bulk = _cli(argv, monkeypatch)
    monkeypatch.setattr(text, "_LINES", {"trec_eval": _reference_trec, "tsv": _reference_tsv,
                                         "jsonl": _reference_jsonl})  # fmt: skip
    assert bulk == _cli(argv, monkeypatch)
    assert bulk.count(b"\n") > 5 * 90
