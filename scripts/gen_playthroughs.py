"""Rewrite the golden playthroughs under tests/playthroughs/ (envs/playthrough.py says what they hold).

    python scripts/gen_playthroughs.py                 # every registered game and test configuration
    python scripts/gen_playthroughs.py --game hadara   # one game

Run it only when a change of behaviour is intended, and commit the new files on their own with the reason.
A bad argument (an unknown --game) exits with code 2 and a one-line message naming it, before any file is written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import tyro

from meeple.agents.io import ArgsError
from meeple.envs.playthrough import golden_cases, playthrough_file

OUT = Path(__file__).resolve().parent.parent / "tests" / "playthroughs"


@dataclass
class Args:
    game: Annotated[str, tyro.conf.arg(metavar="GAME", help_behavior_hint="(default: every game)")] = ""
    """only this game (a key of meeple.envs.GAMES)"""


def validate_args(args: Args) -> None:
    """Raises ArgsError naming the first invalid argument."""
    games = sorted({name for name, _, _ in golden_cases()})
    if args.game and args.game not in games:
        raise ArgsError(f"--game: no golden playthroughs for {args.game!r}; games: {', '.join(games)}")


def main(argv: list[str] | None = None) -> int:
    """Parses the command line (`argv`, default sys.argv[1:]) and rewrites the files; returns the exit code:
    0, or 2 for a bad argument (one `error:` line on stderr, nothing written)."""
    args = tyro.cli(Args, args=argv, description=__doc__.splitlines()[0])
    try:
        validate_args(args)
    except ArgsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    for name, config, filename in golden_cases():
        if args.game and name != args.game:
            continue
        text = playthrough_file(name, config)
        (OUT / filename).write_text(text)
        print(f"{filename}: {text.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
