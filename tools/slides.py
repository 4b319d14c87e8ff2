"""Lecture slides, one deck per chapter, drawn from the chapters (reveal.js).

A deck is made from the chapter's plain notebook (tools/plain_notebook.py: numbers
filled in, no MyST) by one rule: a title slide (the chapter's title, its motivation's
first paragraph, its learning objectives), then one slide per ``##`` section with the
section's first paragraph, its first two display formulas (one when it has a figure) and
its first figure (a PNG the
notebook stored), and for the exercises section the list of the exercises. Solutions are
never shown. The slides are reveal.js (the npm package ``reveal.js``, pinned in tasks.py
and installed by ``tasks.py setup`` into .venv/reveal) with the book's own MathJax, so a
deck loads nothing from another host.

    python tools/slides.py SITE REVEAL_DIST    # writes SITE/_static/slides/NN_x.html

SITE is the built website (_build/html; MathJax is read from its _static/mathjax) and
REVEAL_DIST reveal.js's ``dist`` folder, which is copied next to the decks.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools.plain_notebook import plain  # noqa: E402

OUT = Path("_static") / "slides"  # inside the site
SKIP_SECTIONS = {"further reading"}
REVEAL_FILES = ["reveal.js", "reveal.css", "reset.css", "theme/white.css",
                "theme/fonts/source-sans-pro"]
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} (slides)</title>
<link rel="stylesheet" href="reveal/reset.css">
<link rel="stylesheet" href="reveal/reveal.css">
<link rel="stylesheet" href="reveal/theme/white.css">
<style>
.reveal {{ font-size: 22px; }}
.reveal h1 {{ font-size: 1.6em; }} .reveal h2 {{ font-size: 1.3em; }}
.reveal img.figure {{ max-height: 300px; margin: 0.3em auto; display: block; }}
.reveal p, .reveal li {{ line-height: 1.35; }}
.reveal .source {{ font-size: 0.6em; }}
</style>
<script>
window.MathJax = {{ tex: {{ inlineMath: [["\\\\(", "\\\\)"]], displayMath: [["\\\\[", "\\\\]"]] }} }};
</script>
<script src="../mathjax/tex-mml-chtml.js" defer></script>
</head>
<body>
<div class="reveal"><div class="slides">
{slides}
</div></div>
<script src="reveal/reveal.js"></script>
<script>
Reveal.initialize({{ hash: true, slideNumber: true, center: false }});
</script>
</body>
</html>
"""


def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    def math(content: str, options: dict) -> str:
        escaped = html.escape(content)
        if options.get("display_mode"):
            return f'<div class="math">\\[{escaped}\\]</div>'
        return f'<span class="math">\\({escaped}\\)</span>'

    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, renderer=math,
                                                         allow_labels=False)


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


def sections(notebook: dict) -> list[dict]:
    """The chapter as sections: title, Markdown blocks (paragraphs) and figures, in order."""
    out: list[dict] = []
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            for block in re.split(r"\n\s*\n", _text(cell["source"])):
                heading = re.match(r"^(#{1,2})\s+(.*)", block)
                if heading:
                    out.append({"level": len(heading.group(1)), "title": heading.group(2),
                                "blocks": [], "figures": []})
                    rest = block[heading.end():].strip()
                    if rest:
                        out[-1]["blocks"].append(rest)
                elif out and block.strip():
                    out[-1]["blocks"].append(block.strip())
        elif cell["cell_type"] == "code" and out:
            figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
            for output in cell.get("outputs", []):
                png = output.get("data", {}).get("image/png")
                if png:
                    alt = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt", "")
                    out[-1]["figures"].append({"png": _text(png).replace("\n", ""),
                                               "caption": figure.get("caption", ""),
                                               "alt": alt or figure.get("caption", "A figure")})
    return out


def _is_prose(block: str) -> bool:
    return not block.startswith(("$$", "|", "<", "---", "#", "**In this chapter",
                                 "**Builds on", "**Exercise", "#### Solution", "- ", "1. "))


def slide_sections(notebook: dict) -> list[str]:
    """The HTML ``<section>`` of every slide of the chapter's deck."""
    md = _markdown()
    parts = sections(notebook)
    slides = []
    title = next(p for p in parts if p["level"] == 1)
    blocks = [b for p in parts for b in p["blocks"]]
    objectives = [blocks[i] + "\n\n" + (blocks[i + 1] if i + 1 < len(blocks) else "")
                  for i, b in enumerate(blocks) if b.startswith("**In this chapter")]
    first = next((b for b in title["blocks"] if _is_prose(b)), "")
    body = [f"<h1>{md.renderInline(title['title'])}</h1>", md.render(first)]
    slides.append("<section>\n" + "\n".join(body) + "\n</section>")
    if objectives:
        slides.append("<section>\n<h2>In this chapter</h2>\n"
                      + md.render(objectives[0].replace("**In this chapter** you will learn to", "You will learn to"))
                      + "\n</section>")
    for part in parts:
        if part["level"] != 2 or part["title"].strip().lower() in SKIP_SECTIONS:
            continue
        name = part["title"].strip().lower()
        body = [f"<h2>{md.renderInline(part['title'])}</h2>"]
        if name == "exercises":
            items = [re.match(r"\*\*(Exercise [\d.]+)\.\*\*\s*(.*)", b) for b in part["blocks"]]
            listed = [f"- {m.group(1)}{': ' + m.group(2).splitlines()[0] if m.group(2) else ''}"
                      for m in items if m]
            body.append(md.render("\n".join(listed)))
        else:
            prose = [b for b in part["blocks"] if _is_prose(b)][:1]
            # room for a figure: then one formula, else two
            formulas = [b for b in part["blocks"] if b.startswith("$$")][:1 if part["figures"] else 2]
            lists = [b for b in part["blocks"] if b.startswith(("- ", "1. "))][:1]
            body += [md.render(b) for b in prose + formulas + (lists if name in ("summary", "pitfalls") else [])]
            for figure in part["figures"][:1]:
                body.append(f'<img class="figure" src="data:image/png;base64,{figure["png"]}" '
                            f'alt="{html.escape(figure["alt"])}">')
        slides.append("<section>\n" + "\n".join(body) + "\n</section>")
    return slides


def deck(notebook: dict, chapter: str) -> str:
    """The HTML page of one chapter's slides."""
    plain_nb = plain(notebook, chapter=chapter, site="../../")  # the site, from _static/slides
    title = next(p["title"] for p in sections(plain_nb) if p["level"] == 1)
    title = re.sub(r"[*`$]", "", title)
    return PAGE.format(title=html.escape(title), slides="\n".join(slide_sections(plain_nb)))


def build(site: Path, reveal_dist: Path, root: Path = ROOT) -> list[Path]:
    """Write every chapter's deck into ``site/_static/slides`` with reveal.js beside them."""
    out = Path(site) / OUT
    out.mkdir(parents=True, exist_ok=True)
    if not (Path(reveal_dist) / "reveal.js").is_file():
        raise FileNotFoundError(f"no reveal.js in {reveal_dist} (python3 tasks.py setup)")
    # only what the decks use: the other themes load fonts from another host
    shutil.rmtree(out / "reveal", ignore_errors=True)
    for name in REVEAL_FILES:
        source = Path(reveal_dist) / name
        target = out / "reveal" / name
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    written = []
    for path in sorted((Path(root) / "chapters").glob("[0-9][0-9]_*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        target = out / f"{path.stem}.html"
        target.write_text(deck(notebook, path.stem), encoding="utf-8")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        sys.exit(__doc__)
    written = build(Path(args[0]), Path(args[1]))
    print(f"wrote {len(written)} slide decks in {Path(args[0]) / OUT}")


if __name__ == "__main__":
    main()
