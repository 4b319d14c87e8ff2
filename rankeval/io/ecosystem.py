"""The input forms of the IR ecosystem, read as the tables the rest of the library takes.

- ir_measures' ``Qrel`` and ``ScoredDoc`` named tuples (a list, or any iterable of them),
  and ir_datasets' records (``TrecQrel``, ``GenericScoredDoc``), which have the same
  fields ``query_id, doc_id, relevance`` / ``query_id, doc_id, score``;
- an ir_datasets dataset itself (``ir_datasets.load(...)``): its ``qrels_iter()`` for
  qrels, its ``scoreddocs_iter()`` for a run;
- PyTerrier's frames: columns ``qid, docno, score`` (a run) and ``qid, docno, label``
  (qrels), read without a ``columns=`` mapping.

:func:`adapt` turns such a source into a pyarrow table (or, for a PyTerrier frame, names
its columns) before :func:`rankeval.io.canonical.canonical_table` checks it as it checks
every table: the same messages, the same id rules.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pyarrow as pa

#: the fields of a record of each kind (ir_measures and ir_datasets agree on them)
FIELDS = {"qrels": ("query_id", "doc_id", "relevance"), "run": ("query_id", "doc_id", "score")}

#: PyTerrier's column names -> the canonical ones
PYTERRIER = {"qrels": {"query_id": "qid", "doc_id": "docno", "relevance": "label"},
             "run": {"query_id": "qid", "doc_id": "docno", "score": "score"}}


def _is_record(item, kind: str) -> bool:
    fields = getattr(type(item), "_fields", None)
    return isinstance(fields, tuple) and all(f in fields for f in FIELDS[kind])


def _records(items, kind: str, where: str) -> pa.Table:
    """Named-tuple records as a table, each field checked to be present on every record."""
    names = FIELDS[kind]
    columns: dict = {name: [] for name in names}
    for line, item in enumerate(items, start=1):
        if not _is_record(item, kind):
            raise TypeError(f"{where}: record {line} is {item!r}, not a named tuple with the "
                            f"fields {', '.join(names)} (as ir_measures' "
                            f"{'Qrel' if kind == 'qrels' else 'ScoredDoc'})")
        for name in names:
            columns[name].append(getattr(item, name))
    return pa.table(columns)


def adapt(source, kind: str, columns):
    """``(source, columns)``: an ecosystem form turned into what the readers take.

    Anything else comes back unchanged. ``kind`` is ``"qrels"`` or ``"run"``.
    """
    if kind not in FIELDS:
        return source, columns
    # an ir_datasets dataset: its qrels or scored documents
    method = "qrels_iter" if kind == "qrels" else "scoreddocs_iter"
    has = getattr(type(source), f"has_{method.split('_')[0]}", None)
    if callable(getattr(source, method, None)) and not isinstance(source, Mapping):
        if callable(has) and not has(source):
            raise ValueError(f"the ir_datasets dataset has no {method.split('_')[0]}")
        return _records(getattr(source, method)(), kind, f"{kind} from {method}()"), None
    # a list (or other iterable) of named-tuple records
    if isinstance(source, (list, tuple)) and source and _is_record(source[0], kind):
        return _records(source, kind, f"{kind} records"), None
    if isinstance(source, Iterator) and not hasattr(source, "read"):
        items = list(source)
        if items and _is_record(items[0], kind):
            return _records(items, kind, f"{kind} records"), None
        if not items:
            raise ValueError(f"the {kind} iterator is empty")
        raise TypeError(f"{kind}: an iterator must yield named tuples with the fields "
                        f"{', '.join(FIELDS[kind])}; its first item is {items[0]!r}")
    # a PyTerrier frame: qid/docno and no canonical names, no mapping given
    if columns is None and type(source).__module__.startswith("pandas") \
            and hasattr(source, "columns"):
        present = set(source.columns)
        mapping = PYTERRIER[kind]
        if {"qid", "docno"} <= present and not {"query_id", "doc_id"} & present:
            return source, {c: n for c, n in mapping.items() if n in present}
    return source, columns


__all__ = ["adapt", "FIELDS", "PYTERRIER"]
