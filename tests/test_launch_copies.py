"""The launch copies (tools/launch_copies.py) and the branch the launch buttons open.

The copies are the repository's tracked files with one Colab set-up cell first in every
chapter: the cell must do nothing outside Colab, and on Colab (simulated here: no
network, no pip) fetch the launch branch once, install `.[book]` and move into
chapters/. Everything else must be copied unchanged.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


launch_copies = load("launch_copies", ROOT / "tools" / "launch_copies.py")
TRACKED = launch_copies.tracked(ROOT)
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
GUIDE = sorted((ROOT / "guide").glob("*.ipynb"))


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """Copies of this repository for owner/repo, branch launch; the cell's target folder."""
    base = tmp_path_factory.mktemp("launch")
    target = base / "content" / "ranking-evaluation"
    target.parent.mkdir()
    launch_copies.make(ROOT, base / "copies", "owner/repo", "launch", target=str(target))
    return base / "copies", target


def setup_source(copies) -> str:
    notebook = json.loads((copies[0] / "chapters" / CHAPTERS[0].name).read_text("utf-8"))
    return "".join(notebook["cells"][0]["source"])


def test_every_chapter_starts_with_the_setup_cell_and_keeps_the_rest(copies):
    out, _ = copies
    assert CHAPTERS and GUIDE
    for path in CHAPTERS + GUIDE:
        original = json.loads(path.read_text(encoding="utf-8"))
        copy = json.loads((out / path.relative_to(ROOT)).read_text(encoding="utf-8"))
        first, *rest = copy["cells"]
        assert first["id"] == "colab-setup" and first["metadata"] == {"colab_setup": True}
        assert first["cell_type"] == "code"
        assert first["outputs"] == [] and first["execution_count"] is None
        # the chapter in plain Markdown, to read well outside the site (tools/plain_notebook.py)
        chapter = path.stem if path.parent.name == "chapters" else None
        assert rest == launch_copies.plain(original, chapter=chapter,
                                           site="https://owner.github.io/repo/")["cells"]


def test_every_other_tracked_file_is_copied_unchanged(copies):
    out, _ = copies
    others = [name for name in TRACKED if (ROOT / name).is_file()
              and not (name.startswith(("chapters/", "guide/")) and name.endswith(".ipynb"))
              and not name.startswith(".github/")]
    for name in ["pyproject.toml", "binder/postBuild", "rankeval/__init__.py",
                 "chapters/bookstyle.py", "data/cranfield/cranqrel"]:
        assert name in others
    for name in others:
        assert (out / name).read_bytes() == (ROOT / name).read_bytes(), name
    assert os.access(out / "binder" / "postBuild", os.X_OK)
    # no workflow file: GitHub refuses a push by the workflow's token that writes one
    assert any(name.startswith(".github/workflows/") for name in TRACKED)
    assert not (out / ".github").exists()


def test_outside_colab_the_cell_changes_nothing(copies):
    source = setup_source(copies)
    assert "google.colab" not in sys.modules
    cwd, path = os.getcwd(), list(sys.path)
    namespace = {}
    exec(compile(source, "colab-setup", "exec"), namespace)
    assert os.getcwd() == cwd and sys.path == path
    assert set(namespace) <= {"__builtins__", "sys"}


# Runs the cell as Colab would, twice: google.colab importable, the download and pip faked.
COLAB = """
import json, os, subprocess, sys, urllib.request
import google.colab

cell, archive, TARGET = sys.argv[1:]
downloads, commands = [], []

pip_fails = [True]  # the first install fails (no network, say), the second succeeds

def urlretrieve(url, filename=None):
    downloads.append(url)
    return archive, None

def run(args, **options):
    commands.append([str(arg) for arg in args])
    if pip_fails.pop():
        raise subprocess.CalledProcessError(1, args)
    return subprocess.CompletedProcess(args, 0)

urllib.request.urlretrieve, subprocess.run = urlretrieve, run
code = compile(open(cell, encoding="utf-8").read(), "colab-setup", "exec")
try:
    exec(code, {})
except subprocess.CalledProcessError:
    failed = {"cwd": os.getcwd(), "installed": os.path.exists(TARGET)}
pip_fails.append(False)
exec(code, {})  # run again after the failure: starts over
import bookstyle
sys.modules["myst_nb"] = None  # Colab has no myst-nb: glue must do nothing
glued = bookstyle.glue("a_number", 0.5)
after = {"cwd": os.getcwd(), "path0": sys.path[0], "bookstyle": bookstyle.__file__,
         "data": os.path.isdir("../data/cranfield"), "glued": glued}
exec(code, {})  # and once more: nothing to download or install
print(json.dumps({"downloads": downloads, "commands": commands, "failed": failed,
                  "after": after, "again": {"cwd": os.getcwd(), "path0": sys.path[0]}}))
"""


def test_on_colab_the_cell_fetches_installs_and_moves_into_chapters(copies, tmp_path):
    out, target = copies
    archive = tmp_path / "launch.zip"
    with zipfile.ZipFile(archive, "w") as zipped:  # as GitHub serves it: one REPO-BRANCH/
        for path in sorted(out.rglob("*")):
            zipped.write(path, "repo-launch/" + path.relative_to(out).as_posix())
    fake = tmp_path / "fake"
    (fake / "google").mkdir(parents=True)
    (fake / "google" / "__init__.py").write_text("")
    (fake / "google" / "colab.py").write_text("")
    cell = tmp_path / "cell.py"
    cell.write_text(setup_source(copies), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(fake), "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, "-c", COLAB, cell, archive, target], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    chapters = str(target / "chapters")
    url = "https://github.com/owner/repo/archive/refs/heads/launch.zip"
    # a failed install leaves nothing behind, so running the cell again starts over
    assert report["failed"] == {"cwd": str(tmp_path), "installed": False}
    assert report["downloads"] == [url, url]
    assert len(report["commands"]) == 2  # the third run neither downloads nor installs
    for pip in report["commands"]:  # the unpacked archive, before it is moved into place
        assert pip[0] == sys.executable
        assert pip[1:5] == ["-m", "pip", "install", "-q"]
        assert pip[5].endswith(os.sep + "repo-launch[book]") and not pip[5].startswith(
            str(target))
    assert report["after"] == {"cwd": chapters, "path0": chapters, "data": True,
                               "bookstyle": str(target / "chapters" / "bookstyle.py"),
                               "glued": None}
    assert report["again"] == {"cwd": chapters, "path0": chapters}
    assert (target / "rankeval" / "__init__.py").is_file()


def test_a_guide_page_works_in_its_own_folder(copies):
    out, _ = copies
    notebook = json.loads((out / "guide" / GUIDE[0].name).read_text("utf-8"))
    source = "".join(notebook["cells"][0]["source"])
    assert 'here = os.path.join(book, "guide")' in source
    assert 'here = os.path.join(book, "chapters")' in setup_source(copies)
    with pytest.raises(ValueError, match="no set-up cell"):
        launch_copies.setup_cell("o/r", "launch", folder="tests")


@pytest.mark.parametrize(
    ("repository", "branch", "message"),
    [("owner", "launch", "owner/name"), ("owner/repo/x", "launch", "owner/name"),
     ("owner/re po", "launch", "owner/name"), ("o/r", "launch; rm -rf /", "branch"),
     ("o/r", "", "branch"), ("o/r", 'a"b', "branch")],
)  # fmt: skip
def test_bad_repository_or_branch_names_are_refused(tmp_path, repository, branch, message):
    with pytest.raises(ValueError, match=message):
        launch_copies.make(ROOT, tmp_path / "out", repository, branch)
    assert not (tmp_path / "out").exists()


def test_a_folder_that_is_not_empty_is_refused(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "old.txt").write_text("old")
    with pytest.raises(FileExistsError, match="not empty"):
        launch_copies.make(ROOT, tmp_path / "out", "o/r", "launch")
    with pytest.raises(SystemExit, match="not empty"):
        launch_copies.main([str(tmp_path / "out"), "o/r", "launch", "--root", str(ROOT)])


@pytest.fixture
def tasks(tmp_path, monkeypatch):
    module = load("book_tasks", ROOT / "tasks.py")
    monkeypatch.setattr(module, "BUILD", tmp_path)
    for name in ["BOOK_REPOSITORY", "BOOK_BRANCH", "BOOK_LAUNCH_BRANCH"]:
        monkeypatch.delenv(name, raising=False)
    return module


@pytest.mark.skipif(not (ROOT / ".venv").is_dir(), reason="tools/generate_config.py runs in .venv")
@pytest.mark.parametrize(("launch", "expected"), [("launch", "launch"), (None, "main")])
def test_the_launch_buttons_open_the_launch_branch(tasks, monkeypatch, launch, expected):
    monkeypatch.setenv("BOOK_REPOSITORY", "o/r")
    monkeypatch.setenv("BOOK_BRANCH", "main")
    if launch:
        monkeypatch.setenv("BOOK_LAUNCH_BRANCH", launch)
    _, path = tasks.book_config(execute=True)
    config = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    assert config["repository"] == {"url": "https://github.com/o/r", "branch": expected,
                                    "path_to_book": ""}
    assert config["launch_buttons"]["colab_url"] == "https://colab.research.google.com"


def test_the_launch_copies_command(tasks, monkeypatch, tmp_path):
    with pytest.raises(SystemExit, match="BOOK_REPOSITORY"):
        tasks.COMMANDS["launch-copies"]()
    monkeypatch.setenv("BOOK_REPOSITORY", "o/r")
    tasks.COMMANDS["launch-copies"]()
    notebook = json.loads((tmp_path / "launch" / "chapters" / CHAPTERS[0].name).read_text())
    source = "".join(notebook["cells"][0]["source"])
    assert "https://github.com/o/r/archive/refs/heads/launch.zip" in source
