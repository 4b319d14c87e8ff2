"""The measures that read judgments as trec_eval does, against pytrec_eval per query.

One registry, one parametrized test (scikit-learn's test_common pattern): each entry
names a trec_eval measure and computes it from the ranked grades of
``tests/_judged_collection.py`` (NaN: not in the qrels; -1: pooled, not judged) and the
per-query counts of the qrels. Every entry runs on four seeded collections at the
relevance thresholds 1, 2 and 3.
"""

import numpy as np
import pytest
from _judged_collection import counts, judged_collection, pytrec

from rankeval.metrics.bpref import bpref
from rankeval.metrics.infap import inferred_average_precision
from rankeval.metrics.interpolated_precision import eleven_point_average, interpolated_precision
from rankeval.metrics.r_precision import r_precision
from rankeval.metrics.set_measures import set_f, set_precision, set_recall

LEVELS = [round(0.1 * i, 1) for i in range(11)]


def _iprec(level):
    # pytrec_eval embeds trec_eval 9, whose cut-offs are (long)(r R + 0.9)
    return lambda g, rel, non, t: interpolated_precision(
        g, level, n_relevant=rel, threshold=t, rounding="trec_eval9"
    )


ORACLE = {
    "bpref": lambda g, rel, non, t: bpref(g, n_relevant=rel, n_nonrelevant=non, threshold=t),
    "infAP": lambda g, rel, non, t: inferred_average_precision(g, n_relevant=rel, threshold=t),
    "Rprec": lambda g, rel, non, t: r_precision(g, n_relevant=rel, threshold=t),
    "set_P": lambda g, rel, non, t: set_precision(g, threshold=t),
    "set_recall": lambda g, rel, non, t: set_recall(g, n_relevant=rel, threshold=t),
    "set_F": lambda g, rel, non, t: set_f(g, n_relevant=rel, threshold=t),
    "11pt_avg": lambda g, rel, non, t: eleven_point_average(
        g, n_relevant=rel, threshold=t, rounding="trec_eval9"
    ),
    **{f"iprec_at_recall_{level:.2f}": _iprec(level) for level in LEVELS},
}


@pytest.mark.parametrize("measure", sorted(ORACLE))
@pytest.mark.parametrize("threshold", [1, 2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_pytrec_eval(measure, threshold, seed):
    pytest.importorskip("pytrec_eval")
    qrels, run, rankings, judgments = judged_collection(seed)
    n_rel, n_non = counts(judgments, threshold)
    family = measure.rsplit("_", 1)[0] if measure.startswith("iprec") else measure
    want = pytrec(qrels, run, [family], threshold)[measure]
    got = ORACLE[measure](rankings, n_rel, n_non, threshold)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
