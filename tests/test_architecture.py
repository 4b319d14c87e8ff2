"""The layers of rankeval are its folders: a walk over the imports enforces them.

ARCHITECTURE.md draws the layers. Each module of ``rankeval/`` belongs to the layer of
its folder (``rankeval/metrics/dcg.py`` to ``metrics``) or, at the top, of its name
(``rankeval/ranking.py`` to ``ranking``, ``rankeval/cli.py`` to ``cli``). A module may
import from its own layer and from the layers listed for it in ``MAY_IMPORT``; never a
private name (``_x``) or a private module of another layer; and the import graph has no
cycle. ``import rankeval`` in a fresh process loads no pyarrow and no pandas, changes no
environment variable, and is fast.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "rankeval"

# layer -> the layers it may import from (besides itself); the order of ARCHITECTURE.md:
# metrics and io at the bottom, then ranking, measures, evaluation, stats, reporting, and
# at the top the entry points (cli, distributed, the package's lazy front door)
MAY_IMPORT = {
    "metrics": set(),
    "io": set(),
    "ranking": {"io", "metrics"},
    "measures": {"metrics"},
    "evaluation": {"measures", "ranking", "io", "metrics"},
    # compare summarises a column as aggregate does, by the measure's declaration
    "stats": {"evaluation", "measures", "metrics"},
    "reporting": {"stats", "evaluation", "measures", "metrics"},
    "distributed": {"evaluation", "measures", "io", "metrics"},
    # online evaluation (click models, interleaving, counterfactual estimators): no
    # other layer's code, arrays in and out
    "online": set(),
    # beyond accuracy, assessor agreement, discriminative power (chapters 24 and 25):
    # frames and arrays in; Kendall's tau between system rankings from stats; a scored
    # table ranked by ranking's own function (ranked_ids), so its ties match evaluate's
    "beyond": {"stats", "ranking", "metrics"},
    # fusion (several runs into one): reads runs as io does, ranks them as ranking does;
    # tune_weights evaluates and aggregates the fused runs
    "fusion": {"evaluation", "measures", "ranking", "io", "metrics"},
    "cli": {"reporting", "stats", "evaluation", "measures", "ranking", "io", "metrics"},
    # public front doors: rankeval/__init__.py and the thin public modules
    # rankeval.dask, rankeval.spark, rankeval.ltr (re-exports, nothing else)
    "front": {"fusion", "online", "beyond", "distributed", "cli", "reporting", "stats", "evaluation", "measures",
              "ranking", "io", "metrics"},
}  # fmt: skip
FRONT = {"__init__", "__main__", "dask", "spark", "ltr", "plot"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "front"
    if len(parts) == 2 and parts[1] in FRONT:
        return "front"
    return parts[1]


def _imports(path: Path):
    """(imported module, imported names, line) of every import of rankeval in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "rankeval":
                    yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "rankeval":
                continue
            names = [a.name for a in node.names]
            # "from . import x" imports the module rankeval.x
            submodules = [f"{target}.{n}" for n in names if (ROOT.parent / Path(
                *f"{target}.{n}".split("."))).with_suffix(".py").exists() or (ROOT.parent / Path(
                *f"{target}.{n}".split("."))).is_dir()]  # fmt: skip
            if submodules:
                for sub in submodules:
                    yield sub, [], node.lineno
                names = [n for n in names if f"{target}.{n}" not in submodules]
            if names:
                yield target, names, node.lineno


def _graph():
    edges = {}
    for path in sorted(ROOT.rglob("*.py")):
        edges[_module_name(path)] = list(_imports(path))
    return edges


GRAPH = _graph()


def test_every_folder_is_a_layer():
    layers = {_layer(m) for m in GRAPH}
    assert layers == set(MAY_IMPORT), layers ^ set(MAY_IMPORT)


def test_imports_follow_the_layers():
    bad = []
    for module, imports in GRAPH.items():
        mine = _layer(module)
        for target, _, line in imports:
            theirs = _layer(target)
            if theirs != mine and theirs not in MAY_IMPORT[mine]:
                bad.append(f"{module}:{line} ({mine}) imports {target} ({theirs})")
    assert not bad, "\n".join(bad)


def test_no_private_name_of_another_package():
    bad = []
    for module, imports in GRAPH.items():
        home = module.rpartition(".")[0] if module.count(".") > 1 else module
        for target, names, line in imports:
            package = target if target in GRAPH and (ROOT.parent / Path(
                *target.split("."))).is_dir() else target.rpartition(".")[0]  # fmt: skip
            if package == home or (module == "rankeval" and package == "rankeval"):
                continue
            private_module = any(p.startswith("_") for p in target.split(".")[1:])
            private_names = [n for n in names if n.startswith("_") and not n.endswith("__")]
            if private_module or private_names:
                bad.append(f"{module}:{line} imports {target} {private_names}")
    assert not bad, "\n".join(bad)


def test_no_import_cycle():
    # module-level edges only count for a cycle at import time, but a cycle through
    # late (function-level) imports is a design knot too: every edge counts
    graph = {m: {t for t, _, _ in imps if t in GRAPH and t != m} for m, imps in GRAPH.items()}
    for module in graph:  # a package's own __init__ re-exporting its modules is no cycle
        if (ROOT.parent / Path(*module.split("."))).is_dir():
            graph[module] = set()
    state = {}

    def visit(m, stack):
        state[m] = 1
        for t in graph[m]:
            if state.get(t) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*stack, m, t]))
            if t not in state:
                visit(t, [*stack, m])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [])


_FRESH = """
import os, sys, time
before = dict(os.environ)
t = time.perf_counter()
import rankeval
elapsed = time.perf_counter() - t
print(elapsed)
print("pyarrow" in sys.modules, "pandas" in sys.modules, dict(os.environ) == before)
"""


def test_import_is_light():
    env = {k: v for k, v in os.environ.items() if k != "MIMALLOC_ARENA_EAGER_COMMIT"}
    out = subprocess.run(
        [sys.executable, "-c", _FRESH], capture_output=True, text=True, check=True, env=env
    ).stdout.split("\n")
    assert out[1] == "False False True", out


@pytest.mark.parametrize("name", ["evaluate", "report", "aggregate", "ndcg", "compare"])
def test_public_functions_survive_subpackage_imports(name):
    """A subpackage named like a public function would replace it on first import."""
    import importlib

    import rankeval

    for path in sorted(ROOT.rglob("*.py")):
        importlib.import_module(_module_name(path)) if "distributed" not in str(path) else None
    assert callable(getattr(rankeval, name))
