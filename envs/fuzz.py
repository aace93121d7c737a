"""Property checks against bad input: fuzzers of saved states and of states in memory, and a random-play soak.

All use only the public rules API, so they run for every registered game:

- `fuzz_saves(game, n, rng)`: takes states reached by random play, saves them (`to_dict`), mutates one
  or a few values of the JSON (boundary values, ±1, values copied from elsewhere in the field, out of
  range), and loads the result. Each payload must either be rejected with `ValueError` or load into a
  state that plays to the end under random legal play with `validate` passing after every step and at
  least one legal action until the game is over. Anything else (another exception, a state `validate`
  rejects later, a row with no legal action, a game that does not end) is a failure.
- `soak(game, batch, rng, games, seconds)`: random legal play of a batch with `validate` after every step.
- `fuzz_memory(game, n, rng)`: hand edits of states in memory, then calls of the public API on them
  (docs/memory_safety.md).

The kernels check every index (the default), so an out-of-bounds index raises instead of corrupting memory.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.batch import step_own


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
        step_own(game, state, sample_masked(mask, rng), mask, u=rng.random((n, game.uniforms_per_step)), copy=False)
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
        state = step_own(game, state, sample_masked(mask, rng), mask, u=rng.random((state.done.shape[0], game.uniforms_per_step)))
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
    owner = game.batch(rng, batch)
    state = owner.state
    start = time.perf_counter()
    mask = owner.mask
    while report.games < games and time.perf_counter() - start < seconds:
        live = ~state.done
        if not mask[live].any(axis=1).all():
            report.failures.append("a live row has no legal action")
            break
        # the step also returns the new mask (Batch): checked against legal_action_mask below
        next_mask = owner.apply(sample_masked(mask, rng), rng.random((batch, game.uniforms_per_step)))
        report.steps += int(live.sum())
        try:
            game.validate(state)
        except ValueError as exc:
            report.failures.append(str(exc))
            break
        if not np.array_equal(game.legal_action_mask(state), next_mask):
            report.failures.append("the mask a step returned differs from legal_action_mask")
            break
        done = np.flatnonzero(state.done)
        if done.size:
            report.games += int(done.size)
            mask = owner.reset_rows(done)
    return report


@dataclass
class MemoryReport:
    edits: int = 0
    refused: int = 0  # ValueError at some call (a value out of range, an illegal action, an index check)
    stepped: int = 0  # calls that ran to the end on the edited state
    failures: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"edits {self.edits}, refused {self.refused}, steps on edited states {self.stepped}, "
                f"failures {len(self.failures)}")


def _edit_in_memory(state: Any, fields: tuple, num_players: int, rng: np.random.Generator, in_range: bool) -> str:
    """Write one value into one row of one field of `state` in place, as a hand edit would: any value of
    the field's range (`in_range`), or anything its dtype holds, favouring the edges. Returns what was done."""
    from meeple.envs.base import field_range

    k = int(rng.integers(len(fields)))
    f, arr = fields[k], state[k]
    if arr.size == 0:
        return f"{f.name}: empty"
    row = int(rng.integers(arr.shape[0]))
    per_row = arr.size // arr.shape[0]
    i = int(rng.integers(per_row))
    flat = arr.reshape(-1)  # (the fields of a state from `core.take` are C-contiguous: a view)
    old = flat[row * per_row + i].item()
    if arr.dtype == np.bool_:
        new: Any = not old
    else:
        info = np.iinfo(arr.dtype)
        bounds = field_range(f, num_players) or (int(info.min), int(info.max))
        lo, hi = (max(bounds[0], int(info.min)), min(bounds[1], int(info.max)))
        if in_range:
            choices = [lo, hi, old + 1, old - 1, int(rng.integers(lo, hi + 1))]
            choices = [c for c in choices if lo <= c <= hi] or [lo]
        else:
            choices = [int(info.min), int(info.max), lo - 1, hi + 1, -1]
            choices = [c for c in choices if info.min <= c <= info.max]
        new = int(choices[int(rng.integers(len(choices)))])
    flat[row * per_row + i] = new
    return f"{f.name}[row {row}, {i}] {old!r} -> {new!r}"


def fuzz_memory(game: Any, n: int, rng: np.random.Generator, pool: int = 64, steps: int = 4,
                encoder: Any = None) -> MemoryReport:
    """n hand edits of states in memory, each followed by calls of the public API on the edited state.

    Each edit writes one value into one field of one row of a batch of positions from random play: half
    within the field's range (an unreachable but in-range position, which the range checks let through),
    half anywhere its dtype allows. Then: the mask, the scores, every seat's observation (and its encoding
    when an `encoder` is given), and `steps` steps, each with an in-range action per row that is legal by
    the mask of the edited state or not (one row in four gets an arbitrary action). Every call must either
    return or raise ValueError; any other exception is a failure (an IndexError would be a kernel reading
    outside an array with its checks on; a crash ends the process, which the caller sees). Run it with the
    kernels' index checks on (the default, `jit.KERNEL_OPTIONS`)."""
    from meeple.agents.random_agent import sample_masked

    report = MemoryReport()
    base = random_positions(game, pool, rng)
    fields = getattr(game, "FIELDS", ())
    B = 4
    for _ in range(n):
        state = core.take(base, rng.integers(pool, size=B))
        what = _edit_in_memory(state, fields, game.num_players, rng, in_range=bool(rng.integers(2)))
        report.edits += 1
        calls: list[tuple[str, Any]] = [
            ("legal_action_mask", lambda s=state: game.legal_action_mask(s)),
            ("scores", lambda s=state: game.scores(s)),
            *[(f"observe({p})", lambda p=p, s=state: _observed(game, s, p, encoder)) for p in range(game.num_players)],
        ]
        refused = False
        for name, call in calls:
            try:
                call()
            except ValueError:
                refused = True
            except Exception as exc:  # noqa: BLE001 - anything but ValueError is a failure to report
                report.failures.append(f"{what}: {name} raised {type(exc).__name__}: {exc}")
        for _ in range(steps):
            try:
                mask = game.legal_action_mask(state)
            except ValueError:
                refused = True
                break
            actions = sample_masked(mask, rng)
            wild = rng.random(B) < 0.25
            actions[wild] = rng.integers(game.num_actions, size=int(wild.sum()))
            before = core.clone(state)
            try:
                game.apply_inplace(state, actions, rng.random((B, game.uniforms_per_step)))
                report.stepped += 1
            except ValueError:
                refused = True
                if wild.any() and not core.states_equal(state, before):
                    legal = mask[np.arange(B), actions]
                    if not legal.all():  # an illegal action is refused before any kernel runs
                        report.failures.append(f"{what}: a refused illegal action changed the state")
                break
            except Exception as exc:  # noqa: BLE001
                report.failures.append(f"{what}: apply raised {type(exc).__name__}: {exc}")
                break
        report.refused += refused
    return report


def _observed(game: Any, state: Any, seat: int, encoder: Any) -> None:
    view = game.observe(state, seat)
    if encoder is not None:
        encoder.encode(view)
