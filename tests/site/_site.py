"""Shared by the website tests: where the build is, what the book holds, where Chromium is."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The build under test; BOOK_HTML points the tests at another build folder.
HTML = Path(os.environ.get("BOOK_HTML") or ROOT / "_build" / "html")
IN_CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def missing(reason: str) -> None:
    """Fail in CI, skip elsewhere: the same rule for every missing prerequisite."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


def toc_files() -> list[str]:
    """Every document of _toc.yml (root first), as paths without suffix."""
    text = (ROOT / "_toc.yml").read_text()
    root = re.search(r"^root:\s*(\S+)", text, re.MULTILINE).group(1)
    return [root] + re.findall(r"^\s*-\s*file:\s*(\S+)", text, re.MULTILINE)


def chapter_files() -> list[str]:
    return [f for f in toc_files() if f.startswith("chapters/")]


def is_redirect(page: Path) -> bool:
    """True for a page that only sends the reader on to a moved page (sphinx-reredirects)."""
    return 'http-equiv="refresh"' in page.read_text(encoding="utf-8", errors="replace")[:2000]


def redirects() -> dict[str, str]:
    """_config.yml's redirects: old docname -> new page, relative to the old one's folder."""
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return dict(config["sphinx"]["config"].get("redirects") or {})


def browser_paths() -> tuple[str, str] | None:
    """Chromium and its ChromeDriver: $CHROMIUM_BIN / $CHROMEDRIVER_BIN, else Debian's."""
    chromium = os.environ.get("CHROMIUM_BIN") or shutil.which("chromium") or "/usr/bin/chromium"
    driver = (
        os.environ.get("CHROMEDRIVER_BIN")
        or shutil.which("chromedriver")
        or "/usr/bin/chromedriver"
    )
    if Path(chromium).is_file() and Path(driver).is_file():
        return chromium, driver
    return None


# axe-core, the accessibility engine the a11y tests run in Chromium: `tasks.py setup`
# installs the version tasks.py pins (AXE_VERSION) from the npm registry into .venv/axe
# (ignored by git); AXE_CORE_JS names another copy of axe.min.js.
AXE_VERSION = re.search(r'^AXE_VERSION = "([^"]+)"', (ROOT / "tasks.py").read_text(),
                        re.MULTILINE).group(1)
AXE_PREFIX = ROOT / ".venv" / "axe"


def axe_path() -> Path | None:
    """axe.min.js: $AXE_CORE_JS, else the one `tasks.py setup` installed (None if absent)."""
    path = Path(os.environ.get("AXE_CORE_JS") or
                AXE_PREFIX / "node_modules" / "axe-core" / "axe.min.js")
    return path if path.is_file() else None
