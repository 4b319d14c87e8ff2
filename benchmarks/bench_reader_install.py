"""How big and how slow a reader's install is: requirements-reader.txt against requirements.txt.

Creates a fresh virtual environment for each requirements file in a temporary folder,
installs it with pip (the wheels come from pip's cache when it has them, as for a reader
who installed before; ``--no-cache`` measures a first install), and prints the install
time and the size of the environment on disk. The reader's file is what the notebooks zip
ships as its requirements.txt; requirements.txt is the book's build set.

    python benchmarks/bench_reader_install.py                 # both files
    python benchmarks/bench_reader_install.py --only reader   # the reader's install only
    python benchmarks/bench_reader_install.py --no-cache      # bypass pip's cache
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = {"reader": ROOT / "requirements-reader.txt", "build": ROOT / "requirements.txt"}


def tree_size(path: Path) -> int:
    """Bytes on disk of every file under `path` (symlinks not followed)."""
    total = 0
    for folder, _, names in os.walk(path):
        for name in names:
            file = Path(folder) / name
            if not file.is_symlink():
                total += file.stat().st_size
    return total


def measure(requirements: Path, no_cache: bool) -> dict:
    """Install `requirements` into a new venv; its time (s) and size (MB)."""
    with tempfile.TemporaryDirectory(prefix="reader-install-") as tmp:
        env = Path(tmp) / "venv"
        venv.EnvBuilder(with_pip=True).create(env)
        python = env / ("Scripts" if os.name == "nt" else "bin") / "python"
        empty = tree_size(env)
        command = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                   "-r", str(requirements)]
        if no_cache:
            command.append("--no-cache-dir")
        start = time.perf_counter()
        subprocess.run(command, check=True)
        seconds = time.perf_counter() - start
        size = tree_size(env)
        listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"],
                                capture_output=True, text=True, check=True).stdout
    return {"seconds": seconds, "mb": size / 1e6, "added_mb": (size - empty) / 1e6,
            "packages": len(listed.splitlines())}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(FILES), help="measure one file only")
    parser.add_argument("--no-cache", action="store_true", help="pip --no-cache-dir")
    args = parser.parse_args(argv)
    names = [args.only] if args.only else ["reader", "build"]
    print(f"Python {sys.version.split()[0]}, pip cache {'off' if args.no_cache else 'on'}")
    print("| requirements | packages | install s | venv MB | added MB |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        result = measure(FILES[name], args.no_cache)
        print(f"| {FILES[name].name} | {result['packages']} | {result['seconds']:.0f} | "
              f"{result['mb']:.0f} | {result['added_mb']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
