"""Programs that `tasks.py` runs: each a module with a `main`, linted and tested."""
