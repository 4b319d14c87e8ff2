"""The notation page lists every symbol the book uses, one meaning each (issue 46).

Rules, each able to fail:

- every Greek letter (``\\alpha`` ... ``\\Omega``, ``\\varepsilon``, or the letter itself,
  ``κ``) and every calligraphic letter (``\\mathcal{X}``) in a chapter's or guide's
  markdown, or in the other reference pages (cheat sheet, glossary), is on
  reference/notation.md;
- every symbol (Latin letters too) of a labelled display equation, ``$$ ... $$ (label)``,
  is on the page;
- every symbol a chapter defines in words, "where $X$ is/are/denotes ..." with X a single
  symbol (a letter or a Greek macro, with an optional index), is on the page;
- no Greek or calligraphic symbol has two rows on the page: one meaning per symbol, with
  no exception. A letter and its variant form are one symbol (``\\phi`` and
  ``\\varphi``, ``\\epsilon`` and ``\\varepsilon``, ...): a reader sees one letter.

Chapters are read from their markdown cells; code is not math.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
GUIDES = sorted((ROOT / "guide").glob("*.ipynb"))
PAGE = ROOT / "reference" / "notation.md"
# the other reference pages that write formulas
REFERENCE = [p for p in sorted((ROOT / "reference").glob("*.md")) if p != PAGE]

GREEK_NAMES = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda "
    "mu nu xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
).split()
GREEK = re.compile(r"\\(" + "|".join(GREEK_NAMES) + r")(?![A-Za-z])")
# a letter and its variant form are one symbol to a reader
VARIANT = {"var" + name: name for name in "epsilon theta pi rho sigma phi".split()}
# Greek written as the letter itself (in prose: "Fleiss' κ", "α-nDCG")
GREEK_CHAR = re.compile("[\u0391-\u03a9\u03b1-\u03c9\u03d1\u03d5\u03d6\u03f1\u03f5]")
CALLIGRAPHIC = re.compile(r"\\mathcal\s*\{?\s*([A-Za-z])")
MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$", re.S)
FENCE = re.compile(r"```.*?```", re.S)
LABELLED = re.compile(r"\$\$(.+?)\$\$\s*\([\w-]+\)", re.S)
# "where $X$ is ...": X one symbol, a letter or a Greek macro, with an optional index
DEFINED = re.compile(
    r"\bwhere\s+\$\s*(\\[A-Za-z]+|[A-Za-z])\s*(?:[_^](?:\{[^$}]*\}|[A-Za-z0-9]))*\s*\$"
    r"\s+(?:is|are|denotes)\b"
)

def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def chapter_math(path: Path) -> tuple[list[str], str]:
    """(math segments, prose) of a notebook's markdown cells, or of a markdown page."""
    if path.suffix == ".md":
        prose = FENCE.sub("", path.read_text(encoding="utf-8"))
    else:
        nb = json.loads(path.read_text(encoding="utf-8"))
        prose = "\n".join(
            FENCE.sub("", "".join(c["source"]))
            for c in nb["cells"] if c["cell_type"] == "markdown"
        )
    return [m.group(1) or m.group(2) for m in MATH.finditer(prose)], prose


# the letters whose Unicode name is not LaTeX's macro (LaTeX's \\phi prints ϕ, \\varphi φ)
GREEK_CHAR_MACRO = {"φ": "varphi", "ϕ": "phi", "ε": "varepsilon", "ϵ": "epsilon",
                    "ϑ": "vartheta", "ϖ": "varpi", "ϱ": "varrho", "ς": "varsigma",
                    "λ": "lambda", "Λ": "Lambda"}


def greek_macro(char: str) -> str:
    r"""``κ`` -> ``\kappa``, ``Δ`` -> ``\Delta``, ``φ`` -> ``\varphi``."""
    if char in GREEK_CHAR_MACRO:
        return "\\" + GREEK_CHAR_MACRO[char]
    name = unicodedata.name(char).split()
    letter = name[-1].lower()
    return "\\" + (letter.capitalize() if "CAPITAL" in name else letter)


def used_symbols(segments: list[str], prose: str) -> set[str]:
    """Greek and calligraphic letters in the math, and the symbols defined in words."""
    found = {greek_macro(c) for c in GREEK_CHAR.findall(prose)}
    for seg in segments:
        found |= {"\\" + g for g in GREEK.findall(seg)}
        found |= {"\\mathcal{" + c + "}" for c in CALLIGRAPHIC.findall(seg)}
    found |= {"\\" + s[1:] if s.startswith("\\") else s for s in DEFINED.findall(prose)}
    for equation in LABELLED.finditer(prose):
        found |= {sym.split("_")[0] for sym in symbols_in(equation.group(1))}
    return found


def page_symbols(text: str | None = None) -> dict[str, list[str]]:
    """{symbol: first cells of the page's table rows that list it}."""
    rows = defaultdict(list)
    for line in (page_text() if text is None else text).splitlines():
        if not line.startswith("| $"):
            continue
        cell = line.split(" | ")[0].lstrip("| ")
        for seg in MATH.finditer(cell):
            math = seg.group(1) or seg.group(2)
            for symbol in symbols_in(math):
                if cell not in rows[symbol]:
                    rows[symbol].append(cell)
    return rows


# an index: one or two of the letters that run over queries, positions, items, users,
# impressions, systems or labels (or \ell); any other subscript names a variant
INDEX_LETTERS = r"\{?[ijkqdutxyvrab]{1,2}\}?|\\ell"
INDEX = re.compile(r"[_^](\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9*+-])")


def symbols_in(math: str) -> set[str]:
    r"""The symbols of a math snippet: Greek, calligraphic and single letters.

    An index made of lowercase letters (``\phi_{uj}``, ``\delta_i``) belongs to its
    base symbol; a named one (``\kappa_C``, ``\sigma_\Delta``, ``h_A``) makes another
    symbol, and is kept with it. Words in roman type (``\mathrm{nDCG}``) are not
    symbols.
    """
    plain = re.sub(r"\\(?:mathrm|text|operatorname|mathbf)\s*\{[^}]*\}", " ", math)
    out = set()
    token = re.compile(
        r"(\\mathcal\s*\{?\s*[A-Za-z]\}?|\\[A-Za-z]+|(?<![A-Za-z])[A-Za-z](?![A-Za-z]))"
        r"((?:[_^](?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9*+-]))*)"
    )
    for base, index in token.findall(plain):
        if base.startswith("\\mathcal"):
            base = "\\mathcal{" + re.sub(r"[^A-Za-z]", "", base[len("\\mathcal"):]) + "}"
        elif base.startswith("\\"):
            if base[1:] not in GREEK_NAMES:
                continue
        named = [i for i in INDEX.findall(index) if not re.fullmatch(INDEX_LETTERS, i)]
        out.add(base + "".join("_" + n for n in named if not n.startswith(("*", "+", "-"))))
    return out


def base_symbols(math: str) -> set[str]:
    """The base symbols only (for chapters' use): indices dropped."""
    return {s.split("_")[0] for s in symbols_in(math)}


def letter(symbol: str) -> str:
    r"""A variant form as its letter: ``\varphi_{ij}`` -> ``\phi_{ij}``."""
    base, sep, rest = symbol.partition("_")
    return "\\" + VARIANT.get(base[1:], base[1:]) + sep + rest if base[:1] == "\\" else symbol


def missing_from_page(symbols: set[str], text: str | None = None) -> list[str]:
    listed = {letter(s.split("_")[0]) for s in page_symbols(text)}
    return sorted(s for s in symbols if letter(s) not in listed)


@pytest.mark.parametrize(
    "path", CHAPTERS + GUIDES + REFERENCE,
    ids=[p.name[:2] for p in CHAPTERS] + [p.stem for p in GUIDES + REFERENCE],
)
def test_every_symbol_of_a_chapter_is_on_the_notation_page(path):
    segments, prose = chapter_math(path)
    missing = missing_from_page(used_symbols(segments, prose))
    assert not missing, f"{path.name}: add to reference/notation.md: {', '.join(missing)}"


def defined_greek(text: str | None = None) -> dict[str, list[str]]:
    r"""{Greek or calligraphic symbol: page rows defining it}: the symbols of a row's
    first cell outside parentheses and outside roman words (``\mathrm{gain}_\kappa``
    uses kappa, it does not define it), nor decorated (an estimate or a mean). A variant
    form counts as its letter (``\varphi`` as ``\phi``)."""
    rows = defaultdict(list)
    for line in (page_text() if text is None else text).splitlines():
        if not line.startswith("| $"):
            continue
        cell = line.split(" | ")[0].lstrip("| ")
        bare = re.sub(r"\([^()]*\)", "", cell)
        # an estimate or a mean of a symbol (hat, bar, tilde) keeps its meaning
        bare = re.sub(r"\\(?:hat|bar|tilde)\s*\{?\\?[A-Za-z]+\}?", "", bare)
        bare = re.sub(r"\\(?:mathrm|text|operatorname)\s*\{[^}]*\}(_\\?[A-Za-z]+)?", "", bare)
        for seg in MATH.finditer(bare):
            for symbol in symbols_in(seg.group(1) or seg.group(2)):
                row = line[:60]
                symbol = letter(symbol)
                if symbol.startswith("\\") and row not in rows[symbol]:
                    rows[symbol].append(row)
    return rows


def doubled_symbols(text: str | None = None) -> dict[str, list[str]]:
    return {s: r for s, r in defined_greek(text).items() if len(r) > 1}


def test_one_row_per_symbol():
    """One meaning per symbol, no exception (issue 46 ended the list of known conflicts)."""
    doubled = doubled_symbols()
    assert not doubled, "symbols with two rows on the notation page: " + "; ".join(
        f"{s}: {' / '.join(r)}" for s, r in sorted(doubled.items())
    )


def book_letters() -> set[str]:
    """The Greek and calligraphic letters the chapters, guides and reference pages use."""
    used = set()
    for path in CHAPTERS + GUIDES + REFERENCE:
        segments, prose = chapter_math(path)
        found = used_symbols(segments, prose)
        for segment in segments:
            found |= symbols_in(segment)
        used |= {letter(s.split("_")[0]) for s in found}
    return used


def test_no_row_for_a_letter_the_book_does_not_use():
    """A renamed symbol leaves the page with its last use (no stale meaning stays listed)."""
    used = book_letters()
    stale = sorted(s for s in defined_greek() if letter(s.split("_")[0]) not in used)
    assert not stale, f"rows on the notation page for letters no chapter uses: {stale}"


def test_the_page_claims_no_open_conflict():
    """The page's note on symbols not yet reconciled is gone with the last of them."""
    assert "Not yet one meaning" not in page_text()


# --- the rules fail where they should ---------------------------------------------------


def test_an_unlisted_greek_letter_is_found():
    used = used_symbols([r"\upsilon^2 = \sum_i x_i"], "")
    assert r"\upsilon" in used
    assert r"\upsilon" in missing_from_page(used)


def test_a_symbol_defined_in_words_is_found():
    prose = r"the score is $a_v g + \zeta$, where $\zeta$ is a noise and $Y_{q}$ are"
    assert used_symbols([], prose + " where $Y_{q}$ are labels") >= {r"\zeta", "Y"}


def test_the_letters_of_a_labelled_equation_are_found():
    prose = "text $$\nQ = \\mathrm{ERR}_k + b_q\n$$ (x-label) more"
    assert used_symbols([], prose) >= {"Q", "b"}


def test_words_in_roman_type_are_not_symbols():
    assert symbols_in(r"\mathrm{nDCG@}k = x_i") == {"k", "x"}


def test_an_index_belongs_to_its_symbol_a_name_does_not():
    assert symbols_in(r"\phi_{uj}, \kappa_C, \sigma_\Delta, \delta_i") == {
        r"\phi", r"\kappa_C", r"\sigma_\Delta", r"\delta"
    }


def test_a_greek_letter_written_as_itself_is_found():
    used = used_symbols([], "Fleiss' κ and the rank difference Δ, ϕ and φ, and ω")
    assert used >= {r"\kappa", r"\Delta", r"\phi", r"\varphi", r"\omega"}


def test_a_symbol_missing_from_the_page_is_reported():
    page = "| symbol | meaning |\n| $\\kappa$, $\\alpha$ | a parameter; a level |\n"
    assert missing_from_page({r"\kappa", r"\omega", r"\mathcal{T}"}, page) == [
        r"\mathcal{T}", r"\omega"
    ]
    # a variant form is its letter: listed phi covers varphi
    assert missing_from_page({r"\varphi", r"\epsilon"}, "| $\\phi$ | x |\n") == [r"\epsilon"]


def test_two_rows_for_one_letter_are_a_conflict():
    page = (
        "| $\\gamma$ | DBN's continuation |\n"
        "| $\\Gamma(g)$, $\\gamma_\\ell$ | GAP: a probability; the weights |\n"
        "| $\\phi(d, j)$ | a placement probability |\n"
        "| $\\varphi_{ij}$ | GAP's pair probability |\n"
        "| $\\kappa_C$, $\\kappa$ | Cohen's kappa (named index); redundancy |\n"
        "| $\\hat\\theta$ (an estimate) | ... |\n| $\\theta$ | a threshold |\n"
    )
    assert sorted(doubled_symbols(page)) == [r"\gamma", r"\phi"]
