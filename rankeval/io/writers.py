"""Write qrels and runs as TREC files, from any form :mod:`rankeval.io.canonical` reads.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import io
import sys

from .canonical import qrels_table, run_table

__all__ = ["write_qrels", "write_run"]


def _number(x: float, integer: bool) -> str:
    if integer and float(x).is_integer():
        return str(int(x))
    return repr(float(x))


def _check_token(text: str, what: str) -> None:
    if not text or any(c.isspace() for c in text) or "\x00" in text:
        raise ValueError(
            f"{what} {text!r} cannot be written to a TREC file: ids must be non-empty "
            "and contain no whitespace"
        )


def _write_lines(lines, path) -> None:
    if isinstance(path, str) and path == "-":
        sys.stdout.writelines(lines)
    elif hasattr(path, "write"):
        if isinstance(path, io.TextIOBase):
            path.writelines(lines)
        else:
            path.write("".join(lines).encode("utf-8", "surrogateescape"))
    else:
        with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
            f.writelines(lines)


def write_qrels(qrels, path) -> None:
    r"""Write judgments as a TREC qrels file (``query_id 0 doc_id grade`` per line).

    Parameters
    ----------
    qrels : dict, pandas.DataFrame, pyarrow.Table or path
        Judgments in any form ``rankeval.evaluate`` accepts.
    path : str, os.PathLike or file object
        Destination (overwritten), ``"-"`` for standard output, or an open
        file (text or binary).

    Returns
    -------
    None
        The file is written; nothing is returned.

    Raises
    ------
    ValueError
        An id that is empty or holds whitespace, or a query id starting with
        ``#`` (it would read back as a comment).

    Notes
    -----
    Lines keep the input order. Whole-number grades are written as integers
    (trec_eval reads integers); other grades in Python's shortest round-trip
    form. Reading the file back with :func:`read_qrels` gives the same
    judgments.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankeval import read_qrels, write_qrels
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> write_qrels({"q1": {"d1": 2, "d2": 0}}, path)
    >>> path.read_text()
    'q1 0 d1 2\nq1 0 d2 0\n'
    >>> read_qrels(path)
    {'q1': {'d1': 2, 'd2': 0}}
    """
    table = qrels_table(qrels)
    queries = [str(q) for q in table["query_id"].to_pylist()]
    docs = [str(d) for d in table["doc_id"].to_pylist()]
    lines = []
    checked = set()
    for q, d, g in zip(queries, docs, table["relevance"].to_pylist(), strict=True):
        if q not in checked:
            _check_query(q)
            checked.add(q)
        _check_token(d, "document id")
        lines.append(f"{q} 0 {d} {_number(g, True)}\n")
    _write_lines(lines, path)


def _check_query(q: str) -> None:
    _check_token(q, "query id")
    if q.startswith("#"):
        raise ValueError(
            f"query id {q!r} cannot be written to a TREC file: a line starting with '#' "
            "is a comment"
        )


def write_run(run, path, *, tag: str = "rankeval") -> None:
    r"""Write a run as a TREC run file (``query_id Q0 doc_id rank score tag``).

    Parameters
    ----------
    run : dict, pandas.DataFrame, pyarrow.Table or path
        Scores in any form ``rankeval.evaluate`` accepts (a list of ids per
        query is written with scores ``n, n - 1, ..., 1``).
    path : str, os.PathLike or file object
        Destination (overwritten), ``"-"`` for standard output, or an open
        file (text or binary).
    tag : str, default="rankeval"
        The run name written in the last column (no whitespace).

    Returns
    -------
    None
        The file is written; nothing is returned.

    Raises
    ------
    ValueError
        An id or tag that is empty or holds whitespace, or a query id
        starting with ``#``.

    Notes
    -----
    Queries are written in order of first appearance; within each query,
    lines are in the order trec_eval ranks them: score descending, ties
    broken by document id descending (as strings), and the ``rank`` column
    numbers them 1, 2, ... in that order. Scores are written in Python's
    shortest round-trip form, so reading the file back gives the same floats.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankeval import write_run
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> write_run({"q1": {"a": 0.5, "b": 2.0, "c": 0.5}}, path, tag="demo")
    >>> print(path.read_text(), end="")
    q1 Q0 b 1 2.0 demo
    q1 Q0 c 2 0.5 demo
    q1 Q0 a 3 0.5 demo
    """
    _check_token(tag, "tag")
    table = run_table(run)
    queries = [str(q) for q in table["query_id"].to_pylist()]
    docs = [str(d) for d in table["doc_id"].to_pylist()]
    by_query: dict = {}
    for q, d, s in zip(queries, docs, table["score"].to_pylist(), strict=True):
        by_query.setdefault(q, []).append((s, d))
    lines = []
    for q, rows in by_query.items():
        _check_query(q)
        rows.sort(reverse=True)  # score descending, then doc id descending
        for rank, (s, d) in enumerate(rows, start=1):
            _check_token(d, "document id")
            lines.append(f"{q} Q0 {d} {rank} {_number(s, False)} {tag}\n")
    _write_lines(lines, path)
