"""Measure names: parse ``"nDCG@10"``, ``"RBP(p=0.9)"``, ``"P(rel=2)@5"`` into a :class:`Measure`.

The spelling follows ir_measures: a name, optional parameters in parentheses,
an optional cut-off after ``@``. The names of the book are accepted too (MAP,
MRR, MAR, GAP, MR, FRP, ...), and so are trec_eval's (``map``, ``P_10``,
``ndcg_cut_10``, ``recip_rank``, ...), which map onto the same measures.

========================  ===========================================  ==================
name (aliases)            rankeval function                            parameters
========================  ===========================================  ==================
``P@k`` (Precision)       ``precision_at_k``                           ``rel``
``R@k`` (Recall)          ``recall_at_k``                              ``rel``
``Success@k`` (Hit)       ``hit_at_k``                                 ``rel``
``Hits@k``                ``hits_at_k``                                ``rel``
``AP``, ``AP@k`` (MAP)    ``average_precision``                        ``rel``
``RR``, ``RR@k`` (MRR)    ``reciprocal_rank``                          ``rel``
``nDCG``, ``nDCG@k``      ``ndcg``                                     ``dcg``, ``gain``
``DCG``, ``DCG@k``        ``dcg``                                      ``dcg``, ``gain``
``ERR@k`` (MERR)          ``err``                                      ``max_grade``
``RBP`` (``RBP(p=0.8)``)  ``rbp``                                      ``p``, ``rel``,
                                                                       ``max_grade``
``AR`` (MAR)              ``average_recall``                           ``rel``
``GAP``                   ``graded_average_precision``                 ``max_grade``
``MR``                    ``mean_rank``                                ``rel``
``FRP``                   ``first_relevant_position``                  ``rel``
========================  ===========================================  ==================

Chapter: :doc:`/chapters/13_evaluating_a_run`.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

__all__ = ["Measure", "parse_measure", "parse_measures"]


@dataclass(frozen=True)
class _Spec:
    function: str  # name of the rankeval function
    params: tuple  # parameter names the measure accepts
    binary: bool  # uses the relevance threshold
    lower_is_better: bool = False
    defaults: tuple = ()  # (name, value) filled in when not given


_SPECS = {
    "P": _Spec("precision_at_k", ("rel",), True),
    "R": _Spec("recall_at_k", ("rel",), True),
    "Success": _Spec("hit_at_k", ("rel",), True),
    "Hits": _Spec("hits_at_k", ("rel",), True),
    "AP": _Spec("average_precision", ("rel",), True),
    "RR": _Spec("reciprocal_rank", ("rel",), True),
    "nDCG": _Spec("ndcg", ("dcg", "gain"), False),
    "DCG": _Spec("dcg", ("dcg", "gain"), False),
    "ERR": _Spec("err", ("max_grade",), False),
    "RBP": _Spec("rbp", ("p", "rel", "max_grade"), False, defaults=(("p", 0.8),)),
    "AR": _Spec("average_recall", ("rel",), True),
    "GAP": _Spec("graded_average_precision", ("max_grade",), False),
    "MR": _Spec("mean_rank", ("rel",), True, lower_is_better=True),
    "FRP": _Spec("first_relevant_position", ("rel",), True, lower_is_better=True),
}

_ALIASES = {
    "MAP": "AP",
    "MRR": "RR",
    "NDCG": "nDCG",
    "MERR": "ERR",
    "MAR": "AR",
    "Hit": "Success",
    "Precision": "P",
    "Recall": "R",
}

# trec_eval spellings (pytrec_eval's measure names): name -> (measure, takes a cut-off)
_TREC_EVAL = {
    "P": ("P", True),
    "recall": ("R", True),
    "success": ("Success", True),
    "map": ("AP", False),
    "map_cut": ("AP", True),
    "recip_rank": ("RR", False),
    "ndcg": ("nDCG", False),
    "ndcg_cut": ("nDCG", True),
}

# ir_measures names rankeval does not compute, for a helpful message
_NOT_HERE = {
    "Bpref", "infAP", "Judged", "NumQ", "NumRel", "NumRet", "NumRelRet", "Rprec",
    "SetP", "SetR", "SetF", "SetAP", "IPrec", "iprec_at_recall", "alpha_nDCG",
    "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "SDCG", "Compat", "P_rel",
    "StRecall", "AP_IA", "nERR_IA", "ERR_IA", "nNRBP", "NRBP", "Accuracy", "bpref",
    "Rprec_mult", "11pt_avg", "gm_map", "utility", "set_F", "relstring",
}  # fmt: skip

_DCG_FORMS = {"log2": "linear", "exp-log2": "exponential"}

_SYNTAX = re.compile(
    r"""^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*?)
        (?:_(?P<trec_k>\d+))?
        \s*(?:\((?P<params>[^()]*)\))?
        \s*(?:@\s*(?P<cutoff>[^\s@]+))?\s*$""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class Measure:
    r"""One evaluation measure: a name, a cut-off and parameters.

    Build it with :func:`parse_measure`; ``str(measure)`` gives the canonical
    ir_measures-style spelling (``"nDCG@10"``, ``"RBP(p=0.9)"``).

    Attributes
    ----------
    name : str
        Canonical name, e.g. ``"nDCG"`` (aliases such as ``"MAP"`` are mapped).
    cutoff : int or None
        The ``k`` after ``@``; ``None`` for the whole ranking.
    params : tuple of (str, object)
        Parameters, sorted by name, e.g. ``(("p", 0.9),)``.

    Chapter: :doc:`/chapters/13_evaluating_a_run`.
    """

    name: str
    cutoff: int | None = None
    params: tuple = ()

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={_show(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    @property
    def param(self) -> dict:
        """Parameters as a dict."""
        return dict(self.params)

    @property
    def function(self):
        """The rankeval function that computes this measure for one ranking or many."""
        import rankeval

        return getattr(rankeval, _SPECS[self.name].function)

    @property
    def binary(self) -> bool:
        """True if the measure counts items with grade >= a threshold as relevant."""
        return _SPECS[self.name].binary or (self.name == "RBP" and "max_grade" not in self.param)

    @property
    def lower_is_better(self) -> bool:
        """True for rank positions (MR, FRP), where a smaller value is better."""
        return _SPECS[self.name].lower_is_better


def _show(value) -> str:
    return repr(value) if isinstance(value, str) else f"{value:g}"


def _value(text: str):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _known() -> str:
    return ", ".join(list(_SPECS) + list(_ALIASES))


def _check_param(measure: str, key: str, value, text: str):
    def bad(expected):
        return ValueError(f"measure {text!r}: parameter {key}={value!r} must be {expected}")

    if key in ("rel", "max_grade"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise bad("a number > 0")
        return value
    if key == "p":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise bad("a probability in (0, 1)")
        return float(value)
    if key == "dcg":
        if value not in _DCG_FORMS:
            raise bad("'log2' (linear gain) or 'exp-log2' (exponential gain)")
        return value
    if key == "gain":
        if value not in ("linear", "exponential"):
            raise bad("'linear' or 'exponential'")
        return value
    raise AssertionError(key)  # pragma: no cover - keys are checked by the caller


def parse_measure(text) -> Measure:
    r"""Parse one measure name such as ``"nDCG@10"`` into a :class:`Measure`.

    Parameters
    ----------
    text : str or Measure
        ``NAME``, ``NAME@k``, ``NAME(key=value,...)`` or ``NAME(key=value)@k``
        in ir_measures spelling (see the table in this module's docstring);
        book aliases (``MAP``, ``MRR``, ``MAR``, ...) and trec_eval names
        (``map``, ``P_10``, ``recall_100``, ``ndcg_cut_10``, ...) are accepted.
        Parameters: ``rel`` (relevance threshold of binary measures), ``p``
        (RBP persistence), ``dcg`` (``'log2'`` or ``'exp-log2'``, as in
        ir_measures) or ``gain`` (``'linear'``, ``'exponential'``) for
        (n)DCG, ``max_grade`` (top of the grade scale for ERR, GAP and graded
        RBP).

    Returns
    -------
    Measure
        With the canonical name; ``str()`` of it is the canonical spelling.

    Raises
    ------
    ValueError
        Unknown name (with the closest known names), malformed syntax, a
        cut-off that is not a positive integer, an unknown or invalid parameter.

    Notes
    -----
    The grammar is ``NAME [ "(" key=value {"," key=value} ")" ] [ "@" k ]``.
    Names are case-sensitive, as in ir_measures (``nDCG``, not ``NDCG``, is
    the canonical spelling; ``NDCG`` is accepted as a book alias and a
    wrong case gets a suggestion). ``dcg='exp-log2'`` means the gain
    :math:`2^g - 1` and ``dcg='log2'`` the gain :math:`g`, both with the
    discount :math:`\log_2(i + 1)`.

    Chapter: :doc:`/chapters/13_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import parse_measure
    >>> parse_measure("nDCG@10")
    Measure(name='nDCG', cutoff=10, params=())
    >>> str(parse_measure("MAP")), str(parse_measure("ndcg_cut_5")), str(parse_measure("RBP"))
    ('AP', 'nDCG@5', 'RBP(p=0.8)')
    >>> str(parse_measure("P(rel=2)@5"))
    'P(rel=2)@5'
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise TypeError(f"a measure must be a string such as 'nDCG@10', got {text!r}")
    match = _SYNTAX.match(text)
    if not match:
        raise ValueError(
            f"cannot parse measure {text!r}: expected NAME, NAME@k or NAME(key=value)@k, "
            "e.g. 'nDCG@10' or 'RBP(p=0.9)'"
        )
    name, trec_k, params_text, cutoff_text = match.group("name", "trec_k", "params", "cutoff")
    cutoff = None
    if trec_k is not None:
        # trec_eval style "P_10" / "ndcg_cut_10"
        full = f"{name}_{trec_k}"
        if name in _TREC_EVAL and _TREC_EVAL[name][1]:
            if cutoff_text is not None:
                raise ValueError(f"measure {text!r} gives the cut-off twice")
            name, cutoff_text = _TREC_EVAL[name][0], trec_k
        else:
            name = full
    elif name in _TREC_EVAL and not _TREC_EVAL[name][1] and name not in _SPECS:
        name = _TREC_EVAL[name][0]
    name = _ALIASES.get(name, name)
    if name not in _SPECS:
        hint = ""
        if name in _NOT_HERE:
            hint = " (an ir_measures/trec_eval measure that rankeval does not compute)"
        else:
            close = difflib.get_close_matches(name, list(_SPECS) + list(_ALIASES), n=3)
            lower = [k for k in list(_SPECS) + list(_ALIASES) if k.lower() == name.lower()]
            close = list(dict.fromkeys(lower + close))
            if close:
                hint = f" (did you mean {' or '.join(map(repr, close))}?)"
        raise ValueError(f"unknown measure {text!r}{hint}; known measures: {_known()}")
    if cutoff_text is not None:
        if not cutoff_text.isdigit() or int(cutoff_text) <= 0:
            raise ValueError(
                f"measure {text!r}: the cut-off after '@' must be a positive integer, "
                f"got {cutoff_text!r}"
            )
        cutoff = int(cutoff_text)
    spec = _SPECS[name]
    params = dict(spec.defaults)
    if params_text is not None and params_text.strip():
        for item in params_text.split(","):
            key, eq, raw = item.partition("=")
            key = key.strip()
            if not eq or not key:
                raise ValueError(
                    f"measure {text!r}: parameters must be written key=value, got {item!r}"
                )
            if key not in spec.params:
                allowed = ", ".join(spec.params) or "none"
                raise ValueError(
                    f"measure {text!r}: {name} has no parameter {key!r} (allowed: {allowed})"
                )
            params[key] = _check_param(name, key, _value(raw), text)
    if "dcg" in params and "gain" in params:
        raise ValueError(f"measure {text!r}: give either dcg= or gain=, not both")
    if "dcg" in params:  # ir_measures spelling -> the gain it stands for
        params["gain"] = _DCG_FORMS[params.pop("dcg")]
    if params.get("gain") == "linear":
        del params["gain"]  # the default
    return Measure(name, cutoff, tuple(sorted(params.items())))


def parse_measures(metrics) -> list:
    r"""Parse one measure name or an iterable of them; duplicates are dropped.

    Parameters
    ----------
    metrics : str, Measure or iterable of them
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
    parameters agree; the first spelling is kept.

    Chapter: :doc:`/chapters/13_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval import parse_measures
    >>> [str(m) for m in parse_measures(["AP", "P_10", "MAP", "nDCG@10"])]
    ['AP', 'P@10', 'nDCG@10']
    """
    if isinstance(metrics, (str, Measure)):
        metrics = [metrics]
    try:
        items = list(metrics)
    except TypeError:
        raise TypeError(
            f"metrics must be a measure name or a list of them, got {type(metrics).__name__}"
        ) from None
    if not items:
        raise ValueError("metrics is empty: name at least one measure, e.g. ['nDCG@10', 'AP']")
    return list(dict.fromkeys(parse_measure(m) for m in items))
