"""Chapters that read well outside the website: the notebooks of the zip and the launch copies.

A chapter's Markdown is written for the book's build (MyST): numbers are glue roles
(``{glue:text}`ch08_ndcg:.4f```) that the build fills from the cells' stored outputs, and
exercises, solutions and dropdowns are colon-fenced directives. Jupyter, Colab and GitHub
show both as raw text. :func:`export_notebook` returns a copy of a notebook in plain
Markdown that every notebook viewer renders:

* every glue role becomes its number, formatted as the role asks, read from the value
  the notebook itself stored (myst-nb's ``application/papermill.record/...`` outputs);
* an exercise becomes a bold "Exercise 8.3." paragraph; a solution in one cell, and any
  dropdown, an HTML ``<details>`` block that opens on a click; a solution that spans
  cells (its check code) a "Solution to Exercise 8.3" heading with the cells below it;
  any other directive (a note, an admonition) a bold title with its body;
* glossary and index roles become their text, a reference to an exercise its number,
  and a link to another chapter a Markdown link to its notebook.

Standard library only: imported by _ext/book_downloads.py (the zip) and by the launch
copies (_ext/launch_copies.py), and by the tests.
"""

from __future__ import annotations

import ast
import copy
import json
import re

GLUE = re.compile(r"\{glue(?::(\w*))?\}`([^`:]+)(?::([^`]*))?`")
OPEN = re.compile(r"^(?P<fence>:{3,})\{(?P<name>[\w-]+)\}[ \t]*(?P<arg>.*)$")
OPTION = re.compile(r"^:[\w-]+:")
EXERCISE_LABEL = re.compile(r"ch(\d+)-ex-(\d+)")


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


def glued(notebook: dict) -> dict[str, dict[str, str]]:
    """name -> {mime type: text} of every value the notebook glued."""
    found: dict[str, dict[str, str]] = {}
    prefix = "application/papermill.record/"
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            for mime, value in output.get("data", {}).items():
                if name and mime.startswith(prefix):
                    found.setdefault(name, {})[mime[len(prefix):]] = _text(value)
    return found


def _value(text: str):
    """The Python value behind a stored text/plain form (a number, a string, a bool)."""
    text = text.strip()
    match = re.fullmatch(r"np\.\w+\((.*)\)", text)
    try:
        return ast.literal_eval(match.group(1) if match else text)
    except (ValueError, SyntaxError):
        return text


def format_glue(kind: str | None, name: str, spec: str | None, values: dict) -> str:
    """The text a ``{glue:kind}`name:spec``` role shows in the book."""
    if name not in values:
        raise KeyError(f"the notebook glues nothing named {name!r}")
    stored = values[name]
    if kind == "md" and "text/markdown" in stored:
        return stored["text/markdown"].strip()
    value = _value(stored.get("text/plain", ""))
    if spec:
        if isinstance(value, str):
            raise ValueError(f"{name}: cannot format the text {value!r} with {spec!r}")
        return format(value, spec)
    return value if isinstance(value, str) else str(value)


def _exercise_number(label: str) -> str:
    match = EXERCISE_LABEL.fullmatch(label.strip())
    if not match:
        raise ValueError(f"not an exercise label (chNN-ex-K): {label!r}")
    return f"{int(match.group(1))}.{int(match.group(2))}"


def roles(text: str, values: dict) -> str:
    """Glue roles -> numbers; term and index roles -> their text; exercise refs -> numbers."""
    text = GLUE.sub(lambda m: format_glue(m.group(1), m.group(2), m.group(3), values), text)
    text = re.sub(r"\{(?:term|index)\}`([^`<]*?)\s*<[^`]*>`", r"\1", text)
    text = re.sub(r"\{(?:term|index)\}`([^`]*)`", r"\1", text)
    text = re.sub(r"\{(?:numref|ref)\}`(ch\d+-ex-\d+)`",
                  lambda m: f"Exercise {_exercise_number(m.group(1))}", text)
    # a link to another chapter opens its notebook (the zip and the launch branch keep
    # the chapters side by side)
    text = re.sub(r"\{doc\}`(?:([^`<]*?)\s*<)?(\d\d_\w+)>?`",
                  lambda m: f"[{m.group(1) or m.group(2)}]({m.group(2)}.ipynb)", text)
    return text


def directives(text: str) -> str:
    """Colon-fenced directives -> plain Markdown and HTML that notebook viewers render."""
    out: list[str] = []
    stack: list[tuple[str, str]] = []  # (fence, closing text)
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        opened = OPEN.match(line)
        if opened:
            fence, name, arg = opened["fence"], opened["name"], opened["arg"].strip()
            i += 1
            options = {}
            while i < len(lines) and OPTION.match(lines[i]):
                key, _, value = lines[i][1:].partition(":")
                options[key] = value.strip()
                i += 1
            if name == "exercise":
                number = _exercise_number(options.get("label", ""))
                title = f" ({arg})" if arg else ""
                out.append(f"**Exercise {number}.**{title}")
                stack.append((fence, ""))
            elif name == "solution":
                out += ["<details>", f"<summary>Solution to Exercise {_exercise_number(arg)}"
                        "</summary>", ""]  # fmt: skip
                stack.append((fence, "\n</details>"))
            elif name == "solution-start":
                out.append(f"#### Solution to Exercise {_exercise_number(arg)}")
                stack.append((fence, ""))
            elif name == "solution-end":
                out += ["", "---"]
                stack.append((fence, ""))
            elif name == "dropdown":
                out += ["<details>", f"<summary>{arg or 'More'}</summary>", ""]
                stack.append((fence, "\n</details>"))
            else:
                title = arg or name.replace("-", " ").capitalize()
                out.append(f"**{title}.**")
                stack.append((fence, ""))
            continue
        if stack and line.strip() == stack[-1][0]:
            closing = stack.pop()[1]
            if closing:
                out.append(closing)
            i += 1
            continue
        out.append(line)
        i += 1
    if stack:
        raise ValueError(f"unclosed directive fence {stack[-1][0]!r}")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


def export_notebook(notebook: dict) -> dict:
    """A copy of `notebook` whose Markdown reads well in Jupyter, Colab and on GitHub."""
    values = glued(notebook)
    result = copy.deepcopy(notebook)
    for cell in result.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        text = directives(roles(_text(cell["source"]), values))
        cell["source"] = text.splitlines(keepends=True)
    return result


def exported_text(path) -> str:
    """The exported notebook at `path` as nbformat would write it (JSON, indent 1)."""
    from pathlib import Path

    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    return json.dumps(export_notebook(notebook), sort_keys=True, indent=1,
                      ensure_ascii=False) + "\n"
