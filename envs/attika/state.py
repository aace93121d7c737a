"""Attika's field table: every state field once (shape, dtype, range, visibility, meaning), the extra
View fields the observe kernel writes, and the named scratch arrays of the kernels.

The map is a 25 x 25 array of window slots (data.NUM_SLOTS) holding what covers each hex (`land`), the
building on it (`owner`, `building`) and its settlement. Hidden information (rules section on what
players see) is only the landscape cards: every hand is its owner's secret and the draw pile's
contents are nobody's. Face-down stacks (buildings, tiles) are stored as what they still contain:
nobody, the owner included, knows their order or which of stacks 1-3 holds which building, so the next
building (or tile) is a uniform draw from the contents when it is revealed, and the state holds no
hidden order at all. DERIVED fields are recomputed from the map by `advance` and checked by `validate`.

A row is kept small because large batches are bound by memory: the own building types next to a field
(the building-order test of the masks) are read from its six neighbours when needed rather than stored per
seat and hex (P x 625 int32, once half of a row), and batched kernels prefetch the next row's map.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.attika.data import (
    AMPHORAE, BUILDINGS_PER_PLAYER, CARDS_PER_LANDSCAPE, COPIES, COST, NUM_DECISIONS, NUM_GROUPS, NUM_LAND,
    NUM_LANDSCAPES, NUM_SLOTS, NUM_STACKS, NUM_TILES, NUM_TYPES, ROAD_COST, ROTATIONS, STACK_SIZE,
)
from meeple.envs.base import BOOL, HIDDEN, I8, I16, I64, PRIVATE, Field, state_classes

# Explicit payment queues: the specific cards of one type a building can owe, the any-card units (a road
# with no symbol around it plus one card per own settlement, at most one per building) and the
# two-for-one substitutes of the largest specific cost.
MAX_SPECIFIC = int(COST.max())
PAY_ANY_MAX = ROAD_COST + BUILDINGS_PER_PLAYER
PAY_FRONT_MAX = 2 * int(COST.sum(axis=1).max())

FIELDS = (
    # --- flow (public) ---
    Field("to_play", (), I8, 0, "P-1", doc="seat that decides now"),
    Field("done", (), BOOL, doc="game over (decision GAME_OVER): a win or the round cap"),
    Field("truncated", (), BOOL, doc="ended by the round cap (a draw for everyone)"),
    Field("decision", (), I8, 0, NUM_DECISIONS - 1, doc="data.DEC_* pending decision"),
    Field("winner", (), I8, -1, "P-1", doc="the seat that won, -1"),
    Field("round", (), I16, 0, None, doc="complete rounds played (every seat has had its turn)"),
    Field("start_player", (), I8, 0, "P-1", doc="seat of the start player"),
    Field("mode", (), I8, 0, 2, doc="this turn's mode: data.MODE_NONE / MODE_REVEAL / MODE_BUILD"),
    Field("actions_left", (), I8, 0, 3, doc="reveals or builds left of the turn's allowance (0 before the mode)"),
    Field("pending_type", (), I8, -1, NUM_TYPES - 1,
          doc="revealed building awaiting its decision, type chosen for a build, or building being paid; -1"),
    Field("pending_slot", (), I16, -1, NUM_SLOTS - 1, doc="centre chosen for the face-up tile, or site being paid; -1"),
    Field("tile_up", (), I8, -1, NUM_TILES - 1, doc="face-up tile to place (PLACE_TILE, CHOOSE_ROTATION), -1"),
    Field("extend_pending", (), BOOL, doc="the last reveal emptied a stack: a tile is drawn once it is resolved"),
    Field("pay_front", (), I8, 0, PAY_FRONT_MAX, doc="explicit payment: any-card units queued first (substitutes)"),
    Field("pay_spec", (NUM_LANDSCAPES,), I8, 0, MAX_SPECIFIC, doc="explicit payment: specific units still owed, W F H M"),
    Field("pay_any", (), I8, 0, PAY_ANY_MAX, doc="explicit payment: any-card units owed after the specific ones"),
    # --- the map (public) ---
    Field("land", (NUM_SLOTS,), I8, 0, NUM_LAND - 1,
          doc="what covers the hex: 0 nothing, 1 blank field, 2-5 field with symbol W F H M, 6-9 shrine 0-3"),
    Field("owner", (NUM_SLOTS,), I8, -1, "P-1", doc="seat whose building stands on the field, -1"),
    Field("building", (NUM_SLOTS,), I8, -1, NUM_TYPES - 1, doc="building type on the field, -1"),
    Field("settlement", (NUM_SLOTS,), I16, -1, NUM_SLOTS - 1,
          doc="settlement of the building: the lowest slot of its connected own group, -1; DERIVED"),
    Field("settlement_shrines", (NUM_SLOTS,), I8, 0, 15, doc="bit set of shrines the building's settlement touches; DERIVED"),
    Field("sigma", (NUM_SLOTS,), I16, 0, 4095,
          doc="landscape symbols on the hex and its neighbours that hold no building, 3 bits per type W F H M "
              "(the cost reduction of a building there); DERIVED"),
    Field("tile_state", (NUM_TILES,), I8, 0, 3, doc="data.TILE_STACK / TILE_UP / TILE_PLACED / TILE_REMOVED"),
    Field("tile_centre", (NUM_TILES,), I16, -1, NUM_SLOTS - 1, doc="slot of a placed tile's centre, -1"),
    Field("tile_rot", (NUM_TILES,), I8, 0, ROTATIONS - 1, doc="rotation of a placed tile (0 otherwise)"),
    # --- per player ---
    Field("hand", ("P", NUM_LANDSCAPES), I8, 0, CARDS_PER_LANDSCAPE, PRIVATE, "landscape cards per type W F H M"),
    Field("display", ("P", NUM_TYPES), I8, 0, int(COPIES.max()), doc="revealed buildings waiting on the display board"),
    Field("stack_size", ("P", NUM_STACKS), I8, 0, int(STACK_SIZE.max()),
          doc="face-down buildings per stack (0 = main buildings)"),
    Field("amphorae", ("P",), I8, 0, AMPHORAE),
    Field("rewarded", ("P", NUM_GROUPS), BOOL, doc="the group has earned its amphora"),
    Field("built", ("P", NUM_TYPES), I8, 0, int(COPIES.max()), doc="buildings on the map per type; DERIVED"),
    Field("placed", ("P",), I8, 0, BUILDINGS_PER_PLAYER, doc="buildings on the map; DERIVED"),
    Field("settlements", ("P",), I8, 0, BUILDINGS_PER_PLAYER, doc="own settlements on the map; DERIVED"),
    # --- supplies ---
    Field("amphora_supply", (), I8, 0, AMPHORAE),
    Field("draw_pile", (NUM_LANDSCAPES,), I8, 0, CARDS_PER_LANDSCAPE, HIDDEN, "face-down landscape cards per type"),
    Field("discard", (NUM_LANDSCAPES,), I8, 0, CARDS_PER_LANDSCAPE, doc="face-up discard pile per type"),
)

# written by kernels.observe_row, in this order
VIEW_FIELDS = (
    Field("own_hand", (NUM_LANDSCAPES,), I8, doc="the viewer's landscape cards per type"),
    Field("hand_size", ("P",), I8, doc="cards held by every seat (public count)"),
    Field("draw_size", (), I8, doc="cards in the draw pile"),
)

# the kernels' scratch arrays, passed by name to the row functions and invariants that name them (envs/codegen.py)
SCRATCH = (
    Field("stream", (1,), np.uint64, doc="splitmix64 stream of the row's chance events"),
    Field("queue", (NUM_SLOTS,), I16, doc="flood fill: slots to visit"),
    Field("label", (NUM_SLOTS,), I16, doc="validate: recomputed settlements; group check: visit marks"),
    Field("bits", (NUM_SLOTS,), I8, doc="validate: recomputed settlement shrines"),
    Field("counts", (NUM_TYPES,), I64,
          doc="validate: per-type tallies; determinize: the card pool (0-3), real hands (4-19) and pile (20-23)"),
)

CLASSES = state_classes(FIELDS, VIEW_FIELDS, SCRATCH)
State, View, Scratch = CLASSES.State, CLASSES.View, CLASSES.Scratch
