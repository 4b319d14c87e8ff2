"""Average recall (AR) and MAR: the definition of Ranking Evaluation, its closed form, oracle, errors."""

import numpy as np
import pytest
from conftest import binary, cutoffs, grades, random_batch
from hypothesis import assume, given
from hypothesis import strategies as st

from rankeval import average_precision, average_recall, recall_at_k

# --- worked examples of Ranking Evaluation--------------------------------------------

RANKING_EVALUATION_QUERIES = [
    [1, 1, 0, 1, 1, 0, 1, 0, 1, 0],  # 6 relevant items, all retrieved
    [1, 0, 1, 0, 1, 0, 0, 1],  # 4 relevant items
    [0, 1, 1, 0, 1, 1],  # 4 relevant items
]


def test_ranking_evaluation_three_queries():
    # Ranking Evaluation (the course text) defines AR but gives no example; its MAP queries serve here.
    ar = average_recall(RANKING_EVALUATION_QUERIES)
    want = [
        (1 / 6 + 2 / 6 + 3 / 6 + 4 / 6 + 5 / 6 + 6 / 6) / 6,  # = 7/12
        (1 / 4 + 2 / 4 + 3 / 4 + 4 / 4) / 4,  # = 5/8
        (1 / 4 + 2 / 4 + 3 / 4 + 4 / 4) / 4,  # = 5/8
    ]
    np.testing.assert_allclose(ar, want)
    assert ar.mean() == pytest.approx((7 / 12 + 5 / 8 + 5 / 8) / 3)
    # The query AP ranks best gets the lowest AR; queries 2 and 3 tie although their APs
    # differ: AR follows the number of relevant items, not their ranks.
    ap = average_precision(RANKING_EVALUATION_QUERIES)
    assert ap[0] > ap[1] > ap[2]
    assert ar[0] < ar[1] == ar[2]


def test_recalls_at_relevant_ranks():
    # Relevant at ranks 2 and 5 of a query with 3 relevant items: R@2 = 1/3, R@5 = 2/3.
    assert average_recall([0, 1, 0, 0, 1], n_relevant=3) == pytest.approx((1 / 3 + 2 / 3) / 2)
    assert average_recall([0, 1, 0, 0, 1]) == pytest.approx((1 / 2 + 2 / 2) / 2)


def test_cutoff_and_no_relevant():
    r = [1, 0, 1, 0, 1]
    assert average_recall(r, 3) == pytest.approx((1 / 3 + 2 / 3) / 2)  # R(i) over all 3
    assert average_recall(r, 3, n_relevant=5) == pytest.approx((1 / 5 + 2 / 5) / 2)
    assert average_recall(r, 50) == average_recall(r)
    assert average_recall([0, 0]) == 0.0
    assert average_recall([0, 0], n_relevant=2) == 0.0
    assert average_recall([0, 0, 1], 2) == 0.0


def test_threshold():
    assert average_recall([2, 1, 0, 2], threshold=2) == pytest.approx((1 / 2 + 2 / 2) / 2)


# --- the closed form: AR depends on counts only -------------------------------------


@st.composite
def ranking_and_total(draw):
    r = draw(grades(1))
    found = sum(r)
    return r, found + draw(st.integers(0, 5))


@given(ranking_and_total(), cutoffs())
def test_closed_form(case, k):
    r, total = case
    m = sum(r[:k])  # relevant items in the top k
    assume(m > 0)
    assert average_recall(r, k, n_relevant=total) == pytest.approx((m + 1) / (2 * total))
    assert average_recall(r, k) == pytest.approx((m + 1) / (2 * sum(r)))


@given(binary(), st.randoms(use_true_random=False))
def test_order_does_not_matter(r, rnd):
    shuffled = list(r)
    rnd.shuffle(shuffled)
    assert average_recall(shuffled) == pytest.approx(average_recall(r))


@given(binary(), cutoffs())
def test_range(r, k):
    value = average_recall(r, k)
    if any(r[:k]):
        assert 0 < value <= 1
        if k is None:
            assert 0.5 < value  # (m + 1) / (2m) > 1/2
    else:
        assert value == 0.0


@given(binary(), cutoffs())
def test_is_mean_of_recall_at_relevant_ranks(r, k):
    ranks = [i for i, g in enumerate(r[:k], start=1) if g]
    assume(ranks)
    want = np.mean([recall_at_k(r, i) for i in ranks])
    assert average_recall(r, k) == pytest.approx(want)


# --- slow oracle --------------------------------------------------------------------


def slow_average_recall(r, k=None, n_relevant=None, threshold=1):
    total = sum(1 for g in r if g >= threshold) if n_relevant is None else n_relevant
    hits, summed, found = 0, 0.0, 0
    for i, g in enumerate(r, start=1):
        if k is not None and i > k:
            break
        if g >= threshold:
            hits += 1
            found += 1
            summed += hits / total
    return summed / found if found else 0.0


@pytest.mark.parametrize("k", [None, 1, 4, 25])
@pytest.mark.parametrize("threshold", [1, 3])
def test_against_slow_oracle(k, threshold):
    rs = random_batch(seed=5)
    np.testing.assert_allclose(
        average_recall(rs, k, threshold=threshold),
        [slow_average_recall(r, k, threshold=threshold) for r in rs],
    )
    totals = [sum(g >= threshold for g in r) + 2 for r in rs]
    np.testing.assert_allclose(
        average_recall(rs, k, n_relevant=totals, threshold=threshold),
        [slow_average_recall(r, k, t, threshold) for r, t in zip(rs, totals, strict=True)],
    )


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"relevance": [1, 1, 0], "n_relevant": 1}, ValueError, "n_relevant is 1, smaller"),
        ({"relevance": [[1], [1]], "n_relevant": [1]}, ValueError, "one value per query"),
        ({"relevance": [1, 0], "threshold": -1}, ValueError, "threshold must be > 0"),
    ],
)
def test_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        average_recall(**kwargs)
