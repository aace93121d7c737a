"""A tournament between any agents: `python evaluate.py --help` (the same as `meeple evaluate`).

A thin wrapper for a checkout: the code is `meeple.cli.evaluate` (cli/evaluate.py), inside the package so that
an installed meeple (the `meeple` command) has it too. Same options, output and exit codes (2 for a bad
argument, 130 on Ctrl-C).
"""

from __future__ import annotations

import sys

try:
    from meeple.cli.evaluate import Args, main, run_cli, validate_args
except ModuleNotFoundError as exc:  # run outside the project's venv: say how to set up instead of a traceback
    if __name__ != "__main__" or exc.name not in ("meeple", "torch", "numpy", "numba", "tyro", "sb3_contrib",
                                                  "stable_baselines3", "gymnasium", "pettingzoo"):
        raise
    sys.exit(f"error: {exc.name} is not installed for {sys.executable}; run `bash scripts/setup.sh` once, then "
             f"`.venv/bin/python evaluate.py ...` (or `source .venv/bin/activate` first)")

__all__ = ["Args", "main", "run_cli", "validate_args"]  # what scripts and tests import from this file

if __name__ == "__main__":
    sys.exit(run_cli())
