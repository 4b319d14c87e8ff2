"""CONTRIBUTING.md's claims that a test can check: the fast loop's commands and files
exist, and the house style names only keywords the library has."""

import importlib.util
import inspect
import re
import shlex
from pathlib import Path

import rankeval

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def _tasks():
    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fast_loop() -> list[list[str]]:
    """The commands of the fast loop's code block, each split as a shell would."""
    section = TEXT.split("## The fast loop", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1)
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def test_the_fast_loop_runs_commands_that_exist():
    commands = fast_loop()
    assert commands[0] == ["python3", "tasks.py", "setup"]
    assert "setup" in _tasks().COMMANDS
    assert len(commands) >= 3
    for words in commands[1:]:
        assert words[:2] == [".venv/bin/python", "-m"], words
        assert importlib.util.find_spec(words[2]) is not None, words  # pytest, ruff
        paths = [w for w in words[3:] if w.startswith("tests/")]
        for path in paths:
            assert (ROOT / path).is_file(), path
    # the one-file runs name a file that exists and a -k expression that selects a test
    keyword = next(w[w.index("-k") + 1] for w in commands if "-k" in w)
    names = re.findall(r"^def (test_\w+)", (ROOT / "tests" / "test_api.py").read_text(), re.M)
    assert any(keyword in n for n in names), keyword


def test_the_notebook_command_names_files_that_exist():
    section = TEXT.split("## The fast loop", 1)[1].split("\n## ", 1)[0]
    for path in re.findall(r"(?:chapters|tests)/[\w.]+\.(?:ipynb|cfg|py)", section):
        assert (ROOT / path).is_file(), path


def test_house_style_keywords_exist():
    section = TEXT.split("## House style", 1)[1]
    keywords = set(re.findall(r"`(\w+)=", section))
    assert keywords, "the house style names no keyword"
    accepted = set(inspect.signature(rankeval.evaluate).parameters)
    assert keywords <= accepted, keywords - accepted
    assert "`convention=" not in TEXT  # the keyword is conventions=
    assert "rankeval.evaluation.conventions.resolve" in section
    from rankeval.evaluation import conventions

    assert callable(conventions.resolve)
