"""TREC qrels/run readers and writers: layouts, ids as strings, chunking, errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankeval.trec as trec
from rankeval import read_qrels, read_run, write_qrels, write_run


def _write(tmp_path, text, name="f.txt", mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


# --- reading ------------------------------------------------------------------------


def test_read_run_and_qrels(tmp_path):
    run = _write(tmp_path, "q1 Q0 d2 1 9.5 bm25\nq1 Q0 d1 2 7 bm25\nq2 Q0 d1 1 -3.25 bm25\n")
    assert read_run(run) == {"q1": {"d2": 9.5, "d1": 7.0}, "q2": {"d1": -3.25}}
    qrels = _write(tmp_path, "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 -1\n", "q.txt")
    assert read_qrels(qrels) == {"q1": {"d1": 2, "d2": 0}, "q2": {"d1": -1}}


def test_fractional_grades_stay_floats(tmp_path):
    qrels = _write(tmp_path, "q1 0 a 0.5\nq1 0 b 2\n")
    assert read_qrels(qrels) == {"q1": {"a": 0.5, "b": 2.0}}


def test_as_frame(tmp_path):
    run = _write(tmp_path, "q1 Q0 d2 1 9.5 r\nq1 Q0 d1 2 7 r\n")
    frame = read_run(run, as_frame=True)
    assert list(frame.columns) == ["query_id", "doc_id", "score"]
    assert frame["doc_id"].tolist() == ["d2", "d1"]
    assert frame["score"].tolist() == [9.5, 7.0]
    qrels = read_qrels(_write(tmp_path, "q1 0 a 1\n", "q"), as_frame=True)
    assert list(qrels.columns) == ["query_id", "doc_id", "relevance"]
    assert qrels["relevance"].tolist() == [1]


def test_whitespace_layouts_read_alike(tmp_path):
    plain = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq2 Q0 a 1 1 r\n"
    variants = [
        plain,
        plain.replace(" ", "\t"),
        plain.replace(" ", "   "),
        "  " + plain.replace("\n", "  \n  "),
        plain.replace("\n", "\r\n"),
        plain.rstrip("\n"),  # no final newline
        "\n" + plain.replace("\n", "\n\n"),  # blank lines
        plain.replace(" ", "\x0b"),  # vertical tab: whitespace for C's isspace
    ]
    want = read_run(_write(tmp_path, plain, "plain"))
    for i, text in enumerate(variants):
        assert read_run(_write(tmp_path, text, f"v{i}")) == want, repr(text)


def test_ids_stay_strings(tmp_path):
    run = _write(tmp_path, "007 Q0 1e5 1 1 r\n7 Q0 01 2 0.5 r\n007 Q0 NaN 3 0.25 r\n")
    got = read_run(run)
    assert got == {"007": {"1e5": 1.0, "NaN": 0.25}, "7": {"01": 0.5}}


def test_utf8_and_long_ids(tmp_path):
    long_id = "doc-" + "x" * 150
    text = f"q\u00e9 Q0 {long_id} 1 2 r\nq\u00e9 Q0 \u65e5\u672c 2 1 r\nq2 Q0 abcdefgh 1 1 r\n"
    path = tmp_path / "u.txt"
    path.write_text(text, encoding="utf-8")
    assert read_run(path) == {"q\u00e9": {long_id: 2.0, "\u65e5\u672c": 1.0}, "q2": {"abcdefgh": 1.0}}


def test_query_split_into_two_blocks(tmp_path):
    run = _write(tmp_path, "q1 Q0 a 1 3 r\nq2 Q0 a 1 3 r\nq1 Q0 b 2 2 r\n")
    assert read_run(run) == {"q1": {"a": 3.0, "b": 2.0}, "q2": {"a": 3.0}}


def test_scores_parse_like_python_float(tmp_path):
    tokens = ["1", "-2.5", "+3.25", ".5", "5.", "1e-3", "-1.5E+2", "123456789.123456789", "-0"]
    text = "".join(f"q Q0 d{i} 1 {t} r\n" for i, t in enumerate(tokens))
    got = read_run(_write(tmp_path, text))["q"]
    assert [got[f"d{i}"] for i in range(len(tokens))] == [float(t) for t in tokens]


# --- chunking: a file read in many small pieces gives the same table -----------------


def test_small_chunks_give_the_same_result(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    lines = []
    for q in range(30):
        for r in range(int(rng.integers(1, 12))):
            lines.append(f"query{q} Q0 doc{rng.integers(0, 10**6)}_{r} {r + 1} {rng.normal():.6f} t")
        if q % 7 == 0:
            lines.append("")  # blank lines here and there
    path = _write(tmp_path, "\n".join(lines) + "\n")
    whole = read_run(path)
    monkeypatch.setattr(trec, "_CHUNK_BYTES", 37)  # shorter than a line
    assert read_run(path) == whole
    monkeypatch.setattr(trec, "_CHUNK_BYTES", 200)
    assert read_run(path) == whole


def test_error_line_numbers_across_chunks(tmp_path, monkeypatch):
    lines = [f"q{i // 5} Q0 d{i} 1 1.0 r" for i in range(60)]
    lines[41] = "q8 Q0 d41 1 oops r"
    text = "\n".join(lines[:10]) + "\n\n" + "\n".join(lines[10:]) + "\n"  # blank line 11
    path = _write(tmp_path, text)
    monkeypatch.setattr(trec, "_CHUNK_BYTES", 64)
    with pytest.raises(ValueError, match=r"line 43: score 'oops' is not a number"):
        read_run(path)


# --- the byte helpers against plain Python slicing ----------------------------------


@given(st.lists(st.binary(min_size=1, max_size=40).filter(lambda b: b"\x00" not in b), min_size=1))
def test_gather_matches_slicing(tokens):
    data = b" ".join(tokens)
    buf = np.zeros(len(data) + trec._PAD, dtype=np.uint8)
    buf[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    starts = np.cumsum([0] + [len(t) + 1 for t in tokens[:-1]])
    ends = starts + np.array([len(t) for t in tokens])
    assert trec._gather(buf, starts, ends).tolist() == tokens
    ids = trec._Ids(buf=buf, start=starts, end=ends)
    h = ids.hashes()
    for i in range(len(tokens)):
        for j in range(len(tokens)):
            if tokens[i] == tokens[j]:
                assert h[i] == h[j]


# --- writing ----------------------------------------------------------------------


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


def test_write_rejects_whitespace_in_ids(tmp_path):
    with pytest.raises(ValueError, match="document id 'a b'.*no whitespace"):
        write_run({"q": {"a b": 1.0}}, tmp_path / "r")
    with pytest.raises(ValueError, match="tag"):
        write_run({"q": {"a": 1.0}}, tmp_path / "r", tag="my run")
    with pytest.raises(ValueError, match="query id ''"):
        write_qrels({"": {"a": 1}}, tmp_path / "q")


# --- errors: file, line number and reason ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 Q0 a 1 1.0 r\nq1 Q0 b 2 1.0\n", r"f\.txt, line 2: malformed run line: expected 6 .* found 5"),
        ("q1 Q0 a 1 1.0 r extra\n", r"line 1: malformed run line: .* found 7"),
        ("q1 Q0 a 1 1.0 r\nq1 Q0 b 2 high r\n", r"line 2: score 'high' is not a number"),
        ("q1 Q0 a 1 nan r\n", r"line 1: score 'nan' is not finite"),
        ("q1 Q0 a 1 -inf r\n", r"line 1: score '-inf' is not finite"),
        ("q1 Q0 a 1 1_000 r\n", r"line 1: score '1_000' is not a number"),
        (
            "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq2 Q0 a 1 1 r\nq1 Q0 a 3 1 r\n",
            r"line 4: duplicate document 'a' for query 'q1' \(already retrieved at line 1\)",
        ),
    ],
)
def test_run_file_errors(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        read_run(_write(tmp_path, text))


def test_qrels_file_errors(tmp_path):
    with pytest.raises(ValueError, match=r"line 2: grade 'yes' is not a number"):
        read_qrels(_write(tmp_path, "q 0 a 1\nq 0 b yes\n"))
    with pytest.raises(ValueError, match=r"line 3: duplicate document 'a' for query 'q' \(already judged at line 1\)"):
        read_qrels(_write(tmp_path, "q 0 a 1\nq 0 b 0\nq 0 a 2\n", "q2"))
    with pytest.raises(ValueError, match=r"line 1: malformed qrels line: expected 4 .* found 6"):
        read_qrels(_write(tmp_path, "q Q0 a 1 1.0 r\n", "q3"))


def test_empty_missing_and_directory(tmp_path):
    with pytest.raises(ValueError, match="holds no lines"):
        read_run(_write(tmp_path, ""))
    with pytest.raises(ValueError, match="holds no lines"):
        read_run(_write(tmp_path, "\n  \n", "blank"))
    with pytest.raises(FileNotFoundError):
        read_run(tmp_path / "absent.txt")
    with pytest.raises(IsADirectoryError, match="directory"):
        read_qrels(tmp_path)


def test_control_bytes_are_not_separators(tmp_path):
    # \x01 is not whitespace for trec_eval: it stays inside the id
    run = _write(tmp_path, b"q Q0 a\x01b 1 1 r\n", mode="wb")
    assert read_run(run) == {"q": {"a\x01b": 1.0}}


def test_hash_collisions_fall_back_to_exact_checks(tmp_path, monkeypatch):
    # every id hashes alike: the duplicate check must still tell ids apart
    monkeypatch.setattr(trec._Ids, "_compute_hashes", lambda self: np.zeros(len(self), np.uint64))
    assert read_run(_write(tmp_path, "q Q0 a 1 2 r\nq Q0 b 2 1 r\n")) == {"q": {"a": 2.0, "b": 1.0}}
    with pytest.raises(ValueError, match="line 3: duplicate document 'a'"):
        read_run(_write(tmp_path, "q Q0 a 1 2 r\nq Q0 b 2 1 r\nq Q0 a 3 0 r\n", "d"))
