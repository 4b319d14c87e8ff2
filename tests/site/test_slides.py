"""The chapters' slide decks (tools/slides.py, built by `python3 tasks.py check` and
`slides` into _build/html/_static/slides): one per chapter, no solutions, and a deck
opens in headless Chromium: reveal.js starts, MathJax typesets every formula without an
error, the figures load, the arrow key moves to the next slide, and nothing is requested
from another host. Readiness is polled in the page (as in test_browser.py), not slept.
"""

from __future__ import annotations

import functools
import http.server
import re
import threading

import pytest
from _site import ROOT, chapter_files, missing

DECKS = "_static/slides"
READY_JS = """
const done = arguments[arguments.length - 1];
const deadline = Date.now() + 60000;
(function poll() {
  const reveal = window.Reveal && window.Reveal.isReady && window.Reveal.isReady();
  const mj = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
  if (reveal && mj) {
    window.MathJax.startup.promise.then(() => done({
      slides: Reveal.getTotalSlides(),
      math: document.querySelectorAll('mjx-container').length,
      errors: document.querySelectorAll('mjx-merror').length,
      images: Array.from(document.images).map(i => [i.complete, i.naturalWidth]),
    }));
  } else if (Date.now() > deadline) {
    done({timeout: true, reveal: !!reveal, mathjax: !!mj});
  } else {
    setTimeout(poll, 100);
  }
})();
"""


@pytest.fixture(scope="module")
def decks(site):
    folder = site / DECKS
    if not folder.is_dir():
        missing(f"no slides in {folder}: run `python3 tasks.py slides` after a build")
    return folder


def test_every_chapter_has_a_deck_without_solutions(decks):
    for chapter in chapter_files():
        page = decks / f"{chapter.split('/')[1]}.html"
        assert page.is_file(), f"no slides for {chapter}"
        html = page.read_text(encoding="utf-8")
        assert html.count("<section>") >= 4, page.name
        assert "Solution to Exercise" not in html and "<details>" not in html, page.name
        assert not re.search(r"\{(eq|cite:p|numref|glue:text)\}`", html), page.name
        assert not re.search(r"(src|href)=\"(https?:)?//", html), "loads from another host"


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def base(site):
    handler = functools.partial(Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


def test_a_deck_opens_in_chromium(decks, base, tmp_path):
    from test_browser import open_page, requested_urls, start_browser

    browser = start_browser(tmp_path / "profile")
    try:
        open_page(browser, base + DECKS + "/08_ndcg.html")
        state = browser.execute_async_script(READY_JS)
        assert not state.get("timeout"), f"the deck did not get ready: {state}"
        assert state["slides"] >= 5
        assert state["math"] > 0 and state["errors"] == 0, state
        assert state["images"] and all(ok and width > 0 for ok, width in state["images"])
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
        index = browser.execute_async_script("""
            const done = arguments[arguments.length - 1], deadline = Date.now() + 10000;
            (function poll() {
              const h = Reveal.getIndices().h;
              if (h > 0 || Date.now() > deadline) done(h); else setTimeout(poll, 50);
            })();""")
        assert index == 1, "the arrow key did not move to the second slide"
        others = [u for u in requested_urls(browser)
                  if not u.startswith((base, "data:", "about:", "chrome:", "chrome-"))]
        assert not others, f"the deck asked another host for {others[:5]}"
    finally:
        browser.quit()


def test_the_slide_rule_is_tested_on_a_small_notebook():
    """One slide per ## section, the title slide first, the exercises listed, no solution."""
    import sys

    sys.path.insert(0, str(ROOT))
    from tools import slides  # noqa: PLC0415

    notebook = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# Title\n\nFirst paragraph.\n\nMore."},
        {"cell_type": "markdown", "metadata": {}, "source": "## One\n\nText one.\n\n$$\na = b\n$$"},
        {"cell_type": "markdown", "metadata": {},
         "source": "## Exercises\n\n**Exercise 1.1.** Do it.\n\n#### Solution to Exercise 1.1\n\nsecret"},
        {"cell_type": "markdown", "metadata": {}, "source": "## Further reading\n\nBooks."},
    ]}
    sections = slides.slide_sections(notebook)
    assert len(sections) == 3
    assert "<h1>Title</h1>" in sections[0] and "First paragraph." in sections[0]
    assert "Text one." in sections[1] and "\\[" in sections[1]
    assert "Exercise 1.1" in sections[2] and "secret" not in "".join(sections)
