"""One spelling of every setting (issue 45, items 3 and 4): ``conventions=`` in every
entry point, each keyword given overrides the preset (a value equal to trec_eval's
default included), ``convention=`` a deprecated alias, unknown keywords a TypeError."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import rankeval
from rankeval import Evaluator, evaluate, evaluate_groups
from rankeval.distributed.partition import resolve
from rankeval.evaluation.conventions import PRESETS, Conventions
from rankeval.evaluation.runs import score_run

# q1: tied scores between grades 3 and 0 (a, b), scores equal as float32 but not as
# doubles between grades 2 and 0 (d, aa), a relevant document not retrieved (z);
# q2: no relevant document; q3: R = 3, so that IPrec@0.4 reads the 1st relevant document
# (trec_eval 10) or the 2nd (trec_eval 9), and AP@1 divides by 3 or by min(1, 3)
QRELS = {"q1": {"a": 3, "b": 0, "c": 1, "d": 2, "aa": 0, "z": 1},
         "q2": {"x": 0, "y": 0},
         "q3": {"m": 1, "n": 1, "o": 1, "p": 0}}  # fmt: skip
RUN = {"q1": {"c": 0.9, "a": 0.5, "b": 0.5, "d": 0.1, "aa": 0.1 + 1e-12},
       "q2": {"x": 1.0, "y": 0.2},
       "q3": {"m": 0.9, "p": 0.8, "w": 0.7, "n": 0.6, "v": 0.5, "o": 0.1}}  # fmt: skip
ROWS = [(q, d, s, QRELS[q].get(d, 0)) for q in RUN for d, s in RUN[q].items()]
QIDS = [r[0] for r in ROWS]
DOCS = [r[1] for r in ROWS]
SCORES = [r[2] for r in ROWS]
LABELS = [r[3] for r in ROWS]


def _evaluate(conventions, measures, **kw):
    return evaluate(QRELS, RUN, measures, conventions=conventions, **kw)


def _score_run(conventions, measures, **kw):
    return score_run(QRELS, RUN, measures, conventions=conventions, **kw)[0]


def _evaluator(conventions, measures, **kw):
    ev = Evaluator(QRELS, measures, conventions=conventions, **kw)
    ev.update(QIDS, DOCS, SCORES)
    return ev.compute()


def _from_labels(conventions, measures, **kw):
    ev = Evaluator.from_labels(measures, conventions=conventions, **kw)
    ev.update(QIDS, labels=LABELS, scores=SCORES)
    return ev.compute()


def _groups(conventions, measures, **kw):
    if isinstance(conventions, Conventions):  # the oracle: the same rows, from_labels
        return _from_labels(conventions, measures, **kw)
    return evaluate_groups(LABELS, SCORES, np.array(QIDS, dtype=object), measures,
                           group_kind="ids", conventions=conventions, **kw)  # fmt: skip


def _resolved(conventions, measures, **kw):
    return evaluate(QRELS, RUN, measures, conventions=resolve(conventions, **kw))


RUN_SETTINGS = ("ties", "ideal", "score_precision", "ap_denominator", "rbp_gain")
ALL_SETTINGS = (*RUN_SETTINGS, "gain", "no_relevant", "recall_rounding")
# entry point -> the settings it takes as keywords that change a value on this data
# (rows that carry labels have no unretrieved judged document, and both orders of
# ties are the order of arrival there)
ENTRY_POINTS = {
    "evaluate": (_evaluate, RUN_SETTINGS),
    "score_run": (_score_run, RUN_SETTINGS),
    "Evaluator": (_evaluator, ALL_SETTINGS),
    "Evaluator.from_labels": (_from_labels, ("score_precision", "gain", "no_relevant",
                                             "recall_rounding", "ap_denominator",
                                             "rbp_gain")),
    "evaluate_groups": (_groups, ("gain", "no_relevant", "ap_denominator", "rbp_gain")),
    "distributed resolve": (_resolved, RUN_SETTINGS),
}
DEFAULT = Conventions()
CASES = [
    (entry, preset, setting)
    for entry, (_, settings) in ENTRY_POINTS.items()
    for preset in PRESETS
    for setting in settings
    if getattr(PRESETS[preset], setting) != getattr(DEFAULT, setting)
]


@pytest.mark.parametrize(("entry", "preset", "setting"), CASES)
def test_a_keyword_equal_to_the_default_overrides_the_preset(entry, preset, setting):
    call, _ = ENTRY_POINTS[entry]
    # q3 (R = 3, relevant at rank 1): AP@1 is 1/3 over R, 1 over min(k, R)
    # q1's grades 3 and 2: RBP's gain 1 or the grade
    measures = {"recall_rounding": ["IPrec@0.4"], "ap_denominator": ["AP@1", "AP"],
                "rbp_gain": ["RBP", "RBP(p=0.5)@3"]}.get(setting, ["nDCG@3", "nDCG"])
    value = getattr(DEFAULT, setting)  # trec_eval's default
    got = call(preset, measures, **{setting: value})
    want = call(PRESETS[preset].replace(**{setting: value}), measures)
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    # the setting changes a value here: taken as "not given", the test would fail
    assert not np.array_equal(call(preset, measures).to_numpy(), got.to_numpy())


def test_every_entry_point_and_preset_is_covered():
    assert {e for e, _, _ in CASES} == set(ENTRY_POINTS)
    assert {p for _, p, _ in CASES} == set(PRESETS) - {"trec_eval"}


def test_the_issue_example_is_xgboosts_linear_gain():
    # ranked labels 0, 1, 3 (by score 0.9, 0.5, 0.3): nDCG@3 with the gain l
    labels, scores = [3, 0, 1], [0.3, 0.9, 0.5]
    dcg = 0 / math.log2(2) + 1 / math.log2(3) + 3 / math.log2(4)
    ideal = 3 / math.log2(2) + 1 / math.log2(3)
    by_hand = dcg / ideal  # 0.58688; 2^l - 1 gives 0.54134
    ev = Evaluator.from_labels(["nDCG@3"], conventions="xgboost", gain="linear")
    ev.update(["u1"] * 3, labels=labels, scores=scores)
    got = ev.compute().iloc[0, 0]
    assert got == pytest.approx(by_hand, abs=1e-15)
    assert round(got, 5) == 0.58688
    groups = evaluate_groups(labels, scores, [3], ["nDCG@3"], conventions="xgboost",
                             gain="linear")  # fmt: skip
    assert groups.iloc[0, 0] == got
    xgb = pytest.importorskip("xgboost")
    for exp_gain, value in ((False, got), (True, None)):
        data = xgb.DMatrix(np.zeros((3, 1)), np.array(labels, float), group=[3],
                           base_margin=np.array(scores))  # fmt: skip
        booster = xgb.train({"objective": "rank:ndcg", "nthread": 1, "seed": 0,
                             "eval_metric": "ndcg@3", "ndcg_exp_gain": exp_gain},
                            data, 0)  # fmt: skip
        logged = float(booster.eval(data).split(":")[-1])
        if value is None:  # XGBoost's default, the preset's gain
            ev = Evaluator.from_labels(["nDCG@3"], conventions="xgboost")
            ev.update(["u1"] * 3, labels=labels, scores=scores)
            value = ev.compute().iloc[0, 0]
            assert round(value, 5) == 0.54134
        assert logged == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("preset", ["lightgbm", "xgboost"])
@pytest.mark.parametrize("entry", ["evaluate", "Evaluator", "Evaluator.from_labels",
                                   "evaluate_groups"])  # fmt: skip
def test_a_gain_named_in_the_measure_wins_over_the_preset(entry, preset):
    call, _ = ENTRY_POINTS[entry]
    got = call(preset, ["nDCG(gain='linear')@3", "nDCG@3"])
    # q1 by hand, linear gains: ranked c (1), then a (3), b (0) ordered by the preset's
    # ties (input order: a first), ideal 3, 2, 1 (z judged, or not retrieved: 3, 2, 1)
    dcg = 1 + 3 / math.log2(3) + 0 / 2
    ideal = 3 + 2 / math.log2(3) + 1 / 2
    assert got.loc["q1", "nDCG(gain='linear')@3"] == pytest.approx(dcg / ideal, abs=1e-15)
    exp_dcg = 1 + 7 / math.log2(3)
    exp_ideal = 7 + 3 / math.log2(3) + 1 / 2
    assert got.loc["q1", "nDCG@3"] == pytest.approx(exp_dcg / exp_ideal, abs=1e-15)
    assert rankeval.parse_measure("nDCG(gain='linear')@3").param == {"gain": "linear"}


# --- convention=: the old spelling, with a warning -------------------------------------

OLD_SPELLING = {
    "evaluate": lambda **kw: evaluate(QRELS, RUN, ["nDCG@3"], **kw),
    "score_run": lambda **kw: score_run(QRELS, RUN, ["nDCG@3"], **kw)[0],
    "Evaluator": lambda **kw: _feed(Evaluator(QRELS, ["nDCG@3"], **kw)),
    "Evaluator.from_labels": lambda **kw: _feed(Evaluator.from_labels(["nDCG@3"], **kw)),
    "evaluate_groups": lambda **kw: evaluate_groups(
        LABELS, SCORES, np.array(QIDS, dtype=object), ["nDCG@3"], group_kind="ids", **kw),
    "distributed resolve": lambda **kw: resolve(**kw),
}


def _feed(ev):
    if ev._labels:
        ev.update(QIDS, labels=LABELS, scores=SCORES)
    else:
        ev.update(QIDS, DOCS, SCORES)
    return ev.compute()


@pytest.mark.parametrize("entry", list(OLD_SPELLING))
def test_convention_is_a_deprecated_alias_that_warns(entry):
    call = OLD_SPELLING[entry]
    with pytest.warns(FutureWarning, match=r"convention= is deprecated; write "
                                           r"conventions='lightgbm'") as record:  # fmt: skip
        old = call(convention="lightgbm")
    assert record[0].filename == __file__  # it points at the caller's line
    new = call(conventions="lightgbm")
    if isinstance(new, Conventions):
        assert old == new
    else:
        np.testing.assert_array_equal(old.to_numpy(), new.to_numpy())
        assert not np.array_equal(new.to_numpy(), call().to_numpy())
    with pytest.raises(TypeError, match="old spelling of conventions=; give conventions= only"):
        call(conventions="lightgbm", convention="xgboost")


# --- unknown keywords: a TypeError that names the allowed ones and the closest ---------


@pytest.mark.parametrize("entry", list(OLD_SPELLING))
@pytest.mark.parametrize(("keyword", "closest"), [("tie", "ties"), ("treshold", "threshold"),
                                                  ("bogus", None)])  # fmt: skip
def test_an_unknown_keyword_is_a_type_error_naming_the_closest(entry, keyword, closest):
    call = OLD_SPELLING[entry]
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{keyword}'") as err:
        call(**{keyword: "input"})
    message = str(err.value)
    if closest:
        assert f"did you mean '{closest}'?" in message
    else:
        assert "did you mean" not in message
    assert "the keywords are" in message and "ties" in message and "threshold" in message


def test_misspelt_run_keywords_are_suggested_too():
    with pytest.raises(TypeError, match=r"evaluate\(\) got .* 'encodng' \(did you mean "
                                        r"'encoding'\?\)"):  # fmt: skip
        evaluate(QRELS, RUN, "P@1", encodng="latin-1")
    with pytest.raises(TypeError, match=r"did you mean 'group_kind'\?"):
        evaluate_groups(LABELS, SCORES, QIDS, "P@1", group_knd="ids")


def test_signatures_still_show_the_documented_defaults():
    shown = {name: repr(p.default) for name, p in inspect.signature(evaluate).parameters.items()
             if p.default is not inspect.Parameter.empty}  # fmt: skip
    assert shown["threshold"] == "1" and shown["ties"] == "'trec_eval'"
    assert shown["missing"] == "None" and shown["score_precision"] == "'double'"
    assert "conventions" in inspect.signature(evaluate_groups).parameters
    assert "convention" not in inspect.signature(evaluate_groups).parameters


def test_evaluate_groups_takes_every_preset_of_evaluate():
    # the pytrec_eval preset: scores compared as float32 (d and aa tie, by row order)
    double = evaluate_groups(LABELS, SCORES, np.array(QIDS, dtype=object), "nDCG",
                             group_kind="ids")  # fmt: skip
    single = evaluate_groups(LABELS, SCORES, np.array(QIDS, dtype=object), "nDCG",
                             group_kind="ids", conventions="pytrec_eval")  # fmt: skip
    assert single.loc["q1", "nDCG"] > double.loc["q1", "nDCG"]  # d (2) before aa (0)
    want = _from_labels("pytrec_eval", ["nDCG", "IPrec@0.4"])
    got = _groups("pytrec_eval", ["nDCG", "IPrec@0.4"])
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    assert got.loc["q3", "IPrec@0.4"] == 2 / 4  # trec_eval 9's recall levels
