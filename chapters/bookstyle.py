"""The book's one plotting style: every chapter calls ``bookstyle.use()`` first.

* Colours: the Okabe-Ito palette (Okabe and Ito, 2008), readable with every
  common form of colour-blindness. Relevant and non-relevant items differ in
  colour **and** in marker or hatch, so the figures also work in grey print.
* Size: 6.4 x 3.6 inches at 9 pt text, which fills the content column of the
  website at a 1:1 text scale; saved and shown as 200-dpi PNG (sharp on
  high-density screens, and PNG so that nbval, which skips images, never sees
  a byte that changes between runs).

Usage in a chapter's first code cell::

    import bookstyle
    bookstyle.use()
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import math
import textwrap
from fractions import Fraction
from numbers import Real
from pathlib import Path

import matplotlib as mpl

__all__ = [
    "PALETTE",
    "RELEVANT",
    "IRRELEVANT",
    "RELEVANT_MARKER",
    "IRRELEVANT_MARKER",
    "RELEVANT_HATCH",
    "IRRELEVANT_HATCH",
    "check",
    "glue",
    "is_right",
    "unmet_properties",
    "use",
]

# Okabe-Ito: black, orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple.
PALETTE = [
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
]

# Relevant vs non-relevant: dark blue filled vs light grey hollow (contrast ratio > 4:1),
# plus distinct markers and hatches so colour is never the only cue.
RELEVANT = "#0072B2"
IRRELEVANT = "#D9D9D9"
RELEVANT_MARKER = "o"
IRRELEVANT_MARKER = "x"
RELEVANT_HATCH = ""
IRRELEVANT_HATCH = "//"

FIGSIZE = (6.4, 3.6)
DPI = 200


def use() -> None:
    """Apply the book's matplotlib style (idempotent)."""
    mpl.rcParams.update(
        {
            "figure.figsize": FIGSIZE,
            "figure.dpi": 100,  # on-screen size in the notebook; savefig.dpi sets sharpness
            "savefig.dpi": DPI,
            "savefig.bbox": "tight",
            "figure.constrained_layout.use": True,
            "font.size": 9,
            "axes.titlesize": 10,
            "axes.labelsize": 9,
            "legend.fontsize": 9,
            "xtick.labelsize": 9,
            "ytick.labelsize": 9,
            "axes.prop_cycle": mpl.cycler(color=PALETTE),
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "lines.linewidth": 1.6,
            "lines.markersize": 5,
            "image.cmap": "cividis",
            "svg.hashsalt": "rankeval-book",
        }
    )
    try:  # the inline backend: retina-quality PNG in the notebook and on the site
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("png", dpi=DPI, bbox_inches="tight")
    except ImportError:  # pragma: no cover - outside IPython
        pass


# name -> value of every glue call in this kernel, for the autograder's solutions
GLUED: dict = {}


def glue(name: str, value):
    """Glue a number for the prose: ``{glue:text}`name:.4f``` then shows it formatted.

    ``myst_nb.glue(name, value, display=False)`` stores the value's text form, and
    NumPy 2 writes a scalar as ``np.float64(0.5)``, which ``{glue:text}`` cannot format
    (the build warns "could not convert string to float"). This stores NumPy scalars
    and 0-d arrays as plain Python numbers first; everything else is glued unchanged.
    Returns None, so that a glue call ending a cell prints nothing (the number
    belongs in the prose, not under the cell). Without myst-nb (it comes with
    jupyter-book; Colab has neither) it does nothing: the number is only needed by
    the book's build, and a reader running the notebook sees the cells' own prints.
    """
    plain = value.item() if hasattr(value, "item") and getattr(value, "ndim", 1) == 0 else value
    GLUED[name] = plain  # what the autograder's solutions read (tools/autograde.py)
    try:
        from myst_nb import glue as _glue
    except ImportError:
        return None

    plain = value.item() if hasattr(value, "item") and getattr(value, "ndim", 1) == 0 else value
    _glue(name, plain, display=False)


# ---------------------------------------------------------------------------------------
# Self-checks: ``check("8.1", answer)`` in an exercise tells the reader whether a number
# is right without printing the book's own value. chapters/answers.json stores, for each
# checked exercise, what to ask for, a hint, and for each number its tolerance and the
# digests of the tolerance-wide bins that the interval [value - tolerance, value +
# tolerance] touches (`python3 _ext/teaching.py answers` writes them from the values the
# solutions glue or print; tests/test_selfcheck.py proves that every check accepts any
# answer within the tolerance and refuses one more than twice the tolerance off).
#
# What a digest does and does not do: it keeps the value out of plain sight, it names no
# cell of the solution (the `source` of a part is left out of every copy that leaves the
# repository: tools/editions.py), and each one costs a slow key derivation (PBKDF2,
# ITERATIONS rounds), so that trying every bin of a range takes minutes per number
# instead of the milliseconds a plain hash took. It is not a secret: a reader can still
# search for the answer by asking `check` often enough. Graded work uses the autograder
# (tools/autograde.py), whose tests are never handed out.
#
# Properties: a part may also list `properties`, each a condition the right answer must
# meet and a message for when it does not, e.g. ``{"holds": "0 <= x <= 1", "message":
# "your nDCG is above 1 or below 0: check the ideal ordering"}``. A condition is computed
# from the reader's own numbers only (``x`` is this part's number, ``p0``, ``p1``, ...
# every number of the answer, ``tol`` this part's tolerance): the measure's range,
# monotonicity the statement implies, or one number recomputed from the others. It
# stores no value that maps back to the answer (tests/test_autograde.py checks that a
# condition on ``x`` alone accepts a wide interval). When an answer is not right, `check`
# says which properties it breaks before the hint.

ANSWERS = Path(__file__).with_name("answers.json")
_SALT = "rankeval-book"
ITERATIONS = 20_000  # PBKDF2-SHA256 rounds per digest: about 8 ms each


def part_salt(exercise: str, part: int) -> bytes:
    """The salt of part `part` (0-based) of `exercise`: one per part, so that no work
    done for one number serves another."""
    return hashlib.sha256(f"{_SALT}|{exercise}|{part}".encode()).digest()[:16]


@functools.lru_cache(maxsize=4096)
def answer_digest(exercise: str, part: int, bin_index: int) -> str:
    """The digest of bin `bin_index` of part `part` (0-based) of `exercise`.

    A part with a tolerance ``t > 0`` cuts the number line into bins ``[k t, (k+1) t)``;
    a part with tolerance 0 (a count, a position) has one bin per integer.
    """
    text = f"{exercise}|{part}|{bin_index}".encode()
    return hashlib.pbkdf2_hmac("sha256", text, part_salt(exercise, part), ITERATIONS,
                               dklen=10).hex()


def tolerance(part: dict) -> float:
    """A part's tolerance: its own ``tolerance``, else one step of its stated decimals
    (0 for a whole number, which must be exact)."""
    if "tolerance" in part:
        value = float(part["tolerance"])
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"answers.json: a tolerance must be >= 0, got {value!r}")
        return value
    return 10.0 ** -part["decimals"] if part["decimals"] else 0.0


def bin_of(value: float, tol: float) -> int:
    """The bin a number falls in: ``floor(value / tol)``, or the nearest integer when
    the tolerance is 0 (a count must be exact, as it rounds)."""
    return math.floor(value / tol) if tol > 0 else round(value)


def bins_within(value: float, tol: float) -> list[int]:
    """Every bin that [value - tol, value + tol] touches (one to three; four when a
    rounding error puts an end just below a bin edge)."""
    if tol == 0:
        return [round(value)]
    return list(range(bin_of(value - tol, tol), bin_of(value + tol, tol) + 1))


def _answers() -> dict:
    return json.loads(ANSWERS.read_text(encoding="utf-8"))["exercises"]


def _number(value, what: str) -> float:
    """A reader's number as a float: int, float, Fraction, NumPy scalar or 0-d array."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (Real, Fraction)):
        raise TypeError(f"{what} must be a number (int, float or Fraction), got {value!r}")
    return float(value)


def _parts(exercise: str, answer) -> tuple[dict, list[float]]:
    entries = _answers()
    if exercise not in entries:
        raise ValueError(f"no self-check for exercise {exercise!r}; the checks are "
                         f"{', '.join(sorted(entries, key=_order))}")
    entry = entries[exercise]
    n = len(entry["parts"])
    if n == 1:
        values = [answer]
    elif isinstance(answer, (list, tuple)) and len(answer) == n:
        values = list(answer)
    else:
        raise TypeError(f"exercise {exercise} wants {n} numbers in `answer`, as a tuple "
                        f"in this order: {'; '.join(p['name'] for p in entry['parts'])}")
    names = [p["name"] for p in entry["parts"]]
    return entry, [_number(v, f"the answer ({name})") for v, name in zip(values, names, strict=True)]


def _order(exercise: str) -> tuple[int, int]:
    chapter, number = exercise.split(".")
    return int(chapter), int(number)


def _part_is_right(exercise: str, index: int, part: dict, value: float) -> bool:
    """Right when `value` falls in a bin that the book's interval touches: any value
    within the tolerance is accepted, none more than twice the tolerance off."""
    if not math.isfinite(value):
        return False
    tol = tolerance(part)
    return answer_digest(exercise, index, bin_of(value, tol)) in part["digests"]


def is_right(exercise: str, answer) -> list[bool]:
    """For each number the exercise asks for: is `answer` right? (No printing.)

    Parameters
    ----------
    exercise : str
        The exercise's number, "chapter.exercise", e.g. ``"8.1"``.
    answer : number or tuple of numbers
        One number, or a tuple in the order the exercise's check asks for.

    Returns
    -------
    list of bool
        One entry per number.

    Raises
    ------
    ValueError
        If the exercise has no self-check.
    TypeError
        If `answer` is not a number, or not a tuple of the right length.
    """
    entry, values = _parts(exercise, answer)
    return [_part_is_right(exercise, i, part, value)
            for i, (part, value) in enumerate(zip(entry["parts"], values, strict=True))]


_FUNCTIONS = {"abs": abs, "round": round, "min": min, "max": max, "sqrt": math.sqrt,
              "log2": math.log2}
_NODES = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.Not, ast.BinOp, ast.UnaryOp,
          ast.Compare, ast.Call, ast.Name, ast.Load, ast.Constant, ast.Add, ast.Sub,
          ast.Mult, ast.Div, ast.Pow, ast.Mod, ast.USub, ast.UAdd, ast.Eq, ast.NotEq,
          ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.IfExp)


@functools.lru_cache(maxsize=512)
def _condition(text: str):
    """A property's condition, compiled once: arithmetic, comparisons, ``and``/``or``,
    the names of the numbers and a few functions; anything else is refused."""
    tree = ast.parse(text, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise ValueError(f"answers.json: {type(node).__name__} is not allowed in a "
                             f"property's condition: {text!r}")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name)
                                               and node.func.id in _FUNCTIONS):
            raise ValueError(f"answers.json: only {sorted(_FUNCTIONS)} may be called in "
                             f"a property's condition: {text!r}")
    return compile(tree, "<property>", "eval")


def unmet_properties(exercise: str, answer) -> list[str]:
    """The messages of the properties (answers.json) that `answer` breaks, in the order
    of the parts; an empty list when it breaks none. (No printing.)

    Parameters
    ----------
    exercise : str
        The exercise's number, e.g. ``"8.1"``.
    answer : number or tuple of numbers
        As for :func:`check`.

    Returns
    -------
    list of str
        One message per broken property. A property says what any right answer must
        satisfy (a range, an order, a recomputation from the other numbers), computed
        from the reader's numbers alone; it never compares with the book's value.

    Example
    -------
    >>> unmet_properties("8.1", (1.2, 0.9))  # doctest: +SKIP
    ['Your nDCG@3 with linear gain is above 1: check the ideal ordering ...']
    """
    entry, values = _parts(exercise, answer)
    names = {f"p{i}": v for i, v in enumerate(values)}
    out = []
    for part, value in zip(entry["parts"], values, strict=True):
        scope = {**_FUNCTIONS, **names, "x": value, "tol": tolerance(part)}
        for prop in part.get("properties", []):
            try:
                ok = bool(eval(_condition(prop["holds"]), {"__builtins__": {}}, scope))
            except (ArithmeticError, ValueError):
                ok = False  # e.g. a division by the reader's own zero
            if not ok and prop["message"] not in out:
                out.append(prop["message"])
    return out


def check(exercise: str, answer) -> None:
    """Say whether `answer` to `exercise` is right, with a hint when it is not.

    ``answer = None`` (the cell as the book ships it) prints what to put in `answer`.
    The book's own value is never printed.

    Examples
    --------
    In an exercise's check cell (chapter 8, exercise 1)::

        answer = (0.9502, 0.9639)
        check("8.1", answer)
    """
    entries = _answers()
    if exercise not in entries:
        raise ValueError(f"no self-check for exercise {exercise!r}")
    entry = entries[exercise]
    if answer is None:
        _say(f"Exercise {exercise}: put {entry['ask']} in `answer`, then run this "
             "cell again.")
        return
    verdicts = is_right(exercise, answer)
    if all(verdicts):
        _say(f"Exercise {exercise}: right.")
        return
    wrong = [p["name"] for p, ok in zip(entry["parts"], verdicts, strict=True) if not ok]
    which = "" if len(verdicts) == 1 else f" ({', '.join(wrong)})"
    broken = "".join(f" {message}" for message in unmet_properties(exercise, answer))
    _say(f"Exercise {exercise}: not right yet{which}.{broken} Hint: {entry['hint']}")


def _say(message: str) -> None:
    """Print in lines of at most 72 characters (an output must fit the page's column)."""
    print(textwrap.fill(message, width=72, break_long_words=False, break_on_hyphens=False))
