"""Hadara saved states: `from_dict` rejects what the rules cannot reach (envs/hadara/invariants.py).

One test per class of bad save found by the fuzzer (`meeple.envs.fuzz.fuzz_saves`) or reported by users:
each takes a position reached by random play, changes one value of its save and expects `from_dict`
to raise InvalidState naming the broken invariant. Then a small fuzz run over every test configuration.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeple.envs import GAMES, core, make
from meeple.envs.base import InvalidState
from meeple.envs.fuzz import fuzz_saves
from meeple.envs.hadara import data
from meeple.envs.hadara.state import COINS_MAX


def reach(game, wanted, seed: int = 0, batch: int = 32):
    """(save, state) of the first position of random play (B = 1) for which wanted(state, row) holds."""
    from meeple.agents.random_agent import sample_masked

    rng = np.random.default_rng(seed)
    state = game.init(rng, batch)
    for _ in range(game.info.max_game_length):
        for b in range(batch):
            if not state.done[b] and wanted(state, b):
                row = core.take(state, [b])
                return game.to_dict(row), row
        mask = game.legal_action_mask(state)
        state = game.apply(state, sample_masked(mask, rng), rng.random((batch, game.uniforms_per_step)))
    raise AssertionError("random play never reached the wanted position")


def edited(save: dict, name: str, index: tuple, value) -> dict:
    """A copy of `save` with field[0][index] = value."""
    fields = dict(save["fields"])
    arr = np.array(fields[name])
    arr[(0, *index)] = value
    fields[name] = arr.tolist()
    return {**save, "fields": fields}


def rejects(game, save: dict, *invariants: str) -> None:
    """from_dict(save) raises InvalidState for one of `invariants` (the first broken one is named)."""
    with pytest.raises(InvalidState) as excinfo:
        game.from_dict(save)
    assert excinfo.value.invariant in invariants, excinfo.value


@pytest.fixture(scope="module")
def game():
    return make("hadara", num_players=2)


def in_draft(round_: int):
    return lambda s, b: s.decision[b] == data.DEC_A_DRAFT and s.round[b] == round_


def test_unchanged_saves_load(game):
    for wanted in (in_draft(0), in_draft(3), lambda s, b: s.decision[b] == data.DEC_B_PICK):
        save, state = reach(game, wanted)
        loaded = game.from_dict(save)
        assert all(np.array_equal(x, y) for x, y in zip(loaded, state))


def test_n_slots_30_rejected(game):
    """The adversarial report: n_slots = 30 passed and the next purchase was written past the tableau."""
    save, _ = reach(game, in_draft(2))
    rejects(game, edited(save, "n_slots", (0,), data.MAX_TABLEAU), "cards_kept_within_the_acquisitions")
    rejects(game, edited(save, "n_slots", (1,), 3), "cards_kept_within_the_acquisitions")  # 3 slots after 2 rounds


def test_round_lowered_in_the_draft_rejected(game):
    """The adversarial report: lowering `round` in the draft made the next draws take inner_count to -2."""
    save, _ = reach(game, in_draft(3))
    for lowered in (0, 1, 2):
        rejects(game, edited(save, "round", (), lowered), "inner_stacks_shrink_with_the_pairs_drawn")


def test_round_raised_in_the_draft_rejected(game):
    """Fuzzer: round 4 -> 5 in the draft loaded, and the wheel then turned to round 6."""
    save, _ = reach(game, in_draft(4))
    rejects(game, edited(save, "round", (), 5), "round_fits_the_section")
    save, _ = reach(game, in_draft(0))
    rejects(game, edited(save, "round", (), 1), "inner_stacks_shrink_with_the_pairs_drawn")


def test_coins_near_int16_max_rejected(game):
    """The adversarial report: coins up to 32767 were accepted and wrapped to -32767 a few moves later.
    Now the range is the most the rules hand out (state.COINS_MAX), and mid-game the most so far."""
    save, _ = reach(game, in_draft(1))
    with pytest.raises(ValueError, match=f"coins outside 0..{COINS_MAX}"):  # (the field's range, before the invariants)
        game.from_dict(edited(save, "coins", (0,), np.iinfo(np.int16).max))
    rejects(game, edited(save, "coins", (1,), COINS_MAX), "coins_within_what_the_rules_hand_out")
    rejects(game, edited(save, "coins", (1,), COINS_MAX // 2), "coins_within_what_the_rules_hand_out")


def test_decision_changed_rejected(game):
    """Fuzzer: decision 6 -> 1 (phase B back to the wheel) loaded and inner_count reached -2 a step later;
    6 -> 5 and 4 -> 3 loaded with the wrong piles or round."""
    save, _ = reach(game, lambda s, b: s.decision[b] == data.DEC_B_PICK and s.pick[b] > 0)
    rejects(game, edited(save, "decision", (), data.DEC_WHEEL), "wheel_unset_only_before_its_decision")
    rejects(game, edited(save, "decision", (), data.DEC_A_BUST), "to_play_is_the_actor")
    save, _ = reach(game, lambda s, b: s.decision[b] == data.DEC_A_COLONY)
    rejects(game, edited(save, "decision", (), data.DEC_A_TILE), "round_fits_the_section")


def test_rotation_changed_in_the_draft_rejected(game):
    """Fuzzer: another wheel rotation mid-draft sent the next draws to stacks already emptied."""
    save, state = reach(game, in_draft(2))
    rotation = int(state.rotation[0])
    rejects(game, edited(save, "rotation", (), (rotation + 1) % 5), "inner_stacks_shrink_with_the_pairs_drawn",
            "draft_pairs_from_the_seats_stack")


def test_unaffordable_committed_purchase_rejected(game):
    """Fuzzer: coins lowered under a committed purchase went negative at the reveal."""
    save, state = reach(game, lambda s, b: (s.decision[b] == data.DEC_A_DRAFT and s.committed[b, s.start_player[b]]
                                            and s.pending[b, s.start_player[b]] % 2 == data.BUY
                                            and data.CARD_PRICE[s.drawn[b, s.start_player[b], s.pending[b, s.start_player[b]] // 2]] > 0))
    rejects(game, edited(save, "coins", (int(state.start_player[0]),), 0), "committed_purchases_affordable")


def test_pair_from_another_stack_rejected(game):
    save, state = reach(game, in_draft(1))
    other = next(c for c in data.EPOCH_COLOUR_CARDS[0] if data.CARD_COLOUR[c[0]] != data.CARD_COLOUR[state.drawn[0, 0, 0]])
    swapped = edited(edited(save, "drawn", (0, 0), int(other[0])), "drawn", (0, 1), int(other[1]))
    rejects(game, swapped, "each_card_in_one_place", "dealt_cards_conserved")


def test_derived_tracks_changed_rejected(game):
    save, _ = reach(game, in_draft(2))
    rejects(game, edited(save, "tracks", (0, data.MILITARY), 0), "derived_fields_match_recomputation")
    rejects(game, edited(save, "free_tiles", (1, data.FOOD), 1), "derived_fields_match_recomputation")


def test_stalled_sections_rejected(game):
    """A decision with nobody able to take it: no picks left in phase B, a fed player in Feeding."""
    save, _ = reach(game, lambda s, b: s.decision[b] == data.DEC_B_PICK)
    rejects(game, edited(save, "pick", (), 5 * game.num_players), "outer_piles_shrink_with_the_picks")
    save, state = reach(game, lambda s, b: (s.decision[b] == data.DEC_B_FEED
                                            and s.tracks[b, s.to_play[b], data.FOOD] + data.FEED_COINS_MAX_CARDS
                                            >= (s.tableau[b, s.to_play[b]] >= 0).sum()))
    rejects(game, edited(save, "feed_paid", (), data.FEED_COINS_MAX_CARDS), "feeding_actor_short_of_food")


@pytest.mark.parametrize("config", GAMES["hadara"].test_configs, ids=str)
def test_fuzzed_saves_are_rejected_or_play_cleanly(config):
    """Every mutated save is rejected, or plays to the end with validate passing after every step."""
    game = make("hadara", **config)
    report = fuzz_saves(game, 100, np.random.default_rng(7), pool=16)
    assert not report.failures, "\n".join(report.failures[:10])
    assert report.rejected > 0 and report.played > 0
