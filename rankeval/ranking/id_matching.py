"""Query and document ids matched by Arrow: one type for both inputs, every id's
code among the sorted distinct ids, and the queries a dict run holds with an empty
ranking.

Ids are compared only by Arrow's hash kernels (``pyarrow.compute.index_in``,
``dictionary_encode``), as exact strings or integers; no id is ever converted.
"""

from __future__ import annotations

import numpy as np


def _mark_empty_rankings(present, run, queries) -> None:
    """Mark as present the judged queries that a dict run holds with an empty ranking
    (``{q: {}}``, ``{q: []}``): the run has them, so they are scored (0, as pytrec_eval
    and ranx score them), not dropped as absent queries are."""
    from collections.abc import Mapping

    import pyarrow as pa

    from ..io.tables import id_kind

    if not isinstance(run, Mapping):
        return
    kind = id_kind(queries.type)
    rankings = list(run.values())
    if set(map(type, rankings)) <= {dict, list, tuple}:  # lengths without a Python loop
        lengths = np.fromiter(map(len, rankings), np.int64, len(rankings))
        ids = list(run)
        empty = [ids[i] for i in np.flatnonzero(lengths == 0).tolist() if id_kind(ids[i]) == kind]
    else:
        empty = [
            q for q, v in run.items()
            if hasattr(v, "__len__") and not isinstance(v, str) and not len(v) and id_kind(q) == kind
        ]  # fmt: skip
    if empty:
        codes = _codes(pa.array(empty, type=queries.type), queries)
        present[codes[codes >= 0]] = True


def _unify(a, b, column):
    """Give two id columns (the qrels', the run's) one Arrow type; integer ids and
    string ids are a TypeError, as no id is ever converted."""
    import pyarrow as pa

    from ..io.tables import id_kind, mixed_id_types

    ta, tb = a.type, b.type
    if ta == tb:
        return a, b
    if not len(a) or not len(b):  # an empty side has no type of its own
        return (a.cast(tb), b) if not len(a) else (a, b.cast(ta))
    ka, kb = id_kind(ta), id_kind(tb)
    if ka != kb:
        raise mixed_id_types(column, ka, kb, f" (qrels: {ka}, run: {kb})")
    if pa.types.is_integer(ta) and pa.types.is_integer(tb):
        return a.cast(pa.int64()), b.cast(pa.int64())
    large = pa.types.is_large_string(ta) or pa.types.is_large_string(tb)
    target = pa.large_string() if large else pa.string()
    return a.cast(target), b.cast(target)


def _codes(values, value_set) -> np.ndarray:
    """Position of every value in ``value_set`` (exact match by Arrow), -1 if absent."""
    import pyarrow.compute as pc

    found = pc.index_in(values, value_set=value_set)
    return pc.fill_null(found, -1).to_numpy()  # int32


def _sorted_unique(column):
    import pyarrow.compute as pc

    unique = pc.unique(column)
    return unique.take(pc.sort_indices(unique))



def _split(column):
    """``(values, codes)`` of an id column: its distinct values (Arrow's dictionary
    encoding) and, for every row, the position of its value among them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    return encoded.dictionary, encoded.indices.to_numpy()

