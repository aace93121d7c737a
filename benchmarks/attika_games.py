"""How Attika games end, and how strong the heuristic is: batched games through the rules core.

    python benchmarks/attika_games.py --games 1000 --json attika_games.json

For 2, 3 and 4 players: (a) random self-play and heuristic self-play: the share of games won by
connecting two shrines, by placing all 30 buildings, and cut by the round cap, with mean rounds and
decisions per game; (b) one heuristic seat (rotated over the seats) against random players: its win
rate with a 95% Wilson interval.
"""

from __future__ import annotations

import os
import json
from dataclasses import dataclass

import numpy as np
import tyro

from meeple.agents.heuristics.attika import Heuristic
from meeple.agents.random_agent import sample_masked
from meeple.envs.attika import data
from meeple.envs.attika.rules import Attika

os.environ.setdefault("MEEPLE_COMPILE", "wait")  # timed: compile before the first step, never run kernels as Python


@dataclass
class Args:
    games: int = 1000
    """games per player count and matchup"""
    players: tuple[int, ...] = (2, 3, 4)
    seed: int = 0
    json: str | None = None


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def play(game: Attika, heuristic_seat: np.ndarray | None, all_heuristic: bool, rng: np.random.Generator):
    """Play len(heuristic_seat) (or args.games) games; returns the final state and decisions per game."""
    B = heuristic_seat.shape[0]
    state = game.init(rng, B)
    heuristic = Heuristic()
    decisions = np.zeros(B, dtype=np.int64)
    while not state.done.all():
        mask = game.legal_action_mask(state)
        actions = sample_masked(mask, rng)
        use = np.ones(B, bool) if all_heuristic else (state.to_play == heuristic_seat)
        if use.any():
            actions = np.where(use, heuristic.act(game, state, rng), actions)
        decisions += ~state.done
        game.step_inplace(state, actions, rng)
    return state, decisions


def endings(state, decisions) -> dict:
    won = state.winner >= 0
    thirty = won & (state.placed.max(axis=1) >= data.BUILDINGS_PER_PLAYER)
    return {"shrine_wins": float((won & ~thirty).mean()), "thirty_building_wins": float(thirty.mean()),
            "truncated": float(state.truncated.mean()), "mean_rounds": float(state.round.mean()),
            "mean_decisions": float(decisions.mean())}


def main(args: Args) -> dict:
    rng = np.random.default_rng(args.seed)
    out: dict = {}
    for P in args.players:
        game = Attika(num_players=P)
        seats = np.arange(args.games) % P
        row: dict = {}
        for name, all_h in (("random", False), ("heuristic", True)):
            state, decisions = play(game, np.full(args.games, -1) if not all_h else seats, all_h, rng)
            row[f"{name}_selfplay"] = endings(state, decisions)
        state, _ = play(game, seats, False, rng)
        wins = int((state.winner == seats).sum())
        lo, hi = wilson(wins, args.games)
        row["heuristic_vs_random"] = {"games": args.games, "wins": wins, "win_rate": wins / args.games,
                                      "ci95": [lo, hi], "draws": int(state.truncated.sum()), "fair_share": 1 / P}
        out[P] = row
        print(f"P={P}: heuristic vs random {wins}/{args.games} = {wins / args.games:.3f} [{lo:.3f}, {hi:.3f}]")
        for name in ("random_selfplay", "heuristic_selfplay"):
            e = row[name]
            print(f"  {name}: shrine {e['shrine_wins']:.3f}  thirty {e['thirty_building_wins']:.3f}  truncated "
                  f"{e['truncated']:.3f}  rounds {e['mean_rounds']:.1f}  decisions {e['mean_decisions']:.0f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return out


if __name__ == "__main__":
    main(tyro.cli(Args))
