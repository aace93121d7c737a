"""Agents that play any meeple game through the batched rules API (protocol in `base.py`).

    from meeple.agents import make_agent
    agent = make_agent("heuristic", "roll_through_the_ages")
"""

from __future__ import annotations

import importlib
from typing import Any

AGENT_SPECS = ("random", "heuristic")


def make_agent(spec: str, game_name: str) -> Any:
    """The agent named by `spec` for game `game_name`.

    Args:
        spec: "random" (uniform legal moves) or "heuristic" (the game's hand-written player).
        game_name: a key of `meeple.envs.GAMES`.
    Raises:
        ValueError: for an unknown spec or game.
    """
    from meeple.envs import GAMES, list_games

    if game_name not in GAMES:
        raise ValueError(f"unknown game {game_name!r}; registered games: {list_games()}")
    if spec == "random":
        from meeple.agents.random_agent import RandomAgent

        return RandomAgent()
    if spec == "heuristic":
        return importlib.import_module(GAMES[game_name].heuristic).Heuristic()
    raise ValueError(f"unknown agent spec {spec!r}; known specs: {list(AGENT_SPECS)}")
