"""rankeval.online.counterfactual: direct method, doubly robust, the ranking estimators'
hierarchy, intervals and effective sample size.

Oracles, none of them the library:

* Open Bandit Pipeline's estimator formulas (``obp.ope.estimators``: InverseProbability
  Weighting, SelfNormalizedInverseProbabilityWeighting, DirectMethod, DoublyRobust),
  transcribed below from the package's source and from Dudik, Langford and Li (ICML
  2011). The package cannot be installed here (``obp==0.5.7`` requires Python < 3.11 and
  pins torch 1.12). A log maps onto OBP's bandit feedback with one round per (impression,
  slot j <= k): action = the item shown at j, position = j, pscore = phi_tj, reward =
  w(j) c_tj / e_j, a deterministic evaluation policy putting y_tj at j, and the reward
  model q(x, a, j) = w(j) pi_hat(a). OBP averages over the T k rounds, the library sums
  the k slots of an impression and averages over the T impressions: the library's value
  is k times OBP's.
* Loop-by-loop transcriptions of the cascade and whole-list formulas.
* Exact expectations, by enumerating every list the logger can show and every click
  pattern: each estimator's expectation is compared with the true value computed from
  the attractiveness and the new ranking alone (unbiasedness, exactly), and simulations
  with these exact values (the book's rule for simulated numbers).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from rankeval.online import counterfactual_dcg, counterfactual_interval

N_QUERIES, N_ITEMS, K, EPS = 6, 5, 3, 0.3
THETA = 1.0 / np.arange(1, K + 1)  # examination of the K logged positions
W = 1 / np.log2(np.arange(2, K + 2))


def collection(seed=0):
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 4, size=(N_QUERIES, N_ITEMS))
    rho = (2.0**grades - 1) / 8
    production = np.argsort(-(grades + rng.normal(0, 1.5, grades.shape)), axis=1,
                            kind="stable")
    new = np.argsort(-(grades + rng.normal(0, 0.7, grades.shape)), axis=1, kind="stable")
    return rho, production, new


def logger_lists(production):
    """Every top K the logger shows for one query: (lists, probabilities, phi, prefix).

    With probability 1 - EPS its own top K, else a uniformly random ordered K-tuple."""
    triples = list(itertools.permutations(range(N_ITEMS), K))
    lists = [list(production[:K])] + [list(t) for t in triples]
    probs = [1 - EPS] + [EPS / len(triples)] * len(triples)
    own = np.array(lists) == production[:K]
    phi = (1 - EPS) * own + EPS / N_ITEMS
    n_prefix = np.array([math.perm(N_ITEMS, j) for j in range(1, K + 1)])
    prefix = (1 - EPS) * np.cumprod(own, axis=1) + EPS / n_prefix
    return np.array(lists), np.array(probs), phi, prefix


def click_probabilities(rho_shown, users):
    if users == "pbm":
        return THETA * rho_shown
    before = np.concatenate([[1.0], np.cumprod(1 - rho_shown[:-1])])
    return rho_shown * before  # cascade: click at most once, top down


def exact_expectation(estimator, users="pbm", seed=0, examination=THETA, phi_scale=1.0,
                      model=None, **kw):
    """E[estimate] over the logger's lists, the click patterns and the queries, from the
    library's value on one-impression logs (every estimator is a mean over impressions).
    ``phi_scale`` multiplies the placement probabilities the estimator is given."""
    rho, production, new = collection(seed)
    total = 0.0
    for q in range(N_QUERIES):
        lists, probs, phi, prefix = logger_lists(production[q])
        for shown, p_list, ph, pre in zip(lists, probs, phi, prefix, strict=True):
            p = click_probabilities(rho[q, shown], users)
            extra = dict(kw)
            if estimator in ("cascade_ips", "list_ips"):
                extra["prefix_placement"] = [pre]
            if model is not None:
                extra["model"] = [model[q, new[q, :K]]]
            patterns = ([np.eye(K, dtype=bool)[j] for j in range(K)]
                        + [np.zeros(K, dtype=bool)])
            if users == "pbm":
                patterns = [np.array(c, dtype=bool)
                            for c in itertools.product([0, 1], repeat=K)]
            for clicks in patterns:
                if users == "pbm":
                    p_clicks = np.prod(np.where(clicks, p, 1 - p))
                else:
                    p_clicks = p[clicks.argmax()] if clicks.any() else 1 - p.sum()
                value = counterfactual_dcg([clicks], [shown], [new[q, :K]],
                                           examination=examination,
                                           placement=[np.minimum(ph * phi_scale, 1)],
                                           k=K, estimator=estimator, **extra)
                total += p_list * p_clicks * value / N_QUERIES
    return total


def true_value(users="pbm", seed=0):
    rho, _, new = collection(seed)
    pi_new = rho[np.arange(N_QUERIES)[:, None], new[:, :K]]
    if users == "pbm":
        return float(np.mean((pi_new * W).sum(1)))  # DCG@K with pi as the gain
    before = np.concatenate([np.ones((N_QUERIES, 1)), np.cumprod(1 - pi_new[:, :-1], 1)], 1)
    return float(np.mean((pi_new * before * W).sum(1)))  # discounted cascade clicks


def wrong_model(seed=5):
    rho, _, _ = collection()
    noise = np.random.default_rng(seed).normal(0, 0.2, rho.shape)
    return np.clip(rho + noise, 0, 1)


# --- exact unbiasedness ------------------------------------------------------------------

def test_ips_is_exactly_unbiased_and_a_floor_that_never_binds_changes_nothing():
    truth = true_value()
    assert exact_expectation("ips") == pytest.approx(truth, abs=1e-12)
    smallest = EPS / N_ITEMS * THETA[-1]  # a random placement at the last position
    assert exact_expectation("clipped_ips", clip=smallest * (1 - 1e-9)) == pytest.approx(
        truth, abs=1e-12)
    assert exact_expectation("clipped_ips", clip=0.2) < truth - 0.1  # binding: down


def test_dr_is_unbiased_with_a_wrong_model_or_with_wrong_propensities():
    truth, model = true_value(), wrong_model()
    rho, _, _ = collection()
    assert exact_expectation("dr", model=model) == pytest.approx(truth, abs=1e-12)
    # the right model: unbiased even with placement probabilities 20 % too small
    assert exact_expectation("dr", model=rho, phi_scale=0.8) == pytest.approx(
        truth, abs=1e-12)
    # ...where IPS is not, and DM with the wrong model is not
    assert exact_expectation("ips", phi_scale=0.8) == pytest.approx(truth / 0.8, rel=1e-9)
    dm = exact_expectation("dm", model=model)
    _, _, new = collection()
    by_hand = np.mean((model[np.arange(N_QUERIES)[:, None], new[:, :K]] * W).sum(1))
    assert dm == pytest.approx(by_hand, abs=1e-12)
    assert abs(dm - truth) > 0.01


@pytest.mark.parametrize("users, unbiased, biased", [
    ("pbm", ["ips", "cascade_ips", "list_ips"], []),
    ("cascade", ["cascade_ips", "list_ips"], ["ips"]),
])
def test_each_ranking_estimator_is_unbiased_under_its_click_model(users, unbiased,
                                                                    biased):
    ones = np.ones(K)  # estimate the discounted clicks themselves
    truth = true_value(users) if users == "cascade" else float(np.mean(
        (collection()[0][np.arange(N_QUERIES)[:, None], collection()[2][:, :K]]
         * THETA * W).sum(1)))
    for estimator in unbiased:
        got = exact_expectation(estimator, users, examination=ones)
        assert got == pytest.approx(truth, abs=1e-12), estimator
    for estimator in biased:
        got = exact_expectation(estimator, users, examination=ones)
        assert abs(got - truth) > 0.02, estimator


# --- simulations against the exact values ------------------------------------------------

def simulate(n, rng, seed=0):
    rho, production, new = collection(seed)
    queries = rng.integers(0, N_QUERIES, n)
    shown = production[queries, :K].copy()
    shuffled = rng.random(n) < EPS
    perms = np.argsort(rng.random((n, N_ITEMS)), axis=1, kind="stable")[:, :K]
    shown[shuffled] = perms[shuffled]
    placement = (1 - EPS) * (shown == production[queries, :K]) + EPS / N_ITEMS
    clicks = rng.random(shown.shape) < THETA * rho[queries[:, None], shown]
    return queries, shown, clicks, placement, new


@pytest.mark.parametrize("estimator, kw", [("ips", {}), ("clipped_ips", {"clip": 0.1}),
                                           ("dr", {"model": "wrong"})])
def test_simulated_means_agree_with_the_exact_expectation(estimator, kw):
    model = wrong_model()
    want = exact_expectation(estimator, model=model if kw.get("model") else None,
                             **{k: v for k, v in kw.items() if k != "model"})
    rng = np.random.default_rng(11)
    values = []
    for _ in range(300):
        queries, shown, clicks, placement, new = simulate(300, rng)
        extra = dict(kw)
        if "model" in extra:
            extra["model"] = model[queries[:, None], new[queries, :K]]
        values.append(counterfactual_dcg(clicks, shown, new[queries, :K],
                                         examination=THETA, placement=placement, k=K,
                                         estimator=estimator, **extra))
    values = np.array(values)
    se = values.std(ddof=1) / np.sqrt(values.size)
    assert abs(values.mean() - want) < 4 * se


# --- Open Bandit Pipeline's formulas, transcribed ------------------------------------------

def obp_round_rewards(reward, action, position, pscore, action_dist, q_hat, estimator):
    """obp.ope.estimators ``_estimate_round_rewards`` (IPW, SNIPW, DM, DR), numpy only."""
    n = action.shape[0]
    rows = np.arange(n)
    iw = action_dist[rows, action, position] / pscore
    if estimator == "ipw":
        return reward * iw
    if estimator == "snipw":
        return reward * iw / iw.mean()
    q_hat_at_position = q_hat[rows, :, position]
    pi_e_at_position = action_dist[rows, :, position]
    estimated = np.average(q_hat_at_position, weights=pi_e_at_position, axis=1)
    if estimator == "dm":
        return estimated
    q_hat_factual = q_hat[rows, action, position]
    return estimated + iw * (reward - q_hat_factual)  # "dr"


def as_bandit_feedback(clicks, shown, target, placement, theta, model):
    """One OBP round per (impression, slot j < K)."""
    n_imp = shown.shape[0]
    t, j = np.divmod(np.arange(n_imp * K), K)
    action = shown[t, j]
    reward = W[j] * clicks[t, j] / theta[j]
    action_dist = np.zeros((t.size, N_ITEMS, K))
    action_dist[np.arange(t.size), target[t, j], j] = 1.0
    q_hat = np.zeros((t.size, N_ITEMS, K))
    q_hat[np.arange(t.size), :, j] = W[j][:, None] * model[t]
    return reward, action, j, placement[t, j], action_dist, q_hat


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ours, theirs", [("ips", "ipw"), ("snips", "snipw"),
                                          ("dm", "dm"), ("dr", "dr")])
def test_estimators_equal_open_bandit_pipelines_formulas(ours, theirs, seed):
    rng = np.random.default_rng(seed)
    n_imp = 40
    # random logs: any placement probabilities, a model for every item of every row
    target = np.array([rng.permutation(N_ITEMS)[:K] for _ in range(n_imp)])
    shown = np.array([rng.permutation(N_ITEMS)[:K] for _ in range(n_imp)])
    shown[:10] = target[:10]  # plenty of agreement
    clicks = rng.random(shown.shape) < 0.4
    placement = rng.uniform(0.05, 1.0, shown.shape)
    theta = rng.uniform(0.2, 1.0, K)
    model = rng.uniform(0, 1, (n_imp, N_ITEMS))  # pi_hat of every item
    feedback = as_bandit_feedback(clicks, shown, target, placement, theta, model)
    want = K * obp_round_rewards(*feedback, theirs).mean()
    extra = {"model": model[np.arange(n_imp)[:, None], target]} if ours in ("dm", "dr") \
        else {}
    got = counterfactual_dcg(clicks, shown, target, examination=theta,
                             placement=placement, k=K, estimator=ours, **extra)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


# --- cascade and whole-list IPS, by the formula ------------------------------------------

def prefix_by_the_formula(clicks, shown, target, theta, prefix, estimator):
    total = 0.0
    for t in range(len(shown)):
        for j in range(K):
            agree = all(shown[t][i] == target[t][i] for i in range(j + 1))
            if estimator == "cascade_ips":
                if agree:
                    total += clicks[t][j] / math.log2(j + 2) / (prefix[t][j] * theta[j])
            else:
                whole = all(shown[t][i] == target[t][i] for i in range(K))
                if whole:
                    total += clicks[t][j] / math.log2(j + 2) / (prefix[t][K - 1]
                                                                * theta[j])
    return total / len(shown)


@pytest.mark.parametrize("estimator", ["cascade_ips", "list_ips"])
def test_prefix_estimators_equal_their_formula(estimator):
    rng = np.random.default_rng(3)
    n_imp = 60
    target = np.array([rng.permutation(N_ITEMS)[:K] for _ in range(n_imp)])
    shown = np.array([rng.permutation(N_ITEMS)[:K] for _ in range(n_imp)])
    shown[:20, :2] = target[:20, :2]
    shown[:20, 2] = np.where(rng.random(20) < 0.5, target[:20, 2], shown[:20, 2])
    for t in range(20):  # keep each row a list of distinct items
        if len(set(shown[t])) < K:
            shown[t, 2] = target[t, 2]
    clicks = rng.random(shown.shape) < 0.5
    prefix = np.sort(rng.uniform(0.01, 1.0, shown.shape), axis=1)[:, ::-1]
    theta = np.array([1.0, 0.7, 0.4])
    got = counterfactual_dcg(clicks, shown, target, examination=theta,
                             placement=np.ones(shown.shape), k=K, estimator=estimator,
                             prefix_placement=prefix)
    want = prefix_by_the_formula(clicks.tolist(), shown.tolist(), target.tolist(),
                                 theta.tolist(), prefix.tolist(), estimator)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert want > 0


# --- intervals and effective sample size -------------------------------------------------

def test_interval_by_hand():
    # four impressions, one slot; the new ranker's item 7 shown twice with phi = 1/2
    out = counterfactual_interval([[1], [0], [0], [1]], [[7], [7], [8], [8]], [[7]] * 4,
                                  examination=[1.0], placement=[[0.5]] * 4,
                                  estimator="ips", level=0.9)
    terms = np.array([2.0, 0.0, 0.0, 0.0])  # a click / phi on the first row only
    assert out["estimate"] == pytest.approx(terms.mean(), abs=1e-15)
    assert out["se"] == pytest.approx(terms.std(ddof=1) / 2, abs=1e-15)
    z = 1.6448536269514722  # the normal quantile of 0.95
    assert out["low"] == pytest.approx(out["estimate"] - z * out["se"], abs=1e-12)
    assert out["high"] == pytest.approx(out["estimate"] + z * out["se"], abs=1e-12)
    # weights 2, 2, 0, 0 over 4 slots: (2 + 2)^2 / (4 + 4) = 2
    assert out["ess"] == pytest.approx(2.0, abs=1e-15)
    assert out["slots"] == 4


def test_snips_standard_error_is_the_delta_methods():
    queries, shown, clicks, placement, new = simulate(500, np.random.default_rng(4))
    out = counterfactual_interval(clicks, shown, new[queries, :K], examination=THETA,
                                  placement=placement, k=K, estimator="snips")
    match = shown == new[queries, :K]
    x = (match * clicks * W / (placement * THETA)).sum(1)
    w = (match / placement).sum(1)
    ratio = x.sum() / w.sum()
    assert out["estimate"] == pytest.approx(ratio * K, rel=1e-12)
    want = K * np.sqrt(np.var(x - ratio * w, ddof=1) / x.size) / w.mean()
    assert out["se"] == pytest.approx(want, rel=1e-12)
    assert out["estimate"] == pytest.approx(counterfactual_dcg(
        clicks, shown, new[queries, :K], examination=THETA, placement=placement, k=K),
        rel=1e-12)


def test_ips_standard_error_matches_the_spread_over_many_logs():
    rng = np.random.default_rng(6)
    estimates, ses = [], []
    for _ in range(300):
        queries, shown, clicks, placement, new = simulate(400, rng)
        out = counterfactual_interval(clicks, shown, new[queries, :K], examination=THETA,
                                      placement=placement, k=K, estimator="ips")
        estimates.append(out["estimate"])
        ses.append(out["se"])
    spread = np.std(estimates, ddof=1)
    assert np.mean(ses) == pytest.approx(spread, rel=0.15)


def test_new_arguments_are_refused_where_they_do_not_belong():
    shown, clicks, target = [[0, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 1], [0, 1]]
    theta = [1.0, 0.5]
    with pytest.raises(TypeError, match="dr needs model="):
        counterfactual_dcg(clicks, shown, target, examination=theta, estimator="dr")
    with pytest.raises(TypeError, match="model= is a parameter of dm and dr"):
        counterfactual_dcg(clicks, shown, target, examination=theta, model=[[0.1, 0.2]] * 2)
    with pytest.raises(ValueError, match="model has shape"):
        counterfactual_dcg(clicks, shown, target, examination=theta, estimator="dm",
                           model=[[0.1]])
    with pytest.raises(TypeError, match="cascade_ips needs prefix_placement="):
        counterfactual_dcg(clicks, shown, target, examination=theta,
                           estimator="cascade_ips")
    with pytest.raises(TypeError, match="prefix_placement= is a parameter"):
        counterfactual_dcg(clicks, shown, target, examination=theta,
                           prefix_placement=[[1, 1]] * 2)
    with pytest.raises(ValueError, match="row 1 grows along the list"):
        counterfactual_dcg(clicks, shown, target, examination=theta, estimator="list_ips",
                           prefix_placement=[[1.0, 0.5], [0.5, 1.0]])
    with pytest.raises(ValueError, match="target row 0 has fewer than 2 items"):
        counterfactual_dcg(clicks, shown, [[0, -1], [0, 1]], examination=theta,
                           estimator="cascade_ips", prefix_placement=[[1.0, 1.0]] * 2)
    with pytest.raises(ValueError, match="level"):
        counterfactual_interval(clicks, shown, target, examination=theta, level=1.0)
    with pytest.raises(ValueError, match="at least 2 impressions"):
        counterfactual_interval([[1, 0]], [[0, 1]], [[0, 1]], examination=theta)
    with pytest.raises(ValueError, match=r"SNIPS is undefined here \(0/0\)"):
        counterfactual_interval(clicks, shown, [[1, 0], [0, 1]], examination=theta)


def test_counterfactual_interval_has_a_numpydoc_docstring_naming_its_chapter():
    import inspect
    import re

    doc = inspect.getdoc(counterfactual_interval)
    for section in ("Parameters", "Returns", "Notes", "References", "Examples"):
        assert re.search(rf"^{section}\n-+$", doc, re.M), section
    assert ":doc:`/chapters/23_counterfactual_evaluation`" in doc
