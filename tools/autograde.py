"""Autograded assignments from the chapters, with Otter-Grader (otter-grader on PyPI).

Why Otter-Grader, not nbgrader: an Otter assignment is one notebook with its solutions
and tests marked in raw cells; ``otter assign`` writes the student notebook (solutions
replaced by ``...``, hidden tests left out) and an autograder zip, and ``otter run``
grades a submission against that zip in the current Python environment, without
Docker, a database or a Jupyter server extension, which is what a test in CI needs.
nbgrader needs a course directory, its SQLite gradebook and an exchange to do the same.
Otter is maintained by UC Berkeley's Data Science education programme and used in its
large courses. The version is pinned in requirements-test.txt.

For every chapter with a self-checked exercise (chapters/answers.json) this writes a
master notebook (:func:`master_notebook`):

* the chapter's student edition (tools/editions.py): statements, no solutions;
* in place of each self-check cell, an Otter question ``ex8_1`` worth one point per
  number: a code cell where the student works and sets ``answer_8_1`` (the teacher's
  solution is the chapter's own solution code, then the answer read from the values
  the solution glues, ``bookstyle.GLUED``, or printed), and one hidden test per number
  that accepts it within the part's tolerance (bookstyle.tolerance). The hidden tests
  live only in the autograder zip; the student notebook has no test and no value.

Open and proof exercises stay as statements; teacher/marking.yml grades them.

Per-student data (:data:`VARIANTS`): an exercise whose answer is one number (or a few)
computed from small inputs in its statement gives every student inputs of their own,
made from the ``STUDENT_ID`` the student writes in the assignment's first code cell. Each
entry says how its data is made (a spec of one of a few kinds: a binary list, a list of
grades, a sequence of integers, one integer, one of some values, a record of these;
:data:`GENERATOR` draws each value from a SHA-256 of the ID, the exercise and a counter,
so the data are the same on every machine and with every Python), what the data replace
in the statement, and the reference answer as the body of a function of the data. The
question asks for the answer for that data; the teacher's solution computes it; each
hidden test makes the data again from ``STUDENT_ID`` with its own copy of the generator
and the spec, and recomputes the answer with its own copy of the reference answer, so an
answer copied from another student fails (a blank ID scores nothing). The teacher checks
that each submission's ``STUDENT_ID`` is its author's (it is in the first code cell).
teacher/README.md lists the exercises without per-student data, and why.

    python3 tools/autograde.py OUT [--chapters 1 8] [--grade]

writes OUT/chNN/{master.ipynb, dist/student, dist/autograder} and, with --grade, grades
the teacher's solution notebook and prints its score (it must be full marks).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"
sys.path.insert(0, str(ROOT / "_ext"))
sys.path.insert(0, str(ROOT))
import teaching  # noqa: E402

from tools import editions  # noqa: E402

KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
# data the chapters read as ../data: copied into the assignment, read as ./data there
DATA_PATH = re.compile(r'Path\("\.\."\) / "data"')


# exercise -> how the student's own data is made from STUDENT_ID (`data`: a generator spec,
# see GENERATOR), what it replaces in the statement (`says`), and the reference answer as
# the body of a function of `data` that returns the number, or a tuple of the numbers in
# the order of the exercise's parts (`answer`: rankeval or plain Python, the teacher's
# method); `statement` is the statement's own data in the same form, where it has one
# (the answer on it is the book's value: tests/test_autograde.py). Each spec is one of a few kinds, reused across exercises:
#   binary    {"n"}: a 0/1 list of length n with at least one 0 and one 1
#   graded    {"n", "top"}: grades 0..top, at least one above 0, not all equal
#   sequence  {"n", "lo", "hi", "distinct", "ties", "varied", "hit_by", "must_have",
#             "nonzero"}: integers in lo..hi; all different, or with at least one repeat,
#             or not all equal, or with a value above 0 among the first hit_by, or holding
#             each of must_have, or without 0
#   integer   {"lo", "hi"}: one integer;  choice {"values"}: one of the values
#   record    {"fields": {name: spec}}: a dict, each field made by its own spec
VARIANTS = {
    "1.1": {
        "statement": [0, 1, 0, 1, 1, 0],
        "data": {"kind": "binary", "n": 10},
        "says": "your binary list replaces [0, 1, 0, 1, 1, 0]",
        "answer": "return rankeval.inversions(data)",
    },
    "1.3": {
        "statement": {'n': 10, 'top': 3},
        "data": {"kind": "record", "fields": {
            "n": {"kind": "integer", "lo": 6, "hi": 30},
            "top": {"kind": "integer", "lo": 2, "hi": 5}}},
        "says": ("a list of `n` positions and the top `top` replace 10 positions and the "
                 "top 3"),
        "answer": ("w_zipf = [1 / i for i in range(1, data['n'] + 1)]\n"
                   "w_log = [1 / math.log2(i + 1) for i in range(1, data['n'] + 1)]\n"
                   "top = data['top']\n"
                   "return (sum(w_zipf[:top]) / sum(w_zipf),\n"
                   "        sum(w_log[:top]) / sum(w_log))"),
    },
    "3.2": {
        "statement": {'n': 10, 'relevant': 2, 'k': 3},
        "data": {"kind": "record", "fields": {
            "n": {"kind": "integer", "lo": 8, "hi": 16},
            "relevant": {"kind": "integer", "lo": 2, "hi": 4},
            "k": {"kind": "integer", "lo": 2, "hi": 5}}},
        "says": ("`n` items of which `relevant` are relevant, and Hit@`k`, replace ten "
                 "items, two relevant, and Hit@3"),
        "answer": ("n, r, k = data['n'], data['relevant'], data['k']\n"
                   "return 1 - math.comb(n - r, k) / math.comb(n, k)"),
    },
    "4.1": {
        "statement": [0, 1, 1, 0, 1, 0],
        "data": {"kind": "binary", "n": 7},
        "says": ("your binary list replaces [N, R, R, N, R, N] (1 = R); one more relevant "
                 "document is not in the list, as in the statement"),
        "answer": ("return (rankeval.average_precision(data),\n"
                   "        rankeval.average_precision(data, n_relevant=sum(data) + 1))"),
    },
    "4.3": {
        "statement": [2, 0, 1],
        "data": {"kind": "sequence", "n": 5, "lo": 0, "hi": 2, "must_have": [1, 2]},
        "says": "your ranking of grades (0..2) replaces [2, 0, 1]",
        "answer": ("gap = rankeval.graded_average_precision\n"
                   "return (gap(data, grade_probabilities=[1, 0]),\n"
                   "        gap(data, grade_probabilities=[0, 1]),\n"
                   "        gap(data))"),
    },
    "5.1": {
        "statement": [0, 0, 1, 1],
        "data": {"kind": "binary", "n": 6},
        "says": "your binary list replaces [0, 0, 1, 1]",
        "answer": ("return (rankeval.average_precision(data),\n"
                   "        rankeval.average_recall(data))"),
    },
    "5.3": {
        "statement": {"first": [1, 1, 0, 0, 0, 0], "second": [0, 0, 0, 0, 1, 1]},
        "data": {"kind": "record", "fields": {
            "first": {"kind": "binary", "n": 6},
            "second": {"kind": "binary", "n": 6}}},
        "says": "your lists `first` and `second` replace the statement's two lists",
        "answer": ("def over_all_ranks(ranking):\n"
                   "    n = len(ranking)\n"
                   "    return sum(rankeval.recall_at_k(ranking, k=i)\n"
                   "               for i in range(1, n + 1)) / n\n"
                   "return (over_all_ranks(data['first']), over_all_ranks(data['second']))"),
    },
    "6.1": {
        "statement": {"ranking": [0, 1, 1, 0, 0, 1], "missing": 1},
        "data": {"kind": "record", "fields": {
            "ranking": {"kind": "binary", "n": 6},
            "missing": {"kind": "integer", "lo": 0, "hi": 2}}},
        "says": ("your `ranking` replaces 0, 1, 1, 0, 0, 1, and `missing` relevant "
                 "documents are not in it (the statement has one)"),
        "answer": ("from fractions import Fraction\n\n"
                   "from rankeval.metrics.interpolated_precision import (\n"
                   "    interpolated_precision)\n"
                   "from rankeval.metrics.r_precision import r_precision\n"
                   "ranking = data['ranking']\n"
                   "r = sum(ranking) + data['missing']\n"
                   "# the textbook's 11-point rule: at each level 0, 0.1, ..., 1 the best\n"
                   "# precision at that recall or beyond, 0 where no rank reaches it\n"
                   "points, hits = [], 0\n"
                   "for i, g in enumerate(ranking, start=1):\n"
                   "    if g:\n"
                   "        hits += 1\n"
                   "        points.append((Fraction(hits, r), Fraction(hits, i)))\n"
                   "eleven = sum(max((p for recall, p in points if recall >= Fraction(j, 10)),\n"
                   "                 default=0) for j in range(11)) / 11\n"
                   "return (r_precision(ranking, n_relevant=r),\n"
                   "        rankeval.average_precision(ranking, n_relevant=r),\n"
                   "        interpolated_precision(ranking, 0.5, n_relevant=r),\n"
                   "        float(eleven))"),
    },
    "7.1": {
        "statement": [2, 1, 11, 7],
        "data": {"kind": "sequence", "n": 4, "lo": 1, "hi": 11, "varied": True},
        "says": ("your four positions of the first relevant item replace 2, 1, none "
                 "and 7 (a position of 11 means: not in the top 10)"),
        "answer": ("system = [[0] * (i - 1) + [1] for i in data]\n"
                   "mrr = rankeval.reciprocal_rank(system, k=10).mean()\n"
                   "best = max(rankeval.reciprocal_rank(\n"
                   "    system[:q] + [[1]] + system[q + 1:], k=10).mean()\n"
                   "    for q in range(len(system)))\n"
                   "return (mrr, best)"),
    },
    "7.3": {
        "statement": [0, 1, 1, 1],
        "data": {"kind": "binary", "n": 8},
        "says": "your binary list replaces the list 0, 1, 1, 1",
        "answer": "return rankeval.average_precision(data)",
    },
    "8.1": {
        "statement": [2, 0, 1],
        "data": {"kind": "graded", "n": 4, "top": 3},
        "says": "your grades (0..3) replace 2, 0, 1; the cut-off stays 3",
        "answer": ("return (rankeval.ndcg(data, k=3, gain='linear'),\n"
                   "        rankeval.ndcg(data, k=3, gain='exponential'))"),
    },
    "9.1": {
        "data": {"kind": "sequence", "n": 2, "lo": 0, "hi": 4, "distinct": True},
        "says": ("your two grades, on a 0..4 scale, replace [1, 2] on a 0..2 scale; the "
                 "swapped list is your list reversed"),
        "names": "ERR of your list; ERR of your list reversed",
        "answer": ("pair = rankeval.err([data, data[::-1]], max_grade=4)\n"
                   "return (pair[0], pair[1])"),
    },
    "9.2": {
        "data": {"kind": "graded", "n": 4, "top": 4},
        "says": ("your four queries' grades, on a 0..4 scale, replace three queries "
                 "graded 3, 1 and 0 on a 0..3 scale"),
        "answer": ("return rankeval.err([[g] for g in data],\n"
                   "                    max_grade=4).mean()"),
    },
    "9.3": {
        "statement": [0, 0, 1, 3, 0],
        "data": {"kind": "graded", "n": 5, "top": 3},
        "says": "your list of grades (0..3 scale) replaces [0, 0, 1, 3, 0]",
        "answer": "return rankeval.err(data, max_grade=3, p=0.8)",
    },
    "10.1": {
        "statement": {'ranking': [0, 1, 1], 'p': 0.5},
        "data": {"kind": "record", "fields": {
            "ranking": {"kind": "binary", "n": 4},
            "p": {"kind": "choice", "values": [0.5, 0.6, 0.7, 0.8, 0.9]}}},
        "says": "your `ranking` and `p` replace [0, 1, 1] and p = 0.5",
        "answer": ("value, residual = rankeval.rbp(data['ranking'], p=data['p'],\n"
                   "                               return_residual=True)\n"
                   "return (value, residual)"),
    },
    "10.3": {
        "statement": 0.95,
        "data": {"kind": "choice",
                 "values": [round(0.8 + 0.01 * i, 2) for i in range(19)]},
        "says": "your p replaces p = 0.95",
        "answer": "return math.ceil(math.log(0.001) / math.log(data))",
    },
    "11.1": {
        "statement": [0, 1, 0, 0, 1, 0, 1],
        "data": {"kind": "binary", "n": 7, "hit_by": 3},
        "says": ("your list of grades replaces 0, 1, 0, 0, 1, 0, 1 (it has a relevant "
                 "item in the top 3)"),
        "answer": ("return (rankeval.first_relevant_position(data),\n"
                   "        rankeval.mean_rank(data),\n"
                   "        rankeval.mean_rank(data, k=3),\n"
                   "        rankeval.mean_rank(data, k=3, beyond='drop'),\n"
                   "        rankeval.first_relevant_position(data, k=1))"),
    },
    "11.2": {
        "statement": 7,
        "data": {"kind": "integer", "lo": 5, "hi": 40},
        "says": "your n replaces n = 7",
        "answer": ("return (data + 1) / 2  # the mean of the positions 1..n, "
                   "whatever the grades"),
    },
    "12.2": {
        "statement": [2, 1, 3, 3],
        "data": {"kind": "sequence", "n": 5, "lo": 1, "hi": 5, "ties": True,
                 "varied": True},
        "says": "x = (1, 2, 3, 4, 5) and your y replace x = (1, 2, 3, 4), y = (2, 1, 3, 3)",
        "answer": ("x = list(range(1, len(data) + 1))\n"
                   "return (rankeval.kendall_tau(x, data, variant='a'),\n"
                   "        rankeval.kendall_tau(x, data),\n"
                   "        rankeval.spearman_rho(x, data))"),
    },
    "12.3": {
        "statement": [3, 2, 3, 0, 1, 2, 0, 1, 0, 3],
        "data": {"kind": "graded", "n": 10, "top": 3},
        "says": ("your graded list replaces [3, 2, 3, 0, 1, 2, 0, 1, 0, 3]; the positions "
                 "score 10 for the top item down to 1, as in the chapter"),
        "answer": ("import numpy as np\n"
                   "graded = np.array(data)\n"
                   "position = np.arange(graded.size, 0, -1)\n"
                   "rises_ndcg, rises_rho = [], []\n"
                   "for j in range(1, graded.size):\n"
                   "    swapped = graded.copy()\n"
                   "    swapped[[j - 1, j]] = swapped[[j, j - 1]]\n"
                   "    rises_ndcg.append(rankeval.ndcg(swapped, k=10)\n"
                   "                      - rankeval.ndcg(graded, k=10))\n"
                   "    rises_rho.append(rankeval.spearman_rho(position, swapped)\n"
                   "                     - rankeval.spearman_rho(position, graded))\n"
                   "return (max(rises_ndcg), max(rises_rho))"),
    },
    "15.2": {
        "statement": {"top_3": [0, 1, 1], "missing": 1},
        "data": {"kind": "record", "fields": {
            "top_3": {"kind": "binary", "n": 3},
            "missing": {"kind": "integer", "lo": 1, "hi": 4}}},
        "says": ("your `top_3` replaces the run's top three (relevant at ranks 2 and 3), "
                 "and R_q is the relevant documents in it plus `missing` (the statement: "
                 "2 + 1 = 3)"),
        "answer": ("top, r = data['top_3'], sum(data['top_3']) + data['missing']\n"
                   "return (rankeval.average_precision(top, n_relevant=r),\n"
                   "        rankeval.average_precision(top),\n"
                   "        rankeval.recall_at_k(top, 3, n_relevant=r),\n"
                   "        rankeval.recall_at_k(top, 3))"),
    },
    "16.1": {
        "statement": [0, 2, 1, 0, 0, 1],
        "data": {"kind": "sequence", "n": 6, "lo": 0, "hi": 2, "must_have": [0, 1, 2]},
        "says": ("your six documents (1 relevant, 0 judged non-relevant, 2 unjudged) "
                 "replace the statement's; as there, one more judged non-relevant "
                 "document is not retrieved"),
        "answer": ("qrels = {'q': {f'd{i}': g for i, g in enumerate(data) if g < 2}}\n"
                   "qrels['q']['not_retrieved'] = 0\n"
                   "run = {'q': [f'd{i}' for i in range(len(data))]}\n"
                   "e = rankeval.evaluate(qrels, run, ['Bpref', 'AP', 'Judged@6'])\n"
                   "condensed = rankeval.evaluate(qrels, run, ['AP'], judged_only=True)\n"
                   "return (e['Bpref'].item(), e['AP'].item(), condensed['AP'].item(),\n"
                   "        e['Judged@6'].item())"),
    },
    "17.1": {
        "statement": [2, 1, 3, -2],
        "data": {"kind": "sequence", "n": 4, "lo": -5, "hi": 5, "nonzero": True,
                 "varied": True},
        "says": ("your four differences, in tenths (3 means 0.3), replace (0.2, 0.1, "
                 "0.3, -0.2)"),
        "answer": ("from itertools import product\n"
                   "d = [v / 10 for v in data]\n"
                   "mean = sum(d) / len(d)\n"
                   "s = math.sqrt(sum((v - mean) ** 2 for v in d) / (len(d) - 1))\n"
                   "observed = abs(sum(data))  # in tenths: whole numbers, no rounding\n"
                   "extreme = sum(abs(sum(sign * v for sign, v in zip(signs, data)))\n"
                   "              >= observed for signs in product((1, -1), repeat=4))\n"
                   "return (s, mean / (s / math.sqrt(len(d))), extreme / 16)"),
    },
    "17.4": {
        "statement": {'p_hat': 0.047, 'patterns': 10_000},
        "data": {"kind": "record", "fields": {
            "p_hat": {"kind": "choice", "values": [0.041, 0.042, 0.043, 0.046]},
            "patterns": {"kind": "choice", "values": [2_000, 5_000, 10_000, 20_000]}}},
        "says": ("your estimate `p_hat` from `patterns` patterns replaces 0.047 from "
                 "B = 10,000"),
        "answer": ("p, b = data['p_hat'], data['patterns']\n"
                   "se = math.sqrt(p * (1 - p) / b)\n"
                   "return (se, math.ceil(p * (1 - p) / ((0.05 - p) / 3) ** 2))"),
    },
    "21.1": {
        "statement": {"shown": [1, 0, 0, 1, 0], "not_shown": 2},
        "data": {"kind": "record", "fields": {
            "shown": {"kind": "binary", "n": 5},
            "not_shown": {"kind": "integer", "lo": 1, "hi": 4}}},
        "says": ("your list of five (`shown`, 1 = an item the user chose) replaces "
                 "positions 1 and 4, and the user chose `not_shown` more items that are "
                 "not in it (the statement: 2)"),
        "answer": ("shown = data['shown']\n"
                   "held_out = sum(shown) + data['not_shown']\n"
                   "return (rankeval.recall_at_k(shown, 5),\n"
                   "        rankeval.recall_at_k(shown, 5, n_relevant=held_out),\n"
                   "        rankeval.ndcg(shown, 5),\n"
                   "        rankeval.ndcg(shown, 5, ideal=[1] * held_out))"),
    },
    "23.1": {
        "statement": {'clicks_1': [0, 1, 0, 1], 'clicks_2': [0, 0, 1, 0], 'new_top_2': [3, 1]},
        "data": {"kind": "record", "fields": {
            "clicks_1": {"kind": "binary", "n": 4},
            "clicks_2": {"kind": "binary", "n": 4},
            "new_top_2": {"kind": "sequence", "n": 2, "lo": 0, "hi": 3,
                          "distinct": True}}},
        "says": ("your clicks of impression 1 and 2 (1 = a click at that position) and "
                 "the new ranker's top 2 replace the statement's; the items and e are "
                 "the statement's"),
        "answer": ("from rankeval.online import counterfactual_dcg\n"
                   "return counterfactual_dcg([data['clicks_1'], data['clicks_2']],\n"
                   "                          [[0, 1, 2, 3]] * 2, [data['new_top_2']] * 2,\n"
                   "                          examination=[1, 0.6, 0.3, 0.2],\n"
                   "                          estimator='item_ips')"),
    },
    "24.1": {
        "statement": [64, 16, 8, 2],
        "data": {"kind": "sequence", "n": 4, "lo": 1, "hi": 64, "distinct": True},
        "says": ("the numbers of users (of 64) who know each of your four items replace "
                 "64, 16, 8 and 2"),
        "answer": ("import rankeval.beyond as rb\n"
                   "items = [f'i{j}' for j in range(len(data))]\n"
                   "return rb.novelty({'u': items}, dict(zip(items, data)), 64)"),
    },
    "24.3": {
        "statement": {'items': 101, 'rank': 11, 'negatives': 10},
        "data": {"kind": "record", "fields": {
            "items": {"kind": "integer", "lo": 51, "hi": 201},
            "rank": {"kind": "integer", "lo": 2, "hi": 30},
            "negatives": {"kind": "integer", "lo": 5, "hi": 30}}},
        "says": ("your catalogue size (`items`), full rank (`rank`) and number of sampled "
                 "negatives replace 101, 11 and 10"),
        "answer": ("import numpy as np\n"
                   "import rankeval.beyond as rb\n"
                   "return rb.expected_sampled_hit(np.array([data['rank']]), data['items'],\n"
                   "                               data['negatives'], 1)"),
    },
    "25.1": {
        "statement": {'both_relevant': 12, 'a_alone': 5, 'b_alone': 3},
        "data": {"kind": "record", "fields": {
            "both_relevant": {"kind": "integer", "lo": 6, "hi": 16},
            "a_alone": {"kind": "integer", "lo": 1, "hi": 8},
            "b_alone": {"kind": "integer", "lo": 1, "hi": 8}}},
        "says": ("your counts replace 12 (both relevant), 5 (A alone) and 3 (B alone); "
                 "the other documents of the 40 both call non-relevant"),
        "answer": ("import rankeval.beyond as rb\n"
                   "both, a, b = data['both_relevant'], data['a_alone'], data['b_alone']\n"
                   "neither = 40 - both - a - b\n"
                   "first = [1] * both + [0] * neither + [1] * a + [0] * b\n"
                   "second = [1] * both + [0] * neither + [0] * a + [1] * b\n"
                   "return rb.cohen_kappa(first, second)"),
    },
    "25.3": {
        "statement": [3, 0, 2, 1],
        "data": {"kind": "sequence", "n": 4, "lo": 0, "hi": 3, "varied": True},
        "says": ("item j's counts are (your[j], 3 - your[j]): your list replaces "
                 "3, 0, 2, 1"),
        "answer": ("import rankeval.beyond as rb\n"
                   "return rb.fleiss_kappa([[c, 3 - c] for c in data])"),
    },
}
GENERATOR = '''\
def student_data(student_id, exercise, spec):
    """The data of `exercise` for `student_id`, made by `spec` (a kind and its
    sizes), the same on every machine: each draw is a SHA-256 of the ID, the
    exercise, the field and a counter."""
    import hashlib

    state = {"count": 0}

    def below(m, where):  # an integer in 0..m-1
        state["count"] += 1
        text = f"{student_id}|{exercise}|{where}|{state['count']}"
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % m

    def make(spec, where):
        kind = spec["kind"]
        if kind == "record":
            return {name: make(sub, f"{where}.{name}")
                    for name, sub in spec["fields"].items()}
        if kind == "integer":
            return spec["lo"] + below(spec["hi"] - spec["lo"] + 1, where)
        if kind == "choice":
            return spec["values"][below(len(spec["values"]), where)]
        if kind == "binary":
            spec = {**spec, "lo": 0, "hi": 1, "varied": True}
        elif kind == "graded":
            spec = {**spec, "lo": 0, "hi": spec["top"], "varied": True}
        elif kind != "sequence":
            raise ValueError(f"unknown kind of data {kind!r}")
        for _ in range(10_000):
            values = [spec["lo"] + below(spec["hi"] - spec["lo"] + 1, where)
                      for _ in range(spec["n"])]
            if spec.get("distinct") and len(set(values)) < len(values):
                continue
            if spec.get("ties") and len(set(values)) == len(values):
                continue
            if spec.get("varied") and len(set(values)) == 1:
                continue
            if "hit_by" in spec and not any(values[:spec["hit_by"]]):
                continue
            if not set(spec.get("must_have", ())) <= set(values):
                continue
            if spec.get("nonzero") and 0 in values:
                continue
            return values
        raise ValueError(f"no data for {spec!r}")

    return make(spec, "data")
'''
ID_LINES = (
    "# Your student ID, as your course's roster has it (a string). The exercises marked\n"
    "# \"with your own data\" make their data from it, and the autograder checks your\n"
    "# answers against that data.\n"
    'STUDENT_ID = "teacher"  # SOLUTION\n\n\n' + GENERATOR + "\n\n"
)
ASSIGNMENT_NOTE = (
    "*Assignment: work each autograded exercise in its cell and set its `answer_...`; "
    "the autograder's tests are not in this notebook. The open exercises are marked by "
    "hand.*"
)


def student_data(student_id: str, exercise: str):
    """The data of per-student `exercise` for `student_id`: what :data:`GENERATOR`
    makes from the exercise's spec in :data:`VARIANTS` (the same code, run here)."""
    scope: dict = {}
    exec(GENERATOR, scope)
    return scope["student_data"](student_id, exercise, VARIANTS[exercise]["data"])


def student_list(student_id: str, exercise: str) -> list[int]:
    """The list of a per-student exercise whose data is a list (kept for old callers)."""
    return student_data(student_id, exercise)


def function_name(exercise: str) -> str:
    return "answer_for_" + exercise.replace(".", "_")


def answer_function(exercise: str) -> str:
    """The source of the reference answer of a per-student exercise: a function of the
    student's data that returns the number, or the tuple of numbers."""
    body = textwrap.indent(VARIANTS[exercise]["answer"], "    ")
    return (f"def {function_name(exercise)}(data):\n"
            "    import math\n\n    import rankeval\n\n" + body + "\n")


def variant_answer(exercise: str, student_id: str):
    """The answer to a per-student exercise for `student_id`: a float, or a tuple of
    floats when the exercise asks for several numbers."""
    scope: dict = {}
    exec(answer_function(exercise), scope)
    value = scope[function_name(exercise)](student_data(student_id, exercise))
    if isinstance(value, tuple):
        return tuple(float(v) for v in value)
    return float(value)


def _raw(text: str) -> dict:
    return {"cell_type": "raw", "metadata": {}, "source": teaching.lines(text)}


def _code(text: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": teaching.lines(text)}


def _md(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": teaching.lines(text)}


def variable(exercise: str) -> str:
    return "answer_" + exercise.replace(".", "_")


def question_name(exercise: str) -> str:
    return "ex" + exercise.replace(".", "_")


def answer_expression(part: dict, notebook: dict) -> str:
    """The teacher's answer for one number: the glued value, read at run time, or the
    value the solution prints (a literal, with its source said)."""
    where = part["source"]
    if "glue" in where:
        read = f"bookstyle.GLUED[{where['glue']!r}]"
        stored = teaching.glued_values(notebook).get(where["glue"], "").strip()
        if stored.startswith(("'", '"')):  # glued as formatted text, e.g. '44,791'
            read = f"float({read}.replace(',', ''))"
        return read
    return f"{teaching.book_value(notebook, part)!r}  # the value the solution prints"


def variant_test_cell(exercise: str, index: int, n_parts: int, tol: float) -> dict:
    """The hidden test of number `index` of a per-student exercise: the data made again
    from STUDENT_ID with the test's own copy of the generator and the exercise's spec,
    the answer recomputed with the test's own copy of the reference answer."""
    pick = f"[{index}]" if n_parts > 1 else ""
    return _code("\n".join([
        '""" # BEGIN TEST CONFIG',
        "hidden: true",
        "points: 1",
        '""" # END TEST CONFIG',
        "import math",
        "assert isinstance(STUDENT_ID, str) and STUDENT_ID.strip(), 'set STUDENT_ID'",
        "scope = {}",
        f"exec({GENERATOR!r}, scope)",
        f"exec({answer_function(exercise)!r}, scope)",
        f"data = scope['student_data'](STUDENT_ID, {exercise!r}, "
        f"{VARIANTS[exercise]['data']!r})",
        f"expected = float(scope[{function_name(exercise)!r}](data){pick})",
        f"given = float({variable(exercise)}{pick})",
        "assert math.isfinite(given) and abs(given - expected) <= "
        f"{tol!r} + 1e-9 * max(1.0, abs(expected))",
    ]))


def test_cell(exercise: str, index: int, n_parts: int, value: float, tol: float) -> dict:
    """One hidden test: number `index` of the answer within `tol` of `value`."""
    given = variable(exercise) + (f"[{index}]" if n_parts > 1 else "")
    slack = tol + 1e-9 * max(1.0, abs(value))
    return _code("\n".join([
        '""" # BEGIN TEST CONFIG',
        "hidden: true",
        "points: 1",
        '""" # END TEST CONFIG',
        "import math",
        f"given = float({given})",
        f"assert math.isfinite(given) and abs(given - {value!r}) <= {slack!r}",
    ]))


def question_cells(exercise: str, entry: dict, solution_code: list[str],
                   notebook: dict, first_variant: bool = False) -> list[dict]:
    """The Otter question of one self-checked exercise."""
    sys.path.insert(0, str(CHAPTERS))
    import bookstyle

    parts = entry["parts"]
    name = variable(exercise)
    names = "; ".join(p["name"] for p in parts)
    shape = "a number" if len(parts) == 1 else f"a tuple of {len(parts)} numbers"
    answers = [answer_expression(p, notebook) for p in parts]
    if len(parts) == 1:
        answer_line = f"{name} = {answers[0]}"
    else:
        answer_line = f"{name} = ({', '.join(a.split('  #')[0] for a in answers)})"
    code = [f"# Exercise {exercise}: your working here; then set {name} to {shape}",
            f"# ({names})", "# BEGIN SOLUTION", "import bookstyle", ""]
    code += [text.rstrip() + "\n" for text in solution_code]
    code += ["# END SOLUTION", f"{answer_line}  # SOLUTION"]
    tests = [test_cell(exercise, i, len(parts), teaching.book_value(notebook, p),
                       bookstyle.tolerance(p)) for i, p in enumerate(parts)]
    prompt = f"**Exercise {exercise}, autograded:** {entry['ask']}."
    own = []
    if exercise in VARIANTS:
        data = f"data_{exercise.replace('.', '_')}"
        names = VARIANTS[exercise].get("names", names)
        prompt = (f"**Exercise {exercise}, autograded, with your own data:** the same "
                  f"question for your data `{data}`, which the cell below makes from "
                  f"your `STUDENT_ID`: {VARIANTS[exercise]['says']}. Answer for your "
                  f"data, not the statement's: set `{name}` to {shape} ({names}).")
        make = (f"# Your data for exercise {exercise}, made from your STUDENT_ID\n"
                f"{data} = student_data(STUDENT_ID, {exercise!r},\n"
                f"    {VARIANTS[exercise]['data']!r})\n"
                f'print("your data:", {data})')
        if first_variant:  # the student's ID, and the generator, before the first data
            own = [_raw("# BEGIN SOLUTION"), _code(ID_LINES + make), _raw("# END SOLUTION")]
        else:
            own = [_code(make)]
        code[-2:] = [answer_function(exercise), "# END SOLUTION",
                     f"{name} = {function_name(exercise)}({data})  # SOLUTION"]
        tests = [variant_test_cell(exercise, i, len(parts), bookstyle.tolerance(p))
                 for i, p in enumerate(parts)]
    return [
        _raw(f"# BEGIN QUESTION\nname: {question_name(exercise)}\npoints: {len(parts)}\n"
             "check_cell: false"),
        _md(prompt),
        *own,
        _raw("# BEGIN SOLUTION"),
        _code("\n".join(code)),
        _raw("# END SOLUTION"),
        _raw("# BEGIN TESTS"),
        *tests,
        _raw("# END TESTS"),
        _raw("# END QUESTION"),
    ]


def master_notebook(number: int) -> dict:
    """The Otter master notebook of chapter `number` (see the module's docstring)."""
    answers = json.loads(teaching.ANSWERS.read_text(encoding="utf-8"))["exercises"]
    notebook = teaching.read_notebook(teaching.chapter_notebook(number))
    roles = editions.roles(notebook)
    solution_code: dict[str, list[str]] = {}
    for cell, role in zip(notebook["cells"], roles, strict=True):
        if role["role"] == "solution" and cell["cell_type"] == "code":
            solution_code.setdefault(role["exercise"], []).append(teaching.source(cell))
    student = editions.student_notebook(notebook)
    variants = [e for e in VARIANTS if int(e.split(".")[0]) == number]
    cells = [_raw("\n".join([
        "# ASSIGNMENT CONFIG",
        f"name: ch{number:02d}",
        "init_cell: false",
        "check_all_cell: false",
        "export_cell: false",
        "run_tests: false",
        "solutions_pdf: false",
        "files:",
        "  - bookstyle.py",
        *(["  - data"] if _reads_data(notebook) else []),
    ]))]
    for cell in student["cells"]:
        if cell.get("id") == "student-edition":
            cell["source"] = teaching.lines(ASSIGNMENT_NOTE)
    for cell in student["cells"]:
        text = teaching.source(cell)
        call = editions.CHECK_CALL.search(text) if cell["cell_type"] == "code" else None
        if call and call.group(1) in answers:
            exercise = call.group(1)
            cells += question_cells(exercise, answers[exercise],
                                    solution_code.get(exercise, []), notebook,
                                    first_variant=bool(variants) and exercise == variants[0])
            continue
        cell = json.loads(json.dumps(cell))
        cell.pop("id", None)
        if cell["cell_type"] == "code":
            cell["source"] = teaching.lines(DATA_PATH.sub('Path("data")', text))
            cell["outputs"], cell["execution_count"] = [], None
        cells.append(cell)
    return {"cells": cells, "metadata": {"kernelspec": KERNELSPEC,
                                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _reads_data(notebook: dict) -> bool:
    return any(DATA_PATH.search(teaching.source(c)) for c in notebook["cells"]
               if c["cell_type"] == "code")


def otter(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the otter command line of this Python environment."""
    result = subprocess.run([sys.executable, "-m", "otter", *args], cwd=cwd,
                            capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"otter {' '.join(args)} failed in {cwd}:\n"
                           f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def assign(number: int, out: Path) -> dict[str, Path]:
    """Write chapter `number`'s master notebook and run ``otter assign`` on it.

    Returns the paths of the student notebook, the teacher's solution notebook and the
    autograder zip.
    """
    folder = out / f"ch{number:02d}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    master = master_notebook(number)
    teaching.write_notebook(folder / "master.ipynb", master)
    shutil.copy2(CHAPTERS / "bookstyle.py", folder / "bookstyle.py")
    if _reads_data(teaching.read_notebook(teaching.chapter_notebook(number))):
        shutil.copytree(ROOT / "data", folder / "data")
    otter("assign", "master.ipynb", "dist", cwd=folder)
    [zipped] = sorted((folder / "dist" / "autograder").glob("*.zip"))
    return {"student": folder / "dist" / "student" / "master.ipynb",
            "solution": folder / "dist" / "autograder" / "master.ipynb",
            "autograder": zipped, "folder": folder}


def grade(autograder: Path, submission: Path, out: Path) -> dict[str, float]:
    """Grade one submission with ``otter run``: question -> score, and "total"."""
    out.mkdir(parents=True, exist_ok=True)
    otter("run", "-a", str(autograder), "-o", str(out), str(submission), cwd=out)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    scores = {t["name"]: t["score"] for t in results["tests"] if "score" in t}
    scores["total"] = math.fsum(scores.values())
    return scores


def max_points(number: int) -> int:
    answers = json.loads(teaching.ANSWERS.read_text(encoding="utf-8"))["exercises"]
    return sum(len(e["parts"]) for k, e in answers.items() if int(k.split(".")[0]) == number)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--chapters", type=int, nargs="*", help="only these chapters")
    parser.add_argument("--grade", action="store_true",
                        help="grade each teacher's solution; fail unless full marks")
    args = parser.parse_args(argv)
    answers = json.loads(teaching.ANSWERS.read_text(encoding="utf-8"))["exercises"]
    chapters = sorted({int(k.split(".")[0]) for k in answers})
    failed = []
    for number in args.chapters or chapters:
        made = assign(number, args.out)
        line = f"chapter {number:2d}: {made['student'].relative_to(args.out)}"
        if args.grade:
            scores = grade(made["autograder"], made["solution"], made["folder"] / "graded")
            line += f"; the teacher's solution scores {scores['total']:g} of {max_points(number)}"
            if scores["total"] != max_points(number):
                failed.append(number)
        print(line, flush=True)
    if failed:
        sys.exit(f"the teacher's solutions of chapters {failed} lose points")


if __name__ == "__main__":
    main()
