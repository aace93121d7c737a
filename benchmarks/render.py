"""Milliseconds per picture (`game.render_rgb`) for every game: the spectator view and a seat's view.

    python benchmarks/render.py                             # every game, 2 and the most players
    python benchmarks/render.py --games hadara --frames 50 --players 5

Positions come from seeded random play: one game per configuration is played to its end and `frames`
positions spread over it are drawn. "first pass" is the mean of the first drawing of each position as a
spectator: strings not drawn before are rendered by FreeType then (envs/canvas.py caches their masks for
every later frame). Then every position is drawn again as a spectator (seat None) and for the seat to
play: mean and slowest frame. The scores kernel is called once before timing (it compiles or loads from
the numba cache). Figures are wall-clock, so they include whatever else the machine is running.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import tyro

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, core, make


@dataclass
class Args:
    games: list[str] = field(default_factory=lambda: list(GAMES))
    """games to measure (keys of meeple.envs.GAMES)"""
    players: list[int] = field(default_factory=list)
    """player counts; default: 2 and the most each game's test configurations use"""
    frames: int = 30
    """positions per configuration"""
    seed: int = 0


def positions(game, frames: int, seed: int) -> list:
    """`frames` one-row states spread over one seeded random game (the start and the end included)."""
    rng = np.random.default_rng(seed)
    state = game.init(rng, 1)
    seen = [state]
    while not state.done[0] and len(seen) < game.info.max_game_length:
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
        seen.append(state)
    picks = np.linspace(0, len(seen) - 1, frames).round().astype(int)
    return [core.clone(seen[i]) for i in picks]


def time_frames(game, states: list, seat_view: bool) -> tuple[float, float]:
    """(mean, max) milliseconds of one picture."""
    times = []
    for state in states:
        seat = int(state.to_play[0]) if seat_view else None
        start = time.perf_counter()
        game.render_rgb(state, seat=seat)
        times.append(time.perf_counter() - start)
    return 1000 * float(np.mean(times)), 1000 * float(np.max(times))


def main(args: Args) -> None:
    print(f"{'game':<24}{'P':>3}  {'H x W':>11}  {'first pass':>10}  {'spectator ms':>16}  {'seat view ms':>16}")
    print(f"{'':<24}{'':>3}  {'':>11}  {'mean':>10}  {'mean':>8}{'max':>8}  {'mean':>8}{'max':>8}")
    for name in args.games:
        counts = args.players or sorted({2, max(c.get("num_players", 2) for c in GAMES[name].test_configs)})
        for P in counts:
            game = make(name, num_players=P)
            states = positions(game, args.frames, args.seed)
            game.scores(states[0])  # compiled (or loaded) before timing
            first = time_frames(game, states, seat_view=False)
            spectator = time_frames(game, states, seat_view=False)
            seat = time_frames(game, states, seat_view=True)
            shape = game.render_rgb(states[-1]).shape
            print(f"{name:<24}{P:>3}  {shape[0]:>5} x {shape[1]:<4}  {first[0]:>10.1f}  {spectator[0]:>8.1f}"
                  f"{spectator[1]:>8.1f}  {seat[0]:>8.1f}{seat[1]:>8.1f}")


if __name__ == "__main__":
    main(tyro.cli(Args))
