"""The user guide's pages are pages a practitioner can copy from (issue 49).

Each starts with an install line that names what exists (a checkout, never a package
name that is on no index) and the warning that PyPI's ``rankeval`` is another project;
finds its data from the repository root and from ``guide/``; links the chapter on
choosing a metric; has a "What changes your numbers" box; and links every ``rankeval``
function or class its prose names to its API entry.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

import rankeval

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "guide").glob("*.ipynb"))


def cells(page, kind):
    notebook = json.loads(page.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == kind]


def test_there_are_guide_pages():
    assert len(PAGES) >= 7


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_the_page_starts_with_the_install_line_and_the_name_warning(page):
    first = cells(page, "markdown")[0]
    assert re.search(r"^pip install (\.|\"\.\[\w+\]\")\s+# in a checkout", first, re.M), first
    assert "`pip install rankeval`" in first and "unrelated project" in first
    text = "\n".join(cells(page, "markdown") + cells(page, "code"))
    assert "rankeval-book[" not in text  # no index has it


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_the_page_runs_from_the_root_and_from_guide(page):
    code = "\n".join(cells(page, "code"))
    if "data/toy" in code:
        assert 'Path("data/toy") if Path("data/toy").is_dir() else Path("../data/toy")' in code
    assert not re.search(r'^DATA = Path\("\.\./data/toy"\)$', code, re.M)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_the_page_links_choosing_a_metric_and_has_the_box(page):
    prose = "\n".join(cells(page, "markdown"))
    assert "chapters/13_choosing_a_metric" in prose
    assert "{admonition} What changes your numbers" in prose


def resolves(dotted):
    """True when ``dotted`` names a function or class (not a module) of rankeval."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name, None)
        return obj is not None and callable(obj)
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_every_function_named_in_prose_links_to_its_api_entry(page):
    prose = "\n".join(cells(page, "markdown"))
    prose = re.sub(r"```.*?```", "", prose, flags=re.S)  # boxes and shell lines
    linked = re.sub(r"\[`[^`]+`\]\([^)]+\)", "", prose)  # drop [`name`](target)
    bare = [name for name in re.findall(r"`(rankeval(?:\.\w+)+)`", linked) if resolves(name)]
    bare += [name for name in re.findall(r"(?<!'s )`(\w+)(?:\(\))?`", linked)  # not "XGBoost's `ndcg`"
             if name in rankeval.__all__ and resolves(f"rankeval.{name}")]
    assert not bare, f"{page.name}: link these to the API page: {bare}"
