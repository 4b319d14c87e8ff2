"""Chapters in plain Jupyter Markdown: what the downloads hold.

The chapters' Markdown cells are MyST, written for the book's build: roles such as
``{eq}``, ``{cite:p}``, ``{numref}``, ``{ref}``, ``{doc}`` and ``{glue:text}``, labelled
equations ``$$ ... $$ (label)``, targets ``(label)=`` and ``:::`` directives. Plain
Jupyter, JupyterLab without jupyterlab-myst, Colab and GitHub show all of that as raw
text. :func:`plain` returns a copy of a notebook in Markdown they all render:

* an equation reference becomes its number, ``(8.3)``, and a labelled equation carries
  that number as ``\\tag{8.3}``; a figure reference becomes ``Figure 8.2``, an exercise
  reference ``Exercise 8.3``, a section reference the section's title; a reference into
  another chapter links that chapter's notebook (the downloads keep them side by side);
* a citation becomes ``(Author, Year)`` (``{cite:p}``) or ``Author (Year)``
  (``{cite:t}``), linked to the bibliography page;
* ``(label)=`` targets disappear; a display formula that uses ``&`` or ``\\\\`` outside
  an environment (the book's MathJax wraps it in ``split``) is wrapped in ``aligned``;
* ``{py:func}`` and ``{code}`` roles become code spans; glue roles become the glued values
  stored in the notebook's outputs, and directives bold headers and ``<details>`` blocks
  (``_ext/export_notebooks.py``, which this module runs last).

The numbers are computed as Sphinx numbers them (``numfig`` with ``numfig_secnum_depth:
1`` and ``math_numfig``): per chapter, in document order, the labelled equations and the
captioned figures (myst-nb's ``mystnb.figure`` cell metadata). tests/test_exports.py
compares them with the built website when one is there.

Used by the notebooks zip and the per-page ``.ipynb`` downloads (``_ext/book_downloads.py``)
and by the student and teacher editions (``tools/editions.py``). Standard library only
(the launch copies run it with the system's Python).

    python tools/plain_notebook.py chapters/08_ndcg.ipynb OUT.ipynb
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))
from export_notebooks import export_notebook  # noqa: E402

ROLE = re.compile(r"\{(?P<role>[\w:.-]+)\}`(?P<body>[^`]*)`")
ROLE_OR_CODE = re.compile(ROLE.pattern + r"|(?P<code>`+)[^`]+(?P=code)")
TARGET = re.compile(r"^\((?P<label>[\w.:-]+)\)=[ \t]*$", re.M)
LABELLED_MATH = re.compile(r"\$\$(?P<body>.+?)\$\$[ \t]*\((?P<label>[\w.:-]+)\)", re.S)
DISPLAY_MATH = re.compile(r"\$\$(?P<body>.+?)\$\$", re.S)
ENVIRONMENT = re.compile(r"\\begin\{(aligned|align\*?|alignat\*?|cases|array|[pbvBV]?matrix|split|"
                         r"gathered|gather\*?|eqnarray\*?|equation\*?|multline\*?|subarray|smallmatrix)\}")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$", re.M)
# pages of the book that are not notebooks: {ref} and {doc} to them link the website
SITE_PAGES = ("reference/", "intro")


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


def _markdown(notebook: dict) -> list[str]:
    return [_text(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"]


def _plain_title(title: str) -> str:
    """A heading's text without roles and Markdown emphasis (as a reader sees it)."""
    title = re.sub(r"\{[\w:.-]+\}`(?:([^`<]*?)\s*<[^`]*>|([^`]*))`",
                   lambda m: (m.group(1) or m.group(2) or "").strip(), title)
    return re.sub(r"[*_]", "", title).strip()


def jupyter_anchor(title: str) -> str:
    """The anchor Jupyter (classic, Lab) gives a heading: its text, spaces as '-'."""
    return "-".join(title.replace("`", "").split())


@functools.lru_cache(maxsize=4)
def book_index(root: Path = ROOT) -> dict:
    """Every label of the book: equations, figures, exercises, sections, pages, citations.

    Returns
    -------
    dict
        ``equations`` and ``figures``: label -> (number "8.3", notebook stem);
        ``exercises``: label -> (number, stem); ``sections``: label -> (title, docname,
        anchor); ``titles``: docname -> title; ``citations``: key -> (author text, year).
    """
    root = Path(root)
    index: dict = {"equations": {}, "figures": {}, "exercises": {}, "sections": {},
                   "titles": {}, "citations": citations(root / "references.bib")}
    for path in sorted((root / "chapters").glob("[0-9][0-9]_*.ipynb")):
        stem, chapter = path.stem, int(path.stem[:2])
        notebook = json.loads(path.read_text(encoding="utf-8"))
        equations = figures = 0
        for cell in notebook["cells"]:
            text = _text(cell["source"])
            if cell["cell_type"] == "code":
                figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
                if figure.get("caption"):
                    figures += 1
                    if figure.get("name"):
                        index["figures"][figure["name"]] = (f"{chapter}.{figures}", stem)
                continue
            if cell["cell_type"] != "markdown":
                continue
            for match in re.finditer(r"\$\$.+?\$\$(?:[ \t]*\(([\w.:-]+)\))?|"
                                     r":label:\s*(ch\d+-ex-\d+)", text, re.S):
                if match.group(1):
                    equations += 1
                    index["equations"][match.group(1)] = (f"{chapter}.{equations}", stem)
                elif match.group(2):
                    number = re.fullmatch(r"ch(\d+)-ex-(\d+)", match.group(2))
                    index["exercises"][match.group(2)] = (
                        f"{int(number.group(1))}.{int(number.group(2))}", stem)
            _sections(text, f"chapters/{stem}", index)
    for path in sorted((root / "guide").glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for text in _markdown(notebook):
            _sections(text, f"guide/{path.stem}", index)
    for path in [root / "intro.md", *sorted((root / "reference").glob("*.md"))]:
        _sections(path.read_text(encoding="utf-8"), path.relative_to(root).with_suffix("").as_posix(),
                  index)
    return index


def _sections(text: str, docname: str, index: dict) -> None:
    """Record the ``(label)=`` targets of `text` (the heading after each) and the title."""
    for match in TARGET.finditer(text):
        heading = HEADING.search(text, match.end())
        if heading and not text[match.end():heading.start()].strip():
            title = _plain_title(heading.group(2))
            index["sections"][match.group("label")] = (title, docname, jupyter_anchor(title))
    first = HEADING.search(text)
    if first and docname not in index["titles"] and first.group(1) == "#":
        index["titles"][docname] = _plain_title(first.group(2))


ACCENTS = {"'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303", "c": "\u0327"}


def _latex_text(value: str) -> str:
    """BibTeX field text as a reader sees it: {\\'a} -> á, braces and ``--`` dropped."""
    import unicodedata

    value = re.sub(r"\{?\\([\'`\"^~c])\s*\{?(\w)\}?\}?",
                   lambda m: unicodedata.normalize("NFC", m.group(2) + ACCENTS[m.group(1)]), value)
    value = value.replace("---", "\u2014").replace("--", "\u2013")
    return " ".join(value.replace("{", "").replace("}", "").split())


def bib_entries(bib: Path) -> dict[str, dict[str, str]]:
    """key -> {field: raw value} of a BibTeX file (braced values, as references.bib has)."""
    text = Path(bib).read_text(encoding="utf-8")
    entries = {}
    for match in re.finditer(r"@(\w+)\s*\{\s*([^,\s]+)\s*,", text):
        fields, i = {}, match.end()
        while True:
            field = re.compile(r"\s*(\w+)\s*=\s*").match(text, i)
            if not field:
                break
            i = field.end()
            if text[i] == "{":
                depth, j = 0, i
                while True:
                    depth += {"{": 1, "}": -1}.get(text[j], 0)
                    if depth == 0:
                        break
                    j += 1
                value, i = text[i + 1:j], j + 1
            else:
                end = re.compile(r"[^,}\s]+").match(text, i)
                value, i = end.group(0), end.end()
            fields[field.group(1).lower()] = value
            comma = re.compile(r"\s*,").match(text, i)
            if not comma:
                break
            i = comma.end()
        entries[match.group(2)] = {"type": match.group(1).lower(), **fields}
    return entries


def citations(bib: Path) -> dict[str, tuple[str, str]]:
    """key -> (authors as cited, year): "Järvelin and Kekäläinen", "Chapelle et al.";
    an entry without authors is cited by its title, in italics."""
    if not Path(bib).is_file():
        return {}
    out = {}
    for key, entry in bib_entries(bib).items():
        people = entry.get("author") or entry.get("editor") or ""
        names = [n.split(",")[0].strip() if "," in n else n.strip().split()[-1]
                 for n in re.split(r"\s+and\s+", people) if n.strip()]
        names = [_latex_text(n) for n in names]
        if not names:
            who = f"*{_latex_text(entry.get('title', key))}*"
        elif len(names) == 1:
            who = names[0]
        elif len(names) == 2:
            who = f"{names[0]} and {names[1]}"
        else:
            who = f"{names[0]} et al."
        out[key] = (who, _latex_text(entry.get("year", "n.d.")))
    return out


def site_of(repository: str) -> str:
    """The GitHub Pages address of `repository` (owner/name), where the workflow
    publishes the book."""
    owner, name = repository.split("/")
    return f"https://{owner.lower()}.github.io/{name}/"


def default_site() -> str:
    """The published website's address, when known: BOOK_SITE_URL, or GitHub Pages of
    BOOK_REPOSITORY (owner/name); else "" (links to other pages then point into the
    download's own files)."""
    site = os.environ.get("BOOK_SITE_URL", "").strip()
    repository = os.environ.get("BOOK_REPOSITORY", "").strip()
    if not site and re.fullmatch(r"[\w.-]+/[\w.-]+", repository):
        site = site_of(repository)
    return site and site.rstrip("/") + "/"


def _chapter_of(notebook: dict, index: dict) -> str | None:
    """The stem of the chapter `notebook` is (from its labels), or None (a guide)."""
    for text in _markdown(notebook):
        for label in re.findall(r":label:\s*(ch\d+-ex-\d+)", text):
            return index["exercises"][label][1]
        for match in LABELLED_MATH.finditer(text):
            if match.group("label") in index["equations"]:
                return index["equations"][match.group("label")][1]
    for cell in notebook["cells"]:
        name = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
        if name in index["figures"]:
            return index["figures"][name][1]
    return None


class _Resolver:
    def __init__(self, index: dict, here: str | None, site: str):
        self.index, self.here, self.site = index, here, site

    def link(self, text: str, stem: str | None, anchor: str = "") -> str:
        """`text` linked to chapter `stem` (a sibling notebook), or plain on its own page."""
        if stem is None or stem == self.here:
            return f"[{text}](#{anchor})" if anchor else text
        folder = "" if self.here else "../chapters/"  # a guide notebook links into chapters/
        return f"[{text}]({folder}{stem}.ipynb{'#' + anchor if anchor else ''})"

    def page(self, text: str, docname: str, anchor: str = "") -> str:
        """`text` linked to a page of the website (or a notebook of the downloads)."""
        if docname.startswith("chapters/"):
            return self.link(text, docname.split("/", 1)[1], anchor)
        if docname.startswith("guide/"):
            return f"[{text}](../{docname}.ipynb{'#' + anchor if anchor else ''})"
        if self.site:
            return f"[{text}]({self.site}{docname}.html)"
        return text

    def cite(self, keys: str, textual: bool) -> str:
        parts = []
        for key in (k.strip() for k in keys.split(",")):
            if key not in self.index["citations"]:
                raise KeyError(f"no entry {key!r} in references.bib")
            who, year = self.index["citations"][key]
            parts.append(f"{who} ({year})" if textual else f"{who}, {year}")
        text = "; ".join(parts)
        target = (f"{self.site}reference/bibliography.html" if self.site
                  else "../BIBLIOGRAPHY.md")
        return f"[{text}]({target})" if textual else f"([{text}]({target}))"

    def role(self, match: re.Match) -> str:
        role, body = match.group("role"), match.group("body")
        shown, _, label = body.rpartition("<")
        if label and body.rstrip().endswith(">"):
            shown, label = shown.strip(), label.rstrip(">").strip()
        else:
            shown, label = "", body.strip()
        if role == "eq":
            number, stem = self.index["equations"][label]
            return self.link(shown or f"({number})", stem)
        if role == "numref":
            for kind, word in (("figures", "Figure"), ("exercises", "Exercise")):
                if label in self.index[kind]:
                    number, stem = self.index[kind][label]
                    text = (shown.replace("%s", number).replace("{number}", number)
                            if shown else f"{word} {number}")
                    return self.link(text, stem)
            raise KeyError(f"numref to an unknown figure or exercise {label!r}")
        if role == "ref":
            if label in self.index["exercises"]:
                number, stem = self.index["exercises"][label]
                return self.link(shown or f"Exercise {number}", stem)
            if label == "genindex":
                return self.page(shown or "Index", "genindex")
            title, docname, anchor = self.index["sections"][label]
            return self.page(shown or title, docname, anchor)
        if role in ("cite:p", "cite", "cite:ps"):
            return self.cite(label, textual=False)
        if role in ("cite:t", "cite:ts"):
            return self.cite(label, textual=True)
        if role == "doc":
            target = label
            if not re.fullmatch(r"(?:\.\./chapters/|\./)?\d\d_\w+", target):
                base = "chapters" if self.here else ""
                docname = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
                docname = docname.lstrip("./")
                title = self.index["titles"].get(docname, docname.rsplit("/", 1)[-1])
                return self.page(shown or title, docname)
            stem = target.rsplit("/", 1)[-1]
            title = self.index["titles"].get(f"chapters/{stem}", stem)
            return self.link(shown or title, stem)
        if role.startswith("py:"):
            name = label.lstrip("~")
            if label.startswith("~"):
                name = name.rsplit(".", 1)[-1]
            suffix = "()" if role in ("py:func", "py:meth") else ""
            return f"`{shown or name + suffix}`"
        if role == "code":
            return f"`{body}`"
        return match.group(0)  # glue, term, index: export_notebooks handles them


def plain_math(body: str, number: str | None = None) -> str:
    """A display formula that plain MathJax renders; with `number`, tagged (8.3)."""
    if ("&" in body or "\\\\" in body) and not ENVIRONMENT.search(body):
        body = f"\n\\begin{{aligned}}{body.rstrip()}\n\\end{{aligned}}\n"
    if number:
        body = body.rstrip() + f" \\tag{{{number}}}\n"
    return f"$${body}$$"


def plain_markdown(text: str, resolver: _Resolver) -> str:
    """One Markdown cell without the MyST that export_notebooks leaves."""
    text = TARGET.sub("", text)
    text = LABELLED_MATH.sub(
        lambda m: plain_math(m.group("body"), resolver.index["equations"][m.group("label")][0]),
        text)
    text = DISPLAY_MATH.sub(lambda m: plain_math(m.group("body")) if "\\tag{" not in m.group(0)
                            else m.group(0), text)
    # roles, outside code spans (a role shown as code stays as it is)
    text = ROLE_OR_CODE.sub(lambda m: resolver.role(m) if m.group("role") else m.group(0), text)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


def plain(notebook: dict, *, chapter: str | None = None, site: str | None = None,
          root: Path = ROOT) -> dict:
    """A copy of `notebook` whose Markdown renders in plain Jupyter, Colab and on GitHub.

    Parameters
    ----------
    notebook : dict
        A chapter or guide notebook as nbformat reads it (JSON), with its outputs (the
        glued values are read from them).
    chapter : str, optional
        The notebook's file stem ("08_ndcg"); found from its labels when not given.
    site : str, optional
        The published website's address, for links to its other pages and its
        bibliography; by default :func:`default_site`.
    root : Path
        The book's checkout (for the labels of the other chapters and references.bib).

    Returns
    -------
    dict
        The new notebook; the code cells and outputs are unchanged.

    Notes
    -----
    Raises KeyError naming a label that no chapter defines.

    Example
    -------
    >>> import json
    >>> nb = json.loads((ROOT / "chapters" / "08_ndcg.ipynb").read_text(encoding="utf-8"))
    >>> "{eq}" in json.dumps(plain(nb))
    False
    """
    index = book_index(Path(root))
    here = chapter or _chapter_of(notebook, index)
    resolver = _Resolver(index, here, default_site() if site is None else site)
    result = copy.deepcopy(notebook)
    for cell in result.get("cells", []):
        if cell.get("cell_type") == "markdown":
            cell["source"] = plain_markdown(_text(cell["source"]), resolver).splitlines(keepends=True)
    # glue values, term and index roles, exercise and chapter links, directives
    result = export_notebook(result)
    for cell in result.get("cells", []):
        if cell.get("cell_type") == "markdown":  # what export_notebooks wrote, tidied
            cell["source"] = TARGET.sub("", _text(cell["source"])).splitlines(keepends=True)
    return result


def plain_text(path: Path, **kwargs) -> str:
    """The plain notebook at `path`, as nbformat writes it (JSON, indent 1, newline)."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    stem = Path(path).stem if Path(path).parent.name == "chapters" else None
    return json.dumps(plain(notebook, chapter=stem, **kwargs), sort_keys=True, indent=1,
                      ensure_ascii=False) + "\n"


def bibliography_markdown(root: Path = ROOT) -> str:
    """BIBLIOGRAPHY.md of the downloads: every entry of references.bib, as cited."""
    bib = Path(root) / "references.bib"
    entries, cited = bib_entries(bib), citations(bib)
    lines = ["# Bibliography", "",
             "The works the notebooks cite, by (Author, Year); the book's website lists "
             "them in full.", ""]
    for key in sorted(entries, key=lambda k: (cited[k][0].lstrip("*").lower(), cited[k][1], k)):
        fields = entries[key]
        who, year = cited[key]
        title = _latex_text(fields.get("title", ""))
        where = _latex_text(fields.get("journal") or fields.get("booktitle")
                            or fields.get("publisher") or "")
        link = fields.get("url") or (f"https://doi.org/{fields['doi']}" if "doi" in fields else "")
        line = f"- {who} ({year})." + (f" *{title}*." if not who.startswith("*") else "")
        line += f" {where}." if where else ""
        lines.append(line + (f" <{link}>" if link else ""))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        sys.exit(__doc__)
    Path(args[1]).write_text(plain_text(Path(args[0])), encoding="utf-8")


if __name__ == "__main__":
    main()
