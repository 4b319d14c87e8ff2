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
        (
            "nDCG(dcg=exp-log2)@10",
            "nDCG",
            10,
            {"gain": "exponential"},
            "nDCG(gain='exponential')@10",
        ),
        ("nDCG(dcg='log2')", "nDCG", None, {}, "nDCG"),
        (
            'nDCG(gain="exponential")',
            "nDCG",
            None,
            {"gain": "exponential"},
            "nDCG(gain='exponential')",
        ),
        ("ERR(max_grade=4)@20", "ERR", 20, {}, "ERR@20"),  # the default is dropped
        ("ERR(max_grade=3)@20", "ERR", 20, {"max_grade": 3}, "ERR(max_grade=3)@20"),
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
        ("INST", r"'INST' \(an ir_measures/trec_eval measure that rankeval does not compute\)"),
        ("foo", r"unknown measure 'foo'; known measures: P, R, Hits, Success"),
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
    with pytest.raises(TypeError, match="measures must be a measure name or a list"):
        parse_measures(5)
    with pytest.raises(ValueError, match="measures is empty"):
        parse_measures([])


_names = st.sampled_from(
    ["P", "R", "Success", "Hits", "AP", "RR", "nDCG", "DCG", "AR", "MR", "FRP"]
)


@given(_names, st.one_of(st.none(), st.integers(1, 10**6)), st.one_of(st.none(), st.integers(1, 5)))
def test_canonical_spelling_round_trips(name, cutoff, rel):
    params = ()
    if rel is not None and parse_measure(name).binary:
        params = (("rel", rel),)
    m = Measure(name, cutoff, params)
    assert parse_measure(str(m)) == m


# --- the new measures, trec_eval's spellings and its -m syntax ----------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("Rprec", "Rprec"), ("Bpref", "Bpref"), ("bpref", "Bpref"), ("IPrec@0.1", "IPrec@0.1"),
        ("iprec_at_recall_0.10", "IPrec@0.1"), ("iprec_at_recall_1.00", "IPrec@1"),
        ("11pt_avg", "11pt_avg"), ("num_q", "NumQ"), ("num_ret", "NumRet"), ("num_rel", "NumRel"),
        ("num_rel_ret", "NumRelRet"), ("NumRelRet", "NumRelRet"), ("Judged@10", "Judged@10"),
        ("set_P", "SetP"), ("set_recall", "SetR"), ("set_F", "SetF"), ("SetF(beta=0.5)", "SetF(beta=0.5)"),
        ("infAP", "infAP"), ("rbp", "trec_rbp"), ("rbp_resid", "trec_rbp_resid"),
        ("nDCG(gains={0:0,1:1,2:3,3:7})@10", "nDCG(gains={2:3,3:7})@10"),
        ("nDCG(gains={3:2,0:0.5})", "nDCG(gains={0:0.5,3:2})"),
        ("nDCG(gains={1:1})", "nDCG"),  # gain = grade is the default map
        ("nDCG(gains={-1:0,2:3})", "nDCG(gains={2:3})"),  # a negative grade's gain is 0
        ("P@1000000", "P@1000000"),
    ],
)  # fmt: skip
def test_parse_new_measures(text, canonical):
    m = parse_measure(text)
    assert str(m) == canonical
    assert parse_measure(str(m)) == m


def test_trec_eval_dotted_syntax():
    from rankeval.measures import parse_trec_eval

    def names(text):
        return [str(m) for m in parse_trec_eval(text)]

    assert names("P.5,10") == ["P@5", "P@10"]
    assert names("P") == [f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert names("ndcg_cut.10") == ["nDCG@10"]
    assert names("recall.100") == ["R@100"]
    assert names("success") == ["Success@1", "Success@5", "Success@10"]
    assert names("iprec_at_recall.0.5") == ["IPrec@0.5"]
    assert len(names("iprec_at_recall")) == 11
    assert names("map") == ["AP"] and names("P_10") == ["P@10"]
    assert names("ndcg.0=0,1=1,2=3") == ["nDCG(gains={2:3})"]
    assert names("set_F.0.5") == ["SetF(beta=0.5)"]
    assert names("rbp.p=0.8") == ["trec_rbp(p=0.8)"]
    official = names("official")
    assert official[:5] == ["NumQ", "NumRet", "NumRel", "NumRelRet", "AP"]
    assert "Bpref" in official and "IPrec@0.1" in official and "P@1000" in official
    every = names("all_trec")
    assert {"infAP", "11pt_avg", "SetF", "nDCG@10", "AP@1000", "R@5", "Success@1"} <= set(every)
    assert names("set") == ["NumQ", "NumRet", "NumRel", "NumRelRet", "Utility", "SetP", "SetR",
                            "SetRelP", "SetMAP", "SetF"]
    with pytest.raises(ValueError, match="unknown measure 'foo'"):
        parse_trec_eval("foo")
    with pytest.raises(ValueError, match=r"'map' takes no parameters"):
        parse_trec_eval("map.5")
    with pytest.raises(ValueError, match=r"cut-off after '@' must be a positive integer"):
        parse_trec_eval("P.x")
    with pytest.raises(ValueError, match="level=gain"):
        parse_trec_eval("ndcg.3")


def test_declarations_drive_flags_names_and_help():
    from rankeval.measures import DECLARATIONS, describe, trec_eval_name

    assert parse_measure("NumRel").aggregate == "sum" and parse_measure("AP").aggregate == "mean"
    assert trec_eval_name("AP@10") == "map_cut_10" and trec_eval_name("nDCG") == "ndcg"
    assert trec_eval_name("IPrec@0.1") == "iprec_at_recall_0.10"
    assert trec_eval_name("P(rel=2)@5") is None and trec_eval_name("ERR@10") is None
    text = describe()
    lines = text.splitlines()
    assert len(lines) == len(DECLARATIONS)
    for d in DECLARATIONS.values():
        assert any(line.strip().startswith(d.name) for line in lines), d.name


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Rprec@5", r"Rprec takes no cut-off"),
        ("IPrec", r"needs a recall level"),
        ("IPrec@1.5", r"recall level after '@' must lie in \[0, 1\]"),
        ("Judged", r"needs a cut-off"),
        ("ERR(max_grade=0)@5", r"max_grade=0 must be a number > 0"),
        ("nDCG(gains={0:0,0:1})", r"lists a grade twice"),
        ("nDCG(gains={2:5},gain='exponential')", r"either gain= or gains="),
        # a negative grade is judged non-relevant, gain 0: a gain for it would be ignored
        # in the ideal list and counted in the ranking (nDCG above 1)
        ("nDCG(gains={-1:5})", r"non-zero gain to the negative grade\(s\) \[-1\].*gain 0"),
        ("nDCG(gains={-2:0,-1:0.5})", r"negative grade\(s\) \[-1\]"),
        ("SetF(beta=-1)", r"beta=-1 must be a number >= 0"),
        ("P(rel=1,rel=2)@5", r"given twice"),
    ],
)
def test_errors_of_new_measures(text, message):
    with pytest.raises(ValueError, match=message):
        parse_measure(text)
