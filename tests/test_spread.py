"""Long-tail share, serendipity, RSP and REO against their published formulas written out
(Elliot's definitions), by hand, and on bad input."""

from __future__ import annotations

import numpy as np
import pytest

from rankeval.beyond import (
    entropy,
    exposure_entropy,
    exposure_gini,
    gini,
    ranking_equal_opportunity,
    ranking_statistical_parity,
    serendipity,
    tail_share,
)


def _data(seed):
    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(20)]
    popularity = {i: int(rng.integers(0, 100)) for i in items}
    run = {f"u{u}": list(rng.permutation(items)[: int(rng.integers(1, 8))]) for u in range(15)}
    train = {u: set(rng.permutation(items)[:3]) - set(run[u]) for u in run}
    test = {u: set(rng.permutation(items)[:4]) for u in run}
    groups = {i: ("head" if popularity[i] >= 50 else "tail") for i in items}
    return items, popularity, run, train, test, groups


@pytest.mark.parametrize("seed", range(5))
def test_against_the_formulas_written_out(seed):
    items, popularity, run, train, test, groups = _data(seed)
    # APLT with the top 20% by popularity (ties by id) as the head
    order = sorted(items, key=lambda x: (-popularity[x], x))
    tail = set(order[4:])
    aplt = np.mean([sum(i in tail for i in run[u]) / len(run[u]) for u in run])
    assert tail_share(run, popularity) == pytest.approx(aplt)
    # RSP: recommended over recommendable per group; REO: recall per group
    p_rsp, p_reo = [], []
    for g in ("head", "tail"):
        members = {i for i in items if groups[i] == g}
        shown = sum(len(set(run[u]) & members) for u in run)
        possible = sum(len(members - train[u]) for u in run)
        p_rsp.append(shown / possible)
        hit = sum(len(set(run[u]) & members & test[u]) for u in run)
        rel = sum(len(members & test[u]) for u in run)
        p_reo.append(hit / rel)
    assert ranking_statistical_parity(run, groups, train) == pytest.approx(
        np.std(p_rsp) / np.mean(p_rsp))
    assert ranking_equal_opportunity(run, groups, test) == pytest.approx(
        np.std(p_reo) / np.mean(p_reo))
    # serendipity against the most popular five as the expected list
    expected = {u: order[:5] for u in run}
    ser = np.mean([sum(i in test[u] and i not in expected[u] for i in run[u][:5]) / 5
                   for u in run])
    assert serendipity(run, test, expected, k=5) == pytest.approx(ser)


def test_short_names():
    assert gini is exposure_gini and entropy is exposure_entropy


@pytest.mark.parametrize("call, message", [
    (lambda: tail_share({"u": ["z"]}, {"a": 1}), "no popularity"),
    (lambda: tail_share({"u": ["a"]}, {"a": 1}, head=1.5), "head must be"),
    (lambda: serendipity({"u": ["a"]}, {}, {"u": []}), "missing from relevant"),
    (lambda: ranking_statistical_parity({"u": ["a"]}, {"a": "x"}, {}), "at least two groups"),
    (lambda: ranking_equal_opportunity({"u": ["a"]}, {"a": "x", "b": "y"}, {"u": ["a"]}),
     "no relevant test item"),
])
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
