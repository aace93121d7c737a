"""Observation encoder for Hadara.

Built from the rules' `View` only (what one player may see), so it cannot leak hidden information.
Per-seat blocks are seat-major (5, ...): slot 0 is the viewer, slot k the player k seats clockwise;
slots beyond the player count are zero. Card identities are one-hot (162-bit tableaux, own sales) or,
where the colour and epoch are known from context (piles, the own pair), one-hot over the 14 cards
of that epoch and colour (data.CARD_RANK). Counts are scaled into [0, 1]; coins, tracks and VP are
scaled (/50, /20, /100) and clipped to [0, 4]. One numba kernel writes every block at its offset in
BLOCKS, by block name (`AT.<block>`); prices and requirement shortfalls are the rules' own helpers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.encoders.base import Encoder, block_offsets, seat_flags, seat_of
from meeple.envs.hadara import kernels as K
from meeple.envs.hadara.data import (
    BUST_REQUIREMENT, CARD_COLOUR, CARD_EPOCH, CARD_RANK, COLONIES_IN_TIER,
    COLONY_TIER_REQUIREMENT, CULTURE, FEED_COINS_MAX_CARDS, FOOD, MAX_COLOUR_CARDS, MAX_GOLD,
    MAX_PLAYERS, MAX_SILVER, MAX_TABLEAU, MILITARY, NUM_ABILITIES, NUM_BUSTS, NUM_CARDS, NUM_COLOURS,
    NUM_EPOCHS, NUM_DECISIONS, NUM_TIERS, NUM_TRACKS, ROUNDS_PER_PHASE_A,
    DEC_A_DRAFT, DEC_SETUP_SIDE, TILE_STEPS_CARDS, BUY_REQUIREMENT_MAX_COINS,
)
from meeple.envs.jit import kernel

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
    ("vp", (SEATS,), "public VP so far (final scoring on the current position) / 100, clipped to 4"),
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
    ("decision", (NUM_DECISIONS,), "one-hot section (DEC_* order)"),
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


AT = block_offsets(BLOCKS)  # AT.<block>: the block's first index in a row


@kernel(inline="always")
def _clip(x):
    return HIGH if x > HIGH else (0.0 if x < 0.0 else x)


@kernel
def encode_row(v, b, row, advanced, pile_top):
    """Fill the zeroed observation row of view row b, each block at its BLOCKS offset `AT.<block>`."""
    P = v.coins.shape[1]
    me = np.int64(v.viewer[b])
    e_now = np.int64(v.epoch[b])
    seat_flags(v, b, row, me, P, SEATS, AT.present, AT.is_start_player, AT.is_to_play)
    for slot in range(P):
        q = seat_of(me, slot, P)
        row[AT.coins + slot] = _clip(v.coins[b, q] / COIN_SCALE)
        for t in range(NUM_TRACKS):
            row[AT.tracks + slot * NUM_TRACKS + t] = _clip(v.tracks[b, q, t] / TRACK_SCALE)
        row[AT.vp + slot] = _clip(v.vp[b, q] / VP_SCALE)
        for c in range(NUM_COLOURS):
            row[AT.colour_count + slot * NUM_COLOURS + c] = v.colour_count[b, q, c] / 10.0
        for i in range(MAX_TABLEAU):
            card = np.int64(v.tableau[b, q, i])
            if card >= 0:
                row[AT.tableau + slot * NUM_CARDS + card] = 1.0
                tile = np.int64(v.slot_tile[b, q, i])
                if tile >= 0:
                    j = 0 if card == TILE_STEPS_CARDS[0] else 1
                    row[AT.tile_steps + (slot * 2 + j) * NUM_TRACKS + tile] = 1.0
        for c in range(NUM_TRACKS):
            row[AT.free_tiles + slot * NUM_TRACKS + c] = v.free_tiles[b, q, c] / 2.0
        for bu in range(NUM_BUSTS):
            x = np.int64(v.bust[b, q, bu])
            idx = 0 if x < 0 else (1 + x // 2 if x % 2 == 0 else 5 + x // 2)
            row[AT.busts + (slot * NUM_BUSTS + bu) * 9 + idx] = 1.0
        for t in range(NUM_TIERS):
            row[AT.colonies + (slot * NUM_TIERS + t) * 3 + np.int64(v.colony[b, q, t])] = 1.0
            cid = np.int64(v.colony_back[b, q, t])
            if cid >= 0:
                row[AT.colony_back + slot * NUM_TIERS * COLONIES_IN_TIER + cid] = 1.0  # cid = COLONIES_IN_TIER t + i
        for i in range(MAX_SILVER):
            row[AT.silver + (slot * MAX_SILVER + i) * 5 + 1 + np.int64(v.silver[b, q, i])] = 1.0
        row[AT.gold + slot] = v.gold[b, q] / MAX_GOLD
        row[AT.start_card + slot * 5 + np.int64(v.start_card[b, q])] = 1.0
        side = np.int64(v.start_side[b, q])
        if side >= 0:
            row[AT.start_side + slot * 2 + side] = 1.0
        row[AT.committed + slot] = 1.0 if v.committed[b, q] else 0.0
        n = 0
        for r in range(ROUNDS_PER_PHASE_A):
            c = np.int64(v.sold_colour[b, q, ROUNDS_PER_PHASE_A * e_now + r])
            if c >= 0:
                n += 1
                row[AT.sold_colours + slot * NUM_COLOURS + c] = 1.0
        row[AT.sold_count + slot] = n / 5.0
        for a in range(NUM_ABILITIES):
            row[AT.abilities + slot * NUM_ABILITIES + a] = v.ability_count[b, q, a] / 2.0
        row[AT.tile_due + slot] = 1.0 if v.tile_due[b, q] >= 0 else 0.0
    # --- global ---
    row[AT.num_players + P - 2] = 1.0
    row[AT.advanced] = 1.0 if advanced else 0.0
    row[AT.pile_view_top] = 1.0 if pile_top else 0.0
    row[AT.epoch + e_now] = 1.0
    row[AT.decision + np.int64(v.decision[b])] = 1.0
    if v.round[b] < ROUNDS_PER_PHASE_A:
        row[AT.round + np.int64(v.round[b])] = 1.0
    if v.rotation[b] >= 0:
        row[AT.rotation + np.int64(v.rotation[b])] = 1.0
    for i in range(5):
        row[AT.board_order + i * NUM_COLOURS + np.int64(v.board_order[b, i])] = 1.0
    row[AT.pick_turns_left] = (5 * P - v.pick[b]) / 25.0
    for c in range(NUM_COLOURS):
        row[AT.inner_count + c] = v.inner_count[b, c] / 10.0
        n = np.int64(v.outer_count[b, c])
        row[AT.outer_count + c] = n / 5.0
        for i in range(PILE_SLOTS):
            card = np.int64(v.outer[b, c, i])
            if card >= 0:
                row[AT.outer + (c * PILE_SLOTS + i) * MAX_COLOUR_CARDS + CARD_RANK[card]] = 1.0
        if n > 0:
            row[AT.outer_top_price + c] = _clip(K.eff_price(v, b, me, v.outer[b, c, n - 1]) / PRICE_SCALE)
    for t in range(NUM_TIERS):
        row[AT.colony_count + t] = v.colony_count[b, t] / 5.0
    for i in range(2):
        card = np.int64(v.own_drawn[b, i])
        if card >= 0:
            row[AT.own_drawn + i * MAX_COLOUR_CARDS + CARD_RANK[card]] = 1.0
            row[AT.own_drawn_colour + CARD_COLOUR[card]] = 1.0
            row[AT.own_drawn_price + i] = _clip(K.eff_price(v, b, me, card) / PRICE_SCALE)
    pend = np.int64(v.own_pending[b])
    if pend >= 0:
        if v.decision[b] == DEC_A_DRAFT:
            row[AT.own_pending + pend] = 1.0
        elif v.decision[b] == DEC_SETUP_SIDE:
            row[AT.own_pending + 4 + pend] = 1.0
    for i in range(v.own_sold.shape[1]):
        card = np.int64(v.own_sold[b, i])
        if card >= 0:
            row[AT.own_sold + card] = 1.0
    for i in range(MAX_TABLEAU):
        card = np.int64(v.tableau[b, me, i])
        if card >= 0:
            base = AT.own_slots + i * SLOT_WIDTH
            row[base + CARD_COLOUR[card]] = 1.0
            row[base + NUM_COLOURS + CARD_EPOCH[card]] = 1.0
            row[base + NUM_COLOURS + NUM_EPOCHS] = CARD_RANK[card] / 13.0
    row[AT.sect_count] = v.sect_count[b] / 2.0
    row[AT.sect_bought] = v.sect_bought[b] / BUY_REQUIREMENT_MAX_COINS
    row[AT.feed_paid] = v.feed_paid[b] / FEED_COINS_MAX_CARDS
    row[AT.feed_deficit] = _clip((K.card_count(v, b, me) - v.tracks[b, me, FOOD] - v.feed_paid[b]) / 10.0)
    for t in range(NUM_TIERS):
        row[AT.colony_shortfall + t] = _clip(K.shortfall(v, b, me, COLONY_TIER_REQUIREMENT[t], MILITARY) / REQ_SCALE)
    for bu in range(NUM_BUSTS):
        row[AT.bust_shortfall + bu] = _clip(K.shortfall(v, b, me, BUST_REQUIREMENT[bu], CULTURE) / REQ_SCALE)


class HadaraEncoder(Encoder):
    """Flat float32 vector of named blocks (see BLOCKS); self first, padded to 5 seats."""

    name = "hadara_flat"
    blocks = BLOCKS
    seat_blocks = tuple(name for name, _, _ in SEAT_BLOCKS)
    low = 0.0
    high = HIGH

    row = "encode_row"

    def row_args(self, game: Any) -> dict[str, Any]:
        return {"advanced": bool(game.config.advanced), "pile_top": game.config.pile_view == "top"}


def make_encoder(game: Any) -> HadaraEncoder:
    """The default encoder for a configured game."""
    return HadaraEncoder(game)


DEFAULT = HadaraEncoder  # construct with the configured game: DEFAULT(game)

