"""alpha-nDCG and ERR-IA (ndeval's conventions): arithmetic, properties, pyndeval oracle."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.diversity import alpha_ndcg, err_ia

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
        from rankeval.diversity import _greedy_ideal

        ideal = _greedy_ideal(rel, alpha, len(run)).astype(float)
        assert alpha_ndcg(ideal, k, alpha=alpha, judgments=run) == pytest.approx(1, abs=1e-12)


@settings(max_examples=30)
@given(st.lists(subtopic_rows, min_size=1, max_size=4), st.integers(1, 10))
def test_batch_equals_per_query(runs, k):
    got = alpha_ndcg(runs, k)
    np.testing.assert_array_equal(got, [alpha_ndcg(r, k) for r in runs])
    got = err_ia(runs, k, normalization="ideal")
    np.testing.assert_array_equal(got, [err_ia(r, k, normalization="ideal") for r in runs])


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
