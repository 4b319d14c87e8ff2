"""The course scaffolding: self-checks, exercise structure, objectives, the exported notebooks.

* Every self-check (``bookstyle.check("8.3", answer)``) accepts the book's own value,
  read from the solution's stored outputs, and refuses a value a few rounding steps off;
  its digests are the ones the stored solutions give today.
* Every chapter's exercises are numbered sphinx-exercise directives (labels chNN-ex-K,
  K = 1, 2, ... in order), each followed by its solution; gated solutions are closed; no
  solution code cell keeps an output outside its solution; every check cell runs
  ``check`` on the exercise it belongs to, with ``answer = None`` as shipped.
* The objectives cells and the dependency figure match chapters/outline.yml.
* An exported notebook (the zip, the launch copies) has no glue role and no colon fence.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


teaching = load("teaching", ROOT / "_ext" / "teaching.py")
export = load("export_notebooks", ROOT / "_ext" / "export_notebooks.py")
sys.path.insert(0, str(ROOT / "chapters"))
import bookstyle  # noqa: E402

ANSWERS = json.loads((ROOT / "chapters" / "answers.json").read_text(encoding="utf-8"))
EXERCISES = ANSWERS["exercises"]


def notebook(number: int) -> dict:
    return teaching.read_notebook(teaching.chapter_notebook(number))


def book_answer(exercise: str):
    nb = notebook(int(exercise.split(".")[0]))
    values = [teaching.book_value(nb, part) for part in EXERCISES[exercise]["parts"]]
    return values[0] if len(values) == 1 else tuple(values)


def printed(function, *args) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        function(*args)
    return out.getvalue()


@pytest.mark.parametrize("exercise", sorted(EXERCISES, key=bookstyle._order))
def test_every_check_accepts_the_books_solution_and_refuses_a_wrong_answer(exercise):
    right = book_answer(exercise)
    parts = EXERCISES[exercise]["parts"]
    assert all(bookstyle.is_right(exercise, right))
    assert printed(bookstyle.check, exercise, right) == f"Exercise {exercise}: right.\n"
    values = list(right) if isinstance(right, tuple) else [right]
    for i, part in enumerate(parts):
        tol = bookstyle.tolerance(part)
        # anything within the tolerance is right (issue 46: a simulated answer within its
        # stated uncertainty), as is the book's value rounded to the stated decimals
        inside = [values[i] + 0.99 * tol, values[i] - 0.99 * tol]
        inside.append(round(values[i], part["decimals"]))
        for near in inside:
            near_values = list(values)
            near_values[i] = near
            answer = near_values[0] if len(values) == 1 else tuple(near_values)
            assert bookstyle.is_right(exercise, answer)[i] is True, (part["name"], near)
        step = max(tol, 10.0 ** -part["decimals"])
        for off in (2.01 * step, -2.01 * step, max(1.0, 3 * step)):
            wrong = list(values)
            wrong[i] = values[i] + off
            answer = wrong[0] if len(wrong) == 1 else tuple(wrong)
            verdict = bookstyle.is_right(exercise, answer)
            assert verdict[i] is False and sum(verdict) == len(parts) - 1
            message = printed(bookstyle.check, exercise, answer)
            assert message.startswith(f"Exercise {exercise}: not right yet")
            assert "Hint:" in message
            # the message never gives the book's value away (beyond the fixed texts of
            # the exercise's entry: its hint and the names of its numbers)
            assert max(len(line) for line in message.splitlines()) <= 72
            message = " ".join(message.split()).replace(EXERCISES[exercise]["hint"], "")
            for p in parts:
                message = message.replace(p["name"], "")
            for value in values:
                for shown in {f"{value:.{part['decimals']}f}", f"{value:g}"}:
                    if len(shown) > 2:  # a one-digit number may appear in a hint's formula
                        assert shown not in message


def test_the_stored_digests_are_those_of_the_stored_solutions():
    assert teaching.answer_digests() == ANSWERS, (
        "chapters/answers.json is out of date: python3 _ext/teaching.py answers")


def test_answers_json_holds_no_value_in_plain_sight():
    for entry in EXERCISES.values():
        assert set(entry) == {"ask", "hint", "parts"}
        for part in entry["parts"]:
            assert {"name", "decimals", "source", "digests"} <= set(part)
            assert set(part) <= {"name", "decimals", "source", "digests", "tolerance",
                                 "properties"}
            assert 1 <= len(part["digests"]) <= 4  # 3, or 4 when a float lands on an edge
            assert part["digests"] == sorted(part["digests"])
            assert all(re.fullmatch(r"[0-9a-f]{20}", d) for d in part["digests"])


def test_the_answers_handed_out_name_no_cell_and_resist_a_quick_brute_force():
    """Issue 50: the old digests fell to a ten-line search (108 of 114 parts in 4 s) and
    named the cell that holds each answer. What leaves the repository has no `source`,
    and each digest is a slow key derivation, so one trial costs milliseconds."""
    import time

    shipped = teaching.shipped_answers()
    text = json.dumps(shipped)
    assert '"source"' not in text and '"cell"' not in text and '"glue"' not in text
    for entry in EXERCISES.values():  # every glue name and cell id is gone
        for part in entry["parts"]:
            for where in part["source"].values():
                assert f'"{where}"' not in text
    assert shipped["exercises"].keys() == EXERCISES.keys()
    # a plain SHA-256 of the old kind takes about a microsecond; one digest here costs
    # thousands of rounds of it
    assert bookstyle.ITERATIONS >= 10_000
    bookstyle.answer_digest.cache_clear()
    start = time.perf_counter()
    for k in range(20):
        bookstyle.answer_digest("8.1", 0, 10**9 + k)
    assert (time.perf_counter() - start) / 20 > 1e-3


def test_a_part_with_its_own_tolerance_accepts_its_whole_interval(monkeypatch):
    entry = {"ask": "a simulated rate", "hint": "h", "parts": [
        {"name": "rate", "decimals": 3, "tolerance": 0.02,
         "digests": sorted({bookstyle.answer_digest("99.9", 0, b)
                            for b in bookstyle.bins_within(0.437, 0.02)})}]}
    monkeypatch.setattr(bookstyle, "_answers", lambda: {"99.9": entry})
    for good in (0.437, 0.417, 0.457, 0.4251, 0.45):
        assert bookstyle.is_right("99.9", good) == [True], good
    for bad in (0.477 + 1e-9, 0.397 - 1e-9, 0.5, -0.437):
        assert bookstyle.is_right("99.9", bad) == [False], bad
    assert printed(bookstyle.check, "99.9", 0.45) == "Exercise 99.9: right.\n"
    with pytest.raises(ValueError, match="tolerance must be >= 0"):
        bookstyle.tolerance({"decimals": 2, "tolerance": -1})


def test_check_tells_the_reader_what_to_do_and_refuses_bad_input():
    assert "in `answer`" in printed(bookstyle.check, "8.1", None)
    with pytest.raises(TypeError, match="2 numbers"):
        bookstyle.check("8.1", 0.5)
    with pytest.raises(TypeError, match="must be a number"):
        bookstyle.check("8.3", ("a", 1, 2, 3))
    with pytest.raises(TypeError, match="must be a number"):
        bookstyle.check("3.2", True)
    with pytest.raises(ValueError, match="no self-check"):
        bookstyle.check("99.1", 1.0)
    assert bookstyle.is_right("3.2", float("nan")) == [False]
    from fractions import Fraction

    import numpy as np

    assert bookstyle.is_right("3.2", Fraction(8, 15)) == [True]
    assert bookstyle.is_right("3.2", np.float64(8 / 15)) == [True]


EXERCISE_OPEN = re.compile(r"^:::\{exercise\}\n:label: (ch(\d\d)-ex-(\d+))$", re.M)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_exercises_are_numbered_directives_with_gated_solutions(path):
    nb = teaching.read_notebook(path)
    chapter = int(path.stem[:2])
    cells = nb["cells"]
    labels, solved, inside, open_label = [], [], False, None
    checks = []
    for cell in cells:
        text = teaching.source(cell)
        if cell["cell_type"] == "markdown":
            assert ":::{dropdown} Solution" not in text, "an old-style solution dropdown"
            for match in EXERCISE_OPEN.finditer(text):
                assert int(match.group(2)) == chapter
                labels.append(match.group(1))
            for match in re.finditer(r"^:::\{solution(-start)?\} (\S+)\n:class: dropdown$",
                                     text, re.M):
                assert match.group(2) == labels[-1], "a solution follows its exercise"
                solved.append(match.group(2))
                if match.group(1):
                    assert not inside
                    inside, open_label = True, match.group(2)
            if ":::{solution-end}" in text:
                assert inside
                inside = False
        else:
            call = re.search(r'check\("(\d+)\.(\d+)", answer\)', text)
            if call:
                assert not inside and "answer = None" in text
                assert f"ch{int(call.group(1)):02d}-ex-{call.group(2)}" == labels[-1]
                checks.append(f"{int(call.group(1))}.{call.group(2)}")
                assert "".join(cell["outputs"][0]["text"]) == printed(
                    bookstyle.check, checks[-1], None)
            elif labels and not inside and cell["outputs"]:
                pytest.fail(f"a code cell with outputs after {labels[-1]}, outside a "
                            "solution: its outputs would show before the reader tries")
    assert not inside, f"{open_label}: solution-start without solution-end"
    assert labels == [f"ch{chapter:02d}-ex-{k}" for k in range(1, len(labels) + 1)]
    assert labels and solved == labels
    assert checks == [e for e in sorted(EXERCISES, key=bookstyle._order)
                      if int(e.split(".")[0]) == chapter]


def test_objectives_cells_match_the_outline():
    assert teaching.update_objectives(check_only=True) == [], (
        "python3 _ext/teaching.py objectives")
    outline = teaching.outline()["chapters"]
    assert sorted(outline) == [p.stem[:2] for p in CHAPTERS]
    for key, entry in outline.items():
        assert 2 <= len(entry["objectives"]) <= 4, key
        assert all(int(n) < int(key) for n in entry["builds_on"]), key
    teaching.layers({int(k): v["builds_on"] for k, v in outline.items()})  # no cycle


def test_the_dependency_figure_is_drawn_from_the_outline(tmp_path):
    written = teaching.draw_graph(tmp_path / "graph")
    fresh = written[0].read_bytes()
    assert fresh == (ROOT / "_static" / "chapter_dependencies.svg").read_bytes(), (
        "python3 _ext/teaching.py graph")


def test_glossary_has_sixty_terms_and_every_term_link_is_defined():
    text = (ROOT / "reference" / "glossary.md").read_text(encoding="utf-8")
    body = text.split(":::{glossary}", 1)[1].split("\n:::", 1)[0]
    terms = {line.strip() for line in body.splitlines()
             if line and not line.startswith((" ", ":"))}
    assert len(terms) >= 60
    used = set()
    sources = [teaching.source(c) for p in CHAPTERS for c in teaching.read_notebook(p)["cells"]]
    sources += [text, (ROOT / "reference" / "course.md").read_text(encoding="utf-8")]
    for source in sources:
        for match in re.finditer(r"\{term\}`([^`]*)`", source):
            target = re.search(r"<([^>]*)>$", match.group(1))
            used.add(target.group(1) if target else match.group(1))
    assert used - terms == set()
    for path in CHAPTERS:  # every chapter links the glossary
        assert "{term}`" in json.dumps(teaching.read_notebook(path)), path.stem


def test_export_writes_numbers_and_plain_markdown():
    nb = {"cells": [
        {"cell_type": "code", "id": "a", "metadata": {}, "source": "", "execution_count": 1,
         "outputs": [{"output_type": "display_data", "metadata": {"scrapbook": {
             "name": "x", "mime_prefix": "application/papermill.record/"}},
             "data": {"application/papermill.record/text/plain": "0.123456"}},
             {"output_type": "display_data", "metadata": {"scrapbook": {"name": "s"}},
              "data": {"application/papermill.record/text/plain": "'44,791'"}}]},
        {"cell_type": "markdown", "id": "b", "metadata": {}, "source": (
            ":::{exercise}\n:label: ch08-ex-3\nCompute {term}`nDCG <normalised DCG>`.\n:::\n\n"
            ":::{solution} ch08-ex-3\n:class: dropdown\nIt is {glue:text}`x:.4f`, "
            "B = {glue:text}`s` and {glue}`x`.\n:::\n\n"
            "::::{admonition} Head\n:class: tip\n:::{note}\nInner.\n:::\n::::\n\n"
            ":::{solution-start} ch08-ex-4\n:class: dropdown\n:::\nSee {numref}`ch08-ex-4`.\n"
            "As in {doc}`04_average_precision` and {doc}`AP <04_average_precision>`.")},
    ]}  # fmt: skip
    out = "".join(export.export_notebook(nb)["cells"][1]["source"])
    assert "**Exercise 8.3.**\nCompute nDCG." in out
    assert "<summary>Solution to Exercise 8.3</summary>" in out and "</details>" in out
    assert "It is 0.1235, B = 44,791 and 0.123456." in out
    assert "**Head.**" in out and "**Note.**" in out and "Inner." in out
    assert "#### Solution to Exercise 8.4\nSee Exercise 8.4." in out
    assert ("As in [04_average_precision](04_average_precision.ipynb) and "
            "[AP](04_average_precision.ipynb).") in out
    assert ":::" not in out and "{" not in out
    with pytest.raises(KeyError, match="nothing named"):
        export.roles("{glue:text}`nope:.2f`", {})


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_exported_chapters_have_no_glue_role_and_no_colon_fence(path):
    nbformat = pytest.importorskip("nbformat")
    exported = nbformat.reads(export.exported_text(path), as_version=4)
    nbformat.validate(exported)
    original = teaching.read_notebook(path)
    assert len(exported.cells) == len(original["cells"])
    for cell in exported.cells:
        if cell.cell_type != "markdown":
            continue
        assert "{glue" not in cell.source
        assert not re.search(r"^\s*:{3,}", cell.source, re.M), cell.source[:200]
        assert "{term}" not in cell.source and "{index}" not in cell.source
    # the code and its outputs are untouched
    for new, old in zip(exported.cells, original["cells"], strict=True):
        if new.cell_type == "code":
            assert new.source == teaching.source(old)


@pytest.mark.parametrize("teacher", [False, True])
def test_the_student_edition_leaves_every_solution_out(tmp_path, teacher):
    """A small book with a plain and a gated solution (the gated one holding a code block,
    as a check cell is held), built with and without ``book_student_edition`` (called the
    teacher's edition before issue 50)."""
    pytest.importorskip("sphinx.cmd.build")
    pytest.importorskip("sphinx_exercise")
    pytest.importorskip("myst_parser")
    (tmp_path / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / '_ext')!r})\n"
        "extensions = ['myst_parser', 'sphinx_exercise', 'teaching']\n"
        "myst_enable_extensions = ['colon_fence']\n"
        f"book_student_edition = {teacher}\n", encoding="utf-8")
    (tmp_path / "index.md").write_text("\n".join([
        "# Book", "", ":::{exercise}", ":label: ch01-ex-1", "Compute ONE.", ":::", "",
        ":::{solution} ch01-ex-1", ":class: dropdown", "PLAINSOLUTION", ":::", "",
        ":::{exercise}", ":label: ch01-ex-2", "Compute TWO.", ":::", "",
        ":::{solution-start} ch01-ex-2", ":class: dropdown", ":::", "GATEDPROSE", "",
        "```python", "print('GATEDCODE')", "```", "", ":::{solution-end}", ":::", "",
        "AFTER the solutions.",
    ]), encoding="utf-8")  # fmt: skip
    out = tmp_path / "html"
    # in a process of its own: a second Sphinx application in one process (another
    # test's) warns that node classes are registered again, and -W fails on that
    built = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "-b", "html",
                            str(tmp_path), str(out)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "Compute ONE." in page and "Compute TWO." in page and "AFTER the solutions" in page
    for text in ("PLAINSOLUTION", "GATEDPROSE", "GATEDCODE"):
        assert (text in page) is not teacher, text
