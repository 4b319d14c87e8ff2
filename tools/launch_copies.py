"""The launch copies: the repository's files with a Colab set-up cell in every chapter.

A plain module, standard library only, run by `python3 tasks.py launch-copies` and
imported by the tests.

Why a launch branch exists: Colab opens one .ipynb file from GitHub, and nothing in
that file says where the `rankeval` library, `chapters/bookstyle.py` and `data/` are.
The Pages workflow knows the repository, so it writes it into copies of the chapters,
on a branch of their own (`launch`), and the site's Binder and Colab buttons open that
branch. Each copy starts with one extra code cell that, on Colab only, downloads the
branch, installs `rankeval` with the chapters' imports (`.[book]`) and moves into
the notebook's folder (`chapters/` or `guide/`); everywhere else it does nothing. The notebooks on main, which nbval checks
byte for byte, stay unchanged.

    python3 tools/launch_copies.py OUT OWNER/NAME BRANCH
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.plain_notebook import plain, site_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# where the set-up cell unpacks the repository on Colab
TARGET = "/content/ranking-evaluation"
SETUP_ID = "colab-setup"

SETUP = """\
# Colab only: download the book's repository ({repository}, branch {branch}),
# install rankeval with what the notebooks import, and work in its {folder} folder
# (for `import bookstyle` and ../data). Anywhere else this cell does nothing.
import sys

if "google.colab" in sys.modules:
    import os, shutil, subprocess, tempfile, urllib.request, zipfile

    book = {target}
    if not os.path.exists(book):  # once per Colab session
        archive, _ = urllib.request.urlretrieve({url})
        unpacked = tempfile.mkdtemp()
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(unpacked)
        [top] = os.listdir(unpacked)  # the archive's one folder: REPO-BRANCH/
        # install first, move into place after: if pip fails, running the cell again
        # starts over instead of finding the folder and skipping the install
        pip = [sys.executable, "-m", "pip", "install", "-q",
               os.path.join(unpacked, top) + "[book]"]
        subprocess.run(pip, check=True)
        shutil.move(os.path.join(unpacked, top), book)
    here = os.path.join(book, {folder_literal})
    os.chdir(here)
    if sys.path[0] != here:
        sys.path.insert(0, here)
"""
# the folders whose notebooks get the cell (each notebook works in its own folder)
FOLDERS = ("chapters", "guide")


def setup_cell(repository: str, branch: str, target: str = TARGET,
               folder: str = "chapters") -> dict:
    """The set-up cell for a notebook in `folder` of `repository` (owner/name) on `branch`."""
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repository):
        raise ValueError(f"repository must be owner/name, got {repository!r}")
    if not re.fullmatch(r"[\w./-]+", branch):
        raise ValueError(f"not a branch name: {branch!r}")
    url = f"https://github.com/{repository}/archive/refs/heads/{branch}.zip"
    if folder not in FOLDERS:
        raise ValueError(f"no set-up cell for notebooks in {folder!r}")
    source = SETUP.format(repository=repository, branch=branch, folder=folder,
                          folder_literal=json.dumps(folder), target=json.dumps(target),
                          url=json.dumps(url))  # "..." literals
    return {"cell_type": "code", "execution_count": None, "id": SETUP_ID,
            "metadata": {"colab_setup": True}, "outputs": [],
            "source": source.splitlines(keepends=True)}  # fmt: skip


def tracked(root: Path) -> list[str]:
    """The files git tracks in `root`, as paths relative to it."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True,
                            encoding="utf-8")  # fmt: skip
    if listed.returncode != 0:
        raise RuntimeError(f"git ls-files failed in {root}: {listed.stderr.strip()}")
    return [name for name in listed.stdout.split("\0") if name]


def make(root: Path, out: Path, repository: str, branch: str, *, target: str = TARGET) -> None:
    """Copy the tracked files of `root` into `out`, the set-up cell first in every chapter.

    A tracked file missing from the working tree (deleted, not yet committed) is left out,
    and so is ``.github/``: GitHub refuses a push by the workflow's token that creates or
    changes a workflow file, and the launch branch needs none.
    """
    cells = {folder: setup_cell(repository, branch, target, folder) for folder in FOLDERS}
    root, out = Path(root), Path(out)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty; remove it first")
    for name in tracked(root):
        source, copy = root / name, out / name
        if not source.is_file() or name.startswith(".github/"):
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        folder = Path(name).parent.as_posix()
        if folder in FOLDERS and name.endswith(".ipynb"):
            notebook = json.loads(source.read_text(encoding="utf-8"))
            if any(c.get("id") == SETUP_ID for c in notebook["cells"]):
                raise ValueError(f"{name} already has a cell with id {SETUP_ID!r}")
            # plain Markdown: numbers for glue roles and references, no MyST roles or fences
            notebook = plain(notebook, chapter=Path(name).stem if folder == "chapters" else None,
                             site=site_of(repository), root=root)
            notebook["cells"].insert(0, cells[folder])
            text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
            copy.write_text(text, encoding="utf-8", newline="\n")
        else:
            shutil.copy2(source, copy)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="an empty or new folder")
    parser.add_argument("repository", help="owner/name on GitHub")
    parser.add_argument("branch", help="the branch the copies are pushed to")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository to copy")
    args = parser.parse_args(argv)
    try:
        make(args.root, args.out, args.repository, args.branch)
    except (ValueError, FileExistsError, RuntimeError) as error:
        sys.exit(f"launch_copies: {error}")
    print(f"launch copies of {args.root} for {args.repository}@{args.branch} in {args.out}")


if __name__ == "__main__":
    main()
