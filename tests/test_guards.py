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


def run_nbval(*notebooks: Path, report: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"),
         f"--junitxml={report}", f"--rootdir={notebooks[0].parent}", "-o", "addopts=",
         *(nb.name for nb in notebooks)],
        cwd=notebooks[0].parent, capture_output=True, text=True, timeout=300,
    )


def read_report(report: Path) -> dict[str, dict]:
    """The reader of nbval's JUnit report that the book's execution page uses
    (_ext/nbval_execution.py): docname -> {runtime, succeeded}."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "nbval_execution", ROOT / "_ext" / "nbval_execution.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.read_report(report)


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
    # one nbval run (one interpreter start) over the unmodified chapter and a copy with one
    # stored digit changed: the first must pass, the second must fail
    control = tmp_path / "control.ipynb"
    shutil.copy(CHAPTER, control)
    nb = json.loads(CHAPTER.read_text())
    change_one_number(nb)
    changed = tmp_path / "changed.ipynb"
    changed.write_text(json.dumps(nb))
    result = run_nbval(control, changed, report=tmp_path / "report.xml")
    assert result.returncode != 0
    assert "failed" in result.stdout.lower()
    found = read_report(tmp_path / "report.xml")
    assert found["control"]["succeeded"], "the unmodified chapter must pass nbval"
    assert not found["changed"]["succeeded"]


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


# --- every number in the prose comes from a cell ---------------------------------------------
#
# A decimal number typed into a chapter's Markdown is a number nbval never checks. Every
# such number must come from a cell: glued ({glue:text}`name:.4f`) or printed by a
# (hidden-input) cell. Allowed where they stand: a by-hand derivation in math ($...$,
# $$...$$, amsmath), code (inline `code`, fenced code, code directives), roles ({glue:...},
# {cite:...}, {eq}...), link targets and bare URLs, labels, directive options.

DECIMAL = re.compile(r"\d+\.\d+")
URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+")
# directives whose body is code or math, not prose
CODE_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode", "math", "literalinclude",
                   "raw", "glue", "glue:any", "glue:figure", "glue:math", "image", "figure",
                   "bibliography", "nb-exec-table"}
SKIPPED_INLINE = {"math_inline", "math_inline_double", "code_inline", "myst_role",
                  "html_inline", "substitution_inline", "image"}


def _markdown_parser():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    extensions = set(config["parse"]["myst_enable_extensions"])
    return create_md_parser(MdParserConfig(enable_extensions=extensions), RendererHTML)


def _directive_body(content: str) -> str:
    """A directive's body without its options (``:key: value`` lines or a YAML block)."""
    lines = content.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        lines = lines[end + 1:]
    while lines and re.match(r"^\s*:[\w-]+:", lines[0]):
        lines = lines[1:]
    return "\n".join(lines)


def prose_decimals(markdown: str, parser=None) -> list[str]:
    """Decimal numbers in the prose of one Markdown text (see the rule above)."""
    parser = parser or _markdown_parser()
    found: list[str] = []

    def text(value: str) -> None:
        found.extend(DECIMAL.findall(URL.sub(" ", value)))

    for token in parser.parse(markdown):
        if token.type in ("fence", "colon_fence"):
            match = re.match(r"^\{([^}]+)\}\s*(.*)$", token.info.strip())
            if not match or match.group(1) in CODE_DIRECTIVES:
                continue  # a code fence, or a directive whose body is code
            text(match.group(2))  # the directive's argument, e.g. a dropdown's title
            found.extend(prose_decimals(_directive_body(token.content), parser))
        elif token.type == "html_block":
            text(re.sub(r"<[^>]*>", " ", token.content))
        elif token.type == "inline":
            for child in token.children or []:
                if child.type == "text":
                    text(child.content)
    return found


def markdown_findings(notebook: Path, find, parser=None) -> list[str]:
    """'file, cell N: item' for every item ``find(markdown, parser)`` returns in one of
    the notebook's Markdown cells."""
    parser = parser or _markdown_parser()
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    problems = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for item in find(source, parser):
            problems.append(f"{notebook.relative_to(ROOT)}, cell {index}: {item}")
    return problems


def hand_typed_decimals(notebook: Path, parser=None) -> list[str]:
    """'file, cell N: number' for every decimal number in the notebook's Markdown prose."""
    return markdown_findings(notebook, prose_decimals, parser)


def test_the_number_guard_finds_prose_numbers_and_only_those():
    """The control for the guard below: what it flags, and what it leaves alone."""
    text = "\n".join([
        "(a-label)=",
        "# Title 1.5",
        "Prose 0.25, and $x = 0.5$, `code 1.2`, {glue:text}`ch_x:.4f`, {cite:p}`k2008a`,",
        "[link text](https://example.org/v2.5) and <https://example.org/3.5>.",
        "",
        "$$ y = 2.5 $$ (eq-a)",
        "",
        ":::{dropdown} Solution 6.5",
        ":open:",
        "Inside 7.25 and $8.5$",
        "```python",
        "x = 9.5",
        "```",
        ":::",
        "",
        "```{admonition} Head 10.5",
        ":class: tip",
        "Body 11.5",
        "```",
        "",
        "| a | b |", "|---|---|", "| 12.5 | `13.5` |",
        "",
        r"\begin{equation} 14.5 \end{equation}",
    ])  # fmt: skip
    assert prose_decimals(text) == ["1.5", "0.25", "6.5", "7.25", "10.5", "11.5", "12.5"]


@pytest.mark.parametrize("notebook", sorted((ROOT / "chapters").glob("*.ipynb")),
                         ids=lambda p: p.stem)
def test_no_hand_typed_decimal_in_chapter_prose(notebook):
    problems = hand_typed_decimals(notebook)
    assert not problems, (
        "decimal numbers typed into the prose (glue them with {glue:text}`name:.4f`, print "
        "them from a cell, keep them inside $...$ if they are a by-hand derivation, or in "
        "`code` if they are an identifier such as a version):\n" + "\n".join(problems)
    )


def backtick_prose_directives(markdown: str, parser=None) -> list[str]:
    """Directives with a prose body (a dropdown, an admonition) fenced with backticks.

    The book fences them with colons (``:::{dropdown} Solution``): Jupyter, Colab and
    GitHub show a backtick fence as a code block, so a reader running the notebook
    would see a solution's Markdown and TeX as raw text; a colon fence they render.
    Directives whose body is code or data (``{math}``, ``{code-cell}``) keep backticks.
    """
    parser = parser or _markdown_parser()
    found: list[str] = []
    for token in parser.parse(markdown):
        if token.type not in ("fence", "colon_fence"):
            continue
        match = re.match(r"^\{([^}]+)\}", token.info.strip())
        if not match or match.group(1) in CODE_DIRECTIVES:
            continue
        if token.type == "fence":
            found.append(f"{token.markup}{{{match.group(1)}}}")
        found.extend(backtick_prose_directives(_directive_body(token.content), parser))
    return found


def test_the_fence_guard_finds_backtick_prose_directives_and_only_those():
    text = "\n".join([
        ":::{dropdown} Solution", "````{note}", "Nested.", "````", ":::", "",
        "```{admonition} Head", "Body", "```", "",
        "```{math}", "x = 1", "```", "",
        "```python", "x = 1", "```",
    ])  # fmt: skip
    assert backtick_prose_directives(text) == ["````{note}", "```{admonition}"]


@pytest.mark.parametrize("notebook", sorted((ROOT / "chapters").glob("*.ipynb")),
                         ids=lambda p: p.stem)
def test_prose_directives_use_colon_fences(notebook):
    problems = markdown_findings(notebook, backtick_prose_directives)
    assert not problems, (
        "prose directives fenced with backticks, which Jupyter and Colab show as a code "
        "block; fence them with colons (:::{dropdown} ... :::):\n" + "\n".join(problems)
    )


@pytest.mark.parametrize("notebook", sorted((ROOT / "chapters").glob("*.ipynb")),
                         ids=lambda p: p.stem)
def test_no_control_character_in_chapter_prose(notebook):
    """A TeX command written from Python without a raw string loses its backslash:
    "\\bigl" becomes a backspace and "igl", "\\text" a tab and "ext", "\\alpha" a bell."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    problems = []
    for index, cell in enumerate(nb["cells"]):
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for match in re.finditer(r"[\x00-\x08\x0b-\x1f\t]", source):
            context = source[max(0, match.start() - 20): match.end() + 20]
            problems.append(f"{notebook.relative_to(ROOT)}, cell {index}: {context!r}")
    assert not problems, "control characters (a lost backslash?):\n" + "\n".join(problems)
