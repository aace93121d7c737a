"""Observation encoder for Utopia.

Built from the rules' `View` only (what one player may see), so it cannot leak hidden information.
Per-seat blocks are seat-major (5, ...): slot 0 is the viewer, slot k the player k seats clockwise;
slots beyond the player count are zero. The board is one graph-friendly block `districts` (24 rows,
one per district, the same features in every row: island, printed value, ship and sector, whether it
is in play, the monument's civilization and owner, and the princes per civilization of every seat,
self first), so a graph or set network can read it row by row; the alleys, bridges and sea routes are
static (data.LAND_EDGES, data.SEA_ROUTES). Counts are scaled into [0, 1], scores by 1/50 and clipped
to 4. One numba kernel writes a row, every block at its offset in BLOCKS, by block name (`AT.<block>`);
supplies, bases, ranking positions and what monuments pay are the rules' own helpers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.encoders.base import Encoder, block_offsets, seat_flags, seat_of
from meeple.envs.jit import kernel
from meeple.envs.utopia import kernels as K
from meeple.envs.utopia.data import (
    BASES, CARDS_PER_CIV, DISTRICT_IN_PLAY, DISTRICT_ISLAND, DISTRICT_SEA, DISTRICT_SECTOR, DISTRICT_VALUE,
    HAND_LIMIT, ISLAND_IN_PLAY, MAX_HAND, MAX_PLAYERS, MAX_ROUNDS, MONUMENTS_PER_CIV, NUM_CARDS, NUM_CIVS,
    NUM_DECISIONS, NUM_DISTRICTS, NUM_ISLANDS, NUM_PHASES, NUM_SECTORS, PICK_PASSES, PRINCES_PER_CIV, PRIVILEGES,
    SCALE_MAX,
)

SEATS = MAX_PLAYERS
HIGH = 4.0
SCORE_SCALE = 50.0
PRESTIGE_SCALE = 40.0

# per-district features (the rows of the `districts` block)
F_ISLAND = 0  # 4: one-hot island
F_VALUE = F_ISLAND + NUM_ISLANDS  # 1: printed value / 4
F_SEA = F_VALUE + 1  # 1: shows a ship
F_SECTOR = F_SEA + 1  # 4: one-hot sea sector (ship districts)
F_IN_PLAY = F_SECTOR + NUM_SECTORS  # 1
F_MON_CIV = F_IN_PLAY + 1  # 5: one-hot civilization of the monument
F_MON_OWNER = F_MON_CIV + NUM_CIVS  # 5: one-hot owner by relative seat
F_PRINCES = F_MON_OWNER + SEATS  # 5 x 5: princes / 8 per relative seat and civilization
DISTRICT_FEATURES = F_PRINCES + SEATS * NUM_CIVS

SEAT_BLOCKS: list[tuple[str, tuple[int, ...], str]] = [
    ("present", (SEATS,), "1 if the seat is in the game"),
    ("is_to_play", (SEATS,), "1 for the seat that decides now"),
    ("is_start_player", (SEATS,), "1 for the first player of this round (the start-space rule)"),
    ("score", (SEATS,), "prestige points / 50, clipped to 4"),
    ("rank", (SEATS, MAX_PLAYERS), "one-hot position in the ranking (score, then arrival on the track)"),
    ("acted", (SEATS,), "1 if the seat has picked in this pass / had its turn in this phase"),
    ("supply", (SEATS, NUM_CIVS), "princes per civilization off the board / 8"),
    ("bases_free", (SEATS,), "bases left / 8"),
    ("privileges", (SEATS,), "privilege tokens / 2"),
    ("hand_size", (SEATS,), "cards held / 10"),
    ("owed", (SEATS,), "discards owed / 5"),
    ("prestige_now", (SEATS,), "what the seat's monuments pay at the current scale / 40, clipped to 4"),
]
BLOCKS: list[tuple[str, tuple[int, ...], str]] = SEAT_BLOCKS + [
    ("districts", (NUM_DISTRICTS, DISTRICT_FEATURES),
     "per district: island, value / 4, ship, sector, in play, monument civilization and owner (relative seat), "
     "princes / 8 per relative seat and civilization"),
    ("wonder_owner", (NUM_ISLANDS, SEATS + 1), "per island one-hot: owner by relative seat, or none (last)"),
    ("islands_in_play", (NUM_ISLANDS,), "1 if the island is in play"),
    ("scale", (NUM_CIVS, SCALE_MAX), "per civilization one-hot value 1..5 on the prestige scale"),
    ("monuments_left", (NUM_CIVS,), "monuments still buildable per civilization / 7"),
    ("display", (NUM_ISLANDS, NUM_CIVS), "guests by each island's ship / 2"),
    ("own_hand", (NUM_CIVS,), "the viewer's cards per civilization / 10"),
    ("unseen", (NUM_CIVS,), "cards per civilization the viewer cannot see (other hands, the pile) / 10"),
    ("discard", (NUM_CIVS,), "face-up discard pile per civilization / 10"),
    ("pile_size", (1,), "cards in the draw pile / 50"),
    ("num_players", (4,), "one-hot N = 2..5"),
    ("round", (1,), "round / 40"),
    ("phase", (NUM_PHASES,), "one-hot phase (welcoming, development, prestige)"),
    ("pick_pass", (PICK_PASSES,), "one-hot Phase 1 pass"),
    ("decision", (NUM_DECISIONS,), "one-hot pending decision (data.DEC_*)"),
    ("wonder_pending", (NUM_ISLANDS + NUM_CIVS,), "wonder removal: one-hot island, one-hot civilization"),
    ("convert_pending", (2 * NUM_CIVS,), "privilege conversion: one-hot card civilization, one-hot target"),
]

AT = block_offsets(BLOCKS)  # AT.<block>: the block's first index in a row


@kernel(inline="always")
def _clip(x):
    return HIGH if x > HIGH else (0.0 if x < 0.0 else x)


@kernel
def encode_row(v, b, row):
    """Fill the zeroed observation row of view row b, each block at its BLOCKS offset `AT.<block>`."""
    P = v.score.shape[1]
    me = np.int64(v.viewer[b])  # int64: int8 seats and values join block offsets below
    seat_flags(v, b, row, me, P, SEATS, AT.present, AT.is_start_player, AT.is_to_play)
    for slot in range(P):
        q = seat_of(me, slot, P)
        row[AT.score + slot] = _clip(v.score[b, q] / SCORE_SCALE)
        row[AT.rank + slot * MAX_PLAYERS + np.int64(K.rank_position(v, b, q))] = 1.0
        row[AT.acted + slot] = 1.0 if v.acted[b, q] else 0.0
        for c in range(NUM_CIVS):
            row[AT.supply + slot * NUM_CIVS + c] = K.supply(v, b, q, c) / PRINCES_PER_CIV
        row[AT.bases_free + slot] = (BASES - K.bases_used(v, b, q)) / BASES
        row[AT.privileges + slot] = v.privileges[b, q] / PRIVILEGES
        row[AT.hand_size + slot] = v.hand_size[b, q] / MAX_HAND
        row[AT.owed + slot] = v.owed[b, q] / (MAX_HAND - HAND_LIMIT)
        row[AT.prestige_now + slot] = _clip(K.prestige_of(v, b, q) / PRESTIGE_SCALE)
    # --- the board, one row per district ---
    for d in range(NUM_DISTRICTS):
        base = AT.districts + d * DISTRICT_FEATURES
        row[base + F_ISLAND + DISTRICT_ISLAND[d]] = 1.0
        row[base + F_VALUE] = DISTRICT_VALUE[d] / 4.0
        if DISTRICT_SEA[d]:
            row[base + F_SEA] = 1.0
            row[base + F_SECTOR + DISTRICT_SECTOR[d]] = 1.0
        row[base + F_IN_PLAY] = 1.0 if DISTRICT_IN_PLAY[P, d] else 0.0
        if v.mon_civ[b, d] >= 0:
            row[base + F_MON_CIV + np.int64(v.mon_civ[b, d])] = 1.0
            owner = np.int64(v.mon_owner[b, d])
            row[base + F_MON_OWNER + (owner - me + P) % P] = 1.0
        for slot in range(P):
            q = seat_of(me, slot, P)
            for c in range(NUM_CIVS):
                row[base + F_PRINCES + slot * NUM_CIVS + c] = v.princes[b, q, c, d] / PRINCES_PER_CIV
    for i in range(NUM_ISLANDS):
        w = np.int64(v.wonder_owner[b, i])
        row[AT.wonder_owner + i * (SEATS + 1) + ((w - me + P) % P if w >= 0 else SEATS)] = 1.0
        row[AT.islands_in_play + i] = 1.0 if ISLAND_IN_PLAY[P, i] else 0.0
        for c in range(NUM_CIVS):
            row[AT.display + i * NUM_CIVS + c] = v.display[b, i, c] / 2.0
    for c in range(NUM_CIVS):
        row[AT.scale + c * SCALE_MAX + np.int64(v.scale[b, c]) - 1] = 1.0
        row[AT.monuments_left + c] = (MONUMENTS_PER_CIV - K.monuments_built(v, b, c)) / MONUMENTS_PER_CIV
        row[AT.own_hand + c] = v.own_hand[b, c] / CARDS_PER_CIV
        row[AT.unseen + c] = v.unseen[b, c] / CARDS_PER_CIV
        row[AT.discard + c] = v.discard[b, c] / CARDS_PER_CIV
    row[AT.pile_size] = v.pile_size[b] / NUM_CARDS
    row[AT.num_players + P - 2] = 1.0
    row[AT.round] = v.round[b] / MAX_ROUNDS
    row[AT.phase + np.int64(v.phase[b])] = 1.0
    row[AT.pick_pass + np.int64(v.pick_pass[b])] = 1.0
    row[AT.decision + np.int64(v.decision[b])] = 1.0
    if v.wonder_island[b] >= 0:
        row[AT.wonder_pending + np.int64(v.wonder_island[b])] = 1.0
    if v.wonder_civ[b] >= 0:
        row[AT.wonder_pending + NUM_ISLANDS + np.int64(v.wonder_civ[b])] = 1.0
    if v.convert_from[b] >= 0:
        row[AT.convert_pending + np.int64(v.convert_from[b])] = 1.0
    if v.convert_to[b] >= 0:
        row[AT.convert_pending + NUM_CIVS + np.int64(v.convert_to[b])] = 1.0


class UtopiaEncoder(Encoder):
    """Flat float32 vector of named blocks (see BLOCKS); self first, padded to 5 seats."""

    name = "utopia_flat"
    blocks = BLOCKS
    seat_blocks = tuple(name for name, _, _ in SEAT_BLOCKS)
    low = 0.0
    high = HIGH
    row = "encode_row"


def make_encoder(game: Any) -> UtopiaEncoder:
    """The default encoder for a configured game."""
    return UtopiaEncoder(game)


DEFAULT = UtopiaEncoder  # construct with the configured game: DEFAULT(game)

