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


# --- no long units ---------------------------------------------------------------------------

MAX_CODE_LINES = 80
# Functions over MAX_CODE_LINES in files another helper of this wave is splitting
# (rankeval/cli.py and rankeval/evaluation/groups.py: the request plan of issue 45); the
# merge empties this list. Nothing else may be added to it: split the function instead.
LONG_FUNCTIONS_ALLOWED: set = set()


def _code_lines(path: Path):
    """``{function's qualified name: (first line, code lines)}`` of every function of
    ``path``; code lines are the lines holding a token of code: blank lines, comments
    and docstrings (of the function and of anything nested in it) do not count."""
    import io
    import tokenize

    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):  # fmt: skip
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
            tokenize.DEDENT, tokenize.ENDMARKER}  # fmt: skip
    code = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            code.update(range(token.start[0], token.end[0] + 1))
    code -= docstrings
    out = {}

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                lines = range(child.lineno, child.end_lineno + 1)
                out[name] = (child.lineno, sum(1 for n in lines if n in code))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def test_code_lines_are_counted_without_docstrings_and_comments(tmp_path):
    path = tmp_path / "x.py"
    path.write_text('def f(a,\n      b):\n    """Doc.\n\n    More."""\n    # a comment\n\n'
                    '    x = [1,\n         2]\n    return x\n')  # fmt: skip
    assert _code_lines(path) == {"f": (1, 5)}


def test_no_function_over_80_code_lines():
    """Every function of rankeval/ has at most MAX_CODE_LINES lines of code (docstrings,
    comments and blank lines aside), but the allowed ones, which must still be long."""
    long, allowed_seen = [], set()
    for path in sorted(ROOT.rglob("*.py")):
        where = path.relative_to(ROOT.parent).as_posix()
        for name, (line, n) in _code_lines(path).items():
            if n > MAX_CODE_LINES:
                if (where, name) in LONG_FUNCTIONS_ALLOWED:
                    allowed_seen.add((where, name))
                else:
                    long.append(f"{where}:{line} {name}: {n} code lines")
    assert not long, "\n".join(long)
    # an entry of the allowlist whose function was split (or renamed) must go
    assert allowed_seen == LONG_FUNCTIONS_ALLOWED, LONG_FUNCTIONS_ALLOWED - allowed_seen


# --- the bottom layer knows no upper type --------------------------------------------------


def test_metrics_import_no_other_layer():
    """metrics/ is the bottom: none of its modules imports evaluation/, ranking/ or any
    other layer of rankeval (at module level or inside a function)."""
    bad = [f"{m}:{line} imports {t}" for m, imps in GRAPH.items() if _layer(m) == "metrics"
           for t, _, line in imps if _layer(t) != "metrics"]  # fmt: skip
    assert not bad, "\n".join(bad)


def _protocol_members(protocol) -> set:
    members = set(getattr(protocol, "__annotations__", {}))
    members |= {n for n, v in vars(protocol).items()
                if not n.startswith("_") and (callable(v) or isinstance(v, property))}
    return members | {"__len__", "__getitem__"}


def test_ranked_run_implements_the_ranked_block():
    import inspect

    from rankeval import RankedRun, rank_run
    from rankeval.metrics.block import RankedBlock

    ranked = rank_run({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}})
    assert isinstance(ranked, RankedBlock)
    assert isinstance(ranked[0:1], RankedBlock)
    for name in _protocol_members(RankedBlock) - {"tie_groups", "lengths", "__len__",
                                                  "__getitem__"}:  # fmt: skip
        # the same parameters, so a kernel typed with the protocol calls RankedRun right
        want = list(inspect.signature(getattr(RankedBlock, name)).parameters)
        got = list(inspect.signature(getattr(RankedRun, name)).parameters)
        assert got == want, (name, got, want)


def _attributes_read_by_scoring_functions():
    """``{attribute: where}`` of every attribute that a function of metrics/ reads from
    its first parameter when that is ``ranked`` (a block of ranked queries), and from the
    first parameter of a function nested in it (``nonempty``'s callback on a slice)."""
    found = {}

    def reads(function, name, where):
        for node in ast.walk(function):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == name):  # fmt: skip
                found.setdefault(node.attr, f"{where}:{node.lineno}")

    for path in sorted((ROOT / "metrics").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.args.args and \
                    node.args.args[0].arg == "ranked":  # fmt: skip
                reads(node, "ranked", path.name)
                for inner in ast.walk(node):
                    if isinstance(inner, ast.FunctionDef) and inner is not node and inner.args.args:
                        reads(inner, inner.args.args[0].arg, path.name)
    return found


def test_the_ranked_block_names_what_the_scoring_functions_read():
    from rankeval.metrics.block import RankedBlock

    read = _attributes_read_by_scoring_functions()
    assert {"padded", "n_relevant", "lengths"} <= set(read)  # the walk finds them
    missing = {a: w for a, w in read.items() if a not in _protocol_members(RankedBlock)}
    assert not missing, f"read but not in metrics/block.py's RankedBlock: {missing}"


# metrics/dcg.py: owned by the helper that unifies the DCG path (issue 45, item 7) in
# this wave; the merge types its scoring functions and empties this set
UNTYPED_SCORING_ALLOWED: set = set()


def test_scoring_functions_take_a_ranked_block():
    """Every function of metrics/ whose first parameter is ``ranked`` annotates it with
    the ranked-block interface, not with an upper layer's type."""
    bad = []
    for path in sorted((ROOT / "metrics").glob("*.py")):
        if path.name in UNTYPED_SCORING_ALLOWED:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.args.args and \
                    node.args.args[0].arg == "ranked":  # fmt: skip
                note = node.args.args[0].annotation
                if not (isinstance(note, ast.Name) and note.id == "RankedBlock"):
                    bad.append(f"{path.name}:{node.lineno} {node.name}")
    assert not bad, "\n".join(bad)


# --- ARCHITECTURE.md says what the code does --------------------------------------------------


def _layer_table():
    """``{layer: (folder, may import)}`` of the table in ARCHITECTURE.md."""
    import re

    text = (ROOT.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not line.startswith("| ") or cells[0] in ("layer", "---"):
            continue
        may = set(re.findall(r"`([a-z]+)`", cells[2]))
        rows[cells[0]] = (cells[1], may)
    return rows


def test_the_layer_table_of_architecture_md_is_may_import():
    table = _layer_table()
    assert set(table) == set(MAY_IMPORT), set(table) ^ set(MAY_IMPORT)
    for layer, (_, may) in table.items():
        assert may == MAY_IMPORT[layer], (layer, sorted(may), sorted(MAY_IMPORT[layer]))


def test_the_folders_of_architecture_md_exist():
    import re

    for layer, (folder, _) in _layer_table().items():
        for name in re.findall(r"`([^`]+)`", folder):
            assert (ROOT / name).exists(), f"{layer}: {name} is not in rankeval/"


def test_the_ranking_package_keeps_the_names_of_ranking_py():
    """ranking.py became the package rankeval/ranking/: every name it offered, public
    or imported by tests and benchmarks, is still there, and the public functions stay
    functions (no module of the package is named like one of them)."""
    import rankeval.ranking as ranking

    for name in ("RankedRun", "rank_run", "release_memory", "check_options",
                 "by_query_and_score", "columns_of", "compared_scores", "ranked_ids",
                 "TIES", "IDEAL", "MISSING", "SCORE_PRECISION", "GRADES",
                 "_inner_join", "_rank_order", "stable_order"):  # fmt: skip
        assert hasattr(ranking, name), name
    for path in (ROOT / "ranking").glob("*.py"):
        importlib_name = _module_name(path)
        __import__(importlib_name)
    assert callable(ranking.rank_run) and not isinstance(ranking.rank_run, type(ranking))
    assert callable(ranking.ranked_ids) and not isinstance(ranking.ranked_ids, type(ranking))
