"""A tournament between any agents: `python evaluate.py --help` (the same as `meeple evaluate`).

A thin wrapper for a checkout: the code is `meeple.cli.evaluate` (cli/evaluate.py), inside the package so that
an installed meeple (the `meeple` command) has it too. Same options, output and exit codes (2 for a bad
argument, 130 on Ctrl-C).
"""

from __future__ import annotations

import sys

from checkout_entry import run  # the set-up check both entry scripts share (checkout_entry.py)

if __name__ == "__main__":
    sys.exit(run("evaluate", "evaluate.py"))
