"""Observation encoders for Attika (rules section 16): window planes over the hex map, then vectors.

Built from the rules' `View` only (the public map, displays, stacks, supplies, every seat's card count
and the viewer's own cards), so they cannot leak hidden information: no other hand's composition, no
draw pile contents, no stack order. Per-seat blocks are seat-major (4, ...): slot 0 is the viewer,
slot k the player k seats clockwise; slots beyond the player count are zero. Values lie in [0, 1]:
counts are divided by their maximum (copies of a type, stack size, 15 cards of a kind, ...) or by a
typical maximum and clipped.

Two kinds, chosen by name with `make_encoder(game, kind)` (`ENCODERS`; the AEC env's `encoder=`). Both
start with channel-major planes over the 625 slots of the 25 x 25 window, so

    planes = encoder.planes(obs)   # (..., C, 25, 25), channels encoder.plane_names

gives images: pixel [q + 12, r + 12] is the axial hex (q, r) (data.slot: slot = (q + 12) * 25 + (r + 12),
and slot h is the action SLOT + h); its six neighbours are the pixels at (+-1, 0), (0, +-1), (+1, -1)
and (-1, +1), i.e. a 3 x 3 convolution sees them all (plus two non-neighbours). Both then hold the same
vector blocks (VECTOR_BLOCKS), written by one kernel helper (`_vectors`).

**"compact"** (`CompactEncoder`, the default, COMPACT_BLOCKS: NUM_CHANNELS planes + the vectors, 6,098
values): one value per channel and slot, 0 off the map (only `target` marks hexes off it):

    0 land    1 a field of a map tile (empty or built), 0.5 a shrine
    1 symbol  landscape symbol of the field: W 0.25, F 0.5, H 0.75, M 1.0 (0 blank)
    2 own     the viewer's building stands on the field
    3 other   another seat's building: relative seat k = 1..3 gives (4 - k) / 3
    4 type    (t + 1) / 25 for a building of type t (data.BUILDING_NAMES order, any owner)
    5 linked  a building: shrines its settlement touches / 2, clipped
    6 sigma   an empty field: landscape symbols on it and on its neighbouring fields without a building
              (the cost reduction a building there gets) / 7
    7 site    an empty field: 1 if a building the viewer may build now (display types, or the revealed
              one while deciding PENDING_REVEAL) is free there by the building order, else 0.5 if the
              viewer can afford one of them there, else 0
    8 target  the legal tile centres while the viewer places a tile (PLACE_TILE), or the pending slot
              (the chosen centre in CHOOSE_ROTATION, the site being paid in PAY)

The kernel gets a zeroed row and visits only the map, in one pass: the 7 hexes of every placed tile
and the shrines, about 1/5 the memory traffic of the planes kind (and `target` only inside the box the
tile-placement mask searches, `kernels.tile_search_box`). For `site` it finds the set of types the viewer
may build once per row, keeps only the types no other one of the set undercuts (UNDERCUT_BY), and:
marks 1 on the empty fields next to each own building whose successor is in the set (free by the building
order), writes 0.5 everywhere else when one of the set is affordable on any field, and otherwise tests
each field for all types of the set at once from the state's symbol counts `sigma` (the cost lanes of
`kernels.cost_lanes`, which the action masks use too), reading the field's neighbours only when the
new-settlement surcharge decides it. `kernels.site_ok`, type by type, stays for cost data that does not
fit the lanes.

**"planes"** (`PlanesEncoder`, PLANES_BLOCKS: NUM_PLANES one-hot planes + the vectors, 29,223 values),
for convolutional policies; `valid` marks the hexagonal window (radius 12), every plane is 0 outside it:

    0 valid          hex inside the window
    1 field          a field of a map tile (blank or with a symbol)
    2 shrine         a shrine
    3-6 symbol       landscape symbol W, F, H, M of the field
    7-10 seat        a building of relative seat 0..3 (seat block: 0 = the viewer)
    11-35 type       building type 0..24 (data.BUILDING_NAMES) of the building on the field, any owner
    36 linked        the building's settlement touches a shrine (0.5) or more (1.0: a won game)
    37-40 sigma      empty fields: landscape symbols W, F, H, M on the field and on its neighbouring
                     fields without a building (the cost reduction a building there gets) / 4, clipped
    41 own_adjacent  empty field next to a viewer's building (building there founds no new settlement)
    42 free_display  empty field where some building the viewer may build now (display types, or the
                     revealed one) is free by the building order
    43 buildable     empty field where the viewer can afford some of those buildings with their hand
    44 tile_centre   while the viewer places a tile (PLACE_TILE): the legal centres, else 0
    45 pending_slot  the chosen tile centre (CHOOSE_ROTATION) or the site being paid (PAY)

The viewer's cost features (compact `sigma`, `site`, `target`; planes 37-45) come from the rules' own
helpers (`own_adjacent`, `free_by_order`, `can_build`, `tile_centre_ok`) and the map fields `land` and
`owner`, so they agree with the action mask by construction: `site > 0` (compact) and `buildable`
(planes) restricted to the selected type are the CHOOSE_FIELD mask.

**Vectors** (VECTOR_BLOCKS, after the planes in both kinds): per seat (SEAT_BLOCKS) hand size, display
and map counts per type, stack sizes, unrevealed main buildings (the exact set: the main stack holds
exactly the main buildings neither on the display nor on the map) and unrevealed other buildings per
type (the union of stacks 1-3), amphorae, groups rewarded, settlements, buildings placed, shrines
touched by the best settlement, start player and seat to play; then (GLOBAL_BLOCKS) the viewer's hand,
supplies (amphorae, draw pile size, discard pile per type, tiles left), the flow (decision, mode,
actions left, pending type, the face-up tile's fields one-hot over blank/W/F/H/M at rotation 0 while it
is being placed, the explicit payment queue), round / max_rounds and the configuration flags.

One numba row kernel per kind (`encode_compact_row`, `encode_planes_row`) writes every block of one row
at its offset in the kind's table by name (`AT.<block>` for compact, `AT_PLANES.<block>` for planes; the
shared vector helper writes at `base + VEC.<block>`); the batch loops and each kind's fused AEC step are
generated from them (envs/codegen.py: `encode_<kind>_nb`, `step_observe_<kind>_nb` in envs/attika/entries.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.encoders.base import Encoder, block_offsets, encoder_of_kind, seat_flags, seat_of
from meeple.envs.attika.data import (
    AMPHORAE, BUILDINGS_PER_PLAYER, CARDS_PER_LANDSCAPE, COPIES, COST, DEC_CHOOSE_ROTATION, DEC_PAY,
    DEC_PENDING_REVEAL, DEC_PLACE_TILE, FIELDS_PER_TILE, FLOWER, IS_MAIN, LAND_NONE, LAND_SHRINE, LAND_SYMBOL,
    MAX_PLAYERS, NEIGHBOURS, NUM_CARDS, NUM_DECISIONS, NUM_GROUPS, NUM_LANDSCAPES, NUM_SLOTS, NUM_STACKS, NUM_TILES,
    NUM_TYPES, PREDECESSOR, ROAD, SHRINE_SLOTS, SLOT_VALID, STACK_SIZE, TILE_FACE, TILE_PLACED, TILE_STACK, WINDOW_SIDE,
)
from meeple.envs.attika.kernels import (
    can_build, free_by_order, is_field, lanes_paid, own_adjacent, popcount4, road_paid, symbol_of, tile_centre_ok,
    tile_search_box, unrevealed,
)
from meeple.envs.attika import kernels as K
from meeple.envs.attika.state import MAX_SPECIFIC
from meeple.envs.jit import kernel, lowest_bit, prefetch_row

SEATS = MAX_PLAYERS
SIDE = WINDOW_SIDE  # 25
MAIN_TYPES = np.flatnonzero(IS_MAIN).astype(np.int64)  # the 6 main buildings, in type order
OTHER_TYPES = np.flatnonzero(~IS_MAIN).astype(np.int64)  # the 19 other types
NUM_MAIN_TYPES = MAIN_TYPES.shape[0]
NUM_OTHER_TYPES = OTHER_TYPES.shape[0]
INV_COPIES = (1.0 / COPIES).astype(np.float64)
INV_STACK = (1.0 / STACK_SIZE).astype(np.float64)
VALID = SLOT_VALID.astype(np.float32)

# scales (a typical maximum; values are clipped to [0, 1])
HAND_SCALE = 15.0
OWN_HAND_SCALE = 10.0
AMPHORA_SCALE = 4.0
SETTLEMENT_SCALE = 8.0
SIGMA_SCALE = 4.0  # planes kind, per symbol
SIGMA_TOTAL = float(FIELDS_PER_TILE)  # compact kind: all symbols on a site and its 6 neighbours (at most 7)
# compact kind's per-field values by table (a float division per field was a measurable share of the kernel)
SIGMA_VALUE = np.array([n / SIGMA_TOTAL for n in range(4 * 7 + 1)], dtype=np.float64)  # index: symbols counted
OTHER_VALUE = np.array([0.0] + [(MAX_PLAYERS - k) / 3.0 for k in range(1, MAX_PLAYERS)], dtype=np.float64)
TYPE_VALUE = np.array([(t + 1.0) / NUM_TYPES for t in range(NUM_TYPES)], dtype=np.float64)
PAY_SCALE = 10.0


def _undercut_by() -> np.ndarray:
    """(NUM_TYPES,) int64 bit sets: type u is in UNDERCUT_BY[t] if u costs at most what t does in every
    landscape (ties: the lower type id). Where t is not free by the building order, its requirement is
    COST[t] less the site's symbols plus the same settlement cards as u's (kernels.requirement), so an
    affordable t means an affordable u: `site` tests only the types no other type of the set undercuts.
    The road (5 cards of any kind less every symbol) is compared with nothing."""
    out = np.zeros(NUM_TYPES, dtype=np.int64)
    for t in range(NUM_TYPES):
        for u in range(NUM_TYPES):
            if t != u and ROAD not in (t, u) and (COST[u] <= COST[t]).all() \
                    and ((COST[u] < COST[t]).any() or u < t):
                out[t] |= 1 << u
    return out


UNDERCUT_BY = _undercut_by()
# bit PREDECESSOR[t] (0 for main buildings): building t is free by order only next to an own building of that type
PREDECESSOR_BIT = np.array([1 << int(q) if q >= 0 else 0 for q in PREDECESSOR], dtype=np.int64)

# ================================================================================================
# Block tables
# ================================================================================================

# --- the compact kind's planes: one value per channel and slot -----------------------------------

CHANNEL_NAMES: tuple[str, ...] = ("land", "symbol", "own", "other", "type", "linked", "sigma", "site", "target")
NUM_CHANNELS = len(CHANNEL_NAMES)  # 9

COMPACT_PLANE_BLOCKS: list[tuple[str, tuple[int, ...], str]] = [
    ("land", (1, SIDE, SIDE), "channel 0: 1 a field of a map tile (empty or built), 0.5 a shrine"),
    ("symbol", (1, SIDE, SIDE), "channel 1: landscape symbol of the field, W 0.25, F 0.5, H 0.75, M 1 (0 blank)"),
    ("own", (1, SIDE, SIDE), "channel 2: 1 where the viewer's building stands"),
    ("other", (1, SIDE, SIDE), "channel 3: another seat's building, relative seat k = 1..3 gives (4 - k) / 3"),
    ("type", (1, SIDE, SIDE), "channel 4: (t + 1) / 25 for a building of type t (any owner)"),
    ("linked", (1, SIDE, SIDE), "channel 5: shrines touched by the building's settlement / 2, clipped"),
    ("sigma", (1, SIDE, SIDE),
     "channel 6: empty fields: symbols on the site and its neighbouring fields without a building / 7"),
    ("site", (1, SIDE, SIDE),
     "channel 7: empty fields: 1 a building the viewer may build now (display, or the revealed one) is free by "
     "order, else 0.5 the viewer can afford one of them"),
    ("target", (1, SIDE, SIDE),
     "channel 8: legal centres of the face-up tile while the viewer places it; the chosen centre "
     "(CHOOSE_ROTATION) or the site being paid (PAY)"),
]
assert tuple(name for name, _, _ in COMPACT_PLANE_BLOCKS) == CHANNEL_NAMES

# --- the planes kind's planes: one-hot features, several planes per block ------------------------

PLANE_NAMES: tuple[str, ...] = (
    ("valid", "field", "shrine")
    + tuple(f"symbol_{k}" for k in "WFHM")
    + tuple(f"seat_{k}" for k in range(SEATS))
    + tuple(f"type_{t}" for t in range(NUM_TYPES))
    + ("linked",)
    + tuple(f"sigma_{k}" for k in "WFHM")
    + ("own_adjacent", "free_display", "buildable", "tile_centre", "pending_slot")
)
NUM_PLANES = len(PLANE_NAMES)  # 46

PLANE_BLOCKS: list[tuple[str, tuple[int, ...], str]] = [
    ("valid", (1, SIDE, SIDE), "plane 0: 1 inside the hexagonal window (radius 12)"),
    ("field", (1, SIDE, SIDE), "plane 1: a field of a map tile"),
    ("shrine", (1, SIDE, SIDE), "plane 2: a shrine"),
    ("symbol", (NUM_LANDSCAPES, SIDE, SIDE), "planes 3-6: landscape symbol W, F, H, M of the field"),
    ("seat_buildings", (SEATS, SIDE, SIDE), "planes 7-10: a building of relative seat k (0 = viewer)"),
    ("building_type", (NUM_TYPES, SIDE, SIDE), "planes 11-35: type of the building on the field (any owner)"),
    ("linked", (1, SIDE, SIDE), "plane 36: shrines touched by the building's settlement / 2, clipped"),
    ("sigma", (NUM_LANDSCAPES, SIDE, SIDE),
     "planes 37-40: empty fields: symbols W, F, H, M on the site and its neighbouring fields without a building / 4, clipped"),
    ("own_adjacent", (1, SIDE, SIDE), "plane 41: empty field next to a viewer's building"),
    ("free_display", (1, SIDE, SIDE),
     "plane 42: empty field where a building the viewer may build now (display, or the revealed one) is free by order"),
    ("buildable", (1, SIDE, SIDE), "plane 43: empty field where the viewer can afford one of those buildings"),
    ("tile_centre", (1, SIDE, SIDE), "plane 44: legal centres of the face-up tile while the viewer places it"),
    ("pending_slot", (1, SIDE, SIDE), "plane 45: the chosen tile centre (CHOOSE_ROTATION) or the site being paid"),
]
assert sum(shape[0] for _, shape, _ in PLANE_BLOCKS) == NUM_PLANES

# --- the vectors, the same in both kinds ---------------------------------------------------------

SEAT_BLOCKS: list[tuple[str, tuple[int, ...], str]] = [
    ("present", (SEATS,), "1 if the seat is in the game"),
    ("is_start_player", (SEATS,), "1 for the start player"),
    ("is_to_play", (SEATS,), "1 for the seat that decides now"),
    ("hand_size", (SEATS,), "landscape cards held / 15, clipped"),
    ("display", (SEATS, NUM_TYPES), "buildings waiting on the display per type / copies"),
    ("built", (SEATS, NUM_TYPES), "buildings on the map per type / copies"),
    ("stack_size", (SEATS, NUM_STACKS), "face-down buildings per stack / its size before the setup (6, 8, 8, 8)"),
    ("unrevealed_main", (SEATS, NUM_MAIN_TYPES), "1 per main building (types 0, 3, 6, 10, 12, 14) still in the main stack"),
    ("unrevealed_other", (SEATS, NUM_OTHER_TYPES), "other buildings per type still in stacks 1-3 / copies (non-main types in order)"),
    ("amphorae", (SEATS,), "amphorae held / 4, clipped"),
    ("rewarded", (SEATS, NUM_GROUPS), "1 per group that has earned its amphora"),
    ("settlements", (SEATS,), "settlements on the map / 8, clipped"),
    ("placed", (SEATS,), "buildings on the map / 30"),
    ("shrines_touched", (SEATS,), "most shrines one settlement of the seat touches / 2, clipped"),
]
GLOBAL_BLOCKS: list[tuple[str, tuple[int, ...], str]] = [
    ("own_hand", (NUM_LANDSCAPES,), "the viewer's cards W, F, H, M / 10, clipped"),
    ("num_players", (3,), "one-hot P = 2..4"),
    ("amphora_supply", (1,), "amphorae in the supply / 15"),
    ("draw_size", (1,), "cards in the draw pile / 60"),
    ("discard", (NUM_LANDSCAPES,), "discard pile W, F, H, M / 15"),
    ("tiles_left", (1,), "tiles in the face-down tile stack / 22"),
    ("decision", (NUM_DECISIONS,), "one-hot pending decision (data.DECISION_NAMES)"),
    ("mode", (3,), "one-hot turn mode: none, reveal, build"),
    ("actions_left", (1,), "reveals or builds left of the allowance / 3"),
    ("pending_type", (NUM_TYPES,), "one-hot revealed building, type chosen for a build, or building being paid"),
    ("tile_up", (FIELDS_PER_TILE, 5),
     "face-up tile being placed: per field (centre, E, NE, NW, W, SW, SE at rotation 0) one-hot blank, W, F, H, M"),
    ("payment", (2 + NUM_LANDSCAPES,),
     "explicit payment queue: any-card units first / 10, specific units W, F, H, M / 2, any-card units after / 10 (clipped)"),
    ("round", (1,), "complete rounds / max_rounds"),
    ("variant", (2,), "1 for explicit payment; 1 for the settlement reading of group connection"),
]
VECTOR_BLOCKS = SEAT_BLOCKS + GLOBAL_BLOCKS

# --- the two layouts ----------------------------------------------------------------------------

COMPACT_BLOCKS: list[tuple[str, tuple[int, ...], str]] = COMPACT_PLANE_BLOCKS + VECTOR_BLOCKS
PLANES_BLOCKS: list[tuple[str, tuple[int, ...], str]] = PLANE_BLOCKS + VECTOR_BLOCKS
COMPACT_SEAT_BLOCK_NAMES = tuple(name for name, _, _ in SEAT_BLOCKS)
PLANES_SEAT_BLOCK_NAMES = ("seat_buildings",) + COMPACT_SEAT_BLOCK_NAMES

AT = block_offsets(COMPACT_BLOCKS, "CompactOffsets")  # AT.<block>: the block's first index in a compact row
AT_PLANES = block_offsets(PLANES_BLOCKS, "PlanesOffsets")  # AT_PLANES.<block>: in a planes row
VEC = block_offsets(VECTOR_BLOCKS, "VectorOffsets")  # VEC.<block>: from the first vector block (`present`)
CHANNELS = slice(0, NUM_CHANNELS * NUM_SLOTS)  # compact: obs[..., CHANNELS] reshapes to (NUM_CHANNELS, 25, 25)
PLANES = slice(0, NUM_PLANES * NUM_SLOTS)  # planes: obs[..., PLANES] reshapes to (NUM_PLANES, 25, 25)
assert AT.present == CHANNELS.stop and AT.target == (NUM_CHANNELS - 1) * NUM_SLOTS
assert AT_PLANES.present == PLANES.stop and AT_PLANES.seat_buildings == 7 * NUM_SLOTS
assert AT_PLANES.pending_slot == (NUM_PLANES - 1) * NUM_SLOTS
assert all(AT.present + VEC[i] == AT[len(COMPACT_PLANE_BLOCKS) + i] for i in range(len(VEC)))
assert all(AT_PLANES.present + VEC[i] == AT_PLANES[len(PLANE_BLOCKS) + i] for i in range(len(VEC)))


# ================================================================================================
# Kernels
# ================================================================================================

@kernel(inline="always")
def _clip(x):
    return 1.0 if x > 1.0 else (0.0 if x < 0.0 else x)


@kernel(inline="always")
def _touch_shrines(row, at, rel, linked):
    """shrines_touched of relative seat rel (block offset `at`): the most shrines one of its settlements
    touches / 2 (the `linked` value of one of its buildings); the kinds' map loops call it per building."""
    if linked > row[at + rel]:
        row[at + rel] = linked


@kernel
def _vectors(v, b, row, base, me, P, explicit_pay, group_settlement, max_rounds):
    """Write the VECTOR_BLOCKS of row b at `base + VEC.<block>` (base: the kind's offset of `present`) into
    a zeroed `row`, except shrines_touched, which the kinds' map loops write (`_touch_shrines`). Shared by
    both kinds."""
    dec = np.int64(v.decision[b])
    hand = v.own_hand[b]
    # --- per seat ---
    seat_flags(v, b, row, me, P, SEATS, base + VEC.present, base + VEC.is_start_player, base + VEC.is_to_play)
    for slot in range(P):
        q = seat_of(me, slot, P)
        row[base + VEC.hand_size + slot] = _clip(v.hand_size[b, q] / HAND_SCALE)
        for t in range(NUM_TYPES):
            row[base + VEC.display + slot * NUM_TYPES + t] = v.display[b, q, t] * INV_COPIES[t]
            row[base + VEC.built + slot * NUM_TYPES + t] = v.built[b, q, t] * INV_COPIES[t]
        for st in range(NUM_STACKS):
            row[base + VEC.stack_size + slot * NUM_STACKS + st] = v.stack_size[b, q, st] * INV_STACK[st]
        for i in range(NUM_MAIN_TYPES):
            row[base + VEC.unrevealed_main + slot * NUM_MAIN_TYPES + i] = unrevealed(v, b, q, MAIN_TYPES[i])
        for i in range(NUM_OTHER_TYPES):
            t = OTHER_TYPES[i]
            row[base + VEC.unrevealed_other + slot * NUM_OTHER_TYPES + i] = unrevealed(v, b, q, t) * INV_COPIES[t]
        row[base + VEC.amphorae + slot] = _clip(v.amphorae[b, q] / AMPHORA_SCALE)
        for g in range(NUM_GROUPS):
            row[base + VEC.rewarded + slot * NUM_GROUPS + g] = 1.0 if v.rewarded[b, q, g] else 0.0
        row[base + VEC.settlements + slot] = _clip(v.settlements[b, q] / SETTLEMENT_SCALE)
        row[base + VEC.placed + slot] = v.placed[b, q] / BUILDINGS_PER_PLAYER
    # --- global ---
    for k in range(NUM_LANDSCAPES):
        row[base + VEC.own_hand + k] = _clip(hand[k] / OWN_HAND_SCALE)
        row[base + VEC.discard + k] = v.discard[b, k] / CARDS_PER_LANDSCAPE
    row[base + VEC.num_players + P - 2] = 1.0
    row[base + VEC.amphora_supply] = v.amphora_supply[b] / AMPHORAE
    row[base + VEC.draw_size] = v.draw_size[b] / NUM_CARDS
    n = 0
    for x in range(NUM_TILES):
        if v.tile_state[b, x] == TILE_STACK:
            n += 1
    row[base + VEC.tiles_left] = n / NUM_TILES
    row[base + VEC.decision + dec] = 1.0
    row[base + VEC.mode + np.int64(v.mode[b])] = 1.0
    row[base + VEC.actions_left] = v.actions_left[b] / 3.0
    if v.pending_type[b] >= 0:
        row[base + VEC.pending_type + np.int64(v.pending_type[b])] = 1.0
    x = v.tile_up[b]
    if x >= 0:
        for j in range(FIELDS_PER_TILE):
            f = np.int64(TILE_FACE[x, j])
            row[base + VEC.tile_up + j * 5 + (f - LAND_SYMBOL + 1 if f >= LAND_SYMBOL else 0)] = 1.0
    row[base + VEC.payment] = _clip(v.pay_front[b] / PAY_SCALE)
    for k in range(NUM_LANDSCAPES):
        row[base + VEC.payment + 1 + k] = v.pay_spec[b, k] / MAX_SPECIFIC
    row[base + VEC.payment + 1 + NUM_LANDSCAPES] = _clip(v.pay_any[b] / PAY_SCALE)
    row[base + VEC.round] = _clip(v.round[b] / max_rounds)
    row[base + VEC.variant] = 1.0 if explicit_pay else 0.0
    row[base + VEC.variant + 1] = 1.0 if group_settlement else 0.0


@kernel(inline="always")
def _pending_slot(v, b, dec):
    """The chosen tile centre (CHOOSE_ROTATION) or the site being paid (PAY), else -1."""
    ps = np.int64(v.pending_slot[b])
    if ps >= 0 and not v.done[b] and (dec == DEC_CHOOSE_ROTATION or dec == DEC_PAY):
        return ps
    return -1


@kernel(inline="always")
def _revealed(v, b, me, dec):
    """The building the viewer is deciding about in PENDING_REVEAL (it may build it now), else -1."""
    if v.to_play[b] == me and not v.done[b] and dec == DEC_PENDING_REVEAL:
        return np.int64(v.pending_type[b])
    return -1


@kernel
def encode_compact_row(v, b, row, explicit_pay, group_settlement, max_rounds):
    """Fill the zeroed row of view row b, each block at its COMPACT_BLOCKS offset `AT.<block>`: only the map's
    fields (placed tiles' footprints, shrines) are written."""
    P = v.display.shape[1]
    if b + 1 < v.display.shape[0]:  # the next row's map, loading while this one is written (kernels.prefetch)
        prefetch_row(v.owner, b + 1)
        prefetch_row(v.land, b + 1)
        prefetch_row(v.building, b + 1)
        prefetch_row(v.sigma, b + 1)
        prefetch_row(v.settlement_shrines, b + 1)
    me = np.int64(v.viewer[b])  # int64 offsets also without the JIT
    hand = v.own_hand[b]
    dec = np.int64(v.decision[b])
    deciding = v.to_play[b] == me and not v.done[b]
    # the building types the viewer may build now (its display, or the revealed one), and the types of its
    # buildings on the map (its `built` counts): bit sets, once per row
    revealed = _revealed(v, b, me, dec)
    mine = np.int64(0)
    own_types = np.int64(0)
    for t in range(NUM_TYPES):
        if v.display[b, me, t] > 0 or t == revealed:
            mine |= np.int64(1) << t
        if v.built[b, me, t] > 0:
            own_types |= np.int64(1) << t
    cheapest = mine  # for affordability, less the types another one of the set undercuts
    for t in range(NUM_TYPES):
        if (mine >> t) & 1 and mine & UNDERCUT_BY[t]:
            cheapest &= ~(np.int64(1) << t)
    # the types of the set that can be free somewhere: the viewer has built their predecessor
    freeable = np.int64(0)
    for t in range(NUM_TYPES):
        if (mine >> t) & 1 and own_types & PREDECESSOR_BIT[t]:
            freeable |= np.int64(1) << t
    # sigma and site of an empty field are tested on the packed inputs the masks' helper `kernels.site_ok`
    # reads: the symbol counts `sigma` (3 bits per landscape) and the viewer's own building types next to it
    pred_bits = np.int64(0)  # a field next to an own building of one of these types makes a type of the set free
    for t in range(NUM_TYPES):
        if (freeable >> t) & 1:
            pred_bits |= PREDECESSOR_BIT[t]
    settlements = np.int64(v.settlements[b, me])
    anywhere = False  # some type of the set is affordable on any empty field (full cost, new settlement)
    for t in range(NUM_TYPES):
        if (cheapest >> t) & 1 and K.site_ok(np.int64(0), t, hand[0], hand[1], hand[2], hand[3], settlements):
            anywhere = True
            break
    # the types of the set as cost lanes (kernels.cost_lanes): one test per field for all of them
    hand_size = np.int64(hand[0]) + hand[1] + hand[2] + hand[3]
    lanes, table, complete = K.cost_lanes(cheapest, hand[0], hand[1], hand[2], hand[3])
    road = ((cheapest >> ROAD) & 1) != 0
    by_lanes = K.COST_LANES_FIT and complete
    # --- the map: one pass over the 7 fields of every placed tile (the bit sets above come from counts,
    # not from a first pass over the buildings: two passes over the map were 7% more of this kernel) ---
    for x in range(NUM_TILES):
        if v.tile_state[b, x] != TILE_PLACED:
            continue
        c = np.int64(v.tile_centre[b, x])
        for j in range(FIELDS_PER_TILE):
            h = np.int64(FLOWER[c, j])
            row[AT.land + h] = 1.0
            k = symbol_of(v.land[b, h])
            if k >= 0:
                row[AT.symbol + h] = (k + 1) * 0.25
            o = np.int64(v.owner[b, h])
            if o >= 0:  # a building
                t = np.int64(v.building[b, h])
                rel = o - me if o >= me else o - me + P
                if rel == 0:
                    row[AT.own + h] = 1.0
                else:
                    row[AT.other + h] = OTHER_VALUE[rel]
                row[AT.type + h] = TYPE_VALUE[t]
                linked = _clip(popcount4(v.settlement_shrines[b, h]) * 0.5)
                row[AT.linked + h] = linked
                _touch_shrines(row, AT.shrines_touched, rel, linked)
                if by_lanes and rel == 0 and (pred_bits >> t) & 1:  # a type of the set is free next to it
                    for d in range(6):
                        n = NEIGHBOURS[h, d]
                        if n >= 0 and v.owner[b, n] < 0 and is_field(v.land[b, n]):
                            row[AT.site + n] = 1.0
                continue
            # an empty field
            sig = np.int64(v.sigma[b, h])
            row[AT.sigma + h] = SIGMA_VALUE[(sig & 7) + ((sig >> 3) & 7) + ((sig >> 6) & 7) + ((sig >> 9) & 7)]
            if mine == 0:
                continue
            if by_lanes:
                if row[AT.site + h] == 1.0:  # marked from an own building: free by the building order
                    continue
                if anywhere:
                    row[AT.site + h] = 0.5
                elif (lanes_paid(sig, hand_size - settlements, lanes, table) != 0
                      or road and road_paid(sig, hand_size, settlements)):
                    row[AT.site + h] = 0.5  # affordable even founding a new settlement
                elif (settlements > 0 and (lanes_paid(sig, hand_size, lanes, table) != 0
                                           or road and road_paid(sig, hand_size, 0))
                      and own_adjacent(v, b, me, h)):
                    row[AT.site + h] = 0.5  # affordable next to an own building (no surcharge)
                continue
            if pred_bits == 0 and anywhere:  # nothing of the set is free anywhere, something affordable everywhere
                row[AT.site + h] = 0.5
                continue
            adj = np.int64(0)
            for d in range(6):
                n = NEIGHBOURS[h, d]
                if n >= 0 and v.owner[b, n] == me:
                    adj |= np.int64(1) << v.building[b, n]
            if adj & pred_bits:
                row[AT.site + h] = 1.0
            elif anywhere:
                row[AT.site + h] = 0.5
            else:
                info = sig | (adj << K.SITE_PRED)
                if adj != 0:
                    info |= np.int64(1) << K.SITE_ADJ
                rest = cheapest  # its set bits only: a loop over all 25 types per field was a tenth of the kernel
                while rest != 0:
                    t = lowest_bit(rest)
                    rest &= rest - 1
                    if K.site_ok(info, t, hand[0], hand[1], hand[2], hand[3], settlements):
                        row[AT.site + h] = 0.5
                        break
    for i in range(P):  # the shrines
        h = np.int64(SHRINE_SLOTS[P, i])
        if v.land[b, h] >= LAND_SHRINE:
            row[AT.land + h] = 0.5
    # --- the tile being placed ---
    if deciding and dec == DEC_PLACE_TILE:  # the slots the mask's search box holds (kernels.tile_search_box)
        i0, i1, j0, j1 = tile_search_box(v, b)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                if tile_centre_ok(v, b, i * SIDE + j):
                    row[AT.target + i * SIDE + j] = 1.0
    ps = _pending_slot(v, b, dec)
    if ps >= 0:
        row[AT.target + ps] = 1.0
    _vectors(v, b, row, AT.present, me, P, explicit_pay, group_settlement, max_rounds)


@kernel
def encode_planes_row(v, b, row, explicit_pay, group_settlement, max_rounds):
    """Fill the zeroed row of view row b, each block at its PLANES_BLOCKS offset `AT_PLANES.<block>`."""
    P = v.display.shape[1]
    me = np.int64(v.viewer[b])  # int64 offsets also without the JIT (int8 * 625 overflows)
    hand = v.own_hand[b]
    deciding = v.to_play[b] == me and not v.done[b]
    dec = np.int64(v.decision[b])
    revealed = _revealed(v, b, me, dec)
    placing = deciding and dec == DEC_PLACE_TILE
    for h in range(NUM_SLOTS):
        land = v.land[b, h]
        row[AT_PLANES.valid + h] = VALID[h]
        if placing and tile_centre_ok(v, b, h):
            row[AT_PLANES.tile_centre + h] = 1.0
        if land == LAND_NONE:
            continue
        if land >= LAND_SHRINE:
            row[AT_PLANES.shrine + h] = 1.0
            continue
        row[AT_PLANES.field + h] = 1.0
        k = np.int64(symbol_of(land))
        if k >= 0:
            row[AT_PLANES.symbol + k * NUM_SLOTS + h] = 1.0
        o = v.owner[b, h]
        if o >= 0:
            rel = o - me if o >= me else o - me + P
            row[AT_PLANES.seat_buildings + rel * NUM_SLOTS + h] = 1.0
            row[AT_PLANES.building_type + np.int64(v.building[b, h]) * NUM_SLOTS + h] = 1.0
            linked = _clip(popcount4(v.settlement_shrines[b, h]) * 0.5)
            row[AT_PLANES.linked + h] = linked
            _touch_shrines(row, AT_PLANES.shrines_touched, rel, linked)
            continue
        # an empty field: the viewer's cost features
        sig = np.int64(v.sigma[b, h])  # the state's symbol counts on the field and its empty neighbours
        row[AT_PLANES.sigma + h] = _clip((sig & 7) / SIGMA_SCALE)
        row[AT_PLANES.sigma + NUM_SLOTS + h] = _clip(((sig >> 3) & 7) / SIGMA_SCALE)
        row[AT_PLANES.sigma + 2 * NUM_SLOTS + h] = _clip(((sig >> 6) & 7) / SIGMA_SCALE)
        row[AT_PLANES.sigma + 3 * NUM_SLOTS + h] = _clip(((sig >> 9) & 7) / SIGMA_SCALE)
        if own_adjacent(v, b, me, h):
            row[AT_PLANES.own_adjacent + h] = 1.0
        free = False
        afford = False
        for t in range(NUM_TYPES):
            if v.display[b, me, t] <= 0 and t != revealed:
                continue
            if not free and free_by_order(v, b, me, t, h):
                free = True
            if not afford and can_build(v, b, me, t, h, hand):
                afford = True
            if free and afford:
                break
        row[AT_PLANES.free_display + h] = 1.0 if free else 0.0
        row[AT_PLANES.buildable + h] = 1.0 if afford else 0.0
    ps = _pending_slot(v, b, dec)
    if ps >= 0:
        row[AT_PLANES.pending_slot + ps] = 1.0
    _vectors(v, b, row, AT_PLANES.present, me, P, explicit_pay, group_settlement, max_rounds)


# ================================================================================================
# Encoder classes
# ================================================================================================

class _AttikaEncoder(Encoder):
    """Shared parts: the configuration arguments of the kinds' row kernels and the planes view of encoded
    rows."""

    low = 0.0
    high = 1.0
    helpers = (("_vectors", "VEC"),)  # both kinds end with VECTOR_BLOCKS, written by one helper
    plane_names: tuple[str, ...] = ()
    planes_shape: tuple[int, int, int] = (0, SIDE, SIDE)

    def row_args(self, game: Any) -> dict[str, Any]:
        c = game.config
        return {"explicit_pay": c.payment == "explicit", "group_settlement": c.group_connection == "settlement",
                "max_rounds": int(c.max_rounds)}

    def planes(self, obs: np.ndarray) -> np.ndarray:
        """The spatial part of encoded rows (..., size) as a (..., C, 25, 25) view (no copy; channels
        `plane_names`)."""
        C = self.planes_shape[0]
        return obs[..., :C * NUM_SLOTS].reshape(*obs.shape[:-1], C, SIDE, SIDE)


class CompactEncoder(_AttikaEncoder):
    """The default: 6,098 float32 (COMPACT_BLOCKS), NUM_CHANNELS window channels (CHANNEL_NAMES) valued in
    [0, 1], then the vectors; self first, padded to 4 seats."""

    name = "compact"
    blocks = COMPACT_BLOCKS
    seat_blocks = COMPACT_SEAT_BLOCK_NAMES
    plane_names = CHANNEL_NAMES
    planes_shape = (NUM_CHANNELS, SIDE, SIDE)
    kind = "compact"
    row = "encode_compact_row"


class PlanesEncoder(_AttikaEncoder):
    """29,223 float32 (PLANES_BLOCKS), NUM_PLANES one-hot window planes (PLANE_NAMES) for convolutional
    policies, then the vectors; self first, padded to 4 seats."""

    name = "planes"
    blocks = PLANES_BLOCKS
    seat_blocks = PLANES_SEAT_BLOCK_NAMES
    plane_names = PLANE_NAMES
    planes_shape = (NUM_PLANES, SIDE, SIDE)
    kind = "planes"
    row = "encode_planes_row"
    offsets = "AT_PLANES"


ENCODERS: dict[str, type[_AttikaEncoder]] = {"compact": CompactEncoder, "planes": PlanesEncoder}
DEFAULT = CompactEncoder  # construct with the configured game: DEFAULT(game)


def make_encoder(game: Any, kind: str = "compact") -> _AttikaEncoder:
    """The encoder of `kind` (ENCODERS: "compact", the default, or "planes") for a configured game."""
    return encoder_of_kind(ENCODERS, kind, game, "Attika")
