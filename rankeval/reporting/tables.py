"""Tables of means for a paper: :func:`report` of a :func:`rankeval.compare` table,
and the markdown and LaTeX escapes the command line's tables share.

Chapter: :doc:`/chapters/17_comparing_systems`.
"""

from __future__ import annotations

import numpy as np

from ..evaluation.aggregate import measure_of

__all__ = ["report", "markdown", "latex"]


_TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
               "permutation": "paired randomization test"}
_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                     "none": "no"}
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "|": r"\textbar{}", "<": r"\textless{}",
                  ">": r"\textgreater{}"}


def latex(text) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def report(table, format="markdown", *, digits=4, lower_is_better=None, wins=False,
           width=None):
    r"""Render a :func:`compare` table as a markdown or LaTeX table of means.

    One row per system, one column per measure, each cell the system's mean
    over the queries. In each column the best mean is in bold, and a
    superscript lists the systems (by their letter) that this system beats
    significantly, after the table's multiple-comparison correction
    (``p_adjusted <= alpha``), as ranx's ``Report`` does.

    Parameters
    ----------
    table : pandas.DataFrame
        The result of :func:`compare` (all pairs, or against a baseline).
    format : {"markdown", "latex"}, default="markdown"
        Markdown (superscripts as ``<sup>``) or a LaTeX ``tabular`` (booktabs
        rules, superscripts in math mode).
    digits : int, default=4
        Decimals of the means.
    lower_is_better : collection of str, optional
        Not needed for rankeval's measures: by default each measure's direction
        is its declaration's (:attr:`rankeval.Measure.lower_is_better`: MR, FRP
        and Unj are lower-is-better), the measure read from the table's
        ``attrs`` (:func:`compare` records it) or from the column label; a
        column that is no measure is higher-is-better. Given, it overrides
        that for every column: exactly the columns it names are
        lower-is-better, their best system being the lowest and a significant
        difference counting for the system with the lower mean.
    wins : bool, default=False
        For a table compared against a baseline (``compare(..., baseline=...)``): after
        each other system's mean, its per-query wins, ties and losses against the
        baseline (``W/T/L``, the ``wins``, ``ties`` and ``losses`` columns), as
        PyTerrier's ``Experiment(baseline=...)`` reports them.
    width : int, optional
        Wrap the legend under the table to lines of at most ``width`` characters (in
        LaTeX each wrapped line stays a ``%`` comment); by default it is one line.

    Returns
    -------
    str
        The table, followed by a line saying what the marks mean: the test,
        the correction, the level, and the number of comparisons it covered;
        then the comparisons left untested (zero variance, see
        :func:`compare`), if any.

    Notes
    -----
    Only the comparisons in ``table`` can give a mark: with a baseline, a
    superscript says "significantly better than the baseline" (or, on the
    baseline's row, than that system).

    Chapter: :doc:`/chapters/17_comparing_systems`.

    Examples
    --------
    >>> from rankeval import compare, report
    >>> table = compare({"bm25": [0.2, 0.4, 0.3, 0.5, 0.3, 0.4],
    ...                  "dense": [0.4, 0.7, 0.5, 0.6, 0.6, 0.5]})
    >>> markdown, legend = report(table).split("\n\n")
    >>> print(markdown)
    | system | score |
    | --- | ---: |
    | (a) bm25 | 0.3500 |
    | (b) dense | **0.5500**<sup>a</sup> |

    The legend under the table is one line; here it is wrapped:

    >>> import textwrap
    >>> print(textwrap.fill(legend, 76))
    Bold: best mean of each measure. Superscript: significantly better than the
    system with that letter (paired t-test, Holm correction over 1 comparison,
    alpha = 0.05).
    """
    _check_report_options(table, format, digits)
    counts = _win_counts(table) if wins else {}
    systems, measures = _systems_and_measures(table)
    lower = _lower_is_better(measures, table.attrs, lower_is_better)
    letters = {name: _letter(i) for i, name in enumerate(systems)}
    means, beats = _means_and_marks(table, letters, lower)
    best = {}
    for m in measures:
        values = [means[(s, m)] for s in systems if (s, m) in means]
        best[m] = min(values) if m in lower else max(values)

    def cell(s, m):
        if (s, m) not in means:
            return ""
        v = means[(s, m)]
        text = f"{v:.{digits}f}"
        sup = "".join(sorted(beats.get((s, m), ())))
        if format == "markdown":
            text = f"**{text}**" if v == best[m] else text
            return text + (f"<sup>{sup}</sup>" if sup else "")
        text = rf"\textbf{{{text}}}" if v == best[m] else text
        return text + (f"$^{{{sup}}}$" if sup else "")

    def with_counts(s, m):
        text = cell(s, m)
        return f"{text} {counts[(s, m)]}" if (s, m) in counts else text

    legend = _legend(table, measures, lower, format)
    if counts:
        legend += (f" W/T/L: queries won, tied and lost against the baseline "
                   f"({table.attrs['baseline']}).")
    legend = _wrapped(legend, width, "% " if format == "latex" else "")
    rows = [(s, letters[s], [with_counts(s, m) for m in measures]) for s in systems]
    if format == "markdown":
        return _markdown_table(measures, rows) + "\n\n" + legend
    return _latex_table(measures, rows) + "\n% " + legend


# --- the parts of report -------------------------------------------------------------------


def _wrapped(legend: str, width, prefix: str) -> str:
    """The legend in lines of at most ``width`` characters (``None``: one line); each line
    after the first starts with ``prefix`` (LaTeX's comment sign)."""
    if width is None:
        return legend
    if isinstance(width, bool) or not isinstance(width, int) or width < 20:
        raise ValueError(f"width must be an int >= 20, got {width!r}")
    import textwrap

    return textwrap.fill(legend, width - len(prefix), subsequent_indent=prefix,
                         break_long_words=False, break_on_hyphens=False)


def _win_counts(table) -> dict:
    """(system, measure) -> "W/T/L" against the baseline; a ValueError without one."""
    baseline = table.attrs.get("baseline")
    if baseline is None:
        raise ValueError("wins=True reports wins, ties and losses against a baseline: "
                         "compare(systems, baseline=...) first")
    if not {"wins", "ties", "losses"} <= set(table.columns):
        raise ValueError("the table has no wins, ties and losses columns (compare makes them)")
    counts = {}
    for _, row in table.iterrows():
        w, t, lost = int(row["wins"]), int(row["ties"]), int(row["losses"])
        if row["other"] == baseline:
            counts[(row["system"], row["measure"])] = f"{w}/{t}/{lost}"
        elif row["system"] == baseline:
            counts[(row["other"], row["measure"])] = f"{lost}/{t}/{w}"
    return counts


def _check_report_options(table, format, digits) -> None:
    """ValueError or TypeError for an option of :func:`report` out of its range, or a
    table that is no (non-empty) :func:`rankeval.compare` table."""
    if format not in ("markdown", "latex"):
        raise ValueError(f'format must be "markdown" or "latex", got {format!r}')
    if isinstance(digits, (bool, np.bool_)) or not isinstance(digits, (int, np.integer)):
        raise TypeError(f"digits must be an int, got {digits!r}")
    if not 0 <= digits <= 15:
        raise ValueError(f"digits must lie in 0..15, got {digits}")
    need = {"system", "other", "measure", "mean", "other_mean", "difference", "significant"}
    if not hasattr(table, "columns") or not need <= set(table.columns):
        raise ValueError(
            "table must be a DataFrame returned by rankeval.compare (columns "
            f"{sorted(need)})"
        )
    if len(table) == 0:
        raise ValueError("table has no comparison to report")


def _systems_and_measures(table):
    """The systems and the measures of a compare table, in the order its ``attrs`` give
    (then as its rows name them)."""
    systems = list(table.attrs.get("systems", []))
    measures = list(table.attrs.get("measures", []))
    for _, row in table.iterrows():
        for name in (row["system"], row["other"]):
            if name not in systems:
                systems.append(name)
        if row["measure"] not in measures:
            measures.append(row["measure"])
    return systems, measures


def _lower_is_better(measures, attrs, given) -> set:
    """The measures whose best value is the lowest: ``given`` (a name or names), else
    each measure's declared direction (recorded in ``attrs`` or read from its label)."""
    if isinstance(given, str):
        return {given}
    if given is not None:
        return set(given)
    found = {m: measure_of(m, attrs) for m in measures}
    return {m for m, measure in found.items() if measure is not None and measure.lower_is_better}


def _means_and_marks(table, letters, lower):
    """``(means, beats)``: each (system, measure)'s mean, and the letters of the systems
    it beats significantly on that measure (the lower mean wins for a measure in
    ``lower``)."""
    means, beats = {}, {}
    for _, row in table.iterrows():
        m = row["measure"]
        means[(row["system"], m)] = float(row["mean"])
        means[(row["other"], m)] = float(row["other_mean"])
        if bool(row["significant"]) and row["difference"] != 0:
            better = (row["difference"] > 0) != (m in lower)
            winner, loser = (
                (row["system"], row["other"]) if better else (row["other"], row["system"])
            )
            beats.setdefault((winner, m), set()).add(letters[loser])
    return means, beats


def _legend(table, measures, lower, format) -> str:
    """The line under the table: what bold and the superscripts mean (test, correction,
    level, number of comparisons), and the comparisons left untested, if any."""
    attrs = table.attrs
    untested = (
        table[table["p_value"].isna()] if "p_value" in table.columns else table.iloc[:0]
    )
    n = len(table) - len(untested)
    named = [markdown(m) if format == "markdown" else str(m)  # LaTeX: in a % comment
             for m in measures if m in lower]  # fmt: skip
    lowest = f" (the lowest for {', '.join(named)})" if named else ""
    legend = (
        f"Bold: best mean of each measure{lowest}. Superscript: significantly better than the "
        f"system with that letter ({_TEST_NAMES.get(attrs.get('test'), 'paired test')}, "
        f"{_CORRECTION_NAMES.get(attrs.get('correction'), 'the table')} correction over "
        f"{n} comparison{'s' if n != 1 else ''}, alpha = {attrs.get('alpha', 0.05):g})."
    )
    if len(untested):
        escape = markdown if format == "markdown" else str  # LaTeX: in a % comment
        pairs = "; ".join(
            f"{escape(r.system)} vs {escape(r.other)} on {escape(r.measure)} (every query "
            f"differs by {r.difference:g})"
            for r in untested.itertuples()
        )
        legend += (
            f" Not tested, zero variance (the t statistic would be infinite): {pairs};"
            " the permutation or Wilcoxon test is defined there."
        )
    return legend


def _markdown_table(measures, rows) -> str:
    """A markdown table: a header of ``measures``, one line per (system, letter, cells)."""
    lines = [
        "| system | " + " | ".join(map(markdown, measures)) + " |",
        "| --- | " + " | ".join("---:" for _ in measures) + " |",
    ]
    for s, letter, cells in rows:
        lines.append(f"| ({letter}) {markdown(s)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _latex_table(measures, rows) -> str:
    """A LaTeX ``tabular`` with booktabs rules, as :func:`_markdown_table`."""
    lines = [
        r"\begin{tabular}{l" + "r" * len(measures) + "}",
        r"\toprule",
        "System & " + " & ".join(latex(m) for m in measures) + r" \\",
        r"\midrule",
    ]
    for s, letter, cells in rows:
        lines.append(f"({letter}) {latex(s)} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def markdown(name) -> str:
    """A name for a markdown table cell: a ``|`` would end the cell."""
    return str(name).replace("|", "\\|")


def _letter(i):
    """a, b, ..., z, aa, ab, ...: the letter of the i-th system."""
    text = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        text = chr(ord("a") + r) + text
    return text
