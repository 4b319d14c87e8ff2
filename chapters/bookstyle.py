"""The book's one plotting style: every chapter calls ``bookstyle.use()`` first.

* Colours: the Okabe-Ito palette (Okabe and Ito, 2008), readable with every
  common form of colour-blindness. Relevant and non-relevant items differ in
  colour **and** in marker or hatch, so the figures also work in grey print.
* Size: 6.4 x 3.6 inches at 9 pt text, which fills the content column of the
  website at a 1:1 text scale; saved and shown as 200-dpi PNG (sharp on
  high-density screens, and PNG so that nbval, which skips images, never sees
  a byte that changes between runs).

Usage in a chapter's first code cell::

    import bookstyle
    bookstyle.use()
"""

from __future__ import annotations

import matplotlib as mpl

__all__ = [
    "PALETTE",
    "RELEVANT",
    "IRRELEVANT",
    "RELEVANT_MARKER",
    "IRRELEVANT_MARKER",
    "RELEVANT_HATCH",
    "IRRELEVANT_HATCH",
    "glue",
    "use",
]

# Okabe-Ito: black, orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple.
PALETTE = [
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
]

# Relevant vs non-relevant: dark blue filled vs light grey hollow (contrast ratio > 4:1),
# plus distinct markers and hatches so colour is never the only cue.
RELEVANT = "#0072B2"
IRRELEVANT = "#D9D9D9"
RELEVANT_MARKER = "o"
IRRELEVANT_MARKER = "x"
RELEVANT_HATCH = ""
IRRELEVANT_HATCH = "//"

FIGSIZE = (6.4, 3.6)
DPI = 200


def use() -> None:
    """Apply the book's matplotlib style (idempotent)."""
    mpl.rcParams.update(
        {
            "figure.figsize": FIGSIZE,
            "figure.dpi": 100,  # on-screen size in the notebook; savefig.dpi sets sharpness
            "savefig.dpi": DPI,
            "savefig.bbox": "tight",
            "figure.constrained_layout.use": True,
            "font.size": 9,
            "axes.titlesize": 10,
            "axes.labelsize": 9,
            "legend.fontsize": 9,
            "xtick.labelsize": 9,
            "ytick.labelsize": 9,
            "axes.prop_cycle": mpl.cycler(color=PALETTE),
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "lines.linewidth": 1.6,
            "lines.markersize": 5,
            "image.cmap": "cividis",
            "svg.hashsalt": "rankeval-book",
        }
    )
    try:  # the inline backend: retina-quality PNG in the notebook and on the site
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("png", dpi=DPI, bbox_inches="tight")
    except ImportError:  # pragma: no cover - outside IPython
        pass


def glue(name: str, value):
    """Glue a number for the prose: ``{glue:text}`name:.4f``` then shows it formatted.

    ``myst_nb.glue(name, value, display=False)`` stores the value's text form, and
    NumPy 2 writes a scalar as ``np.float64(0.5)``, which ``{glue:text}`` cannot format
    (the build warns "could not convert string to float"). This stores NumPy scalars
    and 0-d arrays as plain Python numbers first; everything else is glued unchanged.
    Returns None, so that a glue call ending a cell prints nothing (the number
    belongs in the prose, not under the cell). Without myst-nb (it comes with
    jupyter-book; Colab has neither) it does nothing: the number is only needed by
    the book's build, and a reader running the notebook sees the cells' own prints.
    """
    try:
        from myst_nb import glue as _glue
    except ImportError:
        return None

    plain = value.item() if hasattr(value, "item") and getattr(value, "ndim", 1) == 0 else value
    _glue(name, plain, display=False)
