"""One request, one Plan (issue 45): made once, frozen, picklable, and what every entry
point runs. Each test fails on the code before the Plan: there was no plan, the bounded
path parsed the names again for every batch, ``evaluate`` refused ``gain=``,
``no_relevant=`` and ``recall_rounding=``, nDCG had the log2 discount only, and
``Evaluator.from_labels`` made up a document id per row."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval.evaluation.conventions import Conventions

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "d": 3}, "q2": {"x": 1, "y": 0}, "q3": {"z": 0}}
RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "e": 0.5, "d": 0.1},
       "q2": {"y": 1.0, "x": 0.5}, "q3": {"z": 0.3}}  # fmt: skip


# --- the plan itself ----------------------------------------------------------------------


def test_a_plan_pickles_and_equals_itself_after_a_round_trip():
    p = rankeval.plan(["nDCG@10", "MAP", "AP", "MR@10"], conventions="lightgbm",
                      ties="trec_eval")  # fmt: skip
    back = pickle.loads(pickle.dumps(p))
    assert back == p and hash(back) == hash(p)
    assert back.labels == ("nDCG@10", "MAP", "AP", "MR@10")
    # two names of one measure are two columns of one measure
    assert back.column_measures["MAP"] is back.measures[1] and back.columns[2][1] == 1
    assert back.aggregations == {"nDCG@10": "mean", "MAP": "mean", "AP": "mean",
                                 "MR@10": "mean"}  # fmt: skip
    assert back.lower_is_better["MR@10"] and not back.lower_is_better["AP"]
    # the conventions' measure parameters are given to the measures once, in the plan
    assert str(back.measures[0]) == "nDCG(dcg='exp-log2')@10"
    assert back.conventions.ties == "trec_eval" and back.conventions.no_relevant == 1.0
    with pytest.raises(dataclasses_frozen()):
        p.conventions = Conventions()


def dataclasses_frozen():
    import dataclasses

    return dataclasses.FrozenInstanceError


def test_evaluate_with_a_plan_is_evaluate_with_its_names_and_conventions():
    p = rankeval.plan(["nDCG@3", "P@2", "RR"], conventions="xgboost", missing="zero")
    want = rankeval.evaluate(QRELS, RUN, ["nDCG@3", "P@2", "RR"], conventions="xgboost",
                             missing="zero")  # fmt: skip
    pd.testing.assert_frame_equal(rankeval.evaluate(QRELS, RUN, p), want)
    with pytest.raises(TypeError, match="a Plan holds its conventions"):
        rankeval.evaluate(QRELS, RUN, p, ties="input")
    with pytest.raises(TypeError, match="a Plan holds its conventions"):
        rankeval.evaluate(QRELS, RUN, p, conventions="trec_eval")


def test_the_bounded_path_parses_the_names_once(tmp_path, monkeypatch):
    """The names are parsed when the plan is made, never again per batch or partition:
    the old path parsed them for every batch (and twice per name)."""
    import rankeval.evaluation.bounded as bounded
    import rankeval.measures.registry as registry

    rng = np.random.default_rng(3)
    path = tmp_path / "run.txt"
    lines = [f"q{q} Q0 d{d} 0 {rng.random():.3f} t" for q in range(30) for d in range(20)]
    order = rng.permutation(len(lines))  # shuffled: the partitioning pass
    path.write_text("\n".join(lines[i] for i in order) + "\n")
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(0, 20, 3)}
             for q in range(30)}  # fmt: skip
    names = ["nDCG@10", "AP", "MAP", "P@5", "ndcg_cut_10"]
    want = rankeval.evaluate(qrels, str(path), names, max_memory=None, missing="skip")
    calls = []
    real = registry._make
    monkeypatch.setattr(registry, "_make", lambda *a: calls.append(a[3]) or real(*a))
    monkeypatch.setattr(bounded, "_WHOLE_FACTOR", 10**12)  # stream even this small file
    monkeypatch.setattr(bounded, "_FIT_FACTOR", 10**12)
    monkeypatch.setattr(bounded, "block_size", lambda budget: 2000)  # many batches
    got = rankeval.evaluate(qrels, str(path), names, max_memory="1MB", missing="skip")
    pd.testing.assert_frame_equal(got, want)
    assert sorted(calls) == sorted(names), calls  # once per name, whatever the batches


def test_every_entry_point_takes_the_one_plan():
    """One plan, given to evaluate, the Evaluator and a distributed partition, computes
    the same table."""
    from rankeval.distributed.partition import evaluate_partition, union

    p = rankeval.plan(["nDCG@3", "RR", "P@2"], conventions="lightgbm", missing="skip")
    want = rankeval.evaluate(QRELS, RUN, p)
    ev = rankeval.Evaluator(QRELS, p)
    for q, docs in RUN.items():
        ev.update([q] * len(docs), list(docs), list(docs.values()))
    pd.testing.assert_frame_equal(ev.compute(), want)
    q = pd.DataFrame([(a, d, g) for a, ds in QRELS.items() for d, g in ds.items()],
                     columns=["query_id", "doc_id", "relevance"])  # fmt: skip
    r = pd.DataFrame([(a, d, s) for a, ds in RUN.items() for d, s in ds.items()],
                     columns=["query_id", "doc_id", "score"])  # fmt: skip
    part = evaluate_partition(union(q, r), p).set_index("query_id")
    assert part.index.tolist() == want.index.tolist()
    for label in p.labels:
        assert part[label].tolist() == want[label].tolist()


def test_the_command_line_is_built_from_a_plan():
    """The flags go through the one resolver: a preset (--conventions), the flags given
    over it, -c as missing="zero", --rounding as recall_rounding."""
    from rankeval.cli import _parse_args, _parse_items, _plan

    _, args = _parse_args(["--conventions", "lightgbm", "--ties", "trec_eval", "-l", "2", "-c",
                           "--rounding", "trec_eval9", "-m", "ndcg_cut.5", "map",
                           "iprec_at_recall.0.40", "qrels", "run"])  # fmt: skip
    measures, labels, _, _ = _parse_items(args.measures)
    p = _plan(measures, labels, args)
    want = Conventions(ties="trec_eval", ideal="retrieved", gain="exponential",
                       no_relevant=1.0, threshold=2, missing="zero", grades="float",
                       recall_rounding="trec_eval9")  # fmt: skip
    assert p.conventions == want
    # trec_eval's order of its measures
    assert p.labels == ("map", "iprec_at_recall_0.40", "ndcg_cut_5")
    assert [str(m) for m in p.measures] == ["AP", "IPrec(rounding='trec_eval9')@0.4",
                                            "nDCG(dcg='exp-log2')@5"]


# --- every setting is a keyword of evaluate ------------------------------------------------


def test_evaluate_takes_gain_no_relevant_and_recall_rounding():
    got = rankeval.evaluate(QRELS, RUN, ["nDCG@2", "P@1"], gain="exponential", no_relevant=1)
    # q1 ranks a (2), b (0): DCG@2 = 3 / 1; the ideal d (3), a (2): 7 + 3 / log2(3)
    assert got.loc["q1", "nDCG@2"] == pytest.approx(3 / (7 + 3 / math.log2(3)), abs=1e-15)
    assert got.loc["q3", "nDCG@2"] == 1.0 and got.loc["q3", "P@1"] == 1.0  # no relevant
    same = rankeval.evaluate(QRELS, RUN, ["nDCG@2", "P@1"],
                             conventions=Conventions(gain="exponential", no_relevant=1))
    pd.testing.assert_frame_equal(got, same)
    table = rankeval.evaluate(QRELS, RUN, ["nDCG@3"], gain=(0, 1, 5, 10))
    assert table.loc["q1", "nDCG@3"] == pytest.approx(
        (5 / 1 + 0 + 1 / 2) / (10 + 5 / math.log2(3) + 1 / 2), abs=1e-15)  # fmt: skip
    # recall_rounding: trec_eval 9's level of IPrec, as the pytrec_eval preset sets it
    levels = rankeval.evaluate(QRELS, RUN, ["IPrec@0.4"], recall_rounding="trec_eval9")
    preset = rankeval.evaluate(QRELS, RUN, ["IPrec@0.4"], conventions="pytrec_eval",
                               score_precision="double")  # fmt: skip
    pd.testing.assert_frame_equal(levels, preset)
    with pytest.raises(TypeError, match="did you mean 'gain'"):
        rankeval.evaluate(QRELS, RUN, ["nDCG@2"], gian="exponential")


# --- one DCG path ---------------------------------------------------------------------------

DISCOUNTS = [
    ("discount='log',log_base=10", dict(discount="log", log_base=10)),
    ("discount='jarvelin',log_base=3", dict(discount="jarvelin", log_base=3)),
    ("discount='linear'", dict(discount="linear")),
    ("discount='exponential',exp_base=3", dict(discount="exponential", exp_base=3)),
    ("discount='power',power_exponent=2,power_shift=1",
     dict(discount="power", power_shift=1, power_exponent=2)),
    ("discount='zipf',power_exponent=1.5", dict(discount="zipf", power_exponent=1.5)),
    ("discount='none'", dict(discount="none")),
    ("discount='linear',gain='exponential'", dict(discount="linear", gain="exponential")),
]


@pytest.mark.parametrize("k", [None, 3])
@pytest.mark.parametrize(("params", "keywords"), DISCOUNTS)
def test_evaluate_offers_every_discount_of_ndcg(params, keywords, k):
    """nDCG and DCG with ndcg's discounts through declared parameters: per query, the
    value of the public functions on the ranked grades (the judged grades as ideal)."""
    cut = "" if k is None else f"@{k}"
    names = [f"nDCG({params}){cut}", f"DCG({params}){cut}"]
    got = rankeval.evaluate(QRELS, RUN, names)
    for q, docs in RUN.items():
        ranked = [max(QRELS[q].get(d, 0), 0) for d in sorted(docs, key=lambda d: -docs[d])]
        ideal = [max(g, 0) for g in QRELS[q].values()]
        assert got.loc[q, names[0]] == rankeval.ndcg(ranked, k, ideal=ideal, **keywords)
        assert got.loc[q, names[1]] == rankeval.dcg(ranked, k, **keywords)


def test_discounts_by_hand_and_log2_against_pytrec_eval():
    # q1 ranks the grades 2, 0, 1, (unjudged), 3
    power = rankeval.evaluate(QRELS, RUN, ["DCG(discount='power',power_shift=1,"
                                           "power_exponent=2)@5"]).iloc[0, 0]  # fmt: skip
    assert power == pytest.approx(2 / 4 + 1 / 16 + 3 / 36, abs=1e-15)
    zipf = rankeval.evaluate(QRELS, RUN, ["DCG(discount='zipf')"]).iloc[0, 0]
    assert zipf == pytest.approx(2 / 1 + 1 / 3 + 3 / 5, abs=1e-15)
    log10 = rankeval.evaluate(QRELS, RUN, ["DCG(discount='log',log_base=10)@3"]).iloc[0, 0]
    assert log10 == pytest.approx(2 / math.log10(2) + 1 / math.log10(4), abs=1e-13)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ours = rankeval.evaluate(QRELS, RUN, ["nDCG(discount='log2')@3", "nDCG"])
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut_3", "ndcg"}).evaluate(RUN)
    for q in RUN:
        assert ours.loc[q, "nDCG(discount='log2')@3"] == pytest.approx(
            theirs[q]["ndcg_cut_3"], abs=1e-12)  # fmt: skip
        assert ours.loc[q, "nDCG"] == pytest.approx(theirs[q]["ndcg"], abs=1e-12)


def test_discount_parameters_are_checked_when_the_name_is_parsed():
    with pytest.raises(ValueError, match="log_base is read only by discount='log'"):
        rankeval.parse_measure("nDCG(log_base=10)@10")
    with pytest.raises(ValueError, match="log_base must be > 1"):
        rankeval.parse_measure("nDCG(discount='log',log_base=1)@10")
    with pytest.raises(ValueError, match="discount="):
        rankeval.parse_measure("nDCG(discount='cubic')@10")
    assert str(rankeval.parse_measure("nDCG(discount='log2')@10")) == "nDCG@10"


# --- rows without document ids --------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"ties": "input"}, {"ties": "average"},
                                     {"judged_only": True}, {"max_docs": 3},
                                     {"ideal": "retrieved", "max_docs": 2},
                                     {"score_precision": "float"}, {"grades": "trec_eval"}])
def test_ranked_block_is_rank_run_of_the_same_rows(options):
    """The one way from rows to ranked queries (evaluate_groups, Evaluator.from_labels)
    ranks them as rank_run ranks qrels and a run made of the same rows, with document
    ids that decrease with the row (trec_eval's ties: the earlier row first)."""
    from rankeval.evaluation.groups import codes_of_ids, ranked_block

    rng = np.random.default_rng(7)
    n = 200
    qid = rng.choice(["b", "a", "c10", "c9"], size=n)
    labels = rng.choice([-1, 0, 0, 1, 2.5, 3], size=n)
    scores = np.round(rng.random(n), 1) + rng.choice([0, 1e-9], size=n)  # ties, float32
    chosen = Conventions(**options)
    import pyarrow as pa

    codes, ids, _ = codes_of_ids(pa.array(qid))
    got = ranked_block(codes, ids, labels, scores, chosen)
    docs = [f"r{n - i:05d}" for i in range(n)]
    qrels = pd.DataFrame({"query_id": qid, "doc_id": docs, "relevance": labels})
    run = pd.DataFrame({"query_id": qid, "doc_id": docs, "score": scores})
    want = rankeval.rank_run(qrels, run, **chosen.ranking_options())
    assert got.query_ids.tolist() == want.query_ids.tolist()
    for name in ("grades", "offsets", "scores", "judged_offsets"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    starts = got.judged_offsets
    for i in range(len(ids)):  # the judged grades of each query, in any order
        a, b = starts[i], starts[i + 1]
        assert sorted(got.judged[a:b]) == sorted(want.judged[a:b])
    if options.get("ties") == "average":
        assert np.array_equal(got.tie_groups, want.tie_groups)


def test_from_labels_makes_up_no_document_id(monkeypatch):
    """The labels form ranks its rows itself: it never calls evaluate with made-up ids
    (the old path named row i document 2 * 10**18 - 1 - i)."""
    import rankeval.evaluation.incremental as incremental

    def refuse(*args, **kwargs):
        raise AssertionError("the labels form went through evaluate")

    monkeypatch.setattr(incremental, "evaluate", refuse)
    ev = rankeval.Evaluator.from_labels(["nDCG@2", "P@2"], conventions="lightgbm")
    ev.update(["q1", "q1", "q2"], labels=[2, 0, 0], scores=[0.1, 0.9, 0.3])
    ev.update(["q1", "q2"], labels=[1, 1], scores=[0.5, 0.8])
    got = ev.compute()
    want = rankeval.evaluate_groups([2, 0, 1, 0, 1], [0.1, 0.9, 0.5, 0.3, 0.8],
                                    ["q1", "q1", "q1", "q2", "q2"], ["nDCG@2", "P@2"],
                                    conventions="lightgbm")  # fmt: skip
    pd.testing.assert_frame_equal(got, want, check_names=False)


def test_distributed_means_read_the_aggregation_from_the_plan():
    # a column whose label is not a measure name: without the plan it is averaged, with the
    # plan it is summed as its measure (NumRet) says
    import pandas as pd

    import rankeval
    from rankeval.distributed.dask import means

    plan = rankeval.plan(["NumRet", "GMAP"])
    table = pd.DataFrame({"query_id": ["q1", "q2"], "NumRet": [3.0, 5.0], "GMAP": [0.5, 0.02]})
    got = means(table, plan=plan)
    assert got["NumRet"] == 8.0
    assert got["GMAP"] == pytest.approx((0.5 * 0.02) ** 0.5)
    with pytest.raises(ValueError, match="the plan has no column"):
        means(table.rename(columns={"NumRet": "other"}), plan=plan)
