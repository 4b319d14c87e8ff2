"""Any form of qrels or a run -> the canonical Arrow table (see :mod:`rankeval.io.tables`).

:func:`qrels_table` and :func:`run_table` are the one entry of the I/O layer: files
go to the TREC reader (:mod:`rankeval.io.trec`), dicts and frames to the builders of
:mod:`rankeval.io.tables`; the result is checked the same way whatever the source.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

import pyarrow as pa

from . import ecosystem, tables, trec

__all__ = ["qrels_table", "run_table", "canonical_table", "plain_ids", "VALUE", "run_form",
           "looks_swapped"]

#: The value column of each kind of table.
VALUE = tables.VALUE


def qrels_table(source, *, columns=None, encoding="utf-8") -> pa.Table:
    """Judgments in any accepted form as a table ``query_id, doc_id, relevance``.

    Parameters
    ----------
    source : str, os.PathLike, file object, dict, pandas.DataFrame, pyarrow.Table or polars.DataFrame
        A TREC qrels file (path, ``"-"`` for standard input, or an open
        file; gzip, bzip2 and xz files are read transparently), a dict
        ``{query_id: {doc_id: grade}}`` or ``{query_id: set_of_relevant_ids}``
        (grade 1), or a frame with columns ``query_id``, ``doc_id``,
        ``relevance``.
    columns : dict of {str: str}, optional
        For frames only: the caller's column name for each canonical name,
        e.g. ``{"query_id": "user", "doc_id": "item", "relevance": "rating"}``.
        Ignored for files and dicts.
    encoding : str, default="utf-8"
        For TREC files only: the text encoding of the file, as for
        :func:`rankeval.read_qrels` (``"latin-1"`` reads any bytes).

    Returns
    -------
    pyarrow.Table
        Columns ``query_id`` and ``doc_id`` (``string`` or ``int64``, as
        given) and ``relevance`` (``float64``), one row per judgment, in
        input order.

    Raises
    ------
    ValueError
        A malformed file line, a missing or non-finite grade, or a document
        judged twice for one query; the message says where.
    TypeError
        An id that is neither a string nor an integer, a grade that is not a
        number, or a source of another kind.

    Notes
    -----
    Queries with no judgment (``{"q1": {}}``) have no row: they are not
    judged. Grades stay as given (``0.5`` is kept); negative grades are kept
    too (trec_eval reads them as judged non-relevant).

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval.io import qrels_table
    >>> qrels_table({"q1": {"d1": 2, "d2": 0}, "q2": {"d7"}}).to_pydict()
    {'query_id': ['q1', 'q1', 'q2'], 'doc_id': ['d1', 'd2', 'd7'],
     'relevance': [2.0, 0.0, 1.0]}
    >>> qrels_table({1: {10: 1}, 2: {11: 3}}).schema.field("query_id").type
    DataType(int64)
    """
    return plain_ids(canonical_table(source, "qrels", columns, encoding=encoding))


def run_table(source, *, columns=None, encoding="utf-8") -> pa.Table:
    """A run in any accepted form as a table ``query_id, doc_id, score``.

    Parameters
    ----------
    source : str, os.PathLike, file object, dict, pandas.DataFrame, pyarrow.Table or polars.DataFrame
        A TREC run file (path, ``"-"`` for standard input, or an open file;
        gzip, bzip2 and xz files are read transparently), a dict
        ``{query_id: {doc_id: score}}`` or ``{query_id: [doc ids, best
        first]}``, or a frame with columns ``query_id``, ``doc_id`` and
        ``score`` (or ``rank``: then ``score = -rank``).
    columns : dict of {str: str}, optional
        For frames only: the caller's column name for each canonical name,
        e.g. ``{"query_id": "user", "doc_id": "item", "score": "pred"}``.
        Ignored for files and dicts.
    encoding : str, default="utf-8"
        For TREC files only: the text encoding of the file, as for
        :func:`rankeval.read_run` (``"latin-1"`` reads any bytes).

    Returns
    -------
    pyarrow.Table
        Columns ``query_id`` and ``doc_id`` (``string`` or ``int64``, as
        given) and ``score`` (``float64``), one row per retrieved document,
        in input order.

    Raises
    ------
    ValueError
        A malformed file line, a missing or non-finite score, or a document
        listed twice for one query; the message says where.
    TypeError
        An id that is neither a string nor an integer, a score that is not a
        number, or a source of another kind.

    Notes
    -----
    A list ``[d_1, ..., d_n]`` gives ``d_i`` the score ``n - i + 1`` (``n``
    for the first, ``1`` for the last), so that any ranking by score keeps
    the list's order. A query with an empty dict or list has no row.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval.io import run_table
    >>> run_table({"u1": ["i3", "i1", "i2"]}).to_pydict()
    {'query_id': ['u1', 'u1', 'u1'], 'doc_id': ['i3', 'i1', 'i2'],
     'score': [3.0, 2.0, 1.0]}
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user": [7, 7], "item": [1, 2], "pred": [0.5, 0.9]})
    >>> names = {"query_id": "user", "doc_id": "item", "score": "pred"}
    >>> table = run_table(frame, columns=names)
    >>> table.to_pydict()
    {'query_id': [7, 7], 'doc_id': [1, 2], 'score': [0.5, 0.9]}
    """
    return plain_ids(canonical_table(source, "run", columns, encoding=encoding))


def plain_ids(table: pa.Table) -> pa.Table:
    """The table with a dictionary-encoded ``query_id`` column decoded."""
    column = table.column("query_id")
    if pa.types.is_dictionary(column.type):
        table = table.set_column(0, "query_id", column.cast(column.type.value_type))
    return table


def canonical_table(source, kind: str, columns, *, encoding="utf-8") -> pa.Table:
    """The canonical table, except that ``query_id`` may come dictionary-encoded
    (from dicts, whose query codes are known): :func:`rankeval.rank_run` uses
    the codes as they are; :func:`qrels_table` and :func:`run_table` decode.
    ``encoding`` is a TREC file's (checked whatever the source)."""
    trec.text_encoding(encoding)
    source, columns = ecosystem.adapt(source, kind, columns)
    if tables.is_parquet(source):
        import pyarrow.parquet as pq

        name = getattr(source, "name", source)
        return tables.from_arrow(pq.read_table(source), kind, columns,
                                 f"{tables.kind_label(kind)} Parquet file {os.fspath(name)}")
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        return trec.read_table(source, kind, encoding=encoding)
    if isinstance(source, Mapping):
        if kind == "subtopics":
            return tables.from_subtopic_mapping(source)
        return tables.from_mapping(source, kind)
    if isinstance(source, (pa.Table, pa.RecordBatch)):
        return tables.from_arrow(pa.table(source), kind, columns, f"{tables.kind_label(kind)} table")
    module = type(source).__module__
    if module.startswith("pandas") and hasattr(source, "columns"):
        return tables.from_pandas(source, kind, columns)
    if module.startswith("polars") and hasattr(source, "to_arrow"):
        return tables.from_arrow(source.to_arrow(), kind, columns,
                           f"{tables.kind_label(kind)} polars DataFrame")
    if kind == "subtopics":
        raise TypeError(
            "subtopic qrels must be the path of a subtopic qrels file (query_id subtopic "
            "doc_id grade), a file object, a dict {query_id: {subtopic: {doc_id: grade}}}, "
            "a pandas or polars DataFrame or a pyarrow Table; got "
            f"{type(source).__name__}"
        )
    raise TypeError(
        f"{kind} must be the path of a TREC {kind} file, a file object, a dict "
        f"{{query_id: {{doc_id: {tables.WHAT[kind]}}}}}, a pandas or polars DataFrame or a "
        f"pyarrow Table; got {type(source).__name__}"
    )




def run_form(source, columns=None) -> str:
    """How a run gives its order: ``"positions"`` or ``"scores"``.

    ``"positions"``: a dict in which every query holds a list, tuple or NumPy array
    of ids (``{user: [items, best first]}``, a recommender's lists), or a pandas,
    polars or Arrow table with a ``rank`` column and no ``score`` column (after
    ``columns``). ``"scores"``: anything else, every file (TREC or Parquet) included,
    and a dict ``{query_id: {doc_id: score}}``. Only the form is read, never the
    values: :func:`rankeval.evaluate`'s ``missing=None`` counts every judged query
    for ``"positions"`` and skips the ones the run lacks for ``"scores"``.

    Examples
    --------
    >>> from rankeval.io.canonical import run_form
    >>> run_form({"u1": ["i3", "i1"]}), run_form({"q1": {"d1": 2.5}})
    ('positions', 'scores')
    """
    if tables.is_parquet(source) or isinstance(source, (str, os.PathLike)) \
            or hasattr(source, "read"):
        return "scores"
    if isinstance(source, Mapping):
        lists = len(source) > 0 and not any(map(_is_mapping_type, _types(source)))
        return "positions" if lists else "scores"
    if isinstance(source, (pa.Table, pa.RecordBatch)):
        names = source.schema.names
    elif hasattr(source, "columns") and type(source).__module__.startswith(("pandas", "polars")):
        names = [str(c) for c in source.columns]
    else:
        return "scores"  # (the reader refuses it)
    mapped = dict(columns or {})
    has = {c: mapped.get(c, c) in names for c in ("score", "rank")}
    return "positions" if has["rank"] and not has["score"] else "scores"


def _types(source: Mapping) -> set:
    """The distinct types of a mapping's values (one C pass; a type test per query
    in Python costs about as much as converting a query's documents)."""
    return set(map(type, source.values()))


def _is_mapping_type(t: type) -> bool:
    """Whether instances of ``t`` are mappings (``isinstance(v, Mapping)``)."""
    return t is dict or issubclass(t, Mapping)


def looks_swapped(qrels, run):
    """Whether a qrels dict and a run dict look given the wrong way round: the first
    fractional grade ``(query_id, doc_id, grade)`` if so, else None.

    So when both are dicts ``{query_id: {doc_id: number}}``, the run holds at least
    one number, every number of the run is a whole number (as grades are) and some
    grade of the qrels is not (as a system's scores, such as 11.061, are not).
    Files are told apart by their fields, frames by their columns; dicts only by
    their values. The run is read first and the reading stops at its first
    fractional score, so that a run of real-valued scores costs one look; a value
    that is no finite number leaves the decision to the reader (and its message).

    Examples
    --------
    >>> from rankeval.io.canonical import looks_swapped
    >>> looks_swapped({"q1": {"d1": 11.061}}, {"q1": {"d1": 1}})
    ('q1', 'd1', 11.061)
    >>> looks_swapped({"q1": {"d1": 1}}, {"q1": {"d1": 11.061}}) is None
    True
    """

    def dicts(source):
        return isinstance(source, Mapping) and len(source) > 0 and all(
            map(_is_mapping_type, _types(source)))

    if not (dicts(qrels) and dicts(run)):
        return None

    def whole(value) -> bool | None:
        try:
            x = float(value)
        except (TypeError, ValueError, OverflowError):
            return None
        return x.is_integer() if math.isfinite(x) else None

    scores = 0
    for docs in run.values():
        for score in docs.values():
            if whole(score) is not True:
                return None
            scores += 1
    if not scores:
        return None
    for query, docs in qrels.items():
        for doc, grade in docs.items():
            if whole(grade) is False:
                return query, doc, grade
    return None
