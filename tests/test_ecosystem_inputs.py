"""The IR ecosystem's input forms give the numbers their dict equivalents give: ir_measures'
Qrel/ScoredDoc records, ir_datasets' records and datasets, PyTerrier's frames."""

from __future__ import annotations

import pandas as pd
import pytest

from rankeval import evaluate

ir_measures = pytest.importorskip("ir_measures")

QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1, "y": 0}}
RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.1, "z": 0.05}, "q2": {"y": 1.0, "x": 0.5}}
MEASURES = ["nDCG@10", "AP", "P@2", "RR"]


def _records():
    qrels = [ir_measures.Qrel(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    return qrels, run


def test_ir_measures_records_equal_the_dicts():
    qrels, run = _records()
    expected = evaluate(QRELS, RUN, MEASURES)
    pd.testing.assert_frame_equal(evaluate(qrels, run, MEASURES), expected)
    # generators too, and in another order
    got = evaluate((r for r in reversed(qrels)), iter(run[::-1]), MEASURES)
    pd.testing.assert_frame_equal(got, expected)


def test_ir_measures_own_values_on_the_same_records():
    qrels, run = _records()
    theirs = ir_measures.calc_aggregate([ir_measures.nDCG @ 10, ir_measures.AP,
                                         ir_measures.P @ 2, ir_measures.RR], qrels, run)
    ours = evaluate(qrels, run, MEASURES).mean()
    assert ours["nDCG@10"] == pytest.approx(theirs[ir_measures.nDCG @ 10])
    assert ours["AP"] == pytest.approx(theirs[ir_measures.AP])
    assert ours["P@2"] == pytest.approx(theirs[ir_measures.P @ 2])
    assert ours["RR"] == pytest.approx(theirs[ir_measures.RR])


def test_ir_datasets_records_and_a_dataset():
    formats = pytest.importorskip("ir_datasets.formats")
    qrels = [formats.TrecQrel(q, d, g, "0") for q, docs in QRELS.items() for d, g in docs.items()]
    run = [formats.GenericScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]

    class Dataset:  # what ir_datasets.load returns, without a download
        def qrels_iter(self):
            return iter(qrels)

        def scoreddocs_iter(self):
            return iter(run)

        def has_qrels(self):
            return True

        def has_scoreddocs(self):
            return True

    expected = evaluate(QRELS, RUN, MEASURES)
    pd.testing.assert_frame_equal(evaluate(qrels, run, MEASURES), expected)
    pd.testing.assert_frame_equal(evaluate(Dataset(), Dataset(), MEASURES), expected)


def test_pyterrier_frames_need_no_columns_mapping():
    run = pd.DataFrame([(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
                       columns=["qid", "docno", "score"])
    qrels = pd.DataFrame([(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()],
                         columns=["qid", "docno", "label"])
    pd.testing.assert_frame_equal(evaluate(qrels, run, MEASURES),
                                  evaluate(QRELS, RUN, MEASURES))


def test_a_bad_record_is_named():
    qrels, run = _records()
    with pytest.raises(TypeError, match="record 3 is"):
        evaluate(qrels, run[:2] + [("q1", "c", 0.1)] + run[3:], MEASURES)
    with pytest.raises(TypeError, match="named tuples"):
        evaluate(qrels, iter([("q1", "a", 1.0)]), MEASURES)
    with pytest.raises(ValueError, match="iterator is empty"):
        evaluate(qrels, iter([]), MEASURES)
