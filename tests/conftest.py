"""Shared fixtures: every registered game in every configuration it declares for testing."""

from __future__ import annotations

import os

import numpy as np
import pytest

from meeple.envs import make

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
