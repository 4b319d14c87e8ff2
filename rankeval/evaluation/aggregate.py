r"""One aggregation over queries, for every caller: ``evaluate``'s table, the command
line's ``all`` lines, weighted means, and the per-partition totals of Dask and Spark.

The rule, written once: a column's summary is :math:`\sum_q w_q v_q / \sum_q w_q`
(:math:`w_q = 1` without weights: the mean), or :math:`\sum_q v_q` for a measure
declared ``aggregate="sum"`` (the counts, which trec_eval sums; weights do not
apply to them), or :math:`\exp(\sum_q w_q \log \max(v_q, 10^{-5}) / \sum_q w_q)` for a
measure declared ``aggregate="gmean"`` (trec_eval's geometric means gm_map and gm_bpref). **A NaN anywhere in a column makes its summary NaN**: never a
mean over fewer queries, which would change the denominator without a word.

Each column's measure comes from the table itself: :func:`rankeval.evaluate` records
it in ``frame.attrs["rankeval.measures"]`` (``{column label: canonical measure name}``,
which pandas keeps through selections, copies, concatenation and Parquet files), and a
column it does not name (a table read from CSV, say) is known by its label. The
direction of a measure (:attr:`rankeval.Measure.lower_is_better`) is read the same
way (:func:`measure_of`) by :func:`rankeval.compare` and :func:`rankeval.report`.

The (sums, counts) form splits that rule for data that live in pieces:
:func:`totals` of each piece, added up, then :func:`from_totals`, gives what
:func:`aggregate` gives for the whole.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import numpy as np

from ..measures import parse_measure

__all__ = ["aggregate", "totals", "from_totals", "kinds", "GM_FLOOR", "geometric_mean",
           "MEASURES_ATTR", "with_measures", "measure_of"]  # fmt: skip

GM_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN: a 0 would make the geometric mean 0

#: The key of ``frame.attrs`` under which a table records its columns' measures:
#: ``{column label: canonical measure name}`` (names, not objects, so that the
#: record survives a Parquet file, whose metadata is JSON).
MEASURES_ATTR = "rankeval.measures"
_KINDS_ATTR = "rankeval.aggregate"  # totals' sums: {label: "mean", "sum" or "gmean"}


def with_measures(frame, measures):
    """``frame``, its ``attrs`` recording the measure of each column (one per column,
    names or :class:`rankeval.Measure`, in the order of the columns); returned for
    chaining. :func:`measure_of` reads the record back."""
    measures = list(measures)
    if len(measures) != frame.shape[1]:
        raise ValueError(f"{len(measures)} measures for {frame.shape[1]} columns")
    frame.attrs[MEASURES_ATTR] = {
        str(label): str(parse_measure(m))
        for label, m in zip(frame.columns, measures, strict=True)
    }
    return frame


def measure_of(label, attrs=None):
    """The :class:`rankeval.Measure` of the column ``label``, or None if it is no measure.

    Read from ``attrs[MEASURES_ATTR]`` (the ``attrs`` of the table or column, as
    :func:`rankeval.evaluate` fills them) when it names ``label``; otherwise from
    the label itself (``"AP"``, ``"MR@10"``, ``"gm_map"``), so that a table read
    from a CSV file, which keeps no ``attrs``, is still known by its column names.
    """
    recorded = (attrs or {}).get(MEASURES_ATTR)
    if isinstance(recorded, dict) and isinstance(recorded.get(str(label)), str):
        try:
            return parse_measure(recorded[str(label)])
        except ValueError:
            pass  # a record that no longer parses: the label, as without one
    try:
        return parse_measure(str(label))
    except ValueError:
        return None


def kinds(labels, measures=None, attrs=None) -> list:
    """``"mean"``, ``"sum"`` or ``"gmean"`` for each column: from ``measures`` (one per
    column) if given, else from the measures recorded in ``attrs`` (a table's, see
    :func:`measure_of`), else from the column labels; a column that is no measure is
    averaged."""
    labels = list(labels)
    if measures is not None:
        found = [parse_measure(m).aggregate for m in measures]
        if len(found) != len(labels):
            raise ValueError(f"measures names {len(found)} measures for {len(labels)} columns")
        return found
    out = []
    for label in labels:
        measure = measure_of(label, attrs)
        out.append("mean" if measure is None else measure.aggregate)
    return out


def totals(frame, measures=None, weights=None):
    """The (sums, counts) of a per-query table: for each column, the sum of its values
    (weighted for averaged measures) and the sum of the weights (the number of rows
    without weights).

    Returns
    -------
    (pandas.Series, pandas.Series)
        ``sums`` and ``counts``, indexed by the column labels, float64.
    """
    import pandas as pd

    labels = list(frame.columns)
    how = kinds(labels, measures, frame.attrs)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    sums, counts = {}, {}
    for label, kind in zip(labels, how, strict=True):
        column = frame[label].to_numpy()
        if kind == "gmean":  # the geometric mean: totals of the floored logs
            column = np.log(np.maximum(column.astype(np.float64), GM_FLOOR))
        if kind == "sum" or w is None:
            sums[label] = float(column.sum())
            counts[label] = float(len(column))
        else:
            sums[label] = float(w @ column.astype(np.float64))
            counts[label] = float(w.sum())
    sums, counts = pd.Series(sums, dtype=np.float64), pd.Series(counts, dtype=np.float64)
    # from_totals then knows each label's aggregation as this table did
    sums.attrs[_KINDS_ATTR] = dict(zip(map(str, labels), how, strict=True))
    return sums, counts


def from_totals(sums, counts, measures=None):
    """Summaries from (sums, counts), as :func:`aggregate` gives them.

    Parameters
    ----------
    sums, counts : pandas.Series
        Indexed by column label, e.g. the sums of :func:`totals` over partitions.
    measures : list of str or Measure, optional
        The measure of each label, if the labels are not measure names.
    """
    recorded = sums.attrs.get(_KINDS_ATTR, {})
    if measures is None and all(str(label) in recorded for label in sums.index):
        how = [recorded[str(label)] for label in sums.index]  # as totals() found them
    else:
        how = kinds(sums.index, measures, sums.attrs)
    out = sums / counts
    for label, kind in zip(sums.index, how, strict=True):
        if kind == "sum":
            out[label] = sums[label]
        elif kind == "gmean":
            out[label] = np.exp(out[label])
    out = out.astype(np.float64)
    out.attrs.pop(_KINDS_ATTR, None)  # totals' bookkeeping, not the summary's
    return out


def geometric_mean(values, weights=None) -> float:
    """trec_eval's geometric mean (gm_map, gm_bpref): ``exp(mean(log(max(v, 1e-5))))``,
    weighted if ``weights`` are given; NaN if a value is NaN or there is none."""
    values = np.asarray(values, dtype=np.float64)
    if not values.size or np.isnan(values).any():
        return float("nan")
    logs = np.log(np.maximum(values, GM_FLOOR))
    if weights is None:
        return float(np.exp(logs.mean()))
    return float(np.exp(weights @ logs / weights.sum()))


def aggregate(frame, measures=None, *, weights=None):
    r"""Summarise a per-query table over queries, as trec_eval's ``all`` line does.

    Parameters
    ----------
    frame : pandas.DataFrame
        A result of :func:`rankeval.evaluate` (or of ``evaluate_groups``,
        ``evaluate_diversity``, or the distributed ``evaluate``).
    measures : list of str or Measure, optional
        The measure of each column, if the column labels are not measure names.
    weights : array-like, optional
        One weight per row (query), already checked (:func:`rankeval.weighted_mean`
        checks them): the mean becomes :math:`\sum_q w_q v_q / \sum_q w_q`.

    Returns
    -------
    pandas.Series
        For each column: the sum over queries for the counts (NumQ, NumRet,
        NumRel, NumRelRet; trec_eval sums them), trec_eval's geometric mean
        for GMAP and GMBpref (each value floored at 1e-5), the mean otherwise. A NaN
        in a column gives NaN, never a mean over fewer queries.

    Notes
    -----
    Each column's measure is the one the table records: :func:`rankeval.evaluate`
    puts ``{label: measure}`` in ``frame.attrs["rankeval.measures"]``, which pandas
    keeps through selections, copies, ``concat`` and Parquet files. A column the
    record does not name (a table read from CSV, a renamed column) is known by
    its label (``"NumRel"``, ``"num_rel"``, ``"AP"``...); a label that is not a
    measure name is averaged. The mean of
    a measure over queries is its "mean" form (MAP, MRR, ...). This is the one
    aggregation of rankeval: the command line, :func:`rankeval.weighted_mean`,
    ``rankeval.dask.means`` and ``rankeval.spark.means`` all use it, the last
    two through its (sums, counts) form (``totals`` and ``from_totals`` of
    ``rankeval.evaluation.aggregate``).

    Chapter: :doc:`/chapters/14_evaluating_a_run`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import aggregate
    >>> aggregate(pd.DataFrame({"AP": [0.5, 1.0], "NumRel": [3, 4]}))
    AP        0.75
    NumRel    7.00
    dtype: float64
    >>> aggregate(pd.DataFrame({"AP": [0.5, float("nan")]}))
    AP   NaN
    dtype: float64
    """
    sums, counts = totals(frame, measures, weights)
    return from_totals(sums, counts, measures)
