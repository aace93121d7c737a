"""The kernels as plain Python give what the compiled kernels give: a random game per configuration
through the rules, every encoder kind for every seat, and the fused AEC step.

While a cold cache compiles in the background, a newcomer's first game runs the kernels as Python
(`envs.first_use`). numpy's scalar rules (NEP 50) differ from numba's there: an int8 field plus a
Python int stays int8 and overflows where numba widens, so an index into an observation row can raise
in Python alone. `scripts/test.sh` runs this module a second time with NUMBA_DISABLE_JIT=1, beside the
worked examples; in the main run it is a short check that the compiled code does the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import case_id

from meeple.agents.random_agent import sample_masked
from meeple.envs.batch import StepObserve
from meeple.envs import GAMES, core, encoder_kinds, make, make_encoder

CASES = [pytest.param(name, config, id=case_id(name, config))
         for name, entry in GAMES.items() for config in entry.test_configs]
# steps per test, few enough for plain Python: every seat's view in every encoder kind is ~10x the work
# of the fused step, which plays a whole game or more (and found the int8 overflow of 2026-11-27)
ENCODE_STEPS, FUSED_STEPS = 60, 400


@pytest.mark.parametrize("name, config", CASES)
def test_a_random_game_encodes_every_seat_in_every_kind(name, config):
    game = make(name, **config)
    encoders = [make_encoder(name, game, kind) for kind in encoder_kinds(name)]
    rng = np.random.default_rng(7)
    state = game.init(rng, 1)
    for _ in range(ENCODE_STEPS):
        if state.done.all():
            state = game.init(rng, 1)
        mask = game.legal_action_mask(state)
        state = game.step(state, sample_masked(mask, rng), rng)
        for seat in range(game.num_players):
            view = game.observe(state, seat)
            for encoder in encoders:
                obs = encoder.encode(view)
                assert obs.shape == (1, encoder.size) and np.isfinite(obs).all()


@pytest.mark.parametrize("name, config", CASES)
def test_the_fused_step_follows_the_separate_calls(name, config):
    game = make(name, **config)
    encoder = make_encoder(name, game)
    fused = StepObserve(game, encoder)
    rng = np.random.default_rng(8)
    state = game.init(rng, 1)
    for _ in range(FUSED_STEPS):
        if state.done[0]:
            state = game.init(rng, 1)
        action = int(sample_masked(game.legal_action_mask(state), rng)[0])
        seed = int(rng.integers(1 << 62))
        expected = game.step(state, np.array([action]), np.random.default_rng(seed))
        fused(state, action, np.random.default_rng(seed))
        assert core.states_equal(state, expected)
        seat = int(expected.to_play[0])
        assert fused.viewer[0] == seat
        np.testing.assert_array_equal(fused.obs, encoder.encode(game.observe(expected, seat)))
