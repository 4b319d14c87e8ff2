"""Draw the chart of benchmarks/README.md from the JSON that bench_runs.py writes.

    python benchmarks/bench_runs.py --modes files --json benchmarks/runs.json ...
    python benchmarks/plot_runs.py benchmarks/runs.json --out benchmarks/runs.png

Several JSON files (runs of different sizes) are drawn as one; the JSON that
bench_scale.py --json writes adds its points (the default budget, up to 70 M lines) as
lines of their own.

Two panels against the number of run lines (log scales), one line per tool, from the
``files`` mode (reading both files included): the time of one evaluation (solid: the
first call in a fresh process; dashed: the best warm call), each the median over the
fresh processes, and the process's peak resident memory (the largest over them). The
date, the machine and the tools' versions recorded in the JSON go under the chart.
"""

from __future__ import annotations

import argparse
import json
import statistics
import textwrap
from pathlib import Path

COLOURS = {  # Okabe-Ito, as the book's figures
    "rankeval": "#0072B2",
    "pytrec_eval": "#D55E00",
    "ir_measures": "#009E73",
    "ranx": "#CC79A7",
    "rankeval-sysmalloc": "#56B4E9",
    "rankeval-pandas-first": "#E69F00",
    "rankeval (bench_scale.py)": "#000000",
    "pytrec_eval (bench_scale.py)": "#999999",
}


def series(measurements: list[dict], mode: str) -> dict[str, list[tuple]]:
    """tool -> [(run lines, median first call s, median warm s, max peak MB)], by size."""
    grouped: dict[tuple, list[dict]] = {}
    for m in measurements:
        if m["mode"] == mode and "error" not in m:
            grouped.setdefault((m["tool"], m["run_lines"]), []).append(m)
    out: dict[str, list[tuple]] = {}
    for (tool, lines), runs in sorted(grouped.items()):
        out.setdefault(tool, []).append((
            lines,
            statistics.median(r["first"] for r in runs),
            statistics.median(r["warm"] for r in runs),
            max(r["peak_mb"] for r in runs),
        ))
    return out


def plot(data: dict, target: Path, mode: str = "files") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter

    lines = series(data["measurements"], mode)
    if not lines:
        raise SystemExit(f"no measurement in mode {mode!r}")
    fig, (time_ax, memory_ax) = plt.subplots(1, 2, figsize=(9, 3.9), dpi=150)
    for tool, points in lines.items():
        colour = COLOURS.get(tool, "#000000")
        x = [p[0] for p in points]
        time_ax.plot(x, [p[1] for p in points], "o-", color=colour, label=tool)
        time_ax.plot(x, [p[2] for p in points], "o--", color=colour, alpha=0.6)
        memory_ax.plot(x, [p[3] for p in points], "o-", color=colour, label=tool)
    for ax in (time_ax, memory_ax):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("run lines (queries x documents per query)")
        ax.grid(True, which="both", alpha=0.3)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
    time_ax.set_ylabel("seconds per evaluation")
    time_ax.set_title("time (solid: first call, dashed: warm)", fontsize=10)
    memory_ax.set_ylabel("peak resident memory, MB")
    memory_ax.set_title("peak memory of the process", fontsize=10)
    memory_ax.legend(fontsize=8, loc="upper left")
    meta = data["meta"]
    versions = ", ".join(f"{k} {v}" for k, v in sorted(meta["versions"].items()) if v)
    rounds: dict[str, set] = {}
    for m in data["measurements"]:
        rounds.setdefault(m["size"], set()).add(m["round"])
    per_size = ", ".join(f"{size}: {len(r)}" for size, r in rounds.items())
    note = (f"TREC files; nDCG@10, AP, RR, P@10, R@100. Each point: the median over fresh "
            f"processes ({per_size}). Measured {meta['date']} on a "
            f"{meta['cores']}-core machine, Python {meta['python']}; "
            f"{versions}.")
    if "ranx" in lines:
        note += " ranx's first call includes Numba's compilation of its measures."
    fig.text(0.01, 0.01, textwrap.fill(note, 160), fontsize=7, va="bottom")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(target)
    print(f"{target}: {', '.join(lines)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", type=Path, nargs="+", help="what bench_runs.py --json wrote")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("runs.png"))
    parser.add_argument("--mode", default="files", help="files or dicts")
    args = parser.parse_args(argv)
    data = [json.loads(path.read_text()) for path in args.json]
    meta = dict(data[0]["meta"])
    meta["date"] = " and ".join(sorted({d["meta"]["date"] for d in data}))
    for d in data[1:]:
        meta["versions"].update({k: v for k, v in d["meta"]["versions"].items() if v})
    plot({"meta": meta, "measurements": [m for d in data for m in d["measurements"]]},
         args.out, args.mode)


if __name__ == "__main__":
    main()
