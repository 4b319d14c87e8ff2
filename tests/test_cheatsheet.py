"""The cheat sheet's name columns come from the measure registry (issue 36).

reference/cheatsheet.md writes trec_eval's, ndeval's and ir_measures' names of a
measure with the roles of _ext/measure_names.py; these tests check that no name is
typed by hand in those columns, that the roles give the registry's names, and that a
Sphinx build renders them.
"""

import html
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rankeval.measures import DECLARATIONS, parse_measure, trec_eval_name

ROOT = Path(__file__).resolve().parents[1]
CHEATSHEET = ROOT / "reference" / "cheatsheet.md"
NAME_COLUMNS = ("trec_eval", "ndeval", "ir_measures")
ROLE = re.compile(r"\{(trec-eval-names|measure-names)\}`([^`]*)`")


def load_extension():
    spec = importlib.util.spec_from_file_location(
        "measure_names", ROOT / "_ext" / "measure_names.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


names = load_extension()


def name_cells() -> list[tuple[str, str, str]]:
    """(metric, column, cell) of every name column of the cheat sheet's tables."""
    cells, header = [], None
    for line in CHEATSHEET.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = None
            continue
        row = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = row
        elif not set(line) <= set("|- "):
            cells += [
                (row[0], col, cell)
                for col, cell in zip(header, row, strict=True)
                if col in NAME_COLUMNS
            ]
    return cells


def test_the_cheatsheet_has_name_columns():
    metrics = {metric for metric, _, _ in name_cells()}
    assert {"P@k", "AP (MAP)", "nDCG@k", "α-nDCG@k"} <= metrics
    assert len(name_cells()) >= 2 * 22


@pytest.mark.parametrize("metric, column, cell", name_cells())
def test_every_name_cell_uses_a_role(metric, column, cell):
    roles = ROLE.findall(cell)
    assert roles, f"{metric}, {column}: {cell!r} has no name role"
    wanted = "trec-eval-names" if column == "trec_eval" else "measure-names"
    assert {role for role, _ in roles} == {wanted}, (metric, column, cell)
    # what is left is prose: no code span in it is a measure name
    for code in re.findall(r"`([^`]*)`", ROLE.sub("", cell)):
        with pytest.raises(ValueError):
            parse_measure(code.strip('"'))
        assert not any(code in (d.trec_eval, d.trec_eval_cut) for d in DECLARATIONS.values())


@pytest.mark.parametrize("metric, column, cell", name_cells())
def test_every_role_reads_a_registry_name(metric, column, cell):
    for role, text in ROLE.findall(cell):
        function = names.trec_eval_names if role == "trec-eval-names" else names.measure_names
        function(text)  # a name the registry does not know raises ValueError


@pytest.mark.parametrize(
    "text, trec_eval, measure",
    [
        ("P@10", ["P_10"], ["P@10"]),
        ("P@k", ["P_k"], ["P@k"]),
        ("R@k", ["recall_k"], ["R@k"]),
        ("Success@k", ["success_k"], ["Success@k"]),
        ("Rprec", ["Rprec"], ["Rprec"]),
        ("AP, AP@k", ["map", "map_cut_k"], ["AP", "AP@k"]),
        ("MAP", ["map"], ["MAP"]),  # an alias is kept as written
        ("IPrec@0.1", ["iprec_at_recall_0.10"], ["IPrec@0.1"]),
        ("RBP(p=0.8)", [], ["RBP(p=0.8)"]),
        ("RBP, GAP", [], ["RBP(p=0.8)", "GAP"]),
        ("trec_rbp, trec_rbp_resid", ["rbp", "rbp_resid"], ["trec_rbp", "trec_rbp_resid"]),
        ("alpha_nDCG@k", [], ["alpha_nDCG@k"]),
    ],
)
def test_role_names_are_the_registrys(text, trec_eval, measure):
    assert names.trec_eval_names(text) == trec_eval
    assert names.measure_names(text) == measure


@pytest.mark.parametrize("name", sorted(DECLARATIONS))
def test_role_agrees_with_trec_eval_name_for_every_measure(name):
    d = DECLARATIONS[name]
    text = name + {"required": "@10", "recall": "@0.1", "multiple": "@0.5"}.get(d.cutoff, "")
    expected = trec_eval_name(text)
    assert names.trec_eval_names(text) == ([] if expected is None else [expected])
    assert names.measure_names(text) == [str(parse_measure(text))]
    if d.trec_eval_cut and d.cutoff in ("optional", "required"):
        assert names.trec_eval_names(name + "@k") == [d.trec_eval_cut + "_k"]


def test_unknown_name_is_an_error():
    with pytest.raises(ValueError, match="Prec"):
        names.measure_names("Prec@k")


def test_sphinx_renders_the_roles(tmp_path):
    """A small MyST project: the roles give inline code, or "—", and a name the
    registry does not know is an error of the build, which names it."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / '_ext')!r})\n"
        "extensions = ['myst_parser', 'measure_names']\n",
        encoding="utf-8",
    )
    (src / "index.md").write_text(
        "# Names\n\n| trec_eval | ir_measures |\n| --- | --- |\n"
        "| {trec-eval-names}`P@10` | {measure-names}`P@10` |\n"
        "| {trec-eval-names}`ERR@k` | — ({measure-names}`AR`) |\n",
        encoding="utf-8",
    )
    (src / "bad.md").write_text(
        "---\norphan: true\n---\n# Bad\n\n{measure-names}`NoSuchMeasure@k`\n",
        encoding="utf-8",
    )
    # in a process of its own: a second Sphinx application in one process (another
    # test's) warns that node classes are registered again
    warnfile = tmp_path / "warnings.txt"
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", "-w",
                    str(warnfile), str(src), str(tmp_path / "html")],
                   capture_output=True, text=True, check=False)  # fmt: skip
    page = html.unescape((tmp_path / "html" / "index.html").read_text(encoding="utf-8"))
    assert '<span class="pre">P_10</span></code>' in page
    assert '<span class="pre">P@10</span></code>' in page
    assert '<span class="pre">AR</span></code>' in page
    assert "<td><p>—</p></td>" in page
    problems = [line for line in warnfile.read_text(encoding="utf-8").splitlines()
                if line.strip()]
    assert len(problems) == 1, problems
    assert "bad.md" in problems[0] and "ERROR" in problems[0]
    assert "NoSuchMeasure" in problems[0]
