"""Train a MaskablePPO agent on a meeple game by self-play: `python train.py --help` (the same as `meeple train`).

A thin wrapper for a checkout: the code is `meeple.cli.train` (cli/train.py), inside the package so that an
installed meeple (`pip install meeple[train]`, then the `meeple` command) has it too. Same options, output and
exit codes (2 for a bad argument, 130 when stopped before anything was saved).
"""

from __future__ import annotations

import sys

from checkout_entry import run  # the set-up check both entry scripts share (checkout_entry.py)

if __name__ == "__main__":
    sys.exit(run("train", "train.py"))
