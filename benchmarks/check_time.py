"""How long `python3 tasks.py check` takes, and how busy it keeps the machine.

Runs `check` once (set it up first: `python3 tasks.py setup`, so that installing is
not timed) and prints, side by side:

- each step's wall time, the time it started, and its CPU seconds, as `check` itself
  printed them (`=== step: ok in N s (M CPU-s; started at S s)`); a step's CPU seconds
  count its own processes only, not those it cannot wait for (Chromium's, the Spark JVM's);
- the CPU seconds of the whole machine while `check` ran, from `/proc/stat` (user, nice,
  system, irq, softirq; not idle, I/O wait or time stolen by the hypervisor, which is
  printed apart), so that the browsers, the JVM and the Dask workers count too;
- a speed reference before and after: the CPU seconds of one fixed pure-Python loop.
  On a shared virtual machine it moves from run to run; compare times only between runs
  whose references agree.

    python3 tasks.py setup && python3 benchmarks/check_time.py
    python3 benchmarks/check_time.py --fresh-clone   # CI's run: `CI=true bash .ci/run`
                                                     # in a fresh clone of HEAD, installs included

Each run ends with the budget it is held to (set in issue 35 when the book had grown past
the first 3-minute budget): `check` once installed under 8 minutes; CI's whole run on a
fresh clone (set-up, `check`, the second nbval pass at baseline dispatch) under 20 minutes.

Linux only for the machine's CPU time (elsewhere only the wall time and the steps).
Run it with nothing else on the machine: other processes count as `check`'s.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEP = re.compile(
    r"^=== (?P<step>.+?): (?P<verdict>ok|FAILED[^\n]*?) (?:in|after) (?P<wall>\d+) s"
    r"(?: \((?P<cpu>[\d.]+|nan) CPU-s(?:; started at (?P<start>\d+) s)?\))?",
    re.MULTILINE,
)


def speed_reference(n: int = 20_000_000) -> float:
    """CPU seconds of a fixed pure-Python loop (the machine's speed right now)."""
    start = time.process_time()
    total = 0
    for i in range(n):
        total += i
    return time.process_time() - start


def machine_cpu() -> tuple[float, float] | None:
    """(busy, stolen) CPU seconds of the whole machine since boot, from /proc/stat."""
    try:
        with open("/proc/stat") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[1:9])
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--log",
        type=Path,
        default=ROOT / "_build" / "check_time.log",
        help="where check's own output goes (default: %(default)s)",
    )
    parser.add_argument(
        "--fresh-clone",
        action="store_true",
        help="time `CI=true bash .ci/run` in a fresh clone of HEAD (in a temporary folder)",
    )
    args = parser.parse_args(argv)

    before_ref = speed_reference()
    cpu0, wall0 = machine_cpu(), time.perf_counter()
    # check empties _build/ when it starts: its output is kept elsewhere until it ends
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log, \
            tempfile.TemporaryDirectory() as scratch:
        if args.fresh_clone:  # as CI runs it: a new clone, its own .venv, CI=true
            clone = Path(scratch) / "clone"
            subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
            command, cwd = ["bash", ".ci/run"], clone
            env = {**os.environ, "CI": "true"}
        else:
            command, cwd, env = [sys.executable, "tasks.py", "check"], ROOT, None
        code = subprocess.call(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                               env=env)
        wall, cpu1 = time.perf_counter() - wall0, machine_cpu()
        log.seek(0)
        output = log.read()
    after_ref = speed_reference()
    args.log.parent.mkdir(parents=True, exist_ok=True)
    args.log.write_text(output, encoding="utf-8")

    print(
        f"cores: {os.cpu_count()}; speed reference (a fixed Python loop): "
        f"{before_ref:.2f} CPU-s before, {after_ref:.2f} after"
    )
    print(f"\n{'step':<78} {'started':>8} {'wall':>6} {'CPU-s':>6}")
    for m in STEP.finditer(output):
        start = f"{m['start']} s" if m["start"] else ""
        cpu = m["cpu"] or ""
        verdict = "" if m["verdict"] == "ok" else f"  {m['verdict']}"
        print(f"{m['step'][:78]:<78} {start:>8} {m['wall'] + ' s':>6} {cpu:>6}{verdict}")
    what = "CI=true bash .ci/run (fresh clone)" if args.fresh_clone else "check"
    print(f"\n{what}: exit {code}, {wall:.0f} s ({int(wall // 60)} min {wall % 60:.0f} s)")
    budget = 20 * 60 if args.fresh_clone else 8 * 60
    verdict = "within it" if wall <= budget else "OVER it"
    print(f"budget: {what} under {budget // 60} min: {verdict}")
    if cpu0 and cpu1:
        busy, stolen = cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]
        cores = os.cpu_count() or 1
        print(
            f"whole machine: {busy:.0f} CPU-s busy ({busy / (wall * cores):.0%} of "
            f"{cores} cores), {stolen:.0f} s stolen by the hypervisor"
        )
    else:
        print("whole machine: no /proc/stat here, so no CPU time")
    print(f"check's own output: {args.log}")
    return code


if __name__ == "__main__":
    sys.exit(main())
