"""The built HTML, read as files: self-contained, complete, and with the reader features.

No browser needed. The companion test_browser.py opens the same pages in Chromium.
"""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from _site import ROOT, chapter_files, is_redirect, redirects

import rankeval

sys.path.insert(0, str(ROOT))

# Elements whose attribute makes the browser fetch something as the page loads.
# An <a href> is a link the reader may follow, not a load, and is not listed.
LOADING_ATTRIBUTES = {
    "script": ("src",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "frame": ("src",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "input": ("src",),
    "image": ("href", "xlink:href"),
    "use": ("href", "xlink:href"),
}
# An address of a script, stylesheet or font written into an inline script: a load waiting
# to happen (Thebe's loader used to name unpkg.com this way).
SCRIPT_URL = re.compile(r"""(?:https?:)?//[^\s"'`]+\.(?:js|mjs|css|woff2?|ttf|otf)\b""")
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+(?:url\()?\s*['"]([^'"]+)""")


def is_external(url: str) -> bool:
    """True if the URL names another host (http://x, https://x, //x, ...)."""
    url = url.strip()
    if url.startswith("//"):
        return True
    scheme = urlsplit(url).scheme.lower()
    return scheme not in ("", "data", "blob", "about", "javascript", "mailto")


class Loads(HTMLParser):
    """Collects every URL a page would load: attributes, inline styles, <style> blocks."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[tuple[str, str]] = []
        self._in_style = False
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in LOADING_ATTRIBUTES.get(tag, ()):
            value = attrs.get(name)
            if not value:
                continue
            if tag == "link" and (attrs.get("rel") or "").lower() == "canonical":
                continue  # names the page's address; nothing is fetched
            for part in value.split(",") if name == "srcset" else [value]:
                self.urls.append((f"<{tag} {name}>", part.strip().split(" ")[0]))
        if attrs.get("style"):
            self.urls += [(f"<{tag} style>", u) for u in css_urls(attrs["style"])]
        self._in_style = tag == "style"
        self._in_script = tag == "script" and not attrs.get("src")

    def handle_endtag(self, tag):
        self._in_style = self._in_script = False

    def handle_data(self, data):
        if self._in_style:
            self.urls += [("<style>", u) for u in css_urls(data)]
        if self._in_script:
            self.urls += [("<script> text", u) for u in SCRIPT_URL.findall(data)]


def css_urls(css: str) -> list[str]:
    return [a or b for a, b in CSS_URL.findall(css)]


def test_no_page_loads_anything_from_another_host(site, pages):
    offenders = []
    for page in pages:
        parser = Loads()
        parser.feed((site / page).read_text(encoding="utf-8"))
        offenders += [f"{page}: {where} {url}" for where, url in parser.urls if is_external(url)]
    assert not offenders, "pages load from other hosts:\n" + "\n".join(offenders)


def test_no_stylesheet_loads_anything_from_another_host(site):
    """Fonts and @imports inside the theme's CSS (Google Fonts and the like) count too."""
    offenders = []
    for css in sorted((site / "_static").rglob("*.css")):
        for url in css_urls(css.read_text(encoding="utf-8", errors="replace")):
            if is_external(url):
                offenders.append(f"{css.relative_to(site)}: {url}")
    assert not offenders, "stylesheets load from other hosts:\n" + "\n".join(offenders)


def test_mathjax_3_is_served_by_the_site(site):
    script = site / "_static" / "mathjax" / "tex-mml-chtml.js"
    assert script.is_file(), "MathJax was not copied into the build (see _ext/offline_site.py)"
    assert re.search(r'VERSION\s*=\s*"3\.|version:"3\.|"3\.\d+\.\d+"', script.read_text()[:300_000])
    fonts = list((site / "_static" / "mathjax" / "output" / "chtml" / "fonts").rglob("*.woff"))
    assert fonts, "MathJax's CHTML fonts are missing"
    chapter = (site / "chapters" / "08_ndcg.html").read_text(encoding="utf-8")
    # (Sphinx appends ?v=<checksum> when the file was already in the output folder)
    assert re.search(r'src="\.\./_static/mathjax/tex-mml-chtml\.js(\?v=\w+)?"', chapter)


def section_of(html: str, anchor: str) -> str:
    """The HTML of one API entry: from its <dt id=anchor> to the next entry."""
    start = html.index(f'id="{anchor}"')
    end = html.find('<dl class="py ', start)
    return html[start : end if end != -1 else len(html)]


def api_pages(site) -> dict[str, str]:
    """The API reference's pages (reference/api*.html): page name -> HTML."""
    return {p.name: p.read_text(encoding="utf-8")
            for p in sorted((site / "reference").glob("api*.html"))}


def test_api_page_documents_every_public_name(site):
    html = "".join(api_pages(site).values())
    missing = [name for name in rankeval.__all__ if f'id="rankeval.{name}"' not in html]
    assert not missing, f"no API page (reference/api*.rst) documents: {missing}"


@pytest.mark.parametrize("name", rankeval.__all__)
def test_api_entry_links_to_its_chapter(site, name):
    doc = getattr(rankeval, name).__doc__ or ""
    chapters = re.findall(r"Chapter: :doc:`/?(chapters/\w+)`", doc)
    if not chapters:
        pytest.skip(f"rankeval.{name} has no 'Chapter:' line in its docstring yet")
    html = next(h for h in api_pages(site).values() if f'id="rankeval.{name}"' in h)
    entry = section_of(html, f"rankeval.{name}")
    for chapter in chapters:
        assert f'href="../{chapter}.html"' in entry, f"rankeval.{name} does not link to {chapter}"


@pytest.mark.parametrize("chapter", chapter_files())
def test_chapter_offers_its_notebook_for_download(site, chapter):
    html = (site / f"{chapter}.html").read_text(encoding="utf-8")
    link = f"../_sources/{chapter}.ipynb"
    assert f'href="{link}"' in html, f"{chapter}.html has no download button for its notebook"
    offered = json.loads((site / "_sources" / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    assert offered["nbformat"] == 4
    # the student notebook (issue 50; tools/editions.py), not the source notebook
    assert offered["metadata"]["rankeval_book"] == {"edition": "student"}
    assert "Solution to Exercise" not in json.dumps(offered)
    assert any(cell.get("outputs") for cell in offered["cells"]), "notebook without outputs"


def test_execution_page_lists_every_chapter_with_its_run_time(site):
    html = (site / "reference" / "execution.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.DOTALL)
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL) for row in rows]
    cells = [[re.sub(r"<[^>]+>", "", c).strip() for c in row] for row in cells if row]
    by_doc = {row[0]: row for row in cells}
    for chapter in chapter_files():
        assert chapter in by_doc, f"{chapter} is missing from the execution table"
        row = by_doc[chapter]
        assert any(re.fullmatch(r"\d+(\.\d+)?", c) for c in row), f"no run time for {chapter}: {row}"
        # the status in words, not only as an emoji that needs an emoji font
        assert "passed" in row, f"{chapter} did not execute cleanly: {row}"
        assert not {"✅", "❌"} & set(row), f"status shown as an emoji only: {row}"


@pytest.mark.parametrize("chapter", chapter_files())
def test_no_markdown_table_is_shown_as_raw_pipes(site, chapter):
    """A cell's text/markdown output (rankeval.report's table in chapter 21) is rendered
    as MyST (nb_render_markdown_format), so its tables are tables: no "| --- |" rule is
    left in the page's text outside code."""
    html = (site / f"{chapter}.html").read_text(encoding="utf-8")
    text = re.sub(r"<(pre|code|script|style)\b.*?</\1>", "", html, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>", " ", text)
    rules = re.findall(r"\|\s*:?-{3,}:?\s*\|", text)
    assert not rules, f"{chapter}: a Markdown table shown as raw text: {rules[:3]}"


def test_bibliography_lists_every_entry(site):
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    keys = re.findall(r"^@\w+\{([^,\s]+),", bib, re.MULTILINE)
    html = (site / "reference" / "bibliography.html").read_text(encoding="utf-8")
    entries = re.findall(r'<div class="citation" id="([^"]+)"', html)
    assert len(keys) >= 8
    assert len(entries) == len(keys), (keys, entries)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).lower()
    for title in re.findall(r"^\s*title\s*=\s*\{(.+)\},$", bib, re.MULTILINE):
        words = re.sub(r"[{}]", "", title).lower().split()[:3]
        assert " ".join(words) in text, f"bibliography lacks {title!r}"


def test_landing_page_says_what_the_book_is_and_where_to_start(site):
    html = (site / "index.html").read_text(encoding="utf-8")
    target = re.search(r'url=([^"]+)"', html)  # Jupyter Book's index redirects to the root page
    landing = site / (target.group(1) if target else "index.html")
    text = landing.read_text(encoding="utf-8")
    assert "Ranking Evaluation, executable" in text
    assert 'href="chapters/01_why_ranking.html"' in text
    assert 'href="reference/api.html"' in text


# --- a book you can run: the wheel, the notebooks, the PDF ---------------------------------

DOWNLOADS = "_downloads"


def landing_page(site) -> str:
    html = (site / "index.html").read_text(encoding="utf-8")
    target = re.search(r'url=([^"]+)"', html)
    return target.group(1) if target else "index.html"


def test_the_site_serves_the_wheel_and_the_notebooks(site):
    import zipfile

    folder = site / DOWNLOADS
    wheels = sorted(folder.glob("rankeval_book-*-py3-none-any.whl"))
    assert len(wheels) == 1, f"expected one rankeval-book wheel in {folder}: {wheels}"
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        assert "rankeval/__init__.py" in names
        metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    assert re.search(rb"^Name: rankeval-book$", metadata, re.MULTILINE), metadata[:300]
    with zipfile.ZipFile(folder / "ranking-evaluation-notebooks.zip") as bundle:
        inside = {name.split("/", 1)[1] for name in bundle.namelist()}
        notebook = json.loads(bundle.read("ranking-evaluation/chapters/08_ndcg.ipynb"))
    wanted = {f"{c}.ipynb" for c in chapter_files()}
    wanted |= {"chapters/bookstyle.py", "requirements.txt", "README.txt", wheels[0].name}
    wanted |= {"LICENSE", "LICENSE-text.md"}
    wanted |= {p.relative_to(ROOT).as_posix() for p in (ROOT / "data").rglob("*") if p.is_file()}
    assert wanted <= inside, f"the notebooks zip lacks {sorted(wanted - inside)}"
    assert any(cell.get("outputs") for cell in notebook["cells"]), "zipped without outputs"


@pytest.mark.parametrize("page", ["landing"] + chapter_files())
def test_every_chapter_says_how_to_run_it_and_links_the_downloads(site, page):
    from _site import IN_CI

    name = landing_page(site) if page == "landing" else f"{page}.html"
    html = (site / name).read_text(encoding="utf-8")
    assert "Run it locally" in html, f"{name} has no 'Run it locally' box"
    prefix = "../" * name.count("/")
    links = set(re.findall(r'href="([^"]+)"', html))
    wheel = next((site / DOWNLOADS).glob("rankeval_book-*.whl")).name
    for target in [f"{DOWNLOADS}/ranking-evaluation-notebooks.zip", f"{DOWNLOADS}/{wheel}"]:
        assert prefix + target in links, f"{name} does not link {target}"
    pdf = site / DOWNLOADS / "ranking-evaluation.pdf"
    if IN_CI:
        assert pdf.is_file() and pdf.stat().st_size > 100_000, "CI built no PDF edition"
    if pdf.is_file():
        assert f"{prefix}{DOWNLOADS}/ranking-evaluation.pdf" in links, f"{name} lacks the PDF"


def test_every_moved_page_redirects_to_its_new_address(site):
    moved = redirects()
    assert moved, "_config.yml names no redirects"
    for old, new in moved.items():
        page = site / f"{old}.html"
        assert page.is_file() and is_redirect(page), f"no redirect page at {old}.html"
        target = page.parent / new
        assert target.is_file() and not is_redirect(target), f"{old}.html -> {new}: no page"
        html = page.read_text(encoding="utf-8")
        assert f'href="{new}"' in html and "location.hash" in html, html
