"""Autograded assignments (issue 50, item 2): tools/autograde.py with Otter-Grader.

* The master notebook of every chapter turns each self-checked exercise into an Otter
  question, one point per number, with one hidden test per number; the student side of
  it (outside solution and test blocks) holds no test and no answer.
* For one fast chapter (1) ``otter assign`` writes the student notebook and the
  autograder; ``otter run`` gives the teacher's solution full marks, a wrong number one
  point less, and the notebook as handed out (answers still ``...``) nothing; with
  per-student data (exercises 1.1 and 1.3) two students each get full marks, and
  another student's answer loses its points.
* Every per-student exercise (autograde.VARIANTS): different IDs, different data and
  answers; the exercise's hidden tests pass each student's own answer and fail a copied
  one; the reference answer on the statement's data is the book's value.
  ``python3 tasks.py assignments`` does the same for every chapter.
"""

from __future__ import annotations

import json
import math
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
CHAPTER = 1  # a fast chapter (about 4 s): exercises 1.1 and 1.3, both per-student


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
    assert "def answer_for_" not in text  # the reference answers stay with the teacher
    solution = json.dumps(json.loads(assignment["solution"].read_text(encoding="utf-8")))
    for exercise in (k for k in ANSWERS if k.startswith(f"{CHAPTER}.")):
        assert (f"{autograde.variable(exercise)} = {autograde.function_name(exercise)}("
                in solution)


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


def as_student(solution: dict, student_id: str) -> dict:
    """The teacher's solution notebook with `student_id` as its STUDENT_ID."""
    solution = json.loads(json.dumps(solution))
    for cell in solution["cells"]:
        text = teaching.source(cell)
        if cell["cell_type"] == "code" and text.startswith("# Your student ID"):
            assert 'STUDENT_ID = "teacher"' in text
            cell["source"] = text.replace('STUDENT_ID = "teacher"',
                                          f"STUDENT_ID = {student_id!r}")
    return solution


def submit(notebook: dict, path: Path) -> Path:
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def test_a_wrong_number_and_another_students_answer_lose_their_points(assignment,
                                                                      tmp_path):
    """Alice's submission: exercise 1.1 answered with Bob's number (his list differs),
    and the first number of 1.3 off by one; every other number right."""
    variant = "1.1"
    multi = next(e for e in ANSWERS if int(e.split(".")[0]) == CHAPTER
                 and len(ANSWERS[e]["parts"]) > 1)
    alice = autograde.variant_answer(variant, "alice")
    bob = next(sid for sid in ("bob", "carol", "dave", "erin")
               if autograde.variant_answer(variant, sid) != alice)
    solution = as_student(json.loads(assignment["solution"].read_text(encoding="utf-8")),
                          "alice")
    name = autograde.variable(variant)
    with_lines(solution, name, f"{name} = {autograde.variant_answer(variant, bob)!r}")
    name = autograde.variable(multi)
    with_lines(solution, name, f"{name} = ({name}[0] + 1,) + tuple({name}[1:])")
    scores = autograde.grade(assignment["autograder"], submit(solution, tmp_path / "a.ipynb"),
                             tmp_path / "alice")
    assert scores[autograde.question_name(variant)] == 0, scores
    assert scores[autograde.question_name(multi)] == len(ANSWERS[multi]["parts"]) - 1
    assert scores["total"] == autograde.max_points(CHAPTER) - 2, scores


def test_two_students_each_get_full_marks_and_a_copied_tuple_loses(assignment, tmp_path):
    """Every question of chapter 1 has per-student data. Worked for Alice and for Bob,
    the teacher's solution gets full marks for each (different data, different answers);
    Alice handing in Bob's pair for exercise 1.3 loses both of its points."""
    assert all(e in autograde.VARIANTS for e in ANSWERS if e.startswith(f"{CHAPTER}."))
    solution = json.loads(assignment["solution"].read_text(encoding="utf-8"))
    ids = ("alice", "bob")
    for exercise in ("1.1", "1.3"):
        assert autograde.student_data(ids[0], exercise) != autograde.student_data(ids[1],
                                                                                 exercise)
    bob_13 = autograde.variant_answer("1.3", "bob")
    alice_13 = autograde.variant_answer("1.3", "alice")
    assert all(abs(a - b) > 1e-3 for a, b in zip(alice_13, bob_13, strict=True))
    for sid in ids:
        scores = autograde.grade(assignment["autograder"],
                                 submit(as_student(solution, sid), tmp_path / f"{sid}.ipynb"),
                                 tmp_path / sid)
        assert scores["total"] == autograde.max_points(CHAPTER), (sid, scores)
    copied = as_student(solution, "alice")
    with_lines(copied, "answer_1_3", f"answer_1_3 = {bob_13!r}")
    scores = autograde.grade(assignment["autograder"], submit(copied, tmp_path / "c.ipynb"),
                             tmp_path / "copied")
    assert scores[autograde.question_name("1.3")] == 0, scores
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


def hidden_code(cell: dict) -> str:
    return teaching.source(cell).split('""" # END TEST CONFIG\n', 1)[1]


def passes(code: str, scope: dict) -> bool:
    try:
        exec(code, dict(scope))
    except AssertionError:
        return False
    return True


IDS = ("s1001", "s1002", "s1003", "s1004", "s1005", "s1006")


@pytest.mark.parametrize("exercise", sorted(autograde.VARIANTS, key=lambda e: tuple(
    int(x) for x in e.split("."))))
def test_per_student_data_differ_and_the_hidden_tests_tell_whose_answer(exercise):
    """Every per-student exercise: different IDs get different data and (for some pair)
    different answers; each student's own answer passes every hidden test of the
    exercise, and another student's answer fails at least one (is caught)."""
    n = len(ANSWERS[exercise]["parts"])
    sys.path.insert(0, str(ROOT / "chapters"))
    import bookstyle

    tests = [hidden_code(autograde.variant_test_cell(exercise, i, n, bookstyle.tolerance(p)))
             for i, p in enumerate(ANSWERS[exercise]["parts"])]
    data = {sid: autograde.student_data(sid, exercise) for sid in IDS}
    answers = {sid: autograde.variant_answer(exercise, sid) for sid in IDS}
    assert len({json.dumps(d, sort_keys=True) for d in data.values()}) >= 4, data
    assert autograde.student_data(IDS[0], exercise) == data[IDS[0]]  # stable
    differ = [(a, b) for a in IDS for b in IDS if a < b and answers[a] != answers[b]]
    assert differ, answers
    name = autograde.variable(exercise)
    for sid in IDS:
        assert all(passes(t, {"STUDENT_ID": sid, name: answers[sid]}) for t in tests)
    for a, b in differ:  # Alice hands in Bob's answer
        assert not all(passes(t, {"STUDENT_ID": a, name: answers[b]}) for t in tests)
    # no ID, no points
    assert not passes(tests[0], {"STUDENT_ID": "  ", name: answers[IDS[0]]})


def test_the_generator_is_sha256_based_and_fixed():
    """The data do not depend on Python's or NumPy's random streams: these values were
    computed once by hand from the SHA-256 rule, and must never change."""
    import hashlib

    def below(sid, exercise, where, count, m):
        text = f"{sid}|{exercise}|{where}|{count}".encode()
        return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") % m

    p = autograde.student_data("alice", "10.3")
    values = autograde.VARIANTS["10.3"]["data"]["values"]
    assert p == values[below("alice", "10.3", "data", 1, len(values))]
    spec = autograde.VARIANTS["3.2"]["data"]["fields"]
    record = autograde.student_data("alice", "3.2")
    for count, field in enumerate(spec, start=1):
        lo, hi = spec[field]["lo"], spec[field]["hi"]
        assert record[field] == lo + below("alice", "3.2", f"data.{field}", count,
                                           hi - lo + 1)


@pytest.mark.parametrize("exercise", [e for e in autograde.VARIANTS
                                      if "statement" in autograde.VARIANTS[e]])
def test_the_reference_answer_on_the_statements_data_is_the_books_value(exercise):
    """The reference answer (the teacher's method) on the statement's own data gives the
    value the book's solution prints or glues, number by number, within its tolerance:
    the variant asks the chapter's question, only with other data."""
    sys.path.insert(0, str(ROOT / "chapters"))
    import bookstyle

    scope: dict = {}
    exec(autograde.answer_function(exercise), scope)
    got = scope[autograde.function_name(exercise)](autograde.VARIANTS[exercise]["statement"])
    got = got if isinstance(got, tuple) else (got,)
    notebook = teaching.read_notebook(teaching.chapter_notebook(int(exercise.split(".")[0])))
    for value, part in zip(got, ANSWERS[exercise]["parts"], strict=True):
        book = teaching.book_value(notebook, part)
        assert abs(float(value) - book) <= bookstyle.tolerance(part) + 1e-9, part["name"]


def test_the_teachers_readme_lists_every_exercise_with_or_without_own_data():
    """teacher/README.md's table: every autograded exercise once; "yes" exactly for the
    per-student ones, and a reason for each of the others."""
    text = (ROOT / "teacher" / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+\.\d+) \| (yes|no) \| (.+) \|$", text, re.M)
    assert sorted(r[0] for r in rows) == sorted(ANSWERS)
    for exercise, own, why in rows:
        assert (own == "yes") == (exercise in autograde.VARIANTS), exercise
        assert len(why) > 20
    assert len(autograde.VARIANTS) >= 25


def test_reference_answers_agree_with_hand_values():
    """Each kind of reference answer on a case worked by hand (the statement's data)."""
    def run(exercise, data):
        scope: dict = {}
        exec(autograde.answer_function(exercise), scope)
        return scope[autograde.function_name(exercise)](data)

    assert run("1.1", [0, 1, 0, 1, 1, 0]) == 1 + 2 + 2  # zeros above each 1
    assert run("7.3", [0, 1, 1, 1]) == pytest.approx((1 / 2 + 2 / 3 + 3 / 4) / 3)
    assert run("3.2", {"n": 10, "relevant": 2, "k": 3}) == pytest.approx(8 / 15)
    assert run("4.1", [0, 1, 1, 0, 1, 0, 0]) == pytest.approx((53 / 90, 53 / 120))
    assert run("5.1", [0, 0, 1, 1]) == pytest.approx((5 / 12, 3 / 4))
    assert run("7.1", [2, 1, 11, 7]) == pytest.approx((23 / 56, 37 / 56))
    assert run("9.2", [3, 1, 0]) == pytest.approx((7 / 16 + 1 / 16) / 3)  # 0..4 scale
    assert run("10.1", {"ranking": [0, 1, 1], "p": 0.5}) == pytest.approx((3 / 8, 1 / 8))
    assert run("10.3", 0.95) == 135
    assert run("11.1", [0, 1, 0, 0, 1, 0, 1]) == pytest.approx((2, 14 / 3, 10 / 3, 2, 2))
    assert run("11.2", 7) == 4
    assert run("12.2", [2, 1, 3, 3, 5])[0] == pytest.approx(7 / 10)
    assert run("24.1", [64, 16, 8, 2]) == pytest.approx(10 / 4)
    assert run("24.3", {"items": 101, "rank": 11, "negatives": 10}) == pytest.approx(
        math.comb(90, 10) / math.comb(100, 10))
    assert run("25.1", {"both_relevant": 12, "a_alone": 5, "b_alone": 3}) == (
        pytest.approx(450 / 770))
    assert run("25.3", [3, 0, 2, 1]) == pytest.approx(1 / 3)
