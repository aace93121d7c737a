"""Milliseconds per decision of agents (any make_agent specs) on the same positions, in one process.

    python benchmarks/decision_time.py --game hadara --agents search:hadara-2p:mode=rollout,sims=200,top_k=4 \
        mcts:200:mode=rollout,rollout=heuristic

A search with a net is compared fairly with the rollout agent only at equal time per decision; this
measures both on identical positions. The positions: `--batch` seeded games of the heuristic against
itself, each advanced by `--moves` moves, the unfinished rows kept. Every agent first acts once on two
rows (compiles or loads the kernels), then `--repeats` times on the whole batch in turn, with a fresh
seeded generator each time; the figure is the median call's time divided by the rows. Search agents act
on all rows at once (their playouts batched), as in evaluate.py and training. Wall-clock, so it includes
whatever else the machine runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import tyro

from meeple.agents import make_agent
from meeple.agents.tournament import heuristic_positions, ms_per_decision
from meeple.envs import GAMES, core, make


@dataclass
class Args:
    game: str = "hadara"
    """registered game (a key of meeple.envs.GAMES)"""
    agents: list[str] = field(default_factory=lambda: ["heuristic", "mcts:200:mode=rollout,rollout=heuristic"])
    """make_agent specs to time"""
    num_players: int = 2
    batch: int = 32
    """positions timed per call"""
    moves: int = 30
    """heuristic moves played from the start to reach the positions"""
    repeats: int = 3
    """timed calls per agent (the median counts)"""
    seed: int = 0
    json: str | None = None
    """also write the figures to this JSON file"""


def main(args: Args) -> dict:
    if args.game not in GAMES:
        raise SystemExit(f"error: unknown game {args.game!r}; registered: {', '.join(GAMES)}")
    if args.batch < 1 or args.moves < 0 or args.repeats < 1:
        raise SystemExit("error: --batch and --repeats must be at least 1 and --moves at least 0")
    game = make(args.game, num_players=args.num_players)
    agents = [make_agent(spec, args.game, args.num_players) for spec in args.agents]
    state = heuristic_positions(game, make_agent("heuristic", args.game), args.batch, args.moves, args.seed)
    rows = core.batch_size(state)
    if rows == 0:
        raise SystemExit(f"error: every game ended within {args.moves} moves; use fewer --moves")
    ms = ms_per_decision(game, agents, state, args.repeats, args.seed)
    result = {"game": args.game, "num_players": args.num_players, "positions": rows, "moves": args.moves,
              "ms_per_decision": {spec: round(m, 2) for spec, m in zip(args.agents, ms)}}
    print(f"{args.game}, {args.num_players} players: {rows} positions after {args.moves} heuristic moves, "
          f"median of {args.repeats} calls")
    for spec, ms in result["ms_per_decision"].items():
        print(f"  {ms:9.2f} ms per decision  {spec}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main(tyro.cli(Args))
