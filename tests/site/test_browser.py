"""The website in a real browser: every page of _build/html, opened in headless Chromium.

A local HTTP server (a thread of this process) serves the build on 127.0.0.1; Chromium,
driven by Selenium through Debian's ChromeDriver, opens each page once, 1300 px wide,
opens every dropdown (exercise solutions, hidden code cells: every <details> and every
sphinx-togglebutton admonition) and records what a reader would meet. The tests below
then check, for every page: no JavaScript error in the console, every formula typeset by
MathJax (folded-out solutions included), every image loaded, every same-site link
answered, no request to any other host, no output or code block wider than the content
column at 1300 px, and no sideways scrolling of the page on a 400 px phone screen. The search page must find the nDCG chapter.
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

PAGE_STATE_JS = """
const done = arguments[arguments.length - 1];
const wideSelector = arguments[0];
const settle = async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    try { await MathJax.startup.promise; } catch (e) { return 'MathJax failed: ' + e; }
  }
  // Fold out every dropdown (solutions, hidden inputs). MathJax has typeset their math
  // with the rest of the page, folded or not, as a reader's browser does; typesetting the
  // page again here would not be what a reader gets (and would typeset MathJax's own
  // assistive MathML a second time), so math it left bare is reported, not retried.
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  // sphinx-togglebutton's dropdowns (an admonition with the class "dropdown"): its button
  document.querySelectorAll('.toggle-hidden').forEach(el => {
    const button = el.querySelector('button.toggle-button');
    if (button) { button.click(); }
  });
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (const img of document.images) { img.loading = 'eager'; }
  const t0 = Date.now();
  while ([...document.images].some(i => !i.complete) && Date.now() - t0 < 15000) {
    await new Promise(r => setTimeout(r, 100));
  }
  return 'ok';
};
settle().then(status => {
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
"""

PHONE_JS = """
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => {
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
  done({width: width, viewport: window.innerWidth, page: page, culprits: culprits});
}));
"""


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
    browser.set_page_load_timeout(60)
    browser.set_script_timeout(60)
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


def visit(driver, base: str, page: str) -> Visit:
    """Open one page as a reader would; record what the checks need; take its screenshot."""
    driver.get_log("browser"), requested_urls(driver)  # drop what came before
    driver.get(base + page)
    result = Visit(page)
    result.state = driver.execute_async_script(PAGE_STATE_JS, WIDE_BLOCKS)
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
    result.phone = driver.execute_async_script(PHONE_JS)
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
    assert set(visits) == set(pages)
    assert all(v.state["status"] == "ok" for v in visits.values()), {
        p: v.state["status"] for p, v in visits.items() if v.state["status"] != "ok"
    }


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
            problems.append(f"{v.page}: {s['mathElements']} formulas but MathJax did not load")
        if s["untypeset"] or s["containers"] < s["mathElements"]:
            problems.append(f"{v.page}: formulas left as TeX: {s['untypeset']}")
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
    closed = {v.page: v.state["closedDropdowns"] for v in visits.values()
              if v.state["closedDropdowns"]}
    assert not closed, f"dropdowns left closed: {closed}"
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
    driver.get(base + "search.html?q=nDCG")
    summary = WebDriverWait(driver, 60).until(
        lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, "#search-results .search-summary")
                   if "finished" in e.text.lower()]
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
    driver.get(f"{base}{old}.html#{fragment}")
    expected = f"{base}{target}#{new_fragment}"
    try:
        WebDriverWait(driver, 30).until(lambda d: d.current_url == expected)
    except TimeoutException:
        pass  # the assertion below shows where the browser landed instead
    landed = driver.current_url
    driver.get("about:blank")
    assert landed == expected


def test_screenshots_were_taken(visits):
    for name, _ in SCREENSHOTS.values():
        shot = SHOTS / name
        assert shot.is_file() and shot.stat().st_size > 10_000, shot
