"""The nbval sanitizers hide only what they say they hide (tests/nbval_sanitize.cfg)."""

import re
from pathlib import Path

import pytest
from nbval.plugin import get_sanitize_patterns

CFG = Path(__file__).resolve().parent / "nbval_sanitize.cfg"


def sanitize(text: str) -> str:
    """As nbval does: every (regex, replace) pair of the file, in order."""
    for regex, replace in get_sanitize_patterns(CFG.read_text()):
        text = re.sub(regex, replace, text)
    return text


@pytest.mark.parametrize(
    "stored, fresh",
    [
        # glued floats whose last digits differ with the CPU's SIMD and BLAS kernels
        ("0.4914419916922791", "0.4914419916922793"),
        ("0.03779419099450902", "0.037794190994509015"),
        ("4.999750012499375e-05", "4.999750012499381e-05"),
        ("-0.14154839165929606", "-0.1415483916592961"),
    ],
)
def test_a_glued_float_is_compared_to_ten_decimals(stored, fresh):
    assert stored != fresh
    assert sanitize(stored) == sanitize(fresh)


@pytest.mark.parametrize(
    "stored, fresh",
    [
        ("0.4914419916922791", "0.4914419917922791"),  # the 10th decimal
        ("0.7955", "0.7965"),
        ("1.0", "1.5"),
        ("4.999750012499375e-05", "4.999750012499375e-06"),
        # a float inside printed text is compared in full
        ("p 0.4914419916922791", "p 0.4914419916922793"),
        ("0.4914419916922791 0.1", "0.4914419916922793 0.1"),
    ],
)
def test_anything_else_is_compared_in_full(stored, fresh):
    assert sanitize(stored) != sanitize(fresh)
