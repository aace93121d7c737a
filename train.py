"""Train a MaskablePPO agent on a meeple game by self-play: `python train.py --help` (the same as `meeple train`).

A thin wrapper for a checkout: the code is `meeple.cli.train` (cli/train.py), inside the package so that an
installed meeple (`pip install meeple[train]`, then the `meeple` command) has it too. Same options, output and
exit codes (2 for a bad argument, 130 when stopped before anything was saved).
"""

from __future__ import annotations

import sys

try:
    from meeple.cli.train import Args, main, run_cli, validate_args
except ModuleNotFoundError as exc:  # run outside the project's venv: say how to set up instead of a traceback
    if __name__ != "__main__" or exc.name not in ("meeple", "torch", "numpy", "numba", "tyro", "sb3_contrib",
                                                  "stable_baselines3", "gymnasium", "pettingzoo"):
        raise
    sys.exit(f"error: {exc.name} is not installed for {sys.executable}; run `bash scripts/setup.sh` once, then "
             f"`.venv/bin/python train.py ...` (or `source .venv/bin/activate` first)")

__all__ = ["Args", "main", "run_cli", "validate_args"]  # what scripts and tests import from this file

if __name__ == "__main__":
    sys.exit(run_cli())
