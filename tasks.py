#!/usr/bin/env python3
"""The book's two commands (and the launch copies). Needs only Python 3.11+; everything
else it installs.

    python3 tasks.py build   # set up, then execute every chapter and build _build/html
    python3 tasks.py check   # set up, lint, then side by side: unit tests + doctests;
                             # nbval and the PDF edition (when TeX is installed), then
                             # the strict build, then the built website's tests
    python3 tasks.py launch-copies  # _build/launch: the tracked files, a Colab set-up
                             # cell first in every chapter (_ext/launch_copies.py)

Set-up is the same for both: a virtual environment in `.venv` with the pinned
requirements and `rankeval` installed in editable mode. It is redone only when
a requirements file or pyproject.toml changes (a stamp file records their hash).

`check` starts each step as soon as the steps it needs have passed (CI has two cores;
the unit tests need nothing, the strict build needs nbval's report, the website's tests
need the strict build with the PDF attached) and prints each step's wall time and CPU
time. nbval and the unit tests each run in two worker processes (pytest-xdist, each test
file whole in one worker, so one Spark JVM and one Dask cluster); the unit tests, on no
other step's path, at a lower CPU priority. Both commands let Python write bytecode
(__pycache__, ignored by git) even where PYTHONDONTWRITEBYTECODE is set, so that the
steps' many Python processes compile the checkout's modules once.

`check` executes every chapter once: nbval executes it and proves that every stored
output equals the fresh one, so the builds that follow render the stored outputs (a
generated copy of _config.yml with `execute_notebooks: off`) instead of executing each
chapter again; the execution page shows nbval's run times. `build` executes every
chapter itself. Both empty _build first, except _build/pdf: there latexmk keeps its
record of the last PDF build, so the XeLaTeX passes run only as far as the book's LaTeX
changed (when nothing did, none: xdvipdfmx alone makes the PDF file again). With
BOOK_REPOSITORY=owner/name (the Pages workflow sets it) both add the repository link and
the Binder and Colab launch buttons; the buttons open the branch BOOK_LAUNCH_BRANCH when
it is set (the workflow pushes the launch copies there), else BOOK_BRANCH.

`launch-copies` needs BOOK_REPOSITORY and writes the copies for the branch
BOOK_LAUNCH_BRANCH (default `launch`); it needs no set-up, only git.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
STAMP = VENV / ".setup-stamp"
SETUP_FILES = ["requirements.txt", "requirements-test.txt", "pyproject.toml"]

BOOK_BUILD = ["build", ".", "--all", "-W", "-n", "--keep-going"]
BUILD = ROOT / "_build"
NBVAL_REPORT = "_build/nbval.xml"  # relative to ROOT: the JUnit report of the nbval run
# The PDF edition: jupyter-book's LaTeX builder with XeLaTeX (Unicode text and Greek).
TEX_TOOLS = ["latexmk", "xelatex"]
TEX_PACKAGES = (
    "texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended tex-gyre "
    "latexmk texlive-xetex fonts-freefont-otf texlive-lang-greek cm-super"
)
# `check` builds the PDF beside the unit tests, in its own output folder (its own doctrees),
# which outlives `build` and `check` (see clean_build)
PDF_OUTPUT = "_build/pdf"
PDF = ROOT / PDF_OUTPUT / "_build" / "latex" / "ranking-evaluation.pdf"
# Tests of the built website (_build/html): never collected by the plain unit-test run.
SITE_TESTS = "tests/site"
# The unit tests are on no other step's path: `check` runs them at a lower CPU priority
# (POSIX `nice`), so that nbval -> strict build -> website tests, the longest chain of
# steps, gets the cores first; the unit tests take what that chain leaves.
NICE = ["nice", "-n", "4"] if shutil.which("nice") else []


def wait(process: subprocess.Popen) -> tuple[int, float]:
    """Exit code and CPU seconds (user + system, its waited-for children included)."""
    if not hasattr(os, "wait4"):  # not POSIX: no resource usage
        return process.wait(), float("nan")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = code = os.waitstatus_to_exitcode(status)
    return code, usage.ru_utime + usage.ru_stime


def run(step: str, *args: str | os.PathLike) -> None:
    """Run one step from the repository root; stop with its exit code on failure."""
    print(f"\n=== {step}", flush=True)
    start = time.perf_counter()
    code, cpu = wait(subprocess.Popen([str(a) for a in args], cwd=ROOT))
    seconds = time.perf_counter() - start
    if code != 0:
        print(f"=== {step}: FAILED (exit {code}) after {seconds:.0f} s", flush=True)
        sys.exit(code)
    print(f"=== {step}: ok in {seconds:.0f} s ({cpu:.0f} CPU-s)", flush=True)


def run_graph(steps: dict[str, tuple[list, list[str]]]) -> None:
    """Run steps ``name -> (command, names of the steps it needs)`` as soon as what they
    need has passed, side by side (CI has 2 cores); print each step's output in full
    when it ends. A step whose prerequisite failed does not run."""
    print(f"\n=== {' | '.join(steps)}: each as soon as what it needs has passed", flush=True)
    BUILD.mkdir(exist_ok=True)
    done = {step: threading.Event() for step in steps}
    codes: dict[str, int | None] = {}
    lock = threading.Lock()

    def one(number, step, args, needs):
        code = None  # not run
        try:
            for need in needs:
                done[need].wait()
            if any(codes.get(need) != 0 for need in needs):
                with lock:
                    print(f"\n=== {step}: not run ({', '.join(needs)} failed)", flush=True)
                return
            code = 1  # until the step has run and reported
            start = time.perf_counter()
            path = BUILD / f"step-{number}.log"
            with open(path, "w+", encoding="utf-8", errors="replace") as log:
                code, cpu = wait(subprocess.Popen([str(a) for a in args], cwd=ROOT,
                                                  stdout=log, stderr=subprocess.STDOUT))
                seconds = time.perf_counter() - start
                log.seek(0)
                with lock:
                    print(f"\n=== {step}", flush=True)
                    print(log.read(), end="", flush=True)
                    verdict = "ok" if code == 0 else f"FAILED (exit {code})"
                    print(f"=== {step}: {verdict} in {seconds:.0f} s ({cpu:.0f} CPU-s; "
                          f"started at {start - began:.0f} s)", flush=True)
        except Exception as error:  # a step that cannot start or report fails, loudly
            with lock:
                print(f"\n=== {step}: FAILED ({type(error).__name__}: {error})", flush=True)
        finally:  # whatever happened, the steps that wait for this one go on
            codes[step] = code
            done[step].set()

    began = time.perf_counter()
    threads = [threading.Thread(target=one, args=(number, step, args, needs))
               for number, (step, (args, needs)) in enumerate(steps.items())]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failed = [code for code in codes.values() if code]
    if failed or len(codes) < len(steps) or None in codes.values():
        sys.exit(failed[0] if failed else 1)


def book_config(*, execute: bool) -> list[str]:
    """jupyter-book's --config arguments: none, or a generated copy of _config.yml.

    The copy (in _build/) switches notebook execution off when nbval has just executed
    and checked every chapter, and adds the repository link and launch buttons when
    BOOK_REPOSITORY=owner/name is set. Without either, the plain _config.yml is used.
    """
    repository = os.environ.get("BOOK_REPOSITORY", "").strip()
    if execute and not repository:
        return []
    if repository and not re.fullmatch(r"[\w.-]+/[\w.-]+", repository):
        sys.exit(f"BOOK_REPOSITORY must be owner/name, got {repository!r}")
    target = BUILD / "_config.generated.yml"
    BUILD.mkdir(exist_ok=True)
    subprocess.run(
        [PY, "-c", GENERATE_CONFIG, ROOT / "_config.yml", target,
         "force" if execute else "off", repository,
         launch_branch(), NBVAL_REPORT, PDF.relative_to(ROOT),
         "later" if have_tex() else "none"],
        check=True, cwd=ROOT,
    )  # fmt: skip
    return ["--config", str(target)]


def launch_branch() -> str:
    """The branch the Binder and Colab buttons open (Jupyter Book's `repository.branch`)."""
    launch = os.environ.get("BOOK_LAUNCH_BRANCH", "").strip()
    return launch or os.environ.get("BOOK_BRANCH", "main")


# Run by the venv's Python (it has PyYAML): _config.yml -> the generated copy.
GENERATE_CONFIG = """
import sys, yaml
from pathlib import Path
source, target, execute, repository, branch, report, pdf, pdf_mode = sys.argv[1:9]
config = yaml.safe_load(open(source, encoding="utf-8"))
# jupyter-book finds local extensions relative to the config file: make them absolute
extensions = config["sphinx"]["local_extensions"]
for name, folder in extensions.items():
    extensions[name] = str((Path(source).parent / folder).resolve())
if execute == "off":
    config["execute"]["execute_notebooks"] = "off"
    config["sphinx"]["config"]["nbval_report"] = report
    config["sphinx"]["config"]["book_pdf"] = pdf
    # the PDF is built beside the website and attached to it afterwards (ATTACH_PDF)
    config["sphinx"]["config"]["book_pdf_attached_later"] = pdf_mode == "later"
if repository:
    config["repository"] = {"url": "https://github.com/" + repository,
                            "branch": branch, "path_to_book": ""}
    config["html"].update(use_repository_button=True, use_issues_button=True)
    config["launch_buttons"].update(binderhub_url="https://mybinder.org",
                                    colab_url="https://colab.research.google.com")
header = "# GENERATED by tasks.py from _config.yml for one build; edit _config.yml.\\n"
with open(target, "w", encoding="utf-8") as out:
    out.write(header + yaml.safe_dump(config, allow_unicode=True, sort_keys=False))
"""


# Run by the venv's Python: the LaTeX build, then a failure if it made no PDF. The build
# starts from latexmk's record of the last one (see clean_build) only if that one
# finished, and without its .tex and PDF files, so that no file of an earlier build can
# pass for this one's; if it then fails (a kept .aux can name a macro the preamble no
# longer defines), it is built once more from an empty folder. After a failed or
# interrupted build (a half-written .aux could fail every later pass) there is no stamp
# and the folder is emptied. The edition is dated with the last commit's date
# (SOURCE_DATE_EPOCH, read by Sphinx and xdvipdfmx), so that an unchanged book gives an
# unchanged .tex on any day.
PDF_STEP = """
import os, shutil, subprocess, sys
from pathlib import Path
jupyter_book, output, pdf, *config = sys.argv[1:]
output, pdf = Path(output), Path(pdf)
finished = output / "pdf-build-finished"
env = dict(os.environ)
try:
    commit = subprocess.run(["git", "log", "-1", "--format=%ct"], capture_output=True,
                            text=True)
    if commit.returncode == 0 and commit.stdout.strip().isdigit():
        env.setdefault("SOURCE_DATE_EPOCH", commit.stdout.strip())
except OSError:  # no git: the edition carries the build's date
    pass


def empty():
    if output.is_symlink() or output.is_file():
        output.unlink()
    elif output.exists():
        shutil.rmtree(output)


def build():
    return subprocess.run([jupyter_book, "build", ".", "--all", "--builder", "pdflatex",
                           "--path-output", str(output), *config], env=env).returncode


kept = finished.is_file()
if kept:
    finished.unlink()
    for old in [*pdf.parent.glob("*.tex"), *pdf.parent.glob("*.pdf")]:
        old.unlink()
else:
    empty()
code = build()
if code and kept:
    print("the PDF build that started from the last one failed; building it afresh",
          flush=True)
    empty()
    code = build()
if code:
    sys.exit(code)
if not pdf.is_file():
    sys.exit(f"the LaTeX build made no {pdf}")
finished.write_text("the PDF build in this folder finished; the next starts from it\\n")
"""


# Run by the venv's Python: the PDF the website's pages link, copied in once both are built.
ATTACH_PDF = """
import shutil, sys
from pathlib import Path
pdf, target = map(Path, sys.argv[1:])
if not pdf.is_file():
    sys.exit(f"no PDF edition at {pdf}")
shutil.copy2(pdf, target)
print(f"{pdf} -> {target}")
"""


def have_tex() -> bool:
    return all(shutil.which(tool) for tool in TEX_TOOLS)


def setup() -> None:
    """Create .venv and install the pinned requirements, unless already current."""
    digest = hashlib.sha256()
    for name in SETUP_FILES:
        digest.update((ROOT / name).read_bytes())
    wanted = digest.hexdigest()
    if PY.exists() and STAMP.exists() and STAMP.read_text().strip() == wanted:
        print("=== set-up: .venv is current", flush=True)
        return
    if not PY.exists():
        print("=== set-up: creating .venv", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    pip = [PY, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    run("set-up: pinned requirements", *pip, "-r", "requirements-test.txt")
    run("set-up: rankeval (editable)", *pip, "--no-deps", "-e", ".")
    STAMP.write_text(wanted + "\n")


def allow_bytecode_cache() -> None:
    """Let the steps' Python processes keep compiled bytecode of the checkout's modules.

    Some environments (this project's CI image among them) set PYTHONDONTWRITEBYTECODE,
    and then each of the steps' Python processes (test workers, kernels, builds) compiles
    rankeval, the tests and _ext again, and pytest rewrites the asserts of every test
    file again in every test process. The installed packages are compiled by pip either
    way. The __pycache__ folders this writes are ignored by git.
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def clean_build() -> None:
    """Empty _build, except the PDF edition's folder (PDF_OUTPUT).

    latexmk keeps there its record of the last PDF build: a checksum of every file the
    XeLaTeX passes read (the .tex Sphinx wrote afresh, its figures, the TeX packages)
    and the cross-references the passes wrote. When none of those files changed, the
    XeLaTeX passes' output is up to date and latexmk only remakes the PDF file from it
    (xdvipdfmx); when the book changed, the passes start from the last cross-references
    instead of none, and latexmk still repeats them until they settle. The LaTeX sources
    themselves are always written afresh (`--all`). The PDF step (PDF_STEP) empties the
    folder itself unless the last PDF build finished.
    """
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
    setup()
    allow_bytecode_cache()
    clean_build()
    run("book: execute every chapter and build the website", BIN / "jupyter-book", *BOOK_BUILD,
        *book_config(execute=True))
    index = ROOT / "_build" / "html" / "index.html"
    print(f"\nThe book is built. Open it in a browser:\n    {index.as_uri()}")


def check() -> None:
    setup()
    allow_bytecode_cache()
    clean_build()
    run("lint: ruff", PY, "-m", "ruff", "check", ".")
    # nbval executes every chapter and proves each stored output equals the fresh one, so
    # every build below renders the stored outputs instead of executing them again.
    config = book_config(execute=False)
    tests = "tests: rankeval unit tests and doctests"
    nbval = "nbval: every stored output equals a fresh execution"
    pdf = "pdf: the PDF edition (LaTeX builder, XeLaTeX)"
    attach = "attach: the PDF edition into the website the pages link it from"
    book = "book: strict build (warnings are errors; the outputs nbval checked)"
    site = "site: the built website, as files and in headless Chromium"
    steps = {
        tests: ([*NICE, PY, "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile"], []),
        nbval: ([PY, "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile",
                 "--nbval", "chapters",
                 "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
                 f"--junitxml={NBVAL_REPORT}"], []),
    }  # fmt: skip
    if have_tex():
        # latexmk's XeLaTeX mode: the passes write .xdv and xdvipdfmx makes the PDF once,
        # instead of every pass embedding the figures again (Sphinx's Makefile advises it).
        # xdvipdfmx at zlib level 6 instead of its default 9: it re-compresses every
        # figure, and level 9 takes about twice as long for a PDF a few per cent smaller
        # (time both on the .xdv in _build/pdf/_build/latex with `xdvipdfmx -z 6` / `-z 9`).
        # Sphinx's Makefile (`make all-pdf`) expands the variable once, hence the `$$`.
        # The step fails if no PDF came out.
        os.environ.setdefault(
            "LATEXMKOPTS", "-xelatex -e '$$xdvipdfmx=q/xdvipdfmx -E -z 6 -o %D %O %S/'"
        )
        steps[pdf] = ([PY, "-c", PDF_STEP, BIN / "jupyter-book", PDF_OUTPUT, PDF, *config], [])
    else:
        message = ("no TeX (latexmk, xelatex), so no PDF edition; to build it, install "
                   f"the Debian packages {TEX_PACKAGES}")
        if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
            sys.exit(f"=== pdf: FAILED: {message} (.ci/run installs them)")
        print(f"\n=== pdf: skipped: {message}", flush=True)
    # The strict build renders what nbval checked (and shows its run times); its pages
    # link the PDF, which is copied in when both are built (the LaTeX build need not hold
    # up the strict build). The website's tests read that build (not a second one):
    # offline, complete (every link, the PDF's too, resolves), and working in Chromium.
    # Without Chromium they skip, saying why; with CI=true they fail instead. The unit
    # tests need nothing and run beside all of it.
    steps[book] = ([BIN / "jupyter-book", *BOOK_BUILD, *config], [nbval])
    if have_tex():
        downloads = BUILD / "html" / "_downloads" / PDF.name
        steps[attach] = ([PY, "-c", ATTACH_PDF, PDF, downloads], [pdf, book])
    steps[site] = ([PY, "-m", "pytest", "-q", SITE_TESTS], [attach if have_tex() else book])
    run_graph(steps)
    print("\nAll checks passed.")


def launch_copies() -> None:
    """The launch branch's files in _build/launch (see _ext/launch_copies.py)."""
    repository = os.environ.get("BOOK_REPOSITORY", "").strip()
    if not repository:
        sys.exit("launch-copies needs BOOK_REPOSITORY=owner/name")
    branch = os.environ.get("BOOK_LAUNCH_BRANCH", "").strip() or "launch"
    out = BUILD / "launch"
    shutil.rmtree(out, ignore_errors=True)
    # the Python running this file (python3): the module needs only the standard library
    run(f"launch copies for {repository}, branch {branch}", sys.executable,
        ROOT / "_ext" / "launch_copies.py", out, repository, branch)


COMMANDS = {"build": build, "check": check, "setup": setup, "launch-copies": launch_copies}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    COMMANDS[sys.argv[1]]()
