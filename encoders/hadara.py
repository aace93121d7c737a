"""Observation encoder for Hadara (spec 15).

Built from the rules' `View` only (what one player may see), so it cannot leak hidden information.
Per-seat blocks are seat-major (5, ...): slot 0 is the viewer, slot k the player k seats clockwise;
slots beyond the player count are zero. Card identities are one-hot (162-bit tableaux, own sales) or,
where the colour and epoch are known from context (piles, the own pair), one-hot over the 14 cards
of that epoch and colour (data.CARD_RANK). Counts are scaled into [0, 1]; coins, tracks and VP are
scaled (/50, /20, /100) and clipped to [0, 4]. One numba kernel writes the blocks in BLOCKS order.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from meeple.encoders.base import Encoder
from meeple.envs.hadara.data import (
    BUST_REQUIREMENT, CARD_COLOUR, CARD_EPOCH, CARD_PRICE, CARD_RANK, COLONIES_IN_TIER,
    COLONY_TIER_REQUIREMENT, CULTURE, FEED_COINS_MAX_CARDS, FOOD, MAX_COLOUR_CARDS, MAX_GOLD,
    MAX_PLAYERS, MAX_SILVER, MAX_TABLEAU, MILITARY, NUM_ABILITIES, NUM_BUSTS, NUM_CARDS, NUM_COLOURS,
    NUM_EPOCHS, NUM_DECISIONS, NUM_TIERS, NUM_TRACKS, REQ_MINUS, REQ_MINUS_4, ROUNDS_PER_PHASE_A,
    DEC_A_DRAFT, DEC_SETUP_SIDE, TILE_STEPS_CARDS, BUY_REQUIREMENT_MAX_COINS,
)
from meeple.envs.hadara.rules import View
from meeple.envs.jit import kernel

# encode_nb takes the View's fields as *fields (faster to unbox than a NamedTuple) and rebuilds them
_View = namedtuple("_View", View._fields)

SEATS = MAX_PLAYERS
HIGH = 4.0
COIN_SCALE = 50.0
TRACK_SCALE = 20.0
VP_SCALE = 100.0
PRICE_SCALE = 20.0
REQ_SCALE = 30.0
PILE_SLOTS = MAX_PLAYERS
SLOT_WIDTH = NUM_COLOURS + NUM_EPOCHS + 1

SEAT_BLOCKS: list[tuple[str, tuple[int, ...], str]] = [
    ("present", (SEATS,), "1 if the seat is in the game"),
    ("is_start_player", (SEATS,), "1 for this epoch's start player"),
    ("is_to_play", (SEATS,), "1 for the seat that decides now"),
    ("coins", (SEATS,), "coins / 50, clipped to 4"),
    ("tracks", (SEATS, NUM_TRACKS), "income, military, culture, food / 20, clipped to 4"),
    ("vp", (SEATS,), "public VP so far (spec 9 on the current position) / 100, clipped to 4"),
    ("colour_count", (SEATS, NUM_COLOURS), "cards per colour Y,R,B,G,P / 10"),
    ("tableau", (SEATS, NUM_CARDS), "multi-hot of the card ids in the tableau"),
    ("free_tiles", (SEATS, NUM_TRACKS), "free bonus tiles per colour / 2"),
    ("tile_steps", (SEATS, 2, NUM_TRACKS), "one-hot tile colour on I-P03 / I-P04 when held"),
    ("busts", (SEATS, NUM_BUSTS, 9), "per bust one-hot: uncarved, front tile Y,R,B,G, back tile Y,R,B,G"),
    ("colonies", (SEATS, NUM_TIERS, 3), "per tier one-hot: not taken, plundered, allied"),
    ("colony_back", (SEATS, NUM_TIERS, COLONIES_IN_TIER), "per tier one-hot of the allied colony within the tier"),
    ("silver", (SEATS, MAX_SILVER, 5), "per silver recess one-hot: empty, tile Y,R,B,G"),
    ("gold", (SEATS,), "gold seals / 2"),
    ("start_card", (SEATS, 5), "one-hot initiative 1..5"),
    ("start_side", (SEATS, 2), "one-hot side A/B once revealed"),
    ("committed", (SEATS,), "1 if committed in this draft round / side choice"),
    ("sold_count", (SEATS,), "face-down phase-A sales this epoch / 5"),
    ("sold_colours", (SEATS, NUM_COLOURS), "1 per colour sold face-down this epoch"),
    ("abilities", (SEATS, NUM_ABILITIES), "copies of each ability held / 2"),
    ("tile_due", (SEATS,), "1 while a TILE_STEPS card awaits its tile"),
]
BLOCKS: list[tuple[str, tuple[int, ...], str]] = SEAT_BLOCKS + [
    ("num_players", (4,), "one-hot N = 2..5"),
    ("advanced", (1,), "1 in the advanced game"),
    ("pile_view_top", (1,), "1 if only pile tops are shown (pile_view='top')"),
    ("epoch", (NUM_EPOCHS,), "one-hot epoch I..III"),
    ("decision", (NUM_DECISIONS,), "one-hot section (spec 14 ids)"),
    ("round", (ROUNDS_PER_PHASE_A,), "one-hot phase-A round (zero after the draft)"),
    ("rotation", (5,), "one-hot wheel rotation (zero until set)"),
    ("board_order", (5, NUM_COLOURS), "board position -> one-hot colour"),
    ("pick_turns_left", (1,), "phase-B turns remaining / 25"),
    ("inner_count", (NUM_COLOURS,), "inner stack sizes / 10"),
    ("outer_count", (NUM_COLOURS,), "outer pile sizes / 5"),
    ("outer", (NUM_COLOURS, PILE_SLOTS, MAX_COLOUR_CARDS), "per pile, bottom->top, one-hot card within (epoch, colour)"),
    ("outer_top_price", (NUM_COLOURS,), "own effective price of each pile top / 20 (0 if empty)"),
    ("colony_count", (NUM_TIERS,), "colonies left per tier / 5"),
    ("own_drawn", (2, MAX_COLOUR_CARDS), "own pair in draw order, one-hot card within (epoch, colour)"),
    ("own_drawn_colour", (NUM_COLOURS,), "one-hot colour of the own pair"),
    ("own_drawn_price", (2,), "own effective price of each card of the pair / 20"),
    ("own_pending", (6,), "own commitment one-hot: draft actions 7..10, side A/B"),
    ("own_sold", (NUM_CARDS,), "multi-hot of the own face-down sales"),
    ("own_slots", (MAX_TABLEAU, SLOT_WIDTH),
     "own tableau slot -> card: one-hot colour, one-hot epoch, rank within (epoch, colour) / 13 (REMOVE_i = slot i)"),
    ("sect_count", (1,), "colonies/busts taken in this section / 2"),
    ("sect_bought", (1,), "BUY_REQUIREMENT coins spent in this section / 30"),
    ("feed_paid", (1,), "cards covered with FEED_COINS in this feeding / 6"),
    ("feed_deficit", (1,), "own cards - food - covered, / 10, clipped to [0, 4]"),
    ("colony_shortfall", (NUM_TIERS,), "own missing military per tier (after REQ_MINUS_4) / 30"),
    ("bust_shortfall", (NUM_BUSTS,), "own missing culture per bust (after REQ_MINUS_4) / 30"),
]


@kernel(inline="always")
def _clip(x):
    return HIGH if x > HIGH else (0.0 if x < 0.0 else x)


@kernel(inline="always")
def _price(v, b, p, card):
    x = CARD_PRICE[card] - v.colour_count[b, p, CARD_COLOUR[card]]
    return x if x > 0 else 0


@kernel(inline="always")
def _short(v, b, p, requirement, track):
    req = requirement
    if v.ability_count[b, p, REQ_MINUS_4] > 0:
        req = req - REQ_MINUS
        if req < 0:
            req = 0
    x = req - v.tracks[b, p, track]
    return x if x > 0 else 0


@kernel
def encode_nb(advanced, pile_top, out, *fields):
    """Fill out (B, size) in BLOCKS order from the View's fields; returns the number of columns written."""
    v = _View(*fields)
    P = v.coins.shape[1]
    k = 0
    for b in range(v.coins.shape[0]):
        row = out[b]
        row[:] = 0.0
        me = v.viewer[b]
        e_now = v.epoch[b]
        k = 0
        for slot in range(SEATS):
            row[k + slot] = 1.0 if slot < P else 0.0
        k += SEATS
        for slot in range(P):
            row[k + slot] = 1.0 if (me + slot) % P == v.start_player[b] else 0.0
        k += SEATS
        for slot in range(P):
            row[k + slot] = 1.0 if (me + slot) % P == v.to_play[b] and not v.done[b] else 0.0
        k += SEATS
        for slot in range(P):
            row[k + slot] = _clip(v.coins[b, (me + slot) % P] / COIN_SCALE)
        k += SEATS
        for slot in range(P):
            for t in range(NUM_TRACKS):
                row[k + slot * NUM_TRACKS + t] = _clip(v.tracks[b, (me + slot) % P, t] / TRACK_SCALE)
        k += SEATS * NUM_TRACKS
        for slot in range(P):
            row[k + slot] = _clip(v.vp[b, (me + slot) % P] / VP_SCALE)
        k += SEATS
        for slot in range(P):
            for c in range(NUM_COLOURS):
                row[k + slot * NUM_COLOURS + c] = v.colour_count[b, (me + slot) % P, c] / 10.0
        k += SEATS * NUM_COLOURS
        k_tiles = k + SEATS * NUM_CARDS + SEATS * NUM_TRACKS  # the tile_steps block, filled in the same pass
        for slot in range(P):
            q = (me + slot) % P
            for i in range(MAX_TABLEAU):
                card = v.tableau[b, q, i]
                if card >= 0:
                    row[k + slot * NUM_CARDS + card] = 1.0
                    tile = v.slot_tile[b, q, i]
                    if tile >= 0:
                        j = 0 if card == TILE_STEPS_CARDS[0] else 1
                        row[k_tiles + slot * 2 * NUM_TRACKS + j * NUM_TRACKS + tile] = 1.0
        k += SEATS * NUM_CARDS
        for slot in range(P):
            for c in range(NUM_TRACKS):
                row[k + slot * NUM_TRACKS + c] = v.free_tiles[b, (me + slot) % P, c] / 2.0
        k += SEATS * NUM_TRACKS
        k += SEATS * 2 * NUM_TRACKS  # tile_steps (written above)
        for slot in range(P):
            q = (me + slot) % P
            for bu in range(NUM_BUSTS):
                x = v.bust[b, q, bu]
                idx = 0 if x < 0 else (1 + x // 2 if x % 2 == 0 else 5 + x // 2)
                row[k + slot * NUM_BUSTS * 9 + bu * 9 + idx] = 1.0
        k += SEATS * NUM_BUSTS * 9
        for slot in range(P):
            q = (me + slot) % P
            for t in range(NUM_TIERS):
                row[k + slot * NUM_TIERS * 3 + t * 3 + v.colony[b, q, t]] = 1.0
        k += SEATS * NUM_TIERS * 3
        for slot in range(P):
            q = (me + slot) % P
            for t in range(NUM_TIERS):
                cid = v.colony_back[b, q, t]
                if cid >= 0:
                    row[k + slot * NUM_TIERS * COLONIES_IN_TIER + t * COLONIES_IN_TIER + cid - COLONIES_IN_TIER * t] = 1.0
        k += SEATS * NUM_TIERS * COLONIES_IN_TIER
        for slot in range(P):
            q = (me + slot) % P
            for i in range(MAX_SILVER):
                row[k + slot * MAX_SILVER * 5 + i * 5 + 1 + v.silver[b, q, i]] = 1.0
        k += SEATS * MAX_SILVER * 5
        for slot in range(P):
            row[k + slot] = v.gold[b, (me + slot) % P] / MAX_GOLD
        k += SEATS
        for slot in range(P):
            row[k + slot * 5 + v.start_card[b, (me + slot) % P]] = 1.0
        k += SEATS * 5
        for slot in range(P):
            side = v.start_side[b, (me + slot) % P]
            if side >= 0:
                row[k + slot * 2 + side] = 1.0
        k += SEATS * 2
        for slot in range(P):
            row[k + slot] = 1.0 if v.committed[b, (me + slot) % P] else 0.0
        k += SEATS
        for slot in range(P):
            q = (me + slot) % P
            n = 0
            for r in range(ROUNDS_PER_PHASE_A):
                c = v.sold_colour[b, q, ROUNDS_PER_PHASE_A * e_now + r]
                if c >= 0:
                    n += 1
                    row[k + SEATS + slot * NUM_COLOURS + c] = 1.0
            row[k + slot] = n / 5.0
        k += SEATS + SEATS * NUM_COLOURS
        for slot in range(P):
            for a in range(NUM_ABILITIES):
                row[k + slot * NUM_ABILITIES + a] = v.ability_count[b, (me + slot) % P, a] / 2.0
        k += SEATS * NUM_ABILITIES
        for slot in range(P):
            row[k + slot] = 1.0 if v.tile_due[b, (me + slot) % P] >= 0 else 0.0
        k += SEATS
        # --- global ---
        row[k + P - 2] = 1.0
        k += 4
        row[k] = 1.0 if advanced else 0.0
        k += 1
        row[k] = 1.0 if pile_top else 0.0
        k += 1
        row[k + e_now] = 1.0
        k += NUM_EPOCHS
        row[k + v.decision[b]] = 1.0
        k += NUM_DECISIONS
        if v.round[b] < ROUNDS_PER_PHASE_A:
            row[k + v.round[b]] = 1.0
        k += ROUNDS_PER_PHASE_A
        if v.rotation[b] >= 0:
            row[k + v.rotation[b]] = 1.0
        k += 5
        for i in range(5):
            row[k + i * NUM_COLOURS + v.board_order[b, i]] = 1.0
        k += 5 * NUM_COLOURS
        row[k] = (5 * P - v.pick[b]) / 25.0
        k += 1
        for c in range(NUM_COLOURS):
            row[k + c] = v.inner_count[b, c] / 10.0
        k += NUM_COLOURS
        for c in range(NUM_COLOURS):
            row[k + c] = v.outer_count[b, c] / 5.0
        k += NUM_COLOURS
        for c in range(NUM_COLOURS):
            for i in range(PILE_SLOTS):
                card = v.outer[b, c, i]
                if card >= 0:
                    row[k + c * PILE_SLOTS * MAX_COLOUR_CARDS + i * MAX_COLOUR_CARDS + CARD_RANK[card]] = 1.0
        k += NUM_COLOURS * PILE_SLOTS * MAX_COLOUR_CARDS
        for c in range(NUM_COLOURS):
            n = v.outer_count[b, c]
            if n > 0:
                row[k + c] = _clip(_price(v, b, me, v.outer[b, c, n - 1]) / PRICE_SCALE)
        k += NUM_COLOURS
        for t in range(NUM_TIERS):
            row[k + t] = v.colony_count[b, t] / 5.0
        k += NUM_TIERS
        for i in range(2):
            card = v.own_drawn[b, i]
            if card >= 0:
                row[k + i * MAX_COLOUR_CARDS + CARD_RANK[card]] = 1.0
                row[k + 2 * MAX_COLOUR_CARDS + CARD_COLOUR[card]] = 1.0
                row[k + 2 * MAX_COLOUR_CARDS + NUM_COLOURS + i] = _clip(_price(v, b, me, card) / PRICE_SCALE)
        k += 2 * MAX_COLOUR_CARDS + NUM_COLOURS + 2
        pend = v.own_pending[b]
        if pend >= 0:
            if v.decision[b] == DEC_A_DRAFT:
                row[k + pend] = 1.0
            elif v.decision[b] == DEC_SETUP_SIDE:
                row[k + 4 + pend] = 1.0
        k += 6
        for i in range(v.own_sold.shape[1]):
            card = v.own_sold[b, i]
            if card >= 0:
                row[k + card] = 1.0
        k += NUM_CARDS
        for i in range(MAX_TABLEAU):
            card = v.tableau[b, me, i]
            if card >= 0:
                row[k + i * SLOT_WIDTH + CARD_COLOUR[card]] = 1.0
                row[k + i * SLOT_WIDTH + NUM_COLOURS + CARD_EPOCH[card]] = 1.0
                row[k + i * SLOT_WIDTH + NUM_COLOURS + NUM_EPOCHS] = CARD_RANK[card] / 13.0
        k += MAX_TABLEAU * SLOT_WIDTH
        row[k] = v.sect_count[b] / 2.0
        k += 1
        row[k] = v.sect_bought[b] / BUY_REQUIREMENT_MAX_COINS
        k += 1
        row[k] = v.feed_paid[b] / FEED_COINS_MAX_CARDS
        k += 1
        n = 0
        for c in range(NUM_COLOURS):
            n += v.colour_count[b, me, c]
        row[k] = _clip((n - v.tracks[b, me, FOOD] - v.feed_paid[b]) / 10.0)
        k += 1
        for t in range(NUM_TIERS):
            row[k + t] = _clip(_short(v, b, me, COLONY_TIER_REQUIREMENT[t], MILITARY) / REQ_SCALE)
        k += NUM_TIERS
        for bu in range(NUM_BUSTS):
            row[k + bu] = _clip(_short(v, b, me, BUST_REQUIREMENT[bu], CULTURE) / REQ_SCALE)
        k += NUM_BUSTS
    return k


class HadaraEncoder(Encoder):
    """Flat float32 vector of named blocks (see BLOCKS); self first, padded to 5 seats."""

    name = "hadara_flat"
    blocks = BLOCKS
    seat_blocks = tuple(name for name, _, _ in SEAT_BLOCKS)
    low = 0.0
    high = HIGH

    def __init__(self, game: Any) -> None:
        super().__init__()
        self._advanced = bool(game.config.advanced)
        self._pile_top = game.config.pile_view == "top"

    def encode(self, view: Any, out: np.ndarray | None = None) -> np.ndarray:
        """(B, size) float32 for a batch of views; writes into `out` if given."""
        B = view.viewer.shape[0]
        if out is None:
            out = np.empty((B, self.size), dtype=np.float32)
        written = encode_nb(self._advanced, self._pile_top, out, *view)
        assert B == 0 or written == self.size, (written, self.size)
        return out


def make_encoder(game: Any) -> HadaraEncoder:
    """The default encoder for a configured game."""
    return HadaraEncoder(game)


DEFAULT = HadaraEncoder  # construct with the configured game: DEFAULT(game)
