"""The C/W/L family (Moffat et al.): INST, INSQ, BPM, NERR8-11 and SDCG, as cwl_eval computes
them for ir_measures.

A C/W/L measure is a user model: :math:`C(i)`, the probability that a user who has seen
rank :math:`i` goes on to rank :math:`i + 1`, fixes the weight :math:`W(i)` of each rank,
and the measure is the expected rate of gain :math:`\\sum_i W(i)\\, g_i`.

Chapter: :doc:`/chapters/10_rbp`.
"""

from __future__ import annotations

import math

import numpy as np

from .block import RankedBlock
from .declaration import Declaration, Param
from .portable import row_sum

__all__ = ["cwl_gains", "cwl_weights", "expected_rate_of_gain", "MAX_N"]

#: cwl_eval's depth: every ranking is cut or padded (with zero gain) to 1,000 ranks
MAX_N = 1000


def cwl_gains(grades: np.ndarray, min_rel: float, max_rel: float) -> np.ndarray:
    """Grades (NaN = unjudged) as cwl_eval's gains in [0, 1]: a negative grade is 0, then
    clipped to [min_rel, max_rel] and scaled; unjudged and padding gain 0."""
    g = np.clip(np.maximum(np.nan_to_num(grades, nan=min_rel), 0.0), min_rel, max_rel)
    return (g - min_rel) / (max_rel - min_rel)


def cwl_weights(c: np.ndarray) -> np.ndarray:
    """W(i) from C(i), row by row: W(1) = 1 / sum_i prod_{j<i} C(j), W(i) = W(1) prod_{j<i} C(j)."""
    reach = np.ones_like(c)
    reach[:, 1:] = np.cumprod(c[:, :-1], axis=1)
    return reach / row_sum(reach)[:, None]


def expected_rate_of_gain(gains: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The C/W/L measure: sum_i W(i) g_i, per row."""
    return row_sum(cwl_weights(c) * gains)


def _ranks(n: int) -> np.ndarray:
    return np.arange(1, n + 1, dtype=np.float64)


def _c(name: str, gains: np.ndarray, k, T, p) -> np.ndarray:
    """The continuation probabilities C(i), i = 1..MAX_N, of measure ``name``."""
    i = _ranks(gains.shape[1])[None, :]
    if name == "INSQ":
        return np.broadcast_to(((i + 2 * T - 1) / (i + 2 * T)) ** 2, gains.shape).copy()
    if name == "INST":
        t_i = T - np.cumsum(gains, axis=1)
        return ((i + T + t_i - 1) / (i + T + t_i)) ** 2
    if name == "BPM":  # go on while the gain is short of T and the cost short of K = k
        return ((np.cumsum(gains, axis=1) < T) & (i < k)).astype(np.float64)
    if name == "NERR8":
        return np.where(i < k, 1 - gains, 0.0)
    if name == "NERR9":
        return np.where(i < k, i / (i + 1) * (1 - gains), 0.0)
    if name == "NERR10":
        return p * (1 - gains)
    if name == "NERR11":
        return ((i + 2 * T - 1) / (i + 2 * T)) ** 2 * (1 - gains)
    if name == "SDCG":  # the C library's log, the same on every CPU
        ratio = np.array([math.log(r + 1) / math.log(r + 2) if r < k else 0.0
                          for r in range(1, gains.shape[1] + 1)])
        return np.broadcast_to(ratio, gains.shape).copy()
    raise AssertionError(name)  # pragma: no cover


def _scorer(name: str):
    def score(ranked: RankedBlock, k, max_rel, min_rel=0, T=1, p=0.9):
        if not max_rel > min_rel:
            raise ValueError(f"{name}: max_rel={max_rel} must be greater than min_rel={min_rel}")
        grades = ranked.padded(None, unjudged=np.nan)[:, :MAX_N]
        grades = np.pad(grades, ((0, 0), (0, MAX_N - grades.shape[1])), constant_values=np.nan)
        inside = np.arange(MAX_N) < np.minimum(ranked.lengths, MAX_N)[:, None]
        gains = np.where(inside, cwl_gains(grades, float(min_rel), float(max_rel)), 0.0)
        return expected_rate_of_gain(gains, _c(name, gains, k, float(T), float(p)))

    score.__name__ = f"_score_{name.lower()}"
    return score


_MAX_REL = Param("max_rel", "positive", None,
                 "the top grade; gains are (grade - min_rel) / (max_rel - min_rel)", shown=True)
_MIN_REL = Param("min_rel", "non-negative", 0, "the grade of gain 0 (lower grades clip to it)")
_T = Param("T", "positive", 1, "the gain the user wants (INST, INSQ, BPM, NERR11)", shown=True)
_P = Param("p", "probability", 0.9, "persistence", shown=True)

DECLARATIONS = (
    Declaration("INST", "C/W/L: the user wants T units of gain; goes on less as gain arrives",
                _scorer("INST"), params=(_T, _MIN_REL, _MAX_REL), cutoff="none"),
    Declaration("INSQ", "C/W/L: INST's patience without its adaptation to the gain seen",
                _scorer("INSQ"), params=(_T, _MIN_REL, _MAX_REL), cutoff="none"),
    Declaration("BPM", "C/W/L Bejewelled player: stops at T units of gain or k documents",
                _scorer("BPM"), params=(_T, _MIN_REL, _MAX_REL), cutoff="required"),
    Declaration("NERR8", "C/W/L 'not but nearly' ERR, equation 8, cut at k", _scorer("NERR8"),
                params=(_MIN_REL, _MAX_REL), cutoff="required"),
    Declaration("NERR9", "C/W/L 'not but nearly' ERR, equation 9, cut at k", _scorer("NERR9"),
                params=(_MIN_REL, _MAX_REL), cutoff="required"),
    Declaration("NERR10", "C/W/L 'not but nearly' ERR, equation 10 (persistence p)",
                _scorer("NERR10"), params=(_P, _MIN_REL, _MAX_REL), cutoff="none"),
    Declaration("NERR11", "C/W/L 'not but nearly' ERR, equation 11 (INSQ's patience, T)",
                _scorer("NERR11"), params=(_T, _MIN_REL, _MAX_REL), cutoff="none"),
    Declaration("SDCG", "C/W/L scaled DCG@k: DCG's discount as a stopping model",
                _scorer("SDCG"), params=(_MIN_REL, _MAX_REL), cutoff="required"),
)  # fmt: skip
