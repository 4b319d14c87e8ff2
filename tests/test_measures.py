"""Measure names: ir_measures spelling, book and trec_eval aliases, clear errors."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankeval
from rankeval import Measure, parse_measure, parse_measures


@pytest.mark.parametrize(
    ("text", "name", "cutoff", "params", "canonical"),
    [
        ("P@5", "P", 5, {}, "P@5"),
        ("R@100", "R", 100, {}, "R@100"),
        ("Success@1", "Success", 1, {}, "Success@1"),
        ("AP", "AP", None, {}, "AP"),
        ("AP@10", "AP", 10, {}, "AP@10"),
        ("RR", "RR", None, {}, "RR"),
        ("RR@10", "RR", 10, {}, "RR@10"),
        ("nDCG", "nDCG", None, {}, "nDCG"),
        ("nDCG@10", "nDCG", 10, {}, "nDCG@10"),
        ("ERR@20", "ERR", 20, {}, "ERR@20"),
        ("RBP", "RBP", None, {"p": 0.8}, "RBP(p=0.8)"),
        ("RBP(p=0.95)", "RBP", None, {"p": 0.95}, "RBP(p=0.95)"),
        ("RBP(p=0.5,rel=2)@10", "RBP", 10, {"p": 0.5, "rel": 2}, "RBP(p=0.5,rel=2)@10"),
        ("P(rel=2)@5", "P", 5, {"rel": 2}, "P(rel=2)@5"),
        ("nDCG(dcg=exp-log2)@10", "nDCG", 10, {"gain": "exponential"}, "nDCG(gain='exponential')@10"),
        ("nDCG(dcg='log2')", "nDCG", None, {}, "nDCG"),
        ("nDCG(gain=\"exponential\")", "nDCG", None, {"gain": "exponential"}, "nDCG(gain='exponential')"),
        ("ERR(max_grade=4)@20", "ERR", 20, {"max_grade": 4}, "ERR(max_grade=4)@20"),
        (" nDCG @ 10 ", "nDCG", 10, {}, "nDCG@10"),
        # book names
        ("MAP", "AP", None, {}, "AP"),
        ("MRR", "RR", None, {}, "RR"),
        ("MAR", "AR", None, {}, "AR"),
        ("MERR@10", "ERR", 10, {}, "ERR@10"),
        ("NDCG@3", "nDCG", 3, {}, "nDCG@3"),
        ("Hit@3", "Success", 3, {}, "Success@3"),
        ("Hits@3", "Hits", 3, {}, "Hits@3"),
        ("GAP", "GAP", None, {}, "GAP"),
        ("MR@10", "MR", 10, {}, "MR@10"),
        ("FRP", "FRP", None, {}, "FRP"),
        ("DCG@5", "DCG", 5, {}, "DCG@5"),
        # trec_eval names
        ("map", "AP", None, {}, "AP"),
        ("map_cut_5", "AP", 5, {}, "AP@5"),
        ("P_10", "P", 10, {}, "P@10"),
        ("recall_100", "R", 100, {}, "R@100"),
        ("success_1", "Success", 1, {}, "Success@1"),
        ("recip_rank", "RR", None, {}, "RR"),
        ("ndcg", "nDCG", None, {}, "nDCG"),
        ("ndcg_cut_10", "nDCG", 10, {}, "nDCG@10"),
    ],
)
def test_parse(text, name, cutoff, params, canonical):
    m = parse_measure(text)
    assert (m.name, m.cutoff, m.param) == (name, cutoff, params)
    assert str(m) == canonical
    assert parse_measure(str(m)) == m


def test_functions_and_flags():
    assert parse_measure("nDCG@10").function is rankeval.ndcg
    assert parse_measure("AP").function is rankeval.average_precision
    assert parse_measure("Success@3").function is rankeval.hit_at_k
    assert parse_measure("FRP").function is rankeval.first_relevant_position
    assert parse_measure("MR").lower_is_better and parse_measure("FRP").lower_is_better
    assert not parse_measure("AP").lower_is_better
    assert parse_measure("P@5").binary and parse_measure("RBP").binary
    assert not parse_measure("nDCG").binary and not parse_measure("RBP(max_grade=3)").binary


def test_parse_measures_dedupes_and_keeps_order():
    got = parse_measures(["AP", "P_10", "MAP", "nDCG@10", "P@10"])
    assert [str(m) for m in got] == ["AP", "P@10", "nDCG@10"]
    assert parse_measures("RR") == [Measure("RR")]
    assert parse_measures(iter(["RR"])) == [Measure("RR")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nDGC@10", r"unknown measure 'nDGC@10' \(did you mean 'nDCG'"),
        ("Ndcg@10", r"did you mean 'nDCG'"),
        ("Bpref", r"'Bpref' \(an ir_measures/trec_eval measure that rankeval does not compute\)"),
        ("foo", r"unknown measure 'foo'; known measures: P, R, Success"),
        ("P@0", r"cut-off after '@' must be a positive integer, got '0'"),
        ("P@x", r"cut-off .* got 'x'"),
        ("P@-1", r"cut-off .* got '-1'"),
        ("P@5@6", r"cannot parse measure"),
        ("P_5@6", r"gives the cut-off twice"),
        ("P(rel=1", r"cannot parse measure"),
        ("@5", r"cannot parse measure"),
        ("", r"cannot parse measure"),
        ("P(p=0.5)@5", r"P has no parameter 'p' \(allowed: rel\)"),
        ("RBP(p=1.5)", r"p=1\.5 must be a probability in \(0, 1\)"),
        ("RBP(p=x)", r"must be a probability"),
        ("P(rel=0)@5", r"rel=0 must be a number > 0"),
        ("P(rel)@5", r"parameters must be written key=value"),
        ("nDCG(dcg=exp)", r"'log2' \(linear gain\) or 'exp-log2'"),
        ("nDCG(dcg=log2,gain=linear)", r"either dcg= or gain="),
        ("AP(rel=1,foo=2)", r"no parameter 'foo'"),
    ],
)
def test_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_measure(text)


def test_type_errors():
    with pytest.raises(TypeError, match="a measure must be a string"):
        parse_measure(10)
    with pytest.raises(TypeError, match="metrics must be a measure name or a list"):
        parse_measures(5)
    with pytest.raises(ValueError, match="metrics is empty"):
        parse_measures([])


_names = st.sampled_from(["P", "R", "Success", "Hits", "AP", "RR", "nDCG", "DCG", "AR", "MR", "FRP"])


@given(_names, st.one_of(st.none(), st.integers(1, 10**6)), st.one_of(st.none(), st.integers(1, 5)))
def test_canonical_spelling_round_trips(name, cutoff, rel):
    params = ()
    if rel is not None and parse_measure(name).binary:
        params = (("rel", rel),)
    m = Measure(name, cutoff, params)
    assert parse_measure(str(m)) == m
