"""The command line ``python -m rankeval QRELS RUN -m ...``, run in a subprocess."""

import re
import subprocess
import sys

import pytest

from rankeval import evaluate

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 x 1\nq3 0 m 1\n"
RUN = "q1 Q0 a 1 0.9 r\nq1 Q0 b 2 0.8 r\nq1 Q0 d 3 0.7 r\nq1 Q0 c 4 0.1 r\nq2 Q0 y 1 1.0 r\nq2 Q0 x 2 0.5 r\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "rankeval", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def parse(stdout):
    rows = [line.split("\t") for line in stdout.splitlines()]
    return [(name.strip(), query, value) for name, query, value in rows]


def test_table_of_means(files):
    result = cli(*files, "-m", "nDCG@10", "AP")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    rows = parse(result.stdout)
    assert [(n, q) for n, q, _ in rows] == [("num_q", "all"), ("nDCG@10", "all"), ("AP", "all")]
    means = evaluate(*files, ["nDCG@10", "AP"]).mean()
    assert rows[0][2] == "2"
    assert rows[1][2] == f"{means['nDCG@10']:.4f}"
    assert rows[2][2] == f"{(0.75 + 0.5) / 2:.4f}" == f"{means['AP']:.4f}"


def test_per_query_rows(files):
    rows = parse(cli(*files, "-q", "-m", "P@2", "RR").stdout)
    assert rows[:4] == [("P@2", "q1", "0.5000"), ("RR", "q1", "1.0000"),
                        ("P@2", "q2", "0.5000"), ("RR", "q2", "0.5000")]
    assert rows[4:] == [("num_q", "all", "2"), ("P@2", "all", "0.5000"), ("RR", "all", "0.7500")]


def test_trec_eval_options(files):
    # -c: q3 is judged but not retrieved, scored 0; -l 2: only grade >= 2 is relevant
    rows = parse(cli(*files, "-c", "-m", "RR").stdout)
    assert rows == [("num_q", "all", "3"), ("RR", "all", f"{(1 + 0.5 + 0) / 3:.4f}")]
    rows = parse(cli(*files, "-l", "2", "-m", "RR", "--digits", "6").stdout)
    assert rows == [("num_q", "all", "2"), ("RR", "all", f"{(1 + 0) / 2:.6f}")]
    rows = parse(cli(*files, "-J", "-q", "-m", "P@3").stdout)
    assert ("P@3", "q1", f"{2 / 3:.4f}") in rows  # unjudged d dropped: a, b, c


def test_default_measures(files):
    rows = parse(cli(*files).stdout)
    assert [n for n, _, _ in rows] == ["num_q", "AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR"]


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ("q1 Q0 a 1 0.9 r\nq1 Q0 b 2 zero r\n", r"run.txt, line 2: score 'zero' is not a number"),
        ("q1 Q0 a 1 0.9 r\nq1 Q0 b 2 0.5\n", r"run.txt, line 2: malformed run line"),
        ("q1 Q0 a 1 0.9 r\nq1 Q0 a 2 0.5 r\n", r"run.txt, line 2: duplicate document 'a'"),
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
    assert "unknown measure 'nDGC@10' (did you mean 'nDCG'" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    result = cli(files[0], tmp_path / "missing.txt")
    assert result.returncode == 1 and "No such file" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    result = cli(files[0], tmp_path)
    assert result.returncode == 1 and "is a directory" in result.stderr
    result = cli(*files, "--ties", "random")  # usage error: argparse
    assert result.returncode == 2 and "invalid choice" in result.stderr
