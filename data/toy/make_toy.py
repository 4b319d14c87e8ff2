"""Write the toy collection of data/toy: made-up qrels and two runs in TREC format.

    python data/toy/make_toy.py    # rewrites qrels.txt, bm25.run and dense.run here

Twenty queries, thirty documents; grades 0..2; the "dense" run finds the relevant
documents a little more often than "bm25". Small enough to read by eye.
"""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    rng = np.random.default_rng(7)
    docs = [f"d{i}" for i in range(1, 31)]
    qrels, runs = [], {"bm25": [], "dense": []}
    for q in range(1, 21):
        query = f"q{q}"
        judged = rng.choice(docs, size=8, replace=False)
        grades = rng.choice(3, size=8, p=[0.5, 0.3, 0.2])
        qrels += [f"{query} 0 {d} {g}" for d, g in zip(judged, grades, strict=True)]
        for name, skill in (("bm25", 0.5), ("dense", 1.5)):
            # each run retrieves 6 of the 8 judged documents and 4 others
            others = [d for d in docs if d not in judged]
            pool = np.concatenate((rng.choice(judged, size=6, replace=False),
                                   rng.choice(others, size=4, replace=False)))
            gain = {d: g for d, g in zip(judged, grades, strict=True)}
            score = rng.normal(size=10) + skill * np.array([gain.get(d, 0) for d in pool])
            order = np.argsort(-score, kind="stable")
            runs[name] += [f"{query} Q0 {pool[i]} {r} {score[i] + 10:.3f} {name}"
                           for r, i in enumerate(order, start=1)]
    (HERE / "qrels.txt").write_text("\n".join(qrels) + "\n")
    for name, lines in runs.items():
        (HERE / f"{name}.run").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
