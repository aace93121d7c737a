"""What the checkout's two entry scripts, train.py and evaluate.py, share: run a `meeple.cli` command, or,
when the script runs outside the project's venv, say how to set up instead of printing a traceback.

It lives beside them rather than in the package because it must work before `meeple` can be imported.
"""

from __future__ import annotations

import importlib
import sys

# the packages scripts/setup.sh installs: one of them missing means a python outside the project's venv
SETUP_INSTALLS = ("meeple", "torch", "numpy", "numba", "tyro", "sb3_contrib", "stable_baselines3", "gymnasium",
                  "pettingzoo")


def run(command: str, script: str) -> int:
    """Run `meeple.cli.<command>`'s command line as the checkout's `script`; returns its exit code."""
    try:
        cli = importlib.import_module(f"meeple.cli.{command}")
    except ModuleNotFoundError as exc:
        if exc.name not in SETUP_INSTALLS:
            raise
        sys.exit(f"error: {exc.name} is not installed for {sys.executable}; run `bash scripts/setup.sh` once, then "
                 f"`.venv/bin/python {script} ...` (or `source .venv/bin/activate` first)")
    return cli.run_cli()
