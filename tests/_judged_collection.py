"""A random TREC collection with incomplete judgments, for the pytrec_eval oracle tests
of the measures that read judgments (bpref, infAP, R-precision, set measures, ...).

Each query has documents judged -1 (in the pool, not judged: trec_eval's infAP code),
0..3, and documents that the qrels do not list; some judged documents are never
retrieved. Scores strictly decrease down the run, so trec_eval keeps the run's order.
"""

import numpy as np

GRADES = [-1, 0, 0, 1, 1, 2, 3, None]  # None: not in the qrels


def judged_collection(seed, n_queries=25, max_docs=14):
    """Return (qrels, run, rankings, judgments): the two pytrec_eval dicts, each query's
    ranking as grades (NaN for a document not in the qrels), and each query's grades
    in the qrels (retrieved or not)."""
    rng = np.random.default_rng(seed)
    qrels, run, rankings, judgments = {}, {}, [], []
    for q in range(n_queries):
        n_docs = int(rng.integers(1, max_docs + 1))
        docs = [f"d{i:02d}" for i in range(n_docs)]
        grade = {d: GRADES[int(rng.integers(len(GRADES)))] for d in docs}
        for j in range(int(rng.integers(0, 4))):  # judged but never retrieved
            grade[f"j{j}"] = int(rng.integers(-1, 4))
        judged = {d: g for d, g in grade.items() if g is not None}
        if not judged:
            judged = {"j9": 0}
        shown = [docs[i] for i in rng.permutation(n_docs)[: int(rng.integers(1, n_docs + 1))]]
        qid = f"q{q:02d}"
        qrels[qid] = judged
        run[qid] = {d: float(len(shown) - pos) for pos, d in enumerate(shown)}
        rankings.append([np.nan if grade[d] is None else float(grade[d]) for d in shown])
        judgments.append(np.array(list(judged.values()), dtype=float))
    return qrels, run, rankings, judgments


def counts(judgments, threshold):
    """Per query: judged relevant (grade >= threshold) and judged non-relevant
    (0 <= grade < threshold) documents in the qrels."""
    n_rel = np.array([(g >= threshold).sum() for g in judgments])
    n_nonrel = np.array([((g >= 0) & (g < threshold)).sum() for g in judgments])
    return n_rel, n_nonrel


def pytrec(qrels, run, measures, threshold):
    """pytrec_eval's per-query values, as {measure: array in query order}."""
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=threshold)
    result = evaluator.evaluate(run)
    qids = sorted(run)
    return {m: np.array([result[q][m] for q in qids]) for m in result[qids[0]]}


def judged_grades(min_size=1, max_size=12, codes=(np.nan, -1.0, 0.0, 1.0, 2.0, 3.0)):
    """Hypothesis strategy: one ranking of grades, NaN and -1 marking unjudged documents."""
    from hypothesis import strategies as st

    return st.lists(st.sampled_from(codes), min_size=min_size, max_size=max_size)


def judged_ragged(max_queries=5, max_size=12, codes=(np.nan, -1.0, 0.0, 1.0, 2.0, 3.0)):
    """Hypothesis strategy: several rankings of different lengths."""
    from hypothesis import strategies as st

    return st.lists(judged_grades(1, max_size, codes), min_size=1, max_size=max_queries)
