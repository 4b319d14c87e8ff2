"""TREC qrels/run files: every rule of the format, every error, sources, writers.

Most reading tests run twice: once as the reader chooses (the one-pass typed
CSV read when the layout allows it) and once forced through the general path
(one row per line, split with Arrow kernels), so that both paths are shown to
give the same table and the same errors.
"""

import bz2
import gzip
import io
import lzma
import os
import subprocess
import sys
import threading

import numpy as np
import pyarrow as pa
import pytest

import rankeval.io.trec as trec
from rankeval import read_qrels, read_run, write_qrels, write_run


@pytest.fixture(params=["auto", "general"])
def path_kind(request, monkeypatch):
    """Read as the reader chooses, or force the general (line by line) path."""
    if request.param == "general":
        monkeypatch.setattr(trec, "_read_fast", lambda *args: None)
    return request.param


def _write(tmp_path, content, name="f.txt"):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))
    return path


PLAIN_RUN = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq2 Q0 a 1 1 r\n"
PLAIN_WANT = {"q1": {"a": 3.0, "b": 2.0}, "q2": {"a": 1.0}}


# --- reading: values and layouts ------------------------------------------------------


def test_read_run_and_qrels(tmp_path, path_kind):
    run = _write(tmp_path, "q1 Q0 d2 1 9.5 bm25\nq1 Q0 d1 2 7 bm25\nq2 Q0 d1 1 -3.25 bm25\n")
    assert read_run(run) == {"q1": {"d2": 9.5, "d1": 7.0}, "q2": {"d1": -3.25}}
    qrels = _write(tmp_path, "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 -1\n", "q.txt")
    assert read_qrels(qrels) == {"q1": {"d1": 2, "d2": 0}, "q2": {"d1": -1}}
    assert all(type(g) is int for g in read_qrels(qrels)["q1"].values())


def test_fractional_grades_stay_floats(tmp_path, path_kind):
    qrels = _write(tmp_path, "q1 0 a 0.5\nq1 0 b 2\n")
    assert read_qrels(qrels) == {"q1": {"a": 0.5, "b": 2.0}}


def test_as_frame_and_as_table(tmp_path):
    run = _write(tmp_path, "q1 Q0 d2 1 9.5 r\nq1 Q0 d1 2 7 r\n")
    frame = read_run(run, as_frame=True)
    assert list(frame.columns) == ["query_id", "doc_id", "score"]
    assert frame["doc_id"].tolist() == ["d2", "d1"]
    assert frame["score"].tolist() == [9.5, 7.0]
    qrels = read_qrels(_write(tmp_path, "q1 0 a 1\n", "q"), as_frame=True)
    assert list(qrels.columns) == ["query_id", "doc_id", "relevance"]
    assert qrels["relevance"].tolist() == [1]
    table = read_run(run, as_table=True)
    assert table.schema == pa.schema(
        [("query_id", pa.string()), ("doc_id", pa.string()), ("score", pa.float64())]
    )
    assert table.to_pydict() == {"query_id": ["q1", "q1"], "doc_id": ["d2", "d1"],
                                 "score": [9.5, 7.0]}
    with pytest.raises(ValueError, match="cannot both"):
        read_run(run, as_frame=True, as_table=True)


@pytest.mark.parametrize(
    "text",
    [
        PLAIN_RUN,
        PLAIN_RUN.replace(" ", "\t"),  # tabs
        PLAIN_RUN.replace(" ", "   "),  # runs of spaces
        PLAIN_RUN.replace(" ", " \t "),  # mixed runs
        "  " + PLAIN_RUN.replace("\n", "  \n  "),  # leading and trailing blanks
        PLAIN_RUN.replace("\n", "\r\n"),  # CRLF
        PLAIN_RUN.replace(" ", "\t").replace("\n", "\r\n"),  # tabs and CRLF
        PLAIN_RUN.rstrip("\n"),  # no final newline
        "\n" + PLAIN_RUN.replace("\n", "\n\n"),  # blank lines
        PLAIN_RUN.replace("\n", "\n   \t \n"),  # lines of blanks only
        PLAIN_RUN.replace(" ", "\x0b"),  # vertical tab: whitespace for C's isspace
        PLAIN_RUN.replace(" ", "\x0c"),  # form feed too
        "\ufeff" + PLAIN_RUN,  # UTF-8 byte-order mark
        "\ufeff" + PLAIN_RUN.replace("\n", "\r\n"),  # BOM and CRLF
        "\ufeff" + PLAIN_RUN.replace(" ", "\t").replace("\n", "\r\n"),
        PLAIN_RUN.replace("r\n", "r extra fields 1 2\n"),  # fields after the tag
        "# a comment\n" + PLAIN_RUN + "#another 1 2 3 4 5\n",  # comment lines
        "   # indented comment\n" + PLAIN_RUN,
        PLAIN_RUN.replace("\n", " \n"),  # trailing space
    ],
)
def test_layouts_read_alike(tmp_path, path_kind, text):
    assert read_run(_write(tmp_path, text)) == PLAIN_WANT


def test_usual_layouts_take_the_fast_path(tmp_path, monkeypatch):
    def fail(*args):
        raise AssertionError("the general path was used")

    monkeypatch.setattr(trec, "_read_general", fail)
    for text in [
        PLAIN_RUN,
        PLAIN_RUN.replace(" ", "\t"),
        PLAIN_RUN.replace("\n", "\r\n"),
        "\ufeff" + PLAIN_RUN.replace("\n", "\r\n"),
        PLAIN_RUN.rstrip("\n"),
    ]:
        assert read_run(_write(tmp_path, text)) == PLAIN_WANT, repr(text)


@pytest.mark.parametrize("bom", ["", "\ufeff"])
@pytest.mark.parametrize("end", ["\n", "\r\n"])
@pytest.mark.parametrize("sep", [" ", "\t"])
def test_bom_and_crlf_line_numbers(tmp_path, path_kind, bom, end, sep):
    # the byte-order mark and CR bytes shift no line number, on either path
    lines = ["q1 Q0 a 1 3 r", "q1 Q0 b 2 2 r", "q1 Q0 a 3 1 r"]
    text = bom + end.join(line.replace(" ", sep) for line in lines) + end
    with pytest.raises(ValueError, match=r"f\.txt, lines 1 and 3: document 'a' listed twice"):
        read_run(_write(tmp_path, text))
    lines[1] = "q1 Q0 b 2 nan r"
    text = bom + end.join(line.replace(" ", sep) for line in lines) + end
    with pytest.raises(ValueError, match=r"f\.txt, line 2: score 'nan' is not finite"):
        read_run(_write(tmp_path, text))
    first = _write(tmp_path, bom + f"q1{sep}Q0{sep}a{sep}1{sep}3{sep}r{end}", "one")
    assert read_run(first, as_table=True)["query_id"].to_pylist() == ["q1"]  # no BOM in the id


def test_qrels_layouts(tmp_path, path_kind):
    plain = "q1 0 a 1\nq1 0 b 0\nq2 0 a 2\n"
    want = {"q1": {"a": 1, "b": 0}, "q2": {"a": 2}}
    for i, text in enumerate([
        plain,
        plain.replace(" ", "\t"),
        plain.replace("\n", "\r\n"),
        "\ufeff" + plain,
        "# judged by Ann\n" + plain.replace("\n", "\n\n"),
        plain.replace(" ", "  "),
    ]):
        assert read_qrels(_write(tmp_path, text, f"q{i}")) == want, repr(text)


def test_ids_stay_strings(tmp_path, path_kind):
    run = _write(tmp_path, "007 Q0 1e5 1 1 r\n7 Q0 01 2 0.5 r\n007 Q0 NaN 3 0.25 r\n")
    got = read_run(run)
    assert got == {"007": {"1e5": 1.0, "NaN": 0.25}, "7": {"01": 0.5}}
    assert read_run(run, as_table=True).schema.field("query_id").type == pa.string()


def test_utf8_and_long_ids(tmp_path, path_kind):
    long_id = "doc-" + "x" * 150
    text = f"q\u00e9 Q0 {long_id} 1 2 r\nq\u00e9 Q0 \u65e5\u672c 2 1 r\nq2 Q0 abcdefgh 1 1 r\n"
    assert read_run(_write(tmp_path, text)) == {
        "q\u00e9": {long_id: 2.0, "\u65e5\u672c": 1.0},
        "q2": {"abcdefgh": 1.0},
    }


def test_ids_of_different_lengths_join(tmp_path, path_kind):
    # the defect of issue 9: ids of different lengths must stay distinct and exact
    ids = ["d", "d1", "abcdefghij", "x" * 8, "x" * 9, "x" * 16, "x" * 17, "x" * 40]
    text = "".join(f"q Q0 {d} {i + 1} {10 - i} r\n" for i, d in enumerate(ids))
    assert list(read_run(_write(tmp_path, text))["q"]) == ids


def test_query_split_into_two_blocks(tmp_path, path_kind):
    run = _write(tmp_path, "q1 Q0 a 1 3 r\nq2 Q0 a 1 3 r\nq1 Q0 b 2 2 r\n")
    assert read_run(run) == {"q1": {"a": 3.0, "b": 2.0}, "q2": {"a": 3.0}}
    table = read_run(run, as_table=True)
    assert table["doc_id"].to_pylist() == ["a", "a", "b"]  # file order kept


def test_scores_parse_like_python_float(tmp_path, path_kind):
    tokens = ["1", "-2.5", "+3.25", ".5", "5.", "1e-3", "-1.5E+2", "123456789.123456789", "-0",
              "1e-400", "00012", "0.1"]
    text = "".join(f"q Q0 d{i} 1 {t} r\n" for i, t in enumerate(tokens))
    got = read_run(_write(tmp_path, text))["q"]
    assert [got[f"d{i}"] for i in range(len(tokens))] == [float(t) for t in tokens]


def test_control_bytes_are_not_separators(tmp_path, path_kind):
    # \x01 and \x1f are not whitespace for trec_eval: they stay inside the id
    run = _write(tmp_path, b"q Q0 a\x01b 1 1 r\nq Q0 c\x1fd 2 0 r\n")
    assert read_run(run) == {"q": {"a\x01b": 1.0, "c\x1fd": 0.0}}


def test_lone_carriage_return_ends_a_line(tmp_path, path_kind):
    run = _write(tmp_path, "q1 Q0 a 1 3 r\rq1 Q0 b 2 2 r\r")
    assert read_run(run) == {"q1": {"a": 3.0, "b": 2.0}}


def test_every_control_character_as_content(tmp_path, monkeypatch):
    # the general path reads lines as one CSV column with a "delimiter" absent
    # from the file; ids using the first candidates force the later ones
    chars = "".join(trec._LINE_DELIMITERS[:5])
    run = _write(tmp_path, f"q Q0 a{chars} 1 1 r\nq Q0 b 1 2 r extra\n")
    assert read_run(run) == {"q": {f"a{chars}": 1.0, "b": 2.0}}
    monkeypatch.setattr(trec, "_LINE_DELIMITERS", trec._LINE_DELIMITERS[:3])
    with pytest.raises(ValueError, match="every ASCII control character"):
        read_run(run)


# --- small blocks: files larger than any internal buffer --------------------------------


def _messy_run(rng, n_queries=40):
    lines = []
    for q in range(n_queries):
        for r in range(int(rng.integers(1, 12))):
            doc = "doc" + "x" * int(rng.integers(0, 30)) + str(r)
            lines.append(f"query{q} Q0 {doc} {r + 1} {rng.normal():.6f} t")
        if q % 7 == 0:
            lines.append("")  # blank lines here and there
    return lines


@pytest.mark.parametrize("block", [16, 37, 64, 200, 4096])
def test_small_blocks_give_the_same_result(tmp_path, monkeypatch, block):
    rng = np.random.default_rng(0)
    lines = _messy_run(rng)
    path = _write(tmp_path, "\n".join(lines) + "\n")
    clean = _write(tmp_path, "\n".join(line for line in lines if line) + "\n", "clean")
    whole = read_run(path)
    assert read_run(clean) == whole
    monkeypatch.setattr(trec, "_BLOCK_SIZE", block)  # shorter than a line, for some
    assert read_run(path) == whole
    assert read_run(clean) == whole


def test_error_line_numbers_across_blocks(tmp_path, monkeypatch, path_kind):
    lines = [f"q{i // 5} Q0 d{i} 1 1.0 r" for i in range(60)]
    lines[41] = "q8 Q0 d41 1 oops r"
    text = "\n".join(lines[:10]) + "\n\n" + "\n".join(lines[10:]) + "\n"  # blank line 11
    path = _write(tmp_path, text)
    monkeypatch.setattr(trec, "_BLOCK_SIZE", 64)
    with pytest.raises(ValueError, match=r"f\.txt, line 43: score 'oops' is not a number"):
        read_run(path)


def test_duplicate_far_apart_across_blocks(tmp_path, monkeypatch, path_kind):
    lines = [f"q{i % 3} Q0 doc{i} 1 {i} r" for i in range(300)]
    lines.append("q2 Q0 doc5 1 0 r")  # doc5 was retrieved for q2 at line 6
    monkeypatch.setattr(trec, "_BLOCK_SIZE", 128)
    with pytest.raises(ValueError, match=r"lines 6 and 301: document 'doc5' listed twice "
                                         r"for query 'q2'"):
        read_run(_write(tmp_path, "\n".join(lines) + "\n"))


# --- sources -----------------------------------------------------------------------------


def test_compressed_files(tmp_path):
    data = PLAIN_RUN.encode()
    for name, compress in [("r.gz", gzip.compress), ("r.bz2", bz2.compress),
                           ("r.xz", lzma.compress), ("no_suffix", gzip.compress)]:
        assert read_run(_write(tmp_path, compress(data), name)) == PLAIN_WANT, name
    # messy layouts go through the general path, compressed too
    messy = ("# c\n" + PLAIN_RUN.replace(" ", "  ")).encode()
    assert read_run(_write(tmp_path, gzip.compress(messy), "m.gz")) == PLAIN_WANT
    qrels = gzip.compress(b"q 0 a 1\n")
    assert read_qrels(_write(tmp_path, qrels, "q.gz")) == {"q": {"a": 1}}


def test_corrupt_compressed_file(tmp_path):
    with pytest.raises(ValueError, match=r"bad\.gz: cannot be decompressed"):
        read_run(_write(tmp_path, b"\x1f\x8b" + b"garbage" * 10, "bad.gz"))
    lines = b"".join(b"q%d Q0 d%d 1 1.5 r\n" % (i, i) for i in range(50_000))
    for name, compress in [("t.gz", gzip.compress), ("t.bz2", bz2.compress),
                           ("t.xz", lzma.compress)]:
        data = compress(lines)
        truncated = _write(tmp_path, data[: len(data) // 2], name)
        with pytest.raises(ValueError, match=rf"t\.{name[2:]}: cannot be decompressed"):
            read_run(truncated)


def test_text_that_starts_like_bzip2_is_text(tmp_path, path_kind):
    assert read_run(_write(tmp_path, "BZh Q0 a 1 1 r\n")) == {"BZh": {"a": 1.0}}
    # "BZh" and a block size 1-9 is bzip2 only if a block's magic follows: this is text,
    # as trec_eval reads it
    for size in "19":
        query = f"BZh{size}"
        qrels = _write(tmp_path, f"{query} 0 d1 1\n{query} 0 d2 0\n", "q.txt")
        assert read_qrels(qrels) == {query: {"d1": 1, "d2": 0}}
        run = f"{query} Q0 d1 1 2.5 r\n{query} Q0 d2 2 1 r\n"
        assert read_run(_write(tmp_path, run, "r.txt")) == {query: {"d1": 2.5, "d2": 1.0}}
        assert read_run(io.BytesIO(run.encode())) == {query: {"d1": 2.5, "d2": 1.0}}
    assert read_qrels(_write(tmp_path, "BZh5 0 BZh91AY&SY 1\n")) == {"BZh5": {"BZh91AY&SY": 1}}
    with pytest.raises(ValueError, match=r"f\.txt, line 1: malformed qrels line"):
        read_qrels(_write(tmp_path, "BZh5\n"))


def test_bzip2_is_recognised_by_its_full_signature(tmp_path, path_kind):
    # every block size, any file name, a path or a file object
    data = b"BZh5 Q0 d1 1 2.5 r\nBZh5 Q0 d2 2 1 r\n"
    want = {"BZh5": {"d1": 2.5, "d2": 1.0}}
    for level in (1, 9):
        packed = bz2.compress(data, level)
        assert packed[3:4] == str(level).encode()
        for name in ("r.bz2", "r.txt", "no_suffix"):
            assert read_run(_write(tmp_path, packed, name)) == want, (level, name)
        assert read_run(io.BytesIO(packed)) == want
    qrels = bz2.compress(b"q 0 a 1\n")
    assert read_qrels(_write(tmp_path, qrels, "qrels")) == {"q": {"a": 1}}
    # an empty stream ("BZh9" then the end-of-stream magic) is bzip2 holding nothing
    with pytest.raises(ValueError, match=r"e\.txt: the run file holds no lines"):
        read_run(_write(tmp_path, bz2.compress(b""), "e.txt"))


def test_file_objects(tmp_path, path_kind):
    assert read_run(io.StringIO(PLAIN_RUN)) == PLAIN_WANT
    assert read_run(io.BytesIO(PLAIN_RUN.encode())) == PLAIN_WANT
    assert read_run(io.BytesIO(gzip.compress(PLAIN_RUN.encode()))) == PLAIN_WANT
    path = _write(tmp_path, PLAIN_RUN)
    with open(path) as f:
        assert read_run(f) == PLAIN_WANT
    with open(path, "rb") as f:
        assert read_run(f) == PLAIN_WANT
    with pytest.raises(ValueError, match=r"<StringIO>, line 2: score 'x' is not a number"):
        read_run(io.StringIO("q Q0 a 1 1 r\nq Q0 b 2 x r\n"))
    with open(path, "a") as f:
        f.write("q1 Q0 c 3 x r\n")
    with open(path) as f, pytest.raises(ValueError, match=r"f\.txt, line 4: score 'x'"):
        read_run(f)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_named_pipe(tmp_path):
    # as bash's  read_run <(zcat run.gz): a path that can be read only once
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(gzip.compress(
        ("# c\n" + PLAIN_RUN).encode())))
    writer.start()
    try:
        assert read_run(fifo) == PLAIN_WANT
    finally:
        writer.join()


def test_stdin_and_pipes(tmp_path):
    code = "import rankeval, sys; print(rankeval.read_run('-'))"
    out = subprocess.run([sys.executable, "-c", code], input=PLAIN_RUN.encode(),
                         capture_output=True, check=True)
    assert out.stdout.decode().strip() == repr(PLAIN_WANT)
    code = "import rankeval, sys; print(rankeval.read_qrels(sys.stdin))"
    out = subprocess.run([sys.executable, "-c", code], input=b"q 0 a 1\n",
                         capture_output=True, check=True)
    assert out.stdout.decode().strip() == "{'q': {'a': 1}}"
    # a real pipe, as a binary file object
    producer = subprocess.Popen([sys.executable, "-c", f"print({PLAIN_RUN!r}, end='')"],
                                stdout=subprocess.PIPE)
    try:
        assert read_run(producer.stdout) == PLAIN_WANT
    finally:
        producer.stdout.close()
        producer.wait()


# --- errors: file, line number and reason ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 Q0 a 1 1.0 r\nq1 Q0 b 2 1.0\n",
         r"f\.txt, line 2: malformed run line: expected at least 6 .* found 5"),
        ("q1 Q0 a 1 1.0\n", r"line 1: malformed run line: .* found 5"),
        ("q1\n", r"line 1: malformed run line: .* found 1"),
        ("q1 Q0 a 1 1.0 r\nq1 Q0 b 2 high r\n", r"line 2: score 'high' is not a number"),
        ("q1 Q0 a 1 nan r\n", r"line 1: score 'nan' is not finite"),
        ("q1 Q0 a 1 -inf r\n", r"line 1: score '-inf' is not finite"),
        ("q1 Q0 a 1 1e999 r\n", r"line 1: score '1e999' is not finite"),
        ("q1 Q0 a 1 1_000 r\n", r"line 1: score '1_000' is not a number"),
        ("q1 Q0 a 1 0x10 r\n", r"line 1: score '0x10' is not a number"),
        ("q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq2 Q0 a 1 1 r\nq1 Q0 a 3 1 r\n",
         r"lines 1 and 4: document 'a' listed twice for query 'q1'"),
        ("q1 Q0 a 1 3 r\n\n# c\nq1 Q0 a 3 1 r\n",
         r"lines 1 and 4: document 'a' listed twice for query 'q1'"),
        ("q Q0 a 1 1 r\nq Q0 b 1 x r\nq Q0 c\n", r"line 2: score 'x' is not a number"),
        ("q Q0 a 1 1 r\nq Q0 c\nq Q0 b 1 x r\n", r"line 2: malformed run line"),
        ("q Q0 a 1 1 r\nq Q0 b 1 nan r\nq Q0 c\n", r"line 2: score 'nan' is not finite"),
    ],
)
def test_run_file_errors(tmp_path, path_kind, text, message):
    with pytest.raises(ValueError, match=message):
        read_run(_write(tmp_path, text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q 0 a 1\nq 0 b yes\n", r"line 2: grade 'yes' is not a number"),
        ("q 0 a 1\nq 0 b 0\nq 0 a 2\n", r"lines 1 and 3: document 'a' judged twice for query 'q'"),
        ("q Q0 a 1 1.0 r\n", r"line 1: malformed qrels line: expected 4 .* found 6"),
        ("q 0 a 1 extra\n", r"line 1: malformed qrels line: expected 4 .* found 5"),
        ("q 0 a\n", r"line 1: malformed qrels line: expected 4 .* found 3"),
        ("q 0 a inf\n", r"line 1: grade 'inf' is not finite"),
    ],
)
def test_qrels_file_errors(tmp_path, path_kind, text, message):
    with pytest.raises(ValueError, match=message):
        read_qrels(_write(tmp_path, text))


def test_not_utf8(tmp_path, path_kind):
    # the message names the byte and the option that reads the file (issue 52)
    with pytest.raises(ValueError, match=r"line 2: not valid UTF-8 text \(byte b'\\xff' at "
                       r"column 6\); .*encoding='latin-1'"):
        read_run(_write(tmp_path, b"q Q0 a 1 1 r\nq Q0 \xff\xfe 2 0 r\n"))
    with pytest.raises(ValueError, match=r"f\.txt, line 2: not valid UTF-8"):
        read_run(_write(tmp_path, b"q Q0 a 1 1 r\nq Q0 \xff\xfe 2 0 r\n"))
    with pytest.raises(ValueError, match=r"line 3: not valid UTF-8"):  # in an ignored field too
        read_run(_write(tmp_path, b"q Q0 a 1 1 r\n\nq Q0 b 2 0 \xe9t\xe9\n", "g"))


def test_not_utf8_in_an_ignored_field_of_the_usual_layout(tmp_path, path_kind):
    with pytest.raises(ValueError, match=r"line 2: not valid UTF-8"):
        read_run(_write(tmp_path, b"q Q0 a 1 1 r\nq Q0 b 2 0 \xe9\n"))
    with pytest.raises(ValueError, match=r"line 1: not valid UTF-8"):
        read_qrels(_write(tmp_path, b"q \xff a 1\n", "q"))


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a tab inside a space-separated line is a separator, as for trec_eval:
        # the fields shift (doc "x", score 1)
        ("q Q0\tx d 1 2 r\n", {"q": {"x": 1.0}}),
        ("q Q0 d 1\t3 2 r\n", {"q": {"d": 3.0}}),
        ("q\tQ0\td\t1\t2\tr x\n", {"q": {"d": 2.0}}),
    ],
)
def test_other_whitespace_inside_a_usual_line(tmp_path, path_kind, text, want):
    assert read_run(_write(tmp_path, text)) == want


@pytest.mark.parametrize(
    "text",
    [
        "q  d 1 2 r\n",  # 5 fields, one double space: 6 CSV columns, one empty
        "q Q0 d  2 r\n",
        "q Q0 d 1 2 \n",  # no tag, a trailing space
        " q Q0 d 1 2\n",
    ],
)
def test_short_lines_with_empty_columns_are_malformed(tmp_path, path_kind, text):
    with pytest.raises(ValueError, match=r"line 1: malformed run line: .* found 5"):
        read_run(_write(tmp_path, text))


def test_nul_bytes(tmp_path, path_kind):
    with pytest.raises(ValueError, match=r"line 2: holds a NUL byte"):
        read_run(_write(tmp_path, b"q Q0 a 1 1 r\nq Q0 b\x00c 2 0 r\n"))


def test_empty_missing_and_directory(tmp_path):
    with pytest.raises(ValueError, match="holds no lines"):
        read_run(_write(tmp_path, ""))
    with pytest.raises(ValueError, match="holds no lines"):
        read_run(_write(tmp_path, "\n  \n# only a comment\n", "blank"))
    with pytest.raises(ValueError, match="holds no lines"):
        read_qrels(io.BytesIO(b""))
    with pytest.raises(FileNotFoundError):
        read_run(tmp_path / "absent.txt")
    with pytest.raises(IsADirectoryError, match="directory"):
        read_qrels(tmp_path)


def test_very_long_line(tmp_path, monkeypatch, path_kind):
    monkeypatch.setattr(trec, "_BLOCK_SIZE", 32)
    doc = "d" * 1000
    assert read_run(_write(tmp_path, f"q Q0 {doc} 1 1 r\nq Q0 e 2 0 r\n")) == {
        "q": {doc: 1.0, "e": 0.0}
    }


# --- writing ----------------------------------------------------------------------------


def test_write_run_orders_like_trec_eval(tmp_path):
    path = tmp_path / "run.txt"
    write_run({"q1": {"d9": 1.0, "d10": 1.0, "a": 2.0, "b": 0.5}}, path, tag="x")
    lines = path.read_text().splitlines()
    # score descending; the tie d9/d10 by id descending as strings: "d9" > "d10"
    assert [line.split()[2] for line in lines] == ["a", "d9", "d10", "b"]
    assert [line.split()[3] for line in lines] == ["1", "2", "3", "4"]
    assert all(line.split()[5] == "x" for line in lines)


def test_round_trips(tmp_path):
    rng = np.random.default_rng(3)
    run = {f"q{q}": {f"d{d}": float(rng.normal()) for d in range(q + 1)} for q in range(5)}
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(-1, 4)) for d in range(3)} for q in range(5)}
    write_run(run, tmp_path / "r")
    write_qrels(qrels, tmp_path / "q")
    assert read_run(tmp_path / "r") == run  # shortest round-trip floats
    assert read_qrels(tmp_path / "q") == qrels
    # other inputs: a frame, an Arrow table, a list run, integer ids, a file
    frame = read_run(tmp_path / "r", as_frame=True)
    write_run(frame, tmp_path / "r2")
    assert read_run(tmp_path / "r2") == run
    write_run(read_run(tmp_path / "r", as_table=True), tmp_path / "r3")
    assert read_run(tmp_path / "r3") == run
    write_run({"u": ["i3", "i1"]}, tmp_path / "r4")
    assert read_run(tmp_path / "r4") == {"u": {"i3": 2.0, "i1": 1.0}}
    write_qrels({1: {10: 1, 2: 0}}, tmp_path / "q2")
    assert read_qrels(tmp_path / "q2") == {"1": {"10": 1, "2": 0}}
    write_qrels(tmp_path / "q", tmp_path / "q3")
    assert read_qrels(tmp_path / "q3") == qrels


def test_write_unicode_and_fractional(tmp_path):
    qrels = {"q\u00e9": {"\u65e5\u672c": 0.5, "b": 2}}
    write_qrels(qrels, tmp_path / "q")
    assert read_qrels(tmp_path / "q") == {"q\u00e9": {"\u65e5\u672c": 0.5, "b": 2.0}}


def test_write_to_file_objects_and_stdout(tmp_path, capsys):
    text = io.StringIO()
    write_qrels({"q": {"a": 1}}, text)
    assert text.getvalue() == "q 0 a 1\n"
    binary = io.BytesIO()
    write_run({"q": {"a": 1.5}}, binary, tag="t")
    assert binary.getvalue() == b"q Q0 a 1 1.5 t\n"
    write_qrels({"q": {"a": 1}}, "-")
    assert capsys.readouterr().out == "q 0 a 1\n"


def test_write_rejects_bad_ids(tmp_path):
    with pytest.raises(ValueError, match="document id 'a b'.*no whitespace"):
        write_run({"q": {"a b": 1.0}}, tmp_path / "r")
    with pytest.raises(ValueError, match="tag"):
        write_run({"q": {"a": 1.0}}, tmp_path / "r", tag="my run")
    with pytest.raises(ValueError, match="query id ''"):
        write_qrels({"": {"a": 1}}, tmp_path / "q")
    with pytest.raises(ValueError, match="query id '#1'.*comment"):
        write_qrels({"#1": {"a": 1}}, tmp_path / "q")
