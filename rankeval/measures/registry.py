"""The registry: every measure's declaration, collected from the metric modules.

A measure is declared once, in the module of its formula (``DECLARATIONS`` at the
end of each :mod:`rankeval.metrics` module). This module gathers them, in the
order of ``_MODULES``, into :data:`DECLARATIONS` (name -> declaration), reads
measure names (:func:`parse_measure`), and describes the measures for
``--help`` and the API page (:func:`describe`, :func:`table`).

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import difflib
import math
import re
import threading
from dataclasses import dataclass
from importlib import import_module

import numpy as np

from ..metrics.declaration import Declaration, Param, as_number, show

__all__ = [
    "Measure",
    "Declaration",
    "Param",
    "DECLARATIONS",
    "parse_measure",
    "parse_measures",
    "describe",
    "table",
    "trec_eval_name",
]

# The metric modules whose declarations make the registry, in the order of --help and
# of the API page's table: a new measure's module is one more line here.
_MODULES = tuple(
    import_module(f"rankeval.metrics.{name}")
    for name in (
        "precision_recall",
        "hit",
        "average_precision",
        "reciprocal_rank",
        "dcg",
        "err",
        "rbp",
        "average_recall",
        "graded_average_precision",
        "rank_position",
        "r_precision",
        "bpref",
        "interpolated_precision",
        "infap",
        "judged",
        "set_measures",
        "relative_precision",
        "trec_rbp",
        "counts",
        "classification",
        "cwl",
        "compat",
        "diversity",
        "intent_aware",
    )
)

#: name -> :class:`Declaration` of every measure.
DECLARATIONS = {d.name: d for module in _MODULES for d in module.DECLARATIONS}

_ALIASES = {a: d.name for d in DECLARATIONS.values() for a in d.aliases}

# trec_eval names: plain name -> measure name; cut family -> measure name
_TREC_PLAIN = {d.trec_eval: d.name for d in DECLARATIONS.values() if d.trec_eval}
_TREC_CUT = {d.trec_eval_cut: d.name for d in DECLARATIONS.values() if d.trec_eval_cut}
# trec_eval names whose dotted parameter is printed after an underscore (ndcg_0=0,1=1)
_TREC_PARAM = {d.trec_eval: d for d in DECLARATIONS.values() if d.trec_eval_param}


def _fold(name: str) -> str:
    """A name as it is matched when not typed exactly: in lower case, without ``_`` and
    ``-`` (``Ndcg``, ``NDCG_cut``, ``hit_rate``, ``r-precision``, ``BPref``)."""
    return name.lower().replace("_", "").replace("-", "")


def _folded(pairs) -> dict:
    """folded name -> {spelling: measure name}, from (spelling, measure name) pairs."""
    out: dict = {}
    for spelling, measure in pairs:
        out.setdefault(_fold(spelling), {}).setdefault(spelling, measure)
    return out


# Every spelling of a measure (its name, aliases, trec_eval's plain name), folded. A
# folded name that two measures share (only "rbp": ir_measures' RBP and trec_eval's rbp,
# rankeval's trec_rbp) is no name: either must be typed exactly.
_NAMES = _folded(
    [(d.name, d.name) for d in DECLARATIONS.values()]
    + list(_ALIASES.items())
    + list(_TREC_PLAIN.items())
)
# trec_eval's cut families (P, ndcg_cut, iprec_at_recall) and plain names, folded
_TREC_CUT_FOLDED = _folded(_TREC_CUT.items())
_TREC_PLAIN_FOLDED = _folded(_TREC_PLAIN.items())

# trec_eval's measure sets (measures.c of trec_eval 10: off_names, trec_names, set_names);
# names rankeval does not compute are left out of the expansion
_TREC_SETS = {
    "official": ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall",
                 "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg",
                 "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
                 "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
                 "set_map", "set_F", "num_nonrel_judged_ret"),
    "set": ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
}  # fmt: skip

# Names of other tools that rankeval does not compute (ir_measures, trec_eval, ranx), with
# what to use instead where rankeval has it; matched folded, as the names above.
_NOT_HERE = {
    **dict.fromkeys((
        "P_rel", "Accuracy",
        "ideal_dcg", "runid", "yaap",
    ), "an ir_measures/trec_eval measure that rankeval does not compute"),
    "relstring": "trec_eval's string of each query's top grades, not a number, which "
    "rankeval does not compute",
    "ndcg_burges": "ranx's name of nDCG with the gain 2^grade - 1: write "
    "nDCG(gain='exponential')",
    "dcg_burges": "ranx's name of DCG with the gain 2^grade - 1: write "
    "DCG(gain='exponential')",
}  # fmt: skip
_NOT_HERE_FOLDED = {_fold(name): reason for name, reason in _NOT_HERE.items()}

# ir_measures' spellings of a measure as another measure with a parameter: its NumRelRet
# is NumRet(rel=1) (and prints so), its SetRelP is SetP(relative=True).
# (measure, parameter) -> (the measure meant, whether the parameter is kept)
_IR_MEASURES_FORMS = {
    ("NumRet", "rel"): ("NumRelRet", True),
    ("SetP", "relative"): ("SetRelP", False),
}


# --- measures ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Measure:
    r"""One evaluation measure: a name, a cut-off and parameters.

    Build it with :func:`~rankeval.parse_measure`; ``str(measure)`` gives the canonical
    ir_measures-style spelling (``"nDCG@10"``, ``"RBP(p=0.9)"``).

    Attributes
    ----------
    name : str
        Canonical name, e.g. ``"nDCG"`` (aliases such as ``"MAP"`` are mapped).
    cutoff : int, float or None
        The ``k`` after ``@`` (a recall level in [0, 1] for ``IPrec``); ``None``
        for the whole ranking.
    params : tuple of (str, object)
        Parameters given (defaults left out), sorted by name.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.
    """

    name: str
    cutoff: int | float | None = None
    params: tuple = ()

    def __str__(self) -> str:
        text = self.name
        params = self.params
        if self.name == "nDCG":
            # ir_measures' spelling of the gains it knows, which it parses back
            dcg = {("gain", "exponential"): ("dcg", "exp-log2"), ("gain", "linear"): ("dcg", "log2")}
            params = tuple(sorted(dcg.get(p, p) for p in params))
        if params:
            text += "(" + ",".join(f"{k}={show(v)}" for k, v in params) + ")"
        if self.cutoff is not None:
            text += f"@{show(self.cutoff)}"
        return text

    @property
    def declaration(self):
        """The measure's declaration (``rankeval.measures.DECLARATIONS[name]``)."""
        return DECLARATIONS[self.name]

    @property
    def param(self) -> dict:
        """Parameters given, as a dict."""
        return dict(self.params)

    def settings(self, threshold=1) -> dict:
        """Every parameter with defaults filled in; ``rel`` from ``threshold`` if not given."""
        out = {p.name: p.default for p in self.declaration.params}
        out.update(self.params)
        if "rel" in out and out["rel"] is None:
            out["rel"] = threshold
        return out

    def score(self, ranked, threshold=1) -> np.ndarray:
        """Values of this measure for every query of ``ranked`` (a RankedRun)."""
        d = self.declaration
        return d.score(ranked, self.cutoff, **self.settings(threshold))

    @property
    def function(self):
        """The rankeval function that computes this measure on grade lists (None for
        the counts NumQ, NumRet, NumRel, NumRelRet, which have none)."""
        return self.declaration.function

    @property
    def binary(self) -> bool:
        """True if the measure counts items with grade >= a threshold as relevant (a
        parameter declared ``graded``, such as RBP's ``max_grade``, makes it graded)."""
        graded = any(p.graded and self.param.get(p.name) not in (None, False)
                     for p in self.declaration.params)
        return self.declaration.binary and not graded

    @property
    def lower_is_better(self) -> bool:
        """Whether a smaller value is better (so for rank positions, MR and FRP, and
        the unjudged share, Unj); the declaration's direction."""
        return self.declaration.lower_is_better

    @property
    def aggregate(self) -> str:
        """``"mean"``, ``"sum"`` for the counts (NumQ, NumRet, NumRel, NumRelRet), or
        ``"gmean"`` for the geometric means GMAP and GMBpref."""
        return self.declaration.aggregate

    @property
    def trec_eval_name(self) -> str | None:
        """trec_eval's printed name (``"P_10"``, ``"map"``), or None if it has none."""
        return trec_eval_name(self)


def _value(text: str):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text.startswith("{") and text.endswith("}"):
        pairs = []
        items = [x.strip() for x in text[1:-1].split(",") if x.strip()]
        if items and not any(":" in x for x in items):  # {0.25,0.5}: a list of numbers
            return tuple(_value(x) for x in items)
        for item in items:
            g, colon, v = item.partition(":")
            if not colon:
                raise ValueError(f"gains must be written {{grade:gain,...}}, got {text!r}")
            pairs.append((_value(g), _value(v)))
        return tuple(pairs)
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _split_params(text: str):
    """Split ``a=1,gains={0:0,1:1}`` on the commas outside braces."""
    items, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c == "{"
        depth -= c == "}"
        if c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


_SEE_ALL = "rankeval.describe() (or the command line's --list-measures) lists every measure"

_SYNTAX = re.compile(
    r"""^\s*(?P<name>[A-Za-z0-9_-]+?)
        \s*(?:\((?P<params>.*)\))?
        \s*(?:@\s*(?P<cutoff>[^\s@]+))?\s*$""",
    re.VERBOSE,
)
_TREC_UNDERSCORE = re.compile(r"^\s*(?P<base>[A-Za-z0-9_]+?)_(?P<cut>\d+(?:\.\d+)?)\s*$")


def _lookup(name: str, text: str):
    """The measure (its declaration's name) that ``name`` stands for, or None.

    A name typed exactly (a measure's name, an alias, trec_eval's plain name) wins;
    otherwise the name is matched folded (:func:`_fold`: any letter case, ``_`` and ``-``
    left out) when the folded name is one measure's. A folded name two measures share
    (``Rbp``: ir_measures' ``RBP`` or trec_eval's ``rbp``) is an error that names both.
    """
    if name in DECLARATIONS:
        return name
    exact = _ALIASES.get(name) or _TREC_PLAIN.get(name)
    if exact:
        return exact
    found = _NAMES.get(_fold(name), {})
    measures = list(dict.fromkeys(found.values()))
    if len(measures) > 1:
        choices = " or ".join(
            f"{spelling!r} ({DECLARATIONS[m].summary})" for spelling, m in found.items()
            if spelling in DECLARATIONS or spelling in _TREC_PLAIN
        )
        raise ValueError(
            f"measure {text!r}: {name!r} differs only in letter case from two measures: "
            f"{choices}; write the one you mean exactly"
        )
    return measures[0] if measures else None


def _trec_name(base: str, table: dict, folded: dict):
    """trec_eval's spelling (a key of ``table``) of ``base``: typed exactly, or folded
    when that is one trec_eval name and ``base`` is no other measure's exact name
    (``RBP.p=0.8`` is not trec_eval's ``rbp``); None otherwise."""
    if base in table:
        return base
    found = folded.get(_fold(base), {})
    if len(found) != 1:
        return None
    spelling, measure = next(iter(found.items()))
    exact = base if base in DECLARATIONS else _ALIASES.get(base)
    return spelling if exact in (None, measure) else None


_SUGGESTING = threading.local()


def _suggest(name: str, rest: str) -> list:
    """At most three spellings of the one measure closest to ``name`` (typed with
    ``rest`` after it: its parameters and cut-off, kept in each suggestion where the
    suggested measure takes them). A short name is too close to too many others (HR
    and R): it gets none."""
    if len(name) <= 3 or getattr(_SUGGESTING, "on", False):
        return []
    key = _fold(name)
    pools = [(_NAMES, key, rest)]
    underscore = _TREC_UNDERSCORE.match(name)
    if underscore:  # trec_eval's cut family with its cut-off: ndcg_cutt_10
        pools.append((_TREC_CUT_FOLDED, _fold(underscore.group("base")),
                      "_" + underscore.group("cut") + rest))
    if rest.startswith("."):  # trec_eval's -m syntax: ndcg_cutt.10
        pools[:0] = [(_TREC_CUT_FOLDED, key, rest), (_TREC_PLAIN_FOLDED, key, rest)]
    for pool, typed, after in pools:
        keys = [k for k in difflib.get_close_matches(typed, list(pool), n=5, cutoff=0.75)
                if k != typed]
        if not keys:
            continue
        measure = next(iter(pool[keys[0]].values()))
        # one spelling per folded name (the measure's own name first), of one measure
        spellings = [next(s for s, m in pool[k].items() if m == measure)
                     for k in keys if measure in pool[k].values()]
        _SUGGESTING.on = True
        try:
            return [s + after if _parses(s + after) else s for s in spellings][:3]
        finally:
            _SUGGESTING.on = False
    return []


def _parses(text: str) -> bool:
    try:
        parse_measure(text)
    except ValueError:
        return False
    return True


def _unknown(text, name, rest=""):
    """The ValueError of an unknown measure name: why (a measure of another tool that
    rankeval does not compute, a trec_eval set or family), or at most three
    suggestions that keep the cut-off; never the list of every measure."""
    key = _fold(name)
    if key in _NOT_HERE_FOLDED:
        return ValueError(f"unknown measure {text!r} ({_NOT_HERE_FOLDED[key]}); {_SEE_ALL}")
    if name in _TREC_SETS:
        return ValueError(
            f"measure {text!r} is trec_eval's set of {len(_TREC_SETS[name])} measure "
            f"names: rankeval.parse_trec_eval({name!r}) expands it; {_SEE_ALL}"
        )
    family = _trec_name(name, _TREC_CUT, _TREC_CUT_FOLDED)
    if family and not rest:
        d = DECLARATIONS[_TREC_CUT[family]]
        first = show(d.trec_eval_cuts[0]) if d.trec_eval_cuts else "10"
        example = _make(d, _cutoff(d, text, first), {}, text)
        return ValueError(
            f"measure {text!r} is trec_eval's family {family}: give a cut-off, as in "
            f"{trec_eval_name(example)} or {example}; rankeval.parse_trec_eval({family!r}) "
            "gives trec_eval's default cut-offs"
        )
    close = _suggest(name, rest)
    hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
    return ValueError(f"unknown measure {text!r}{hint}; {_SEE_ALL}")


def _cutoff(decl, text, value):
    if decl.cutoff == "none":
        raise ValueError(f"measure {text!r}: {decl.name} takes no cut-off")
    if decl.cutoff == "recall":
        try:
            level = float(value)
        except ValueError:
            level = -1.0
        if not 0 <= level <= 1:
            raise ValueError(
                f"measure {text!r}: the recall level after '@' must lie in [0, 1], got {value!r}"
            )
        return as_number(level)
    if decl.cutoff == "multiple":  # Rprec_mult: a multiple of R, a number >= 0
        try:
            times = float(value)
        except ValueError:
            times = -1.0
        if not (math.isfinite(times) and times >= 0):
            raise ValueError(
                f"measure {text!r}: the multiple of R after '@' must be a number >= 0, "
                f"got {value!r}"
            )
        return as_number(times)
    if not (value.isascii() and value.isdigit()) or int(value) <= 0:
        raise ValueError(
            f"measure {text!r}: the cut-off after '@' must be a positive integer, got {value!r}"
        )
    return int(value)


def _make(decl, cutoff, given: dict, text) -> Measure:
    params = {}
    for key, value in given.items():
        p = decl.param(key)
        if p is None:
            allowed = ", ".join(q.name for q in decl.params) or "none"
            raise ValueError(
                f"measure {text!r}: {decl.name} has no parameter {key!r} (allowed: {allowed})"
            )
        params[key] = p.check(value, text)
    for p in decl.params:
        if p.name in params and params[p.name] == p.default and not p.shown:
            del params[p.name]  # the default: one spelling per measure
        elif p.shown and p.name not in params:
            params[p.name] = p.default
    if params.get("gains") == ():
        del params["gains"]
    if "gains" in params and "gain" in params:
        raise ValueError(f"measure {text!r}: give either gain= or gains=, not both")
    check = getattr(decl.score, "check_params", None)  # rules between parameters
    if check is not None:
        check(params, text)
    if decl.cutoff == "required" and cutoff is None:
        raise ValueError(f"measure {text!r}: {decl.name} needs a cut-off, e.g. {decl.name}@10")
    if decl.cutoff == "multiple" and cutoff is None:
        raise ValueError(
            f"measure {text!r}: {decl.name} needs a multiple of R, e.g. {decl.name}@0.5"
        )
    if decl.cutoff == "recall" and cutoff is None:
        raise ValueError(
            f"measure {text!r}: {decl.name} needs a recall level, e.g. {decl.name}@0.1"
        )
    return Measure(decl.name, cutoff, tuple(sorted(params.items())))


def _trec_eval_params(decl, base, params, text) -> dict:
    """The parameter of trec_eval's dotted syntax (``ndcg.0=0,1=1``, ``set_F.0.5``,
    ``rbp.p=0.8``, ``utility.1,-1,0,0``, ``11pt_avg..25,.5``): ``{name: value}`` of the
    declaration's ``trec_eval_param``."""
    param = decl.param(decl.trec_eval_param) if decl.trec_eval_param else None
    if param is None:
        raise ValueError(f"trec_eval measure {base!r} takes no parameters, got {text!r}")
    if param.kind == "probability":  # trec_eval 10: name=value pairs (rbp.p=0.5)
        given = {}
        for pair in params.split(","):
            key, eq, value = pair.partition("=")
            if not eq or key.strip() != param.name:
                raise ValueError(
                    f"trec_eval measure {text!r}: {base} takes its persistence as "
                    f"{base}.{param.name}=0.5, as trec_eval 10 does (which refuses {base}.0.5)"
                )
            given[param.name] = _value(value)
        return given
    if param.kind == "coefficients":  # utility.a,b,c,d
        try:
            return {param.name: tuple(float(v) for v in params.split(","))}
        except ValueError:
            raise ValueError(
                f"trec_eval measure {text!r}: {base} takes 4 numbers, e.g. {base}.1,-1,0,0"
            ) from None
    if param.kind == "levels":  # trec_eval's own recall levels: 11pt_avg..25,.5,.75
        try:
            return {param.name: tuple(float(v) for v in params.split(","))}
        except ValueError:
            raise ValueError(
                f"trec_eval measure {text!r}: recall levels are numbers in [0, 1], e.g. "
                f"{base}..25,.5,.75"
            ) from None
    if param.kind != "gains":
        return {param.name: _value(params)}
    pairs = []  # level=gain pairs
    for item in params.split(","):
        g, eq, v = item.partition("=")
        if not eq:
            raise ValueError(
                f"trec_eval measure {text!r}: gains are written level=gain, "
                f"e.g. {base}.0=0,1=1,2=3"
            )
        pairs.append((_value(g), _value(v)))
    return {param.name: tuple(pairs)}


def _trec_eval_printed(text):
    """A measure from trec_eval's printed name of a parameterised measure
    (``ndcg_0=0,1=1``, ``set_F_0.5``, ``rbp_0.8``), or None."""
    for name, decl in _TREC_PARAM.items():
        rest = text.strip()[len(name) + 1 :]
        first = set("0123456789-.")
        if decl.param(decl.trec_eval_param).kind == "probability":  # rbp_p=0.5
            first.add(decl.trec_eval_param[:1])
        if text.strip().startswith(name + "_") and rest[:1] in first:
            return _make(decl, None, _trec_eval_params(decl, name, rest, text), text)
    return None


def parse_measure(text) -> Measure:
    r"""Parse one measure name such as ``"nDCG@10"`` into a :class:`~rankeval.Measure`.

    Parameters
    ----------
    text : str, Measure or an ir_measures measure
        ``NAME``, ``NAME@k`` or ``NAME(key=value,...)@k`` in ir_measures
        spelling (see the table in :mod:`rankeval.measures`); book aliases
        (``MAP``, ``MRR``, ``MAR``, ...), ranx's names (``mrr@10``,
        ``precision@5``, ``recall@100``, ``hit_rate@10``, ``r-precision``)
        and trec_eval names (``map``, ``P_10``, ``recall_100``,
        ``ndcg_cut_10``, ``iprec_at_recall_0.10``, ``num_rel_ret``, ...) are
        accepted, and so is one measure in trec_eval's dotted syntax
        (``P.5``, ``ndcg_cut.10``; for several, ``P.5,10``, use
        :func:`~rankeval.parse_trec_eval`). An ir_measures measure object
        (``ir_measures.nDCG@10``) is read by its ``str()``.

    Returns
    -------
    Measure
        With the canonical name; ``str()`` of it is the canonical spelling.

    Raises
    ------
    ValueError
        Unknown name (with at most three spellings of the closest measure,
        its parameters and cut-off kept), a name that only its letter case
        tells from two measures, malformed syntax, a cut-off that is not a
        positive integer (a recall level in [0, 1] for IPrec), an unknown or
        invalid parameter.

    Notes
    -----
    The grammar is ``NAME [ "(" key=value {"," key=value} ")" ] [ "@" k ]``.
    A name typed exactly as declared (a measure's name, an alias or
    trec_eval's name) is that measure. Otherwise letter case, ``_`` and ``-``
    do not count (``Ndcg@10``, ``NDCG_cut_10``, ``hit_rate@10`` and
    ``BPref`` are read), as long as that leaves one measure: ``RBP``
    (ir_measures' rank-biased precision) and ``rbp`` (trec_eval's, rankeval's
    ``trec_rbp``) differ only in case, so ``Rbp`` is an error that names
    both. ir_measures writes two measures as others with a parameter:
    ``NumRet(rel=1)`` is ``NumRelRet(rel=1)`` and ``SetP(relative=True)`` is
    ``SetRelP``. ``RBP`` is binary here (1 for a grade at least ``rel``), as
    ir_measures' ``RBP(rel=1)``; ir_measures' ``RBP`` without ``rel`` takes the
    grade as the gain, which is ``RBP(graded=True)`` here (or ``RBP`` under
    ``conventions="ir_measures"``), and an ir_measures object ``RBP`` without
    ``rel`` is read so. ``dcg='exp-log2'`` means the gain
    :math:`2^g - 1` and ``dcg='log2'`` the gain :math:`g`, both with the
    discount :math:`\log_2(i + 1)`. A parameter equal to its default is
    dropped from the canonical spelling (``ERR(max_grade=4)@10`` is
    ``ERR@10``), except RBP's ``p``, which is always shown.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import parse_measure
    >>> parse_measure("nDCG@10")
    Measure(name='nDCG', cutoff=10, params=())
    >>> names = ["MAP", "ndcg_cut_5", "RBP", "P(rel=2)@5", "iprec_at_recall_0.10"]
    >>> [str(parse_measure(name)) for name in names]
    ['AP', 'nDCG@5', 'RBP(p=0.8)', 'P(rel=2)@5', 'IPrec@0.1']
    >>> [str(parse_measure(name)) for name in ["mrr@10", "Ndcg@10", "P.5", "SetAP"]]
    ['RR@10', 'nDCG@10', 'P@5', 'SetMAP']
    """
    if isinstance(text, Measure):
        return text
    if _is_ir_measures(text):
        obj, text = text, str(text)  # ir_measures' objects print in its syntax: nDCG@10
        if obj.NAME == "RBP" and "rel" not in (getattr(obj, "params", None) or {}):
            # ir_measures' RBP without rel is graded (the grade is the gain), and prints
            # as "RBP", which is binary here: read the object by its meaning
            m = parse_measure(text)
            return Measure(m.name, m.cutoff, tuple(sorted({**m.param, "graded": True}.items())))
    if not isinstance(text, str):
        raise TypeError(
            f"a measure must be a string such as 'nDCG@10' (or an ir_measures measure), "
            f"got {text!r}"
        )
    underscore = _TREC_UNDERSCORE.match(text)
    family = underscore and _trec_name(underscore.group("base"), _TREC_CUT, _TREC_CUT_FOLDED)
    if family:  # trec_eval's name with its cut-off: P_10, NDCG_cut_10, iprec_at_recall_0.10
        decl = DECLARATIONS[_TREC_CUT[family]]
        return _make(decl, _cutoff(decl, text, underscore.group("cut")), {}, text)
    printed = _trec_eval_printed(text)
    if printed is not None:
        return printed
    if "." in text and not any(c in text for c in "@()"):  # trec_eval's -m syntax: P.5
        found = _trec_eval_measures(text.strip())
        if len(found) != 1:
            listed = ", ".join(map(str, found[:5])) + (", ..." if len(found) > 5 else "")
            raise ValueError(
                f"measure {text!r} names {len(found)} measures in trec_eval's syntax "
                f"({listed}); parse_measure reads one: rankeval.parse_trec_eval({text!r}) "
                "gives them all"
            )
        return found[0]
    match = _SYNTAX.match(text)
    if not match:
        raise ValueError(
            f"cannot parse measure {text!r}: expected NAME, NAME@k or NAME(key=value)@k, "
            "e.g. 'nDCG@10' or 'RBP(p=0.9)'"
        )
    name, params_text, cutoff_text = match.group("name", "params", "cutoff")
    if _TREC_UNDERSCORE.match(name) and cutoff_text is not None:
        base = _TREC_UNDERSCORE.match(name).group("base")
        if _trec_name(base, _TREC_CUT, _TREC_CUT_FOLDED):
            raise ValueError(f"measure {text!r} gives the cut-off twice")
    measure = _lookup(name, text)
    if measure is None:
        raise _unknown(text, name, text.strip()[len(name) :])
    decl = DECLARATIONS[measure]
    given = {}
    if params_text is not None and params_text.strip():
        for item in _split_params(params_text):
            key, eq, raw = item.partition("=")
            key = key.strip()
            if not eq or not key:
                raise ValueError(
                    f"measure {text!r}: parameters must be written key=value, got {item!r}"
                )
            if key in given:
                raise ValueError(f"measure {text!r}: parameter {key!r} is given twice")
            try:
                given[key] = _value(raw)
            except ValueError as err:
                raise ValueError(f"measure {text!r}: {err}") from None
    decl = _ir_measures_form(decl, given, text)
    if "dcg" in given and decl.param("gain") is not None:  # ir_measures spelling
        if "gain" in given:
            raise ValueError(f"measure {text!r}: give either dcg= or gain=, not both")
        forms = {"log2": "linear", "exp-log2": "exponential"}
        if given["dcg"] not in forms:
            raise ValueError(
                f"measure {text!r}: parameter dcg={given['dcg']!r} must be 'log2' (linear "
                "gain) or 'exp-log2' (exponential gain)"
            )
        given["gain"] = forms[given.pop("dcg")]
    cutoff = None if cutoff_text is None else _cutoff(decl, text, cutoff_text)
    return _make(decl, cutoff, given, text)


def _is_ir_measures(obj) -> bool:
    """True for a measure object of ir_measures (``ir_measures.nDCG@10``), which is read
    by its ``str()``; ir_measures itself is not imported."""
    module = type(obj).__module__ or ""
    return module.split(".")[0] == "ir_measures" and hasattr(obj, "NAME")


def _ir_measures_form(decl, given: dict, text):
    """The declaration meant by ir_measures' spelling of a measure as another one with a
    parameter (``NumRet(rel=1)`` is NumRelRet, ``SetP(relative=True)`` is SetRelP); the
    parameter is taken out of ``given`` unless the meant measure keeps it."""
    for (measure, key), (meant, keep) in _IR_MEASURES_FORMS.items():
        if decl.name != measure or key not in given:
            continue
        if keep:
            return DECLARATIONS[meant]
        flag = given.pop(key)
        if flag in (True, "True", "true"):
            return DECLARATIONS[meant]
        if flag not in (False, "False", "false"):
            raise ValueError(
                f"measure {text!r}: parameter {key}={flag!r} must be True ({meant}) or False"
            )
    return decl


def _trec_eval_measures(text: str) -> list:
    """The measures of one name in trec_eval's ``-m`` syntax that is not a set (``P``,
    ``P.5,10``, ``ndcg_cut.10``, ``map``, ``ndcg.0=0,1=1``): the body of
    :func:`rankeval.parse_trec_eval`, which :func:`parse_measure` reads dotted names with.
    trec_eval's names are matched as the others are: exactly, else folded when that is
    one name's (``NDCG_cut.10``)."""
    underscore = _TREC_UNDERSCORE.match(text)
    if underscore and _trec_name(underscore.group("base"), _TREC_CUT, _TREC_CUT_FOLDED):
        return [parse_measure(text)]  # iprec_at_recall_0.20
    base, dot, params = text.partition(".")
    family = _trec_name(base, _TREC_CUT, _TREC_CUT_FOLDED)
    if family:
        decl = DECLARATIONS[_TREC_CUT[family]]
        if dot:
            values = [v.strip() for v in params.split(",")]
            if decl.cutoff not in ("recall", "multiple"):  # atol, as trec_eval: 23.4 is 23
                values = [_atol(v) for v in values]
        else:
            values = [show(v) for v in decl.trec_eval_cuts]
        if not values or "" in values:
            raise ValueError(f"trec_eval measure {text!r}: give cut-offs such as {family}.5,10")
        try:
            return list(
                dict.fromkeys(_make(decl, _cutoff(decl, text, v), {}, text) for v in values)
            )
        except ValueError as err:
            raise ValueError(f"trec_eval measure {text!r}: {err}") from None
    plain = _trec_name(base, _TREC_PLAIN, _TREC_PLAIN_FOLDED)
    if plain:
        decl = DECLARATIONS[_TREC_PLAIN[plain]]
        given = {}
        if dot:
            given = _trec_eval_params(decl, plain, params, text)
        return [_make(decl, None, given, text)]
    if not dot:
        try:
            return [parse_measure(text)]
        except ValueError:
            pass
    measure = _SYNTAX.match(base) and _lookup(base, text)
    if dot and measure:  # Judged.5: a measure trec_eval has no name for
        cut = DECLARATIONS[measure].cutoff
        example = measure + {"optional": "@10", "required": "@10", "recall": "@0.1",
                             "multiple": "@0.5"}.get(cut, "")
        other = {**_TREC_PLAIN_FOLDED, **_TREC_CUT_FOLDED}.get(_fold(base), {})
        also = "".join(f"; trec_eval's {s!r} is rankeval's {m}" for s, m in other.items())
        raise ValueError(
            f"trec_eval measure {text!r}: {measure} has no trec_eval name; write it as "
            f"ir_measures does, e.g. {example}{also}"
        )
    raise _unknown(text, base, dot + params)


def _atol(text: str) -> str:
    """A cut-off as trec_eval reads it (C's ``atol``): its leading integer, so that
    ``"23.4"`` is 23; text without a leading integer is left for the checks to refuse."""
    match = re.match(r"\s*\+?(\d+)", text)
    return match.group(1) if match else text


def parse_measures(measures) -> list:
    r"""Parse one measure name or an iterable of them; duplicates are dropped.

    Parameters
    ----------
    measures : str, Measure or iterable of them
        A single string is one measure (``"nDCG@10"``); to give several,
        pass a list.

    Returns
    -------
    list of Measure
        In the given order, without repeats (compared after parsing, so
        ``"MAP"`` and ``"AP"`` are one measure).

    Notes
    -----
    Two spellings are the same measure when their parsed name, cut-off and
    parameters agree (a parameter equal to its default counts as absent); the
    first spelling is kept.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import parse_measures
    >>> [str(m) for m in parse_measures(["AP", "P_10", "MAP", "nDCG@10"])]
    ['AP', 'P@10', 'nDCG@10']
    """
    if isinstance(measures, (str, Measure)) or _is_ir_measures(measures):
        measures = [measures]
    try:
        items = list(measures)
    except TypeError:
        raise TypeError(
            f"measures must be a measure name or a list of them, got {type(measures).__name__}"
        ) from None
    if not items:
        raise ValueError("measures is empty: name at least one measure, e.g. ['nDCG@10', 'AP']")
    return list(dict.fromkeys(parse_measure(m) for m in items))


def describe(name=None) -> str:
    """One line per measure: its spelling with parameters, meaning and trec_eval names.

    Parameters
    ----------
    name : str, optional
        Only the measure this name parses to (``"MAP"``, ``"ndcg_cut_10"``);
        default: every measure.

    Returns
    -------
    str
        The lines of ``--help`` and ``--list-measures``, one per measure:
        ``NAME(params)@k  meaning [trec_eval: names]``.

    Notes
    -----
    Generated from the measure declarations, so that the list can never
    disagree with what :func:`~rankeval.parse_measure` accepts.

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import describe
    >>> print(describe("Judged@5"))
    Judged@k  share of the top k that is judged (Judged@k)
    """
    if name is not None:
        d = parse_measure(name).declaration
        return f"{_spelling(d)}  {d.summary}{_trec_note(d)}"
    width = max(len(_spelling(d)) for d in DECLARATIONS.values())
    return "\n".join(
        f"  {_spelling(d):<{width}}  {d.summary}{_trec_note(d)}" for d in DECLARATIONS.values()
    )


# what follows a cut family's name in the tables: a rank k, a recall level r, a multiple m of R
_CUT_LETTER = {"recall": "_r", "multiple": "_m"}


def _spelling(d) -> str:
    params = ",".join(
        p.name if p.default in (None, ()) else f"{p.name}={show(p.default)}" for p in d.params
    )
    text = d.name + (f"({params})" if params else "")
    if d.cutoff in ("optional", "required"):
        text += "@k"
    elif d.cutoff == "recall":
        text += "@r"
    elif d.cutoff == "multiple":
        text += "@m"
    return text


def _trec_note(d) -> str:
    cut = "." + _CUT_LETTER.get(d.cutoff, "_k")[1:]
    names = [n for n in (d.trec_eval, d.trec_eval_cut and d.trec_eval_cut + cut) if n]
    if d.needs == "subtopics":
        return " [subtopic qrels: --subtopics]"
    return f" [trec_eval: {', '.join(names)}]" if names else ""


def _family(d) -> str:
    """The rubric a declaration's row goes under in the API page's tables."""
    if d.aggregate == "sum":
        return "Counts, summed over queries"
    if d.cutoff == "none":
        return "Measures of the whole ranking or of the retrieved set"
    return "Measures with a cut-off (``@k``, ``@r`` or a depth)"


def table() -> str:
    """The API page's tables of measures: three columns, so that they fit the page.

    The function that computes a measure is linked from its meaning (the API page
    documents every public function); trec_eval's names get a column of their own.
    One table per family (cut-off measures, whole-ranking measures, counts), each
    under a rubric, so that no table grows too tall on a phone.
    """
    families: dict[str, list[tuple[str, str, str]]] = {}
    for d in DECLARATIONS.values():
        cut = d.trec_eval_cut and d.trec_eval_cut + _CUT_LETTER.get(d.cutoff, "_k")
        names = ", ".join(x for x in (d.trec_eval, cut) if x)
        aliases = f" ({', '.join(d.aliases)})" if d.aliases else ""
        summary = d.summary.replace("*", r"\*")
        if d.aggregate == "sum" and "summed" not in summary:
            summary += "; summed over queries"
        if d.function is not None:
            summary += f"; :func:`~rankeval.{d.function.__name__}`"
        spelling = _spelling(d).replace(",", ", ")  # a space lets a long name wrap
        row = (f"``{spelling}``{aliases}", summary, f"``{names}``" if names else "")
        families.setdefault(_family(d), []).append(row)
    order = [_family(d) for d in DECLARATIONS.values()]
    parts = []
    for family in sorted(families, key=order.index):
        rows = [("name", "meaning", "trec_eval"), *families[family]]
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        rule = "  ".join("=" * w for w in widths)
        body = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                for r in rows]
        parts.append("\n".join([f".. rubric:: {family}", "", rule, body[0], rule,
                                 *body[1:], rule]))
    return "\n\n".join(parts)


def trec_eval_name(measure) -> str | None:
    """trec_eval's printed name of a measure (``"P_10"``, ``"map"``,
    ``"iprec_at_recall_0.10"``), or None when trec_eval has no such measure
    or cannot take its parameters."""
    m = parse_measure(measure)
    d = m.declaration
    if any(not d.param(k).trec_eval for k in m.param):
        return None  # a parameter trec_eval cannot take
    if d.trec_eval_param in m.param:  # printed with its parameter text, as trec_eval does
        if m.cutoff is not None or not d.trec_eval:
            return None
        value = m.param[d.trec_eval_param]
        kind = d.param(d.trec_eval_param).kind
        if kind == "gains":
            return f"{d.trec_eval}_" + ",".join(f"{show(g)}={show(v)}" for g, v in value)
        if kind in ("levels", "coefficients"):
            return f"{d.trec_eval}_" + ",".join(show(x) for x in value)
        if kind == "probability":  # trec_eval 10 prints rbp.p=0.5 as rbp_p=0.5
            return f"{d.trec_eval}_{d.trec_eval_param}={show(value)}"
        return f"{d.trec_eval}_{show(value)}"
    if m.cutoff is not None:
        if not d.trec_eval_cut:
            return None
        if d.cutoff in ("recall", "multiple"):
            return f"{d.trec_eval_cut}_{m.cutoff:.2f}"
        return f"{d.trec_eval_cut}_{m.cutoff}"
    return d.trec_eval
