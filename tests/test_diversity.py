"""alpha-nDCG and ERR-IA (ndeval's conventions): arithmetic, properties, pyndeval oracle."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.metrics import diversity
from rankeval.metrics.diversity import _ideal_ideal, alpha_ndcg, err_ia

nan = np.nan


def _d(i):  # ndeval's discount at 0-based rank i
    return 1.0 if i == 0 else np.log(2.0) / np.log(i + 2.0)


# --- arithmetic ---------------------------------------------------------------------


def test_alpha_dcg_by_hand():
    # Subtopics A, B. Run: {A}, {A, B}, {}, {B}. alpha = 0.5.
    # Gains: 1; 0.5 (A seen once) + 1 (B new); 0; 0.5 (B seen once).
    run = [[1, 0], [1, 1], [0, 0], [0, 1]]
    dcg = 1 + 1.5 * _d(1) + 0 + 0.5 * _d(3)
    # Ideal-ideal, S = 2: 2, 2(0.5), 2(0.25), 2(0.125) with the same discounts.
    norm = 2 + 1 * _d(1) + 0.5 * _d(2) + 0.25 * _d(3)
    got = alpha_ndcg(run, 4, normalization="ideal_ideal")
    assert got == pytest.approx(dcg / norm, abs=1e-15)
    # Greedy ideal of the same four documents: {A, B} (2), {A} (0.5), {B} (0.5), {}.
    ideal = 2 + 0.5 * _d(1) + 0.5 * _d(2)
    assert alpha_ndcg(run, 4) == pytest.approx(dcg / ideal, abs=1e-12)


def test_err_ia_by_hand():
    # Same run, reciprocal-rank discount; nERR-IA against the greedy ideal.
    run = [[1, 0], [1, 1], [0, 0], [0, 1]]
    err = 1 + 1.5 / 2 + 0 + 0.5 / 4
    norm = 2 + 1 / 2 + 0.5 / 3 + 0.25 / 4
    assert err_ia(run, 4) == pytest.approx(err / norm, abs=1e-15)
    ideal = 2 + 0.5 / 2 + 0.5 / 3
    assert err_ia(run, 4, normalization="ideal") == pytest.approx(err / ideal, abs=1e-12)


def test_judgments_beyond_the_run_and_unjudged_rows():
    # The run shows {A} and an unjudged document; the qrels also hold a {B} document.
    run = [[1, 0], [nan, nan]]
    judged = [[0, 1], [1, 0]]
    got = alpha_ndcg(run, 2, judgments=judged)
    assert got == pytest.approx(1 / (1 + 1 * _d(1)), abs=1e-12)
    # Subtopic C (third column) never relevant in the judgments does not count: S = 2.
    got = err_ia([[1, 0, 0]], 1, judgments=[[1, 0, 0], [0, 1, 0]])
    assert got == 1.0  # ndeval leaves depth 1 undivided
    assert err_ia([[1, 0, 0], [0, 0, 0]], 2, judgments=[[1, 0, 0], [0, 1, 0]]) == 1 / (2 + 0.5)


def test_threshold_and_no_relevant():
    assert alpha_ndcg([[1, 0], [2, 0]], 2, threshold=2) == pytest.approx(
        (0 + 1 * _d(1)) / 1, abs=1e-15
    )
    assert alpha_ndcg([[0, 0]], 5) == 0.0
    assert err_ia([[nan, 0]], 5) == 0.0


# --- properties ---------------------------------------------------------------------

subtopic_rows = st.integers(1, 4).flatmap(
    lambda m: st.lists(
        st.lists(st.sampled_from([0.0, 1.0, nan]), min_size=m, max_size=m), min_size=1, max_size=8
    )
)


@settings(max_examples=40)
@given(subtopic_rows, st.integers(1, 10), st.sampled_from([0.3, 0.5]))
def test_ranges_and_ideal_scores_one(run, k, alpha):
    value = alpha_ndcg(run, k, alpha=alpha)
    assert 0 <= value <= 1 + 1e-12
    assert 0 <= err_ia(run, k, alpha=alpha, normalization="ideal") <= 1 + 1e-12
    unnormalized_at_1 = np.sum(np.nan_to_num(np.array(run[0])) >= 1)  # ndeval's quirk at k = 1
    top = 1 + 1e-12 if k > 1 else unnormalized_at_1
    assert 0 <= err_ia(run, k, alpha=alpha) <= top
    assert 0 <= alpha_ndcg(run, k, alpha=alpha, normalization="ideal_ideal") <= top
    # Reordered as the greedy ideal, the run scores 1 (if it has any relevant document).
    rel = np.nan_to_num(np.array(run)) >= 1
    if rel.any():
        from rankeval.metrics.diversity import _greedy_ideal

        ideal = _greedy_ideal(rel, alpha, len(run)).astype(float)
        assert alpha_ndcg(ideal, k, alpha=alpha, judgments=run) == pytest.approx(1, abs=1e-12)


@settings(max_examples=30)
@given(st.lists(subtopic_rows, min_size=1, max_size=4), st.integers(1, 10))
def test_batch_equals_per_query(runs, k):
    got = alpha_ndcg(runs, k)
    np.testing.assert_array_equal(got, [alpha_ndcg(r, k) for r in runs])
    got = err_ia(runs, k, normalization="ideal")
    np.testing.assert_array_equal(got, [err_ia(r, k, normalization="ideal") for r in runs])


# --- any k: the work follows the lists, not k -----------------------------------------


def _reference(run, k, alpha, kind, normalization, judged=None):
    """One query by the definitions, rank by rank in plain Python floats."""
    run = [[g >= 1 for g in row] for row in run]  # NaN >= 1 is False
    judged = run if judged is None else [[g >= 1 for g in row] for row in judged]
    m = len(run[0])

    def w(i):
        if kind == "err":
            return 1 / (i + 1)
        return 1.0 if i == 0 else math.log(2) / math.log(i + 2)

    def gain(row, seen):
        return sum((1 - alpha) ** seen[j] for j in range(m) if row[j])

    def measure(rows):
        seen, total = [0] * m, 0.0
        for i, row in enumerate(rows[:k]):
            total += gain(row, seen) * w(i)
            seen = [c + r for c, r in zip(seen, row, strict=True)]
        return total

    n_subtopics = sum(any(row[j] for row in judged) for j in range(m))
    if n_subtopics == 0:
        return 0.0
    norm = 1.0 if k == 1 else sum(n_subtopics * (1 - alpha) ** i * w(i) for i in range(k))
    value = measure(run) / norm
    if normalization == "ideal_ideal" or value == 0:
        return value
    ideal, left, seen = [], list(judged), [0] * m
    while left and len(ideal) < k:
        gains = [gain(row, seen) for row in left]
        ideal.append(left.pop(gains.index(max(gains))))  # the first row wins ties
        seen = [c + r for c, r in zip(seen, ideal[-1], strict=True)]
    return value / (measure(ideal) / norm)


def _judging(run, others, others_first):
    """The ranking and its query's judged documents: the ranking's and ``others``."""
    return run, (others + run if others_first else run + others)


# A ranking, and judgments that hold its documents (judged documents are all the
# ranking's and others; diversity refuses fewer), in an order that starts with the
# others half the time.
run_and_judgments = st.integers(1, 4).flatmap(
    lambda m: st.tuples(
        *[
            st.lists(
                st.lists(st.sampled_from([0.0, 1.0, nan]), min_size=m, max_size=m),
                min_size=min_size,
                max_size=size,
            )
            for min_size, size in ((1, 8), (0, 4))
        ],
        st.booleans(),
    ).map(lambda parts: _judging(*parts))
)
MEASURES = [(alpha_ndcg, "dcg"), (err_ia, "err")]
NORMALIZATIONS = ["ideal", "ideal_ideal"]


# alpha = 0.25, 0.5, 0.75: dyadic, so gains that tie in exact arithmetic tie in floats and
# the greedy ideal of the reference picks the same rows as the one of the library.
@settings(max_examples=40)
@given(run_and_judgments, st.sampled_from([0.25, 0.5, 0.75]), st.booleans())
def test_a_huge_k_equals_the_depth_the_data_fills(lists, alpha, in_list):
    run, judged = lists
    judgments = "in_list" if in_list else judged
    cap = max(len(run), len(judged))  # the longest list the run or the ideal can have
    # Past the lists only the ideal-ideal normaliser grows, and its terms
    # S (1 - alpha)^i w(i) vanish in float64 well before rank 1000 for these alphas.
    deep = 1000
    for fn, kind in MEASURES:
        for normalization in NORMALIZATIONS:
            opts = {"alpha": alpha, "judgments": judgments, "normalization": normalization}
            ref = {"judged": None if in_list else judged}
            huge = fn(run, 10**12, **opts)
            assert huge == fn(run, deep, **opts) == fn(run, 10**400, **opts)
            assert huge == pytest.approx(
                _reference(run, deep, alpha, kind, normalization, **ref), rel=1e-12, abs=1e-300
            )
            if normalization == "ideal":  # no normaliser left: the value at the cap
                assert huge == pytest.approx(fn(run, cap, **opts), rel=1e-14)
            for k in range(1, cap + 3):
                assert fn(run, k, **opts) == pytest.approx(
                    _reference(run, k, alpha, kind, normalization, **ref), rel=1e-12, abs=1e-300
                )


@pytest.mark.parametrize("alpha", [0.5, 0.1, 1e-3, 0.0])
@pytest.mark.parametrize("kind", ["dcg", "err"])
def test_normaliser_stops_early_only_where_the_sum_no_longer_changes(alpha, kind):
    # The slow way, every rank up to k in ndeval's order: (1 - alpha)^i by repeated
    # multiplication, S (1 - alpha)^i w(i), a running sum. Bit for bit the same.
    k = 100_000
    i = np.arange(k, dtype=np.float64)
    w = 1 / (i + 1) if kind == "err" else np.log(2) / np.log(i + 2)
    w[0] = 1.0
    steps = np.full(k, 1 - alpha)
    steps[0] = 1.0
    counts = np.array([3, 1, 0, 4, 3])
    dense = np.cumsum(counts[:, None].astype(np.float64) * np.cumprod(steps) * w, axis=1)
    for depth in (1, 2, 37, 256, 257, 5_000, 70_000, k):
        np.testing.assert_array_equal(_ideal_ideal(counts, alpha, depth, kind), dense[:, depth - 1])


@pytest.mark.parametrize("alpha", [0.0, 1e-6, 1e-4, 0.02])
@pytest.mark.parametrize("kind", ["dcg", "err"])
def test_normaliser_past_the_exact_ranks(monkeypatch, alpha, kind):
    # Past _EXACT_RANKS (2**22; 1000 here) ranks a still growing sum gets its rest from
    # Euler-Maclaurin; against the sum of every term (exact powers, math.fsum).
    monkeypatch.setattr(diversity, "_EXACT_RANKS", 1000)
    k = 200_000
    i = np.arange(k, dtype=np.float64)
    w = 1 / (i + 1) if kind == "err" else np.log(2) / np.log(i + 2)
    w[0] = 1.0
    want = math.fsum(np.power(1 - alpha, i) * w)
    got = _ideal_ideal(np.array([1, 3]), alpha, k, kind)
    np.testing.assert_allclose(got, [want, 3 * want], rtol=1e-12)


def test_k_far_past_the_lists_with_alpha_zero():
    # alpha = 0: ERR-IA's normaliser is S times the harmonic number
    # H_k = ln k + gamma + 1/(2k) - ..., so the run {A}, {B} (S = 2) scores 1.5 / (2 H_k).
    k = 10**12
    harmonic = math.log(k) + 0.5772156649015329 + 1 / (2 * k)
    assert err_ia([[1, 0], [0, 1]], k, alpha=0) == pytest.approx(1.5 / (2 * harmonic), rel=1e-13)
    # alpha-DCG's: 1 + ln 2 * sum_{n=3}^{k+1} 1 / ln n; the first 10,000 terms summed, the
    # rest by Euler-Maclaurin with the logarithmic integral li(x) = Ei(ln x).
    expi = pytest.importorskip("scipy.special").expi
    a, top = 10_000, k + 1

    def f(x):
        return 1 / math.log(x)

    def df(x):
        return -1 / (x * math.log(x) ** 2)

    head = math.fsum(f(n) for n in range(3, a))
    tail = expi(math.log(top)) - expi(math.log(a)) + (f(a) + f(top)) / 2 + (df(top) - df(a)) / 12
    norm = 1 + math.log(2) * (head + tail)
    got = alpha_ndcg([[1]], k, alpha=0, normalization="ideal_ideal")
    assert got == pytest.approx(1 / norm, rel=1e-12)
    # With normalization="ideal" the normaliser cancels: the value at the lists' depth.
    run = [[1, 0], [1, 1], [0, 0], [0, 1]]
    assert alpha_ndcg(run, k, alpha=0) == pytest.approx(alpha_ndcg(run, 4, alpha=0), rel=1e-14)
    # Past 2**1000 that sum would need ranks float64 cannot hold.
    with pytest.raises(ValueError, match=r"k is too large \(above 2\*\*1000\)"):
        err_ia(run, 2**1000 + 1, alpha=0)
    assert err_ia(run, 2**1000, alpha=0) > 0


def test_many_queries_and_a_deep_k():
    # 50 queries at k = 3 million needed a 1.1 GiB array (and 31 s) before failing.
    rng = np.random.default_rng(3)
    runs = [rng.integers(0, 2, size=(int(rng.integers(1, 30)), 4)) for _ in range(50)]
    for fn, _ in MEASURES:
        for normalization in NORMALIZATIONS:
            np.testing.assert_array_equal(
                fn(runs, 3 * 10**6, normalization=normalization),
                fn(runs, 1000, normalization=normalization),
            )


# --- ndeval (through pyndeval) ------------------------------------------------------


def _subtopic_collection(seed, n_queries=15):
    """Subtopic qrels and a run; judged rows sorted by doc id descending (ndeval's ties)."""
    rng = np.random.default_rng(seed)
    qrels, run, runs, judged = [], [], [], []
    for q in range(n_queries):
        qid, m, n = f"q{q}", int(rng.integers(1, 5)), int(rng.integers(1, 15))
        docs = [f"d{i:02d}" for i in range(n)]
        grades = {}
        for d in docs:
            if rng.random() < 0.25:
                continue  # not in the qrels
            grades[d] = rng.choice([0, 0, 1, 2], size=m)
            qrels += [(qid, f"{q}-{j}", d, int(grades[d][j])) for j in range(m)]
        if not grades:
            grades[docs[0]] = np.zeros(m, int)
            qrels += [(qid, f"{q}-{j}", docs[0], 0) for j in range(m)]
        shown = [docs[i] for i in rng.permutation(n)[: int(rng.integers(1, n + 1))]]
        run += [(qid, d, float(len(shown) - pos)) for pos, d in enumerate(shown)]
        runs.append(np.array([grades.get(d, np.full(m, nan)) for d in shown], dtype=float))
        judged.append(np.array([grades[d] for d in sorted(grades, reverse=True)], dtype=float))
    return qrels, run, runs, judged


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("alpha", [0.5, 0.3])
def test_agrees_with_ndeval(seed, alpha):
    pyndeval = pytest.importorskip("pyndeval")
    qrels, run, runs, judged = _subtopic_collection(seed)
    for k in (1, 5, 10, 20):
        names = [f"alpha-nDCG@{k}", f"alpha-DCG@{k}", f"ERR-IA@{k}", f"nERR-IA@{k}"]
        result = pyndeval.RelevanceEvaluator(qrels, names, alpha=alpha).evaluate(run)
        want = {n: [result[f"q{q}"][n] for q in range(len(runs))] for n in names}
        got = {
            names[0]: alpha_ndcg(runs, k, alpha=alpha, judgments=judged),
            names[1]: alpha_ndcg(
                runs, k, alpha=alpha, judgments=judged, normalization="ideal_ideal"
            ),
            names[2]: err_ia(runs, k, alpha=alpha, judgments=judged),
            names[3]: err_ia(runs, k, alpha=alpha, judgments=judged, normalization="ideal"),
        }
        for name in names:
            np.testing.assert_allclose(got[name], want[name], rtol=0, atol=1e-9, err_msg=name)


# --- errors -------------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match="must be 2-D"):
        alpha_ndcg(np.zeros((2, 2, 2, 2)))
    with pytest.raises(ValueError, match="2 subtopic columns but judgments has 3"):
        alpha_ndcg([[1, 0]], judgments=[[1, 0, 0]])
    with pytest.raises(ValueError, match="judgments hold 1 queries but relevance holds 2"):
        err_ia([[[1, 0]], [[0, 1]]], judgments=[[[1, 0]]])
    # judgments that lack relevant documents of the ranking (found by an adversarial
    # review: alpha-nDCG came out as 2.315 instead of being refused)
    with pytest.raises(ValueError, match="holds 2 documents relevant to subtopic column 0 "
                                         "but judgments only 1"):
        alpha_ndcg([[1, 1], [1, 0]], judgments=[[1, 0]])
    with pytest.raises(TypeError, match="relevance is a masked array with masked items"):
        alpha_ndcg(np.ma.array([[0, 1], [1, 1]], mask=[[0, 0], [1, 1]]))
    with pytest.raises(ValueError, match="of query 1 holds 1 documents"):
        err_ia([[[1, 0]], [[0, 1]]], normalization="ideal", judgments=[[[1, 0]], [[1, 0]]])
    with pytest.raises(ValueError, match=r"alpha must lie in \[0, 1\)"):
        alpha_ndcg([[1, 0]], alpha=1)
    with pytest.raises(TypeError, match="k must be a positive int"):
        err_ia([[1, 0]], None)
    with pytest.raises(ValueError, match='normalization must be "ideal" or "ideal_ideal"'):
        err_ia([[1, 0]], normalization="collection")
    with pytest.raises(ValueError, match="infinite"):
        alpha_ndcg([[1, np.inf]])
    with pytest.raises(TypeError, match="subtopic grades"):
        alpha_ndcg([["a", "b"]])
