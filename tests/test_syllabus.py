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
