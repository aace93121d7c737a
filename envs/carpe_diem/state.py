"""Carpe Diem's field table: every state field once (shape, dtype, range, visibility, meaning), the
extra View fields the observe kernel writes, and the named scratch arrays of the kernels.

Hidden information (rules section "what players see"): only fountain cards are secret, each player's
own hand and returned cards and a draw in progress. Depot tiles are dealt when they are turned face
up and the fountain draw samples the undrawn deck when it happens, so the state stores no hidden
order at all. DERIVED fields are recomputed from the districts after every placement.
"""

from __future__ import annotations

from meeple.envs.base import BOOL, HIDDEN, I8, I16, I32, I64, PRIVATE, Field, state_classes  # noqa: F401
from meeple.envs.carpe_diem.data import (
    ADMINISTRATOR_STEPS, BAKER_BREAD, BAKERY_BREAD, BANDEROLES_PER_BOARD, CARD_GAIN, CARD_RED, CENTRE_BAKERY,
    CENTRE_MARKET, DEPOT_SLOTS, DISPLAY_SLOTS, FAIL_VP, FOUNTAIN_COPIES, GAIN_BREAD, GAIN_COIN, GAIN_STEP, GAIN_VP,
    LABEL_FEATURE, MARKET_COINS, MAX_UNITS, MERCHANT_BONUS_COINS, NUM_BOARDS, NUM_CARD_SLOTS, NUM_CARDS,
    NUM_CELLS, NUM_CIRCLE_SPACES, NUM_DECISIONS, NUM_FEATURES, NUM_FOUNTAIN_KINDS, NUM_FRAME_PARTS,
    NUM_GOODS, NUM_PHASES, NUM_PORTS, NUM_SPACES, NUM_TILES, ROUNDS_PER_PHASE, SEGMENT_ROOT, START_VP,
    TASKS_PER_PLAYER, TILE_CENTRE, TILE_CHIMNEYS, TILE_PORTS, TRACK_END, VILLA_VP,
)
import numpy as np

# tile locations (s.tile_loc)
LOC_SUPPLY, LOC_DEPOT, LOC_DISPLAY, LOC_PENDING, LOC_PLACED, LOC_STORED, LOC_REMOVED = range(7)
LOC_NAMES = ("supply", "depot", "display", "pending", "placed", "stored", "removed")
NUM_LOCS = len(LOC_NAMES)

# --- reachable maxima of the counters ------------------------------------------------------------------
# The field table below bounds every counter by the most the rules can produce in one game; validate
# (the history invariants of invariants.py) checks the same sums against what a position has actually built
# and scored so far, so an accepted counter can never outgrow its bound (nor int16) later in the game.


def _best_district(per_tile: np.ndarray) -> int:
    """The largest sum of a per-tile quantity over the at most NUM_CELLS tiles of one district."""
    return int(np.sort(per_tile)[::-1][:NUM_CELLS].sum())


# landscape sections per tile and kind: ports of one kind at one corner form one section
LAND_SECTIONS = np.array([[len({int(SEGMENT_ROOT[t, q]) for q in range(NUM_PORTS) if LABEL_FEATURE[TILE_PORTS[t, q]] == g})
                           for g in range(NUM_GOODS)] for t in range(NUM_TILES)], dtype=np.int64)
# Goods come only from completed landscapes, tiles - 1 per instance; instances are
# disjoint sets of sections, so a district's goods of one kind (or of all kinds) stay below its sections.
GOODS_KIND_MAX = max(_best_district(LAND_SECTIONS[:, g]) for g in range(NUM_GOODS))
GOODS_MAX = _best_district(LAND_SECTIONS.sum(axis=1))
CHIMNEYS_MAX = _best_district(TILE_CHIMNEYS.astype(np.int64))
assert (VILLA_VP <= 2 * np.arange(len(VILLA_VP))).all()  # so completed villas give at most 2 VP per chimney
VILLA_VP_MAX = 2 * CHIMNEYS_MAX
STORED_MAX = NUM_PHASES * ROUNDS_PER_PHASE + DISPLAY_SLOTS  # one depot tile per turn + every display tile
# A player resolves 2 cards per scoring round. A card counts units + 3-bread payments:
# red units and bread payments are at most MAX_UNITS (the cap of the COUNT_k actions), green units are the
# natural ones, stored capped at 127 (the units field).
CARDS_PER_PLAYER = 2 * NUM_PHASES
GREEN_UNITS_MAX = 127
CARD_TOTAL_MAX = np.where(CARD_RED, MAX_UNITS, GREEN_UNITS_MAX).astype(np.int64) + MAX_UNITS
CARD_GAIN_MAX = (CARD_GAIN.astype(np.int64) * CARD_TOTAL_MAX[:, None]).max(axis=0)  # per card, by GAIN_*
# VP and banderole steps together: a step beyond the end of the track is a VP
CARD_VP_STEPS_MAX = int(((CARD_GAIN[:, GAIN_VP].astype(np.int64) + CARD_GAIN[:, GAIN_STEP]) * CARD_TOTAL_MAX).max())
NUM_MARKETS = int((TILE_CENTRE == CENTRE_MARKET).sum())
NUM_BAKERIES = int((TILE_CENTRE == CENTRE_BAKERY).sum())
# completed lodgings of one kind are at most NUM_CELLS (the `completed` range)
COINS_MAX = (GOODS_MAX + NUM_CELLS * MERCHANT_BONUS_COINS + NUM_MARKETS * MARKET_COINS
             + CARDS_PER_PLAYER * int(CARD_GAIN_MAX[GAIN_COIN]))  # merchants turn goods into coins, +1 each
BREAD_MAX = NUM_BAKERIES * BAKERY_BREAD + NUM_CELLS * BAKER_BREAD + CARDS_PER_PLAYER * int(CARD_GAIN_MAX[GAIN_BREAD])
STEPS_MAX = BANDEROLES_PER_BOARD + NUM_CELLS * ADMINISTRATOR_STEPS  # banderole cells, administrators
VP_MAX = int(START_VP.max()) + STEPS_MAX + CARDS_PER_PLAYER * CARD_VP_STEPS_MAX
VP_MIN = int(START_VP[START_VP > 0].min()) - CARDS_PER_PLAYER * FAIL_VP  # every card failed
assert max(COINS_MAX, BREAD_MAX, VP_MAX, -VP_MIN) < np.iinfo(np.int16).max  # int16 suffices

FIELDS = (
    # --- flow (public) ---
    Field("to_play", (), I8, 0, "P-1", doc="seat that decides now"),
    Field("done", (), BOOL, doc="game over (decision GAME_OVER)"),
    Field("truncated", (), BOOL, 0, 0, doc="always False: every game ends by the rules"),
    Field("decision", (), I8, 0, NUM_DECISIONS - 1, doc="data.DEC_* pending decision"),
    Field("phase", (), I8, 0, NUM_PHASES - 1, doc="phase 0..3 (the major period)"),
    Field("round", (), I8, 0, ROUNDS_PER_PHASE, doc="0..6 turns; 7 = scoring round"),
    Field("turn", (), I8, 0, "P-1", doc="position in the turn order (start spaces, turns) or scoring order"),
    Field("start_player", (), I8, 0, "P-1", doc="this phase's start player"),
    Field("tile_pending", (), I8, -1, NUM_TILES - 1, doc="tile being built (decision PLACE), -1"),
    Field("craft_pending", (), I8, 0, 4 * DISPLAY_SLOTS, doc="craftsman display picks still owed this turn"),
    Field("fountain_drawn", (2,), I8, -1, NUM_FOUNTAIN_KINDS - 1, PRIVATE,
          "kinds of the 2 fountain cards drawn by to_play, -1"),
    Field("score_order", ("P",), I8, 0, "P-1", doc="seats in this scoring round's order"),
    Field("cur_space", (), I8, -1, NUM_CIRCLE_SPACES - 1, doc="circle space being resolved, -1"),
    Field("card_seq", (), I8, 0, 1, doc="0 = first card of the scoring turn, 1 = second"),
    Field("first_high", (), BOOL, doc="the higher-numbered slot's card is resolved first"),
    Field("units", (), I8, 0, 127, doc="units of the current card (chosen for red, natural for green)"),
    # --- central board (public) ---
    Field("patrician", ("P",), I8, -1, NUM_SPACES - 1, doc="circle space 0..6, -1 before the start placement"),
    Field("depot", (NUM_SPACES, DEPOT_SLOTS), I8, -1, NUM_TILES - 1, doc="tile id per depot slot, -1 empty"),
    Field("display", (DISPLAY_SLOTS,), I8, -1, NUM_TILES - 1, doc="bottom display tile ids, -1 taken"),
    Field("tile_loc", (NUM_TILES,), I8, 0, NUM_LOCS - 1, doc="where every tile is (LOC_*)"),
    Field("card_slot", (NUM_CARD_SLOTS,), I8, -1, NUM_CARDS - 1, doc="scoring card per slot, -1 unused"),
    Field("circle_owner", (NUM_CIRCLE_SPACES,), I8, -1, "P-1", doc="seat whose scoring disc is on the space, -1"),
    Field("circle_phase", (NUM_CIRCLE_SPACES,), I8, -1, NUM_PHASES - 1, doc="phase the disc was placed in, -1"),
    # --- per player ---
    Field("board", ("P",), I8, 0, NUM_BOARDS - 1, doc="building board 0..3"),
    Field("frame", ("P", 4), I8, 0, NUM_FRAME_PARTS - 1, doc="frame part on sides N, E, S, W"),
    Field("cell_tile", ("P", NUM_CELLS), I8, -1, NUM_TILES - 1, doc="tile id per cell, -1 empty"),
    Field("cell_rot", ("P", NUM_CELLS), I8, 0, 3, doc="clockwise quarter turns of the tile, 0 for empty cells"),
    Field("goods", ("P", NUM_GOODS), I16, 0, GOODS_KIND_MAX, doc="grapes, herbs, chickens, fish"),
    Field("coins", ("P",), I16, 0, COINS_MAX),
    Field("bread", ("P",), I16, 0, BREAD_MAX),
    Field("stored", ("P",), I8, 0, STORED_MAX, doc="tiles stored face down"),
    Field("vp", ("P",), I16, VP_MIN, VP_MAX, doc="VP cards: start VP +- scoring rounds + excess track steps"),
    Field("track", ("P",), I8, 0, TRACK_END, doc="banderole-track space"),
    Field("height", ("P",), I8, 0, "P-1", doc="position in the stack on that space, 0 = bottom"),
    Field("task_done", ("P", TASKS_PER_PLAYER), BOOL, doc="frame task 2 * side + j satisfied; DERIVED"),
    Field("completed", ("P", NUM_FEATURES), I8, 0, NUM_CELLS, doc="completed instances per feature kind; DERIVED"),
    Field("chimneys", ("P",), I16, 0, CHIMNEYS_MAX, doc="chimneys in all villas, complete or not; DERIVED"),
    Field("villa_vp", ("P",), I16, 0, VILLA_VP_MAX, doc="VP of the completed villas; DERIVED"),
    Field("fountain_hand", ("P", NUM_FOUNTAIN_KINDS), I8, 0, FOUNTAIN_COPIES, PRIVATE,
          "fountain cards per kind (the count is public)"),
    Field("fountain_returned", ("P", NUM_FOUNTAIN_KINDS), I8, 0, FOUNTAIN_COPIES, PRIVATE,
          "cards this player returned to the bottom of the deck"),
)

# written by kernels.observe_row, in this order
VIEW_FIELDS = (
    Field("own_hand", (NUM_FOUNTAIN_KINDS,), I8, doc="the viewer's fountain cards per kind"),
    Field("own_returned", (NUM_FOUNTAIN_KINDS,), I8,
          doc="kinds the viewer returned (it saw them; they lie below every drawable card)"),
    Field("own_drawn", (2,), I8, doc="the viewer's own pending draw, -1 otherwise"),
    Field("fountain_count", ("P",), I8, doc="fountain cards held (public count)"),
    Field("score", ("P",), I16, doc="Yucata's public running score"),
)

NUM_NODES = NUM_CELLS * NUM_PORTS  # union-find nodes: 8 * cell + port
# work buffer layout (int32)
W_PARENT = 0
W_OPEN = W_PARENT + NUM_NODES
W_CHIM = W_OPEN + NUM_NODES
W_NEW_KIND = W_CHIM + NUM_NODES  # (12) instances of each kind the new tile completed
W_NEW_GOODS = W_NEW_KIND + NUM_FEATURES  # (4) goods its completed landscapes give (tiles - 1)
W_LIST = W_NEW_GOODS + NUM_GOODS  # (>= 123) general list (deal, shuffles, fountain pool)
W_LIST2 = W_LIST + 128
W_VISIT = W_LIST2 + 128  # (288) flood-fill visit stamps (node visited iff == work[W_GEN])
W_STACK = W_VISIT + NUM_NODES  # (288) flood-fill stack
W_GEN = W_STACK + NUM_NODES  # (1) current flood-fill generation
WORK_SIZE = W_GEN + 1

# the kernels' scratch arrays, passed by name to the row functions and invariants that name them (envs/codegen.py)
SCRATCH = (
    Field("work", (WORK_SIZE,), I32, doc="union-find, lists and flood fill (W_* offsets)"),
    Field("cellmask", (NUM_NODES,), I64, doc="cell bit masks per union-find root"),
    Field("completed", (NUM_FEATURES,), I64, doc="validate: recomputed completed counts"),
    Field("task_done", (TASKS_PER_PLAYER,), BOOL, doc="validate: recomputed frame tasks"),
    Field("chimneys", (1,), I64, doc="validate: recomputed chimneys"),
    Field("villa_vp", (1,), I64, doc="validate: recomputed villa VP"),
    Field("stream", (1,), np.uint64, doc="determinize: splitmix64 stream"),
)

CLASSES = state_classes(FIELDS, VIEW_FIELDS, SCRATCH)
State, View, Scratch = CLASSES.State, CLASSES.View, CLASSES.Scratch
