"""``python -m rankeval [options] QRELS RUN [RUN ...]``: the command line of :mod:`rankeval.cli`.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

import sys

from .cli import main

if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    sys.exit(main())
