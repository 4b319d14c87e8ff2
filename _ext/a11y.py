"""Accessible HTML where Sphinx, docutils or a notebook's output would write markup that an
accessibility audit (axe-core, WCAG 2.1 AA; tests/site/test_a11y.py) rejects.

1. Citation lists. docutils (0.21) writes the citations of a docstring's References
section as ``<div role="list">`` holding ``<div role="doc-biblioentry">`` entries.
WAI-ARIA 1.3 deprecates ``doc-biblioentry``, so a list of them is a list with no list
items (axe: aria-required-children, critical; aria-deprecated-role and
aria-allowed-role on each entry). Here each entry is a ``listitem`` of its list, so a
screen reader still announces "list, N items" -- through the HTML translator's citation
methods, for every translator the theme puts together.

2. Empty header cells. pandas writes the top-left corner of a DataFrame's HTML table
(above the index) as an empty header cell ``<th></th>``, and one more in the index-name
row of a table whose columns or index have names; a Markdown table with an empty first
header cell becomes one too. A header cell that names nothing is an error for a screen
reader (axe: empty-table-header). The notebooks keep their stored outputs as pandas
printed them: when the website is built, every empty ``<th>`` of a notebook's HTML output
and every empty header entry of a text table becomes an empty data cell ``<td>``, which
looks the same.

3. Theme templates: ``templates/`` (``templates_path`` in _config.yml) overrides two of
the theme's buttons so that what they show is their accessible name (the search button
shows "Search Ctrl+K"; the colour-mode button's icons are decoration). _static/a11y.css
holds the colours and focus rings, _static/a11y.js keeps the focus on a button pressed
with the keyboard (sphinx-book-theme blurs it).

4. Hidden code cells. myst-nb's toggle of a cell tagged ``hide-input`` carries the
accessible name "Toggle hidden content" beside its visible text "Show code cell source";
after the build the aria-label is removed, so the visible text is the name.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

# An empty header cell: nothing, or only white space or a no-break space, inside.
EMPTY_TH = re.compile(r"<th(\s[^>]*)?>((?:\s|&nbsp;|&#160;|\u00a0)*)</th>", re.IGNORECASE)


def empty_headers_to_cells(html: str) -> str:
    """Every empty ``<th>`` of an HTML fragment as an empty ``<td>`` (attributes kept).

    Example: ``<tr><th></th><th>P@2</th></tr>`` -> ``<tr><td></td><th>P@2</th></tr>``.
    """
    return EMPTY_TH.sub(lambda m: f"<td{m.group(1) or ''}>{m.group(2)}</td>", html)


class EmptyTableHeaders(SphinxPostTransform):
    """A notebook output's raw HTML tables: empty header cells become data cells."""

    default_priority = 400
    formats = ("html",)

    def run(self, **kwargs) -> None:
        for raw in self.document.findall(nodes.raw):
            if "html" not in raw.get("format", "").split() or "<th" not in raw.astext():
                continue
            text = raw.astext()
            fixed = empty_headers_to_cells(text)
            if fixed != text:
                raw.children = [nodes.Text(fixed)]


class AccessibleHTML:
    """Mixed into the HTML translator: a citation is a ``listitem`` of its ``list``; an
    empty cell in a table's header row is a data cell ``<td>``, not a header ``<th>``."""

    def visit_citation(self, node) -> None:
        if not isinstance(node.previous_sibling(), type(node)):
            self.body.append('<div role="list" class="citation-list">\n')
        self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))

    def visit_entry(self, node) -> None:
        super().visit_entry(node)
        if not node.astext().strip() and self.body[-1].startswith("<th"):
            self.body[-1] = "<td" + self.body[-1][len("<th"):]
            self.context[-1] = "</td>\n"


def accessible_translator(app: Sphinx) -> None:
    """After the theme has set up its translator (pydata-sphinx-theme does so at
    builder-inited), put these fixes in front of whatever class it chose."""
    if app.builder.format != "html":
        return
    base = app.registry.translators.get(app.builder.name) or app.builder.default_translator_class
    if issubclass(base, AccessibleHTML):
        return
    translator = type(f"Accessible{base.__name__}", (AccessibleHTML, base), {})
    app.set_translator(app.builder.name, translator, override=True)


# myst-nb's toggle of a hidden code cell ("Show code cell source") names itself "Toggle
# hidden content", which is not its visible text (axe: label-content-name-mismatch):
# without the aria-label, the visible text is the name.
HIDDEN_CELL_TOGGLE = '<summary aria-label="Toggle hidden content">'


def name_hidden_cell_toggles(app: Sphinx, exception) -> None:
    """After an HTML build: every hidden-cell toggle takes its visible text as its name."""
    if exception is not None or app.builder.format != "html":
        return
    from pathlib import Path

    for page in Path(app.outdir).rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        if HIDDEN_CELL_TOGGLE in html:
            page.write_text(html.replace(HIDDEN_CELL_TOGGLE, "<summary>"), encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.add_post_transform(EmptyTableHeaders)
    app.connect("builder-inited", accessible_translator, priority=900)
    app.connect("build-finished", name_hidden_cell_toggles)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
