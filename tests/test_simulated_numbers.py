"""Simulated numbers: exact where they can be, else with a standard error (issue 46).

CONTRIBUTING.md ("Simulated numbers") states the rule; chapters/simulated.yml declares,
for every chapter cell that draws random numbers and prints or glues a result, how its
numbers obey it. These tests

- scan every chapter notebook for such cells (the lexical rule ``DRAWS`` below) and fail
  for a cell that is not declared, or a declaration whose cell no longer exists or no
  longer draws;
- require every number the cell glues to have one role in its declaration;
- check each role against the stored outputs (which nbval proves equal to a fresh run):
  ``exact``: the simulated value is within 3 standard errors of the exact value glued
  beside it; ``se``: the claim the number supports holds at 3 standard errors;
  ``property``: the invariant checked on every draw holds (the glued value is True);
- recompute some exact values here, without the library, and compare them with the
  glued ones (``ORACLES``).

Chapters listed under ``pending:`` in the registry are still checked for the entries
they have; their undeclared cells are reported as a skip, until the lead declares them.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"
REGISTRY = CHAPTERS / "simulated.yml"
NOTEBOOKS = sorted(CHAPTERS.glob("[0-9][0-9]_*.ipynb"))

# A cell "draws random numbers" when its source names a generator, a sampling call, a
# seed, a simulation, a permutation or a bootstrap. Lexical on purpose: cheap, and a
# false alarm costs one line in the registry, while a missed cell costs a wrong claim.
DRAWS = re.compile(
    r"np\.random|default_rng|\brandom\.|\bseed\s*=|simulat|permut|shuffl|bootstrap"
    r"|\.(?:integers|choice|normal|uniform|geometric|binomial|beta|poisson|"
    r"exponential|permuted|random)\("
)
SHOWS = re.compile(r"\bglue\(|\bprint\(")
ROLES = ("exact", "se", "z", "property", "sample", "fixed")
CLAIM = re.compile(r"^\s*(<|>)\s*(\S+)\s*$")
Z = 3.0  # standard errors


def load_registry() -> dict:
    return yaml.safe_load(REGISTRY.read_text(encoding="utf-8"))


def drawing_cells(nb: dict) -> dict[str, str]:
    """{cell id: source} of the code cells that draw random numbers and show a result."""
    cells = {}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if DRAWS.search(source) and SHOWS.search(source):
            cells[cell["id"]] = source
    return cells


def glued(cell: dict) -> dict[str, object]:
    """{glue name: value} stored in a cell's outputs (myst-nb's scrapbook records)."""
    values = {}
    for out in cell.get("outputs", []):
        name = out.get("metadata", {}).get("scrapbook", {}).get("name")
        if name is None:
            continue
        text = out["data"].get("application/papermill.record/text/plain", "")
        try:
            values[name] = json.loads(text)
        except json.JSONDecodeError:
            values[name] = text.strip("'\"") if text[:1] in "'\"" else text
    return values


def notebook_glue(nb: dict) -> dict[str, object]:
    values = {}
    for cell in nb["cells"]:
        values.update(glued(cell))
    return values


def names_in(entry: dict) -> list[str]:
    """Every glue name an entry gives a role to."""
    names = []
    for item in entry.get("exact", []):
        names += [item["value"], item["exact"], item["se"]]
    for item in entry.get("se", []):
        names += [item["value"], item["se"]]
    for item in entry.get("z", []):
        names.append(item["value"])
    for role in ("property", "sample", "fixed"):
        names += entry.get(role, [])
    return names


def number(token: str, glue: dict[str, object]) -> float:
    if token in glue:
        return float(glue[token])
    return float(token)


def check_exact(item: dict, glue: dict[str, object]) -> str | None:
    """None, or why the simulated value is not within Z standard errors of the exact."""
    value, exact, se = (float(glue[item[k]]) for k in ("value", "exact", "se"))
    if not se > 0:
        return f"{item['se']} = {se}: a standard error must be positive"
    if abs(value - exact) > Z * se:
        return (
            f"{item['value']} = {value:.6g} is {abs(value - exact) / se:.1f} standard "
            f"errors from the exact {item['exact']} = {exact:.6g}"
        )
    return None


def check_claim(item: dict, glue: dict[str, object]) -> str | None:
    """None, or why the claim ``value <op> bound`` does not hold at Z standard errors.

    Without a claim the number is only printed with its standard error (the prose
    says how uncertain it is and claims no side of any bound).
    """
    if "claim" not in item:
        se = float(glue[item["se"]])
        return None if se > 0 else f"{item['se']} = {se}: a standard error must be positive"
    match = CLAIM.match(item["claim"])
    if match is None:
        return f"claim {item['claim']!r} is not '< bound' or '> bound'"
    op, bound_token = match.groups()
    value, se = float(glue[item["value"]]), float(glue[item["se"]])
    bound = number(bound_token, glue)
    if not se > 0:
        return f"{item['se']} = {se}: a standard error must be positive"
    margin = (value - bound) if op == ">" else (bound - value)
    if margin < Z * se:
        return (
            f"{item['value']} = {value:.6g} {op} {bound:.6g} holds only at "
            f"{margin / se:.1f} standard errors ({item['se']} = {se:.3g}), not {Z:g}"
        )
    return None


def check_distance(item: dict, glue: dict[str, object]) -> str | None:
    """None, or why a distance in standard errors is on the wrong side of Z.

    ``claim: "< 3"`` says two numbers agree (within 3 standard errors), ``"> 3"`` that
    they differ; the bound must be Z.
    """
    match = CLAIM.match(item["claim"])
    if match is None or float(match.group(2)) != Z:
        return f"claim {item['claim']!r} of {item['value']} is not '< {Z:g}' or '> {Z:g}'"
    value = abs(float(glue[item["value"]]))
    if (value < Z) != (match.group(1) == "<"):
        return f"{item['value']} = {value:.3g} standard errors, claimed {item['claim']}"
    return None


def problems(name: str, nb: dict, entries: list[dict]) -> tuple[list[str], list[str]]:
    """(errors, undeclared cell ids) of one notebook against its registry entries."""
    errors = []
    cells = {c["id"]: c for c in nb["cells"]}
    drawing = drawing_cells(nb)
    glue = notebook_glue(nb)
    declared = {}
    for entry in entries:
        cid = entry.get("cell")
        if not isinstance(cid, str):
            errors.append(f"{name}: cell id {cid!r} must be a string (quote it in YAML)")
            cid = str(cid)
        if cid in declared:
            errors.append(f"{name}: cell {cid} declared twice")
        declared[cid] = entry
        unknown = set(entry) - {"cell", "why", *ROLES}
        if unknown:
            errors.append(f"{name}: cell {cid}: unknown keys {sorted(unknown)}")
        if cid not in cells:
            errors.append(f"{name}: declared cell {cid} is not in the notebook")
            continue
        if cid not in drawing:
            errors.append(f"{name}: declared cell {cid} no longer draws and shows a result")
        if not str(entry.get("why", "")).strip():
            errors.append(f"{name}: cell {cid}: say in `why` how its numbers obey the rule")
        in_cell = set(glued(cells[cid]))
        named = names_in(entry)
        for missing in sorted(in_cell - set(named)):
            errors.append(f"{name}: cell {cid} glues {missing}, which has no role")
        for extra in sorted(set(named) - set(glue)):
            errors.append(f"{name}: cell {cid}: {extra} is not glued in the notebook")
        if set(named) - set(glue):
            continue
        for item in entry.get("exact", []):
            why = check_exact(item, glue)
            if why:
                errors.append(f"{name}: cell {cid}: {why}")
        for item in entry.get("se", []):
            why = check_claim(item, glue)
            if why:
                errors.append(f"{name}: cell {cid}: {why}")
        for item in entry.get("z", []):
            why = check_distance(item, glue)
            if why:
                errors.append(f"{name}: cell {cid}: {why}")
        for prop in entry.get("property", []):
            if glue[prop] not in (True, "True"):
                errors.append(f"{name}: cell {cid}: property {prop} is {glue[prop]!r}")
    undeclared = sorted(set(drawing) - set(declared))
    return errors, undeclared


REG = load_registry()
PENDING = set(REG.get("pending") or [])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_simulated_number_is_declared_and_holds(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    entries = (REG.get("notebooks") or {}).get(path.name) or []
    errors, undeclared = problems(path.name, nb, entries)
    assert not errors, "\n".join(errors)
    if undeclared and path.name in PENDING:
        pytest.skip(
            f"pending (chapters/simulated.yml): declare cells {', '.join(undeclared)}"
        )
    assert not undeclared, (
        f"{path.name}: cells {', '.join(undeclared)} draw random numbers and print or "
        "glue a result: declare them in chapters/simulated.yml (CONTRIBUTING.md, "
        "'Simulated numbers')"
    )


def test_no_declaration_is_left_to_fix():
    """Every cell obeys the rule now: no entry may defer it ("TO FIX" in its `why`)."""
    text = REGISTRY.read_text(encoding="utf-8")
    left = [line.strip() for line in text.splitlines() if re.search(r"to\s+fix", line, re.I)]
    assert not left, "chapters/simulated.yml still defers the rule: " + " | ".join(left)


def test_registry_names_real_notebooks():
    names = {p.name for p in NOTEBOOKS}
    listed = set(REG.get("notebooks") or {}) | PENDING
    assert listed <= names, sorted(listed - names)


# --- the checker fails where it should ----------------------------------------------


def fake_notebook(source: str, glue: dict[str, object]) -> dict:
    outputs = [
        {
            "output_type": "display_data",
            "data": {"application/papermill.record/text/plain": json.dumps(v)},
            "metadata": {"scrapbook": {"name": k}},
        }
        for k, v in glue.items()
    ]
    cell = {"cell_type": "code", "id": "c1", "source": source, "outputs": outputs}
    return {"cells": [cell]}


SIM = "rng = np.random.default_rng(0)\nx = rng.random(100).mean()\nglue('x', x)\n"


def test_an_undeclared_drawing_cell_is_found():
    _, undeclared = problems("fake", fake_notebook(SIM, {"x": 0.5}), [])
    assert undeclared == ["c1"]


def test_a_cell_without_random_draws_needs_no_declaration():
    nb = fake_notebook("x = 1 / 3\nglue('x', x)\n", {"x": 1 / 3})
    assert problems("fake", nb, []) == ([], [])


def test_a_glued_number_without_a_role_fails():
    nb = fake_notebook(SIM, {"x": 0.5, "y": 2})
    entry = {"cell": "c1", "why": "w", "sample": ["x"]}
    errors, _ = problems("fake", nb, [entry])
    assert any("glues y" in e for e in errors)


def test_an_estimate_far_from_the_exact_value_fails():
    entry = {"cell": "c1", "why": "w", "exact": [{"value": "x", "exact": "e", "se": "s"}]}
    near = fake_notebook(SIM, {"x": 0.52, "e": 0.5, "s": 0.01})
    far = fake_notebook(SIM, {"x": 0.54, "e": 0.5, "s": 0.01})
    assert problems("fake", near, [entry]) == ([], [])
    assert "standard errors from the exact" in problems("fake", far, [entry])[0][0]


def test_a_claim_within_three_standard_errors_fails():
    entry = {"cell": "c1", "why": "w", "se": [{"value": "x", "se": "s", "claim": "> 0.5"}]}
    sure = fake_notebook(SIM, {"x": 0.54, "s": 0.01})
    unsure = fake_notebook(SIM, {"x": 0.52, "s": 0.01})
    assert problems("fake", sure, [entry]) == ([], [])
    assert "not 3" in problems("fake", unsure, [entry])[0][0]


def test_a_distance_on_the_wrong_side_fails():
    entry = {"cell": "c1", "why": "w", "z": [{"value": "z", "claim": "> 3"}]}
    assert problems("fake", fake_notebook(SIM, {"z": 5.9}), [entry]) == ([], [])
    errors, _ = problems("fake", fake_notebook(SIM, {"z": 2.1}), [entry])
    assert errors == ["fake: cell c1: z = 2.1 standard errors, claimed > 3"]


def test_a_false_property_fails():
    entry = {"cell": "c1", "why": "w", "property": ["x"]}
    errors, _ = problems("fake", fake_notebook(SIM, {"x": False}), [entry])
    assert errors == ["fake: cell c1: property x is False"]


def test_a_stale_declaration_fails():
    nb = fake_notebook("x = 1\nglue('x', x)\n", {"x": 1})
    errors, _ = problems("fake", nb, [{"cell": "c1", "why": "w", "fixed": ["x"]}])
    assert errors == ["fake: declared cell c1 no longer draws and shows a result"]


# --- exact values recomputed here, without rankeval -----------------------------------


def ch02_flat_share() -> float:
    """Share of flat recall steps: lengths 2..14 uniform, fair bits, at least one 1.

    A step from k to k + 1 is flat when position k + 1 is irrelevant. Pooled over many
    lists the share tends to E[flat steps] / E[steps] (both conditional on a relevant
    item, the filter the cell applies).
    """
    flat = steps = Fraction(0)
    for n in range(2, 15):
        keep = 1 - Fraction(1, 2**n)  # P(at least one relevant)
        # P(position j irrelevant and some other relevant) = 1/2 - 1/2^n
        flat += (n - 1) * (Fraction(1, 2) - Fraction(1, 2**n))
        steps += (n - 1) * keep
    return float(flat / steps)


def ch03_ex2_hit3() -> float:
    """E[Hit@3] with two relevant items among ten, by enumerating the top three."""
    hits = total = 0
    for top in product(range(10), repeat=3):
        if len(set(top)) == 3:
            total += 1
            hits += any(i < 2 for i in top)
    return hits / total


def err_exact(grades, max_grade=3, p=1.0) -> float:
    """ERR by the cascade formula, with a continuation probability p (ch09)."""
    value, go_on = 0.0, 1.0
    for rank, g in enumerate(grades, start=1):
        stop = (2**g - 1) / 2**max_grade
        value += go_on * stop / rank
        go_on *= (1 - stop) * p
    return value


def ch07_first_hit(part: str) -> float:
    """The generator of ch07: first relevant item at g ~ Geometric(1/4) in a list of
    100, none for a tenth of the queries. gap: E[RR - RR@10]; cut: P(10 < g <= 100)."""
    terms = [(g, Fraction(9, 10) * Fraction(1, 4) * Fraction(3, 4) ** (g - 1)) for g in range(11, 101)]
    if part == "gap":
        return float(sum(p / g for g, p in terms))
    return float(sum(p for _, p in terms))


def ch10_utility() -> float:
    """Expected utility of the seven-document ranking at p = 0.8 (ch10, rbp-utility)."""
    return float(sum(Fraction(4, 5) ** i for i, g in enumerate([1, 0, 1, 0, 1, 1, 0]) if g))


ORACLES = {
    ("10_rbp.ipynb", "ch10_sim_utility_exact"): ch10_utility,
    ("10_rbp.ipynb", "ch10_sim_depth_exact"): lambda: 5.0,
    ("02_precision_recall.ipynb", "ch02_flat_share_exact"): ch02_flat_share,
    ("03_hit.ipynb", "ch03_ex2_exact"): ch03_ex2_hit3,
    ("07_reciprocal_rank.ipynb", "ch07_mrr_gap10"): lambda: ch07_first_hit("gap"),
    ("07_reciprocal_rank.ipynb", "ch07_cut_share"): lambda: ch07_first_hit("cut"),
    ("09_err.ipynb", "ch09_err"): lambda: err_exact([3, 2, 3, 1, 0]),
    ("09_err.ipynb", "ch09_ex3_formula"): lambda: err_exact([0, 0, 1, 3, 0], p=0.8),
}


@pytest.mark.parametrize("key", list(ORACLES), ids=[k[1] for k in ORACLES])
def test_exact_values_agree_with_an_independent_computation(key):
    name, glue_name = key
    nb = json.loads((CHAPTERS / name).read_text(encoding="utf-8"))
    assert math.isclose(
        float(notebook_glue(nb)[glue_name]), ORACLES[key](), rel_tol=1e-9
    )
