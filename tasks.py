#!/usr/bin/env python3
"""The book's two commands. Needs only Python 3.11+; everything else it installs.

    python3 tasks.py build   # set up, then execute every chapter and build _build/html
    python3 tasks.py check   # set up, then lint, unit tests + doctests, nbval, strict build,
                             # and the built website's tests (files and a headless browser)

Set-up is the same for both: a virtual environment in `.venv` with the pinned
requirements and `rankeval` installed in editable mode. It is redone only when
a requirements file or pyproject.toml changes (a stamp file records their hash).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
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
# Tests of the built website (_build/html): never collected by the plain unit-test run.
SITE_TESTS = "tests/site"


def run(step: str, *args: str | os.PathLike) -> None:
    """Run one step from the repository root; stop with its exit code on failure."""
    print(f"\n=== {step}", flush=True)
    start = time.perf_counter()
    result = subprocess.run([str(a) for a in args], cwd=ROOT)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        print(f"=== {step}: FAILED (exit {result.returncode}) after {seconds:.0f} s", flush=True)
        sys.exit(result.returncode)
    print(f"=== {step}: ok in {seconds:.0f} s", flush=True)


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


def build() -> None:
    setup()
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    run("book: execute every chapter and build the website", BIN / "jupyter-book", *BOOK_BUILD)
    index = ROOT / "_build" / "html" / "index.html"
    print(f"\nThe book is built. Open it in a browser:\n    {index.as_uri()}")


def check() -> None:
    setup()
    run("lint: ruff", PY, "-m", "ruff", "check", ".")
    run("tests: rankeval unit tests and doctests", PY, "-m", "pytest", "-q")
    run(
        "nbval: every stored output equals a fresh execution",
        PY, "-m", "pytest", "-q", "--nbval", "chapters",
        "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
    )
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    run("book: strict build (warnings are errors)", BIN / "jupyter-book", *BOOK_BUILD)
    # On that build (not a second one): offline, complete, and working in Chromium.
    # Without Chromium these tests skip, saying why; with CI=true they fail instead.
    run("site: the built website, as files and in headless Chromium", PY, "-m", "pytest",
        "-q", SITE_TESTS)
    print("\nAll checks passed.")


COMMANDS = {"build": build, "check": check, "setup": setup}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    COMMANDS[sys.argv[1]]()
