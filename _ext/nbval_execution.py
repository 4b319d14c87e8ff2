"""The execution page of a checked build: run times from the nbval run that checked it.

``python3 tasks.py check`` executes every chapter once, under nbval, which also proves
that each stored output equals the fresh one; the strict book build that follows then
renders those stored outputs (``execute_notebooks: off``) instead of executing every
chapter a second time. myst-nb's execution table (reference/execution.md) would then be
empty, so this extension fills it from nbval's JUnit report (``nbval_report``, set by
tasks.py): per chapter, the sum of its cells' run times, method "nbval", and whether
every cell passed. When the build executes the notebooks itself (``tasks.py build``),
or no report is given, it does nothing and the table shows myst-nb's own data.

Either way the table's Status column says "passed" or "failed" in words: myst-nb writes
a bare emoji (✅ or ❌), which a reader without an emoji font sees as an empty box.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from docutils import nodes
from myst_nb.sphinx_ import NbMetadataCollector
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform

# myst-nb's status marks (myst_nb/ext/execution_tables.py) -> the words shown instead
STATUS_WORDS = {"\u2705": "passed", "\u274c": "failed"}


def read_report(path: Path) -> dict[str, dict]:
    """docname -> {runtime, succeeded} from an nbval JUnit XML report."""
    found: dict[str, dict] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        classname = case.get("classname", "")
        if not classname.endswith(".ipynb"):
            continue
        docname = classname[: -len(".ipynb")].replace(".", "/")
        entry = found.setdefault(docname, {"runtime": 0.0, "succeeded": True})
        entry["runtime"] += float(case.get("time") or 0.0)
        if case.find("failure") is not None or case.find("error") is not None:
            entry["succeeded"] = False
    return found


def load(app: Sphinx) -> None:
    app.env.nbval_report = {}
    name = app.config.nbval_report
    if not name or app.config.nb_execution_mode != "off" or app.builder.format != "html":
        return  # the PDF edition is built beside nbval, before its report exists
    path = Path(app.srcdir) / name
    if not path.is_file():
        raise ExtensionError(f"nbval_execution: nbval_report {path} does not exist")
    report = read_report(path)
    mtime = path.stat().st_mtime
    for entry in report.values():
        entry.update(mtime=mtime, method="nbval", error=None, traceback=None)
    app.env.nbval_report = report


def record(app: Sphinx, doctree) -> None:
    data = getattr(app.env, "nbval_report", {}).get(app.env.docname)
    if data:
        NbMetadataCollector.set_exec_data(app.env, app.env.docname, dict(data))


class StatusInWords(SphinxPostTransform):
    """The execution table's Status cells: "passed" or "failed" instead of the emoji.

    Runs after myst-nb's ExecutionStatsPostTransform (priority 8) has replaced the
    table's placeholder, and only on a page that has the table. A failed run's cell keeps
    myst-nb's abbreviation, whose title holds the error.
    """

    default_priority = 9

    def run(self, **kwargs) -> None:
        docdata = NbMetadataCollector.get_doc_data(self.env).get(self.env.docname, {})
        if not docdata.get("has_exec_table"):
            return
        for table in self.document.findall(nodes.table):
            for entry in table.findall(nodes.entry):
                for text in list(entry.findall(nodes.Text)):
                    word = STATUS_WORDS.get(text.astext().strip())
                    if word:
                        text.parent.replace(text, nodes.Text(word))


def setup(app: Sphinx) -> dict:
    app.add_config_value("nbval_report", "", "env")
    app.connect("builder-inited", load)
    app.connect("doctree-read", record)
    app.add_post_transform(StatusInWords)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
