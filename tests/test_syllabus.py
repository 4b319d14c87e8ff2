"""The course plan (reference/course.md) against the chapter graph (chapters/outline.yml).

The plan's week table names each week's chapters ({doc} links) and says whether the week
is droppable; the prose lists the droppable weeks. A week is droppable when no chapter of
another week builds on any of its chapters. The oracle is outline.yml's ``builds_on``
lists, read here without the book's own code.
"""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "reference" / "course.md"


def prerequisites() -> dict[int, set[int]]:
    data = yaml.safe_load((ROOT / "chapters" / "outline.yml").read_text(encoding="utf-8"))
    return {int(k): {int(p) for p in v.get("builds_on") or []} for k, v in data["chapters"].items()}


def week_table(text: str) -> list[dict]:
    """Rows of the table whose header starts with ``| week | chapters |``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| week | chapters |"))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True))
        rows.append({
            "week": int(cells["week"]),
            "chapters": {int(n) for n in re.findall(r"\{doc\}`\.\./chapters/(\d\d)_", cells["chapters"])},
            "exercises": re.findall(r"\{numref\}`ch(\d\d)-ex-\d+`", cells["exercises to assign"]),
            "droppable": cells["droppable"],
        })
    return rows


def droppable(weeks: list[dict], prereq: dict[int, set[int]]) -> list[int]:
    out = []
    for week in weeks:
        others = {c for w in weeks if w is not week for c in w["chapters"]}
        if not any(prereq[o] & week["chapters"] for o in others):
            out.append(week["week"])
    return out


@pytest.fixture(scope="module")
def plan():
    text = COURSE.read_text(encoding="utf-8")
    return text, week_table(text), prerequisites()


def test_every_chapter_is_in_exactly_one_week(plan):
    _, weeks, prereq = plan
    seen = [c for w in weeks for c in sorted(w["chapters"])]
    assert sorted(seen) == sorted(prereq), "each chapter of outline.yml once in the plan"
    assert [w["week"] for w in weeks] == list(range(1, len(weeks) + 1))


def test_no_week_needs_a_later_week(plan):
    _, weeks, prereq = plan
    week_of = {c: w["week"] for w in weeks for c in w["chapters"]}
    late = [(c, p) for c in prereq for p in prereq[c] if week_of[p] > week_of[c]]
    assert not late, f"chapter taught before what it builds on: {late}"


def test_every_week_assigns_exercises_of_its_own_chapters(plan):
    _, weeks, _ = plan
    for week in weeks:
        assert week["exercises"], f"week {week['week']} assigns nothing"
        assert {int(c) for c in week["exercises"]} <= week["chapters"], week


def test_droppable_weeks_follow_the_chapter_graph(plan):
    text, weeks, prereq = plan
    expected = droppable(weeks, prereq)
    marked = [w["week"] for w in weeks if w["droppable"] == "yes"]
    assert marked == expected
    assert {w["droppable"] for w in weeks} <= {"yes", "no"}
    match = re.search(r"Droppable weeks: ([\d, and]+)\.", text)
    assert match, "the prose names the droppable weeks"
    named = [int(n) for n in re.findall(r"\d+", match.group(1))]
    assert named == expected


def test_the_oracle_sees_a_needed_week():
    """The rule itself: a week whose chapter another week builds on is not droppable."""
    weeks = [{"week": 1, "chapters": {1}}, {"week": 2, "chapters": {2, 3}}, {"week": 3, "chapters": {4}}]
    assert droppable(weeks, {1: set(), 2: {1}, 3: {2}, 4: {2}}) == [3]
    assert droppable(weeks, {1: set(), 2: {1}, 3: {2}, 4: {1}}) == [2, 3]


def test_assessment_plan_and_project_rubric(plan):
    text, _, _ = plan
    assert "## Assessment" in text
    weights = re.findall(r"^\| [a-z -]+ \| (\d+) % \|", text, flags=re.M)
    assert sum(map(int, weights)) == 100
    rubric = re.findall(r"^\| [a-z]+ \| (\d+) \| ", text, flags=re.M)
    assert rubric and sum(map(int, rubric)) == 100


# --- the dependency figure of the introduction -------------------------------------------


def _teaching():
    import sys

    sys.path.insert(0, str(ROOT / "_ext"))
    import teaching

    return teaching


def test_the_figure_draws_exactly_the_declared_edges_and_none_behind_a_box():
    """Sample every arrow's curve: no point may lie inside a box (an arrow passing behind
    a box reads as an edge into it: the old figure seemed to show 12->21, 16->22, 18->23)."""
    import numpy as np
    from matplotlib.path import Path as MPath

    teaching = _teaching()
    prereq = prerequisites()
    boxes, routes = teaching.graph_layout({k: sorted(v) for k, v in prereq.items()})
    assert set(routes) == {(p, n) for n in prereq for p in prereq[n]}
    w, h = teaching.BOX_W / 2, teaching.BOX_H / 2
    for (a, b), points in routes.items():
        assert np.allclose(points[0], (boxes[a][0] + w, boxes[a][1]))
        assert np.allclose(points[-1], (boxes[b][0] - w, boxes[b][1]))
        path = MPath(*teaching.bezier_route(points))
        samples = np.vstack([curve(np.linspace(0, 1, 60))
                             for curve, _ in path.iter_bezier()])
        for n, (x, y) in boxes.items():
            inside = (np.abs(samples[:, 0] - x) < w - 1e-6) & (np.abs(samples[:, 1] - y) < h - 1e-6)
            assert not inside.any(), f"the arrow {a}->{b} passes behind the box of chapter {n}"


def test_the_figure_check_sees_an_arrow_through_a_box():
    """The check above on a layout drawn by hand with a straight arrow 1->3 through box 2."""
    import numpy as np

    teaching = _teaching()
    w = teaching.BOX_W / 2
    boxes = {1: (0.0, 0.0), 2: (3.0, 0.0), 3: (6.0, 0.0)}
    straight = np.linspace((w, 0.0), (6.0 - w, 0.0), 50)
    x, y = boxes[2]
    assert ((np.abs(straight[:, 0] - x) < w) & (np.abs(straight[:, 1] - y) < teaching.BOX_H / 2)).any()


def test_the_figure_alt_text_is_generated_from_the_outline():
    teaching = _teaching()
    assert not teaching.update_graph_alt(check_only=True), "python3 _ext/teaching.py graph"
    prereq = prerequisites()
    alt = teaching.graph_alt_text({k: sorted(v) for k, v in prereq.items()}, teaching.chapter_graph()[1])
    arrows = re.findall(r"(\d+) \([^)]*\) to ([\d, and]+)", alt)
    drawn = {(int(a), int(b)) for a, targets in arrows for b in re.findall(r"\d+", targets)}
    assert drawn == {(p, n) for n in prereq for p in prereq[n]}
    boxes, _ = teaching.graph_layout({k: sorted(v) for k, v in prereq.items()})
    columns = len({round(x, 3) for x, _ in boxes.values()})
    assert f"in {columns} columns" in alt
