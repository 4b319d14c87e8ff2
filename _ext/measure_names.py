"""The cheat sheet's name columns, read from the measure registry.

Two roles render a measure's names as inline code, so that reference/cheatsheet.md
types no trec_eval or ir_measures name by hand (issue 36):

- ``{trec-eval-names}`AP, AP@k``` gives trec_eval's printed names of the measures
  (``map``, ``map_cut_k``; :func:`rankeval.measures.trec_eval_name`), or "—" when
  trec_eval has none of them;
- ``{measure-names}`P@k``` gives the registry's spelling (``P@k``;
  ``str(parse_measure(...))``), the name ir_measures, :func:`rankeval.evaluate` and
  ``rankeval-eval`` read. A name the registry lists as an alias of the measure
  (``alpha_nDCG``, ir_measures' spelling of ndeval's ``alpha-nDCG``) is kept as written.

The role's text is one or more measures separated by commas; ``@k`` stands for any
cut-off. A name the registry does not know is an error of the build.
"""

from __future__ import annotations

import re

from docutils import nodes

from rankeval.measures import parse_measure, trec_eval_name

#: a cut-off no row uses, put in for ``k`` and read back as ``k``
SENTINEL = 987654321
SPLIT = re.compile(r",\s*(?![^()]*\))")  # commas outside parentheses


def _measures(text: str):
    for item in SPLIT.split(text.strip()):
        item = item.strip()
        symbolic = item.endswith("@k")
        measure = parse_measure(item[:-1] + str(SENTINEL) if symbolic else item)
        yield item, measure


def _k(name: str) -> str:
    return name.replace(str(SENTINEL), "k")


def trec_eval_names(text: str) -> list[str]:
    """trec_eval's printed names of the measures in ``text`` (empty: it has none)."""
    return [_k(n) for _, m in _measures(text) if (n := trec_eval_name(m)) is not None]


def measure_names(text: str) -> list[str]:
    """The registry's spelling of each measure in ``text`` (an alias is kept as written)."""
    out = []
    for item, m in _measures(text):
        given = re.split(r"[@(]", item, maxsplit=1)[0]
        name = str(m)
        if given in m.declaration.aliases:
            name = given + name[len(m.name) :]
        out.append(_k(name))
    return out


def _role(function):
    def role(name, rawtext, text, lineno, inliner, options=None, content=None):
        try:
            names = function(text)
        except ValueError as error:
            message = inliner.reporter.error(f"{name}: {error}", line=lineno)
            return [inliner.problematic(rawtext, rawtext, message)], [message]
        if not names:
            return [nodes.Text("—")], []
        out: list[nodes.Node] = []
        for i, n in enumerate(names):
            if i:
                out.append(nodes.Text(", "))
            out.append(nodes.literal(n, n))
        return out, []

    return role


def setup(app):
    app.add_role("trec-eval-names", _role(trec_eval_names))
    app.add_role("measure-names", _role(measure_names))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
