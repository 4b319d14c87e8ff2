"""Make every page work without a network: MathJax from the book, no Thebe loader.

1. MathJax 3.2.2 comes from the PyPI package ``django-static-mathjax`` (pinned in
requirements.txt; despite its name it needs no Django: it is MathJax's own
distribution inside a wheel). After an HTML build this extension copies the parts
of it that a page can load -- the combined ``tex-mml-chtml.js`` component, the TeX
extensions it loads on demand, the CHTML output with its fonts, the menu and the
accessibility modules -- into ``_static/mathjax/``. ``mathjax_path`` in _config.yml
points Sphinx at that copy, relative to ``_static``.

2. The book has no live-code service (no Binder, no Thebe button), yet Jupyter
Book's sphinx-thebe adds to every page an inline script naming Thebe's address on
unpkg.com -- twice, which is a JavaScript SyntaxError ("Identifier 'THEBE_JS_URL'
has already been declared") -- plus sphinx-thebe.js and its stylesheet. Nothing on
the page can start Thebe, so this extension leaves those three out of every page.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

MATHJAX_VERSION = "3.2.2"
ENTRY = "tex-mml-chtml.js"
# Everything tex-mml-chtml.js may load later, by path relative to itself.
PARTS = ["a11y", "adaptors", "input", "output", "sre", "ui"]


def mathjax_es5() -> Path:
    """The folder of MathJax's browser components inside the installed package."""
    try:
        import mathjax  # the import name of django-static-mathjax
    except ImportError as err:
        raise ExtensionError(
            "offline_mathjax: the package django-static-mathjax is not installed; "
            "run `python3 tasks.py build` (it installs requirements.txt)"
        ) from err
    root = Path(mathjax.__file__).parent / "static" / "mathjax"
    es5 = root / "es5"
    version = _version(root)
    if not (es5 / ENTRY).is_file() or not version.startswith("3."):
        raise ExtensionError(f"offline_mathjax: no MathJax 3 found in {root} (version {version!r})")
    return es5


def _version(root: Path) -> str:
    import json

    try:
        return json.loads((root / "package.json").read_text())["version"]
    except (OSError, KeyError, ValueError):
        return ""


def check_config(app: Sphinx, config) -> None:
    """Fail early if mathjax_path would send readers to another host."""
    if "://" in config.mathjax_path or config.mathjax_path.startswith("//"):
        raise ExtensionError(
            f"offline_mathjax: mathjax_path is {config.mathjax_path!r}; set it to "
            f"'mathjax/{ENTRY}' so the book serves MathJax itself"
        )
    mathjax_es5()


def copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    es5 = mathjax_es5()
    target = Path(app.outdir) / "_static" / "mathjax"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(es5 / ENTRY, target / ENTRY)
    shutil.copy2(es5.parent / "LICENSE", target / "LICENSE")
    for part in PARTS:
        shutil.copytree(es5 / part, target / part, dirs_exist_ok=True)


def _is_thebe(asset) -> bool:
    name = str(getattr(asset, "filename", "") or "")
    body = str(getattr(asset, "attributes", {}).get("body", "") or "")
    return "sphinx-thebe" in name or "THEBE_JS_URL" in body


def drop_thebe(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.config.html_theme_options.get("launch_buttons", {}).get("thebe"):
        return  # somebody switched Thebe on: leave its assets alone
    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [asset for asset in context[key] if not _is_thebe(asset)]


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", check_config)
    app.connect("build-finished", copy_mathjax)
    # After every other handler has added its assets to the page.
    app.connect("html-page-context", drop_thebe, priority=900)
    return {"version": MATHJAX_VERSION, "parallel_read_safe": True, "parallel_write_safe": True}
