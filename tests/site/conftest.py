"""Fixtures for the tests of the built website (_build/html).

These tests read the book as a reader gets it, so they need a finished build:
`python3 tasks.py check` runs them right after its strict book build, and
`python3 tasks.py build` followed by `.venv/bin/pytest tests/site` runs them by hand.
The unit-test step does not collect this folder (`norecursedirs` in pyproject.toml).

In CI (CI=true) a missing build or a missing browser is a failure; on a
developer's machine it is a skip that says what is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _site import HTML, is_redirect, missing


@pytest.fixture(scope="session")
def site() -> Path:
    """The built website; its absence is a skip locally and a failure in CI."""
    if not (HTML / "index.html").is_file():
        missing(f"no built book in {HTML}: run `python3 tasks.py build` first")
    return HTML


@pytest.fixture(scope="session")
def pages(site: Path) -> list[str]:
    """Every HTML page of the site, as a path relative to _build/html (not the redirects
    that moved pages left behind: test_built_html.py checks those)."""
    found = sorted(
        p.relative_to(site).as_posix()
        for p in site.rglob("*.html")
        if not p.relative_to(site).parts[0].startswith(("_static", "_sources", "_images"))
        and not is_redirect(p)
    )
    assert "index.html" in found and "search.html" in found, found
    return found
