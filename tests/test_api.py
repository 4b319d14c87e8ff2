"""The public API as a whole: names, docstrings, and that no metric writes into its input."""

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import rankeval

ROOT = Path(__file__).resolve().parent.parent
METRICS = {
    "hits_at_k": {}, "precision_at_k": {}, "recall_at_k": {}, "hit_at_k": {},
    "average_precision": {}, "average_recall": {}, "graded_average_precision": {"max_grade": 3},
    "reciprocal_rank": {}, "dcg": {}, "ndcg": {}, "err": {"max_grade": 3},
    "mean_rank": {}, "first_relevant_position": {}, "inversions": {},
}
SECTIONS = ("Parameters", "Returns", "Notes", "Examples")


def test_all_lists_every_metric_of_the_book():
    wanted = set(METRICS) | {"rbp", "spearman_rho", "kendall_tau", "kendall_tau_distance",
                             "relevance_vector"}
    assert wanted <= set(rankeval.__all__)
    for name in rankeval.__all__:
        assert callable(getattr(rankeval, name)), name


@pytest.mark.parametrize("name", [n for n in rankeval.__all__ if inspect.isfunction(
    getattr(rankeval, n))])
def test_numpydoc_docstring_names_its_chapter(name):
    doc = inspect.getdoc(getattr(rankeval, name)) or ""
    for section in SECTIONS:
        assert re.search(rf"^{section}\n-+$", doc, re.M), f"{name}: no {section} section"
    assert ">>> " in doc, f"{name}: no runnable example"
    chapter = re.search(r":doc:`/(chapters/[\w]+)`", doc)
    assert chapter, f"{name}: docstring does not name its chapter"
    assert (ROOT / f"{chapter.group(1)}.ipynb").exists(), f"{name}: {chapter.group(1)} missing"


@pytest.mark.parametrize("name", sorted(METRICS))
def test_metrics_leave_their_input_unchanged(name):
    rng = np.random.default_rng(3)
    grades = rng.integers(0, 4, size=(20, 12)).astype(np.float64)
    before = grades.copy()
    getattr(rankeval, name)(grades, **METRICS[name])
    np.testing.assert_array_equal(grades, before)
    getattr(rankeval, name)(grades, 5, **METRICS[name])
    np.testing.assert_array_equal(grades, before)


def test_rbp_leaves_its_input_unchanged():
    gains = np.random.default_rng(4).random((10, 8))
    before = gains.copy()
    rankeval.rbp(gains, p=0.7)
    np.testing.assert_array_equal(gains, before)


def _allocator_setting(env_value, import_pyarrow_first):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "MIMALLOC_ARENA_EAGER_COMMIT"}
    if env_value is not None:
        env["MIMALLOC_ARENA_EAGER_COMMIT"] = env_value
    first = "import pyarrow; " if import_pyarrow_first else ""
    code = (f"{first}import os, rankeval; before = os.environ.get('MIMALLOC_ARENA_EAGER_COMMIT'); "
            "rankeval.read_qrels; print(before, os.environ.get('MIMALLOC_ARENA_EAGER_COMMIT'))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    return out.stdout.strip()


@pytest.mark.parametrize(
    ("env_value", "pyarrow_first", "expected"),
    [(None, False, "None 0"), ("1", False, "1 1"), (None, True, "None None")],
)
def test_import_sets_the_arrow_allocator_default_only_when_it_can(env_value, pyarrow_first,
                                                                  expected):
    # `import rankeval` changes nothing; the I/O layer, where rankeval first loads pyarrow,
    # sets it before pyarrow loads (mimalloc reads it then), never over the user's own
    # value, and not at all once pyarrow is loaded (it would change nothing and mislead)
    assert _allocator_setting(env_value, pyarrow_first) == expected
