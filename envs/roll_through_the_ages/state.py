"""Roll Through the Ages' field table: every state field once (shape, dtype, range, meaning) and the
named scratch arrays of the kernels.

Nothing is hidden in this game: every field is PUBLIC, so a seat's View is the whole state plus the
viewer, and `determinize` returns a copy. Ranges here are the per-field bounds; the checks that need
the configuration or other fields (goods per track, monuments in play, marked food) are in
`rules.RollThroughTheAges.validate_rules`.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.base import BOOL, I8, I16, I64, Field, state_classes
from meeple.envs.roll_through_the_ages.data import (
    CITY_WORKERS_MAX, FOOD_MAX, GOODS_MAX, MAX_DICE, MAX_ROLLS, MONUMENT_WORKERS, NUM_DECISIONS, NUM_DEVELOPMENTS,
    NUM_GOODS, NUM_MONUMENTS, NUM_TRADE_TYPES,
)

FIELDS = (
    Field("to_play", (), I8, 0, "P-1", doc="seat that decides now: the active seat, or a trade partner"),
    Field("active", (), I8, 0, "P-1", doc="seat whose turn it is"),
    Field("start_player", (), I8, 0, "P-1", doc="seat that starts every round"),
    Field("decision", (), I8, 0, NUM_DECISIONS - 1, doc="data.DEC_* pending decision"),
    Field("round", (), I16, 1, None, doc="round number, 1-based (the major period)"),
    Field("final_round", (), BOOL, doc="the end was triggered; the game ends after this round"),
    Field("done", (), BOOL, doc="the game is over (terminated or truncated)"),
    Field("truncated", (), BOOL, doc="ended by the round limit, not by the rules"),
    Field("completed_by_anyone", (NUM_MONUMENTS,), BOOL, doc="monument m was completed by some player"),
    Field("food", ("P",), I8, 0, FOOD_MAX),
    Field("goods", ("P", NUM_GOODS), I8, 0, int(GOODS_MAX.max()), doc="wood..spearheads, each up to its track maximum"),
    Field("city_workers", ("P",), I8, 0, CITY_WORKERS_MAX, doc="cities = 3 + thresholds {3, 7, 12, 18} reached"),
    Field("monument_progress", ("P", NUM_MONUMENTS), I8, 0, int(MONUMENT_WORKERS.max()), doc="boxes filled"),
    Field("monument_points", ("P", NUM_MONUMENTS), I8, 0, None, doc="first/later value recorded at completion, else 0"),
    Field("developments", ("P", NUM_DEVELOPMENTS), BOOL, doc="owned"),
    Field("disasters", ("P",), I16, 0, None, doc="disaster points (each -1 at the end)"),
    Field("dice", (MAX_DICE,), I8, -1, 5, doc="face 0..5 of the active player's dice, -1 = no die"),
    Field("marked", (MAX_DICE,), BOOL, doc="marked for the next reroll"),
    Field("rolls_used", (), I8, 0, MAX_ROLLS),
    Field("leadership_used", (), BOOL),
    Field("fw_choice", (MAX_DICE,), I8, 0, 2, doc="per food-or-workers die: 0 undecided, 1 food, 2 workers"),
    Field("workers", (), I8, 0, None, doc="workers left to place this turn"),
    Field("coins", (), I16, 0, None, doc="coins rolled this turn"),
    Field("marked_goods", (NUM_GOODS,), BOOL, doc="goods tracks marked as payment"),
    Field("marked_food", (), I8, 0, FOOD_MAX, doc="food marked as payment (Granaries)"),
    Field("bought", (), I8, -1, NUM_DEVELOPMENTS - 1, doc="development bought this turn, -1 none"),
    Field("trade_partner", (), I8, -1, "P-1", doc="seat of the open offer's partner, -1 none"),
    Field("offer_give", (NUM_TRADE_TYPES,), I8, 0, None, doc="units the active player offers (5 goods, food)"),
    Field("offer_take", (NUM_TRADE_TYPES,), I8, 0, None, doc="units the active player asks for"),
    Field("trade_offers", (), I8, 0, None, doc="offers made this turn"),
)

VIEW_FIELDS: tuple[Field, ...] = ()  # nothing is hidden: a View is the viewer plus every field

# the kernels' scratch arrays, passed by name to the row functions that name them (envs/codegen.py)
SCRATCH = (
    Field("cursor", (1,), I64, doc="next column of u to read"),
    Field("stream", (1,), np.uint64, doc="fallback splitmix64 stream once u runs out"),
)

CLASSES = state_classes(FIELDS, VIEW_FIELDS, SCRATCH)
State, View, Scratch = CLASSES.State, CLASSES.View, CLASSES.Scratch
