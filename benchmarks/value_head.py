"""How well a value net learns a game from the heuristic's games, and whether it can cut playouts short.

    python benchmarks/value_head.py --game hadara --games 300000 --keep 0.015          # the value net alone
    python benchmarks/value_head.py --game hadara --games 300000 --keep 0.015 --tournament-games 100

1. Plays `--games` games of the heuristic against itself in batches and keeps each position (the seat to
   move, observed and encoded as the nets see it) with probability `--keep`, so each game gives only a few
   positions: every position of a game shares that game's result, and a net trained on many positions of
   few games learns the games instead of the positions (docs/training.md). `--holdout-games` more games
   from another generator are the test set.
2. The target (`--target playout`) is the rollout agent's playout value for each seat, halved into [-1, 1]:
   (result + the score term) / 2, where the score term is tanh(score lead over the best other seat / 10),
   the `RolloutAgent`'s value of a finished playout; or (`--target result`) the result alone, as the
   nets' value heads learn it. Seat-relative, like the nets' value heads.
3. Trains the value head of a `PolicyValueNet` (`--hidden`; `fit` with AdamW, the policy head left alone)
   and keeps the epoch with the lowest held-out mean squared error; prints it beside the error of always
   answering 0.
4. With `--tournament-games` > 0: the rollout search with `--base` as its base move and heuristic
   playouts cut after `--depth` steps, valued by this net (`RolloutAgent(max_steps=..., leaf_evaluator=...)`,
   what `search:<net>:mode=rollout,depth=D` does with a net's own value head) plays `--against`, and
   both agents' time per decision is measured first on the same 16 positions (`decision_time.py`'s, 30 heuristic moves in).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import tyro

from meeple.agents import make_agent
from meeple.agents.mcts import RolloutAgent, ScoreEvaluator
from meeple.agents.net import NetEvaluator, PolicyValueNet, fit, to_relative, value_targets

from meeple.agents.tournament import heuristic_positions, ms_per_decision, run_tournament
from meeple.envs import core, first_use, make


@dataclass
class Args:
    game: str = "hadara"
    num_players: int = 2
    games: int = 60000
    """heuristic games to learn from"""
    keep: float = 0.05
    """probability of keeping each position of those games"""
    holdout_games: int = 2000
    """heuristic games to test on (their own generator)"""
    holdout_keep: float = 0.1
    """probability of keeping each position of the held-out games"""
    target: str = "playout"
    """playout: (result + score term) / 2; result: the result alone (rank returns)"""
    hidden: tuple[int, ...] = (256, 256)
    epochs: int = 5
    batch_size: int = 512
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    torch_threads: int = 2
    seed: int = 0
    tournament_games: int = 0
    """games of the cut search against --against (0: train only)"""
    base: str = "net:hadara-2p"
    """agent spec of the search's base move"""
    simulations: int = 400
    depth: int = 16
    """playout steps before the value net takes over"""
    against: str = "mcts:200:mode=rollout,rollout=heuristic"


def positions(game: Any, encode: Any, heuristic: Any, n_games: int, keep: float, target_kind: str,
              rng: np.random.Generator, batch: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """(encoded positions (n, D) float32, seat-relative targets (n, P) float32: `Args.target`)."""
    scores = ScoreEvaluator()
    all_obs, all_values = [], []
    for first in range(0, n_games, batch):
        n = min(batch, n_games - first)
        state = game.init(rng, n)
        obs, rows, seats = [], [], []
        while not state.done.all():
            live = ~np.asarray(state.done, dtype=np.bool_)
            kept = np.flatnonzero(live & (rng.random(n) < keep))
            if kept.size:
                sub = core.take(state, kept)
                obs.append(encode(sub))
                rows.append(kept)
                seats.append(np.asarray(sub.to_play, dtype=np.int64))
            actions = np.asarray(heuristic.act(game, state, rng), dtype=np.int64)
            state = game.step(state, np.where(live, actions, 0), rng)
        result = value_targets(game, state)
        target = (result + scores(game, state)) / 2 if target_kind == "playout" else result
        if obs:
            row = np.concatenate(rows)
            all_obs.append(np.concatenate(obs))
            all_values.append(to_relative(target[row], np.concatenate(seats)).astype(np.float32))
    return np.concatenate(all_obs), np.concatenate(all_values)


class ValueEvaluator(NetEvaluator):
    """A `RolloutAgent` leaf evaluator from the trained value head. The agent adds the score term now to what
    this returns: a result net's value stands for the result; a playout net's halved value, doubled, stands
    for result + final score term, so the score term now is taken off it."""

    def __init__(self, net: PolicyValueNet, target: str) -> None:
        super().__init__(net)
        self.scores, self.target = ScoreEvaluator(), target

    def __call__(self, game: Any, state: Any) -> np.ndarray:
        values = super().__call__(game, state)
        return values if self.target == "result" else 2 * values - self.scores(game, state)


def main(args: Args) -> None:
    if args.target not in ("playout", "result"):
        raise SystemExit(f"--target must be playout or result, got {args.target!r}")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    game = make(args.game, num_players=args.num_players)
    first_use.wait_for_kernels()
    net = PolicyValueNet.for_game(args.game, game, tuple(args.hidden), seed=args.seed)
    heuristic = make_agent("heuristic", args.game, args.num_players)
    t0 = time.perf_counter()
    x, y = positions(game, lambda s: net.encode(game, s), heuristic, args.games, args.keep, args.target,
                     np.random.default_rng([args.seed, 1]))
    xt, yt = positions(game, lambda s: net.encode(game, s), heuristic, args.holdout_games, args.holdout_keep,
                       args.target, np.random.default_rng([args.seed, 2]))
    print(f"{args.game}: {len(x):,} positions from {args.games:,} games, {len(xt):,} held out from "
          f"{args.holdout_games:,}, {time.perf_counter() - t0:.0f} s", flush=True)

    # the value loss alone: an all-zero policy target adds nothing to the cross-entropy
    A = int(game.num_actions)
    data = {"obs": x, "value": y, "mask": np.ones((len(x), A), np.bool_), "policy": np.zeros((len(x), A), np.float32)}
    held_out_mask = np.ones((len(xt), A), np.bool_)
    optimizer = torch.optim.AdamW(net.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
    rng = np.random.default_rng([args.seed, 3])
    best, best_state = float("inf"), None
    print(f"held-out MSE of always 0: {float((yt ** 2).mean()):.3f}")
    for epoch in range(args.epochs):
        t0 = time.perf_counter()
        stats = fit(net, optimizer, data, 1, args.batch_size, rng, max_grad_norm=float("inf"))
        predicted = net.predict(xt, held_out_mask)[1]
        mse = float(((predicted - yt) ** 2).mean())
        corr = float(np.corrcoef(predicted[:, 0], yt[:, 0])[0, 1])
        print(f"epoch {epoch}: training MSE {stats['value_mse']:.3f}, held out {mse:.3f} (correlation {corr:.3f}), "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
        if mse < best:
            best, best_state = mse, {k: v.clone() for k, v in net.state_dict().items()}
    net.load_state_dict(best_state)
    print(f"best held-out MSE {best:.3f}")
    if args.tournament_games <= 0:
        return

    torch.set_num_threads(1)
    agent = RolloutAgent(simulations=args.simulations, rollout_agent=make_agent("heuristic", args.game),
                         base_agent=make_agent(args.base, args.game, args.num_players), max_steps=args.depth,
                         leaf_evaluator=ValueEvaluator(net, args.target))
    agent.name = f"cut:{args.depth}x{args.simulations}"
    rival = make_agent(args.against, args.game, args.num_players)
    times = ms_per_decision(game, [agent, rival], heuristic_positions(game, heuristic, 16, 30, args.seed), 3, args.seed)
    print(f"ms per decision (16 positions): {agent.name} {times[0]:.1f}, {args.against} {times[1]:.1f}", flush=True)
    result = run_tournament(args.game, [agent, rival], num_players=args.num_players, games=args.tournament_games,
                            seed=args.seed)
    for row in result["agents"]:
        low, high = row["win_ci95"]
        print(f"{row['name']}: wins {row['win_rate']:.1%} [{low:.1%}, {high:.1%}] of {row['games']}, "
              f"mean score {row['mean_score']:.1f}")


if __name__ == "__main__":
    main(tyro.cli(Args))
