"""Bibliography labels in the book's in-text style: [Järvelin and Kekäläinen, 2002].

The chapters cite author-year (``bibtex_reference_style: author_year``): one author
"Kendall, 1938", two "Järvelin and Kekäläinen, 2002", three or more "Chapelle et al.,
2009"; a work with no author or editor is cited by its title ("Ranking Metrics, n.d.").
pybtex's own label styles give "[JK02]" or "[1]" instead, so the list on
reference/bibliography.md would not match what the text shows. This extension
registers a pybtex formatting style, ``bookauthoryear``, that labels each entry with
exactly the in-text form and sorts the list by that label; ``bibtex_default_style``
in _config.yml selects it.
"""

from __future__ import annotations

import pybtex.plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting import BaseSortingStyle
from sphinx.application import Sphinx

NAME = "bookauthoryear"


def _plain(latex: str) -> str:
    """LaTeX field text as the reader sees it (braces and accents resolved)."""
    return Text.from_latex(latex).render_as("text")


def _surname(person) -> str:
    return _plain(" ".join(person.prelast_names + person.last_names))


def label_of(entry) -> str:
    """The in-text author-year form of one entry, without brackets."""
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    if not persons:
        who = _plain(entry.fields.get("title", entry.key))
    elif len(persons) == 1:
        who = _surname(persons[0])
    elif len(persons) == 2:
        who = f"{_surname(persons[0])} and {_surname(persons[1])}"
    else:
        who = f"{_surname(persons[0])} et al."
    return f"{who}, {_plain(entry.fields.get('year', 'n.d.'))}"


class AuthorYearLabels(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        for entry in sorted_entries:
            yield label_of(entry)


class ByLabel(BaseSortingStyle):
    def sorting_key(self, entry):
        return label_of(entry).casefold()


class BookAuthorYearStyle(UnsrtStyle):
    default_label_style = AuthorYearLabels
    default_sorting_style = ByLabel


def setup(app: Sphinx) -> dict:
    pybtex.plugin.register_plugin(
        "pybtex.style.formatting", NAME, BookAuthorYearStyle, force=True
    )
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
