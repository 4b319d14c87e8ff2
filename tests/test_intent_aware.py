"""P-IA, subtopic recall, AP-IA, NRBP and nNRBP against ndeval (through pyndeval), on the
subtopic collections of tests/test_diversity.py, through evaluate_diversity too."""

from __future__ import annotations

import pandas as pd
import pytest
from test_diversity import _subtopic_collection

from rankeval import evaluate_diversity
from rankeval.metrics.intent_aware import intent_aware

pyndeval = pytest.importorskip("pyndeval")

PAIRS = [("P-IA@5", "P-IA", 5), ("P-IA@10", "P-IA", 10), ("strec@5", "StRecall", 5),
         ("strec@20", "StRecall", 20), ("MAP-IA", "AP-IA", None), ("NRBP", "NRBP", None),
         ("nNRBP", "nNRBP", None)]


@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_ndeval(seed):
    qrels, run, runs, judged = _subtopic_collection(seed)
    result = pyndeval.RelevanceEvaluator(qrels, [p[0] for p in PAIRS]).evaluate(run)
    for q in range(len(runs)):
        for theirs, measure, k in PAIRS:
            ours = intent_aware(runs[q], judged[q], k, measure=measure)
            want = result[f"q{q}"][theirs]
            if want != want:
                # ndeval divides 0 by 0 for nNRBP on a query without a relevant subtopic;
                # here such a query scores 0, as every other measure gives it
                assert theirs == "nNRBP" and ours == 0.0, (q, theirs)
                continue
            assert ours == pytest.approx(want, abs=1e-12), (q, theirs)


def test_evaluate_diversity_computes_them_by_name():
    qrels, run, runs, judged = _subtopic_collection(7)
    subtopics = pd.DataFrame(qrels, columns=["query_id", "subtopic", "doc_id", "relevance"])
    frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    table = evaluate_diversity(subtopics, frame, ["P-IA@5", "StRecall@5", "AP-IA", "nNRBP"])
    result = pyndeval.RelevanceEvaluator(qrels, ["P-IA@5", "strec@5", "MAP-IA", "nNRBP"]) \
        .evaluate(run)
    for q in table.index:
        assert table.loc[q, "P-IA@5"] == pytest.approx(result[q]["P-IA@5"])
        assert table.loc[q, "StRecall@5"] == pytest.approx(result[q]["strec@5"])
        assert table.loc[q, "AP-IA"] == pytest.approx(result[q]["MAP-IA"])
        want = result[q]["nNRBP"]
        assert table.loc[q, "nNRBP"] == (pytest.approx(want) if want == want else 0.0)


def test_by_hand_and_bad_input():
    run = [[1, 0], [1, 0], [0, 1]]
    judged = [[1, 0], [1, 0], [0, 1], [0, 0]]
    assert intent_aware(run, judged, 2, measure="StRecall") == 0.5
    assert intent_aware(run, judged, 3, measure="StRecall") == 1.0
    assert intent_aware(run, judged, 2, measure="P-IA") == pytest.approx((2 / 2 + 0) / 2)
    with pytest.raises(ValueError, match="needs a cut-off"):
        intent_aware(run, judged, measure="P-IA")
    with pytest.raises(ValueError, match="measure must be"):
        intent_aware(run, judged, 2, measure="alpha-nDCG")
