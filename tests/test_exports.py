"""The downloaded notebooks read cleanly in plain Jupyter and Colab (tools/plain_notebook.py).

Both download paths are checked: the notebooks zip and the per-page ``.ipynb`` (the
website's ``_sources/``), both written by _ext/book_downloads.py with ``plain_text``; and
the launch copies use ``plain`` too (tests/test_launch_copies.py). Every exported notebook
is parsed by nbformat, must hold no MyST syntax outside code, and its maths is typeset by
MathJax itself (mathjax-full, the version the website serves, run by Node.js:
tests/js/check_math.js) with no error. ``tasks.py setup`` installs mathjax-full from the
npm registry into .venv/mathjax; without Node.js or it the MathJax test is skipped,
under CI=true it fails.

The reader's install (requirements-reader.txt) is checked by a static scan: every module
a notebook imports is in the standard library, is the book's own (rankeval, bookstyle), or
is provided by a distribution the file names or one of their dependencies (read from the
installed packages' metadata); pyspark, optional, is named in the file's comments.
"""

import importlib.metadata as metadata
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "_ext"))
from tools import plain_notebook  # noqa: E402

NOTEBOOKS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb")) + sorted((ROOT / "guide").glob("*.ipynb"))
IN_CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}
MYST = [
    ("role", re.compile(r"\{[\w:.-]+\}`")),
    ("target", re.compile(r"^\([\w.:-]+\)=\s*$", re.M)),
    ("labelled equation", re.compile(r"\$\$[ \t]*\([\w.:-]+\)")),
    ("colon fence", re.compile(r"^:{3,}", re.M)),
    ("directive fence", re.compile(r"^`{3,}\{", re.M)),
    ("substitution", re.compile(r"\{\{")),
    ("MyST comment", re.compile(r"^%", re.M)),
]


def markdown_cells(notebook) -> list[str]:
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"]


def without_code(text: str) -> str:
    """Markdown with fenced code blocks and code spans removed (they may show MyST)."""
    text = re.sub(r"^(`{3,}|~{3,})(?!\{).*?^\1", "", text, flags=re.M | re.S)
    return re.sub(r"(\{[\w:.-]+\}`[^`]*`)|(`+)[^`]+?\2", lambda m: m.group(1) or "", text)


@pytest.fixture(scope="module")
def exported():
    return {p: nbformat.reads(plain_notebook.plain_text(p), as_version=4) for p in NOTEBOOKS}


def test_every_exported_notebook_is_valid_and_has_no_myst(exported):
    assert len(exported) >= 25
    for path, notebook in exported.items():
        nbformat.validate(notebook)
        for i, text in enumerate(markdown_cells(notebook)):
            plain = without_code(text)
            for what, pattern in MYST:
                match = pattern.search(plain)
                assert not match, (f"{path.name}, Markdown cell {i}: {what} left: "
                                   f"{plain[max(0, match.start() - 60):match.end() + 60]!r}")


def test_the_checks_see_myst(exported):
    """The MyST patterns above find what the source chapters hold."""
    source = json.loads((ROOT / "chapters" / "08_ndcg.ipynb").read_text(encoding="utf-8"))
    text = without_code("\n".join(markdown_cells(source)))
    found = {what for what, pattern in MYST if pattern.search(text)}
    assert {"role", "target", "labelled equation", "colon fence"} <= found


def test_code_cells_and_outputs_are_unchanged(exported):
    for path, notebook in exported.items():
        source = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
        code = [c for c in source.cells if c.cell_type == "code"]
        assert [c for c in notebook.cells if c.cell_type == "code"] == code


def test_references_become_numbers_and_citations_author_year():
    notebook = json.loads((ROOT / "chapters" / "08_ndcg.ipynb").read_text(encoding="utf-8"))
    text = "\n".join(markdown_cells(plain_notebook.plain(notebook, site="https://x.org/b/")))
    assert re.search(r"\\tag\{8\.1\}", text)
    assert re.search(r"Figure 8\.\d", text)
    assert re.search(r"\(\[[^\]]+, (19|20)\d\d\]\(https://x\.org/b/reference/bibliography\.html\)\)", text)
    assert "(ch08-ex" not in text and "Exercise 8.1" in text


def test_numbers_are_those_of_the_built_website():
    """Equation and figure numbers as Sphinx gave them (needs a built site)."""
    html_dir = ROOT / "_build" / "html" / "chapters"
    if not html_dir.is_dir():
        pytest.skip("no built website in _build/html")
    index = plain_notebook.book_index(ROOT)
    pages = {}
    for kind, pattern in (("equations", r'id="equation-{}"[^>]*>\s*<span class="eqno">\(([\d.]+)\)'),
                          ("figures", r'id="{}".*?<span class="caption-number">Figure ([\d.]+)')):
        for label, (number, stem) in index[kind].items():
            html = pages.setdefault(stem, (html_dir / f"{stem}.html").read_text(encoding="utf-8"))
            match = re.search(pattern.format(re.escape(label.lower())), html, re.S | re.I)
            assert match and match.group(1) == number, (kind, label, number)


def test_a_display_formula_with_a_bare_ampersand_is_aligned():
    """Chapter 12's derivation: '&' outside an environment, which plain MathJax rejects."""
    out = plain_notebook.plain_math("\n S &= a \\\\\n &= b\n", "12.4")
    assert out.startswith("$$\n\\begin{aligned}") and "\\end{aligned}" in out
    assert out.rstrip("$").rstrip().endswith("\\tag{12.4}")
    kept = plain_notebook.plain_math("\n\\begin{cases} a & b \\end{cases}\n")
    assert "aligned" not in kept


# --- MathJax ------------------------------------------------------------------------------


def mathjax_modules() -> Path | None:
    for base in (os.environ.get("MATHJAX_FULL_DIR", ""), ROOT / ".venv" / "mathjax",
                 Path(sys.executable).resolve().parents[1] / "mathjax",
                 Path(sys.executable).parents[1] / "mathjax"):
        if base and (Path(base) / "node_modules" / "mathjax-full" / "package.json").is_file():
            return Path(base) / "node_modules"
    return None


def typeset_errors(formulas: list[dict]) -> list[dict]:
    node, modules = shutil.which("node"), mathjax_modules()
    if node is None or modules is None:
        message = "no Node.js or no mathjax-full in .venv/mathjax (python3 tasks.py setup)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    result = subprocess.run([node, str(ROOT / "tests" / "js" / "check_math.js"), str(modules)],
                            input=json.dumps(formulas), capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def formulas_of(notebook, name: str) -> list[dict]:
    """Every $...$ and $$...$$ of the Markdown cells, as markdown-it with dollarmath reads them."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    parser = MarkdownIt("commonmark").use(dollarmath_plugin, allow_labels=False)
    out = []

    def walk(tokens, cell):
        for token in tokens:
            if token.type in ("math_inline", "math_block"):
                out.append({"id": f"{name} cell {cell}", "tex": token.content,
                            "display": token.type == "math_block"})
            if token.children:
                walk(token.children, cell)

    for i, text in enumerate(markdown_cells(notebook)):
        walk(parser.parse(text), i)
    return out


def test_the_mathjax_check_sees_a_bad_formula():
    errors = typeset_errors([{"id": "amp", "tex": "a &= b", "display": True},
                             {"id": "ok", "tex": "a = b \\tag{1.1}", "display": True},
                             {"id": "macro", "tex": "\\nosuchmacro x", "display": False}])
    assert {e["id"] for e in errors} == {"amp", "macro"}


def test_every_formula_renders_with_the_sites_mathjax(exported):
    formulas = [f for path, nb in exported.items() for f in formulas_of(nb, path.name)]
    assert len(formulas) > 1000
    errors = typeset_errors(formulas)
    assert not errors, errors[:10]


# --- the two download paths ----------------------------------------------------------------


def test_the_zip_holds_plain_notebooks_the_readers_install_and_a_bibliography(tmp_path):
    import book_downloads

    wheel = tmp_path / "rankeval_book-0-py3-none-any.whl"
    wheel.write_bytes(b"not a real wheel")
    docnames = [p.relative_to(ROOT).with_suffix("").as_posix() for p in NOTEBOOKS[:2]]
    path = book_downloads.build_zip(ROOT, tmp_path, docnames, wheel)
    with zipfile.ZipFile(path) as bundle:
        top = "ranking-evaluation/"
        assert bundle.read(top + "requirements.txt") == (ROOT / "requirements-reader.txt").read_bytes()
        assert bundle.read(top + "BIBLIOGRAPHY.md").startswith(b"# Bibliography")
        for docname in docnames:
            inside = bundle.read(f"{top}{docname}.ipynb").decode("utf-8")
            if docname.startswith("chapters/"):  # the student notebook (tools/editions.py)
                from tools import editions

                assert inside == editions.student_text(ROOT / f"{docname}.ipynb")
            else:
                assert inside == plain_notebook.plain_text(ROOT / f"{docname}.ipynb")
        readme = bundle.read(top + "README.txt").decode("utf-8")
        assert "jupyterlab-myst" not in readme and "{glue" not in readme


def test_the_per_page_downloads_are_replaced_by_plain_notebooks(tmp_path):
    import book_downloads

    sources = tmp_path / "_sources" / "chapters"
    sources.mkdir(parents=True)
    shutil.copy2(NOTEBOOKS[0], sources / NOTEBOOKS[0].name)
    written = book_downloads.write_page_downloads(ROOT, tmp_path)
    assert written == [sources / NOTEBOOKS[0].name]
    assert written[0].read_text(encoding="utf-8") == plain_notebook.plain_text(NOTEBOOKS[0])


def test_the_built_sites_downloads_are_plain():
    site = ROOT / "_build" / "html"
    if not (site / "_sources" / "chapters").is_dir():
        pytest.skip("no built website in _build/html")
    for path in sorted((site / "_sources" / "chapters").glob("*.ipynb")):
        text = without_code("\n".join(markdown_cells(json.loads(path.read_text("utf-8")))))
        assert not re.search(r"\{(eq|cite:p|glue:text|numref)\}`", text), path.name


# --- the issues link ------------------------------------------------------------------------


def test_a_published_build_links_the_issue_tracker_on_every_page():
    from tools import generate_config

    config = {"sphinx": {"local_extensions": {}, "config": {}}, "execute": {},
              "html": {"extra_footer": "<p>licence</p>\n"}, "launch_buttons": {}}
    out = generate_config.generate(config, ROOT / "_config.yml", execute="force",
                                   repository="o/r", branch="launch", report="", pdf="",
                                   pdf_mode="none")
    assert out["html"]["use_issues_button"] and out["repository"]["url"] == "https://github.com/o/r"
    assert 'href="https://github.com/o/r/issues"' in out["html"]["extra_footer"]
    assert out["html"]["extra_footer"].startswith("<p>licence</p>")


# --- the reader's install -------------------------------------------------------------------


def notebook_imports(path: Path) -> set[str]:
    import ast

    found = set()
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        code = "\n".join(line for line in "".join(cell["source"]).splitlines()
                         if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names)


def requirement_names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(re.split(r"[\[=<>!~ ]", line, maxsplit=1)[0].lower().replace("_", "-"))
    return names


def with_dependencies(names: set[str]) -> set[str]:
    """`names` and everything they require (installed metadata), recursively."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for requirement in requires:
            if "extra ==" in requirement and "dataframe" not in requirement:
                continue
            todo.append(re.split(r"[\[=<>!~ ;(]", requirement, maxsplit=1)[0].lower().replace("_", "-"))
    return seen


def test_the_readers_install_covers_every_import_of_the_downloaded_notebooks():
    reader = ROOT / "requirements-reader.txt"
    provided = with_dependencies(requirement_names(reader))
    assert not {"jupyter-book", "sphinx", "pyspark", "django-static-mathjax"} & requirement_names(reader)
    distributions = {m: {d.lower().replace("_", "-") for d in ds}
                     for m, ds in metadata.packages_distributions().items()}
    optional = {"pyspark"}  # chapter 20's MLlib section: named in the file's comments
    assert "pip install pyspark" in reader.read_text(encoding="utf-8")
    missing = {}
    for path in NOTEBOOKS:
        for module in notebook_imports(path) - {"rankeval", "bookstyle"} - optional:
            if not distributions.get(module, set()) & provided:
                missing.setdefault(module, []).append(path.name)
    assert not missing, f"imports requirements-reader.txt does not provide: {missing}"
