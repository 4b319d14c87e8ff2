"""tasks.py's step graph: a failing step fails `check`, and what needs it does not run;
and what `check` and `build` keep of the last build.

`python3 tasks.py check` runs its steps with `run_graph`, each in a thread. A step that
exits non-zero, cannot start at all, or prints bytes that are not UTF-8 must make the
whole command exit non-zero, and no step that needs it may run (nor wait for it
forever): otherwise a broken step would let `check` pass or hang.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tasks(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("book_tasks", ROOT / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "BUILD", tmp_path)  # the step logs go here
    return module


def step(code: str, needs=()):
    return [sys.executable, "-c", code], list(needs)


def test_steps_that_pass_run_in_order_of_their_needs(tasks, tmp_path, capsys):
    marker = tmp_path / "first.txt"
    tasks.run_graph({
        "first": step(f"open({str(marker)!r}, 'w').write('done')"),
        "second": step(f"assert open({str(marker)!r}).read() == 'done'", ["first"]),
    })  # fmt: skip
    out = capsys.readouterr().out
    assert "=== first: ok" in out and "=== second: ok" in out


def test_a_failing_step_fails_the_graph_and_its_dependents_do_not_run(tasks, capsys):
    with pytest.raises(SystemExit) as exit_:
        tasks.run_graph({
            "broken": step("raise SystemExit(3)"),
            "after": step("print('should not run')", ["broken"]),
            "beside": step("pass"),
        })  # fmt: skip
    assert exit_.value.code == 3
    out = capsys.readouterr().out
    assert "=== broken: FAILED (exit 3)" in out
    assert "=== after: not run (broken failed)" in out
    assert "should not run" not in out
    assert "=== beside: ok" in out


def test_a_step_that_cannot_start_fails_instead_of_hanging(tasks, capsys):
    import threading

    outcome = {}

    def graph():
        try:
            tasks.run_graph({
                "missing": (["/nonexistent/program"], []),
                "after": step("pass", ["missing"]),
            })  # fmt: skip
            outcome["exit"] = 0
        except SystemExit as exit_:
            outcome["exit"] = exit_.code

    runner = threading.Thread(target=graph, daemon=True)
    runner.start()
    runner.join(timeout=30)
    assert not runner.is_alive(), "run_graph hangs when a step cannot start"
    assert outcome["exit"] not in (0, None)
    out = capsys.readouterr().out
    assert "=== missing: FAILED (FileNotFoundError" in out
    assert "=== after: not run" in out


def test_output_that_is_not_utf8_is_shown_and_the_exit_code_kept(tasks, capsys):
    code = "import sys; sys.stdout.buffer.write(b'TeX \\xff\\n'); sys.exit(4)"
    with pytest.raises(SystemExit) as exit_:
        tasks.run_graph({"latex": step(code)})
    assert exit_.value.code == 4
    assert "=== latex: FAILED (exit 4)" in capsys.readouterr().out


def test_clean_build_keeps_only_the_pdf_editions_folder(tasks, tmp_path):
    (tmp_path / "html" / "chapters").mkdir(parents=True)
    (tmp_path / "html" / "chapters" / "page.html").write_text("old page")
    (tmp_path / "nbval.xml").write_text("old report")
    (tmp_path / "link").symlink_to(tmp_path / "html")
    latex = tmp_path / "pdf" / "_build" / "latex"
    latex.mkdir(parents=True)
    (latex / "book.fdb_latexmk").write_text("latexmk's record")
    tasks.clean_build()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pdf"]
    assert (latex / "book.fdb_latexmk").read_text() == "latexmk's record"


def fake_jupyter_book(folder: Path, *, fails: bool) -> Path:
    """A stand-in for `jupyter-book build --builder pdflatex`: says whether it found the
    last build's cross-references, then writes them and a PDF, or fails half-way."""
    folder.mkdir()
    script = folder / "jupyter-book"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "from pathlib import Path\n"
        "args = sys.argv[1:]\n"
        "latex = Path(args[args.index('--path-output') + 1]) / '_build' / 'latex'\n"
        "print('kept' if (latex / 'book.aux').is_file() else 'fresh')\n"
        "latex.mkdir(parents=True, exist_ok=True)\n"
        "(latex / 'book.aux').write_text('half-written' if "
        f"{fails} else 'cross-references')\n"
        f"sys.exit(1) if {fails} else (latex / 'book.pdf').write_text('PDF')\n"
    )
    script.chmod(0o755)
    return script


def test_the_pdf_build_starts_from_the_last_one_only_if_it_finished(tasks, tmp_path):
    ok = fake_jupyter_book(tmp_path / "ok", fails=False)
    failing = fake_jupyter_book(tmp_path / "failing", fails=True)
    output = tmp_path / "pdf"

    def pdf_step(jupyter_book):
        return subprocess.run(
            [sys.executable, "-c", tasks.PDF_STEP, jupyter_book, output,
             output / "_build" / "latex" / "book.pdf"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip

    runs = [pdf_step(ok), pdf_step(ok), pdf_step(failing), pdf_step(ok)]
    assert [r.stdout.strip() for r in runs] == ["fresh", "kept", "kept", "fresh"]
    assert [r.returncode == 0 for r in runs] == [True, True, False, True]
    assert (output / "_build" / "latex" / "book.aux").read_text() == "cross-references"
