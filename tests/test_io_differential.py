"""The TREC readers against pytrec_eval's own parsers, on generated files.

``pytrec_eval.parse_qrel`` and ``parse_run`` split each line with Python's
``str.split`` and fill dicts one line at a time: slow but obviously right,
so they are the oracle here. The generated files cover what broke the old
hand-written reader (issue 9): ids of 1 to 40 bytes of mixed lengths in one
file, non-ASCII ids, tabs, runs of whitespace and CRLF line ends, files far
larger than the reader's blocks (the block size is shrunk, and one real file
of a few MB is read), duplicates anywhere, and shuffled lines. Ids avoid the
characters that Python's ``split`` takes for whitespace and C's ``isspace``
does not (``\\x1c``-``\\x1f``, ``\\x85``, ``\\xa0``, Unicode spaces), the only
place where pytrec_eval and trec_eval disagree.
"""

import io

import numpy as np
import pyarrow as pa
import pytest

import rankeval.io.trec as trec
from rankeval import read_qrels, read_run
from rankeval.io import qrels_table, run_table

pytrec_eval = pytest.importorskip("pytrec_eval")

# characters of 1, 2, 3 and 4 bytes in UTF-8
_CHARS = [*"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/=+%",
          "é", "ß", "ж", "λ", "日", "本", "語", "€", "😀", "𝔸"]


def _ids(rng, n: int) -> list:
    """n distinct ids of 1 to 40 UTF-8 bytes, lengths mixed."""
    out = set()
    while len(out) < n:
        target = int(rng.integers(1, 41))
        s = ""
        while len(s.encode()) < target:
            c = _CHARS[int(rng.integers(len(_CHARS)))]
            if len((s + c).encode()) > target:
                c = "x"
            s += c
        out.add(s)
    ids = sorted(out)
    rng.shuffle(ids)
    return ids


def _layout(rng, fields: list, style: str) -> str:
    if style == "space":
        return " ".join(fields)
    if style == "tab":
        return "\t".join(fields)
    seps = [" ", "\t", "  ", " \t", "\t\t", "   "]
    line = fields[0]
    for f in fields[1:]:
        line += seps[int(rng.integers(len(seps)))] + f
    return line


def _generate(rng, n_queries: int, depth: int, style: str, crlf: bool):
    """(qrels text, run text) with every kind of id, in the given layout."""
    queries = _ids(rng, n_queries)
    docs = _ids(rng, depth * 3)
    qrels_lines, run_lines = [], []
    for q in queries:
        retrieved = rng.choice(len(docs), size=int(rng.integers(1, depth + 1)), replace=False)
        scores = np.round(rng.normal(size=len(retrieved)), int(rng.integers(0, 6)))
        for rank, (d, s) in enumerate(zip(retrieved, scores, strict=True), start=1):
            run_lines.append(_layout(rng, [q, "Q0", docs[d], str(rank), repr(float(s)), "tag"],
                                     style))
        judged = rng.choice(len(docs), size=int(rng.integers(1, depth + 1)), replace=False)
        for d in judged:
            qrels_lines.append(_layout(rng, [q, "0", docs[d], str(int(rng.integers(-1, 4)))],
                                       style))
    order = rng.permutation(len(run_lines))  # queries interleaved
    run_lines = [run_lines[i] for i in order]
    end = "\r\n" if crlf else "\n"
    return end.join(qrels_lines) + end, end.join(run_lines) + end


def _pytrec(text: str, kind: str) -> dict:
    parse = pytrec_eval.parse_qrel if kind == "qrels" else pytrec_eval.parse_run
    return dict(parse(io.StringIO(text, newline="")))


def _check(tmp_path, qrels_text, run_text):
    qpath, rpath = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qpath.write_bytes(qrels_text.encode())
    rpath.write_bytes(run_text.encode())
    want_qrels, want_run = _pytrec(qrels_text, "qrels"), _pytrec(run_text, "run")
    got_qrels, got_run = read_qrels(qpath), read_run(rpath)
    assert got_qrels == want_qrels
    assert got_run == want_run
    # the order inside each query is the file's, as pytrec_eval's dicts keep it
    assert all(list(got_run[q]) == list(want_run[q]) for q in want_run)
    # and the canonical tables equal those built from pytrec_eval's dicts
    for mine, theirs in ((qrels_table(qpath), qrels_table(want_qrels)),
                         (run_table(rpath), run_table(want_run))):
        keys = [("query_id", "ascending"), ("doc_id", "ascending")]
        assert mine.sort_by(keys).equals(theirs.sort_by(keys))


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("style", ["space", "tab", "mixed"])
def test_agrees_with_pytrec_eval(tmp_path, style, crlf):
    rng = np.random.default_rng(["space", "tab", "mixed"].index(style) + 10 * crlf)
    _check(tmp_path, *_generate(rng, 25, 30, style, crlf))


@pytest.mark.parametrize("block", [64, 1000])
@pytest.mark.parametrize("style", ["space", "mixed"])
def test_agrees_with_small_blocks(tmp_path, monkeypatch, style, block):
    monkeypatch.setattr(trec, "_BLOCK_SIZE", block)
    rng = np.random.default_rng(block)
    _check(tmp_path, *_generate(rng, 30, 40, style, crlf=block == 64))


def test_agrees_on_a_file_of_several_megabytes(tmp_path):
    # larger than the default block (4 MiB): several blocks, threads, chunks
    rng = np.random.default_rng(7)
    qrels_text, run_text = _generate(rng, 300, 600, "space", crlf=False)
    assert len(run_text.encode()) > trec._BLOCK_SIZE
    _check(tmp_path, qrels_text, run_text)


def test_shuffled_lines_give_the_same_dicts(tmp_path):
    rng = np.random.default_rng(3)
    qrels_text, run_text = _generate(rng, 20, 30, "mixed", crlf=False)
    lines = run_text.splitlines(keepends=True)
    shuffled = "".join(lines[i] for i in rng.permutation(len(lines)))
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(run_text.encode())
    b.write_bytes(shuffled.encode())
    assert read_run(a) == read_run(b) == _pytrec(shuffled, "run")
    keys = [("query_id", "ascending"), ("doc_id", "ascending")]
    assert run_table(a).sort_by(keys).equals(run_table(b).sort_by(keys))


@pytest.mark.parametrize("seed", range(6))
def test_duplicates_anywhere(tmp_path, monkeypatch, seed):
    """A repeated (query, document) is refused by both, with both line numbers here."""
    monkeypatch.setattr(trec, "_BLOCK_SIZE", [64, 256, 1 << 22][seed % 3])
    rng = np.random.default_rng(seed)
    _, run_text = _generate(rng, 15, 20, ["space", "mixed"][seed % 2], crlf=False)
    lines = run_text.splitlines()
    source = int(rng.integers(len(lines)))
    fields = lines[source].split()
    copy = " ".join([fields[0], "Q0", fields[2], "99", "0.5", "dup"])
    at = int(rng.integers(len(lines) + 1))
    lines.insert(at, copy)
    first, second = sorted((source + (source >= at), at))
    text = "\n".join(lines) + "\n"
    with pytest.raises(AssertionError):
        _pytrec(text, "run")
    path = tmp_path / "run.txt"
    path.write_bytes(text.encode())
    with pytest.raises(ValueError, match=rf"lines {first + 1} and {second + 1}: document "):
        read_run(path)


def test_ids_of_every_length_in_one_query(tmp_path):
    # every length from 1 to 40 bytes, in one query, then a lookup of each
    docs = ["d" * n for n in range(1, 41)] + ["é" * n for n in range(1, 21)]
    run_text = "".join(f"q Q0 {d} {i} {i} r\n" for i, d in enumerate(docs))
    path = tmp_path / "r"
    path.write_bytes(run_text.encode())
    got = read_run(path)
    assert got == _pytrec(run_text, "run")
    assert [got["q"][d] for d in docs] == [float(i) for i in range(len(docs))]
    table = read_run(path, as_table=True)
    assert table["doc_id"].type == pa.string()
    assert table["doc_id"].to_pylist() == docs
