"""Shared test settings and hypothesis strategies."""

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# No deadline: CI machines are slow and timing is not what these tests check.
settings.register_profile(
    "book", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("book")


def grades(max_grade=3, min_size=1, max_size=12):
    """One ranking: a list of integer grades 0..max_grade."""
    return st.lists(st.integers(0, max_grade), min_size=min_size, max_size=max_size)


def binary(min_size=1, max_size=12):
    """One ranking of binary relevance."""
    return grades(1, min_size, max_size)


def ragged(max_grade=3, max_queries=6, max_size=12):
    """Many queries of different lengths."""
    return st.lists(grades(max_grade, 1, max_size), min_size=1, max_size=max_queries)


def cutoffs(max_k=15):
    """A cut-off k: None or a positive int, possibly past the end of the list."""
    return st.one_of(st.none(), st.integers(1, max_k))


def random_batch(seed, n_queries=50, max_len=20, max_grade=3):
    """A reproducible ragged batch for oracle tests."""
    rng = np.random.default_rng(seed)
    return [
        list(rng.integers(0, max_grade + 1, size=rng.integers(1, max_len + 1)))
        for _ in range(n_queries)
    ]


def judged_collection(seed, n_queries, min_docs, max_docs):
    """Random graded judgments and a run that shows part of them, in strictly decreasing
    score order (so trec_eval keeps the run's order). Returns the qrels and run dicts,
    the grades of each ranking, and every judged grade of each query."""
    rng = np.random.default_rng(seed)
    qrels, run, rankings, judged = {}, {}, [], []
    for q in range(n_queries):
        n_docs = int(rng.integers(min_docs, max_docs + 1))
        docs = [f"d{i:02d}" for i in range(n_docs)]
        grade = {d: int(rng.integers(0, 4)) for d in docs}
        shown = [docs[i] for i in rng.permutation(n_docs)[: int(rng.integers(1, n_docs + 1))]]
        qrels[f"q{q}"] = grade
        run[f"q{q}"] = {d: float(len(shown) - pos) for pos, d in enumerate(shown)}
        rankings.append([grade[d] for d in shown])
        judged.append(list(grade.values()))
    return qrels, run, rankings, judged
