"""How `tasks.py` runs its steps: one at a time (`run`), or as a graph (`run_graph`).

Standard library only: `tasks.py` imports it before any set-up.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path


def wait(process: subprocess.Popen) -> tuple[int, float]:
    """Exit code and CPU seconds (user + system, its waited-for children included)."""
    if not hasattr(os, "wait4"):  # not POSIX: no resource usage
        return process.wait(), float("nan")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = code = os.waitstatus_to_exitcode(status)
    return code, usage.ru_utime + usage.ru_stime


def run(step: str, *args: str | os.PathLike, cwd: Path) -> None:
    """Run one step in `cwd`; stop with its exit code on failure."""
    print(f"\n=== {step}", flush=True)
    start = time.perf_counter()
    code, cpu = wait(subprocess.Popen([str(a) for a in args], cwd=cwd))
    seconds = time.perf_counter() - start
    if code != 0:
        print(f"=== {step}: FAILED (exit {code}) after {seconds:.0f} s", flush=True)
        sys.exit(code)
    print(f"=== {step}: ok in {seconds:.0f} s ({cpu:.0f} CPU-s)", flush=True)


def run_graph(steps: dict[str, tuple[list, list[str]]], logs: Path, cwd: Path) -> None:
    """Run steps ``name -> (command, names of the steps it needs)`` in `cwd` as soon as
    what they need has passed, side by side (CI has 2 cores); print each step's output
    (kept in `logs` while it runs) in full when it ends, with its wall and CPU time. A
    step whose prerequisite failed does not run; exit non-zero if any step failed, could
    not start, or did not run."""
    print(f"\n=== {' | '.join(steps)}: each as soon as what it needs has passed", flush=True)
    logs.mkdir(parents=True, exist_ok=True)
    done = {step: threading.Event() for step in steps}
    codes: dict[str, int | None] = {}
    lock = threading.Lock()

    def one(number, step, args, needs):
        code = None  # not run
        try:
            for need in needs:
                done[need].wait()
            if any(codes.get(need) != 0 for need in needs):
                with lock:
                    print(f"\n=== {step}: not run ({', '.join(needs)} failed)", flush=True)
                return
            code = 1  # until the step has run and reported
            start = time.perf_counter()
            with open(logs / f"step-{number}.log", "w+", encoding="utf-8",
                      errors="replace") as log:
                code, cpu = wait(subprocess.Popen([str(a) for a in args], cwd=cwd,
                                                  stdout=log, stderr=subprocess.STDOUT))
                seconds = time.perf_counter() - start
                log.seek(0)
                with lock:
                    print(f"\n=== {step}", flush=True)
                    print(log.read(), end="", flush=True)
                    verdict = "ok" if code == 0 else f"FAILED (exit {code})"
                    print(f"=== {step}: {verdict} in {seconds:.0f} s ({cpu:.0f} CPU-s; "
                          f"started at {start - began:.0f} s)", flush=True)
        except Exception as error:  # a step that cannot start or report fails, loudly
            with lock:
                print(f"\n=== {step}: FAILED ({type(error).__name__}: {error})", flush=True)
        finally:  # whatever happened, the steps that wait for this one go on
            codes[step] = code
            done[step].set()

    began = time.perf_counter()
    threads = [threading.Thread(target=one, args=(number, step, args, needs))
               for number, (step, (args, needs)) in enumerate(steps.items())]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failed = [code for code in codes.values() if code]
    if failed or len(codes) < len(steps) or None in codes.values():
        sys.exit(failed[0] if failed else 1)
