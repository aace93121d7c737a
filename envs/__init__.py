"""The meeple games: a registry of batched rules cores and their PettingZoo AEC environments.

    from meeple.envs import make, make_env, GAMES
    game = make("roll_through_the_ages", num_players=3)        # batched rules core
    env = make_env("roll_through_the_ages", num_players=3)      # PettingZoo AEC env

    from meeple.envs import roll_through_the_ages_v0            # the same env, PettingZoo style:
    env = roll_through_the_ages_v0.env(num_players=3)           # one module <game>_v0 per game
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple


class GameEntry(NamedTuple):
    """Where a game lives: its rules class and its AEC env module (imported lazily)."""

    rules: str  # "module:Class" of the rules core
    env: str  # PettingZoo-style module `meeple.envs.<name>_v0` with env() / raw_env()
    encoder: str  # module with DEFAULT encoder
    heuristic: str  # module with the heuristic agent class `Heuristic`
    test_configs: tuple[dict[str, Any], ...]  # configurations the generic tests cover


GAMES: dict[str, GameEntry] = {
    "roll_through_the_ages": GameEntry(
        rules="meeple.envs.roll_through_the_ages.rules:RollThroughTheAges",
        env="meeple.envs.roll_through_the_ages_v0",
        encoder="meeple.encoders.roll_through_the_ages",
        heuristic="meeple.agents.heuristics.roll_through_the_ages",
        test_configs=(
            {"num_players": 1},
            {"num_players": 2},
            {"num_players": 3},
            {"num_players": 4},
            {"num_players": 3, "trade": True},
        ),
    ),
    "hadara": GameEntry(
        rules="meeple.envs.hadara.rules:Hadara",
        env="meeple.envs.hadara_v0",
        encoder="meeple.encoders.hadara",
        heuristic="meeple.agents.heuristics.hadara",
        test_configs=({"num_players": 2}, {"num_players": 3}, {"num_players": 5}, {"num_players": 4, "advanced": True}),
    ),
    "carpe_diem": GameEntry(
        rules="meeple.envs.carpe_diem.rules:CarpeDiem",
        env="meeple.envs.carpe_diem_v0",
        encoder="meeple.encoders.carpe_diem",
        heuristic="meeple.agents.heuristics.carpe_diem",
        test_configs=({"num_players": 2}, {"num_players": 3}, {"num_players": 4}),
    ),
    "attika": GameEntry(
        rules="meeple.envs.attika.rules:Attika",
        env="meeple.envs.attika_v0",
        encoder="meeple.encoders.attika",
        heuristic="meeple.agents.heuristics.attika",
        test_configs=({"num_players": 2}, {"num_players": 3}, {"num_players": 4},
                      {"num_players": 3, "payment": "explicit"}, {"num_players": 2, "actions": "flat"}),
    ),
    "utopia": GameEntry(
        rules="meeple.envs.utopia.rules:Utopia",
        env="meeple.envs.utopia_v0",
        encoder="meeple.encoders.utopia",
        heuristic="meeple.agents.heuristics.utopia",
        test_configs=({"num_players": 2}, {"num_players": 3}, {"num_players": 4}, {"num_players": 5}),
    ),
}


def list_games() -> list[str]:
    """Names of all registered games."""
    return sorted(GAMES)


def player_range(name: str) -> tuple[int, int]:
    """The (fewest, most) players game `name` allows, read from its rules class (nothing is built)."""
    module, cls = _entry(name).rules.split(":")
    return tuple(getattr(importlib.import_module(module), cls).PLAYERS)


def _entry(name: str) -> GameEntry:
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; registered games: {list_games()}") from None


def make(name: str, num_players: int = 2, **variant: Any) -> Any:
    """The batched rules core of game `name` for `num_players` with variant flags. On a cold compile cache
    the game's kernels compile in a background process meanwhile (`first_use`; constructing a rules class
    directly compiles each kernel on its first call instead)."""
    from meeple.envs import first_use

    module, cls = _entry(name).rules.split(":")
    game = getattr(importlib.import_module(module), cls)(num_players=num_players, **variant)
    first_use.start(game.entries, name, cls)
    return game


def make_env(name: str, raw: bool = False, **kwargs: Any) -> Any:
    """The PettingZoo AEC env of game `name` (`raw_env` if raw, else the checked `env`)."""
    module = importlib.import_module(_entry(name).env)
    return module.raw_env(**kwargs) if raw else module.env(**kwargs)


def default_encoder(name: str, game: Any) -> Any:
    """The default observation encoder of game `name`, configured for `game`."""
    return importlib.import_module(_entry(name).encoder).make_encoder(game)


def encoder_kinds(name: str) -> tuple[str, ...]:
    """The encoder kinds game `name` offers by name (its encoder module's ENCODERS), or () if it only has
    its default."""
    return tuple(getattr(importlib.import_module(_entry(name).encoder), "ENCODERS", ()))


def make_encoder(name: str, game: Any, kind: str | None = None) -> Any:
    """The observation encoder of game `name` for `game`: its default if `kind` is None, else the kind of
    that name (`encoder_kinds(name)`; ValueError for a kind the game does not offer)."""
    module = importlib.import_module(_entry(name).encoder)
    if kind is None:
        return module.make_encoder(game)
    kinds = tuple(getattr(module, "ENCODERS", ()))
    if kind not in kinds:
        offered = f"choose one of {list(kinds)} or None (the default)" if kinds else "it only has its default (None)"
        raise ValueError(f"unknown encoder kind {kind!r} for game {name!r}; {offered}")
    return module.make_encoder(game, kind=kind)


from meeple.envs.single_agent import register_gymnasium_envs  # noqa: E402  (needs the registry above)

register_gymnasium_envs()  # gymnasium.make("meeple/Hadara-v0", ...): envs/single_agent.py
