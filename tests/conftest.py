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


# --- whole collections for the run layer (differential tests against trec_eval) ---------

_ID_ALPHABET = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/") + [
    "\u00e9", "\u00fc", "\u00df", "\u4e2d", "\u6587", "\u0416", "\u03b1",
]  # fmt: skip


def random_id(rng, prefix="", max_bytes=40):
    """An id of 1 to ``max_bytes`` UTF-8 bytes, ASCII mostly, sometimes non-ASCII or
    all digits (so that "9" and "10" tie-break as strings)."""
    while True:
        kind = rng.random()
        n = int(rng.integers(1, max_bytes + 1))
        if kind < 0.3:
            text = str(int(rng.integers(0, 10 ** int(rng.integers(1, 12)))))
        else:
            chars = rng.choice(len(_ID_ALPHABET), size=n)
            text = "".join(_ID_ALPHABET[c] for c in chars)
        text = (prefix + text).encode()[:max_bytes].decode("utf-8", "ignore")
        if text:
            return text


def trec_collection(seed, n_queries=40, *, max_docs=40, integer_grades=True):
    """Random qrels and run dicts that hit trec_eval's corner cases.

    Ids of 1 to 40 bytes (mixed lengths, non-ASCII, digit-only), many tied
    scores, relevant documents never retrieved, graded and negative
    judgments, unjudged retrieved documents, judged queries missing from the
    run, run queries without judgments, queries with no relevant document.
    """
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    queries = list(dict.fromkeys(random_id(rng) for _ in range(n_queries)))
    for q in queries:
        pool = list(dict.fromkeys(random_id(rng) for _ in range(int(rng.integers(2, max_docs)))))
        judged = rng.choice(len(pool), size=int(rng.integers(1, len(pool) + 1)), replace=False)
        grades = rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3, 4], size=judged.size)
        if rng.random() < 0.1:
            grades = np.minimum(grades, 0)  # no relevant document at all
        if grades.max() < 0:  # trec_eval crashes on a query judged only negatively
            grades[0] = 0
        qrels[q] = {pool[i]: int(g) for i, g in zip(judged, grades, strict=True)}
        for _ in range(int(rng.integers(0, 4))):  # relevant, never retrieved
            qrels[q].setdefault(random_id(rng, "m"), int(rng.integers(1, 4)))
        if not integer_grades:
            qrels[q] = {d: g + float(rng.choice([0, 0, 0.5])) for d, g in qrels[q].items()}
        r = rng.random()
        if r < 0.12:
            continue  # judged query missing from the run
        n = int(rng.integers(1, len(pool) + 1))
        docs = [pool[i] for i in rng.choice(len(pool), size=n, replace=False)]
        if rng.random() < 0.5:
            scores = rng.integers(0, 5, size=n) / 2.0  # heavy ties
        else:
            scores = np.round(rng.normal(size=n) * 10, int(rng.integers(0, 4)))
        run[q] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
    for _ in range(3):  # run queries without judgments
        run[random_id(rng, "unjudged-")] = {random_id(rng): float(rng.normal()) for _ in range(3)}
    return qrels, run
