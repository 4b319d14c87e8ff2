"""Issue 52, items 3 and 6: no judged query leaves a mean without a word, and a qrels
dict that looks like a run is refused.

Item 3: a recommender's users without a list count by default (``missing=None`` chooses
``"zero"`` for a run of ranked lists), and a run with scores keeps trec_eval's rule (skip)
with a :class:`SkippedQueriesWarning` that says how many and names ``missing=``. The
oracle is trec_eval's per-query values (through pytrec_eval, which skips the users
without a list) and their sum over all 1,000 users, as ir_measures and ranx average them.

Item 6: ``evaluate(run, qrels)`` with two dicts swapped is refused, unless ``grades=``
says the fractional grades are meant.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval import Conventions, aggregate, evaluate, read_qrels, read_run
from rankeval.evaluation.bounded import evaluate_bounded
from rankeval.evaluation.core import SkippedQueriesWarning
from rankeval.evaluation.plan import make_plan
from rankeval.evaluation.runs import score_run

pytrec_eval = pytest.importorskip("pytrec_eval")

TOY = Path(__file__).resolve().parents[1] / "data" / "toy"
USERS = 1000


def recommender(seed: int = 52):
    """1,000 users with 1 to 5 liked items each (popular items liked more often);
    every tenth user has no list, the others a top-10 list drawn with the same
    popularity, so that some lists hit."""
    rng = np.random.default_rng(seed)
    items = np.array([f"i{j:03d}" for j in range(300)])
    weight = 1.0 / np.arange(1, 301)
    weight /= weight.sum()
    liked, lists = {}, {}
    for u in range(USERS):
        user = f"u{u:04d}"
        n = int(rng.integers(1, 6))
        liked[user] = set(rng.choice(items, size=n, replace=False, p=weight).tolist())
        if u % 10 != 3:
            lists[user] = rng.choice(items, size=10, replace=False, p=weight).tolist()
    return liked, lists


def scored(lists):
    """The lists as a scored run: 10 for the first item, 1 for the tenth."""
    return {u: {item: float(len(items) - i) for i, item in enumerate(items)}
            for u, items in lists.items()}


def oracle_sums(liked, lists):
    """trec_eval's per-user P@10 and nDCG@10 (pytrec_eval), summed over the users it
    scores (those with a list), and how many it scores."""
    qrels = {u: {item: 1 for item in items} for u, items in liked.items()}
    per_user = pytrec_eval.RelevanceEvaluator(qrels, {"P.10", "ndcg_cut.10"}).evaluate(
        scored(lists))
    p = sum(v["P_10"] for v in per_user.values())
    ndcg = sum(v["ndcg_cut_10"] for v in per_user.values())
    return p, ndcg, len(per_user)


@pytest.fixture(scope="module")
def example():
    liked, lists = recommender()
    p, ndcg, scored_users = oracle_sums(liked, lists)
    assert scored_users == 900 and len(liked) == USERS
    return liked, lists, p, ndcg


@contextlib.contextmanager
def no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.mark.parametrize("form", [list, tuple, np.array])
def test_ranked_lists_count_every_judged_user(example, form):
    liked, lists, p, ndcg = example
    run = {u: form(items) for u, items in lists.items()}
    with no_warning():
        table = evaluate(liked, run, ["P@10", "nDCG@10"])
    assert len(table) == USERS
    means = aggregate(table)
    assert means["P@10"] == pytest.approx(p / USERS, abs=1e-12)
    assert means["nDCG@10"] == pytest.approx(ndcg / USERS, abs=1e-12)
    # the users without a list score 0, and the mean is 9/10 of the mean over 900
    assert (table.loc[[f"u{u:04d}" for u in range(3, USERS, 10)]] == 0).all().all()
    assert means["P@10"] == pytest.approx(0.9 * p / 900, abs=1e-12)


def test_a_frame_of_ranks_counts_every_judged_user(example):
    liked, lists, p, ndcg = example
    rows = [(u, item, rank) for u, items in lists.items()
            for rank, item in enumerate(items, start=1)]
    frame = pd.DataFrame(rows, columns=["user", "item", "position"])
    names = {"query_id": "user", "doc_id": "item", "rank": "position"}
    with no_warning():
        table = evaluate(liked, frame, ["P@10", "nDCG@10"], columns=names)
    assert len(table) == USERS
    assert aggregate(table)["nDCG@10"] == pytest.approx(ndcg / USERS, abs=1e-12)


@pytest.mark.parametrize("form", ["dict", "frame"])
def test_a_run_with_scores_skips_with_a_warning(example, form):
    liked, lists, p, ndcg = example
    run = scored(lists)
    if form == "frame":
        run = pd.DataFrame([(u, d, s) for u, docs in run.items() for d, s in docs.items()],
                           columns=["query_id", "doc_id", "score"])
    with pytest.warns(SkippedQueriesWarning,
                      match=r"^100 of the 1000 judged queries .*missing='zero'") as caught:
        table = evaluate(liked, run, ["P@10", "nDCG@10"])
    [warning] = [w for w in caught if w.category is SkippedQueriesWarning]
    assert (warning.message.skipped, warning.message.judged) == (100, USERS)
    assert warning.filename == __file__  # it points at the caller's line
    assert len(table) == 900  # trec_eval's rule: the mean over the users it scores
    means = aggregate(table)
    assert means["P@10"] == pytest.approx(p / 900, abs=1e-12)
    assert means["nDCG@10"] == pytest.approx(ndcg / 900, abs=1e-12)


def test_an_explicit_missing_is_silent(example):
    liked, lists, p, ndcg = example
    with no_warning():
        skipped = evaluate(liked, scored(lists), ["nDCG@10"], missing="skip")
        counted = evaluate(liked, scored(lists), ["nDCG@10"], missing="zero")
        listed = evaluate(liked, lists, ["nDCG@10"], missing="skip")
    assert len(skipped) == len(listed) == 900 and len(counted) == USERS
    assert aggregate(counted)["nDCG@10"] == pytest.approx(ndcg / USERS, abs=1e-12)
    pd.testing.assert_frame_equal(skipped, listed)


def test_the_default_is_a_convention_of_its_own():
    assert Conventions().missing is None and Conventions().grades is None
    liked = {"u1": {"a"}, "u2": {"b"}}
    with no_warning():  # a preset leaves the choice by form alone
        table = evaluate(liked, {"u1": ["a"]}, ["P@1"], conventions="trec_eval")
    assert table["P@1"].tolist() == [1.0, 0.0]


def test_ranking_options_resolve_the_defaults_for_rank_run():
    chosen = Conventions()
    assert chosen.ranking_options()["missing"] == "skip"
    assert chosen.ranking_options({"u1": ["a"]})["missing"] == "zero"
    assert chosen.ranking_options({"u1": {"a": 1.0}})["missing"] == "skip"
    ranks = pd.DataFrame({"user": ["u1"], "item": ["a"], "rank": [1]})
    assert chosen.ranking_options(ranks, {"query_id": "user"})["missing"] == "zero"
    assert chosen.ranking_options(ranks.assign(score=1.0))["missing"] == "skip"
    assert chosen.ranking_options(str(TOY / "bm25.run"))["missing"] == "skip"
    assert chosen.ranking_options()["grades"] == "float"
    ranked = rankeval.rank_run({"u1": {"a"}, "u2": {"b"}}, {"u1": ["a"]},
                               **chosen.ranking_options({"u1": ["a"]}))
    assert ranked.query_ids.tolist() == ["u1", "u2"]


def test_no_warning_when_every_judged_query_is_ranked():
    with no_warning():
        table = evaluate(str(TOY / "qrels.txt"), str(TOY / "bm25.run"), ["AP"])
    assert len(table) == 20


def test_no_query_in_common_keeps_its_message():
    qrels = {"q1": {"d1": 1}}
    with pytest.raises(ValueError, match=r"no query in common \(run: 1 queries, e.g. \['zz'\]"):
        evaluate(qrels, {"zz": {"d1": 1.5}}, ["P@1"])
    stream = io.StringIO("q1 0 d1 1\n")
    with pytest.raises(ValueError, match=r"no query in common \(qrels: 1 queries"):
        evaluate(stream, {"zz": {"d1": 1.5}}, ["P@1"])


def test_mean_rank_without_a_cut_off_asks_for_one_for_a_user_without_a_list():
    with pytest.raises(ValueError, match=r"MR without a cut-off .*'u2'.*missing='zero'"):
        evaluate({"u1": {"a"}, "u2": {"b"}}, {"u1": ["a"]}, ["MR"])


def write_run(path, run, shuffle=None):
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    if shuffle is not None:
        rows = [rows[i] for i in np.random.default_rng(shuffle).permutation(len(rows))]
    path.write_text("".join(f"{q} Q0 {d} {r} {s!r} tag\n" for r, (q, d, s) in enumerate(rows)))
    return path


@pytest.mark.parametrize("shuffle", [None, 7])
def test_a_run_file_warns_on_the_whole_and_the_bounded_path(tmp_path, example, shuffle):
    liked, lists, p, ndcg = example
    path = write_run(tmp_path / "run.txt", scored(lists), shuffle)
    measures = ["P@10", "nDCG@10"]
    with pytest.warns(SkippedQueriesWarning, match="^100 of the 1000"):
        whole = evaluate(liked, str(path), measures, max_memory=None)
    chosen = rankeval.evaluation.conventions.conventions()
    with pytest.warns(SkippedQueriesWarning, match="^100 of the 1000") as caught:
        bounded, in_run = evaluate_bounded(score_run, liked, str(path), make_plan(measures, chosen),
                                           1 << 20, block=2000, partitions=3)
    assert sum(w.category is SkippedQueriesWarning for w in caught) == 1
    pd.testing.assert_frame_equal(whole, bounded, check_exact=True)
    assert len(bounded) == 900 and in_run.all()
    assert aggregate(bounded)["nDCG@10"] == pytest.approx(ndcg / 900, abs=1e-12)
    with no_warning():  # explicit: silent on the bounded path too
        evaluate_bounded(score_run, liked, str(path),
                         make_plan(measures, chosen.replace(missing="skip")), 1 << 20, block=2000, partitions=3)


def test_the_command_line_prints_trec_eval_lines_and_no_warning(tmp_path, example):
    from rankeval.cli import main

    liked, lists, p, ndcg = example
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{u} 0 {i} 1\n" for u, items in liked.items() for i in items))
    run = write_run(tmp_path / "run.txt", scored(lists))
    out, err = io.StringIO(), io.StringIO()
    with no_warning(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["-m", "num_q", "-m", "P.10", "-m", "ndcg_cut.10", str(qrels),
                         str(run)])
    assert code == 0 and err.getvalue() == ""
    lines = {line.split()[0]: line.split()[2] for line in out.getvalue().splitlines()}
    # trec_eval's numbers: the users with a list (num_q 900), as without -c
    assert lines["num_q"] == "900"
    assert lines["P_10"] == f"{p / 900:.4f}" and lines["ndcg_cut_10"] == f"{ndcg / 900:.4f}"


def test_an_evaluator_warns_for_the_queries_it_never_saw():
    ev = rankeval.Evaluator({"q1": {"a": 1}, "q2": {"b": 1}}, ["P@1"])
    ev.update(["q1"], ["a"], [0.5])
    with pytest.warns(SkippedQueriesWarning, match="^1 of the 2 judged queries"):
        assert len(ev.compute()) == 1


# --- item 6: qrels and run swapped --------------------------------------------------


def toy():
    return read_qrels(str(TOY / "qrels.txt")), read_run(str(TOY / "bm25.run"))


def test_a_run_given_as_qrels_is_refused():
    qrels, run = toy()
    with pytest.raises(ValueError, match=r"qrels\['q1'\]\['d20'\] is 11\.061.*grades='float'"):
        evaluate(run, qrels, ["nDCG@10"])


def test_the_right_order_and_an_explicit_grades_go_on():
    qrels, run = toy()
    expected = pytrec_eval.RelevanceEvaluator(
        {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()},
        {"ndcg_cut.10"}).evaluate(run)
    right = evaluate(qrels, run, ["nDCG@10"])
    assert aggregate(right)["nDCG@10"] == pytest.approx(
        np.mean([v["ndcg_cut_10"] for v in expected.values()]), abs=1e-12)
    # said to be meant: the swapped inputs are scored as given (the 0.6428)
    swapped = evaluate(run, qrels, ["nDCG@10"], grades="float")
    assert round(aggregate(swapped)["nDCG@10"], 4) == 0.6428
    assert round(aggregate(right)["nDCG@10"], 4) == 0.5217


def test_fractional_grades_with_lists_frames_or_real_scores_are_no_swap():
    ratings = {"u1": {"a": 4.5, "b": 3.0}, "u2": {"c": 0.5}}
    with no_warning():
        evaluate(ratings, {"u1": ["a", "b"], "u2": ["c"]}, ["nDCG@2"])  # lists
        evaluate(ratings, {"u1": {"a": 0.7, "b": 2.0}, "u2": {"c": 1.0}}, ["nDCG@2"])
        frame = pd.DataFrame({"query_id": ["u1", "u1", "u2"], "doc_id": ["a", "b", "c"],
                              "relevance": [4.5, 3.0, 0.5]})
        run = pd.DataFrame({"query_id": ["u1", "u1", "u2"], "doc_id": ["a", "b", "c"],
                            "score": [2, 1, 1]})
        evaluate(frame, run, ["nDCG@2"])  # frames: told apart by their columns
    whole = {"u1": {"a": 2, "b": 1}, "u2": {"c": 1}}
    with pytest.raises(ValueError, match="grades='float'"):
        evaluate(ratings, whole, ["nDCG@2"])
    for grades in ("float", "trec_eval"):
        evaluate(ratings, whole, ["nDCG@2"], grades=grades)
