"""trec_eval's names: its ``-m`` syntax, its sets, its printed names and print order.

Every fact used here is a field of a measure's declaration (``trec_eval``,
``trec_eval_cut``, ``trec_eval_param``, ``trec_eval_cuts``, ``print_order``);
this module only reads trec_eval's spelling of them.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

from .registry import (
    _NOT_HERE,
    _TREC_CUT,
    _TREC_PLAIN,
    _TREC_SETS,
    DECLARATIONS,
    _trec_eval_measures,
    trec_eval_name,
)

__all__ = [
    "parse_trec_eval",
    "trec_eval_name",
    "label",
    "print_order",
    "is_trec_eval_syntax",
    "wants_runid",
    "left_out",
]


# names of trec_eval's measure table, those rankeval does not compute included (an -m with
# one of them is read as trec_eval's syntax, and refused with a helpful message)
_NOT_COMPUTED = {"yaap"} | {name for members in _TREC_SETS.values() for name in members}


def parse_trec_eval(name) -> list:
    r"""Measures named in trec_eval's ``-m`` syntax.

    Parameters
    ----------
    name : str
        One ``-m`` argument of trec_eval: a measure (``map``, ``P``,
        ``ndcg_cut``), with its parameters after a dot (``P.5,10``,
        ``ndcg_cut.10``, ``recall.100``, ``iprec_at_recall.0.10,0.50``,
        ``set_F.0.5`` for beta, ``ndcg.0=0,1=1,2=3`` for a gain map,
        ``rbp.p=0.8`` for p, ``11pt_avg..25,.5,.75`` for recall levels,
        ``utility.1,-1,0,0`` for its coefficients; a cut-off is read as trec_eval
        reads it, by its leading integer: ``ndcg_cut.23.4`` is ``nDCG@23``), or a
        set: ``official`` (the measures trec_eval
        prints by default), ``all_trec``, ``set``. Underscored names
        (``P_10``) work too.

    Returns
    -------
    list of Measure
        A family without parameters expands to trec_eval's default cut-offs
        (``P`` -> P@5, ..., P@1000). Members of a set that rankeval does not
        compute (``runid``, ``relstring``) are left out of the expansion.

    Raises
    ------
    ValueError
        An unknown name, or parameters a measure does not take.

    Notes
    -----
    The sets are those of trec_eval 10's ``measures.c``. A name is matched
    as :func:`~rankeval.parse_measure` matches names: as typed, else in any
    letter case and without ``_`` when that leaves one of trec_eval's names
    (``NDCG_cut.10`` is ``ndcg_cut.10``; ``RBP.p=0.8`` is not trec_eval's
    ``rbp``, since ``RBP`` names another measure). A gain map
    ``ndcg.l=g,...`` sets the gain of grade ``l`` to ``g``; grades not listed
    keep their own value as gain, as in trec_eval. ``iprec_at_recall`` levels
    are recall levels in [0, 1], printed by trec_eval with two decimals
    (``iprec_at_recall_0.10``).

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> from rankeval.measures import parse_trec_eval
    >>> [str(m) for m in parse_trec_eval("P.5,10")]
    ['P@5', 'P@10']
    >>> # grades 0 and 1 keep their gain, grade 2 gets gain 3
    >>> [str(m) for m in parse_trec_eval("ndcg.0=0,1=1,2=3")]
    ['nDCG(gains={2:3})']
    >>> [str(m) for m in parse_trec_eval("official")][:7]
    ['NumQ', 'NumRet', 'NumRel', 'NumRelRet', 'AP', 'GMAP', 'Rprec']
    """
    if not isinstance(name, str):
        raise TypeError(f"a trec_eval measure must be a string such as 'P.10', got {name!r}")
    text = name.strip()
    if text in _TREC_SETS:
        out = []
        for member in _TREC_SETS[text]:
            if member in _TREC_PLAIN or member in _TREC_CUT:
                out.extend(parse_trec_eval(member))
        return list(dict.fromkeys(out))
    return _trec_eval_measures(text)


def label(item: str, measure) -> str:
    """trec_eval's printed name of a measure asked for as ``item`` (``P_10``, ``map``).

    As trec_eval prints them, a measure with a dotted parameter that is not a
    cut-off carries its parameter text: ``-m ndcg.0=0,1=1`` prints ``ndcg_0=0,1=1``.
    """
    base, dot, params = item.partition(".")
    d = measure.declaration
    if dot and d.trec_eval_param and base == d.trec_eval:
        return f"{base}_{params}"
    return trec_eval_name(measure) or str(measure)


# trec_eval's print order of every name it prints (plain names and cut families)
_ORDER = {"runid": 0}
for _d in DECLARATIONS.values():
    if _d.trec_eval:
        _ORDER[_d.trec_eval] = _d.print_order
    if _d.trec_eval_cut:
        _ORDER[_d.trec_eval_cut] = _d.print_order_cut


def print_order(label: str) -> float:
    """Where a trec_eval name (``P_10``, ``map``, ``ndcg_0=0,1=1``) stands in trec_eval's
    output: the position of its measure (the longest name it starts with) in
    trec_eval 10's measure table."""
    best, order = -1, float(len(_ORDER) + 1000)
    for base, position in _ORDER.items():
        if (label == base or label.startswith(base + "_")) and len(base) > best:
            best, order = len(base), position
    return order


def is_trec_eval_syntax(item: str) -> bool:
    """True when ``item`` is written in trec_eval's syntax rather than ir_measures'."""
    return not any(c in item for c in "@()") and (
        "." in item or item in _ORDER or item in _TREC_SETS or item in _NOT_COMPUTED
    )


def wants_runid(item: str) -> bool:
    """trec_eval prints the ``runid`` line for ``-m runid`` and for its sets."""
    return item == "runid" or item in _TREC_SETS


def left_out(item: str) -> list:
    """The members of the trec_eval set ``item`` that rankeval does not compute, with
    why: ``[("relstring", "trec_eval's string of ...")]`` for ``all_trec``; ``[]`` for
    any other name."""
    members = _TREC_SETS.get(item.strip(), ())
    return [(m, _NOT_HERE[m]) for m in members if m not in _TREC_PLAIN and m not in _TREC_CUT]
