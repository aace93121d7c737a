"""No public call reads or writes outside an array, whatever a state's arrays hold.

The reproductions of the memory-safety report, for every game and configuration: a field of one row set
out of its range in memory (seats, counters, ids: what kernels index with) is refused by every call with
a ValueError naming the field, the state unchanged; owners (`Batch`, the AEC env) refuse it at their next
step; and random hand edits within and beyond the ranges, followed by random in-range actions, legal or
not, end in a result or a ValueError, never another exception or a crash. The kernels check every index
(`jit.KERNEL_OPTIONS`), so a read outside an array would surface here as a failure, not as memory
corruption. `benchmarks/soak.py --memory N` runs the random edits long.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeple.envs import core, default_encoder, jit, make_env
from meeple.envs.base import CHEAP_FACTS, dims, field_range
from meeple.envs.fuzz import fuzz_memory





def _out_of_range_values(game, f) -> list[int]:
    """Values just outside a field's range and the dtype's extremes, those the dtype can hold."""
    bounds = field_range(f, game.num_players)
    if bounds is None:
        return []
    dtype = np.dtype(f.dtype)
    if dtype == np.bool_:
        return [1] if bounds == (0, 0) else []
    info = np.iinfo(dtype)
    lo, hi = bounds
    return sorted({v for v in (lo - 1, hi + 1, int(info.min), int(info.max)) if info.min <= v <= info.max
                   and not lo <= v <= hi})


def _edited(game, state, k: int, value: int, row: int = 1):
    edited = core.clone(state)
    field = edited[k]
    field.reshape(-1)[row * (field.size // field.shape[0])] = value  # the row's first value (C order)
    return edited


def test_kernels_check_their_indices():
    """The index checks are on by default (the environment can turn them off only for measuring them)."""
    assert jit.KERNEL_OPTIONS["boundscheck"] is True
    if jit.numba_config.BOUNDSCHECK is None:
        assert jit.bounds_checked()


def _calls(game, edited, actions, u, rng) -> dict:
    return {
        "legal_action_mask": lambda: game.legal_action_mask(edited),
        "step": lambda: game.step(edited, actions, rng),
        "step_inplace": lambda: game.step_inplace(edited, actions, rng),
        "apply_inplace": lambda: game.apply_inplace(edited, actions, u),
        "observe": lambda: game.observe(edited, 0),
        "scores": lambda: game.scores(edited),
        "returns": lambda: game.returns(edited),
        "determinize": lambda: game.determinize(edited, 0, rng),
        "advance": lambda: game.advance(edited),
        "batch": lambda: game.batch(rng, state=edited),
    }


def test_every_call_refuses_a_cheap_fact_out_of_range(case):
    """Each seat, phase and counter (the ranged fields of at most CHEAP_FACTS values per row at the game's most
    players: the same fields at every player count), set just
    outside its range and to its dtype's extremes in one row: the mask, a step, a pure apply, an
    observation, the scores, determinize, advance and a new owner all raise ValueError naming the field and
    its rows, and change nothing."""
    _, _, game, state = case
    rng = np.random.default_rng(0)
    actions = np.argmax(game.legal_action_mask(state), axis=1)
    u = np.full((4, game.uniforms_per_step), 0.5)
    tried = 0
    for k, f in enumerate(game.FIELDS):
        if int(np.prod(dims(f.shape, game.PLAYERS[1]))) > CHEAP_FACTS:
            continue
        for value in _out_of_range_values(game, f):
            edited = _edited(game, state, k, value)
            before = core.clone(edited)
            for what, call in _calls(game, edited, actions, u, rng).items():
                with pytest.raises(ValueError, match=rf"{f.name} outside .*rows \[1\]"):
                    call()
                assert core.states_equal(edited, before), f"{what} changed a state it refused ({f.name}={value})"
            tried += 1
    assert tried >= 10


def test_larger_fields_out_of_range_never_escape_an_array(case):
    """A board or deck value set out of its range: each call returns or raises ValueError (a kernel's index
    check, or the range check of a new owner and of validate, which names the field); a pure call leaves
    its input as it was."""
    _, _, game, state = case
    rng = np.random.default_rng(0)
    actions = np.argmax(game.legal_action_mask(state), axis=1)
    u = np.full((4, game.uniforms_per_step), 0.5)
    for k, f in enumerate(game.FIELDS):
        if int(np.prod(dims(f.shape, game.num_players))) <= CHEAP_FACTS:
            continue
        for value in _out_of_range_values(game, f):
            for what in _calls(game, state, actions, u, rng):
                edited = _edited(game, state, k, value)
                before = core.clone(edited)
                try:
                    _calls(game, edited, actions, u, rng)[what]()
                except ValueError:
                    pass
                if what not in ("step_inplace", "apply_inplace"):
                    assert core.states_equal(edited, before), f"{what} changed its input ({f.name}={value})"
            edited = _edited(game, state, k, value)
            with pytest.raises(ValueError, match=f"{f.name} outside"):
                game.batch(rng, state=edited)
            with pytest.raises(ValueError, match=f"{f.name} outside"):
                game.validate(edited)


def test_owners_refuse_a_hand_edit_at_their_next_step(case):
    """A `Batch` and the AEC env hold their state where a user can write into it: a seat or counter set
    out of range there is named at the next step, which changes nothing (the issue's reproduction with
    Attika's `to_play` = 127)."""
    name, config, game, _ = case
    rng = np.random.default_rng(1)
    owner = game.batch(rng, 4)
    owner.state.to_play[2] = 127
    before = core.clone(owner.state)
    with pytest.raises(ValueError, match=r"to_play outside 0\.\.\d+ \(rows \[2\]\)"):
        owner.step(np.argmax(owner.mask, axis=1))
    assert core.states_equal(owner.state, before)
    env = make_env(name, **config)
    env.reset(seed=2)
    obs, *_ = env.last()
    env.game_state.to_play[0] = 127
    before = core.clone(env.game_state)
    with pytest.raises(ValueError, match="to_play outside"):
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert core.states_equal(env.game_state, before)


def test_views_edited_out_of_range_are_refused_by_the_encoder(case):
    """A View shares the public fields of its state: an edit of one of them, or of a field observe wrote,
    is refused by the encoder with the field's name."""
    name, _, game, state = case
    encoder = default_encoder(name, game)
    view = game.observe(state, 0)
    encoder.encode(view)
    k = game.View._fields.index("to_play")
    view[k][3] = 100
    with pytest.raises(ValueError, match=r"invalid view: to_play outside"):
        encoder.encode(view)


def test_random_edits_in_memory_never_escape_an_array(case):
    """Random hand edits (in range and out of it) and random in-range actions on the edited states: every
    call returns or raises ValueError (envs/fuzz.py `fuzz_memory`; the long run: soak.py --memory)."""
    name, _, game, _ = case
    report = fuzz_memory(game, 60, np.random.default_rng(7), pool=16, encoder=default_encoder(name, game))
    assert not report.failures, report.failures[:5]
    assert report.edits == 60 and report.refused > 0 and report.stepped > 0, report.line()
