"""The command line ``python -m rankeval [options] QRELS RUN [RUN ...]``, run in a subprocess."""

import contextlib
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import evaluate, measures
from rankeval.cli import main

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 x 1\nq3 0 m 1\n"
RUN = "q1 Q0 a 1 0.9 r\nq1 Q0 b 2 0.8 r\nq1 Q0 d 3 0.7 r\nq1 Q0 c 4 0.1 r\nq2 Q0 y 1 1.0 r\nq2 Q0 x 2 0.5 r\n"
# second system: same documents, c moved to the top of q1, tag s2
RUN2 = "q1 Q0 c 1 2.0 s2\nq1 Q0 a 2 0.9 s2\nq1 Q0 b 3 0.8 s2\nq2 Q0 y 1 1.0 s2\nq2 Q0 x 2 0.5 s2\n"

# trec_eval prints these with "%ld" and sums them on the "all" line (m_num_*.c)
TREC_COUNTS = {"num_q", "num_ret", "num_rel", "num_rel_ret"}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


class Result(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def cli(*args, stdin=None):
    """Run the command line in this process (fast); see test_module_entry_point for -m."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        data = stdin if isinstance(stdin, bytes) else stdin.encode("utf-8")
        sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as exit:  # argparse: usage errors (2), --help (0)
                code = exit.code
    finally:
        sys.stdin = saved
    return Result(code, out.getvalue(), err.getvalue())


def run_module(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "rankeval", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        input=stdin,
    )


def ok(*args, **kwargs):
    result = cli(*args, **kwargs)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def parse(stdout):
    rows = [line.split("\t") for line in stdout.splitlines()]
    assert all(len(row) == 3 for row in rows), stdout
    return [(name.strip(), query, value) for name, query, value in rows]


def trec_line(name, query, value):
    """One line as trec_eval prints it: "%-22s\t%s\t%6.4f" (or "%ld" for counts)."""
    text = str(int(value)) if name in TREC_COUNTS else f"{value:6.4f}"
    return f"{name:<22}\t{query}\t{text}"


def test_module_entry_point(files):
    # python -m rankeval, in a subprocess: same output, errors on stderr with status 1
    result = run_module(*files, "-q", "-m", "P@2", "AP")
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == ok(*files, "-q", "-m", "P@2", "AP")
    result = run_module(*files, "-m", "nDGC@10")
    assert result.returncode == 1 and result.stderr.startswith("rankeval: error: ")
    result = run_module(*files, "--digits", "99")
    assert result.returncode == 2 and "--digits" in result.stderr


def test_console_script_is_the_cli():
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    target = pyproject["project"]["scripts"]["rankeval-eval"]
    assert target == "rankeval.cli:main"
    # a plain install brings everything the command line and evaluate import
    deps = " ".join(pyproject["project"]["dependencies"])
    for package in ("numpy", "pandas", "scipy", "pyarrow"):
        assert package in deps


def test_table_of_means(files):
    rows = parse(ok(*files, "-m", "nDCG@10", "AP"))
    assert [(n, q) for n, q, _ in rows] == [("num_q", "all"), ("nDCG@10", "all"), ("AP", "all")]
    means = evaluate(*files, ["nDCG@10", "AP"]).mean()
    assert rows[0][2] == "2"
    assert rows[1][2] == f"{means['nDCG@10']:.4f}"
    assert rows[2][2] == f"{(0.75 + 0.5) / 2:.4f}" == f"{means['AP']:.4f}"


def test_layout_is_trec_eval_printf(files):
    # measure name left-justified in 22 characters, a tab, query, a tab, 4 decimals
    out = ok(*files, "-q", "-m", "P@2")
    assert out.splitlines()[0] == "P@2" + " " * 19 + "\tq1\t0.5000"
    assert out.endswith("\n")


def test_per_query_rows(files):
    rows = parse(ok(*files, "-q", "-m", "P@2", "RR"))
    assert rows[:4] == [
        ("P@2", "q1", "0.5000"),
        ("RR", "q1", "1.0000"),
        ("P@2", "q2", "0.5000"),
        ("RR", "q2", "0.5000"),
    ]
    assert rows[4:] == [("num_q", "all", "2"), ("P@2", "all", "0.5000"), ("RR", "all", "0.7500")]


@pytest.mark.parametrize(
    "order",
    [
        ("-m", "P@2", "{q}", "{r}"),  # trec_eval's order: options first
        ("{q}", "{r}", "-m", "P@2"),
        ("-q", "{q}", "{r}", "-m", "P@2"),
        ("-m", "P@2", "{q}", "-q", "{r}"),
        ("{q}", "-m", "P@2", "{r}"),
        ("--measure", "P@2", "-q", "{q}", "{r}"),
    ],
)
def test_trec_eval_argument_order(files, order):
    args = [a.format(q=files[0], r=files[1]) for a in order]
    out = ok(*args)
    assert ("P@2", "all", "0.5000") in parse(out)
    assert ("num_q", "all", "2") in parse(out)
    assert out == ok(*files, "-m", "P@2", *(["-q"] if "-q" in order else []))


def test_attached_option_values_as_trec_eval_writes_them(files):
    # trec_eval's getopt accepts -l2, -M1, -mP.1; q1 ranks a (grade 2) first
    rows = parse(ok("-q", "-l2", "-M1", "-mP.1", *files))
    assert rows == [("P_1", "q1", "1.0000"), ("P_1", "q2", "0.0000"), ("P_1", "all", "0.5000")]


def test_measures_before_files_with_several_measures(files):
    rows = parse(ok("-m", "P@2", "RR", *files))
    assert rows == [("num_q", "all", "2"), ("P@2", "all", "0.5000"), ("RR", "all", "0.7500")]


def test_a_bad_last_measure_before_the_files_is_named_as_a_measure(files):
    # -m takes several values and swallows the files; only paths (and, while QRELS or
    # RUN is missing, non-measures) go back to the files, so a misspelt or unknown last
    # measure is reported as a measure, not as a missing file
    q, r = files
    assert parse(ok("-m", "P@2", "-m", "runid", q, r)) == parse(ok("-m", "runid", "P@2", q, r))
    assert ("runid", "all", "r") in parse(ok("-m", "P@2", "-m", "runid", q, r))
    bad = cli("-m", "P@2", "Ndgc@10", q, r)
    assert bad.returncode == 1 and "unknown measure 'Ndgc@10'" in bad.stderr
    bad = cli("-m", "P@2", "P_rel", q, r)
    assert bad.returncode == 1 and "unknown measure 'P_rel'" in bad.stderr
    missing = cli("-m", "P@2", q.parent / "qrelz.txt", r)  # a misspelt path stays a path
    assert missing.returncode == 1 and "qrelz.txt" in missing.stderr
    assert "No such file" in missing.stderr


def test_m_after_the_files_that_an_earlier_m_swallowed(files):
    # found by an adversarial review: trec_eval's getopt takes options after the files,
    # and a second -m after them made the first give back no file
    q, r = files
    want = ok("-m", "P.2", "-m", "map", "--", q, r)
    assert ok("-m", "P.2", q, r, "-m", "map") == want
    assert ok("-m", "P.2", q, r, "-q", "-m", "map") == ok("-q", "-m", "P.2", "-m", "map", q, r)


def test_the_item_after_m_is_a_measure_even_where_a_file_has_its_name(files, tmp_path,
                                                                       monkeypatch):
    # a file named "map" in the working directory: "-m map" after the files still asks
    # for the measure (it was taken as a second run, and map silently dropped)
    q, r = files
    monkeypatch.chdir(tmp_path)
    (tmp_path / "map").write_bytes(r.read_bytes())
    rows = parse(ok("-m", "P.2", q, r, "-m", "map"))
    assert [name for name, _, _ in rows] == ["map", "P_2"]
    assert parse(ok("-m", "map", "-m", "P.2", q, r)) == rows


def test_repeated_m_adds_measures(files):
    rows = parse(ok(*files, "-m", "P@2", "-m", "RR", "-m", "AP", "MAP"))
    # MAP is AP, yet every name asked for gets its line (issue 37)
    assert [n for n, _, _ in rows] == ["num_q", "P@2", "RR", "AP", "MAP"]


def test_trec_eval_dotted_names(files):
    # trec_eval's names, its order of measures (map before P) and its increasing cut-offs
    out = ok(*files, "-q", "-m", "P.2,1", "-m", "map")
    # q1 ranks a(2) b(0) d(unjudged) c(1); q2 ranks y(unjudged) x(1)
    expected = [
        trec_line("map", "q1", (1 / 1 + 2 / 4) / 2),
        trec_line("P_1", "q1", 1.0),
        trec_line("P_2", "q1", 0.5),
        trec_line("map", "q2", 1 / 2),
        trec_line("P_1", "q2", 0.0),
        trec_line("P_2", "q2", 0.5),
        trec_line("map", "all", (0.75 + 0.5) / 2),
        trec_line("P_1", "all", 0.5),
        trec_line("P_2", "all", 0.5),
    ]
    assert out.splitlines() == expected


def test_trec_eval_names_match_ir_measures_names(files):
    trec = parse(ok(*files, "-m", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"))
    ir = {n: v for n, _, v in parse(ok(*files, "-m", "nDCG@10", "P@10", "R@100", "RR"))}
    # printed in trec_eval's order of measures (measures.c), whatever the order of -m
    assert trec == [
        ("recip_rank", "all", ir["RR"]),
        ("P_10", "all", ir["P@10"]),
        ("recall_100", "all", ir["R@100"]),
        ("ndcg_cut_10", "all", ir["nDCG@10"]),
    ]


@pytest.mark.parametrize("digits", ["-1", "18", "four", "2.5"])
def test_digits_validated(files, digits):
    result = cli(*files, "-m", "AP", "--digits", digits)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "--digits" in result.stderr and "0 to 17" in result.stderr


@pytest.mark.parametrize("digits", [0, 1, 17])
def test_digits_in_range(files, digits):
    rows = parse(ok(*files, "-m", "AP", "--digits", digits))
    assert rows[-1] == ("AP", "all", f"{(0.75 + 0.5) / 2:.{digits}f}")


def test_closed_pipe_exits_quietly(tmp_path):
    # far more output than a pipe buffer holds, so writing must meet the closed pipe
    qrels = "".join(f"q{i} 0 d{i} 1\n" for i in range(4000))
    run = "".join(f"q{i} Q0 d{i} 1 1.0 r\nq{i} Q0 e{i} 2 0.5 r\n" for i in range(4000))
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "run.txt").write_text(run)
    proc = subprocess.Popen(
        [sys.executable, "-m", "rankeval", "-q", "-m", "AP", "P@1", "P@2", "RR", "nDCG"]
        + [str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = proc.stdout.readline()  # as `| head -1`: read one line, then close
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert first.startswith(b"AP")
    assert stderr == b""


def test_closed_pipe_in_help():
    # `--help | head -c 10`: whether or not the write meets the closed pipe, status 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "rankeval", "--help"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    proc.stdout.read(10)
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert stderr == b""


def test_complete_counts_scored_queries(files):
    # -c: q3 is judged but not retrieved, scored 0
    rows = parse(ok(*files, "-c", "-m", "RR"))
    assert rows == [("num_q", "all", "3"), ("RR", "all", f"{(1 + 0.5 + 0) / 3:.4f}")]


def test_complete_num_q_counts_only_queries_the_mean_uses(files):
    # with a cut-off, q3 (judged, not retrieved) has FRP@5 = 6, and counts in num_q
    rows = parse(ok(*files, "-c", "-m", "FRP@5", "MR@5"))
    assert rows == [
        ("num_q", "all", "3"),
        ("FRP@5", "all", f"{(1 + 2 + 6) / 3:.4f}"),
        ("MR@5", "all", f"{((1 + 4) / 2 + 2 + 6) / 3:.4f}"),
    ]
    # without one, q3 has no first relevant position: rather than a mean over 2
    # queries printed beside num_q 3, one error line asks for a cut-off
    for measure in ("FRP", "MR"):
        result = cli(*files, "-c", "-m", "AP", measure)
        assert result.returncode == 1 and result.stdout == ""
        [line] = result.stderr.splitlines()
        assert line.startswith("rankeval: error: ") and "cut-off" in line and "q3" in line
    # without -c, FRP is defined for every evaluated query
    rows = parse(ok(*files, "-m", "FRP"))
    assert rows == [("num_q", "all", "2"), ("FRP", "all", f"{(1 + 2) / 2:.4f}")]


def test_complete_prints_no_query_line_for_a_query_the_run_lacks(files):
    # trec_eval 9's -c -q (--skip-missing-lines): q3 (judged, never retrieved) counts in
    # the mean as 0, but the per-query lines are those of the queries in the run;
    # trec_eval 10 (the default, issue 37) prints q3's lines too
    rows = parse(ok(*files, "-c", "-q", "--skip-missing-lines", "-m", "RR"))
    assert rows == [
        ("RR", "q1", "1.0000"),
        ("RR", "q2", "0.5000"),
        ("num_q", "all", "3"),
        ("RR", "all", f"{(1 + 0.5 + 0) / 3:.4f}"),
    ]
    assert ("RR", "q3", "0.0000") in parse(ok(*files, "-c", "-q", "-m", "RR"))


def test_counts_are_integers_and_summed(files):
    out = ok(*files, "-q", "-m", "num_ret", "num_rel", "num_rel_ret", "map")
    rows = parse(out)
    # q1 retrieves 4 documents, 2 of its 2 relevant; q2 retrieves 2, 1 of its 1 relevant
    assert rows == [
        ("num_ret", "q1", "4"),
        ("num_rel", "q1", "2"),
        ("num_rel_ret", "q1", "2"),
        ("map", "q1", "0.7500"),
        ("num_ret", "q2", "2"),
        ("num_rel", "q2", "1"),
        ("num_rel_ret", "q2", "1"),
        ("map", "q2", "0.5000"),
        ("num_ret", "all", "6"),
        ("num_rel", "all", "3"),
        ("num_rel_ret", "all", "3"),
        ("map", "all", "0.6250"),
    ]
    # with -c, q3's relevant document counts in num_rel and q3 in num_q
    rows = parse(ok(*files, "-c", "-m", "num_q", "num_rel", "num_ret"))
    assert rows == [("num_q", "all", "3"), ("num_ret", "all", "6"), ("num_rel", "all", "4")]


def test_judged_only_and_level(files):
    rows = parse(ok(*files, "-l", "2", "-m", "RR", "--digits", "6"))
    assert rows == [("num_q", "all", "2"), ("RR", "all", f"{(1 + 0) / 2:.6f}")]
    rows = parse(ok(*files, "-J", "-q", "-m", "P@3"))
    assert ("P@3", "q1", f"{2 / 3:.4f}") in rows  # unjudged d dropped: a, b, c


def test_max_docs_per_query(files):
    # -M 2 keeps the top 2 of each ranking after sorting by score: q1 a, b; q2 y, x
    rows = parse(ok(*files, "-M", "2", "-q", "-m", "P@4", "R@10"))
    assert rows[:4] == [
        ("P@4", "q1", "0.2500"),
        ("R@10", "q1", "0.5000"),
        ("P@4", "q2", "0.2500"),
        ("R@10", "q2", "1.0000"),
    ]
    # the ranks in the file are ignored: the top 2 by score, ties by doc id descending
    shuffled = "q1 Q0 c 1 0.1 r\nq1 Q0 z 2 0.9 r\nq1 Q0 a 3 0.9 r\nq1 Q0 b 4 0.8 r\n"
    files[1].write_text(shuffled)
    rows = parse(ok(*files, "-M", "2", "-q", "-m", "P@2"))
    assert rows[0] == ("P@2", "q1", "0.5000")  # z then a
    rows = parse(ok(*files, "-M", "1", "-q", "-m", "P@1", "--ties", "input"))
    assert rows[0] == ("P@1", "q1", "0.0000")  # z comes first in the file


@pytest.mark.parametrize("value", ["0", "-3", "x"])
def test_max_docs_validated(files, value):
    result = cli(*files, "-M", value, "-m", "AP")
    assert result.returncode == 2 and "-M" in result.stderr


def test_no_summary(files):
    assert ok(*files, "-n", "-m", "AP") == ""
    rows = parse(ok(*files, "-n", "-q", "-m", "AP"))
    assert [q for _, q, _ in rows] == ["q1", "q2"]


def test_several_runs(files, tmp_path):
    run2 = tmp_path / "run2.txt"
    run2.write_text(RUN2)
    out = ok(files[0], files[1], run2, "-q", "-m", "P@1", "AP")
    one = ok(files[0], files[1], "-q", "-m", "P@1", "AP")
    two = ok(files[0], run2, "-q", "-m", "P@1", "AP")
    runid = "%-22s\t%s\t%s\n"
    assert out == runid % ("runid", "all", "r") + one + runid % ("runid", "all", "s2") + two
    # run 2, q1: c (grade 1) first, then a (2): AP = (1/1 + 2/2) / 2
    assert ("AP", "q1", "1.0000") in parse(two)


def test_several_runs_with_the_same_tag_are_named_by_file(files, tmp_path):
    run2 = tmp_path / "other.txt"
    run2.write_text(RUN)
    rows = parse(ok(files[0], files[1], run2, "-m", "AP"))
    assert [v for n, _, v in rows if n == "runid"] == [str(files[1]), str(run2)]


def test_output_formats_parse_back(files, tmp_path):
    run2 = tmp_path / "run2.txt"
    run2.write_text(RUN2)
    args = (files[0], files[1], run2, "-m", "P@1", "AP", "num_q")
    frames = {
        tag: evaluate(files[0], path, ["P@1", "AP"])
        for tag, path in [("r", files[1]), ("s2", run2)]
    }

    tsv = ok(*args, "-q", "--format", "tsv").splitlines()
    assert tsv[0] == "run\tquery\tmeasure\tvalue"
    body = [line.split("\t") for line in tsv[1:]]
    assert ["r", "q1", "AP", "0.7500"] in body and ["s2", "q1", "AP", "1.0000"] in body
    assert ["r", "all", "num_q", "2"] in body

    records = [json.loads(line) for line in ok(*args, "-q", "--format", "jsonl").splitlines()]
    assert all(set(r) == {"run", "query", "measure", "value"} for r in records)
    for tag, frame in frames.items():
        for q in frame.index:
            for m in ("P@1", "AP"):
                [r] = [r for r in records if (r["run"], r["query"], r["measure"]) == (tag, q, m)]
                assert r["value"] == pytest.approx(frame.loc[q, m], abs=1e-12)
        [n] = [r for r in records if (r["run"], r["query"], r["measure"]) == (tag, "all", "num_q")]
        assert n["value"] == len(frame) and isinstance(n["value"], int)

    # markdown and LaTeX: rankeval.report of rankeval.compare over the averaged measures
    markdown = ok(*args, "--format", "markdown").splitlines()
    assert markdown[0].replace(" ", "") == "|system|P@1|AP|"
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in markdown[2:4]]
    assert [c[0] for c in cells] == ["(a) r", "(b) s2"]
    for frame, row in zip(frames.values(), cells, strict=True):
        assert row[1].strip("*") == f"{frame['P@1'].mean():.4f}"
        assert row[2].strip("*") == f"{frame['AP'].mean():.4f}"
    # the best mean of each measure is bold: s2 on AP (0.75 > 0.625), both on P@1
    assert cells[1][2].startswith("**") and not cells[0][2].startswith("**")
    assert cells[0][1].startswith("**") and cells[1][1].startswith("**")
    assert "Holm correction" in markdown[-3]
    assert markdown[-1].startswith("Not in the table: num_q")  # a sum: named (issue 37)

    latex = ok(*args, "--format", "latex")
    assert latex.startswith("\\begin{tabular}") and "\\end{tabular}" in latex
    for frame in frames.values():
        assert f"{frame['AP'].mean():.4f}" in latex


def test_table_of_one_run_or_of_runs_on_different_queries(files, tmp_path):
    markdown = ok(*files, "-m", "AP", "--format", "markdown").splitlines()
    assert markdown == ["| system | num_q | AP |", "| --- | ---: | ---: |", "| r | 2 | 0.6250 |"]
    run2 = tmp_path / "run2.txt"
    run2.write_text("q1 Q0 c 1 2.0 s2\n")  # q1 only
    markdown = ok(*files, run2, "-m", "AP", "--format", "markdown").splitlines()
    assert markdown[2:4] == ["| r | 2 | 0.6250 |", "| s2 | 1 | 0.5000 |"]
    assert "different queries" in markdown[-1]
    # with -c both runs cover every judged query: compared, best mean in bold
    latex = ok(*files, run2, "-m", "AP", "-c", "--format", "latex")
    assert "\\textbf{0.4167}" in latex and "0.1667" in latex  # (0.75 + 0.5 + 0) / 3, 0.5 / 3


def test_table_of_runs_with_a_zero_variance_measure(tmp_path):
    # run b puts a relevant document first on every query, run a never: P@1 differs by
    # exactly 1 everywhere, which has no t-test; the table is still printed, AP tested
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\nq2 0 c 1\nq2 0 d 1\nq3 0 e 1\n")
    run_a, run_b = tmp_path / "a.run", tmp_path / "b.run"
    run_a.write_text("q1 Q0 x 1 3 A\nq1 Q0 a 2 2 A\nq2 Q0 y 1 3 A\nq2 Q0 c 2 2 A\n"
                     "q3 Q0 z 1 2 A\nq3 Q0 w 2 1 A\nq3 Q0 e 3 0 A\n")
    run_b.write_text("q1 Q0 a 1 3 B\nq1 Q0 x 2 2 B\nq2 Q0 c 1 3 B\nq2 Q0 y 2 2 B\n"
                     "q3 Q0 e 1 2 B\nq3 Q0 z 2 1 B\n")
    out = ok(qrels, run_a, run_b, "-m", "P@1", "AP", "--format", "markdown")
    assert "| (a) A | 0.0000 |" in out and "| (b) B | **1.0000** |" in out
    assert "correction over 1 comparison," in out
    assert "Not tested, zero variance" in out and "A vs B on P@1" in out


def test_table_of_runs_on_one_query(tmp_path):
    # one query: no paired test and no bootstrap is defined, so the means without marks
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\n")
    run_a, run_b = tmp_path / "a.run", tmp_path / "b.run"
    run_a.write_text("q1 Q0 x 1 3 A\nq1 Q0 a 2 2 A\n")
    run_b.write_text("q1 Q0 a 1 3 B\n")
    out = ok(qrels, run_a, run_b, "-m", "P@1", "--format", "markdown")
    assert "| A | 1 | 0.0000 |" in out and "| B | 1 | 1.0000 |" in out
    assert "a paired test needs at least two queries" in out


def test_markdown_escapes_bars_in_names(files, tmp_path):
    # a '|' in a run tag or file name would end a markdown cell: written as '\|'
    def rows(markdown):
        # the cells of each table line, split at the '|' not escaped
        return [
            [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            for line in markdown.splitlines()
            if line.startswith("|")
        ]

    files[1].write_text(RUN.replace(" r\n", " a|b\n"))
    run2 = tmp_path / "run2.txt"
    run2.write_text(RUN2.replace(" s2\n", " c|d|e\n"))
    # one run: the plain table of means
    table = rows(ok(*files, "-m", "AP", "--format", "markdown"))
    assert table[0] == ["system", "num_q", "AP"]
    assert all(len(row) == 3 for row in table)
    assert table[2][0] == "a|b"
    # two runs on the same queries: rankeval.report of rankeval.compare
    out = ok(*files, run2, "-m", "P@1", "AP", "--format", "markdown")
    assert "| (a) a\\|b |" in out and "| (b) c\\|d\\|e |" in out
    table = rows(out)
    assert table[0] == ["system", "P@1", "AP"]
    assert all(len(row) == 3 for row in table)
    assert [row[0] for row in table[2:]] == ["(a) a|b", "(b) c|d|e"]
    # runs on different queries (plain table again), named by file when the tags are shared
    bar = tmp_path / "x|y.txt"
    bar.write_text(RUN.replace(" r\n", " a|b\n").split("q2")[0])  # q1 only
    out = ok(*files, bar, "-m", "AP", "--format", "markdown")
    for path in (files[1], bar):
        assert "| " + str(path).replace("|", "\\|") + " |" in out
    assert "x\\|y.txt |" in out
    assert all(len(row) == 3 for row in rows(out))
    # LaTeX prints a bare | as a dash in its default font encoding: \textbar{}
    latex = ok(*files, run2, "-m", "AP", "--format", "latex")
    assert "(a) a\\textbar{}b &" in latex and "|" not in latex.split("\\toprule")[1]


@pytest.mark.parametrize("format", ["markdown", "latex"])
def test_a_table_refuses_a_run_file_given_twice(files, format):
    # the same file twice has the same tag and the same file name: two rows could not be
    # told apart (and compare needs two distinct systems)
    result = cli(*files, files[1], "-m", "AP", "--format", format)
    assert result.returncode == 1 and result.stdout == ""
    message = rf"rankeval: error: run file {re.escape(str(files[1]))} is given twice: "
    message += rf"--format {format} makes a table with one row per run"
    assert re.match(message, result.stderr)
    assert "give each run file once" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    # a copy under another name is another row, named by its file (the tags are shared)
    copy = files[1].with_name("copy.txt")
    copy.write_text(RUN)
    assert f"| (b) {copy} |" in ok(*files, copy, "-m", "AP", "--format", "markdown")
    # the line formats print one block per run given, as before
    out = ok(*files, files[1], "-m", "AP")
    assert out.count("runid") == 2


def test_markdown_refuses_per_query(files):
    result = cli(*files, "-q", "--format", "markdown")
    assert result.returncode == 2 and "markdown" in result.stderr


def test_default_measures_are_trec_eval_official(files):
    out = ok(*files)
    assert out == ok(*files, "-m", "official")
    rows = parse(out)
    assert rows[:2] == [("runid", "all", "r"), ("num_q", "all", "2")]
    assert ("map", "all", "0.6250") in rows and ("P_10", "all", "0.1500") in rows


def test_trec_eval_sets_print_in_trec_eval_order(files):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}}
    run = {"q1": {"a": 0.9, "b": 0.8, "d": 0.7, "c": 0.1}, "q2": {"y": 1.0, "x": 0.5}}
    for name in ("official", "all_trec"):
        theirs = list(pytrec_eval.RelevanceEvaluator(qrels, {name}).evaluate(run)["q1"])
        ours = [n for n, _, _ in parse(ok(*files, "-m", name))]
        common = [n for n in ours if n in theirs]
        assert common == [n for n in theirs if n in ours]  # same relative order
        assert len(common) >= (10 if name == "official" else 40)
        # trec_eval 9 (pytrec_eval) does not print runid per query; we print it on top
        assert ours[0] == "runid"


def test_score_precision_and_grades(files):
    # scores equal in float32 but not in float64; a is not relevant, b is
    files[0].write_text("q1 0 a 0\nq1 0 b 1.5\n")
    files[1].write_text("q1 Q0 a 1 0.1000000001 r\nq1 Q0 b 2 0.1 r\n")
    assert ("P@1", "all", "0.0000") in parse(ok(*files, "-m", "P@1"))  # a first
    # float32: a tie, broken by doc id descending: b first
    assert ("P@1", "all", "1.0000") in parse(ok(*files, "-m", "P@1", "--score-precision", "float"))
    # trec_eval reads the grade 1.5 as 1: DCG@2 = gain / log2(3)
    dcg = [v for n, _, v in parse(ok(*files, "-m", "DCG@2", "--grades", "trec_eval"))]
    assert dcg[-1] == f"{1 / np.log2(3):.4f}"
    dcg = [v for n, _, v in parse(ok(*files, "-m", "DCG@2"))]
    assert dcg[-1] == f"{1.5 / np.log2(3):.4f}"


def test_runid_from_compressed_runs(files, tmp_path):
    import bz2

    (tmp_path / "a.gz").write_bytes(gzip.compress(RUN.encode()))
    (tmp_path / "b.bz2").write_bytes(bz2.compress(RUN2.encode()))
    rows = parse(ok(files[0], tmp_path / "a.gz", tmp_path / "b.bz2", "-m", "AP"))
    assert [v for n, _, v in rows if n == "runid"] == ["r", "s2"]
    # a compressed run on standard input has its tag too
    packed = gzip.compress(RUN.encode())
    rows = parse(ok(files[0], tmp_path / "b.bz2", "-", "-m", "AP", stdin=packed))
    assert [v for n, _, v in rows if n == "runid"] == ["s2", "r"]


def test_runid_skips_comment_lines(files, tmp_path):
    # the reader skips a leading '#' line; the tag must not come from it either
    run = tmp_path / "commented.txt"
    run.write_text("# produced by bm25 k1 0.9 b 0.4\n\n" + RUN2)
    rows = parse(ok(files[0], run, "-m", "runid", "-m", "AP"))
    assert rows[0] == ("runid", "all", "s2")


def test_runid_alone_prints_each_runs_tag(files, tmp_path):
    # trec_eval -m runid: one line per run, no measure; the run is still read and checked
    (tmp_path / "run2.txt").write_text(RUN2)
    assert parse(ok(*files, "-m", "runid")) == [("runid", "all", "r")]
    rows = parse(ok(files[0], files[1], tmp_path / "run2.txt", "-m", "runid"))
    assert rows == [("runid", "all", "r"), ("runid", "all", "s2")]
    (tmp_path / "bad.txt").write_text("q1 Q0 a 1 x r\n")
    result = cli(files[0], tmp_path / "bad.txt", "-m", "runid")
    assert result.returncode == 1 and result.stdout == ""
    assert "line 1" in result.stderr and "not a number" in result.stderr
    # the other formats have no runid-only form
    result = cli(*files, "-m", "runid", "--format", "tsv")
    assert result.returncode == 1 and "no measure to compute" in result.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_an_output_that_cannot_be_written_is_one_error_line(files):
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "rankeval", "-q", "-m", "AP", *map(str, files)],
            stdout=full, stderr=subprocess.PIPE, timeout=120,
        )  # fmt: skip
    assert proc.returncode == 1
    [line] = proc.stderr.decode().splitlines()
    assert line.startswith("rankeval: error: cannot write the results")
    # standard output closed altogether (`>&-`)
    proc = subprocess.run(
        [sys.executable, "-m", "rankeval", "-m", "AP", *map(str, files)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120,
        preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert proc.returncode == 1
    [line] = proc.stderr.decode().splitlines()
    assert "standard output is closed" in line


def test_help_lists_every_measure():
    result = cli("--help")
    assert result.returncode == 0
    text = result.stdout
    assert "usage: python -m rankeval [options] QRELS RUN [RUN ...]" in text
    for option in ("-q", "-c", "-J", "-l", "-M", "-n", "--digits", "--format", "--ties"):
        assert re.search(rf"(^|\s){re.escape(option)}[ ,]", text), option
    section = text.split("measures (", 1)[1].splitlines()
    for decl in measures.DECLARATIONS.values():  # every declared measure, with its meaning
        assert any(
            line.split()[:1]
            and re.match(rf"{re.escape(decl.name)}\b", line.split()[0])
            and decl.summary in line
            for line in section
        ), decl.name


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ("q1 Q0 a 1 0.9 r\nq1 Q0 b 2 zero r\n", r"run.txt, line 2: .*zero"),
        ("q1 Q0 a 1 0.9 r\nq1 Q0 b 2 0.5\n", r"run.txt, line 2: "),
        ("q1 Q0 a 1 0.9 r\nq1 Q0 a 2 0.5 r\n", r"run.txt, lines? .*2.*: .*duplicate|a"),
    ],
)
def test_bad_run_file(files, run, message):
    files[1].write_text(run)
    result = cli(*files, "-m", "AP")
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankeval: error: ")
    assert "Traceback" not in result.stderr
    assert re.search(message, lines[0])


def test_other_errors(files, tmp_path):
    result = cli(*files, "-m", "nDGC@10")
    assert result.returncode == 1
    assert "unknown measure 'nDGC@10' (did you mean 'nDCG@10'?)" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    result = cli("-m", "nDGC@10", *files)  # a typo before the files is still a measure
    assert result.returncode == 1 and "unknown measure 'nDGC@10'" in result.stderr
    result = cli(files[0], tmp_path / "missing.txt")
    assert result.returncode == 1 and "No such file" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    result = cli("-m", "AP", files[0], tmp_path / "missing.txt")
    assert result.returncode == 1 and "No such file" in result.stderr
    result = cli(files[0], tmp_path)
    assert result.returncode == 1 and "directory" in result.stderr.lower()
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--ties", "random"), "invalid choice"),
        (("--format", "xml"), "invalid choice"),
        (("--frobnicate",), "unrecognized arguments"),
    ],
)
def test_usage_errors(files, args, message):
    result = cli(*files, *args)
    assert result.returncode == 2 and message in result.stderr


def test_usage_errors_on_files(files):
    result = cli(files[0])
    assert result.returncode == 2 and "QRELS" in result.stderr
    result = cli("-", "-")
    assert result.returncode == 2 and "standard input" in result.stderr


def test_run_or_qrels_from_stdin(files):
    expected = ok(*files, "-q", "-m", "AP", "-m", "runid")
    assert ok(files[0], "-", "-q", "-m", "AP", "-m", "runid", stdin=RUN) == expected
    assert ok("-", files[1], "-q", "-m", "AP", "-m", "runid", stdin=QRELS) == expected
    assert ok(files[0], "-", "-q", "-m", "AP", "-m", "runid",
              stdin=gzip.compress(RUN.encode())) == expected


def test_errors_on_stdin_name_stdin(files):
    # standard input is "<stdin>" in every message, compressed or not
    packed = gzip.compress(RUN.encode())
    for args, data, message in [
        ((files[0], "-"), packed[: len(packed) // 2], r"<stdin>: cannot be decompressed"),
        (("-", files[1]), gzip.compress(QRELS.encode())[:20], r"<stdin>: cannot be decompressed"),
        ((files[0], "-"), "q1 Q0 a 1 zero r\n", r"<stdin>, line 1: score 'zero' is not a number"),
        (("-", files[1]), "q1 0 a\n", r"<stdin>, line 1: malformed qrels line"),
    ]:
        result = cli(*args, "-m", "AP", stdin=data)
        assert result.returncode == 1 and result.stdout == ""
        assert re.match(rf"rankeval: error: {message}", result.stderr), result.stderr
        assert len(result.stderr.splitlines()) == 1


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes are POSIX")
def test_runs_and_qrels_from_named_pipes(files, tmp_path):
    # `rankeval <(zcat qrels.gz) <(zcat run.gz)`: each path is a pipe, readable once
    import os
    import threading

    expected = ok(*files, "-q", "-m", "AP", "-m", "runid")
    pipes = []
    for name, text in (("qrels.pipe", QRELS), ("run.pipe", RUN)):
        path = tmp_path / name
        os.mkfifo(path)

        def feed(path=path, text=text):
            with open(path, "w") as f:  # blocks until the command opens the pipe
                f.write(text)

        threading.Thread(target=feed, daemon=True).start()
        pipes.append(path)
    # in a subprocess with a time limit: a reader that opened a pipe twice would wait
    # for a second writer forever
    result = run_module(*pipes, "-q", "-m", "AP", "-m", "runid")
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected


# ------------------------------------------------------ property: CLI = library ---

_ids = st.sampled_from(["a", "b", "c", "d10", "d9", "é"])


@st.composite
def _collections(draw):
    queries = draw(st.lists(st.sampled_from(["q1", "q2", "q10", "q9"]), min_size=1, unique=True))
    qrels, run = {}, {}
    for q in queries:
        qrels[q] = draw(st.dictionaries(_ids, st.integers(0, 3), min_size=1))
        if draw(st.booleans()) or q == queries[0]:
            run[q] = draw(st.dictionaries(_ids, st.integers(0, 3).map(float), min_size=1))
    return qrels, run


@settings(max_examples=25)
@given(_collections(), st.booleans())
def test_every_value_is_what_evaluate_gives(tmp_path_factory, collection, complete):
    # per query and on the "all" line, the jsonl output is what evaluate and its
    # aggregate (sums for counts, means otherwise) give for the same files
    qrels, run = collection
    tmp = tmp_path_factory.mktemp("cli")
    (tmp / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()),
        encoding="utf-8",
    )
    (tmp / "run.txt").write_text(
        "".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in run.items() for d, s in docs.items()),
        encoding="utf-8",
    )
    names = ["AP", "nDCG@3", "P@2", "RR", "NumRet", "NumRelRet", "Rprec"]
    options = ["-c"] if complete else []
    out = ok(tmp / "qrels.txt", tmp / "run.txt", "-q", "--format", "jsonl", "-m", *names, *options)
    records = [json.loads(line) for line in out.splitlines()]
    frame = evaluate(
        tmp / "qrels.txt", tmp / "run.txt", names, missing="zero" if complete else "skip"
    )
    got = {(r["query"], r["measure"]): r["value"] for r in records}
    for q in frame.index:
        for m in names:
            assert got[(q, m)] == pytest.approx(float(frame.loc[q, m]), abs=1e-12)
    assert got[("all", "num_q")] == len(frame)
    for m in names:
        column = frame[m].to_numpy(dtype=float)
        counted = m.startswith("Num")
        expected = column.sum() if counted else column.mean()
        assert got[("all", m)] == pytest.approx(expected, abs=1e-12)
        assert isinstance(got[("all", m)], int) == counted


# ------------------------------------------------------ pytrec_eval oracle ---


def _generated(seed=7):
    """qrels and run text with ties, unjudged documents, ids of mixed lengths,
    non-ASCII ids, and queries on one side only."""
    rng = np.random.default_rng(seed)

    def ident(prefix):
        n = int(rng.integers(1, 12))
        return prefix + "".join(rng.choice(list("abcxyz019é-"), size=n))

    queries = sorted({ident("q") for _ in range(40)})
    qrels, run = {}, {}
    for i, q in enumerate(queries):
        docs = list(dict.fromkeys(ident("d") for _ in range(int(rng.integers(3, 25)))))
        if i % 9 != 4:  # some queries are only in the run
            judged = docs[: int(rng.integers(1, len(docs) + 1))]
            qrels[q] = {d: int(rng.integers(0, 4)) for d in judged}
            qrels[q].update({ident("j"): int(rng.integers(0, 4)) for _ in range(3)})
        if i % 7 != 3:  # some queries are only in the qrels
            # scores on a coarse grid: many ties, exact in float32 and float64
            run[q] = {d: float(rng.integers(0, 6)) / 4 for d in docs}
    qrels_text = "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    run_text = "".join(
        f"{q} Q0 {d} {r} {s} tag\n"
        for q, docs in run.items()
        for r, (d, s) in enumerate(docs.items())
    )
    return qrels, run, qrels_text, run_text


def _trec_eval_output(per_query):
    """The -q output trec_eval prints for pytrec_eval's per-query values."""
    lines = []
    for q in sorted(per_query):  # trec_eval: queries sorted by strcmp (UTF-8 bytes)
        for name, value in per_query[q].items():  # pytrec_eval keeps trec_eval's order
            if name != "num_q":  # printed on the summary line only
                lines.append(trec_line(name, q, value))
    first = next(iter(per_query.values()))
    for name in first:
        values = [per_query[q][name] for q in per_query]
        total = sum(values) if name in TREC_COUNTS else sum(values) / len(values)
        lines.append(trec_line(name, "all", total))
    return lines


BASE_MEASURES = ["map", "P.5,10", "recall.5,100", "ndcg", "ndcg_cut.5,10", "recip_rank"]
# iprec_at_recall and 11pt_avg are left out: trec_eval 10 (rankeval's default) rounds
# r * num_rel to the nearest integer where trec_eval 9 (pytrec_eval) rounds up
MORE_MEASURES = [
    "num_q", "num_ret", "num_rel", "num_rel_ret", "Rprec", "bpref", "success.1,5",
    "map_cut.10", "set_P", "set_recall", "set_F", "infAP",
]  # fmt: skip


@pytest.mark.parametrize(
    "names",
    [
        pytest.param(BASE_MEASURES, id="base"),
        pytest.param(BASE_MEASURES + MORE_MEASURES, id="more"),
    ],
)
def test_whole_output_agrees_with_pytrec_eval(tmp_path, names):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run, qrels_text, run_text = _generated()
    (tmp_path / "qrels.txt").write_text(qrels_text, encoding="utf-8")
    (tmp_path / "run.txt").write_text(run_text, encoding="utf-8")
    expected = _trec_eval_output(pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run))
    args = [a for name in names for a in ("-m", name)]
    out = ok("-q", *args, tmp_path / "qrels.txt", tmp_path / "run.txt")
    assert out.splitlines() == expected


# --- issue 52, item 12: usage errors name the option; nothing left out without a word ----


@pytest.mark.parametrize(
    ("size", "message"),
    [("abc", "must be a size such as 512MB or 2GB, or 'none', got 'abc'"),
     ("0.5KB", "must be at least 1MB, got '0.5KB'"), ("12XB", "must be a size such as 512MB or 2GB, or 'none', got '12XB'")],
)  # fmt: skip
def test_a_bad_max_memory_is_a_usage_error_naming_the_option(files, size, message):
    result = cli(*files, "-m", "AP", "--max-memory", size)
    assert result.returncode == 2 and result.stdout == ""
    assert f"argument --max-memory: {message}" in result.stderr
    assert "max_memory" not in result.stderr


@pytest.mark.parametrize("size", ["none", "None", "2GB", "1MB", "512 MB"])
def test_good_max_memory_values(files, size):
    assert parse(ok(*files, "-m", "AP", "--max-memory", size)) == parse(ok(*files, "-m", "AP"))


def test_an_unknown_baseline_is_a_usage_error_naming_the_runs(files, tmp_path):
    other = tmp_path / "run2.txt"
    other.write_text(RUN2)
    for runs in ([files[1], other], [files[1]]):  # one run: it was silently ignored
        result = cli(files[0], *runs, "-m", "AP", "--format", "markdown", "--baseline", "zz")
        assert result.returncode == 2 and result.stdout == ""
        names = "'r', 's2'" if len(runs) == 2 else "'r'"
        assert f"--baseline 'zz' names no run: the runs are {names}" in result.stderr
    table = ok(files[0], files[1], other, "-m", "AP", "--format", "markdown", "--baseline", "s2")
    assert "(a) r" in table and "(b) s2" in table


def test_list_measures_shows_the_cutoff_a_measure_needs(files):
    out = ok("--list-measures")
    assert "RprecMult(rel)@m " in out and "[trec_eval: Rprec_mult.m]" in out
    assert "IPrec(rel,rounding)@r " in out  # rounding: the conventions' unless named
    for line in out.splitlines():  # a spelling without '@' parses as it is shown
        spelling = line.split()[0]
        if "@" not in spelling:
            name = spelling.partition("(")[0]
            assert measures.parse_measure(name).name == name, line


def test_all_trec_with_q_says_what_it_does_not_print(files):
    result = cli(*files, "-m", "all_trec", "-q")
    assert result.returncode == 0
    assert result.stderr == (
        "rankeval: note: -m all_trec: relstring is not printed (trec_eval prints it for "
        "every query with -q): trec_eval's string of each query's top grades, not a "
        "number, which rankeval does not compute\n"
    )
    assert "relstring" not in result.stdout
    assert ok(*files, "-m", "all_trec")  # without -q trec_eval prints no relstring either
    assert ok(*files, "-m", "official", "-q")
    result = cli(*files, "-m", "relstring", "-q")  # asked for by name: an error
    assert result.returncode == 1 and "unknown measure 'relstring'" in result.stderr


def test_names_as_users_type_them_on_the_command_line(files):
    rows = parse(ok(*files, "-m", "mrr@10", "Ndcg@10", "hit_rate@1", "SetAP", "BPref"))
    same = parse(ok(*files, "-m", "RR@10", "nDCG@10", "Success@1", "SetMAP", "Bpref"))
    assert [v for _, _, v in rows] == [v for _, _, v in same]
    assert [n for n, _, _ in rows][1:] == ["mrr@10", "Ndcg@10", "hit_rate@1", "SetAP", "BPref"]
    # trec_eval's names in any case are trec_eval's names: printed as trec_eval prints them
    assert parse(ok(*files, "-m", "NDCG_cut.10")) == parse(ok(*files, "-m", "ndcg_cut.10"))
    result = cli(*files, "-m", "Ndgc@10")  # the suggestion keeps the cut-off
    assert result.returncode == 1 and "(did you mean 'nDCG@10'?)" in result.stderr
    result = cli(*files, "-m", "Rbp")
    assert result.returncode == 1 and "'RBP'" in result.stderr and "'rbp'" in result.stderr
