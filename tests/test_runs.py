"""rankeval.evaluate: sources' multi-query examples, conventions, input forms, oracle, errors."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval
import rankeval.evaluation.runs as runs
from rankeval import evaluate


def _from_lists(rankings):
    """Binary ranked lists -> (qrels, run): scores descend along each list."""
    qrels, run = {}, {}
    for i, ranking in enumerate(rankings):
        q = f"q{i + 1}"
        docs = [f"{q}-d{j}" for j in range(len(ranking))]
        qrels[q] = {d: int(g) for d, g in zip(docs, ranking, strict=True)}
        run[q] = {d: float(len(ranking) - j) for j, d in enumerate(docs)}
    return qrels, run


# --- worked examples of the sources ---------------------------------------------------


def test_first_source_three_query_map():
    # First source: relevant results at 1, 2, 4, 5, 7, 9 (of 10); 1, 3, 5, 8 (of 8);
    # 2, 3, 5, 6 (of 6). Every relevant item is retrieved.
    q1 = [1, 1, 0, 1, 1, 0, 1, 0, 1, 0]
    q2 = [1, 0, 1, 0, 1, 0, 0, 1]
    q3 = [0, 1, 1, 0, 1, 1]
    qrels, run = _from_lists([q1, q2, q3])
    ap = evaluate(qrels, run, "AP")["AP"]
    want = [
        (1 + 1 + 3 / 4 + 4 / 5 + 5 / 7 + 6 / 9) / 6,
        (1 + 2 / 3 + 3 / 5 + 4 / 8) / 4,
        (1 / 2 + 2 / 3 + 3 / 5 + 4 / 6) / 4,
    ]
    np.testing.assert_allclose(ap.to_numpy(), want, rtol=0, atol=1e-12)
    # The source prints AP 0.822, 0.692, 0.609 and MAP 0.708. Query 3 is 0.6083:
    # the source summed precisions already rounded to 3 decimals (0.500 + 0.667 +
    # 0.600 + 0.667 = 2.434, / 4 = 0.6085 -> 0.609); MAP then is 2.123 / 3 = 0.7077
    # -> 0.708, where the exact mean is 0.7073.
    assert round(want[2], 3) == 0.608 and round((0.5 + 0.667 + 0.6 + 0.667) / 4, 3) == 0.609
    assert ap.mean() == pytest.approx(sum(want) / 3, abs=1e-12)
    assert round(ap.mean(), 3) == 0.707 and round((0.822 + 0.692 + 0.609) / 3, 3) == 0.708


def test_fourth_source_five_query_mrr():
    # Fourth source ("Model Evaluation, Part 4"): first relevant item at 3, 1, 2, 4, 5.
    rankings = [[0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]]
    qrels, run = _from_lists(rankings)
    rr = evaluate(qrels, run, ["RR", "FRP"])
    np.testing.assert_allclose(rr["RR"], [1 / 3, 1, 1 / 2, 1 / 4, 1 / 5])
    assert rr["RR"].mean() == pytest.approx((1 / 3 + 1 + 1 / 2 + 1 / 4 + 1 / 5) / 5)
    np.testing.assert_array_equal(rr["FRP"], [3, 1, 2, 4, 5])


def test_fourth_source_four_query_map():
    rankings = [
        [1, 1, 0, 1, 0, 1, 0, 0, 0, 0],
        [0, 1, 0, 0, 1, 0, 1, 0, 1, 1],
        [1, 0, 1, 1, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1, 0, 1, 1, 1],
    ]
    qrels, run = _from_lists(rankings)
    want = [
        (1 + 1 + 3 / 4 + 4 / 6) / 4,
        (1 / 2 + 2 / 5 + 3 / 7 + 4 / 9 + 5 / 10) / 5,
        (1 + 2 / 3 + 3 / 4) / 3,
        (1 / 6 + 2 / 8 + 3 / 9 + 4 / 10) / 4,
    ]
    np.testing.assert_allclose(evaluate(qrels, run, "MAP")["MAP"], want)


# --- conventions ----------------------------------------------------------------------

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "z": 1}, "q2": {"x": 1}, "q3": {"m": 0}}
RUN = {"q1": {"a": 0.9, "b": 0.8, "d": 0.7, "c": 0.1}, "q2": {"y": 1.0, "x": 0.5}, "q9": {"a": 1.0}}


def test_judged_denominators_and_ideal():
    df = evaluate(QRELS, RUN, ["R@4", "AP", "nDCG", "nDCG@2"])
    # q1: relevant a (2), c (1) retrieved at 1 and 4; z (1) judged relevant, never retrieved
    assert df.loc["q1", "R@4"] == 2 / 3
    assert df.loc["q1", "AP"] == pytest.approx((1 / 1 + 2 / 4) / 3)
    dcg = 2 / math.log2(2) + 1 / math.log2(5)
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert df.loc["q1", "nDCG"] == pytest.approx(dcg / idcg)
    assert df.loc["q1", "nDCG@2"] == pytest.approx((2 / 1) / (2 / 1 + 1 / math.log2(3)))
    retrieved = evaluate(QRELS, RUN, ["R@4", "AP", "nDCG"], ideal="retrieved")
    assert retrieved.loc["q1", "R@4"] == 1.0
    assert retrieved.loc["q1", "AP"] == pytest.approx((1 / 1 + 2 / 4) / 2)
    assert retrieved.loc["q1", "nDCG"] == pytest.approx(dcg / (2 + 1 / math.log2(3)))


def test_queries_kept_skipped_and_zeroed():
    df = evaluate(QRELS, RUN, ["AP", "P@2"])
    assert df.index.tolist() == ["q1", "q2"]  # q3 not in the run; q9 not judged
    assert df.index.name == "query_id"
    zero = evaluate(QRELS, RUN, ["AP", "P@2", "FRP@5", "NumQ", "NumRet"], missing="zero")
    assert zero.index.tolist() == ["q1", "q2", "q3"]
    assert zero.loc["q3", "AP"] == 0 and zero.loc["q3", "P@2"] == 0
    assert zero.loc["q3", "FRP@5"] == 6  # nothing found: the cut-off plus one
    assert zero.loc["q3", "NumQ"] == 1 and zero.loc["q3", "NumRet"] == 0
    # without a cut-off FRP has no value for an empty ranking: an error, not a NaN
    # that a mean would skip while num_q counts the query
    with pytest.raises(ValueError, match=r"FRP without a cut-off has no value for query 'q3'"):
        evaluate(QRELS, RUN, ["AP", "FRP"], missing="zero")


def test_query_without_relevant_document_scores_zero():
    qrels = {"q": {"a": 0, "b": 0}, "r": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 0.5}, "r": {"a": 1.0}}
    df = evaluate(qrels, run, ["P@1", "R@1", "Success@1", "AP", "RR", "nDCG", "nDCG@1", "ERR@2"])
    assert df.loc["q"].tolist() == [0.0] * 8
    assert df.loc["r"].tolist() == [1.0] * 7 + [1 / 16]  # ERR: R = (2^1 - 1) / 2^4


def test_empty_ranking_in_a_dict_run_is_scored():
    # {"q": {}} holds the query with an empty ranking: it is in the run, so it is scored
    # (0, as pytrec_eval and ranx); a query absent from the run is skipped (issue 37)
    df = evaluate({"q": {"a": 1}, "r": {"a": 1}, "s": {"a": 1}}, {"q": {}, "r": {"a": 0.5}},
                  ["AP", "P@1"])  # fmt: skip
    assert df.index.tolist() == ["q", "r"]
    assert df.loc["q"].tolist() == [0.0, 0.0]


def test_ties_broken_by_doc_id_descending_as_strings():
    qrels = {"q": {"d9": 1, "d10": 0, "d2": 0}}
    run = {"q": {"d10": 1.0, "d2": 1.0, "d9": 1.0}}
    # "d9" > "d2" > "d10" as strings, although 10 > 9 > 2 as numbers
    assert evaluate(qrels, run, "RR")["RR"]["q"] == 1.0
    assert evaluate(qrels, run, "RR", ties="input")["RR"]["q"] == 1 / 3
    flipped = {"q": {"d9": 1.0, "d10": 1.0, "d2": 1.0}}
    assert evaluate(qrels, flipped, "RR", ties="input")["RR"]["q"] == 1.0


def test_ties_averaged_like_scikit_learn():
    qrels = {"q": {"a": 3, "b": 0, "c": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}
    df = evaluate(qrels, run, ["DCG", "nDCG"], ties="average")
    # a and b share ranks 1-2: each gets gain (3 + 0) / 2
    dcg = 1.5 / 1 + 1.5 / math.log2(3) + 1 / 2
    assert df.loc["q", "DCG"] == pytest.approx(dcg)
    assert df.loc["q", "nDCG"] == pytest.approx(dcg / (3 + 1 / math.log2(3)))
    with pytest.raises(ValueError, match="defined for nDCG and DCG only, not for AP, P@5"):
        evaluate(qrels, run, ["nDCG", "AP", "P@5"], ties="average")


def test_threshold_and_rel_parameter():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    df = evaluate(qrels, run, ["P@1", "P(rel=2)@1", "RR", "nDCG"], threshold=2)
    assert df.loc["q", "P@1"] == 0.0  # threshold 2: a is not relevant
    assert df.loc["q", "P(rel=2)@1"] == 0.0
    assert df.loc["q", "RR"] == 1 / 2
    assert df.loc["q", "nDCG"] == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert evaluate(qrels, run, "P(rel=2)@1")["P(rel=2)@1"]["q"] == 0.0
    assert evaluate(qrels, run, "P@1")["P@1"]["q"] == 1.0


def test_negative_grades_are_judged_with_zero_gain():
    qrels = {"q": {"x": -1, "y": 2, "z": 1}}
    run = {"q": {"x": 3.0, "y": 2.0, "z": 1.0}}
    df = evaluate(qrels, run, ["nDCG", "P@1", "AP"])
    ideal = 2 + 1 / math.log2(3)
    assert df.loc["q", "nDCG"] == pytest.approx((2 / math.log2(3) + 1 / 2) / ideal)
    assert df.loc["q", "P@1"] == 0.0
    # trec_eval -J drops a negatively judged document as it drops unjudged ones
    j = evaluate(qrels, run, ["nDCG", "P@1"], judged_only=True)
    assert j.loc["q", "P@1"] == 1.0 and j.loc["q", "nDCG"] == pytest.approx(1.0)


def test_judged_only_drops_unjudged():
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"a": 5.0, "u1": 4.0, "b": 3.0, "u2": 2.5, "c": 2.0}}
    assert evaluate(qrels, run, "P@3")["P@3"]["q"] == 1 / 3
    assert evaluate(qrels, run, "P@3", judged_only=True)["P@3"]["q"] == 2 / 3
    # every retrieved document unjudged: the query stays, with nothing ranked
    df = evaluate({"q": {"a": 1}}, {"q": {"u": 1.0}}, "AP", judged_only=True)
    assert df["AP"].tolist() == [0.0]


def test_measures_beyond_trec_eval():
    qrels = {"q": {"a": 3, "b": 1, "c": 0, "e": 2}}
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    grades = [3, 1, 0, 0]
    df = evaluate(
        qrels,
        run,
        [
            "ERR@3",
            "ERR(max_grade=4)",
            "RBP(p=0.5)",
            "RBP(p=0.5,max_grade=3)",
            "DCG@2",
            "Hits@3",
            "AR",
            "GAP",
            "MR",
            "FRP@3",
        ],
    )
    assert df.loc["q", "ERR@3"] == pytest.approx(rankeval.err(grades, 3, max_grade=4))
    assert df.loc["q", "ERR(max_grade=4)"] == pytest.approx(rankeval.err(grades, max_grade=4))
    assert df.loc["q", "RBP(p=0.5)"] == pytest.approx(0.5 * (1 + 0.5))
    assert df.loc["q", "RBP(p=0.5,max_grade=3)"] == pytest.approx(0.5 * (1 + 0.5 / 3))
    assert df.loc["q", "DCG@2"] == pytest.approx(3 + 1 / math.log2(3))
    assert df.loc["q", "Hits@3"] == 2
    assert df.loc["q", "AR"] == pytest.approx(rankeval.average_recall(grades, n_relevant=3))
    assert df.loc["q", "GAP"] == pytest.approx(
        rankeval.graded_average_precision(grades, max_grade=4, grade_counts=[1, 1, 1, 0])
    )
    # MR: a and b at 1 and 2; e (relevant, not retrieved) at n + 1 = 5
    assert df.loc["q", "MR"] == pytest.approx((1 + 2 + 5) / 3)
    assert df.loc["q", "FRP@3"] == 1


def test_labels_as_given_and_every_name_a_column():
    df = evaluate(QRELS, RUN, ["MAP", "AP", "ndcg_cut_2", rankeval.parse_measure("P@2")])
    assert df.columns.tolist() == ["MAP", "AP", "ndcg_cut_2", "P@2"]
    assert evaluate(QRELS, RUN, "nDCG@2").columns.tolist() == ["nDCG@2"]


# --- input forms ------------------------------------------------------------------------


def test_dict_frame_and_file_inputs_agree(tmp_path):
    rng = np.random.default_rng(5)
    qrels, run = _random_collection(rng, 25)
    qrels["q\u00e9"] = {"d\u00e9j\u00e0": 2, "caf\u00e9": 1, "plain": 0}  # non-ASCII ids
    run["q\u00e9"] = {"caf\u00e9": 0.5, "d\u00e9j\u00e0": 0.25, "plain": 0.75}
    measures = ["P@5", "R@10", "AP", "RR", "nDCG@5", "nDCG", "ERR@5", "RBP"]
    want = evaluate(qrels, run, measures)
    rankeval.write_qrels(qrels, tmp_path / "qrels")
    rankeval.write_run(run, tmp_path / "run")
    from_files = evaluate(str(tmp_path / "qrels"), tmp_path / "run", measures)
    pd.testing.assert_frame_equal(from_files, want)
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    run_frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]).sample(
        frac=1.0, random_state=1
    )
    jrows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    qrels_frame = pd.DataFrame(jrows, columns=["query_id", "doc_id", "relevance"])
    pd.testing.assert_frame_equal(evaluate(qrels_frame, run_frame, measures), want)
    mixed = evaluate(tmp_path / "qrels", run_frame, measures)
    pd.testing.assert_frame_equal(mixed, want)
    pd.testing.assert_frame_equal(evaluate(qrels, tmp_path / "run", measures), want)
    pd.testing.assert_frame_equal(evaluate(qrels_frame, tmp_path / "run", measures), want)


def test_integer_ids_keep_their_dtype_and_numeric_order():
    qrels = {10: {7: 1, 9: 0}, 9: {1: 1}, 100: {5: 2}}
    run = {10: {7: 1.0, 9: 1.0}, 9: {1: 0.5}, 100: {5: 3.0, 6: 2.0}}
    df = evaluate(qrels, run, ["RR", "P@1"])
    assert df.index.dtype == np.int64
    assert df.index.tolist() == [9, 10, 100]
    # tie of documents 7 and 9: "9" > "7" as text, as in a file of the same data
    assert df.loc[10, "RR"] == 1 / 2
    frame_run = pd.DataFrame(
        {"user": [10, 10, 9, 100, 100], "item": [7, 9, 1, 5, 6], "pred": [1.0, 1.0, 0.5, 3.0, 2.0]}
    )
    frame_qrels = pd.DataFrame(
        {"user": [10, 10, 9, 100], "item": [7, 9, 1, 5], "rating": [1, 0, 1, 2]}
    )
    columns = {"query_id": "user", "doc_id": "item", "score": "pred", "relevance": "rating"}
    mapped = evaluate(frame_qrels, frame_run, ["RR", "P@1"], columns=columns)
    assert mapped.index.name == "user"  # your name of the query column (issue 37)
    pd.testing.assert_frame_equal(mapped.rename_axis("query_id"), df)


def test_integer_and_string_ids_are_refused(tmp_path):
    # a qrels file (string ids) and a frame with integer ids: no id is converted (issue 37)
    rankeval.write_qrels({"10": {"7": 1, "9": 0}}, tmp_path / "q")
    run = pd.DataFrame({"query_id": [10, 10], "doc_id": [7, 9], "score": [1.0, 1.0]})
    with pytest.raises(TypeError, match="column 'query_id' holds ids of two types, str and int"):
        evaluate(tmp_path / "q", run, ["RR"])


def test_id_lists_and_sets_like_a_recommender():
    # user -> ranked item ids, user -> held-out items: denominators from the qrels
    run = {"u1": ["i3", "i1", "i9"], "u2": ["i4", "i5"]}
    held_out = {"u1": {"i1", "i2", "i7"}, "u2": {"i5"}}
    df = evaluate(held_out, run, ["R@2", "P@2", "AP", "RR"])
    assert df.loc["u1"].tolist() == pytest.approx([1 / 3, 1 / 2, (1 / 2) / 3, 1 / 2])
    assert df.loc["u2"].tolist() == pytest.approx([1.0, 1 / 2, 1 / 2, 1 / 2])
    scored = {"u1": {"i3": 3.0, "i1": 2.0, "i9": 1.0}, "u2": {"i4": 2.0, "i5": 1.0}}
    graded = {u: dict.fromkeys(items, 1) for u, items in held_out.items()}
    pd.testing.assert_frame_equal(evaluate(graded, scored, ["R@2", "P@2", "AP", "RR"]), df)


def test_max_grade_is_fixed_not_taken_from_the_data():
    # adding a query with a higher grade leaves the first query's values unchanged
    qrels = {"q": {"a": 3, "b": 1}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    names = ["ERR@10", "GAP", "nDCG"]
    alone = evaluate(qrels, run, names)
    more = evaluate(dict(qrels, r={"x": 4}), dict(run, r={"x": 1.0}), names)
    pd.testing.assert_frame_equal(more.loc[["q"]], alone)
    with pytest.raises(ValueError, match=r"grade of 5 is above max_grade=4.*ERR\(max_grade=5\)"):
        evaluate({"q": {"a": 5}}, {"q": {"a": 1.0}}, "ERR@10")


def test_counts_are_integers_and_summed():
    df = evaluate(QRELS, RUN, ["NumQ", "NumRet", "NumRel", "NumRelRet", "AP"])
    assert [df[c].dtype for c in ["NumQ", "NumRet", "NumRel", "NumRelRet"]] == [np.int64] * 4
    assert df.loc["q1"].tolist()[:4] == [1, 4, 3, 2]
    total = rankeval.aggregate(df)
    assert total["NumQ"] == 2 and total["NumRet"] == 6 and total["NumRel"] == 4
    assert total["AP"] == pytest.approx(df["AP"].mean())


def test_grades_as_trec_eval_reads_them():
    qrels = {"q": {"a": 1.5, "b": 0.5}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    # fractional grades beside whole scores: said to be meant (else they look swapped)
    kept = evaluate(qrels, run, ["nDCG@1", "P@2"], grades="float")
    truncated = evaluate(qrels, run, ["nDCG@1", "P@2"], grades="trec_eval")
    assert kept.loc["q", "P@2"] == 0.5 and truncated.loc["q", "P@2"] == 0.5
    assert kept.loc["q", "nDCG@1"] == 1.0
    assert truncated.loc["q", "nDCG@1"] == 1.0  # 1.5 -> 1, 0.5 -> 0
    assert evaluate(qrels, run, "DCG@2", grades="trec_eval").loc["q", "DCG@2"] == 1.0
    assert evaluate(qrels, run, "DCG@2", grades="float").loc["q", "DCG@2"] == pytest.approx(
        1.5 + 0.5 / math.log2(3)
    )


def test_gain_map_like_trec_eval():
    qrels = {"q": {"a": 1, "b": 2, "c": 3, "d": 0}}
    run = {"q": {"d": 4.0, "a": 3.0, "b": 2.0, "c": 1.0}}
    df = evaluate(qrels, run, ["nDCG(gains={0:0,1:1,2:3,3:7})", "nDCG(gain='exponential')"])
    dcg = 1 / math.log2(3) + 3 / math.log2(4) + 7 / math.log2(5)
    idcg = 7 + 3 / math.log2(3) + 1 / math.log2(4)
    assert df.iloc[0, 0] == pytest.approx(dcg / idcg)
    assert df.iloc[0, 1] == pytest.approx(dcg / idcg)  # 2^g - 1 is that map
    # unlisted grades keep gain = grade (trec_eval); a 0 gain for grade 1:
    one = evaluate(qrels, run, "nDCG(gains={1:0})")
    dcg = 2 / math.log2(4) + 3 / math.log2(5)
    idcg = 3 + 2 / math.log2(3)
    assert one.iloc[0, 0] == pytest.approx(dcg / idcg)


def test_max_docs_keeps_the_top_of_each_ranking():
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 1.0, "b": 2.0, "c": 3.0}}
    df = evaluate(qrels, run, ["NumRet", "NumRelRet", "AP"], max_docs=2)
    assert df.loc["q"].tolist() == [2, 1, pytest.approx(1 / 2 / 2)]
    with pytest.raises(ValueError, match="max_docs must be a positive int"):
        evaluate(qrels, run, "AP", max_docs=0)


# --- errors -----------------------------------------------------------------------------


def test_input_errors(tmp_path):
    with pytest.raises(ValueError, match="no query in common"):
        evaluate({"a": {"d": 1}}, {"b": {"d": 1.0}}, "AP")
    # the IO layer's checks (rankeval.io) reach the caller unchanged
    with pytest.raises((TypeError, ValueError), match=r"run.*q.*d"):
        evaluate({"q": {"d": 1}}, {"q": {"d": "0.5"}}, "AP")
    with pytest.raises(ValueError, match=r"nan|finite"):
        evaluate({"q": {"d": 1}}, {"q": {"d": float("nan")}}, "AP")
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", "d"], "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"duplicate|twice"):
        evaluate({"q": {"d": 1}}, frame, "AP")
    with pytest.raises(ValueError, match=r"score"):
        evaluate({"q": {"d": 1}}, frame.drop(columns="score"), "AP")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"ties": "random"}, r"ties must be one of 'trec_eval', 'input', 'average', got 'random'"),
        ({"ideal": "all"}, r"ideal must be one of 'judged', 'retrieved'"),
        ({"missing": "drop"}, r"missing must be one of 'skip', 'zero'"),
        ({"threshold": 0}, r"threshold must be > 0"),
        ({"score_precision": "half"}, r"score_precision must be one of 'double', 'float'"),
        ({"grades": "int"}, r"grades must be one of 'float', 'trec_eval'"),
    ],
)
def test_option_errors(options, message):
    with pytest.raises(ValueError, match=message):
        evaluate(QRELS, RUN, "AP", **options)


def test_unknown_measure_error():
    with pytest.raises(ValueError, match=r"unknown measure 'nDGC@10' \(did you mean 'nDCG@10'"):
        evaluate(QRELS, RUN, ["AP", "nDGC@10"])
    with pytest.raises(TypeError, match="judged_only must be True or False"):
        evaluate(QRELS, RUN, "AP", judged_only="yes")


# --- slow reference: one query at a time, plain loops -----------------------------------


def _random_collection(rng, n_queries, *, ties=True):
    qrels, run = {}, {}
    for i in range(n_queries):
        q = f"q{rng.integers(0, 10**4)}-{i}"
        pool = list(dict.fromkeys(f"d{rng.integers(0, 50)}" for _ in range(30)))
        judged = rng.choice(pool, size=int(rng.integers(1, len(pool))), replace=False)
        qrels[q] = {str(d): int(rng.choice([-1, 0, 0, 0, 1, 2, 3])) for d in judged}
        qrels[q].update(
            {f"unret{j}": int(rng.integers(1, 4)) for j in range(int(rng.integers(0, 3)))}
        )
        if rng.random() < 0.1:
            continue
        got = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
        scores = rng.integers(0, 8, size=got.size) / 4 if ties else rng.normal(size=got.size)
        run[q] = {str(d): float(s) for d, s in zip(got, scores, strict=True)}
    return qrels, run


def _slow(qrels, run, name, k, t, ideal):
    out = {}
    for q, judged in qrels.items():
        if q not in run:
            continue
        docs = sorted(run[q], key=lambda d: (run[q][d], d), reverse=True)
        g = [max(judged.get(d, 0), 0) for d in docs]
        top = g if k is None else g[:k]
        rel = [x >= t for x in top]
        pool = [max(v, 0) for v in judged.values()] if ideal == "judged" else g
        n_rel = sum(v >= t for v in pool)
        if name == "P":
            v = sum(rel) / k
        elif name == "R":
            v = sum(rel) / n_rel if n_rel else 0.0
        elif name == "Success":
            v = float(any(rel))
        elif name == "AP":
            hits, total = 0, 0.0
            for i, r in enumerate(rel, start=1):
                if r:
                    hits += 1
                    total += hits / i
            v = total / n_rel if n_rel else 0.0
        elif name == "RR":
            v = next((1 / i for i, r in enumerate(rel, start=1) if r), 0.0)
        elif name in ("nDCG", "DCG"):
            dcg = sum(x / math.log2(i + 1) for i, x in enumerate(top, start=1))
            best = sorted(pool, reverse=True)[: len(pool) if k is None else k]
            idcg = sum(x / math.log2(i + 1) for i, x in enumerate(best, start=1))
            v = dcg if name == "DCG" else (dcg / idcg if idcg > 0 else 0.0)
        elif name == "RBP":
            v = 0.2 * sum(0.8 ** (i - 1) for i, r in enumerate(rel, start=1) if r)
        out[q] = v
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ideal", ["judged", "retrieved"])
def test_against_slow_reference(seed, ideal):
    rng = np.random.default_rng(seed)
    qrels, run = _random_collection(rng, 40)
    specs = [
        ("P", 5),
        ("P", 20),
        ("R", 10),
        ("Success", 3),
        ("AP", None),
        ("AP", 7),
        ("RR", None),
        ("RR", 4),
        ("nDCG", None),
        ("nDCG", 5),
        ("DCG", 3),
        ("RBP", None),
    ]
    for t in (1, 2):
        names = [n if k is None else f"{n}@{k}" for n, k in specs]
        df = evaluate(qrels, run, names, threshold=t, ideal=ideal)
        for (name, k), label in zip(specs, names, strict=True):
            want = _slow(qrels, run, name, k, t, ideal)
            assert set(want) == set(df.index)
            for q, v in want.items():
                assert df.loc[q, label] == pytest.approx(v, abs=1e-12), (label, q, t)


def test_other_measures_equal_the_functions_per_query():
    rng = np.random.default_rng(11)
    qrels, run = _random_collection(rng, 30)
    top = 4  # the fixed default top grade of ERR and GAP
    df = evaluate(qrels, run, ["ERR@10", "AR", "GAP", "MR@10", "FRP", "Hits@5"])
    for q in df.index:
        docs = sorted(run[q], key=lambda d: (run[q][d], d), reverse=True)
        g = [max(qrels[q].get(d, 0), 0) for d in docs]
        n_rel = sum(v >= 1 for v in qrels[q].values())
        counts = [sum(v == c for v in qrels[q].values()) for c in range(1, top + 1)]
        assert df.loc[q, "ERR@10"] == pytest.approx(rankeval.err(g, 10, max_grade=top))
        assert df.loc[q, "AR"] == pytest.approx(rankeval.average_recall(g, n_relevant=n_rel))
        assert df.loc[q, "GAP"] == pytest.approx(
            rankeval.graded_average_precision(g, max_grade=top, grade_counts=counts)
        )
        assert df.loc[q, "MR@10"] == pytest.approx(rankeval.mean_rank(g, 10, n_relevant=n_rel))
        assert df.loc[q, "FRP"] == pytest.approx(rankeval.first_relevant_position(g))
        assert df.loc[q, "Hits@5"] == rankeval.hits_at_k(g, 5)


def test_chunked_matrices_give_the_same_values(monkeypatch):
    rng = np.random.default_rng(2)
    qrels, run = _random_collection(rng, 40)
    measures = ["AP", "nDCG@5", "P@10", "FRP", "P"]
    want = evaluate(qrels, run, measures)
    monkeypatch.setattr(runs, "CELL_BUDGET", 40)  # a handful of queries per chunk
    pd.testing.assert_frame_equal(evaluate(qrels, run, measures), want)


# --- properties --------------------------------------------------------------------------

_collections = st.integers(0, 10**6).map(lambda s: _random_collection(np.random.default_rng(s), 8))


@given(_collections, st.randoms(use_true_random=False))
def test_order_of_the_run_does_not_matter(collection, random):
    qrels, run = collection
    shuffled = {}
    for q in random.sample(list(run), len(run)):
        docs = list(run[q].items())
        random.shuffle(docs)
        shuffled[q] = dict(docs)
    measures = ["AP", "nDCG@5", "P@3", "RR"]
    pd.testing.assert_frame_equal(
        evaluate(qrels, run, measures), evaluate(qrels, shuffled, measures)
    )


@given(_collections)
def test_monotone_rescaling_of_scores_changes_nothing(collection):
    qrels, run = collection
    rescaled = {q: {d: 3 * s - 7 for d, s in docs.items()} for q, docs in run.items()}
    measures = ["AP", "nDCG", "P@3", "R@5", "RR", "ERR@5"]
    pd.testing.assert_frame_equal(
        evaluate(qrels, run, measures), evaluate(qrels, rescaled, measures)
    )


@given(_collections)
def test_normalised_measures_lie_in_unit_interval(collection):
    qrels, run = collection
    df = evaluate(qrels, run, ["AP", "nDCG", "nDCG@3", "P@3", "R@5", "RR", "ERR@5", "RBP", "AR"])
    assert ((df >= 0) & (df <= 1 + 1e-12)).all().all()


@given(_collections)
def test_unjudged_extra_queries_change_nothing(collection):
    qrels, run = collection
    extra = dict(run, unjudged_query={"d1": 1.0, "d2": 0.5})
    pd.testing.assert_frame_equal(
        evaluate(qrels, run, ["AP", "nDCG"]), evaluate(qrels, extra, ["AP", "nDCG"])
    )


@settings(max_examples=40)
@given(st.integers(0, 10**6))
def test_file_dict_pandas_and_arrow_give_identical_results(seed):
    import tempfile
    from pathlib import Path

    import pyarrow as pa
    from conftest import trec_collection

    qrels, run = trec_collection(seed, n_queries=6, max_docs=12)
    measures = ["AP", "nDCG@5", "P@3", "RR", "Bpref", "NumRelRet", "R@10"]
    want = evaluate(qrels, run, measures)
    q = pd.DataFrame(
        [(k, d, g) for k, docs in qrels.items() for d, g in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    r = pd.DataFrame(
        [(k, d, s) for k, docs in run.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    pd.testing.assert_frame_equal(evaluate(q, r, measures), want)
    arrow = evaluate(pa.Table.from_pandas(q), pa.Table.from_pandas(r), measures)
    pd.testing.assert_frame_equal(arrow, want)
    with tempfile.TemporaryDirectory() as tmp:
        rankeval.write_qrels(qrels, Path(tmp) / "q")
        rankeval.write_run(run, Path(tmp) / "r")
        pd.testing.assert_frame_equal(evaluate(Path(tmp) / "q", Path(tmp) / "r", measures), want)


@settings(max_examples=25)
@given(st.integers(0, 10**6))
def test_polars_frames_give_the_results_of_dicts(seed):
    import polars as pl  # pinned in requirements-test.txt: missing is a failure, not a skip
    from conftest import trec_collection

    qrels, run = trec_collection(seed, n_queries=6, max_docs=12)
    measures = ["AP", "nDCG@5", "P@3", "RR", "Bpref", "NumRelRet", "R@10"]
    q = pl.DataFrame(
        [(k, d, g) for k, docs in qrels.items() for d, g in docs.items()],
        schema=["query_id", "doc_id", "relevance"], orient="row",
    )
    r = pl.DataFrame(
        [(k, d, s) for k, docs in run.items() for d, s in docs.items()],
        schema=["query_id", "doc_id", "score"], orient="row",
    )
    pd.testing.assert_frame_equal(evaluate(q, r, measures), evaluate(qrels, run, measures))


# --- judged documents the run does not retrieve -------------------------------------------


def test_gap_refuses_an_unretrieved_judged_grade_off_the_scale():
    # "z" is judged but not retrieved: its grade still sets GAP's denominator, so a
    # grade above max_grade (or a fractional one) is an error, as when it is retrieved
    run = {"q": {"a": 1.0, "b": 0.5}}
    with pytest.raises(ValueError, match=r"GAP: query 'q' has a judged grade of 5, above"):
        evaluate({"q": {"a": 1, "z": 5}}, run, ["GAP"])
    with pytest.raises(ValueError, match=r"2.5, not a whole number .*grades='trec_eval'"):
        evaluate({"q": {"a": 1, "z": 2.5}}, run, ["GAP"])
    # trec_eval's truncation makes 2.5 a 2; a negative grade is unjudged, not off the scale
    truncated = evaluate({"q": {"a": 1, "z": 2.5}}, run, ["GAP"], grades="trec_eval")
    as_two = evaluate({"q": {"a": 1, "z": 2}}, run, ["GAP"])
    assert truncated["GAP"].iloc[0] == as_two["GAP"].iloc[0]
    negative = evaluate({"q": {"a": 1, "z": -3}}, run, ["GAP"])["GAP"].iloc[0]
    assert negative == evaluate({"q": {"a": 1}}, run, ["GAP"])["GAP"].iloc[0]
    # on the right scale it counts: "a" (grade 1) is found, "z" (grade 5) is not
    got = evaluate({"q": {"a": 1, "z": 5}}, run, ["GAP(max_grade=5)"])["GAP(max_grade=5)"]
    # GAP = sum over relevant items at rank r of (prefix sum of g-bar) / r, divided by
    # the sum over relevant items of their g-bar: a (grade 1) alone at rank 1 counts
    # P(grade >= 1 is relevant) = 1/5; z (grade 5) counts 5/5 in the denominator
    assert got.iloc[0] == pytest.approx((1 / 5) / (1 / 5 + 5 / 5))


def test_gap_allocates_nothing_of_the_size_of_its_scale():
    # GAP's uniform scale cancels (G(i) = i/c above and below), so any top grade at or
    # above the data's gives the same values; a (queries x max_grade) matrix of judged
    # counts for max_grade=10**15 could not be allocated
    qrels = {"q1": {"a": 3, "b": 0, "c": 2}, "q2": {"x": 1, "y": 2}}
    run = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"y": 1.0, "x": 0.5, "w": 0.7}}
    small = evaluate(qrels, run, ["GAP(max_grade=3)", "GAP(max_grade=3)@1"])
    huge = evaluate(qrels, run, ["GAP(max_grade=1000000000000000)",
                                 "GAP(max_grade=1000000000000000)@1"])
    np.testing.assert_allclose(huge.to_numpy(), small.to_numpy(), rtol=1e-12)
    # q1: a (3) at rank 1; judged relevant a (3) and c (2): (3/3) / (3/3 + 2/3)
    assert small.loc["q1", "GAP(max_grade=3)"] == pytest.approx(1 / (1 + 2 / 3))


def test_gap_with_ideal_retrieved_counts_every_ranked_document():
    # ideal="retrieved": relevant counts come from the whole ranking, not only the top k,
    # for GAP as for AP; on binary grades GAP@k is AP@k
    qrels = {"q": {"a": 1, "b": 1, "z": 1}}
    run = {"q": {"c": 3.0, "a": 2.0, "b": 1.0}}
    df = evaluate(qrels, run, ["AP@2", "GAP(max_grade=1)@2", "AP", "GAP(max_grade=1)"],
                  ideal="retrieved")
    # a at rank 2 of the two relevant ranked documents (z is not ranked): (1/2) / 2
    assert df.loc["q", "AP@2"] == pytest.approx(0.25)
    assert df.loc["q", "GAP(max_grade=1)@2"] == pytest.approx(0.25)
    assert df.loc["q", "GAP(max_grade=1)"] == pytest.approx(df.loc["q", "AP"])


def test_ndcg_without_cutoff_blocks_by_the_judged_pool():
    # one query with 200,000 judged documents and 20,000 short rankings: padding every
    # query's ideal list to 200,000 would need 20,000 x 200,000 cells (32 GB)
    nq, big = 20_000, 200_000
    qrels = pd.DataFrame(
        {
            "query_id": np.r_[np.arange(nq), np.zeros(big - 1, int)],
            "doc_id": np.r_[np.zeros(nq, int), np.arange(1, big)],
            "relevance": 1,
        }
    )
    run = pd.DataFrame(
        {
            "query_id": np.repeat(np.arange(nq), 10),
            "doc_id": np.tile(np.arange(10), nq),
            "score": np.tile(np.arange(10, 0, -1.0), nq),
        }
    )
    got = evaluate(qrels, run, ["nDCG"])["nDCG"].to_numpy()
    # query 0: its ten documents are all relevant, against an ideal list of 200,000
    discount = 1 / np.log2(np.arange(2, big + 2))
    assert got[0] == pytest.approx(discount[:10].sum() / discount.sum())
    assert np.all(got[1:] == 1.0)  # each other query: its one relevant document first


def test_set_f_with_beta_zero_is_set_precision():
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": {"a": 3.0, "x": 2.0}}
    got = evaluate(qrels, run, ["SetF(beta=0)", "SetP"])
    assert got["SetF(beta=0)"].iloc[0] == got["SetP"].iloc[0] == 1 / 2


def test_judged_only_query_left_empty_scores_zero():
    # -J drops q1's two unjudged documents: nothing is left, and its relevant "a" was
    # not found (pytrec_eval gives NaN for the interpolated precisions here: 0/0)
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"x": 1}}
    run = {"q1": {"u": 1.0, "v": 0.5}, "q2": {"x": 1.0}}
    got = evaluate(qrels, run, ["IPrec@0.0", "AP", "P@5"], judged_only=True)
    assert got.loc["q1"].tolist() == [0.0, 0.0, 0.0]
    assert got.loc["q2"].tolist() == [1.0, 1.0, 1 / 5]


def test_dcg_measures_refuse_sums_past_float64():
    import warnings

    qrels = {"q": {"a": 1e308, "b": 1e308, "c": 1e308}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a clear error, not inf/nan after a RuntimeWarning
        for measure in ("DCG@3", "nDCG@3", "nDCG"):
            with pytest.raises(ValueError, match="DCG overflows float64"):
                evaluate(qrels, run, [measure])
    # the largest grades whose sums stay finite are scored
    half = {"q": {d: 1e307 for d in "abc"}}
    assert evaluate(half, run, ["nDCG@3"])["nDCG@3"].iloc[0] == pytest.approx(1.0)
