"""The pictures of every game (`game.render_rgb`, render modes "rgb_array" and "human"): drawn at the start, in
the middle and at the end of a game, changing with the position, and showing a seat nothing of the other
players' secrets; PettingZoo's render test and the window of "human" mode (off screen: conftest.py sets
SDL_VIDEODRIVER=dummy)."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path

import gymnasium
import numpy as np
import pygame
import pytest
from pettingzoo.test import render_test

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, make, make_env
from meeple.envs.base import PRIVATE
from meeple.envs.single_agent import GYMNASIUM_IDS
from meeple.envs.vector import BoardGameVectorEnv

from helpers import game_cases

ROOT = Path(__file__).resolve().parents[1]
MIN_COLOURS = 12  # a picture of a position has far more; a blank or one-colour frame has 1-2


def _game_positions(game, seed: int, stops: tuple[int, ...]) -> dict[str, object]:
    """The start, the states after each step count in `stops` (if the game lasts that long) and the end of
    one seeded random game, as one-row states."""
    rng = np.random.default_rng(seed)
    state = game.init(rng, 1)
    positions = {"start": state}
    step = 0
    while not state.done[0]:
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
        step += 1
        if step in stops and not state.done[0]:
            positions[f"step {step}"] = state
    positions["end"] = state
    return positions


def _colours(picture: np.ndarray) -> int:
    packed = (picture[..., 0].astype(np.int32) << 16) | (picture[..., 1].astype(np.int32) << 8) | picture[..., 2]
    return len(np.unique(packed))


@cache
def _case(name: str, config_items: tuple) -> tuple:
    """(name, rules core, positions of one random game) of one configuration, made once per session."""
    game = make(name, **dict(config_items))
    return name, game, _game_positions(game, seed=7, stops=(40, 120))


@pytest.fixture(params=game_cases())
def case(request):
    name, config = request.param
    return _case(name, tuple(sorted(config.items())))


def test_every_game_draws_and_shows_a_window():
    for name in GAMES:
        assert make(name).render_modes() == ["ansi", "rgb_array", "human"]


def test_pictures_at_start_middle_and_end(case):
    name, game, positions = case
    assert {"start", "end"} <= set(positions) and len(positions) >= 3
    pictures = {}
    for where, state in positions.items():
        picture = game.render_rgb(state)
        assert picture.ndim == 3 and picture.shape[2] == 3 and picture.dtype == np.uint8, (name, where)
        assert _colours(picture) >= MIN_COLOURS, (name, where)
        for seat in range(game.num_players):
            assert game.render_rgb(state, seat=seat).shape[2] == 3
        pictures[where] = picture
    ordered = list(pictures.values())
    for before, after in zip(ordered, ordered[1:]):  # every position drawn differs from the one before
        assert before.shape != after.shape or not np.array_equal(before, after), name


def test_rows_of_a_batch_are_drawn_separately(case):
    name, game, positions = case
    start, end = positions["start"], positions["end"]
    batch = type(start)(*(np.concatenate([a, b]) for a, b in zip(start, end)))
    np.testing.assert_array_equal(game.render_rgb(batch, 1), game.render_rgb(end))
    np.testing.assert_array_equal(game.render_rgb(batch, 0, seat=0), game.render_rgb(start, seat=0))


def test_seat_view_hides_what_the_seat_cannot_know(case):
    """A position that differs only in what seat p cannot see (another deal of the others' cards and the
    stacks, `determinize`) looks the same to p and to a spectator."""
    name, game, positions = case
    rng = np.random.default_rng(3)
    for where, state in positions.items():
        if state.done[0]:  # a finished game reveals what its final scoring counts (Carpe Diem's fountain cards)
            continue
        spectator = game.render_rgb(state)
        for p in range(game.num_players):
            resampled = game.determinize(state, p, rng)
            np.testing.assert_array_equal(game.render_rgb(resampled, seat=p), game.render_rgb(state, seat=p),
                                          err_msg=f"{name} {where}: seat {p} sees others' secrets")
            np.testing.assert_array_equal(game.render_rgb(resampled), spectator,
                                          err_msg=f"{name} {where}: the spectator sees secrets")


@pytest.mark.parametrize("name", list(GAMES))
def test_seat_view_shows_the_seats_own_secrets(name):
    """When the next seat's resampling (`determinize`) changes seat p's own hidden cards, p's view changes
    (and the spectator's does not); a game without hidden information shows every seat the spectator's
    picture. Over every test configuration of the game, since a random game may deal few secrets."""
    rng = np.random.default_rng(4)
    changed_seen = 0
    for config in GAMES[name].test_configs:
        _, game, positions = _case(name, tuple(sorted(config.items())))
        private = [f.name for f in game.FIELDS if f.visibility == PRIVATE and f.shape[:1] == ("P",)]
        for state in positions.values():
            if state.done[0] or game.num_players == 1:
                continue
            spectator = game.render_rgb(state)
            for p in range(game.num_players):
                if not game.info.has_hidden_information:
                    np.testing.assert_array_equal(game.render_rgb(state, seat=p), spectator)
                    continue
                resampled = game.determinize(state, (p + 1) % game.num_players, rng)
                if any(not np.array_equal(getattr(state, f)[0, p], getattr(resampled, f)[0, p]) for f in private):
                    assert not np.array_equal(game.render_rgb(resampled, seat=p), game.render_rgb(state, seat=p)), \
                        f"{name} {config}: seat {p}'s view misses its own hidden cards"
                    changed_seen += 1
                np.testing.assert_array_equal(game.render_rgb(resampled), spectator)
    if make(name).info.has_hidden_information:
        assert changed_seen, f"{name}: no position where another seat's resampling changed a seat's own cards"


@pytest.mark.parametrize("name", list(GAMES))
def test_bad_seat_is_refused(name):
    game = make(name)
    state = game.init(np.random.default_rng(0), 1)
    for seat in (-1, game.num_players, True, "0", 1.0):
        with pytest.raises(ValueError, match="seat"):
            game.render_rgb(state, seat=seat)


@pytest.mark.parametrize("name", list(GAMES))
def test_pettingzoo_render_test(name):
    render_test(lambda render_mode=None: make_env(name, num_players=2, render_mode=render_mode))


@pytest.mark.parametrize("name", list(GAMES))
def test_human_mode_shows_the_picture_in_a_window(name):
    env = make_env(name, num_players=2, render_mode="human")
    assert env.metadata["render_fps"] > 0
    env.reset(seed=1)
    frame = env.game.render_rgb(env.game_state)
    assert pygame.display.get_surface().get_size() == (frame.shape[1], frame.shape[0])
    env.step(env.legal_actions()[0])
    assert env.render() is None
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).swapaxes(0, 1)
    np.testing.assert_array_equal(shown, env.game.render_rgb(env.game_state))
    env.close()
    assert not pygame.display.get_init()


@pytest.mark.parametrize("name", ["hadara", "roll_through_the_ages"])
def test_gymnasium_human_mode(name):
    env = gymnasium.make(GYMNASIUM_IDS[name], render_mode="human")
    assert env.metadata["render_fps"] > 0 and "human" in env.metadata["render_modes"]
    _, info = env.reset(seed=0)
    assert pygame.display.get_surface() is not None
    env.step(env.action_space.sample(mask=info["action_mask"]))
    assert env.render() is None
    env.close()
    assert not pygame.display.get_init()
    vector = BoardGameVectorEnv(name, num_envs=2, render_mode="human")
    _, infos = vector.reset(seed=0)
    vector.step(np.array([np.flatnonzero(row)[0] for row in infos["action_mask"]]))
    assert vector.render() is None
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).swapaxes(0, 1)
    np.testing.assert_array_equal(shown, vector.game.render_rgb(vector.state, 0))  # row 0's game
    vector.close()
    assert not pygame.display.get_init()


def test_pictures_script_regenerates_the_docs_pictures(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "pictures.py"), "--out", str(tmp_path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    for name in GAMES:
        picture = tmp_path / f"{name}.png"
        assert 0 < picture.stat().st_size < 200_000
        assert (ROOT / "docs" / "img" / f"{name}.png").exists()


def _overlaps(texts) -> list[tuple[str, str]]:
    """Pairs of strings whose boxes overlap by more than a pixel each way (each string's box as drawn)."""
    out = []
    boxes = sorted(texts, key=lambda t: t.x)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if b.x >= a.x + a.w - 1:
                break
            if min(a.y + a.h, b.y + b.h) - max(a.y, b.y) > 1 and min(a.x + a.w, b.x + b.w) - max(a.x, b.x) > 1:
                out.append((a.text, b.text))
    return out


def test_picture_text_is_large_enough_inside_the_picture_and_apart(case):
    """Every string a picture writes (start, middle and end of a game; the spectator's and every seat's view)
    uses a font of at least canvas.MIN_TEXT_PX pixels (the play page shows it at 0.93 or more of its size:
    test_web_browser.py checks that it stays at least 12 px on screen), lies inside the picture, and overlaps
    no other string."""
    from meeple.envs import canvas

    name, game, positions = case
    for where, state in positions.items():
        for seat in (None, *range(game.num_players)):
            with canvas.recording() as texts:
                picture = game.render_rgb(state, seat=seat)
            assert texts, (name, where)
            small = sorted({(t.size, t.text) for t in texts if t.size < canvas.MIN_TEXT_PX})
            assert not small, f"{name} {where} seat {seat}: text below {canvas.MIN_TEXT_PX} px: {small[:5]}"
            h, w = picture.shape[:2]
            outside = [t.text for t in texts if t.x < 0 or t.y < 0 or t.x + t.w > w or t.y + t.h > h]
            assert not outside, f"{name} {where} seat {seat}: text outside the {w}x{h} picture: {outside[:5]}"
            assert not _overlaps(texts), f"{name} {where} seat {seat}: overlapping text: {_overlaps(texts)[:5]}"


def test_text_recording_sees_every_string_and_its_size():
    """canvas.recording() (what the text-size test and the browser's hints rely on) records each string with
    the font size it was drawn in and the box it covers on the picture, nested blocks included."""
    import numpy as np
    from PIL import Image

    from meeple.envs import canvas

    image = Image.new("RGB", (200, 60), (255, 255, 255))
    draw = canvas.Draw(image)
    with canvas.recording() as outer:
        draw.text((10, 10), "Hadara", fill=(0, 0, 0), font=canvas.font(15))
        with canvas.recording() as inner:
            draw.text((100, 30), "I-P02", fill=(0, 0, 0), font=canvas.font(13), anchor="mm")
        draw.text((10, 40), "two\nlines", fill=(0, 0, 0), font=canvas.font(14))
    assert [(t.text, t.size) for t in outer] == [("Hadara", 15), ("two\nlines", 14)]
    assert [(t.text, t.size) for t in inner] == [("I-P02", 13)]
    ink = np.argwhere(np.asarray(image.convert("L")) < 128)
    first = outer[0]
    drawn = ink[(ink[:, 1] < 80) & (ink[:, 0] < 35)]  # the pixels of "Hadara"
    assert first.x <= drawn[:, 1].min() and drawn[:, 1].max() < first.x + first.w
    assert first.y <= drawn[:, 0].min() and drawn[:, 0].max() < first.y + first.h
    box = inner[0]
    assert abs(box.x + box.w / 2 - 100) <= 1 and abs(box.y + box.h / 2 - 30) <= 3
