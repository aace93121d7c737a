"""Static data for Carpe Diem (Stefan Feld, alea 2018, 2nd edition, as played on Yucata.de).

Every table follows the rules summarised in docs/carpe_diem.md. Tables marked [PD] are project data
that replace printed contents the project does not have: they live here so the
printed values can replace them without touching a code path. Tables are numpy arrays that numba
kernels read as frozen globals; never mutate them.

Index orders used everywhere:
- goods / landscapes: 0 grapes/vineyard, 1 herbs/garden, 2 chickens/chicken yard, 3 fish/pond.
- feature kinds (= fountain card kinds FC00..FC11): 0 vineyard, 1 garden, 2 chicken yard,
  3 pond, 4 merchant, 5 baker, 6 administrator, 7 craftsman lodging, 8 market, 9 bakery,
  10 fountain, 11 villa.
- port labels: 0 meadow `.`, 1 villa `V`, 2..5 lodging halves `m b a c`,
  6..9 landscapes `W G H P`.
- tile ids: 0..83 = L01..L84 (light), 84..122 = D01..D39 (dark).
- scoring cards: 0..11 = A01..A12, 12..22 = B01..B11, 23..32 = C01..C10, 33..59 = D01..D27.
- cells: 6 * r + c on the owner's 6 x 6 board; sides N, E, S, W = 0..3.

Ports of a tile, clockwise from the west half of the north edge:

            port0  port1
          +------+------+
    port7 |             | port2
    port6 |             | port3
          +------+------+
            port5  port4

The action layout (232 actions) is `ACTION_GROUPS`; docs/carpe_diem.md shows it.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.core import GameInfo, action_names_from_groups

MIN_PLAYERS, MAX_PLAYERS = 2, 4
NUM_PHASES = 4
ROUNDS_PER_PHASE = 7
NUM_SPACES = 7  # circle spaces with one depot each
DEPOT_SLOTS = 4
DISPLAY_SLOTS = 11  # bottom display
NUM_CELLS = 36
GRID = 6
NUM_SIDES = 4
NUM_PORTS = 8

# --- goods, features, labels -----------------------------------------------------------------
NUM_GOODS = 4
GOOD_NAMES = ("grapes", "herbs", "chickens", "fish")
LANDSCAPE_NAMES = ("vineyard", "garden", "chicken yard", "pond")
NUM_FEATURES = 12
(VINEYARD, GARDEN, CHICKEN_YARD, POND, MERCHANT, BAKER, ADMINISTRATOR, CRAFTSMAN,
 MARKET, BAKERY, FOUNTAIN, VILLA) = range(NUM_FEATURES)
FEATURE_NAMES = ("vineyard", "garden", "chicken yard", "pond", "merchant lodging", "baker lodging",
                 "administrator lodging", "craftsman lodging", "market", "bakery", "fountain", "villa")
FEATURE_SHORT = ("vine", "gard", "chick", "pond", "merch", "baker", "admin", "craft", "market", "bakery",
                 "fount", "villa")
NUM_FOUNTAIN_KINDS = 12  # fountain card kind k scores 2 VP per item of feature kind k
FOUNTAIN_COPIES = 2
FOUNTAIN_CARD_VP = 2

NUM_LABELS = 10
LABEL_CHARS = ".Vmbac" + "WGHP"
MEADOW, VILLA_LABEL = 0, 1
# feature kind of each port label (-1 meadow)
LABEL_FEATURE = np.array([-1, VILLA, MERCHANT, BAKER, ADMINISTRATOR, CRAFTSMAN, VINEYARD, GARDEN, CHICKEN_YARD, POND],
                         dtype=np.int8)
CENTRE_NONE, CENTRE_MARKET, CENTRE_BAKERY, CENTRE_FOUNTAIN = range(4)
CENTRE_CHARS = " MBF"
CENTRE_FEATURE = np.array([-1, MARKET, BAKERY, FOUNTAIN], dtype=np.int8)

# --- building tiles [PD] ----------------------------------------------------------------------
# (ids, copies, category, ports "N E S W" = ports 0..7 in order, centre M/B/F or "", chimneys)
TILE_TABLE: tuple[tuple[str, int, str, str, str, int], ...] = (
    ("L01", 1, "A", "mm .. .. ..", "M", 0),
    ("L02", 1, "A", "bb .. .. ..", "M", 0),
    ("L03", 1, "A", "aa .. .. ..", "M", 0),
    ("L04", 1, "A", "cc .. .. ..", "B", 0),
    ("L05", 1, "A", "mm .. .. ..", "B", 0),
    ("L06", 1, "A", "bb .. .. ..", "B", 0),
    ("L07", 1, "A", "aa .. .. ..", "F", 0),
    ("L08", 1, "A", "cc .. .. ..", "F", 0),
    ("L09", 1, "B", ".W W. .. ..", "M", 0),
    ("L10", 1, "B", ".G .. .. ..", "M", 0),
    ("L11", 1, "B", ".. H. .. ..", "M", 0),
    ("L12", 1, "B", ".P P. .. ..", "B", 0),
    ("L13", 1, "B", ".. W. .. ..", "B", 0),
    ("L14", 1, "B", ".G G. .. ..", "F", 0),
    ("L15", 1, "B", ".H .. .. ..", "F", 0),
    ("L16", 1, "B", ".P .. .. ..", "F", 0),
    ("L17", 1, "C", "VV .. .. ..", "M", 1),
    ("L18", 1, "C", "VV .. .. ..", "M", 2),
    ("L19", 1, "C", "VV .. .. ..", "B", 1),
    ("L20", 1, "C", "VV .. .. ..", "B", 2),
    ("L21", 1, "C", "VV .. .. ..", "B", 1),
    ("L22", 1, "C", "VV .. .. ..", "F", 2),
    ("L23", 1, "C", "VV .. .. ..", "F", 1),
    ("L24", 1, "C", "VV .. .. ..", "F", 2),
    ("L25", 1, "D", "VV .. mm ..", "", 1),
    ("L26", 1, "D", "VV .. bb ..", "", 1),
    ("L27", 1, "D", "VV .. aa ..", "", 1),
    ("L28", 1, "D", "VV mm .. ..", "", 2),
    ("L29", 1, "D", "VV bb .. ..", "", 2),
    ("L30", 1, "D", "VV cc .. ..", "", 2),
    ("L31", 1, "D", "VV VV mm ..", "", 2),
    ("L32", 1, "D", "VV VV aa ..", "", 2),
    ("L33", 1, "D", "VV VV cc ..", "", 2),
    ("L34", 1, "D", "VV bb VV ..", "", 2),
    ("L35", 1, "D", "VV aa VV ..", "", 2),
    ("L36", 1, "D", "VV cc VV ..", "", 2),
    ("L37", 1, "E", "VV .W W. ..", "", 1),
    ("L38", 1, "E", "VV .G G. ..", "", 1),
    ("L39", 1, "E", "VV .H H. ..", "", 1),
    ("L40", 1, "E", "VV .W .. ..", "", 2),
    ("L41", 1, "E", "VV .H .. ..", "", 2),
    ("L42", 1, "E", "VV .P .. ..", "", 2),
    ("L43", 1, "E", "VV VV .. G.", "", 2),
    ("L44", 1, "E", "VV VV .. H.", "", 2),
    ("L45", 1, "E", "VV VV .. P.", "", 2),
    ("L46", 1, "E", "VV .. W. ..", "", 1),
    ("L47", 1, "E", "VV .. G. ..", "", 1),
    ("L48", 1, "E", "VV .. P. ..", "", 1),
    ("L49", 1, "G", "mm .. bb ..", "", 0),
    ("L50", 1, "G", "aa .. cc ..", "", 0),
    ("L51", 1, "G", "mm aa .. ..", "", 0),
    ("L52", 1, "G", "bb cc .. ..", "", 0),
    ("L53", 1, "H", ".W W. .G ..", "", 0),
    ("L54", 1, "H", ".. H. .P P.", "", 0),
    ("L55", 1, "H", ".W .. H. ..", "", 0),
    ("L56", 1, "H", "G. .P .. ..", "", 0),
    ("L57", 1, "F", "mm .W W. ..", "", 0),
    ("L58", 1, "F", "bb .. .W W.", "", 0),
    ("L59", 1, "F", "bb .W W. ..", "", 0),
    ("L60", 1, "F", "aa .W .. ..", "", 0),
    ("L61", 1, "F", "aa .. .W ..", "", 0),
    ("L62", 1, "F", "cc .. W. ..", "", 0),
    ("L63", 1, "F", "cc W. .. ..", "", 0),
    ("L64", 1, "F", "mm .G G. ..", "", 0),
    ("L65", 1, "F", "mm .. .G G.", "", 0),
    ("L66", 1, "F", "bb .G G. ..", "", 0),
    ("L67", 1, "F", "aa .. .G G.", "", 0),
    ("L68", 1, "F", "aa .G .. ..", "", 0),
    ("L69", 1, "F", "cc .. .. .G", "", 0),
    ("L70", 1, "F", "cc .. G. ..", "", 0),
    ("L71", 1, "F", "mm .H H. ..", "", 0),
    ("L72", 1, "F", "mm .. .H H.", "", 0),
    ("L73", 1, "F", "bb .H H. ..", "", 0),
    ("L74", 1, "F", "bb .. .H H.", "", 0),
    ("L75", 1, "F", "aa .H H. ..", "", 0),
    ("L76", 1, "F", "cc .. .H ..", "", 0),
    ("L77", 1, "F", "cc .. .. .H", "", 0),
    ("L78", 1, "F", "mm .P P. ..", "", 0),
    ("L79", 1, "F", "mm .. .P P.", "", 0),
    ("L80", 1, "F", "bb .P P. ..", "", 0),
    ("L81", 1, "F", "bb .. .P P.", "", 0),
    ("L82", 1, "F", "aa .P .. ..", "", 0),
    ("L83", 1, "F", "aa .. P. ..", "", 0),
    ("L84", 1, "F", "cc P. .. ..", "", 0),
    ("D01-D03", 3, "DV", "VV .. .. ..", "", 3),
    ("D04-D06", 3, "DV", "VV VV .. ..", "", 3),
    ("D07-D08", 2, "DV", "VV .. VV ..", "", 2),
    ("D09-D10", 2, "DV", "VV VV VV ..", "", 3),
    ("D11", 1, "DV", "VV VV VV VV", "", 4),
    ("D12-D14", 3, "DL", "mm .. .. ..", "", 0),
    ("D15-D17", 3, "DL", "bb .. .. ..", "", 0),
    ("D18-D20", 3, "DL", "aa .. .. ..", "", 0),
    ("D21-D23", 3, "DL", "cc .. .. ..", "", 0),
    ("D24", 1, "DK", ".W W. .. ..", "", 0),
    ("D25", 1, "DK", ".W .. .. ..", "", 0),
    ("D26", 1, "DK", ".G G. .. ..", "", 0),
    ("D27", 1, "DK", ".. G. .. ..", "", 0),
    ("D28", 1, "DK", ".H H. .. ..", "", 0),
    ("D29", 1, "DK", ".. H. .. ..", "", 0),
    ("D30", 1, "DK", ".P P. .. ..", "", 0),
    ("D31", 1, "DK", ".P .. .. ..", "", 0),
    ("D32-D34", 3, "DS", ".. .. .. ..", "M", 0),
    ("D35-D37", 3, "DS", ".. .. .. ..", "B", 0),
    ("D38-D39", 2, "DS", ".. .. .. ..", "F", 0),
)
NUM_LIGHT, NUM_DARK = 84, 39
NUM_TILES = NUM_LIGHT + NUM_DARK
LIGHT_PER_PHASE = 28  # one phase's depots: 7 x 4


def _expand_tiles() -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, list[str]]:
    names, ports, centre, chimneys, cats = [], [], [], [], []
    for ids, n, cat, text, ctr, ch in TILE_TABLE:
        first = int(ids[1:3])
        for k in range(n):
            names.append(f"{ids[0]}{first + k:02d}")
            ports.append([LABEL_CHARS.index(x) for x in text.replace(" ", "")])
            centre.append(" MBF".index(ctr) if ctr else CENTRE_NONE)
            chimneys.append(ch)
            cats.append(cat)
    return (names, np.array(ports, dtype=np.int8), np.array(centre, dtype=np.int8),
            np.array(chimneys, dtype=np.int8), cats)


TILE_NAMES, TILE_PORTS, TILE_CENTRE, TILE_CHIMNEYS, TILE_CATEGORY = _expand_tiles()
TILE_NAMES = tuple(TILE_NAMES)
TILE_CATEGORY = tuple(TILE_CATEGORY)
TILE_IS_DARK = np.arange(NUM_TILES) >= NUM_LIGHT
assert TILE_PORTS.shape == (NUM_TILES, NUM_PORTS) and TILE_NAMES[NUM_LIGHT] == "D01"

# corner of each port: NE owns {1, 2}, SE {3, 4}, SW {5, 6}, NW {7, 0}
PORT_CORNER = np.array([3, 0, 0, 1, 1, 2, 2, 3], dtype=np.int8)
PORT_SIDE = np.array([0, 0, 1, 1, 2, 2, 3, 3], dtype=np.int8)
# the port of the orthogonal neighbour that port p touches: 0<->5, 1<->4, 2<->7, 3<->6
PORT_MATCH = np.array([5, 4, 7, 6, 1, 0, 3, 2], dtype=np.int8)
SIDE_DR = np.array([-1, 0, 1, 0], dtype=np.int8)
SIDE_DC = np.array([0, 1, 0, -1], dtype=np.int8)


def _rotated_ports() -> np.ndarray:
    """ROT_PORTS[t, rot, p]: label at port p after `rot` clockwise quarter turns:
    the label at port (p + 2 rot) mod 8 is the one that was at port p)."""
    out = np.zeros((NUM_TILES, 4, NUM_PORTS), dtype=np.int8)
    for rot in range(4):
        for p in range(NUM_PORTS):
            out[:, rot, (p + 2 * rot) % NUM_PORTS] = TILE_PORTS[:, p]
    return out


def _segment_roots() -> np.ndarray:
    """SEGMENT_ROOT[t, p]: lowest port of the segment port p belongs to, in the unrotated tile; -1 meadow.

    Segments: all villa ports of a tile form one segment; a lodging half is both ports of
    one side; landscape ports of one kind at one corner form one section.
    """
    out = np.full((NUM_TILES, NUM_PORTS), -1, dtype=np.int8)
    for t in range(NUM_TILES):
        for p in range(NUM_PORTS):
            lab = TILE_PORTS[t, p]
            if lab == MEADOW:
                continue
            for q in range(NUM_PORTS):
                if TILE_PORTS[t, q] != lab:
                    continue
                same = (lab == VILLA_LABEL or (2 <= lab <= 5 and PORT_SIDE[q] == PORT_SIDE[p])
                        or (lab >= 6 and PORT_CORNER[q] == PORT_CORNER[p]))
                if same:
                    out[t, p] = q
                    break
    return out


ROT_PORTS = _rotated_ports()
SEGMENT_ROOT = _segment_roots()
# ROT_SEGMENT_ROOT[t, rot, q]: the canonical port (lowest unrotated port, turned) of the segment that
# port q of tile t turned rot belongs to; -1 for meadow (pre-rotated port tables)
ROT_SEGMENT_ROOT = np.full((NUM_TILES, 4, NUM_PORTS), -1, dtype=np.int8)
for _rot in range(4):
    for _q in range(NUM_PORTS):
        _p0 = (_q - 2 * _rot) % NUM_PORTS
        _root = SEGMENT_ROOT[:, _p0]
        ROT_SEGMENT_ROOT[:, _rot, _q] = np.where(_root >= 0, (_root + 2 * _rot) % NUM_PORTS, -1)
# side codes for fast matching: SIDE_OUT[t, rot, s] = 10 * label(2s) + label(2s + 1) and
# SIDE_IN[t, rot, s] = 10 * label(2s + 1) + label(2s). A tile X matches its neighbour N across side s
# iff SIDE_OUT[X, s] == SIDE_IN[N, (s + 2) % 4] (port 2s faces port match(2s) = N's port 2(s+2)+1);
# the frame requires SIDE_OUT == 0 (meadow on both ports).
SIDE_OUT = (10 * ROT_PORTS[:, :, 0::2] + ROT_PORTS[:, :, 1::2]).astype(np.int8)
SIDE_IN = (10 * ROT_PORTS[:, :, 1::2] + ROT_PORTS[:, :, 0::2]).astype(np.int8)


def _check_tiles() -> None:
    """The tile set's totals by kind and the edge-model constraints (half-edge ports; lodging halves and
    villa segments fill whole sides; landscapes sit at corners; centre buildings have no ports; every villa
    segment has a chimney)."""
    light, dark = slice(0, NUM_LIGHT), slice(NUM_LIGHT, NUM_TILES)
    for rng, lodging, land, villas, chim, centres in ((light, 14, 14, 32, 51, (8, 8, 8)), (dark, 3, 2, 11, 32, (3, 3, 2))):
        ports, roots = TILE_PORTS[rng], SEGMENT_ROOT[rng]
        for lab in range(2, 6):
            assert ((ports == lab) & (roots == np.arange(NUM_PORTS))).sum() == lodging
        for lab in range(6, 10):
            assert ((ports == lab) & (roots == np.arange(NUM_PORTS))).sum() == land
        assert (ports == VILLA_LABEL).any(axis=1).sum() == villas and TILE_CHIMNEYS[rng].sum() == chim
        assert tuple((TILE_CENTRE[rng] == c).sum() for c in (1, 2, 3)) == centres
    for t in range(NUM_TILES):
        for s in range(NUM_SIDES):  # villa and lodging ports come in whole sides
            a, b = TILE_PORTS[t, 2 * s], TILE_PORTS[t, 2 * s + 1]
            assert (a in (1, 2, 3, 4, 5) or b in (1, 2, 3, 4, 5)) <= (a == b)
        assert ((TILE_PORTS[t] == VILLA_LABEL).any()) == (TILE_CHIMNEYS[t] > 0)


_check_tiles()

# --- villa VP by chimneys [PD] ----------------------------------------------------------------
MAX_CHIMNEYS = int(TILE_CHIMNEYS.sum())
_VILLA_ANCHORS = (0, 0, 1, 3, 5, 7, 9, 11, 13, 15, 18, 20, 22, 24, 26)  # k = 0..14
VILLA_VP = np.array([_VILLA_ANCHORS[k] if k <= 14 else 26 + 2 * (k - 14) for k in range(MAX_CHIMNEYS + 1)],
                    dtype=np.int16)

# --- frame parts and tasks [PD] ----------------------------------------------------------------
NUM_FRAME_PARTS = 16
FRAME_POSITION_VP = np.array([5, 4, 3, 3, 4, 5], dtype=np.int16)
# per part: two tasks (feature kind, position k along the part clockwise)
FRAME_TASKS = np.array([
    [[VILLA, 0], [MERCHANT, 4]],           # F01
    [[VILLA, 2], [VINEYARD, 5]],           # F02
    [[BAKER, 1], [VILLA, 2]],              # F03
    [[VILLA, 4], [GARDEN, 0]],             # F04
    [[VINEYARD, 1], [ADMINISTRATOR, 3]],   # F05
    [[VINEYARD, 3], [CRAFTSMAN, 0]],       # F06
    [[GARDEN, 0], [ADMINISTRATOR, 5]],     # F07
    [[GARDEN, 3], [CHICKEN_YARD, 1]],      # F08
    [[CHICKEN_YARD, 2], [MERCHANT, 5]],    # F09
    [[CHICKEN_YARD, 5], [BAKER, 0]],       # F10
    [[POND, 0], [MERCHANT, 3]],            # F11
    [[POND, 1], [CRAFTSMAN, 4]],           # F12
    [[POND, 3], [BAKER, 2]],               # F13
    [[MERCHANT, 4], [BAKER, 1]],           # F14
    [[ADMINISTRATOR, 1], [CRAFTSMAN, 2]],  # F15
    [[ADMINISTRATOR, 5], [CRAFTSMAN, 0]],  # F16
], dtype=np.int8)
TASKS_PER_PART = 2
TASKS_PER_PLAYER = NUM_SIDES * TASKS_PER_PART  # task index 2 * side + j


def task_line(side: int, position: int) -> tuple[bool, int]:
    """(is_row, index) of the line a task at `position` on a part lying on `side` points along."""
    return ((False, position), (True, position), (False, 5 - position), (True, 5 - position))[side]


# TASK_LINE[side, k] = (is_row, index)
TASK_LINE = np.array([[task_line(s, k) for k in range(6)] for s in range(NUM_SIDES)], dtype=np.int8)

# --- building boards [PD] -------------------------------------------------------------------------
NUM_BOARDS = 4
_BOARDS = (
    ((2, 2), ((0, 1), (0, 4), (1, 2), (2, 5), (3, 0), (3, 3), (4, 4), (5, 1), (5, 4))),
    ((2, 3), ((0, 2), (1, 0), (1, 5), (2, 4), (3, 2), (4, 0), (4, 1), (4, 5), (5, 3))),
    ((3, 3), ((0, 1), (0, 4), (1, 1), (2, 2), (2, 5), (3, 0), (4, 3), (5, 1), (5, 4))),
    ((3, 2), ((0, 2), (1, 0), (1, 4), (1, 5), (2, 3), (3, 1), (4, 0), (4, 5), (5, 3))),
)
BOARD_SHOVEL = np.array([6 * r + c for (r, c), _ in _BOARDS], dtype=np.int8)
BOARD_BANDEROLE = np.zeros((NUM_BOARDS, NUM_CELLS), dtype=np.bool_)
for _b, (_, _cells) in enumerate(_BOARDS):
    for _r, _c in _cells:
        BOARD_BANDEROLE[_b, 6 * _r + _c] = True
BANDEROLES_PER_BOARD = 9
assert (BOARD_BANDEROLE.sum(axis=1) == BANDEROLES_PER_BOARD).all()
assert not BOARD_BANDEROLE[np.arange(NUM_BOARDS), BOARD_SHOVEL].any()

# --- scoring cards ----------------------------------------------------------------------------------
NUM_CARDS = 60
CARD_LETTER_START = (0, 12, 23, 33, 60)  # A, B, C, D id ranges
# countables a green card may ask for: feature kinds 0..11 (completed; markets, bakeries and
# fountains count when placed), then chimneys in all villas, completed lodgings, completed landscapes
NUM_COUNTABLES = 15
CHIMNEYS, ANY_LODGING, ANY_LANDSCAPE = 12, 13, 14
# gains per unit: VP, coins, bread, banderole steps
GAIN_VP, GAIN_COIN, GAIN_BREAD, GAIN_STEP = range(4)
W_, H_, C_, F_ = range(4)  # goods: grapes, herbs, chickens, fish


def _cards() -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    names: list[str] = []
    pay = np.zeros((NUM_CARDS, NUM_GOODS), dtype=np.int8)
    have = np.zeros((NUM_CARDS, NUM_COUNTABLES), dtype=np.int8)
    gain = np.zeros((NUM_CARDS, 4), dtype=np.int8)
    red = np.zeros(NUM_CARDS, dtype=np.bool_)
    vp1, s, b, c = (1, 0, 0, 0), (0, 0, 0, 1), (0, 0, 1, 0), (0, 1, 0, 0)

    def add(letter, goods=None, needs=None, reward=(0, 0, 0, 0)):
        i = len(names)
        names.append(f"{letter}{i - CARD_LETTER_START['ABCD'.index(letter)] + 1:02d}")
        if goods is not None:
            red[i] = True
            for g in goods:
                pay[i, g] += 1
        else:
            for k, n in needs:
                have[i, k] = n
        gain[i] = reward

    def plus(*parts):
        return tuple(sum(x) for x in zip(*parts))

    def vp(n):
        return (n, 0, 0, 0)

    # A: pay identical goods (red)
    for g in (C_, H_, F_, W_):
        add("A", [g], reward=vp(1))
    for g in (H_, W_, F_, C_):
        add("A", [g] * 2, reward=vp(4))
    for g in (H_, W_, F_, C_):
        add("A", [g] * 3, reward=vp(7))
    # B: pay different goods (red)
    for pair in ((H_, W_), (H_, F_), (H_, C_), (W_, F_), (W_, C_), (F_, C_)):
        add("B", pair, reward=vp(3))
    add("B", (W_, H_, C_, F_), reward=vp(8))
    for triple in ((W_, H_, F_), (W_, C_, H_), (W_, C_, F_), (H_, C_, F_)):
        add("B", triple, reward=vp(5))
    # C: villas (green)
    add("C", needs=((CHIMNEYS, 3),), reward=plus(s, b))
    add("C", needs=((CHIMNEYS, 3),), reward=plus(c, s))
    add("C", needs=((CHIMNEYS, 3),), reward=plus(c, b))
    add("C", needs=((CHIMNEYS, 3),), reward=vp(4))
    add("C", needs=((CHIMNEYS, 2),), reward=b)
    add("C", needs=((CHIMNEYS, 2),), reward=vp(2))
    add("C", needs=((CHIMNEYS, 2),), reward=c)
    add("C", needs=((VILLA, 1),), reward=vp(3))
    add("C", needs=((VILLA, 2),), reward=plus(c, s, b))
    add("C", needs=((CHIMNEYS, 2),), reward=s)
    # D: lodgings, landscapes, single buildings (green)
    add("D", needs=((ANY_LODGING, 3),), reward=plus(s, b))
    add("D", needs=((ANY_LODGING, 3),), reward=plus(c, b))
    add("D", needs=((ANY_LODGING, 3),), reward=plus(c, s))
    add("D", needs=((ANY_LODGING, 3),), reward=vp(5))
    for k in (ADMINISTRATOR, CRAFTSMAN, MERCHANT, BAKER):
        add("D", needs=((k, 1),), reward=vp(3))
    add("D", needs=((MERCHANT, 1), (BAKER, 1)), reward=vp(7))
    add("D", needs=((ADMINISTRATOR, 1), (CRAFTSMAN, 1)), reward=vp(7))
    add("D", needs=((VINEYARD, 1), (CHICKEN_YARD, 1)), reward=vp(7))
    add("D", needs=((GARDEN, 1), (POND, 1)), reward=vp(7))
    add("D", needs=((ANY_LANDSCAPE, 3),), reward=vp(5))
    add("D", needs=((ANY_LANDSCAPE, 3),), reward=plus(s, b))
    add("D", needs=((ANY_LANDSCAPE, 3),), reward=plus(c, b))
    add("D", needs=((ANY_LANDSCAPE, 3),), reward=plus(c, s))
    for k in (POND, CHICKEN_YARD, VINEYARD, GARDEN):
        add("D", needs=((k, 1),), reward=vp(3))
    for k in (BAKERY, MARKET, FOUNTAIN):
        add("D", needs=((k, 1),), reward=vp1)
    add("D", needs=((BAKERY, 1), (MARKET, 1), (FOUNTAIN, 1)), reward=vp(5))
    for k in (FOUNTAIN, MARKET, BAKERY):
        add("D", needs=((k, 2),), reward=vp(3))
    return names, pay, have, gain, red


CARD_NAMES, CARD_PAY, CARD_HAVE, CARD_GAIN, CARD_RED = _cards()
CARD_NAMES = tuple(CARD_NAMES)
assert len(CARD_NAMES) == NUM_CARDS and CARD_NAMES[-1] == "D27" and CARD_NAMES[23] == "C01"
CARD_LETTER = np.repeat(np.arange(4, dtype=np.int8), np.diff(CARD_LETTER_START))
# cards drawn per letter A, B, C, D by player count
CARDS_DRAWN = np.zeros((MAX_PLAYERS + 1, 4), dtype=np.int8)
CARDS_DRAWN[2] = (2, 2, 2, 2)
CARDS_DRAWN[3] = (2, 3, 2, 3)
CARDS_DRAWN[4] = (3, 3, 2, 4)
MAX_UNITS = 31  # cap of the unit / bread-payment counts in the action encoding (never binding in practice)
BREAD_PER_FULFILMENT = 3
FAIL_VP = 4  # a card resolved with 0 units costs 4 VP

# --- scoring area [PD] -------------------------------------------------------------------------------
NUM_CARD_SLOTS = 12
NUM_CIRCLE_SPACES = 17
CIRCLE_SLOTS = np.array([
    [0, 1], [1, 2], [3, 4], [4, 5], [6, 7], [7, 8], [9, 10], [10, 11],
    [0, 3], [1, 4], [2, 5], [3, 6], [4, 7], [5, 8], [6, 9], [7, 10], [8, 11],
], dtype=np.int8)
SLOT_USED = np.zeros((MAX_PLAYERS + 1, NUM_CARD_SLOTS), dtype=np.bool_)
SLOT_USED[2, [1, 3, 4, 5, 6, 7, 8, 10]] = True
SLOT_USED[3, 1:11] = True
SLOT_USED[4, :] = True
SPACE_USABLE = SLOT_USED[:, CIRCLE_SLOTS[:, 0]] & SLOT_USED[:, CIRCLE_SLOTS[:, 1]]
for _n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
    assert SPACE_USABLE[_n].sum() == 4 * _n + 1 and SLOT_USED[_n].sum() == CARDS_DRAWN[_n].sum()

# --- banderole track [PD] and starting VP --------------------------------------------------------
TRACK_SPACES = 36
TRACK_END = TRACK_SPACES - 1
START_VP = np.zeros((MAX_PLAYERS + 1, MAX_PLAYERS), dtype=np.int16)  # by position after the start player
START_VP[2, :2] = (8, 9)
START_VP[3, :3] = (8, 9, 13)
START_VP[4, :4] = (8, 9, 10, 11)

# --- rewards ------------------------------------------------------------------------------------------
MARKET_COINS = 1
BAKERY_BREAD = 1
BAKER_BREAD = 2
ADMINISTRATOR_STEPS = 2
MERCHANT_BONUS_COINS = 1
FOUNTAIN_DRAW = 2

# --- decisions and the action layout ---------------------------------------------------------------
NUM_DECISIONS = 11
(DEC_START_SPACE, DEC_MOVE, DEC_TAKE, DEC_PLACE, DEC_FOUNTAIN_RETURN, DEC_DISPLAY_PICK, DEC_SCORE_SPACE,
 DEC_CARD_ORDER, DEC_CARD_UNITS, DEC_CARD_BREAD, DEC_GAME_OVER) = range(NUM_DECISIONS)
DECISION_NAMES = ("START_SPACE", "MOVE", "TAKE", "PLACE", "FOUNTAIN_RETURN", "DISPLAY_PICK", "SCORE_SPACE",
                  "CARD_ORDER", "CARD_UNITS", "CARD_BREAD", "GAME_OVER")

ACTION_SPACE = 0  # 0..6: start space k / bread move to space k
ACTION_MOVE_CW = 7
ACTION_MOVE_CCW = 8
ACTION_TAKE = 9  # 9..12: take depot slot j
ACTION_PLACE = 13  # 13 + 4 * cell + rot
ACTION_STORE = 157
ACTION_DISPLAY = 158  # 158..168: take display slot j
ACTION_RETURN = 169  # 169..180: return one fountain card of kind t
ACTION_SCORE_SPACE = 181  # 181..197: scoring disc on circle space s
ACTION_ORDER_LOW = 198
ACTION_ORDER_HIGH = 199
ACTION_COUNT = 200  # 200..231: count k = 0..31
NUM_ACTIONS = 232

ACTION_GROUPS: tuple[tuple[int, int, str, str, str], ...] = (
    (ACTION_SPACE, NUM_SPACES, "SPACE_{i}", "START_SPACE, MOVE", "start space i / bread move to space i (pay 1 bread)"),
    (ACTION_MOVE_CW, 1, "MOVE_CW", "MOVE", "normal move clockwise, skipping empty depots"),
    (ACTION_MOVE_CCW, 1, "MOVE_CCW", "MOVE", "normal move counter-clockwise, skipping empty depots"),
    (ACTION_TAKE, DEPOT_SLOTS, "TAKE_{i}", "TAKE", "take the tile in slot i of the depot at the patrician"),
    (ACTION_PLACE, 4 * NUM_CELLS, "PLACE_{r}{c}_R{rot}", "PLACE", "build the tile on cell (r, c) turned rot quarter turns clockwise"),
    (ACTION_STORE, 1, "STORE", "PLACE", "store the tile face down (leftover material)"),
    (ACTION_DISPLAY, DISPLAY_SLOTS, "DISPLAY_{i}", "DISPLAY_PICK", "craftsman: take the tile in bottom-display slot i"),
    (ACTION_RETURN, NUM_FOUNTAIN_KINDS, "RETURN_FC{i:02d}", "FOUNTAIN_RETURN", "return one fountain card of kind i to the deck bottom"),
    (ACTION_SCORE_SPACE, NUM_CIRCLE_SPACES, "DISC_{i}", "SCORE_SPACE", "put the scoring disc on circle space i"),
    (ACTION_ORDER_LOW, 1, "FIRST_LOW", "CARD_ORDER", "resolve the card in the lower-numbered slot first"),
    (ACTION_ORDER_HIGH, 1, "FIRST_HIGH", "CARD_ORDER", "resolve the card in the higher-numbered slot first"),
    (ACTION_COUNT, MAX_UNITS + 1, "COUNT_{i}", "CARD_UNITS, CARD_BREAD", "units paid with goods/coins, or 3-bread payments"),
)


def _name_fields(i: int) -> dict[str, object]:
    cell, rot = divmod(i, 4)
    return {"i": i, "r": cell // GRID, "c": cell % GRID, "rot": rot}


def action_names(num_actions: int = NUM_ACTIONS) -> tuple[str, ...]:
    """Symbolic name of every action index (action_to_str and the docs)."""
    return action_names_from_groups(ACTION_GROUPS, num_actions, _name_fields)


# --- randomness --------------------------------------------------------------------------------------
# init: uniforms per purpose (column offsets into u (B, UNIFORMS_AT_INIT))
U_INIT_START = 0  # 1: start player
U_INIT_FRAMES = 1  # 16: shuffle of the frame parts (player p gets 4p..4p+3 on N, E, S, W)
U_INIT_BOARDS = 17  # 4: shuffle of the building boards
U_INIT_CARDS = 21  # 4 x 4: partial shuffle of each letter's deck
U_INIT_CARD_SLOTS = 37  # 12: shuffle of the drawn cards into the used slots
U_INIT_DISPLAY = 49  # 11: dark tiles drawn onto the bottom display
UNIFORMS_AT_INIT = 64
# step: the depots are filled when a phase begins (after the start spaces; after a scoring round)
U_STEP_DEAL = 0  # 28: tiles drawn from the supply
U_STEP_FOUNTAIN = 28  # 2: the fountain draw
UNIFORMS_PER_STEP = 32


def max_game_length(num_players: int) -> int:
    """An upper bound on decisions in one game: start spaces; per turn move, take, place, a fountain
    return and up to 11 craftsman pick + place pairs over the game; per scoring turn the disc, the
    order and 2 x (units + bread)."""
    turns = NUM_PHASES * ROUNDS_PER_PHASE * num_players
    return num_players + 4 * turns + 2 * DISPLAY_SLOTS + NUM_PHASES * num_players * 6


def info(num_players: int) -> GameInfo:
    """GameInfo for one configuration."""
    return GameInfo(name="carpe_diem", num_players=num_players, num_actions=NUM_ACTIONS,
                    max_game_length=max_game_length(num_players), has_chance=True, has_hidden_information=True)
