"""Regenerate the pictures in docs/img/: one mid-game position of every game (`game.render_rgb`).

    python scripts/pictures.py                      # every game into docs/img/<game>.png
    python scripts/pictures.py --games hadara --out /tmp/pics

Each game is played by its heuristic agent (so the position looks like a game people play) from a fixed
seed until a named moment of the middle game; the same seed and code give the same picture. The
pictures are spectator views: public information only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import tyro
from PIL import Image

from meeple.agents import make_agent
from meeple.envs import GAMES, make
from meeple.envs.attika import data as attika
from meeple.envs.carpe_diem import data as carpe_diem
from meeple.envs.hadara import data as hadara
from meeple.envs.roll_through_the_ages import data as rtta

REPO = Path(__file__).resolve().parent.parent


class Moment(NamedTuple):
    """Where a game's picture is taken: its configuration and the first state (row 0) `reached` accepts."""

    num_players: int
    seed: int
    reached: Callable[[Any], bool]
    caption: str


MOMENTS: dict[str, Moment] = {
    "roll_through_the_ages": Moment(3, 2, lambda s: s.round[0] == 9 and s.decision[0] == rtta.DEC_BUILD,
                                    "3 players, round 9, building"),
    "hadara": Moment(3, 2, lambda s: s.epoch[0] == 1 and s.decision[0] == hadara.DEC_B_PICK and s.pick[0] == 4,
                     "3 players, epoch II, phase B"),
    "carpe_diem": Moment(3, 2, lambda s: s.phase[0] == 2 and s.round[0] == 3 and s.decision[0] == carpe_diem.DEC_PLACE,
                         "3 players, phase 3, round 4, building"),
    "attika": Moment(3, 2, lambda s: s.round[0] == 12 and s.decision[0] == attika.DEC_PENDING_REVEAL,
                     "3 players, round 13"),
    "utopia": Moment(3, 2, lambda s: s.round[0] == 6 and s.phase[0] == 1,
                     "3 players, round 6, development"),
}


@dataclass
class Args:
    games: list[str] = field(default_factory=lambda: list(MOMENTS))
    """games to draw (keys of meeple.envs.GAMES)"""
    out: Path = REPO / "docs" / "img"
    """directory of the <game>.png files"""
    max_steps: int = 5000
    """give up (ValueError) if the moment has not come after this many steps"""


def position(name: str, moment: Moment, max_steps: int) -> tuple[Any, Any]:
    """(game, one-row state) at `moment` of a game its heuristic agent plays from `moment.seed`."""
    game = make(name, num_players=moment.num_players)
    agent = make_agent("heuristic", name, num_players=moment.num_players)
    rng = np.random.default_rng(moment.seed)
    state = game.init(rng, 1)
    for _ in range(max_steps):
        if moment.reached(state):
            return game, state
        if state.done[0]:
            break
        state = game.step(state, agent.act(game, state, rng), rng)
    raise ValueError(f"{name}: the game never reached its picture's moment ({moment.caption})")


def main(args: Args) -> None:
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.games:
        if name not in GAMES:
            raise ValueError(f"unknown game {name!r}; games: {list(GAMES)}")
        moment = MOMENTS[name]
        game, state = position(name, moment, args.max_steps)
        path = args.out / f"{name}.png"
        Image.fromarray(game.render_rgb(state)).save(path, optimize=True)
        print(f"{path}  {moment.caption}  {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main(tyro.cli(Args))
