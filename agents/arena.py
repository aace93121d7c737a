"""Matches between agents: N seeded games in one batched rules state, with seats rotated.

`play_games` is the building block for `evaluate.py` and for tournaments (`tournament.py`): by
default game i seats agent (seat + i) mod n_agents, so with n_agents dividing the number of games
every agent plays every seat equally often; with fewer agents than seats an agent holds several seats
of a game. A caller may pass its own seating (`seats`) instead.

Chance comes either from one generator for the whole batch (the default), or, with `deals`, from one
generator per deal: game i draws its init uniforms and then one block of `uniforms_per_step` uniforms
per batch step from `np.random.default_rng([seed, deals[i]])`. Games with the same deal therefore
see the same chance stream (same start player and first dice, the same blocks in the same order):
duplicate play, as in duplicate bridge, so the luck is shared by every seating of a deal.

A game's win goes to the seat with the best return, shared 1/k when k seats tie; an agent's wins in a
game are the shares of all its seats, so its win rate is the fraction of its games it won, equal
agents each get 1/n_agents when every agent plays every game, and the rates then sum to 1. Scores
and returns are averaged over the agent's seats.

Each agent is handed only the rows where it is to move (a sub-batch), so a costly agent such as
MCTS searches only its own positions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from meeple.envs import core
from meeple.envs.batch import step_own


def seat_agents(n_games: int, num_players: int, n_agents: int) -> np.ndarray:
    """(n_games, num_players) int64: the agent index in each seat, rotated by one per game."""
    return (np.arange(num_players)[None, :] + np.arange(n_games)[:, None]) % n_agents


def wilson_interval(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a success rate (95% for z = 1.96); (0, 1) when n = 0. (Written out here:
    the libraries that have it, statsmodels' `proportion_confint` or scipy's `binomtest`, are not
    dependencies, and it is four lines.)"""
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


def summarize(labels: Sequence[str], seats: np.ndarray, scores: np.ndarray, returns: np.ndarray) -> list[dict]:
    """Per-agent results of finished games (wins shared among tied best seats; module docstring).

    Args:
        labels: one name per agent index.
        seats, scores, returns: (G, P) agent index, final score and return of every seat.
    Returns:
        One dict per agent: name, games, seats, wins, win_rate, win_ci95 (Wilson, over its games),
        mean_score, score_ci95 (normal approximation, over its seats), mean_return. Solo games
        (P = 1) have no wins (None).
    """
    seats, scores, returns = np.asarray(seats), np.asarray(scores, dtype=np.float64), np.asarray(returns, dtype=np.float64)
    P = seats.shape[1]
    top = returns == returns.max(axis=1, keepdims=True)
    share = top / top.sum(axis=1, keepdims=True)  # a win shared 1/k among k tied seats
    out = []
    for k, label in enumerate(labels):
        mine = seats == k  # (games, seats)
        played, n_seats = int(mine.any(axis=1).sum()), int(mine.sum())
        wins = float((share * mine).sum()) if P > 1 else None  # its seats' shares, summed per game
        mean = float(scores[mine].mean()) if n_seats else None
        half = 1.96 * float(scores[mine].std(ddof=1)) / math.sqrt(n_seats) if n_seats > 1 else 0.0
        out.append({
            "name": label,
            "games": played,
            "seats": n_seats,
            "wins": wins,
            "win_rate": wins / played if P > 1 and played else None,
            "win_ci95": list(wilson_interval(wins, played)) if P > 1 else None,
            "mean_score": mean,
            "score_ci95": [mean - half, mean + half] if n_seats > 1 else None,
            "mean_return": float(returns[mine].mean()) if n_seats else None,
        })
    return out


class DealStreams:
    """Per-deal chance: game i draws everything from `np.random.default_rng([seed, deals[i]])`.

    `init` draws each deal's start with `game.init(generator, 1)`; `next()` is the (B, K) block of the
    next batch step, row i taken from its deal's generator. Blocks are drawn `chunk` steps at a time;
    one `random((chunk, K))` call yields the same numbers as `chunk` calls of `random((1, K))`, so the
    stream does not depend on the chunk size.
    """

    def __init__(self, seed: int, deals: np.ndarray, uniforms_per_step: int, chunk: int = 32) -> None:
        self.unique, self.index = np.unique(np.asarray(deals, dtype=np.int64), return_inverse=True)
        self.generators = [np.random.default_rng([int(seed), int(d)]) for d in self.unique]
        self.K = int(uniforms_per_step)
        self.chunk = int(chunk)
        self._buffer = np.empty((len(self.unique), 0, self.K))
        self._used = 0

    def init(self, game: Any) -> Any:
        """The batch of new games: row i is `game.init` of deal i's generator (copied per game)."""
        starts = core.concatenate([game.init(g, 1) for g in self.generators])
        return core.take(starts, self.index)

    def next(self) -> np.ndarray:
        """(B, K) float64: every game's uniforms for this step."""
        if self._used == self._buffer.shape[1]:
            self._buffer = np.stack([g.random((self.chunk, self.K)) for g in self.generators])
            self._used = 0
        u = self._buffer[self.index, self._used]
        self._used += 1
        return u


def play_games(game: Any, agents: Sequence[Any], n_games: int, seed: int, *,
               names: Sequence[str] | None = None, seats: np.ndarray | None = None,
               deals: Sequence[int] | np.ndarray | None = None, record: bool = False,
               on_step: Callable[[Any, Any, np.ndarray, np.ndarray], None] | None = None,
               after_step: Callable[[Any, Any, np.ndarray, Any, np.ndarray], None] | None = None,
               agent_seed: Any = None, progress: bool | Any = False) -> dict:
    """Play `n_games` games of `game` between `agents` in one batch; return a JSON-ready summary.

    Args:
        game: a rules core (`meeple.envs.core.Game`).
        agents: objects with `name` and `act(game, state, rng)`.
        n_games: the batch size.
        seed: seeds the dice and, separately, every agent's generator (same seed, same results).
        names: labels for the agents in the results (default: their `name`s); made unique.
        seats: (n_games, P) agent index per seat; default `seat_agents` (rotated by one per game).
        deals: (n_games,) deal index per game: game i's chance comes from
            `default_rng([seed, deals[i]])`, so games of the same deal share their luck (module
            docstring; needs the game's `uniforms_per_step`). None: one generator for the batch.
        record: also return every game's actions (per_game["actions"], one list per game).
        on_step: called as `on_step(game, state, actions, owner)` before each step (owner: the agent
            index moving in each row, -1 where finished), e.g. to show a human the other moves.
        after_step: called as `after_step(game, before, actions, after, owner)` after each step (the
            states before and after it), e.g. `HumanAgent.watch` to narrate the other moves.
        agent_seed: entropy for the agents' generators instead of `seed` (e.g. [seed, chunk] when
            a tournament plays its deals in several batches).
        progress: show a tqdm bar over finished games, or a tqdm bar to advance (left open).
    Returns:
        {"game", "config", "num_players", "games", "seed", "steps", "truncated", "agents": [one
        `summarize` dict per agent: name, games, seats, wins, win_rate, win_ci95 (Wilson, over its
        games), mean_score, score_ci95, mean_return (over its seats)], "per_game": {"seat_agent", "scores", "returns",
        "length" (steps until the game ended), and "deal" / "actions" when asked}}. Solo games have
        no win rate (None).
    Raises:
        RuntimeError: if an agent returns an illegal action, or games outlast `max_game_length`.
    """
    if not agents:
        raise ValueError("play_games needs at least one agent")
    P = game.num_players
    labels = unique_labels(names if names is not None else [str(agent.name) for agent in agents])
    if seats is None:
        seats = seat_agents(n_games, P, len(agents))
    seats = np.asarray(seats, dtype=np.int64)
    if seats.shape != (n_games, P) or seats.min() < 0 or seats.max() >= len(agents):
        raise ValueError(f"seats must be ({n_games}, {P}) agent indices below {len(agents)}, got shape {seats.shape}")
    env_seq, *agent_seqs = np.random.SeedSequence(seed).spawn(1 + len(agents))
    if agent_seed is not None:
        agent_seqs = np.random.SeedSequence(agent_seed).spawn(len(agents))
    agent_rngs = [np.random.default_rng(s) for s in agent_seqs]
    rows = np.arange(n_games)
    if deals is None:
        env_rng = np.random.default_rng(env_seq)
        state = game.init(env_rng, n_games)
        streams = None
    else:
        deals = np.asarray(deals, dtype=np.int64)
        if deals.shape != (n_games,):
            raise ValueError(f"deals must have shape ({n_games},), got {deals.shape}")
        streams = DealStreams(seed, deals, game.uniforms_per_step)
        state = streams.init(game)

    steps = 0
    length = np.zeros(n_games, dtype=np.int64)
    history: list[list[int]] = [[] for _ in range(n_games)]
    own_bar = isinstance(progress, bool)
    bar = tqdm(total=n_games, disable=not progress, unit="game", desc=game.info.name, leave=False) if own_bar else progress
    try:
        while not state.done.all():
            live = ~state.done
            owner = np.where(live, seats[rows, state.to_play], -1)
            actions = np.zeros(n_games, dtype=np.int64)
            for k, agent in enumerate(agents):
                mine = np.flatnonzero(owner == k)
                if mine.size:  # each agent sees only the rows where it is to move
                    sub = state if mine.size == n_games else core.take(state, mine)
                    actions[mine] = np.asarray(agent.act(game, sub, agent_rngs[k]), dtype=np.int64)
            mask = game.legal_action_mask(state)
            legal = mask[rows, actions]
            if not legal.all():
                bad = int(np.flatnonzero(~legal)[0])
                raise RuntimeError(f"agent {labels[owner[bad]]!r} chose illegal action {actions[bad]} in game {bad}")
            if on_step is not None:
                on_step(game, state, actions, owner)
            if record:
                for i in np.flatnonzero(live):
                    history[i].append(int(actions[i]))
            before = state
            if streams is None:
                state = step_own(game, state, actions, mask, rng=env_rng)
            else:
                state = step_own(game, state, actions, mask, u=streams.next())
            if after_step is not None:
                after_step(game, before, actions, state, owner)
            steps += 1
            length += live
            if steps > game.info.max_game_length:
                raise RuntimeError(f"games still running after {steps} steps (max_game_length)")
            bar.update(int(live.sum() - (~state.done).sum()))
    finally:
        if own_bar:
            bar.close()

    scores = game.scores(state).astype(np.int64)
    returns = game.returns(state).astype(np.float64)
    per_game: dict[str, Any] = {"seat_agent": seats.tolist(), "scores": scores.tolist(), "returns": returns.tolist(),
                                "length": length.tolist()}
    if deals is not None:
        per_game["deal"] = deals.tolist()
    if record:
        per_game["actions"] = history
    return {
        "game": game.info.name,
        "config": asdict(game.config),
        "num_players": P,
        "games": n_games,
        "seed": seed,
        "steps": steps,
        "truncated": int(np.asarray(getattr(state, "truncated", np.zeros(n_games, bool))).sum()),
        "agents": summarize(labels, seats, scores, returns),
        "per_game": per_game,
    }


def head_to_head(game: Any, learner: Any, game_name: str, opponents: Sequence[str], n_games: int, seed: int,
                 progress: bool = False) -> dict:
    """{opponent spec: win_rate, win_ci95, mean_score, mean_return} of `learner` (an agent): per opponent spec,
    `n_games` seeded games (seed + 1000 * (k + 1) for the k-th) against P - 1 copies of it, seats rotated.
    The trainers' evaluation curves."""
    from meeple.agents import make_agent

    results = {}
    for k, spec in enumerate(opponents):
        agents = [learner] + [make_agent(spec, game_name)] * (game.num_players - 1)
        summary = play_games(game, agents, n_games, seed=seed + 1000 * (k + 1), progress=progress)["agents"][0]
        results[spec] = {key: summary[key] for key in ("win_rate", "win_ci95", "mean_score", "mean_return")}
    return results
