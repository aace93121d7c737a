"""Shared fixtures: every registered game in every configuration it declares for testing."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from meeple.envs import GAMES, make

from helpers import game_cases, random_steps

GAME_CASES = game_cases()

# render_mode="human" (pygame) draws off screen in tests: no window opens, no frame waits for a display
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture(autouse=True, scope="session")
def sb3_log_folder(tmp_path_factory):
    """stable-baselines3 makes an empty log folder for every model trained without a logger of its own, in
    the system's temporary folder unless SB3_LOGDIR names one: here, one folder pytest cleans up (the
    scripts the tests run inherit it)."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3-logs")))


@pytest.fixture(params=GAME_CASES)
def game_case(request):
    """(name, config dict, rules core) for one registered game configuration."""
    name, config = request.param
    return name, config, make(name, **config)


@pytest.fixture(params=GAME_CASES)
def case(request):
    """(name, config dict, rules core, a 4-row state after 10 random steps) for one configuration: the
    position the hardening and memory-safety tests edit and attack."""
    name, config = request.param
    game = make(name, **config)
    state = random_steps(game, np.random.default_rng(3), 4, 10)
    return name, config, game, state


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def game_of_nodeid(nodeid: str) -> str | None:
    """The registered game a test exercises, read from its id: a game named in its parameters, else its
    file (`test_attika_saves.py`) or its name (`test_rtta_...`); None for tests of no one game."""
    path, _, name = nodeid.partition("::")
    params = name[name.find("["):] if "[" in name else ""
    for game in GAMES:
        if re.search(rf"(?<![a-z_]){game}(?![a-z_])", params):
            return game
    stem = path.rsplit("/", 1)[-1]
    for game in GAMES:
        if stem.startswith(f"test_{game}"):
            return game
    if name.startswith("test_rtta"):
        return "roll_through_the_ages"
    return None


# Modules whose tests take tens of seconds each (whole games clicked in a browser, training scripts and servers
# run as processes): collected first, so that on two workers they run beside the many short tests instead
# of leaving one worker alone with them at the end (scripts/test.sh: `--dist worksteal` lends the short tests
# of the busy worker's queue to the idle one).
LONG_FIRST = ("test_web_browser.py", "test_scripts.py", "test_web.py", "test_first_use.py", "test_install.py")


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.nodeid.partition("::")[0].rsplit("/", 1)[-1] not in LONG_FIRST)


try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # (the RLlib venv runs its tests without xdist)
    pass
else:

    class GameScheduling(LoadScopeScheduling):
        """xdist's scope scheduling with one scope per game: every test of a game runs in the same worker,
        so a cold numba cache compiles each game once, not once per worker (scripts/test.sh's
        bounds-checking leg). Tests of no one game are scheduled one by one."""

        def _split_scope(self, nodeid: str) -> str:
            return game_of_nodeid(nodeid) or nodeid

    def pytest_xdist_make_scheduler(config, log):
        """`-n 2 --dist loadgroup` groups by game. (xdist's own grouping reads `xdist_group` marks and
        renames each test, which pytest 9 no longer lets it do; this hook needs neither.)"""
        if config.getvalue("dist") == "loadgroup":
            return GameScheduling(config, log)
        return None


# MEEPLE_LOG_COMPILES=<file>: every kernel numba compiles (not loads from its cache) during the tests is
# appended to <file> as one JSON line: test, kernel, argument types, seconds. On a warm cache
# (scripts/setup.sh) the pytest workers should compile next to nothing; this shows what they do compile.
if os.environ.get("MEEPLE_LOG_COMPILES"):
    import json
    import time

    from numba.core import event as numba_event

    class _CompileLog(numba_event.Listener):
        def __init__(self, path: str) -> None:
            self.path, self.started = path, {}

        def on_start(self, ev) -> None:
            self.started[id(ev.data)] = time.perf_counter()

        def on_end(self, ev) -> None:
            seconds = time.perf_counter() - self.started.pop(id(ev.data), time.perf_counter())
            line = {"test": os.environ.get("PYTEST_CURRENT_TEST", ""), "pid": os.getpid(),
                    "kernel": getattr(ev.data["dispatcher"].py_func, "__qualname__", "?"),
                    "module": getattr(ev.data["dispatcher"].py_func, "__module__", "?"),
                    "args": str(ev.data["args"]), "seconds": round(seconds, 3)}
            with open(self.path, "a") as log:
                log.write(json.dumps(line) + "\n")

    numba_event.register("numba:compile", _CompileLog(os.environ["MEEPLE_LOG_COMPILES"]))
