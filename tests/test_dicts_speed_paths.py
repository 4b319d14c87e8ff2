"""The dict input path's type tests, once per distinct type, against the per-query tests
they replaced (issue 51, item 2).

:func:`rankeval.io.canonical.looks_swapped` (are a qrels dict and a run dict given
the wrong way round?) and :func:`rankeval.io.canonical.run_form` (does a run dict
give positions or scores?) used to call ``isinstance(v, Mapping)`` on every query's
value, an abstract-class test costing about as much per query as converting its
documents when queries hold ten documents. They now test the distinct types of the
values once. The old functions are kept below, unchanged, as the oracle: on random
dicts whose values are dicts, other mappings (``OrderedDict``, ``MappingProxyType``,
a ``Mapping`` subclass, ``UserDict``), lists, tuples, sets, NumPy arrays, numbers or
None, with string or integer ids, empty queries and duplicate documents in lists,
both give the same answer; and ``evaluate`` gives the same frame or the same error.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

import math
import types
from collections import OrderedDict, UserDict
from collections.abc import Mapping

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval
from rankeval.io.canonical import looks_swapped, run_form

# --- the implementations before issue 51 (the oracle; do not edit) ------------------------


def _old_run_form_of_mapping(source) -> str:
    values = source.values()
    lists = len(source) > 0 and not any(isinstance(v, Mapping) for v in values)
    return "positions" if lists else "scores"


def _old_looks_swapped(qrels, run):
    def dicts(source):
        return isinstance(source, Mapping) and len(source) > 0 and all(
            isinstance(v, Mapping) for v in source.values())

    if not (dicts(qrels) and dicts(run)):
        return None

    def whole(value):
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


# --- random dicts -----------------------------------------------------------------------


class _Plain(Mapping):
    """A mapping that is no dict (registered through the abstract class)."""

    def __init__(self, data):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


_WRAPPERS = {
    "dict": dict,
    "OrderedDict": OrderedDict,
    "proxy": types.MappingProxyType,
    "Mapping": _Plain,
    "UserDict": UserDict,
}
_ids = st.one_of(st.text("abc", min_size=1, max_size=2), st.integers(0, 5))
_numbers = st.one_of(st.integers(0, 3), st.sampled_from([0.5, 1.0, 2.25, 11.061, 3.0]))


@st.composite
def _query_value(draw):
    kind = draw(st.sampled_from([*_WRAPPERS, "list", "tuple", "set", "array", "number",
                                 "None"]))
    docs = draw(st.lists(_ids, max_size=4))  # may repeat a document, may be empty
    if kind in _WRAPPERS:
        return _WRAPPERS[kind]({d: draw(_numbers) for d in docs})
    if kind == "list":
        return docs
    if kind == "tuple":
        return tuple(docs)
    if kind == "set":
        return set(docs)
    if kind == "array":
        return np.array([d for d in docs if isinstance(d, int)], dtype=np.int64)
    return None if kind == "None" else draw(_numbers)


_sources = st.dictionaries(_ids, _query_value(), max_size=5)
_dicts_only = st.dictionaries(
    _ids, st.builds(lambda w, d: _WRAPPERS[w](d), st.sampled_from(list(_WRAPPERS)),
                    st.dictionaries(_ids, _numbers, max_size=4)), max_size=5)


@settings(max_examples=300, deadline=None)
@given(source=_sources)
def test_run_form_as_before(source):
    assert run_form(source) == _old_run_form_of_mapping(source)


@settings(max_examples=300, deadline=None)
@given(qrels=st.one_of(_sources, _dicts_only), run=st.one_of(_sources, _dicts_only))
def test_looks_swapped_as_before(qrels, run):
    assert looks_swapped(qrels, run) == _old_looks_swapped(qrels, run)


@pytest.mark.parametrize("wrapper", list(_WRAPPERS))
def test_every_kind_of_mapping_is_a_dict_of_scores(wrapper):
    run = {"q1": _WRAPPERS[wrapper]({"d1": 1.0}), "q2": ["d3", "d4"]}
    assert run_form(run) == "scores"
    assert run_form({"q1": ["d3"], "q2": ("d4",)}) == "positions"
    assert run_form({}) == "scores"
    # one query of another mapping type among dicts still counts as dicts
    qrels = {"q1": {"d1": 11.061}, "q2": _WRAPPERS[wrapper]({"d2": 1})}
    assert looks_swapped(qrels, {"q1": {"d1": 1}}) == ("q1", "d1", 11.061)
    # a list among the run's queries: not dicts of numbers, no guess
    assert looks_swapped(qrels, {"q1": {"d1": 1}, "q2": ["d2"]}) is None


def _outcome(qrels, run):
    try:
        frame = rankeval.evaluate(qrels, run, ["AP", "nDCG@10", "P@2"])
    except (TypeError, ValueError) as error:
        return type(error), str(error)
    return frame.to_dict()


@pytest.mark.parametrize("qrels, run", [
    # swapped arguments: the error names the first fractional grade
    ({"q1": {"d1": 0.9, "d2": 0.2}}, {"q1": {"d1": 1, "d2": 0}}),
    # a list run among dicts (mixed forms), int ids, an empty query
    ({1: {10: 1, 11: 0}, 2: {20: 2}}, {1: {10: 0.5, 11: 0.7}, 2: [20, 21], 3: {}}),
    # a duplicate document in a list
    ({"q1": {"a": 1}}, {"q1": ["a", "b", "a"]}),
    # mixed id types: refused with the same message
    ({"q1": {"a": 1}}, {"q1": {"a": 0.5, 3: 0.2}}),
    # mappings of other kinds
    ({"q1": types.MappingProxyType({"a": 1})}, {"q1": OrderedDict(a=0.3, b=0.9)}),
])
def test_evaluate_gives_what_it_gave(qrels, run, monkeypatch):
    new = _outcome(qrels, run)
    import rankeval.evaluation.conventions as conventions
    import rankeval.evaluation.runs as runs

    def old_run_form(source, columns=None):
        if isinstance(source, Mapping):
            return _old_run_form_of_mapping(source)
        return run_form(source, columns)

    monkeypatch.setattr(runs, "looks_swapped", _old_looks_swapped)
    monkeypatch.setattr(conventions, "run_form", old_run_form)
    assert _outcome(qrels, run) == new


class _Counted(_Plain):
    """A mapping that counts how often an ``isinstance`` test reads its class."""

    reads = 0

    @property
    def __class__(self):
        type(self).reads += 1
        return type(self)


def test_one_type_test_per_distinct_type_not_per_query():
    run = {f"q{i}": _Counted({"d1": 0.5 + i}) for i in range(1000)}
    qrels = {f"q{i}": _Counted({"d1": 1}) for i in range(1000)}
    _Counted.reads = 0
    assert run_form(run) == "scores"
    assert looks_swapped(qrels, run) is None
    assert _Counted.reads == 0  # isinstance(v, Mapping) per query read it 2,000+ times
    assert _old_run_form_of_mapping(run) == "scores"
    assert _old_looks_swapped(qrels, run) is None
    assert _Counted.reads >= 2000  # (the old tests, to show the count can fail)
