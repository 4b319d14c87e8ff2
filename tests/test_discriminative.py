"""Discriminative power (paired bootstrap, Sakai 2006) and swap rates (Voorhees and
Buckley 2002) of rankeval.beyond."""

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval.beyond import discriminative_power, swap_rate, topic_matrix


def test_topic_matrix_from_evaluate_frames():
    qrels = {"q1": {"a": 1}, "q2": {"x": 1}}
    runs = {
        "A": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 2.0, "y": 1.0}},
        "B": {"q1": {"a": 1.0, "b": 2.0}, "q2": {"x": 1.0, "y": 2.0}},
    }
    frames = {s: rankeval.evaluate(qrels, r, ["RR"]) for s, r in runs.items()}
    m = topic_matrix(frames, "RR")
    assert m.to_numpy().tolist() == [[1.0, 0.5], [1.0, 0.5]]
    frames["C"] = frames["A"].iloc[:1]
    with pytest.raises(ValueError, match="other topics"):
        topic_matrix(frames, "RR")
    with pytest.raises(ValueError, match="measure"):
        topic_matrix(frames)


def test_asl_by_direct_loop_and_determinism():
    rng = np.random.default_rng(3)
    m = pd.DataFrame(rng.random((12, 4)), columns=list("ABCD"))
    m["A"] += 0.4
    power, pairs = discriminative_power(m, n_bootstrap=300, seed=5)
    # recompute one pair's ASL with an explicit loop over the same samples
    samples = np.random.default_rng(5).integers(0, 12, size=(300, 12))
    z = (m["A"] - m["B"]).to_numpy()
    t_obs = z.mean() / (z.std(ddof=1) / np.sqrt(12))
    w = z - z.mean()
    count = 0
    for s in samples:
        ws = w[s]
        count += abs(ws.mean() / (ws.std(ddof=1) / np.sqrt(12))) >= abs(t_obs)
    row = pairs[(pairs["a"] == "A") & (pairs["b"] == "B")].iloc[0]
    assert row["asl"] == count / 300
    assert len(pairs) == 6 and pairs["asl"].is_monotonic_increasing
    assert power == float((pairs["asl"] < 0.05).mean())
    again = discriminative_power(m, n_bootstrap=300, seed=5)
    assert again[0] == power and again[1].equals(pairs)


def test_identical_systems_are_never_significant_and_a_constant_gap_always_is():
    m = pd.DataFrame({"A": [0.25, 0.5, 0.75], "B": [0.25, 0.5, 0.75],
                      "C": [0.375, 0.625, 0.875]})  # exact binary fractions
    power, pairs = discriminative_power(m, n_bootstrap=100)
    asl = {(r.a, r.b): r.asl for r in pairs.itertuples()}
    assert asl[("A", "B")] == 1.0
    assert asl[("A", "C")] == 0.0 and asl[("B", "C")] == 0.0
    assert power == 2 / 3


def test_swap_rate_counts_and_limits():
    rng = np.random.default_rng(0)
    m = pd.DataFrame(rng.random((40, 5)), columns=list("ABCDE"))
    table = swap_rate(m, [5, 20], n_trials=30, seed=1)
    assert table["comparisons"].tolist() == [300, 300]  # 10 pairs x 30 trials
    assert ((0 <= table["swap_rate"]) & (table["swap_rate"] <= 1)).all()
    binned = swap_rate(m, [5, 20], n_trials=30, bin_width=0.05, seed=1)
    assert binned.groupby("topics")["comparisons"].sum().tolist() == [300, 300]
    assert binned.groupby("topics")["swaps"].sum().tolist() == table["swaps"].tolist()
    # a system better on every topic is never swapped
    m["Z"] = m.max(axis=1) + 0.1
    z_only = m[["A", "Z"]]
    assert swap_rate(z_only, [20], n_trials=50)["swaps"].tolist() == [0]
    with pytest.raises(ValueError, match="size"):
        swap_rate(m, [21])


def test_swap_rate_of_two_mirror_systems_by_hand():
    # A wins topics 0, 2; B wins 1, 3 by the same margin. With two topics per set,
    # a set {win, loss} ties (no swap); the split {0,2} vs {1,3} always swaps.
    m = pd.DataFrame({"A": [0.9, 0.1, 0.9, 0.1], "B": [0.1, 0.9, 0.1, 0.9]})
    table = swap_rate(m, [2], n_trials=600, seed=2)
    # P(split is {0,2}|{1,3}) = 2 of the 6 ordered-first-set choices = 1/3
    assert abs(table["swap_rate"].iloc[0] - 1 / 3) < 0.06


def test_a_matrix_that_repeats_a_topic_or_a_system_is_refused():
    # a repeated topic would weigh twice in every mean, silently (issue 52)
    m = pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.3, 0.2, 0.1]}, index=["q1", "q2", "q1"])
    with pytest.raises(ValueError, match="topic 'q1' twice"):
        topic_matrix(m)
    m = pd.DataFrame([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], columns=["A", "B", "A"])
    with pytest.raises(ValueError, match="system 'A' twice"):
        discriminative_power(m)


def test_swap_rate_refuses_a_repeated_size():
    m = pd.DataFrame({"A": [0.9, 0.1, 0.8, 0.2], "B": [0.1, 0.9, 0.2, 0.8]})
    with pytest.raises(ValueError, match="repeats a size"):
        swap_rate(m, [2, 2], n_trials=3)
