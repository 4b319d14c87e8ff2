"""The book's guards work: a changed stored number fails nbval, a raising cell fails the build.

Each test also runs the unmodified control, so it proves that the failure comes from the
change and not from a broken set-up.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = ROOT / "templates" / "chapter.ipynb"


def run_nbval(*notebooks: Path, report: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"),
         f"--junitxml={report}", f"--rootdir={notebooks[0].parent}", "-o", "addopts=",
         *(nb.name for nb in notebooks)],
        cwd=notebooks[0].parent, capture_output=True, text=True, timeout=300,
    )


def read_report(report: Path) -> dict[str, dict]:
    """The reader of nbval's JUnit report that the book's execution page uses
    (_ext/nbval_execution.py): docname -> {runtime, succeeded}."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "nbval_execution", ROOT / "_ext" / "nbval_execution.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.read_report(report)


def change_one_number(nb: dict) -> str:
    """Change the first digit of the first stored text output; return the old line."""
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            if output.get("output_type") != "stream":
                continue
            text = "".join(output["text"])
            match = re.search(r"\d", text)
            if match:
                digit = match.group()
                new = str((int(digit) + 1) % 10)
                output["text"] = text[: match.start()] + new + text[match.end():]
                return text
    raise AssertionError("no stored number found in the chapter")


def test_nbval_fails_when_a_stored_number_changes(tmp_path):
    # one nbval run (one interpreter start) over the unmodified chapter and a copy with one
    # stored digit changed: the first must pass, the second must fail
    control = tmp_path / "control.ipynb"
    shutil.copy(CHAPTER, control)
    nb = json.loads(CHAPTER.read_text())
    change_one_number(nb)
    changed = tmp_path / "changed.ipynb"
    changed.write_text(json.dumps(nb))
    result = run_nbval(control, changed, report=tmp_path / "report.xml")
    assert result.returncode != 0
    assert "failed" in result.stdout.lower()
    found = read_report(tmp_path / "report.xml")
    assert found["control"]["succeeded"], "the unmodified chapter must pass nbval"
    assert not found["changed"]["succeeded"]


def _book(tmp_path: Path, cell_source: str) -> Path:
    book = tmp_path / "book"
    book.mkdir()
    # The book's own execution settings, without its extensions and theme options.
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    minimal = {"title": "guard", "execute": config["execute"], "only_build_toc_files": True}
    (book / "_config.yml").write_text(yaml.safe_dump(minimal))
    (book / "_toc.yml").write_text("format: jb-book\nroot: index\n")
    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# A page"},
            {"cell_type": "code", "metadata": {}, "execution_count": None,
             "outputs": [], "source": cell_source},
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    (book / "index.ipynb").write_text(json.dumps(nb))
    return book


def build(book: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).parent / "jupyter-book"), "build", str(book), "-W", "-n", "--keep-going"],
        capture_output=True, text=True, timeout=600,
    )


@pytest.mark.parametrize(
    "source, should_pass",
    [("print(1 + 1)", True), ("raise RuntimeError('this cell fails')", False)],
    ids=["control", "raising-cell"],
)
def test_a_raising_cell_fails_the_build(tmp_path, source, should_pass):
    result = build(_book(tmp_path, source))
    assert (result.returncode == 0) == should_pass, result.stdout[-2000:] + result.stderr[-2000:]


# --- every number in the prose comes from a cell ---------------------------------------------
#
# A decimal number typed into a chapter's Markdown is a number nbval never checks. Every
# such number must come from a cell: glued ({glue:text}`name:.4f`) or printed by a
# (hidden-input) cell. Allowed where they stand: a by-hand derivation in math ($...$,
# $$...$$, amsmath), code (inline `code`, fenced code, code directives), roles ({glue:...},
# {cite:...}, {eq}...), link targets and bare URLs, labels, directive options.

DECIMAL = re.compile(r"\d+\.\d+")
URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+")
# directives whose body is code or math, not prose
CODE_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode", "math", "literalinclude",
                   "raw", "glue", "glue:any", "glue:figure", "glue:math", "image", "figure",
                   "bibliography", "nb-exec-table"}
SKIPPED_INLINE = {"math_inline", "math_inline_double", "code_inline", "myst_role",
                  "html_inline", "substitution_inline", "image"}


def _markdown_parser():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    extensions = set(config["parse"]["myst_enable_extensions"])
    return create_md_parser(MdParserConfig(enable_extensions=extensions), RendererHTML)


def _directive_body(content: str) -> str:
    """A directive's body without its options (``:key: value`` lines or a YAML block)."""
    lines = content.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        lines = lines[end + 1:]
    while lines and re.match(r"^\s*:[\w-]+:", lines[0]):
        lines = lines[1:]
    return "\n".join(lines)


def prose_decimals(markdown: str, parser=None) -> list[str]:
    """Decimal numbers in the prose of one Markdown text (see the rule above)."""
    parser = parser or _markdown_parser()
    found: list[str] = []

    def text(value: str) -> None:
        found.extend(DECIMAL.findall(URL.sub(" ", value)))

    for token in parser.parse(markdown):
        if token.type in ("fence", "colon_fence"):
            match = re.match(r"^\{([^}]+)\}\s*(.*)$", token.info.strip())
            if not match or match.group(1) in CODE_DIRECTIVES:
                continue  # a code fence, or a directive whose body is code
            text(match.group(2))  # the directive's argument, e.g. a dropdown's title
            found.extend(prose_decimals(_directive_body(token.content), parser))
        elif token.type == "html_block":
            text(re.sub(r"<[^>]*>", " ", token.content))
        elif token.type == "inline":
            for child in token.children or []:
                if child.type == "text":
                    text(child.content)
    return found


def markdown_findings(notebook: Path, find, parser=None) -> list[str]:
    """'file, cell N: item' for every item ``find(markdown, parser)`` returns in one of
    the notebook's Markdown cells."""
    parser = parser or _markdown_parser()
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    problems = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for item in find(source, parser):
            problems.append(f"{notebook.relative_to(ROOT)}, cell {index}: {item}")
    return problems


def hand_typed_decimals(notebook: Path, parser=None) -> list[str]:
    """'file, cell N: number' for every decimal number in the notebook's Markdown prose."""
    return markdown_findings(notebook, prose_decimals, parser)


def test_the_number_guard_finds_prose_numbers_and_only_those():
    """The control for the guard below: what it flags, and what it leaves alone."""
    text = "\n".join([
        "(a-label)=",
        "# Title 1.5",
        "Prose 0.25, and $x = 0.5$, `code 1.2`, {glue:text}`ch_x:.4f`, {cite:p}`k2008a`,",
        "[link text](https://example.org/v2.5) and <https://example.org/3.5>.",
        "",
        "$$ y = 2.5 $$ (eq-a)",
        "",
        ":::{dropdown} Solution 6.5",
        ":open:",
        "Inside 7.25 and $8.5$",
        "```python",
        "x = 9.5",
        "```",
        ":::",
        "",
        "```{admonition} Head 10.5",
        ":class: tip",
        "Body 11.5",
        "```",
        "",
        "| a | b |", "|---|---|", "| 12.5 | `13.5` |",
        "",
        r"\begin{equation} 14.5 \end{equation}",
    ])  # fmt: skip
    assert prose_decimals(text) == ["1.5", "0.25", "6.5", "7.25", "10.5", "11.5", "12.5"]


@pytest.mark.parametrize("notebook", sorted((ROOT / "chapters").glob("*.ipynb")),
                         ids=lambda p: p.stem)
def test_no_hand_typed_decimal_in_chapter_prose(notebook):
    problems = hand_typed_decimals(notebook)
    assert not problems, (
        "decimal numbers typed into the prose (glue them with {glue:text}`name:.4f`, print "
        "them from a cell, keep them inside $...$ if they are a by-hand derivation, or in "
        "`code` if they are an identifier such as a version):\n" + "\n".join(problems)
    )


# --- and no computed value typed into math ----------------------------------------------
#
# Math is where a by-hand derivation lives, so the guard above skips it. But a number typed in
# math is no more checked than one typed in prose: "a mean nDCG@10 of $0.50$" states a result
# of a cell as surely as "0.50" would. The rule for decimals inside math ($...$, $$...$$,
# amsmath, {math}):
#
# - A decimal in a *derivation* stands: the math span holds arithmetic (+ - / ^ \cdot \times
#   \frac \sqrt \log ...), so the page shows how the number is obtained and the reader can
#   check it ($1 - 36/990 = 0.9636$); a span that begins with a relation (=, \approx, \le,
#   ...) continues the derivation of the span before it ("nDCG $= 0.4796$").
# - A decimal *compared* with something stands: a span with <, >, \le, \ge, \in or \pm states a
#   threshold or a range ($F \le 0.05$, $\lambda \in \{0, 0.1, \dots, 1\}$).
# - A *parameter setting* stands: one of PARAMETERS set to a decimal ($p = 0.8$, $k_1 = 1.2$).
# - Any other decimal in math is *bare*: a value stated without its derivation. It must be
#   glued ({glue:text}`chNN_name:.2f`, moved out of the math) unless it is a constant of the
#   chapter -- an input of a worked example, a level, a number a source prints -- listed in
#   MATH_CONSTANTS under its notebook with the reason. The list is the explicit allow-list: a
#   new bare decimal fails until someone glues it or says here why it is a constant.

MATH_TOKENS = {"math_inline", "math_inline_double", "math_block", "math_block_label", "amsmath"}
ARITHMETIC = re.compile(
    r"[-+*/^]|\\(?:cdot|times|div|frac|tfrac|dfrac|sqrt|log|ln|exp|binom|sum|prod|min|max)"
    r"(?![a-zA-Z])")
COMPARISON = re.compile(r"[<>]|\\(?:le|ge|leq|geq|lt|gt|in|pm)(?![a-zA-Z])")
CONTINUATION = re.compile(r"^\s*(?:=|\\approx|\\le|\\ge|<|>)")
# symbols whose value a chapter sets, not computes (RBP's and ERR's p, BM25's k_1, the recall
# level lambda, the weights and bounds of chapters 3, 8 and 9, the random share chi of
# chapters 23 and 25; roman names such as chapter 3's top and miss)
PARAMETERS = {"p", "k_1", "b", "a", "s", "z", r"\lambda", r"\kappa", r"\omega", r"\alpha",
              r"\beta", r"\theta", r"\gamma", r"\delta", r"\chi", r"\mathrm{top}",
              r"\mathrm{miss}"}
PARAMETER_SETTING = re.compile(
    r"^\s*(\\mathrm\{[a-z]+\}|\\?[A-Za-z]+(?:_\{?\w+\}?)?)\s*=\s*\d+\.\d+\s*$")

# Bare decimals that are constants of their chapter, not computed results: {notebook stem:
# {decimal as typed: why it is a constant}}. Values are matched per notebook, as typed.
def _same(reason: str, *decimals: str) -> dict[str, str]:
    return dict.fromkeys(decimals, reason)


INPUTS = "inputs of a worked example or exercise, typed as the example states them"
LEVELS = "a level, threshold or cut-off the text compares against, not a result"
BY_HAND = "a step of the by-hand derivation in the same paragraph"
ILLUSTRATION = "an illustrative value in a sentence about reading numbers, not a result"
SOURCE = "a number a source prints, quoted in order to correct it"
MATH_CONSTANTS: dict[str, dict[str, str]] = {
    "01_why_ranking": {
        **_same(INPUTS + " (the two models' scores and errors)", "0.4", "0.40", "0.42",
                "0.44", "0.45", "0.46", "0.48", "0.5", "0.50", "0.52", "0.55", "0.60"),
        **_same("the weight 1/10 of position 10 under 1/i", "0.1"),
    },
    "02_precision_recall": _same(INPUTS + " (scores of the tie example)", "0.9", "0.8", "0.1"),
    "04_average_precision": {
        **_same(SOURCE, "0.67", "2.27", "2.434"),
        **_same(INPUTS + " (the tied score)", "0.7"),
    },
    "05_average_recall": _same(BY_HAND + " (sums of the recall values listed)", "5.5", "1.5"),
    "06_pr_curves": {
        **_same(LEVELS + " (the 11 recall levels)", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6",
                "0.7", "0.8", "0.9"),
        **_same(BY_HAND + " (lambda R for R = 3)", "1.2", "2.4", "3.2"),
    },
    "08_ndcg": _same(INPUTS + " (a logarithm base)", "1.5"),
    "09_err": _same(SOURCE + " (its factor 1 - 0.047) and the factor 1 - pi_2 beside it",
                    "0.953", "0.625"),
    "10_rbp": {
        **_same(BY_HAND + " (the powers of p = 0.8 in the table headed p^(i-1))", "0.8",
                "0.64", "0.512", "0.4096", "0.32768", "0.262144"),
        **_same(BY_HAND + " (RBP and RBP + residual, derived just above)", "0.4755",
                "0.6852"),
        **_same(LEVELS, "0.5", "0.001"),
    },
    "11_mean_rank": _same(ILLUSTRATION, "0.41"),
    "12_rank_correlation": {
        **_same(BY_HAND + " (average ranks of ties)", "2.5", "3.5", "4.5", "6.5"),
        **_same(ILLUSTRATION, "0.9"),
    },
    "14_evaluating_a_run": {
        **_same(ILLUSTRATION, "0.5"),
        **_same(LEVELS + " (the values P@10 can take)", "0.1"),
        **_same(INPUTS + " (exercise scores)", "0.9"),
    },
    "15_conventions": {
        **_same(INPUTS + " (the tied score)", "0.5"),
        **_same(BY_HAND + " (X's DCG@3, the same under both gains)", "2.1309"),
        **_same(ILLUSTRATION, "0.43", "0.6"),
    },
    "16_incomplete_judgments": _same(INPUTS + " (the range of system quality in the "
                                     "simulation, as its code sets it)", "0.6", "1.2"),
    "17_comparing_systems": {
        **_same(LEVELS + " (quantiles, significance levels, the customary power)", "2.5",
                "97.5", "0.05", "0.8"),
        **_same(INPUTS + " (differences, p-values and estimates the example or exercise "
                "gives; B's skill advantage as the code sets it)", "0.10", "0.15", "0.20",
                "0.08", "0.02", "0.1", "0.2", "0.012", "0.030", "0.041", "0.047"),
        **_same(BY_HAND, "0.55", "1.5", "0.4", "0.5", "0.14", "0.036", "0.090", "0.123",
                "0.002"),
        **_same(ILLUSTRATION, "0.3"),
    },
    "18_case_study": _same(LEVELS, "0.5", "0.05"),
    "22_online_evaluation": {
        **_same(INPUTS + " (the noise and the patience of the simulated users)", "1.6"),
        **_same(LEVELS + " (the one-sided 95 % level and its normal quantile)", "0.95",
                "1.645"),
    },
    "23_counterfactual_evaluation": {
        **_same(INPUTS + " (examination probabilities of the worked examples)", "0.5",
                "0.25", "0.6", "0.3", "0.2"),
        **_same(INPUTS + " (the simulation's noise and exploration rate)", "1.5", "0.7"),
        **_same(LEVELS + " (the propensity floors compared)", "0.01", "0.02", "0.05"),
    },
}


def _math_spans(markdown: str, parser) -> list[str]:
    """The math of one Markdown text: inline and display math, amsmath, {math} bodies,
    also inside prose directives (a dropdown's solution)."""
    spans: list[str] = []
    for token in parser.parse(markdown):
        if token.type in MATH_TOKENS:
            spans.append(token.content)
        elif token.type in ("fence", "colon_fence"):
            match = re.match(r"^\{([^}]+)\}", token.info.strip())
            if match and match.group(1) == "math":
                spans.append(_directive_body(token.content))
            elif match and match.group(1) not in CODE_DIRECTIVES:
                spans.extend(_math_spans(_directive_body(token.content), parser))
        for child in token.children or []:
            if child.type in MATH_TOKENS:
                spans.append(child.content)
    return spans


def bare_math_decimals(markdown: str, parser=None) -> list[str]:
    """Decimals typed bare in math (see the rule above), constants not yet removed."""
    parser = parser or _markdown_parser()
    found: list[str] = []
    for span in _math_spans(markdown, parser):
        decimals = DECIMAL.findall(span)
        if not decimals:
            continue
        rest = DECIMAL.sub(" ", span)
        if ARITHMETIC.search(rest) or COMPARISON.search(rest) or CONTINUATION.match(span):
            continue
        setting = PARAMETER_SETTING.match(span)
        if setting and setting.group(1) in PARAMETERS:
            continue
        found.extend(decimals)
    return found


def unlisted_math_decimals(markdown: str, stem: str, parser=None,
                           constants: dict[str, dict[str, str]] | None = None) -> list[str]:
    """Bare decimals in math that the notebook ``stem`` does not list as constants."""
    listed = (MATH_CONSTANTS if constants is None else constants).get(stem, {})
    return [x for x in bare_math_decimals(markdown, parser) if x not in listed]


def typed_math_results(notebook: Path, parser=None) -> list[str]:
    """'file, cell N: number' for every bare decimal in math not listed as a constant."""
    return markdown_findings(
        notebook, lambda markdown, p: unlisted_math_decimals(markdown, notebook.stem, p),
        parser)


def test_the_math_guard_flags_bare_values_and_only_those():
    """The control for the guard below, on a synthetic cell."""
    text = "\n".join([
        "A ranker scores $0.50$, the baseline $\\text{nDCG@}10 = 0.43$.",
        "By hand: $\\rho = 1 - 36/990 = 0.9636$, then nDCG $= 0.4796$.",
        "Levels $F \\le 0.05$ and $\\lambda \\in \\{0, 0.1, \\dots, 1\\}$; with $p = 0.8$ and",
        "$k_1 = 1.2$ set, not computed. Prose 0.25 is the other guard's.",
        "",
        "$$", "\\mathrm{MAP} = 0.7083", "$$ (eq-b)",
        "",
        ":::{dropdown} Solution",
        "The mean is $0.1$; here $\\{0.2\\}$ too, and $s = 0.3$.",
        ":::",
        "",
        "```{math}", "x = 2.5", "```",
        "",
        "```python", "y = $3.5$", "```",
    ])  # fmt: skip
    assert bare_math_decimals(text) == ["0.50", "0.43", "0.7083", "0.1", "0.2", "2.5"]


def test_the_math_guard_lets_listed_constants_through_and_nothing_else():
    text = "Typed $0.50$ and $0.43$; $0.43$ again.\n"
    constants = {"99_synthetic": {"0.43": "an input of the synthetic example"}}
    assert unlisted_math_decimals(text, "99_synthetic", constants={}) == ["0.50", "0.43", "0.43"]
    assert unlisted_math_decimals(text, "99_synthetic", constants=constants) == ["0.50"]
    # a constant listed for one chapter does not excuse the same number in another
    assert unlisted_math_decimals(text, "98_other", constants=constants) == [
        "0.50", "0.43", "0.43"]


@pytest.mark.parametrize("notebook", sorted((ROOT / "chapters").glob("*.ipynb")),
                         ids=lambda p: p.stem)
def test_no_computed_value_typed_in_chapter_math(notebook):
    problems = typed_math_results(notebook)
    assert not problems, (
        "decimals typed bare in math (a value with no derivation beside it): glue them, "
        "show the arithmetic that gives them, or, if they are constants of the chapter "
        "(inputs, levels, numbers a source prints), list them in MATH_CONSTANTS with the "
        "reason:\n" + "\n".join(problems)
    )


def backtick_prose_directives(markdown: str, parser=None) -> list[str]:
    """Directives with a prose body (a dropdown, an admonition) fenced with backticks.

    The book fences them with colons (``:::{dropdown} Solution``): Jupyter, Colab and
    GitHub show a backtick fence as a code block, so a reader running the notebook
    would see a solution's Markdown and TeX as raw text; a colon fence they render.
    Directives whose body is code or data (``{math}``, ``{code-cell}``) keep backticks.
    """
    parser = parser or _markdown_parser()
    found: list[str] = []
    for token in parser.parse(markdown):
        if token.type not in ("fence", "colon_fence"):
            continue
        match = re.match(r"^\{([^}]+)\}", token.info.strip())
        if not match or match.group(1) in CODE_DIRECTIVES:
            continue
        if token.type == "fence":
            found.append(f"{token.markup}{{{match.group(1)}}}")
        found.extend(backtick_prose_directives(_directive_body(token.content), parser))
    return found


def test_the_fence_guard_finds_backtick_prose_directives_and_only_those():
    text = "\n".join([
        ":::{dropdown} Solution", "````{note}", "Nested.", "````", ":::", "",
        "```{admonition} Head", "Body", "```", "",
        "```{math}", "x = 1", "```", "",
        "```python", "x = 1", "```",
    ])  # fmt: skip
    assert backtick_prose_directives(text) == ["````{note}", "```{admonition}"]


@pytest.mark.parametrize("notebook", sorted((ROOT / "chapters").glob("*.ipynb")),
                         ids=lambda p: p.stem)
def test_prose_directives_use_colon_fences(notebook):
    problems = markdown_findings(notebook, backtick_prose_directives)
    assert not problems, (
        "prose directives fenced with backticks, which Jupyter and Colab show as a code "
        "block; fence them with colons (:::{dropdown} ... :::):\n" + "\n".join(problems)
    )


@pytest.mark.parametrize("notebook", sorted((ROOT / "chapters").glob("*.ipynb")),
                         ids=lambda p: p.stem)
def test_no_control_character_in_chapter_prose(notebook):
    """A TeX command written from Python without a raw string loses its backslash:
    "\\bigl" becomes a backspace and "igl", "\\text" a tab and "ext", "\\alpha" a bell."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    problems = []
    for index, cell in enumerate(nb["cells"]):
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for match in re.finditer(r"[\x00-\x08\x0b-\x1f\t]", source):
            context = source[max(0, match.start() - 20): match.end() + 20]
            problems.append(f"{notebook.relative_to(ROOT)}, cell {index}: {context!r}")
    assert not problems, "control characters (a lost backslash?):\n" + "\n".join(problems)
