"""A book you can run: the site serves its library and its notebooks, and says how.

At the start of an HTML build this extension puts into ``_build/html/_downloads/``:

* the ``rankeval`` wheel, built from this checkout with ``pip wheel --no-deps .``
  (distribution name ``rankeval-book``; the import name stays ``rankeval``);
* ``ranking-evaluation-notebooks.zip``: the checkout's layout, cut to what the
  notebooks need: ``chapters/`` (every chapter notebook with its stored outputs, and
  ``bookstyle.py``, the plotting style every chapter imports), ``guide/`` (the user
  guide's notebooks), ``data/`` (the Cranfield
  collection a chapter reads as ``../data/cranfield``), ``requirements.txt``, the wheel,
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
from export_notebooks import exported_text  # chapters that read well outside the site
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

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
    pip install -r requirements.txt {wheel} jupyterlab jupyterlab-myst
    jupyter lab chapters/   # then open any chapter

The wheel installs the library `rankeval` (distribution name rankeval-book). Keep the
layout: the chapters import chapters/bookstyle.py and read data/ as ../data.

The text cells are MyST Markdown: jupyterlab-myst shows their maths, notes and folded
solutions as the website does. Numbers glued into the text, {{glue:text}}`name`, are
filled in only on the website and in the PDF; in Jupyter each names a value that a cell
of the chapter computes.
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
    """chapters/ (the student notebooks and bookstyle.py), guide/, data/, requirements.txt,
    the wheel, a README."""
    sys.path.insert(0, str(root))
    from tools import editions

    path = target / ZIP_NAME
    top = "ranking-evaluation"
    files = [root / f"{docname}.ipynb" for docname in notebooks]
    files += [root / "chapters" / "bookstyle.py", root / "chapters" / "answers.json",
              root / "requirements.txt"]  # fmt: skip
    # the licences: the text under CC BY 4.0, the code under MIT
    files += [p for p in (root / "LICENSE", root / "LICENSE-text.md") if p.is_file()]
    if (root / "data").is_dir():
        files += sorted(p for p in (root / "data").rglob("*") if p.is_file())
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for source in files:
            name = f"{top}/{source.relative_to(root).as_posix()}"
            if source.suffix == ".ipynb" and source.parent.name == "chapters":
                # the student notebooks: exercises without solutions (tools/editions.py)
                zf.writestr(name, editions.student_text(source))
            elif source.suffix == ".ipynb":  # numbers instead of glue roles, no MyST fences
                zf.writestr(name, exported_text(source))
            elif source.name == "answers.json":  # without the cells that hold the answers
                zf.writestr(name, editions.shipped_answers_text())
            else:
                zf.write(source, name)
        zf.write(wheel, f"{top}/{wheel.name}")
        zf.writestr(f"{top}/README.txt", README.format(wheel=wheel.name))
    return path


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
        text=f"pip install -r requirements.txt jupyterlab jupyterlab-myst {files['wheel']}"
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
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
