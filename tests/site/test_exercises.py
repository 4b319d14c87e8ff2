"""Solutions stay folded: in a real browser, no solution's text shows until its dropdown opens.

Every chapter page of the build is opened in headless Chromium (as tests/site/test_browser.py
does, with the same Chromium and ChromeDriver and no network). On each page the test waits,
with a timeout, until the page has loaded and sphinx-togglebutton has fitted every
solution with its button; then, for every solution (sphinx-exercise's
``div.solution``), it takes a piece of the solution's own text (its prose or its check
cell's output, a piece that occurs once on the page) and asserts that the piece is not in the text a reader sees
(``document.body.innerText``, which leaves out what is hidden) and that its element is
not displayed. It then clicks the solution's button, waits until the piece is displayed,
and asserts that the reader now sees it, then folds it again. The exercise itself must be visible throughout,
numbered "Exercise N.K" with its chapter's number.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading

import pytest
from _site import browser_paths, chapter_files, missing

TIMEOUT = 30  # seconds for any wait on the page

PROBES_JS = """
const probes = [];
const all = document.body.textContent.replace(/\\s+/g, ' ');
document.querySelectorAll('div.solution').forEach((solution, index) => {
  solution.setAttribute('data-test-solution', index);
  const body = solution.querySelector('section') || solution;
  const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  let node, found = null;
  while ((node = walker.nextNode())) {
    const text = node.textContent.replace(/\\s+/g, ' ').trim();
    const parent = node.parentElement;
    const piece = text.slice(0, 40);
    // a piece of text that occurs once on the whole page (folded parts included)
    if (text.length >= 16 && all.split(piece).length === 2 && !parent.closest(
          'mjx-container, script, style, .admonition-title, .MathJax, .math')) {
      parent.setAttribute('data-test-probe', index);
      found = piece;
      break;
    }
  }
  probes.push({index: index, probe: found,
               title: (solution.querySelector('.admonition-title') || {}).textContent});
});
return probes;
"""

READY_JS = """
if (document.readyState !== 'complete') { return false; }
const folded = document.querySelectorAll('div.solution.dropdown');
const buttons = document.querySelectorAll('div.solution.dropdown button.toggle-button');
return folded.length === buttons.length;
"""


def seen(driver) -> str:
    """The text a reader sees, whitespace collapsed (innerText leaves out hidden text)."""
    text = driver.execute_script("return document.body.innerText;")
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def base_url(site):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    paths = browser_paths()
    if paths is None:
        missing("Chromium and ChromeDriver are not installed (Debian: apt-get install "
                "chromium chromium-driver; or set CHROMIUM_BIN and CHROMEDRIVER_BIN)")
    chromium, chromedriver = paths
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager may not download anything
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    profile = tmp_path_factory.mktemp("chromium-exercises")
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-extensions",
                 "--disable-dev-shm-usage", "--no-first-run", "--window-size=1300,1000",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
                 f"--user-data-dir={profile}"]:  # fmt: skip
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    browser.set_page_load_timeout(60)
    browser.set_script_timeout(60)
    yield browser
    browser.quit()


@pytest.mark.parametrize("doc", chapter_files())
def test_solutions_are_hidden_until_their_dropdown_opens(doc, site, base_url, driver):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    chapter = int(re.search(r"chapters/(\d+)_", doc).group(1))
    driver.get(base_url + doc + ".html")
    WebDriverWait(driver, TIMEOUT).until(lambda d: d.execute_script(READY_JS),
                                         "the page or its toggle buttons never got ready")
    exercises = driver.find_elements(By.CSS_SELECTOR, "div.exercise")
    assert exercises, f"{doc}: no exercise"
    for k, exercise in enumerate(exercises, start=1):
        assert exercise.is_displayed()
        title = exercise.find_element(By.CSS_SELECTOR, ".admonition-title").text
        assert title.startswith(f"Exercise {chapter}.{k}"), title
    probes = driver.execute_script(PROBES_JS)
    assert len(probes) == len(exercises), f"{doc}: one solution per exercise"
    for item in probes:
        assert item["probe"], f"{doc}: solution {item['index']} has no text to look for"
        probe = item["probe"]
        element = driver.find_element(By.CSS_SELECTOR, f"[data-test-probe='{item['index']}']")
        assert not element.is_displayed(), f"{doc}: {probe!r} shows with its solution closed"
        assert probe not in seen(driver), f"{doc}: {probe!r} is visible before opening"
        solution = driver.find_element(
            By.CSS_SELECTOR, f"div.solution[data-test-solution='{item['index']}']")
        solution.find_element(By.CSS_SELECTOR, "button.toggle-button").click()
        WebDriverWait(driver, TIMEOUT).until(lambda d, e=element: e.is_displayed(),
                                             f"{doc}: {probe!r} did not show when opened")
        assert probe in seen(driver), f"{doc}: {probe!r} not visible after opening"
        solution.find_element(By.CSS_SELECTOR, "button.toggle-button").click()  # fold again
        WebDriverWait(driver, TIMEOUT).until(lambda d, e=element: not e.is_displayed(),
                                             f"{doc}: {probe!r} did not fold again")
