"""The book's editions of its notebooks: a student set, and a teacher's edition.

Three editions exist, and each says which it is:

* **the website** (the reader's edition): every exercise with its solution folded under
  it; ``BOOK_STUDENT_EDITION=1`` builds the same site without any solution
  (_ext/teaching.py);
* **the student notebooks** (:func:`student_notebook`, ``python3 tasks.py editions`` ->
  ``_build/editions/student``; also the site's notebooks zip and each page's ``.ipynb``
  download): the chapters with their exercise statements but no solution cell, no
  solution text, no stored output of a check cell, and no glued value stored in any
  cell (the glue records are where the solutions' numbers sat in the file);
* **the teacher's edition** (:func:`teacher_notebook`, ``_build/editions/teacher``):
  every solution, and under each exercise its marking notes: for a self-checked
  exercise the values and tolerances the autograder accepts, for an open or proof
  exercise the marking guide of teacher/marking.yml. Also as HTML (nbconvert), when
  nbconvert is installed.

The Markdown of every edition is made plain for Jupyter and Colab: by
``tools/plain_notebook.plain`` when that module exists, else by _ext/export_notebooks.py
(glue roles to numbers, directives to plain Markdown and HTML).

    python3 tools/editions.py OUT [--html]     # OUT/student, OUT/teacher (and OUT/teacher-html)
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"
MARKING = ROOT / "teacher" / "marking.yml"
sys.path.insert(0, str(ROOT / "_ext"))
import export_notebooks  # noqa: E402
import teaching  # noqa: E402

CHECK_CALL = re.compile(r'check\("(\d+\.\d+)", answer\)')
EXERCISE_LABEL = re.compile(r"^:{3,}\{exercise\}[^\n]*\n(?::[\w-]+:[^\n]*\n)*?:label: (ch\d\d-ex-\d+)",
                            re.M)
SOLUTION_BLOCK = re.compile(r"^(?P<fence>:{3,})\{solution\} (?P<label>\S+)\n.*?^(?P=fence)[ \t]*$\n?",
                            re.M | re.S)
SOLUTION_START = re.compile(r"^:{3,}\{solution-start\} (\S+)", re.M)
SOLUTION_END = re.compile(r"^:{3,}\{solution-end\}", re.M)
PAPERMILL = "application/papermill.record/"
STUDENT_NOTE = (
    "*Student edition: the exercises of this chapter without their solutions. The "
    "website shows each solution folded under its exercise; the self-check cells tell "
    "you whether a number is right without printing the book's value.*"
)
TEACHER_NOTE = (
    "*Teacher's edition: every solution, and under each exercise its marking notes "
    "(the values and tolerances the autograder accepts, or the marking guide of an "
    "open exercise). Do not hand this file out.*"
)


def label_number(label: str) -> str:
    """'ch08-ex-3' -> '8.3'."""
    match = re.fullmatch(r"ch(\d+)-ex-(\d+)", label)
    if not match:
        raise ValueError(f"not an exercise label (chNN-ex-K): {label!r}")
    return f"{int(match.group(1))}.{int(match.group(2))}"


def roles(notebook: dict) -> list[dict]:
    """Each cell's part in the chapter: ``{"role": ..., "exercise": "8.3" or None}``.

    The roles: ``exercise`` (a Markdown cell that states an exercise), ``solution`` (every
    cell from a ``solution-start`` to its ``solution-end``, and a cell that is one
    ``{solution}`` block), ``check`` (a self-check cell), ``body`` (everything else).
    A Markdown cell that holds a ``{solution}`` block next to other text is ``body`` or
    ``exercise``; :func:`without_solution_text` cuts the block out of it.
    """
    out, gated, last = [], None, None
    for cell in notebook["cells"]:
        text = teaching.source(cell)
        role = "body"
        if cell["cell_type"] == "markdown":
            start = SOLUTION_START.search(text)
            labels = EXERCISE_LABEL.findall(text)
            if labels:
                last = label_number(labels[-1])
            if start:
                if gated:
                    raise ValueError(f"solution-start of {start.group(1)} inside {gated}")
                gated = label_number(start.group(1))
            if gated:
                role = "solution"
                if SOLUTION_END.search(text):
                    out.append({"role": role, "exercise": gated})
                    gated = None
                    continue
            elif labels:
                role = "exercise"
            elif SOLUTION_BLOCK.fullmatch(text.strip() + "\n"):
                role = "solution"
        elif gated:
            role = "solution"
        elif CHECK_CALL.search(text):
            role = "check"
            last = CHECK_CALL.search(text).group(1)
        out.append({"role": role, "exercise": gated or (last if role != "body" else None)})
    if gated:
        raise ValueError(f"solution-start of exercise {gated} without solution-end")
    return out


def without_solution_text(text: str) -> str:
    """A Markdown cell's text with every ``{solution}`` block cut out."""
    return re.sub(r"\n{3,}", "\n\n", SOLUTION_BLOCK.sub("", text)).strip("\n")


def _plain(notebook: dict) -> dict:
    """MyST -> plain Jupyter Markdown: tools/plain_notebook.plain when it exists, else
    the export of _ext/export_notebooks.py."""
    try:
        plain = importlib.import_module("tools.plain_notebook").plain
    except ImportError:
        return export_notebooks.export_notebook(notebook)
    return plain(notebook)


def _note_cell(text: str, cell_id: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {},
            "source": teaching.lines(text)}


def _set_edition(notebook: dict, edition: str) -> None:
    notebook.setdefault("metadata", {})["rankeval_book"] = {"edition": edition}


def student_notebook(notebook: dict) -> dict:
    """The student edition of a chapter notebook (see the module's docstring)."""
    values = export_notebooks.glued(notebook)  # the glue roles the body's prose uses
    kept = []
    for cell, role in zip(notebook["cells"], roles(notebook), strict=True):
        if role["role"] == "solution":
            continue
        cell = copy.deepcopy(cell)
        if cell["cell_type"] == "markdown":
            text = without_solution_text(teaching.source(cell))
            if not text.strip():
                continue
            cell["source"] = teaching.lines(text)
        if role["role"] == "check":
            cell["outputs"], cell["execution_count"] = [], None
        kept.append(cell)
    result = dict(copy.deepcopy({k: v for k, v in notebook.items() if k != "cells"}),
                  cells=kept)
    # the body's prose may show a number glued by a cell the student set keeps: fill it
    # in from the whole notebook's records before they are dropped
    carrier = {"cell_type": "code", "execution_count": None, "id": "glue-values",
               "metadata": {}, "source": "", "outputs": [
                   {"output_type": "display_data", "metadata": {"scrapbook": {"name": n}},
                    "data": {PAPERMILL + mime: v for mime, v in kinds.items()}}
                   for n, kinds in values.items()]}
    result["cells"].append(carrier)
    result = _plain(result)
    result["cells"] = [c for c in result["cells"] if c.get("id") != "glue-values"]
    for cell in result["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = [o for o in cell.get("outputs", [])
                               if not any(m.startswith(PAPERMILL) for m in o.get("data", {}))]
    result["cells"].insert(1, _note_cell(STUDENT_NOTE, "student-edition"))
    _set_edition(result, "student")
    return result


def marking_guides(path: Path = MARKING) -> dict[str, dict]:
    """teacher/marking.yml: exercise -> {points, guide} for the open and proof exercises."""
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    guides = data["exercises"]
    for number, entry in guides.items():
        if not re.fullmatch(r"\d+\.\d+", str(number)):
            raise ValueError(f"{path}: {number!r} is not an exercise number (8.3)")
        if set(entry) != {"points", "guide"} or not entry["guide"]:
            raise ValueError(f"{path}: exercise {number} needs points and a guide")
    return {str(k): v for k, v in guides.items()}


def autograded_note(exercise: str, entry: dict, notebook: dict) -> str:
    """The teacher's note of a self-checked exercise: each number, its value in the book
    and the tolerance the autograder and the self-check accept."""
    sys.path.insert(0, str(CHAPTERS))
    import bookstyle

    out = [f"**Marking notes, Exercise {exercise}** (autograded, "
           f"{len(entry['parts'])} point{'s' if len(entry['parts']) > 1 else ''}: "
           "one per number).", ""]
    for part in entry["parts"]:
        value = teaching.book_value(notebook, part)
        tol = bookstyle.tolerance(part)
        shown = f"{value:.{max(part['decimals'], 0)}f}" if part["decimals"] else f"{value:g}"
        accept = f"within {tol:g}" if tol else "exactly"  # the hidden test's rule
        out.append(f"- {part['name']}: {shown}; the autograder accepts it {accept}.")
    from tools import autograde  # here: autograde imports this module

    if exercise in autograde.VARIANTS:
        out += ["", "In the assignment each student has data of their own "
                f"({autograde.VARIANTS[exercise]['says']}); the values above are the "
                "statement's, and the autograder recomputes each student's from their "
                "`STUDENT_ID` (teacher/README.md)."]
    return "\n".join(out)


def teacher_notebook(notebook: dict, number: int, answers: dict | None = None,
                     guides: dict | None = None) -> dict:
    """The teacher's edition of chapter `number`: all solutions, with marking notes."""
    answers = answers if answers is not None else teaching.read_notebook(teaching.ANSWERS)
    guides = guides if guides is not None else marking_guides()
    cells, notes_after = [], {}
    cell_roles = roles(notebook)
    # a note goes after the exercise's last cell (its solution, else its statement)
    for index, role in enumerate(cell_roles):
        if role["exercise"] and role["role"] != "body":
            notes_after[role["exercise"]] = index
    place = {index: exercise for exercise, index in notes_after.items()}
    for index, cell in enumerate(notebook["cells"]):
        cells.append(copy.deepcopy(cell))
        exercise = place.get(index)
        if exercise is None:
            continue
        if exercise in answers["exercises"]:
            text = autograded_note(exercise, answers["exercises"][exercise], notebook)
        elif exercise in guides:
            guide = guides[exercise]
            text = (f"**Marking guide, Exercise {exercise}** ({guide['points']} points).\n\n"
                    + guide["guide"].strip())
        else:
            raise KeyError(f"exercise {exercise} has neither a self-check nor a marking "
                           "guide in teacher/marking.yml")
        cells.append(_note_cell(text, f"marking-{exercise.replace('.', '-')}"))
    result = dict(copy.deepcopy({k: v for k, v in notebook.items() if k != "cells"}),
                  cells=cells)
    result = _plain(result)
    result["cells"].insert(1, _note_cell(TEACHER_NOTE, "teacher-edition"))
    _set_edition(result, "teacher")
    return result


def open_exercises() -> list[str]:
    """Every exercise of the book that has no self-check (an open or proof exercise)."""
    checked = set(teaching.read_notebook(teaching.ANSWERS)["exercises"])
    found = []
    for path in teaching.chapter_files():
        for match in EXERCISE_LABEL.finditer(
                "\n".join(teaching.source(c) for c in teaching.read_notebook(path)["cells"]
                          if c["cell_type"] == "markdown")):
            number = label_number(match.group(1))
            if number not in checked:
                found.append(number)
    return found


def dumps(notebook: dict) -> str:
    return json.dumps(notebook, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def student_text(path: Path) -> str:
    """The student edition of the notebook at `path` as nbformat writes it."""
    return dumps(student_notebook(teaching.read_notebook(path)))


def shipped_answers_text() -> str:
    """chapters/answers.json as handed out (no ``source``: it named the answer's cell)."""
    return json.dumps(teaching.shipped_answers(), indent=1, ensure_ascii=False) + "\n"


def build(out: Path, html: bool = False, chapters: list[int] | None = None) -> dict:
    """Write OUT/student and OUT/teacher (and OUT/teacher-html); returns the paths."""
    answers = teaching.read_notebook(teaching.ANSWERS)
    guides = marking_guides()
    student, teacher = out / "student" / "chapters", out / "teacher" / "chapters"
    for folder in (student, teacher):
        folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[Path]] = {"student": [], "teacher": [], "teacher-html": []}
    for path in teaching.chapter_files():
        number = int(path.stem[:2])
        if chapters and number not in chapters:
            continue
        notebook = teaching.read_notebook(path)
        target = student / path.name
        target.write_text(dumps(student_notebook(notebook)), encoding="utf-8")
        written["student"].append(target)
        target = teacher / path.name
        target.write_text(dumps(teacher_notebook(notebook, number, answers, guides)),
                          encoding="utf-8")
        written["teacher"].append(target)
    for folder in (student, teacher):
        (folder / "bookstyle.py").write_bytes((CHAPTERS / "bookstyle.py").read_bytes())
        (folder / "answers.json").write_text(shipped_answers_text(), encoding="utf-8")
    if html:
        written["teacher-html"] = teacher_html(written["teacher"], out / "teacher-html")
    return written


def teacher_html(notebooks: list[Path], out: Path) -> list[Path]:
    """The teacher's notebooks as HTML pages (nbconvert's lab template, stored outputs)."""
    import nbformat
    from nbconvert import HTMLExporter

    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="lab")
    written = []
    for path in notebooks:
        body, _ = exporter.from_notebook_node(nbformat.read(path, as_version=4))
        target = out / path.with_suffix(".html").name
        target.write_text(body, encoding="utf-8")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--html", action="store_true", help="also the teacher's HTML pages")
    parser.add_argument("--chapters", type=int, nargs="*", help="only these chapters")
    args = parser.parse_args(argv)
    written = build(args.out, html=args.html, chapters=args.chapters)
    for kind, paths in written.items():
        if paths:
            print(f"{kind}: {len(paths)} files in {paths[0].parent}")


if __name__ == "__main__":
    main()
