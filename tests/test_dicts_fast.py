"""Dicts to canonical tables, fast path against the plain implementation it replaced.

``rankeval.io.tables.from_mapping`` reads a dict's documents without a
per-query check when every value is a ``dict``, reads values with
``dict.values`` and scores list runs with one NumPy expression (issue 41,
item 3). The implementation it replaced is kept below, unchanged, as the
oracle: on random dicts (string or integer ids, mixed ids, int, float, bool
and NumPy values, NaN, infinities, numbers too large for a double, strings
and None as values, empty queries, lists, tuples, sets, NumPy arrays and
mappings that are not dicts) both give the same table, or both raise the same
error with the same message, whatever the size of the conversion batches.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

import math
import numbers
import types
from collections import OrderedDict
from collections.abc import Mapping
from itertools import chain

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval.io.tables as tables
from rankeval.io.tables import _COLLECTIONS, VALUE, WHAT, finish

_OLD_CONVERT_ROWS = 1 << 16


# --- the implementation before issue 41, item 3 (the oracle; do not edit) --------------------

def _old_is_int(x) -> bool:
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))


def _old_id_array(values: list, describe) -> pa.Array:
    """Ids (all str or all int) as a ``string`` or ``int64`` Arrow array.

    ``describe(i)`` names element ``i`` for a message. Integers are never
    turned into strings nor strings into integers.
    """
    if not values:
        return pa.array([], pa.string())
    first = values[0]
    try:
        if isinstance(first, str):
            array = pa.array(values, type=pa.string())
            if not array.null_count:
                return array  # (a None among them is refused by the loop below)
        if _old_is_int(first):
            array = pa.array(values)  # inferred: a float or a bool among them is refused
            if array.type == pa.int64() and not array.null_count:
                return array
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, UnicodeError):
        pass
    if not (isinstance(first, str) or _old_is_int(first)):
        raise TypeError(
            f"{describe(0)}: ids must be strings or integers; got {type(first).__name__} "
            f"{first!r}"
        )
    kind = str if isinstance(first, str) else int
    for i, x in enumerate(values):
        ok = isinstance(x, str) if kind is str else _old_is_int(x)
        if not ok:
            raise TypeError(
                f"{describe(i)}: ids must be all strings or all integers (the first is "
                f"{kind.__name__}); got {type(x).__name__} {x!r}"
            )
        if kind is str:
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(f"{describe(i)}: id {x!r} cannot be encoded as UTF-8") from None
        elif not -(2**63) <= int(x) < 2**63:
            raise ValueError(
                f"{describe(i)}: integer id {int(x)} does not fit in a signed 64-bit integer "
                "(int64)"
            )
    return pa.array(values, type=pa.string() if kind is str else pa.int64())


def _old_from_mapping(data: Mapping, kind: str) -> pa.Table:
    what = WHAT[kind]
    queries, inner = [], []
    all_mappings = True
    for q, docs in data.items():
        if type(docs) is dict or isinstance(docs, Mapping):
            pass
        elif isinstance(docs, _COLLECTIONS):
            if kind == "run" and isinstance(docs, (set, frozenset)):
                raise TypeError(
                    f"{kind}[{q!r}] is a set, which has no order; give a list of "
                    "document ids, best first, or a dict {doc_id: score}"
                )
            if isinstance(docs, np.ndarray):
                docs = docs.tolist()
            all_mappings = False
        else:
            raise TypeError(
                f"{kind}[{q!r}] must be a dict {{doc_id: {what}}} or a "
                f"{'set or list of relevant' if kind == 'qrels' else 'list of'} document "
                f"ids, got {type(docs).__name__}"
            )
        if len(docs):
            queries.append(q)
            inner.append(docs)
    lengths = np.fromiter(map(len, inner), np.int64, len(inner))
    n = int(lengths.sum())
    qcodes = np.repeat(np.arange(len(queries), dtype=np.int32), lengths)
    starts = np.cumsum(lengths) - lengths

    def describe_query(i):
        return f"{kind} query id {queries[i]!r}"

    def describe_doc(row):
        q = int(qcodes[row])
        return f"{kind}[{queries[q]!r}], document {row - int(starts[q]) + 1}"

    query_values = _old_id_array(queries, describe_query)
    # batches of whole queries, about _OLD_CONVERT_ROWS documents each: [cuts[i], cuts[i + 1])
    ends = starts + lengths
    cuts = np.unique(
        np.concatenate(
            ([0], np.searchsorted(ends, np.arange(_OLD_CONVERT_ROWS, n, _OLD_CONVERT_ROWS)) + 1,
             [len(inner)])
        ).clip(0, len(inner))
    )  # fmt: skip
    parts = []
    for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        row = int(starts[a])
        batch = list(chain.from_iterable(inner[a:b]))
        if parts:  # the batch's first id is of the kind of the first batch's ids
            first_is_str, x = pa.types.is_string(parts[0].type), batch[0]
            if not (isinstance(x, str) if first_is_str else _old_is_int(x)):
                raise TypeError(
                    f"{describe_doc(row)}: ids must be all strings or all integers (the "
                    f"first is {'str' if first_is_str else 'int'}); got "
                    f"{type(x).__name__} {x!r}"
                )
        parts.append(_old_id_array(batch, lambda i, row=row: describe_doc(row + i)))
    docs_array = pa.chunked_array(parts, type=parts[0].type if parts else pa.string())
    if all_mappings:
        values = np.empty(n, dtype=np.float64)
        for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            lo, hi = int(starts[a]), int(ends[b - 1])
            values[lo:hi] = _old_dict_values(inner[a:b], queries[a:b], kind, hi - lo)
    else:
        values = np.empty(n, dtype=np.float64)
        for i, docs in enumerate(inner):
            lo, hi = int(starts[i]), int(starts[i] + lengths[i])
            if isinstance(docs, Mapping):
                values[lo:hi] = _old_dict_values([docs], [queries[i]], kind, hi - lo)
            elif kind == "qrels":
                values[lo:hi] = 1.0
            else:
                values[lo:hi] = np.arange(hi - lo, 0, -1)
    if len(query_values) and len(queries):
        query_ids = pa.DictionaryArray.from_arrays(pa.array(qcodes), query_values)
    else:
        query_ids = pa.array([], query_values.type)
    table = pa.table({"query_id": query_ids, "doc_id": docs_array, VALUE[kind]: values})

    def where(row, other=None):
        q = queries[int(qcodes[row])]
        if other is None:
            return f"{kind}[{q!r}][{docs_array[row].as_py()!r}]"
        return (
            f"{kind}[{q!r}], positions {row - int(starts[qcodes[row]]) + 1} and "
            f"{other - int(starts[qcodes[other]]) + 1}"
        )

    return finish(table, kind, where, unique=all_mappings)


def _old_dict_values(inner, queries, kind: str, n: int) -> np.ndarray:
    """The values of dicts ``inner``, in order, as float64 (numbers only, no strings)."""
    flat = list(chain.from_iterable(d.values() for d in inner))
    try:
        array = pa.array(flat, type=pa.float64())
        if not array.null_count:
            return array.to_numpy()
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        pass
    out = np.empty(n, dtype=np.float64)
    row = 0
    for q, docs in zip(queries, inner, strict=True):
        for d, v in docs.items():
            if isinstance(v, (numbers.Real, np.bool_)):
                try:
                    out[row] = float(v)
                except OverflowError:
                    shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:37] + "..."
                    raise ValueError(
                        f"{kind}[{q!r}][{d!r}]: {WHAT[kind]} {shown} is too large for a "
                        "double (64-bit float)"
                    ) from None
            else:
                raise TypeError(
                    f"{kind}[{q!r}][{d!r}]: {WHAT[kind]} must be a number, got "
                    f"{type(v).__name__} {v!r}"
                )
            row += 1
    return out


# --- helpers --------------------------------------------------------------------------------


def _outcome(build, data, kind):
    """The table as plain columns (value bits included), or the error's type and text."""
    try:
        table = build(data, kind)
    except (TypeError, ValueError) as error:
        return type(error).__name__, str(error)
    query_ids = table.column("query_id")
    if pa.types.is_dictionary(query_ids.type):
        query_ids = query_ids.cast(query_ids.type.value_type)
    values = table.column(VALUE[kind]).to_numpy()
    return (
        [str(field.type) for field in table.schema][1:],
        str(query_ids.type),
        query_ids.to_pylist(),
        table.column("doc_id").to_pylist(),
        values.view(np.int64).tolist(),  # the bits: -0.0 is not 0.0
    )


def _same(data, kind, batch=None):
    with pytest.MonkeyPatch.context() as patch:
        if batch is not None:
            patch.setattr(tables, "_CONVERT_ROWS", batch)
            patch.setitem(globals(), "_OLD_CONVERT_ROWS", batch)
        new = _outcome(tables.from_mapping, data, kind)
        old = _outcome(_old_from_mapping, data, kind)
    assert new == old


# --- random dicts ------------------------------------------------------------------------------

text_ids = st.text(min_size=0, max_size=6)
int_ids = st.one_of(st.integers(-5, 60), st.sampled_from([2**63 - 1, -(2**63), 2**63, 2**70]))
numpy_int_ids = st.integers(0, 60).map(np.int64)
odd_ids = st.sampled_from([True, 1.0, 2.5, None, b"x"])
numbers_ = st.one_of(
    st.integers(-3, 4),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.floats(-10, 10).map(np.float32),
    st.integers(-3, 4).map(np.int64),
    st.sampled_from([2**53 + 1, 10**400, -0.0, np.bool_(True)]),
)
odd_values = st.sampled_from(["1.5", None, b"1", 1 + 2j])


def _inner(ids, values, kind):
    as_dict = st.dictionaries(ids, values, max_size=6)
    forms = [
        as_dict,
        as_dict.map(OrderedDict),
        as_dict.map(types.MappingProxyType),
        st.lists(ids, max_size=6),
        st.lists(ids, max_size=6).map(tuple),
    ]
    if kind == "qrels":
        forms.append(st.sets(ids, max_size=6))
    return st.one_of(*forms)


@st.composite
def dicts(draw, kind):
    id_kind = draw(st.sampled_from(["str", "int", "numpy", "mixed"]))
    ids = {"str": text_ids, "int": int_ids, "numpy": numpy_int_ids,
           "mixed": st.one_of(text_ids, int_ids, odd_ids)}[id_kind]
    if draw(st.booleans()):  # mostly well-formed values
        values = numbers_.filter(lambda v: not isinstance(v, float) or math.isfinite(v))
    else:
        values = st.one_of(numbers_, odd_values)
    if draw(st.booleans()):  # only dicts: the fast path
        inner = st.dictionaries(ids, values, max_size=8)
    else:
        inner = _inner(ids, values, kind)
    queries = st.one_of(text_ids, int_ids) if id_kind == "mixed" else ids
    return draw(st.dictionaries(queries, inner, max_size=6))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["qrels", "run"]).flatmap(lambda k: st.tuples(st.just(k), dicts(k))),
       st.sampled_from([None, 1, 2, 3, 7]))
def test_same_table_or_same_error_as_the_plain_implementation(kind_and_data, batch):
    kind, data = kind_and_data
    _same(data, kind, batch)


# --- chosen cases ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize(
    "data",
    [
        {},
        {"q": {}},
        {"q": {}, "r": {"a": 1}},
        {"q": {"a": 1, "b": 2.5, "c": True}, "r": {}, "s": {"a": np.float32(0.5)}},
        {1: {10: 1.0, 2: 0.5}, 3: {7: 2}},
        {"q": ["b", "a", "c"], "r": ("x",), "s": []},
        {"q": np.array(["b", "a"]), "r": {"a": 2}},
        {"q": {"a": 1.0, "b": float("nan")}},
        {"q": {"a": 1.0}, "r": {"b": -math.inf}},
        {"q": {"a": "1.5"}},
        {"q": {"a": None}},
        {"q": {"a": 10**400}},
        {"q": {"a": 1.0, 2: 1.0}},
        {"q": {"a": 1.0}, "r": {5: 1.0}},
        {1: {"a": 1.0}, "1": {"b": 1.0}},
        {"q": {"a": 1.0, "\ud800": 2.0}},
        {"q": {"\0a": 1.0, "é": 2.0, "": 3.0}},
        {"q": {2**63: 1.0}},
        {"q": ["a", "b", "a"]},
        {"q": OrderedDict(a=1, b=2)},
        {"q": types.MappingProxyType({"a": 1})},
    ],
)
def test_chosen_dicts(data, kind):
    _same(data, kind)
    _same(data, kind, batch=1)


def test_sets_of_relevant_documents():
    _same({"q": {"a", "b"}, "r": frozenset({"c"}), "s": set()}, "qrels")
    with pytest.raises(TypeError, match=r"run\['q'\] is a set, which has no order"):
        tables.from_mapping({"q": {"a"}}, "run")


def test_list_run_scores_count_down_to_one():
    table = tables.from_mapping({"q": ["c", "a", "b"], "r": {"x": 0.5}, "s": ["z"]}, "run")
    assert table.column("score").to_pylist() == [3.0, 2.0, 1.0, 0.5, 1.0]


def test_a_dict_subclass_is_read_through_its_own_methods():
    class Doubled(dict):  # a mapping that reports other values than it stores
        def values(self):
            return [2 * v for v in super().values()]

    data = {"q": Doubled(a=1.0, b=2.0)}
    _same(data, "run")
    assert tables.from_mapping(data, "run").column("score").to_pylist() == [2.0, 4.0]


@pytest.mark.parametrize("empty", [{}, [], (), OrderedDict(), np.array([])],
                         ids=["dict", "list", "tuple", "OrderedDict", "ndarray"])
def test_an_empty_ranking_is_scored_and_one_of_another_id_kind_ignored(empty):
    # rank_run finds the empty rankings of a dict run from the rankings' lengths (a
    # NumPy pass when every ranking is a dict, list or tuple; else one check per query)
    import rankeval

    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    run = {"q1": {"a": 0.5}, "q2": empty, 7: empty, "q3": ["c"]}
    frame = rankeval.evaluate(qrels, run, ["AP", "NumRet"])
    assert frame.index.tolist() == ["q1", "q2", "q3"]  # 7 is no query of these qrels
    assert frame["AP"].tolist() == [1.0, 0.0, 1.0]
    assert frame["NumRet"].tolist() == [1, 0, 1]
