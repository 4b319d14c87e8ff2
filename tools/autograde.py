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

Per-student data (:data:`VARIANTS`): an exercise whose answer is one number computed from
a binary list can give every student a list of their own, made from the ``STUDENT_ID``
the student writes in the assignment's first code cell (:func:`student_list`: a hash of
the ID and the exercise seeds the list; a blank ID scores nothing). The question then asks for the answer for that
list; the teacher's solution computes it from the list; the hidden test makes the list
again from ``STUDENT_ID`` with its own copy of the generator and recomputes the answer,
so an answer copied from another student fails. The teacher checks that each
submission's ``STUDENT_ID`` is its author's (it is in the notebook's first cell). Done
for exercises 1.1 and 7.3 only: the other single-number answers come from inputs in
their statements (a list, a table, a simulation's seed) that would each need a
generator and an answer function written for them.

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


# exercise -> how the student's own data is made and what the answer is, as code run in
# the notebook's namespace with `data` the student's list
VARIANTS = {
    "1.1": {"data": "binary list", "answer": "rankeval.inversions(data)"},
    "7.3": {"data": "binary list", "answer": "rankeval.average_precision(data)"},
}
GENERATOR = '''\
def student_list(student_id, exercise, n=8):
    """A binary list of length n with at least one 0 and one 1, the same for the same
    student ID and exercise on every machine."""
    import hashlib
    import random

    digest = hashlib.sha256(f"{student_id}|{exercise}".encode("utf-8")).hexdigest()
    rng = random.Random(int(digest[:16], 16))
    while True:
        data = [rng.randint(0, 1) for _ in range(n)]
        if 0 < sum(data) < n:
            return data
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


def student_list(student_id: str, exercise: str, n: int = 8) -> list[int]:
    """The list :data:`GENERATOR` makes (the same code, run here)."""
    scope: dict = {}
    exec(GENERATOR, scope)
    return scope["student_list"](student_id, exercise, n)


def variant_answer(exercise: str, student_id: str) -> float:
    """The answer to a per-student exercise for `student_id` (rankeval on its list)."""
    import rankeval

    data = student_list(student_id, exercise)
    return float(eval(VARIANTS[exercise]["answer"], {"rankeval": rankeval, "data": data}))


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


def variant_test_cell(exercise: str, tol: float) -> dict:
    """The hidden test of a per-student exercise: the list made again from STUDENT_ID
    (with the test's own copy of the generator), the answer recomputed."""
    return _code("\n".join([
        '""" # BEGIN TEST CONFIG',
        "hidden: true",
        "points: 1",
        '""" # END TEST CONFIG',
        "import math",
        "import rankeval",
        "assert isinstance(STUDENT_ID, str) and STUDENT_ID.strip(), 'set STUDENT_ID'",
        "scope = {}",
        f"exec({GENERATOR!r}, scope)",
        f"data = scope['student_list'](STUDENT_ID, {exercise!r})",
        f"expected = float({VARIANTS[exercise]['answer']})",
        f"given = float({variable(exercise)})",
        f"assert math.isfinite(given) and abs(given - expected) <= {tol!r} + 1e-9 * max(1.0, abs(expected))",
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
        prompt = (f"**Exercise {exercise}, autograded, with your own data:** the same "
                  f"question for your list `{data}` (the cell below makes it from your "
                  "`STUDENT_ID`) instead of the statement's list.")
        make = (f"{data} = student_list(STUDENT_ID, {exercise!r})\n"
                f'print("your list:", {data})')
        if first_variant:  # the student's ID, and the generator, before the first list
            own = [_raw("# BEGIN SOLUTION"), _code(ID_LINES + make), _raw("# END SOLUTION")]
        else:
            own = [_code(make)]
        code[-1] = (f"{name} = {VARIANTS[exercise]['answer'].replace('data', data)}"
                    "  # SOLUTION")
        tests = [variant_test_cell(exercise, bookstyle.tolerance(parts[0]))]
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
