"""_ext/glossary_links.py: the first use of a glossary term on a chapter page is linked.

Tested on docutils trees parsed from reStructuredText (no Sphinx build): the first match
in running text is linked, once per term, longer terms first, never inside code, math,
titles or existing links, and a term the page links already is left alone. The built
site's chapter pages are checked in tests/site when a build is there.
"""

import sys
from pathlib import Path

from docutils import nodes
from docutils.core import publish_doctree

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))
import glossary_links  # noqa: E402

TERMS = {"average precision": "term-average-precision", "mean average precision": "term-mean-ap",
         "query": "term-query", "run": "term-run"}


def linked(text: str, already=()):
    doc = publish_doctree(text)
    made = []

    def make_link(anchor, shown):
        made.append((anchor, shown))
        return nodes.reference(shown, shown, refuri="glossary.html#" + anchor)

    glossary_links.link_first_uses(doc, dict(TERMS), set(already), make_link)
    return doc, made


def test_first_use_in_running_text_is_linked_once_and_longest_first():
    doc, made = linked("Title query\n===========\n\n``query`` in code, then mean average "
                       "precision, then average precision and two queries. A query again.\n")
    assert ("term-mean-ap", "mean average precision") in made
    assert ("term-average-precision", "average precision") in made
    assert ("term-query", "queries") in made  # the plural, the first use outside code
    assert len(made) == 3
    refs = [r.astext() for r in doc.findall(nodes.reference)]
    assert refs == ["mean average precision", "average precision", "queries"]
    assert "Title query" in doc.astext()  # titles are not linked
    assert not list(doc.findall(nodes.title))[0].next_node(nodes.reference)


def test_a_term_linked_already_and_a_verb_term_are_left_alone():
    _, made = linked("A query and a run.\n", already={"term-query"})
    assert made == []


def test_no_link_inside_math_or_a_link():
    _, made = linked("See `average precision <http://x>`_ and :math:`query`.\n")
    assert made == []


def test_the_built_chapters_link_their_glossary_terms():
    """On the built site (skipped without one): every chapter page links the glossary,
    each link's anchor exists, and no term is linked by the transform twice."""
    import re

    site = ROOT / "_build" / "html"
    if not (site / "reference" / "glossary.html").is_file():
        import pytest

        pytest.skip("no built website in _build/html")
    anchors = set(re.findall(r'id="(term-[^"]+)"',
                             (site / "reference" / "glossary.html").read_text(encoding="utf-8")))
    for notebook in sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb")):
        page = site / "chapters" / f"{notebook.stem}.html"
        html = page.read_text(encoding="utf-8")
        linked = re.findall(r'href="\.\./reference/glossary\.html#(term-[^"]+)"', html)
        assert len(set(linked)) >= 5, page.name
        assert set(linked) <= anchors, page.name
