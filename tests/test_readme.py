"""README.md's code runs as written, and the README keeps its shape.

Every ```python block runs, in order, in one namespace, and every ```bash block runs in
a shell, in a temporary folder holding a copy of data/toy/ (the files the quick start
names), with this Python's scripts first on PATH. ```shell blocks (set-up, installing)
are shown, not run: they may only call pip or tasks.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```$", README, flags=re.M | re.S)


@pytest.fixture
def toy(tmp_path, monkeypatch):
    folder = tmp_path / "toy"
    shutil.copytree(ROOT / "data" / "toy", folder)
    monkeypatch.chdir(folder)
    return folder


def test_the_readme_is_short_and_says_first_what_the_project_is():
    lines = README.splitlines()
    assert len(lines) <= 150
    head = "\n".join(lines[:40])
    assert "course book" in head and "import rankeval" in head
    assert "![" in README and (ROOT / "benchmarks" / "runs.png").is_file()


def test_the_shell_blocks_only_install_or_run_the_commands():
    shell = [code for kind, code in BLOCKS if kind == "shell"]
    assert shell
    for code in shell:
        for line in code.splitlines():
            assert line.startswith(("pip ", "python3 tasks.py ")), line


def test_the_python_blocks_run_in_order(toy, capsys):
    python = [code for kind, code in BLOCKS if kind == "python"]
    assert len(python) >= 3 and all(kind in ("python", "bash", "shell")
                                    for kind, _ in BLOCKS)
    namespace: dict = {"__name__": "__readme__"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a reader copying the quick start sees no warning
        for code in python:
            exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102
    out = capsys.readouterr().out
    assert "0.6666666666666666" in out  # precision_at_k([1, 0, 1, 0, 1], k=3)
    assert "**0.7893**<sup>a</sup>" in out  # dense beats bm25 on nDCG@10 in data/toy
    assert "nDCG@3" in out and "RR" in out


def test_the_bash_blocks_run_like_trec_eval(toy):
    bash = [code for kind, code in BLOCKS if kind == "bash"]
    assert bash
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent),
                                                 os.environ.get("PATH", "")]))
    for code in bash:
        done = subprocess.run(["bash", "-e", "-c", code], cwd=toy, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip()
    first = subprocess.run(["bash", "-e", "-c", bash[0]], cwd=toy, env=env,
                           capture_output=True, text=True, timeout=120).stdout
    assert re.search(r"^map\s+all\s+0\.\d{4}$", first, flags=re.M)
