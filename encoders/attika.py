"""Observation encoder for Attika (rules section 16): spatial planes over the hex window, then vectors.

Built from the rules' `View` only (the public map, displays, stacks, supplies, every seat's card count
and the viewer's own cards), so it cannot leak hidden information: no other hand's composition, no
draw pile contents, no stack order. Per-seat blocks are seat-major (4, ...): slot 0 is the viewer,
slot k the player k seats clockwise; slots beyond the player count are zero. Values lie in [0, 1]:
counts are divided by their maximum (copies of a type, stack size, 15 cards of a kind, ...) or by a
typical maximum and clipped.

**Spatial planes.** The first NUM_PLANES * 625 values of a row are NUM_PLANES planes of the 25 x 25
window, one named block (or a few) after another, so

    planes = obs[..., PLANES].reshape(*obs.shape[:-1], NUM_PLANES, 25, 25)   # or encoder.planes(obs)

gives (C, 25, 25) images; PLANE_NAMES names channel c. Pixel [q + 12, r + 12] is the axial hex (q, r)
(data.slot: slot = (q + 12) * 25 + (r + 12)); its six neighbours are the pixels at (+-1, 0), (0, +-1),
(+1, -1) and (-1, +1), i.e. a 3 x 3 convolution sees them all (plus two non-neighbours). Slots outside
the hexagonal window of radius 12 are zero in every plane (`valid` marks the window). Channels:

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

Channels 41-43 come from the rules' own helpers (`own_adjacent`, `free_by_order`, `can_build`,
`tile_centre_ok`), so they agree with the action mask by construction: `buildable` restricted to the
selected type is the CHOOSE_FIELD mask.

**Vectors** (after the planes): per seat hand size, display and map counts per type, stack sizes,
unrevealed main buildings (the exact set: the main stack holds exactly the main buildings neither on
the display nor on the map) and unrevealed other buildings per type (the union of stacks 1-3),
amphorae, groups rewarded, settlements, buildings placed, shrines touched by the best settlement,
start player and seat to play; then the viewer's hand, supplies (amphorae, draw pile size, discard
pile per type, tiles left), the flow (decision, mode, actions left, pending type, the face-up tile's
fields one-hot over blank/W/F/H/M at rotation 0 while it is being placed, the explicit payment queue),
round / max_rounds and the configuration flags.

One numba kernel writes every block at its offset in BLOCKS by name (`AT.<block>`), for the whole batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.encoders.base import Encoder, block_offsets, seat_of
from meeple.envs.attika.data import (
    AMPHORAE, BUILDINGS_PER_PLAYER, CARDS_PER_LANDSCAPE, COPIES, DEC_CHOOSE_ROTATION, DEC_PAY,
    DEC_PENDING_REVEAL, DEC_PLACE_TILE, FIELDS_PER_TILE, FLOWER, IS_MAIN, LAND_NONE, LAND_SHRINE, LAND_SYMBOL,
    MAX_PLAYERS, NUM_CARDS, NUM_DECISIONS, NUM_GROUPS, NUM_LANDSCAPES, NUM_SLOTS, NUM_STACKS, NUM_TILES,
    NUM_TYPES, SLOT_VALID, STACK_SIZE, TILE_FACE, TILE_STACK, WINDOW_SIDE,
)
from meeple.envs.attika.kernels import (
    can_build, free_by_order, own_adjacent, popcount4, symbol_of, tile_centre_ok, unrevealed,
)
from meeple.envs.attika import kernels as K
from meeple.envs.attika.state import MAX_SPECIFIC, State, View
from meeple.envs.jit import kernel

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
SIGMA_SCALE = 4.0
PAY_SCALE = 10.0

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
SEAT_BLOCK_NAMES = ("seat_buildings",) + tuple(name for name, _, _ in SEAT_BLOCKS)

BLOCKS: list[tuple[str, tuple[int, ...], str]] = PLANE_BLOCKS + SEAT_BLOCKS + [
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

AT = block_offsets(BLOCKS)  # AT.<block>: the block's first index in a row
PLANES = slice(0, NUM_PLANES * NUM_SLOTS)  # obs[..., PLANES] reshapes to (NUM_PLANES, 25, 25)
assert AT.valid == 0 and AT.seat_buildings == 7 * NUM_SLOTS and AT.pending_slot == (NUM_PLANES - 1) * NUM_SLOTS


@kernel(inline="always")
def _clip(x):
    return 1.0 if x > 1.0 else (0.0 if x < 0.0 else x)


@kernel
def encode_nb(explicit_pay, group_settlement, max_rounds, out, *fields):
    """Fill out (B, size) from the View's fields, each block at its BLOCKS offset `AT.<block>`."""
    v = View(*fields)
    P = v.display.shape[1]
    for b in range(v.display.shape[0]):
        row = out[b]
        row[:] = 0.0
        me = np.int64(v.viewer[b])  # int64 offsets also without the JIT (int8 * 625 overflows)
        hand = v.own_hand[b]
        deciding = v.to_play[b] == me and not v.done[b]
        dec = np.int64(v.decision[b])
        # the building kinds the viewer may build now: its display, or the revealed one
        revealed = v.pending_type[b] if deciding and dec == DEC_PENDING_REVEAL else -1
        placing = deciding and dec == DEC_PLACE_TILE
        # --- planes ---
        for h in range(NUM_SLOTS):
            land = v.land[b, h]
            row[AT.valid + h] = VALID[h]
            if placing and tile_centre_ok(v, b, h):
                row[AT.tile_centre + h] = 1.0
            if land == LAND_NONE:
                continue
            if land >= LAND_SHRINE:
                row[AT.shrine + h] = 1.0
                continue
            row[AT.field + h] = 1.0
            k = np.int64(symbol_of(land))
            if k >= 0:
                row[AT.symbol + k * NUM_SLOTS + h] = 1.0
            o = v.owner[b, h]
            if o >= 0:
                rel = o - me if o >= me else o - me + P
                row[AT.seat_buildings + rel * NUM_SLOTS + h] = 1.0
                row[AT.building_type + np.int64(v.building[b, h]) * NUM_SLOTS + h] = 1.0
                row[AT.linked + h] = _clip(popcount4(v.settlement_shrines[b, h]) * 0.5)
                continue
            # an empty field: the viewer's cost features
            s0 = 0
            s1 = 0
            s2 = 0
            s3 = 0
            for j in range(FIELDS_PER_TILE):
                n = FLOWER[h, j]
                if n < 0 or (j > 0 and v.owner[b, n] >= 0):
                    continue
                kk = symbol_of(v.land[b, n])
                if kk == 0:
                    s0 += 1
                elif kk == 1:
                    s1 += 1
                elif kk == 2:
                    s2 += 1
                elif kk == 3:
                    s3 += 1
            row[AT.sigma + h] = _clip(s0 / SIGMA_SCALE)
            row[AT.sigma + NUM_SLOTS + h] = _clip(s1 / SIGMA_SCALE)
            row[AT.sigma + 2 * NUM_SLOTS + h] = _clip(s2 / SIGMA_SCALE)
            row[AT.sigma + 3 * NUM_SLOTS + h] = _clip(s3 / SIGMA_SCALE)
            if own_adjacent(v, b, me, h):
                row[AT.own_adjacent + h] = 1.0
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
            row[AT.free_display + h] = 1.0 if free else 0.0
            row[AT.buildable + h] = 1.0 if afford else 0.0
        ps = np.int64(v.pending_slot[b])
        if ps >= 0 and not v.done[b] and (dec == DEC_CHOOSE_ROTATION or dec == DEC_PAY):
            row[AT.pending_slot + ps] = 1.0
        # --- per seat ---
        for slot in range(SEATS):
            row[AT.present + slot] = 1.0 if slot < P else 0.0
        for slot in range(P):
            q = seat_of(me, slot, P)
            row[AT.is_start_player + slot] = 1.0 if q == v.start_player[b] else 0.0
            row[AT.is_to_play + slot] = 1.0 if q == v.to_play[b] and not v.done[b] else 0.0
            row[AT.hand_size + slot] = _clip(v.hand_size[b, q] / HAND_SCALE)
            for t in range(NUM_TYPES):
                row[AT.display + slot * NUM_TYPES + t] = v.display[b, q, t] * INV_COPIES[t]
                row[AT.built + slot * NUM_TYPES + t] = v.built[b, q, t] * INV_COPIES[t]
            for st in range(NUM_STACKS):
                row[AT.stack_size + slot * NUM_STACKS + st] = v.stack_size[b, q, st] * INV_STACK[st]
            for i in range(NUM_MAIN_TYPES):
                row[AT.unrevealed_main + slot * NUM_MAIN_TYPES + i] = unrevealed(v, b, q, MAIN_TYPES[i])
            for i in range(NUM_OTHER_TYPES):
                t = OTHER_TYPES[i]
                row[AT.unrevealed_other + slot * NUM_OTHER_TYPES + i] = unrevealed(v, b, q, t) * INV_COPIES[t]
            row[AT.amphorae + slot] = _clip(v.amphorae[b, q] / AMPHORA_SCALE)
            for g in range(NUM_GROUPS):
                row[AT.rewarded + slot * NUM_GROUPS + g] = 1.0 if v.rewarded[b, q, g] else 0.0
            row[AT.settlements + slot] = _clip(v.settlements[b, q] / SETTLEMENT_SCALE)
            row[AT.placed + slot] = v.placed[b, q] / BUILDINGS_PER_PLAYER
        for h in range(NUM_SLOTS):
            o = v.owner[b, h]
            if o >= 0:
                rel = o - me if o >= me else o - me + P
                x = _clip(popcount4(v.settlement_shrines[b, h]) * 0.5)
                if x > row[AT.shrines_touched + rel]:
                    row[AT.shrines_touched + rel] = x
        # --- global ---
        for k in range(NUM_LANDSCAPES):
            row[AT.own_hand + k] = _clip(hand[k] / OWN_HAND_SCALE)
            row[AT.discard + k] = v.discard[b, k] / CARDS_PER_LANDSCAPE
        row[AT.num_players + P - 2] = 1.0
        row[AT.amphora_supply] = v.amphora_supply[b] / AMPHORAE
        row[AT.draw_size] = v.draw_size[b] / NUM_CARDS
        n = 0
        for x in range(NUM_TILES):
            if v.tile_state[b, x] == TILE_STACK:
                n += 1
        row[AT.tiles_left] = n / NUM_TILES
        row[AT.decision + dec] = 1.0
        row[AT.mode + np.int64(v.mode[b])] = 1.0
        row[AT.actions_left] = v.actions_left[b] / 3.0
        if v.pending_type[b] >= 0:
            row[AT.pending_type + np.int64(v.pending_type[b])] = 1.0
        x = v.tile_up[b]
        if x >= 0:
            for j in range(FIELDS_PER_TILE):
                f = np.int64(TILE_FACE[x, j])
                row[AT.tile_up + j * 5 + (f - LAND_SYMBOL + 1 if f >= LAND_SYMBOL else 0)] = 1.0
        row[AT.payment] = _clip(v.pay_front[b] / PAY_SCALE)
        for k in range(NUM_LANDSCAPES):
            row[AT.payment + 1 + k] = v.pay_spec[b, k] / MAX_SPECIFIC
        row[AT.payment + 1 + NUM_LANDSCAPES] = _clip(v.pay_any[b] / PAY_SCALE)
        row[AT.round] = _clip(v.round[b] / max_rounds)
        row[AT.variant] = 1.0 if explicit_pay else 0.0
        row[AT.variant + 1] = 1.0 if group_settlement else 0.0


class AttikaEncoder(Encoder):
    """Flat float32 vector of named blocks (BLOCKS): NUM_PLANES window planes first (`planes(obs)` gives
    them as (B, C, 25, 25), channels PLANE_NAMES), then vectors; self first, padded to 4 seats."""

    name = "attika"
    blocks = BLOCKS
    seat_blocks = SEAT_BLOCK_NAMES
    low = 0.0
    high = 1.0
    plane_names = PLANE_NAMES
    planes_shape = (NUM_PLANES, SIDE, SIDE)

    def __init__(self, game: Any) -> None:
        super().__init__()
        c = game.config
        self._explicit_pay = c.payment == "explicit"
        self._group_settlement = c.group_connection == "settlement"
        self._max_rounds = int(c.max_rounds)

    def step_observe(self) -> tuple[Any, tuple]:
        """The fused AEC-step kernel of this encoder and its encoder arguments (`StepObserve`)."""
        return step_observe_nb, (self._explicit_pay, self._group_settlement, self._max_rounds)

    def encode(self, view: Any, out: np.ndarray | None = None) -> np.ndarray:
        """(B, size) float32 for a batch of views; writes into `out` if given."""
        out = self.output(view.viewer.shape[0], out)
        self.run(encode_nb, (self._explicit_pay, self._group_settlement, self._max_rounds), out, view)
        return out

    @staticmethod
    def planes(obs: np.ndarray) -> np.ndarray:
        """The spatial part of encoded rows (..., size) as a (..., NUM_PLANES, 25, 25) view (no copy)."""
        return obs[..., PLANES].reshape(*obs.shape[:-1], NUM_PLANES, SIDE, SIDE)


def make_encoder(game: Any) -> AttikaEncoder:
    """The default encoder for a configured game."""
    return AttikaEncoder(game)


DEFAULT = AttikaEncoder  # construct with the configured game: DEFAULT(game)


# --- one compiled call per AEC step -------------------------------------------------------------

@kernel
def step_observe_nb(actions, u, mask, viewer, own_hand, hand_size, draw_size, obs, enc_explicit_pay,
                    enc_group_settlement, enc_max_rounds, auto_forced, flat, explicit_pay, group_settlement,
                    max_rounds, stream, queue, label, sites, site_info, *fields):
    """One AEC step at batch size one in one compiled call: apply `actions[0]` with its uniforms (and the
    automatic steps), the new legal-action mask, and the encoded observation of the seat to play next
    (its seat written to viewer[0]), into the caller's buffers (`encoders.base.StepObserve`)."""
    K.apply_nb(actions, u, auto_forced, flat, explicit_pay, group_settlement, max_rounds, stream, queue, label, sites,
               site_info, *fields)
    K.legal_action_mask_nb(mask, flat, sites, site_info, *fields)
    s = State(*fields)
    viewer[0] = s.to_play[0]
    K.observe_nb(viewer, own_hand, hand_size, draw_size, *fields)
    encode_nb(enc_explicit_pay, enc_group_settlement, enc_max_rounds, obs, viewer, s.to_play, s.done, s.truncated,
              s.decision, s.winner, s.round, s.start_player, s.mode, s.actions_left, s.pending_type, s.pending_slot,
              s.tile_up, s.extend_pending, s.pay_front, s.pay_spec, s.pay_any, s.land, s.owner, s.building,
              s.settlement, s.settlement_shrines, s.sigma, s.adjacent, s.tile_state, s.tile_centre, s.tile_rot,
              s.display, s.stack_size, s.amphorae, s.rewarded, s.built, s.placed, s.settlements, s.amphora_supply,
              s.discard, own_hand, hand_size, draw_size)  # the View's field order
