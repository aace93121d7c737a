"""Attika's data: buildings, map tiles, setup layouts, the hex window, decisions, actions, randomness.

Everything the rules leave to the physical components (building costs, tile faces, setup layouts, the
names of some buildings and the arrows of the City group) is a project value: the tables below are that
data, read by the kernels and never typed into them, so verified figures can replace them without a
change of logic. docs/attika.md explains each choice.

Landscape types (cards and map symbols) are indexed W = 0 (water), F = 1 (forest), H = 2 (hill),
M = 3 (mountain) everywhere.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.core import GameInfo, action_names_from_groups
from meeple.envs.jit import hex_flowers, hex_window

MIN_PLAYERS, MAX_PLAYERS = 2, 4

# --- landscape cards -----------------------------------------------------------------------------------
LANDSCAPES = ("W", "F", "H", "M")
LANDSCAPE_NAMES = ("water", "forest", "hill", "mountain")
NUM_LANDSCAPES = 4
CARDS_PER_LANDSCAPE = 15  # 60 cards, 15 of each type
NUM_CARDS = NUM_LANDSCAPES * CARDS_PER_LANDSCAPE

# --- buildings -----------------------------------------------------------------------------------------
# thematic groups, in the order of the display board
GROUP_NAMES = ("defence", "seafaring", "supply", "coinage", "viticulture", "city", "roads")
NUM_GROUPS = len(GROUP_NAMES)
(G_DEFENCE, G_SEAFARING, G_SUPPLY, G_COINAGE, G_VITICULTURE, G_CITY, G_ROADS) = range(NUM_GROUPS)

# (name, group, main building, copies, base cost W F H M, predecessor type or -1). Costs, the
# Lighthouse, the Coinage names, the Temple as the City main building, the Village in Supply and every
# City arrow are project values; Quarry -> Fortress -> Towers and "a road next to an own road is free"
# are the rules' own; Harbour -> Ships, Vineyard -> Vintner and Well -> Cornfield -> Mill -> Village
# follow published descriptions of the game. Every colour has the same 30 buildings.
_BUILDINGS = (
    ("Quarry", G_DEFENCE, True, 1, (0, 0, 1, 2), -1),
    ("Fortress", G_DEFENCE, False, 1, (0, 1, 2, 1), 0),
    ("Tower", G_DEFENCE, False, 2, (0, 1, 0, 2), 1),
    ("Harbour", G_SEAFARING, True, 1, (2, 1, 0, 0), -1),
    ("Ship", G_SEAFARING, False, 2, (2, 1, 0, 0), 3),
    ("Lighthouse", G_SEAFARING, False, 1, (1, 0, 1, 1), 3),
    ("Well", G_SUPPLY, True, 1, (2, 0, 1, 0), -1),
    ("Cornfield", G_SUPPLY, False, 1, (1, 0, 2, 0), 6),
    ("Mill", G_SUPPLY, False, 1, (1, 1, 1, 0), 7),
    ("Village", G_SUPPLY, False, 1, (1, 2, 1, 0), 8),
    ("Silver mine", G_COINAGE, True, 1, (0, 1, 0, 2), -1),
    ("Mint", G_COINAGE, False, 1, (1, 1, 1, 1), 10),
    ("Vineyard", G_VITICULTURE, True, 1, (1, 0, 2, 0), -1),
    ("Vintner", G_VITICULTURE, False, 1, (1, 1, 1, 0), 12),
    ("Temple", G_CITY, True, 1, (0, 1, 1, 2), -1),
    ("Oracle", G_CITY, False, 1, (0, 0, 2, 1), 14),
    ("Agora", G_CITY, False, 1, (1, 0, 1, 1), 14),
    ("Statue", G_CITY, False, 1, (0, 0, 0, 2), 15),
    ("Theatre", G_CITY, False, 1, (0, 1, 1, 1), 16),
    ("Tavern", G_CITY, False, 1, (1, 1, 0, 0), 16),
    ("Stoa", G_CITY, False, 1, (0, 1, 0, 1), 16),
    ("Gymnasium", G_CITY, False, 1, (1, 1, 1, 0), 18),
    ("Library", G_CITY, False, 1, (1, 2, 0, 0), 20),
    ("Palace", G_CITY, False, 1, (1, 1, 1, 1), 22),
    ("Road", G_ROADS, False, 4, (0, 0, 0, 0), 24),
)
NUM_TYPES = len(_BUILDINGS)
BUILDING_NAMES = tuple(b[0] for b in _BUILDINGS)
BUILDING_GROUP = np.array([b[1] for b in _BUILDINGS], dtype=np.int8)
IS_MAIN = np.array([b[2] for b in _BUILDINGS], dtype=np.bool_)
COPIES = np.array([b[3] for b in _BUILDINGS], dtype=np.int8)
COST = np.array([b[4] for b in _BUILDINGS], dtype=np.int8)  # (K, 4) specific cards W F H M
PREDECESSOR = np.array([b[5] for b in _BUILDINGS], dtype=np.int8)  # arrow into the type; -1 for main buildings
ROAD = NUM_TYPES - 1
ROAD_COST = 5  # a road costs 5 cards of any kind, less every landscape symbol around its site
BUILDINGS_PER_PLAYER = int(COPIES.sum())  # 30: placing them all wins
GROUP_SIZE = np.array([int(COPIES[BUILDING_GROUP == g].sum()) for g in range(NUM_GROUPS)], dtype=np.int8)
NUM_MAIN = int(IS_MAIN.sum())  # 6: the main stack
NUM_NON_MAIN = BUILDINGS_PER_PLAYER - NUM_MAIN  # 24: stacks 1-3 of 8
NUM_STACKS = 4  # stack 0 = main buildings, stacks 1-3 = the others
STACK_SIZE = np.array([NUM_MAIN, 8, 8, 8], dtype=np.int8)  # before the setup reveals
assert (PREDECESSOR[IS_MAIN] == -1).all() and (PREDECESSOR[~IS_MAIN] >= 0).all()
assert BUILDINGS_PER_PLAYER == 30 and NUM_NON_MAIN == int(STACK_SIZE[1:].sum())
assert all(BUILDING_GROUP[PREDECESSOR[t]] == BUILDING_GROUP[t] for t in range(NUM_TYPES) if PREDECESSOR[t] >= 0)
assert ((COST * COPIES[:, None]).sum(axis=0) == 20).all()  # 20 symbols of each type per colour

AMPHORAE = 15  # the common supply

# --- the hex window (the whole map lives in it) --------------------------------------------------------
WINDOW_RADIUS = 12
WINDOW_SIDE = 2 * WINDOW_RADIUS + 1  # 25
NUM_SLOTS = WINDOW_SIDE * WINDOW_SIDE  # 625 slots; 469 lie in the window
SLOT_Q, SLOT_R, SLOT_VALID, NEIGHBOURS = hex_window(WINDOW_RADIUS)
FLOWER = hex_flowers(NEIGHBOURS)  # (S, 7): centre and ring in direction order
FLOWER_OK = (FLOWER >= 0).all(axis=1) & SLOT_VALID  # a tile centred here stays inside the window
# the 12 hexes at distance exactly 2 from each slot (-1 outside the window): a tile centred on the slot
# touches the map iff one of them is covered (its own 7 hexes being free)
RING2 = np.full((NUM_SLOTS, 12), -1, dtype=np.int64)
for _h in range(NUM_SLOTS):
    _ring = sorted({int(NEIGHBOURS[n, d]) for n in NEIGHBOURS[_h] if n >= 0 for d in range(6)}
                   - set(FLOWER[_h].tolist()) - {-1})
    RING2[_h, :len(_ring)] = _ring
NEIGHBOURS = NEIGHBOURS.astype(np.int16)
FLOWER = FLOWER.astype(np.int16)
RING2 = RING2.astype(np.int16)


def slot(q: int, r: int) -> int:
    """The window slot of axial hex (q, r)."""
    if max(abs(q), abs(r), abs(q + r)) > WINDOW_RADIUS:
        raise ValueError(f"hex ({q}, {r}) is outside the window of radius {WINDOW_RADIUS}")
    return (q + WINDOW_RADIUS) * WINDOW_SIDE + (r + WINDOW_RADIUS)


def hex_of(s: int) -> tuple[int, int]:
    """The axial (q, r) of window slot s."""
    return int(SLOT_Q[s]), int(SLOT_R[s])


# --- the map: what covers each slot (the `land` field) ------------------------------------------------------
LAND_NONE = 0  # nothing: not part of the map (yet)
LAND_BLANK = 1  # a field without a symbol
LAND_SYMBOL = 2  # 2..5: a field with symbol W, F, H, M (landscape = land - LAND_SYMBOL)
LAND_SHRINE = 6  # 6..9: shrine 0..3 (not buildable, no symbol)
NUM_LAND = LAND_SHRINE + MAX_PLAYERS

# --- map tiles ---------------------------------------------------------------------------------------------
# 22 flowers of 7 fields, project values: centre, then the ring in directions E, NE, NW, W, SW, SE at
# rotation 0 ("." = blank). 66 symbols (17 W, 17 F, 16 H, 16 M), 2-4 per tile, at most 2 equal.
TILE_CODES = (
    ".H..MHW", "FW....W", ".HM....", "WHM.H..", "H.F.F..", "W...F.M", ".W..M..", "...HM.W", ".F.FH.H", "MW....H",
    "H...WMF", "F.WM...", "H.WF..W", "..W.FW.", "...F..M", "...FF..", "....M.F", ".H.WF..", ".HH.F..", ".M..M..",
    "MW.M...", "F.WH..M",
)
NUM_TILES = len(TILE_CODES)
TILE_FACE = np.array([[LAND_BLANK if ch == "." else LAND_SYMBOL + LANDSCAPES.index(ch) for ch in code]
                      for code in TILE_CODES], dtype=np.int8)  # (22, 7) land codes at rotation 0
FIELDS_PER_TILE = 7
ROTATIONS = 6
assert [int(((TILE_FACE - LAND_SYMBOL) == k).sum()) for k in range(4)] == [17, 17, 16, 16]
# the tile's land at footprint position j when turned k times: ring field i lands on 1 + (i + k) % 6
ROTATED_FACE = np.zeros((NUM_TILES, ROTATIONS, FIELDS_PER_TILE), dtype=np.int8)
for _k in range(ROTATIONS):
    ROTATED_FACE[:, _k, 0] = TILE_FACE[:, 0]
    for _i in range(6):
        ROTATED_FACE[:, _k, 1 + (_i + _k) % 6] = TILE_FACE[:, 1 + _i]

# where each tile is (the `tile_state` field)
TILE_STACK, TILE_UP, TILE_PLACED, TILE_REMOVED = range(4)
TILE_STATE_NAMES = ("stack", "up", "placed", "removed")

# --- setup layouts per player count (project values) ------------------------------------------------------
# Tile centres in draw order on the interlocking lattice (a = (2, 1), b = (-1, 3)); one shrine per
# player in the outer notch of a corner tile, touching two of its fields.
_LAYOUTS = {
    2: (((0, -2), (2, -1), (-1, 1), (1, 2)), ((-1, -3), (2, 3))),
    3: (((-1, -3), (1, -2), (3, -1), (-2, 0), (0, 1), (-3, 3)), ((-2, -4), (5, -2), (-4, 5))),
    4: (((0, -4), (2, -3), (4, -2), (-1, -1), (1, 0), (-4, 1), (-2, 2), (0, 3)),
        ((1, -6), (6, -3), (-6, 2), (-1, 5))),
}
MAX_SETUP_TILES = 2 * MAX_PLAYERS
SETUP_TILES = np.zeros(MAX_PLAYERS + 1, dtype=np.int8)  # tiles laid at setup, by player count
SETUP_CENTRES = np.full((MAX_PLAYERS + 1, MAX_SETUP_TILES), -1, dtype=np.int16)
SHRINE_SLOTS = np.full((MAX_PLAYERS + 1, MAX_PLAYERS), -1, dtype=np.int16)
for _n, (_centres, _shrines) in _LAYOUTS.items():
    SETUP_TILES[_n] = len(_centres)
    SETUP_CENTRES[_n, :len(_centres)] = [slot(q, r) for q, r in _centres]
    SHRINE_SLOTS[_n, :len(_shrines)] = [slot(q, r) for q, r in _shrines]

# cards dealt at setup: the n-th player in turn order (from the start player, n = 1..P) draws 3 + n
FIRST_HAND = 4

# --- decisions (the `decision` field) ---------------------------------------------------------------------
NUM_DECISIONS = 10
(DEC_START, DEC_PENDING_REVEAL, DEC_PLACE_TILE, DEC_CHOOSE_ROTATION, DEC_REVEAL_MODE, DEC_BUILD_MODE,
 DEC_CHOOSE_FIELD, DEC_DRAW, DEC_PAY, DEC_GAME_OVER) = range(NUM_DECISIONS)
DECISION_NAMES = ("START", "PENDING_REVEAL", "PLACE_TILE", "CHOOSE_ROTATION", "REVEAL_MODE", "BUILD_MODE",
                  "CHOOSE_FIELD", "DRAW", "PAY", "GAME_OVER")
# the turn's mode (the `mode` field): fixed by the first reveal or build
MODE_NONE, MODE_REVEAL, MODE_BUILD = range(3)
MODE_NAMES = ("none", "reveal", "build")
REVEALS_PER_TURN = 2
BUILDS_PER_TURN = 3
CARDS_FOR_PASSING = 3  # a turn with neither a reveal nor a build

# --- actions ---------------------------------------------------------------------------------------------
# The factored encoding (default, 668 actions): a build is SELECT_TYPE(t) then SLOT(h); a tile placement
# is SLOT(h) then ROTATE(k); the immediate build of a revealed building is the single step SLOT(h).
ACTION_SELECT = 0  # 0..24: choose display type t
ACTION_SLOT = ACTION_SELECT + NUM_TYPES  # 25..649: window slot h
ACTION_ROTATE = ACTION_SLOT + NUM_SLOTS  # 650..655: rotation k of the tile whose centre was chosen
ACTION_REVEAL = ACTION_ROTATE + ROTATIONS  # 656..659: reveal from own stack s
ACTION_STORE = ACTION_REVEAL + NUM_STACKS  # 660
ACTION_AMPHORA_CARD = ACTION_STORE + 1  # 661: spend an amphora, draw a card (ends the acting part)
ACTION_END_TURN = ACTION_AMPHORA_CARD + 1  # 662: draw cards for unused actions, next player
ACTION_PAY = ACTION_END_TURN + 1  # 663..666: explicit payment: hand over one card of type W/F/H/M
ACTION_SUBSTITUTE = ACTION_PAY + NUM_LANDSCAPES  # 667: explicit payment: two any cards for the current unit
NUM_ACTIONS = ACTION_SUBSTITUTE + 1  # 668

# The flat encoding (option actions="flat", 19,387 actions): a build is one action BUILD(t, h), a tile
# placement one action PLACE(h, k); the tail (reveal .. substitute) keeps its order.
FLAT_BUILD = 0  # t * 625 + h
FLAT_PLACE = FLAT_BUILD + NUM_TYPES * NUM_SLOTS  # 15625 + k * 625 + h
FLAT_TAIL = FLAT_PLACE + ROTATIONS * NUM_SLOTS  # 19375: REVEAL(s) ...
NUM_FLAT_ACTIONS = FLAT_TAIL + (NUM_ACTIONS - ACTION_REVEAL)  # 19387
assert NUM_ACTIONS == 668 and NUM_FLAT_ACTIONS == 19387


def _slot_fields(i: int) -> dict[str, object]:
    q, r = hex_of(i % NUM_SLOTS)
    return {"i": i, "q": q, "r": r, "k": i // NUM_SLOTS, "land": LANDSCAPES[i % NUM_LANDSCAPES],
            "name": BUILDING_NAMES[i % NUM_TYPES].replace(" ", "_"),
            "t": BUILDING_NAMES[min(i // NUM_SLOTS, NUM_TYPES - 1)].replace(" ", "_")}


_TAIL_GROUPS = (
    (ACTION_REVEAL, NUM_STACKS, "REVEAL_{i}", "START, REVEAL_MODE", "reveal the top building of own stack i (0 = main stack)"),
    (ACTION_STORE, 1, "STORE", "PENDING_REVEAL", "store the revealed building on the display"),
    (ACTION_AMPHORA_CARD, 1, "AMPHORA_CARD", "START, REVEAL_MODE, BUILD_MODE, DRAW",
     "return an amphora, draw 1 card at once (no reveal or build after it)"),
    (ACTION_END_TURN, 1, "END_TURN", "START, REVEAL_MODE, BUILD_MODE, DRAW",
     "draw 1 card per unused action (3 if neither revealed nor built), next player"),
    (ACTION_PAY, NUM_LANDSCAPES, "PAY_{land}", "PAY", "explicit payment: pay the current unit with a card of this type"),
    (ACTION_SUBSTITUTE, 1, "SUBSTITUTE", "PAY", "explicit payment: pay the current specific unit with two any cards"),
)

ACTION_GROUPS: tuple[tuple[int, int, str, str, str], ...] = (
    (ACTION_SELECT, NUM_TYPES, "SELECT_{name}", "START, BUILD_MODE", "choose the display building to build next"),
    (ACTION_SLOT, NUM_SLOTS, "SLOT_{q}_{r}", "CHOOSE_FIELD, PENDING_REVEAL, PLACE_TILE",
     "hex (q, r): the field to build on, or the centre of the face-up tile"),
    (ACTION_ROTATE, ROTATIONS, "ROTATE_{i}", "CHOOSE_ROTATION", "turn the tile i x 60 degrees counter-clockwise"),
    *_TAIL_GROUPS,
)

FLAT_ACTION_GROUPS: tuple[tuple[int, int, str, str, str], ...] = (
    (FLAT_BUILD, NUM_TYPES * NUM_SLOTS, "BUILD_{t}_{q}_{r}", "START, BUILD_MODE, PENDING_REVEAL",
     "build type t on hex (q, r) (index t * 625 + slot)"),
    (FLAT_PLACE, ROTATIONS * NUM_SLOTS, "PLACE_{q}_{r}_R{k}", "PLACE_TILE",
     "place the face-up tile centred on hex (q, r) turned k x 60 degrees (index 15625 + k * 625 + slot)"),
    *((first - ACTION_REVEAL + FLAT_TAIL, count, pattern, phase, meaning)
      for first, count, pattern, phase, meaning in _TAIL_GROUPS),
)


def action_names(num_actions: int = NUM_ACTIONS) -> tuple[str, ...]:
    """Symbolic name of every action index (action_to_str and the docs): the factored encoding for
    NUM_ACTIONS, the flat one for NUM_FLAT_ACTIONS."""
    if num_actions == NUM_FLAT_ACTIONS:
        return action_names_from_groups(FLAT_ACTION_GROUPS, NUM_FLAT_ACTIONS, _slot_fields)
    return action_names_from_groups(ACTION_GROUPS, num_actions, _slot_fields)


# --- randomness ----------------------------------------------------------------------------------------
# Every chance event (setup, a reveal, a tile drawn, a landscape card drawn) draws from a splitmix64
# stream seeded by the row's uniform, so one column carries any number of draws and the outcome stays a
# function of the uniforms passed in. Nothing random is stored in the state: face-down stacks, the
# landscape draw pile and the tile stack are kept as what they contain (their order is unknowable, so
# the next one is a uniform draw from the contents).
U_INIT_SEED = 0
UNIFORMS_AT_INIT = 1
U_STEP_SEED = 0
UNIFORMS_PER_STEP = 1

DEFAULT_MAX_ROUNDS = 150  # truncation: a draw after this many complete rounds (the rules have no stalemate rule)


def max_game_length(num_players: int, max_rounds: int = DEFAULT_MAX_ROUNDS) -> int:
    """An upper bound on decisions: per turn at most 2 reveals (+ pending, tile centre and rotation) or
    3 builds (select + slot each), plus every amphora (each buys one action or card, 15 in play plus one per
    group per player), and END_TURN."""
    per_turn = 4 * (REVEALS_PER_TURN + AMPHORAE) + 2
    return max_rounds * num_players * per_turn + 2 * NUM_GROUPS * num_players * 4


def info(num_players: int, flat: bool = False, max_rounds: int = DEFAULT_MAX_ROUNDS) -> GameInfo:
    """GameInfo for one configuration."""
    return GameInfo(name="attika", num_players=num_players, num_actions=NUM_FLAT_ACTIONS if flat else NUM_ACTIONS,
                    max_game_length=max_game_length(num_players, max_rounds), has_chance=True,
                    has_hidden_information=True)
