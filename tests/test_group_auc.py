"""Group AUC (GAUC) against RecBole's formula and scikit-learn's AUROC per user.

RecBole's ``GAUC`` (recbole/evaluator/metrics.py) computes each user's AUC from the
positives' ranks in the descending order, drops users without a positive or without a
negative (with a logged warning) and weights each user by the number of positives.
The formula is written out below from its documentation, as loops.
"""

import warnings

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import rankeval


def recbole_gauc(lists):
    """sum_u M_u AUC_u / sum_u M_u with AUC_u from the positives' rank sum."""
    num = den = 0.0
    for labels in lists:
        length = len(labels)
        m = sum(1 for x in labels if x == 1)
        n = length - m
        if m == 0 or n == 0:
            continue
        rank_sum = sum(i + 1 for i, x in enumerate(labels) if x == 1)  # rank 1 = top
        # pairs (positive above negative): M(L+1) - M(M+1)/2 - sum of positive ranks
        pairs = m * (length + 1) - m * (m + 1) / 2 - rank_sum
        num += m * (pairs / (m * n))
        den += m
    return num / den


def random_lists(seed, users=40):
    rng = np.random.default_rng(seed)
    return [list(rng.integers(0, 2, size=int(rng.integers(1, 12)))) for _ in range(users)]


@pytest.mark.parametrize("seed", range(8))
def test_recbole_formula(seed):
    lists = random_lists(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = rankeval.group_auc(lists)
    assert got == pytest.approx(recbole_gauc(lists), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_sklearn_per_user_with_judged_weights(seed):
    lists = random_lists(seed)
    num = den = 0.0
    for labels in lists:
        if 0 < sum(labels) < len(labels):
            scores = -np.arange(len(labels))  # the list's order as scores
            num += len(labels) * roc_auc_score(labels, scores)
            den += len(labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = rankeval.group_auc(lists, weights="judged")
    assert got == pytest.approx(num / den, abs=1e-12)


def test_by_hand_and_left_out_users_are_named():
    # user 1: pairs in order 2 + 1 of 4 -> 0.75 (2 positives); user 2: 0 (1 positive)
    assert rankeval.group_auc([[1, 0, 1, 0], [0, 1]]) == pytest.approx(0.5)
    with pytest.warns(UserWarning, match="1 of 3 users left out"):
        assert rankeval.group_auc([[1, 0, 1, 0], [0, 1], [1, 1]]) == pytest.approx(0.5)
    assert rankeval.group_auc([[1, 0], [0, 1]], weights=[3, 1]) == pytest.approx(0.75)


def test_unjudged_items_are_left_out_of_pairs():
    assert rankeval.group_auc([[1, np.nan, 0]]) == 1.0


def test_bad_weights():
    with pytest.raises(ValueError, match="one of"):
        rankeval.group_auc([[1, 0]], weights="users")
    with pytest.raises(ValueError, match="2 users need 2 weights"):
        rankeval.group_auc([[1, 0], [0, 1]], weights=[1])
    with pytest.raises(ValueError, match=">= 0"):
        rankeval.group_auc([[1, 0]], weights=[-1])


def test_no_defined_user_is_nan_with_a_warning():
    with pytest.warns(UserWarning):
        assert np.isnan(rankeval.group_auc([[1, 1], [0]]))
