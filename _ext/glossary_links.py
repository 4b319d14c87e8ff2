"""Link each glossary term at its first use on a chapter page.

The glossary (reference/glossary.md) promises that every chapter links a term where it
first uses it. Authors link some terms by hand ({term} roles, mostly in the objectives
cells); this post-transform links the rest: on every page under ``chapters/``, the first
occurrence in running text of each glossary term that the page does not link yet becomes
a link to the term's entry, styled as a {term} reference.

Running text is a paragraph, list item, table cell or admonition body outside code, math,
literals, titles, captions, existing links and cell outputs. A term matches whole words,
case-insensitively, with an optional plural (``s``, ``es``, ``y`` -> ``ies``). A few terms that are also common
verbs ("run", "gain", "discount", "partition") are linked only where an author wrote
{term}; see ``VERB_TERMS``.
"""

from __future__ import annotations

import re

from docutils import nodes

# glossary terms that are also ordinary verbs: linked only by an explicit {term} role
VERB_TERMS = {"run", "gain", "discount", "partition"}

SKIP = (nodes.FixedTextElement, nodes.literal, nodes.math, nodes.math_block, nodes.title,
        nodes.caption, nodes.reference, nodes.raw, nodes.term, nodes.rubric,
        nodes.target, nodes.comment, nodes.image, nodes.field_name)


def term_pattern(term: str) -> re.Pattern:
    """A whole-word, case-insensitive pattern for `term` and its plural."""
    if term.endswith("y") and len(term) > 2:  # query, queries
        body = re.escape(term[:-1]) + r"(?:y|ies)"
    else:
        body = re.escape(term) + r"(?:s|es)?"
    return re.compile(r"(?<![\w-])" + body + r"(?![\w-])", re.IGNORECASE)


def running_text(document: nodes.Node) -> list[nodes.Text]:
    """The Text nodes of `document` a term may be linked in, in document order."""
    out = []
    for text in document.findall(nodes.Text):
        parent, skip = text.parent, False
        while parent is not None:
            if isinstance(parent, SKIP) or "cell_output" in parent.get("classes", []):
                skip = True
                break
            if parent.__class__.__name__ in ("pending_xref", "index", "glossary"):
                skip = True
                break
            parent = parent.parent
        if not skip:
            out.append(text)
    return out


def link_first_uses(document: nodes.Node, terms: dict[str, str], linked: set[str],
                    make_link) -> list[str]:
    """Link the first use of every term of `terms` (term -> anchor) not in `linked`.

    Parameters
    ----------
    document : docutils node
        The page.
    terms : dict
        Glossary term -> its anchor id on the glossary page.
    linked : set
        Anchors the page links already (their terms are left alone).
    make_link : callable
        ``make_link(anchor, text) -> node``, the link to insert for a matched text.

    Returns
    -------
    list of str
        The terms linked, in the order they were processed (longest first).
    """
    done = []
    for term in sorted(terms, key=lambda t: (-len(t), t)):
        anchor = terms[term]
        if anchor in linked or term.lower() in VERB_TERMS:
            continue
        pattern = term_pattern(term)
        for text in running_text(document):
            match = pattern.search(str(text))
            if not match:
                continue
            value = str(text)
            parent = text.parent
            pieces = []
            if match.start():
                pieces.append(nodes.Text(value[:match.start()]))
            pieces.append(make_link(anchor, match.group(0)))
            if match.end() < len(value):
                pieces.append(nodes.Text(value[match.end():]))
            index = parent.index(text)
            parent.remove(text)
            for offset, piece in enumerate(pieces):
                parent.insert(index + offset, piece)
            linked.add(anchor)
            done.append(term)
            break
    return done


def setup(app):
    from sphinx.transforms.post_transforms import SphinxPostTransform
    from sphinx.util.nodes import make_refnode

    class GlossaryFirstUse(SphinxPostTransform):
        """Link the first use of each glossary term on a chapter page."""

        default_priority = 30  # after the references are resolved (10)

        def run(self, **kwargs):
            docname = self.env.docname
            if not docname.startswith(self.config.glossary_link_folders):
                return
            std = self.env.get_domain("std")
            terms, where = {}, {}
            for (objtype, name), (doc, anchor) in std.objects.items():
                if objtype == "term":
                    terms[name], where[anchor] = anchor, doc
            linked = set()
            for ref in self.document.findall(nodes.reference):
                uri = ref.get("refuri", "") + "#" + ref.get("refid", "")
                if "#term-" in uri:
                    linked.add(uri.rsplit("#", 1)[1])

            def make_link(anchor, text):
                inline = nodes.inline(text, text, classes=["xref", "std", "std-term"])
                return make_refnode(self.app.builder, docname, where[anchor], anchor, inline,
                                    title=text)

            link_first_uses(self.document, terms, linked, make_link)

    app.add_config_value("glossary_link_folders", ("chapters/",), "env")
    app.add_post_transform(GlossaryFirstUse)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
