"""Measure names: ir_measures spelling, book and trec_eval aliases, clear errors."""

import re

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
            "nDCG(dcg='exp-log2')@10",
        ),
        ("nDCG(dcg='log2')", "nDCG", None, {"gain": "linear"}, "nDCG(dcg='log2')"),  # named: kept
        (
            'nDCG(gain="exponential")',
            "nDCG",
            None,
            {"gain": "exponential"},
            "nDCG(dcg='exp-log2')",
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
        ("nDGC@10", r"unknown measure 'nDGC@10' \(did you mean 'nDCG@10'\?\)"),
        ("P_rel", r"'P_rel' \(an ir_measures/trec_eval measure that rankeval does not compute\)"),
        ("foo", r"unknown measure 'foo'; rankeval.describe\(\) \(or the command line's "
                r"--list-measures\) lists every measure$"),
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


# --- names as users type them (issue 52, item 13) -----------------------------------------

# typed name -> the canonical measure; every name in the issue is here. Semantics checked
# where the name comes from: ranx's metric_switch (mrr, precision, recall, hit_rate,
# r-precision, hits: RR, P, R, Success, Rprec, Hits at the same k; its map@k divides by
# every relevant document, as AP@k), ir_measures' registry (SetAP is SetP x SetR, trec_eval's
# set_map; BPref its alias of Bpref; NumRelRet is its NumRet(rel=1), SetRelP its
# SetP(relative=True)), trec_eval's -m syntax (P.5, ndcg_cut.10)
TYPED = [
    ("ndcg@10", "nDCG@10"), ("map@10", "AP@10"), ("P_5", "P@5"),
    ("mrr@10", "RR@10"), ("recall@10", "R@10"), ("p@5", "P@5"), ("precision@10", "P@10"),
    ("precision@5", "P@5"), ("recall@100", "R@100"), ("hit_rate@10", "Success@10"),
    ("hits@10", "Hits@10"), ("r-precision", "Rprec"), ("r_precision", "Rprec"),
    ("Ndcg@10", "nDCG@10"), ("NDCG_cut_10", "nDCG@10"), ("Map_Cut_5", "AP@5"),
    ("P.5", "P@5"), ("ndcg_cut.10", "nDCG@10"), ("NDCG_cut.10", "nDCG@10"),
    ("iprec_at_recall.0.10", "IPrec@0.1"), ("ndcg.0=0,1=1,2=3", "nDCG(gains={2:3})"),
    ("rbp.p=0.5", "trec_rbp(p=0.5)"), ("set_F.0.5", "SetF(beta=0.5)"),
    ("NumRet(rel=1)", "NumRelRet(rel=1)"), ("NumRet(rel=2)", "NumRelRet(rel=2)"),
    ("SetP(relative=True)", "SetRelP"), ("SetP(relative=False)", "SetP"),
    ("SetAP", "SetMAP"), ("BPref", "Bpref"), ("bPREF", "Bpref"), ("SetMAP", "SetMAP"),
    ("Bpref", "Bpref"), ("HIT_RATE@10", "Success@10"), ("Mrr", "RR"), ("ap(rel=2)@5", "AP(rel=2)@5"),
    ("alpha_ndcg@20", "alpha-nDCG@20"), ("err-ia@20", "ERR-IA@20"),
    # exact spellings win over folded ones: rbp is trec_eval's, RBP ir_measures'
    ("rbp", "trec_rbp"), ("RBP", "RBP(p=0.8)"), ("Rndcg", "Rndcg"), ("ndcg_rel", "ndcg_rel"),
]  # fmt: skip


@pytest.mark.parametrize(("typed", "canonical"), TYPED)
def test_names_as_typed(typed, canonical):
    m = parse_measure(typed)
    assert str(m) == canonical
    assert parse_measure(canonical) == m


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("ndcg_burges@10", r"write nDCG\(gain='exponential'\)"),
        ("dcg_burges@10", r"write DCG\(gain='exponential'\)"),
        # only the letter case tells RBP from trec_eval's rbp: both are named
        ("Rbp", r"'Rbp' differs only in letter case from two measures: 'RBP' \(rank-biased "
                r"precision.*\) or 'rbp' \(trec_eval 10's rbp"),
        ("RBP.p=0.8", r"RBP has no trec_eval name.*trec_eval's 'rbp' is rankeval's trec_rbp"),
        # several measures, or a set: parse_trec_eval gives them
        ("P.5,10", r"'P.5,10' names 2 measures in trec_eval's syntax \(P@5, P@10\); "
                   r"parse_measure reads one: rankeval.parse_trec_eval\('P.5,10'\)"),
        ("P", None),  # (P alone is precision of the whole ranking: no error)
        ("official", r"trec_eval's set of 11 measure names: rankeval.parse_trec_eval\('official'\)"),
        ("ndcg_cut", r"trec_eval's family ndcg_cut: give a cut-off, as in ndcg_cut_5 or nDCG@5"),
        ("Judged.5", r"Judged has no trec_eval name; write it as ir_measures does, e.g. Judged@10"),
        ("SetP(relative=2)", r"relative=2 must be True \(SetRelP\) or False"),
        ("SetAP@10", r"SetMAP takes no cut-off"),
    ],
)
def test_names_refused_with_a_reason(typed, message):
    if message is None:
        assert str(parse_measure(typed)) == typed
        return
    with pytest.raises(ValueError, match=message):
        parse_measure(typed)


def _quoted_names(message, typed):
    return [q for q in re.findall(r"'([^']*)'", message) if q != typed]


@pytest.mark.parametrize(
    ("typed", "suggested"),
    [
        ("nDGC@10", ["nDCG@10"]),
        ("Precison@5", ["Precision@5"]),
        ("Precison(rel=2)@5", ["Precision(rel=2)@5"]),
        ("ndcg_cutt_10", ["ndcg_cut_10"]),
        ("ndcg_cutt.10", ["ndcg_cut.10"]),
        ("Sucess@3", ["Success@3"]),
        ("Rprecc@5", ["Rprec"]),  # Rprec takes no cut-off: none is suggested with it
        ("foo@10", []),
        ("XR@10", []),  # a short name is close to too many others
    ],
)
def test_suggestions_keep_the_cutoff_and_are_few(typed, suggested):
    with pytest.raises(ValueError) as info:
        parse_measure(typed)
    message = str(info.value)
    hint = re.search(r"did you mean (.*)\?\)", message)
    assert (_quoted_names(hint.group(1), typed) if hint else []) == suggested
    assert len(_quoted_names(message, typed)) <= 5  # never the list of every measure
    assert "list-measures" in message
    for name in suggested:  # each suggestion reads as a measure
        parse_measure(name)


def test_letter_case_and_separators_are_read_unless_two_measures_share_them():
    from rankeval.measures import DECLARATIONS

    def fold(name):
        return name.lower().replace("_", "").replace("-", "")

    spellings, exact = {}, {}  # folded -> {measure}; spelling -> measure
    for d in DECLARATIONS.values():
        for name in (d.name, *d.aliases, d.trec_eval):
            if name:
                spellings.setdefault(fold(name), set()).add(d.name)
                exact.setdefault(name, d.name)
    shared = {k for k, measures in spellings.items() if len(measures) > 1}
    assert shared == {"rbp"}  # RBP and trec_eval's rbp (trec_rbp): typed exactly only
    for d in DECLARATIONS.values():
        suffix = {"required": "@10", "recall": "@0.1", "multiple": "@0.5"}.get(d.cutoff, "")
        for name in (d.name, *d.aliases, d.trec_eval):
            if not name:
                continue
            for typed in (name.upper(), name.lower(), name.swapcase()):
                if typed in exact:  # typed exactly: that spelling's measure
                    assert parse_measure(typed + suffix).name == exact[typed], typed
                elif fold(typed) in shared:
                    with pytest.raises(ValueError, match="differs only in letter case"):
                        parse_measure(typed + suffix)
                else:
                    assert parse_measure(typed + suffix).name == d.name, typed


def test_dotted_names_in_the_python_api():
    got = rankeval.evaluate(
        {"q1": {"a": 1, "b": 0}}, {"q1": {"a": 2.0, "b": 1.0}}, ["P.5", "ndcg_cut.10", "P@5"]
    )
    assert list(got.columns) == ["P.5", "ndcg_cut.10", "P@5"]
    assert got["P.5"].tolist() == got["P@5"].tolist() == [0.2]
    assert got["ndcg_cut.10"].tolist() == [1.0]


def test_trec_eval_syntax_reads_names_in_any_case():
    from rankeval.measures import parse_trec_eval

    assert parse_trec_eval("NDCG_cut.10") == [parse_measure("nDCG@10")]
    assert parse_trec_eval("p.5,10") == parse_trec_eval("P.5,10")
    assert parse_trec_eval("MAP") == [parse_measure("AP")]
    with pytest.raises(ValueError, match=r"trec_eval measure 'MAP.5': .*'map' takes no param|"
                                         r"'map' takes no parameters"):
        parse_trec_eval("MAP.5")


# --- ir_measures: its objects, its printed names, its parser --------------------------------


def test_ir_measures_objects_are_read_by_their_str():
    class _Fake:  # what ir_measures' measure objects look like to rankeval (no import)
        NAME = "nDCG"

        def __str__(self):
            return "nDCG@10"

    _Fake.__module__ = "ir_measures.measures.ndcg"
    assert parse_measure(_Fake()) == parse_measure("nDCG@10")
    assert parse_measures(_Fake()) == [parse_measure("nDCG@10")]
    assert parse_measures([_Fake(), "P@5"]) == [parse_measure("nDCG@10"), parse_measure("P@5")]
    with pytest.raises(TypeError, match="or an ir_measures measure"):
        parse_measure(object())
    qrels, run = {"q1": {"a": 1, "b": 0}}, {"q1": {"a": 2.0, "b": 1.0}}
    alone = rankeval.evaluate(qrels, run, _Fake())  # one object, as one name
    assert list(alone.columns) == ["nDCG@10"] and alone["nDCG@10"].tolist() == [1.0]


def test_ir_measures_objects_in_evaluate():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = {"q1": {"a": 1, "b": 0}}, {"q1": {"a": 2.0, "b": 1.0}}
    wanted = [ir_measures.nDCG @ 10, ir_measures.NumRelRet, ir_measures.SetAP]
    got = rankeval.evaluate(qrels, run, wanted)
    assert list(got.columns) == ["nDCG@10", "NumRet(rel=1)", "SetAP"]  # as ir_measures prints
    assert got.iloc[0].tolist() == [1.0, 1, 0.5]  # SetAP: 1 of 2 retrieved, 1 of 1 relevant
    assert rankeval.evaluate(qrels, run, ir_measures.nDCG @ 10).columns.tolist() == ["nDCG@10"]


# ir_measures' spellings, with what rankeval reads them as
IR_MEASURES = [
    ("nDCG@10", "nDCG@10"), ("AP", "AP"), ("AP@10", "AP@10"), ("P@5", "P@5"),
    ("P(rel=2)@5", "P(rel=2)@5"), ("R@100", "R@100"), ("RR@10", "RR@10"), ("MRR", "RR"),
    ("MAP", "AP"), ("NDCG@5", "nDCG@5"), ("Success@10", "Success@10"),
    ("NumRelRet", "NumRelRet"), ("NumRet", "NumRet"), ("NumQ", "NumQ"),
    ("NumRel", "NumRel"), ("SetAP", "SetMAP"), ("BPref", "Bpref"), ("Bpref", "Bpref"),
    ("SetP", "SetP"), ("SetR", "SetR"), ("SetF", "SetF"), ("SetRelP", "SetRelP"),
    ("SetF(beta=0.5)", "SetF(beta=0.5)"), ("Rprec", "Rprec"), ("RPrec", "Rprec"),
    ("IPrec@0.1", "IPrec@0.1"), ("infAP", "infAP"), ("Judged@10", "Judged@10"),
    ("ERR@20", "ERR@20"), ("nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@10"),
    ("Precision@5", "P@5"), ("Recall@5", "R@5"), ("alpha_nDCG@20", "alpha-nDCG@20"),
    ("ERR_IA@20", "ERR-IA@20"), ("nERR_IA@20", "nERR-IA@20"), ("alpha_DCG@20", "alpha-DCG@20"),
]  # fmt: skip


# ir_measures' objects that carry a parameter its name leaves out: its NumRelRet is
# NumRet(rel=1), rel given (rankeval's NumRelRet takes rel from the threshold)
IR_OBJECTS = {"NumRelRet": "NumRelRet(rel=1)"}


@pytest.mark.parametrize(("typed", "canonical"), IR_MEASURES)
def test_ir_measures_names_round_trip(typed, canonical):
    ir_measures = pytest.importorskip("ir_measures")
    theirs = ir_measures.parse_measure(typed)
    assert str(parse_measure(typed)) == canonical
    ours = parse_measure(IR_OBJECTS.get(typed, typed))
    assert parse_measure(theirs) == ours  # the object
    assert parse_measure(str(theirs)) == ours  # its printed name (NumRet(rel=1))
    try:  # rankeval's spelling back through ir_measures, where ir_measures has it
        back = ir_measures.parse_measure(str(ours))
        str(back)  # (its parser takes any parameter; printing checks them)
    except (ValueError, NameError, KeyError, TypeError, SyntaxError):
        return
    assert parse_measure(back) == ours


def test_every_ir_measures_name_is_read_or_refused_by_name():
    ir_measures = pytest.importorskip("ir_measures")
    for name, measure in ir_measures.measures.registry.items():
        if not name.isascii():  # α_nDCG: Greek letters are no name here
            continue
        for typed in (name, f"{name}@10", str(measure)):
            try:
                parse_measure(typed)
            except ValueError as err:  # refused: as not computed, or for its cut-off
                text = str(err)
                assert "does not compute" in text or "cut-off" in text or "recall level" in text \
                    or "multiple of R" in text, (typed, text)


def test_aggregate_reads_the_new_spellings_of_counts():
    # aggregate() reads the columns' names: ir_measures' NumRet(rel=1) is NumRelRet, a
    # count summed over queries (it was no name, and averaged)
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"x": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 1.0}}
    table = rankeval.evaluate(qrels, run, ["NumRet(rel=1)", "num_rel_ret", "NUM_RET", "P.1"])
    means = rankeval.aggregate(table)
    assert means.tolist() == [3, 3, 3, 1.0]


def test_ranx_f1_is_the_f1_of_the_top_k():
    # ranx's f1@k (and torchmetrics' F1 at k): the harmonic mean of P@k and R@k, not SetF
    from rankeval import parse_measure

    assert str(parse_measure("F1@10")) == "F1@10"
    assert parse_measure("f1@10") == parse_measure("F1@10")


def test_ndcg_with_a_named_gain_prints_as_ir_measures_parses_it():
    # issue 48: nDCG(gain='exponential') printed as ir_measures' nDCG(dcg='exp-log2'), which
    # it parses back, and both libraries read the printed name as the same measure
    ir_measures = pytest.importorskip("ir_measures")
    from rankeval import parse_measure

    for typed, printed in [("nDCG(gain='exponential')@10", "nDCG(dcg='exp-log2')@10"),
                           ("nDCG(dcg='exp-log2')", "nDCG(dcg='exp-log2')"),
                           ("nDCG(gain='linear')@5", "nDCG(dcg='log2')@5")]:
        measure = parse_measure(typed)
        assert str(measure) == printed
        assert parse_measure(str(measure)) == measure
        theirs = ir_measures.parse_measure(printed)  # parses, with the same gain
        assert theirs["dcg"] == printed.split("dcg='")[1].split("'")[0]
