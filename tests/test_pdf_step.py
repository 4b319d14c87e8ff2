"""tools/pdf_step.py reads LaTeX's log for unresolved references (no LaTeX run here).

The PDF edition once printed "Exercise ??" 47 times in its course plan while latexmk
exited 0; the step now fails on any reference the last LaTeX pass left undefined. The
samples are cut from that build's log (TeX breaks its lines at 79 characters, inside
words and labels) and from latexmk's summary.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools.pdf_step import check_references, unresolved_references  # noqa: E402

# lines as XeLaTeX wrote them, each break where TeX put it
BROKEN_BUILD = """\
[439] [440] [441] [442] [443] [444] [445] [446]
Appendix D.

LaTeX Warning: Hyper reference `chapters/01_why_ranking:ch01-ex-1' on page 447\x20
undefined on input line 35108.


LaTeX Warning: Reference `chapters/01_why_ranking:ch01-ex-1' on page 447 undefi
ned on input line 35108.


LaTeX Warning: Hyper reference `chapters/02_precision_recall:ch02-ex-1' on page
 447 undefined on input line 35108.


LaTeX Warning: Reference `chapters/02_precision_recall:ch02-ex-1' on page 447 u
ndefined on input line 35108.

[447] [448]
LaTeX Warning: Citation `sakai2016' on page 448 undefined on input line 35200.

(./ranking-evaluation.aux)

LaTeX Warning: There were undefined references.

 )
Output written on ranking-evaluation.xdv (578 pages, 16521348 bytes).
"""

CLEAN_BUILD = """\
[439] [440] [441] [442] [443] [444] [445] [446]
Appendix D.
[447] [448] [449]
Underfull \\hbox (badness 10000) in paragraph at lines 305--306
[]\\TU/FreeMono(0)/m/n/10 tie_groups_padded() \\TU/FreeSerif(0)/m/n/10 (\\TU/FreeS
[568]) (./ranking-evaluation.aux) )
Output written on ranking-evaluation.xdv (578 pages, 16521348 bytes).
"""

LATEXMK_SUMMARY = """\
Latexmk: ====List of undefined refs and citations:
  Reference `chapters/01_why_ranking:ch01-ex-1' on page 447 undefined on input line 35108
  Reference `chapters/01_why_ranking:ch01-ex-3' on page 447 undefined on input line 35108
 And 84 more --- see log file.
Latexmk: Summary of warnings from last run of *latex:
  Latex failed to resolve 91 reference(s)
"""


def test_every_undefined_reference_is_read_across_teXs_line_breaks():
    assert unresolved_references(BROKEN_BUILD) == [
        ("Hyper reference", "chapters/01_why_ranking:ch01-ex-1", 447),
        ("Reference", "chapters/01_why_ranking:ch01-ex-1", 447),
        ("Hyper reference", "chapters/02_precision_recall:ch02-ex-1", 447),
        ("Reference", "chapters/02_precision_recall:ch02-ex-1", 447),
        ("Citation", "sakai2016", 448),
    ]


def test_a_log_without_undefined_references_reads_as_clean():
    assert unresolved_references(CLEAN_BUILD) == []
    assert unresolved_references("") == []


def test_latexmks_summary_is_read_too():
    assert unresolved_references(LATEXMK_SUMMARY) == [
        ("Reference", "chapters/01_why_ranking:ch01-ex-1", 447),
        ("Reference", "chapters/01_why_ranking:ch01-ex-3", 447),
    ]


def test_a_warning_repeated_by_a_later_pass_is_listed_once():
    warning = "LaTeX Warning: Reference `a:b' on page 3 undefined on input line 9.\n"
    assert unresolved_references(warning * 3) == [("Reference", "a:b", 3)]


@pytest.mark.parametrize("summary", [
    "LaTeX Warning: There were undefined references.\n",
    "LaTeX Warning: There were undefined citations.\n",
    "  Latex failed to resolve 91 reference(s)\n",
])  # fmt: skip
def test_a_summary_of_undefined_references_that_names_none_is_not_a_clean_log(summary):
    with pytest.raises(ValueError, match="undefined references but names none"):
        unresolved_references(CLEAN_BUILD + summary)


def test_check_references_fails_the_step_and_names_each_reference(tmp_path, capsys):
    log = tmp_path / "book.log"
    log.write_text(BROKEN_BUILD, encoding="utf-8")
    assert check_references(log) == 1
    err = capsys.readouterr().err
    assert "could not resolve 3 reference(s)" in err  # three labels, five warnings
    assert "Reference `chapters/02_precision_recall:ch02-ex-1' on page 447" in err
    log.write_text(CLEAN_BUILD, encoding="utf-8")
    assert check_references(log) == 0
    assert check_references(tmp_path / "missing.log") == 1
    assert "left no log" in capsys.readouterr().err
