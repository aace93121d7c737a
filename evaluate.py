"""Play seeded games between agents and print win rates with 95% intervals, plus one JSON line.

    python evaluate.py --game roll_through_the_ages --agents heuristic random --games 1000
    python evaluate.py --agents heuristic random --num-players 3 --json out.json
    python evaluate.py --agents heuristic --num-players 1           # solo: mean score only

All games run in one batched rules state (batch = games). Game i seats agent (seat + i) mod n_agents,
so every agent plays every seat equally often; with fewer agents than seats they are cycled and an
agent holds several seats of a game. A win rate is the fraction of an agent's games won by one of its
seats (shared 1/k when k seats tie for the best result), so equal agents each get 1/n_agents; mean
scores are per seat. Each agent draws from its own generator, seeded from --seed.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import tyro

from meeple.agents import make_agent
from meeple.agents.arena import play_games
from meeple.envs import make


@dataclass
class Args:
    game: str = "roll_through_the_ages"
    """registered game name (meeple.envs.GAMES)"""
    agents: tuple[str, ...] = ("heuristic", "random")
    """agent specs ("random", "heuristic"), cycled over the seats when fewer than the players"""
    games: int = 1000
    """number of games, all played at once in one batch"""
    num_players: int = 2
    """seats per game (1 plays the solo variant where the game has one)"""
    seed: int = 0
    """base seed: the dice and each agent's generator are seeded from it"""
    variant: str = "{}"
    """JSON object of variant flags passed to the game, e.g. '{"trade": true}'"""
    json: str | None = None
    """also write the full results (with per-game seats, scores and returns) to this file"""
    progress: bool = True
    """show a progress bar over steps (--no-progress hides it)"""


def format_table(result: dict) -> str:
    """The per-agent summary as aligned text."""
    solo = result["num_players"] == 1
    width = max(len("agent"), *(len(a["name"]) for a in result["agents"]))
    lines = [f"{'agent':<{width}}  {'games':>6}  {'seats':>6}  {'win rate':>8}  {'95% interval':>16}  {'mean score':>10}"]
    for a in result["agents"]:
        if solo:
            win, ci = "-", "-"
        else:
            win, ci = f"{a['win_rate']:.3f}", f"[{a['win_ci95'][0]:.3f}, {a['win_ci95'][1]:.3f}]"
        lines.append(f"{a['name']:<{width}}  {a['games']:>6}  {a['seats']:>6}  {win:>8}  {ci:>16}  {a['mean_score']:>10.2f}")
    return "\n".join(lines)


def main(args: Args) -> dict:
    # --- setup ---
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    if not args.agents:
        raise ValueError("--agents needs at least one agent spec")
    variant = json.loads(args.variant)
    if not isinstance(variant, dict):
        raise ValueError(f"--variant must be a JSON object, got {args.variant!r}")
    game = make(args.game, num_players=args.num_players, **variant)
    agents = [make_agent(spec, args.game) for spec in args.agents]

    # --- play ---
    start = time.perf_counter()
    result = play_games(game, agents, args.games, args.seed, names=args.agents, progress=args.progress)
    result["seconds"] = round(time.perf_counter() - start, 3)

    # --- report ---
    print(f"{args.game}, {args.num_players} player(s), {args.games} games, seed {args.seed}: "
          f"{result['steps']} steps in {result['seconds']:.1f} s, {result['truncated']} truncated")
    print(format_table(result))
    summary = {k: v for k, v in result.items() if k != "per_game"}
    print(json.dumps(summary))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f)
    return result


if __name__ == "__main__":
    main(tyro.cli(Args))
