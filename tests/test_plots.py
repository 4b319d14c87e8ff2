"""The library's plots draw the numbers a peer computes: precision-recall points against
pytrec_eval's iprec_at_recall, differences by hand, intervals around the means."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from rankeval.reporting.plots import (  # noqa: E402
    RECALL_LEVELS,
    difference_plot,
    precision_recall_plot,
    system_rank_plot,
)

pytrec_eval = pytest.importorskip("pytrec_eval")


def _random_collection(seed):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {"a": {}, "b": {}}
    for q in range(6):
        docs = [f"d{j}" for j in range(15)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs[:10]}
        qrels[f"q{q}"]["d0"] = 1
        for name in runs:
            runs[name][f"q{q}"] = {d: float(rng.random()) for d in docs}
    return qrels, runs


def test_precision_recall_points_are_pytrec_evals():
    qrels, runs = _random_collection(3)
    # pytrec_eval is trec_eval 9: its recall levels round as the preset says (under
    # trec_eval 10's default rounding three of the eleven points differ on this data)
    ax = precision_recall_plot(qrels, runs, conventions="pytrec_eval")
    measures = {f"iprec_at_recall_{level:.2f}" for level in RECALL_LEVELS}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures)
    for line, (name, run) in zip(ax.get_lines(), runs.items(), strict=True):
        per_query = evaluator.evaluate(run)
        expected = [np.mean([v[f"iprec_at_recall_{level:.2f}"] for v in per_query.values()])
                    for level in RECALL_LEVELS]
        assert ax.rankeval_data.loc[name].tolist() == pytest.approx(expected, abs=1e-12)
        assert line.get_ydata().tolist() == pytest.approx(expected, abs=1e-12)
        assert line.get_label() == name


def test_difference_plot_draws_each_query_once_sorted():
    a = pd.Series([0.5, 0.9, 0.2, 0.4], index=["q1", "q2", "q3", "q4"])
    b = pd.Series([0.3, 0.6, 0.4, 0.5], index=["q4", "q2", "q3", "q1"])
    ax = difference_plot(a, b)
    expected = {"q1": 0.0, "q2": 0.3, "q3": -0.2, "q4": 0.1}
    assert ax.rankeval_data.to_dict() == pytest.approx(expected)
    heights = [p.get_height() for p in ax.patches]
    assert heights == pytest.approx([0.3, 0.1, 0.0, -0.2])
    with pytest.raises(ValueError, match="same queries"):
        difference_plot(a, b.iloc[:3])


def test_system_rank_plot_orders_by_mean_with_intervals_around_it():
    rng = np.random.default_rng(0)
    systems = {name: pd.Series(rng.normal(mu, 0.1, 40)) for name, mu in
               [("low", 0.3), ("high", 0.7), ("mid", 0.5)]}
    data = system_rank_plot(systems, n_resamples=2000).rankeval_data
    assert data.index.tolist() == ["high", "mid", "low"]
    assert (data["low"] <= data["mean"]).all() and (data["mean"] <= data["high"]).all()
    # a 95% interval of a mean of 40 draws with sd 0.1 is about 2 * 1.96 * 0.1 / sqrt(40) wide
    width = (data["high"] - data["low"]).to_numpy()
    assert np.all((width > 0.03) & (width < 0.10)), width


def test_system_rank_plot_with_equal_scores_has_a_point_interval():
    data = system_rank_plot({"a": pd.Series([0.5, 0.5, 0.5])}).rankeval_data
    assert data.loc["a"].tolist() == [0.5, 0.5, 0.5]


# --- the options the book's figures need (issue 48: the chapters draw with these) -----


def test_plots_draw_into_a_given_panel_and_keep_or_set_its_title():
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2)
    right.set_title("mine")
    qrels = {"q": {"a": 1, "b": 1}}
    out = precision_recall_plot(qrels, {"r": {"q": {"a": 2.0, "x": 1.0, "b": 0.5}}},
                                ax=right, title=None, legend=False)
    assert out is right and right.get_title() == "mine" and right.get_legend() is None
    assert left.get_lines() == []
    a = pd.Series([0.5, 0.2], index=["q1", "q2"])
    b = pd.Series([0.4, 0.6], index=["q1", "q2"])
    ax = difference_plot(a, b, ax=left, title="B - A", xlabel="query", ylabel="gain")
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("B - A", "query", "gain")
    plt.close(fig)


def test_precision_recall_plot_styles_each_curve():
    qrels, runs = _random_collection(5)
    ax = precision_recall_plot(qrels, runs, colors=["C1", "C2"], markers=["s", "^"],
                               line_kw={"linestyle": "none", "markersize": 4})
    lines = ax.get_lines()
    assert [line.get_marker() for line in lines] == ["s", "^"]
    assert [line.get_color() for line in lines] == ["C1", "C2"]
    assert {line.get_linestyle() for line in lines} == {"None"}
    assert {line.get_markersize() for line in lines} == {4}
    # the default markers tell the curves apart without colour
    default = precision_recall_plot(qrels, runs)
    assert len({line.get_marker() for line in default.get_lines()}) == 2
    with pytest.raises(TypeError, match="colors"):
        precision_recall_plot(qrels, runs, colors="C1")


def test_difference_histogram_counts_every_query_and_marks_the_mean():
    a = pd.Series([0.5, 0.9, 0.2, 0.4, 0.7], index=list("vwxyz"))
    b = pd.Series([0.3, 0.6, 0.4, 0.5, 0.7], index=list("vwxyz"))
    ax = difference_plot(a, b, kind="hist", bins=np.linspace(-0.45, 0.45, 10),
                         colors=("C0", "C3"))
    counts = [p.get_height() for p in ax.patches]
    # by hand: differences 0.2, 0.3, -0.2, -0.1, 0.0; bins centred on -0.4, ..., 0.4
    assert counts == [0, 0, 1, 1, 1, 0, 1, 1, 0]
    zero, mean = ax.get_lines()
    assert zero.get_xdata()[0] == 0.0
    assert mean.get_xdata()[0] == pytest.approx(0.04)
    assert mean.get_label() == "mean 0.0400" and mean.get_linestyle() == "--"
    assert ax.get_ylabel() == "number of queries"
    assert ax.rankeval_data.to_dict() == pytest.approx(
        {"w": 0.3, "v": 0.2, "z": 0.0, "y": -0.1, "x": -0.2})
    with pytest.raises(ValueError, match="kind"):
        difference_plot(a, b, kind="violin")


def test_difference_bars_hatch_the_losses():
    a = pd.Series([0.5, 0.2, 0.4], index=["q1", "q2", "q3"])
    b = pd.Series([0.4, 0.6, 0.4], index=["q1", "q2", "q3"])
    ax = difference_plot(a, b)
    assert [p.get_hatch() for p in ax.patches] == [None, None, "//"]
    ticks = [t for t in ax.get_xticks() if 0 <= t <= 2]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_system_rank_plot_labels_and_colours():
    s = {"a": pd.Series([0.5, 0.7, 0.6]), "b": pd.Series([0.2, 0.4, 0.3])}
    ax = system_rank_plot(s, n_resamples=500, title=None, xlabel="mean nDCG@10",
                          color="C2", marker="D")
    assert ax.get_title() == "" and ax.get_xlabel() == "mean nDCG@10"
    line = ax.containers[0].lines[0]  # the means; the caps are lines too
    assert line.get_marker() == "D" and line.get_color() == "C2"
