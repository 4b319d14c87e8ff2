"""The PDF edition's build: jupyter-book's LaTeX builder, then a failure if no PDF came out.

    python tools/pdf_step.py JUPYTER_BOOK OUTPUT PDF [--config FILE]

The build starts from latexmk's record of the last one (kept in OUTPUT by `tasks.py`'s
clean_build) only if that one finished, and without its .tex and PDF files, so that no
file of an earlier build can pass for this one's; if it then fails (a kept .aux can name
a macro the preamble no longer defines), it is built once more from an empty folder.
After a failed or interrupted build (a half-written .aux could fail every later pass)
there is no stamp and the folder is emptied. The edition is dated with the last commit's
date (SOURCE_DATE_EPOCH, read by Sphinx and xdvipdfmx), so that an unchanged book gives
an unchanged .tex on any day.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

STAMP = "pdf-build-finished"


def commit_date_env() -> dict[str, str]:
    """The environment, with SOURCE_DATE_EPOCH the last commit's date (if not set)."""
    env = dict(os.environ)
    try:
        commit = subprocess.run(["git", "log", "-1", "--format=%ct"], capture_output=True,
                                text=True)
        if commit.returncode == 0 and commit.stdout.strip().isdigit():
            env.setdefault("SOURCE_DATE_EPOCH", commit.stdout.strip())
    except OSError:  # no git: the edition carries the build's date
        pass
    return env


def empty(output: Path) -> None:
    if output.is_symlink() or output.is_file():
        output.unlink()
    elif output.exists():
        shutil.rmtree(output)


def pdf_step(jupyter_book: str, output: Path, pdf: Path, config: list[str]) -> int:
    """Build the PDF edition into `output`; 0 if `pdf` was made, else an exit code."""
    env = commit_date_env()

    def build() -> int:
        return subprocess.run([jupyter_book, "build", ".", "--all", "--builder", "pdflatex",
                               "--path-output", str(output), *config], env=env).returncode

    finished = output / STAMP
    kept = finished.is_file()
    if kept:
        finished.unlink()
        for old in [*pdf.parent.glob("*.tex"), *pdf.parent.glob("*.pdf")]:
            old.unlink()
    else:
        empty(output)
    code = build()
    if code and kept:
        print("the PDF build that started from the last one failed; building it afresh",
              flush=True)
        empty(output)
        code = build()
    if code:
        return code
    if not pdf.is_file():
        print(f"the LaTeX build made no {pdf}", file=sys.stderr)
        return 1
    finished.write_text("the PDF build in this folder finished; the next starts from it\n")
    return 0


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3:
        sys.exit(__doc__)
    jupyter_book, output, pdf, *config = args
    sys.exit(pdf_step(jupyter_book, Path(output), Path(pdf), config))


if __name__ == "__main__":
    main()
