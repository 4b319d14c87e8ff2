"""Bad input to ``Evaluator.update`` gets the TypeError or ValueError its docstring
promises, naming the argument, in both forms (issue 52, item 10): no Arrow, NumPy or
other exception (``pyarrow.lib.ArrowInvalid`` is a ValueError subclass, so the tests
check the exact class), and a refused batch leaves the state as it was.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankeval import Evaluator

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"x": 2}}
NAMES = ("query_ids", "doc_ids", "scores", "labels")


def refused(call, *names):
    """Run ``call``; it must raise exactly TypeError or ValueError, whose message
    names one of ``names``; return the exception."""
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    assert type(info.value) in (TypeError, ValueError), repr(info.value)
    assert any(n in str(info.value) for n in names), str(info.value)
    return info.value


def test_the_issue_s_call_is_a_type_error_naming_query_ids():
    # a string where a sequence of ids goes: len("q1") == 2 hid it, and Arrow said
    # "only handle 1-dimensional arrays" (ArrowInvalid)
    ev = Evaluator(QRELS, ["P@1"])
    error = refused(lambda: ev.update("q1", ["a", "b"], [1, 2]), "query_ids")
    assert type(error) is TypeError and "sequence of ids" in str(error)
    assert ev.rows == 0
    ev = Evaluator.from_labels(["P@1"])
    error = refused(lambda: ev.update("q1", labels=[1, 0], scores=[1, 2]), "query_ids")
    assert type(error) is TypeError


@pytest.mark.parametrize(
    ("query_ids", "doc_ids", "scores", "error", "message"),
    [
        (["q1", "q1"], ["a", 1], [1, 2], TypeError, r"doc_ids\[1\]: ids must be all strings"),
        (["q1", 2], ["a", "b"], [1, 2], TypeError, r"query_ids\[1\]: ids must be all strings"),
        ([1, "q1"], ["a", "b"], [1, 2], TypeError, r"query_ids\[1\]: .*the first is int"),
        (["q1", "q1"], ["a", "b"], ["x", 2], TypeError, "scores must hold numbers"),
        (["q1", "q1"], ["a", "b"], [1.0, None], TypeError, r"scores\[1\] is NoneType"),
        (["q1", "q1"], ["a", "b"], [True, False], TypeError, "scores must hold numbers"),
        (["q1", "q1"], ["a", "b"], [1], ValueError, "one length, got 2, 2, 1"),
        (["q1", "q1"], ["a"], [1, 2], ValueError, "one length, got 2, 1, 2"),
        (["q1", "q1"], ["a", "b"], [math.nan, 2], ValueError, r"scores\[0\] is nan"),
        (["q1"], ["a"], [math.inf], ValueError, r"scores\[0\] is inf"),
        (["q1"], ["a"], [[1.0]], ValueError, "scores must be 1-D"),
        (["q1"], ["a"], [[1.0], [2.0, 3.0]], ValueError, "scores must be a 1-D array"),
        (["q1"], ["a"], 1.0, TypeError, "scores must be a 1-D array of numbers"),
        (["q1"], ["a"], {"a": 1.0}, TypeError, "scores must be a 1-D array"),
        (["q1"], ["a"], [10**400], ValueError, "scores must be numbers that fit a double"),
        (["q1"], ["a"], pa.array(["1"]), TypeError, "scores must hold numbers"),
        (["q1"], ["a"], pa.array([None], pa.float64()), ValueError, r"scores\[0\] is missing"),
        (["q1"], [None], [1.0], ValueError, r"doc_ids\[0\] is missing"),
        (["q1"], [1.5], [1.0], TypeError, r"doc_ids\[0\]: ids must be strings or integers"),
        (["q1"], [b"a"], [1.0], TypeError, r"doc_ids\[0\]: .*bytes"),
        (["q1"], [2**70], [1.0], ValueError, r"doc_ids\[0\]: integer id .* \(int64\)"),
        (["q1"], ["\ud800"], [1.0], ValueError, r"doc_ids\[0\]: .*UTF-8"),
        (["q1"], "a", [1.0], TypeError, "doc_ids must be a sequence of ids"),
        (5, ["a"], [1.0], TypeError, "query_ids must be a sequence of ids"),
        ({"q1"}, ["a"], [1.0], TypeError, "query_ids must be a sequence of ids"),
        (np.array([["q1"]]), ["a"], [1.0], ValueError, r"query_ids must be 1-D"),
        (np.array([1.0]), ["a"], [1.0], TypeError, "query_ids must hold strings or integers"),
        (np.array([2**63], dtype=np.uint64), ["a"], [1.0], ValueError,
         r"query_ids\[0\]: integer id"),
        (["q1"], pa.array([1.5]), [1.0], TypeError, "doc_id"),
    ],
)
def test_each_bad_batch_gets_the_promised_error(query_ids, doc_ids, scores, error, message):
    ev = Evaluator(QRELS, ["P@1"])
    got = refused(lambda: ev.update(query_ids, doc_ids, scores), *NAMES, "doc_id")
    assert type(got) is error
    assert re.search(message, str(got)), str(got)
    assert ev.rows == 0


def test_ids_of_another_type_than_the_earlier_batches():
    ev = Evaluator(QRELS, ["P@1"])
    ev.update(["q1"], ["a"], [1.0])
    refused(lambda: ev.update([1], ["a"], [1.0]), "query_ids")
    refused(lambda: ev.update(["q1"], np.array([3]), [1.0]), "doc_ids")
    ev.update(np.array(["q2"]), np.array(["x"]), np.array([0.5], dtype=np.float32))
    assert ev.compute().loc["q2", "P@1"] == 1.0
    labels = Evaluator.from_labels(["P@1"])
    labels.update([1], labels=[1], scores=[0.5])
    refused(lambda: labels.update(["q1"], labels=[1], scores=[0.5]), "query_ids")


# --- random bad input: only TypeError and ValueError come out ---------------------------

_ELEMENTS = st.one_of(
    st.text(max_size=3),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.none(),
    st.booleans(),
    st.binary(max_size=3),
    st.sampled_from(["\ud800", "q1", "a", "x", 1, 0, 2.5, 10**400, object()]),
    st.lists(st.integers(0, 3), max_size=2),
)


def _as_array(items, dtype):
    try:
        return np.array(items, dtype=dtype)
    except (ValueError, TypeError, OverflowError):
        return np.array(items, dtype=object)


def _as_arrow(items):
    try:
        return pa.array(items)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return pa.array([ascii(x) for x in items])


_LISTS = st.lists(_ELEMENTS, max_size=4)
_ARGUMENTS = st.one_of(
    _ELEMENTS,
    _LISTS,
    _LISTS.map(tuple),
    st.tuples(_LISTS, st.sampled_from([None, object, "U", "float64", "int64", "uint64"])).map(
        lambda p: _as_array(*p)),
    _LISTS.map(_as_arrow),
    st.lists(st.lists(_ELEMENTS, max_size=2), max_size=3),  # nested, ragged
    st.dictionaries(st.text(max_size=2), _ELEMENTS, max_size=2),
    st.sets(st.text(max_size=2), max_size=2),
    st.builds(lambda: iter([1, 2])),
)
_GOOD = st.sampled_from([
    (["q1", "q1"], ["a", "b"], [0.5, 0.2]),
    (["q2"], ["x"], [1.0]),
    ([1, 1], [10, 11], [0.5, 0.2]),
])


def _check(call, named=True):
    """False if ``call`` raised TypeError or ValueError (exactly; naming an argument when
    ``named``), True if it returned; any other exception fails the test."""
    try:
        call()
    except (TypeError, ValueError) as error:
        assert type(error) in (TypeError, ValueError), repr(error)
        if named:
            assert any(n in str(error) for n in (*NAMES, "query_id", "doc_id", "score")), error
        return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=st.one_of(st.none(), _GOOD), query_ids=_ARGUMENTS, doc_ids=_ARGUMENTS,
       scores=_ARGUMENTS, keep_good=st.sampled_from([None, 0, 1, 2]))
def test_random_bad_input_to_update_raises_only_type_or_value_errors(
    first, query_ids, doc_ids, scores, keep_good
):
    args = [query_ids, doc_ids, scores]
    if keep_good is not None and first is not None:  # one bad argument among good ones
        args = list(first)
        args[keep_good] = [query_ids, doc_ids, scores][keep_good]
    ev = Evaluator(QRELS, ["P@1", "nDCG@2"])
    if first is not None:
        ev.update(*first)
    rows = ev.rows
    if not _check(lambda: ev.update(*args)):
        assert ev.rows == rows  # nothing of a refused batch is kept
    if ev.rows:
        _check(ev.compute, named=False)  # (a document twice, no query in common)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=st.one_of(st.none(), _GOOD), query_ids=_ARGUMENTS, labels=_ARGUMENTS,
       scores=_ARGUMENTS, gain=st.booleans())
def test_random_bad_input_to_the_labels_form_raises_only_type_or_value_errors(
    first, query_ids, labels, scores, gain
):
    options = {"conventions": "lightgbm", "gain": (0, 1, 3)} if gain else {}
    ev = Evaluator.from_labels(["P@1", "nDCG@2"], **options)
    if first is not None:
        ev.update(first[0], labels=[1] * len(first[0]), scores=first[2])
    rows = ev.rows
    if not _check(lambda: ev.update(query_ids, labels=labels, scores=scores)):
        assert ev.rows == rows
    if ev.rows:
        _check(ev.compute, named=False)
    # the other form's arguments are refused by name too
    _check(lambda: ev.update(query_ids, labels, scores))
