"""Utopia: every worked example of the rules and edge cases of each rule section, through the public API.

Positions are built by writing fields on `game.empty(1)` (`position` below fills the defaults of a
consistent position: empty board, scale MAY 1 .. CHI 5, stamps in seating order, full privilege
tokens, every card not in a hand or the discards in the draw pile), then `game.advance` and
`game.validate`. Most examples use auto_forced=False so that the position right after an action can
be inspected before forced moves run on.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import core
from meeple.envs.base import InvalidState
from meeple.envs.utopia import Utopia
from meeple.envs.utopia import data as D

MAY, PER, EGY, GRE, CHI = range(5)
FIRE, EARTH, WIND, WATER = range(4)
CODE = {code: d for d, code in enumerate(D.DISTRICT_CODES)}


def position(P: int = 3, auto_forced: bool = False, phase: int = 1, decision: int = D.DEC_TURN, to_play: int = 0,
             acted=None, scores=None, stamps=None, hands=None, gains_kind: int = D.GAIN_PRESTIGE, **fields):
    """(game, state): a consistent hand-built position. `scores` are recorded as gains of `gains_kind`
    (wonder points are derived from the wonders); `fields` are written as given (name -> value)."""
    game = Utopia(num_players=P, auto_forced=auto_forced)
    s = game.empty(1)
    s.scale[0] = [1, 2, 3, 4, 5]
    s.mon_civ[0] = -1
    s.mon_owner[0] = -1
    s.wonder_owner[0] = -1
    for name in ("wonder_island", "wonder_civ", "convert_from", "convert_to"):
        getattr(s, name)[0] = -1
    s.round[0] = 1
    s.phase[0] = phase
    s.pick_pass[0] = 0 if phase == 0 else D.PICK_PASSES - 1
    s.decision[0] = decision
    s.to_play[0] = to_play
    s.acted[0] = False if acted is None else acted
    s.acted[0, to_play] = True if decision != D.DEC_DISCARD else s.acted[0, to_play]
    s.privileges[0] = D.PRIVILEGES
    s.stamp[0] = np.arange(P) if stamps is None else stamps
    s.stamp_counter[0] = int(s.stamp[0].max()) + 1
    if hands is not None:
        s.hand[0] = hands
    for name, value in fields.items():
        getattr(s, name)[0] = value
    for p in range(P):
        wonders = int((s.wonder_owner[0] == p).sum())
        s.gains[0, p, D.GAIN_WONDER] = D.WONDER_VP * wonders
        if scores is not None:
            s.gains[0, p, gains_kind] = scores[p] - D.WONDER_VP * wonders
    s.score[0] = s.gains[0].sum(axis=1)
    s.pile[0] = D.CARDS_PER_CIV - s.hand[0].sum(axis=0) - s.discard[0]
    state = game.advance(s)
    game.validate(state)
    return game, state


def play(game, state, *actions, u=0.5):
    for a in actions:
        mask = game.legal_action_mask(state)
        assert mask[0, a], f"{game.action_to_str(state, a)} should be legal; legal {np.flatnonzero(mask[0])[:20]}"
        state = game.apply(state, np.array([a]), np.full((1, game.uniforms_per_step), u))
        game.validate(state)
    return state


def legal(game, state) -> np.ndarray:
    return game.legal_action_mask(state)[0]


def hand(*pairs, P: int = 3, seat: int = 0) -> np.ndarray:
    h = np.zeros((P, 5), dtype=np.int8)
    for c, n in pairs:
        h[seat, c] = n
    return h


def princes(P: int, *entries) -> np.ndarray:
    """entries: (player, civ, district code, count)."""
    x = np.zeros((P, 5, 24), dtype=np.int8)
    for p, c, code, n in entries:
        x[p, c, CODE[code]] = n
    return x


# --- the rules' worked examples ------------------------------------------------------------------------

def test_example_1_phase_1_pick():
    display = np.zeros((4, 5), dtype=np.int8)
    display[FIRE, [EGY, MAY]] = 1
    display[EARTH, PER], display[EARTH, GRE] = 2, 1
    display[WIND, [CHI, MAY]] = 1
    display[WATER, [GRE, EGY]] = 1
    game, state = position(phase=0, decision=D.DEC_PICK, to_play=0, display=display)
    mask = legal(game, state)
    assert mask[53] and mask[71] and not mask[58] and not mask[96]
    assert game.action_names[53] == "PLACE_EGY_FIR-6"
    state = play(game, state, 53)
    assert state.display[0, FIRE, EGY] == 0
    assert state.princes[0, 0, EGY, CODE["FIR-6"]] == 1 and state.princes[0, 0, EGY].sum() == 1  # supply 7
    assert state.to_play[0] == 1 and state.decision[0] == D.DEC_PICK  # no build possible: window skipped


def test_example_2_land_move_of_two_princes_over_a_bridge():
    game, state = position(princes=princes(3, (0, GRE, "FIR-3", 2)), hands=hand((GRE, 1)))
    mask = legal(game, state)
    assert mask[840] and mask[760]
    assert not any(a == CODE["FIR-3"] and b == CODE["FIR-8"] for a, b in D.LAND_EDGES)  # no such edge
    state = play(game, state, 840)
    assert state.princes[0, 0, GRE, CODE["FIR-3"]] == 0 and state.princes[0, 0, GRE, CODE["WIN-4"]] == 2
    assert state.hand[0, 0, GRE] == 0 and state.discard[0, GRE] == 1


@pytest.mark.parametrize("P", [2, 3])
def test_example_3_sea_move_and_sectors(P):
    game, state = position(P, to_play=1, princes=princes(P, (1, CHI, "EAR-1", 1)), hands=hand((CHI, 1), P=P, seat=1))
    mask = legal(game, state)
    assert mask[1436]
    assert mask[1438] == (P > 2)  # EAR-1 -> WAT-3 only with the Water island in play
    assert not any(a == CODE["EAR-1"] and b == CODE["FIR-5"] for a, b in D.SEA_ROUTES)  # sector I to III
    state = play(game, state, 1436)
    assert state.princes[0, 1, CHI, CODE["EAR-4"]] == 1 and state.hand[0, 1, CHI] == 0


def test_example_4_adding_to_an_opponents_monument_changes_the_turn_order():
    mon_civ = np.full(24, -1)
    mon_owner = np.full(24, -1)
    mon_civ[CODE["WIN-3"]], mon_owner[CODE["WIN-3"]] = EGY, 1
    game, state = position(scores=[25, 18, 18], stamps=[5, 4, 3], hands=hand((EGY, 2)), mon_civ=mon_civ,
                           mon_owner=mon_owner)
    state = play(game, state, 1572)
    assert state.princes[0, 0, EGY, CODE["WIN-3"]] == 1 and state.princes[0, 0, EGY].sum() == 1
    assert state.hand[0, 0, EGY] == 1
    assert state.score[0, 1] == 19 and state.stamp[0, 1] == 6 and state.gains[0, 1, D.GAIN_ADDED] == 1
    state = play(game, state, D.ACTION_END)
    assert state.to_play[0] == 1 and state.decision[0] == D.DEC_TURN  # P1 (19) before P2 (18)


def test_adding_to_ones_own_monument_scores_nothing():
    mon_civ, mon_owner = np.full(24, -1), np.full(24, -1)
    mon_civ[CODE["WIN-3"]], mon_owner[CODE["WIN-3"]] = EGY, 0
    game, state = position(hands=hand((EGY, 1)), mon_civ=mon_civ, mon_owner=mon_owner)
    state = play(game, state, D.ACTION_ADD + 24 * EGY + CODE["WIN-3"])
    assert (state.score[0] == 0).all()


def test_example_5_remove_a_prince_from_someone_elses_monument():
    mon_civ, mon_owner = np.full(24, -1), np.full(24, -1)
    mon_civ[CODE["EAR-3"]], mon_owner[CODE["EAR-3"]] = PER, 0
    game, state = position(to_play=1, scores=[0, 7, 0], princes=princes(3, (1, PER, "EAR-3", 1)),
                           hands=hand((PER, 1), seat=1), mon_civ=mon_civ, mon_owner=mon_owner)
    mask = legal(game, state)
    assert not mask[1661] and not mask[1710]
    before = core.clone(state)
    state = play(game, state, 1662)
    assert state.princes[0, 1, PER].sum() == 0 and state.hand[0, 1, PER] == 0
    assert state.score[0, 1] == 9 and state.gains[0, 1, D.GAIN_REMOVE] == 2
    assert state.score[0, 0] == before.score[0, 0] and state.stamp[0, 0] == before.stamp[0, 0]


def test_example_6_influencing_the_king():
    game, state = position(hands=hand((MAY, 1), (GRE, 4), (CHI, 1)))
    state = play(game, state, 1748)  # RAISE(MAY)
    assert state.scale[0].tolist() == [2, 1, 3, 4, 5]
    state = play(game, state, 1756)  # DROP(GRE): both GRE cards
    assert state.scale[0].tolist() == [3, 2, 4, 1, 5]  # GRE 1, PER 2, MAY 3, EGY 4, CHI 5
    assert state.hand[0, 0, GRE] == 2 and state.discard[0].tolist() == [1, 0, 0, 2, 0]
    mask = legal(game, state)
    assert not mask[1752] and not mask[1756] and mask[1751]  # CHI already 5, GRE already 1


def test_example_7_monument_with_wonder_owner_bonus():
    wonder = np.array([1, -1, -1, -1])
    game, state = position(scores=[10, 12, 0], princes=princes(3, (0, MAY, "FIR-4", 3), (1, GRE, "FIR-4", 3)),
                           wonder_owner=wonder)
    assert state.score[0].tolist() == [10, 12, 0]
    state = play(game, state, 123)
    d = CODE["FIR-4"]
    assert state.princes[0, 0, MAY, d] == 0 and state.princes[0, 0, MAY].sum() == 0  # supply back to 8
    assert state.mon_civ[0, d] == MAY and state.mon_owner[0, d] == 0
    assert state.score[0].tolist() == [10, 16, 0] and state.gains[0, 1, D.GAIN_BONUS] == 4
    assert (state.mon_civ[0] == MAY).sum() == 1  # 6 Maya monuments left
    assert not legal(game, state)[D.ACTION_MONUMENT:D.ACTION_WONDER].any()
    other = state._replace(to_play=np.array([1], dtype=np.int8), acted=np.array([[True, True, False]]))
    game.validate(other)
    assert not legal(game, other)[D.ACTION_MONUMENT + 24 * GRE + d]  # P1's three Greeks there cannot build


def test_monuments_before_the_wonder_give_no_retroactive_bonus_and_the_builder_may_get_it():
    mon_civ, mon_owner = np.full(24, -1), np.full(24, -1)
    mon_civ[CODE["WIN-1"]], mon_owner[CODE["WIN-1"]] = MAY, 1
    pr = princes(3, (0, MAY, "WIN-2", 1), (0, PER, "WIN-2", 1), (0, EGY, "WIN-2", 1), (0, GRE, "WIN-2", 1),
                 (0, CHI, "WIN-2", 4))
    game, state = position(princes=pr, mon_civ=mon_civ, mon_owner=mon_owner)
    state = play(game, state, D.ACTION_WONDER + WIND)
    assert state.score[0].tolist() == [6, 0, 0] and state.gains[0, 0, D.GAIN_BONUS] == 0
    state = play(game, state, D.ACTION_MONUMENT + 24 * CHI + CODE["WIN-2"])  # own monument on own wonder island
    assert state.score[0].tolist() == [8, 0, 0] and state.gains[0, 0, D.GAIN_BONUS] == 2


def test_example_8_wonder_with_a_removal_choice():
    pr = princes(3, (2, MAY, "WIN-1", 1), (2, PER, "WIN-3", 1), (2, EGY, "WIN-3", 1), (2, GRE, "WIN-2", 1),
                 (2, GRE, "WIN-5", 1), (2, CHI, "WIN-4", 1))
    game, state = position(phase=0, decision=D.DEC_BUILD, to_play=2, scores=[0, 0, 5], princes=pr)
    state = play(game, state, 242)
    assert state.score[0, 2] == 11 and state.wonder_owner[0, WIND] == 2
    assert state.decision[0] == D.DEC_WONDER and state.wonder_civ[0] == GRE
    assert state.princes[0, 2, [MAY, PER, EGY]].sum() == 0
    assert np.flatnonzero(legal(game, state)).tolist() == [259, 262]
    state = play(game, state, 262)
    assert state.princes[0, 2].sum() == 1 and state.princes[0, 2, GRE, CODE["WIN-2"]] == 1
    assert state.decision[0] == D.DEC_BUILD and legal(game, state)[D.ACTION_END]
    assert (state.mon_owner[0] == 2).sum() + (state.wonder_owner[0] == 2).sum() == 1  # 7 bases free


def test_example_9_rank_discards():
    hands = np.zeros((3, 5), dtype=np.int8)
    hands[1, MAY] = 3
    hands[2, PER] = 5
    game, state = position(phase=0, decision=D.DEC_BUILD, to_play=2, acted=[True, True, True], scores=[12, 12, 3],
                           stamps=[9, 8, 5], hands=hands, pick_pass=2)
    state = play(game, state, D.ACTION_END)  # the last build window of pass 3: Phase 2 begins
    assert state.phase[0] == 1 and state.hand_size[0].tolist() == [5, 8, 10]
    assert state.owed[0].tolist() == [1, 2, 0] and state.to_play[0] == 1 and state.decision[0] == D.DEC_DISCARD
    assert not legal(game, state)[D.ACTION_END]
    state = play(game, state, D.ACTION_DISCARD + MAY, D.ACTION_DISCARD + MAY)
    assert state.to_play[0] == 0 and state.decision[0] == D.DEC_DISCARD
    state = play(game, state, D.ACTION_DISCARD + int(np.flatnonzero(state.hand[0, 0])[0]))
    assert state.to_play[0] == 1 and state.decision[0] == D.DEC_TURN and state.hand_size[0, 1] == 6
    state = play(game, state, D.ACTION_END)  # 6 cards: one discard owed at the end of the turn
    assert state.decision[0] == D.DEC_DISCARD and state.owed[0, 1] == 1
    state = play(game, state, D.ACTION_DISCARD + int(np.flatnonzero(state.hand[0, 1])[0]), D.ACTION_END)
    assert state.to_play[0] == 2 and state.decision[0] == D.DEC_TURN and state.hand_size[0, 2] == 10
    state = play(game, state, D.ACTION_END)
    assert state.decision[0] == D.DEC_DISCARD and state.owed[0, 2] == 5


def test_example_10_privilege_conversion():
    game, state = position(hands=hand((MAY, 1), (GRE, 1)))
    state = play(game, state, 1880)  # PRIVILEGE(MAY -> GRE)
    assert state.privileges[0, 0] == 1 and state.decision[0] == D.DEC_CONVERT and state.convert_to[0] == GRE
    assert state.hand[0, 0, MAY] == 0
    mask = legal(game, state)
    assert mask[1756] and mask[1751] and not mask[D.ACTION_END] and not mask[1748]
    assert not mask[D.ACTION_SPECIAL + 24 * GRE:D.ACTION_SPECIAL + 24 * GRE + 24].any()  # 3 cards: only 2 usable
    assert np.flatnonzero(mask).min() >= D.ACTION_LAND
    state = play(game, state, 1756)
    assert state.scale[0, GRE] == 1 and state.hand[0, 0, GRE] == 0
    assert state.discard[0, MAY] == 1 and state.discard[0, GRE] == 1
    assert state.decision[0] == D.DEC_TURN and state.convert_to[0] == -1


def test_a_privilege_needs_a_usable_conversion():
    scale = np.array([1, 2, 3, 4, 5])
    game, state = position(hands=hand((MAY, 1)), scale=scale)
    mask = legal(game, state)
    assert mask[D.ACTION_PRIVILEGE + 4 * MAY + (GRE - 1)]  # RAISE(GRE) becomes payable
    # CHI is at 5 (no raise), a drop needs a real CHI card, no CHI princes or monuments: nothing to do
    assert not mask[D.ACTION_PRIVILEGE + 4 * MAY + (CHI - 1)]
    game, state = position(hands=hand((MAY, 1)), privileges=[0, 2, 2])
    assert not legal(game, state)[D.ACTION_PRIVILEGE:D.ACTION_DISCARD].any()


@pytest.mark.parametrize("P", [2, 3])
def test_example_11_special_guest(P):
    seat = P - 1
    game, state = position(P, to_play=seat, hands=hand((CHI, 3), P=P, seat=seat))
    assert legal(game, state)[1877] == (P > 2)  # WAT-5 only with the Water island in play
    if P > 2:
        state = play(game, state, 1877)
        assert state.princes[0, seat, CHI, CODE["WAT-5"]] == 1 and state.hand[0, seat, CHI] == 0
        assert state.discard[0, CHI] == 3
    game, state = position(P, to_play=seat, hands=hand((CHI, 2), P=P, seat=seat))
    assert not legal(game, state)[D.ACTION_SPECIAL + 24 * CHI:D.ACTION_SPECIAL + 24 * CHI + 24].any()


def _example_12(p0_score: int):
    mon_civ, mon_owner = np.full(24, -1), np.full(24, -1)
    for owner, civ, code in ((0, MAY, "FIR-4"), (0, EGY, "EAR-3"), (0, CHI, "WIN-3"), (1, GRE, "FIR-1"),
                             (1, GRE, "WAT-5"), (1, PER, "EAR-6"), (2, EGY, "WIN-1"), (2, CHI, "FIR-6")):
        mon_civ[CODE[code]], mon_owner[CODE[code]] = civ, owner
    scale = np.zeros(5, dtype=np.int8)
    scale[[GRE, PER, MAY, EGY, CHI]] = [1, 2, 3, 4, 5]
    return position(acted=[True, True, True], to_play=0, scores=[p0_score, 47, 41], stamps=[20, 22, 21],
                    scale=scale, mon_civ=mon_civ, mon_owner=mon_owner)


def test_example_12_phase_3_scoring_and_game_end():
    game, state = _example_12(40)
    state = play(game, state, D.ACTION_END)
    assert state.score[0].tolist() == [52, 51, 50] and state.stamp[0].tolist() == [25, 23, 24]
    assert state.done[0] and not state.truncated[0]
    assert game.ranking(state)[0].tolist() == [0, 1, 2]
    assert game.returns(state)[0].tolist() == [1.0, 0.0, -1.0]


def test_example_12_variant_tie_goes_to_who_reached_the_score_first():
    game, state = _example_12(39)
    state = play(game, state, D.ACTION_END)
    assert state.score[0].tolist() == [51, 51, 50] and state.stamp[0].tolist() == [25, 23, 24]
    assert game.ranking(state)[0].tolist() == [1, 0, 2]
    assert game.returns(state)[0, 1] == 1.0


def test_example_13_start_space_rule():
    game, state = position(acted=[True, True, True], to_play=1, scores=[0, 0, 4], stamps=[0, 1, 3],
                           gains_kind=D.GAIN_REMOVE)
    state = play(game, state, D.ACTION_END)  # Phase 3 (nothing to score), round 2 begins
    assert state.round[0] == 2 and state.stamp[0, 0] == 4 and state.stamp_counter[0] == 5
    order = []
    for _ in range(3):
        assert state.decision[0] == D.DEC_PICK
        order.append(int(state.to_play[0]))
        state = play(game, state, int(np.flatnonzero(legal(game, state))[0]))
    assert order == [2, 1, 0] and state.start_player[0] == 2


def test_example_14_hand_limit():
    game, state = position(to_play=1, hands=hand((MAY, 3), (PER, 4), seat=1))
    state = play(game, state, D.ACTION_END)
    assert state.decision[0] == D.DEC_DISCARD and state.owed[0, 1] == 2
    assert np.flatnonzero(legal(game, state)).tolist() == [1898, 1899]
    state = play(game, state, 1898, 1899)
    assert state.hand_size[0, 1] == 5 and state.decision[0] == D.DEC_TURN and state.to_play[0] == 0


# --- edge cases ---------------------------------------------------------------------------------------------

def test_skipped_pick_still_gets_its_build_window():
    """A picker without a legal guest is skipped, but offered his build window if he can build."""
    display = np.zeros((4, 5), dtype=np.int8)
    display[FIRE, MAY] = 2
    pr = princes(3, (0, MAY, "FIR-1", 3), (0, MAY, "FIR-2", 3), (0, MAY, "FIR-3", 2), (0, GRE, "EAR-1", 3))
    game, state = position(phase=0, decision=D.DEC_BUILD, to_play=1, acted=[False, True, False], scores=[5, 0, 0],
                           princes=pr, display=display)
    state = play(game, state, D.ACTION_END)
    assert state.to_play[0] == 0 and state.decision[0] == D.DEC_BUILD  # no Maya in supply: no pick
    assert state.display[0, FIRE, MAY] == 2
    state = play(game, state, D.ACTION_END)
    assert state.to_play[0] == 2 and state.decision[0] == D.DEC_PICK


def test_phase_1_ends_after_three_passes_and_every_guest_returns():
    game = Utopia(num_players=4, auto_forced=False)
    rng = np.random.default_rng(0)
    state = game.init(rng, 32)
    assert (state.display.sum(axis=(1, 2)) == 12).all()
    picks = np.zeros(32, dtype=np.int64)
    while (state.phase == 0).any():
        picks += (state.phase == 0) & (state.decision == D.DEC_PICK)
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    assert (picks == 12).all()  # nobody runs out of supply in round 1
    assert (state.display == 0).all() and (state.princes.sum(axis=(1, 2, 3)) == 12).all()
    assert (state.hand_size.sum(axis=1) == 20).all()  # 5 cards each, before the rank discards


def test_two_players_leave_the_water_island_out():
    game = Utopia(num_players=2)
    state = game.init(np.random.default_rng(1), 200)
    assert (state.display[:, WATER] == 0).all() and (state.display.sum(axis=(1, 2)) == 6).all()
    assert D.RANK_DISCARDS[2, :2].tolist() == [2, 0]
    assert D.RANK_DISCARDS[5, :5].tolist() == [2, 1, 1, 1, 0]


def test_setup():
    game = Utopia(num_players=5)
    state = game.init(np.random.default_rng(2), 500)
    assert (np.sort(state.scale, axis=1) == np.arange(1, 6)).all()
    assert len({tuple(x) for x in state.scale}) > 50  # a random order
    first = state.start_player
    for b in range(500):
        assert state.stamp[b, first[b]] == 0 and sorted(state.stamp[b].tolist()) == [0, 1, 2, 3, 4]
        assert state.stamp[b, (first[b] + 1) % 5] == 1  # clockwise from the first player
    assert (state.to_play == first).all() and (state.decision == D.DEC_PICK).all()
    assert (state.pile.sum(axis=1) == 50).all() and (state.privileges == 2).all()
    assert set(first.tolist()) == set(range(5))


def test_the_round_is_played_out_after_fifty():
    """Reaching 50 during Phase 2 does not end the game before Phase 3; after it, it does."""
    mon_civ, mon_owner = np.full(24, -1), np.full(24, -1)
    mon_civ[CODE["EAR-3"]], mon_owner[CODE["EAR-3"]] = PER, 1
    game, state = position(acted=[True, False, False], scores=[49, 0, 0], princes=princes(3, (0, PER, "EAR-3", 1)),
                           hands=hand((PER, 1)), mon_civ=mon_civ, mon_owner=mon_owner)
    state = play(game, state, D.ACTION_REMOVE + 24 * PER + CODE["EAR-3"], D.ACTION_END)
    assert state.score[0, 0] == 51 and not state.done[0] and state.to_play[0] == 1
    state = play(game, state, D.ACTION_END, D.ACTION_END)
    assert state.done[0] and state.score[0].tolist() == [51, 2, 0]  # P1's monument paid PER's 2 first


def test_truncation_after_round_40():
    game, state = position(acted=[True, True, True], round=40)
    state = play(game, state, D.ACTION_END)
    assert state.done[0] and state.truncated[0] and state.decision[0] == D.DEC_GAME_OVER
    assert game.returns(state)[0].tolist() == [1.0, 0.0, -1.0]  # ranked on the scores reached and the track


def test_discard_pile_is_reshuffled_when_the_draw_pile_runs_out():
    discard = np.array([10, 10, 10, 10, 6])
    hands = np.zeros((3, 5), dtype=np.int8)
    hands[0, CHI] = 4
    game, state = position(phase=0, decision=D.DEC_BUILD, to_play=2, acted=[True, True, True], discard=discard,
                           hands=hands, pick_pass=2)
    assert state.pile[0].sum() == 0
    state = play(game, state, D.ACTION_END)
    assert state.hand_size[0].tolist() == [9, 5, 5] and state.pile[0].sum() + state.discard[0].sum() == 31
    assert state.discard[0].sum() == 0  # the discards became the new draw pile


def test_monument_and_base_limits():
    mon_civ, mon_owner = np.full(24, -1), np.full(24, -1)
    mon_civ[:7], mon_owner[:7] = MAY, 1
    game, state = position(princes=princes(3, (0, MAY, "EAR-1", 3), (0, GRE, "EAR-2", 3)), mon_civ=mon_civ,
                           mon_owner=mon_owner)
    mask = legal(game, state)
    assert not mask[D.ACTION_MONUMENT + 24 * MAY + CODE["EAR-1"]]  # all 7 Maya monuments built
    assert mask[D.ACTION_MONUMENT + 24 * GRE + CODE["EAR-2"]]
    mon_owner[:7] = 0
    mon_civ[7], mon_owner[7] = PER, 0
    game, state = position(princes=princes(3, (0, GRE, "EAR-2", 3)), mon_civ=mon_civ, mon_owner=mon_owner)
    assert not legal(game, state)[D.ACTION_MONUMENT + 24 * GRE + CODE["EAR-2"]]  # 8 bases used


def test_raise_and_drop_move_the_others():
    game, state = position(hands=hand((EGY, 3)), scale=np.array([5, 4, 3, 2, 1]))
    state = play(game, state, D.ACTION_RAISE + EGY)
    assert state.scale[0].tolist() == [5, 3, 4, 2, 1]
    state = play(game, state, D.ACTION_DROP + EGY)
    assert state.scale[0].tolist() == [5, 4, 1, 3, 2]


def test_forced_moves_run_with_auto_forced():
    hands = hand((MAY, 7), seat=1)
    hands[0, PER] = 1
    game, state = position(auto_forced=True, to_play=1, hands=hands)
    state = play(game, state, D.ACTION_END)  # both discards have one choice: applied without asking
    assert state.hand_size[0, 1] == 5 and state.to_play[0] == 0 and state.decision[0] == D.DEC_TURN


def test_observe_hides_other_hands_and_determinize_keeps_what_the_viewer_knows():
    game = Utopia(num_players=4)
    rng = np.random.default_rng(5)
    state = game.init(rng, 64)
    for _ in range(80):
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    view = game.observe(state, 2)
    assert "hand" not in view._fields and "pile" not in view._fields
    np.testing.assert_array_equal(view.own_hand, state.hand[:, 2])
    np.testing.assert_array_equal(view.pile_size, state.pile.sum(axis=1))
    other = game.determinize(state, 2, np.random.default_rng(0))
    game.validate(other)
    np.testing.assert_array_equal(other.hand[:, 2], state.hand[:, 2])
    np.testing.assert_array_equal(other.hand.sum(axis=2), state.hand.sum(axis=2))
    np.testing.assert_array_equal(other.pile.sum(axis=1), state.pile.sum(axis=1))
    np.testing.assert_array_equal(other.hand.sum(axis=1) + other.pile, state.hand.sum(axis=1) + state.pile)
    assert not np.array_equal(other.hand, state.hand)


def test_validate_rejects_inconsistent_positions():
    game, state = position(hands=hand((MAY, 2)))
    cases = [  # (the invariant broken, field, index, value)
        ("action_cards_conserved", "pile", (0, MAY), state.pile[0, MAY] + 1),
        ("score_is_the_sum_of_gains", "score", (0, 1), 3),
        ("prestige_scale_is_a_permutation", "scale", 0, [1, 1, 3, 4, 5]),
        ("monuments_have_owners", "mon_civ", (0, 3), GRE),
        ("stamps_distinct_and_counter_one_past_the_latest", "stamp_counter", 0, 9),
    ]
    for invariant, field, index, value in cases:
        bad = core.clone(state)
        getattr(bad, field)[index] = value
        with pytest.raises(InvalidState) as excinfo:
            game.validate(bad)
        assert excinfo.value.invariant == invariant
    game2 = Utopia(num_players=2)
    s2 = game2.init(np.random.default_rng(0), 1)
    s2.princes[0, 0, 0, CODE["WAT-1"]] = 1
    with pytest.raises(InvalidState) as excinfo:
        game2.validate(s2)
    assert excinfo.value.invariant == "nothing_on_districts_out_of_play"


# --- encoder, render --------------------------------------------------------------------------------

def test_encoder_writes_every_block_by_name_and_matches_the_state():
    from meeple.encoders import utopia as enc
    from meeple.encoders.base import unwritten_blocks

    assert unwritten_blocks(enc.AT, "AT", enc.encode_row) == []
    game = Utopia(num_players=3)
    rng = np.random.default_rng(4)
    state = game.init(rng, 32)
    for _ in range(120):
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    encoder = enc.make_encoder(game)
    parts = encoder.split(encoder.encode(game.observe(state, 1)))
    order = [1, 2, 0]
    np.testing.assert_allclose(parts["score"][:, :3], np.minimum(state.score[:, order] / 50, 4), rtol=1e-6)
    np.testing.assert_allclose(parts["own_hand"], state.hand[:, 1] / 10, rtol=1e-6)
    districts = parts["districts"]
    np.testing.assert_allclose(districts[:, :, enc.F_PRINCES:].reshape(32, 24, 5, 5)[:, :, :3],
                               state.princes[:, order].transpose(0, 3, 1, 2) / 8, rtol=1e-6)
    has = state.mon_civ >= 0
    np.testing.assert_array_equal(districts[:, :, enc.F_MON_CIV:enc.F_MON_CIV + 5].argmax(axis=2)[has], state.mon_civ[has])
    np.testing.assert_array_equal(parts["scale"].argmax(axis=2) + 1, state.scale)


def test_renders():
    game = Utopia(num_players=5)
    rng = np.random.default_rng(6)
    state = game.init(rng, 1)
    for _ in range(150):
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    text = game.render_text(state)
    assert "Prestige scale" in text and "FIR-1" in text and "WAT-5" in text
    assert game.render_modes() == ["ansi", "rgb_array", "human"]
    picture = game.render_rgb(state)
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert game.action_names[840] == "LAND_GREx2_FIR-3>WIN-4"
    assert game.action_to_str(state, 840).startswith("1 GRE card: move 2 GRE from FIR-3 to WIN-4 by land (edge 12)")
