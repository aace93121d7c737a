"""Utopia's field table: every state field once (shape, dtype, range, visibility, meaning), the extra
View fields the observe kernel writes, and the named scratch arrays of the kernels.

Hidden information (rules, "what players see"): the composition of every hand and of the draw pile.
The number of cards each player holds and the draw-pile size are public, the discard pile lies face
up. No random order is stored: cards are drawn from the pile's composition when they are dealt, and
the guest bag is always "every guest of the islands in play" when it is drawn from (all guests return
at the end of Phase 1), so the next guests and the next cards are never in the state.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.base import BOOL, HIDDEN, I8, I16, I32, PRIVATE, Field, state_classes
from meeple.envs.utopia.data import (
    CARDS_PER_CIV, GUESTS_PER_KIND, MAX_HAND, MAX_ROUNDS, NUM_ACTIONS, NUM_CIVS, NUM_DECISIONS, NUM_DISTRICTS, NUM_GAIN_KINDS,
    NUM_ISLANDS, NUM_PHASES, PICK_PASSES, PRINCES_PER_CIV, PRIVILEGES, SCALE_MAX,
)

# Scores and arrival stamps only grow. Their ranges are generous (a game ends after the round in which
# somebody reached 50, or is truncated after round 40); validate ties them to their sources instead
# (the score is the sum of the recorded gains, the stamp counter is one past the latest stamp), so a
# loaded value cannot drift out of range later in the game.
SCORE_MAX = 20000
STAMP_MAX = 1_000_000

FIELDS = (
    # --- flow (public) ---
    Field("to_play", (), I8, 0, "P-1", doc="seat that decides now"),
    Field("done", (), BOOL, doc="game over (decision GAME_OVER)"),
    Field("truncated", (), BOOL, doc="the game was stopped after round 40 (the safety cap), not by the rules"),
    Field("decision", (), I8, 0, NUM_DECISIONS - 1, doc="data.DEC_* pending decision"),
    Field("round", (), I8, 1, MAX_ROUNDS, doc="round 1..40 (the major period)"),
    Field("phase", (), I8, 0, NUM_PHASES - 1, doc="0 welcoming the princes, 1 development, 2 prestige (only once done)"),
    Field("pick_pass", (), I8, 0, PICK_PASSES - 1, doc="Phase 1 pass 0..2"),
    Field("acted", ("P",), BOOL, doc="has started his pick in this pass (Phase 1) / his turn in this phase (Phase 2)"),
    Field("start_player", (), I8, 0, "P-1", doc="first in the turn order of this round (first pick of pass 1)"),
    Field("owed", ("P",), I8, 0, MAX_HAND - 1, doc="discards still owed (rank discards, hand limit)"),
    Field("wonder_island", (), I8, -1, NUM_ISLANDS - 1, doc="wonder removal: the island, -1"),
    Field("wonder_civ", (), I8, -1, NUM_CIVS - 1, doc="wonder removal: the civilization to remove, -1"),
    Field("convert_from", (), I8, -1, NUM_CIVS - 1, doc="privilege conversion: civilization of the converted card, -1"),
    Field("convert_to", (), I8, -1, NUM_CIVS - 1, doc="privilege conversion: the civilization it counts as, -1"),
    # --- board (public) ---
    Field("princes", ("P", NUM_CIVS, NUM_DISTRICTS), I8, 0, PRINCES_PER_CIV, doc="princes per player, civilization, district"),
    Field("mon_civ", (NUM_DISTRICTS,), I8, -1, NUM_CIVS - 1, doc="civilization of the district's monument, -1 none"),
    Field("mon_owner", (NUM_DISTRICTS,), I8, -1, "P-1", doc="seat controlling the district (its monument's base), -1"),
    Field("wonder_owner", (NUM_ISLANDS,), I8, -1, "P-1", doc="seat owning the island's wonder, -1"),
    Field("scale", (NUM_CIVS,), I8, 1, SCALE_MAX, doc="prestige scale: current value 1..5 of each civilization"),
    Field("display", (NUM_ISLANDS, NUM_CIVS), I8, 0, GUESTS_PER_KIND, doc="guest tokens by each island's ship"),
    Field("discard", (NUM_CIVS,), I8, 0, CARDS_PER_CIV, doc="face-up discard pile per civilization"),
    # --- players (public) ---
    Field("score", ("P",), I16, 0, SCORE_MAX, doc="prestige points (the score track)"),
    Field("gains", ("P", NUM_GAIN_KINDS), I16, 0, SCORE_MAX, doc="points by source (data.GAIN_*); they sum to score"),
    Field("stamp", ("P",), I32, 0, STAMP_MAX, doc="arrival stamp on the score track: lower = reached the space first"),
    Field("stamp_counter", (), I32, 2, STAMP_MAX, doc="the next arrival stamp (one past the latest)"),
    Field("privileges", ("P",), I8, 0, PRIVILEGES, doc="privilege tokens left"),
    Field("hand_size", ("P",), I8, 0, MAX_HAND, doc="cards held (public count)"),
    # --- hidden ---
    Field("hand", ("P", NUM_CIVS), I8, 0, MAX_HAND, PRIVATE, "action cards held per civilization"),
    Field("pile", (NUM_CIVS,), I8, 0, CARDS_PER_CIV, HIDDEN, "draw pile composition (its order is drawn when dealt)"),
)

# written by kernels.observe_row, in this order
VIEW_FIELDS = (
    Field("own_hand", (NUM_CIVS,), I8, doc="the viewer's action cards per civilization"),
    Field("pile_size", (), I8, doc="cards in the draw pile"),
    Field("unseen", (NUM_CIVS,), I8, doc="cards per civilization the viewer cannot see (others' hands and the pile)"),
)

# work buffer layout (int32)
W_ORDER = 0  # (5) seats in ranking order
W_LIST = W_ORDER + 8  # (64) card pool (init, determinize)
W_SAVE = W_LIST + 64  # (30) determinize: the true hidden cards, kept in case no resample fits
WORK_SIZE = W_SAVE + 32

# the kernels' scratch arrays, passed by name to the row functions and invariants that name them (envs/codegen.py)
SCRATCH = (
    Field("work", (WORK_SIZE,), I32, doc="ranking order and pools (W_* offsets)"),
    Field("actor_mask", (NUM_ACTIONS,), BOOL, doc="the legal actions of the actor (forced moves, validate)"),
    Field("stream", (1,), np.uint64, doc="determinize: splitmix64 stream"),
)

CLASSES = state_classes(FIELDS, VIEW_FIELDS, SCRATCH)
State, View, Scratch = CLASSES.State, CLASSES.View, CLASSES.Scratch
