"""Property checks against bad input: a mutating fuzzer over saved states and a random-play soak.

Both use only the public rules API, so they run for every registered game:

- `fuzz_saves(game, n, rng)`: takes states reached by random play, saves them (`to_dict`), mutates one
  or a few values of the JSON (boundary values, ±1, values copied from elsewhere in the field, out of
  range), and loads the result. Each payload must either be rejected with `ValueError` or load into a
  state that plays to the end under random legal play with `validate` passing after every step and at
  least one legal action until the game is over. Anything else (another exception, a state `validate`
  rejects later, a row with no legal action, a game that does not end) is a failure.
- `soak(game, batch, rng, games, seconds)`: random legal play of a batch with `validate` after every step.

Run with `NUMBA_BOUNDSCHECK=1` (and a separate `NUMBA_CACHE_DIR`) so that an out-of-bounds index in a
kernel raises instead of corrupting memory.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from meeple.envs import core


@dataclass
class FuzzReport:
    payloads: int = 0
    rejected: int = 0
    played: int = 0
    steps: int = 0
    failures: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"payloads {self.payloads}, rejected {self.rejected}, played to the end {self.played} "
                f"({self.steps} steps), failures {len(self.failures)}")


def random_positions(game: Any, n: int, rng: np.random.Generator) -> Any:
    """n states (B = n), each a uniformly chosen position of one random legal game (reservoir sampling
    over its positions, the start included; finished games are not chosen)."""
    from meeple.agents.random_agent import sample_masked

    state = game.init(rng, n)
    keep = core.clone(state)
    seen = np.ones(n, dtype=np.int64)
    for _ in range(game.info.max_game_length):
        if state.done.all():
            break
        mask = game.legal_action_mask(state)
        game.apply_inplace(state, sample_masked(mask, rng), rng.random((n, game.uniforms_per_step)), mask)
        live = ~state.done
        seen += live
        take = live & (rng.random(n) * seen < 1.0)
        for dst, src in zip(keep, state):
            dst[take] = src[take]
    return keep


def _mutate(fields: dict, game_fields: tuple, rng: np.random.Generator) -> str:
    """Change one value of a saved row in place; returns what was done (for failure reports)."""
    from meeple.envs.base import field_range

    f = game_fields[int(rng.integers(len(game_fields)))]
    arr = np.asarray(fields[f.name])
    if arr.size == 0:
        return f"{f.name}: empty"
    flat = arr.reshape(-1).copy()
    i = int(rng.integers(flat.size))
    old = flat[i]
    if arr.dtype == np.bool_:
        flat[i] = not old
        new = flat[i]
    else:
        info = np.iinfo(arr.dtype)
        bounds = field_range(f, 5) or (info.min, info.max)
        choices = [int(old) + 1, int(old) - 1, 0, -1, 1, bounds[0], bounds[1], bounds[0] - 1, bounds[1] + 1,
                   int(flat[int(rng.integers(flat.size))]), int(rng.integers(info.min, int(info.max) + 1))]
        new = int(choices[int(rng.integers(len(choices)))])
        flat[i] = new
    fields[f.name] = flat.reshape(arr.shape).tolist()
    return f"{f.name}[{i}] {old!r} -> {new!r}"


def check_plays_to_end(game: Any, state: Any, rng: np.random.Generator) -> tuple[int, str | None]:
    """Random legal play to the end with validate after every step; (steps, failure or None)."""
    from meeple.agents.random_agent import sample_masked

    steps = 0
    for _ in range(game.info.max_game_length + 1):
        if state.done.all():
            return steps, None
        mask = game.legal_action_mask(state)
        live = ~state.done
        if not mask[live].any(axis=1).all():
            return steps, f"a live row has no legal action after {steps} steps"
        state = game.apply(state, sample_masked(mask, rng), rng.random((state.done.shape[0], game.uniforms_per_step)), mask)
        steps += 1
        try:
            game.validate(state)
        except ValueError as exc:
            return steps, f"validate failed after {steps} steps: {exc}"
    return steps, f"not over after {game.info.max_game_length} steps"


def fuzz_saves(game: Any, n: int, rng: np.random.Generator, mutations: int = 1, pool: int = 64) -> FuzzReport:
    """n mutated saves of positions from random play; see the module docstring for what must hold."""
    report = FuzzReport()
    base = random_positions(game, pool, rng)
    rows = [game.to_dict(core.take(base, [i])) for i in range(pool)]
    fields = getattr(game, "FIELDS", ())
    for _ in range(n):
        payload = copy.deepcopy(rows[int(rng.integers(pool))])
        what = "; ".join(_mutate(payload["fields"], fields, rng) for _ in range(mutations))
        report.payloads += 1
        try:
            state = game.from_dict(payload)
        except ValueError:
            report.rejected += 1
            continue
        except Exception as exc:  # noqa: BLE001 - anything but ValueError on load is a failure to report
            report.failures.append(f"{what}: load raised {type(exc).__name__}: {exc}")
            continue
        try:
            steps, failure = check_plays_to_end(game, state, rng)
        except Exception as exc:  # noqa: BLE001
            steps, failure = 0, f"play raised {type(exc).__name__}: {exc}"
        report.steps += steps
        if failure:
            report.failures.append(f"{what}: {failure}")
        else:
            report.played += 1
    return report


@dataclass
class SoakReport:
    games: int = 0
    steps: int = 0
    failures: list[str] = field(default_factory=list)


def soak(game: Any, batch: int, rng: np.random.Generator, games: int, seconds: float) -> SoakReport:
    """Random legal play of `batch` games at once (finished rows restart) with `validate` after every step,
    until `games` games have finished or `seconds` have passed, or something fails."""
    import time

    from meeple.agents.random_agent import sample_masked

    report = SoakReport()
    state = game.init(rng, batch)
    start = time.perf_counter()
    mask = game.legal_action_mask(state)
    next_mask = np.empty_like(mask)
    while report.games < games and time.perf_counter() - start < seconds:
        live = ~state.done
        if not mask[live].any(axis=1).all():
            report.failures.append("a live row has no legal action")
            break
        # the step also returns the new mask (next_mask): checked against legal_action_mask below
        game.apply_inplace(state, sample_masked(mask, rng), rng.random((batch, game.uniforms_per_step)), mask,
                           next_mask=next_mask)
        report.steps += int(live.sum())
        try:
            game.validate(state)
        except ValueError as exc:
            report.failures.append(str(exc))
            break
        mask = game.legal_action_mask(state)
        if not np.array_equal(mask, next_mask):
            report.failures.append("the mask a step returned differs from legal_action_mask")
            break
        done = np.flatnonzero(state.done)
        if done.size:
            report.games += int(done.size)
            fresh = game.init(rng, int(done.size))
            for dst, src in zip(state, fresh):
                dst[done] = src
            mask[done] = game.legal_action_mask(fresh)
    return report
