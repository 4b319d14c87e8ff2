"""Self-checks that test properties of the reader's own numbers (issue 50).

A part of an exercise in chapters/answers.json may list ``properties``: conditions every
right answer meets, computed from the reader's numbers alone (the measure's range, an
order the statement implies, one number recomputed from another), each with a message.
``bookstyle.check`` prints the messages of the broken ones before the hint.

* The book's own answer meets every property of every exercise.
* A wrong answer that breaks a property gets that property's message; the right one
  is "right."; a wrong answer that breaks none gets only the hint.
* A property on a number alone accepts a wide interval, so that no property maps back
  to the answer; the conditions cannot call or reach anything but arithmetic.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "chapters"))
sys.path.insert(0, str(ROOT / "_ext"))
import bookstyle  # noqa: E402
import teaching  # noqa: E402

EXERCISES = json.loads(teaching.ANSWERS.read_text(encoding="utf-8"))["exercises"]
WITH_PROPERTIES = sorted((e for e, entry in EXERCISES.items()
                          if any(p.get("properties") for p in entry["parts"])),
                         key=bookstyle._order)


def book_answer(exercise: str):
    notebook = teaching.read_notebook(teaching.chapter_notebook(int(exercise.split(".")[0])))
    values = [teaching.book_value(notebook, p) for p in EXERCISES[exercise]["parts"]]
    return values[0] if len(values) == 1 else tuple(values)


def printed(exercise: str, answer) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        bookstyle.check(exercise, answer)
    return " ".join(out.getvalue().split())


def test_most_self_checks_have_properties():
    assert len(WITH_PROPERTIES) >= 10
    for exercise in WITH_PROPERTIES:
        for part in EXERCISES[exercise]["parts"]:
            for prop in part.get("properties", []):
                assert set(prop) == {"holds", "message"}
                assert prop["message"].endswith(".") and len(prop["message"]) < 200
                bookstyle._condition(prop["holds"])  # compiles, and only arithmetic


@pytest.mark.parametrize("exercise", WITH_PROPERTIES)
def test_the_books_answer_meets_every_property(exercise):
    answer = book_answer(exercise)
    assert bookstyle.unmet_properties(exercise, answer) == []
    assert printed(exercise, answer) == f"Exercise {exercise}: right."


# exercise, which number to change, the wrong value, words of the message it must get
BROKEN = [
    ("8.1", 0, 1.2, "nDCG@3 with linear gain is not between 0 and 1: check the ideal"),
    ("8.1", 1, -0.1, "nDCG@3 with exponential gain is not between 0 and 1"),
    ("1.1", 0, 2.5, "should be a whole number"),
    ("1.1", 0, 12, "at most 3 x 3 = 9"),
    ("1.3", 1, 0.9, "1/i falls faster"),
    ("4.1", 1, 0.95, "can only lower AP"),
    ("7.1", 1, 0.05, "cannot lower MRR@10"),
    ("7.1", 1, 0.99, "at most 1/4"),
    ("9.1", 1, 0.1, "Putting the better item first cannot lower ERR"),
    ("10.1", 1, 0.9, "add up to more"),
    ("11.1", 1, 1.5, "your MR is below your FRP"),
    ("11.1", 4, 3, "FRP@1 is 1"),
    ("12.2", 1, 0.1, "|tau_b| is at least |tau_a|"),
    ("17.1", 1, 3.0, "Your t is not mean / (s / sqrt(4))"),
    ("17.1", 2, 0.2, "multiple of 1/16"),
    ("21.3", 1, 0.99, "cannot give a higher mean than skipping"),
    ("22.1", 0, 2, "+1, 0 or -1"),
    ("25.1", 0, 1.3, "between -1 and 1"),
]


@pytest.mark.parametrize(("exercise", "index", "value", "words"), BROKEN)
def test_a_wrong_answer_that_breaks_a_property_gets_its_message(exercise, index, value,
                                                                words):
    right = book_answer(exercise)
    values = list(right) if isinstance(right, tuple) else [right]
    values[index] = value
    wrong = tuple(values) if isinstance(right, tuple) else values[0]
    message = printed(exercise, wrong)
    assert message.startswith(f"Exercise {exercise}: not right yet")
    assert words in message, message
    assert message.endswith(EXERCISES[exercise]["hint"])  # the hint still comes last
    assert any(words in m for m in bookstyle.unmet_properties(exercise, wrong))


def test_a_wrong_answer_within_every_property_gets_only_the_hint():
    right = book_answer("8.1")
    wrong = (right[0] - 0.05, right[1])
    assert bookstyle.unmet_properties("8.1", wrong) == []
    assert printed("8.1", wrong) == (
        f"Exercise 8.1: not right yet ({EXERCISES['8.1']['parts'][0]['name']}). "
        f"Hint: {EXERCISES['8.1']['hint']}")


def alone(text: str) -> bool:
    """Does a condition read only this part's number (and its tolerance)?"""
    import ast

    return {n.id for n in ast.walk(ast.parse(text, mode="eval"))
            if isinstance(n, ast.Name)} - set(bookstyle._FUNCTIONS) <= {"x", "tol"}


@pytest.mark.parametrize("exercise", WITH_PROPERTIES)
def test_no_property_maps_back_to_the_answer(exercise):
    """Every condition on a number alone accepts values far from the book's (at least
    0.2 away, or another whole number for a count), so it narrows nothing down to the
    answer; and the relations between numbers hold for other values too."""
    right = book_answer(exercise)
    values = list(right) if isinstance(right, tuple) else [right]
    for i, part in enumerate(EXERCISES[exercise]["parts"]):
        tol = bookstyle.tolerance(part)
        conditions = [p["holds"] for p in part.get("properties", []) if alone(p["holds"])]
        if not conditions:
            continue
        grid = ([values[i] + k for k in range(-10, 11)] if tol == 0 else
                [values[i] + k / 1000 for k in range(-1000, 1001)])

        def meets(x, tol=tol, conditions=conditions):
            scope = {**bookstyle._FUNCTIONS, "x": x, "tol": tol}
            return all(eval(bookstyle._condition(c), {"__builtins__": {}}, scope)
                       for c in conditions)

        far = [x for x in grid if meets(x) and abs(x - values[i]) >= (1 if tol == 0 else 0.2)]
        assert far, (exercise, part["name"])


def test_a_condition_is_arithmetic_only():
    for text in ("__import__('os')", "x.__class__", "[c for c in ()]", "open('f')",
                 "(lambda: 1)()"):
        with pytest.raises(ValueError, match="not allowed|may be called"):
            bookstyle._condition(text)
    assert bookstyle._condition("0 <= x <= 1 and abs(x - p0) < sqrt(2)")
    # a division by the reader's own zero is a broken property, not an error
    entry = {"ask": "a", "hint": "h", "parts": [
        {"name": "s", "decimals": 2, "digests": []},
        {"name": "t", "decimals": 2, "digests": [],
         "properties": [{"holds": "x == 1 / p0", "message": "t is not 1/s."}]}]}
    import unittest.mock

    with unittest.mock.patch.object(bookstyle, "_answers", lambda: {"99.9": entry}):
        assert bookstyle.unmet_properties("99.9", (0, 1)) == ["t is not 1/s."]
        assert bookstyle.unmet_properties("99.9", (0.5, 2)) == []
        assert math.isclose(2, 1 / 0.5)
