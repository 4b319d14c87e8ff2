"""Copy the PDF edition into the built website, once both are built.

    python tools/attach_pdf.py PDF TARGET
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        sys.exit(__doc__)
    pdf, target = map(Path, args)
    if not pdf.is_file():
        sys.exit(f"no PDF edition at {pdf}")
    shutil.copy2(pdf, target)
    print(f"{pdf} -> {target}")


if __name__ == "__main__":
    main()
