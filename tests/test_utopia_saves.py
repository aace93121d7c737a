"""Utopia saves: round trips, refused saves naming the problem, and the saved-state fuzzer.

CI runs the `test_*_saves.py` modules once more with numba's bounds checks on, so a loaded save that
could make a kernel index out of bounds fails here instead of corrupting memory.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import core
from meeple.envs.fuzz import fuzz_saves
from meeple.envs.utopia import Utopia
from meeple.envs.utopia import data as D


def _midgame(P: int, steps: int = 150):
    game = Utopia(num_players=P)
    rng = np.random.default_rng(P)
    state = game.init(rng, 8)
    for _ in range(steps):
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    return game, state


@pytest.mark.parametrize("P", [2, 5])
def test_round_trip_plays_on_identically(P):
    game, state = _midgame(P)
    loaded = game.from_dict(json.loads(json.dumps(game.to_dict(state))))
    assert core.states_equal(loaded, state)
    rng = np.random.default_rng(0)
    actions = sample_masked(game.legal_action_mask(state), rng)
    u = rng.random((8, game.uniforms_per_step))
    assert core.states_equal(game.apply(state, actions, u), game.apply(loaded, actions, u))


def _payload_with(game, state, row: int, **changes):
    payload = game.to_dict(core.take(state, [row]))
    for name, edit in changes.items():
        value = np.asarray(payload["fields"][name])
        edit(value)
        payload["fields"][name] = value.tolist()
    return payload


def test_refused_saves_name_the_problem():
    game, state = _midgame(3)
    live = int(np.flatnonzero(~state.done)[0])
    cases = {
        "action_cards_conserved": dict(pile=lambda v: v.__setitem__((0, 0), (v[0, 0] + 1) % 11)),
        "score_is_the_sum_of_gains": dict(score=lambda v: v.__setitem__((0, 1), v[0, 1] + 1)),
        "prestige_scale_is_a_permutation": dict(scale=lambda v: v.__setitem__((0, 0), v[0, 1])),
        "stamps_distinct_and_counter_one_past_the_latest": dict(stamp_counter=lambda v: v.__setitem__(0, v[0] + 5)),
        "outside": dict(princes=lambda v: v.__setitem__((0, 0, 0, 0), 9)),  # (the range check, before any invariant)
    }
    for expected, change in cases.items():
        with pytest.raises(ValueError, match=expected):
            game.from_dict(_payload_with(game, state, live, **change))
    two = Utopia(num_players=2)
    payload = two.to_dict(two.init(np.random.default_rng(0), 1))
    princes = np.asarray(payload["fields"]["princes"])
    princes[0, 0, 0, D.NUM_DISTRICTS - 1] = 1  # a prince on the Water island, out of play with 2 players
    payload["fields"]["princes"] = princes.tolist()
    with pytest.raises(ValueError, match="nothing_on_districts_out_of_play"):
        two.from_dict(payload)


@pytest.mark.parametrize("P", [2, 3, 4, 5])
def test_saved_state_fuzz(P):
    """Mutated saves are refused or load into positions that play to the end with validate passing
    after every step (a longer run: benchmarks/soak.py --fuzz)."""
    report = fuzz_saves(Utopia(num_players=P), 120, np.random.default_rng(P))
    assert not report.failures, report.failures[:3]
    assert report.rejected and report.played
