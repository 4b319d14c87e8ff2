"""What the book says about when Dask and Spark pay off is read from the benchmark.

``benchmarks/bench_distributed.py --json benchmarks/distributed.json`` writes the times,
the lines through them and the crossings (issue 51). The guide page "Evaluate at scale"
prints its statement from that file, and chapter 20 glues its numbers from it: nothing
is typed. These tests check that the file is consistent with itself (its lines and
crossings are those of its own times, every path's means equal plain evaluate's), that
the page's stored output is what its cell makes of the file (and changes when the file
does), that the prose types no timing, and that the claims the prose makes in words
hold in the file. No timing is taken here: timings stay in ``benchmarks/``.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import io
import json
import math
import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
JSON = ROOT / "benchmarks" / "distributed.json"
GUIDE = ROOT / "guide" / "evaluate_at_scale.ipynb"
CHAPTER = ROOT / "chapters" / "20_evaluating_at_scale.ipynb"
MIME = "application/papermill.record/"


def bench_module():
    spec = importlib.util.spec_from_file_location(
        "bench_distributed", ROOT / "benchmarks" / "bench_distributed.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return json.loads(JSON.read_text())


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def text_of(outputs):
    return "".join("".join(o.get("text", "")) for o in outputs if o.get("name") == "stdout")


def guide_cell():
    found = [c for c in cells(GUIDE) if c["cell_type"] == "code"
             and "distributed.json" in "".join(c["source"])]  # fmt: skip
    assert len(found) == 1, "the guide page reads benchmarks/distributed.json in one cell"
    return found[0]


def run_cell(source: str, folder: Path) -> str:
    """The cell's printed output when run in ``folder`` (which holds benchmarks/)."""
    out = io.StringIO()
    here = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile("from pathlib import Path\n" + source, "cell", "exec"), {})
    finally:
        os.chdir(here)
    return out.getvalue()


# --- the file is the benchmark's own output ---------------------------------------------


def test_the_json_has_every_path_and_equal_means(bench):
    for path in ("rankeval", "dask-1", "dask-2", "spark-1", "spark-2"):
        assert path in bench["results"], path
        assert sorted(int(n) for n in bench["results"][path]) == bench["rows"], path
    assert len(bench["rows"]) >= 3
    for path, by_rows in bench["results"].items():
        for rows, entry in by_rows.items():
            assert math.isclose(entry["total"], entry["startup"] + entry["evaluate"],
                                rel_tol=0, abs_tol=0.02) or entry["repeats"] > 1  # fmt: skip
            if path != "rankeval":
                assert entry["equal"] is True, (path, rows)
                assert entry["max_diff"] <= bench["tolerance"] <= 1e-12


def test_the_lines_and_crossings_are_those_of_the_times(bench):
    module = bench_module()
    table = {p: {int(n): r for n, r in by.items()} for p, by in bench["results"].items()}
    fits = {}
    for path, by_rows in table.items():
        sizes = sorted(by_rows)
        fits[path] = {kind: module.fit(sizes, [by_rows[n][kind] for n in sizes])
                      for kind in ("total", "evaluate")}  # fmt: skip
        for kind in ("total", "evaluate"):
            for key in ("a", "b_per_million"):
                assert math.isclose(fits[path][kind][key], bench["fits"][path][kind][key],
                                    rel_tol=1e-9, abs_tol=1e-9)  # fmt: skip
    again = module.crossings(table, bench["rows"], fits)
    assert len(again) == len(bench["crossings"])
    for mine, stored in zip(again, bench["crossings"], strict=True):
        assert {k: mine[k] for k in ("slower", "faster", "time", "measured_rows")} == {
            k: stored[k] for k in ("slower", "faster", "time", "measured_rows")
        }
        if mine["fitted_rows"] is None:
            assert stored["fitted_rows"] is None
        else:
            assert math.isclose(mine["fitted_rows"], stored["fitted_rows"], rel_tol=1e-9)


def test_the_crossing_arithmetic():
    module = bench_module()
    one, two = {"a": 2.0, "b_per_million": 10.0}, {"a": 5.0, "b_per_million": 4.0}
    # 2 + 10 n = 5 + 4 n at n = 0.5 million rows
    assert module.fitted_crossing(one, two) == pytest.approx(500_000)
    assert module.fitted_crossing(two, one) is None  # more per row: never catches up
    assert module.measured_crossing([1, 2, 3, 4], [5, 5, 5, 5], [6, 4, 6, 4]) == 4
    assert module.measured_crossing([1, 2, 3], [5, 5, 5], [6, 4, 4]) == 2
    assert module.measured_crossing([1, 2], [5, 5], [6, 6]) is None


# --- the guide page reads its statement from the file -----------------------------------


def test_the_guide_pages_output_is_what_its_cell_makes_of_the_json(tmp_path):
    cell = guide_cell()
    (tmp_path / "benchmarks").mkdir()
    shutil.copy2(JSON, tmp_path / "benchmarks" / "distributed.json")
    assert run_cell("".join(cell["source"]), tmp_path) == text_of(cell["outputs"])


def test_the_guide_pages_statement_follows_the_json(tmp_path, bench):
    cell = guide_cell()
    changed = copy.deepcopy(bench)
    for crossing in changed["crossings"]:
        crossing["fitted_rows"] = 7_654_321.0
    changed["fits"]["dask-2"]["total"]["a"] = 98.7
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "distributed.json").write_text(json.dumps(changed))
    printed = run_cell("".join(cell["source"]), tmp_path)
    assert "98.7 s" in printed
    assert "from about 7.7 M rows" in printed
    assert "pick plain evaluate below about 7.7 M rows" in printed
    assert printed != text_of(cell["outputs"])


NUMBER_WITH_UNIT = re.compile(
    r"\d[\d,.]*\s*(?:k|M|million|thousand)?\s*(?:run )?(?:rows|seconds|s\b|×)"
)


def test_the_prose_types_no_timing():
    guide = [("".join(c["source"])) for c in cells(GUIDE) if c["cell_type"] == "markdown"]
    start = next(i for i, text in enumerate(guide) if "## When a cluster pays off" in text)
    for text in guide[start:]:
        assert not NUMBER_WITH_UNIT.search(text), NUMBER_WITH_UNIT.search(text)
    chapter = [("".join(c["source"])) for c in cells(CHAPTER) if c["cell_type"] == "markdown"]
    prose = next(text for text in chapter if "bench_distributed.py` separates" in text)
    assert not NUMBER_WITH_UNIT.search(re.sub(r"\{glue:text\}`[^`]+`", "", prose))
    assert prose.count("{glue:text}`ch20_bench_") == 7


def test_chapter_20_glues_its_numbers_from_the_json(bench):
    glued = {}
    for cell in cells(CHAPTER):
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name", "")
            if name.startswith("ch20_bench_"):
                data = output["data"]
                glued[name] = float(data.get("text/plain") or data[MIME + "text/plain"])
    lines = {p: f["total"] for p, f in bench["fits"].items()}
    expected = {"ch20_bench_rows_m": max(bench["rows"]) / 1e6}
    for path, short in [("rankeval", "plain"), ("dask-2", "dask2"), ("spark-2", "spark2")]:
        expected[f"ch20_bench_a_{short}"] = lines[path]["a"]
        expected[f"ch20_bench_b_{short}"] = lines[path]["b_per_million"]
    assert glued.keys() == expected.keys()
    for name, value in expected.items():
        assert glued[name] == pytest.approx(value, rel=1e-12), name


# --- what the prose says in words holds in the file -------------------------------------


def test_dask_starts_sooner_than_spark(bench):
    """The guide: "Of the two, Dask starts sooner (the smaller fixed cost of the lines
    above)"; the start-up measured alone agrees at every size."""
    results = bench["results"]
    for workers in ("1", "2"):
        fixed = {e: bench["fits"][f"{e}-{workers}"]["total"]["a"] for e in ("dask", "spark")}
        assert fixed["dask"] < fixed["spark"], workers
        for rows in results["dask-" + workers]:
            assert (results["dask-" + workers][rows]["startup"]
                    < results["spark-" + workers][rows]["startup"]), (workers, rows)  # fmt: skip


def test_one_process_is_fastest_on_this_small_machine(bench):
    """Chapter 20's summary: "On one small machine a single process is fastest"."""
    results = bench["results"]
    assert bench["cores"] <= 4
    for rows, plain in results["rankeval"].items():
        for path in results:
            if path != "rankeval":
                assert plain["total"] < results[path][rows]["total"], (path, rows)
