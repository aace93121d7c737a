"""Static data for Utopia (Ludovic Vialla and Arnaud Urbon, Matagot 2007), 2-5 players.

The rules come from a short German summary of the published game, completed from the published
rulebook and the project's own decisions (docs/utopia.md lists them). The printed board of the
published game is not public beyond its outline (24 districts on 4 islands of 5-8 districts, values
2-4, some districts with a transport ship, 3 lighthouses, one wonder space per island), so the board
below is **project data**: the district table, values, sea districts, sectors, alleys and bridges are
designed, given here as plain tables, and can be replaced without touching a code path (the edge and
route enumerations of the action space are derived from them).

Index orders used everywhere:
- civilizations c: 0 MAY (Maya), 1 PER (Persians), 2 EGY (Egyptians), 3 GRE (Greeks), 4 CHI (Chinese);
- islands i: 0 Fire, 1 Earth, 2 Wind, 3 Water;
- districts d: 0..23 (the table below); sea sectors 0..3, printed I..IV from west to east;
- land edges e: 0..79 (every district's neighbours in ascending order), sea routes r: 0..43 (every sea
  district's reachable sea districts in ascending order).

Tables are numpy arrays that numba kernels read as frozen globals; never mutate them.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.core import GameInfo

MIN_PLAYERS, MAX_PLAYERS = 2, 5
NUM_CIVS = 5
CIV_NAMES = ("MAY", "PER", "EGY", "GRE", "CHI")
CIV_LONG = ("Maya", "Persians", "Egyptians", "Greeks", "Chinese")
NUM_ISLANDS = 4
ISLAND_NAMES = ("Fire", "Earth", "Wind", "Water")
WATER = 3  # the island out of play with 2 players (the published 2-player rule)
NUM_DISTRICTS = 24
NUM_SECTORS = 4
SECTOR_NAMES = ("I", "II", "III", "IV")

# --- the board [project data] --------------------------------------------------------------------------
# id, code, island, sea (shows a transport ship), sector (-1 for land districts), printed value,
# land neighbours (alleys on the same island and bridges to another island, ascending)
BOARD = """\
0,FIR-1,0,1,2,2,1 3 4 11
1,FIR-2,0,0,-1,3,0 2 3 13
2,FIR-3,0,0,-1,3,1 3 5 6 17
3,FIR-4,0,0,-1,4,0 1 2 4 5
4,FIR-5,0,1,2,2,0 3 5
5,FIR-6,0,0,-1,4,2 3 4 6 7
6,FIR-7,0,0,-1,3,2 5 7
7,FIR-8,0,1,3,2,5 6
8,EAR-1,1,1,0,2,9 10
9,EAR-2,1,0,-1,3,8 10 12
10,EAR-3,1,0,-1,4,8 9 11 13
11,EAR-4,1,1,1,2,0 10 13
12,EAR-5,1,0,-1,3,9 13 22
13,EAR-6,1,0,-1,3,1 10 11 12
14,WIN-1,2,0,-1,3,15 16 21
15,WIN-2,2,1,2,2,14 16 17
16,WIN-3,2,0,-1,4,14 15 17 18
17,WIN-4,2,0,-1,3,2 15 16 18
18,WIN-5,2,1,3,2,16 17
19,WAT-1,3,1,0,2,20 22
20,WAT-2,3,0,-1,3,19 21 23
21,WAT-3,3,1,1,2,14 20 23
22,WAT-4,3,0,-1,3,12 19 23
23,WAT-5,3,0,-1,4,20 21 22
"""


def _parse_board() -> tuple:
    rows = [line.split(",") for line in BOARD.strip().splitlines()]
    assert [int(r[0]) for r in rows] == list(range(NUM_DISTRICTS))
    codes = tuple(r[1] for r in rows)
    # int64: kernels add these to action and encoder offsets (int8 would overflow without the JIT)
    island = np.array([int(r[2]) for r in rows], dtype=np.int64)
    sea = np.array([int(r[3]) for r in rows], dtype=np.bool_)
    sector = np.array([int(r[4]) for r in rows], dtype=np.int64)
    value = np.array([int(r[5]) for r in rows], dtype=np.int64)
    neighbours = [sorted(int(x) for x in r[6].split()) for r in rows]
    return codes, island, sea, sector, value, neighbours


DISTRICT_CODES, DISTRICT_ISLAND, DISTRICT_SEA, DISTRICT_SECTOR, DISTRICT_VALUE, _NEIGHBOURS = _parse_board()

# directed land edges (alley or bridge), district by district, neighbours ascending
LAND_EDGES = np.array([(d, n) for d in range(NUM_DISTRICTS) for n in _NEIGHBOURS[d]], dtype=np.int64)
NUM_LAND_EDGES = len(LAND_EDGES)
SEA_DISTRICTS = np.flatnonzero(DISTRICT_SEA).astype(np.int64)
# directed sea routes: from a sea district to every other sea district in the same or an adjacent
# sector (the sectors lie in a row, so adjacent means ids differing by one)
SEA_ROUTES = np.array([(a, t) for a in SEA_DISTRICTS for t in SEA_DISTRICTS
                       if t != a and abs(int(DISTRICT_SECTOR[a]) - int(DISTRICT_SECTOR[t])) <= 1], dtype=np.int64)
NUM_SEA_ROUTES = len(SEA_ROUTES)
ISLAND_DISTRICTS = [np.flatnonzero(DISTRICT_ISLAND == i) for i in range(NUM_ISLANDS)]
ISLAND_FIRST = np.array([int(d[0]) for d in ISLAND_DISTRICTS] + [NUM_DISTRICTS], dtype=np.int64)  # contiguous ids


def _check_board() -> None:
    adj = np.zeros((NUM_DISTRICTS, NUM_DISTRICTS), dtype=bool)
    adj[LAND_EDGES[:, 0], LAND_EDGES[:, 1]] = True
    assert (adj == adj.T).all() and not adj.diagonal().any(), "land adjacency must be symmetric"
    assert NUM_LAND_EDGES == 80 and NUM_SEA_ROUTES == 44
    assert ((DISTRICT_SECTOR >= 0) == DISTRICT_SEA).all()
    for i in range(NUM_ISLANDS):  # districts of an island are numbered contiguously
        assert list(ISLAND_DISTRICTS[i]) == list(range(ISLAND_FIRST[i], ISLAND_FIRST[i + 1]))
    # the published outline: values 2-4
    assert DISTRICT_VALUE.min() == 2 and DISTRICT_VALUE.max() == 4


_check_board()

# --- pieces and setup ---------------------------------------------------------------------------------
PRINCES_PER_CIV = 8  # prince tokens per colour and civilization
MONUMENTS_PER_CIV = 7  # buildable: the 8th figure of each civilization marks the prestige scale
BASES = 8  # constructions (monuments + wonders) per player
PRIVILEGES = 2  # privilege tokens per player
GUESTS_PER_KIND = 2  # guest tokens per island and civilization
CARDS_PER_CIV = 10
NUM_CARDS = NUM_CIVS * CARDS_PER_CIV
CARDS_DEALT = 5  # per player in every Phase 2
HAND_LIMIT = 5  # at the end of one's Phase 2 turn
MAX_HAND = HAND_LIMIT + CARDS_DEALT
PICK_PASSES = 3  # Phase 1 passes; 3 guests per player are drawn every round
WONDER_VP = 6
REMOVE_VP = 2
ADD_VP = 1  # to the owner of the monument a prince is added to, when he is not the one adding
END_SCORE = 50  # the game ends after a round in which somebody reached it
MAX_ROUNDS = 40  # safety cap of the environment (truncation), not a game rule
SCALE_MAX = 5

# rank discards after the deal: the leader 2, the last player 0, everybody else 1
RANK_DISCARDS = np.zeros((MAX_PLAYERS + 1, MAX_PLAYERS), dtype=np.int8)
for _n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
    RANK_DISCARDS[_n, :_n] = 1
    RANK_DISCARDS[_n, 0] = 2
    RANK_DISCARDS[_n, _n - 1] = 0

# islands in play per player count (Water only with 3+ players)
ISLAND_IN_PLAY = np.ones((MAX_PLAYERS + 1, NUM_ISLANDS), dtype=np.bool_)
ISLAND_IN_PLAY[:3, WATER] = False
DISTRICT_IN_PLAY = ISLAND_IN_PLAY[:, DISTRICT_ISLAND]  # (players + 1, 24)

# --- gains recorded per kind (every point of the score comes from exactly one of these) ----------------
NUM_GAIN_KINDS = 5
GAIN_PRESTIGE, GAIN_WONDER, GAIN_BONUS, GAIN_REMOVE, GAIN_ADDED = range(NUM_GAIN_KINDS)
GAIN_NAMES = ("prestige", "wonders", "wonder_bonus", "removals", "princes_added")

# --- decisions and the action layout -------------------------------------------------------------------
NUM_DECISIONS = 7
DEC_PICK, DEC_BUILD, DEC_WONDER, DEC_DISCARD, DEC_TURN, DEC_CONVERT, DEC_GAME_OVER = range(NUM_DECISIONS)
DECISION_NAMES = ("PICK", "BUILD", "WONDER", "DISCARD", "TURN", "CONVERT", "GAME_OVER")
NUM_PHASES = 3
PHASE_NAMES = ("welcoming", "development", "prestige")

ACTION_PLACE = 0  # + 24 c + d
ACTION_MONUMENT = 120  # + 24 c + d
ACTION_WONDER = 240  # + i
ACTION_SELECT = 244  # + d
ACTION_LAND = 268  # + (2 c + k - 1) 80 + e
ACTION_SEA = 1068  # + (2 c + k - 1) 44 + r
ACTION_ADD = 1508  # + 24 c + d
ACTION_REMOVE = 1628  # + 24 c + d
ACTION_RAISE = 1748  # + c
ACTION_DROP = 1753  # + c
ACTION_SPECIAL = 1758  # + 24 c + d
ACTION_PRIVILEGE = 1878  # + 4 s + (t if t < s else t - 1)
ACTION_DISCARD = 1898  # + c
ACTION_END = 1903
NUM_ACTIONS = 1904
assert ACTION_SEA == ACTION_LAND + 2 * NUM_CIVS * NUM_LAND_EDGES
assert ACTION_ADD == ACTION_SEA + 2 * NUM_CIVS * NUM_SEA_ROUTES

# card actions: cards of the action's civilization it costs
COST_MOVE, COST_ADD, COST_REMOVE, COST_RAISE, COST_DROP, COST_SPECIAL = 1, 1, 1, 1, 2, 3

ACTION_GROUPS: tuple[tuple[int, int, str, str, str], ...] = (
    (ACTION_PLACE, NUM_CIVS * NUM_DISTRICTS, "PLACE_{civ}_{dist}", "PICK",
     "take a guest of civ from the display of the district's island; put an own prince of civ there"),
    (ACTION_MONUMENT, NUM_CIVS * NUM_DISTRICTS, "MONUMENT_{civ}_{dist}", "BUILD, TURN",
     "build a monument of civ on the district (3 own princes of civ there are consumed)"),
    (ACTION_WONDER, NUM_ISLANDS, "WONDER_{island}", "BUILD, TURN",
     "build the island's wonder (+6; one own prince of each civ on the island is consumed)"),
    (ACTION_SELECT, NUM_DISTRICTS, "SELECT_{dist}", "WONDER", "wonder: remove the prince of the pending civ from the district"),
    (ACTION_LAND, 2 * NUM_CIVS * NUM_LAND_EDGES, "LAND_{civ}x{k}_{edge}", "TURN, CONVERT",
     "1 card: move k own princes of civ along an alley or bridge"),
    (ACTION_SEA, 2 * NUM_CIVS * NUM_SEA_ROUTES, "SEA_{civ}x{k}_{route}", "TURN, CONVERT",
     "1 card: move k own princes of civ between sea districts of the same or adjacent sectors"),
    (ACTION_ADD, NUM_CIVS * NUM_DISTRICTS, "ADD_{civ}_{dist}", "TURN, CONVERT",
     "1 card: add an own prince of civ to a monument of civ (its owner, if another player, gains 1)"),
    (ACTION_REMOVE, NUM_CIVS * NUM_DISTRICTS, "REMOVE_{civ}_{dist}", "TURN, CONVERT",
     "1 card: remove an own prince of civ from a monument of civ (+2)"),
    (ACTION_RAISE, NUM_CIVS, "RAISE_{civ}", "TURN, CONVERT", "1 card: civ swaps places with the civilization above on the scale"),
    (ACTION_DROP, NUM_CIVS, "DROP_{civ}", "TURN, CONVERT", "2 cards: civ drops to value 1, the ones below move up"),
    (ACTION_SPECIAL, NUM_CIVS * NUM_DISTRICTS, "SPECIAL_{civ}_{dist}", "TURN, CONVERT",
     "3 cards (special guest): put an own prince of civ on any district in play"),
    (ACTION_PRIVILEGE, NUM_CIVS * (NUM_CIVS - 1), "PRIVILEGE_{src}_{dst}", "TURN",
     "spend a privilege token: one card of src counts as dst for the next action"),
    (ACTION_DISCARD, NUM_CIVS, "DISCARD_{civ}", "DISCARD", "discard one card of civ (rank discards, hand limit)"),
    (ACTION_END, 1, "END", "BUILD, TURN", "end the build window / the Phase 2 turn"),
)


def privilege_pair(j: int) -> tuple[int, int]:
    """(source, target) civilizations of privilege index j = 4 s + (t if t < s else t - 1)."""
    src, r = divmod(j, NUM_CIVS - 1)
    return src, (r if r < src else r + 1)


PRIVILEGE_SRC = np.array([privilege_pair(j)[0] for j in range(NUM_CIVS * (NUM_CIVS - 1))], dtype=np.int8)
PRIVILEGE_DST = np.array([privilege_pair(j)[1] for j in range(NUM_CIVS * (NUM_CIVS - 1))], dtype=np.int8)


def edge_text(e: int) -> str:
    return f"{DISTRICT_CODES[LAND_EDGES[e, 0]]}>{DISTRICT_CODES[LAND_EDGES[e, 1]]}"


def route_text(r: int) -> str:
    return f"{DISTRICT_CODES[SEA_ROUTES[r, 0]]}>{DISTRICT_CODES[SEA_ROUTES[r, 1]]}"


def _name_fields(group: int, i: int) -> dict[str, object]:
    first = ACTION_GROUPS[group][0]
    out: dict[str, object] = {"i": i}
    if first in (ACTION_PLACE, ACTION_MONUMENT, ACTION_ADD, ACTION_REMOVE, ACTION_SPECIAL):
        out.update(civ=CIV_NAMES[i // NUM_DISTRICTS], dist=DISTRICT_CODES[i % NUM_DISTRICTS])
    elif first == ACTION_WONDER:
        out["island"] = ISLAND_NAMES[i]
    elif first == ACTION_SELECT:
        out["dist"] = DISTRICT_CODES[i]
    elif first == ACTION_LAND:
        ck, e = divmod(i, NUM_LAND_EDGES)
        out.update(civ=CIV_NAMES[ck // 2], k=ck % 2 + 1, edge=edge_text(e))
    elif first == ACTION_SEA:
        ck, r = divmod(i, NUM_SEA_ROUTES)
        out.update(civ=CIV_NAMES[ck // 2], k=ck % 2 + 1, route=route_text(r))
    elif first in (ACTION_RAISE, ACTION_DROP, ACTION_DISCARD):
        out["civ"] = CIV_NAMES[i]
    elif first == ACTION_PRIVILEGE:
        src, dst = privilege_pair(i)
        out.update(src=CIV_NAMES[src], dst=CIV_NAMES[dst])
    return out


def action_names(num_actions: int = NUM_ACTIONS) -> tuple[str, ...]:
    """Symbolic name of every action index (action_to_str and the docs)."""
    names: list[str] = []
    for g, (_first, count, pattern, _, _) in enumerate(ACTION_GROUPS):
        names += [pattern.format(**_name_fields(g, i)) for i in range(count)]
    return tuple(names[:num_actions])


# --- randomness ---------------------------------------------------------------------------------------
# init: uniforms per purpose (column offsets into u (B, UNIFORMS_AT_INIT))
U_INIT_SCALE = 0  # 4: shuffle of the prestige scale
U_INIT_FIRST = 4  # 1: the first player
U_INIT_STEP = 5  # the first round's guest draw reads the step layout from here
# step: a guest draw (start of every round) and a deal (start of every Phase 2)
U_STEP_GUESTS = 0  # 15: guests drawn from the bag, one uniform per token
U_STEP_DEAL = U_STEP_GUESTS + PICK_PASSES * MAX_PLAYERS  # 25: one uniform per card dealt
UNIFORMS_PER_STEP = U_STEP_DEAL + CARDS_DEALT * MAX_PLAYERS
UNIFORMS_AT_INIT = U_INIT_STEP + UNIFORMS_PER_STEP


def max_game_length(num_players: int) -> int:
    """An upper bound on decisions in one game. Per round and player: 3 picks and 3 build-window ENDs,
    at most one decision per card held in Phase 2 (every card action and discard uses a card; a hand
    holds at most 10), the END of the turn. Per game and player: 8 builds, 2 privileges; 20 wonder
    removal choices."""
    per_round = num_players * (2 * PICK_PASSES + MAX_HAND + 1)
    return MAX_ROUNDS * per_round + num_players * (BASES + PRIVILEGES) + NUM_ISLANDS * NUM_CIVS


def info(num_players: int) -> GameInfo:
    """GameInfo for one configuration."""
    return GameInfo(name="utopia", num_players=num_players, num_actions=NUM_ACTIONS,
                    max_game_length=max_game_length(num_players), has_chance=True, has_hidden_information=True)
