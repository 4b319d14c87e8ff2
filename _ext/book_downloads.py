"""A book you can run: the site serves its library and its notebooks, and says how.

At the start of an HTML build this extension puts into ``_build/html/_downloads/``:

* the ``rankeval`` wheel, built from this checkout with ``pip wheel --no-deps .``
  (distribution name ``rankeval-book``; the import name stays ``rankeval``);
* ``ranking-evaluation-notebooks.zip``: the checkout's layout, cut to what the
  notebooks need: ``chapters/`` (every chapter notebook with its stored outputs, and
  ``bookstyle.py``, the plotting style every chapter imports), ``guide/`` (the user
  guide's notebooks), ``data/`` (the Cranfield
  collection a chapter reads as ``../data/cranfield``), ``requirements.txt`` (the reader's
  install, requirements-reader.txt), ``BIBLIOGRAPHY.md``, the wheel,
  the licences (``LICENSE``: MIT, the code; ``LICENSE-text.md``: CC BY 4.0, the text)
  and a README with the commands below;
* the PDF edition, when a LaTeX build made it before: ``book_pdf``, by default
  ``_build/latex/ranking-evaluation.pdf``, where ``jupyter-book build . --builder
  pdflatex`` puts it. ``tasks.py check`` builds the PDF beside this build and sets
  ``book_pdf_attached_later = True``: the pages then link the PDF, and tasks.py copies
  it into ``_downloads/`` when the LaTeX build is done, before the website's tests
  (which fail if the linked file is not there).

Under the title of the landing page and of every chapter it adds a three-line
"Run it locally" box that links those files. Links are plain relative links to files of
the site, so the website still loads nothing from another host. Other builders (the
LaTeX/PDF edition) get no box.
"""

from __future__ import annotations

import posixpath
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.plain_notebook import bibliography_markdown, plain_text  # noqa: E402

logger = logging.getLogger(__name__)

FOLDER = "_downloads"
ZIP_NAME = "ranking-evaluation-notebooks.zip"
PDF_NAME = "ranking-evaluation.pdf"

README = """\
Ranking Evaluation, executable: the notebooks (student edition)

The chapters here hold their exercises without the solutions; each exercise's
self-check cell tells you whether a number is right. The solutions are on the website,
folded under each exercise.

Run them locally (Python 3.11 or newer), in this folder:

    python3 -m venv .venv && . .venv/bin/activate
    pip install -r requirements.txt {wheel} jupyterlab
    jupyter lab chapters/   # then open any chapter

The wheel installs the library `rankeval` (distribution name rankeval-book). Keep the
layout: the chapters import chapters/bookstyle.py and read data/ as ../data.

The notebooks' text is plain Markdown that Jupyter, JupyterLab and Colab render as
they are: the numbers the text quotes are filled in, equations, figures and exercises
carry their numbers (8.3), citations read (Author, Year) and point to BIBLIOGRAPHY.md,
and each solution is folded in a "Solution" block that opens on a click.

requirements.txt installs what the notebooks import. Chapter 20's Spark MLlib section
also needs pyspark (pip install pyspark) and a Java runtime.
"""


def _is_html(app: Sphinx) -> bool:
    return app.builder.format == "html"


def build_wheel(root: Path, target: Path) -> Path:
    """``pip wheel --no-deps`` of the checkout; returns the wheel's path in ``target``.

    Without build isolation first (no network needed when the environment's setuptools
    can build the project), else with it (pip fetches the build backend).
    """
    errors = []
    for isolation in (["--no-build-isolation"], []):
        with tempfile.TemporaryDirectory() as tmp:
            result = subprocess.run(
                [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                 "--disable-pip-version-check", *isolation, "-w", tmp, str(root)],
                capture_output=True, text=True,
            )  # fmt: skip
            wheels = sorted(Path(tmp).glob("rankeval_book-*.whl"))
            if result.returncode == 0 and len(wheels) == 1:
                return Path(shutil.copy2(wheels[0], target / wheels[0].name))
            errors.append(result.stdout[-1500:] + result.stderr[-1500:])
    raise ExtensionError("book_downloads: `pip wheel --no-deps .` failed:\n" + "\n".join(errors))


def build_zip(root: Path, target: Path, notebooks: list[str], wheel: Path) -> Path:
    """chapters/ (the student notebooks, plain: no MyST, no solutions; bookstyle.py),
    guide/ (plain notebooks), data/, the reader's requirements, the wheel, the licences,
    BIBLIOGRAPHY.md and a README."""
    sys.path.insert(0, str(root))
    from tools import editions

    path = target / ZIP_NAME
    top = "ranking-evaluation"
    files = [root / f"{docname}.ipynb" for docname in notebooks]
    files += [root / "chapters" / "bookstyle.py", root / "chapters" / "answers.json"]
    # the licences: the text under CC BY 4.0, the code under MIT
    files += [p for p in (root / "LICENSE", root / "LICENSE-text.md") if p.is_file()]
    if (root / "data").is_dir():
        files += sorted(p for p in (root / "data").rglob("*") if p.is_file())
    # the benchmark results that guide/evaluate_at_scale and chapter 20 read
    files += [p for p in [root / "benchmarks" / "distributed.json"] if p.is_file()]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for source in files:
            name = f"{top}/{source.relative_to(root).as_posix()}"
            if source.suffix == ".ipynb" and source.parent.name == "chapters":
                # the student notebooks: exercises without solutions (tools/editions.py),
                # made plain by tools/plain_notebook.plain
                zf.writestr(name, editions.student_text(source))
            elif source.suffix == ".ipynb":  # plain Markdown: no MyST roles, labels, fences
                zf.writestr(name, plain_text(source, root=root))
            elif source.name == "answers.json":  # without the cells that hold the answers
                zf.writestr(name, editions.shipped_answers_text())
            else:
                zf.write(source, name)
        # a reader's install: what the notebooks import, not the book's build
        zf.write(root / "requirements-reader.txt", f"{top}/requirements.txt")
        zf.writestr(f"{top}/BIBLIOGRAPHY.md", bibliography_markdown(root))
        zf.write(wheel, f"{top}/{wheel.name}")
        zf.writestr(f"{top}/README.txt", README.format(wheel=wheel.name))
    return path


def write_page_downloads(root: Path, outdir: Path) -> list[Path]:
    """The per-page ``.ipynb`` downloads (the download button serves ``_sources/``): each
    chapter and guide notebook there is replaced by its plain version."""
    written = []
    for folder in ("chapters", "guide"):
        for copy in sorted((Path(outdir) / "_sources" / folder).glob("*.ipynb")):
            source = Path(root) / folder / copy.name
            if source.is_file():
                copy.write_text(plain_text(source, root=root), encoding="utf-8")
                written.append(copy)
    return written


def page_downloads(app: Sphinx, exception) -> None:
    if exception is None and _is_html(app):
        write_page_downloads(Path(app.srcdir), Path(app.outdir))


def prepare(app: Sphinx) -> None:
    """Make the downloads before any page is written, so the box can link them."""
    app.env.book_downloads = {}
    if not _is_html(app):
        return
    root = Path(app.srcdir)
    target = Path(app.outdir) / FOLDER
    target.mkdir(parents=True, exist_ok=True)
    notebooks = sorted(
        str(p.relative_to(root).with_suffix("").as_posix())
        for folder in ("chapters", "guide")
        for p in (root / folder).glob("*.ipynb")
    )
    wheel = build_wheel(root, target)
    files = {"wheel": wheel.name, "zip": build_zip(root, target, notebooks, wheel).name}
    pdf = root / app.config.book_pdf
    if app.config.book_pdf_attached_later:
        files["pdf"] = PDF_NAME  # linked now; tasks.py check copies the file in
    elif pdf.is_file():
        shutil.copy2(pdf, target / PDF_NAME)
        files["pdf"] = PDF_NAME
    else:
        logger.info("book_downloads: no PDF edition in %s; the site links none", pdf)
    app.env.book_downloads = files


def _link(text: str, uri: str) -> nodes.reference:
    return nodes.reference("", text, refuri=uri, internal=False)


def run_box(app: Sphinx, docname: str) -> nodes.admonition:
    """The three-line "Run it locally" box for one page."""
    files = app.env.book_downloads
    here = posixpath.dirname(app.builder.get_target_uri(docname))
    base = posixpath.relpath(FOLDER, here or ".")

    def href(name: str) -> str:
        return posixpath.join(base, name)

    box = nodes.admonition(classes=["tip", "run-locally"])
    box += nodes.title("", "Run it locally")
    items = nodes.enumerated_list(enumtype="arabic", prefix="", suffix=".")

    first = nodes.paragraph()
    first += nodes.Text("Download ")
    first += _link("the student notebooks (zip: the exercises, no solutions)", href(files["zip"]))
    first += nodes.Text(" and unzip them")
    if "pdf" in files:
        first += nodes.Text("; or read ")
        first += _link("the PDF edition", href(files["pdf"]))
    first += nodes.Text(".")
    items += nodes.list_item("", first)

    second = nodes.paragraph()
    second += nodes.Text("In that folder: ")
    second += nodes.literal(
        text=f"pip install -r requirements.txt jupyterlab {files['wheel']}"
    )
    second += nodes.Text(" (")
    second += _link("the rankeval wheel", href(files["wheel"]))
    second += nodes.Text(" is in the zip).")
    items += nodes.list_item("", second)

    third = nodes.paragraph()
    third += nodes.Text("Then ")
    notebook = f"{docname}.ipynb" if docname.startswith("chapters/") else "chapters/"
    third += nodes.literal(text=f"jupyter lab {notebook}")
    third += nodes.Text(": every cell runs as printed here.")
    items += nodes.list_item("", third)

    box += items
    return box


def add_box(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if not _is_html(app) or not getattr(app.env, "book_downloads", None):
        return
    if not (docname == app.config.root_doc or docname.startswith("chapters/")):
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return
    title = next((i for i, n in enumerate(section.children) if isinstance(n, nodes.title)), -1)
    section.insert(title + 1, run_box(app, docname))


def setup(app: Sphinx) -> dict:
    app.add_config_value("book_pdf", f"_build/latex/{PDF_NAME}", "env")
    app.add_config_value("book_pdf_attached_later", False, "env")
    app.connect("builder-inited", prepare)
    app.connect("doctree-resolved", add_box)
    app.connect("build-finished", page_downloads)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
