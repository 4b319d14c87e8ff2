"""Two plain dicts ranked without tables (:mod:`rankeval.ranking.from_dicts`, issue 51)
against the general path (Arrow tables, hash join), field by field, to the last bit.

The inputs carry the id forms users have: ids of mixed lengths, unicode, integers
written as strings (``"9"``, ``"10"``, ``"100"``: ties ordered as text), integer ids,
tied scores, negative and fractional grades, unjudged documents, queries only in the
run or only in the qrels, and empty rankings; under every option of
:func:`rankeval.rank_run`. Inputs the fast path leaves to the general path (mixed id
types, a NaN, a value that is no number) raise the general path's error. pytrec_eval
is the oracle of the values themselves.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankeval
import rankeval.ranking.pipeline as pipeline
from rankeval.ranking import rank_run
from rankeval.ranking.from_dicts import rank_dicts

FIELDS = ("query_ids", "grades", "offsets", "scores", "judged", "judged_offsets", "in_run",
          "tie_groups")  # fmt: skip
OPTIONS = dict(threshold=1.0, ties="trec_eval", judged_only=False, missing="skip",
               ideal="judged", score_precision="double", grades="float", max_docs=None)


def general(qrels, run, **options):
    """rank_run without the dict path."""
    real = pipeline.rank_dicts
    pipeline.rank_dicts = lambda *a, **k: None
    try:
        return rank_run(qrels, run, **options)
    finally:
        pipeline.rank_dicts = real


def assert_same(a, b):
    assert type(a) is type(b)
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:
            assert x is None and y is None, name
            continue
        assert x.dtype == y.dtype, name
        assert x.shape == y.shape, name
        if x.dtype.kind == "f":  # bit for bit, NaN where NaN
            assert np.array_equal(x.view(np.int64), y.view(np.int64)), name
        else:
            assert np.array_equal(x, y), name
    assert a.threshold == b.threshold and a.ideal == b.ideal


# --- ids of every form ----------------------------------------------------------------------

TEXT_IDS = st.one_of(
    st.integers(0, 120).map(str),  # "9", "10", "100": text order differs from numbers
    st.text("abcxyzé日🙂_-", min_size=1, max_size=6),  # mixed lengths, unicode
    st.sampled_from(["d", "D", "d1", "d01", "d10", "d9", "doc-ü", "Ω", " a", "a "]),
)
INT_IDS = st.integers(-(2**63), 2**63 - 1) | st.integers(-5, 120)
SCORES = st.sampled_from([0.0, -0.0, 1.0, 1.5, 2.0, -3.25, 1e-300, 7.0]) | st.floats(
    -1e6, 1e6, allow_nan=False, allow_infinity=False)
GRADES = st.sampled_from([0, 1, 2, 3, -1, -2]) | st.sampled_from([0.5, 1.5, 2.25, -0.5])


@st.composite
def dict_pairs(draw, ids=TEXT_IDS):
    queries = draw(st.lists(ids, min_size=1, max_size=6, unique=True))
    docs = draw(st.lists(ids, min_size=1, max_size=14, unique=True))
    run, qrels = {}, {}
    for q in queries:
        where = draw(st.sampled_from(["both", "both", "both", "run", "qrels"]))
        if where in ("both", "run"):
            chosen = draw(st.lists(st.sampled_from(docs), max_size=len(docs), unique=True))
            run[q] = {d: draw(SCORES) for d in chosen}  # {} now and then: an empty ranking
        if where in ("both", "qrels"):
            judged = draw(st.lists(st.sampled_from(docs), max_size=len(docs), unique=True))
            qrels[q] = {d: draw(GRADES) for d in judged}
    if not any(run.values()):
        run[queries[0]] = {docs[0]: 1.0}
    if not any(qrels.values()):
        qrels[queries[0]] = {docs[0]: 1}
    return qrels, run


OPTION_SETS = st.fixed_dictionaries({
    "ties": st.sampled_from(["trec_eval", "input", "average"]),
    "missing": st.sampled_from(["skip", "zero"]),
    "judged_only": st.booleans(),
    "ideal": st.sampled_from(["judged", "retrieved"]),
    "score_precision": st.sampled_from(["double", "float"]),
    "grades": st.sampled_from(["float", "trec_eval"]),
    "max_docs": st.none() | st.integers(1, 5),
    "threshold": st.sampled_from([1, 2, 0.5]),
})  # fmt: skip


def outcome(call):
    try:
        return call(), None
    except (TypeError, ValueError) as error:
        return None, (type(error), str(error))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=dict_pairs(), options=OPTION_SETS)
def test_text_ids_same_as_the_general_path(pair, options):
    qrels, run = pair
    fast, fast_error = outcome(lambda: rank_run(qrels, run, **options))
    slow, slow_error = outcome(lambda: general(qrels, run, **options))
    assert fast_error == slow_error
    if fast is not None:
        assert_same(fast, slow)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=dict_pairs(ids=INT_IDS), options=OPTION_SETS)
def test_integer_ids_same_as_the_general_path(pair, options):
    qrels, run = pair
    fast, fast_error = outcome(lambda: rank_run(qrels, run, **options))
    slow, slow_error = outcome(lambda: general(qrels, run, **options))
    assert fast_error == slow_error
    if fast is not None:
        assert_same(fast, slow)


def test_the_fast_path_is_taken_for_plain_dicts():
    qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"x": 1}, "q3": {}}
    run = {"q1": {"d1": 0.5, "d3": 0.5, "d2": 0.9}, "q2": {}, "q4": {"y": 1.0}}
    ranked = rank_dicts(qrels, run, **dict(OPTIONS, missing="zero"))
    assert ranked is not None
    assert_same(ranked, general(qrels, run, **dict(OPTIONS, missing="zero")))
    # q1: d2 (0.9), then the tie at 0.5 by id descending: d3 (unjudged), d1
    assert ranked.query_ids.tolist() == ["q1", "q2"]
    first = ranked.grades[ranked.offsets[0] : ranked.offsets[1]]
    assert first[0] == 0 and math.isnan(first[1]) and first[2] == 2
    assert ranked.offsets[2] == ranked.offsets[1]  # q2: no document
    assert ranked.in_run.tolist() == [True, True]  # q2: an empty ranking, in the run


@pytest.mark.parametrize("run", [
    {"q1": {"10": 1.0, "9": 1.0, "100": 1.0, "8": 2.0}},
    {"q1": {10: 1.0, 9: 1.0, 100: 1.0, 8: 2.0}},
])  # fmt: skip
def test_ties_by_id_as_text(run):
    doc = next(iter(run["q1"]))
    qrels = {"q1": {type(doc)(x): g for x, g in (("8", 0), ("9", 1), ("10", 2), ("100", 3))}}
    ranked = rank_dicts(qrels, run, **OPTIONS)
    assert ranked is not None
    # 8 (score 2), then "9" > "100" > "10" as text
    assert ranked.grades.tolist() == [0.0, 1.0, 3.0, 2.0]
    assert_same(ranked, general(qrels, run, **OPTIONS))


@pytest.mark.parametrize(("qrels", "run"), [
    ({"q1": {"d1": 1}}, {"q1": {1: 0.5}}),  # document ids of two types
    ({"q1": {"d1": 1}}, {1: {"d1": 0.5}}),  # query ids of two types
    ({"q1": {"d1": 1, 2: 1}}, {"q1": {"d1": 0.5}}),  # mixed in the qrels only
    ({"q1": {"d1": 1}}, {"q1": {"d1": 0.5, 7: 0.2}}),  # mixed in the run only
    ({"q1": {"d1": float("nan")}}, {"q1": {"d1": 0.5}}),
    ({"q1": {"d1": 1}}, {"q1": {"d1": float("inf")}}),
    ({"q1": {"d1": "1"}}, {"q1": {"d1": 0.5}}),
    ({"q1": {"d1": 1}}, {"q1": {"d1": None}}),
    ({"q1": {"d\ud800": 1}}, {"q1": {"d1": 0.5}}),  # no UTF-8
    ({"q1": {"d1": 1}}, {"q1": {2**63: 0.5}}),  # beyond int64
    ({"q1": {"d1": 1}}, {"q2": {"d1": 0.5}}),  # no query in common
])  # fmt: skip
def test_refused_inputs_raise_the_general_paths_error(qrels, run):
    assert rank_dicts(qrels, run, **OPTIONS) is None
    with pytest.raises((TypeError, ValueError)) as fast:
        rank_run(qrels, run)
    with pytest.raises((TypeError, ValueError)) as slow:
        general(qrels, run)
    assert (fast.type, str(fast.value)) == (slow.type, str(slow.value))


@pytest.mark.parametrize(("qrels", "run"), [
    ({"q1": {"d1": True, "d2": 0}}, {"q1": {"d1": 0.5, "d2": 0.1}}),  # bool grades
    ({"q1": {"d1": np.int64(2)}}, {"q1": {"d1": np.float32(0.5)}}),  # NumPy numbers
    ({"q1": {"d1": 2**60 + 1}}, {"q1": {"d1": 2**60 + 3}}),  # beyond 2**53
])  # fmt: skip
def test_unusual_numbers_same_as_the_general_path(qrels, run):
    assert_same(rank_run(qrels, run), general(qrels, run))


def test_a_run_much_longer_than_the_qrels_takes_the_general_path():
    qrels = {"q1": {"d0": 1}}
    run = {"q1": {f"d{i}": float(i % 3) for i in range(50)}}
    assert rank_dicts(qrels, run, **OPTIONS) is None
    assert_same(rank_run(qrels, run), general(qrels, run))


def test_other_mappings_and_options_take_the_general_path():
    from collections import OrderedDict

    qrels, run = {"q1": {"d1": 1}}, {"q1": {"d1": 0.5}}
    assert rank_dicts(OrderedDict(qrels), run, **OPTIONS) is None
    assert rank_dicts(qrels, {"q1": ["d1"]}, **OPTIONS) is None  # a list run
    assert rank_dicts(qrels, run, **OPTIONS, columns={"query_id": "q"}) is None
    assert rank_dicts(qrels, run, **OPTIONS, encoding="latin-1") is None


def test_values_against_pytrec_eval():
    # (fixed inputs: pytrec_eval hangs or crashes on some random ones)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"q1": {"9": 2, "10": 0, "100": 1, "d\u00e9": 3, "x": -1},
             "q\u65e5": {"a": 1, "b": 2}, "q3": {"z": 1}, "q10": {"a": 1}}
    run = {"q1": {"9": 1.0, "10": 1.0, "100": 1.0, "d\u00e9": 0.5, "u": 2.0, "x": 0.5},
           "q\u65e5": {"b": 0.25, "a": 0.75, "c": 0.75}, "q10": {"n": 3.0, "a": 1.0},
           "q4": {"a": 1.0}}  # fmt: skip
    assert rank_dicts(qrels, run, **OPTIONS) is not None
    names = {"map": "AP", "ndcg": "nDCG", "P_5": "P@5", "recip_rank": "RR"}
    ours = rankeval.evaluate(qrels, run, list(names.values()), missing="skip")
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
    assert sorted(ours.index) == sorted(theirs)
    for q in ours.index:
        for key, name in names.items():
            assert ours.loc[q, name] == pytest.approx(theirs[q][key], abs=1e-12)


# --- ideal lists: the counting sort (few distinct grades) against a by-hand oracle ---------


@settings(max_examples=120, deadline=None)
@given(grades=st.lists(st.lists(st.sampled_from([0, 1, 2, 3, -1]) | st.integers(0, 40)
                                | st.sampled_from([0.5, 2.5, 300.0]), max_size=12),
                       min_size=1, max_size=8),
       k=st.none() | st.integers(1, 6),
       exponential=st.booleans())  # fmt: skip
def test_ideal_grades_sorted_per_query(grades, k, exponential):
    qrels = {f"q{i}": {f"d{j}": g for j, g in enumerate(row)} for i, row in enumerate(grades)}
    qrels = {q: docs for q, docs in qrels.items() if docs}
    if not qrels:
        return
    run = {q: {"d0": 1.0} for q in qrels}
    ranked = rank_run(qrels, run)
    gain = (lambda g: np.exp2(g) - 1) if exponential else None
    got = ranked.ideal_grades(k, gain=gain)
    for row, q in zip(got, ranked.query_ids, strict=True):
        values = [float(g) for g in qrels[q].values() if g >= 0]
        values = [2.0**v - 1 if exponential else v for v in values]
        best = sorted((v for v in values if v > 0), reverse=True)[: k or None]
        assert row[: len(best)].tolist() == best
        assert not row[len(best):].any()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=dict_pairs(), batch=st.integers(1, 7))
def test_batches_of_any_size_same_as_the_general_path(pair, batch):
    import rankeval.ranking.from_dicts as from_dicts

    qrels, run = pair
    options = dict(OPTIONS, missing="zero")
    saved = from_dicts._BATCH, from_dicts._RUN_PER_JUDGMENT
    from_dicts._BATCH, from_dicts._RUN_PER_JUDGMENT = batch, 10**9
    try:
        fast = rank_dicts(qrels, run, **options)
    finally:
        from_dicts._BATCH, from_dicts._RUN_PER_JUDGMENT = saved
    assert fast is not None
    assert_same(fast, general(qrels, run, **options))
