"""Rewrite the golden playthroughs under tests/playthroughs/ (envs/playthrough.py says what they hold).

    python scripts/gen_playthroughs.py                 # every registered game and test configuration
    python scripts/gen_playthroughs.py --game hadara   # one game

Run it only when a change of behaviour is intended, and commit the new files on their own with the reason.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from meeple.envs.playthrough import golden_cases, playthrough_file

OUT = Path(__file__).resolve().parent.parent / "tests" / "playthroughs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", help="only this game")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, config, filename in golden_cases():
        if args.game and name != args.game:
            continue
        text = playthrough_file(name, config)
        (OUT / filename).write_text(text)
        print(f"{filename}: {text.count(chr(10))} lines")


if __name__ == "__main__":
    main()
