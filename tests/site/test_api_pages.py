"""The API reference's pages in headless Chromium: names stay whole and are no links.

Each page of the API reference (reference/api*.html) is opened at the desktop width
(1300 px) and on the phone's (400 px), the widths of test_browser.py, once it is ready
(the document loaded, its web fonts and MathJax done: the checks measure the layout).
Then, in every table cell, no word is set on two lines: a name in inline code (a
measure, a function) never breaks anywhere, and a word of the text never breaks except
after a hyphen. A table that needs more room scrolls in its own box (test_browser.py
checks that the page itself never widens). And no link on these pages is an e-mail
address: docutils autolinks ``IPrec@0.1`` or ``P@1000`` in plain text as one
(_ext/api_docstrings.py turns such a link into inline code).

The browser and the local server are test_browser.py's (Debian's Chromium and
ChromeDriver; a missing browser or build is a skip locally and a failure in CI).
"""

from __future__ import annotations

import pytest
from test_browser import PHONE, READY_SECONDS, open_page, server, start_browser  # noqa: F401

# Wait until the page is laid out as a reader sees it, then list every word of a table
# cell that the browser set on more than one line (a Range's client rects on two lines),
# and every mailto link. Words are split at white space; outside code also after a
# hyphen (a hyphen is a place where prose may break; a name in code has none).
CHECK_JS = """
const done = arguments[arguments.length - 1];
const deadline = Date.now() + arguments[0] * 1000;
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  while (document.readyState !== 'complete') {
    if (Date.now() > deadline) { return {status: 'the document did not load'}; }
    await sleep(100);
  }
  if (document.querySelector('script[src*="mathjax"]')) {
    while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
      if (Date.now() > deadline) { return {status: 'MathJax did not start'}; }
      await sleep(100);
    }
    await MathJax.startup.promise;
  }
  await document.fonts.ready;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const broken = [];
  const cells = document.querySelectorAll(
    'article.bd-article table td, article.bd-article table th');
  for (const cell of cells) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const inCode = !!node.parentElement.closest('code, pre, kbd, samp');
      const words = inCode ? /\\S+/g : /[^\\s-]+-?/g;
      for (const m of node.data.matchAll(words)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()]
          .filter(r => r.width > 0 && r.height > 0)
          .map(r => Math.round(r.top)));
        if (lines.size > 1) { broken.push(m[0]); }
      }
    }
  }
  const mailto = [...document.querySelectorAll('a[href^="mailto:"]')]
    .map(a => a.textContent);
  return {status: 'ok', tables: document.querySelectorAll('article.bd-article table').length,
          broken: broken, mailto: mailto};
})().then(done, e => done({status: String(e)}));
"""


@pytest.fixture(scope="module")
def api_pages(pages) -> list[str]:
    found = [p for p in pages if p.startswith("reference/api")]
    assert "reference/api.html" in found and "reference/api_measures.html" in found, found
    return found


@pytest.fixture(scope="module")
def layouts(server, api_pages, tmp_path_factory) -> dict[tuple[str, str], dict]:  # noqa: F811
    """Each API page's check at 1300 px ("desktop") and at 400 px ("phone")."""
    base, _ = server
    browser = start_browser(tmp_path_factory.mktemp("chromium-profile"))
    found = {}
    try:
        for page in api_pages:
            open_page(browser, base + page)
            found[page, "desktop"] = browser.execute_async_script(CHECK_JS, READY_SECONDS)
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
            found[page, "phone"] = browser.execute_async_script(CHECK_JS, READY_SECONDS)
            browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            browser.get("about:blank")
    finally:
        browser.quit()
    return found


def test_every_api_page_was_checked(layouts):
    failed = {key: state["status"] for key, state in layouts.items() if state["status"] != "ok"}
    assert not failed, failed
    # the summaries are tables: a check that saw none would check nothing
    assert layouts["reference/api.html", "desktop"]["tables"] > 0


def test_no_table_cell_breaks_a_word(layouts):
    broken = {f"{page} ({width})": state["broken"] for (page, width), state in layouts.items()
              if state.get("broken")}
    assert not broken, f"words set on two lines in a table cell: {broken}"


def test_no_measure_name_is_an_email_link(layouts):
    links = {page: state["mailto"] for (page, _), state in layouts.items() if state.get("mailto")}
    assert not links, f"mailto links (docutils' e-mail autolinking): {links}"
