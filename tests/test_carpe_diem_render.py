"""Carpe Diem views: the text score sheet, action_to_str for every action, the RGB picture and the AEC renders."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import core, make, make_env
from meeple.envs.carpe_diem import data, render


@pytest.fixture(scope="module")
def game():
    return make("carpe_diem", num_players=3)


def _random_states(game, seed, stops=(0, 15, 60, 140, 260)):
    """Single-row states at several points of one random game, plus one row per decision kind seen."""
    rng = np.random.default_rng(seed)
    state = game.init(rng, 1)
    out, seen = [], set()
    for step in range(600):
        dec = int(state.decision[0])
        if step in stops or dec not in seen:
            out.append(state)
            seen.add(dec)
        if state.done[0]:
            break
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    return out


def test_score_sheet_has_every_district_and_changes_after_a_placement(game):
    rng = np.random.default_rng(0)
    state = game.init(rng, 1)
    while state.decision[0] != data.DEC_PLACE:
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    text = render.score_sheet(game, state, detail=True)
    for p in range(3):
        assert f"player_{p}" in text
    assert text.count("    +----+----+----+----+----+----+") == 3 * 7  # a 6 x 6 grid per player
    assert "shov" in text and "flag" in text
    p = int(state.to_play[0])
    shovel = int(data.BOARD_SHOVEL[int(state.board[0, p])])
    action = data.ACTION_PLACE + 4 * shovel  # the first tile goes on the shovel cell
    assert game.legal_action_mask(state)[0, action]
    after = game.step(state, np.array([action]), rng)
    assert render.score_sheet(game, after, detail=True) != text
    t = int(state.tile_pending[0])
    lines = render._cell_lines(t, 0, False, True)
    assert any(line in render.score_sheet(game, after, detail=True) for line in lines if line.strip())
    assert data.TILE_NAMES[t] in game.render_text(after)  # the default view names the tile in its district grid


def test_score_sheet_hides_fountain_kinds(game):
    state = [s for s in _random_states(game, 5) if not s.done[0]][-1]
    assert state.fountain_hand.sum() > 0
    other = core.clone(state)
    other.fountain_hand[:] = np.roll(other.fountain_hand, 1, axis=2)  # same counts, other kinds
    other.fountain_returned[:] = np.roll(other.fountain_returned, 3, axis=2)
    assert game.render_text(other) == game.render_text(state)
    np.testing.assert_array_equal(game.render_rgb(other), game.render_rgb(state))


def test_action_to_str_for_every_action(game):
    for seed in (1, 2):
        for state in _random_states(game, seed):
            mask = game.legal_action_mask(state)[0]
            for action in range(game.num_actions):
                text = game.action_to_str(state, action)
                assert isinstance(text, str) and text and not text.startswith(game.action_names[action])
                assert ("[illegal now]" in text) == (not mask[action] and not state.done[0])
                assert ("[the game is over]" in text) == bool(state.done[0])
    with pytest.raises(ValueError, match="action"):  # outside the action space: a mistake, not a name
        game.action_to_str(state, game.num_actions + 3)


def test_action_to_str_placement_effects(game):
    rng = np.random.default_rng(7)
    state = game.init(rng, 1)
    while state.decision[0] != data.DEC_PLACE:
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    p = int(state.to_play[0])
    shovel = int(data.BOARD_SHOVEL[int(state.board[0, p])])
    text = game.action_to_str(state, data.ACTION_PLACE + 4 * shovel + 1)
    assert f"on ({shovel // 6}, {shovel % 6}) turned 1" in text and data.TILE_NAMES[int(state.tile_pending[0])] in text


def test_rgb_render_shape_and_changes(game):
    states = _random_states(game, 3, stops=(20, 200))
    a, b = states[0], states[-1]
    img_a, img_b = game.render_rgb(a), game.render_rgb(b)
    assert img_a.ndim == 3 and img_a.shape[2] == 3 and img_a.dtype == np.uint8
    assert img_b.shape == img_a.shape and not np.array_equal(img_a, img_b)


def test_aec_rgb_array_and_ansi_modes():
    env = make_env("carpe_diem", num_players=2, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"] and "ansi" in env.metadata["render_modes"]
    assert env.render() is None  # before reset
    env.reset(seed=1)
    img = env.render()
    assert isinstance(img, np.ndarray) and img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8
    env.step(env.legal_actions()[0])
    assert env.render().shape == img.shape
    text_env = make_env("carpe_diem", num_players=2, render_mode="ansi")
    text_env.reset(seed=1)
    assert "player_0" in text_env.render()
