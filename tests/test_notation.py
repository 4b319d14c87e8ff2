"""The notation page lists every symbol the chapters use, one meaning each (issue 46).

Rules, each able to fail:

- every Greek letter (``\\alpha`` ... ``\\Omega``, ``\\varepsilon``) and every
  calligraphic letter (``\\mathcal{X}``) in a chapter's math is on reference/notation.md;
- every symbol (Latin letters too) of a labelled display equation, ``$$ ... $$ (label)``,
  is on the page;
- every symbol a chapter defines in words, "where $X$ is/are/denotes ..." with X a single
  symbol (a letter or a Greek macro, with an optional index), is on the page;
- no symbol has two rows on the page (one meaning per symbol), except the conflicts
  listed in KNOWN_CONFLICTS, each of which must still be a conflict (so the list only
  shrinks).

Chapters are read from their markdown cells; code is not math.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
PAGE = ROOT / "reference" / "notation.md"

GREEK_NAMES = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda "
    "mu nu xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
).split()
GREEK = re.compile(r"\\(" + "|".join(GREEK_NAMES) + r")(?![A-Za-z])")
CALLIGRAPHIC = re.compile(r"\\mathcal\s*\{?\s*([A-Za-z])")
MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$", re.S)
FENCE = re.compile(r"```.*?```", re.S)
LABELLED = re.compile(r"\$\$(.+?)\$\$\s*\([\w-]+\)", re.S)
# "where $X$ is ...": X one symbol, a letter or a Greek macro, with an optional index
DEFINED = re.compile(
    r"\bwhere\s+\$\s*(\\[A-Za-z]+|[A-Za-z])\s*(?:[_^](?:\{[^$}]*\}|[A-Za-z0-9]))*\s*\$"
    r"\s+(?:is|are|denotes)\b"
)

# Symbols with two meanings, waiting for the lead's decision (issue 46, item 8); each
# entry says which chapters disagree. The test fails once a conflict disappears, so that
# its entry is removed.
KNOWN_CONFLICTS = {
    r"\theta": "relevance threshold (ch01-20) and exposure patience (ch24, COMMON.md)",
    r"\nu": "subtopic (ch08, ch09) and noise level of a judge (ch25, COMMON.md)",
    r"\gamma": "DBN continuation (ch22) and GAP's grade weights gamma_l (ch04, not edited)",
    r"\beta": "probabilistic interleaving's exponent (ch22) and system skill (ch25)",
    r"\delta": "Spearman's rank difference delta_i (ch12) and Krippendorff's distance (ch25)",
    r"\mathcal{T}": "a tied group (ch15) and the training users (ch24)",
    r"\omega": "geometric parameter (ch03), power (ch22), placement weight omega_tj (ch23)",
    r"\xi": "a noise term (ch16, ch17, ch25) and the logger's share of random lists (ch23)",
}


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def chapter_math(path: Path) -> tuple[list[str], str]:
    """(math segments, prose) of a chapter's markdown cells."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    prose = "\n".join(
        FENCE.sub("", "".join(c["source"])) for c in nb["cells"] if c["cell_type"] == "markdown"
    )
    return [m.group(1) or m.group(2) for m in MATH.finditer(prose)], prose


def used_symbols(segments: list[str], prose: str) -> set[str]:
    """Greek and calligraphic letters in the math, and the symbols defined in words."""
    found = set()
    for seg in segments:
        found |= {"\\" + g for g in GREEK.findall(seg)}
        found |= {"\\mathcal{" + c + "}" for c in CALLIGRAPHIC.findall(seg)}
    found |= {"\\" + s[1:] if s.startswith("\\") else s for s in DEFINED.findall(prose)}
    for equation in LABELLED.finditer(prose):
        found |= {sym.split("_")[0] for sym in symbols_in(equation.group(1))}
    return found


def page_symbols() -> dict[str, list[str]]:
    """{symbol: first cells of the page's table rows that list it}."""
    rows = defaultdict(list)
    for line in page_text().splitlines():
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


def missing_from_page(symbols: set[str]) -> list[str]:
    listed = {s.split("_")[0] for s in page_symbols()}
    return sorted(s for s in symbols if s not in listed)


# Chapters edited in parallel with the notation page (issue 46): their missing symbols
# are reported as a skip until the lead has merged them and emptied this set.
PENDING: set[str] = set()


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name[:2] for p in CHAPTERS])
def test_every_symbol_of_a_chapter_is_on_the_notation_page(path):
    segments, prose = chapter_math(path)
    missing = missing_from_page(used_symbols(segments, prose))
    if missing and path.name[:2] in PENDING:
        pytest.skip(f"pending: {path.name} uses {', '.join(missing)}")
    assert not missing, f"{path.name}: add to reference/notation.md: {', '.join(missing)}"


def defined_greek() -> dict[str, list[str]]:
    r"""{Greek or calligraphic symbol: page rows defining it}: the symbols of a row's
    first cell outside parentheses and outside roman words (``\mathrm{gain}_\kappa``
    uses kappa, it does not define it), nor decorated (an estimate or a mean)."""
    rows = defaultdict(list)
    for line in page_text().splitlines():
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
                if symbol.startswith("\\") and row not in rows[symbol]:
                    rows[symbol].append(row)
    return rows


def test_one_row_per_symbol():
    rows = defined_greek()
    doubled = {s: r for s, r in rows.items() if len(r) > 1 and s not in KNOWN_CONFLICTS}
    assert not doubled, "symbols with two rows on the notation page: " + "; ".join(
        f"{s}: {' / '.join(r)}" for s, r in sorted(doubled.items())
    )


def test_known_conflicts_are_still_conflicts():
    rows = defined_greek()
    resolved = [s for s in KNOWN_CONFLICTS if len(rows.get(s, [])) < 2]
    assert not resolved, f"resolved: remove {resolved} from KNOWN_CONFLICTS"


# --- the rules fail where they should ---------------------------------------------------


def test_an_unlisted_greek_letter_is_found():
    used = used_symbols([r"\chi^2 = \sum_i x_i"], "")
    assert r"\chi" in used
    assert r"\chi" in missing_from_page(used)


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
