"""Hadara's field table: every state field once (shape, dtype, range, visibility, meaning), the extra
View fields the observe kernel writes, and the named scratch arrays of the kernels.

Hidden information: the inner stacks and the colony stacks are face down (HIDDEN); each player's
drawn pair, pending commitment and phase-A face-down sales are PRIVATE (their colour and epoch are
public); a plundered colony's back is never revealed. Simultaneous choices are sequential hidden
commitments: `pending` is private, only `committed` is public, and everything resolves when the last
player commits. DERIVED fields are recomputed from the tableau (`kernels.refresh_player`).
"""

from __future__ import annotations

import numpy as np

from meeple.envs.base import BOOL, HIDDEN, I8, I16, I64, PRIVATE, Field, state_classes
from meeple.envs.hadara.data import (
    ABILITY_PER_COLOUR, BUST_BOOST, BUST_BOOST_STEPS, BUST_REWARD, BUST_VP, BUY_REQUIREMENT_MAX_COINS, CARD_ABILITY,
    CARD_TRACKS, CARD_VP, COINS_PER_VP, COLONIES_IN_TIER, COLONY_BACK_TRACKS, COLONY_BACK_VP, COLONY_COINS,
    COLONY_COINS_AMOUNT, COLONY_FRONT_VP, COLONY_PLUNDER, COLONY_TIER, FEED_COINS_MAX_CARDS, FOOD_SURPLUS,
    FOOD_SURPLUS_MAX, GOLD_VP_PER_SET, MAX_GOLD, MAX_PLAYERS, MAX_SILVER, MAX_TABLEAU, NUM_ABILITIES, NUM_BUSTS,
    NUM_CARDS, NUM_COLONIES, NUM_COLOURS, NUM_DECISIONS, NUM_EPOCHS, NUM_TIERS, NUM_TRACKS, PHASE_B_TURNS_PER_PLAYER,
    ROUNDS_PER_PHASE_A, SELL_BONUS, SELL_BONUS_COINS, SELL_VALUE, SET_POINTS, SET_POINTS_VP, START_COINS,
    START_PLAYER_COINS, START_TRACKS, TILE_STEPS, TILE_STEPS_STEPS, TRACK_INCOME, TRACK_INCOME_MAX,
)

SOLD_SLOTS = NUM_EPOCHS * ROUNDS_PER_PHASE_A  # s.sold_a index 5 * epoch + round
PILE_SLOTS = MAX_PLAYERS  # an outer pile holds one card per player (the draft)
INNER_SLOTS = 2 * MAX_PLAYERS  # 2N cards per inner stack
SHUFFLE_SLOTS = 16  # shuffle buffer length (>= 14 cards of one colour)


# --- reachable maxima, derived from the data tables so a new card list updates them ---------

def _copies(ability: int) -> int:
    """Cards carrying `ability` (advanced game: the starred ones included)."""
    return int((CARD_ABILITY == ability).sum())


# A tableau holds at most MAX_TABLEAU cards (5 draft rounds + 5 picks per epoch), so a track is at
# most: the best start card, the MAX_TABLEAU best cards on it, the best allied back of every tier, every
# bust's front reward with every BUST_BOOST copy, every TILE_STEPS card's tile, and the PER_* copies of its
# colour counting a full tableau (tracks = start + cards + backs + front tiles + TILE_STEPS + PER_*).
TRACK_MAX = np.array([
    int(START_TRACKS[:, :, k].max()) + int(np.sort(CARD_TRACKS[:, k])[::-1][:MAX_TABLEAU].sum())
    + sum(int(COLONY_BACK_TRACKS[COLONY_TIER == t, k].max()) for t in range(NUM_TIERS))
    + int(BUST_REWARD.sum()) + NUM_BUSTS * BUST_BOOST_STEPS * _copies(BUST_BOOST) + _copies(TILE_STEPS) * TILE_STEPS_STEPS
    + MAX_TABLEAU * sum(_copies(a) for a in range(NUM_ABILITIES) if ABILITY_PER_COLOUR[a] == k)
    for k in range(NUM_TRACKS)
], dtype=np.int64)
# Coins only grow through: the start card (+ the start-player coin), 2 Incomes per epoch (income
# track + TRACK_INCOME), one sale per acquisition opportunity (10 per epoch: 5 draft rounds +
# 5 picks, at most the epoch III value + SELL_BONUS), each tier's colony once (plunder + COLONY_COINS,
# coins arriving before plunder/ally) and FOOD_SURPLUS once per Feeding. Each event's most is below; validate checks
# coins + the most the remaining events could add <= COINS_MAX, so a valid state never passes it.
START_COINS_MAX = int(START_COINS.max()) + START_PLAYER_COINS
INCOMES_PER_EPOCH = 2
INCOME_GAIN_MAX = int(TRACK_MAX[0]) + _copies(TRACK_INCOME) * TRACK_INCOME_MAX
SELL_GAIN_MAX = int(SELL_VALUE.max()) + _copies(SELL_BONUS) * SELL_BONUS_COINS
COLONY_GAIN_MAX = COLONY_PLUNDER.astype(np.int64) + _copies(COLONY_COINS) * COLONY_COINS_AMOUNT  # per tier
SURPLUS_GAIN_MAX = _copies(FOOD_SURPLUS) * FOOD_SURPLUS_MAX
ACQUISITIONS_PER_EPOCH = ROUNDS_PER_PHASE_A + PHASE_B_TURNS_PER_PLAYER
COINS_MAX = (START_COINS_MAX + NUM_EPOCHS * (INCOMES_PER_EPOCH * INCOME_GAIN_MAX + ACQUISITIONS_PER_EPOCH * SELL_GAIN_MAX
                                              + SURPLUS_GAIN_MAX) + int(COLONY_GAIN_MAX.sum()))
# Running VP (kernels.vp_of): the best colony of every tier, every bust with its back reward and
# boost, both silver seals scoring a full track (SILVER_FULL), gold and SET_POINTS on every complete set of
# a full tableau, the MAX_TABLEAU best cards and the coins.
_SETS_MAX = MAX_TABLEAU // NUM_COLOURS + 1  # + 1: GOLD_WILDCARD completes one more set for gold seals
VP_MAX = (sum(max(int(COLONY_FRONT_VP[t]), int(COLONY_BACK_VP[COLONY_TIER == t].max())) for t in range(NUM_TIERS))
          + int(BUST_VP.sum()) + int(BUST_REWARD.sum()) + NUM_BUSTS * BUST_BOOST_STEPS * _copies(BUST_BOOST)
          + MAX_SILVER * int(TRACK_MAX.max()) + GOLD_VP_PER_SET * _SETS_MAX * MAX_GOLD
          + SET_POINTS_VP * _SETS_MAX * _copies(SET_POINTS) + int(np.sort(CARD_VP)[::-1][:MAX_TABLEAU].sum())
          + COINS_MAX // COINS_PER_VP)
# all of them fit the int16 fields (coins, tracks, the View's vp) with room to spare
assert max(COINS_MAX, int(TRACK_MAX.max()), VP_MAX) < np.iinfo(np.int16).max

FIELDS = (
    # --- flow (public) ---
    Field("to_play", (), I8, 0, "P-1", doc="seat that decides now"),
    Field("done", (), BOOL, doc="game over (decision GAME_OVER)"),
    Field("truncated", (), BOOL, 0, 0, doc="always False: every game ends by the rules"),
    Field("epoch", (), I8, 0, NUM_EPOCHS - 1, doc="epoch 0..2 = I..III (the major period)"),
    Field("decision", (), I8, 0, NUM_DECISIONS - 1, doc="data.DEC_* pending decision (the rules' sections)"),
    Field("round", (), I8, 0, ROUNDS_PER_PHASE_A, doc="phase-A round 0..4 (5 once the draft is over)"),
    Field("turn", (), I8, 0, "P", doc="position in turn order in sequential sections; actor = (start + turn) % P"),
    Field("pick", (), I8, 0, "5*P", doc="phase-B turns taken; actor = (start + pick) % P"),
    Field("start_player", (), I8, 0, "P-1", doc="this epoch's start player"),
    Field("rotation", (), I8, -1, 4, doc="wheel rotation 0..4, -1 until set this epoch"),
    Field("board_order", (NUM_COLOURS,), I8, 0, NUM_COLOURS - 1, doc="colour at board position 0..4"),
    # --- per player ---
    Field("start_card", ("P",), I8, 0, 4, doc="start card = initiative - 1"),
    Field("start_side", ("P",), I8, -1, 1, doc="SIDE_A / SIDE_B once revealed, -1 before (advanced setup)"),
    Field("coins", ("P",), I16, 0, COINS_MAX, doc="COINS_MAX: the most the rules can hand out in a game"),
    Field("tracks", ("P", NUM_TRACKS), I16, 0, int(TRACK_MAX.max()),
          doc="income, military, culture, food; DERIVED (at most TRACK_MAX)"),
    Field("colour_count", ("P", NUM_COLOURS), I8, 0, MAX_TABLEAU, doc="cards per colour in the tableau; DERIVED"),
    Field("ability_count", ("P", NUM_ABILITIES), I8, 0, 2, doc="copies of each ability in the tableau; DERIVED"),
    Field("free_tiles", ("P", NUM_TRACKS), I8, 0, 2,
          doc="bonus tiles per colour not on a bust, seal or TILE_STEPS card; DERIVED"),
    Field("tableau", ("P", MAX_TABLEAU), I16, -1, NUM_CARDS - 1, doc="card per slot in acquisition order, -1 empty/removed"),
    Field("n_slots", ("P",), I8, 0, MAX_TABLEAU, doc="slots assigned so far (slots are never reused)"),
    Field("slot_tile", ("P", MAX_TABLEAU), I8, -1, 3, doc="tile colour on the TILE_STEPS card in that slot, -1"),
    Field("tile_due", ("P",), I8, -1, MAX_TABLEAU - 1, doc="slot of a TILE_STEPS card awaiting its tile, -1"),
    Field("bust", ("P", NUM_BUSTS), I8, -1, 7, doc="-1 uncarved, else 2 * tile colour + side (FRONT 0 / BACK 1)"),
    Field("colony", ("P", NUM_TIERS), I8, 0, 2, doc="per tier 0 not taken, 1 plundered, 2 allied"),
    Field("colony_id", ("P", NUM_TIERS), I8, -1, NUM_COLONIES - 1, HIDDEN,
          "colony per taken tier, -1; its back is public once allied (View colony_back), never when plundered"),
    Field("silver", ("P", MAX_SILVER), I8, -1, 3, doc="tile colour (scored track) of each silver seal, -1; in order"),
    Field("gold", ("P",), I8, 0, 2, doc="gold seals bought"),
    Field("sold_a", ("P", SOLD_SLOTS), I16, -1, NUM_CARDS - 1, PRIVATE,
          "card sold face down in phase A of epoch e round k at 5e+k, -1 (colour and epoch public: View sold_colour)"),
    Field("committed", ("P",), BOOL, doc="has committed this draft round / side choice"),
    Field("pending", ("P",), I8, -1, 3, PRIVATE, "commitment: draft action - 7 (0..3) or side (0..1), -1 none"),
    Field("drawn", ("P", 2), I16, -1, NUM_CARDS - 1, PRIVATE, "pair drawn this round (draw order), -1 outside A_DRAFT"),
    # --- the current actor's section counters (public) ---
    Field("sect_count", (), I8, 0, 2, doc="colonies / busts taken in this section (2 with DOUBLE_SECTION)"),
    Field("sect_bought", (), I16, 0, BUY_REQUIREMENT_MAX_COINS, doc="BUY_REQUIREMENT coins spent in this section"),
    Field("feed_paid", (), I8, 0, FEED_COINS_MAX_CARDS, doc="cards covered with FEED_COINS in this Feeding"),
    # --- supply ---
    Field("inner", (NUM_COLOURS, INNER_SLOTS), I16, -1, NUM_CARDS - 1, HIDDEN,
          "inner stack per colour, bottom -> top, -1 beyond the count"),
    Field("inner_count", (NUM_COLOURS,), I8, 0, "2*P", doc="inner stack sizes"),
    Field("outer", (NUM_COLOURS, PILE_SLOTS), I16, -1, NUM_CARDS - 1,
          doc="outer pile per colour, bottom -> top, -1 beyond the count (the View may show only the tops)"),
    Field("outer_count", (NUM_COLOURS,), I8, 0, "P"),
    Field("colony_stack", (NUM_TIERS, COLONIES_IN_TIER), I8, -1, NUM_COLONIES - 1, HIDDEN,
          "colony ids per tier, bottom -> top (the fronts are identical)"),
    Field("colony_count", (NUM_TIERS,), I8, 0, "P", doc="colonies left per tier"),
    Field("removed", (NUM_CARDS,), BOOL, doc="out of the game face up: sold in phase B or removed in feeding"),
)

# written by kernels.observe_row, in this order
VIEW_FIELDS = (
    Field("colony_back", ("P", NUM_TIERS), I8, doc="allied colony ids; -1 for plundered (never revealed) and untaken"),
    Field("sold_colour", ("P", SOLD_SLOTS), I8, doc="colour of each face-down phase-A sale, -1 none"),
    Field("own_sold", (SOLD_SLOTS,), I16, doc="the viewer's own face-down sales (card ids)"),
    Field("own_drawn", (2,), I16, doc="the viewer's drawn pair, -1 outside A_DRAFT"),
    Field("own_pending", (), I8, doc="the viewer's own commitment, -1 none"),
    Field("outer", (NUM_COLOURS, PILE_SLOTS), I16, doc="the outer piles (only the tops with pile_view='top')"),
    Field("vp", ("P",), I16, 0, VP_MAX, doc="running public VP (the scoring rules on the current position)"),
)

# the kernels' scratch arrays, passed by name to the row functions that name them (envs/codegen.py)
SCRATCH = (
    Field("scratch", (SHUFFLE_SLOTS,), I16, doc="shuffle buffer"),
    Field("seen", (NUM_CARDS,), BOOL, doc="determinize: cards the viewer has seen"),
    Field("pool", (SHUFFLE_SLOTS,), I16, doc="determinize: unseen cards of one epoch and colour"),
    Field("stream", (1,), np.uint64, doc="determinize: splitmix64 stream"),
    Field("where", (NUM_CARDS,), I8, doc="validate: places each card was found"),
    Field("v_tracks", ("P", NUM_TRACKS), I64, doc="validate: the stored tracks, compared with refresh_player"),
    Field("v_colour_count", ("P", NUM_COLOURS), I64, doc="validate: the stored colour counts"),
    Field("v_ability_count", ("P", NUM_ABILITIES), I64, doc="validate: the stored ability counts"),
    Field("v_free_tiles", ("P", NUM_TRACKS), I64, doc="validate: the stored free tiles"),
)

CLASSES = state_classes(FIELDS, VIEW_FIELDS, SCRATCH)
State, View, Scratch = CLASSES.State, CLASSES.View, CLASSES.Scratch
