"""Make rankeval's numpydoc reference lists safe to put many on one page.

numpydoc docstrings number their references ``.. [1]`` and cite them as ``[1]_``.
reStructuredText reads a numeric label as a footnote named by its number, so two
functions on the API page that both list a reference ``[1]`` collide ("Duplicate
explicit target name"), a citation may jump to another function's list, and a
reference that the text does not cite is a warning ("Footnote [1] is not
referenced"), which the strict build turns into an error.

Before napoleon reads a docstring, this renames each numeric label after its
function -- ``[1]`` in ``rankeval.ndcg`` becomes the citation ``[api-ndcg-1]``
-- so every label on the page is unique. After reading, it shows the labels as
the docstring wrote them, ``[1]``, and counts each renamed entry as cited: a
numpydoc References section is a reading list, and an entry the text does not
cite is no error (other citations in the book are still checked).

Each docstring's "Chapter: :doc:`/chapters/...`" line is moved to just under the
one-line summary, wherever the docstring put it, so every entry shows its chapter
link in the same place (napoleon would otherwise read a Chapter line that follows
a Raises section as an exception named "Chapter").

It also checks that the API page is complete: a name in ``rankeval.__all__``
that no page documents is a warning, so the strict build fails and says which
entry to add to reference/api.rst.

Two directives keep the API page in step with the measure registry
(``rankeval.measures.DECLARATIONS``), so that a new measure needs no edit of the
page (ARCHITECTURE.md, "Adding a measure"):

- ``.. rankeval-summary::`` is the page's summary: every public name, in the order
  the page documents them, one table per section of the page (under a rubric with
  the section's title), then any name the page does not place;
- ``.. rankeval-measure-functions::`` documents every metric function of the
  registry that no ``autofunction`` line of the page already documents.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

DEFINITION = re.compile(r"^(\s*\.\.\s+)\[(\d+)\]")
CITATION = re.compile(r"\[(\d+)\]_")
RENAMED = re.compile(r"^api-[A-Za-z0-9_]+-(\d+)$")
CHAPTER = re.compile(r"^\s*Chapters?:\s*:doc:`[^`]+`.*$")


def chapter_under_summary(app: Sphinx, what, name: str, obj, options, lines: list[str]) -> None:
    chapters = [line.strip() for line in lines if CHAPTER.match(line)]
    if not chapters:
        return
    kept = [line for line in lines if not CHAPTER.match(line)]
    # the summary is the first paragraph; the Chapter lines follow it as one paragraph
    end = next((i for i, line in enumerate(kept) if not line.strip()), len(kept))
    lines[:] = kept[:end] + [""] + chapters + kept[end:]


def rename_references(app: Sphinx, what, name: str, obj, options, lines: list[str]) -> None:
    prefix = "api-" + (name.rsplit(".", 1)[-1].strip("_") or "ref")
    for i, line in enumerate(lines):
        line = DEFINITION.sub(lambda m: f"{m.group(1)}[{prefix}-{m.group(2)}]", line)
        lines[i] = CITATION.sub(lambda m: f"[{prefix}-{m.group(1)}]_", line)


class ShowOriginalLabels(SphinxTransform):
    """``[api-ndcg-1]`` -> ``[1]`` in the text; links and ids keep the unique name."""

    default_priority = 700  # after Sphinx turns citation references into pending_xref (619)

    def apply(self, **kwargs) -> None:
        cited = self.env.get_domain("citation").citation_refs
        for citation in self.document.findall(nodes.citation):
            for label in citation.findall(nodes.label):
                match = RENAMED.match(label.astext())
                if match:
                    cited.setdefault(label.astext(), set()).add(self.env.docname)
                    label.replace(label[0], nodes.Text(match.group(1)))
        for ref in self.document.findall(pending_xref):
            match = RENAMED.match(ref.get("reftarget", ""))
            if ref.get("refdomain") == "citation" and match:
                for inline in ref.findall(nodes.inline):
                    inline.replace(inline[0], nodes.Text(f"[{match.group(1)}]"))


def check_api_complete(app: Sphinx, env) -> None:
    try:
        import rankeval
    except ImportError:
        return
    documented = env.get_domain("py").objects
    for name in getattr(rankeval, "__all__", []):
        if f"rankeval.{name}" not in documented:
            logger.warning(
                "rankeval.%s is in rankeval.__all__ but no page documents it: "
                "add it to reference/api.rst", name, type="api", subtype="missing",
            )


DOCUMENTED = re.compile(r"^\.\.\s+auto(?:function|class)::\s+rankeval\.(\w+)\s*$", re.M)


def _page_names(directive: Directive) -> list[str]:
    """The rankeval names the page documents with autofunction/autoclass, in order."""
    source = Path(directive.state.document.current_source)
    return DOCUMENTED.findall(source.read_text(encoding="utf-8"))


def _registry_functions() -> list[str]:
    from rankeval.measures import DECLARATIONS

    names = [d.function.__name__ for d in DECLARATIONS.values() if d.function is not None]
    return list(dict.fromkeys(names))


class _Generated(Directive):
    has_content = False

    def lines(self) -> list[str]:  # pragma: no cover - overridden
        raise NotImplementedError

    def run(self):
        node = nodes.container()
        self.state.nested_parse(StringList(self.lines(), "<rankeval registry>"),
                                self.content_offset, node)
        return node.children


UNDERLINE = re.compile(r"^([-~=^\"'])\1{3,}\s*$")


def _page_sections(directive: Directive) -> list[tuple[str, list[str]]]:
    """The page's (section title, rankeval names documented under it), in order."""
    source = Path(directive.state.document.current_source)
    lines = source.read_text(encoding="utf-8").splitlines()
    sections: list[tuple[str, list[str]]] = []
    title = None
    for i, line in enumerate(lines):
        if (i + 1 < len(lines) and UNDERLINE.match(lines[i + 1]) and line.strip()
                and not line.startswith("..")):
            title = line.strip().replace("``", "")
            continue
        found = DOCUMENTED.match(line)
        if found and title is not None:
            if not sections or sections[-1][0] != title:
                sections.append((title, []))
            sections[-1][1].append(found.group(1))
    return sections


class RankevalSummary(_Generated):
    """An autosummary of ``rankeval.__all__`` in the page's order, one short table
    under a rubric per section of the page (one long table is too tall on a phone)."""

    def lines(self):
        import rankeval

        public = set(rankeval.__all__)
        seen: set[str] = set()
        out: list[str] = []

        def table(title, names):
            names = [n for n in dict.fromkeys(names) if n in public and n not in seen]
            if names:
                seen.update(names)
                out.extend([f".. rubric:: {title}", "", ".. autosummary::",
                            "   :nosignatures:", "", *[f"   {n}" for n in names], ""])

        for title, names in _page_sections(self):
            table(title, names)
        table("Metric functions of the registry", _registry_functions())
        table("Other names", sorted(public - seen))
        return out


class RankevalMeasureFunctions(_Generated):
    """autofunction entries for the registry's functions the page does not document."""

    def lines(self):
        shown = set(_page_names(self))
        return [f".. autofunction:: rankeval.{n}" for n in _registry_functions()
                if n not in shown]


def setup(app: Sphinx) -> dict:
    app.add_directive("rankeval-summary", RankevalSummary)
    app.add_directive("rankeval-measure-functions", RankevalMeasureFunctions)
    app.connect("env-check-consistency", check_api_complete)
    # Priority below napoleon's (500): runs first, on the numpydoc text.
    app.connect("autodoc-process-docstring", rename_references, priority=400)
    app.connect("autodoc-process-docstring", chapter_under_summary, priority=400)
    app.add_transform(ShowOriginalLabels)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
