"""Bibliography labels in the book's in-text style: [Järvelin and Kekäläinen, 2002].

The chapters cite author-year (``bibtex_reference_style: author_year``): one author
"Kendall, 1938", two "Järvelin and Kekäläinen, 2002", three or more "Chapelle et al.,
2009"; a work with no author or editor is cited by its title ("Ranking Metrics, n.d.").
pybtex's own label styles give "[JK02]" or "[1]" instead, so the list on
reference/bibliography.md would not match what the text shows. This extension
registers a pybtex formatting style, ``bookauthoryear``, that labels each entry with
exactly the in-text form, sorts the list by that label and keeps each title's case as
references.bib writes it; ``bibtex_default_style``
in _config.yml selects it.
"""

from __future__ import annotations

import functools

import pybtex.plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting import BaseSortingStyle
from pybtex.style.template import field, sentence
from sphinx.application import Sphinx

NAME = "bookauthoryear"


@functools.cache
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
    """Two works with one author-year form (two "Agarwal et al., 2019") get "2019a" and
    "2019b", in the list's order, so that every label on the page is unique."""

    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        labels = [label_of(e) for e in entries]
        seen: dict = {}
        for label in labels:
            seen[label] = seen.get(label, 0) + 1
        nth: dict = {}
        for label in labels:
            if seen[label] == 1:
                yield label
                continue
            nth[label] = nth.get(label, 0) + 1
            yield label + "abcdefghijklmnopqrstuvwxyz"[nth[label] - 1]


class ByLabel(BaseSortingStyle):
    def sorting_key(self, entry):
        return label_of(entry).casefold()


class BookAuthorYearStyle(UnsrtStyle):
    default_label_style = AuthorYearLabels
    default_sorting_style = ByLabel

    def format_title(self, e, which_field, as_sentence=True):
        """The title as references.bib writes it (title case), not lowercased.

        pybtex's unsrt turns an article's or a paper's title into sentence case, which
        also lowercases names and headings ("3.2.5 model evaluation -- part 4")."""
        title = field(which_field)
        return sentence[title] if as_sentence else title


def _remember_plugin_lookups() -> None:
    """Look each pybtex plugin up in the installed packages' entry points once.

    pybtex's ``find_plugin`` scans the entry points of every installed package on each
    call (``importlib.metadata.entry_points``, 7 to 15 ms each on the project's machine),
    and sphinxcontrib-bibtex calls it for every citation and bibliography entry: about
    470 scans per build, a quarter of the HTML build's time in a profile, and the PDF
    build makes the same calls. The plugins installed cannot change during a build, so
    the lookup is cached. It is cached after ``setup`` has registered the book's style
    (``register_plugin``, which the cached function still checks first); a plugin
    registered, or replaced with ``force=True``, after its name was first looked up
    would not be seen. pybtex is pinned in requirements.txt for this private function;
    without it (another pybtex), nothing is cached and the build is only slower.
    """
    lookup = getattr(pybtex.plugin, "_load_entry_point", None)
    if lookup is not None and not hasattr(lookup, "cache_info"):
        pybtex.plugin._load_entry_point = functools.cache(lookup)


def setup(app: Sphinx) -> dict:
    pybtex.plugin.register_plugin(
        "pybtex.style.formatting", NAME, BookAuthorYearStyle, force=True
    )
    _remember_plugin_lookups()
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
