"""Canonical tables from every kind of input: dicts, frames, Arrow, files.

Expectations are written by hand (arithmetic of positions and scores); the
duplicate finder is checked against a plain-Python oracle; a property test
shows that the same data as a file, a dict, a pandas DataFrame and an Arrow
table gives the same canonical table.
"""

import io
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval.io.tables as tables
from rankeval import write_qrels, write_run
from rankeval.io import qrels_table, run_table
from rankeval.io.tables import first_duplicate

STRING_SCHEMA = {
    "qrels": pa.schema([("query_id", pa.string()), ("doc_id", pa.string()),
                        ("relevance", pa.float64())]),
    "run": pa.schema([("query_id", pa.string()), ("doc_id", pa.string()),
                      ("score", pa.float64())]),
}


# --- dicts --------------------------------------------------------------------------------


def test_dict_of_dicts():
    table = run_table({"q1": {"d2": 9.5, "d1": 7}, "q2": {"d1": -1}})
    assert table.schema == STRING_SCHEMA["run"]
    assert table.to_pydict() == {"query_id": ["q1", "q1", "q2"], "doc_id": ["d2", "d1", "d1"],
                                 "score": [9.5, 7.0, -1.0]}
    qrels = qrels_table({"q1": {"a": 2, "b": 0.5, "c": True}})
    assert qrels["relevance"].to_pylist() == [2.0, 0.5, 1.0]


def test_lists_and_sets():
    # a list run: position i of n gets n - i (1-based), so the order is kept
    table = run_table({"u1": ["i3", "i1", "i2"], "u2": ("i9",), "u3": []})
    assert table.to_pydict() == {"query_id": ["u1", "u1", "u1", "u2"],
                                 "doc_id": ["i3", "i1", "i2", "i9"],
                                 "score": [3.0, 2.0, 1.0, 1.0]}
    qrels = qrels_table({"u1": {"i1"}, "u2": ["i2", "i4"], "u3": set(), "u4": {"i5": 3}})
    assert qrels.to_pydict() == {"query_id": ["u1", "u2", "u2", "u4"],
                                 "doc_id": ["i1", "i2", "i4", "i5"],
                                 "relevance": [1.0, 1.0, 1.0, 3.0]}
    assert run_table({"u": np.array(["b", "a"])})["doc_id"].to_pylist() == ["b", "a"]


def test_integer_ids_stay_integers():
    table = run_table({1: {10: 0.5, 2: 0.25}, 3: [7, 8]})
    assert table.schema.field("query_id").type == pa.int64()
    assert table.schema.field("doc_id").type == pa.int64()
    assert table.to_pydict() == {"query_id": [1, 1, 3, 3], "doc_id": [10, 2, 7, 8],
                                 "score": [0.5, 0.25, 2.0, 1.0]}
    mixed = run_table({"q": {np.int64(5): 1.0, 6: 2.0}})
    assert mixed["doc_id"].to_pylist() == [5, 6]
    # string ids that look like numbers stay strings
    assert run_table({"007": {"1e5": 1.0}}).to_pydict()["doc_id"] == ["1e5"]


def test_empty_inputs():
    assert run_table({}).num_rows == 0
    assert qrels_table({"q": {}}).num_rows == 0


@pytest.mark.parametrize(
    ("data", "error", "message"),
    [
        ({"q": {"a": "1.5"}}, TypeError, r"run\['q'\]\['a'\]: score must be a number, got str"),
        ({"q": {"a": None}}, TypeError, r"run\['q'\]\['a'\]: score must be a number"),
        ({"q": {"a": float("nan")}}, ValueError, r"run\['q'\]\['a'\]: score nan is not finite"),
        ({"q": {"a": 1.0, "b": math.inf}}, ValueError, r"run\['q'\]\['b'\]: score inf is not"),
        ({"q": {"a": 1.0, 2: 1.0}}, TypeError, r"run\['q'\], document 2: ids must be all "
                                               r"strings or all integers.*got int 2"),
        ({"q": {1: 1.0, 2.5: 1.0}}, TypeError, r"document 2: .*got float 2.5"),
        ({"q": {True: 1.0}}, TypeError, r"ids must be strings or integers; got bool"),
        ({"q": {1.0: 1.0}}, TypeError, r"ids must be strings or integers; got float"),
        ({1: {"a": 1.0}, "1": {"b": 1.0}}, TypeError, r"run query id '1'.*all .*integers"),
        ({"q": {2**70: 1.0}}, ValueError,
         r"run\['q'\], document 1: integer id 1180591620717411303424 does not fit in a "
         r"signed 64-bit integer \(int64\)"),
        ({"q": {np.uint64(2**63): 1.0}}, ValueError,
         r"document 1: integer id 9223372036854775808 does not fit in a signed 64-bit"),
        ({"q": "abc"}, TypeError, r"run\['q'\] must be a dict \{doc_id: score\} or a list"),
        ({"q": {"a", "b"}}, TypeError, r"run\['q'\] is a set, which has no order"),
        ({"q": ["a", "b", "a"]}, ValueError,
         r"run\['q'\], positions 1 and 3: document 'a' listed twice for query 'q'"),
        ({"q": {"a": 1.0, "\ud800": 2.0}}, ValueError, r"cannot be encoded as UTF-8"),
        # a bare OverflowError from float() before (found by an adversarial review)
        ({"q": {"a": 1.0, "b": 10**400}}, ValueError,
         r"run\['q'\]\['b'\]: score 1000000000000000000000000000000000000\.\.\. is too "
         r"large for a double"),
    ],
)
def test_dict_errors(data, error, message):
    with pytest.raises(error, match=message):
        run_table(data)


def test_qrels_dict_errors():
    with pytest.raises(ValueError, match=r"qrels\['q'\], positions 2 and 3: document 'b' "
                                         r"judged twice"):
        qrels_table({"q": ["a", "b", "b"]})
    with pytest.raises(TypeError, match=r"grade must be a number, got Decimal"):
        import decimal

        qrels_table({"q": {"a": decimal.Decimal("1")}})
    with pytest.raises(TypeError, match="must be the path of a TREC qrels file"):
        qrels_table(42)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["q1", "q2", "q3", "q10", "é"]),
        st.one_of(
            st.dictionaries(st.text(min_size=1, max_size=5), st.integers(-3, 3), max_size=7),
            st.dictionaries(st.integers(0, 50), st.floats(-1, 1), max_size=7),
        ),
        max_size=5,
    ),
    st.sampled_from([1, 2, 3, 5, 1 << 16]),
)
def test_dicts_converted_in_batches_give_the_same_table(data, batch):
    # dict keys and values go to Arrow a batch of whole queries at a time
    # (_CONVERT_ROWS documents); the table must not depend on where the batches end
    def table_or_error():
        try:
            return run_table(data).to_pydict()
        except TypeError as error:  # string ids in one query, integer ids in another
            return str(error)

    whole = table_or_error()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tables, "_CONVERT_ROWS", batch)
        assert table_or_error() == whole


@pytest.mark.parametrize("batch", [1, 2, 3, 1 << 16])
def test_mixed_id_kinds_across_batches_name_the_first_other(monkeypatch, batch):
    monkeypatch.setattr(tables, "_CONVERT_ROWS", batch)
    with pytest.raises(TypeError, match=r"run\['q2'\], document 2: ids must be all strings "
                                        r"or all integers \(the first is str\); got int 5"):
        run_table({"q1": {"a": 1.0, "b": 2.0}, "q2": {"c": 1.0, 5: 2.0}, "q3": {7: 1.0}})
    with pytest.raises(TypeError, match=r"run\['q2'\], document 1: ids must be all strings "
                                        r"or all integers \(the first is int\); got str 'c'"):
        run_table({"q1": {1: 1.0, 2: 2.0}, "q2": {"c": 1.0, 5: 2.0}})
    with pytest.raises(TypeError, match=r"run\['q2'\]\['c'\]: score must be a number"):
        run_table({"q1": {"a": 1.0, "b": 2.0}, "q2": {"c": "1"}})


# --- frames -----------------------------------------------------------------------------


def test_pandas_frames():
    frame = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
                          "score": [3, 2.5, 1]})
    table = run_table(frame)
    assert table.schema == STRING_SCHEMA["run"]
    assert table.to_pydict() == {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
                                 "score": [3.0, 2.5, 1.0]}
    # object columns, categoricals and pandas' own string dtype read alike
    for dtype in (object, "category", "string"):
        same = frame.astype({"query_id": dtype, "doc_id": dtype})
        assert run_table(same).equals(table), dtype


def test_frame_integer_ids_and_columns_mapping():
    frame = pd.DataFrame({"user": np.array([3, 3, 1], np.int32), "item": [10, 2, 10],
                          "pred": [0.1, 0.9, 0.5], "other": ["x", "y", "z"]})
    table = run_table(frame, columns={"query_id": "user", "doc_id": "item", "score": "pred"})
    assert table.schema.field("query_id").type == pa.int64()
    assert table.to_pydict() == {"query_id": [3, 3, 1], "doc_id": [10, 2, 10],
                                 "score": [0.1, 0.9, 0.5]}
    qrels = pd.DataFrame({"user": [1], "item": [10], "rating": [4]})
    got = qrels_table(qrels, columns={"query_id": "user", "doc_id": "item",
                                      "relevance": "rating"})
    assert got.to_pydict() == {"query_id": [1], "doc_id": [10], "relevance": [4.0]}


def test_rank_column_gives_negative_scores():
    frame = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "rank": [2, 1, 3]})
    assert run_table(frame)["score"].to_pylist() == [-2.0, -1.0, -3.0]
    frame = frame.rename(columns={"rank": "position"})
    assert run_table(frame, columns={"rank": "position"})["score"].to_pylist() == [-2.0, -1.0,
                                                                                   -3.0]


def test_arrow_tables_and_batches():
    table = pa.table({"query_id": pa.array(["q", "q"], pa.large_string()),
                      "doc_id": pa.array(["a", "b"]).dictionary_encode(),
                      "relevance": pa.array([1, 0], pa.int8())})
    got = qrels_table(table)
    assert got.schema == STRING_SCHEMA["qrels"]
    assert got.to_pydict() == {"query_id": ["q", "q"], "doc_id": ["a", "b"],
                               "relevance": [1.0, 0.0]}
    assert qrels_table(table.to_batches()[0]).equals(got)
    uint = pa.table({"query_id": pa.array([1], pa.uint64()), "doc_id": pa.array([2], pa.uint8()),
                     "score": [1.0]})
    assert run_table(uint).schema.field("doc_id").type == pa.int64()


def test_polars_like_frames_go_through_arrow():
    # polars is optional: any frame of a "polars" module is read through .to_arrow()
    class DataFrame:
        __module__ = "polars.dataframe.frame"

        def to_arrow(self):
            return pa.table({"query_id": pa.array(["q"], pa.large_string()), "doc_id": [1],
                             "score": [0.5]})

    assert run_table(DataFrame()).to_pydict() == {"query_id": ["q"], "doc_id": [1],
                                                  "score": [0.5]}
    with pytest.raises(ValueError, match=r"qrels polars DataFrame needs the columns .*relevance"):
        qrels_table(DataFrame())


def test_polars_frames():
    import polars as pl  # pinned in requirements-test.txt: missing is a failure, not a skip
    frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    assert run_table(frame).to_pydict() == {"query_id": ["q1", "q1"], "doc_id": ["a", "b"],
                                            "score": [2.0, 1.0]}


@pytest.mark.parametrize(
    ("frame", "error", "message"),
    [
        (pd.DataFrame({"query_id": ["q"], "doc_id": ["a"]}), ValueError,
         r"run DataFrame needs the columns query_id, doc_id, score .*missing \['score'\]"),
        (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1, 2]},
                      index=[10, 20]), ValueError,
         r"run DataFrame, rows 10 and 20: document 'a' listed twice for query 'q'"),
        (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1, np.nan]},
                      index=["x", "y"]), ValueError, r"run DataFrame, row 'y': score is missing"),
        (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": ["1", "2"]}),
         TypeError, r"column 'score' must be numeric"),
        (pd.DataFrame({"query_id": [1.0, 2.0], "doc_id": ["a", "b"], "score": [1, 2]}),
         TypeError, r"column 'query_id' must hold strings or integers, got double \(missing"),
        (pd.DataFrame({"query_id": ["q", 1], "doc_id": ["a", "b"], "score": [1, 2]}),
         TypeError, r"run DataFrame, row 1: column 'query_id' mixes str and int"),
        (pd.DataFrame({"query_id": ["q", None], "doc_id": ["a", "b"], "score": [1, 2]}),
         ValueError, r"run DataFrame, row 1: query_id is missing"),
        (pd.DataFrame({"query_id": [True], "doc_id": ["a"], "score": [1]}),
         TypeError, r"column 'query_id' must hold strings or integers, got bool"),
    ],
)
def test_frame_errors(frame, error, message):
    with pytest.raises(error, match=message):
        run_table(frame)


def test_columns_mapping_errors():
    frame = pd.DataFrame({"user": ["q"], "item": ["a"], "pred": [1.0]})
    with pytest.raises(ValueError, match=r"unknown canonical name\(s\) \['qid'\]"):
        run_table(frame, columns={"qid": "user"})
    with pytest.raises(ValueError, match=r"columns maps to \['usr'\], which the frame does not"):
        run_table(frame, columns={"query_id": "usr"})
    with pytest.raises(ValueError, match="map your names with columns="):
        run_table(frame)


def test_arrow_errors():
    with pytest.raises(ValueError, match=r"run table, row 1: score nan is not finite"):
        run_table(pa.table({"query_id": ["q", "q"], "doc_id": ["a", "b"],
                            "score": [1.0, float("nan")]}))
    with pytest.raises(ValueError, match=r"qrels table, rows 0 and 2: document 'a' judged"):
        qrels_table(pa.table({"query_id": ["q", "r", "q"], "doc_id": ["a", "a", "a"],
                              "relevance": [1, 1, 1]}))


def test_unsigned_64_bit_ids_beyond_int64_are_refused_by_row():
    # uint64 ids from 2**63 have no int64 value: a clean error naming the row
    big = np.array([5, 2**64 - 1], dtype=np.uint64)
    frame = pd.DataFrame({"query_id": [1, 1], "doc_id": big, "score": [1.0, 2.0]},
                         index=["x", "y"])
    with pytest.raises(ValueError, match=r"run DataFrame, row 'y': doc_id 18446744073709551615 "
                                         r"does not fit in a signed 64-bit integer \(int64\)"):
        run_table(frame)
    frame = pd.DataFrame({"query_id": np.array([2**63, 1], dtype=np.uint64), "doc_id": [1, 2],
                          "relevance": [1, 0]})
    with pytest.raises(ValueError, match=r"qrels DataFrame, row 0: query_id 9223372036854775808 "
                                         r"does not fit in a signed 64-bit integer"):
        qrels_table(frame)
    table = pa.table({"query_id": pa.array([1, 1, 1], pa.uint64()),
                      "doc_id": pa.array([1, 2, 2**63 + 7], pa.uint64()), "score": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match=r"run table, row 2: doc_id 9223372036854775815 does not "
                                         r"fit in a signed 64-bit integer"):
        run_table(table)
    with pytest.raises(ValueError, match=r"qrels table, row 1: query_id 9223372036854775808"):
        qrels_table(pa.table({"query_id": pa.array([3, 2**63], pa.uint64()), "doc_id": [1, 2],
                              "relevance": [1, 1]}))


def test_unsigned_64_bit_ids_within_int64_are_read():
    top = 2**63 - 1  # the largest uint64 with an int64 value
    frame = pd.DataFrame({"query_id": np.array([top, top], dtype=np.uint64),
                          "doc_id": np.array([top, 5], dtype=np.uint64), "score": [1.0, 2.0]})
    table = run_table(frame)
    assert table.schema.field("query_id").type == pa.int64()
    assert table.schema.field("doc_id").type == pa.int64()
    assert table.to_pydict() == {"query_id": [top, top], "doc_id": [top, 5], "score": [1.0, 2.0]}
    arrow = pa.Table.from_pandas(frame, preserve_index=False)
    assert arrow.schema.field("doc_id").type == pa.uint64()
    assert run_table(arrow).equals(table)
    qrels = pd.DataFrame({"query_id": np.array([top], dtype=np.uint64),
                          "doc_id": np.array([5], dtype=np.uint64), "relevance": [1]})
    assert qrels_table(qrels).to_pydict() == {"query_id": [top], "doc_id": [5],
                                              "relevance": [1.0]}


@pytest.mark.parametrize("kind", ["pandas", "arrow"])
def test_integers_past_2_to_the_53_read_as_the_nearest_double(kind):
    # found by an adversarial review: Arrow's safe cast refused them with a bare
    # ArrowInvalid, while the same numbers in a dict were read as float() reads them
    # (nanosecond times as scores, 64-bit grades); int64 and uint64 columns
    values = {
        "score": pd.array([2**53 + 1, 1_700_000_000_123_456_789], dtype="int64"),
        "big": pd.array([2**64 - 1, 2**63 + 1], dtype="uint64"),
    }
    for column in values.values():
        frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": column})
        source = frame if kind == "pandas" else pa.Table.from_pandas(frame)
        got = run_table(source).column("score").to_pylist()
        assert got == [float(v) for v in column]
        want = run_table({"q": {"a": int(column[0]), "b": int(column[1])}})
        assert got == want.column("score").to_pylist()
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [2**60 + 1]})
    assert qrels_table(qrels).column("relevance").to_pylist() == [float(2**60 + 1)]


def test_columns_ignored_for_files_and_dicts(tmp_path):
    path = tmp_path / "run"
    path.write_text("q Q0 a 1 1 r\n")
    mapping = {"query_id": "user"}
    assert run_table(str(path), columns=mapping).to_pydict() == {
        "query_id": ["q"], "doc_id": ["a"], "score": [1.0]}
    assert run_table({"q": {"a": 1.0}}, columns=mapping).num_rows == 1


# --- duplicates --------------------------------------------------------------------------


def _oracle(queries, docs):
    seen, best = {}, None
    for row, pair in enumerate(zip(queries, docs, strict=True)):
        if pair in seen and best is None:
            best = (seen[pair], row)
        seen.setdefault(pair, row)
    return best


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["a", "b", "c", "dd"]),
                       st.sampled_from(["x", "y", "z", "xy", "é", "x" * 20])), max_size=40),
    st.sampled_from([1, 2, 3, 16]),
)
def test_first_duplicate_matches_oracle(pairs, slice_rows):
    queries = [q for q, _ in pairs]
    docs = [d for _, d in pairs]
    table = pa.table({"query_id": pa.array(queries, pa.string()),
                      "doc_id": pa.array(docs, pa.string())})
    old = tables._DUPLICATE_SLICE
    tables._DUPLICATE_SLICE = slice_rows
    try:
        assert first_duplicate(table) == _oracle(queries, docs)
    finally:
        tables._DUPLICATE_SLICE = old


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([3, -1, 7, 2**40]),
                       st.sampled_from([0, 1, -5, 2**31, 2**60, 2**61, 2**62, -(2**63),
                                        2**63 - 1])),
             max_size=40),
    st.booleans(),
)
def test_first_duplicate_integer_ids_match_oracle(pairs, string_queries):
    """Integer document ids take the int64-key path (or, when the keys could
    overflow, the hashing path); both agree with the oracle."""
    queries = [str(q) if string_queries else q for q, _ in pairs]
    docs = [d for _, d in pairs]
    table = pa.table({"query_id": pa.array(queries, pa.string() if string_queries else pa.int64()),
                      "doc_id": pa.array(docs, pa.int64())})
    assert first_duplicate(table) == _oracle(queries, docs)
    old = tables._DUPLICATE_SLICE
    tables._DUPLICATE_SLICE = 2  # the hashing path in small slices, when it runs
    try:
        assert first_duplicate(table) == _oracle(queries, docs)
    finally:
        tables._DUPLICATE_SLICE = old
    half = len(pairs) // 2  # the same rows in two chunks
    chunked = pa.concat_tables([table.slice(0, half), table.slice(half)])
    assert first_duplicate(chunked) == _oracle(queries, docs)


def test_integer_ids_take_the_key_path_unless_the_keys_could_overflow(monkeypatch):
    calls = []
    real = tables._first_duplicate_integer

    def spy(*args):
        calls.append(real(*args))
        return calls[-1]

    monkeypatch.setattr(tables, "_first_duplicate_integer", spy)
    small = pa.table({"query_id": ["a", "b", "a"], "doc_id": [5, 6, 5]})
    assert first_duplicate(small) == (0, 2) and calls == [(0, 2)]
    # two queries x a span of 2**61 + 1 ids: keys up to 2**62, so the hashing path decides
    wide = pa.table({"query_id": ["a", "b", "b", "a"], "doc_id": [0, 2**61, 2**61, 0]})
    assert first_duplicate(wide) == (1, 2) and calls[-1] is False
    dictionary = pa.table({"query_id": pa.array(["a", "b", "a"]).dictionary_encode(),
                           "doc_id": pa.array([1, 2, 1], pa.int32())})
    assert first_duplicate(dictionary) == (0, 2) and calls[-1] == (0, 2)


def test_first_duplicate_chunked_and_integer():
    table = pa.Table.from_batches([
        pa.record_batch({"query_id": [1, 1], "doc_id": [5, 6]}),
        pa.record_batch({"query_id": [2, 1], "doc_id": [5, 5]}),
    ])
    assert first_duplicate(table) == (0, 3)
    assert first_duplicate(table.slice(0, 3)) is None


# --- the same data in every form ---------------------------------------------------------

ids = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Zs", "Cc", "Zl",
                                                                        "Zp")),
              min_size=1, max_size=12).filter(lambda s: not s.startswith("#"))


def _canonical(table):
    return table.combine_chunks().sort_by([("query_id", "ascending"), ("doc_id", "ascending")])


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(ids, st.dictionaries(ids, st.integers(-2, 4), min_size=1, max_size=5),
                       min_size=1, max_size=5),
       st.dictionaries(ids, st.dictionaries(ids, st.floats(-1e6, 1e6, allow_nan=False),
                                            min_size=1, max_size=5), min_size=1, max_size=5))
def test_every_form_gives_the_same_table(qrels, run):
    for kind, data, build, write in (("qrels", qrels, qrels_table, write_qrels),
                                     ("run", run, run_table, write_run)):
        want = _canonical(build(data))
        assert want.schema == STRING_SCHEMA[kind]
        text = io.StringIO()
        write(data, text)
        from_file = build(io.BytesIO(text.getvalue().encode("utf-8")))
        frame = pd.DataFrame(
            [(q, d, v) for q, docs in data.items() for d, v in docs.items()],
            columns=["query_id", "doc_id", "relevance" if kind == "qrels" else "score"],
        )
        arrow = pa.Table.from_pandas(frame, preserve_index=False)
        for other in (from_file, build(frame), build(arrow), build(frame.sample(frac=1,
                                                                              random_state=0))):
            assert _canonical(other).equals(want)


@pytest.mark.parametrize("data", [{"q": ["x", None]}, {"q": {"x": 1.0, None: 2.0}},
                                  {"q": {None: 1.0, "x": 2.0}}])
def test_a_missing_document_id_in_a_dict_is_refused(data):
    # a None among string ids used to become an Arrow null, which reached the
    # duplicate search and failed there with an unexplained ArrowInvalid
    with pytest.raises(TypeError, match="ids must be"):
        run_table(data)
    with pytest.raises(TypeError, match="ids must be"):
        qrels_table({q: dict.fromkeys(docs, 1) for q, docs in data.items()})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q", "q1", "qq"]),
                          st.text(alphabet="ab\x00é", min_size=1, max_size=18)), max_size=30))
def test_packed_ids_never_hide_a_duplicate(pairs):
    """The fast check (ids of up to 16 bytes packed into 64-bit words) answers only
    "surely distinct"; every repeat, at the 8/9 and 16/17-byte edges, with NUL bytes
    and multi-byte UTF-8, is still found, and the same one as the oracle's."""
    queries = [q for q, _ in pairs]
    docs = [d for _, d in pairs]
    table = pa.table({"query_id": pa.array(queries, pa.string()),
                      "doc_id": pa.array(docs, pa.string())})
    assert first_duplicate(table) == _oracle(queries, docs)


def test_packed_ids_are_exact_words():
    ids = pa.array(["a", "ab", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "ab"]).slice(1)
    low, high = tables._packed(ids)
    assert low[0] == low[4] and high[0] == high[4] == 0
    assert low[1] == low[2] and high[1] == 0 and high[2] == ord("i")  # 8 vs 9 bytes
    assert tables._packed(pa.array(["x" * 17])) is None
    assert tables._packed(pa.array(["a\x00"])) is None
    # a repeat is never "surely distinct"
    t = pa.table({"query_id": ["q"] * 3, "doc_id": ["abcdefghi", "abcdefgh", "abcdefghi"]})
    assert not tables._surely_distinct(np.zeros(1, dtype=np.int64), np.array([0]),
                                       t["doc_id"], 3)
    assert first_duplicate(t) == (0, 2)
