"""What the trainers (`meeple train --algo ppo|exit|advantage`: meeple.cli.train, .exit, .advantage) share.

- `TrainerArgs`: the options every trainer's `Args` starts with, in the order --help lists them.
- `check_seed`, `check_time_limit`, `check_hidden`: argument checks several trainers make, with the same
  one-line message (ArgsError).
- `make_run_folder`: names the run (--exp-name, or a default of the game, players, seed and time) and makes its
  folder.
- `run_trainer`: a trainer's command line (`run_cli`): parse, train, and the exit code (0, 2 for a bad argument,
  130 when stopped at once).

Light on purpose: it imports neither torch nor SB3 (meeple.cli.train does), so the other trainers need not.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tyro

from meeple.agents.io import ArgsError


@dataclass
class TrainerArgs:
    """The first options of every trainer's `Args`. A trainer restates `algo`, `exp_name` and `run_dir` (and any
    other whose default or help is its own) in its `Args`: a restated field keeps its place in this order, so
    --help and the saved arguments (`asdict`) list these first, in this order, whatever the subclass writes."""

    algo: str = ""
    """the trainer (each `Args` restates it with its own name as the default)"""
    game: str = "roll_through_the_ages"
    """registered game (a key of meeple.envs.GAMES)"""
    num_players: int = 2
    """players per game"""
    variant: str = "{}"
    """the game's variant flags as JSON, e.g. '{"trade": true}'"""
    exp_name: str = ""
    """run name (each `Args` restates it with the default name of its runs)"""
    run_dir: str = "runs"
    """parent folder of the run's folder <name>/ (each `Args` restates it with what the run writes there)"""


def check_seed(args: Any) -> None:
    """--seed fits numpy's legacy seeding (32 bits), or ArgsError."""
    if not 0 <= args.seed < 2**32:
        raise ArgsError(f"--seed must be in [0, 2**32), got {args.seed}")


def check_time_limit(args: Any) -> None:
    """--time-limit-minutes is a finite number >= 0 (0 is the documented "no limit"), or ArgsError."""
    if not (args.time_limit_minutes >= 0 and math.isfinite(args.time_limit_minutes)):
        raise ArgsError(f"--time-limit-minutes must be a positive number of minutes, or 0 for no limit, "
                        f"got {args.time_limit_minutes}")


def check_hidden(args: Any) -> None:
    """--hidden has at least one layer, each at least 1 unit wide, or ArgsError."""
    if not args.hidden or any(width < 1 for width in args.hidden):
        raise ArgsError(f"--hidden needs at least one layer and every layer at least 1 unit, got "
                        f"{' '.join(map(str, args.hidden)) or 'nothing'}")


def make_run_folder(args: Any, prefix: str = "") -> Path:
    """Sets `args.run_name` to --exp-name, or by default <prefix><game>_<P>p_s<seed>_<date-time>, makes the run's
    folder <run-dir>/<run name> (and its parents) unless it exists, and returns it."""
    args.run_name = args.exp_name or f"{prefix}{args.game}_{args.num_players}p_s{args.seed}_{time.strftime('%Y%m%d-%H%M%S')}"
    run = Path(args.run_dir) / args.run_name
    run.mkdir(parents=True, exist_ok=True)
    return run


def run_trainer(args_type: type, main: Callable[[Any], Any], argv: list[str] | None, prog: str | None,
                interrupted: str) -> int:
    """`main(args)` with `args` parsed from `argv` (default sys.argv[1:]) into `args_type` by tyro; returns the exit
    code: 0, 2 for a bad argument (ArgsError: one `error:` line on stderr), 130 for a KeyboardInterrupt that
    reached here (a second signal, or a first one where the trainer could not stop at a safe point), with the
    line "<its message or 'interrupt'>; <interrupted>" on stderr."""
    try:
        main(tyro.cli(args_type, args=argv, prog=prog))
    except ArgsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print(f"{exc or 'interrupt'}; {interrupted}", file=sys.stderr)
        return 130
    return 0
