"""The website in a real browser: every page of _build/html, opened in headless Chromium.

A local HTTP server (a thread of this process) serves the build on 127.0.0.1; Chromium,
driven by Selenium through Debian's ChromeDriver, opens each page once, 1300 px wide,
opens every dropdown (exercise solutions, hidden code cells: every <details> and every
sphinx-togglebutton admonition) and records what a reader would meet. The tests below
then check, for every page: no JavaScript error in the console, every formula typeset by
MathJax (folded-out solutions included), every image loaded, every same-site link
answered, no request to any other host, no output, code block or display formula wider
than the content column at 1300 px, one search field on a desktop page, and on a 400 px
phone screen: no sideways scrolling of the page, display formulas that scroll inside
their own box, and no table taller than three screens. The search page must find the
nDCG chapter.

Each page is checked once it is ready, not after a fixed pause: the page script waits
for MathJax to define and resolve MathJax.startup.promise and for sphinx-togglebutton to
make every toggle button, each up to READY_SECONDS, and then fails with a message naming
the page, the step and the time waited; a page that was not ready is loaded once more,
and a page load that times out is tried again. So a busy machine makes the run slower,
not red.
Three screenshots go to _build/screenshots/; with UPDATE_SCREENSHOTS=1 they are also copied
to screenshots/, the committed ones the README shows (so a plain check leaves git clean).

Nothing is downloaded: the browser and its driver are named explicitly, so Selenium
Manager never runs (and SE_OFFLINE=true forbids it to fetch anything if it did).
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import unquote, urldefrag, urlsplit

import pytest
from _site import ROOT, browser_paths, missing, redirects

SHOTS = ROOT / "_build" / "screenshots"
SCREENSHOTS = {
    "index.html": ("landing.png", None),
    "chapters/08_ndcg.html": ("chapter_ndcg.png", "section section h2"),
    "reference/api.html": ("api.png", "dt[id='rankeval.precision_at_k']"),
}
WINDOW = (1300, 1000)
# The phone: a 400 px wide layout viewport (CSS pixels), the width a phone's browser lays
# the page out in (the theme's viewport tag says width=device-width). Not Chrome's
# "mobile" emulation: that zooms out until a too-wide page fits, so window.innerWidth
# grows with the page and an overflow could never be seen.
PHONE = {"width": 400, "height": 800, "deviceScaleFactor": 1, "mobile": False}
# Blocks that must fit the content column at 1300 px: outputs (text and HTML tables),
# code, and every table. "Fit" means: not wider than the column, and not scrolling inside.
WIDE_BLOCKS = ", ".join([
    "div.cell_output pre", "div.cell_output .output.text_html", "div.highlight pre",
    "article.bd-article table",
])

# TeX that must not survive typesetting, searched in the page text outside code.
RAW_TEX = re.compile(r"\$\$|\\frac|\\sum|\\begin\{|\\\(|\\\[|\\mathrm|\\text\{")

# How long a page may take to become ready (MathJax typeset, dropdowns made): far more than
# it needs on an idle machine, so that a busy one (CI runs these tests beside the unit
# tests) is slow, not failing. A page not ready by then is loaded once more (visit below).
READY_SECONDS = 90
PAGE_LOAD_SECONDS = 120  # Selenium's page-load timeout; a timed-out load is retried too

# Every step waits for the state it needs and, at the deadline, says which page was not
# ready, what was missing and how long it waited: a busy machine gives a slow test, and a
# broken page a message that names the cause, never a guess made too early.
PAGE_STATE_JS = """
const done = arguments[arguments.length - 1];
const wideSelector = arguments[0];
const deadline = Date.now() + arguments[1] * 1000;
const started = Date.now();
const page = location.pathname;
const sleep = ms => new Promise(r => setTimeout(r, ms));
class NotReady extends Error {}
// Poll until test() is true; at the deadline fail with the page, the step, the wait.
async function waitFor(what, test) {
  for (;;) {
    let ok = false;
    try { ok = test(); } catch (e) { ok = false; }
    if (ok) { return ok; }
    if (Date.now() > deadline) {
      throw new NotReady(`${page}: ${what} was not ready after `
                         + `${Math.round((Date.now() - started) / 1000)} s`);
    }
    await sleep(100);
  }
}
// A promise with the same deadline.
function inTime(what, promise) {
  return Promise.race([promise, new Promise((_, reject) => setTimeout(
    () => reject(new NotReady(`${page}: ${what} did not settle after `
                              + `${Math.round((Date.now() - started) / 1000)} s`)),
    Math.max(0, deadline - Date.now())))]);
}
const settle = async () => {
  await waitFor('the document (readyState "complete")', () => document.readyState === 'complete');
  // MathJax: a page that loads it (Sphinx adds the script only where there is math) waits
  // until MathJax has defined MathJax.startup.promise, then until that promise resolves:
  // the page's math is typeset. Before the script has run, window.MathJax may be absent
  // or a plain configuration object without startup.promise.
  const loadsMathJax = !!document.querySelector('script[src*="mathjax"]');
  if (loadsMathJax) {
    await waitFor('MathJax (MathJax.startup.promise defined)',
                  () => window.MathJax && MathJax.startup && MathJax.startup.promise);
    try {
      await inTime('MathJax.startup.promise (typesetting)', MathJax.startup.promise);
    } catch (e) {
      if (e instanceof NotReady) { throw e; }
      return `${page}: MathJax failed: ${e}`;
    }
  }
  // Fold out every dropdown (solutions, hidden inputs). MathJax has typeset their math
  // with the rest of the page, folded or not, as a reader's browser does; typesetting the
  // page again here would not be what a reader gets (and would typeset MathJax's own
  // assistive MathML a second time), so math it left bare is reported, not retried.
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  // sphinx-togglebutton: its script gives every element of togglebuttonSelector a button
  // (an admonition: button.toggle-button in its title) or wraps it in a <details>.
  // Wait until it has done so for every one of them, then press each button.
  if (typeof togglebuttonSelector === 'string') {
    const made = el => el.classList.contains('admonition')
      ? !!el.querySelector(':scope > .admonition-title button.toggle-button')
      : !!el.closest('details.toggle-details');
    await waitFor('sphinx-togglebutton (a toggle button for every dropdown)', () =>
      [...document.querySelectorAll(togglebuttonSelector)].every(made));
    document.querySelectorAll('details').forEach(d => { d.open = true; });
    document.querySelectorAll('.toggle-hidden').forEach(el => {
      el.querySelector(':scope > .admonition-title button.toggle-button').click();
    });
    await waitFor('the opened dropdowns (no .toggle-hidden left)',
                  () => !document.querySelector('.toggle-hidden'));
  }
  await inTime('the web fonts (document.fonts.ready)', document.fonts.ready);
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (const img of document.images) { img.loading = 'eager'; }
  const t0 = Date.now();
  while ([...document.images].some(i => !i.complete) && Date.now() - t0 < 15000) {
    await sleep(100);
  }
  return 'ok';
};
settle().catch(e => e instanceof NotReady ? e.message : `${page}: ${e}`).then(status => {
  const math = [...document.querySelectorAll('.math')];
  const bare = math.filter(m => !m.querySelector('mjx-container'));
  const text = document.body.cloneNode(true);
  text.querySelectorAll('pre, code, script, style, textarea, mjx-container, .highlight')
      .forEach(n => n.remove());
  done({
    status: status,
    mathjax: !!(window.MathJax && MathJax.version),
    mathjaxVersion: (window.MathJax && MathJax.version) || null,
    mathElements: math.length,
    containers: document.querySelectorAll('mjx-container').length,
    untypeset: bare.slice(0, 5).map(m => m.textContent.slice(0, 80)),
    mathjaxErrors: [...document.querySelectorAll('mjx-merror, [data-mjx-error]')]
        .map(e => e.getAttribute('data-mjx-error') || e.textContent).slice(0, 5),
    text: text.textContent,
    images: [...document.images].map(i => ({src: i.currentSrc || i.src,
                                            ok: i.complete && i.naturalWidth > 0})),
    links: [...document.querySelectorAll('a[href]')].map(a => a.href),
    dropdowns: document.querySelectorAll('details, .toggle').length,
    closedDropdowns: document.querySelectorAll('details:not([open]), .toggle-hidden').length,
    tooWide: tooWide(),
    wideMath: displayMath().filter(m => m.content > m.box + 1 || m.right > m.column + 1),
    searchFields: searchFields(),
  });
});
// Output, code and table blocks that stick out of the content column or scroll inside it.
function tooWide() {
  const column = document.querySelector('article.bd-article');
  if (!column) { return []; }
  const right = column.getBoundingClientRect().right;
  const found = [];
  for (const el of document.querySelectorAll(wideSelector)) {
    const box = el.getBoundingClientRect();
    if (box.width === 0) { continue; }
    const sticksOut = box.right > right + 1;
    const scrolls = el.scrollWidth > el.clientWidth + 1;
    if (sticksOut || scrolls) {
      const cell = el.closest('.cell');
      const where = cell ? [...document.querySelectorAll('.cell')].indexOf(cell) : -1;
      found.push({what: el.tagName.toLowerCase() + '.' + (el.className || '').split(' ')[0],
                  cell: where, width: Math.round(Math.max(box.width, el.scrollWidth)),
                  column: Math.round(column.clientWidth),
                  text: (el.textContent || '').trim().slice(0, 60)});
    }
  }
  return found;
}
// Visible search fields: the theme can show one in the header and one in the sidebar.
function searchFields() {
  return [...document.querySelectorAll('.search-button-field, form.bd-search input')]
    .filter(el => !el.closest('dialog:not([open])'))
    .filter(el => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
                    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden'; })
    .map(el => (el.closest('[class*="sidebar"], header, nav') || el).className.split(' ')[0]);
}
"""

# Display math (each <div class="math">, with MathJax's container inside): its TeX source,
# number, the width of the typeset formula ("content"), the width of its box, and where
# the box ends against the content column and the screen. Shared by both page scripts.
DISPLAY_MATH_JS = """
function displayMath() {
  const column = document.querySelector('article.bd-article');
  const columnRight = column ? column.getBoundingClientRect().right : innerWidth;
  const tex = new Map();
  try {
    for (const item of MathJax.startup.document.math) { tex.set(item.typesetRoot, item.math); }
  } catch (e) { /* no MathJax: the formula check reports that */ }
  const found = [];
  for (const block of document.querySelectorAll('div.math')) {
    const c = block.querySelector('mjx-container');
    if (!c || c.getBoundingClientRect().width === 0) { continue; }
    const box = c.getBoundingClientRect();
    const number = block.querySelector('.eqno');
    found.push({
      id: block.id || '', number: number ? number.textContent.replace('#', '').trim() : '',
      tex: (tex.get(c) || '').trim().replace(/\\s+/g, ' ').slice(0, 70),
      content: Math.round(c.scrollWidth), box: Math.round(c.clientWidth),
      right: Math.round(Math.max(box.right, block.getBoundingClientRect().right)),
      column: Math.round(columnRight), screen: document.documentElement.clientWidth,
      overflowX: getComputedStyle(c).overflowX,
    });
  }
  return found;
}
"""
PAGE_STATE_JS += DISPLAY_MATH_JS

# The same page on the phone, once the narrower viewport is in force and laid out: the page
# must not scroll sideways; a display formula wider than the screen must scroll inside its
# own box (overflow-x: auto, _static/book.css), and no table may be taller than three
# screens (a table squeezed into 400 px shows one character per line).
PHONE_JS = """
const done = arguments[arguments.length - 1];
const deadline = Date.now() + arguments[0] * 1000;
const wanted = arguments[1];
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  while (window.innerWidth !== wanted && Date.now() < deadline) { await sleep(50); }
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const width = document.documentElement.clientWidth;  // without a scrollbar, if any
  const page = document.documentElement.scrollWidth;
  const culprits = [];
  if (page > width) {
    for (const el of document.body.querySelectorAll('*')) {
      const box = el.getBoundingClientRect();
      if (box.right > width + 1 && box.width > 0 && getComputedStyle(el).position !== 'fixed'
          && ![...el.children].some(c => c.getBoundingClientRect().right > width + 1)) {
        culprits.push(el.tagName.toLowerCase() + '.' + (el.className || '').toString()
                      .split(' ')[0] + ': ' + (el.textContent || '').trim().slice(0, 50));
        if (culprits.length >= 5) { break; }
      }
    }
  }
  const math = displayMath().filter(m => m.right > m.screen + 1
    || (m.content > m.box + 1 && !['auto', 'scroll'].includes(m.overflowX)));
  const tallTables = [...document.querySelectorAll('article.bd-article table')]
    .map(t => ({height: Math.round(t.getBoundingClientRect().height),
                text: (t.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 60)}))
    .filter(t => t.height > 3 * window.innerHeight);
  done({width: width, viewport: window.innerWidth, height: window.innerHeight, page: page,
        culprits: culprits, math: math, tallTables: tallTables});
})();
""" + DISPLAY_MATH_JS


@dataclass
class Visit:
    page: str
    console: list[dict] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    state: dict = field(default_factory=dict)
    phone: dict = field(default_factory=dict)


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the build quietly and records the status of every request."""

    log: list[tuple[str, int]]

    def log_request(self, code="-", size="-"):
        self.log.append((self.path, int(code) if str(code).isdigit() else 0))

    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="session")
def server(site):
    log: list[tuple[str, int]] = []
    handler = functools.partial(
        type("BookHandler", (Handler,), {"log": log}), directory=str(site)
    )
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    yield base, log
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


def start_browser(profile):
    """Headless Chromium driven by Selenium through Debian's ChromeDriver (skips if absent)."""
    paths = browser_paths()
    if paths is None:
        missing(
            "Chromium and ChromeDriver are not installed "
            "(Debian: apt-get install chromium chromium-driver; "
            "or set CHROMIUM_BIN and CHROMEDRIVER_BIN)"
        )
    chromium, chromedriver = paths
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager may not download anything
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--lang=en-US",
        # One local site: site isolation would start a new renderer process at every
        # navigation (page -> about:blank -> next page), and the back-forward cache would
        # keep each left page alive; background services have nothing to do offline.
        # None of this changes a page's layout, scripts or requests.
        "--disable-site-isolation-trials",
        "--disable-features=site-per-process,IsolateOrigins,BackForwardCache,Translate,"
        "OptimizationHints,MediaRouter",
        # No name resolves except the loopback server: a request for another host
        # fails at once (and is still recorded by the performance log below).
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--user-data-dir={profile}",
    ]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(executable_path=chromedriver)
    browser = webdriver.Chrome(service=service, options=options)
    browser.set_page_load_timeout(PAGE_LOAD_SECONDS)
    # the page scripts end at their own deadline (READY_SECONDS) with a message; this
    # limit is only the last resort
    browser.set_script_timeout(READY_SECONDS + 60)
    return browser


@pytest.fixture(scope="session")
def driver(tmp_path_factory):
    browser = start_browser(tmp_path_factory.mktemp("chromium-profile"))
    yield browser
    browser.quit()


@pytest.fixture(scope="session")
def second_driver(tmp_path_factory):
    """A second browser: the pages are shared between two, one per core."""
    browser = start_browser(tmp_path_factory.mktemp("chromium-profile"))
    yield browser
    browser.quit()


def requested_urls(browser) -> list[str]:
    """URLs the page asked for since the last call, from Chrome's performance log."""
    import json

    urls = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def open_page(driver, url: str, tries: int = 3) -> None:
    """driver.get, tried again when the load times out (a busy machine can keep Chromium's
    renderer from answering in time); after the last try a failure that says so."""
    from selenium.common.exceptions import TimeoutException

    waited = []
    for _ in range(tries):
        t0 = time.monotonic()
        try:
            driver.get(url)
            return
        except TimeoutException as err:
            waited.append(f"{time.monotonic() - t0:.0f} s ({str(err.msg).strip()[:80]})")
            try:
                driver.execute_script("window.stop();")
            except Exception:  # noqa: BLE001 - the next try or the failure below tells
                pass
    pytest.fail(f"{url}: the page did not load in {tries} tries, each with a "
                f"{PAGE_LOAD_SECONDS} s limit: " + "; ".join(waited), pytrace=False)


def page_state(driver, base: str, page: str) -> dict:
    """Open the page and wait until it is ready (PAGE_STATE_JS); a page that was not ready
    by the deadline is loaded once more, and its state then is what the tests see (with
    the first attempt's message, if it fails again)."""
    first = None
    for _ in range(2):
        open_page(driver, base + page)
        state = driver.execute_async_script(PAGE_STATE_JS, WIDE_BLOCKS, READY_SECONDS)
        if state["status"] == "ok":
            return state
        first = first or state["status"]
        driver.get("about:blank")
    state["status"] = f"{state['status']} (and before, on the first load: {first})"
    return state


def visit(driver, base: str, page: str) -> Visit:
    """Open one page as a reader would; record what the checks need; take its screenshot."""
    driver.get_log("browser"), requested_urls(driver)  # drop what came before
    result = Visit(page)
    result.state = page_state(driver, base, page)
    if page in SCREENSHOTS:
        name, selector = SCREENSHOTS[page]
        if selector:
            driver.execute_script(
                "const e = document.querySelector(arguments[0]);"
                "if (e) { e.scrollIntoView({block: 'start'}); window.scrollBy(0, -70); }",
                selector,
            )
            time.sleep(0.3)
        driver.save_screenshot(str(SHOTS / name))
        if os.environ.get("UPDATE_SCREENSHOTS") == "1":
            shutil.copy(SHOTS / name, ROOT / "screenshots" / name)
    # the same page on a phone: the viewport narrows, the page is laid out again
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    result.phone = driver.execute_async_script(PHONE_JS, READY_SECONDS, PHONE["width"])
    result.console = driver.get_log("browser")
    result.requests = requested_urls(driver)
    # back to the desktop width on an empty page: laying the book page out again at
    # 1300 px would cost as much as loading it
    driver.get("about:blank")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return result


@pytest.fixture(scope="session")
def visits(server, driver, second_driver, pages) -> dict[str, Visit]:
    """Open every page once, the pages shared between two browsers (one per core)."""
    from concurrent.futures import ThreadPoolExecutor

    base, _ = server
    SHOTS.mkdir(parents=True, exist_ok=True)

    def walk(browser, share):
        return [visit(browser, base, page) for page in share]

    with ThreadPoolExecutor(max_workers=2) as pool:
        shares = [pool.submit(walk, driver, pages[0::2]),
                  pool.submit(walk, second_driver, pages[1::2])]
        return {v.page: v for share in shares for v in share.result()}


def test_every_page_was_visited(visits, pages):
    """Every page was opened and became ready (MathJax done, dropdowns made) in time."""
    assert set(visits) == set(pages)
    not_ready = [v.state["status"] for v in visits.values() if v.state["status"] != "ok"]
    assert not not_ready, "pages not ready in time:\n" + "\n".join(not_ready)


def not_ready(v: Visit) -> str:
    """For a failure message: why a page's checks may have seen an unfinished page."""
    status = v.state["status"]
    return "" if status == "ok" else f" (the page was not ready: {status})"


def test_no_javascript_errors(visits):
    errors = [
        f"{v.page}: {e['message']}"
        for v in visits.values()
        for e in v.console
        if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]
    ]
    assert not errors, "console errors:\n" + "\n".join(errors)


def test_every_formula_is_typeset(visits):
    problems = []
    for v in visits.values():
        s = v.state
        if s["mathElements"] and not s["mathjax"]:
            problems.append(f"{v.page}: {s['mathElements']} formulas but MathJax did not "
                            f"load{not_ready(v)}")
        if s["untypeset"] or s["containers"] < s["mathElements"]:
            problems.append(f"{v.page}: formulas left as TeX: {s['untypeset']}{not_ready(v)}")
        if s["mathjaxErrors"]:
            problems.append(f"{v.page}: MathJax errors: {s['mathjaxErrors']}")
        for match in RAW_TEX.finditer(s["text"]):
            snippet = s["text"][max(0, match.start() - 40) : match.end() + 40]
            problems.append(f"{v.page}: raw TeX in the text: {snippet!r}")
            break
    assert not problems, "\n".join(problems)


def test_every_dropdown_was_opened(visits):
    """The math check above saw folded-out solutions too: every dropdown was open (a
    <details>, as sphinx-design and myst-nb's hidden cells make them, or a
    sphinx-togglebutton admonition)."""
    closed = [f"{v.page}: {v.state['closedDropdowns']}{not_ready(v)}" for v in visits.values()
              if v.state["closedDropdowns"]]
    assert not closed, "dropdowns left closed:\n" + "\n".join(closed)
    assert sum(v.state["dropdowns"] for v in visits.values()) > 0, "no dropdown on any page"


def test_outputs_and_code_fit_the_content_column(visits):
    """At 1300 px no output, code block or table is wider than the content column."""
    problems = [
        f"{v.page}: cell {b['cell']}, {b['what']} is {b['width']} px in a "
        f"{b['column']} px column: {b['text']!r}"
        for v in visits.values() for b in v.state["tooWide"]
    ]
    assert not problems, (f"{len(problems)} blocks wider than the content column at "
                          f"{WINDOW[0]} px:\n" + "\n".join(problems))


def test_no_page_scrolls_sideways_on_a_phone(visits):
    """At 400 px the page itself never overflows (a block may scroll inside its own box)."""
    problems = [
        f"{v.page}: {v.phone['page']} px wide at {v.phone['width']} px; "
        f"sticking out: {v.phone['culprits']}"
        for v in visits.values()
        if v.phone["page"] > v.phone["width"] or v.phone["viewport"] != PHONE["width"]
    ]
    assert not problems, "pages wider than a phone screen:\n" + "\n".join(problems)


def describe(m: dict) -> str:
    number = f"{m['number']} " if m["number"] else ""
    return f"{number}#{m['id'] or '-'} {m['tex']!r}"


def test_display_math_fits_the_content_column(visits):
    """At 1300 px every display formula fits its line in the content column: none is cut
    off or left to scroll (a long formula is set over several aligned lines)."""
    problems = [
        f"{v.page}: {describe(m)} is {m['content']} px in a {m['box']} px box "
        f"(ends at {m['right']}, the column at {m['column']})"
        for v in visits.values() for m in v.state["wideMath"]
    ]
    assert not problems, (f"{len(problems)} display formulas wider than the content column "
                          f"at {WINDOW[0]} px:\n" + "\n".join(problems))


def test_display_math_scrolls_in_its_own_box_on_a_phone(visits):
    """At 400 px a formula wider than the screen scrolls inside its own box (overflow-x:
    auto), which ends inside the screen: it neither widens the page nor is cut off."""
    problems = [
        f"{v.page}: {describe(m)}: {m['content']} px of formula in a {m['box']} px box "
        f"with overflow-x {m['overflowX']}, ending at {m['right']} on a {m['screen']} px screen"
        for v in visits.values() for m in v.phone["math"]
    ]
    assert not problems, "display formulas cut off on a phone:\n" + "\n".join(problems)


def test_no_table_is_taller_than_three_screens_on_a_phone(visits):
    """At 400 px a table keeps its shape (it may scroll sideways inside its box): a table
    squeezed to the screen's width sets a few characters per line and grows very tall."""
    problems = [
        f"{v.page}: a table {t['height']} px tall ({t['height'] / v.phone['height']:.1f} "
        f"screens of {v.phone['height']} px): {t['text']!r}"
        for v in visits.values() for t in v.phone["tallTables"]
    ]
    assert not problems, "tables taller than three phone screens:\n" + "\n".join(problems)


def test_one_search_field_on_a_desktop_page(visits):
    """At 1300 px a page shows one search field, not one in the header and one in the
    sidebar (pydata-sphinx-theme's header field is switched off in _config.yml)."""
    problems = [f"{v.page}: {len(v.state['searchFields'])} search fields: "
                f"{v.state['searchFields']}"
                for v in visits.values()
                if v.page != "search.html" and len(v.state["searchFields"]) != 1]
    assert not problems, "\n".join(problems)


def test_math_pages_use_mathjax_3(visits):
    chapter = visits["chapters/08_ndcg.html"].state
    assert chapter["mathElements"] > 0, "the nDCG chapter shows no formula"
    assert chapter["mathjaxVersion"] and chapter["mathjaxVersion"].startswith("3."), chapter


def test_every_image_loads(visits):
    broken = [f"{v.page}: {i['src']}" for v in visits.values() for i in v.state["images"]
              if not i["ok"]]
    assert not broken, "images that did not load:\n" + "\n".join(broken)


def test_no_request_leaves_the_machine(visits, server):
    base, _ = server
    outside = [
        f"{v.page}: {url}"
        for v in visits.values()
        for url in v.requests
        # chrome://, data:, blob: and the like never leave the browser
        if urlsplit(url).scheme in ("http", "https", "ws", "wss", "ftp") and not url.startswith(base)
    ]
    assert not outside, "requests to other hosts:\n" + "\n".join(outside)


def test_no_request_to_the_site_failed(visits, server):
    _, log = server
    failed = sorted({f"{code} {path}" for path, code in log
                     if code >= 400 and not path.startswith("/favicon.ico")})
    assert not failed, "the local server answered with errors:\n" + "\n".join(failed)


@functools.cache
def ids_of(url: str) -> set[str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        html = response.read().decode("utf-8", errors="replace")
    return set(re.findall(r'\b(?:id|name)="([^"]+)"', html))


def test_every_same_site_link_resolves(visits, server):
    base, _ = server
    links: dict[str, set[str]] = {}
    for v in visits.values():
        for href in v.state["links"]:
            if href.startswith(base):
                links.setdefault(href, set()).add(v.page)
    assert links
    broken = []
    for href, where in sorted(links.items()):
        url, fragment = urldefrag(href)
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                ok = response.status == 200
        except urllib.error.HTTPError as err:
            ok = False
            broken.append(f"{err.code} {href} (from {sorted(where)[0]})")
        if ok and fragment and url.endswith(".html"):
            if unquote(fragment) not in ids_of(url):
                broken.append(f"no anchor #{fragment} in {url} (from {sorted(where)[0]})")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_search_finds_the_ndcg_chapter(server, driver):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, _ = server
    open_page(driver, base + "search.html?q=nDCG")
    summary = WebDriverWait(driver, READY_SECONDS).until(
        lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, "#search-results .search-summary")
                   if "finished" in e.text.lower()],
        message=f"search.html?q=nDCG: no finished search after {READY_SECONDS} s",
    )
    results = driver.find_elements(By.CSS_SELECTOR, "#search-results li a")
    assert results, summary[0].text
    hrefs = [a.get_attribute("href") for a in results]
    assert any(urlsplit(h).path.endswith("/chapters/08_ndcg.html") for h in hrefs), hrefs


@pytest.mark.parametrize(
    "old_page, fragment, new_fragment",
    [
        ("07_ndcg", "which-ideal-list", "which-ideal-list"),  # a section keeps its id
        ("07_ndcg", "fig-ch07-cg", "fig-ch08-cg"),  # a figure's carries the number
        ("05b_pr_curves", "fig-ch5b-pr", "fig-ch06-pr"),  # (this chapter's labels: ch5b)
    ],
)
def test_an_old_address_opens_the_moved_page_at_the_same_place(
    server, driver, old_page, fragment, new_fragment
):
    """A link to a chapter's address from before the files took their chapter numbers,
    with a #fragment, lands on the same section or figure of the chapter's new page."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    base, _ = server
    old, new = next((o, n) for o, n in redirects().items() if o.endswith(old_page))
    target = f"{old.rsplit('/', 1)[0]}/{new}"
    assert new_fragment in ids_of(base + target)
    open_page(driver, f"{base}{old}.html#{fragment}")
    expected = f"{base}{target}#{new_fragment}"
    try:
        WebDriverWait(driver, READY_SECONDS).until(lambda d: d.current_url == expected)
    except TimeoutException:
        pass  # the assertion below shows where the browser landed instead
    landed = driver.current_url
    driver.get("about:blank")
    assert landed == expected


def test_screenshots_were_taken(visits):
    for name, _ in SCREENSHOTS.values():
        shot = SHOTS / name
        assert shot.is_file() and shot.stat().st_size > 10_000, shot
