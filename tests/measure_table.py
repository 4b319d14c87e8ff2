"""One table of the measures for the tests, as scikit-learn's ``ALL_METRICS``.

A row per declared measure (``MEASURES``, keyed by the declaration's name), read by
``tests/test_registry.py``, ``tests/test_bitexact.py`` and ``tests/test_common.py``:

- ``spelling`` and ``oracle``: how ``evaluate`` spells the measure and what one query's
  value is, computed without ``evaluate``: ``oracle(f, g, J)`` with ``f`` the measure's
  public function (None if it has none), ``g`` the query's ranked grades (NaN:
  unjudged) and ``J`` its judged grades (every one, retrieved or not; ``J >= 1`` counts
  the relevant documents); for a diversity measure ``oracle(f, runs, judged)`` on one
  query's subtopic matrices. ``test_registry.py`` runs every path on it.
- ``spellings``: the spellings whose per-query values ``test_bitexact.py`` checks to the
  last bit in any block: without a cut-off (when allowed), shallow and deep cut-offs,
  and the parameters that change the kernel's path (graded gains, another threshold,
  rounding).
- ``functions``: how ``test_common.py`` calls the measure's public function on a
  ranking or a batch (:class:`Metric`), for its shared checks (batch equals per query,
  input unchanged, pandas and polars input, bad input refused); empty when the measure
  has no public function of its own, or shares one already called on another row
  (GMAP: AP's).

Adding a measure is its module, one line in ``rankeval/measures/registry.py`` and one
row here (its functions called as ``rankeval.<name>``, so no import changes);
``test_every_declaration_has_a_row`` (``test_registry.py``) fails without it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import rankeval  # a new row may call rankeval.<its function>
from rankeval import (
    average_precision,
    average_recall,
    bpref,
    dcg,
    eleven_point_average,
    err,
    first_relevant_position,
    graded_average_precision,
    hit_at_k,
    hits_at_k,
    inferred_average_precision,
    interpolated_precision,
    judged_at_k,
    mean_rank,
    ndcg,
    precision_at_k,
    r_precision,
    rbp,
    recall_at_k,
    reciprocal_rank,
    set_f,
    set_precision,
    set_recall,
    trec_rbp,
)
from rankeval.metrics.intent_aware import intent_aware


@dataclass(frozen=True)
class Metric:
    """How ``test_common.py`` calls one public metric function on a ranking (or a batch
    of rankings)."""

    name: str
    call: Callable
    max_grade: int = 3  # inputs are whole grades 0..max_grade
    pad_neutral: bool = True  # zero padding a ragged batch leaves every value unchanged
    judged: bool = False  # NaN (unjudged) and negative grades are valid input
    k: Callable | None = None  # call with a cut-off k, to test bad cut-offs
    extra: dict = field(default_factory=dict)


def judged(name, call, k=None):
    """A function that reads judgments as trec_eval does (NaN = unjudged): padding a
    ragged batch with 0 would turn "not retrieved" into "retrieved, not relevant"."""
    return Metric(name, call, pad_neutral=False, judged=True, k=k)


@dataclass(frozen=True)
class Row:
    """One measure's row: see the module's docstring."""

    spelling: str
    oracle: Callable
    spellings: list
    functions: tuple = ()


# --- oracles of trec_eval's measures without a public function: one query, written out
# with loops as trec_eval 10's m_*.c files compute them (tests/test_trec_eval_quicktest.py
# checks the values against trec_eval's own expected output)


def _z(g):
    """Unjudged (NaN) as grade 0: what the measures that do not read judgments see."""
    return np.nan_to_num(g, nan=0.0)


def _compat(g, J, p=0.95):
    """Compat written out as ir_measures' compat provider computes it, on grades: the
    ideal lists the relevant grades, best first, the retrieved ones first among equals."""
    g = list(np.nan_to_num(g, nan=0.0))
    relevant = sorted((x for x in J if x > 0), reverse=True)
    ranking = [("run", i) for i in range(len(g))]
    ideal = []
    for grade in sorted(set(relevant), reverse=True):
        mine = [("run", i) for i, x in enumerate(g) if x == grade]
        ideal += mine + [("qrels", grade, n) for n in range(relevant.count(grade) - len(mine))]

    def rbo(a, b, depth):
        score = norm = 0.0
        weight = 1.0
        for d in range(1, depth + 1):
            score += weight * len(set(a[:d]) & set(b[:d])) / d
            norm += weight
            weight *= p
        return score / norm if norm else 0.0

    depth = max(len(ranking), len(ideal))
    best = rbo(ideal, ideal, depth)
    return rbo(ranking, ideal, depth) / best if best > 0 else rbo(ranking, ideal, depth)


def _cwl(name, g, k=None, T=1.0, p=0.9, min_rel=0.0, max_rel=3.0):
    """One query's C/W/L measure written out as cwl_eval's CWLMetric computes it: gains of
    the top 1,000 (unjudged and padding 0), C(i) per rank, W(i) from the products of C."""
    n = 1000
    gains = []
    for i in range(n):
        grade = g[i] if i < len(g) else float("nan")
        grade = min_rel if grade != grade else min(max(max(grade, 0.0), min_rel), max_rel)
        gains.append((grade - min_rel) / (max_rel - min_rel))
    c, seen = [], 0.0
    for i in range(1, n + 1):
        gi = gains[i - 1]
        seen += gi
        if name == "INSQ":
            c.append(((i + 2 * T - 1) / (i + 2 * T)) ** 2)
        elif name == "INST":
            ti = T - seen
            c.append(((i + T + ti - 1) / (i + T + ti)) ** 2)
        elif name == "BPM":
            c.append(1.0 if seen < T and i < k else 0.0)
        elif name == "NERR8":
            c.append(1 - gi if i < k else 0.0)
        elif name == "NERR9":
            c.append(i / (i + 1) * (1 - gi) if i < k else 0.0)
        elif name == "NERR10":
            c.append(p * (1 - gi))
        elif name == "NERR11":
            c.append(((i + 2 * T - 1) / (i + 2 * T)) ** 2 * (1 - gi))
        else:  # SDCG
            c.append(np.log(i + 1) / np.log(i + 2) if i < k else 0.0)
    reach, products = 1.0, []
    for i in range(n):
        products.append(reach)
        reach *= c[i]
    total = sum(products)
    return sum(w / total * gi for w, gi in zip(products, gains, strict=True))


# trec_eval's measures without a public function: one query, written out with loops as
# trec_eval 10's m_*.c files compute them (tests/test_trec_eval_quicktest.py checks the
# values against trec_eval's own expected output)


def _set_map(g, J):
    hits, n, r = (_z(g) >= 1).sum(), len(g), (J >= 1).sum()
    return hits * hits / (n * r) if n and r else 0.0


def _set_relative_p(g, J):
    hits, n, r = (_z(g) >= 1).sum(), len(g), (J >= 1).sum()
    return hits / min(n, r) if n and r else 0.0


def _bin_g(g, J):
    r = (J >= 1).sum()
    total, nonrel = 0.0, 0
    for x in _z(g):
        if x >= 1:
            total += 1 / np.log2(2 + nonrel)
        else:
            nonrel += 1
    return total / r if r else 0.0


def _rprec_mult(g, J, times):
    cut = int(times * (J >= 1).sum() + 0.9)
    return (_z(g)[:cut] >= 1).sum() / cut if cut else 0.0


def _ideal(J):
    return sorted((x for x in J if x > 0), reverse=True)


def _g(g, J):
    ideal = _ideal(J)
    if not sum(ideal):
        return 0.0
    total = cost = gained = 0.0
    for i, x in enumerate(np.maximum(_z(g), 0)):
        cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        gained += x
        if x:
            total += x / np.log2(2 + cost - gained)
    return total / sum(ideal)


def _cumulative_dcg(values, width):
    out, acc = [], 0.0
    for i in range(width):
        acc += (values[i] if i < len(values) else 0.0) / np.log2(i + 2)
        out.append(acc)
    return out


def _ndcg_rel(g, J):
    gains, ideal = list(np.maximum(_z(g), 0)), _ideal(J)
    width = max(len(gains), len(ideal)) + 2
    dcg, idcg = _cumulative_dcg(gains, width), _cumulative_dcg(ideal, width)
    total = sum(dcg[i] / idcg[i] for i, x in enumerate(gains) if x > 0)
    found = sum(1 for x in gains if x > 0)
    total += (len(ideal) - found) * (dcg[-1] / idcg[-1] if idcg[-1] > 0 else 0.0)
    return total / max(len(ideal), 1) if total > 0 else 0.0


def _rndcg(g, J):
    gains, ideal = list(np.maximum(_z(g), 0)), _ideal(J)
    width = max(len(gains), len(ideal)) + 2
    dcg, idcg = _cumulative_dcg(gains, width), _cumulative_dcg(ideal, width)
    padded = ideal + [0.0] * (width - len(ideal))
    total, count = 0.0, 0
    for i in range(1, len(ideal) + 1):  # where the ideal gain changes, the nDCG above
        if padded[i] != padded[i - 1] and idcg[i - 1] > 0:
            total += dcg[i - 1] / idcg[i - 1]
            count += 1
    if len(gains) > len(ideal) + 1 and idcg[-1] > 0:
        total += dcg[-1] / idcg[-1]
        count += 1
    return total / count if (J >= 1).sum() and count else 0.0


MEASURES = {
    "P": Row(
        "P@3", lambda f, g, J: f(_z(g), 3),
        ["P", "P@5", "P@200"],
        (Metric("precision_at_k", lambda r: precision_at_k(r, 4), k=lambda r, k: precision_at_k(r, k)),
         Metric("precision_at_k(whole list)", lambda r: precision_at_k(r), pad_neutral=False),
         Metric("precision_at_k(retrieved)", lambda r: precision_at_k(r, 5, divide_by="retrieved"),
                pad_neutral=False),
         Metric("precision_at_k(threshold=2)", lambda r: precision_at_k(r, 3, threshold=2)),)),
    "R": Row(
        "R@3", lambda f, g, J: f(_z(g), 3, n_relevant=(J >= 1).sum()),
        ["R", "R@5", "R@200"],
        (Metric("recall_at_k", lambda r: recall_at_k(r, 3), k=lambda r, k: recall_at_k(r, k)),
         Metric("recall_at_k(n_relevant=20)", lambda r: recall_at_k(r, 5, n_relevant=20)),)),
    "Hits": Row(
        "Hits@3", lambda f, g, J: f(_z(g), 3),
        ["Hits", "Hits@5"],
        (Metric("hits_at_k", lambda r: hits_at_k(r, 3), k=lambda r, k: hits_at_k(r, k)),)),
    "Success": Row(
        "Success@3", lambda f, g, J: f(_z(g), 3),
        ["Success", "Success@5"],
        (Metric("hit_at_k", lambda r: hit_at_k(r, 2), k=lambda r, k: hit_at_k(r, k)),)),
    "AP": Row(
        "AP", lambda f, g, J: f(_z(g), n_relevant=(J >= 1).sum()),
        ["AP", "AP@5", "AP@200", "AP(rel=2)@50", "AP(cap=True)@5", "AP(cap=False)@5"],
        (Metric("average_precision", lambda r: average_precision(r),
                k=lambda r, k: average_precision(r, k)),
         Metric("average_precision@3", lambda r: average_precision(r, 3)),
         Metric("average_precision(in_top_k)", lambda r: average_precision(r, 4, n_relevant="in_top_k")),
         Metric("average_precision(n_relevant=20)", lambda r: average_precision(r, n_relevant=20)),
         Metric("average_precision(cap_at_k)",
                lambda r: average_precision(r, 3, cap_at_k=True),
                pad_neutral=True),)),
    "GMAP": Row(
        "GMAP", lambda f, g, J: f(_z(g), n_relevant=(J >= 1).sum()),
        ["GMAP", "GMAP(rel=2)"]),
    "RR": Row(
        "RR", lambda f, g, J: f(_z(g)),
        ["RR", "RR@5", "RR(rel=2)"],
        (Metric("reciprocal_rank", lambda r: reciprocal_rank(r),
                k=lambda r, k: reciprocal_rank(r, k)),)),
    "nDCG": Row(
        "nDCG@5", lambda f, g, J: f(_z(g), 5, ideal=J),
        ["nDCG", "nDCG@5", "nDCG@200", "nDCG(gain='exponential')@50",
         "nDCG(gains={0:0,1:1,2:3,3:7,4:15})"],
        (Metric("ndcg", lambda r: ndcg(r, 5), k=lambda r, k: ndcg(r, k)),
         Metric("ndcg(exponential, zipf)",
                lambda r: ndcg(r, gain="exponential", discount="zipf", power_exponent=2)),)),
    "DCG": Row(
        "DCG@5", lambda f, g, J: f(_z(g), 5),
        ["DCG", "DCG@5", "DCG@200", "DCG(gain='exponential')@50",
         "DCG(gains={0:0,1:1,2:3,3:7,4:15})"],
        (Metric("dcg", lambda r: dcg(r), k=lambda r, k: dcg(r, k)),
         Metric("dcg(exponential, jarvelin)",
                lambda r: dcg(r, 5, gain="exponential", discount="jarvelin", log_base=3)),)),
    "binG": Row(
        "binG", lambda f, g, J: _bin_g(g, J),
        ["binG"]),
    "G": Row(
        "G", lambda f, g, J: _g(g, J),
        ["G"]),
    "ndcg_rel": Row(
        "ndcg_rel", lambda f, g, J: _ndcg_rel(g, J),
        ["ndcg_rel"]),
    "Rndcg": Row(
        "Rndcg", lambda f, g, J: _rndcg(g, J),
        ["Rndcg", "Rndcg(rel=2)"]),
    "ERR": Row(
        "ERR@5", lambda f, g, J: f(_z(g), 5, max_grade=4),
        ["ERR", "ERR@5", "ERR@200"],
        (Metric("err", lambda r: err(r, max_grade=3), k=lambda r, k: err(r, k, max_grade=3)),
         Metric("err(p=0.7)", lambda r: err(r, 4, max_grade=3, p=0.7)),
         Metric("err(sigmoid)", lambda r: err(r, transform="sigmoid", beta=1.5), pad_neutral=False),)),
    "RBP": Row(
        "RBP(p=0.7)@5", lambda f, g, J: f((_z(g) >= 1).astype(float), 5, p=0.7),
        ["RBP", "RBP(p=0.5)@5", "RBP(p=0.95)", "RBP(max_grade=4)", "RBP(p=0.7,max_grade=4)@50",
         "RBP(graded=True)", "RBP(p=0.5,graded=True)@5"],
        (Metric("rbp", lambda r: rbp(r, p=0.8), max_grade=1, k=lambda r, k: rbp(r, k)),
         Metric("rbp(graded)", lambda r: rbp(r, p=0.7, graded=True),
                k=lambda r, k: rbp(r, k, graded=True)),)),
    "AR": Row(
        "AR", lambda f, g, J: f(_z(g), n_relevant=(J >= 1).sum()),
        ["AR", "AR@5", "AR@200"],
        (Metric("average_recall", lambda r: average_recall(r, 5),
                k=lambda r, k: average_recall(r, k)),)),
    "GAP": Row(
        "GAP", lambda f, g, J: f(
            _z(g), max_grade=4, grade_counts=np.bincount(J.astype(int), minlength=5)[1:]),
        ["GAP", "GAP@5", "GAP@200"],
        (Metric("graded_average_precision", lambda r: graded_average_precision(r, max_grade=3),
                k=lambda r, k: graded_average_precision(r, k, max_grade=3)),
         Metric("graded_average_precision(probabilities)",
                lambda r: graded_average_precision(r, 4, grade_probabilities=[0.5, 0.3, 0.2])),)),
    "MR": Row(
        "MR@10", lambda f, g, J: f(_z(g), 10, n_relevant=(J >= 1).sum()),
        ["MR@5", "MR@500", "MR(rel=2)@500"],
        (Metric("mean_rank", lambda r: mean_rank(r, 5), k=lambda r, k: mean_rank(r, k)),
         Metric("mean_rank(whole list)", lambda r: mean_rank(r), pad_neutral=False),
         Metric("mean_rank(drop)", lambda r: mean_rank(r, 3, beyond="drop", not_found=100)),)),
    "FRP": Row(
        "FRP@10", lambda f, g, J: f(_z(g), 10),
        ["FRP@5", "FRP@500", "FRP(rel=2)@500"],
        (Metric("first_relevant_position", lambda r: first_relevant_position(r, 4),
                k=lambda r, k: first_relevant_position(r, k)),)),
    "Rprec": Row(
        "Rprec", lambda f, g, J: f(g, n_relevant=(J >= 1).sum()),
        ["Rprec", "Rprec(rel=2)"],
        (judged("r_precision", lambda r: r_precision(r)),)),
    "RprecMult": Row(
        "RprecMult@0.5", lambda f, g, J: _rprec_mult(g, J, 0.5),
        ["RprecMult@0.5", "RprecMult@2"]),
    "Bpref": Row(
        "Bpref", lambda f, g, J: f(
            g, n_relevant=(J >= 1).sum(), n_nonrelevant=(J < 1).sum()),
        ["Bpref", "Bpref(rel=2)"],
        (judged("bpref", lambda r: bpref(r, n_relevant=20, n_nonrelevant=20)),)),
    "GMBpref": Row(
        "GMBpref", lambda f, g, J: f(
            g, n_relevant=(J >= 1).sum(), n_nonrelevant=(J < 1).sum()),
        ["GMBpref"]),
    "IPrec": Row(
        "IPrec@0.2", lambda f, g, J: f(g, 0.2, n_relevant=(J >= 1).sum()),
        ["IPrec@0.2", "IPrec@0.0", "IPrec(rounding='trec_eval9')@0.3"],
        (judged("interpolated_precision", lambda r: interpolated_precision(r, 0.3)),)),
    "11pt_avg": Row(
        "11pt_avg", lambda f, g, J: f(g, n_relevant=(J >= 1).sum()),
        ["11pt_avg", "11pt_avg(rel=2)", "11pt_avg(rounding='trec_eval9')"],
        (judged("eleven_point_average", lambda r: eleven_point_average(r)),)),
    "infAP": Row(
        "infAP", lambda f, g, J: f(g, n_relevant=(J >= 1).sum()),
        ["infAP", "infAP(rel=2)"],
        (judged("inferred_average_precision", lambda r: inferred_average_precision(r, n_relevant=20)),)),
    "Judged": Row(
        "Judged@5", lambda f, g, J: f(g, 5),
        ["Judged@5", "Judged@200"],
        (judged("judged_at_k", lambda r: judged_at_k(r, 5), k=lambda r, k: judged_at_k(r, k)),)),
    "Unj": Row(
        "Unj@5", lambda f, g, J: np.isnan(g[:5]).sum() / 5,
        ["Unj@5", "Unj@200"]),
    "SetP": Row(
        "SetP", lambda f, g, J: f(g),
        ["SetP"],
        (judged("set_precision", lambda r: set_precision(r)),)),
    "SetR": Row(
        "SetR", lambda f, g, J: f(g, n_relevant=(J >= 1).sum()),
        ["SetR"],
        (judged("set_recall", lambda r: set_recall(r, n_relevant=20)),)),
    "SetF": Row(
        "SetF(beta=2)", lambda f, g, J: f(g, n_relevant=(J >= 1).sum(), beta=2),
        ["SetF", "SetF(beta=0.5)"],
        (judged("set_f", lambda r: set_f(r, beta=2)),)),
    "SetMAP": Row(
        "SetMAP", lambda f, g, J: _set_map(g, J),
        ["SetMAP"]),
    "SetRelP": Row(
        "SetRelP", lambda f, g, J: _set_relative_p(g, J),
        ["SetRelP"]),
    "Utility": Row(
        "Utility", lambda f, g, J: 2 * (_z(g) >= 1).sum() - len(g),
        ["Utility", "Utility(coefficients={1,-0.3,0,0})"]),
    "RelP": Row(
        "RelP@3", lambda f, g, J: f(_z(g), 3, n_relevant=(J >= 1).sum()),
        ["RelP@5", "RelP@200"],
        (Metric("relative_precision", lambda r: rankeval.relative_precision(r, 3),
                k=lambda r, k: rankeval.relative_precision(r, k)),)),
    "trec_rbp": Row(
        "trec_rbp@5", lambda f, g, J: f(g, 5, max_grade=J.max()),
        ["trec_rbp", "trec_rbp@5", "trec_rbp(p=0.5)@200"],
        (judged("trec_rbp", lambda r: trec_rbp(r, 10), k=lambda r, k: trec_rbp(r, k)),)),
    "trec_rbp_resid": Row(
        "trec_rbp_resid@5", lambda f, g, J: f(
            g, 5, max_grade=J.max(), return_residual=True)[1],
        ["trec_rbp_resid", "trec_rbp_resid@5", "trec_rbp_resid(p=0.5)@200"]),
    "NumQ": Row(
        "NumQ", lambda f, g, J: 1,
        ["NumQ"]),
    "NumRet": Row(
        "NumRet", lambda f, g, J: len(g),
        ["NumRet"]),
    "NumRel": Row(
        "NumRel", lambda f, g, J: (J >= 1).sum(),
        ["NumRel"]),
    "NumRelRet": Row(
        "NumRelRet", lambda f, g, J: (_z(g) >= 1).sum(),
        ["NumRelRet"]),
    "NumNonRelJudgedRet": Row(
        "NumNonRelJudgedRet", lambda f, g, J: ((~np.isnan(g)) & (_z(g) < 1)).sum(),
        ["NumNonRelJudgedRet"]),
    "alpha-nDCG": Row(
        "alpha-nDCG@5", lambda f, r, j: f(r, 5, judgments=j),
        ["alpha-nDCG@5", "alpha-nDCG@200"]),
    "alpha-DCG": Row(
        "alpha-DCG@5", lambda f, r, j: f(r, 5, judgments=j, normalization="ideal_ideal"),
        ["alpha-DCG@5", "alpha-DCG@200"]),
    "ERR-IA": Row(
        "ERR-IA@5", lambda f, r, j: f(r, 5, judgments=j),
        ["ERR-IA@5", "ERR-IA@200"]),
    "nERR-IA": Row(
        "nERR-IA@5", lambda f, r, j: f(r, 5, judgments=j, normalization="ideal"),
        ["nERR-IA@5", "nERR-IA@200"]),
    "P-IA": Row(
        "P-IA@5", lambda f, r, j: intent_aware(r, j, 5, measure="P-IA"),
        ["P-IA@5", "P-IA@200"]),
    "StRecall": Row(
        "StRecall@5", lambda f, r, j: intent_aware(r, j, 5, measure="StRecall"),
        ["StRecall@5", "StRecall@200"]),
    "AP-IA": Row(
        "AP-IA", lambda f, r, j: intent_aware(r, j, measure="AP-IA"), ["AP-IA"]),
    "NRBP": Row(
        "NRBP", lambda f, r, j: intent_aware(r, j, measure="NRBP"), ["NRBP"]),
    "nNRBP": Row(
        "nNRBP", lambda f, r, j: intent_aware(r, j, measure="nNRBP"), ["nNRBP"]),
    "F1": Row(
        "F1@5", lambda f, g, J: f(np.maximum(_z(g), 0), 5, n_relevant=(J >= 1).sum()),
        ["F1@5", "F1@200", "F1(rel=2)@10"],
        (Metric("f1_at_k", lambda r: rankeval.f1_at_k(r, 3),
                k=lambda r, k: rankeval.f1_at_k(r, k)),)),
    "FallOut": Row(
        "FallOut@5", lambda f, g, J: f(g, 5, n_nonrelevant=((J >= 0) & (J < 1)).sum()),
        ["FallOut", "FallOut@5", "FallOut(rel=2)@200"],
        (judged("fallout_at_k", lambda r: rankeval.fallout_at_k(r, 3),
                k=lambda r, k: rankeval.fallout_at_k(r, k)),)),
    "AUROC": Row(
        "AUROC", lambda f, g, J: f(g),
        ["AUROC", "AUROC@5", "AUROC(rel=2)@200"],
        (judged("auroc", lambda r: rankeval.auroc(r), k=lambda r, k: rankeval.auroc(r, k)),)),
    "NCG": Row(
        "NCG@5", lambda f, g, J: f(np.maximum(_z(g), 0), 5, ideal=np.maximum(J, 0)),
        ["NCG", "NCG@5", "NCG@200"],
        (Metric("ncg_at_k", lambda r: rankeval.ncg_at_k(r, 3),
                k=lambda r, k: rankeval.ncg_at_k(r, k)),)),
    "Compat": Row(
        "Compat", lambda f, g, J: _compat(g, J),
        ["Compat", "Compat(p=0.8)", "Compat(normalize=False)"]),
    "INST": Row(
        "INST(max_rel=3)", lambda f, g, J: _cwl("INST", g),
        ["INST(max_rel=3)", "INST(T=2,max_rel=3)"]),
    "INSQ": Row(
        "INSQ(max_rel=3)", lambda f, g, J: _cwl("INSQ", g),
        ["INSQ(max_rel=3)", "INSQ(T=3,min_rel=1,max_rel=3)"]),
    "BPM": Row(
        "BPM(max_rel=3)@5", lambda f, g, J: _cwl("BPM", g, 5),
        ["BPM(max_rel=3)@5", "BPM(T=2,max_rel=3)@200"]),
    "NERR8": Row(
        "NERR8(max_rel=3)@5", lambda f, g, J: _cwl("NERR8", g, 5),
        ["NERR8(max_rel=3)@5", "NERR8(max_rel=3)@200"]),
    "NERR9": Row(
        "NERR9(max_rel=3)@5", lambda f, g, J: _cwl("NERR9", g, 5),
        ["NERR9(max_rel=3)@5", "NERR9(max_rel=3)@200"]),
    "NERR10": Row(
        "NERR10(max_rel=3)", lambda f, g, J: _cwl("NERR10", g),
        ["NERR10(max_rel=3)", "NERR10(p=0.5,max_rel=3)"]),
    "NERR11": Row(
        "NERR11(max_rel=3)", lambda f, g, J: _cwl("NERR11", g),
        ["NERR11(max_rel=3)", "NERR11(T=2,max_rel=3)"]),
    "SDCG": Row(
        "SDCG(max_rel=3)@5", lambda f, g, J: _cwl("SDCG", g, 5),
        ["SDCG(max_rel=3)@5", "SDCG(max_rel=3)@200"]),
}  # fmt: skip
