"""Observation encoder for Roll Through the Ages (spec section 12).

Seats are relative to the viewer: slot 0 is the viewer, slot k the player k seats after it;
slots beyond the player count are zero (padded to 4). Every value is scaled into [0, 1] except
`score`, which is score / 60 clipped to [-10, 2]. The blocks are written by one numba kernel in
the order of `BLOCKS`; `tests/test_encoders.py` checks every block by name against the state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs.jit import kernel

from meeple.encoders.base import Encoder
from meeple.envs.roll_through_the_ages.kernels import cities_of, goods_count_of, goods_value_of, score_of
from meeple.envs.roll_through_the_ages.state import State
from meeple.envs.roll_through_the_ages.data import (
    CITY_THRESHOLDS, FOOD_MAX, FW2, FW_FOOD_CHOSEN, FW_WORKERS_CHOSEN,
    GOODS_MAX, GOODS_VALUE, MAX_DICE, MAX_GOODS_VALUE, MONUMENT_WORKERS, NO_DIE, NUM_DEVELOPMENTS,
    NUM_GOODS, NUM_MONUMENTS, NUM_DECISIONS, NUM_TRADE_TYPES, SKULL, SOLO_ROUNDS, GOODS_LIMIT,
    GRANARIES_COINS_PER_FOOD,
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
    ("score", (SEATS,), "current score (spec 6.2) / 60, clipped to [-10, 2]"),
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


@kernel
def encode_nb(s, viewer, in_play, trade, max_trade_offers, out):
    """Fill out (B, size) in the order of BLOCKS; returns the number of columns written."""
    P = s.food.shape[1]
    k = 0
    for b in range(s.food.shape[0]):
        row = out[b]
        row[:] = 0.0
        v = viewer[b]
        p_act = s.active[b]
        k = 0
        # per-seat features, each block seat-major
        for slot in range(SEATS):
            row[k + slot] = 1.0 if slot < P else 0.0
        k += SEATS
        for slot in range(P):
            row[k + slot] = s.food[b, (v + slot) % P] / FOOD_MAX
        k += SEATS
        for slot in range(P):
            for g in range(NUM_GOODS):
                row[k + slot * NUM_GOODS + g] = s.goods[b, (v + slot) % P, g] / GOODS_MAX[g]
        k += SEATS * NUM_GOODS
        for slot in range(P):
            row[k + slot] = goods_count_of(s, b, (v + slot) % P) / 30.0
        k += SEATS
        for slot in range(P):
            row[k + slot] = goods_value_of(s, b, (v + slot) % P) / MAX_GOODS_VALUE
        k += SEATS
        for slot in range(P):
            row[k + slot] = (cities_of(s.city_workers[b, (v + slot) % P]) - 3) / 4.0
        k += SEATS
        for slot in range(P):
            cw = s.city_workers[b, (v + slot) % P]
            prev = 0
            for t in range(CITY_THRESHOLDS.shape[0]):
                if cw < CITY_THRESHOLDS[t]:
                    row[k + slot] = (cw - prev) / (CITY_THRESHOLDS[t] - prev)
                    break
                prev = CITY_THRESHOLDS[t]
        k += SEATS
        for slot in range(P):
            for m in range(NUM_MONUMENTS):
                row[k + slot * NUM_MONUMENTS + m] = s.monument_progress[b, (v + slot) % P, m] / MONUMENT_WORKERS[m]
        k += SEATS * NUM_MONUMENTS
        for slot in range(P):
            for m in range(NUM_MONUMENTS):
                done = s.monument_progress[b, (v + slot) % P, m] >= MONUMENT_WORKERS[m]
                row[k + slot * NUM_MONUMENTS + m] = 1.0 if done else 0.0
        k += SEATS * NUM_MONUMENTS
        for slot in range(P):
            for m in range(NUM_MONUMENTS):
                row[k + slot * NUM_MONUMENTS + m] = s.monument_points[b, (v + slot) % P, m] / 12.0
        k += SEATS * NUM_MONUMENTS
        for slot in range(P):
            for d in range(NUM_DEVELOPMENTS):
                row[k + slot * NUM_DEVELOPMENTS + d] = 1.0 if s.developments[b, (v + slot) % P, d] else 0.0
        k += SEATS * NUM_DEVELOPMENTS
        for slot in range(P):
            n = 0
            for d in range(NUM_DEVELOPMENTS):
                n += s.developments[b, (v + slot) % P, d]
            row[k + slot] = min(n / 5.0, 1.0)
        k += SEATS
        for slot in range(P):
            row[k + slot] = min(s.disasters[b, (v + slot) % P] / DISASTER_SCALE, 1.0)
        k += SEATS
        for slot in range(P):  # spec 6.2, the rules' own score
            row[k + slot] = min(max(score_of(s, b, (v + slot) % P) / SCORE_SCALE, SCORE_LOW), SCORE_HIGH)
        k += SEATS
        for slot in range(P):
            row[k + slot] = 1.0 if (v + slot) % P == s.start_player[b] else 0.0
        k += SEATS
        for slot in range(P):
            row[k + slot] = 1.0 if (v + slot) % P == p_act else 0.0
        k += SEATS
        for slot in range(P):
            row[k + slot] = 1.0 if (v + slot) % P == s.to_play[b] else 0.0
        k += SEATS
        # global
        row[k + P - 1] = 1.0
        k += SEATS
        row[k] = 1.0 if P == 1 else 0.0
        k += 1
        row[k] = 1.0 if trade else 0.0
        k += 1
        for m in range(NUM_MONUMENTS):
            row[k + m] = 1.0 if in_play[m] else 0.0
        k += NUM_MONUMENTS
        for m in range(NUM_MONUMENTS):
            row[k + m] = 1.0 if s.completed_by_anyone[b, m] else 0.0
        k += NUM_MONUMENTS
        row[k] = min(s.round[b] / ROUND_SCALE, 1.0)
        k += 1
        if P == 1:
            row[k] = max(SOLO_ROUNDS - s.round[b] + 1, 0) / SOLO_ROUNDS
        k += 1
        row[k] = 1.0 if s.final_round[b] else 0.0
        k += 1
        row[k + s.decision[b]] = 1.0
        k += NUM_DECISIONS
        # the active player's turn
        skulls = 0
        for i in range(MAX_DICE):
            f = s.dice[b, i]
            if f != NO_DIE:
                row[k + i * 6 + f] = 1.0
        k += MAX_DICE * 6
        for i in range(MAX_DICE):
            row[k + i] = 1.0 if s.dice[b, i] != NO_DIE else 0.0
        k += MAX_DICE
        for i in range(MAX_DICE):
            row[k + i] = 1.0 if s.marked[b, i] else 0.0
        k += MAX_DICE
        for i in range(MAX_DICE):
            if s.dice[b, i] == SKULL:
                skulls += 1
                if P > 1:
                    row[k + i] = 1.0
        k += MAX_DICE
        if 1 <= s.rolls_used[b] <= 3:
            row[k + s.rolls_used[b] - 1] = 1.0
        k += 3
        row[k] = 1.0 if s.leadership_used[b] else 0.0
        k += 1
        for i in range(MAX_DICE):
            if s.dice[b, i] == FW2:
                c = s.fw_choice[b, i]
                row[k + i * 3 + (1 if c == FW_FOOD_CHOSEN else (2 if c == FW_WORKERS_CHOSEN else 0))] = 1.0
        k += MAX_DICE * 3
        row[k] = skulls / 7.0
        k += 1
        row[k] = min(s.workers[b] / 28.0, 1.0)
        k += 1
        row[k] = s.coins[b] / 84.0
        k += 1
        pay = s.coins[b] + GRANARIES_COINS_PER_FOOD * s.marked_food[b]
        for g in range(NUM_GOODS):
            if s.marked_goods[b, g]:
                row[k + g] = 1.0
                pay += GOODS_VALUE[g, s.goods[b, p_act, g]]
        k += NUM_GOODS
        row[k] = s.marked_food[b] / FOOD_MAX
        k += 1
        row[k] = min(pay / 100.0, 1.0)
        k += 1
        if s.bought[b] >= 0:
            row[k + s.bought[b]] = 1.0
        k += NUM_DEVELOPMENTS
        n = 0
        for g in range(NUM_GOODS):
            n += s.goods[b, p_act, g]
        row[k] = max(n - GOODS_LIMIT, 0) / 24.0
        k += 1
        q = s.trade_partner[b]
        row[k + (0 if q < 0 else (q - v + P) % P)] = 1.0
        k += SEATS
        for t in range(NUM_TRADE_TYPES):
            row[k + t] = s.offer_give[b, t] / 15.0
        k += NUM_TRADE_TYPES
        for t in range(NUM_TRADE_TYPES):
            row[k + t] = s.offer_take[b, t] / 15.0
        k += NUM_TRADE_TYPES
        row[k] = s.trade_offers[b] / max_trade_offers
        k += 1
    return k


class RollThroughTheAgesEncoder(Encoder):
    """Flat float32 vector of named blocks (see BLOCKS); self first, padded to 4 seats."""

    name = "roll_through_the_ages_flat"
    blocks = BLOCKS
    seat_blocks = tuple(name for name, _, _ in SEAT_BLOCKS)
    low = SCORE_LOW  # only `score` can leave [0, 1]
    high = SCORE_HIGH

    def __init__(self, game: Any) -> None:
        super().__init__()
        self._in_play = game.monuments_in_play
        self._trade = bool(game.config.trade)
        self._max_trade_offers = int(game.config.max_trade_offers)

    def encode(self, view: Any, out: np.ndarray | None = None) -> np.ndarray:
        """(B, size) float32 for a batch of views; writes into `out` if given."""
        B = view.viewer.shape[0]
        if out is None:
            out = np.empty((B, self.size), dtype=np.float32)
        written = encode_nb(State(*view[1:]), view.viewer, self._in_play, self._trade, self._max_trade_offers, out)
        assert B == 0 or written == self.size, (written, self.size)
        return out


def make_encoder(game: Any) -> RollThroughTheAgesEncoder:
    """The default encoder for a configured game."""
    return RollThroughTheAgesEncoder(game)


DEFAULT = RollThroughTheAgesEncoder  # construct with the configured game: DEFAULT(game)
