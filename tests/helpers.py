"""Helpers shared by the test modules: test ids, random play, and batches of games between agents.

Test modules import this as `from helpers import ...`: the tests folder has no `__init__.py`, so
pytest's default import mode puts it on `sys.path` (as it does for conftest.py), from the repo root,
in CI and in every pytest-xdist worker alike.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, core


# games per configuration of the random-game invariant sweeps (tests/test_<game>_invariants.py): 1,500 in
# CI; a longer sweep runs the same checks with more, e.g. MEEPLE_SWEEP_GAMES=20000 pytest tests/test_utopia_invariants.py
SWEEP_GAMES = int(os.environ.get("MEEPLE_SWEEP_GAMES", "1500"))


def config_id(config: dict[str, Any]) -> str:
    """A test id for a game configuration, e.g. "num_players=3-trade=True"."""
    return "-".join(f"{key}={value}" for key, value in config.items())


def case_id(name: str, config: dict[str, Any]) -> str:
    """A test id for one configuration of a registered game, e.g. "hadara-num_players=2"."""
    return f"{name}-{config_id(config)}"


def game_cases(extra: Sequence[tuple[str, dict[str, Any]]] = ()) -> list[Any]:
    """pytest params (name, config) for every registered game in each of its `test_configs`, then `extra`."""
    cases = [(name, config) for name, entry in GAMES.items() for config in entry.test_configs] + list(extra)
    return [pytest.param((name, config), id=case_id(name, config)) for name, config in cases]


def random_steps(game: Any, rng: np.random.Generator, batch: int, steps: int) -> Any:
    """The state of `batch` games after `steps` uniformly random legal moves (finished rows stay finished)."""
    state = game.init(rng, batch)
    for _ in range(steps):
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    return state


def random_playout(game: Any, rng: np.random.Generator, batch: int, record: bool = False) -> tuple[Any, list]:
    """Play `batch` random games to the end; optionally record (state, actions, u) per step."""
    state = game.init(rng, batch)
    history = []
    steps = 0
    while not state.done.all():
        mask = game.legal_action_mask(state)
        assert mask.any(axis=1).all(), "every row needs a legal action"
        actions = sample_masked(mask, rng)
        u = rng.random((batch, game.uniforms_per_step))
        if record:
            history.append((state, actions, u))
        state = game.apply(state, actions, u)
        steps += 1
        assert steps <= game.info.max_game_length, "game exceeded INFO.max_game_length"
    return state, history


def random_positions(game: Any, seed: int, games: int, per_game: int) -> Any:
    """`games * per_game` positions of seeded random games, none finished: from each game, `per_game`
    positions at step counts drawn uniformly from that game's length.

    The games are played twice from the same seed: the first pass learns their lengths, so the second
    can pick positions spread over whole games without keeping every state in memory.
    """
    state, lengths = game.init(np.random.default_rng(seed), games), np.zeros(games, dtype=np.int64)
    play_rng = np.random.default_rng([seed, 1])
    while not state.done.all():
        lengths += ~state.done
        state = game.step(state, sample_masked(game.legal_action_mask(state), play_rng), play_rng)
    picks = np.random.default_rng([seed, 2]).integers(0, lengths[:, None], size=(games, per_game))

    state = game.init(np.random.default_rng(seed), games)
    play_rng = np.random.default_rng([seed, 1])
    positions = []
    for step in range(int(lengths.max())):
        taken = np.repeat(np.arange(games), (picks == step).sum(axis=1))  # a game picked twice at a step: twice
        if taken.size:
            positions.append(core.take(state, taken))
        state = game.step(state, sample_masked(game.legal_action_mask(state), play_rng), play_rng)
    out = core.concatenate(positions)
    assert not out.done.any() and core.batch_size(out) == games * per_game
    return out


def mixed_seats(games: int, num_players: int) -> np.ndarray:
    """(games, num_players) agent index per seat for a heuristic (0) and a random (1) agent: games
    0 mod 3 are heuristic self-play, 1 mod 3 put the heuristic in seat 0 against random players, and
    2 mod 3 are random self-play."""
    kind = np.arange(games) % 3
    seats = np.ones((games, num_players), dtype=np.int64)
    seats[kind == 0] = 0
    seats[kind == 1, 0] = 0
    return seats


def play_batch(game: Any, agents: Sequence[Any], seats: np.ndarray, rng: np.random.Generator,
               on_step: Callable[[Any, np.ndarray, np.ndarray], None] | None = None) -> Any:
    """Play one batch of games to the end and return the final state.

    Every agent chooses in every row at every step, and the move of the agent owning the seat to play
    is made; so each agent's choices are checked for legality in every live row, not only its own.

    Args:
        game: a rules core.
        agents: objects with `act(game, state, rng)`; all draw from `rng`.
        seats: (B, P) the agent index in each seat of each game.
        rng: the one generator for the dice and the agents.
        on_step: called as `on_step(state, choices, owner)` before each step, with choices
            (n_agents, B) every agent's action and owner (B,) the index of the agent to move (-1 where
            the game is over).
    """
    batch = seats.shape[0]
    rows = np.arange(batch)
    state = game.init(rng, batch)
    for _ in range(game.info.max_game_length):
        if state.done.all():
            return state
        mask = game.legal_action_mask(state)
        live = ~state.done
        choices = np.stack([np.asarray(agent.act(game, state, rng), dtype=np.int64) for agent in agents])
        for k, chosen in enumerate(choices):
            illegal = np.flatnonzero(live & ~mask[rows, chosen])
            assert not illegal.size, f"agent {k} ({agents[k].name}) chose illegal actions in rows {illegal.tolist()}"
        owner = np.where(live, seats[rows, state.to_play], -1)
        if on_step is not None:
            on_step(state, choices, owner)
        state = game.step(state, choices[np.maximum(owner, 0), rows], rng)
    assert state.done.all(), f"{int((~state.done).sum())} games still running after max_game_length steps"
    return state
