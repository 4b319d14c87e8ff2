"""The PDF edition's layout: where the appendices start, and tall tables that may break.

Loaded by api_docstrings.py (``app.setup_extension``); it changes only the LaTeX build.

Appendices. On the website the numbered parts of _toc.yml are the chapters and every
later part (the user guide, the reference) is unnumbered. The PDF says the same: the
first page of the first part without ``numbered: true`` starts the appendices
(LaTeX's ``\\appendix``), so the guide's pages are appendices A, B, ... and not
chapters 26, 27, ... A ``\\appendix`` that a page's raw LaTeX puts elsewhere is dropped,
so that the lettering starts once, at that page.

Tall tables. Sphinx sets a table of up to 30 rows in a ``tabulary``, which cannot break
across pages: a tall one moves to the next page and leaves most of the page before it
blank. A table of more than ``BREAKABLE_ROWS`` rows gets the class
``longtable``, so it breaks across pages like the longer ones, and its columns widths
from their text (column_widths), so that they wrap. Only a table placed
directly in a section: in an admonition, a list, a notebook cell's container or another
table LaTeX's ``longtable`` cannot go (or may not).
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

BREAKABLE_ROWS = 15
LINE = 90  # characters of a table's small type on a line of the page
APPENDIX = re.compile(r"^[ \t]*\\appendix[ \t]*$\n?", re.M)


def first_unnumbered_file(toc: str) -> str | None:
    """The first file of the first part of a jb-book _toc.yml that is not numbered."""
    import yaml

    parts = (yaml.safe_load(toc) or {}).get("parts") or []
    for part in parts:
        if not part.get("numbered") and part.get("chapters"):
            return part["chapters"][0]["file"]
    return None


def column_widths(columns: list[list[str]], line: int = LINE) -> list[int]:
    """Widths, in characters, of a table's columns on a line of ``line`` characters: each
    column first gets its longest word (which cannot break), then the rest of the line
    goes to the columns in proportion to what their longest cell (up to 60 characters)
    still needs; a column that needs no more gets no more."""
    words = [max((len(w) for cell in col for w in cell.split()), default=1) + 1
             for col in columns]
    wanted = [max(words[i], min(60, max((len(c) for c in col), default=1)))
              for i, col in enumerate(columns)]
    rest = line - sum(words)
    extra = [w - m for w, m in zip(wanted, words, strict=True)]
    if rest <= 0 or not sum(extra):
        return words
    share = min(1.0, rest / sum(extra))
    return [m + round(e * share) for m, e in zip(words, extra, strict=True)]


class PdfLayout(SphinxPostTransform):
    """On the LaTeX builder's one assembled doctree: ``\\appendix`` before the first
    unnumbered page, breakable tall tables."""

    default_priority = 900
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        toc = Path(self.app.srcdir, "_toc.yml")
        start = first_unnumbered_file(toc.read_text(encoding="utf-8")) if toc.is_file() else None
        placed = False
        if start is not None:
            for raw in list(self.document.findall(nodes.raw)):
                if "latex" in raw.get("format", "").split() and APPENDIX.search(raw.astext()):
                    text = APPENDIX.sub("", raw.astext())
                    raw.replace_self(nodes.raw(text, text, format="latex"))
            for node in self.document.findall(addnodes.start_of_file):
                if node.get("docname") == start:
                    mark = "% the pages of the unnumbered parts are appendices\n\\appendix\n"
                    node.insert(0, nodes.raw(mark, mark, format="latex"))
                    placed = True
                    break
        if start is not None and not placed:
            from sphinx.util import logging

            logging.getLogger(__name__).warning(
                "pdf_edition: %s (the first unnumbered page of _toc.yml) is not in the "
                "LaTeX document, so no page starts the appendices", start)
        for table in list(self.document.findall(nodes.table)):
            if self._stands_in_text(table) and self._rows(table) > BREAKABLE_ROWS:
                self._breakable(table)

    @staticmethod
    def _breakable(table: nodes.table) -> None:
        """longtable, with columns that wrap: Sphinx sets a longtable's columns as
        ``l`` (one line each, off the page) unless widths are given (column_widths)."""
        tgroup = next(iter(table.findall(nodes.tgroup)), None)
        if tgroup is None:
            return
        colspecs = [c for c in tgroup.children if isinstance(c, nodes.colspec)]
        texts: list[list[str]] = [[] for _ in colspecs]
        for row in tgroup.findall(nodes.row):
            entries = [e for e in row.children if isinstance(e, nodes.entry)]
            if len(entries) != len(colspecs) or any(e.get("morecols") for e in entries):
                return  # a spanning cell: leave the table to Sphinx
            for i, entry in enumerate(entries):
                texts[i].append(entry.astext())
        for colspec, width in zip(colspecs, column_widths(texts), strict=True):
            colspec["colwidth"] = width
        table["classes"] = [*table["classes"], "longtable", "colwidths-given"]

    @staticmethod
    def _rows(table: nodes.table) -> int:
        return sum(len(body.children) for body in table.findall(nodes.tbody))

    @staticmethod
    def _stands_in_text(table: nodes.table) -> bool:
        return isinstance(table.parent, nodes.section)


def setup(app: Sphinx) -> dict:
    app.add_post_transform(PdfLayout)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
