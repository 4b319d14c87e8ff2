"""The book's figures that draw what ``rankeval.plot`` draws are drawn by it (issue 48).

Two kinds of check:

- statically, each such figure's cell calls ``rankeval.plot.<function>`` and no longer
  draws the same thing by hand, so "the book's figures use the library's plots" holds;
- the drawn data (``ax.rankeval_data``) of each call, rebuilt from the chapter's own
  cells, equals the numbers the chapter prints or glues in its stored outputs.
"""

from __future__ import annotations

import ast
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import rankeval  # noqa: E402
from rankeval.reporting.plots import (  # noqa: E402
    difference_plot,
    precision_recall_plot,
    system_rank_plot,
)

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"

# notebook, cell id, figure name, the rankeval.plot function, what the cell no longer does
FIGURES = [
    ("06_pr_curves.ipynb", "9fe9bebb", "fig-ch06-pr", "precision_recall", r"\beleven\b"),
    ("17_comparing_systems.ipynb", "468d2933", "fig-ch17-pairing", "differences",
     r"\.hist\("),
    ("17_comparing_systems.ipynb", "c17r0c02", "fig-ch17-ranks", "system_ranks",
     r"\.errorbar\("),
]


def _notebook(name: str) -> dict:
    return json.loads((CHAPTERS / name).read_text(encoding="utf-8"))


def _cell(nb: dict, cell_id: str) -> dict:
    [cell] = [c for c in nb["cells"] if c.get("id") == cell_id]
    return cell


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _stdout(cell: dict) -> str:
    return "".join("".join(o["text"]) for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream")


def _glued(nb: dict) -> dict[str, float]:
    found = {}
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            text = out.get("data", {}).get("application/papermill.record/text/plain")
            if name and text is not None:
                text = "".join(text)
                match = re.fullmatch(r"np\.\w+\((.*)\)", text)
                try:
                    found[name] = float((match.group(1) if match else text).strip("'\""))
                except ValueError:  # a glued text or flag, not a number
                    continue
    return found


def _plot_calls(source: str) -> set[str]:
    """The X of every ``rankeval.plot.X(...)`` call in a cell."""
    calls = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if (isinstance(owner, ast.Attribute) and owner.attr == "plot"
                    and isinstance(owner.value, ast.Name) and owner.value.id == "rankeval"):
                calls.add(node.func.attr)
    return calls


@pytest.mark.parametrize(("notebook", "cell_id", "figure", "function", "by_hand"), FIGURES)
def test_the_figure_cell_draws_with_rankeval_plot(notebook, cell_id, figure, function,
                                                  by_hand):
    cell = _cell(_notebook(notebook), cell_id)
    assert cell["metadata"]["mystnb"]["figure"]["name"] == figure
    source = _source(cell)
    assert function in _plot_calls(source), f"{figure} must call rankeval.plot.{function}"
    assert hasattr(rankeval.plot, function)
    assert not re.search(by_hand, source), f"{figure} still draws it by hand"
    assert any("image/png" in o.get("data", {}) for o in cell["outputs"])


def _run_cells(nb: dict, *cell_ids: str) -> dict:
    """Run a chapter's cells in one namespace, with bookstyle's glue and style inert."""

    class _Style:
        PALETTE = [f"C{i}" for i in range(10)]

        @staticmethod
        def glue(name, value):
            pass

        @staticmethod
        def use():
            pass

    namespace = {"np": np, "pd": pd, "rankeval": rankeval, "bookstyle": _Style,
                 "Fraction": Fraction, "math": math, "glue": _Style.glue}
    for cell_id in cell_ids:
        source = _source(_cell(nb, cell_id))
        source = "\n".join(line for line in source.splitlines()
                           if not line.startswith(("import bookstyle", "bookstyle.use")))
        exec(compile(source, f"{cell_id}", "exec"), namespace)  # noqa: S102
    return namespace


EXAMPLE_CH06 = "188f90d7"


def test_ch06_eleven_points_are_the_chapters_hand_table():
    nb = _notebook("06_pr_curves.ipynb")
    ns = _run_cells(nb, EXAMPLE_CH06)  # the chapter's example, worked by hand
    ranking, eleven = ns["ranking"], ns["eleven"]
    qrels = {"q": {f"d{i}": rel for i, rel in enumerate(ranking)}}
    run = {"q": [f"d{i}" for i in range(len(ranking))]}
    ax = precision_recall_plot(qrels, {"11 points": run})
    drawn = ax.rankeval_data.loc["11 points"].tolist()
    assert drawn == pytest.approx([float(p) for p in eleven], abs=1e-12)
    # ... and the row the chapter prints (two decimals)
    printed = re.search(r"P_interp:(.*)", _stdout(_cell(nb, EXAMPLE_CH06))).group(1).split()
    assert [f"{v:.2f}" for v in drawn] == printed
    assert np.mean(drawn) == pytest.approx(_glued(nb)["ch06_ex_11pt"], abs=1e-12)


@pytest.fixture(scope="module")
def ch17():
    nb = _notebook("17_comparing_systems.ipynb")
    ns = _run_cells(nb, "99464bf0")
    ns["scores"]["C (same as A)"] = rankeval.evaluate(
        ns["qrels"], ns["ranker"](0.00, seed=3), ns["metrics"])
    return nb, ns


def test_ch17_difference_histogram_is_the_chapters_differences(ch17):
    nb, ns = ch17
    scores = ns["scores"]
    ax = difference_plot(scores["B (new)"], scores["A (baseline)"], "nDCG@10",
                         kind="hist", bins=np.linspace(-0.6, 0.6, 25))
    diff = ax.rankeval_data
    glued = _glued(nb)
    assert diff.std() == pytest.approx(glued["ch17_sd_diff"], abs=1e-12)
    stated = re.search(r"B better on (\d+) queries, worse on (\d+), tied on (\d+)",
                       _stdout(_cell(nb, "468d2933")))
    assert [(diff > 0).sum(), (diff < 0).sum(), (diff == 0).sum()] == \
        [int(g) for g in stated.groups()]
    assert diff.mean() == pytest.approx(glued["ch17_mean_b_nd"] - glued["ch17_mean_a_nd"],
                                        abs=1e-12)
    assert sum(p.get_height() for p in ax.patches) == 50
    assert ax.get_lines()[1].get_label() == f"mean {diff.mean():.4f}"


def test_ch17_system_ranks_are_the_chapters_intervals(ch17):
    nb, ns = ch17
    ax = system_rank_plot(ns["scores"], "nDCG@10", n_resamples=5000, seed=0)
    data = ax.rankeval_data
    glued = _glued(nb)
    assert data.index.tolist() == ["B (new)", "C (same as A)", "A (baseline)"]
    assert data.loc["A (baseline)", "high"] == pytest.approx(glued["ch17_rank_a_high"],
                                                             abs=1e-12)
    assert data.loc["B (new)", "low"] == pytest.approx(glued["ch17_rank_b_low"], abs=1e-12)
    assert data.loc["B (new)", "mean"] == pytest.approx(glued["ch17_mean_b_nd"], abs=1e-12)
    # the table the chapter shows under the figure, four decimals
    shown = [o for o in _cell(nb, "c17r0c02")["outputs"]
             if o["output_type"] == "stream" and "mean" in "".join(o["text"])]
    table = "".join(shown[0]["text"])
    for name, row in data.iterrows():
        line = next(x for x in table.splitlines() if x.startswith(name))
        assert line.split()[-3:] == [f"{v:.4f}" for v in row]
