"""Carpe Diem's chance outcomes (`game.chance_outcomes` / `game.chance_outcome`, envs/carpe_diem/chance.py),
checked against probabilities worked out by hand.

A step draws randomness in two places only: the fountain draw (2 cards from the undrawn deck when a tile
with a fountain is built) and the depot deal (28 tiles from the phase's supply after the start spaces and
after each scoring round but the last). Positions start from a game set up with all uniforms 0: the
start player is seat 0, seat p's patrician stands on space p, and the deal is the identity (depot d
holds L(4d+1)..L(4d+4)), so depot 1 holds the fountain tiles L07 and L08 in slots 2 and 3.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from meeple.envs import GAMES, core, make
from meeple.envs.base import TooManyOutcomes
from meeple.envs.carpe_diem import data
from meeple.envs.carpe_diem.data import (
    ACTION_MOVE_CW, ACTION_PLACE, ACTION_SPACE, ACTION_TAKE, BOARD_SHOVEL, DEC_FOUNTAIN_RETURN, DEC_MOVE,
    DEC_PLACE, UNIFORMS_AT_INIT, UNIFORMS_PER_STEP,
)
from meeple.envs.carpe_diem.rules import LOC_REMOVED
from meeple.envs.carpe_diem.render import FOUNTAIN_TEXT

CONFIGS = [dict(c) for c in GAMES["carpe_diem"].test_configs]
IDS = [f"{c['num_players']}p" for c in CONFIGS]
# every column a step may read (`step` draws fewer and extends them with a stream): all 0 deals the identity
FULL_ZEROS = np.zeros((1, UNIFORMS_PER_STEP))


def start_spaces(game, seats: int):
    """A new game (all uniforms 0) after the first `seats` start spaces: seat p on space p."""
    s = game.init_from_uniforms(np.zeros((1, UNIFORMS_AT_INIT)))
    for p in range(seats):
        s = game.apply(s, np.array([ACTION_SPACE + p]), FULL_ZEROS)
    return s


def at_fountain_tile(game):
    """Seat 0 (the start player) holding L07 (a fountain in its centre) to build: moved clockwise from
    space 0 to depot 1 and took slot 2. Its first tile goes on the shovel cell, in any rotation."""
    s = start_spaces(game, game.num_players)
    assert s.decision[0] == DEC_MOVE and s.to_play[0] == 0
    for a in (ACTION_MOVE_CW, ACTION_TAKE + 2):
        s = game.step(s, np.array([a]), np.random.default_rng(0))
    assert s.decision[0] == DEC_PLACE and data.TILE_NAMES[s.tile_pending[0]] == "L07"
    return s


def build_on_shovel(s) -> int:
    return ACTION_PLACE + 4 * int(BOARD_SHOVEL[s.board[0, 0]])


def fountain(a: int, b: int) -> str:
    return f"fountain cards drawn: FC{a:02d} ({FOUNTAIN_TEXT[a]}) and FC{b:02d} ({FOUNTAIN_TEXT[b]})"


def sampled(game, state, action: int, n: int, seed: int = 1) -> Counter:
    """How often each outcome (chance_outcome) comes up in n sampled steps of `action`."""
    batch = core.concatenate([state] * n)
    after = game.step(batch, np.full(n, action), np.random.default_rng(seed))
    return Counter(game.chance_outcome(batch, action, after, r) for r in range(n))


def assert_frequencies(seen: Counter, expected: dict[str, float], n: int) -> None:
    assert set(seen) <= set(expected), set(seen) - set(expected)
    for description, p in expected.items():
        assert abs(seen[description] / n - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1 / n, (description, p, seen)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_the_first_fountain_draw_of_a_game(config):
    """The full deck: 12 kinds x 2 copies. A pair of one kind: 2/24 * 1/23 = 1/276 (12 of them); two kinds
    a, b: 2 * (2/24 * 2/23) = 1/69 (66 of them); 12/276 + 66/69 = 1."""
    game = make("carpe_diem", **config)
    s = at_fountain_tile(game)
    outcomes = dict(game.chance_outcomes(s, build_on_shovel(s)))
    assert len(outcomes) == 78
    assert outcomes[fountain(3, 3)] == pytest.approx(1 / 276, rel=1e-12)
    assert outcomes[fountain(0, 11)] == pytest.approx(1 / 69, rel=1e-12)
    assert sum(1 for p in outcomes.values() if p == pytest.approx(1 / 276)) == 12
    assert sum(outcomes.values()) == pytest.approx(1.0, abs=1e-12)
    # a draw that was played names itself, whatever the order of the two cards
    after = game.apply(s, np.array([build_on_shovel(s)]), np.full((1, UNIFORMS_PER_STEP), 0.99))
    assert after.decision[0] == DEC_FOUNTAIN_RETURN and list(after.fountain_drawn[0]) == [11, 0]
    assert game.chance_outcome(s, build_on_shovel(s), after) == fountain(0, 11)
    with pytest.raises(TooManyOutcomes, match="78"):
        game.chance_outcomes(s, build_on_shovel(s), limit=77)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_a_fountain_draw_from_a_thin_deck(config):
    """Seat 1 has returned every card but FC00 x 2, FC05 and FC11: 4 cards, 4 * 3 = 12 ordered draws.
    {FC00, FC00}: 2 * 1 / 12 = 1/6; {FC00, FC05}: (2 * 1 + 1 * 2) / 12 = 1/3, {FC00, FC11} likewise;
    {FC05, FC11}: 2 / 12 = 1/6. Sampled steps follow (the draw {FC00, FC00} leaves seat 0 one kind to
    return, which auto_forced applies inside the same step: the outcome is still read off)."""
    game = make("carpe_diem", **config)
    s = at_fountain_tile(game)
    s.fountain_returned[0, 1] = data.FOUNTAIN_COPIES
    s.fountain_returned[0, 1, [0]] = 0
    s.fountain_returned[0, 1, [5, 11]] = 1
    action = build_on_shovel(s)
    expected = {fountain(0, 0): 1 / 6, fountain(0, 5): 1 / 3, fountain(0, 11): 1 / 3, fountain(5, 11): 1 / 6}
    outcomes = game.chance_outcomes(s, action)
    assert [d for d, _ in outcomes[:2]] in ([fountain(0, 5), fountain(0, 11)], [fountain(0, 11), fountain(0, 5)])
    assert dict(outcomes) == pytest.approx(expected, rel=1e-12)
    assert_frequencies(sampled(game, s, action, 1000), expected, 1000)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_moves_without_chance(config):
    """A move, a take and building a tile without a fountain draw nothing: [] and, sampled, None."""
    game = make("carpe_diem", **config)
    s = start_spaces(game, game.num_players)
    assert game.chance_outcomes(s, ACTION_MOVE_CW) == []
    assert set(sampled(game, s, ACTION_MOVE_CW, 50)) == {None}
    s = game.step(s, np.array([ACTION_MOVE_CW]), np.random.default_rng(0))
    assert game.chance_outcomes(s, ACTION_TAKE) == []
    s = game.step(s, np.array([ACTION_TAKE]), np.random.default_rng(0))
    assert data.TILE_NAMES[s.tile_pending[0]] == "L05"  # a market: a coin, no card
    assert game.chance_outcomes(s, build_on_shovel(s)) == []
    assert set(sampled(game, s, build_on_shovel(s), 50)) == {None}


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_the_setup_deal(config):
    """The last start space deals 28 of the 84 light tiles, 4 per depot: 84!/56! ordered draws, 4!^7 of them
    per deal (the order inside a depot does not matter). Far too many to list."""
    game = make("carpe_diem", **config)
    P = game.num_players
    s = start_spaces(game, P - 1)
    last = ACTION_SPACE + P - 1
    with pytest.raises(TooManyOutcomes) as info:
        game.chance_outcomes(s, last)
    assert info.value.count == math.perm(84, 28) // math.factorial(4) ** 7
    after = game.apply(s, np.array([last]), FULL_ZEROS)  # the identity deal
    expected = "phase 1 deal: " + ", ".join(
        f"depot {d} [{' '.join(f'L{4 * d + j:02d}' for j in range(1, 5))}]" for d in range(7))
    assert game.chance_outcome(s, last, after) == expected


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_a_deal_from_a_thin_supply(config):
    """With only L01..L05 left in the supply, the deal puts 4 of them in depot 0 and the fifth alone in
    depot 1: 5!/0! / (4! 1!) = 5 deals, each 1/5."""
    game = make("carpe_diem", **config)
    P = game.num_players
    s = start_spaces(game, P - 1)
    s.tile_loc[0, 5:data.NUM_LIGHT] = LOC_REMOVED
    last = ACTION_SPACE + P - 1
    names = [f"L{i:02d}" for i in range(1, 6)]
    expected = {f"phase 1 deal: depot 0 [{' '.join(n for n in names if n != alone)}], depot 1 [{alone}]": 0.2
                for alone in names}
    assert dict(game.chance_outcomes(s, last)) == pytest.approx(expected, rel=1e-12)
    assert_frequencies(sampled(game, s, last, 1000), expected, 1000)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_a_whole_game(config):
    """Every step of a random game: a deal (TooManyOutcomes, with the count of its phase's supply: 84, 56
    and 28 light tiles, then the 28 dark tiles off the display) exactly where the phase changes; a fountain
    draw exactly where a fountain is built; no chance anywhere else."""
    game = make("carpe_diem", **config)
    rng = np.random.default_rng(7)
    s = game.init(rng, 1)
    supply = {0: 84, 1: 56, 2: 28, 3: 28}
    deals, draws = [], 0
    while not s.done[0]:
        legal = np.flatnonzero(game.legal_action_mask(s)[0])
        action = int(rng.choice(legal))
        after = game.step(s, np.array([action]), rng)
        said = game.chance_outcome(s, action, after)
        builds_fountain = (s.decision[0] == DEC_PLACE and action != data.ACTION_STORE
                           and data.TILE_CENTRE[s.tile_pending[0]] == data.CENTRE_FOUNTAIN)
        try:
            outcomes = game.chance_outcomes(s, action)
        except TooManyOutcomes as e:
            phase = int(after.phase[0])
            assert e.count == math.perm(supply[phase], 28) // math.factorial(4) ** 7
            assert said.startswith(f"phase {phase + 1} deal: depot 0 [") and said.count("[") == 7
            assert len(said.split()) == 3 + 2 * 7 + 28  # "phase N deal:", "depot d" x 7, 28 tiles
            deals.append(phase)
        else:
            assert bool(outcomes) == builds_fountain == (said is not None)
            if outcomes:
                draws += 1
                assert said in dict(outcomes)
                assert sum(p for _, p in outcomes) == pytest.approx(1, abs=1e-12)
        s = after
    assert deals == [0, 1, 2, 3]
