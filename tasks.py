#!/usr/bin/env python3
"""The book's two commands. Needs only Python 3.11+; everything else it installs.

    python3 tasks.py build          # set up, execute every notebook, build _build/html
    python3 tasks.py check          # set up, lint, then every check (CONTRIBUTING.md)
    python3 tasks.py setup          # only the set-up: .venv, pinned requirements, rankeval,
                                    # axe-core, mathjax-full and reveal.js (npm) for the
                                    # tests and the slides
    python3 tasks.py slides         # the chapters' slide decks into the built website
    python3 tasks.py launch-copies  # _build/launch: the files the Binder/Colab buttons open
    python3 tasks.py editions       # _build/editions: the student notebooks, and the
                                    # teacher's edition (solutions, marking notes; HTML)
    python3 tasks.py assignments    # _build/assignments: Otter-Grader assignments of every
                                    # chapter, each teacher's solution graded (full marks)

Set-up makes `.venv` with the pinned requirements and `rankeval` (editable), again only
when a requirements file or pyproject.toml changes, and puts the pinned axe-core,
mathjax-full and reveal.js from the npm registry into .venv/axe, .venv/mathjax and
.venv/reveal. `check` runs each step of its graph
(below) as soon as the steps it needs have passed; the programs it runs are in tools/.
CONTRIBUTING.md says what every step checks and why the graph is shaped as it is.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # tools/, also when this file is imported by the tests
from tools import taskgraph  # noqa: E402

VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
TOOLS = ROOT / "tools"
STAMP = VENV / ".setup-stamp"
SETUP_FILES = ["requirements.txt", "requirements-test.txt", "pyproject.toml"]
BOOK_BUILD = ["build", ".", "--all", "-W", "-n", "--keep-going"]
BUILD = ROOT / "_build"
NBVAL_REPORT = "_build/nbval.xml"  # relative to ROOT: nbval's JUnit report
NOTEBOOKS = ["chapters", "guide"]  # what nbval executes and checks
TEX_TOOLS = ["latexmk", "xelatex"]
TEX_PACKAGES = (
    "texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended tex-gyre "
    "latexmk texlive-xetex fonts-freefont-otf texlive-lang-greek cm-super"
)
PDF_OUTPUT = "_build/pdf"  # kept by clean_build: latexmk's record of the last PDF build
PDF = ROOT / PDF_OUTPUT / "_build" / "latex" / "ranking-evaluation.pdf"
# axe-core, the accessibility engine tests/site/test_a11y.py runs in Chromium: this pinned
# version from the npm registry, installed by `setup` into AXE_DIR (ignored by git)
AXE_VERSION = "4.14.1"
AXE_DIR = VENV / "axe"
# Node packages from the npm registry, each installed by `setup` into its folder (ignored
# by git): mathjax-full, the MathJax the website serves, typesets every formula of the
# downloaded notebooks in tests/test_exports.py; reveal.js draws the slide decks
# (tools/slides.py)
NODE_PACKAGES = {"mathjax": ("mathjax-full", "3.2.2"), "reveal": ("reveal.js", "5.2.1")}
REVEAL_DIST = VENV / "reveal" / "node_modules" / "reveal.js" / "dist"
SLIDES = "slides: a reveal.js deck per chapter in the website (tools/slides.py)"
SITE_TESTS = "tests/site"  # the built website's tests: never in the plain unit-test run
# the unit tests are on no other step's path: a lower CPU priority (POSIX nice)
NICE = ["nice", "-n", "4"] if shutil.which("nice") else []


run = functools.partial(taskgraph.run, cwd=ROOT)  # one step; stop if it fails


def launch_branch() -> str:
    """The branch the Binder and Colab buttons open (Jupyter Book's `repository.branch`)."""
    launch = os.environ.get("BOOK_LAUNCH_BRANCH", "").strip()
    return launch or os.environ.get("BOOK_BRANCH", "main")


def book_config(*, execute: bool) -> list[str]:
    """jupyter-book's --config arguments: none, or a copy of _config.yml made by
    tools/generate_config.py (no execution after nbval; BOOK_REPOSITORY's links)."""
    repository = os.environ.get("BOOK_REPOSITORY", "").strip()
    if execute and not repository:
        return []
    if repository and not re.fullmatch(r"[\w.-]+/[\w.-]+", repository):
        sys.exit(f"BOOK_REPOSITORY must be owner/name, got {repository!r}")
    target = BUILD / "_config.generated.yml"
    BUILD.mkdir(exist_ok=True)
    subprocess.run(
        [PY, TOOLS / "generate_config.py", ROOT / "_config.yml", target,
         "force" if execute else "off", repository, launch_branch(), NBVAL_REPORT,
         PDF.relative_to(ROOT), "later" if have_tex() else "none"],
        check=True, cwd=ROOT,
    )  # fmt: skip
    return ["--config", str(target)]


def in_ci() -> bool:
    """CI=true: a check that cannot run here fails instead of being skipped."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def have_tex() -> bool:
    return all(shutil.which(tool) for tool in TEX_TOOLS)


def setup() -> None:
    """Create .venv and install the pinned requirements, unless already current; then
    axe-core (setup_axe)."""
    digest = hashlib.sha256()
    for name in SETUP_FILES:
        digest.update((ROOT / name).read_bytes())
    wanted = digest.hexdigest()
    if PY.exists() and STAMP.exists() and STAMP.read_text().strip() == wanted:
        print("=== set-up: .venv is current", flush=True)
    else:
        if not PY.exists():
            print("=== set-up: creating .venv", flush=True)
            venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        pip = [PY, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        run("set-up: pinned requirements", *pip, "-r", "requirements-test.txt")
        run("set-up: rankeval (editable)", *pip, "--no-deps", "-e", ".")
        STAMP.write_text(wanted + "\n")
    setup_axe()
    setup_node_packages()


def setup_axe() -> None:
    """axe-core AXE_VERSION from the npm registry into AXE_DIR, unless already there.
    Without npm the site's accessibility test is skipped (and says so); in CI, where
    .ci/run installs Node.js and npm, that is a failure."""
    installed = AXE_DIR / "node_modules" / "axe-core" / "package.json"
    if installed.is_file() and json.loads(installed.read_text())["version"] == AXE_VERSION:
        print(f"=== set-up: axe-core {AXE_VERSION} is current", flush=True)
        return
    npm = shutil.which("npm")
    if npm is None:
        message = (f"no npm, so no axe-core {AXE_VERSION} for the website's accessibility "
                   "test; install Debian's nodejs and npm")
        if in_ci():
            sys.exit(f"=== set-up: FAILED: {message} (.ci/run installs them)")
        print(f"\n=== set-up: skipped: {message}", flush=True)
        return
    run(f"set-up: axe-core {AXE_VERSION} (npm)", npm, "install", "--prefix", AXE_DIR,
        "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error",
        f"axe-core@{AXE_VERSION}")


def setup_node_packages() -> None:
    """NODE_PACKAGES from the npm registry into .venv/NAME, unless already there. Without
    npm, what needs them is skipped and says so; in CI that is a failure."""
    for folder, (package, version) in NODE_PACKAGES.items():
        installed = VENV / folder / "node_modules" / package / "package.json"
        if installed.is_file() and json.loads(installed.read_text())["version"] == version:
            print(f"=== set-up: {package} {version} is current", flush=True)
            continue
        npm = shutil.which("npm")
        if npm is None:
            message = f"no npm, so no {package} {version}; install Debian's nodejs and npm"
            if in_ci():
                sys.exit(f"=== set-up: FAILED: {message} (.ci/run installs them)")
            print(f"\n=== set-up: skipped: {message}", flush=True)
            continue
        run(f"set-up: {package} {version} (npm)", npm, "install", "--prefix", VENV / folder,
            "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error",
            f"{package}@{version}")


def slides_step() -> list | None:
    """The command that writes the slide decks into _build/html, or None (said) without
    reveal.js."""
    if not (REVEAL_DIST / "reveal.js").is_file():
        message = "no reveal.js in .venv/reveal (npm), so no slide decks"
        if in_ci():
            sys.exit(f"=== slides: FAILED: {message}")
        print(f"\n=== slides: skipped: {message}", flush=True)
        return None
    return [PY, TOOLS / "slides.py", BUILD / "html", REVEAL_DIST]


def slides() -> None:
    """The slide decks of an existing build (python3 tasks.py build first)."""
    setup()
    if not (BUILD / "html" / "index.html").is_file():
        sys.exit("no website in _build/html: run python3 tasks.py build first")
    command = slides_step()
    if command:
        run(SLIDES, *command)


def prepare() -> None:
    """Set up; let the steps' many Python processes compile the checkout's modules once
    (__pycache__, ignored by git) even where PYTHONDONTWRITEBYTECODE is set; clean."""
    setup()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    clean_build()


def clean_build() -> None:
    """Empty _build, except PDF_OUTPUT (latexmk's record of the last PDF build)."""
    if not BUILD.is_dir():
        return
    kept = BUILD / Path(PDF_OUTPUT).relative_to("_build")
    for path in BUILD.iterdir():
        if path == kept:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def build() -> None:
    prepare()
    run("book: execute every notebook and build the website", BIN / "jupyter-book",
        *BOOK_BUILD, *book_config(execute=True))
    command = slides_step()
    if command:
        run(SLIDES, *command)
    index = ROOT / "_build" / "html" / "index.html"
    print(f"\nThe book is built. Open it in a browser:\n    {index.as_uri()}")


def check() -> None:
    prepare()
    run("lint: ruff", PY, "-m", "ruff", "check", ".")
    config = book_config(execute=False)  # the builds render the outputs nbval checked
    tests = "tests: rankeval unit tests and doctests"
    nbval = "nbval: every stored output equals a fresh execution"
    pdf = "pdf: the PDF edition (LaTeX builder, XeLaTeX)"
    attach = "attach: the PDF edition into the website the pages link it from"
    book = "book: strict build (warnings are errors; the outputs nbval checked)"
    site = "site: the built website, as files and in headless Chromium"
    xdist = ["-n", "2", "--dist", "loadfile"]  # two workers, each file whole in one
    skipped = []  # notebooks nbval leaves out here, each said (in CI: a failure instead)
    if not shutil.which("java"):  # chapter 20 runs Spark MLlib, which needs Java 17+
        message = ("no Java runtime, so nbval leaves out chapters/20_evaluating_at_scale"
                   " (it runs Spark MLlib); install Debian's default-jre-headless")
        if in_ci():
            sys.exit(f"=== nbval: FAILED: {message} (.ci/run installs it)")
        print(f"\n=== nbval: {message}", flush=True)
        skipped = ["--ignore", "chapters/20_evaluating_at_scale.ipynb"]
    steps = {
        tests: ([*NICE, PY, "-m", "pytest", "-q", *xdist], []),
        nbval: ([PY, "-m", "pytest", "-q", *xdist, "--nbval", *NOTEBOOKS, *skipped,
                 "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
                 f"--junitxml={NBVAL_REPORT}"], []),
    }  # fmt: skip
    if have_tex():
        # XeLaTeX passes write .xdv; xdvipdfmx makes the PDF once, at zlib level 6
        os.environ.setdefault(
            "LATEXMKOPTS", "-xelatex -e '$$xdvipdfmx=q/xdvipdfmx -E -z 6 -o %D %O %S/'"
        )
        steps[pdf] = ([PY, TOOLS / "pdf_step.py", BIN / "jupyter-book", PDF_OUTPUT, PDF,
                       *config], [])
    else:
        message = ("no TeX (latexmk, xelatex), so no PDF edition; to build it, install "
                   f"the Debian packages {TEX_PACKAGES}")
        if in_ci():
            sys.exit(f"=== pdf: FAILED: {message} (.ci/run installs them)")
        print(f"\n=== pdf: skipped: {message}", flush=True)
    steps[book] = ([BIN / "jupyter-book", *BOOK_BUILD, *config], [nbval])
    if have_tex():
        downloads = BUILD / "html" / "_downloads" / PDF.name
        steps[attach] = ([PY, TOOLS / "attach_pdf.py", PDF, downloads], [pdf, book])
    site_needs = [attach if have_tex() else book]
    deck = slides_step()
    if deck:
        steps[SLIDES] = (deck, [book])
        site_needs.append(SLIDES)
    steps[site] = ([PY, "-m", "pytest", "-q", SITE_TESTS], site_needs)
    taskgraph.run_graph(steps, BUILD, ROOT)
    print("\nAll checks passed.")


def launch_copies() -> None:
    """The launch branch's files in _build/launch (tools/launch_copies.py, stdlib only)."""
    repository = os.environ.get("BOOK_REPOSITORY", "").strip()
    if not repository:
        sys.exit("launch-copies needs BOOK_REPOSITORY=owner/name")
    branch = os.environ.get("BOOK_LAUNCH_BRANCH", "").strip() or "launch"
    out = BUILD / "launch"
    shutil.rmtree(out, ignore_errors=True)
    run(f"launch copies for {repository}, branch {branch}", sys.executable,
        TOOLS / "launch_copies.py", out, repository, branch)


def editions() -> None:
    """The student set and the teacher's edition in _build/editions (tools/editions.py):
    student/chapters (no solutions: what the site's zip and downloads hold),
    teacher/chapters (every solution and its marking notes) and teacher-html/."""
    setup()
    out = BUILD / "editions"
    shutil.rmtree(out, ignore_errors=True)
    run("editions: student notebooks and the teacher's edition", PY, TOOLS / "editions.py",
        out, "--html")


def assignments() -> None:
    """Otter-Grader assignments of every chapter with self-checks in _build/assignments
    (tools/autograde.py), each teacher's solution graded: it must get full marks. The
    unit tests do one chapter (tests/test_autograde.py); this does all (minutes)."""
    setup()
    out = BUILD / "assignments"
    shutil.rmtree(out, ignore_errors=True)
    run("assignments: otter assign, then grade every teacher's solution", PY,
        TOOLS / "autograde.py", out, "--grade")


COMMANDS = {"build": build, "check": check, "setup": setup, "launch-copies": launch_copies,
            "slides": slides, "editions": editions, "assignments": assignments}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    COMMANDS[sys.argv[1]]()
