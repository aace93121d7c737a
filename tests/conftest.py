"""Shared fixtures: every registered game in every configuration it declares for testing."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.envs import GAMES, make

GAME_CASES = [
    pytest.param((name, config), id=f"{name}-" + "-".join(f"{k}={v}" for k, v in config.items()))
    for name, entry in GAMES.items()
    for config in entry.test_configs
]


@pytest.fixture(params=GAME_CASES)
def game_case(request):
    """(name, config dict, rules core) for one registered game configuration."""
    name, config = request.param
    return name, config, make(name, **config)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)
