"""tasks.py's step graph: a failing step fails `check`, and what needs it does not run;
what `check` and `build` keep of the last build; and the programs in tools/ it runs.

`python3 tasks.py check` runs its steps with `tools.taskgraph.run_graph`, each in a thread. A step that
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
sys.path.insert(0, str(ROOT))
from tools import attach_pdf, generate_config, pdf_step, taskgraph  # noqa: E402


@pytest.fixture
def tasks(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("book_tasks", ROOT / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "BUILD", tmp_path)  # the step logs go here
    return module


@pytest.fixture
def graph(tmp_path):
    """`check`'s runner, its step logs in tmp_path."""
    return lambda steps: taskgraph.run_graph(steps, tmp_path, ROOT)


def step(code: str, needs=()):
    return [sys.executable, "-c", code], list(needs)


def test_steps_that_pass_run_in_order_of_their_needs(graph, tmp_path, capsys):
    marker = tmp_path / "first.txt"
    graph({
        "first": step(f"open({str(marker)!r}, 'w').write('done')"),
        "second": step(f"assert open({str(marker)!r}).read() == 'done'", ["first"]),
    })  # fmt: skip
    out = capsys.readouterr().out
    assert "=== first: ok" in out and "=== second: ok" in out


def test_a_failing_step_fails_the_graph_and_its_dependents_do_not_run(graph, capsys):
    with pytest.raises(SystemExit) as exit_:
        graph({
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


def test_a_step_that_cannot_start_fails_instead_of_hanging(graph, capsys):
    import threading

    outcome = {}

    def whole():
        try:
            graph({
                "missing": (["/nonexistent/program"], []),
                "after": step("pass", ["missing"]),
            })  # fmt: skip
            outcome["exit"] = 0
        except SystemExit as exit_:
            outcome["exit"] = exit_.code

    runner = threading.Thread(target=whole, daemon=True)
    runner.start()
    runner.join(timeout=30)
    assert not runner.is_alive(), "run_graph hangs when a step cannot start"
    assert outcome["exit"] not in (0, None)
    out = capsys.readouterr().out
    assert "=== missing: FAILED (FileNotFoundError" in out
    assert "=== after: not run" in out


def test_output_that_is_not_utf8_is_shown_and_the_exit_code_kept(graph, capsys):
    code = "import sys; sys.stdout.buffer.write(b'TeX \\xff\\n'); sys.exit(4)"
    with pytest.raises(SystemExit) as exit_:
        graph({"latex": step(code)})
    assert exit_.value.code == 4
    assert "=== latex: FAILED (exit 4)" in capsys.readouterr().out


def test_clean_build_keeps_only_the_pdf_editions_folder(tasks, tmp_path):
    (tmp_path / "html" / "chapters").mkdir(parents=True)
    (tmp_path / "html" / "chapters" / "page.html").write_text("old page")
    (tmp_path / "nbval.xml").write_text("old report")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "kept.txt").write_text("not in _build")
    (tmp_path / "link").symlink_to(outside)
    latex = tmp_path / "pdf" / "_build" / "latex"
    latex.mkdir(parents=True)
    (latex / "book.fdb_latexmk").write_text("latexmk's record")
    tasks.clean_build()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pdf"]
    assert (latex / "book.fdb_latexmk").read_text() == "latexmk's record"
    assert (outside / "kept.txt").read_text() == "not in _build"  # the link, not its target


def fake_jupyter_book(folder: Path, mode: str) -> Path:
    """A stand-in for `jupyter-book build --builder pdflatex`. It says whether it found
    the last build's cross-references, writes new ones, then, by ``mode``: writes the
    PDF and a clean LaTeX log ("ok"), fails ("fails"), fails only when it found the last
    build's files ("fails-if-kept", as a stale .aux can), exits 0 without a PDF
    ("no-pdf"), or writes the PDF and a log that reports an undefined reference, as
    latexmk does with exit code 0 ("unresolved")."""
    folder.mkdir()
    script = folder / "jupyter-book"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "from pathlib import Path\n"
        f"mode = {mode!r}\n"
        "args = sys.argv[1:]\n"
        "latex = Path(args[args.index('--path-output') + 1]) / '_build' / 'latex'\n"
        "kept = (latex / 'book.aux').is_file()\n"
        "print('kept' if kept else 'fresh', flush=True)\n"
        "latex.mkdir(parents=True, exist_ok=True)\n"
        "(latex / 'book.aux').write_text('cross-references')\n"
        "if mode == 'fails' or (mode == 'fails-if-kept' and kept):\n"
        "    sys.exit(1)\n"
        "if mode != 'no-pdf':\n"
        "    (latex / 'book.pdf').write_text('PDF')\n"
        "    (latex / 'book.log').write_text(\n"
        "        \"LaTeX Warning: Reference `ch:ex-1' on page 4 undefined on input line 9.\\n\"\n"
        "        if mode == 'unresolved' else 'Output written on book.xdv (5 pages).\\n')\n"
    )
    script.chmod(0o755)
    return script


@pytest.fixture
def pdf_build(tmp_path):
    """Runs tools/pdf_step.py with a stand-in jupyter-book of the given mode."""
    output = tmp_path / "pdf"

    def run(mode):
        folder = tmp_path / f"jb-{len(list(tmp_path.glob('jb-*')))}"
        result = subprocess.run(
            [sys.executable, pdf_step.__file__, fake_jupyter_book(folder, mode), output,
             output / "_build" / "latex" / "book.pdf"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        run.stderr = result.stderr
        return result.returncode, [line for line in result.stdout.splitlines()
                                   if line in ("kept", "fresh")]

    return run


def test_the_pdf_build_starts_from_the_last_one_only_if_it_finished(pdf_build):
    assert pdf_build("ok") == (0, ["fresh"])
    assert pdf_build("ok") == (0, ["kept"])
    code, builds = pdf_build("fails")  # from the last build, then once more afresh
    assert code != 0 and builds == ["kept", "fresh"]
    assert pdf_build("ok") == (0, ["fresh"])  # no stamp after a failure: afresh


def test_a_build_that_fails_from_the_last_one_is_retried_afresh(pdf_build):
    assert pdf_build("ok") == (0, ["fresh"])
    assert pdf_build("fails-if-kept") == (0, ["kept", "fresh"])
    assert pdf_build("ok") == (0, ["kept"])


def test_the_pdf_of_an_earlier_build_never_passes_for_this_ones(pdf_build):
    assert pdf_build("ok") == (0, ["fresh"])
    code, _ = pdf_build("no-pdf")
    assert code != 0 and "the LaTeX build made no" in pdf_build.stderr


def test_a_pdf_with_an_unresolved_reference_fails_the_step(pdf_build):
    code, _ = pdf_build("unresolved")  # latexmk exits 0 and prints "??" in the PDF
    assert code == 1
    assert "could not resolve 1 reference(s)" in pdf_build.stderr
    assert "Reference `ch:ex-1' on page 4" in pdf_build.stderr
    assert pdf_build("ok") == (0, ["kept"])  # the LaTeX build itself had finished


def test_the_generated_config_switches_execution_off_and_adds_the_links(tmp_path):
    config = {"sphinx": {"local_extensions": {"bib_style": "_ext"}, "config": {}},
              "execute": {"execute_notebooks": "force"}, "html": {}, "launch_buttons": {}}
    out = generate_config.generate(config, ROOT / "_config.yml", execute="off",
                                   repository="o/r", branch="launch", report="r.xml",
                                   pdf="book.pdf", pdf_mode="later")
    assert out["execute"]["execute_notebooks"] == "off"
    assert out["sphinx"]["local_extensions"]["bib_style"] == str(ROOT / "_ext")
    assert out["sphinx"]["config"] == {"nbval_report": "r.xml", "book_pdf": "book.pdf",
                                       "book_pdf_attached_later": True}
    assert out["repository"]["branch"] == "launch"
    with pytest.raises(ValueError, match="execute"):
        generate_config.generate(config, ROOT / "_config.yml", execute="maybe",
                                 repository="", branch="", report="", pdf="", pdf_mode="")


def test_attach_pdf_refuses_a_missing_pdf_and_copies_one_that_exists(tmp_path, capsys):
    with pytest.raises(SystemExit, match="no PDF edition"):
        attach_pdf.main([str(tmp_path / "missing.pdf"), str(tmp_path / "site.pdf")])
    (tmp_path / "book.pdf").write_bytes(b"%PDF")
    attach_pdf.main([str(tmp_path / "book.pdf"), str(tmp_path / "site.pdf")])
    assert (tmp_path / "site.pdf").read_bytes() == b"%PDF"
