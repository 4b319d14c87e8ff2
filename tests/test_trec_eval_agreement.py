"""Per-query agreement with trec_eval (through pytrec_eval) and with scikit-learn.

The generated collections (``conftest.trec_collection``) are built to hit
trec_eval's corner cases: ids of 1 to 40 bytes in one file, non-ASCII and
digit-only ids, many tied scores, relevant documents the run never
retrieved, graded and negative judgments, unjudged retrieved documents,
judged queries missing from the run, run queries without judgments, queries
whose judgments hold no relevant document, and runs shorter than the
cut-offs.

trec_eval quirks this suite pins down (rankeval's defaults reproduce them):

- ties in score are broken by document id, descending, compared as bytes
  (``"d9"`` ranks above ``"d10"``); the run's rank column is ignored;
- pytrec_eval(-terrier), like trec_eval 9, stores scores as 32-bit floats,
  so ``score_precision="float"`` is needed wherever scores differ only
  beyond float32 (trec_eval 10 compares doubles, rankeval's default);
- P@k divides by k; ``map_cut_k`` and ``recall_k`` divide by all relevant
  judged documents; ``ndcg``/``ndcg_cut_k`` use the grade as gain and an
  ideal list from every judged grade, and ignore ``relevance_level``;
- a negative grade is "in the pool but unjudged": not relevant, gain 0,
  not counted as judged non-relevant by bpref, dropped by ``-J``.

Every per-query value of every measure that pytrec_eval has agrees to 1e-9.
pytrec_eval only accepts integer grades, so the generated grades are integers.
"""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import trec_collection
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import aggregate, evaluate, parse_measure, write_qrels, write_run

pytrec_eval = pytest.importorskip("pytrec_eval")

# trec_eval's names, as pytrec_eval prints them; rankeval parses the same names
CUT_MEASURES = [
    "P_1", "P_5", "P_10", "P_30", "recall_5", "recall_100", "success_1", "success_5",
    "map_cut_5", "map_cut_10", "ndcg_cut_3", "ndcg_cut_10",
]  # fmt: skip
PLAIN_MEASURES = [
    "map", "recip_rank", "ndcg", "Rprec", "bpref", "11pt_avg", "infAP", "num_q", "num_ret",
    "num_rel", "num_rel_ret", "set_P", "set_recall", "set_F",
]  # fmt: skip
IPREC = [f"iprec_at_recall_{r:.2f}" for r in np.linspace(0, 1, 11)]
MEASURES = CUT_MEASURES + PLAIN_MEASURES + IPREC
# what pytrec_eval is asked for: families, as trec_eval's -m names them
REQUEST = {"P.1,5,10,30", "recall.5,100", "success.1,5", "map_cut.5,10", "ndcg_cut.3,10",
           "iprec_at_recall", *PLAIN_MEASURES}  # fmt: skip


def reference(qrels, run, **options):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, REQUEST, **options)
    return evaluator.evaluate(run)


# pytrec_eval-terrier is trec_eval 9: its recall levels round as (long)(r R + 0.9)
TREC9 = [
    f"{parse_measure(m).name}(rounding='trec_eval9')"
    + (f"@{parse_measure(m).cutoff}" if parse_measure(m).cutoff is not None else "")
    for m in IPREC + ["11pt_avg"]
]
OURS = [n for n in MEASURES if n not in IPREC and n != "11pt_avg"] + TREC9
THEIRS = [n for n in MEASURES if n not in IPREC and n != "11pt_avg"] + IPREC + ["11pt_avg"]


def check(ref, frame, names=None):
    assert set(frame.index) == set(ref)
    worst = 0.0
    pairs = zip(THEIRS, OURS, strict=True) if names is None else ((n, n) for n in names)
    pairs = list(pairs)
    rows = frame.to_dict("index")  # {query: {measure: value}}: one lookup per value, not .loc
    for q, values in ref.items():
        for name, label in pairs:
            ours = rows[q][label]
            if np.isnan(values[name]):
                # trec_eval's 0/0 on a ranking left empty by -J: rankeval says 0
                assert ours == 0 and rows[q]["num_ret"] == 0, (q, name, ours)
                continue
            diff = abs(values[name] - ours)
            worst = max(worst, diff)
            assert diff <= 1e-9, (q, name, values[name], ours)
    return worst


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_agrees_with_trec_eval(seed, level):
    qrels, run = trec_collection(seed)
    ref = reference(qrels, run, relevance_level=level)
    frame = evaluate(qrels, run, OURS, threshold=level, score_precision="float")
    check(ref, frame)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", [1, 3])
def test_agrees_with_trec_eval_judged_only(seed, level):
    qrels, run = trec_collection(100 + seed)
    ref = reference(qrels, run, relevance_level=level, judged_docs_only_flag=True)
    frame = evaluate(qrels, run, OURS, threshold=level, judged_only=True, score_precision="float")
    check(ref, frame)


def _files(tmp_path, qrels, run, shuffle_seed=None):
    write_qrels(qrels, tmp_path / "qrels.txt")
    write_run(run, tmp_path / "run.txt")
    if shuffle_seed is not None:
        rng = np.random.default_rng(shuffle_seed)
        for name in ("qrels.txt", "run.txt"):
            lines = (tmp_path / name).read_text(encoding="utf-8").splitlines(keepends=True)
            order = rng.permutation(len(lines))
            (tmp_path / name).write_text("".join(lines[i] for i in order), encoding="utf-8")
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


def _frames(qrels, run):
    q = pd.DataFrame(
        [(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    r = pd.DataFrame(
        [(qid, d, s) for qid, docs in run.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    return q, r


@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_trec_eval_from_files_frames_and_arrow(tmp_path, seed):
    qrels, run = trec_collection(200 + seed, n_queries=60)
    ref = reference(qrels, run)
    options = {"score_precision": "float"}
    from_dicts = evaluate(qrels, run, OURS, **options)
    check(ref, from_dicts)
    qpath, rpath = _files(tmp_path, qrels, run)
    from_files = evaluate(qpath, rpath, OURS, **options)
    check(ref, from_files)
    pd.testing.assert_frame_equal(from_files, from_dicts)
    qf, rf = _frames(qrels, run)
    pd.testing.assert_frame_equal(evaluate(qf, rf, OURS, **options), from_dicts)
    arrow = evaluate(pa.Table.from_pandas(qf), pa.Table.from_pandas(rf), OURS, **options)
    pd.testing.assert_frame_equal(arrow, from_dicts)


def test_shuffled_lines_give_identical_results(tmp_path):
    qrels, run = trec_collection(300, n_queries=50)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    qpath, rpath = _files(tmp_path / "a", qrels, run)
    want = evaluate(qpath, rpath, MEASURES)
    qpath2, rpath2 = _files(tmp_path / "b", qrels, run, shuffle_seed=1)
    pd.testing.assert_frame_equal(evaluate(qpath2, rpath2, MEASURES), want)


def test_files_larger_than_any_buffer(tmp_path):
    # ~3 MB of run: more than the readers' blocks; one long id at the very end
    rng = np.random.default_rng(4)
    qrels, run = {}, {}
    for i in range(900):
        q = f"q{i}"
        docs = [f"{rng.integers(0, 10 ** int(rng.integers(1, 9)))}-{j}" for j in range(100)]
        qrels[q] = {d: int(rng.integers(0, 3)) for d in docs[:20]}
        run[q] = {d: float(rng.integers(0, 50)) for d in docs}
    long_id = "x" * 40
    qrels["q899"][long_id] = 2
    run["q899"][long_id] = 100.0
    qpath, rpath = _files(tmp_path, qrels, run)
    assert rpath.stat().st_size > 2_000_000
    ref = reference(qrels, run)
    check(ref, evaluate(qpath, rpath, OURS, score_precision="float"))


def test_regression_ids_of_different_lengths(tmp_path):
    # issue 9: the join of the old reader missed ids longer than the others
    (tmp_path / "m.qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "m.run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 abcdefghij 2 1.0 r\n")
    frame = evaluate(tmp_path / "m.qrels", tmp_path / "m.run", ["P@1", "AP"])
    assert frame.loc["q1"].tolist() == [1.0, 1.0]


def test_score_precision_float_is_what_pytrec_eval_does():
    # scores that differ only beyond float32 tie in trec_eval 9 / pytrec_eval
    qrels = {"q": {"a": 1, "z": 0}}
    run = {"q": {"a": 1.0 + 1e-12, "z": 1.0}}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"P.1", "recip_rank"}).evaluate(run)
    assert ref["q"]["P_1"] == 0.0  # tie: "z" before "a" (doc id descending)
    float32 = evaluate(qrels, run, ["P_1", "recip_rank"], score_precision="float")
    assert float32.loc["q"].tolist() == [ref["q"]["P_1"], ref["q"]["recip_rank"]]
    double = evaluate(qrels, run, ["P_1", "recip_rank"])  # trec_eval 10
    assert double.loc["q"].tolist() == [1.0, 1.0]


def test_trec_eval_spellings_are_the_same_measures():
    for name in MEASURES:
        m = parse_measure(name)
        assert m.trec_eval_name == name, (name, str(m))


def test_infap_equals_ap_with_complete_judgments():
    qrels, run = trec_collection(9)
    complete = {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in qrels.items()}
    for q, docs in run.items():
        if q in complete:
            for d in docs:
                complete[q].setdefault(d, 0)
    frame = evaluate(complete, run, ["infAP", "AP"])
    np.testing.assert_allclose(frame["infAP"], frame["AP"], atol=1e-4)


@settings(max_examples=40)
@given(st.integers(0, 10**6), st.sampled_from([1, 2]), st.booleans())
def test_agrees_with_trec_eval_hypothesis(seed, level, judged_only):
    qrels, run = trec_collection(seed, n_queries=6, max_docs=12)
    ref = reference(qrels, run, relevance_level=level, judged_docs_only_flag=judged_only)
    frame = evaluate(
        qrels, run, OURS, threshold=level, judged_only=judged_only, score_precision="float"
    )
    check(ref, frame)


# --- scikit-learn: nDCG with tie-averaged gains and the ideal from the scored documents ---


@pytest.mark.parametrize("seed", range(6))
def test_ndcg_agrees_with_scikit_learn(seed):
    from sklearn.metrics import dcg_score, ndcg_score

    qrels, run = trec_collection(400 + seed)
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
    assert checked > 15


def test_scikit_learn_differs_under_trec_eval_conventions():
    from sklearn.metrics import ndcg_score

    qrels = {"q": {"a": 0, "b": 3, "c": 1, "unretrieved": 3}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}
    sk = ndcg_score([[0, 3, 1]], [[1.0, 1.0, 0.5]])
    assert evaluate(qrels, run, "nDCG", ties="average", ideal="retrieved")["nDCG"]["q"] == (
        pytest.approx(sk)
    )
    assert evaluate(qrels, run, "nDCG")["nDCG"]["q"] != pytest.approx(sk)


def test_text_stream_sources_agree(tmp_path):
    qrels, run = trec_collection(11, n_queries=10)
    qpath, rpath = _files(tmp_path, qrels, run)
    want = evaluate(qpath, rpath, ["AP", "P_5"])
    with open(qpath, "rb") as qf, open(rpath, "rb") as rf:
        got = evaluate(qf, rf, ["AP", "P_5"])
    pd.testing.assert_frame_equal(got, want)


# --- conventions="pytrec_eval": every measure pytrec_eval computes, untouched names ------
# (issue 52, item 5: the preset lacked trec_eval 9's recall levels, so 11pt_avg and
# iprec_at_recall differed on 154 of Cranfield's 225 queries)

#: every measure family pytrec_eval has, with its default parameters, but the two that
#: are not numbers (runid, relstring: rankeval has neither)
PYTREC_FAMILIES = sorted(pytrec_eval.supported_measures - {"runid", "relstring"})
GM_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN


def _cranfield(decimals=2, depth=100):
    """Cranfield's qrels (codes 1-4 as grades 4-1; its undocumented -1 kept as the
    negative grade it is, which trec_eval reads as pooled but unjudged) and a TF-IDF run
    of its 225 queries (numbered by position, as the qrels number them), top ``depth``,
    scores rounded to ``decimals`` so that many tie."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    data = Path(__file__).resolve().parents[1] / "data" / "cranfield"

    def texts(name):  # the .W field of every .I record
        records = re.split(r"^\.I ", (data / name).read_text(encoding="ascii"), flags=re.M)
        return [r.split("\n.W\n", 1)[1] if "\n.W\n" in r else "" for r in records[1:]]

    docs, queries = texts("cran.all.1400"), texts("cran.qry")
    qrels = {}
    for line in (data / "cranqrel").read_text(encoding="ascii").splitlines():
        if line.strip():
            q, d, code = line.split()
            qrels.setdefault(q, {})[d] = 5 - int(code) if int(code) > 0 else int(code)
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    matrix = vectorizer.fit_transform(docs)
    scores = (vectorizer.transform(queries) @ matrix.T).toarray()
    run = {}
    for i, row in enumerate(scores):
        top = np.argsort(-row, kind="stable")[:depth]
        run[str(i + 1)] = {str(j + 1): round(float(row[j]), decimals) for j in top}
    return qrels, run


def _check_preset(qrels, run, threshold=1, judged_only=False):
    """Every per-query value of every pytrec_eval measure, under conventions="pytrec_eval"
    and trec_eval's own names, equal to pytrec_eval's to 1e-12; gm_map and gm_bpref
    compared as pytrec_eval holds them per query (the log of the value floored at
    1e-5: rankeval's column holds AP and bpref, and aggregate takes their geometric
    mean), and their geometric means too."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_FAMILIES, relevance_level=threshold,
                                               judged_docs_only_flag=judged_only)  # fmt: skip
    ref = evaluator.evaluate(run)
    names = sorted(next(iter(ref.values())))
    assert len(names) == 93  # every value of the 32 families, defaults expanded
    frame = evaluate(qrels, run, names, conventions="pytrec_eval", threshold=threshold,
                     judged_only=judged_only)  # fmt: skip
    assert sorted(frame.index) == sorted(ref)
    rows = frame.to_dict("index")
    differ = {}
    for q, values in ref.items():
        for name in names:
            theirs, ours = values[name], rows[q][name]
            if name.startswith("gm_"):
                ours = np.log(max(ours, GM_FLOOR))
            if np.isnan(theirs):
                # trec_eval's 0/0 on a ranking left empty by -J: rankeval says 0
                assert judged_only and ours == 0 and rows[q]["num_ret"] == 0, (q, name)
                continue
            if not abs(theirs - ours) <= 1e-12:
                differ.setdefault(name, []).append((q, theirs, ours))
    assert not differ, {n: (len(v), v[:3]) for n, v in differ.items()}
    means = aggregate(frame)
    for name in ("gm_map", "gm_bpref"):
        logs = [values[name] for values in ref.values()]
        assert means[name] == pytest.approx(np.exp(np.mean(logs)), rel=1e-12)
    return frame


def test_pytrec_eval_preset_reproduces_every_measure_on_cranfield():
    qrels, run = _cranfield()
    frame = _check_preset(qrels, run)
    assert len(frame) == 225
    # the data hit what the preset is about: recall levels where the two roundings
    # differ, and scores that tie
    r = pd.Series({q: sum(g >= 1 for g in docs.values()) for q, docs in qrels.items()})
    assert any((level * r % 1).between(0.1, 0.5, inclusive="left").any()
               for level in np.linspace(0, 1, 11))  # fmt: skip
    assert sum(len(set(s.values())) < len(s) for s in run.values()) > 100
    nearest = evaluate(qrels, run, ["11pt_avg"], score_precision="float")
    assert (nearest["11pt_avg"] - frame["11pt_avg"]).abs().gt(1e-12).sum() > 100


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", [1, 2])
def test_pytrec_eval_preset_reproduces_every_measure_on_random_runs(seed, level):
    # ties, negative grades, unjudged documents, queries missing on either side
    qrels, run = trec_collection(500 + seed)
    _check_preset(qrels, run, threshold=level)


@pytest.mark.parametrize("seed", range(2))
def test_pytrec_eval_preset_reproduces_every_measure_judged_only(seed):
    qrels, run = trec_collection(600 + seed)
    _check_preset(qrels, run, judged_only=True)


def test_pytrec_eval_preset_reproduces_every_measure_on_cranfield_by_level():
    qrels, run = _cranfield(decimals=3)
    _check_preset(qrels, run, threshold=3)
