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
entry to add to the API pages (reference/api*.rst).

Two directives keep the API page in step with the measure registry
(``rankeval.measures.DECLARATIONS``), so that a new measure needs no edit of the
page (ARCHITECTURE.md, "Adding a measure"):

- ``.. rankeval-summary::`` is a page's summary: the public names it documents, in
  its order, one table per section of the page (under a rubric with the section's
  title), and on the page of ``rankeval-measure-functions`` the registry's functions;
- ``.. rankeval-measure-functions::`` documents every metric function of the
  registry that no ``autofunction`` line of the page already documents;
- ``.. rankeval-measure-catalogue::`` is the catalogue of measures: one entry per
  declaration, with its names in rankeval, trec_eval, ir_measures and ranx, its
  summary, parameters, cut-off rule, direction, function and chapter.

``.. rankeval-cli-help::`` prints the command line's ``--help``, generated from its
parser. And a transform undoes docutils' e-mail autolinking: ``IPrec@0.1`` or
``P@1000`` in plain text is a measure name, not an address, so an autolinked
"address" becomes an inline literal, as a measure name is written.

A docstring may name an object as its own module sees it (``tukey_hsd`` in
``rankeval.stats.multiple``); a reference that stays unresolved is linked to the one
entry that documents the very same Python object (same_object), and only then.

It also loads pdf_edition.py (this folder): the PDF's appendices and tall tables.
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
                "add it to a page of the API reference (reference/api*.rst)", name, type="api", subtype="missing",
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
    """An autosummary of the names of ``rankeval.__all__`` a page documents, in the
    page's order, one short table under a rubric per section of the page (one long
    table is too tall on a phone). The API spans several pages; check_api_complete
    warns of a public name that none documents."""

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
        source = Path(self.state.document.current_source).read_text(encoding="utf-8")
        if ".. rankeval-measure-functions::" in source:  # the page that documents them
            table("Metric functions of the registry", _registry_functions())
        return out


class RankevalMeasureFunctions(_Generated):
    """autofunction entries for the registry's functions the page does not document."""

    def lines(self):
        shown = set(_page_names(self))
        return [f".. autofunction:: rankeval.{n}" for n in _registry_functions()
                if n not in shown]


# ranx's name of each measure it computes (ranx.metrics' metric_functions_switch, ranx
# 0.3): tests/test_api.py checks each against ranx and against parse_measure
RANX = {
    "P": "precision@k", "R": "recall@k", "Hits": "hits@k", "Success": "hit_rate@k",
    "F1": "f1@k", "Rprec": "r-precision", "RR": "mrr@k", "AP": "map@k", "DCG": "dcg@k",
    "nDCG": "ndcg@k", "Bpref": "bpref", "RBP": "rbp.95 (p = 0.95)",
}

CUTOFF_RULE = {
    "optional": "optional ``@k``: the top k ranks; without it, the whole ranking",
    "required": "required ``@k``: the top k ranks",
    "none": "none: the whole ranking (or the retrieved set)",
    "recall": "``@r``: a recall level r in [0, 1]",
    "multiple": "``@m``: a depth of m times the query's number of relevant documents",
}
AGGREGATE = {
    "mean": "the mean over queries",
    "sum": "summed over queries",
    "gmean": "the geometric mean over queries (each value floored at 1e-5)",
}
CHAPTER_DOC = re.compile(r":doc:`(/chapters/\w+)`")


def _ir_measures_name(d) -> str | None:
    """ir_measures' spelling of a measure, when ir_measures (pinned in
    requirements-test.txt) has it under the measure's name or an alias."""
    try:
        from ir_measures.measures import registry
    except ImportError:  # pragma: no cover - the book's environment has it
        return None
    for name in (d.name, *d.aliases):
        if name in registry:
            return name
    return None


def _chapter(d) -> str | None:
    """The chapter a measure's function (or else its scoring module) names."""
    import inspect
    import sys

    sources = [d.function, sys.modules.get(getattr(d.score, "__module__", ""))]
    for source in sources:
        found = CHAPTER_DOC.search(inspect.getdoc(source) or "") if source else None
        if found:
            return found.group(1)
    return None


def _bound(x: float) -> str:
    return {float("inf"): "∞", float("-inf"): "−∞"}.get(x, f"{x:g}")


def measure_entry(d) -> list[str]:
    """The catalogue's reStructuredText for one declaration."""
    import rankeval
    from rankeval.measures.registry import _CUT_LETTER, show

    spelling = d.name + {"optional": "@k", "required": "@k", "recall": "@r",
                         "multiple": "@m"}.get(d.cutoff, "")
    label = "measure-" + re.sub(r"[^a-z0-9]+", "-", d.name.lower()).strip("-")
    names = [f"rankeval ``{spelling}``"]
    if d.aliases:
        names[0] += " (also " + ", ".join(f"``{a}``" for a in d.aliases) + ")"
    cut = d.trec_eval_cut and d.trec_eval_cut + _CUT_LETTER.get(d.cutoff, "_k")
    trec = [f"``{n}``" for n in (d.trec_eval, cut) if n]
    if trec:
        names.append("trec_eval " + ", ".join(trec))
    ir = _ir_measures_name(d)
    if ir:
        names.append(f"ir_measures ``{ir}``")
    if d.name in RANX:
        ranx, _, note = RANX[d.name].partition(" ")
        names.append(f"ranx ``{ranx}``" + (f" {note}" if note else ""))
    summary = d.summary.replace("*", r"\*")
    out = [f".. _{label}:", "", f".. rubric:: {d.name}", "   :class: measure-name", "",
           summary[:1].upper() + summary[1:] + ".", "",
           f":Names: {'; '.join(names)}"]
    if d.params:
        out.append(":Parameters:")
        for p in d.params:
            default = "" if p.default in (None, ()) else f" (default ``{show(p.default)}``)"
            out.append(f"   - ``{p.name}``{default}: {p.doc.replace('*', chr(92) + '*')}")
    out.append(f":Cut-off: {CUTOFF_RULE.get(d.cutoff, d.cutoff)}")
    direction = "lower is better" if d.lower_is_better else "higher is better"
    out.append(f":Value: {direction}; a query's value lies in "
               f"[{_bound(d.bounds[0])}, {_bound(d.bounds[1])}]; "
               f"{AGGREGATE.get(d.aggregate, d.aggregate)}")
    if d.needs == "subtopics":
        out.append(":Needs: subtopic judgments: :func:`rankeval.evaluate_diversity`")
    function = d.function and d.function.__name__
    if function and function in rankeval.__all__:
        out.append(f":Function: :func:`rankeval.{function}`")
    chapter = _chapter(d)
    if chapter:
        out.append(f":Chapter: :doc:`{chapter}`")
    return [*out, ""]


class RankevalMeasureCatalogue(_Generated):
    """One entry per measure of ``rankeval.measures.DECLARATIONS``, in the registry's
    order, under a section per family (the families of ``rankeval.measures.table``)."""

    def run(self):
        from rankeval.measures import DECLARATIONS
        from rankeval.measures.registry import _family

        families: dict[str, list] = {}
        for d in DECLARATIONS.values():
            families.setdefault(_family(d), []).append(d)
        out: list[str] = []
        for family, decls in families.items():
            title = family.replace("``", "")
            out += [title, "-" * len(title), ""]
            for d in decls:
                out += measure_entry(d)
        node = nodes.section()
        node.document = self.state.document
        from sphinx.util.nodes import nested_parse_with_titles

        nested_parse_with_titles(self.state, StringList(out, "<rankeval registry>"), node)
        return node.children


HELP_WIDTH = 80  # the book's longest code line: it fits the column at 1300 px


def cli_help() -> str:
    """``python -m rankeval --help`` as its parser prints it, HELP_WIDTH characters a line:
    argparse wraps the help texts at $COLUMNS, and a line of option names it does not
    wrap is broken after a comma. The list of measures at its end is left out (the
    catalogue's page has it)."""
    import contextlib
    import io
    import os

    from rankeval import cli

    text = io.StringIO()
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(HELP_WIDTH + 2)  # argparse keeps a margin of 2
    try:
        with contextlib.redirect_stdout(text), contextlib.suppress(SystemExit):
            cli.main(["--help"])
    finally:
        if columns is None:
            os.environ.pop("COLUMNS")
        else:
            os.environ["COLUMNS"] = columns
    from rankeval.measures import describe

    # the measures' lines (describe(), up to 150 characters) are the measure catalogue's
    # page on the website
    shown = text.getvalue().replace(
        describe().rstrip("\n"), "  [one line per measure: the measure catalogue lists them]")
    lines: list[str] = []
    for line in shown.splitlines():
        while len(line) > HELP_WIDTH and ", " in line[:HELP_WIDTH]:
            cut = line.rindex(", ", 0, HELP_WIDTH) + 1
            indent = len(line) - len(line.lstrip()) + 2
            lines.append(line[:cut])
            line = " " * indent + line[cut:].lstrip()
        lines.append(line)
    return "\n".join(lines) + "\n"


class RankevalCliHelp(Directive):
    """The command line's ``--help``, from its parser, as a literal block."""

    has_content = False

    def run(self):
        text = cli_help()
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


class MeasureNamesAreNotAddresses(SphinxTransform):
    """docutils links ``name@domain`` in plain text as an e-mail address, so that
    ``IPrec@0.1`` or ``Judged@10`` became a mailto link: an autolinked address
    (its text is its address) becomes an inline literal, as a measure name is written."""

    default_priority = 100

    def apply(self, **kwargs) -> None:
        for ref in list(self.document.findall(nodes.reference)):
            uri = ref.get("refuri", "")
            if uri.startswith("mailto:") and uri[len("mailto:"):] == ref.astext():
                ref.replace_self(nodes.literal(ref.astext(), ref.astext()))


def _import(path: str):
    """The Python object a dotted name stands for, or None."""
    import importlib

    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for part in parts[i:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


_DOCUMENTED: dict[int, tuple[object, dict]] = {}


def _documented(env) -> dict:
    """id(object) -> [(name, entry)] of every documented rankeval object, once a build
    (the missing-reference event comes after every page is read)."""
    cached = _DOCUMENTED.get(id(env))
    if cached is None or cached[0] is not env:
        table: dict = {}
        for name, entry in env.get_domain("py").objects.items():
            if name.startswith("rankeval") and not entry.aliased:
                obj = _import(name)
                if obj is not None and not isinstance(obj, (str, int, float, tuple, dict)):
                    table.setdefault(id(obj), []).append((name, entry))
        cached = _DOCUMENTED[id(env)] = (env, table)
    return cached[1]


def same_object(app: Sphinx, env, node, contnode):
    """Resolve a Python cross-reference to the entry that documents the same object.

    A docstring names a function as its module sees it (``tukey_hsd`` inside
    ``rankeval.stats.multiple``, ``rankeval.fusion.fuse``), while the reference
    documents it once, under its public name (``rankeval.tukey_hsd``). When the
    reference's target, read in its module's context, is the very object (``is``) that
    one documented entry stands for, the reference links to that entry; anything else
    stays unresolved (a warning in the strict build).
    """
    if node.get("refdomain") != "py" or not node.get("reftarget"):
        return None
    target = node["reftarget"].lstrip(".~")
    module = node.get("py:module")
    candidates = [f"{module}.{target}", target] if module else [target]
    wanted = next((obj for obj in map(_import, candidates) if obj is not None), None)
    if wanted is None or isinstance(wanted, (str, int, float, tuple, dict)):
        return None  # values compare equal without being one documented entry
    found = _documented(env).get(id(wanted), [])
    if len(found) != 1:
        return None
    from sphinx.util.nodes import make_refnode

    name, entry = found[0]
    return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                        contnode, name)


def ignore_literal_types(app: Sphinx, config) -> None:
    """numpydoc types that name no class: ``callable`` and the quoted values of a set
    of choices (``{"optional", "required"}``, which napoleon splits into words)."""
    config.nitpick_ignore_regex = [*config.nitpick_ignore_regex,
                                   ("py:class", r'callable|"[^"]*"')]


def catalogue_for_table(app: Sphinx, what, name: str, obj, options, lines: list[str]) -> None:
    """rankeval.measures' docstring carries the registry's tables of measures (for
    ``help(rankeval.measures)``); in the book the measure catalogue, one entry per
    measure, takes their place (three tall tables did not fit a phone's screens)."""
    if what != "module" or name != "rankeval.measures":
        return
    from rankeval.measures import table

    text = "\n".join(lines)
    tables = table()
    if tables in text:
        pointer = ("The :doc:`measure catalogue </reference/api_measures>` lists every "
                   "measure, generated from ``DECLARATIONS``.")
        lines[:] = text.replace(tables, pointer).split("\n")


def setup(app: Sphinx) -> dict:
    app.connect("autodoc-process-docstring", catalogue_for_table, priority=400)
    app.setup_extension("pdf_edition")  # the PDF's appendices and tall tables (_ext/)
    app.connect("missing-reference", same_object)
    app.connect("config-inited", ignore_literal_types)
    app.add_directive("rankeval-summary", RankevalSummary)
    app.add_directive("rankeval-measure-catalogue", RankevalMeasureCatalogue)
    app.add_directive("rankeval-cli-help", RankevalCliHelp)
    app.add_transform(MeasureNamesAreNotAddresses)
    app.add_directive("rankeval-measure-functions", RankevalMeasureFunctions)
    app.connect("env-check-consistency", check_api_complete)
    # Priority below napoleon's (500): runs first, on the numpydoc text.
    app.connect("autodoc-process-docstring", rename_references, priority=400)
    app.connect("autodoc-process-docstring", chapter_under_summary, priority=400)
    app.add_transform(ShowOriginalLabels)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
