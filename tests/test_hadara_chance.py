"""Hadara's chance inside a step (envs/hadara/chance.py): the deal of a new epoch's inner stacks when
the last seat's Buy seals ends epoch I or II, and nothing else. Worked positions are built with
test_hadara's `position` (2 players, auto_forced=False unless a test says otherwise)."""

from __future__ import annotations

import math
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, core, make
from meeple.envs.base import TooManyOutcomes
from meeple.envs.hadara import chance, data
from meeple.envs.hadara.data import ACTION_GOLD, ACTION_PASS, ACTION_WHEEL, DEC_B_SEALS, DEC_WHEEL, UNIFORMS_PER_STEP

from test_hadara import new_game, position


def last_seals_pass(game, epoch: int):
    """Buy seals of `epoch` with only the last seat left to act and no coins anywhere: PASS ends the epoch."""
    P = game.num_players
    return position(game, DEC_B_SEALS, epoch=epoch, turn=P - 1, coins={p: 0 for p in range(P)})


def sampled(game, state, action: int, n: int, seed: int = 0):
    """n rows of `state` stepped with `action` (independent uniforms per row)."""
    batch = core.concatenate([state] * n)
    return batch, game.step(batch, np.full(n, action), np.random.default_rng(seed))


def fields_other_than_inner_agree(after) -> bool:
    return all(np.array_equal(v, v[:1].repeat(len(v), axis=0)) for name, v in after._asdict().items() if name != "inner")


# --- the deal -------------------------------------------------------------------------------------

def test_the_pass_that_ends_epoch_one_deals_the_epoch_two_stacks():
    game = new_game()
    s = last_seals_pass(game, 0)
    assert np.flatnonzero(game.legal_action_mask(s)[0]).tolist() == [ACTION_PASS]
    # per colour an ordered 4 (= 2N) of its 10 epoch II cards: (10 * 9 * 8 * 7) ** 5
    with pytest.raises(TooManyOutcomes, match="epoch II") as raised:
        game.chance_outcomes(s, ACTION_PASS)
    assert raised.value.count == 5040 ** 5 == 3_252_016_064_102_400_000 == chance.deal_count(game, 1)
    with pytest.raises(TooManyOutcomes):
        game.chance_outcomes(s, ACTION_PASS, limit=5040 ** 5 - 1)
    # all-zero uniforms: every Fisher-Yates draw keeps its card, so each stack is the colour's first 4 ids
    after = game.apply(s, np.array([ACTION_PASS]), np.zeros((1, UNIFORMS_PER_STEP)))
    assert after.epoch[0] == 1 and after.decision[0] == DEC_WHEEL
    assert game.chance_outcome(s, ACTION_PASS, after) == (
        "epoch II stacks, top first: yellow II-Y04 II-Y03 II-Y02 II-Y01; red II-R04 II-R03 II-R02 II-R01; "
        "blue II-B04 II-B03 II-B02 II-B01; green II-G04 II-G03 II-G02 II-G01; purple II-P04 II-P03 II-P02 II-P01")


def test_sampled_deals_are_uniform_ordered_draws_and_the_only_chance():
    game = new_game()
    s = last_seals_pass(game, 0)
    n = 400
    batch, after = sampled(game, s, ACTION_PASS, n, seed=1)
    seen = [game.chance_outcome(batch, ACTION_PASS, after, r) for r in range(n)]
    assert all(d.startswith("epoch II stacks, top first: yellow II-Y") for d in seen)
    assert len(set(seen)) == n  # 400 draws out of 3.25e18 equally likely deals
    assert fields_other_than_inner_agree(after)  # nothing but the stacks depends on the uniforms
    for c in range(data.NUM_COLOURS):
        cards = set(game.deck_cards[1, c, :game.deck_count[1, c]].tolist())
        for r in range(n):
            stack = after.inner[r, c, :4].tolist()
            assert len(set(stack)) == 4 and set(stack) <= cards
        # the top card (drawn first) is each of the 10 cards with probability 1/10
        top = Counter(after.inner[:, c, 3].tolist())
        assert set(top) == cards
        assert all(abs(k / n - 0.1) <= 5 * math.sqrt(0.1 * 0.9 / n) for k in top.values()), top


def test_a_gold_seal_then_the_forced_pass_deals_in_the_same_step():
    """With auto_forced the last seat's gold seal (all its coins) is followed by its only move, PASS,
    inside the same step, and so by the epoch II deal: 3 players, an ordered 6 of 10 per colour."""
    game = new_game(num_players=3, auto_forced=True)
    s = position(game, DEC_B_SEALS, epoch=0, turn=2, start_player=0,
                 coins={0: 0, 1: 0, 2: int(data.GOLD_PRICE[0])})
    assert int(game.legal_action_mask(s)[0].sum()) > 1 and s.to_play[0] == 2
    with pytest.raises(TooManyOutcomes) as raised:
        game.chance_outcomes(s, ACTION_GOLD)
    assert raised.value.count == (10 * 9 * 8 * 7 * 6 * 5) ** 5 == chance.deal_count(game, 1)
    batch, after = sampled(game, s, ACTION_GOLD, 20)
    assert (after.epoch == 1).all() and (after.gold[:, 2] == 1).all()
    assert len({game.chance_outcome(batch, ACTION_GOLD, after, r) for r in range(20)}) == 20


def test_the_epoch_three_deal_of_the_advanced_five_player_game():
    """5 players deal all 10 basic cards of a colour in order (10!), and 10 of the 14 advanced purples."""
    game = new_game(num_players=5, advanced=True)
    s = last_seals_pass(game, 1)
    with pytest.raises(TooManyOutcomes, match="epoch III") as raised:
        game.chance_outcomes(s, ACTION_PASS)
    assert raised.value.count == math.factorial(10) ** 4 * (math.factorial(14) // math.factorial(4))
    batch, after = sampled(game, s, ACTION_PASS, 8)
    assert (after.inner_count == 10).all() and fields_other_than_inner_agree(after)
    assert all(game.chance_outcome(batch, ACTION_PASS, after, r).startswith("epoch III stacks")
               for r in range(8))


# --- steps without chance -------------------------------------------------------------------------

def test_the_last_pass_of_epoch_three_ends_the_game_without_chance():
    game = new_game()
    s = last_seals_pass(game, 2)
    assert game.chance_outcomes(s, ACTION_PASS) == []
    batch, after = sampled(game, s, ACTION_PASS, 50)
    assert after.done.all() and fields_other_than_inner_agree(after) and (after.inner == batch.inner).all()
    assert {game.chance_outcome(batch, ACTION_PASS, after, r) for r in range(50)} == {None}


def test_drawing_pairs_from_dealt_stacks_is_no_chance():
    """Setting the wheel draws every seat's first pair off the top of stacks the state holds: the state
    decides it, whatever the uniforms."""
    game = new_game()
    s = last_seals_pass(game, 0)
    s = game.apply(s, np.array([ACTION_PASS]), np.zeros((1, UNIFORMS_PER_STEP)))
    for action in range(ACTION_WHEEL, ACTION_WHEEL + 5):
        assert game.chance_outcomes(s, action) == []
        batch, after = sampled(game, s, action, 50, seed=action)
        assert (after.drawn >= 0).all() and all(core.states_equal(core.take(after, [r]), core.take(after, [0]))
                                                for r in range(50))
        assert {game.chance_outcome(batch, action, after, r) for r in range(50)} == {None}


# --- every test configuration -----------------------------------------------------------------------

CONFIGS = [dict(c) for c in GAMES["hadara"].test_configs] + [
    {"num_players": 2, "random_board_order": True}, {"num_players": 3, "auto_forced": False}]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_moves_along_a_random_game_list_their_chance(config):
    """Along a random game, 3 moves of every position: [] exactly when the step begins no epoch, and then
    4 sampled steps are the same state and name no outcome; otherwise TooManyOutcomes with the deal's
    count, and the 4 samples differ only in the dealt stacks, each named by the epoch it begins."""
    game = make("hadara", **config)
    rng = np.random.default_rng(7)
    state = game.init(rng, 1)
    deals = moves = 0
    while not state.done[0]:
        legal = np.flatnonzero(game.legal_action_mask(state)[0])
        for action in legal[:2].tolist() + [int(rng.choice(legal))]:
            batch, after = sampled(game, state, action, 4, seed=moves)
            moves += 1
            if (after.epoch == state.epoch[0]).all():
                assert game.chance_outcomes(state, action) == []
                assert all(core.states_equal(core.take(after, [r]), core.take(after, [0])) for r in range(4))
                assert {game.chance_outcome(batch, action, after, r) for r in range(4)} == {None}
                continue
            deals += 1
            epoch = int(after.epoch[0])
            with pytest.raises(TooManyOutcomes) as raised:
                game.chance_outcomes(state, action)
            assert raised.value.count == chance.deal_count(game, epoch) > 10 ** 18
            assert fields_other_than_inner_agree(after)
            names = {game.chance_outcome(batch, action, after, r) for r in range(4)}
            assert len(names) == 4 and all(d.startswith(f"epoch {data.EPOCH_NAMES[epoch]} stacks") for d in names)
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    assert deals >= 2 and moves > 100  # both epoch ends were met


def test_a_small_deal_is_listed_in_full():
    """The listing itself, on a made-up deck small enough to list (1 seat, 3 cards per colour): an ordered
    2 of 3 per colour, 6 ** 5 equally likely outcomes in the words `chance_outcome` uses."""
    cards = np.array([[[3 * c + i for i in range(3)] for c in range(5)]] * 3)
    tiny = SimpleNamespace(num_players=1, deck_cards=cards, deck_count=np.full((3, 5), 3))
    assert chance.deal_count(tiny, 1) == 6 ** 5
    outcomes = chance.deal_outcomes(tiny, 1)
    assert len(outcomes) == len({d for d, _ in outcomes}) == 6 ** 5
    assert all(p == 1 / 6 ** 5 for _, p in outcomes) and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    assert outcomes[0][0] == chance.describe_deal(1, [[0, 1], [3, 4], [6, 7], [9, 10], [12, 13]])
    assert outcomes[0][0].startswith(f"epoch II stacks, top first: yellow {data.CARD_NAMES[1]} {data.CARD_NAMES[0]}; ")
