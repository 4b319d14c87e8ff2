"""Files in other encodings than UTF-8, and header lines (issue 52, item 14).

trec_eval takes any bytes as ids. ``encoding=`` (``read_run``, ``read_qrels``,
``evaluate``, the bounded path, ``--encoding``) decodes a file's bytes; a latin-1 file
whose ids hold "é" as the byte 0xE9 reads as the same file written in UTF-8. The
oracles: the UTF-8 file, pytrec_eval on the decoded dicts, and trec_eval's order of
ties (ids compared as bytes, by ``strcmp``) computed here on the bytes themselves. A
file that is not UTF-8 read without the option, and a header line, get errors naming
the file, the line and the way out.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import Evaluator, evaluate, rank_run, read_qrels, read_run
from rankeval.cli import main
from rankeval.evaluation.bounded import evaluate_bounded
from rankeval.evaluation.conventions import conventions
from rankeval.evaluation.plan import make_plan
from rankeval.evaluation.runs import score_run
from rankeval.io import qrels_table, run_table
from rankeval.io.stream import run_batches

# ids with "é" (latin-1: the byte 0xE9, UTF-8: 0xC3 0xA9); scores with ties, so that
# the order of equal scores (ids compared as bytes) decides values
QRELS = ("qé 0 dé1 1\nqé 0 dz 0\nqé 0 d2 2\nq2 0 x 1\nq2 0 café 1\n"
         "# a comment: résumé\n")  # fmt: skip
RUN = ("qé Q0 dé1 1 1.5 té\nqé Q0 dz 2 1.5 té\nqé Q0 d2 3 0.5 té\n"
       "q2 Q0 café 1 2 té\nq2 Q0 cafe 2 2 té\nq2 Q0 x 3 1 té\n")  # fmt: skip
MEASURES = ["P@1", "P@2", "AP", "nDCG@2", "RR"]


def write(path, text: str, encoding: str):
    path.write_bytes(text.encode(encoding))
    return path


@pytest.fixture
def pair(tmp_path):
    """(latin-1 qrels, latin-1 run, UTF-8 qrels, UTF-8 run)."""
    latin = (write(tmp_path / "q.l1", QRELS, "latin-1"), write(tmp_path / "r.l1", RUN, "latin-1"))
    utf8 = (write(tmp_path / "q.u8", QRELS, "utf-8"), write(tmp_path / "r.u8", RUN, "utf-8"))
    assert b"q\xe9 Q0 d\xe91" in latin[1].read_bytes()  # the byte itself
    return (*latin, *utf8)


# --- a latin-1 file reads as the same file in UTF-8 -------------------------------------


@pytest.mark.parametrize("tabs", [False, True])
def test_a_latin1_file_equals_the_same_file_in_utf8(tmp_path, pair, tabs):
    ql, rl, qu, ru = pair
    if tabs:  # the general path (runs of whitespace), not the typed one
        rl = write(tmp_path / "r2.l1", RUN.replace(" ", " \t"), "latin-1")
    assert read_run(rl, encoding="latin-1") == read_run(ru)
    assert read_qrels(ql, encoding="latin-1") == read_qrels(qu)
    assert read_run(rl, encoding="latin-1", as_table=True).equals(read_run(ru, as_table=True))
    assert "qé" in read_run(rl, encoding="latin-1")
    assert "café" in read_qrels(ql, encoding="iso-8859-1")["q2"]  # another name of it
    # a file object, standard input's bytes, a compressed file
    with open(rl, "rb") as f:
        assert read_run(f, encoding="latin-1") == read_run(ru)
    packed = write(tmp_path / "r.gz", "", "ascii")
    packed.write_bytes(gzip.compress(rl.read_bytes()))
    assert read_run(packed, encoding="latin-1") == read_run(ru)
    assert qrels_table(ql, encoding="latin-1").equals(qrels_table(qu))
    assert run_table(rl, encoding="latin-1").equals(run_table(ru))


def test_other_encodings(tmp_path):
    want = read_run(write(tmp_path / "r.u8", RUN, "utf-8"))
    for codec in ("utf-16", "cp1252", "utf-8-sig"):
        assert read_run(write(tmp_path / f"r.{codec}", RUN, codec), encoding=codec) == want


def test_evaluate_on_latin1_files_equals_utf8_and_pytrec_eval(pair):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ql, rl, qu, ru = pair
    got = evaluate(ql, rl, MEASURES, encoding="latin-1", max_memory=None)
    assert got.index.tolist() == ["q2", "qé"]
    assert got.equals(evaluate(qu, ru, MEASURES, max_memory=None))
    assert got.equals(evaluate(ql, rl, MEASURES, encoding="latin-1"))  # default budget
    # pytrec_eval on the decoded ids: equal scores are ordered by id, descending, as bytes
    # (UTF-8 there); only with ids whose order is the same in both encodings: q2's
    # "café" > "cafe" as UTF-8 and as latin-1 bytes alike
    qrels = read_qrels(ql, encoding="latin-1")
    run = read_run(rl, encoding="latin-1")
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"P_1", "P_2", "map", "recip_rank"}).evaluate(run)
    for q in got.index:
        assert got.loc[q, "P@1"] == theirs[q]["P_1"]
        assert got.loc[q, "P@2"] == theirs[q]["P_2"]
        assert got.loc[q, "AP"] == pytest.approx(theirs[q]["map"], abs=1e-12)
        assert got.loc[q, "RR"] == theirs[q]["recip_rank"]


def test_ties_follow_the_bytes_of_a_latin1_file_as_in_trec_eval(tmp_path):
    # "dé" (d 0xE9) and "dz" (d 0x7A) tie; trec_eval ranks equal scores by strcmp of the
    # bytes, descending: 0xE9 > 0x7A, so "dé" first. Decoded from latin-1, "é" is U+00E9,
    # whose UTF-8 bytes (0xC3 0xA9) also sort after "z": the same order.
    raw = [b"d\xe9", b"dz"]
    first = sorted(raw, reverse=True)[0]
    assert first == b"d\xe9"
    for relevant in raw:
        qrels = tmp_path / "q"
        qrels.write_bytes(b"q 0 " + relevant + b" 1\n")
        run = tmp_path / "r"
        run.write_bytes(b"q Q0 dz 1 1 t\nq Q0 d\xe9 2 1 t\n")
        got = evaluate(qrels, run, ["P@1"], encoding="latin-1").loc["q", "P@1"]
        assert got == (1.0 if relevant == first else 0.0)


def test_the_evaluator_reads_latin1_qrels(pair):
    ql, rl, qu, ru = pair
    run = read_run(ru, as_table=True)
    ev = Evaluator(ql, MEASURES, encoding="latin-1")
    ev.update(run.column("query_id"), run.column("doc_id"), run.column("score"))
    assert ev.compute().equals(evaluate(qu, ru, MEASURES))


def test_the_bounded_path_takes_the_encoding(tmp_path, pair):
    ql, rl, qu, ru = pair
    want = evaluate(qu, ru, MEASURES, max_memory=None)
    chosen = conventions(None)
    for source, partitions in ((str(rl), None), (str(rl), 2)):
        got, _ = evaluate_bounded(score_run, ql, source, make_plan(MEASURES, chosen), 1 << 20, block=40,
                                  partitions=partitions, encoding="latin-1")  # fmt: skip
        assert got.equals(want)
    with open(rl, "rb") as f:  # a file object: spooled to a temporary file first
        got, _ = evaluate_bounded(score_run, ql, f, make_plan(MEASURES, chosen), 1 << 20, block=40,
                                  encoding="latin-1")  # fmt: skip
    assert got.equals(want)
    batches = list(run_batches(str(rl), 1 << 16, encoding="latin-1"))
    assert pa.concat_tables(batches).equals(pa.concat_tables(run_batches(str(ru), 1 << 16)))
    with pytest.raises(ValueError, match=r"r\.l1, line 1: not valid UTF-8 .*encoding="):
        evaluate_bounded(score_run, qu, str(rl), make_plan(MEASURES, chosen), 1 << 20, block=40)


# --- without the option: an error that names it ------------------------------------------


@pytest.mark.parametrize("layout", ["fast", "general"])
def test_a_latin1_file_read_as_utf8_names_the_option_file_and_line(tmp_path, layout):
    text = "q Q0 a 1 2 t\nq Q0 b 2 1 t\nqé Q0 c 1 1 t\n"
    if layout == "general":
        text = text.replace(" ", "\t ")
    path = write(tmp_path / "run.txt", text, "latin-1")
    with pytest.raises(ValueError) as info:
        read_run(path)
    message = str(info.value)
    assert f"{path}, line 3: not valid UTF-8 text" in message
    assert "b'\\xe9' at column 2" in message
    assert "encoding='latin-1'" in message and "--encoding" in message
    with pytest.raises(ValueError, match=r"run\.txt, line 3: not valid UTF-8.*encoding="):
        evaluate({"q": {"a": 1}}, path, ["P@1"])


def test_bytes_the_encoding_cannot_decode_name_the_line(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"q Q0 a 1 2 t\nq Q0 b 2 1 t\nq Q0 \x81 3 0 t\n")  # 0x81: not in cp1252
    with pytest.raises(ValueError, match=r"run\.txt, line 3: not valid cp1252 text .*latin-1"):
        read_run(path, encoding="cp1252")
    assert read_run(path, encoding="latin-1")["q"]["\x81"] == 0.0  # any byte


def test_the_option_itself_is_checked():
    with pytest.raises(ValueError, match="'bytes' is not a text encoding"):
        read_run(io.BytesIO(b"q Q0 a 1 2 t\n"), encoding="bytes")
    with pytest.raises(ValueError, match="not a text encoding"):
        read_run(io.BytesIO(b"q Q0 a 1 2 t\n"), encoding="base64")  # bytes to bytes
    with pytest.raises(TypeError, match="encoding must be the name"):
        read_run(io.BytesIO(b"q Q0 a 1 2 t\n"), encoding=None)
    with pytest.raises(ValueError, match="not a text encoding"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P@1"], encoding="nope")
    # a text stream is decoded already: its encoding is its own
    assert read_run(io.StringIO("qé Q0 a 1 2 t\n")) == {"qé": {"a": 2.0}}
    with pytest.raises(ValueError, match="text stream is decoded already.*'rb'"):
        read_run(io.StringIO("qé Q0 a 1 2 t\n"), encoding="latin-1")


# --- the command line: --encoding, and the ids written back as their bytes ---------------


def _cli_bytes(*args):
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    out = subprocess.run([sys.executable, "-m", "rankeval", *map(str, args)],
                         capture_output=True, timeout=120, env=env)  # fmt: skip
    return out.returncode, out.stdout, out.stderr.decode("utf-8", "replace")


def test_the_command_line_reads_and_writes_the_encoding(pair):
    ql, rl, qu, ru = pair
    code, latin, _ = _cli_bytes("--encoding", "latin-1", "-q", "-m", "P.1", "map", ql, rl)
    assert code == 0
    code, utf8, _ = _cli_bytes("-q", "-m", "P.1", "map", qu, ru)
    assert code == 0
    assert b"\tq\xe9\t" in latin and b"\tq\xc3\xa9\t" in utf8  # the file's own bytes
    assert latin == utf8.decode("utf-8").encode("latin-1")
    code, _, err = _cli_bytes("-m", "P.1", qu, rl)
    assert code == 1 and "r.l1, line 1: not valid UTF-8" in err and "--encoding" in err


def _main_bytes(args, monkeypatch):
    """main() in this process, standard output a text stream over bytes: its bytes."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    monkeypatch.setattr(sys, "stdout", out)
    code = main([str(a) for a in args])
    out.flush()
    monkeypatch.undo()
    return code, raw.getvalue()


def test_the_command_line_in_process(pair, monkeypatch, capsys):
    ql, rl, qu, ru = pair
    code, latin = _main_bytes(["--encoding", "latin-1", "-q", "-m", "P.1", ql, rl], monkeypatch)
    assert code == 0 and b"\tq\xe9\t" in latin
    code, utf8 = _main_bytes(["-q", "-m", "P.1", qu, ru], monkeypatch)
    assert code == 0 and latin == utf8.decode("utf-8").encode("latin-1")
    code, tag = _main_bytes(["--encoding", "latin-1", "-m", "runid", ql, rl], monkeypatch)
    assert code == 0 and tag.split() == [b"runid", b"all", b"t\xe9"]
    # --subtopics: subtopic qrels and the run read with it too
    subtopics = write(ql.parent / "s.l1", "qé 1 dé1 1\nqé 2 d2 1\nq2 1 café 1\n", "latin-1")
    same = write(ql.parent / "s.u8", "qé 1 dé1 1\nqé 2 d2 1\nq2 1 café 1\n", "utf-8")
    code, latin = _main_bytes(["--encoding", "latin-1", "--subtopics", "-q", subtopics, rl],
                              monkeypatch)  # fmt: skip
    code_u, utf8 = _main_bytes(["--subtopics", "-q", same, ru], monkeypatch)
    assert code == code_u == 0 and b"q\xe9" in latin
    assert latin == utf8.decode("utf-8").encode("latin-1")
    assert main(["--encoding", "nope", "-m", "P.1", str(qu), str(ru)]) == 1
    assert "'nope' is not a text encoding" in capsys.readouterr().err


# --- a header line ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reader", "shown"),
    [
        # single spaces: the typed path first, then the line-by-line one names it
        ("query_id Q0 doc_id rank score tag\n" + RUN, read_run,
         "'query_id Q0 doc_id rank score tag'"),
        # tabs: the typed path with a tab delimiter
        ("query_id\tQ0\tdoc_id\trank\tscore\ttag\n" + RUN.replace(" ", "\t"), read_run,
         r"'query_id\tQ0\tdoc_id\trank\tscore\ttag'"),
        # runs of whitespace, blank lines and a comment first: the line-by-line path
        ("\n# made by a script\nqid  Q0  docno  rank  sim  run_id\n" + RUN.replace(" ", "  "),
         read_run, "'qid  Q0  docno  rank  sim  run_id'"),
        ("qid iter docno rel\n" + QRELS, read_qrels, "'qid iter docno rel'"),
        ("query_id\tdoc_id\trelevance\n" + QRELS, read_qrels, r"'query_id\tdoc_id\trelevance'"),
        # a CSV written by pandas: one field, commas
        ("query_id,doc_id,score\nq1,d1,0.5\n", read_run, "'query_id,doc_id,score'"),
    ],
)
def test_a_header_line_is_named_as_one(tmp_path, text, reader, shown):
    path = write(tmp_path / "f.txt", text, "utf-8")
    with pytest.raises(ValueError) as info:
        reader(path)
    message = str(info.value)
    line = 3 if text.startswith("\n#") else 1
    assert f"f.txt, line {line} looks like a header: {shown}" in message
    assert "remove it, or make it a comment" in message
    assert ("pandas.read_csv" in message) == ("," in shown)
    if "," not in shown:  # made a comment, as the message says, the file reads
        lines = text.split("\n")
        lines[line - 1] = "#" + lines[line - 1]
        fixed = write(tmp_path / "g.txt", "\n".join(lines), "utf-8")
        assert reader(fixed) == reader(write(tmp_path / "h.txt", text.split("\n", line)[-1],
                                             "utf-8"))  # fmt: skip


def test_a_header_line_on_the_bounded_path_and_in_evaluate(tmp_path, pair):
    ql, rl, qu, ru = pair
    path = write(tmp_path / "run.txt", "query_id Q0 doc_id rank score tag\n" + RUN, "utf-8")
    with pytest.raises(ValueError, match=r"run\.txt, line 1 looks like a header"):
        evaluate_bounded(score_run, qu, str(path), make_plan(["P@1"], conventions(None)), 1 << 20,
                         block=40)  # fmt: skip
    with pytest.raises(ValueError, match=r"run\.txt, line 1 looks like a header"):
        evaluate(qu, path, ["P@1"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # not headers: a first line with a number, or with no usual column name
        ("q Q0 a 1 score t\n", r"line 1: score 'score' is not a number"),
        ("q1\n", r"line 1: malformed run line: .* found 1$"),
        ("q1,d1,0.5\n", r"line 1: malformed run line: .* found 1; the fields hold commas"),
        # a header word below the first line is an ordinary bad value
        ("q Q0 a 1 2 t\nquery_id Q0 doc_id rank score tag\n", r"line 2: score 'score' is not"),
    ],
)
def test_lines_that_are_not_headers(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        read_run(write(tmp_path / "f.txt", text, "utf-8"))


# --- any bytes, read as latin-1: ids keep their bytes and trec_eval's order --------------

# bytes that can stand in an id: not whitespace (C's isspace), not NUL
_ID_BYTES = [b for b in range(1, 256) if b not in (9, 10, 11, 12, 13, 32)]
_IDS = st.lists(st.sampled_from(_ID_BYTES), min_size=1, max_size=6).map(bytes).filter(
    lambda b: not b.startswith(b"#"))


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(_IDS, min_size=1, max_size=12, unique=True), query=_IDS,
       sep=st.sampled_from([b" ", b"\t", b"  "]))
def test_any_bytes_read_as_latin1_keep_their_bytes_and_trec_eval_s_tie_order(
    tmp_path_factory, docs, query, sep
):
    # every document at one score: trec_eval ranks them by id descending, compared as
    # bytes (strcmp); each one's grade is its place in that order, so the ranking's
    # grades must come out descending
    order = sorted(docs, reverse=True)
    grade = {d: len(order) - i for i, d in enumerate(order)}
    folder = tmp_path_factory.mktemp("bytes")
    run = folder / "run"
    run.write_bytes(b"".join(sep.join([query, b"Q0", d, b"1", b"1.5", b"t"]) + b"\n"
                             for d in docs))  # fmt: skip
    qrels = folder / "qrels"
    qrels.write_bytes(b"".join(sep.join([query, b"0", d, str(grade[d]).encode()]) + b"\n"
                               for d in docs))  # fmt: skip
    read = read_run(run, encoding="latin-1")
    (q, got), = read.items()
    assert q.encode("latin-1") == query
    assert [d.encode("latin-1") for d in got] == docs  # file order, every byte kept
    ranked = rank_run(qrels, run, encoding="latin-1")
    assert ranked.ragged()[0].tolist() == sorted(grade.values(), reverse=True)


def test_the_run_tag_of_a_latin1_file_keeps_its_bytes(tmp_path):
    from rankeval.io.trec import run_tag

    # U+0085 and U+00A0 (bytes 0x85, 0xA0 in latin-1) are not whitespace for trec_eval
    path = tmp_path / "run"
    path.write_bytes(b"q Q0 a\x85b 1 2 t\xa0\x85\x1c1\nq Q0 c 2 1 t\xa0\x85\x1c2 extra\n")
    assert run_tag(path, "latin-1").encode("latin-1") == b"t\xa0\x85\x1c2"
    assert run_tag(path) == "t\ufffd\ufffd\x1c2"  # read as UTF-8: undecodable bytes replaced
