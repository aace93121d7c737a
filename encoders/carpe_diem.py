"""Observation encoders for Carpe Diem: two flat vectors and spatial planes.

Everything is built from the rules' `View` only (what one player may see: the public board and the
viewer's own fountain cards), so nothing can leak hidden information. Per-seat blocks are seat-major
(4, ...): slot 0 is the viewer, slot k the player k seats clockwise (to its left); slots beyond the
player count are zero. Values are scaled into [0, 1] (counts by a typical maximum, then clipped);
only `score` and `vp_cards` can be negative (clipped to [-1, 1]).

Two kinds, chosen by name with `make_encoder(game, kind)` (`ENCODERS`; the AEC env's `encoder=`):

- "compact" (`CompactEncoder`, the default, 3,231 values, COMPACT_BLOCKS): a tile is the 12-value CODE:
  its 8 port labels / 9 (data.LABEL_CHARS order: 0 meadow, 1 villa, 2..5 lodging halves m b a c, 6..9
  landscapes W G H P; port q clockwise from the N side's west half, after the tile's rotation), one-hot
  centre market / bakery / fountain, and `tile` = (1 + chimneys) / 5 (0 for an empty cell or slot, so it
  doubles as the occupied / present flag). District cells, depot and display slots use it. Frame tasks
  are the frame part per side (one-hot; data.FRAME_TASKS gives its tasks) plus the satisfied flags; the
  shovel and banderole cells follow from the one-hot building board (data.BOARD_SHOVEL /
  BOARD_BANDEROLE; a banderole is still there while its cell is empty). The pending tile is rich (the
  full kind's TILE_FEAT, unturned: its rotations are permutations of it). Scoring cards are a 20-value
  code (red, requirement per unit, gain per unit), circle spaces the relative owner and placing phase.
  Every output element is written by the kernel (it does not rely on the zeroed row; the disc counts and the
  26 supply sums are accumulated in place), with few data-dependent branches (across rows they mispredict,
  which costs more than the arithmetic).
- "full" (`FullEncoder`, 12,796 values, FULL_BLOCKS): every tile one-hot (TILE_FEAT = 56 values): villa
  on side N, E, S, W (0..3; villa ports fill whole sides), lodging half on side s of kind m, b, a,
  c (4 + 4 s + kind), landscape at port q of kind W, G, H, P (20 + 4 q + kind), centre market, bakery,
  fountain (52..54), chimneys / 4 (55). A district cell adds occupied, banderole (still on the cell),
  shovel and frontier (empty and a legal target by contact: next to a tile, or the shovel while it is
  empty): CELL_FEAT = 60 values per cell. The pending tile in all 4 rotations, frame tasks by kind,
  line, VP and satisfied flag, scoring cards by 25 features and a 123-flag supply. About 4x the memory
  traffic of the compact kind.

Spatial planes (both kinds, and the module function `planes`): `encoder.planes(view)` -> (B, 4 seats,
C, 6, 6) float32, self first, padded with zero seats; channel c of cell (r, c) is named by
`PLANE_CHANNELS` (C = 74): the 60 full cell features above, then per task kind (vineyard, garden,
chicken yard, pond, merchant, baker, administrator, craftsman, villa) the VP / 5 of an unsatisfied
frame task on the cell's row or column, the VP / 5 of satisfied tasks through the cell, and for the
viewer's own board while it decides PLACE the legality of the pending tile per rotation (the action
mask laid out spatially: PLACE_rc_Rk = channel 70 + k at (r, c)).

Each flat layout is written one row at a time by its row kernel (`encode_compact_row`, `encode_full_row`),
every block at its offset in the kind's block table by name (`AT.<block>`, `AT_FULL.<block>`); the batch
loops and the fused AEC steps around them are generated (envs/codegen.py: `encode_<kind>_nb`,
`step_observe_<kind>_nb` in envs/carpe_diem/entries.py). The planes have a batch kernel of their own
(`planes_nb`): they are no encoder kind, but a second output of both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.encoders.base import Encoder, block_offsets, encoder_of_kind, seat_flags, seat_of
from meeple.envs import threads
from meeple.envs.carpe_diem import kernels as K
from meeple.envs.carpe_diem.data import (
    BOARD_BANDEROLE, BOARD_SHOVEL, CARD_GAIN, CARD_HAVE, CARD_PAY, CARD_RED, DEC_CARD_BREAD, DEC_CARD_ORDER,
    DEC_CARD_UNITS, DEC_PLACE, DEPOT_SLOTS, DISPLAY_SLOTS, FRAME_POSITION_VP, FRAME_TASKS, LABEL_FEATURE, MAX_PLAYERS,
    MAX_UNITS, NUM_BOARDS, NUM_CARD_SLOTS, NUM_CELLS, NUM_CIRCLE_SPACES, NUM_COUNTABLES, NUM_DECISIONS, NUM_FEATURES,
    NUM_FOUNTAIN_KINDS, NUM_FRAME_PARTS, NUM_GOODS, NUM_LABELS, NUM_LIGHT, NUM_PHASES, NUM_PORTS, NUM_SPACES,
    NUM_TILES, ROT_PORTS, ROUNDS_PER_PHASE, SEGMENT_ROOT, SPACE_USABLE, TASKS_PER_PLAYER, TASK_LINE, TILE_CENTRE,
    TILE_CHIMNEYS, TRACK_END, VILLA,
)
from meeple.envs.carpe_diem.state import View
from meeple.envs.jit import kernel

SEATS = MAX_PLAYERS
GRID = 6
TILE_FEAT = 56
CELL_FEAT = TILE_FEAT + 4
SLOT_FEAT = TILE_FEAT + 1  # depot / display slot: present + tile
F_OCCUPIED, F_BANDEROLE, F_SHOVEL, F_FRONTIER = range(TILE_FEAT, CELL_FEAT)
# frame-task kinds: landscapes and lodgings keep their feature index, villa is 8 (markets etc. have no task)
NUM_TASK_KINDS = 9
TASK_KIND_NAMES = ("vineyard", "garden", "chicken_yard", "pond", "merchant", "baker", "administrator", "craftsman",
                   "villa")
TASK_KIND_INDEX = np.array([0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1, 8], dtype=np.int64)
TASK_FEAT = NUM_TASK_KINDS + 2 * GRID + 2
CARD_FEAT = 1 + 1 + NUM_GOODS + NUM_COUNTABLES + 4
CIRCLE_FEAT = 2 + SEATS + NUM_PHASES
SUPPLY_FEAT = 13

# scales (a typical maximum; values are clipped to [0, 1] or [-1, 1])
SCORE_SCALE = 200.0
VP_SCALE = 100.0
GOODS_SCALE = 10.0
COIN_SCALE = 20.0
BREAD_SCALE = 10.0
STORED_SCALE = 30.0
FOUNTAIN_SCALE = 10.0
COMPLETED_SCALE = 5.0
GROUP_SCALE = 10.0
CHIMNEY_SCALE = 40.0
VILLA_VP_SCALE = 50.0
UNITS_SCALE = 10.0
CARD_UNITS_SCALE = 5.0


def _card_features() -> np.ndarray:
    """(60, CARD_FEAT - 1): red, pay per unit / 3, have per unit / 3, gain per unit / 8."""
    out = np.zeros((CARD_RED.shape[0], CARD_FEAT - 1), dtype=np.float32)
    out[:, 0] = CARD_RED
    out[:, 1:1 + NUM_GOODS] = CARD_PAY / 3.0
    out[:, 1 + NUM_GOODS:1 + NUM_GOODS + NUM_COUNTABLES] = CARD_HAVE / 3.0
    out[:, 1 + NUM_GOODS + NUM_COUNTABLES:] = CARD_GAIN / 8.0
    return np.minimum(out, 1.0)


def _supply_features() -> np.ndarray:
    """(123, 13) per tile: lodging halves per kind, landscape sections per kind, villa segments,
    chimneys, market, bakery, fountain (scaled so a full light supply sums to about 1)."""
    out = np.zeros((NUM_TILES, SUPPLY_FEAT), dtype=np.float32)
    for t in range(NUM_TILES):
        for p in range(NUM_PORTS):
            lab = int(ROT_PORTS[t, 0, p])
            if lab == 0 or SEGMENT_ROOT[t, p] != p:
                continue
            kind = int(LABEL_FEATURE[lab])
            if kind == VILLA:
                out[t, 8] += 1.0 / 32
            elif kind >= 4:
                out[t, kind - 4] += 1.0 / 14
            else:
                out[t, 4 + kind] += 1.0 / 14
        out[t, 9] = TILE_CHIMNEYS[t] / 51.0
        if TILE_CENTRE[t] > 0:
            out[t, 9 + TILE_CENTRE[t]] = 1.0 / 8
    return out


CARD_FEATURES = _card_features()
SUPPLY_FEATURES = _supply_features()

FULL_SEAT_BLOCKS: list[tuple[str, tuple[int, ...], str]] = [
    ("present", (SEATS,), "1 if the seat is in the game"),
    ("is_start_player", (SEATS,), "1 for this phase's start player"),
    ("is_to_play", (SEATS,), "1 for the seat that decides now"),
    ("board", (SEATS, NUM_BOARDS), "one-hot building board 1..4 (shovel and banderole cells)"),
    ("patrician", (SEATS, NUM_SPACES), "one-hot circle space of the patrician (zero before the start placement)"),
    ("track", (SEATS,), "banderole-track space / 35"),
    ("track_height", (SEATS,), "position in the stack on that space / 3 (0 = bottom)"),
    ("scoring_rank", (SEATS, SEATS), "one-hot position in banderole-track order (0 = scores first)"),
    ("score", (SEATS,), "public running score (Yucata's) / 200, clipped to [-1, 1]"),
    ("vp_cards", (SEATS,), "VP cards (start VP, scoring rounds, excess steps) / 100, clipped to [-1, 1]"),
    ("goods", (SEATS, NUM_GOODS), "grapes, herbs, chickens, fish / 10"),
    ("coins", (SEATS,), "coins / 20"),
    ("bread", (SEATS,), "bread / 10"),
    ("stored", (SEATS,), "tiles stored face down / 30"),
    ("fountain_count", (SEATS,), "fountain cards held (public count) / 10"),
    ("completed", (SEATS, NUM_FEATURES), "completed instances per feature kind (data.FEATURE_NAMES order) / 5"),
    ("completed_groups", (SEATS, 2), "completed lodgings (any kind), landscapes (any kind) / 10"),
    ("chimneys", (SEATS,), "chimneys in all villas, complete or not / 40"),
    ("villa_vp", (SEATS,), "VP of the completed villas / 50"),
    ("discs", (SEATS, 2), "scoring discs placed / 4; 1 if one was placed in this phase's scoring round"),
    ("tasks", (SEATS, TASKS_PER_PLAYER, TASK_FEAT),
     "frame task 2 side + j: one-hot kind (vineyard..craftsman, villa), one-hot line (columns 0-5, rows 0-5), VP / 5, satisfied"),
    ("district", (SEATS, NUM_CELLS, CELL_FEAT),
     "per cell 6 r + c: tile features (villa sides, lodging side x kind, landscape port x kind, centre, chimneys / 4), "
     "occupied, banderole, shovel, frontier"),
]
FULL_BLOCKS: list[tuple[str, tuple[int, ...], str]] = FULL_SEAT_BLOCKS + [
    ("num_players", (3,), "one-hot N = 2..4"),
    ("decision", (NUM_DECISIONS,), "one-hot pending decision (data.DECISION_NAMES)"),
    ("phase", (NUM_PHASES,), "one-hot phase 0..3"),
    ("round", (ROUNDS_PER_PHASE + 1,), "one-hot round 0..6, 7 = scoring round"),
    ("turn", (SEATS,), "one-hot position in the turn order (start spaces, turns) or the scoring order"),
    ("progress", (1,), "(8 phase + round) / 32"),
    ("craft_pending", (1,), "craftsman display picks still owed this turn / 2"),
    ("pending_tile", (4, TILE_FEAT), "the tile being placed, as it lies after 0..3 clockwise quarter turns (PLACE_rc_Rk)"),
    ("pending_flags", (2,), "1 if a tile is pending; 1 if it is dark"),
    ("depot", (NUM_SPACES, DEPOT_SLOTS, SLOT_FEAT), "per depot slot: present, tile features (unturned)"),
    ("depot_count", (NUM_SPACES,), "tiles in each depot / 4"),
    ("move_targets", (2, NUM_SPACES), "one-hot space a normal move cw / ccw of the viewer's patrician reaches"),
    ("display", (DISPLAY_SLOTS, SLOT_FEAT), "per bottom-display slot: present, tile features"),
    ("supply_tiles", (NUM_TILES,), "1 if the tile is still in the face-down supply (public by counting)"),
    ("supply_features", (2, SUPPLY_FEAT),
     "light / dark supply: lodging halves m, b, a, c / 14, landscape sections W, G, H, P / 14, villa segments / 32, "
     "chimneys / 51, markets, bakeries, fountains / 8"),
    ("card_slots", (NUM_CARD_SLOTS, CARD_FEAT),
     "per scoring-card slot: present, red, pay per unit / 3, have per unit (15 countables) / 3, gain VP, coins, bread, steps / 8"),
    ("slot_units", (NUM_CARD_SLOTS,), "units the viewer could score on the slot's card now (green: natural, red: payable) / 5"),
    ("circle", (NUM_CIRCLE_SPACES, CIRCLE_FEAT), "per circle space: unusable, free, disc of relative seat 0..3, one-hot phase placed"),
    ("cur_space", (NUM_CIRCLE_SPACES,), "one-hot circle space being resolved"),
    ("scoring_ctx", (4,), "in a scoring turn; second card; higher slot first; units chosen / natural (units / 10)"),
    ("cur_card", (CARD_FEAT,), "features of the card being resolved (as card_slots)"),
    ("cur_card_avail", (1,), "units the actor can take on it: payable (red) or natural (green) / 10"),
    ("own_hand", (NUM_FOUNTAIN_KINDS,), "own fountain cards per kind / 2"),
    ("own_returned", (NUM_FOUNTAIN_KINDS,), "kinds the viewer returned to the deck bottom / 2"),
    ("own_drawn", (2, NUM_FOUNTAIN_KINDS), "one-hot kinds of the viewer's own pending fountain draw"),
]

PLANE_CHANNELS: list[tuple[str, str]] = (
    [(f"villa_{s}", f"villa on side {s}") for s in "NESW"]
    + [(f"lodging_{s}_{k}", f"{k} lodging half on side {s}") for s in "NESW"
       for k in ("merchant", "baker", "administrator", "craftsman")]
    + [(f"land_p{q}_{k}", f"{k} at port {q}") for q in range(NUM_PORTS) for k in ("vineyard", "garden", "chicken_yard", "pond")]
    + [("market", "market centre"), ("bakery", "bakery centre"), ("fountain", "fountain centre"),
       ("chimneys", "chimneys / 4"), ("occupied", "a tile lies here"), ("banderole", "banderole still on the cell"),
       ("shovel", "the board's shovel (start) cell"), ("frontier", "empty and reachable: next to a tile, or the empty shovel cell")]
    + [(f"task_{k}", f"VP / 5 of an unsatisfied {k} frame task on this row or column") for k in TASK_KIND_NAMES]
    + [("task_done", "VP / 5 of satisfied frame tasks through the cell (max)")]
    + [(f"legal_rot{r}", f"own board, deciding PLACE: the pending tile fits here turned {r}") for r in range(4)]
)
NUM_PLANE_CHANNELS = len(PLANE_CHANNELS)
assert NUM_PLANE_CHANNELS == CELL_FEAT + NUM_TASK_KINDS + 1 + 4 == 74
P_TASK = CELL_FEAT
P_TASK_DONE = P_TASK + NUM_TASK_KINDS
P_LEGAL = P_TASK_DONE + 1


@kernel(inline="always")
def _clip(x):
    return 1.0 if x > 1.0 else (0.0 if x < 0.0 else x)


@kernel(inline="always")
def _clip_signed(x):
    return 1.0 if x > 1.0 else (-1.0 if x < -1.0 else x)


@kernel(inline="always")
def _tile(arr, base, stride, t, rot):
    """Write tile t turned rot (TILE_FEAT features) into arr[base + f * stride]."""
    for s in range(4):
        a = np.int64(ROT_PORTS[t, rot, 2 * s])
        c = np.int64(ROT_PORTS[t, rot, 2 * s + 1])
        if a == 1 or c == 1:
            arr[base + s * stride] = 1.0
        lab = a if 2 <= a <= 5 else c
        if 2 <= lab <= 5:
            arr[base + (4 + 4 * s + lab - 2) * stride] = 1.0
    for q in range(NUM_PORTS):
        lab = np.int64(ROT_PORTS[t, rot, q])
        if lab >= 6:
            arr[base + (20 + 4 * q + lab - 6) * stride] = 1.0
    ctr = np.int64(TILE_CENTRE[t])
    if ctr > 0:
        arr[base + (52 + ctr - 1) * stride] = 1.0
    arr[base + 55 * stride] = TILE_CHIMNEYS[t] / 4.0


@kernel(inline="always")
def _cell(v, b, q, cell, arr, base, stride):
    """Write the CELL_FEAT features of cell of seat q's district into arr[base + f * stride]."""
    t = v.cell_tile[b, q, cell]
    board = v.board[b, q]
    shovel = BOARD_SHOVEL[board]
    if t >= 0:
        _tile(arr, base, stride, t, v.cell_rot[b, q, cell])
        arr[base + F_OCCUPIED * stride] = 1.0
    else:
        if BOARD_BANDEROLE[board, cell]:
            arr[base + F_BANDEROLE * stride] = 1.0
        frontier = False
        if v.cell_tile[b, q, shovel] < 0:
            frontier = cell == shovel
        else:
            for side in range(4):
                nb = K.neighbour(cell, side)
                if nb >= 0 and v.cell_tile[b, q, nb] >= 0:
                    frontier = True
        if frontier:
            arr[base + F_FRONTIER * stride] = 1.0
    if cell == shovel:
        arr[base + F_SHOVEL * stride] = 1.0


@kernel(inline="always")
def _card(row, k, card):
    row[k] = 1.0
    for i in range(CARD_FEAT - 1):
        row[k + 1 + i] = CARD_FEATURES[card, i]


@kernel(inline="always")
def _units_available(v, b, p, card):
    if CARD_RED[card]:
        return K.red_max_units(v, b, p, card)
    return K.green_units(v, b, p, card)


@kernel(inline="always")
def _scoring_flags(v, b, row, at, sp):
    """Whether row b is in a scoring turn (a circle space being resolved, a card decision pending); if so,
    the first three scoring_ctx values at `at` (1; second card; higher slot first), the kinds writing the
    fourth (units) each in its own scale."""
    scoring = sp >= 0 and (v.decision[b] == DEC_CARD_ORDER or v.decision[b] == DEC_CARD_UNITS
                           or v.decision[b] == DEC_CARD_BREAD)
    if scoring:
        row[at] = 1.0
        row[at + 1] = 1.0 if v.card_seq[b] == 1 else 0.0
        row[at + 2] = 1.0 if v.first_high[b] else 0.0
    return scoring


@kernel
def encode_full_row(v, b, row):
    """Fill the zeroed observation row of view row b, each block at its FULL_BLOCKS offset `AT_FULL.<block>`."""
    P = v.coins.shape[1]
    me = np.int64(v.viewer[b])
    # --- per seat ---
    seat_flags(v, b, row, me, P, SEATS, AT_FULL.present, AT_FULL.is_start_player, AT_FULL.is_to_play)
    for slot in range(P):
        q = seat_of(me, slot, P)
        row[AT_FULL.board + slot * NUM_BOARDS + np.int64(v.board[b, q])] = 1.0
        sp = np.int64(v.patrician[b, q])
        if sp >= 0:
            row[AT_FULL.patrician + slot * NUM_SPACES + sp] = 1.0
        row[AT_FULL.track + slot] = v.track[b, q] / TRACK_END
        row[AT_FULL.track_height + slot] = v.height[b, q] / (SEATS - 1.0)
        rank = 0
        for o in range(P):
            if v.track[b, o] > v.track[b, q] or (v.track[b, o] == v.track[b, q] and v.height[b, o] > v.height[b, q]):
                rank += 1
        row[AT_FULL.scoring_rank + slot * SEATS + rank] = 1.0
        row[AT_FULL.score + slot] = _clip_signed(v.score[b, q] / SCORE_SCALE)
        row[AT_FULL.vp_cards + slot] = _clip_signed(v.vp[b, q] / VP_SCALE)
        for g in range(NUM_GOODS):
            row[AT_FULL.goods + slot * NUM_GOODS + g] = _clip(v.goods[b, q, g] / GOODS_SCALE)
        row[AT_FULL.coins + slot] = _clip(v.coins[b, q] / COIN_SCALE)
        row[AT_FULL.bread + slot] = _clip(v.bread[b, q] / BREAD_SCALE)
        row[AT_FULL.stored + slot] = _clip(v.stored[b, q] / STORED_SCALE)
        row[AT_FULL.fountain_count + slot] = _clip(v.fountain_count[b, q] / FOUNTAIN_SCALE)
        for f in range(NUM_FEATURES):
            row[AT_FULL.completed + slot * NUM_FEATURES + f] = _clip(v.completed[b, q, f] / COMPLETED_SCALE)
        lodgings = 0
        lands = 0
        for i in range(4):
            lands += v.completed[b, q, i]
            lodgings += v.completed[b, q, 4 + i]
        row[AT_FULL.completed_groups + 2 * slot] = _clip(lodgings / GROUP_SCALE)
        row[AT_FULL.completed_groups + 2 * slot + 1] = _clip(lands / GROUP_SCALE)
        row[AT_FULL.chimneys + slot] = _clip(v.chimneys[b, q] / CHIMNEY_SCALE)
        row[AT_FULL.villa_vp + slot] = _clip(v.villa_vp[b, q] / VILLA_VP_SCALE)
        n = 0
        now = False
        for sp in range(NUM_CIRCLE_SPACES):
            if v.circle_owner[b, sp] == q:
                n += 1
                if v.circle_phase[b, sp] == v.phase[b]:
                    now = True
        row[AT_FULL.discs + 2 * slot] = n / 4.0
        row[AT_FULL.discs + 2 * slot + 1] = 1.0 if now else 0.0
        for side in range(4):
            part = v.frame[b, q, side]
            for j in range(2):
                base = AT_FULL.tasks + (slot * TASKS_PER_PLAYER + 2 * side + j) * TASK_FEAT
                kind = TASK_KIND_INDEX[FRAME_TASKS[part, j, 0]]
                pos = np.int64(FRAME_TASKS[part, j, 1])
                row[base + kind] = 1.0
                row[base + NUM_TASK_KINDS + GRID * np.int64(TASK_LINE[side, pos, 0]) + np.int64(TASK_LINE[side, pos, 1])] = 1.0
                row[base + NUM_TASK_KINDS + 2 * GRID] = FRAME_POSITION_VP[pos] / 5.0
                row[base + NUM_TASK_KINDS + 2 * GRID + 1] = 1.0 if v.task_done[b, q, 2 * side + j] else 0.0
        for cell in range(NUM_CELLS):
            _cell(v, b, q, cell, row, AT_FULL.district + (slot * NUM_CELLS + cell) * CELL_FEAT, 1)
    # --- global ---
    row[AT_FULL.num_players + P - 2] = 1.0
    row[AT_FULL.decision + np.int64(v.decision[b])] = 1.0
    row[AT_FULL.phase + np.int64(v.phase[b])] = 1.0
    row[AT_FULL.round + np.int64(v.round[b])] = 1.0
    if not v.done[b]:
        row[AT_FULL.turn + np.int64(v.turn[b])] = 1.0
    row[AT_FULL.progress] = (8.0 * v.phase[b] + v.round[b]) / 32.0
    row[AT_FULL.craft_pending] = _clip(v.craft_pending[b] / 2.0)
    t = v.tile_pending[b]
    if t >= 0:
        for rot in range(4):
            _tile(row, AT_FULL.pending_tile + rot * TILE_FEAT, 1, t, rot)
        row[AT_FULL.pending_flags] = 1.0
        row[AT_FULL.pending_flags + 1] = 1.0 if t >= NUM_LIGHT else 0.0
    any_tiles = False
    for d in range(NUM_SPACES):
        n = 0
        for j in range(DEPOT_SLOTS):
            t = v.depot[b, d, j]
            if t >= 0:
                n += 1
                base = AT_FULL.depot + (d * DEPOT_SLOTS + j) * SLOT_FEAT
                row[base] = 1.0
                _tile(row, base + 1, 1, t, 0)
        row[AT_FULL.depot_count + d] = n / DEPOT_SLOTS
        if n > 0:
            any_tiles = True
    start = v.patrician[b, me]
    if start >= 0 and any_tiles:
        row[AT_FULL.move_targets + np.int64(K.walk(v, b, start, 1))] = 1.0
        row[AT_FULL.move_targets + NUM_SPACES + np.int64(K.walk(v, b, start, NUM_SPACES - 1))] = 1.0
    for i in range(DISPLAY_SLOTS):
        t = v.display[b, i]
        if t >= 0:
            row[AT_FULL.display + i * SLOT_FEAT] = 1.0
            _tile(row, AT_FULL.display + i * SLOT_FEAT + 1, 1, t, 0)
    for t in range(NUM_TILES):
        if v.tile_loc[b, t] == K.LOC_SUPPLY:
            row[AT_FULL.supply_tiles + t] = 1.0
            dark = 1 if t >= NUM_LIGHT else 0
            for f in range(SUPPLY_FEAT):
                row[AT_FULL.supply_features + dark * SUPPLY_FEAT + f] += SUPPLY_FEATURES[t, f]
    for f in range(2 * SUPPLY_FEAT):
        row[AT_FULL.supply_features + f] = _clip(row[AT_FULL.supply_features + f])
    for i in range(NUM_CARD_SLOTS):
        card = v.card_slot[b, i]
        if card >= 0:
            _card(row, AT_FULL.card_slots + i * CARD_FEAT, card)
            row[AT_FULL.slot_units + i] = _clip(_units_available(v, b, me, card) / CARD_UNITS_SCALE)
    for sp in range(NUM_CIRCLE_SPACES):
        base = AT_FULL.circle + sp * CIRCLE_FEAT
        owner = np.int64(v.circle_owner[b, sp])
        if not SPACE_USABLE[P, sp]:
            row[base] = 1.0
        elif owner < 0:
            row[base + 1] = 1.0
        else:
            row[base + 2 + seat_of(owner, P - me, P)] = 1.0
            row[base + 2 + SEATS + np.int64(v.circle_phase[b, sp])] = 1.0
    sp = np.int64(v.cur_space[b])
    if sp >= 0:
        row[AT_FULL.cur_space + sp] = 1.0
    scoring = _scoring_flags(v, b, row, AT_FULL.scoring_ctx, sp)
    if scoring:
        row[AT_FULL.scoring_ctx + 3] = _clip(v.units[b] / UNITS_SCALE)
    if scoring and v.decision[b] != DEC_CARD_ORDER:
        card = K.current_card(v, b)
        _card(row, AT_FULL.cur_card, card)
        row[AT_FULL.cur_card_avail] = _clip(_units_available(v, b, v.to_play[b], card) / UNITS_SCALE)
    for i in range(NUM_FOUNTAIN_KINDS):
        row[AT_FULL.own_hand + i] = v.own_hand[b, i] / 2.0
        row[AT_FULL.own_returned + i] = v.own_returned[b, i] / 2.0
    for i in range(2):
        if v.own_drawn[b, i] >= 0:
            row[AT_FULL.own_drawn + i * NUM_FOUNTAIN_KINDS + np.int64(v.own_drawn[b, i])] = 1.0


@kernel
def planes_nb(out, *fields):
    """Fill out (B, SEATS, NUM_PLANE_CHANNELS * 36) (the planes, flattened per seat) from the View's fields."""
    v = View(*fields)
    P = v.coins.shape[1]
    for b in range(v.coins.shape[0]):
        me = np.int64(v.viewer[b])
        for slot in range(SEATS):
            arr = out[b, slot]
            arr[:] = 0.0
            if slot >= P:
                continue
            q = seat_of(me, slot, P)
            for cell in range(NUM_CELLS):
                _cell(v, b, q, cell, arr, cell, NUM_CELLS)
            for side in range(4):
                part = v.frame[b, q, side]
                for j in range(2):
                    kind = TASK_KIND_INDEX[FRAME_TASKS[part, j, 0]]
                    pos = np.int64(FRAME_TASKS[part, j, 1])
                    is_row = TASK_LINE[side, pos, 0]
                    idx = np.int64(TASK_LINE[side, pos, 1])
                    val = FRAME_POSITION_VP[pos] / 5.0
                    ch = P_TASK_DONE if v.task_done[b, q, 2 * side + j] else P_TASK + kind
                    for i in range(GRID):
                        cell = GRID * idx + i if is_row else GRID * i + idx
                        if arr[ch * NUM_CELLS + cell] < val:
                            arr[ch * NUM_CELLS + cell] = val
            t = v.tile_pending[b]
            if slot == 0 and t >= 0 and v.decision[b] == DEC_PLACE and v.to_play[b] == me and not v.done[b]:
                for cell in range(NUM_CELLS):
                    for rot in range(4):
                        if K._fits(v, b, me, t, cell, rot):
                            arr[(P_LEGAL + rot) * NUM_CELLS + cell] = 1.0




# ================================================================================================
# Compact encoder (the default)
# ================================================================================================

CODE = NUM_PORTS + 3 + 1  # compact tile code: port labels / 9, centre market / bakery / fountain, tile
C_TILE = CODE - 1  # index of `tile`: (1 + chimneys) / 5 for a tile, 0 for an empty cell or slot
TILE_CODE_SCALE = 5.0
CARD_CODE = 1 + NUM_COUNTABLES + 4  # red, requirement per unit, gain per unit
C_CIRCLE = SEATS + 1
MAX_NEEDS = 3


def _compact_tiles() -> np.ndarray:
    """COMPACT_TILE[t, rot]: the CODE values of tile t turned rot clockwise quarter turns."""
    out = np.zeros((NUM_TILES, 4, CODE), dtype=np.float32)
    out[:, :, :NUM_PORTS] = ROT_PORTS / (NUM_LABELS - 1.0)
    for t in range(NUM_TILES):
        if TILE_CENTRE[t] > 0:
            out[t, :, NUM_PORTS + TILE_CENTRE[t] - 1] = 1.0
    out[:, :, C_TILE] = (1.0 + TILE_CHIMNEYS[:, None]) / TILE_CODE_SCALE
    return out


def _rich_tiles() -> np.ndarray:
    """RICH_TILE[t]: the TILE_FEAT values `_tile` writes for tile t (unturned), as a table."""
    out = np.zeros((NUM_TILES, TILE_FEAT), dtype=np.float32)
    for t in range(NUM_TILES):
        ports = [int(x) for x in ROT_PORTS[t, 0]]
        for s in range(4):
            a, c = ports[2 * s], ports[2 * s + 1]
            if a == 1 or c == 1:
                out[t, s] = 1.0
            lab = a if 2 <= a <= 5 else c
            if 2 <= lab <= 5:
                out[t, 4 + 4 * s + lab - 2] = 1.0
        for q, lab in enumerate(ports):
            if lab >= 6:
                out[t, 20 + 4 * q + lab - 6] = 1.0
        if TILE_CENTRE[t] > 0:
            out[t, 52 + TILE_CENTRE[t] - 1] = 1.0
        out[t, 55] = TILE_CHIMNEYS[t] / 4.0
    return out


def _card_codes() -> np.ndarray:
    """(60, CARD_CODE): red; per unit the requirement (green: countables had / 3; red: goods paid / 3 in the
    slots 0..3 of the landscapes that produce them); gain VP, coins, bread, steps / 8."""
    out = np.zeros((CARD_RED.shape[0], CARD_CODE), dtype=np.float32)
    out[:, 0] = CARD_RED
    out[:, 1:1 + NUM_COUNTABLES] = CARD_HAVE / 3.0
    out[:, 1:1 + NUM_GOODS] += CARD_PAY / 3.0
    out[:, 1 + NUM_COUNTABLES:] = CARD_GAIN / 8.0
    assert not (CARD_HAVE[CARD_RED] != 0).any() and not (CARD_PAY[~CARD_RED] != 0).any()
    return np.minimum(out, 1.0)


def _card_needs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The non-zero CARD_HAVE entries per card: (count, countable, amount), for green units without a 15-loop."""
    n = np.zeros(CARD_RED.shape[0], dtype=np.int64)
    kind = np.zeros((CARD_RED.shape[0], MAX_NEEDS), dtype=np.int64)
    amount = np.ones((CARD_RED.shape[0], MAX_NEEDS), dtype=np.int64)
    for card in range(CARD_RED.shape[0]):
        (nz,) = np.nonzero(CARD_HAVE[card])
        n[card] = len(nz)
        kind[card, :len(nz)] = nz
        amount[card, :len(nz)] = CARD_HAVE[card, nz]
    return n, kind, amount


DIV_MAX = 127
# FLOOR_DIV[min(x, DIV_MAX), c] = min(x, DIV_MAX) // c for the requirements c = 1..3 (no integer division in the kernel);
# clamping x is harmless: the units are capped at MAX_UNITS (red) or clipped after / CARD_UNITS_SCALE (green)
FLOOR_DIV = np.array([[x // max(c, 1) for c in range(4)] for x in range(DIV_MAX + 1)], dtype=np.int64)
assert int(CARD_PAY.max()) <= 3 and int(CARD_HAVE.max()) <= 3 and DIV_MAX // 3 > MAX_UNITS

COMPACT_TILE = _compact_tiles()
RICH_TILE = _rich_tiles()
CARD_CODES = _card_codes()
CARD_NEED_N, CARD_NEED_KIND, CARD_NEED_AMOUNT = _card_needs()


def _full_block(name: str) -> tuple[str, tuple[int, ...], str]:
    return next(block for block in FULL_BLOCKS if block[0] == name)


TILE_CODE_TEXT = ("port labels 0..7 / 9 (data.LABEL_CHARS: 0 meadow, 1 villa, 2-5 lodging m b a c, 6-9 landscape W G H P), "
                  "centre market / bakery / fountain, tile = (1 + chimneys) / 5 (0: empty)")
CARD_CODE_TEXT = ("red; per unit: requirement / 3 (green: the 15 countables had; red: goods paid, in the vineyard..pond "
                  "slots); gain VP, coins, bread, steps / 8")
COMPACT_SEAT_BLOCKS: list[tuple[str, tuple[int, ...], str]] = [
    *(_full_block(name) for name in (
        "present", "is_start_player", "is_to_play", "board", "patrician", "track", "track_height", "scoring_rank",
        "score", "vp_cards", "goods", "coins", "bread", "stored", "fountain_count", "completed", "chimneys", "villa_vp",
        "discs")),
    ("frame", (SEATS, 4, NUM_FRAME_PARTS),
     "one-hot frame part on side N, E, S, W (data.FRAME_TASKS: its 2 tasks' kinds and positions)"),
    ("task_done", (SEATS, TASKS_PER_PLAYER), "frame task 2 side + j satisfied"),
    ("district", (SEATS, NUM_CELLS, CODE),
     f"per cell 6 r + c, the tile code: {TILE_CODE_TEXT}; ports after the rotation (shovel and banderole cells: "
     "see `board`; a banderole is still there while its cell is empty)"),
]
COMPACT_BLOCKS: list[tuple[str, tuple[int, ...], str]] = COMPACT_SEAT_BLOCKS + [
    *(_full_block(name) for name in ("num_players", "decision", "phase", "round", "turn", "craft_pending")),
    ("pending_tile", (TILE_FEAT,),
     "the tile being placed, unturned, one-hot per port as the full kind's tile features (PLACE_rc_Rk turns it "
     "k quarter turns: port q moves to q + 2k)"),
    _full_block("pending_flags"),
    ("depot", (NUM_SPACES, DEPOT_SLOTS, CODE), "per depot slot: tile code (as district, unturned; all 0 if empty)"),
    *(_full_block(name) for name in ("depot_count", "move_targets")),
    ("display", (DISPLAY_SLOTS, CODE), "per bottom-display slot: tile code (as depot)"),
    _full_block("supply_features"),
    ("card_slots", (NUM_CARD_SLOTS, CARD_CODE), f"per scoring-card slot (0 if unused): {CARD_CODE_TEXT}"),
    _full_block("slot_units"),
    ("circle", (NUM_CIRCLE_SPACES, C_CIRCLE),
     "per circle space: disc of relative seat 0..3, (phase it was placed in + 1) / 4 (unusable spaces follow "
     "from num_players)"),
    *(_full_block(name) for name in ("cur_space", "scoring_ctx")),
    ("cur_card", (CARD_CODE,), "the card being resolved (as card_slots)"),
    *(_full_block(name) for name in ("cur_card_avail", "own_hand", "own_returned", "own_drawn")),
]


AT_FULL = block_offsets(FULL_BLOCKS, "FullOffsets")  # AT_FULL.<block>: the block's first index in a row
AT = block_offsets(COMPACT_BLOCKS, "CompactOffsets")


# The row helpers index with unsigned integers: numba then skips the negative-index wraparound, which lets
# LLVM vectorize the short copies.


@kernel(inline="always")
def _fill(row, k, n, x):
    uk = np.uint64(k)
    for i in range(n):
        row[uk + np.uint64(i)] = x


@kernel(inline="always")
def _onehot(row, k, n, idx):
    """row[k .. k + n - 1] = one-hot idx (all zero for idx outside 0..n-1)."""
    uk = np.uint64(k)
    for i in range(n):
        row[uk + np.uint64(i)] = 1.0 if i == idx else 0.0


@kernel(inline="always")
def _copy(row, k, n, values):
    """row[k .. k + n - 1] = values[0 .. n - 1]."""
    uk = np.uint64(k)
    for i in range(n):
        row[uk + np.uint64(i)] = values[np.uint64(i)]


@kernel(inline="always")
def _code(row, base, t, rot):
    """The CODE values of tile t turned rot, or zeros for t < 0."""
    if t >= 0:
        _copy(row, base, CODE, COMPACT_TILE[t, rot])
    else:
        _fill(row, base, CODE, 0.0)


@kernel(inline="always")
def _card_code(row, base, card):
    """The CARD_CODE values of card, or zeros for card < 0."""
    if card >= 0:
        _copy(row, base, CARD_CODE, CARD_CODES[card])
    else:
        _fill(row, base, CARD_CODE, 0.0)


@kernel(inline="always")
def _track_pos(v, b, p):
    """Banderole-track order key: higher scores earlier (further ahead; on a shared space higher in the stack)."""
    return np.int64(v.track[b, p]) * SEATS + np.int64(v.height[b, p])


@kernel(inline="always")
def _units_fast(v, b, p, card, lodgings, lands):
    """`_units_available` with few data-dependent branches (they mispredict across rows). Red: the most units
    u <= 31 whose goods shortfall sum_g max(0, pay_g u - goods_g) the coins cover (`kernels.red_max_units`),
    by a binary search (the shortfall grows with u); green: the least floor(count / needed) over the card's
    requirements (`kernels.green_units`)."""
    if CARD_RED[card]:
        coins = np.int64(v.coins[b, p])
        red = np.int64(0)
        step = np.int64(16)
        while step > 0:
            mid = red + step
            short = np.int64(0)
            for g in range(NUM_GOODS):
                need = np.int64(CARD_PAY[card, g]) * mid - np.int64(v.goods[b, p, g])
                short += need if need > 0 else 0
            red = mid if mid <= MAX_UNITS and short <= coins else red
            step >>= 1
        return red
    green = np.int64(1 << 30)
    for i in range(MAX_NEEDS):
        kind = CARD_NEED_KIND[card, i]
        have = np.int64(v.completed[b, p, min(kind, NUM_FEATURES - 1)])
        have = np.int64(v.chimneys[b, p]) if kind == NUM_FEATURES else have
        have = lodgings if kind == NUM_FEATURES + 1 else have
        have = lands if kind == NUM_FEATURES + 2 else have
        have = np.int64(DIV_MAX) if i >= CARD_NEED_N[card] else have
        u = FLOOR_DIV[min(have, DIV_MAX), CARD_NEED_AMOUNT[card, i]]
        green = u if u < green else green
    return green


@kernel
def encode_compact_row(v, b, row):
    """Fill the observation row of view row b, each block at its COMPACT_BLOCKS offset `AT.<block>`, writing
    every element (once, except `discs` and `supply_features`, which are zeroed and then accumulated): it does
    not rely on the row coming zeroed."""
    P = v.coins.shape[1]
    me = np.int64(v.viewer[b])
    done = v.done[b]
    # --- per seat: one slot at a time (padding slots read seat 0 and write 0) ---
    start = np.int64(v.start_player[b])
    actor = -1 if done else np.int64(v.to_play[b])
    for slot in range(SEATS):
        live = slot < P
        m = 1.0 if live else 0.0
        q = seat_of(me, slot, P) if live else 0
        row[AT.present + slot] = m
        row[AT.is_start_player + slot] = 1.0 if live and q == start else 0.0
        row[AT.is_to_play + slot] = 1.0 if live and q == actor else 0.0
        _onehot(row, AT.board + slot * NUM_BOARDS, NUM_BOARDS, np.int64(v.board[b, q]) if live else -1)
        _onehot(row, AT.patrician + slot * NUM_SPACES, NUM_SPACES, np.int64(v.patrician[b, q]) if live else -1)
        row[AT.track + slot] = m * v.track[b, q] * (1.0 / TRACK_END)
        row[AT.track_height + slot] = m * v.height[b, q] * (1.0 / (SEATS - 1.0))
        pos = _track_pos(v, b, q)
        rank = 0
        for o in range(P):
            rank += _track_pos(v, b, o) > pos
        _onehot(row, AT.scoring_rank + slot * SEATS, SEATS, rank if live else -1)
        row[AT.score + slot] = m * _clip_signed(v.score[b, q] * (1.0 / SCORE_SCALE))
        row[AT.vp_cards + slot] = m * _clip_signed(v.vp[b, q] * (1.0 / VP_SCALE))
        for g in range(NUM_GOODS):
            row[AT.goods + slot * NUM_GOODS + g] = m * _clip(v.goods[b, q, g] * (1.0 / GOODS_SCALE))
        row[AT.coins + slot] = m * _clip(v.coins[b, q] * (1.0 / COIN_SCALE))
        row[AT.bread + slot] = m * _clip(v.bread[b, q] * (1.0 / BREAD_SCALE))
        row[AT.stored + slot] = m * _clip(v.stored[b, q] * (1.0 / STORED_SCALE))
        row[AT.fountain_count + slot] = m * _clip(v.fountain_count[b, q] * (1.0 / FOUNTAIN_SCALE))
        for f in range(NUM_FEATURES):
            row[AT.completed + slot * NUM_FEATURES + f] = m * _clip(v.completed[b, q, f] * (1.0 / COMPLETED_SCALE))
        row[AT.chimneys + slot] = m * _clip(v.chimneys[b, q] * (1.0 / CHIMNEY_SCALE))
        row[AT.villa_vp + slot] = m * _clip(v.villa_vp[b, q] * (1.0 / VILLA_VP_SCALE))
    _fill(row, AT.discs, SEATS * 2, 0.0)  # counted in the circle loop below
    # frame, task_done and district in loops of their own: fused into the loop above, the kernel ran ~20% slower
    for slot in range(SEATS):
        q = seat_of(me, slot, P)
        for side in range(4):
            part = np.int64(v.frame[b, q, side]) if slot < P else -1
            _onehot(row, AT.frame + (slot * 4 + side) * NUM_FRAME_PARTS, NUM_FRAME_PARTS, part)
    for slot in range(SEATS):
        q = seat_of(me, slot, P)
        for i in range(TASKS_PER_PLAYER):
            row[AT.task_done + slot * TASKS_PER_PLAYER + i] = 1.0 if slot < P and v.task_done[b, q, i] else 0.0
    for slot in range(SEATS):
        base = AT.district + slot * NUM_CELLS * CODE
        if slot < P:
            q = seat_of(me, slot, P)
            tiles = v.cell_tile[b, q]
            rots = v.cell_rot[b, q]
            for cell in range(NUM_CELLS):
                _code(row, base + cell * CODE, np.int64(tiles[cell]), np.int64(rots[cell]))
        else:
            _fill(row, base, NUM_CELLS * CODE, 0.0)
    # --- global ---
    _onehot(row, AT.num_players, 3, P - 2)
    _onehot(row, AT.decision, NUM_DECISIONS, np.int64(v.decision[b]))
    _onehot(row, AT.phase, NUM_PHASES, np.int64(v.phase[b]))
    _onehot(row, AT.round, ROUNDS_PER_PHASE + 1, np.int64(v.round[b]))
    _onehot(row, AT.turn, SEATS, -1 if done else np.int64(v.turn[b]))
    row[AT.craft_pending] = _clip(v.craft_pending[b] * 0.5)
    t = np.int64(v.tile_pending[b])
    if t >= 0:
        for i in range(TILE_FEAT):
            row[AT.pending_tile + i] = RICH_TILE[t, i]
    else:
        _fill(row, AT.pending_tile, TILE_FEAT, 0.0)
    row[AT.pending_flags] = 1.0 if t >= 0 else 0.0
    row[AT.pending_flags + 1] = 1.0 if t >= NUM_LIGHT else 0.0
    any_tiles = False
    for d in range(NUM_SPACES):
        n = 0
        for j in range(DEPOT_SLOTS):
            t = np.int64(v.depot[b, d, j])
            _code(row, AT.depot + (d * DEPOT_SLOTS + j) * CODE, t, 0)
            n += t >= 0
        row[AT.depot_count + d] = n * (1.0 / DEPOT_SLOTS)
        if n > 0:
            any_tiles = True
    start = np.int64(v.patrician[b, me])
    cw = -1
    ccw = -1
    if start >= 0 and any_tiles:
        cw = np.int64(K.walk(v, b, start, 1))
        ccw = np.int64(K.walk(v, b, start, NUM_SPACES - 1))
    _onehot(row, AT.move_targets, NUM_SPACES, cw)
    _onehot(row, AT.move_targets + NUM_SPACES, NUM_SPACES, ccw)
    for i in range(DISPLAY_SLOTS):
        _code(row, AT.display + i * CODE, np.int64(v.display[b, i]), 0)
    loc = v.tile_loc[b]
    _fill(row, AT.supply_features, 2 * SUPPLY_FEAT, 0.0)
    for tile in range(NUM_TILES):  # (a branch-free dot product is slower: it does not vectorize)
        if loc[tile] == K.LOC_SUPPLY:
            base = AT.supply_features + (SUPPLY_FEAT if tile >= NUM_LIGHT else 0)
            for i in range(SUPPLY_FEAT):
                row[base + i] += SUPPLY_FEATURES[tile, i]
    for f in range(2 * SUPPLY_FEAT):
        row[AT.supply_features + f] = _clip(row[AT.supply_features + f])
    lodgings = 0
    lands = 0
    for i in range(4):
        lands += np.int64(v.completed[b, me, i])
        lodgings += np.int64(v.completed[b, me, 4 + i])
    for i in range(NUM_CARD_SLOTS):
        card = np.int64(v.card_slot[b, i])
        _card_code(row, AT.card_slots + i * CARD_CODE, card)
        row[AT.slot_units + i] = _clip(_units_fast(v, b, me, card, lodgings, lands) * (1.0 / CARD_UNITS_SCALE)) if card >= 0 else 0.0
    for sp in range(NUM_CIRCLE_SPACES):
        base = AT.circle + sp * C_CIRCLE
        owner = np.int64(v.circle_owner[b, sp])
        taken = owner >= 0
        rel = seat_of(owner, P - me, P) if taken else 0  # branch-free: weight 0 for a free space
        _onehot(row, base, SEATS, rel if taken else -1)
        phase = np.int64(v.circle_phase[b, sp])
        row[base + SEATS] = (phase + 1.0) * (1.0 / NUM_PHASES) if taken else 0.0
        row[AT.discs + 2 * rel] += 0.25 if taken else 0.0
        now = 1.0 if taken and phase == v.phase[b] else 0.0
        row[AT.discs + 2 * rel + 1] = max(row[AT.discs + 2 * rel + 1], now)
    sp = np.int64(v.cur_space[b])
    _onehot(row, AT.cur_space, NUM_CIRCLE_SPACES, sp)
    scoring = _scoring_flags(v, b, row, AT.scoring_ctx, sp)
    if scoring:
        row[AT.scoring_ctx + 3] = _clip(v.units[b] * (1.0 / UNITS_SCALE))
    else:
        _fill(row, AT.scoring_ctx, 4, 0.0)
    if scoring and v.decision[b] != DEC_CARD_ORDER:
        card = np.int64(K.current_card(v, b))
        _card_code(row, AT.cur_card, card)
        actor = np.int64(v.to_play[b])
        lodgings = 0
        lands = 0
        for i in range(4):
            lands += np.int64(v.completed[b, actor, i])
            lodgings += np.int64(v.completed[b, actor, 4 + i])
        row[AT.cur_card_avail] = _clip(_units_fast(v, b, actor, card, lodgings, lands) * (1.0 / UNITS_SCALE))
    else:
        _fill(row, AT.cur_card, CARD_CODE, 0.0)
        row[AT.cur_card_avail] = 0.0
    for i in range(NUM_FOUNTAIN_KINDS):
        row[AT.own_hand + i] = v.own_hand[b, i] * 0.5
        row[AT.own_returned + i] = v.own_returned[b, i] * 0.5
    for i in range(2):
        _onehot(row, AT.own_drawn + i * NUM_FOUNTAIN_KINDS, NUM_FOUNTAIN_KINDS, np.int64(v.own_drawn[b, i]))


# ================================================================================================
# Encoder classes
# ================================================================================================

_PLANES_COST = threads.RowCost()


def planes(view: Any, out: np.ndarray | None = None) -> np.ndarray:
    """(B, 4, 74, 6, 6) float32 district planes of a batch of views (channels: PLANE_CHANNELS); writes into
    `out` if given. The same for every encoder kind (`encoder.planes(view)`)."""
    B = view.viewer.shape[0]
    shape = (B, SEATS, NUM_PLANE_CHANNELS, GRID, GRID)
    if out is None:
        out = np.empty(shape, dtype=np.float32)
    elif out.shape != shape or out.dtype != np.float32 or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous float32 array of shape {shape}, got {out.dtype} {out.shape}")
    flat = out.reshape(B, SEATS, NUM_PLANE_CHANNELS * NUM_CELLS)
    if B < threads.serial_below:
        planes_nb(flat, *view)
    else:
        _PLANES_COST.run(B, lambda: planes_nb(flat, *view),
                         lambda _t, lo, hi: planes_nb(flat[lo:hi], *[f[lo:hi] for f in view]))
    return out


class _CarpeDiemEncoder(Encoder):
    """Shared parts: the value range, the spatial planes."""

    low = -1.0
    high = 1.0
    plane_channels = PLANE_CHANNELS
    planes_shape = (SEATS, NUM_PLANE_CHANNELS, GRID, GRID)

    def planes(self, view: Any, out: np.ndarray | None = None) -> np.ndarray:
        """(B, 4, 74, 6, 6) float32 district planes (channels: PLANE_CHANNELS); writes into `out` if given."""
        return planes(view, out)

    def plane_space(self) -> Any:
        """The single-row planes space (gymnasium Box in [0, 1])."""
        import gymnasium

        return gymnasium.spaces.Box(low=0.0, high=1.0, shape=self.planes_shape, dtype=np.float32)


class CompactEncoder(_CarpeDiemEncoder):
    """The default: 3,231 float32 (COMPACT_BLOCKS), tiles as 12-value codes, self first, padded to 4 seats;
    `planes(view)` gives the districts as (B, 4, 74, 6, 6) images."""

    name = "compact"
    blocks = COMPACT_BLOCKS
    seat_blocks = tuple(name for name, _, _ in COMPACT_SEAT_BLOCKS)
    kind = "compact"
    row = "encode_compact_row"


class FullEncoder(_CarpeDiemEncoder):
    """12,796 float32 (FULL_BLOCKS), every tile one-hot per port (TILE_FEAT); self first, padded to 4 seats;
    `planes(view)` as for the compact kind."""

    name = "full"
    blocks = FULL_BLOCKS
    seat_blocks = tuple(name for name, _, _ in FULL_SEAT_BLOCKS)
    kind = "full"
    row = "encode_full_row"
    offsets = "AT_FULL"


ENCODERS: dict[str, type[_CarpeDiemEncoder]] = {"compact": CompactEncoder, "full": FullEncoder}
DEFAULT = CompactEncoder  # construct with the configured game: DEFAULT(game)


def make_encoder(game: Any, kind: str = "compact") -> _CarpeDiemEncoder:
    """The encoder of `kind` (ENCODERS: "compact", the default, or "full") for a configured game."""
    return encoder_of_kind(ENCODERS, kind, game, "Carpe Diem")
