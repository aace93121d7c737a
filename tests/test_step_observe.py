"""One compiled call per AEC step: the encoders' fused kernels (`envs.batch.StepObserve`) give exactly
what the separate calls give (apply, legal-action mask, observe, encode), for every game configuration
and encoder kind, through whole random games at batch size one."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs.batch import StepObserve
from meeple.envs import GAMES, core, encoder_kinds, jit, make, make_encoder

from helpers import case_id

CASES = [pytest.param(name, config, kind, id=f"{case_id(name, config)}-{kind or 'default'}")
         for name, entry in GAMES.items() for config in entry.test_configs
         for kind in (None, *[k for k in encoder_kinds(name) if k != "default"])]


@pytest.mark.parametrize("name, config, kind", CASES)
def test_fused_step_equals_the_separate_calls(name, config, kind):
    game = make(name, **config)
    encoder = make_encoder(name, game, kind)
    fused = StepObserve(game, encoder)
    rng = np.random.default_rng(11)
    for game_index in range(2):
        state = game.init(rng, 1)
        steps = 0
        while not state.done[0]:
            mask = game.legal_action_mask(state)
            action = int(sample_masked(mask, rng)[0])
            seed = int(rng.integers(1 << 62))
            expected = core.clone(state)
            game.step_inplace(expected, np.array([action]), np.random.default_rng(seed))
            fused(state, action, np.random.default_rng(seed))
            assert core.states_equal(state, expected), f"game {game_index} step {steps}: states differ"
            np.testing.assert_array_equal(fused.mask, game.legal_action_mask(expected))
            seat = int(expected.to_play[0])
            assert fused.viewer[0] == seat
            np.testing.assert_array_equal(fused.obs, encoder.encode(game.observe(expected, seat)))
            steps += 1
            assert steps <= game.info.max_game_length
        if not jit.numba_config.DISABLE_JIT:  # the same State object came back: the typed entry point ran
            assert fused._entry_state is state and fused._entry is not None


def test_fused_step_refuses_a_batch():
    game = make("hadara", num_players=2)
    fused = StepObserve(game, make_encoder("hadara", game))
    with pytest.raises(ValueError, match="batch size 1"):
        fused(game.init(np.random.default_rng(0), 2), 0, np.random.default_rng(0))


def test_fused_step_refuses_actions_the_mask_does_not_allow():
    game = make("hadara", num_players=2)
    fused = StepObserve(game, make_encoder("hadara", game))
    state = game.init(np.random.default_rng(0), 1)
    before = core.clone(state)
    legal = game.legal_action_mask(state)[0]
    illegal = int(np.flatnonzero(~legal)[0])
    for action in (illegal, -1, game.num_actions, 10**10, 1.0, True, np.bool_(True), "0", None):
        with pytest.raises(ValueError):
            fused(state, action, np.random.default_rng(0))
    assert core.states_equal(state, before)
    # after a step its own mask decides; a legal action of the position before is checked against it
    first = int(np.flatnonzero(legal)[0])
    fused(state, first, np.random.default_rng(0))
    now = fused.mask[0].copy()
    stale = np.flatnonzero(legal & ~now)
    after = core.clone(state)
    for action in [*stale[:3].tolist(), *np.flatnonzero(~now)[:3].tolist()]:
        with pytest.raises(ValueError, match="not legal"):
            fused(state, action, np.random.default_rng(0))
    assert core.states_equal(state, after)
    np.testing.assert_array_equal(now, game.legal_action_mask(state)[0])


def test_the_aec_env_checks_a_state_put_in_by_hand_against_its_own_mask():
    """The env's step is one fused call that checks the state and the action itself: a state put in the
    env by hand (not through `reset(options={"state": ...})`) is refused if it is not one row of this game,
    and an action that was legal before it was put there but is not legal in it never reaches a kernel."""
    from meeple.envs import make_env

    env = make_env("hadara", num_players=2)
    env.reset(seed=0)
    raw = env.unwrapped
    action = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    raw.game_state = raw.game.init(np.random.default_rng(1), 2)
    with pytest.raises(ValueError, match="batch size 1"):
        env.step(action)
    env.reset(seed=0)
    raw.game_state = make("carpe_diem", num_players=2).init(np.random.default_rng(1), 1)
    with pytest.raises(ValueError, match="expected a"):
        env.step(action)
    # a position of the same game where the env's (stale) mask allows a move the rules do not
    env.reset(seed=0)
    game, rng = raw.game, np.random.default_rng(2)
    for _ in range(400):
        other = game.init(rng, 1)
        for _ in range(int(rng.integers(1, 40))):
            if other.done[0]:
                break
            other = game.step(other, sample_masked(game.legal_action_mask(other), rng), rng)
        stale = np.flatnonzero(raw._mask & ~game.legal_action_mask(other)[0])
        if not other.done[0] and stale.size:
            break
    else:
        pytest.fail("no position found where the env's mask allows a move that is illegal there")
    raw.game_state = other
    before = core.clone(other)
    with pytest.raises(ValueError, match="not legal"):
        env.step(int(stale[0]))
    assert core.states_equal(raw.game_state, before)


def test_fused_step_types_every_new_state_again():
    """The entry point found for one State object is not used for another (`jit.compiled_entry`): a state
    of the same game whose fields are other arrays goes through the dispatcher, which types them, and a
    state of the wrong structure is refused before any kernel runs."""
    game = make("hadara", num_players=2)
    fused = StepObserve(game, make_encoder("hadara", game))
    rng = np.random.default_rng(3)
    first = game.init(rng, 1)
    for _ in range(3):
        fused(first, int(sample_masked(game.legal_action_mask(first), rng)[0]), rng)
    second = core.clone(first)
    expected = core.clone(first)
    action = int(sample_masked(game.legal_action_mask(first), rng)[0])
    game.step_inplace(expected, np.array([action]), np.random.default_rng(5))
    fused(second, action, np.random.default_rng(5))
    assert core.states_equal(second, expected)
    if not jit.numba_config.DISABLE_JIT:
        assert fused._entry_state is second
    wrong = second._replace(coins=second.coins.astype(np.int64))
    with pytest.raises(ValueError, match="coins"):
        fused(wrong, int(np.flatnonzero(fused.mask[0])[0]), rng)
    assert fused._entry_state is second


def test_fused_step_keeps_the_dispatcher_for_other_array_layouts():
    """The entry point is taken only for States whose fields are all C-contiguous, aligned and writeable
    (numba's type of an array includes its layout and flags; `check_state` checks dtypes and shapes)."""
    game = make("hadara", num_players=2)
    fused = StepObserve(game, make_encoder("hadara", game))
    rng = np.random.default_rng(4)
    state = game.init(rng, 1)
    fused(state, int(sample_masked(game.legal_action_mask(state), rng)[0]), rng)
    if jit.numba_config.DISABLE_JIT:
        return
    assert fused._entry_state is state
    wide = np.zeros((1, 2 * state.coins.shape[1]), dtype=state.coins.dtype)
    strided = state._replace(coins=wide[:, ::2])  # same dtype and shape, not contiguous
    readonly = core.clone(state)
    readonly.coins.flags.writeable = False
    for other in (strided, readonly):
        fused._resolve_entry(other)
        assert fused._entry_state is None
    fused._resolve_entry(state)
    assert fused._entry_state is state
