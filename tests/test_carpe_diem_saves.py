"""Carpe Diem saves: `from_dict` / `validate` reject every saved state the rules cannot reach.

One test per class of bad save found by users and by the saved-state fuzzer (`meeple.envs.fuzz`): each
takes a position of a random game, changes one value of its save and expects `from_dict` to raise a
ValueError naming the broken invariant (envs/carpe_diem/invariants.py). Without these checks the loaded states stalled (a live row with no
legal action) or later wrapped int16 counters. Last, the fuzzer itself over every test configuration.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, core, make
from meeple.envs.base import InvalidState
from meeple.envs.carpe_diem import data
from meeple.envs.fuzz import fuzz_saves


def saved(game, predicate, seed: int = 0) -> dict:
    """The save (`to_dict`) of the first position of a random game (B = 1) where predicate(state) holds."""
    rng = np.random.default_rng(seed)
    for _ in range(20):
        state = game.init(rng, 1)
        while not state.done[0]:
            if predicate(state):
                return game.to_dict(state)
            mask = game.legal_action_mask(state)
            state = game.apply(state, sample_masked(mask, rng), rng.random((1, game.uniforms_per_step)))
    raise AssertionError("no such position in 20 random games")


def load_with(game, payload: dict, **changes) -> None:
    """from_dict of a copy of payload with field values replaced: {name: value} sets field[0], {name: (index,
    value)} sets field[0][index] (index an int or a tuple)."""
    payload = copy.deepcopy(payload)
    fields = payload["fields"]
    for name, change in changes.items():
        arr = np.array(fields[name])
        if isinstance(change, tuple):
            index, value = change
            arr[(0, *index) if isinstance(index, tuple) else (0, index)] = value
        else:
            arr[0] = change
        fields[name] = arr.tolist()
    game.from_dict(payload)


def in_turns(state, round_: int | None = None) -> bool:
    return bool(state.decision[0] == data.DEC_MOVE and (round_ is None or state.round[0] == round_))


@pytest.fixture(scope="module")
def game():
    return make("carpe_diem", num_players=3)


def test_unchanged_save_loads(game):
    payload = saved(game, lambda s: in_turns(s, 4) and s.phase[0] == 1)
    state = game.from_dict(payload)
    game.validate(state)
    assert core.take(state, [0]).round[0] == 4


def test_round_lowered_6_to_3(game):
    """The reported save: round 6 -> 3 loaded, and four moves later the player to move had no legal
    action (the depots were empty with 'rounds' to go) while validate passed."""
    payload = saved(game, lambda s: in_turns(s, 6))
    with pytest.raises(InvalidState) as excinfo:
        load_with(game, payload, round=3)
    assert excinfo.value.invariant == "depot_takes_match_round_and_turn"


@pytest.mark.parametrize("round_", [0, 5])
def test_round_raised_or_lowered_by_one(game, round_):
    payload = saved(game, lambda s: in_turns(s, round_ + 1 if round_ == 0 else round_ - 1))
    with pytest.raises(InvalidState, match="depot_takes_match_round_and_turn"):
        load_with(game, payload, round=round_)


@pytest.mark.parametrize("name, index", [("vp", 0), ("coins", 1), ("goods", (0, 2))])
@pytest.mark.parametrize("value", [32767, 32760, 30000])
def test_counters_near_int16_max(game, name, index, value):
    """The reported saves: vp, coins and goods up to 32767 loaded and wrapped to -32767 a few moves later.
    The field table now bounds them by the most a game can produce."""
    payload = saved(game, lambda s: in_turns(s, 3))
    with pytest.raises(ValueError, match=f"{name} outside"):
        load_with(game, payload, **{name: (index, value)})


def test_vp_at_int16_min(game):
    payload = saved(game, lambda s: in_turns(s, 3))
    with pytest.raises(ValueError, match="vp outside"):
        load_with(game, payload, vp=(2, -32767))


@pytest.mark.parametrize("name, index, invariant", [
    ("coins", 0, "goods_and_coins_within_their_sources"), ("bread", 0, "bread_within_its_sources"),
    ("goods", (0, 1), "goods_and_coins_within_their_sources"), ("vp", 0, "track_and_vp_within_their_sources")])
def test_counters_beyond_their_sources(game, name, index, invariant):
    """Within the field range but more than the position's districts and scored cards can have given: a
    later step would push the counter past its range (validate would reject a state the rules made)."""
    payload = saved(game, lambda s: in_turns(s, 1) and s.phase[0] == 0)
    high = {"coins": 40, "bread": 40, "goods": 12, "vp": 200}[name]
    with pytest.raises(InvalidState) as excinfo:
        load_with(game, payload, **{name: (index, high)})
    assert excinfo.value.invariant == invariant


def test_phase_lowered(game):
    """Fuzzer: phase 1 -> 0 loaded; at the end of 'phase 0' the deal found no light tiles and a later
    player had no legal action."""
    payload = saved(game, lambda s: in_turns(s) and s.phase[0] == 1)
    with pytest.raises(InvalidState, match="supply_matches_the_phase"):
        load_with(game, payload, phase=0)


def test_supply_tile_marked_removed(game):
    """Fuzzer: tile_loc of a light supply tile 0 -> 6 (removed) loaded; a later deal came up short and a
    player stood at an empty depot."""
    payload = saved(game, lambda s: in_turns(s) and s.phase[0] == 0)
    t = int(np.flatnonzero(np.array(payload["fields"]["tile_loc"][0]) == 0)[0])
    with pytest.raises(InvalidState, match="supply_matches_the_phase"):
        load_with(game, payload, tile_loc=(t, 6))


def test_patrician_removed_after_the_start_placement(game):
    payload = saved(game, lambda s: in_turns(s, 2))
    other = (payload["fields"]["to_play"][0] + 1) % game.num_players  # to_play's own is a flow error
    with pytest.raises(InvalidState, match="patricians_stand_after_the_start_placement"):
        load_with(game, payload, patrician=(other, -1))


def test_take_at_an_empty_depot(game):
    """A TAKE decision at a depot without tiles has no legal action."""
    payload = saved(game, lambda s: s.decision[0] == data.DEC_TAKE and (s.depot[0] < 0).all(axis=1).any())
    depot = np.array(payload["fields"]["depot"][0])
    empty = int(np.flatnonzero((depot < 0).all(axis=1))[0])
    seat = payload["fields"]["to_play"][0]
    with pytest.raises(InvalidState, match="take_at_a_depot_with_tiles"):
        load_with(game, payload, patrician=(seat, empty))


def test_craft_pending_without_craftsman(game):
    payload = saved(game, lambda s: s.decision[0] == data.DEC_PLACE and s.completed[0, s.to_play[0], data.CRAFTSMAN] == 0)
    with pytest.raises(InvalidState, match="craft_picks_within_completed_craftsmen"):
        load_with(game, payload, craft_pending=1)


def test_scoring_disc_added_or_removed(game):
    payload = saved(game, lambda s: in_turns(s) and s.phase[0] == 1)
    owner = np.array(payload["fields"]["circle_owner"][0])
    placed = int(np.flatnonzero(owner >= 0)[0])
    with pytest.raises(InvalidState, match="discs_match_scoring_rounds_played"):
        load_with(game, payload, circle_phase=(placed, 1))  # a disc of phase 1 before its scoring round
    with pytest.raises(InvalidState, match="discs_match_scoring_rounds_played"):
        load_with(game, payload, circle_owner=(placed, -1), circle_phase=(placed, -1))


def test_scoring_order_not_by_the_track(game):
    payload = saved(game, lambda s: s.decision[0] == data.DEC_SCORE_SPACE and s.turn[0] == 0)
    order = payload["fields"]["score_order"][0]
    with pytest.raises(InvalidState, match="score_order_follows_the_track"):
        load_with(game, payload, score_order=order[::-1], to_play=order[-1])


def test_units_above_what_the_red_card_can_pay(game):
    payload = saved(game, lambda s: s.decision[0] == data.DEC_CARD_BREAD
                    and game.score_parts(s)["vp_cards"][0, s.to_play[0]] >= 0 and s.units[0] == 0
                    and data.CARD_RED[s.card_slot[0, data.CIRCLE_SLOTS[s.cur_space[0], int(s.first_high[0]) ^ int(s.card_seq[0])]]])
    with pytest.raises(InvalidState, match="units_match_the_current_card"):
        load_with(game, payload, units=31)


def test_fountain_cards_without_fountains(game):
    payload = saved(game, lambda s: in_turns(s) and s.completed[0, :, data.FOUNTAIN].sum() == 0 and s.phase[0] == 1)
    with pytest.raises(InvalidState, match="one_fountain_card_returned_per_card_kept"):
        load_with(game, payload, fountain_hand=((0, 3), 1), fountain_returned=((0, 4), 1))


def test_starting_vp_changed_during_the_start_placement(game):
    payload = saved(game, lambda s: s.decision[0] == data.DEC_START_SPACE)
    seat = int(np.argmin(payload["fields"]["vp"][0]))  # 8 VP -> 9: within the counters' bounds, not this seat's
    with pytest.raises(InvalidState, match="starting_vp_and_stack_by_seat_order"):
        load_with(game, payload, vp=(seat, 9))


def test_hand_built_snapshot_passes_without_history(game):
    """history=False keeps the snapshot checks only (for hand-built test positions)."""
    state = game.from_dict(saved(game, lambda s: in_turns(s, 3)))
    state.coins[0, 0] = 40
    game.validate(state, history=False)
    with pytest.raises(InvalidState, match="goods_and_coins_within_their_sources"):
        game.validate(state)


@pytest.mark.parametrize("config", GAMES["carpe_diem"].test_configs, ids=str)
def test_fuzzed_saves_are_rejected_or_play_to_the_end(config):
    """Every mutated save is rejected by from_dict, or plays to the end with validate after every step and
    a legal action in every live row (envs/fuzz.py)."""
    game = make("carpe_diem", **config)
    report = fuzz_saves(game, 100, np.random.default_rng(1234), pool=32)
    assert report.failures == [], report.failures[:5]
    assert report.played > 0 and report.rejected > 0
