"""Shared fixtures: every registered game in every configuration it declares for testing."""

from __future__ import annotations

import os

import numpy as np
import pytest

from meeple.envs import GAMES, make

from helpers import game_cases

GAME_CASES = game_cases()

# render_mode="human" (pygame) draws off screen in tests: no window opens, no frame waits for a display
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture(params=GAME_CASES)
def game_case(request):
    """(name, config dict, rules core) for one registered game configuration."""
    name, config = request.param
    return name, config, make(name, **config)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def _game_of(item) -> str | None:
    """The registered game a test exercises: from its parameters, else from its file or function name."""
    for value in getattr(getattr(item, "callspec", None), "params", {}).values():
        if isinstance(value, tuple) and value and isinstance(value[0], str) and value[0] in GAMES:
            return value[0]
        if isinstance(value, str) and value in GAMES:
            return value
    for name in GAMES:
        if item.path.stem.startswith(f"test_{name}"):
            return name
    if "rtta" in item.name:
        return "roll_through_the_ages"
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items) -> None:
    """With `--dist loadgroup` every test of one game runs in one worker, so each worker compiles only its
    own games' kernels (scripts/test.sh's bounds-checking leg compiles from an empty cache: two workers
    compiling the same game would double that leg's time)."""
    # (in the xdist workers `dist` reads "no" and `loadgroup` says whether the run groups)
    if not (getattr(config.option, "loadgroup", False) or getattr(config.option, "dist", None) == "loadgroup"):
        return
    for item in items:
        game = _game_of(item)
        if game is not None:
            item.add_marker(pytest.mark.xdist_group(game))
