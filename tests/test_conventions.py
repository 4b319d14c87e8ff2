"""The conventions object: frozen, checked once, presets that equal their keywords."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval.evaluation.conventions import MEASURE_PARAMS, PRESETS, Conventions

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "d": 3}, "q2": {"x": 0, "y": 0}, "q3": {"m": 1}}
RUN = {"q1": {"a": 0.5, "b": 0.5, "c": 0.9, "d": 0.1}, "q2": {"x": 1.0, "y": 0.2},
       "q3": {"m": 0.3, "n": 0.3}}  # fmt: skip
MEASURES = ["nDCG@3", "AP", "P@2"]


def test_frozen_and_checked_once():
    c = Conventions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.ties = "input"
    with pytest.raises(ValueError, match="ties must be one of"):
        Conventions(ties="random")
    with pytest.raises(ValueError, match="threshold must be > 0"):
        Conventions(threshold=0)
    with pytest.raises(TypeError, match="max_docs must be a positive int"):
        Conventions(max_docs=2.5)
    with pytest.raises(ValueError, match="gain must be 'linear', 'exponential'"):
        Conventions(gain="log")
    with pytest.raises(TypeError, match="no_relevant must be a number or None"):
        Conventions(no_relevant="one")
    assert Conventions(gain=[0, 1, 3]).gain == (0.0, 1.0, 3.0)  # hashable, as frozen


def test_presets_equal_their_keywords():
    for name, c in PRESETS.items():
        want = rankeval.evaluate(QRELS, RUN, ["nDCG@3"], **c.ranking_options())
        if c.gain == "exponential":
            want = rankeval.evaluate(QRELS, RUN, ["nDCG(gain='exponential')@3"],
                                     **c.ranking_options())  # fmt: skip
            want.columns = ["nDCG@3"]
            if c.no_relevant is not None:
                want.loc["q2", "nDCG@3"] = c.no_relevant  # q2 has no relevant document
        got = rankeval.evaluate(QRELS, RUN, ["nDCG@3"], conventions=name)
        pd.testing.assert_frame_equal(got, want, obj=name)


def test_keywords_override_a_preset():
    got = rankeval.evaluate(QRELS, RUN, MEASURES, conventions="pytrec_eval", max_docs=1)
    want = rankeval.evaluate(QRELS, RUN, MEASURES, score_precision="float", max_docs=1)
    pd.testing.assert_frame_equal(got, want)
    with pytest.raises(ValueError, match="conventions must be one of"):
        rankeval.evaluate(QRELS, RUN, MEASURES, conventions="terrier")


def test_lightgbm_preset_equals_evaluate_groups():
    # every ranked document judged, every judged one ranked: the arrays hold the same
    rows = [(q, d, g, RUN[q][d]) for q in QRELS for d, g in QRELS[q].items() if d in RUN[q]]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance", "score"])
    qrels = frame[["query_id", "doc_id", "relevance"]]
    run = frame[["query_id", "doc_id", "score"]]
    for name, measures in (("lightgbm", ["nDCG@3", "P@2"]), ("sklearn", ["nDCG@3"])):
        want = rankeval.evaluate_groups(frame["relevance"], frame["score"],
                                        frame["query_id"].to_numpy(dtype=object),
                                        measures, conventions=name)  # fmt: skip
        got = rankeval.evaluate(qrels, run, measures, conventions=name)
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy(), err_msg=name)


def test_label_gain_table_covers_the_grades():
    with pytest.raises(ValueError, match=r"a grade of 3: with a label_gain table of 3 gains"):
        rankeval.evaluate(QRELS, RUN, "nDCG", conventions=Conventions(gain=(0, 1, 3)))


# --- recall_rounding: trec_eval 9's recall levels, a declared convention (issue 52, item 5)


def test_recall_rounding_is_checked_and_declared():
    assert Conventions().recall_rounding == "nearest"  # trec_eval 10, data-independent
    assert PRESETS["trec_eval"].recall_rounding == "nearest"
    assert PRESETS["pytrec_eval"].recall_rounding == "trec_eval9"
    with pytest.raises(ValueError, match="recall_rounding must be one of 'nearest', 'trec_eval9'"):
        Conventions(recall_rounding="floor")
    names = {f.name for f in dataclasses.fields(Conventions)}
    assert set(MEASURE_PARAMS) <= names


# R = 3 relevant documents: level 0.4 is lround(1.2) = 1 relevant document (trec_eval 10)
# or floor(1.2 + 0.9) = 2 (trec_eval 9, pytrec_eval); by hand, the interpolated
# precision at the 1st (rank 1) and at the 2nd (rank 4, 2/4) relevant document
R3_QRELS = {"q": {"a": 1, "b": 1, "c": 1, "x": 0}}
R3_RUN = {"q": {"a": 0.9, "x": 0.8, "y": 0.7, "b": 0.6, "z": 0.5}}


def test_pytrec_eval_preset_reads_recall_levels_as_trec_eval_9():
    names = ["IPrec@0.4", "iprec_at_recall_0.40", "11pt_avg"]
    ten = rankeval.evaluate(R3_QRELS, R3_RUN, names)
    nine = rankeval.evaluate(R3_QRELS, R3_RUN, names, conventions="pytrec_eval")
    assert ten.loc["q", "IPrec@0.4"] == ten.loc["q", "iprec_at_recall_0.40"] == 1.0
    assert nine.loc["q", "IPrec@0.4"] == nine.loc["q", "iprec_at_recall_0.40"] == 2 / 4
    # 11 levels, c = 0 0 1 1 1 2 2 2 2 3 3 (10) and 0 1 1 1 2 2 2 2 3 3 3 (9: in
    # doubles 0.7 * 3 + 0.9 is just below 3); the third relevant document is never found
    assert ten.loc["q", "11pt_avg"] == pytest.approx((5 * 1.0 + 4 * 0.5) / 11, abs=1e-15)
    assert nine.loc["q", "11pt_avg"] == pytest.approx((4 * 1.0 + 4 * 0.5) / 11, abs=1e-15)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ref = pytrec_eval.RelevanceEvaluator(R3_QRELS, {"iprec_at_recall", "11pt_avg"}).evaluate(R3_RUN)
    assert ref["q"]["iprec_at_recall_0.40"] == nine.loc["q", "IPrec@0.4"]
    assert ref["q"]["11pt_avg"] == pytest.approx(nine.loc["q", "11pt_avg"], abs=1e-15)


def test_a_measure_that_names_its_rounding_keeps_it():
    own = "IPrec(rounding='trec_eval9')@0.4"
    got = rankeval.evaluate(R3_QRELS, R3_RUN, [own, "IPrec@0.4"])
    assert got.loc["q"].tolist() == [2 / 4, 1.0]  # under trec_eval's conventions
    # "nearest" named in the measure is kept under the pytrec_eval preset too
    ten = "IPrec(rounding='nearest')@0.4"
    got = rankeval.evaluate(R3_QRELS, R3_RUN, [ten, "IPrec@0.4"], conventions="pytrec_eval")
    assert got.loc["q"].tolist() == [1.0, 2 / 4]
    assert rankeval.parse_measure(ten).param == {"rounding": "nearest"}
    mine = PRESETS["pytrec_eval"].replace(recall_rounding="nearest")
    got = rankeval.evaluate(R3_QRELS, R3_RUN, [own, "IPrec@0.4"], conventions=mine)
    assert got.loc["q"].tolist() == [2 / 4, 1.0]
    parsed = [rankeval.parse_measure(m) for m in ("IPrec@0.4", "11pt_avg", "nDCG@3", own)]
    applied = PRESETS["pytrec_eval"].apply(parsed)
    assert [m.param.get("rounding") for m in applied] == ["trec_eval9", "trec_eval9", None,
                                                          "trec_eval9"]  # fmt: skip
    assert applied[2] == parsed[2]  # no rounding parameter: left alone
    assert PRESETS["trec_eval"].apply(parsed) == parsed
