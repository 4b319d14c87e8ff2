"""The conventions object: frozen, checked once, presets that equal their keywords."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval.evaluation.conventions import PRESETS, Conventions

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
                                        measures, convention=name)  # fmt: skip
        got = rankeval.evaluate(qrels, run, measures, conventions=name)
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy(), err_msg=name)


def test_label_gain_table_covers_the_grades():
    with pytest.raises(ValueError, match=r"a grade of 3: with a label_gain table of 3 gains"):
        rankeval.evaluate(QRELS, RUN, "nDCG", conventions=Conventions(gain=(0, 1, 3)))
