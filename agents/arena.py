"""Matches between agents: N seeded games in one batched rules state, with seats rotated.

`play_games` is the building block for `evaluate.py` and for tournaments: game i seats agent
(seat + i) mod n_agents, so with n_agents dividing the number of games every agent plays every seat
equally often. With fewer agents than seats an agent holds several seats of a game.

A game's win goes to the seat with the best return, shared 1/k when k seats tie; an agent's wins in a
game are the shares of all its seats, so its win rate is the fraction of its games it won, equal
agents each get 1/n_agents when every agent plays every game, and the rates then sum to 1. Scores
and returns are averaged over the agent's seats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
from tqdm.auto import tqdm


def seat_agents(n_games: int, num_players: int, n_agents: int) -> np.ndarray:
    """(n_games, num_players) int64: the agent index in each seat, rotated by one per game."""
    return (np.arange(num_players)[None, :] + np.arange(n_games)[:, None]) % n_agents


def wilson_interval(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a success rate (95% for z = 1.96); (0, 1) when n = 0."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def unique_labels(names: Sequence[str]) -> list[str]:
    """The names, with `#index` appended where a name occurs more than once."""
    return [f"{n}#{k}" if list(names).count(n) > 1 else n for k, n in enumerate(names)]


def play_games(game: Any, agents: Sequence[Any], n_games: int, seed: int, *,
               names: Sequence[str] | None = None, progress: bool = False) -> dict:
    """Play `n_games` games of `game` between `agents` in one batch; return a JSON-ready summary.

    Args:
        game: a rules core (`meeple.envs.core.Game`).
        agents: objects with `name` and `act(game, state, rng)`; seats are rotated over them.
        n_games: the batch size.
        seed: seeds the dice and, separately, every agent's generator (same seed, same results).
        names: labels for the agents in the results (default: their `name`s); made unique.
        progress: show a tqdm bar over steps.
    Returns:
        {"game", "config", "num_players", "games", "seed", "steps", "truncated", "agents": [one
        summary per agent: name, games, seats, wins, win_rate, win_ci95 (Wilson, over its games),
        mean_score, mean_return (over its seats)], "per_game": {"seat_agent", "scores", "returns"}}.
        Solo games have no win rate (None).
    Raises:
        RuntimeError: if an agent returns an illegal action, or games outlast `max_game_length`.
    """
    if not agents:
        raise ValueError("play_games needs at least one agent")
    P = game.num_players
    labels = unique_labels(names if names is not None else [str(agent.name) for agent in agents])
    seats = seat_agents(n_games, P, len(agents))
    env_seq, *agent_seqs = np.random.SeedSequence(seed).spawn(1 + len(agents))
    env_rng = np.random.default_rng(env_seq)
    agent_rngs = [np.random.default_rng(s) for s in agent_seqs]
    rows = np.arange(n_games)

    state = game.init(env_rng, n_games)
    steps = 0
    with tqdm(disable=not progress, unit="step", desc=game.info.name, leave=False) as bar:
        while not state.done.all():
            owner = np.where(state.done, -1, seats[rows, state.to_play])
            actions = np.zeros(n_games, dtype=np.int64)
            for k, agent in enumerate(agents):
                mine = owner == k
                if mine.any():  # each agent sees the whole batch; keep its rows
                    actions = np.where(mine, agent.act(game, state, agent_rngs[k]), actions)
            legal = game.legal_action_mask(state)[rows, actions]
            if not legal.all():
                bad = int(np.flatnonzero(~legal)[0])
                raise RuntimeError(f"agent {labels[owner[bad]]!r} chose illegal action {actions[bad]} in game {bad}")
            state = game.step(state, actions, env_rng)
            steps += 1
            if steps > game.info.max_game_length:
                raise RuntimeError(f"games still running after {steps} steps (max_game_length)")
            bar.update(1)
            if steps % 50 == 0:
                bar.set_postfix(done=f"{int(state.done.sum())}/{n_games}")

    scores = game.scores(state).astype(np.int64)
    returns = game.returns(state).astype(np.float64)
    top = returns == returns.max(axis=1, keepdims=True)
    share = top / top.sum(axis=1, keepdims=True)  # a win shared 1/k among k tied seats
    summaries = []
    for k, label in enumerate(labels):
        mine = seats == k  # (games, seats)
        played, n_seats = int(mine.any(axis=1).sum()), int(mine.sum())
        wins = float((share * mine).sum()) if P > 1 else None  # its seats' shares, summed per game
        summaries.append({
            "name": label,
            "games": played,
            "seats": n_seats,
            "wins": wins,
            "win_rate": wins / played if P > 1 and played else None,
            "win_ci95": list(wilson_interval(wins, played)) if P > 1 else None,
            "mean_score": float(scores[mine].mean()) if n_seats else None,
            "mean_return": float(returns[mine].mean()) if n_seats else None,
        })
    return {
        "game": game.info.name,
        "config": asdict(game.config),
        "num_players": P,
        "games": n_games,
        "seed": seed,
        "steps": steps,
        "truncated": int(np.asarray(getattr(state, "truncated", np.zeros(n_games, bool))).sum()),
        "agents": summaries,
        "per_game": {"seat_agent": seats.tolist(), "scores": scores.tolist(), "returns": returns.tolist()},
    }
