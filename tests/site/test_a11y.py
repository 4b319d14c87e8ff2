"""Accessibility: every page of the website audited by axe-core, in light and dark mode,
and the page used with the keyboard alone. The bar is WCAG 2.1 AA.

The audit: headless Chromium (the same browser, server and readiness waits as
test_browser.py) opens every page of _build/html twice, once with the reader's system
set to light and once to dark (the theme follows `prefers-color-scheme`, since
_config.yml sets `default_mode: auto`), folds out every dropdown as test_browser.py does,
and runs axe-core (`tasks.py setup` installs the pinned version from the npm registry)
with its default rules: WCAG 2.0/2.1 A and AA and axe's best practices. A critical or
serious violation fails the test with the page, the rule and each node. Moderate and
minor violations are printed with their counts, which may not grow past the baseline
stored in a11y_baseline.json, which says why each is there (a count that shrinks is
reported, so that the baseline can be lowered).

The keyboard, on a few pages of each kind (KEYBOARD_PAGES), in light and dark mode: from
the top of a page, Tab reaches the "Skip to main content" link first,
and Enter moves the focus to the page's content; every element Tab reaches shows where
the focus is (an outline or a ring); the exercise solutions' dropdowns, the search
and the light/dark switcher are reached with Tab and work with Enter and Space.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from _site import AXE_VERSION, ROOT, axe_path, missing
from test_browser import READY_SECONDS, open_page, page_state, server, start_browser

__all__ = ["server"]  # the local HTTP server fixture of test_browser.py, used here too

BASELINE = Path(__file__).with_name("a11y_baseline.json")
REPORT = ROOT / "_build" / "a11y" / "axe.json"  # every violation axe found, all impacts
MODES = ("light", "dark")
FAILING = ("critical", "serious")
# one axe run on one page: far more than it needs on an idle machine, and less than the
# browser's own script limit (READY_SECONDS + 60 s), so that the message names the page
AXE_SECONDS = READY_SECONDS + 30

# Runs axe on the page as it is (dropdowns open) and returns its violations, each node
# with its CSS selector, its HTML and axe's summary of what is wrong; or a message that
# names the page and says that axe did not finish in time.
AXE_JS = """
const done = arguments[arguments.length - 1];
const seconds = arguments[0];
const page = location.pathname;
const deadline = Date.now() + seconds * 1000;
const sleep = ms => new Promise(r => setTimeout(r, ms));
// Colours are measured as shown: first every finite CSS transition or animation (a
// dropdown fading in as it opens) must have ended.
async function still() {
  const moving = () => document.getAnimations().filter(a => a.playState === 'running'
    && a.effect && a.effect.getComputedTiming().endTime !== Infinity);
  while (moving().length) {
    if (Date.now() > deadline) {
      throw new Error(`${page}: ${moving().length} CSS animations still running after `
                      + `${seconds} s`);
    }
    await sleep(50);
  }
}
const timeout = new Promise((_, reject) => setTimeout(
  () => reject(new Error(`${page}: axe did not finish in ${seconds} s`)), seconds * 1000));
Promise.race([still().then(() => axe.run(document, {resultTypes: ['violations']})),
              timeout]).then(r => done({
  status: 'ok', version: axe.version, theme: document.documentElement.dataset.theme || '',
  violations: r.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160),
                              summary: (n.failureSummary || '').slice(0, 300)})),
  })),
}), e => done({status: String(e.message || e)}));
"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    path = axe_path()
    if path is None:
        missing(f"axe-core is not installed: run `python3 tasks.py setup` (npm install of "
                f"axe-core@{AXE_VERSION} into .venv/axe), or set AXE_CORE_JS")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def browsers(tmp_path_factory):
    """Two browsers of this module's own (the pages are shared between them)."""
    pair = [start_browser(tmp_path_factory.mktemp("a11y-profile")) for _ in range(2)]
    yield pair
    for browser in pair:
        browser.quit()


def audit(driver, base: str, page: str, mode: str, source: str) -> dict:
    """Open the page with the system's colour scheme set to `mode`, wait until it is ready
    (test_browser.page_state: loaded, typeset, every dropdown open) and run axe on it."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": mode}]})
    state = page_state(driver, base, page)
    if state["status"] != "ok":
        return {"status": state["status"], "violations": []}
    driver.execute_script(source)
    result = driver.execute_async_script(AXE_JS, AXE_SECONDS)
    if result["status"] == "ok" and result["theme"] != mode:
        result["status"] = (f"{page}: the page shows the {result['theme'] or 'default'} "
                            f"theme, not {mode}, with the system set to {mode}")
    driver.get("about:blank")
    return result


@pytest.fixture(scope="module")
def audits(server, browsers, pages, axe_source) -> dict[tuple[str, str], dict]:
    """(mode, page) -> axe's result, for every page in light and dark mode."""
    from concurrent.futures import ThreadPoolExecutor

    base, _ = server
    jobs = [(mode, page) for mode in MODES for page in pages]

    def walk(driver, share):
        return [((m, p), audit(driver, base, p, m, axe_source)) for m, p in share]

    with ThreadPoolExecutor(max_workers=2) as pool:
        shares = [pool.submit(walk, b, jobs[i::2]) for i, b in enumerate(browsers)]
        found = dict(item for share in shares for item in share.result())
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(json.dumps({f"{page} ({mode})": r for (mode, page), r in
                                  sorted(found.items())}, indent=1), encoding="utf-8")
    return found


def test_axe_ran_on_every_page_in_both_modes(audits, pages):
    assert set(audits) == {(m, p) for m in MODES for p in pages}
    problems = [r["status"] for r in audits.values() if r["status"] != "ok"]
    assert not problems, "pages axe could not audit:\n" + "\n".join(problems)
    versions = {r["version"] for r in audits.values()}
    assert versions == {AXE_VERSION}, versions


def test_no_critical_or_serious_violation(audits):
    """0 critical and 0 serious violations on every page, in light and in dark mode."""
    problems = [
        f"{page} ({mode}): {v['impact']} {v['id']} ({v['help']}): {n['target']}\n"
        f"    {n['html']}\n    {n['summary']}"
        for (mode, page), r in sorted(audits.items())
        for v in r["violations"] if v["impact"] in FAILING
        for n in v["nodes"]
    ]
    assert not problems, (f"{len(problems)} critical or serious accessibility violations:\n"
                          + "\n".join(problems))


def test_moderate_and_minor_violations_do_not_grow(audits):
    """Moderate and minor violations are listed (pytest -s shows them); their count per
    rule may not grow past a11y_baseline.json."""
    counts: Counter[str] = Counter()
    lines = []
    for (mode, page), r in sorted(audits.items()):
        for v in r["violations"]:
            if v["impact"] in FAILING:
                continue
            key = f"{v['impact']} {v['id']}"
            counts[key] += len(v["nodes"])
            lines += [f"  {page} ({mode}): {key}: {n['target']}" for n in v["nodes"]]
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))["nodes"]
    print(f"\naxe: moderate and minor violations (nodes): {dict(counts) or 'none'}; "
          f"baseline {baseline or 'none'}")
    print("\n".join(lines))
    grown = {k: f"{n} (baseline {baseline.get(k, 0)})" for k, n in counts.items()
             if n > baseline.get(k, 0)}
    shrunk = {k: f"{counts.get(k, 0)} (baseline {n})" for k, n in baseline.items()
              if counts.get(k, 0) < n}
    if shrunk:
        print(f"axe: fewer than the baseline, lower a11y_baseline.json: {shrunk}")
    assert not grown, ("moderate or minor violations grew past a11y_baseline.json: "
                       f"{grown}\n" + "\n".join(lines))


def test_built_html_has_no_empty_header_cell_and_no_deprecated_role(site, pages):
    """The files themselves, as _ext/a11y.py writes them: no empty <th> (DataFrame
    corners become <td>), citation lists of list items, no doc-biblioentry role."""
    import importlib.util
    import re

    spec = importlib.util.spec_from_file_location("a11y", ROOT / "_ext" / "a11y.py")
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    assert (ext.empty_headers_to_cells('<tr><th></th><th class="x">&nbsp;</th><th>P@2</th></tr>')
            == '<tr><td></td><td class="x">&nbsp;</td><th>P@2</th></tr>')
    empty_th = re.compile(r"<th(\s[^>]*)?>(\s|&nbsp;|&#160;)*</th>")
    problems, lists = [], 0
    for page in pages:
        html = (site / page).read_text(encoding="utf-8")
        problems += [f"{page}: {m.group(0)}" for m in empty_th.finditer(html)][:3]
        problems += [f"{page}: role doc-biblioentry"] * ("doc-biblioentry" in html)
        for block in re.findall(r'<div role="list" class="citation-list">\s*<div[^>]*>', html):
            lists += 1
            if 'role="listitem"' not in block:
                problems.append(f"{page}: a citation list whose entries are no list items")
    assert not problems, "\n".join(problems)
    assert lists > 10, f"only {lists} citation lists found: has the markup changed?"


# ---------------------------------------------------------------------------------------
# The keyboard alone. A browser of its own (its stored colour mode is changed here).

KEYBOARD_PAGES = ["intro.html", "chapters/01_why_ranking.html", "guide/evaluate_a_trec_run.html",
                  "reference/cheatsheet.html", "search.html"]
MAX_TABS = 1500  # more tab stops than any of KEYBOARD_PAGES has

# Ready for the keyboard: the document loaded, the theme's script has set the colour
# theme, sphinx-togglebutton has made every dropdown's button, the fonts are in; at the
# deadline, a message that names the page and the step.
KEYBOARD_READY_JS = """
const done = arguments[arguments.length - 1];
const deadline = Date.now() + arguments[0] * 1000;
const started = Date.now();
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function waitFor(what, test) {
  for (;;) {
    let ok = false;
    try { ok = test(); } catch (e) { ok = false; }
    if (ok) { return; }
    if (Date.now() > deadline) {
      throw new Error(`${location.pathname}: ${what} was not ready after `
                      + `${Math.round((Date.now() - started) / 1000)} s`);
    }
    await sleep(100);
  }
}
(async () => {
  await waitFor('the document (readyState "complete")', () => document.readyState === 'complete');
  await waitFor("the theme's script (data-theme set)", () => document.documentElement.dataset.theme);
  if (typeof togglebuttonSelector === 'string') {
    await waitFor('sphinx-togglebutton (a button for every dropdown)', () =>
      [...document.querySelectorAll('.admonition.dropdown')].every(
        el => el.querySelector(':scope > .admonition-title button.toggle-button')));
  }
  await document.fonts.ready;
  return 'ok';
})().then(done, e => done(String(e.message || e)));
"""

# The focused element: what it is, whether the page shows where the focus is, and whether
# that is on screen. "Shows" means: the element, its ::before or ::after, or one of its
# two nearest ancestors gets a visible outline or box shadow with the focus, that is, one
# it does not have once the element is blurred (the element is focused again after).
FOCUSED_JS = """
const el = document.activeElement;
if (!el || el === document.body) { return null; }
const visible = c => c && c !== 'transparent' && !/rgba\\([^)]*,\\s*0\\)$/.test(c);
const ring = s => (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0
                   && visible(s.outlineColor) ? s.outlineStyle + s.outlineWidth
                   + s.outlineColor + s.outlineOffset : '')
                  + '|' + (s.boxShadow && s.boxShadow !== 'none' ? s.boxShadow : '');
const parts = [[el, null], [el, '::before'], [el, '::after'],
               [el.parentElement, null], [el.parentElement?.parentElement, null]]
  .filter(([e]) => e);
const rings = () => parts.map(([e, pseudo]) => ring(getComputedStyle(e, pseudo)));
const focused = rings();
el.blur();
const blurred = rings();
el.focus({preventScroll: true});
const shown = focused.some((r, i) => r !== blurred[i] && r !== '|');
let boxed = el;
while (boxed.parentElement && boxed.getBoundingClientRect().width * boxed.getBoundingClientRect().height === 0) {
  boxed = boxed.parentElement;  // a zero-size link whose ::after covers its card
}
const box = boxed.getBoundingClientRect();
const id = el.id ? '#' + el.id : '';
const cls = typeof el.className === 'string' && el.className
  ? '.' + el.className.trim().split(/\\s+/).slice(0, 2).join('.') : '';
return {
  what: el.tagName.toLowerCase() + id + cls,
  text: (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 40),
  ring: shown, focusVisible: el.matches(':focus-visible') && document.activeElement === el,
  onScreen: box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < innerHeight
            && box.right > 0 && box.left < innerWidth,
  inMain: !!el.closest('#main-content'),
  solution: el.matches('.solution.dropdown > .admonition-title > button.toggle-button'),
  search: el.matches('.search-button-field'),
  themeSwitch: el.matches('.theme-switch-button'),
  skipLink: !!el.closest('#pst-skip-link'),
};
"""

# Transitions and animations end at once while the keyboard tests run, so that a focus
# ring or the skip link is measured where it ends up, not on its way there.
NO_TRANSITIONS_JS = """
const style = document.createElement('style');
style.textContent = '*, *::before, *::after { transition: none !important; '
                    + 'animation: none !important; }';
document.head.appendChild(style);
"""


@pytest.fixture(scope="module")
def keyboard(tmp_path_factory):
    browser = start_browser(tmp_path_factory.mktemp("a11y-keyboard"))
    yield browser
    browser.quit()


def open_for_keyboard(driver, base: str, page: str) -> None:
    open_page(driver, base + page)
    status = driver.execute_async_script(KEYBOARD_READY_JS, READY_SECONDS)
    assert status == "ok", status
    driver.execute_script(NO_TRANSITIONS_JS)


def press(driver, *keys) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*keys).perform()


def tab_through(driver, page: str) -> list[dict]:
    """Press Tab from the top of the page until the focus comes back to where it started
    (or leaves the page); each focused element as FOCUSED_JS describes it."""
    from selenium.webdriver.common.keys import Keys

    stops: list[dict] = []
    for _ in range(MAX_TABS):
        press(driver, Keys.TAB)
        here = driver.execute_script(FOCUSED_JS)
        if here is None or (stops and here == stops[0]):
            return stops
        stops.append(here)
    pytest.fail(f"{page}: still tabbing after {MAX_TABS} tab stops", pytrace=False)


def test_skip_link_is_the_first_tab_stop_and_moves_to_the_content(server, keyboard):
    from selenium.webdriver.common.keys import Keys

    base, _ = server
    for page in KEYBOARD_PAGES:
        open_for_keyboard(keyboard, base, page)
        press(keyboard, Keys.TAB)
        first = keyboard.execute_script(FOCUSED_JS)
        assert first and first["skipLink"], f"{page}: the first tab stop is {first}"
        assert first["onScreen"] and first["ring"], f"{page}: the focused skip link is " \
            f"not shown with a focus ring: {first}"
        press(keyboard, Keys.ENTER)
        assert keyboard.execute_script("return location.hash") == "#main-content", page
        press(keyboard, Keys.TAB)
        after = keyboard.execute_script(FOCUSED_JS)
        assert after and after["inMain"], f"{page}: after the skip link, Tab went to {after}"


@pytest.mark.parametrize("mode", MODES)
def test_every_tab_stop_shows_the_focus(server, keyboard, mode):
    """Every element the Tab key reaches is on screen and drawn with a focus ring, in
    light and dark mode; the solutions' dropdowns, the search button and the colour-mode
    switcher are among them."""
    base, _ = server
    keyboard.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": mode}]})
    try:
        for page in KEYBOARD_PAGES:
            open_for_keyboard(keyboard, base, page)
            keyboard.execute_script("localStorage.setItem('mode', 'auto');")
            stops = tab_through(keyboard, page)
            assert len(stops) > 20, f"{page}: only {len(stops)} tab stops: {stops}"
            hidden = [s for s in stops
                      if not (s["ring"] and s["onScreen"] and s["focusVisible"])]
            assert not hidden, (f"{page} ({mode}): {len(hidden)} of {len(stops)} tab stops "
                                "show no focus ring or are off screen:\n"
                                + "\n".join(map(str, hidden)))
            assert any(s["search"] for s in stops), f"{page}: Tab never reaches the search"
            assert any(s["themeSwitch"] for s in stops), f"{page}: Tab never reaches the " \
                "colour-mode switcher"
            if page.startswith("chapters/"):
                assert any(s["solution"] for s in stops), f"{page}: no solution dropdown " \
                    "is reached with Tab"
    finally:
        keyboard.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def focus_by_tab(driver, page: str, key: str) -> dict:
    """Press Tab from the top of the page until the focused element has FOCUSED_JS's
    property `key` (the search button, the switcher, a solution's dropdown button)."""
    from selenium.webdriver.common.keys import Keys

    for _ in range(MAX_TABS):
        press(driver, Keys.TAB)
        here = driver.execute_script(FOCUSED_JS)
        if here and here[key]:
            return here
    pytest.fail(f"{page}: Tab never reached the element ({key})", pytrace=False)


def test_solution_dropdown_opens_and_closes_with_the_keyboard(server, keyboard):
    """Tab to an exercise's solution; Enter opens it, Space closes it, and the focus stays
    on its button."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    base, _ = server
    page = "chapters/01_why_ranking.html"
    open_for_keyboard(keyboard, base, page)
    focus_by_tab(keyboard, page, "solution")
    button = keyboard.switch_to.active_element
    box = button.find_element(By.XPATH, "ancestor::div[contains(@class, 'solution')][1]")
    name = box.get_attribute("id")

    def state():
        return tuple(keyboard.execute_script(
            "const [b, box] = arguments; return [box.classList.contains('toggle-hidden')"
            " ? 'hidden' : 'shown', b.getAttribute('aria-expanded'),"
            " document.activeElement === b];", button, box))

    assert state() == ("hidden", "false", True), f"{page} {name}: before Enter {state()}"
    press(keyboard, Keys.ENTER)
    assert state() == ("shown", "true", True), f"{page} {name}: after Enter {state()}"
    press(keyboard, Keys.SPACE)
    assert state() == ("hidden", "false", True), f"{page} {name}: after Space {state()}"


def test_search_works_with_the_keyboard(server, keyboard):
    """Tab to the search button, Enter opens the search box with the focus in it, typing
    a word and Enter shows the results; Escape closes the box; Ctrl+K opens it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    base, _ = server
    page = "intro.html"
    in_search = ("const d = document.getElementById('pst-search-dialog');"
                 "return !!(d && d.open && d.contains(document.activeElement)"
                 " && document.activeElement.matches('input[name=q]'));")
    for opener in ("button", "ctrl+k"):
        open_for_keyboard(keyboard, base, page)
        if opener == "button":
            focus_by_tab(keyboard, page, "search")
            press(keyboard, Keys.ENTER)
        else:
            from selenium.webdriver.common.action_chains import ActionChains

            ActionChains(keyboard).key_down(Keys.CONTROL).send_keys("k").key_up(
                Keys.CONTROL).perform()
        assert keyboard.execute_script(in_search), f"{page}: {opener} did not open the " \
            "search box with the focus in its field"
        if opener == "ctrl+k":
            press(keyboard, Keys.ESCAPE)
            assert not keyboard.execute_script(in_search), "Escape left the search box open"
            continue
        press(keyboard, "nDCG", Keys.ENTER)
        WebDriverWait(keyboard, READY_SECONDS).until(
            lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, "#search-results li a")],
            message=f"search from {page} with the keyboard: no result after {READY_SECONDS} s",
        )
        assert "search.html" in keyboard.current_url and "q=nDCG" in keyboard.current_url


def test_colour_mode_switcher_works_with_the_keyboard(server, keyboard):
    """Tab to the switcher; Enter and then Space each change the colour mode."""
    from selenium.webdriver.common.keys import Keys

    base, _ = server
    page = "intro.html"
    mode = "return document.documentElement.dataset.mode"
    open_for_keyboard(keyboard, base, page)
    keyboard.execute_script("localStorage.setItem('mode', 'auto');")
    open_for_keyboard(keyboard, base, page)
    seen = [keyboard.execute_script(mode)]
    focus_by_tab(keyboard, page, "themeSwitch")
    for name, key in (("Enter", Keys.ENTER), ("Space", Keys.SPACE)):
        press(keyboard, key)
        seen.append(keyboard.execute_script(mode))
        assert seen[-1] != seen[-2], f"{page}: {name} left the colour mode at {seen} (the " \
            f"focus is on {keyboard.execute_script(FOCUSED_JS)})"
    keyboard.execute_script("localStorage.setItem('mode', 'auto');")
    assert set(seen) == {"auto", "light", "dark"}, seen
