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

A PDF with an unresolved reference fails the step: latexmk (which exits 0 then) prints
"??" for each, e.g. "Exercise ??", so the last LaTeX pass's log (the .log beside the PDF)
is read for LaTeX's "Reference `LABEL' on page N undefined" warnings.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

STAMP = "pdf-build-finished"

# LaTeX's (and hyperref's, natbib's) warning for a reference or citation to a label that
# no \label defines: "LaTeX Warning: Reference `sec:x' on page 4 undefined on input line
# 80.", "... Hyper reference `sec:x' on page 4 undefined ...", "... Citation `key' ...".
UNDEFINED = re.compile(
    r"(Hyper reference|Reference|Citation) `([^']*)' on page (\d+) undefined"
)
# LaTeX's summary at the end of a pass that had any of them, and latexmk's
SUMMARY = re.compile(
    r"LaTeX Warning: There were undefined (references|citations)"
    r"|Latex failed to resolve \d+ (reference|citation)"
)


def unresolved_references(log: str) -> list[tuple[str, str, int]]:
    """The references a LaTeX log reports undefined, as (kind, label, page), in order.

    Parameters
    ----------
    log : str
        The text of a LaTeX run's .log file (or of its terminal output).

    Returns
    -------
    list of (str, str, int)
        One entry per distinct warning: the kind ("Reference", "Hyper reference" or
        "Citation"), the label as LaTeX saw it, and the page, in the log's order.

    Raises
    ------
    ValueError
        If the log says "There were undefined references" (or citations) but names none
        of them in a form read here, so that such a log cannot pass for a clean one.

    Notes
    -----
    TeX breaks its log lines at 79 characters, anywhere, labels and words included
    ("on page\\n 447 undefine\\nd"). A warning is one logical line, so the line breaks are
    removed before the warnings are read.

    Example
    -------
    >>> unresolved_references("LaTeX Warning: Reference `a:b' on page 3 undefined on "
    ...                       "input line 9.\\n")
    [('Reference', 'a:b', 3)]
    """
    text = re.sub(r"\r?\n", "", log)
    found = dict.fromkeys(
        (kind, label, int(page)) for kind, label, page in UNDEFINED.findall(text)
    )
    if not found and SUMMARY.search(text):
        raise ValueError(
            "the LaTeX log says there were undefined references but names none of them"
        )
    return list(found)


def check_references(log_file: Path) -> int:
    """0 if the LaTeX log `log_file` reports no unresolved reference, else 1 (and a list)."""
    if not log_file.is_file():
        print(f"the LaTeX build left no log {log_file} to check its references in",
              file=sys.stderr)
        return 1
    log = log_file.read_text(encoding="utf-8", errors="replace")
    try:
        unresolved = unresolved_references(log)
    except ValueError as error:
        print(f"{log_file}: {error}", file=sys.stderr)
        return 1
    if not unresolved:
        return 0
    labels = list(dict.fromkeys(label for _, label, _ in unresolved))
    print(f"{log_file}: LaTeX could not resolve {len(labels)} reference(s), printed as ??:",
          file=sys.stderr)
    for kind, label, page in unresolved:
        print(f"  {kind} `{label}' on page {page}", file=sys.stderr)
    return 1


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
    """Build the PDF edition into `output`; 0 if `pdf` was made with every reference
    resolved, else an exit code."""
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
    return check_references(pdf.with_suffix(".log"))


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3:
        sys.exit(__doc__)
    jupyter_book, output, pdf, *config = args
    sys.exit(pdf_step(jupyter_book, Path(output), Path(pdf), config))


if __name__ == "__main__":
    main()
