"""The bounded-memory path of ``evaluate`` at its edges (issue 52, items 7, 8, 9, 16):
``columns=`` and bad inputs exactly as the whole path takes them, standard input and
pipes spooled within the budget, messages that name the file and its line, and spill
files removed when the process is stopped (SIGTERM) or killed (SIGKILL)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankeval
import rankeval.evaluation.bounded as bounded
from rankeval.evaluation.bounded import evaluate_bounded
from rankeval.evaluation.conventions import conventions as as_conventions
from rankeval.evaluation.plan import make_plan
from rankeval.evaluation.runs import score_run

REPO = Path(__file__).resolve().parents[1]
MEASURES = ["P@5", "AP", "nDCG@10", "RR", "NumRet"]
NAMES = {"query_id": "user", "doc_id": "item", "relevance": "rating", "score": "pred"}


@pytest.fixture
def stream_always(monkeypatch):
    """The public path streams even a small file (as tests/test_scale.py does)."""
    monkeypatch.setattr(bounded, "_WHOLE_FACTOR", 10**12)
    monkeypatch.setattr(bounded, "_FIT_FACTOR", 10**12)


def run_lines(n_queries=60, depth=300):
    """A grouped run, one line a row: query q{i}, documents d0.. by falling score."""
    return [f"q{q} Q0 d{i} {i} {1 - i / 1000:.3f} tag" for q in range(n_queries)
            for i in range(depth)]  # fmt: skip


def shuffled(lines, seed=1):
    return [lines[i] for i in np.random.default_rng(seed).permutation(len(lines))]


def write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


def qrels_dict(n_queries=60, depth=300):
    return {f"q{q}": {f"d{i}": 1 + i % 2 for i in range(0, depth, 7)} for q in range(n_queries)}


def as_parquet(path, lines, row_group_size=500):
    rows = [line.split() for line in lines]
    pq.write_table(pa.table({"user": [r[0] for r in rows], "item": [r[2] for r in rows],
                             "pred": [float(r[4]) for r in rows]}), path,
                   row_group_size=row_group_size)
    return path


def bounded_call(qrels, run, measures=("P@5",), block=2000, partitions=3, **options):
    """evaluate_bounded with a tiny block (every run streamed, in many batches)."""
    columns = options.pop("columns", None)
    chosen = as_conventions(options.pop("conventions", None), **options)
    return evaluate_bounded(score_run, qrels, run, make_plan(list(measures), chosen), 1 << 20,
                            block=block, partitions=partitions, columns=columns)[0]


def outcome(call):
    """(error type, message), or ("ok", the frame)."""
    try:
        return "ok", call()
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return type(error), str(error)


# --- item 7: columns= and what is refused ---------------------------------------------------


@pytest.mark.parametrize("order", ["grouped", "shuffled"])
@pytest.mark.parametrize("kind", ["text", "parquet"])
def test_columns_for_a_qrels_frame_on_every_path(tmp_path, stream_always, order, kind):
    """A qrels frame with your column names and ``columns=`` mapping them: the bounded
    path took the qrels as if no names were given and failed ('qrels DataFrame needs
    the columns query_id, ...'), so any run over an eighth of the budget failed."""
    lines = run_lines(30, 80)
    lines = shuffled(lines) if order == "shuffled" else lines
    qrels = qrels_dict(30, 80)
    frame = pd.DataFrame([(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
                         columns=["user", "item", "rating"])
    if kind == "text":
        run, columns = write(tmp_path / "run.txt", lines), {k: v for k, v in NAMES.items()
                                                           if k != "score"}
    else:  # the run's columns are mapped too, by the same dict
        run, columns = as_parquet(tmp_path / "run.parquet", lines), NAMES
    expected = rankeval.evaluate(qrels, str(run), MEASURES, max_memory=None,
                                 columns=columns if kind == "parquet" else None)
    expected.index.name = "user"  # (the dict's numbers, under your name of the column)
    whole = rankeval.evaluate(frame, str(run), MEASURES, max_memory=None, columns=columns)
    pd.testing.assert_frame_equal(whole, expected, check_exact=True)
    pd.testing.assert_frame_equal(
        rankeval.evaluate(frame, str(run), MEASURES, max_memory="1MB", columns=columns),
        expected, check_exact=True)
    pd.testing.assert_frame_equal(
        bounded_call(frame, str(run), MEASURES, block=700, columns=columns), expected,
        check_exact=True)


REFUSED = ["columns not a dict", "columns with an unknown key",
           "an unknown measure, no query in common", "a diversity measure",
           "ties='average' for AP", "a Parquet column missing", "a Parquet column mapped to none"]


@pytest.mark.parametrize("kind", ["text", "parquet"])
def test_columns_when_a_shuffled_run_is_read_at_once(tmp_path, monkeypatch, kind):
    """A run found not grouped that fits a quarter of the budget is read at once, with
    the qrels already read: they were handed over under the canonical names while
    ``columns=`` still named yours."""
    lines = shuffled(run_lines(20, 100))
    qrels = qrels_dict(20, 100)
    frame = pd.DataFrame([(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
                         columns=["user", "item", "rating"])
    if kind == "text":
        run, columns = write(tmp_path / "run.txt", lines), {k: v for k, v in NAMES.items()
                                                           if k != "score"}
    else:
        run, columns = as_parquet(tmp_path / "run.parquet", lines), NAMES
    size = run.stat().st_size * (bounded._COMPRESSION if kind == "parquet" else 1)
    budget = 6 * size  # over a quarter of the budget, under an eighth
    assert size * bounded._WHOLE_FACTOR > budget >= size * bounded._FIT_FACTOR
    read_at_once = []
    real = bounded._at_once
    monkeypatch.setattr(bounded, "_at_once", lambda r: read_at_once.append(r) or real(r))
    expected = rankeval.evaluate(frame, str(run), MEASURES, max_memory=None, columns=columns)
    chosen = as_conventions(None)
    got, _ = evaluate_bounded(score_run, frame, str(run), make_plan(MEASURES, chosen), budget,
                              columns=columns)
    assert read_at_once == [str(run)]
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


def _refused_cases(tmp: Path):
    lines = run_lines(5, 20)
    good = write(tmp / "run.txt", lines)
    qrels, other = qrels_dict(5, 20), {"zz": {"d1": 1}}
    parquet = as_parquet(tmp / "run.parquet", lines)
    return {
        "columns not a dict": (qrels, good, ["P@5"], dict(columns=["query_id"])),
        "columns with an unknown key": (qrels, good, ["P@5"], dict(columns={"qid": "x"})),
        # measures are checked before any line is read, as the whole path checks them
        "an unknown measure, no query in common": (other, good, ["Bogus@5"], {}),
        "a diversity measure": (other, good, ["alpha-nDCG@10"], {}),
        "ties='average' for AP": (other, good, ["AP"], dict(ties="average")),
        "a Parquet column missing": (qrels, parquet, ["P@5"],
                                     dict(columns={"query_id": "user", "score": "pred"})),
        "a Parquet column mapped to none": (qrels, parquet, ["P@5"],
                                            dict(columns={**NAMES, "doc_id": "nope"})),
    }


@pytest.mark.parametrize("case", REFUSED)
def test_bounded_path_refuses_what_the_whole_path_refuses(tmp_path, stream_always, case):
    """Found by running the same bad inputs through both paths: the bounded path gave an
    AttributeError for ``columns=[...]``, accepted unknown keys of ``columns``, said 'no
    query in common' where the whole path names the bad measure, and listed only the
    columns it had read when a Parquet column was missing."""
    qrels, run, measures, options = _refused_cases(tmp_path)[case]
    whole = outcome(lambda: rankeval.evaluate(qrels, str(run), measures, max_memory=None,
                                              **options))
    assert whole[0] in (ValueError, TypeError), whole
    assert outcome(lambda: bounded_call(qrels, str(run), measures, **options)) == whole
    assert outcome(lambda: rankeval.evaluate(qrels, str(run), measures, max_memory="1MB",
                                             **options)) == whole


# --- item 9: the file and its lines ---------------------------------------------------------


def _twice(lines, at, source):
    """``lines`` with a copy of line index ``source`` inserted before index ``at``."""
    return lines[:at] + [lines[source]] + lines[at:]


@pytest.mark.parametrize("case, first, second", [
    ("grouped", 17711, 17951),  # q59's d10, again 240 lines (many batches) further on
    ("a query seen again", 31, 17001),  # q0's d30, again in q56: partitions
    ("shuffled", 21, 16001),  # found in a partition
    ("two repeats in two partitions", 101, 9001),  # the repeat nearest the top is named
    ("comments and spaces", 17713, 17953),  # two lines more at the top
])  # fmt: skip
def test_a_document_listed_twice_is_named_by_its_lines(tmp_path, stream_always, case,
                                                       first, second):
    """A document listed twice, found by the bounded path on a whole query long after its
    batch was read (or in a partition): the message named 'run table, rows 23 and 40'
    (rows of a batch); it names the file and its lines, as the whole path does."""
    lines = run_lines()
    if case == "grouped":
        lines = _twice(lines, 17950, 17710)
    elif case == "a query seen again":
        lines = _twice(lines, 17000, 30)
    elif case == "shuffled":
        lines = _twice(shuffled(lines), 16000, 20)
    elif case == "two repeats in two partitions":
        lines = _twice(_twice(shuffled(lines), 15000, 12000), 9000, 100)
    else:
        lines = ["# a comment", ""] + [line.replace(" ", "  ") for line in
                                       _twice(lines, 17950, 17710)]
    path = write(tmp_path / "run.txt", lines)
    assert lines[first - 1].split()[:3] == lines[second - 1].split()[:3]  # by hand
    by_hand = f"{path}, lines {first} and {second}: document "
    whole = outcome(lambda: rankeval.evaluate(qrels_dict(), str(path), ["P@5"],
                                              max_memory=None))
    assert whole[0] is ValueError and whole[1].startswith(by_hand), whole
    assert outcome(lambda: bounded_call(qrels_dict(), str(path))) == whole
    assert outcome(lambda: rankeval.evaluate(qrels_dict(), str(path), ["P@5"],
                                             max_memory="1MB")) == whole


@pytest.mark.parametrize("order", ["grouped", "shuffled"])
@pytest.mark.parametrize("error", ["not a number", "malformed"])
def test_a_bad_line_after_a_repeat_is_the_error_named(tmp_path, stream_always, order, error):
    """The whole path reads the whole file before it looks for a document listed twice:
    a bad line anywhere is the error it names. The bounded path found the repeat on a
    whole query of its first batch and named it; it now reads on to the end when
    scoring fails. (Batches are at least 512 KB: the run has 1.5 MB.)"""
    lines = _twice(run_lines(200), 3200, 3010)  # q10's d10 again, 190 lines further on
    lines = shuffled(lines) if order == "shuffled" else lines
    bad = "q59 Q0 dx 1 high tag" if error == "not a number" else "q59 Q0 dx 1"
    path = write(tmp_path / "run.txt", [*lines, bad])
    assert path.stat().st_size > 2 * 512 * 1024  # the bad line in a later batch
    expected = f"{path}, line {len(lines) + 1}: "
    qrels = qrels_dict(200)
    whole = outcome(lambda: rankeval.evaluate(qrels, str(path), ["P@5"], max_memory=None))
    assert whole[0] is ValueError and whole[1].startswith(expected), whole
    assert outcome(lambda: bounded_call(qrels, str(path))) == whole
    assert outcome(lambda: rankeval.evaluate(qrels, str(path), ["P@5"],
                                             max_memory="1MB")) == whole


@pytest.mark.parametrize("order", ["grouped", "shuffled"])
def test_a_repeat_comes_before_an_error_of_scoring(tmp_path, stream_always, order):
    """The whole path checks every line for a document listed twice before it compares
    the run's ids with the qrels'; the bounded path met the integer qrels ids against
    the run's text ids on its first queries and raised a TypeError, though a repeat
    further on is what the whole path names."""
    lines = [line[1:] for line in run_lines(200)]  # query ids 0, 1, ... as text
    lines = _twice(lines, 45250, 45010)  # query 150's d10 again (a later batch)
    lines = shuffled(lines) if order == "shuffled" else lines
    path = write(tmp_path / "run.txt", lines)
    qrels = {q: {f"d{i}": 1 for i in range(0, 300, 7)} for q in range(200)}  # int ids
    whole = outcome(lambda: rankeval.evaluate(qrels, str(path), ["P@5"], max_memory=None))
    assert whole[0] is ValueError and "listed twice for query '150'" in whole[1], whole
    assert outcome(lambda: bounded_call(qrels, str(path))) == whole
    assert outcome(lambda: rankeval.evaluate(qrels, str(path), ["P@5"],
                                             max_memory="1MB")) == whole
    path = write(tmp_path / "run.txt", list(dict.fromkeys(lines)))  # no repeat
    assert outcome(lambda: bounded_call(qrels, str(path)))[0] is TypeError


@pytest.mark.parametrize("order", ["grouped", "shuffled"])
def test_parquet_messages_name_the_row_of_the_file(tmp_path, stream_always, order):
    """A Parquet run's rows are counted in the whole file (from 0, as the whole path
    counts them): a repeat at row 5000 was named 'row 86' of its batch."""
    lines = run_lines()
    lines = shuffled(lines) if order == "shuffled" else lines
    path = as_parquet(tmp_path / "run.parquet", _twice(lines, 5000, 30))
    whole = outcome(lambda: rankeval.evaluate(qrels_dict(), str(path), ["P@5"],
                                              max_memory=None, columns=NAMES))
    assert whole[0] is ValueError and whole[1].startswith(
        f"run Parquet file {path}, rows 30 and 5000: document "), whole
    assert outcome(lambda: bounded_call(qrels_dict(), str(path), columns=NAMES)) == whole
    assert outcome(lambda: rankeval.evaluate(qrels_dict(), str(path), ["P@5"],
                                             max_memory="1MB", columns=NAMES)) == whole
    bad = tmp_path / "inf.parquet"  # a value checked batch by batch
    pq.write_table(pa.table({"query_id": ["q1"] * 6000, "doc_id": [f"d{i}" for i in range(6000)],
                             "score": [1.0] * 5999 + [float("inf")]}), bad, row_group_size=500)
    message = f"run Parquet file {bad}, row 5999: score inf is not finite"
    for call in (lambda: rankeval.evaluate(qrels_dict(), str(bad), ["P@5"], max_memory=None),
                 lambda: bounded_call(qrels_dict(), str(bad))):
        assert outcome(call) == (ValueError, message)


def test_stdin_and_file_object_messages_name_the_source_and_line(tmp_path, monkeypatch,
                                                                 stream_always):
    lines = _twice(shuffled(run_lines()), 16000, 20)
    path = write(tmp_path / "run.txt", lines)
    whole = outcome(lambda: rankeval.evaluate(qrels_dict(), str(path), ["P@5"],
                                              max_memory=None))
    assert whole[0] is ValueError
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    got = outcome(lambda: rankeval.evaluate(qrels_dict(), "-", ["P@5"], max_memory="1MB"))
    assert got == (ValueError, whole[1].replace(str(path), "<stdin>"))
    with open(path, "rb") as f:  # a file object: named by its name
        got = outcome(lambda: rankeval.evaluate(qrels_dict(), f, ["P@5"], max_memory="1MB"))
    assert got == whole


# --- item 8: standard input and pipes within the budget -------------------------------------


class OnlyInBlocks(io.RawIOBase):
    """Standard input that refuses to be read whole (``read()``, ``read(-1)``) or in
    reads larger than ``limit`` bytes."""

    def __init__(self, data: bytes, limit: int):
        self.data, self.at, self.limit = data, 0, limit

    def readable(self):
        return True

    def read(self, size=-1):
        assert size is not None and 0 <= size <= self.limit, \
            f"standard input read with size={size}: held whole, or beyond the budget"
        chunk = self.data[self.at:self.at + size]
        self.at += len(chunk)
        return chunk

    def readinto(self, buffer):  # pragma: no cover - not used by the spooling
        raise AssertionError("standard input read through readinto")


def _cli_files(tmp_path, lines):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels_dict().items()
                             for d, g in docs.items()))
    return qrels, write(tmp_path / "run.txt", lines)


@pytest.mark.parametrize("order", ["grouped", "shuffled"])
def test_command_line_spools_stdin_within_the_budget(tmp_path, monkeypatch, capsys, order):
    """The command line read standard input whole (``sys.stdin.buffer.read()``) and
    held it in memory, whatever ``--max-memory`` said; it is now copied to a spill
    folder in blocks of the budget's batch size, then read as a file."""
    from rankeval.cli import main

    lines = run_lines()
    qrels, run = _cli_files(tmp_path, shuffled(lines) if order == "shuffled" else lines)
    base = ["-m", "P.5", "-m", "ndcg_cut.10", "-q", "--max-memory", "1MB"]
    assert main([str(qrels), str(run), *base]) == 0
    expected = capsys.readouterr().out
    block = bounded.block_size(1 << 20)
    stdin = type("Stdin", (), {"buffer": OnlyInBlocks(run.read_bytes(), block)})()
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert main([str(qrels), "-", *base]) == 0
    assert capsys.readouterr().out == expected
    assert not list(tmp_path.glob("rankeval-*")), "the spill folder was left behind"
    # a bad line is named by its line of standard input
    bad = run.read_bytes() + b"q1 Q0 dz 1 nan tag\n"
    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": OnlyInBlocks(bad, block)})())
    assert main([str(qrels), "-", *base]) == 1
    assert f"<stdin>, line {len(lines) + 1}: score 'nan' is not finite" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_command_line_spools_a_named_pipe(tmp_path, monkeypatch, capsys):
    """A pipe (a FIFO, ``<(zcat run.gz)``) was read whole into memory; it is spooled as
    standard input is, and messages name the pipe."""
    import threading

    from rankeval.cli import main

    qrels, run = _cli_files(tmp_path, shuffled(run_lines()))
    base = ["-m", "P.5", "-m", "ndcg_cut.10", "-q", "--max-memory", "1MB"]
    assert main([str(qrels), str(run), *base]) == 0
    expected = capsys.readouterr().out
    import rankeval.cli as cli

    given = []  # what the evaluation is handed: the spooled copy, not the bytes in memory
    real = cli._evaluate
    monkeypatch.setattr(cli, "_evaluate", lambda q, run, *a: given.append(run) or real(q, run, *a))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    fifo = tmp_path / "pipe"
    for data, status in [(run.read_bytes(), 0), (run.read_bytes() + b"q1 Q0 d1\n", 1)]:
        os.mkfifo(fifo)
        writer = threading.Thread(target=fifo.write_bytes, args=(data,))
        writer.start()
        try:
            assert main([str(qrels), str(fifo), *base]) == status
        finally:
            writer.join(timeout=30)
            fifo.unlink()
        out, err = capsys.readouterr()
        if status == 0:
            assert out == expected
        else:
            last = data.count(b"\n")
            assert f"{fifo}, line {last}: malformed run line" in err
    assert given and not any(isinstance(run, io.BytesIO) for run in given), \
        f"the pipe was read whole into memory: {given}"
    assert all(isinstance(run, os.PathLike) and str(fifo) in repr(run) for run in given)
    assert not list(tmp_path.glob("rankeval-*")), "the spill folder was left behind"


# --- item 16: spill files removed on SIGTERM, and after SIGKILL by the next run ------------

CHILD = textwrap.dedent(r"""
    import sys, time
    import rankeval.evaluation.bounded as bounded
    qrels, run, how = sys.argv[1], sys.argv[2], sys.argv[3]
    real = bounded._State.score_queries
    def slow(self, *args, **kwargs):  # every partition takes a while: time to stop it
        time.sleep(0.2)
        return real(self, *args, **kwargs)
    bounded._State.score_queries = slow
    bounded._WHOLE_FACTOR = bounded._FIT_FACTOR = 10**12  # stream even a small run
    if how == "library":
        import rankeval
        rankeval.evaluate(qrels, run, ["P@5"], max_memory="1MB")
    else:  # the command line, the run from standard input
        from rankeval.cli import main
        sys.exit(main([qrels, "-", "-m", "P.5", "--max-memory", "1MB"]))
    print("finished")
""")


def _start_child(tmp_path, how):
    """A child process evaluating a shuffled run at a tiny budget (slowed down), and its
    TMPDIR; returns once its spill partitions exist."""
    qrels, run = _cli_files(tmp_path, shuffled(run_lines(200, 300)))
    spill = tmp_path / "tmp"
    spill.mkdir()
    env = dict(os.environ, TMPDIR=str(spill), PYTHONPATH=os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    stdin = open(run, "rb") if how == "cli" else subprocess.DEVNULL
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(qrels), str(run), how],
                             env=env, stdin=stdin, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    if how == "cli":
        stdin.close()
    deadline = time.monotonic() + 120
    while not list(spill.glob("rankeval-*/parts/part-*")):
        if child.poll() is not None:
            out, err = child.communicate()
            pytest.fail(f"the child ended (status {child.returncode}) before its spill "
                        f"partitions were seen: {out.decode()} {err.decode()}")
        if time.monotonic() > deadline:
            child.kill()
            child.communicate()
            pytest.fail(f"no spill partitions appeared in {spill} within 120 s")
        time.sleep(0.05)
    return child, spill


@pytest.mark.skipif(os.name != "posix", reason="SIGTERM and SIGKILL are POSIX signals")
@pytest.mark.parametrize("how", ["library", "cli"])
def test_sigterm_removes_the_spill_files(tmp_path, how):
    """A run stopped by SIGTERM (as a batch scheduler stops a job) left its partitions in
    the temporary folder; the handler turns SIGTERM into an exception, the folder is
    removed on the way out, and the process still ends by SIGTERM."""
    child, spill = _start_child(tmp_path, how)
    child.send_signal(signal.SIGTERM)
    try:
        out, err = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail("the child did not end within 120 s of SIGTERM")
    assert child.returncode == -signal.SIGTERM, (child.returncode, err.decode())
    assert b"finished" not in out and b"Traceback" not in err, err.decode()
    assert list(spill.iterdir()) == [], "spill files were left behind"


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is a POSIX signal")
def test_a_killed_run_s_spill_folder_is_removed_by_the_next_run(tmp_path, monkeypatch):
    child, spill = _start_child(tmp_path, "library")
    child.kill()  # SIGKILL: nothing can run on the way out
    child.communicate(timeout=60)
    left = list(spill.glob("rankeval-*"))
    assert len(left) == 1 and (left[0] / "rankeval-spill").exists()
    # folders that are not a dead process's spill: left alone
    unmarked = spill / "rankeval-1-unmarked"
    unmarked.mkdir()
    alive = spill / f"rankeval-{os.getpid()}-alive"
    alive.mkdir()
    (alive / "rankeval-spill").write_text(f"{os.getpid()} {__import__('socket').gethostname()}\n")
    monkeypatch.setattr("tempfile.tempdir", str(spill))
    lines = shuffled(run_lines(20, 50))
    path = write(tmp_path / "next.txt", lines)
    monkeypatch.setattr(bounded, "_WHOLE_FACTOR", 10**12)
    monkeypatch.setattr(bounded, "_FIT_FACTOR", 10**12)
    rankeval.evaluate(qrels_dict(20, 50), str(path), ["P@5"], max_memory="1MB")
    assert sorted(p.name for p in spill.iterdir()) == sorted([unmarked.name, alive.name])


def test_the_sigterm_handler_is_restored(tmp_path, stream_always):
    """The handler is installed only while the bounded path runs, and a handler of yours
    is left in place."""
    path = write(tmp_path / "run.txt", shuffled(run_lines(20, 50)))
    before = signal.getsignal(signal.SIGTERM)
    seen = []

    def spy(*args):
        seen.append(signal.getsignal(signal.SIGTERM))
        return real(*args)

    real = bounded._State.score_queries
    with pytest.MonkeyPatch.context() as m:
        m.setattr(bounded._State, "score_queries", spy)
        rankeval.evaluate(qrels_dict(20, 50), str(path), ["P@5"], max_memory="1MB")
    assert signal.getsignal(signal.SIGTERM) is before
    if before is signal.SIG_DFL:
        assert seen and all(callable(h) and h is not before for h in seen)

    def mine(signum, frame):  # pragma: no cover - never sent
        pass

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        seen.clear()
        with pytest.MonkeyPatch.context() as m:
            m.setattr(bounded._State, "score_queries", spy)
            rankeval.evaluate(qrels_dict(20, 50), str(path), ["P@5"], max_memory="1MB")
        assert seen and all(h is mine for h in seen)
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)
