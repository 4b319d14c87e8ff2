"""The course scaffolding: objectives, the chapter graph, self-check answers, the editions.

As a Sphinx extension (``local_extensions`` in _config.yml) it adds three things. In the
PDF, a {numref} to an exercise on another page links the exercise and prints its number
(see ``ExerciseNumrefsAcrossPages`` in ``setup``). In the HTML, each chapter's ``.ipynb``
download (the theme's download button, ``_sources/chapters/*.ipynb``) is the chapter's
student notebook (tools/editions.py: the exercises without their solutions), not the
source notebook with every solution and output. And the student edition of the site:
``BOOK_STUDENT_EDITION=1 jupyter-book build .`` (or ``sphinx.config.book_student_edition:
true``) leaves every solution out of the book, for handing out exercises as assignments.
(It was called the "teacher's edition" until issue 50; the teacher's edition is now
the one with every solution and its marking notes, ``python3 tasks.py editions``.
``BOOK_TEACHER_EDITION=1`` still builds the student edition, with a message.)
sphinx-exercise's own ``hide_solutions`` cannot do it for the book's gated solutions
(``solution-start`` ... ``solution-end``, which hold the check cells): it drops the
``solution-start`` marker but leaves the solution's cells on the page. Here the gated
solutions are merged first and the merged solution nodes are then removed whole.

As a script (standard library, plus PyYAML and matplotlib for the two commands that
need them) it keeps the generated parts of the chapters in step with their sources:

    python3 _ext/teaching.py objectives   # chapters/outline.yml -> each chapter's objectives cell
    python3 _ext/teaching.py graph        # chapters/outline.yml -> _static/chapter_dependencies.{svg,png}
                                          #   and the figure's alt text in intro.md
    python3 _ext/teaching.py answers      # stored solution values -> digests in chapters/answers.json

The notebooks are read and written as nbformat writes them (JSON, indent 1, sorted keys,
no ASCII escaping, a final newline), so a command that changes nothing leaves git clean.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"
OUTLINE = CHAPTERS / "outline.yml"
ANSWERS = CHAPTERS / "answers.json"
GRAPH = ROOT / "_static" / "chapter_dependencies"
INTRO = ROOT / "intro.md"
OBJECTIVES_ID = "learning-objectives"


# --- notebooks --------------------------------------------------------------------------


def read_notebook(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_notebook(path: Path, notebook: dict) -> None:
    """Write as nbformat does, byte for byte (so an unchanged notebook stays unchanged)."""
    text = json.dumps(notebook, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    Path(path).write_text(text, encoding="utf-8", newline="\n")


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def lines(text: str) -> list[str]:
    """A cell source as nbformat stores it: lines with their newlines, the last without."""
    return text.splitlines(keepends=True)


def chapter_files() -> list[Path]:
    return sorted(CHAPTERS.glob("[0-9][0-9]_*.ipynb"))


def glued_values(notebook: dict) -> dict[str, str]:
    """name -> the text form myst-nb stored for every ``glue`` in the notebook's outputs."""
    found = {}
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for mime, value in data.items():
                if mime.startswith("application/papermill.record/"):
                    name = output.get("metadata", {}).get("scrapbook", {}).get("name")
                    if name and mime.endswith("text/plain"):
                        found[name] = "".join(value) if isinstance(value, list) else value
                    elif name and mime.endswith("text/markdown") and name not in found:
                        found[name] = "".join(value) if isinstance(value, list) else value
    return found


def glued_number(text: str) -> float:
    """A glued value's text form as a number: '0.25', 'np.float64(0.25)', "'44,791'"."""
    text = text.strip()
    match = re.fullmatch(r"np\.\w+\((.*)\)", text)
    if match:
        text = match.group(1)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = text
    if isinstance(value, str):
        value = float(value.replace(",", ""))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"not a number: {text!r}")
    return float(value)


def stream_text(notebook: dict, cell_id: str) -> str:
    for cell in notebook["cells"]:
        if cell.get("id") == cell_id:
            return "".join(
                "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
                for o in cell.get("outputs", [])
                if o.get("output_type") == "stream" and o.get("name") == "stdout"
            )
    raise KeyError(f"no cell with id {cell_id!r}")


def book_value(notebook: dict, part: dict) -> float:
    """The book's own value for one part of a self-check: glued, or printed by a cell."""
    where = part["source"]
    if "glue" in where:
        glued = glued_values(notebook)
        if where["glue"] not in glued:
            raise KeyError(f"nothing glued as {where['glue']!r}")
        return glued_number(glued[where["glue"]])
    match = re.search(where["stdout"], stream_text(notebook, where["cell"]))
    if not match:
        raise KeyError(f"{where['stdout']!r} not in the output of cell {where['cell']}")
    return glued_number(match.group(1))


def chapter_notebook(number: int) -> Path:
    [path] = CHAPTERS.glob(f"{number:02d}_*.ipynb")
    return path


# --- self-check answers ------------------------------------------------------------------


def write_answers(data: dict) -> None:
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    ANSWERS.write_text(text, encoding="utf-8", newline="\n")


def answer_digests() -> dict:
    """chapters/answers.json with every digest recomputed from the stored solutions.

    Each part keeps its name, decimals, optional ``tolerance`` (a simulated answer
    accepts its uncertainty) and ``source``; its
    ``digests`` are those of the bins the interval [value - tolerance, value +
    tolerance] touches (bookstyle.bins_within), sorted, so their order says nothing.
    """
    sys.path.insert(0, str(CHAPTERS))
    import bookstyle

    data = json.loads(ANSWERS.read_text(encoding="utf-8"))
    data["about"] = ABOUT
    notebooks = {}
    for exercise, entry in data["exercises"].items():
        chapter = int(exercise.split(".")[0])
        if chapter not in notebooks:
            notebooks[chapter] = read_notebook(chapter_notebook(chapter))
        for index, part in enumerate(entry["parts"]):
            value = book_value(notebooks[chapter], part)
            tol = bookstyle.tolerance(part)
            digests = sorted({bookstyle.answer_digest(exercise, index, b)
                              for b in bookstyle.bins_within(value, tol)})
            part.pop("digest", None)
            part["digests"] = digests
    return data


ABOUT = ("Self-checks of the exercises (bookstyle.check). Each part stores its tolerance "
         "(`tolerance`, else one step of `decimals`) and slow salted digests of the "
         "tolerance-wide bins around the book's own value, never the value; `source` says "
         "where the book's solution glues or prints it and is left out of every copy "
         "handed out (tools/editions.py). Regenerate with `python3 _ext/teaching.py answers`.")


def shipped_answers(data: dict | None = None) -> dict:
    """answers.json as handed out: without the ``source`` of any part (which named the
    cell that holds the answer)."""
    import copy

    data = copy.deepcopy(data if data is not None else
                         json.loads(ANSWERS.read_text(encoding="utf-8")))
    data["about"] = ("Self-checks of the exercises (bookstyle.check): slow salted digests "
                     "of the bins around each answer, never the answer.")
    for entry in data["exercises"].values():
        for part in entry["parts"]:
            part.pop("source", None)
    return data


# --- objectives and prerequisites -------------------------------------------------------


def outline() -> dict:
    import yaml

    return yaml.safe_load(OUTLINE.read_text(encoding="utf-8"))


def objectives_markdown(entry: dict, titles: dict[str, str]) -> str:
    """The Markdown cell that opens a chapter: what it teaches and what it builds on."""
    out = ["**In this chapter** you will learn to", ""]
    out += [f"- {item.strip()}" for item in entry["objectives"]]
    out.append("")
    if entry.get("builds_on"):
        links = [f"{{doc}}`{titles[str(n).zfill(2)]}`" for n in entry["builds_on"]]
        out.append("**Builds on:** " + ", ".join(links) + ".")
    else:
        out.append("**Builds on:** nothing but school algebra and a little Python; start here.")
    return "\n".join(out)


def chapter_docs() -> dict[str, str]:
    """'08' -> '08_ndcg' (the {doc} target from one chapter to another)."""
    return {p.stem[:2]: p.stem for p in chapter_files()}


def update_objectives(check_only: bool = False) -> list[str]:
    """Write (or, with check_only, compare) each chapter's objectives cell; returns the
    chapters that differ."""
    data = outline()["chapters"]
    docs = chapter_docs()
    stale = []
    for path in chapter_files():
        key = path.stem[:2]
        if key not in data:
            raise KeyError(f"chapters/outline.yml has no entry for chapter {key}")
        notebook = read_notebook(path)
        text = objectives_markdown(data[key], docs)
        cells = notebook["cells"]
        found = [i for i, c in enumerate(cells) if c.get("id") == OBJECTIVES_ID]
        cell = {"cell_type": "markdown", "id": OBJECTIVES_ID, "metadata": {},
                "source": lines(text)}  # fmt: skip
        if found and cells[found[0]] == cell:
            continue
        stale.append(path.name)
        if check_only:
            continue
        if found:
            cells[found[0]] = cell
        else:
            cells.insert(1, cell)  # right after the title and motivation
        write_notebook(path, notebook)
    return stale


# --- the dependency graph ---------------------------------------------------------------


def layers(prerequisites: dict[int, list[int]]) -> dict[int, int]:
    """Each chapter's column: one more than the deepest chapter it builds on."""
    depth: dict[int, int] = {}

    def visit(n: int, seen: tuple = ()) -> int:
        if n in seen:
            raise ValueError(f"chapters/outline.yml: a cycle through chapter {n}")
        if n not in depth:
            before = prerequisites.get(n, [])
            depth[n] = 1 + max((visit(p, seen + (n,)) for p in before), default=-1)
        return depth[n]

    for n in prerequisites:
        visit(n)
    return depth


BOX_W, BOX_H = 1.6, 0.36  # a chapter's box in the figure, inches
GAP_X, GAP_Y = 0.55, 0.12  # between columns (layers), between boxes of a column


def chapter_graph() -> tuple[dict[int, list[int]], dict[int, str], dict[int, str]]:
    """outline.yml as (prerequisites, short label, part) per chapter number."""
    data = outline()["chapters"]
    prereq = {int(k): [int(p) for p in v.get("builds_on") or []] for k, v in data.items()}
    short = {int(k): v["short"] for k, v in data.items()}
    part = {int(k): v["part"] for k, v in data.items()}
    return prereq, short, part


def graph_layout(prereq: dict[int, list[int]]) -> tuple[dict, dict]:
    """Lay the chapter graph out left to right with grandalf's Sugiyama layout.

    Parameters
    ----------
    prerequisites : dict
        Chapter number -> the chapters it builds on.

    Returns
    -------
    boxes : dict
        Chapter -> (x, y) of its box's centre (inches; y grows downwards).
    routes : dict
        (from, to) -> the points an arrow passes, from the right edge of the first box
        to the left edge of the second.

    Notes
    -----
    A layered (Sugiyama) layout puts each chapter in a column one right of the deepest
    chapter it builds on, and gives an arrow that skips columns a *dummy* slot in every
    column it crosses, ordered with the boxes to reduce crossings. An arrow therefore
    runs horizontally through each column it crosses, in a slot of its own, and bends
    only in the gaps between columns: it never passes behind a box, so the figure shows
    no edge that outline.yml does not declare (tests/test_syllabus.py checks this on
    the routes).

    Example
    -------
    >>> boxes, routes = graph_layout({1: [], 2: [1]})
    >>> sorted(routes)
    [(1, 2)]
    """
    from grandalf.graphs import Edge, Vertex, graph_core
    from grandalf.layouts import SugiyamaLayout

    class View:  # grandalf lays layers out along y: w is across a layer, h along it
        def __init__(self, w, h):
            self.w, self.h = w, h

    class Path:
        def setpath(self, points):
            self.points = points

    vertices = {n: Vertex(n) for n in sorted(prereq)}
    for vertex in vertices.values():
        vertex.view = View(BOX_H, BOX_W)
    edges = []
    for n in sorted(prereq):
        for p in sorted(prereq[n]):
            edge = Edge(vertices[p], vertices[n])
            edge.view = Path()
            edges.append(edge)
    # graph_core keeps the edges in the order given (grandalf's Graph puts a component's
    # edges in a set, whose order, and so the layout, changes from run to run)
    component = graph_core(list(vertices.values()), edges)
    layout = SugiyamaLayout(component)
    layout.xspace, layout.yspace = GAP_Y, GAP_X
    layout.dw, layout.dh = 0.02, BOX_W  # an arrow's slot in a column it crosses
    layout.init_all()
    layout.draw(8)
    # transpose: grandalf's layers (y) become columns (x)
    boxes = {n: (v.view.xy[1], v.view.xy[0]) for n, v in vertices.items()}
    routes = {}
    for edge in edges:
        middle = [(y, x) for x, y in edge.view.points[1:-1]]
        (x0, y0), (x1, y1) = boxes[edge.v[0].data], boxes[edge.v[1].data]
        points = [(x0 + BOX_W / 2, y0)]
        for x, y in middle:  # cross the column at the slot's height
            points += [(x - BOX_W / 2, y), (x + BOX_W / 2, y)]
        points.append((x1 - BOX_W / 2, y1))
        routes[(edge.v[0].data, edge.v[1].data)] = points
    left = min(x for x, _ in boxes.values()) - BOX_W / 2
    ys = [y for _, y in boxes.values()] + [y for r in routes.values() for _, y in r]
    top = min(ys) - BOX_H / 2
    boxes = {n: (x - left, y - top) for n, (x, y) in boxes.items()}
    routes = {k: [(x - left, y - top) for x, y in v] for k, v in routes.items()}
    return boxes, routes


def bezier_route(points: list[tuple[float, float]]) -> tuple[list, list]:
    """A route as a matplotlib path: horizontal runs through columns, S-curves between.

    Each bend between two columns is a cubic Bezier curve whose control points lie
    between the two points' x, so it stays inside the gap between the columns.
    """
    from matplotlib.path import Path as MPath

    vertices, codes = [points[0]], [MPath.MOVETO]
    for i, (a, b) in enumerate(zip(points[:-1], points[1:], strict=True)):
        if i % 2 == 1:  # through a column: straight
            vertices.append(b)
            codes.append(MPath.LINETO)
        else:  # across a gap
            mid = (a[0] + b[0]) / 2
            vertices += [(mid, a[1]), (mid, b[1]), b]
            codes += [MPath.CURVE4] * 3
    return vertices, codes


def graph_alt_text(prereq: dict[int, list[int]], short: dict[int, str],
                   boxes: dict | None = None) -> str:
    """The figure's alt text, from the same data as the figure: columns and arrows."""
    boxes = boxes or graph_layout(prereq)[0]
    columns = sorted({round(x, 3) for x, _ in boxes.values()})
    needed_by = {n: sorted(m for m in prereq if n in prereq[m]) for n in prereq}
    out = [f"The {len(prereq)} chapters as boxes in {len(columns)} columns, left to right, "
           "each chapter one column right of the deepest chapter it builds on; an arrow "
           "leads from a chapter to each chapter that builds on it."]
    arrows = []
    for n in sorted(prereq):
        if needed_by[n]:
            targets = [str(m) for m in needed_by[n]]
            listed = targets[0] if len(targets) == 1 else ", ".join(targets[:-1]) + " and " + targets[-1]
            arrows.append(f"{n} ({short[n]}) to {listed}")
    out.append("Arrows: " + "; ".join(arrows) + ".")
    leaves = [str(n) for n in sorted(prereq) if not needed_by[n]]
    out.append("No chapter builds on " + ", ".join(leaves[:-1]) + " or " + leaves[-1] + ".")
    return " ".join(out)


def update_graph_alt(check_only: bool = False) -> bool:
    """Write (or compare) the ``:alt:`` of the introduction's chapter-graph figure;
    returns whether it differed."""
    prereq, short, _ = chapter_graph()
    text = INTRO.read_text(encoding="utf-8")
    pattern = re.compile(r"(:name: fig-chapter-graph\n:alt: )([^\n]*)")
    match = pattern.search(text)
    if not match:
        raise ValueError("intro.md: no figure fig-chapter-graph with an :alt: line")
    alt = graph_alt_text(prereq, short)
    if match.group(2) == alt:
        return False
    if not check_only:
        INTRO.write_text(text[:match.start(2)] + alt + text[match.end(2):], encoding="utf-8")
    return True


def draw_graph(out: Path = GRAPH) -> list[Path]:
    """Draw the chapter graph (an arrow from each chapter to the chapters built on it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path as MPath

    sys.path.insert(0, str(CHAPTERS))
    import bookstyle

    bookstyle.use()
    prereq, short, part = chapter_graph()
    boxes, routes = graph_layout(prereq)
    colours = {"Foundations": bookstyle.PALETTE[7], "The metrics": bookstyle.PALETTE[0],
               "Practice": bookstyle.PALETTE[3],
               "Beyond the test collection": bookstyle.PALETTE[2]}  # fmt: skip
    width = max(x for x, _ in boxes.values()) + BOX_W / 2
    ys = [y for _, y in boxes.values()] + [y for r in routes.values() for _, y in r]
    height = max(ys) + BOX_H / 2 + 0.4  # room for the legend
    fig = plt.figure(figsize=(width, height))
    fig.set_layout_engine("none")  # the layout above places everything
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    for key in sorted(routes):
        vertices, codes = bezier_route(routes[key])
        ax.add_patch(FancyArrowPatch(path=MPath(vertices, codes), arrowstyle="-|>",
                                     mutation_scale=8, color="#888888", lw=0.7,
                                     shrinkA=0, shrinkB=0, zorder=1))
    for n, (x, y) in sorted(boxes.items()):
        ax.add_patch(FancyBboxPatch((x - BOX_W / 2 + 0.03, y - BOX_H / 2 + 0.03),
                                    BOX_W - 0.06, BOX_H - 0.06,
                                    boxstyle="round,pad=0.03", fc=colours[part[n]],
                                    ec="none", zorder=2))
        ax.text(x, y, f"{n}  {short[n]}", ha="center", va="center", fontsize=7,
                color="white", zorder=3, wrap=False)
    for name, colour in colours.items():
        ax.scatter([], [], marker="s", color=colour, label=name)
    ax.legend(loc="lower center", ncol=4, frameon=False, bbox_to_anchor=(0.5, 0))
    ax.axis("off")
    written = []
    for suffix in (".svg", ".png"):
        target = out.with_suffix(suffix)
        target.parent.mkdir(parents=True, exist_ok=True)
        meta = {"Date": None} if suffix == ".svg" else {"Software": None}
        fig.savefig(target, metadata=meta, bbox_inches=None)  # the layout's own size
        written.append(target)
    plt.close(fig)
    return written


# --- the student edition and the downloads (the Sphinx extension) -----------------------


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes"}


def _student_default() -> bool:
    """BOOK_STUDENT_EDITION=1 (or the old name, BOOK_TEACHER_EDITION=1)."""
    if _truthy("BOOK_TEACHER_EDITION"):
        print("teaching: BOOK_TEACHER_EDITION is now BOOK_STUDENT_EDITION (a site without "
              "solutions); the teacher's edition is `python3 tasks.py editions`")
        return True
    return _truthy("BOOK_STUDENT_EDITION")


def student_downloads(app, exception) -> None:
    """After an HTML build: each chapter's ``_sources/chapters/NN_x.ipynb`` (what the
    page's download button serves) becomes the chapter's student notebook."""
    if exception is not None or app.builder.format != "html":
        return
    sys.path.insert(0, str(ROOT))
    from tools import editions

    sources = Path(app.outdir) / "_sources"
    for path in chapter_files():
        target = sources / "chapters" / path.name
        if target.is_file():
            target.write_text(editions.student_text(path), encoding="utf-8", newline="\n")


def setup(app):
    from sphinx import addnodes
    from sphinx.transforms import SphinxTransform
    from sphinx.transforms.post_transforms import SphinxPostTransform
    from sphinx_exercise.nodes import (
        exercise_enumerable_node,
        exercise_latex_number_reference,
        solution_node,
        solution_start_node,
    )

    class DropSolutions(SphinxTransform):
        """In the student edition, remove every (merged) solution from the page."""

        default_priority = 20  # after sphinx-exercise merges gated solutions (10)

        def apply(self):
            if not self.config.book_student_edition:
                return
            for node in list(self.document.findall(solution_node)):
                node.parent.remove(node)
            if list(self.document.findall(solution_start_node)):
                raise RuntimeError("teaching: a solution-start was not merged")

    class ExerciseNumrefsAcrossPages(SphinxPostTransform):
        """In the PDF, point a {numref} to another page's exercise at the exercise's label.

        sphinx-exercise labels a numbered exercise in LaTeX ``exercise:LABEL``, not
        ``DOCNAME:LABEL`` as Sphinx labels everything else, and points only the
        references from the exercise's own page (``refid``) at that label. A reference
        from another page (``refuri`` ``%DOCNAME#LABEL``: the course plan of
        reference/course.md names some fifty exercises) was left pointing at
        ``DOCNAME:LABEL``, which no label defines, and the PDF printed "Exercise ??".
        Such a reference becomes sphinx-exercise's own LaTeX reference node, which links
        ``exercise:LABEL`` and prints the number Sphinx gave the exercise.
        """

        default_priority = 23  # after sphinx-exercise's reference post-transforms (5-22)
        formats = ("latex",)

        def run(self, **kwargs):
            registry = getattr(self.env, "sphinx_exercise_registry", {})
            for node in list(self.document.findall(addnodes.number_reference)):
                refuri = node.get("refuri", "")
                if node.get("refid") or not refuri.startswith("%") or "#" not in refuri:
                    continue
                docname, _, label = refuri[1:].partition("#")
                entry = registry.get(label, {})
                if not isinstance(entry.get("node"), exercise_enumerable_node):
                    continue
                if entry.get("docname") != docname:
                    continue
                reference = exercise_latex_number_reference()
                reference["refid"] = label
                reference += node.children
                node.replace_self(reference)

    app.add_config_value("book_student_edition", _student_default(), "env")
    # after every other extension's build-finished (book_downloads may also rewrite the
    # _sources notebooks, as plain Markdown): the student notebook is what stays
    app.connect("build-finished", student_downloads, priority=900)
    app.add_transform(DropSolutions)
    app.add_post_transform(ExerciseNumrefsAcrossPages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["objectives", "graph", "answers"])
    parser.add_argument("--check", action="store_true",
                        help="only report what is out of date (exit 1 if anything is)")
    args = parser.parse_args(argv)
    if args.command == "objectives":
        stale = update_objectives(check_only=args.check)
        print("objectives out of date: " + (", ".join(stale) or "none"))
        sys.exit(1 if args.check and stale else 0)
    elif args.command == "graph":
        for path in draw_graph():
            print(f"wrote {path.relative_to(ROOT)}")
        if update_graph_alt():
            print(f"wrote the figure's alt text in {INTRO.relative_to(ROOT)}")
    else:
        data = answer_digests()
        current = json.loads(ANSWERS.read_text(encoding="utf-8"))
        if data == current:
            print("answers.json is up to date")
        elif args.check:
            sys.exit("answers.json is out of date: run python3 _ext/teaching.py answers")
        else:
            write_answers(data)
            print(f"wrote {ANSWERS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
