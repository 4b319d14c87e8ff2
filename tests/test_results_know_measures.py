"""Results that know their measures (issue 45): ``evaluate``'s table records each
column's measure, and ``aggregate``, ``compare`` and ``report`` take the aggregation
and the direction from the measure's declaration, not from a guess or an argument."""

import contextlib
import io
import math

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval import aggregate, compare, evaluate, report
from rankeval.cli import main
from rankeval.evaluation.aggregate import MEASURES_ATTR, with_measures
from rankeval.measures import DECLARATIONS

# GMAP per query, by hand. A: 0.25, 1, 0.5, 0.5 -> product 1/16, geometric mean
# (1/16)^(1/4) = 0.5 (arithmetic mean 0.5625). B: 0, 1, 1, 1 -> the 0 floored at 1e-5
# (trec_eval's gm_map), geometric mean (1e-5)^(1/4) = 10^-1.25 (arithmetic mean 0.75).
# The two means order the systems in opposite ways.
GMAP_A = [0.25, 1.0, 0.5, 0.5]
GMAP_B = [0.0, 1.0, 1.0, 1.0]
QUERIES = pd.Index(["q1", "q2", "q3", "q4"], name="query_id")


def _bold(markdown_table, system):
    """The cells of ``system``'s row in a markdown table of report()."""
    for line in markdown_table.splitlines():
        if f") {system} |" in line:
            return [c.strip() for c in line.strip("|").split("|")[1:]]
    raise AssertionError(f"no row for {system}")


def test_evaluate_records_its_measures_and_pandas_keeps_them(tmp_path):
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"x": 1}}
    run = {"q1": {"a": 0.9, "c": 0.8, "b": 0.7}, "q2": {"y": 1.0, "x": 0.5}}
    frame = evaluate(qrels, run, ["gm_map", "MR@10", "P_5", "num_rel_ret"])
    expected = {"gm_map": "GMAP", "MR@10": "MR@10", "P_5": "P@5", "num_rel_ret": "NumRelRet"}
    assert frame.attrs[MEASURES_ATTR] == expected
    # selections, copies, concatenation and a Parquet file keep the record
    assert frame[["gm_map"]].attrs[MEASURES_ATTR] == expected
    assert frame["MR@10"].attrs[MEASURES_ATTR] == expected
    assert pd.concat([frame, frame]).attrs[MEASURES_ATTR] == expected
    frame.to_parquet(tmp_path / "t.parquet")
    assert pd.read_parquet(tmp_path / "t.parquet").attrs[MEASURES_ATTR] == expected


def test_aggregate_reads_the_record_before_the_label():
    # a column whose label names no measure: the record says GMAP, so a geometric mean
    frame = with_measures(pd.DataFrame({"mine": GMAP_A}), ["GMAP"])
    assert float(aggregate(frame)["mine"]) == pytest.approx(0.5, abs=1e-15)
    # without the record (a table read from CSV): the label, as before
    from_csv = pd.read_csv(io.StringIO(frame.to_csv(index=False)))
    assert from_csv.attrs == {}
    assert float(aggregate(from_csv)["mine"]) == pytest.approx(0.5625)
    assert float(aggregate(from_csv.rename(columns={"mine": "gm_map"}))["gm_map"]) == (
        pytest.approx(0.5, abs=1e-15))  # fmt: skip


@pytest.mark.parametrize("recorded", [False, True])
def test_gmap_in_compare_is_the_geometric_mean_of_aggregate(recorded):
    if recorded:  # labels that name no measure, the measure in the frames' record
        a = with_measures(pd.DataFrame({"g": GMAP_A}, index=QUERIES), ["GMAP"])
        b = with_measures(pd.DataFrame({"g": GMAP_B}, index=QUERIES), ["GMAP"])
        label = "g"
    else:  # the label names the measure (a CSV file's header)
        a = pd.DataFrame({"GMAP": GMAP_A}, index=QUERIES)
        b = pd.DataFrame({"GMAP": GMAP_B}, index=QUERIES)
        label = "GMAP"
    table = compare({"A": a, "B": b}, test="permutation")
    row = table.iloc[0]
    assert row["measure"] == label
    assert row["mean"] == pytest.approx(0.5, abs=1e-15)  # not the arithmetic 0.5625
    assert row["other_mean"] == pytest.approx(10**-1.25, rel=1e-12)  # not 0.75
    assert row["mean"] == pytest.approx(float(aggregate(a)[label]), abs=0)
    assert row["other_mean"] == pytest.approx(float(aggregate(b)[label]), abs=0)
    # the test is on the floored logs: the difference is the log of the ratio of the
    # geometric means, with the sign of mean - other_mean (the AP values would say -0.1875)
    assert row["difference"] == pytest.approx(math.log(0.5 / 10**-1.25), rel=1e-12)
    # and the best GMAP in the report is A's, B's arithmetic mean being the higher
    text = report(table)
    assert _bold(text, "A")[0].startswith("**0.5000**")
    assert not _bold(text, "B")[0].startswith("**")


def test_report_bolds_the_lowest_mean_rank():
    # MR@10 by hand: A 1, 2.5, 3 -> 6.5/3 = 2.1667; B 2, 3, 4 -> 3
    a = pd.DataFrame({"MR@10": [1.0, 2.5, 3.0], "AP": [1.0, 0.5, 0.25]}, index=QUERIES[:3])
    b = pd.DataFrame({"MR@10": [2.0, 3.0, 4.0], "AP": [0.5, 0.5, 0.5]}, index=QUERIES[:3])
    table = compare({"A": a, "B": b}, correction="none")
    text = report(table)
    mr, ap = 0, 1
    # A - B per query: -1, -0.5, -1; t = -5 on 2 degrees of freedom, p = 0.038: the
    # significant win on MR@10 is A's (the lower mean), so the superscript is on A's cell
    assert _bold(text, "A")[mr] == "**2.1667**<sup>b</sup>"
    assert _bold(text, "B")[mr] == "3.0000"
    assert _bold(text, "A")[ap] == "**0.5833**"  # higher is better for AP
    assert "the lowest for MR@10" in text
    row = table.set_index("measure").loc["MR@10"]
    assert row["difference"] == pytest.approx(-5 / 6)
    assert row["p_value"] == pytest.approx(0.0377, abs=1e-4) and row["significant"]
    # the argument stays as an override: exactly the columns it names
    assert _bold(report(table, lower_is_better=()), "B")[mr] == "**3.0000**<sup>a</sup>"
    assert _bold(report(table, lower_is_better={"MR@10", "AP"}), "B")[ap] == "**0.5000**"


def test_report_reads_the_direction_through_evaluate():
    qrels = {"q1": {"a": 1}, "q2": {"x": 1}, "q3": {"m": 1}}
    good = {"q1": {"a": 3, "b": 2}, "q2": {"x": 3, "y": 2}, "q3": {"n": 3, "m": 2}}
    bad = {"q1": {"b": 3, "a": 2}, "q2": {"y": 3, "x": 2}, "q3": {"n": 3, "o": 2, "m": 1}}
    # the label "mean rank" is no measure name: only the record tells the direction
    systems = {}
    for name, run in (("good", good), ("bad", bad)):
        frame = evaluate(qrels, run, ["MR@10"])
        frame.columns = ["mean rank"]
        systems[name] = with_measures(frame, ["MR@10"])
    text = report(compare(systems))
    assert _bold(text, "good")[0] == "**1.3333**"  # (1 + 1 + 2) / 3
    assert _bold(text, "bad")[0] == "2.3333"  # (2 + 2 + 3) / 3


def test_every_declaration_has_a_direction():
    for d in DECLARATIONS.values():
        assert isinstance(d.lower_is_better, bool), d.name
    lower = {name for name, d in DECLARATIONS.items() if d.lower_is_better}
    # the rank positions, the share of unjudged documents and the share of the judged
    # non-relevant ones shown (FallOut); every other measure (precision, recall, gains,
    # counts of relevant documents...) grows with quality
    assert lower == {"MR", "FRP", "Unj", "FallOut"}
    for name in ("MR@10", "MR", "FRP", "Unj@10", "unj_10"):
        assert rankeval.parse_measure(name).lower_is_better, name
    for name in ("AP", "nDCG@10", "map", "RR", "P@5", "GMAP", "Judged@10"):
        assert not rankeval.parse_measure(name).lower_is_better, name


MEASURES = ["AP", "GMAP", "nDCG@10", "P@5", "RR", "MR@10", "FRP@10", "Bpref", "GMBpref",
            "NumRelRet", "NumRet", "R@10", "Success@3", "ERR@10"]  # fmt: skip


def _random_run(rng, qrels, n_docs):
    run = {}
    for q in qrels:
        docs = rng.choice(n_docs, size=int(rng.integers(1, 15)), replace=False)
        run[q] = {f"d{j}": float(rng.normal()) for j in docs}
    return run


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compare_means_are_aggregate_for_every_measure(seed):
    rng = np.random.default_rng(seed)
    n_docs = 30
    qrels = {}
    for i in range(12):
        judged = rng.choice(n_docs, size=10, replace=False)
        grades = rng.choice([0, 0, 1, 2], size=10)
        grades[0] = max(grades[0], 1)  # every query has a relevant document
        qrels[f"q{i}"] = {f"d{j}": int(g) for j, g in zip(judged, grades, strict=True)}
    systems = {
        name: evaluate(qrels, _random_run(rng, qrels, n_docs), MEASURES, missing="zero")
        for name in ("x", "y", "z")
    }
    table = compare(systems, test="t")
    assert set(table["measure"]) == set(MEASURES)
    for row in table.itertuples():
        assert row.mean == pytest.approx(float(aggregate(systems[row.system])[row.measure]),
                                         rel=1e-12, abs=1e-15)  # fmt: skip
        assert row.other_mean == pytest.approx(
            float(aggregate(systems[row.other])[row.measure]), rel=1e-12, abs=1e-15)
    # counts are summed over the queries, and the difference is that of the sums
    sums = table[table["measure"] == "NumRelRet"]
    assert (sums["difference"] - (sums["mean"] - sums["other_mean"])).abs().max() < 1e-9


def test_cli_table_bolds_the_lowest_mean_rank(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 x 1\nq3 0 m 1\n")
    (tmp_path / "good").write_text(
        "q1 Q0 a 1 3 good\nq1 Q0 b 2 2 good\nq2 Q0 x 1 3 good\nq2 Q0 y 2 2 good\n"
        "q3 Q0 n 1 3 good\nq3 Q0 m 2 2 good\n")  # fmt: skip
    (tmp_path / "bad").write_text(
        "q1 Q0 b 1 3 bad\nq1 Q0 a 2 2 bad\nq2 Q0 y 1 3 bad\nq2 Q0 x 2 2 bad\n"
        "q3 Q0 n 1 3 bad\nq3 Q0 o 2 2 bad\nq3 Q0 m 3 1 bad\n")  # fmt: skip
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(tmp_path / f) for f in ("qrels", "good", "bad")]
                    + ["-m", "MR@10", "--format", "markdown"])  # fmt: skip
    assert code == 0
    assert _bold(out.getvalue(), "good")[0] == "**1.3333**"
    assert _bold(out.getvalue(), "bad")[0] == "2.3333"
