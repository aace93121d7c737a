"""Attika saves: round trips, refused saves naming the problem, and the saved-state fuzzer.

CI runs the `test_*_saves.py` modules once more with numba's bounds checks on, so a loaded save that
could make a kernel index out of bounds fails here instead of corrupting memory.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import core
from meeple.envs.attika import Attika
from meeple.envs.attika import data as D
from meeple.envs.base import InvalidState
from meeple.envs.fuzz import fuzz_saves


def _midgame(P: int, steps: int = 80, **variant):
    game = Attika(num_players=P, **variant)
    rng = np.random.default_rng(P)
    state = game.init(rng, 8)
    for _ in range(steps):
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    return game, state


@pytest.mark.parametrize("P", [2, 4])
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


def _first(value, predicate):
    """Index of the first entry of row 0 of `value` meeting predicate."""
    return (0, *np.argwhere(predicate(value[0]))[0])


def test_refused_saves_name_the_problem():
    game, state = _midgame(3)
    live = int(np.flatnonzero(~state.done)[0])
    field = lambda v: _first(v, lambda x: (x >= D.LAND_BLANK) & (x < D.LAND_SHRINE))  # noqa: E731
    empty = lambda v: _first(v, lambda x: x == D.LAND_NONE)  # noqa: E731
    cases = {  # the invariant broken (envs/attika/invariants.py), or the message of a check outside them
        # a field appears outside every tile, or a tile's field vanishes
        "fields_are_the_placed_tiles_footprints": dict(land=lambda v: v.__setitem__(empty(v), D.LAND_BLANK)),
        # a symbol that is not its tile's (the symbol counts around it no longer match either)
        "symbol_counts_match_the_map|printed face": dict(
            land=lambda v: v.__setitem__(field(v), D.LAND_BLANK if v[field(v)] != D.LAND_BLANK else D.LAND_SYMBOL)),
        "landscape_cards_conserved": dict(discard=lambda v: v.__setitem__((0, 0), (v[0, 0] + 1) % 16)),
        "amphorae_conserved": dict(amphora_supply=lambda v: v.__setitem__(0, v[0] - 1 if v[0] else 1)),
        # one more building on the display than the stacks have given up
        "buildings_conserved": dict(display=lambda v: v.__setitem__((0, 0, int(np.argmin(v[0, 0]))), 1)),
        "building_counts_match_the_map": dict(settlements=lambda v: v.__setitem__((0, 0), v[0, 0] + 1)),
        "outside": dict(pending_slot=lambda v: v.__setitem__(0, 625)),  # the base's range check
        "pending_building_and_slot_match_decision": dict(decision=lambda v: v.__setitem__(0, D.DEC_PAY)),
    }
    for expected, change in cases.items():
        with pytest.raises(ValueError, match=expected):
            game.from_dict(_payload_with(game, state, live, **change))


def test_a_shrine_moved_off_its_layout_hex_is_refused():
    game = Attika(num_players=2)
    payload = game.to_dict(game.init(np.random.default_rng(0), 1))
    land = np.asarray(payload["fields"]["land"])
    shrine = int(np.flatnonzero(land[0] >= D.LAND_SHRINE)[0])
    land[0, D.slot(11, 0)], land[0, shrine] = land[0, shrine], D.LAND_NONE
    payload["fields"]["land"] = land.tolist()
    with pytest.raises(InvalidState) as excinfo:
        game.from_dict(payload)
    assert excinfo.value.invariant == "shrines_on_their_layout_hexes"


@pytest.mark.parametrize("config", [{"num_players": 2}, {"num_players": 3, "payment": "explicit"},
                                    {"num_players": 4, "actions": "flat"}])
def test_saved_state_fuzz(config):
    """Mutated saves are refused or load into positions that play to the end with validate passing
    after every step (a longer run: benchmarks/soak.py --fuzz)."""
    report = fuzz_saves(Attika(**config), 120, np.random.default_rng(config["num_players"]))
    assert not report.failures, report.failures[:3]
    assert report.rejected and report.played
