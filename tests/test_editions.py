"""The student set and the teacher's edition (issue 50): tools/editions.py.

* A student notebook of every chapter holds no solution: no solution cell, no solution
  text, no glued value stored anywhere, no output under a check cell, and no number
  that only a solution prints.
* The teacher's edition holds every solution and, under every exercise, its marking
  notes: the accepted values of a self-checked exercise, or the marking guide of an open
  one (teacher/marking.yml), which never reaches the student set.
* What leaves the repository (the student set, the site's zip) ships answers.json
  without the cells that hold the answers.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools import editions  # noqa: E402

teaching = editions.teaching
CHAPTERS = teaching.chapter_files()
ANSWERS = json.loads(teaching.ANSWERS.read_text(encoding="utf-8"))["exercises"]
GUIDES = editions.marking_guides()


def solution_texts(notebook: dict) -> list[str]:
    """The distinctive lines of every solution of the notebook (its prose and code)."""
    found = []
    for cell, role in zip(notebook["cells"], editions.roles(notebook), strict=True):
        if role["role"] == "solution":
            found.append(teaching.source(cell))
        elif cell["cell_type"] == "markdown":
            found += [m.group(0) for m in editions.SOLUTION_BLOCK.finditer(
                teaching.source(cell))]
    elsewhere = {line.strip()
                 for cell, role in zip(notebook["cells"], editions.roles(notebook), strict=True)
                 if role["role"] != "solution"
                 for line in editions.without_solution_text(teaching.source(cell)).splitlines()}
    lines = set()
    for text in found:
        for line in text.splitlines():
            line = line.strip()
            # long enough to be the solution's own, not a shared opening like "# Exercise 2"
            if len(line) >= 40 and not line.startswith(":::") and line not in elsewhere:
                lines.add(line)
    return sorted(lines)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_student_notebook_holds_no_solution(path):
    notebook = teaching.read_notebook(path)
    student = editions.student_notebook(notebook)
    text = json.dumps(student, ensure_ascii=False)
    assert student["metadata"]["rankeval_book"] == {"edition": "student"}
    assert "papermill.record" not in text and "scrapbook" not in text
    assert "{solution" not in text and "Solution to Exercise" not in text
    sources = "\n".join(teaching.source(c) for c in student["cells"])
    student_lines = {line.strip() for line in sources.splitlines()}
    for line in solution_texts(notebook):
        assert line not in student_lines, f"{path.stem}: a solution line is left: {line[:80]}"
    checks = 0
    for cell in student["cells"]:
        if cell["cell_type"] == "code" and editions.CHECK_CALL.search(teaching.source(cell)):
            checks += 1
            assert cell["outputs"] == [] and cell["execution_count"] is None
    number = int(path.stem[:2])
    assert checks == sum(int(k.split(".")[0]) == number for k in ANSWERS)
    # every exercise statement is still there
    for label in re.findall(r":label: (ch\d\d-ex-\d+)", json.dumps(notebook)):
        assert f"**Exercise {editions.label_number(label)}.**" in sources
    # and every number a solution shows (a glued value of a solution cell) is gone from
    # the outputs: the only outputs left are those of cells the student set keeps
    kept_ids = {c.get("id") for c in student["cells"]}
    for cell, role in zip(notebook["cells"], editions.roles(notebook), strict=True):
        if role["role"] == "solution":
            assert cell.get("id") not in kept_ids


def test_the_student_set_cuts_a_solution_block_out_of_a_shared_cell():
    notebook = {"cells": [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source":
         ":::{exercise}\n:label: ch08-ex-2\nProve it.\n:::\n\n:::{solution} ch08-ex-2\n"
         ":class: dropdown\nTHE PROOF.\n:::\n\nAfter."},
        {"cell_type": "markdown", "id": "b", "metadata": {}, "source":
         ":::{solution-start} ch08-ex-3\n:class: dropdown\n:::\nGATED."},
        {"cell_type": "code", "id": "c", "metadata": {}, "execution_count": 1,
         "source": "print(42)", "outputs": [{"output_type": "stream", "name": "stdout",
                                              "text": "42\n"}]},
        {"cell_type": "markdown", "id": "d", "metadata": {}, "source":
         "More GATED.\n\n:::{solution-end}\n:::"},
        {"cell_type": "code", "id": "e", "metadata": {}, "execution_count": 2,
         "source": 'answer = None\ncheck("8.3", answer)',
         "outputs": [{"output_type": "stream", "name": "stdout", "text": "ask\n"}]},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    assert [r["role"] for r in editions.roles(notebook)] == [
        "exercise", "solution", "solution", "solution", "check"]
    student = editions.student_notebook(notebook)
    text = json.dumps(student)
    assert "Prove it." in text and "After." in text
    assert "THE PROOF" not in text and "GATED" not in text and "42" not in text
    assert student["cells"][-1]["outputs"] == []


def test_every_exercise_has_a_self_check_or_a_marking_guide():
    """Issue 50: the ~20 open and proof exercises get marking guides."""
    open_ones = editions.open_exercises()
    assert len(open_ones) >= 15
    missing = set(open_ones) - set(GUIDES)
    assert not missing, f"teacher/marking.yml has no guide for {sorted(missing)}"
    # (a guide may also stand for an exercise another branch adds, or one that later got
    # a self-check: the teacher's edition then shows the autograder's notes instead)
    for number, guide in GUIDES.items():
        assert 1 <= guide["points"] <= 10, number
        assert guide["guide"].count("point") >= 2, number  # what earns each point


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_teachers_edition_has_every_solution_and_its_marking_notes(path):
    notebook = teaching.read_notebook(path)
    number = int(path.stem[:2])
    teacher = editions.teacher_notebook(notebook, number)
    assert teacher["metadata"]["rankeval_book"] == {"edition": "teacher"}
    text = "\n".join(teaching.source(c) for c in teacher["cells"])
    assert "Solution to Exercise" in text
    labels = re.findall(r":label: (ch\d\d-ex-\d+)", json.dumps(notebook))
    for label in labels:
        exercise = editions.label_number(label)
        if exercise in ANSWERS:
            assert f"**Marking notes, Exercise {exercise}** (autograded" in text
        else:
            assert f"**Marking guide, Exercise {exercise}** (" in text
            assert GUIDES[exercise]["guide"].strip().splitlines()[0] in text
    # the guides are in the teacher's edition only
    student = json.dumps(editions.student_notebook(notebook))
    assert "Marking guide" not in student and "Marking notes" not in student


def test_the_teachers_notes_state_the_accepted_values():
    notebook = teaching.read_notebook(teaching.chapter_notebook(8))
    part = ANSWERS["8.1"]["parts"][0]
    value = teaching.book_value(notebook, part)
    note = editions.autograded_note("8.1", ANSWERS["8.1"], notebook)
    assert f"{part['name']}: {value:.4f}" in note and "accepts it within 0.0001" in note


def test_the_shipped_answers_name_no_cell(tmp_path):
    written = editions.build(tmp_path, chapters=[8])
    assert [p.name for p in written["student"]] == ["08_ndcg.ipynb"]
    shipped = json.loads((tmp_path / "student" / "chapters" / "answers.json").read_text())
    assert shipped["exercises"].keys() == ANSWERS.keys()
    assert all("source" not in part for e in shipped["exercises"].values()
               for part in e["parts"])
    assert (tmp_path / "student" / "chapters" / "bookstyle.py").is_file()
    # the self-check works from the shipped file alone
    sys.path.insert(0, str(ROOT / "chapters"))
    import bookstyle

    value = teaching.book_value(teaching.read_notebook(teaching.chapter_notebook(3)),
                                ANSWERS["3.2"]["parts"][0])
    entries = shipped["exercises"]
    assert bookstyle._part_is_right("3.2", 0, entries["3.2"]["parts"][0], value)
    assert not bookstyle._part_is_right("3.2", 0, entries["3.2"]["parts"][0], value + 0.01)


def test_a_plain_notebook_module_is_used_when_it_exists(monkeypatch):
    """tools/plain_notebook.plain (issue 50, item 5) turns MyST into plain Markdown; the
    editions call it when it exists, else fall back to _ext/export_notebooks.py."""
    import types

    seen = []
    fake = types.ModuleType("tools.plain_notebook")

    def plain(nb):
        seen.append(len(nb["cells"]))
        return nb

    fake.plain = plain
    monkeypatch.setitem(sys.modules, "tools.plain_notebook", fake)
    editions.student_notebook(teaching.read_notebook(teaching.chapter_notebook(1)))
    assert seen


def test_the_sites_download_button_serves_the_student_notebook(tmp_path):
    """The theme's per-page download is _sources/chapters/NN_x.ipynb: after an HTML build
    it is the student notebook, not the source with every solution and output."""
    import types

    sources = tmp_path / "_sources" / "chapters"
    sources.mkdir(parents=True)
    path = teaching.chapter_notebook(8)
    (sources / path.name).write_bytes(path.read_bytes())
    app = types.SimpleNamespace(outdir=str(tmp_path),
                                builder=types.SimpleNamespace(format="html"))
    teaching.student_downloads(app, None)
    offered = json.loads((sources / path.name).read_text(encoding="utf-8"))
    assert offered["metadata"]["rankeval_book"] == {"edition": "student"}
    assert offered == json.loads(editions.student_text(path))
    assert "Solution to Exercise" not in json.dumps(offered)
    assert any(cell.get("outputs") for cell in offered["cells"])
    # the LaTeX builder, or a failed build, leaves the files alone
    (sources / path.name).write_text("{}")
    teaching.student_downloads(types.SimpleNamespace(
        outdir=str(tmp_path), builder=types.SimpleNamespace(format="latex")), None)
    teaching.student_downloads(app, RuntimeError("failed"))
    assert (sources / path.name).read_text() == "{}"


def test_the_site_zip_holds_the_student_notebooks(tmp_path):
    import importlib.util
    import zipfile

    sys.path.insert(0, str(ROOT / "_ext"))
    spec = importlib.util.spec_from_file_location("book_downloads",
                                                  ROOT / "_ext" / "book_downloads.py")
    downloads = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(downloads)
    wheel = tmp_path / "rankeval_book-0-py3-none-any.whl"
    wheel.write_bytes(b"")
    zipped = downloads.build_zip(ROOT, tmp_path, ["chapters/08_ndcg", "chapters/03_hit"],
                                 wheel)
    with zipfile.ZipFile(zipped) as bundle:
        notebook = json.loads(bundle.read("ranking-evaluation/chapters/08_ndcg.ipynb"))
        answers = json.loads(bundle.read("ranking-evaluation/chapters/answers.json"))
        readme = bundle.read("ranking-evaluation/README.txt").decode()
    assert notebook["metadata"]["rankeval_book"] == {"edition": "student"}
    assert "student edition" in readme
    assert all("source" not in p for e in answers["exercises"].values() for p in e["parts"])


def test_the_teachers_edition_is_also_html(tmp_path):
    pytest.importorskip("nbconvert")
    written = editions.build(tmp_path, html=True, chapters=[3])
    [page] = written["teacher-html"]
    html = page.read_text(encoding="utf-8")
    assert "Marking guide, Exercise 3.1" in html and "Solution to Exercise 3.1" in html
    assert "Marking notes, Exercise 3.2" in html


def test_the_teachers_note_says_which_exercises_have_per_student_data():
    """A per-student exercise's marking note says the values are the statement's and
    that the autograder recomputes each student's; a plain one says nothing of it."""
    from tools import autograde

    notebook = teaching.read_notebook(teaching.chapter_notebook(8))
    note = editions.autograded_note("8.1", ANSWERS["8.1"], notebook)
    assert "8.1" in autograde.VARIANTS and "data of their own" in note
    assert autograde.VARIANTS["8.1"]["says"] in note
    note = editions.autograded_note("8.3", ANSWERS["8.3"], notebook)
    assert "8.3" not in autograde.VARIANTS and "data of their own" not in note
