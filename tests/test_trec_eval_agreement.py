"""Per-query agreement with trec_eval (through pytrec_eval) and with scikit-learn.

The generated collections are built to hit trec_eval's corner cases: many tied
scores, relevant documents the run never retrieved, graded and negative
judgments, judged queries missing from the run, run queries without
judgments, queries whose judgments hold no relevant document, and runs
shorter than the cut-off.

trec_eval quirks this suite pins down (rankeval's defaults reproduce them):

- ties in score are broken by document id, descending, compared as strings
  (``"d9"`` ranks above ``"d10"``); the run's rank column is ignored;
- P@k divides by k even when fewer than k documents were retrieved;
- ``map_cut_k`` (AP@k) divides by *all* relevant judged documents, not by
  min(k, R); ``recall_k`` likewise;
- ``ndcg`` / ``ndcg_cut_k`` use the grade itself as gain (no 2^g - 1), the
  discount log2(rank + 1), and an ideal list built from every judged grade
  (cut at k for ``ndcg_cut``); they ignore ``relevance_level``;
- a negative grade is a judged non-relevant document with gain 0 (not a
  negative gain), but with ``judged_docs_only_flag`` (``-J``) it is dropped
  like an unjudged document, because trec_eval stores "unjudged" as a
  negative grade internally;
- a judged query with no relevant document is evaluated and scores 0
  everywhere; a judged query absent from the run is left out (no ``-c`` in
  pytrec_eval); a run query without judgments is ignored, and so is a qrels
  entry with no judgment (``{"q": {}}`` in the qrels); a run entry with no
  documents (``{"q": {}}`` in the run) is evaluated as an empty ranking (all 0).

Nothing in P@k, R@k, Success@k, AP, AP@k, RR, nDCG and nDCG@k differs: every
per-query value agrees to 1e-9. pytrec_eval only accepts integer grades, so
the generated grades are integers.
"""

import numpy as np
import pytest

from rankeval import evaluate, write_qrels, write_run

pytrec_eval = pytest.importorskip("pytrec_eval")

# trec_eval name -> rankeval name
MEASURES = {
    "P_1": "P@1",
    "P_5": "P@5",
    "P_10": "P@10",
    "P_30": "P@30",  # longer than most rankings
    "recall_5": "R@5",
    "recall_100": "R@100",
    "success_1": "Success@1",
    "success_5": "Success@5",
    "map": "AP",
    "map_cut_5": "AP@5",
    "map_cut_10": "AP@10",
    "recip_rank": "RR",
    "ndcg": "nDCG",
    "ndcg_cut_3": "nDCG@3",
    "ndcg_cut_10": "nDCG@10",
}


def collection(seed, n_queries=60):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for i in range(n_queries):
        q = f"{rng.integers(0, 10**5)}_{i}"  # numeric-looking ids stay strings
        pool = list(dict.fromkeys(f"d{rng.integers(0, 80)}" for _ in range(40)))
        judged = rng.choice(pool, size=int(rng.integers(1, len(pool))), replace=False)
        grades = rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3, 4], size=judged.size)
        if rng.random() < 0.1:
            grades = np.minimum(grades, 0)  # no relevant document at all
        qrels[q] = {str(d): int(g) for d, g in zip(judged, grades, strict=True)}
        for j in range(int(rng.integers(0, 4))):  # relevant, never retrieved
            qrels[q][f"missed{j}"] = int(rng.integers(1, 4))
        if rng.random() < 0.15:
            continue  # judged query missing from the run
        n = int(rng.integers(1, len(pool) + 1))
        docs = rng.choice(pool, size=n, replace=False)
        if rng.random() < 0.5:
            scores = rng.integers(0, 5, size=n) / 2.0  # heavy ties
        else:
            scores = np.round(rng.normal(size=n), int(rng.integers(1, 4)))
        run[q] = {str(d): float(s) for d, s in zip(docs, scores, strict=True)}
    run["not_judged"] = {"d1": 2.0, "d2": 1.0}
    qrels["no_judgments"] = {}  # not a judged query: pytrec_eval leaves it out
    run["no_judgments"] = {"d1": 1.0}
    run[next(iter(qrels))] = {}  # an empty ranking
    return qrels, run


def check(reference, frame, names=MEASURES):
    assert set(frame.index) == set(reference)
    worst = 0.0
    for q, values in reference.items():
        for trec_name, ours in names.items():
            diff = abs(values[trec_name] - frame.loc[q, ours])
            worst = max(worst, diff)
            assert diff <= 1e-9, (q, trec_name, values[trec_name], frame.loc[q, ours])
    return worst


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", [1, 2])
def test_agrees_with_trec_eval(seed, level):
    qrels, run = collection(seed)
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES), relevance_level=level).evaluate(run)
    frame = evaluate(qrels, run, list(MEASURES.values()), threshold=level)
    check(reference, frame)


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_trec_eval_judged_only(seed):
    qrels, run = collection(100 + seed)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES), judged_docs_only_flag=True)
    frame = evaluate(qrels, run, list(MEASURES.values()), judged_only=True)
    check(evaluator.evaluate(run), frame)


def test_agrees_with_trec_eval_from_files(tmp_path):
    qrels, run = collection(7)
    del run[next(iter(qrels))]  # a file cannot hold an empty ranking
    write_qrels(qrels, tmp_path / "qrels.txt")
    write_run(run, tmp_path / "run.txt")
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    check(reference, evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", list(MEASURES.values())))


def test_trec_eval_spellings_agree(tmp_path):
    qrels, run = collection(3)
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    frame = evaluate(qrels, run, list(MEASURES))  # "P_5", "map_cut_10", ... as column names
    check(reference, frame, {k: k for k in MEASURES})


# --- scikit-learn: nDCG with tie-averaged gains and the ideal from the scored documents ---


@pytest.mark.parametrize("seed", range(8))
def test_ndcg_agrees_with_scikit_learn(seed):
    from sklearn.metrics import dcg_score, ndcg_score

    qrels, run = collection(200 + seed)
    cutoffs = [None, 1, 3, 10]
    names = [f"nDCG@{k}" if k else "nDCG" for k in cutoffs] + ["DCG@5"]
    frame = evaluate(qrels, run, names, ties="average", ideal="retrieved")
    checked = 0
    for q in frame.index:
        docs = list(run[q])
        if len(docs) < 2:  # scikit-learn needs two documents or more
            continue
        y_true = np.array([[max(qrels[q].get(d, 0), 0) for d in docs]])
        y_score = np.array([[run[q][d] for d in docs]])
        for k, name in zip(cutoffs, names, strict=False):
            assert abs(frame.loc[q, name] - ndcg_score(y_true, y_score, k=k)) <= 1e-9
        assert abs(frame.loc[q, "DCG@5"] - dcg_score(y_true, y_score, k=5)) <= 1e-9
        checked += 1
    assert checked > 20


def test_scikit_learn_differs_under_trec_eval_conventions():
    # The same documents under trec_eval's conventions: ties broken by id and the
    # ideal from every judged grade; the two tools then disagree, as they should.
    from sklearn.metrics import ndcg_score

    qrels = {"q": {"a": 0, "b": 3, "c": 1, "unretrieved": 3}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}
    sk = ndcg_score([[0, 3, 1]], [[1.0, 1.0, 0.5]])
    assert evaluate(qrels, run, "nDCG", ties="average", ideal="retrieved")["nDCG"]["q"] == pytest.approx(sk)
    assert evaluate(qrels, run, "nDCG")["nDCG"]["q"] != pytest.approx(sk)
