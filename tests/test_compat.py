"""Compatibility against ir_measures' own implementation (its compat provider, Clarke et al.'s
reference), on random graded runs with distinct scores, and by hand."""

from __future__ import annotations

import numpy as np
import pytest

from rankeval import evaluate
from rankeval.metrics.compat import compatibility

ir_measures = pytest.importorskip("ir_measures")


def _collection(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(10):
        docs = [f"d{j:02d}" for j in range(25)]
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in docs[:15]}
        n = int(rng.integers(1, 25))
        chosen = rng.permutation(docs)[:n]
        run[f"q{q}"] = {d: float(s) for d, s in zip(chosen, rng.permutation(n) + 0.5, strict=True)}
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("spelling, theirs", [
    ("Compat", "Compat"), ("Compat(p=0.8)", "Compat(p=0.8)"),
    ("Compat(normalize=False)", "Compat(normalize=False)"),
])
def test_compat_equals_ir_measures(seed, spelling, theirs):
    qrels, run = _collection(seed)
    ours = evaluate(qrels, run, [spelling])[spelling]
    measure = ir_measures.parse_measure(theirs)
    expected = {m.query_id: m.value for m in ir_measures.compat.iter_calc([measure], qrels, run)}
    for q in ours.index:
        assert ours[q] == pytest.approx(expected[q], abs=1e-12), q


def test_compat_by_hand():
    # the ideal is (2, 1); the ranking (0, 1, 2) shares nothing at depth 1, the grade-1
    # document at depth 2 (ideal position 2), both at depth 3: X = 0, 1, 2 over D = 3
    p = 0.95
    raw = (0 + p * 1 / 2 + p**2 * 2 / 3) / (1 + p + p**2)
    best = (1 + p * 2 / 2 + p**2 * 2 / 3) / (1 + p + p**2)
    assert compatibility([0, 1, 2], [2, 1, 0]) == pytest.approx(raw / best)
    assert compatibility([0, 1, 2], [2, 1, 0], normalize=False) == pytest.approx(raw)
    assert compatibility([2, 1], [2, 1]) == 1.0
    assert compatibility([0, 0], [0, 0]) == 0.0
    with pytest.raises(ValueError, match="strictly between"):
        compatibility([1], [1], p=1)
