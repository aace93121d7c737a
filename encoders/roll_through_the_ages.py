"""Observation encoder for Roll Through the Ages.

Seats are relative to the viewer: slot 0 is the viewer, slot k the player k seats after it;
slots beyond the player count are zero (padded to 4). Every value is scaled into [0, 1] except
`score`, which is score / 60 clipped to [-10, 2]. One numba row kernel writes every block at its offset in
`BLOCKS`, by block name (`AT.<block>`), reading the View's fields by name and the rules' own helpers
(score, goods value, monuments, payment); `tests/test_encoders.py` checks blocks by name against the state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.encoders.base import Encoder, block_offsets, seat_of
from meeple.envs.jit import kernel
from meeple.envs.roll_through_the_ages import kernels as K
from meeple.envs.roll_through_the_ages.data import (
    CITY_THRESHOLDS, FOOD_MAX, FW2, FW_FOOD_CHOSEN, FW_WORKERS_CHOSEN,
    GOODS_MAX, MAX_DICE, MAX_GOODS_VALUE, MONUMENT_WORKERS, NO_DIE, NUM_DEVELOPMENTS,
    NUM_GOODS, NUM_MONUMENTS, NUM_DECISIONS, NUM_TRADE_TYPES, SKULL, SOLO_ROUNDS, GOODS_LIMIT,
)

SEATS = 4
SCORE_SCALE = 60.0
SCORE_LOW, SCORE_HIGH = -10.0, 2.0  # clip range of score / 60 (the best possible score is ~118)
DISASTER_SCALE = 30.0
ROUND_SCALE = 30.0

SEAT_BLOCKS: list[tuple[str, tuple[int, ...], str]] = [
    # per seat, slot 0 = the viewer
    ("present", (SEATS,), "1 if the seat is in the game"),
    ("food", (SEATS,), "food / 15"),
    ("goods", (SEATS, NUM_GOODS), "units of wood..spearheads / track maximum (8,7,6,5,4)"),
    ("goods_count", (SEATS,), "total goods units / 30"),
    ("goods_value", (SEATS,), "goods value (tie-break) / 265"),
    ("cities", (SEATS,), "(cities - 3) / 4"),
    ("city_progress", (SEATS,), "workers on the next unfinished city / its cost (0 when all 7 built)"),
    ("monument_progress", (SEATS, NUM_MONUMENTS), "boxes filled / monument size"),
    ("monument_completed", (SEATS, NUM_MONUMENTS), "1 if this seat completed the monument"),
    ("monument_points", (SEATS, NUM_MONUMENTS), "points recorded for the monument / 12"),
    ("developments", (SEATS, NUM_DEVELOPMENTS), "1 if owned"),
    ("development_count", (SEATS,), "developments owned / 5 (5 triggers the end), capped at 1"),
    ("disasters", (SEATS,), "disaster points / 30, capped at 1"),
    ("score", (SEATS,), "current score / 60, clipped to [-10, 2]"),
    ("is_start_player", (SEATS,), "1 for the start player"),
    ("is_active", (SEATS,), "1 for the seat whose turn it is"),
    ("is_to_play", (SEATS,), "1 for the seat that decides now (differs from active when answering a trade)"),
]
BLOCKS: list[tuple[str, tuple[int, ...], str]] = SEAT_BLOCKS + [
    # global
    ("num_players", (SEATS,), "one-hot of the player count 1..4"),
    ("solo", (1,), "1 in the solo variant"),
    ("trade_variant", (1,), "1 if the trade variant is on"),
    ("monuments_in_play", (NUM_MONUMENTS,), "1 if the monument is used at this player count"),
    ("completed_by_anyone", (NUM_MONUMENTS,), "1 once any player completed it (later completers score less)"),
    ("round", (1,), "round / 30, capped at 1"),
    ("rounds_remaining", (1,), "solo: rounds left including this one / 10; else 0"),
    ("final_round", (1,), "1 once the end is triggered"),
    ("decision", (NUM_DECISIONS,), "one-hot: ROLL, LEADERSHIP, CHOOSE_FW, TRADE, TRADE_OFFER, TRADE_RESPOND, BUILD, BUY,"
     " DISCARD, GAME_OVER"),
    # the active player's turn (public)
    ("dice", (MAX_DICE, 6), "one-hot face of each die (GOOD1, FOOD3, SKULL, FW2, COINS7, WORKERS3)"),
    ("die_present", (MAX_DICE,), "1 if the die is rolled this turn"),
    ("marked", (MAX_DICE,), "1 if marked for the next reroll"),
    ("skull_locked", (MAX_DICE,), "1 if the die shows a skull that may not be rerolled"),
    ("rolls_used", (3,), "one-hot rolls used 1..3"),
    ("leadership_used", (1,), "1 if Leadership was used this turn"),
    ("fw_choice", (MAX_DICE, 3), "per FW2 die one-hot undecided/food/workers; zero for other faces"),
    ("skulls", (1,), "skulls showing / 7"),
    ("workers", (1,), "workers left / 28, capped at 1"),
    ("coins", (1,), "coins this turn / 84"),
    ("marked_goods", (NUM_GOODS,), "1 if the goods track is marked as payment"),
    ("marked_food", (1,), "food marked as payment / 15"),
    ("payment", (1,), "coins + marked payment / 100, capped at 1"),
    ("bought", (NUM_DEVELOPMENTS,), "one-hot development bought this turn"),
    ("goods_over_limit", (1,), "active player's goods units above 6 / 24"),
    ("trade_partner", (SEATS,), "one-hot relative seat of the open offer's partner (slot 0 = no offer)"),
    ("offer_give", (NUM_TRADE_TYPES,), "units the active player offers (5 goods, food) / 15"),
    ("offer_take", (NUM_TRADE_TYPES,), "units the active player asks for / 15"),
    ("trade_offers", (1,), "offers made this turn / the limit"),
]


AT = block_offsets(BLOCKS)  # AT.<block>: the block's first index in a row


@kernel
def encode_row(v, b, row, in_play, trade, max_trade_offers):
    """Fill the zeroed observation row of view row b, each block at its BLOCKS offset `AT.<block>`."""
    P = v.food.shape[1]
    me = np.int64(v.viewer[b])
    p_act = np.int64(v.active[b])
    # per-seat features, each block seat-major
    for slot in range(SEATS):
        row[AT.present + slot] = 1.0 if slot < P else 0.0
    for slot in range(P):
        q = seat_of(me, slot, P)
        row[AT.food + slot] = v.food[b, q] / FOOD_MAX
        for g in range(NUM_GOODS):
            row[AT.goods + slot * NUM_GOODS + g] = v.goods[b, q, g] / GOODS_MAX[g]
        row[AT.goods_count + slot] = K.goods_count_of(v, b, q) / 30.0
        row[AT.goods_value + slot] = K.goods_value_of(v, b, q) / MAX_GOODS_VALUE
        cw = np.int64(v.city_workers[b, q])
        row[AT.cities + slot] = (K.cities_of(cw) - 3) / 4.0
        prev = 0
        for t in range(CITY_THRESHOLDS.shape[0]):
            if cw < CITY_THRESHOLDS[t]:
                row[AT.city_progress + slot] = (cw - prev) / (CITY_THRESHOLDS[t] - prev)
                break
            prev = CITY_THRESHOLDS[t]
        for m in range(NUM_MONUMENTS):
            row[AT.monument_progress + slot * NUM_MONUMENTS + m] = v.monument_progress[b, q, m] / MONUMENT_WORKERS[m]
            row[AT.monument_completed + slot * NUM_MONUMENTS + m] = 1.0 if K.monument_done(v, b, q, m) else 0.0
            row[AT.monument_points + slot * NUM_MONUMENTS + m] = v.monument_points[b, q, m] / 12.0
        n = 0
        for d in range(NUM_DEVELOPMENTS):
            row[AT.developments + slot * NUM_DEVELOPMENTS + d] = 1.0 if v.developments[b, q, d] else 0.0
            n += v.developments[b, q, d]
        row[AT.development_count + slot] = min(n / 5.0, 1.0)
        row[AT.disasters + slot] = min(v.disasters[b, q] / DISASTER_SCALE, 1.0)
        row[AT.score + slot] = min(max(K.score_of(v, b, q) / SCORE_SCALE, SCORE_LOW), SCORE_HIGH)
        row[AT.is_start_player + slot] = 1.0 if q == v.start_player[b] else 0.0
        row[AT.is_active + slot] = 1.0 if q == p_act else 0.0
        row[AT.is_to_play + slot] = 1.0 if q == v.to_play[b] else 0.0
    # global
    row[AT.num_players + P - 1] = 1.0
    row[AT.solo] = 1.0 if P == 1 else 0.0
    row[AT.trade_variant] = 1.0 if trade else 0.0
    for m in range(NUM_MONUMENTS):
        row[AT.monuments_in_play + m] = 1.0 if in_play[m] else 0.0
        row[AT.completed_by_anyone + m] = 1.0 if v.completed_by_anyone[b, m] else 0.0
    row[AT.round] = min(v.round[b] / ROUND_SCALE, 1.0)
    if P == 1:
        row[AT.rounds_remaining] = max(SOLO_ROUNDS - v.round[b] + 1, 0) / SOLO_ROUNDS
    row[AT.final_round] = 1.0 if v.final_round[b] else 0.0
    row[AT.decision + np.int64(v.decision[b])] = 1.0
    # the active player's turn
    skulls = 0
    for i in range(MAX_DICE):
        f = np.int64(v.dice[b, i])
        if f != NO_DIE:
            row[AT.dice + i * 6 + f] = 1.0
            row[AT.die_present + i] = 1.0
        row[AT.marked + i] = 1.0 if v.marked[b, i] else 0.0
        if f == SKULL:
            skulls += 1
            if P > 1:
                row[AT.skull_locked + i] = 1.0
        if f == FW2:
            c = np.int64(v.fw_choice[b, i])
            row[AT.fw_choice + i * 3 + (1 if c == FW_FOOD_CHOSEN else (2 if c == FW_WORKERS_CHOSEN else 0))] = 1.0
    if 1 <= v.rolls_used[b] <= 3:
        row[AT.rolls_used + np.int64(v.rolls_used[b]) - 1] = 1.0
    row[AT.leadership_used] = 1.0 if v.leadership_used[b] else 0.0
    row[AT.skulls] = skulls / 7.0
    row[AT.workers] = min(v.workers[b] / 28.0, 1.0)
    row[AT.coins] = v.coins[b] / 84.0
    for g in range(NUM_GOODS):
        row[AT.marked_goods + g] = 1.0 if v.marked_goods[b, g] else 0.0
    row[AT.marked_food] = v.marked_food[b] / FOOD_MAX
    row[AT.payment] = min(K.marked_payment(v, b, p_act) / 100.0, 1.0)
    if v.bought[b] >= 0:
        row[AT.bought + np.int64(v.bought[b])] = 1.0
    row[AT.goods_over_limit] = max(K.goods_count_of(v, b, p_act) - GOODS_LIMIT, 0) / 24.0
    q = np.int64(v.trade_partner[b])
    row[AT.trade_partner + (0 if q < 0 else seat_of(q, P - me, P))] = 1.0
    for t in range(NUM_TRADE_TYPES):
        row[AT.offer_give + t] = v.offer_give[b, t] / 15.0
        row[AT.offer_take + t] = v.offer_take[b, t] / 15.0
    row[AT.trade_offers] = v.trade_offers[b] / max_trade_offers


class RollThroughTheAgesEncoder(Encoder):
    """Flat float32 vector of named blocks (see BLOCKS); self first, padded to 4 seats."""

    name = "roll_through_the_ages_flat"
    blocks = BLOCKS
    seat_blocks = tuple(name for name, _, _ in SEAT_BLOCKS)
    low = SCORE_LOW  # only `score` can leave [0, 1]
    high = SCORE_HIGH

    row = "encode_row"

    def row_args(self, game: Any) -> dict[str, Any]:
        return {"in_play": game.monuments_in_play, "trade": bool(game.config.trade),
                "max_trade_offers": int(game.config.max_trade_offers)}


def make_encoder(game: Any) -> RollThroughTheAgesEncoder:
    """The default encoder for a configured game."""
    return RollThroughTheAgesEncoder(game)


DEFAULT = RollThroughTheAgesEncoder  # construct with the configured game: DEFAULT(game)

