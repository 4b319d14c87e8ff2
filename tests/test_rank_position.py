"""Mean rank (MR) and first relevant position (FRP): sources' examples, conventions,
properties, oracle, errors."""

import math

import numpy as np
import pytest
from conftest import binary, cutoffs, grades, random_batch
from hypothesis import assume, given
from hypothesis import strategies as st

from rankeval import first_relevant_position, mean_rank, reciprocal_rank

# The three queries of the MAP example of Ranking Evaluation (relevant results at these positions).
Q1 = [1, 1, 0, 1, 1, 0, 1, 0, 1, 0]  # 1, 2, 4, 5, 7, 9
Q2 = [1, 0, 1, 0, 1, 0, 0, 1]  # 1, 3, 5, 8
Q3 = [0, 1, 1, 0, 1, 1]  # 2, 3, 5, 6

# --- worked examples of the sources -------------------------------------------------


def test_ranking_evaluation_queries_mean_rank():
    # Ranking Evaluation: MR(q) = mean position of q's relevant items; MR = mean over queries.
    mr = mean_rank([Q1, Q2, Q3])
    np.testing.assert_allclose(mr, [(1 + 2 + 4 + 5 + 7 + 9) / 6, (1 + 3 + 5 + 8) / 4,
                                    (2 + 3 + 5 + 6) / 4])
    assert mr.mean() == pytest.approx(((1 + 2 + 4 + 5 + 7 + 9) / 6 + (1 + 3 + 5 + 8) / 4
                                       + (2 + 3 + 5 + 6) / 4) / 3)


def test_ranking_evaluation_queries_first_relevant_position():
    frp = first_relevant_position([Q1, Q2, Q3])
    np.testing.assert_array_equal(frp, [1, 1, 2])
    assert frp.mean() == pytest.approx((1 + 1 + 2) / 3)


def test_model_evaluation_five_queries():
    # Model Evaluation, Part 4: first relevant item at positions 3, 1, 2, 4, 5 (one relevant each,
    # so MR = FRP); mean FRP = 3.
    rankings = [[0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0],
                [0, 0, 0, 0, 1]]
    np.testing.assert_array_equal(first_relevant_position(rankings), [3, 1, 2, 4, 5])
    np.testing.assert_array_equal(mean_rank(rankings), [3, 1, 2, 4, 5])
    assert first_relevant_position(rankings).mean() == (3 + 1 + 2 + 4 + 5) / 5


def test_notebook_rankings_of_a_to_g():
    # The item-list notebook: relevant b, f. Ranking 1 = c, b, f, ... ; ranking 2 = b, f, g, ...
    r1 = [0, 1, 1, 0, 0, 0, 0]
    r2 = [1, 1, 0, 0, 0, 0, 0]
    assert first_relevant_position(r1) == 2 and mean_rank(r1) == (2 + 3) / 2
    assert first_relevant_position(r2) == 1 and mean_rank(r2) == (1 + 2) / 2


def test_ranking_evaluation_frp_at_k_constant():
    # Ranking Evaluation: with no relevant item in the top k, FRP@k takes a constant such as k+1.
    assert first_relevant_position([0, 0, 0, 0, 1], k=3) == 3 + 1
    assert first_relevant_position([0, 0, 1, 0, 1], k=3) == 3


# --- conventions --------------------------------------------------------------------


def test_not_found_without_k_is_length_plus_one():
    assert first_relevant_position([0, 0, 0]) == 3 + 1
    np.testing.assert_array_equal(first_relevant_position([[0, 0], [0, 0, 0, 0]]), [3, 5])
    assert mean_rank([0, 0, 0]) == 3 + 1


def test_not_found_choices():
    rs = [[0, 1], [0, 0]]
    np.testing.assert_array_equal(first_relevant_position(rs, not_found="nan"), [2, np.nan])
    np.testing.assert_array_equal(first_relevant_position(rs, not_found=float("nan")),
                                  [2, np.nan])
    np.testing.assert_array_equal(first_relevant_position(rs, not_found=100), [2, 100])
    np.testing.assert_array_equal(first_relevant_position(rs, k=1, not_found=2.5), [2.5, 2.5])
    assert math.isnan(first_relevant_position([0, 0], not_found="nan"))
    # "raise" passes when every query has a relevant item.
    np.testing.assert_array_equal(first_relevant_position([[0, 1], [1]], not_found="raise"),
                                  [2, 1])


def test_k_past_the_list_uses_k_plus_one():
    # The constant is k + 1 for every query, whatever its length: FRP@k stays comparable.
    np.testing.assert_array_equal(first_relevant_position([[0, 0], [0, 0, 0, 0]], k=10),
                                  [11, 11])
    assert first_relevant_position([0, 1], k=10) == 2


def test_padding_changes_the_fill_only_without_k():
    # Without k the fill is n + 1, and a zero-padded 2-D array has n = its width.
    assert first_relevant_position([0, 0]) == 3
    assert first_relevant_position(np.array([[0, 0, 0, 0]]))[0] == 5
    assert first_relevant_position([0, 0], k=4) == first_relevant_position([0, 0, 0, 0], k=4)


def test_mean_rank_beyond_k():
    # Q1 at k = 5: items at 7 and 9 count at 6 ("k+1"), or are left out ("drop").
    assert mean_rank(Q1, k=5) == (1 + 2 + 4 + 5 + 6 + 6) / 6
    assert mean_rank(Q1, k=5, beyond="drop") == (1 + 2 + 4 + 5) / 4
    # All relevant items below k: "k+1" gives k+1, "drop" has nothing and uses missing.
    assert mean_rank([0, 0, 0, 1, 1], k=3) == 4
    assert mean_rank([0, 0, 0, 1, 1], k=3, beyond="drop") == 4
    assert math.isnan(mean_rank([0, 0, 0, 1, 1], k=3, beyond="drop", not_found="nan"))
    assert mean_rank([0, 0, 0, 1, 1], k=3, not_found="nan") == 4  # not missing: 2 items at 4


def test_drop_can_reward_pushing_a_relevant_item_out():
    # Documented weakness of beyond="drop": the second ranking is worse (an item fell
    # from position 2 to 4) but its MR@3 looks better.
    better, worse = [1, 1, 0, 0], [1, 0, 0, 1]
    assert mean_rank(better, k=3, beyond="drop") == (1 + 2) / 2
    assert mean_rank(worse, k=3, beyond="drop") == 1
    assert mean_rank(better, k=3) == (1 + 2) / 2 < mean_rank(worse, k=3) == (1 + 4) / 2


def test_n_relevant_counts_unretrieved_items():
    # Two relevant items ranked at 1 and 3, a third one not retrieved at all.
    assert mean_rank([1, 0, 1], n_relevant=3) == (1 + 3 + 4) / 3  # n + 1 = 4
    assert mean_rank([1, 0, 1], k=2, n_relevant=3) == (1 + 3 + 3) / 3  # k + 1 = 3
    np.testing.assert_allclose(mean_rank([[1, 0], [0, 0]], n_relevant=[2, 1]),
                               [(1 + 3) / 2, 3])
    assert mean_rank([0, 0], n_relevant=0, not_found=7) == 7


def test_graded_input_and_threshold():
    assert first_relevant_position([1, 0, 3]) == 1
    assert first_relevant_position([1, 0, 3], threshold=2) == 3
    assert mean_rank([2, 1, 3], threshold=2) == (1 + 3) / 2


# --- properties ---------------------------------------------------------------------


@given(grades(), cutoffs())
def test_frp_range(r, k):
    frp = first_relevant_position(r, k)
    limit = len(r) if k is None else k
    assert 1 <= frp <= limit + 1 and frp == int(frp)


@given(grades(), cutoffs())
def test_frp_is_one_over_rr_when_found(r, k):
    rr = reciprocal_rank(r, k)
    frp = first_relevant_position(r, k, not_found="nan")
    if rr > 0:
        assert frp == pytest.approx(1 / rr)
    else:
        assert math.isnan(frp)


@given(grades(), st.integers(1, 15))
def test_frp_at_k_is_frp_capped_at_k_plus_one(r, k):
    full = first_relevant_position(r, not_found="nan")
    full = math.inf if math.isnan(full) else full
    assert first_relevant_position(r, k) == min(full, k + 1)


@given(grades(), cutoffs())
def test_mean_rank_range_and_order(r, k):
    limit = len(r) if k is None else k
    for beyond in ("k+1", "drop"):
        mr = mean_rank(r, k, beyond=beyond)
        assert 1 <= mr <= limit + 1
        assert mr >= first_relevant_position(r, k)  # a mean is never below the minimum


@given(st.integers(1, 12), st.data())
def test_mean_rank_equals_frp_with_one_relevant_item(n, data):
    r = [0] * n
    r[data.draw(st.integers(0, n - 1))] = data.draw(st.integers(1, 3))
    k = data.draw(cutoffs())
    assert mean_rank(r, k) == first_relevant_position(r, k)


@given(grades(), st.integers(0, 15))
def test_mean_rank_at_k_past_the_list_is_mean_rank(r, extra):
    assume(any(g >= 1 for g in r))
    assert mean_rank(r, len(r) + extra) == pytest.approx(mean_rank(r))


@given(binary(), st.data())
def test_moving_a_relevant_item_up_never_worsens(r, data):
    ups = [i for i in range(1, len(r)) if r[i] == 1]
    assume(ups)
    i = data.draw(st.sampled_from(ups))
    k = data.draw(st.integers(1, 15))  # with k: the fill k+1 does not depend on the list
    moved = list(r)
    moved[i - 1], moved[i] = moved[i], moved[i - 1]
    assert first_relevant_position(moved, k) <= first_relevant_position(r, k)
    assert mean_rank(moved, k) <= mean_rank(r, k)


# --- slow oracle --------------------------------------------------------------------


def slow_frp(r, k, threshold=1):
    cut = len(r) if k is None else k
    for i, g in enumerate(r, start=1):
        if i > cut:
            break
        if g >= threshold:
            return float(i)
    return float(cut + 1)


def slow_mean_rank(r, k, threshold=1, beyond="k+1", n_relevant=None):
    cut = len(r) if k is None else k
    ranks = [i for i, g in enumerate(r, start=1) if g >= threshold]
    if beyond == "drop":
        ranks = [i for i in ranks if i <= cut]
    else:
        ranks = [min(i, cut + 1) for i in ranks]
        if n_relevant is not None:
            ranks += [cut + 1] * (n_relevant - len(ranks))
    if not ranks:
        return float(cut + 1)
    return sum(ranks) / len(ranks)


@pytest.mark.parametrize("k", [None, 1, 3, 10, 25])
@pytest.mark.parametrize("threshold", [1, 3])
def test_against_slow_oracle(k, threshold):
    rs = random_batch(seed=5, max_grade=3)
    np.testing.assert_allclose(first_relevant_position(rs, k, threshold=threshold),
                               [slow_frp(r, k, threshold) for r in rs])
    for beyond in ("k+1", "drop"):
        np.testing.assert_allclose(mean_rank(rs, k, threshold=threshold, beyond=beyond),
                                   [slow_mean_rank(r, k, threshold, beyond) for r in rs])


@pytest.mark.parametrize("k", [None, 4])
def test_against_slow_oracle_with_unretrieved_relevant_items(k):
    rs = random_batch(seed=9, max_grade=1)
    extra = np.random.default_rng(9).integers(0, 4, size=len(rs))
    n_rel = [sum(r) + e for r, e in zip(rs, extra, strict=True)]
    np.testing.assert_allclose(mean_rank(rs, k, n_relevant=n_rel),
                               [slow_mean_rank(r, k, n_relevant=n) for r, n in
                                zip(rs, n_rel, strict=True)])


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize("f", [first_relevant_position, mean_rank])
@pytest.mark.parametrize(
    "relevance, kwargs, exc, match",
    [
        ([1, 0], {"threshold": 0}, ValueError, "threshold must be > 0"),
        ([1, 0], {"not_found": "zero"}, ValueError, "not_found must be one of"),
        ([1, 0], {"not_found": None}, TypeError, "not_found must be one of"),
        ([1, 0], {"not_found": True}, TypeError, "not_found must be one of"),
        ([1, 0], {"not_found": math.inf}, ValueError, "not_found must be finite"),
        ([1, 0], {"not_found": 0}, ValueError, r"not_found=0 must be larger than the cut-off \(2\)"),
        ([1, 0], {"k": 5, "not_found": 5}, ValueError, r"larger than the cut-off \(5\)"),
        ([0, 0], {"not_found": "raise"}, ValueError, "relevance has no relevant item"),
        ([[1], [0, 0]], {"k": 1, "not_found": "raise"}, ValueError,
         r"relevance\[1\] has no relevant item"),
    ],
)
def test_bad_input(f, relevance, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        f(relevance, **kwargs)


def test_bad_mean_rank_options():
    with pytest.raises(ValueError, match='beyond must be "k\\+1" or "drop"'):
        mean_rank([1, 0], beyond="k")
    with pytest.raises(ValueError, match='n_relevant is used only with beyond="k\\+1"'):
        mean_rank([1, 0], beyond="drop", n_relevant=2)
    with pytest.raises(ValueError, match="n_relevant is 1, smaller than the 2 relevant"):
        mean_rank([1, 1], n_relevant=1)
    with pytest.raises(ValueError, match="relevance has n_relevant = 0 and not_found='raise'"):
        mean_rank([0, 0], n_relevant=0, not_found="raise")
    with pytest.raises(ValueError, match=r"relevance\[1\] has no relevant item in the top 1"):
        first_relevant_position([[1], [0, 1]], k=1, not_found="raise")
    with pytest.raises(ValueError, match=r"relevance\[1\] has no relevant item in the top 1"):
        mean_rank([[1], [0, 1]], k=1, beyond="drop", not_found="raise")
    with pytest.raises(ValueError, match="no relevant item in the whole list"):
        mean_rank([[1], [0, 0]], k=1, not_found="raise")
