"""Text views with a seat: `render_text(state, row, seat)` shows public information plus only that
seat's own hidden information, and the default view fits a terminal (`envs/textview.py`)."""

from __future__ import annotations

from importlib import import_module

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, make
from meeple.envs.textview import TERMINAL_LINES, TERMINAL_WIDTH, wrap_line

CONFIGS = [(name, config) for name in GAMES for config in GAMES[name].test_configs]


def _states(game, seed: int, steps: int = 300, every: int = 7) -> list:
    """Single-row states every `every` steps of one seeded random game (the last one finished or not)."""
    rng = np.random.default_rng(seed)
    state = game.init(rng, 1)
    out = []
    for step in range(steps):
        if step % every == 0 or state.done[0]:
            out.append(state)
        if state.done[0]:
            break
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    return out


@pytest.mark.parametrize("name,config", CONFIGS, ids=[f"{n}-{c}" for n, c in CONFIGS])
def test_default_view_fits_a_terminal_and_hides_what_the_seat_cannot_see(name, config):
    game = make(name, **config)
    rng = np.random.default_rng(1)
    for state in _states(game, 3):
        for seat in [None, *range(game.num_players)]:
            text = game.render_text(state, 0, seat=seat)
            lines = text.split("\n")
            assert len(lines) <= TERMINAL_LINES and max(map(len, lines)) <= TERMINAL_WIDTH, (seat, text)
            if state.done[0]:
                continue  # the end reveals every hand (final scores count them)
            # the same view of a state that differs only in what this seat cannot see
            for viewer in ([seat] if seat is not None else range(game.num_players)):
                other = game.determinize(state, viewer, rng)
                assert game.render_text(other, 0, seat=seat) == text


@pytest.mark.parametrize("name", list(GAMES))
def test_detail_view_is_the_long_sheet(name):
    game = make(name, **GAMES[name].test_configs[-1])
    render = import_module(game.render_module)
    state = _states(game, 2)[-1]
    detail = render.score_sheet(game, state, 0, seat=None, detail=True)
    assert detail != "" and len(detail) >= len(game.render_text(state)) - 200  # no shorter than the default, give or take wrapping
    for p in range(game.num_players):
        assert f"player_{p}" in detail


def _first(game, seed, condition):
    for state in _states(game, seed, steps=600, every=1):
        if condition(state):
            return state
    raise AssertionError("no such state in the game")


def test_seat_views_name_the_seats_own_secrets():
    hadara = make("hadara", num_players=3)
    state = _first(hadara, 0, lambda s: s.drawn[0, s.to_play[0], 0] >= 0)
    p = int(state.to_play[0])
    from meeple.envs.hadara.data import CARD_NAMES
    mine = CARD_NAMES[int(state.drawn[0, p, 0])]
    assert "your drawn pair: " + mine in hadara.render_text(state, seat=p)
    assert "your drawn pair" not in hadara.render_text(state)
    assert "your drawn pair: " + mine not in hadara.render_text(state, seat=(p + 1) % 3)  # that seat sees its own pair

    carpe = make("carpe_diem", num_players=3)
    state = _first(carpe, 5, lambda s: s.fountain_hand[0].sum(axis=1).max() > 0)
    p = int(np.argmax(state.fountain_hand[0].sum(axis=1)))
    assert "your fountain cards (2 VP per feature): " in carpe.render_text(state, seat=p)
    assert "your fountain cards" not in carpe.render_text(state)

    utopia = make("utopia", num_players=3)
    state = _first(utopia, 1, lambda s: s.hand[0, 0].sum() > 0)
    assert "your cards: " in utopia.render_text(state, seat=0) and "your cards" not in utopia.render_text(state)

    rtta = make("roll_through_the_ages", num_players=2)
    state = rtta.init(np.random.default_rng(0), 1)
    assert "== player_1 (start, active, you)" in rtta.render_text(state, seat=1) and "you" not in rtta.render_text(state)


def test_wrap_line_keeps_every_word():
    line = "supply " + ", ".join(f"item {i} of the list" for i in range(20))
    pieces = wrap_line(line, 60)
    assert all(len(p) <= 60 for p in pieces) and len(pieces) > 1
    assert " ".join(p.strip() for p in pieces).split() == line.split()
