"""The book's guards work: a changed stored number fails nbval, a raising cell fails the build.

Each test also runs the unmodified control, so it proves that the failure comes from the
change and not from a broken set-up.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = ROOT / "templates" / "chapter.ipynb"


def run_nbval(notebook: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"),
         "-o", "addopts=", str(notebook)],
        cwd=notebook.parent, capture_output=True, text=True, timeout=300,
    )


def change_one_number(nb: dict) -> str:
    """Change the first digit of the first stored text output; return the old line."""
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            if output.get("output_type") != "stream":
                continue
            text = "".join(output["text"])
            match = re.search(r"\d", text)
            if match:
                digit = match.group()
                new = str((int(digit) + 1) % 10)
                output["text"] = text[: match.start()] + new + text[match.end():]
                return text
    raise AssertionError("no stored number found in the chapter")


def test_nbval_fails_when_a_stored_number_changes(tmp_path):
    control = tmp_path / "control.ipynb"
    shutil.copy(CHAPTER, control)
    assert run_nbval(control).returncode == 0, "the unmodified chapter must pass nbval"

    nb = json.loads(CHAPTER.read_text())
    change_one_number(nb)
    changed = tmp_path / "changed.ipynb"
    changed.write_text(json.dumps(nb))
    result = run_nbval(changed)
    assert result.returncode != 0
    assert "failed" in result.stdout.lower()


def _book(tmp_path: Path, cell_source: str) -> Path:
    book = tmp_path / "book"
    book.mkdir()
    # The book's own execution settings, without its extensions and theme options.
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    minimal = {"title": "guard", "execute": config["execute"], "only_build_toc_files": True}
    (book / "_config.yml").write_text(yaml.safe_dump(minimal))
    (book / "_toc.yml").write_text("format: jb-book\nroot: index\n")
    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# A page"},
            {"cell_type": "code", "metadata": {}, "execution_count": None,
             "outputs": [], "source": cell_source},
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    (book / "index.ipynb").write_text(json.dumps(nb))
    return book


def build(book: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).parent / "jupyter-book"), "build", str(book), "-W", "-n", "--keep-going"],
        capture_output=True, text=True, timeout=600,
    )


@pytest.mark.parametrize(
    "source, should_pass",
    [("print(1 + 1)", True), ("raise RuntimeError('this cell fails')", False)],
    ids=["control", "raising-cell"],
)
def test_a_raising_cell_fails_the_build(tmp_path, source, should_pass):
    result = build(_book(tmp_path, source))
    assert (result.returncode == 0) == should_pass, result.stdout[-2000:] + result.stderr[-2000:]
