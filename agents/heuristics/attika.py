"""A hand-written Attika player: greedy one-decision lookahead in landscape cards, from its own View only.

The player never sees the State: `Heuristic.act` builds `game.observe(state, state.to_play)` (the public
map, displays, stacks and supplies, everyone's card count and its own cards) and the kernel reads only
that View and the legal-action mask, so determinizing the hidden cards never changes its choice. Costs,
legality and wins come from the rules' own helpers (`symbols_around` and `cost_less_symbols`, the parts of
`requirement`; `affordable`, `free_by_order`, `own_adjacent`, `unrevealed`, `shrine_bits_next_to`).

**Connection model.** Per decision the acting player's map is analysed once: a 0-1 breadth-first search
from every shrine over the fields (own buildings cost 0, empty fields 1, shrines, other colours and
empty hexes are walls) gives every field's distance to each shrine, so C(i, j), the fewest buildings
that still connect shrines i and j, and a field's detour (how many more than C(i, j) a connection
through it needs). A field on a shortest connection (detour 0) of the closest pair is worth
`path_value`, others `path_decay ** detour` of it (pairs farther than the closest count their extra
length as detour). The same search for every opponent marks the fields on their shortest connections
(worth `block_value / C` to occupy, x `block_ahead` when that opponent is no farther from a connection
than the player), and a field where an opponent's next building would connect two shrines is worth
`block_win`. While no connection is possible at all, every building is worth `blocked_value` (the 30
buildings win) and reveals that empty a stack gain `tile_value` / stack size (a new tile: room, maybe a
new way), as they do when fewer than STUCK_FIELDS empty fields are left.

**A build** of type t on field h is worth, in cards: the win (a building that joins a settlement to a
second shrine, or the 30th building) `WIN`; otherwise its path and blocking values, `base_value`, a
completed connected group's amphora (`group_value`), `successor_value` per successor of t still to
come that could stand free next to it (x the path value of its best empty neighbour), `free_bonus`
when the building order waives the cost, minus the cards paid (`card_cost` x min(1, `card_ref` /
(hand + 1)) each: cards are cheap in a large hand; a missing card counts as the two it costs; plus
`scarcity` x paid^2 / (hand + 2)) and `new_settlement` when it founds a settlement off the shortest
connections (the surcharge itself is in the cost).

**Decisions.** START / BUILD_MODE compare the best affordable build (the SELECT scorer takes each
type's best field; CHOOSE_FIELD then picks that field) less the card its unused action would have
drawn (an amphora, `amphora_value`, beyond the allowance), the best reveal, and ending the turn (0).
A reveal is worth the mean over the buildings its stack may hold of the better of building it at once
and storing it (`store_value` x its best unaffordable value), less the cards it forgoes (2 from START,
1 later); the stack of highest expectation is revealed. PENDING_REVEAL builds the building at once
when that beats storing it. PLACE_TILE takes the centre that shortens the player's connection most
(`tile_value` per building saved, `tile_opponent` per building it saves the closest opponent), ties
broken towards its own buildings and shortest connections; CHOOSE_ROTATION turns the symbols the
display and the stacks need most next to its buildings. Amphorae buy extra builds worth more than
`amphora_value`; beyond `amphora_keep` of them, a turn that would end without a reveal or build first
turns one into a card (the turn's own draws are unchanged). DRAW ends the turn. Explicit payment pays
each specific card with itself (two any cards only when missing) and any card from the type held most
beyond what the queue still needs.

The flat action encoding is supported: BUILD(t, h) is the best (type, field) pair and PLACE(h, k) the
best centre with its best rotation. The kernel falls back to a random legal action (and flags the row)
if its choice is ever illegal; the tests check that it never is.

The defaults are hand-set, then coordinate steps on 2-player duplicate matches against the previous
defaults (600 games per step, checked at 3 and 4 players): path_value 6 -> 4 and block_ahead 1 -> 3
won 57% / 38% / 30% at 2 / 3 / 4 players (chance: 50 / 33 / 25%). blocked_value matters most (1 or 4
instead of 2 win only ~36% at 2 players), then card_ref (16: 38%) and tile_value (8: 36%); tile_value 2
with card_ref 4 wins 56% at 2 players but 32% / 21% at 3 / 4, so the defaults stay; the other weights
are flat around their values (tile_opponent hardly ever changes a game). Against `random` (one
heuristic seat, 1000 games each) it wins 99.9% / 99.8% / 99.7% at 2 / 3 / 4 players (95% Wilson
intervals from 99.4% / 99.3% / 99.1%), in ~68 / 105 / 118 steps; self-play games end by a win, none by
the round cap. About 35 / 90 us per decision at 2 / 4 players.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from meeple.agents.heuristics import TunedHeuristic
from meeple.envs.attika.data import (
    ACTION_AMPHORA_CARD, ACTION_END_TURN, ACTION_PAY, ACTION_REVEAL, ACTION_ROTATE, ACTION_SELECT, ACTION_SLOT,
    ACTION_STORE, ACTION_SUBSTITUTE, BUILDING_GROUP, BUILDINGS_PER_PLAYER, COST, DEC_BUILD_MODE,
    DEC_CHOOSE_FIELD, DEC_CHOOSE_ROTATION, DEC_DRAW, DEC_PAY, DEC_PENDING_REVEAL, DEC_PLACE_TILE,
    DEC_REVEAL_MODE, DEC_START, FIELDS_PER_TILE, FLAT_PLACE, FLAT_TAIL, FLOWER, GROUP_SIZE, IS_MAIN,
    MAX_PLAYERS, NEIGHBOURS, NUM_LANDSCAPES, NUM_SLOTS, NUM_STACKS, NUM_TYPES,
    NUM_TILES, PREDECESSOR, ROAD, ROTATED_FACE, ROTATIONS, SHRINE_SLOTS, TILE_STACK,
)
from meeple.envs.attika.kernels import (
    affordable, cost_less_symbols, free_by_order, is_field, own_adjacent, popcount4, shrine_bits_next_to,
    symbol_of, symbols_around, unrevealed,
)
from meeple.envs.attika.rules import View
from meeple.envs.base import I32, I64, Field
from meeple.envs.jit import kernel

# the View fields the kernels read, passed as *fields
_USED = ("viewer", "to_play", "done", "decision", "mode", "actions_left", "pending_type", "pending_slot", "tile_up",
         "pay_front", "pay_spec", "pay_any", "land", "owner", "building", "settlement", "settlement_shrines",
         "display", "stack_size", "amphorae", "rewarded", "built", "placed", "settlements", "own_hand", "tile_state")
_View = namedtuple("_View", _USED)
assert set(_USED) <= set(View._fields)

# --- weights (landscape cards) ---------------------------------------------------------------------
# name: (default, meaning); the kernels read them through the index constants below, looked up by name
_WEIGHTS = {
    "path_value": (4.0, "a building on a shortest connection of the closest shrine pair"),
    "path_decay": (0.35, "x per building of detour (or of extra length of a farther pair)"),
    "block_value": (3.0, "/ C: a field on an opponent's shortest connection (C buildings still missing)"),
    "block_ahead": (3.0, "x block_value against an opponent no farther from a connection than the player"),
    "block_win": (40.0, "a field where an opponent's next building would connect two shrines"),
    "base_value": (0.3, "any building (30 placed win; it stays on the map)"),
    "free_bonus": (0.5, "a building the building order makes free"),
    "group_value": (3.0, "a group completed connected (its amphora)"),
    "successor_value": (0.6, "per successor still to come (at most 2) that could stand free next to it"),
    "card_cost": (1.0, "per card paid"),
    "scarcity": (0.5, "x paid^2 / (hand + 2): expensive builds from a small hand"),
    "new_settlement": (1.5, "founding a settlement off the shortest connections (future surcharges)"),
    "store_value": (0.5, "x best value of a revealed building stored on the display instead of built"),
    "reveal_bias": (0.0, "added to the value of a reveal"),
    "amphora_value": (2.0, "an amphora spent on a build beyond the allowance"),
    "tile_value": (4.0, "per building a tile saves the own connection"),
    "tile_opponent": (2.0, "per building a tile saves the closest opponent's connection"),
    "amphora_keep": (1.0, "amphorae kept for extra builds; beyond them one becomes a card on a turn doing nothing else"),
    "card_ref": (8.0, "a card costs card_cost x min(1, card_ref / (hand + 1)): cheaper from a large hand"),
    "blocked_value": (2.0, "base value of a building while no connection of two shrines is possible"),
}
PARAM_NAMES = tuple(_WEIGHTS)
DEFAULT_PARAMS = np.array([value for value, _ in _WEIGHTS.values()], dtype=np.float64)
(_PATH, _DECAY, _BLOCK, _BLOCK_AHEAD, _BLOCK_WIN, _BASE, _FREE, _GROUP, _SUCC, _CARD, _SCARCE, _NEWSET, _STORE,
 _REVEAL_BIAS, _AMPHORA, _TILE, _TILE_OPP, _KEEP, _CARD_REF, _BLOCKED) = (
    PARAM_NAMES.index(name) for name in (
        "path_value", "path_decay", "block_value", "block_ahead", "block_win", "base_value", "free_bonus",
        "group_value", "successor_value", "card_cost", "scarcity", "new_settlement", "store_value", "reveal_bias",
        "amphora_value", "tile_value", "tile_opponent", "amphora_keep", "card_ref", "blocked_value"))

WIN = 1e6
NEVER = -1e18
INF = 1 << 20
STUCK_FIELDS = 3  # fewer empty fields than this (or no connection left): reveal towards a new tile
DEQUE = 8192  # 0-1 BFS deque: at most 6 * 625 pushes to each side of the middle
MID = DEQUE // 2

F64 = np.float64
_X_CARD, _X_BASE, _X_CMIN = range(3)  # per-row context: value of one card, base value of a building, min C
_X_SIZE = 3
SCRATCH = (
    Field("dist", (MAX_PLAYERS, NUM_SLOTS), I32, doc="0-1 BFS distance from each shrine"),
    Field("deque", (DEQUE,), I32, doc="0-1 BFS deque"),
    Field("pair", (MAX_PLAYERS, MAX_PLAYERS), I64, doc="C(i, j): buildings still connecting shrines i and j"),
    Field("virt", (NUM_SLOTS,), I32, doc="1 on the fields of a tile being tried"),
    Field("path", (NUM_SLOTS,), F64, doc="path value of each empty field (0..1) for the acting player"),
    Field("block", (NUM_SLOTS,), F64, doc="blocking value of each empty field"),
    Field("empties", (NUM_SLOTS + 1,), I32, doc="the empty fields; count last"),
    Field("nodes", (NUM_SLOTS + 1,), I32, doc="the fields, then those of a tile being tried; count last"),
    Field("mark", (NUM_SLOTS,), I64, doc="flood-fill stamps"),
    Field("queue", (NUM_SLOTS,), I32, doc="flood-fill queue"),
    Field("stamp", (1,), I64, doc="the last stamp used"),
    Field("aff_val", (NUM_TYPES,), F64, doc="best value of an affordable build per type"),
    Field("aff_slot", (NUM_TYPES,), I64, doc="its field, -1"),
    Field("pot_val", (NUM_TYPES,), F64, doc="best value of a build per type, affordable or not"),
    Field("ctx", (_X_SIZE,), F64, doc="per-row values: the _X_* layout"),
    Field("wins", (NUM_SLOTS,), I32, doc="1 on an empty field where the acting player's next building wins"),
    Field("adjacent", (NUM_SLOTS,), I32, doc="1 on an empty field next to one of the acting player's buildings"),
    Field("symbols", (NUM_SLOTS, NUM_LANDSCAPES), I32, doc="the symbols that cancel costs on an empty field"),
    Field("next_path", (NUM_SLOTS,), F64, doc="the best path value of an empty field next to it, -1 if none"),
)
_Scratch = namedtuple("_Scratch", [f.name for f in SCRATCH])
_NUM_SCRATCH = len(SCRATCH)


# --- the connection model --------------------------------------------------------------------------

@kernel(inline="always")
def _step_cost(v, b, p, x, virt):
    """Buildings p must still put on x to pass through it: 0 own building, 1 empty field (or a field of
    the tile being tried), INF otherwise."""
    if virt[x] != 0:
        return 1
    if not is_field(v.land[b, x]):
        return INF
    o = v.owner[b, x]
    if o == p:
        return 0
    if o >= 0:
        return INF
    return 1


@kernel
def _bfs(v, b, p, src, dist, dq, virt, nodes):
    """dist[x]: the fewest buildings p needs on a chain from a field next to shrine slot src to x
    (x included): 0-1 breadth-first search (0 through own buildings, 1 through empty fields). Only
    the nodes (fields) are set: the search never reads another slot's distance."""
    for i in range(nodes[NUM_SLOTS]):
        dist[nodes[i]] = INF
    head = MID
    tail = MID
    x = src  # expanded first at distance 0 (a slot: never queued, its own distance never set)
    dx = 0
    while True:
        for d in range(6):
            n = NEIGHBOURS[x, d]
            if n < 0:
                continue
            c = _step_cost(v, b, p, n, virt)
            if c >= INF or dx + c >= dist[n]:
                continue
            dist[n] = dx + c
            if c == 0:
                head -= 1
                dq[head] = n
            else:
                dq[tail] = n
                tail += 1
        if head == tail:
            break
        x = dq[head]
        head += 1
        dx = dist[x]


@kernel
def _connect(v, b, p, P, w):
    """Distances from every shrine for p (w.dist), C(i, j) for every pair (w.pair); returns min C."""
    for i in range(P):
        _bfs(v, b, p, SHRINE_SLOTS[P, i], w.dist[i], w.deque, w.virt, w.nodes)
    best = INF
    for i in range(P):
        for j in range(i + 1, P):
            c = INF
            for k in range(w.nodes[NUM_SLOTS]):
                x = w.nodes[k]
                di = w.dist[i, x]
                dj = w.dist[j, x]
                if di >= INF or dj >= INF:
                    continue
                s = di + dj - _step_cost(v, b, p, x, w.virt)
                if s < c:
                    c = s
            w.pair[i, j] = c
            if c < best:
                best = c
    return best


@kernel(inline="always")
def _opponents_connect(v, b, p, P, w):
    """The lowest `_connect` of p's opponents: the buildings the closest of them still needs."""
    best = INF
    for o in range(P):
        if o != p:
            co = _connect(v, b, o, P, w)
            if co < best:
                best = co
    return best


@kernel
def _detour(w, P, x, cmin):
    """The fewest extra buildings a connection through empty field x needs over the closest pair's C
    (INF if none passes)."""
    best = INF
    for i in range(P):
        di = w.dist[i, x]
        if di >= INF:
            continue
        for j in range(i + 1, P):
            dj = w.dist[j, x]
            if dj >= INF or w.pair[i, j] >= INF:
                continue
            d = di + dj - 1 - cmin
            if d < best:
                best = d
    return best


@kernel(inline="always")
def _wins_at(v, b, p, h):
    """A building of p on empty field h joins a settlement touching two shrines (rules: end of game)."""
    bits = shrine_bits_next_to(v, b, h)
    for d in range(6):
        n = NEIGHBOURS[h, d]
        if n >= 0 and v.owner[b, n] == p:
            bits |= v.settlement_shrines[b, n]
    return popcount4(bits) >= 2


@kernel
def _analyse(v, b, p, P, params, w):
    """Fill w.empties, w.path (p's connection value of each empty field) and w.block (the value of
    occupying it against the opponents)."""
    n = 0
    m = 0
    for x in range(NUM_SLOTS):
        w.virt[x] = 0
        w.path[x] = 0.0
        w.block[x] = 0.0
        if is_field(v.land[b, x]):
            w.nodes[m] = x
            m += 1
            if v.owner[b, x] < 0:
                w.empties[n] = x
                n += 1
    w.empties[NUM_SLOTS] = n
    w.nodes[NUM_SLOTS] = m
    cmin = _connect(v, b, p, P, w)
    if cmin < INF:
        for k in range(n):
            x = w.empties[k]
            det = _detour(w, P, x, cmin)
            if det <= 4:
                w.path[x] = params[_DECAY] ** det
    for o in range(P):
        if o == p:
            continue
        co = _connect(v, b, o, P, w)
        weight = params[_BLOCK] / max(co, 1)
        if co <= cmin:
            weight *= params[_BLOCK_AHEAD]  # the opponent leads the race
        for k in range(n):
            x = w.empties[k]
            if co < INF and _detour(w, P, x, co) == 0:
                w.block[x] += weight
            if _wins_at(v, b, o, x):
                w.block[x] += params[_BLOCK_WIN]
    held = v.own_hand[b, 0] + v.own_hand[b, 1] + v.own_hand[b, 2] + v.own_hand[b, 3]
    w.ctx[_X_CARD] = params[_CARD] * min(1.0, params[_CARD_REF] / (held + 1.0))
    w.ctx[_X_BASE] = params[_BLOCKED] if cmin >= INF else params[_BASE]
    w.ctx[_X_CMIN] = cmin
    return cmin


# --- builds --------------------------------------------------------------------------------------

@kernel
def _field_facts(v, b, p, w):
    """The parts of a build's value and cost on each empty field that do not depend on its type (after
    `_analyse`): w.wins (p's building there would win), w.adjacent (it joins p's buildings), w.symbols (the
    symbols that cancel cost symbols there), w.next_path (its best empty neighbour's path value, -1 if none).
    Worked out once per decision rather than in `_build_value`, which a turn decision calls for every type
    on every field."""
    for k in range(w.empties[NUM_SLOTS]):
        h = w.empties[k]
        w.wins[h] = _wins_at(v, b, p, h)
        w.adjacent[h] = own_adjacent(v, b, p, h)
        w.symbols[h, 0], w.symbols[h, 1], w.symbols[h, 2], w.symbols[h, 3] = symbols_around(v, b, h)
        nb = -1.0
        for d in range(6):
            y = NEIGHBOURS[h, d]
            if y >= 0 and is_field(v.land[b, y]) and v.owner[b, y] < 0 and w.path[y] > nb:
                nb = w.path[y]
        w.next_path[h] = nb


@kernel
def _type_info(v, b, p, t, from_display):
    """What a build of t means beyond its field: (it would be the last of its group not yet rewarded,
    successors of t still to come: on the display or face down)."""
    g = BUILDING_GROUP[t]
    n = 0
    rest = 0
    for u in range(NUM_TYPES):
        if BUILDING_GROUP[u] == g:
            n += v.built[b, p, u]
        if PREDECESSOR[u] == t:
            rest += v.display[b, p, u] + unrevealed(v, b, p, u)
    if t == ROAD and from_display:
        rest -= 1  # the road being built
    return (not v.rewarded[b, p, g]) and n + 1 == GROUP_SIZE[g], rest


@kernel
def _completes_group(v, b, p, t, h, group_settlement, w):
    """The last building t of its group, put on h, leaves the group connected (an amphora)."""
    g = BUILDING_GROUP[t]
    if group_settlement:  # every member in a settlement that h joins
        for x in range(NUM_SLOTS):
            if v.owner[b, x] == p and BUILDING_GROUP[v.building[b, x]] == g:
                ok = False
                for d in range(6):
                    y = NEIGHBOURS[h, d]
                    if y >= 0 and v.owner[b, y] == p and v.settlement[b, y] == v.settlement[b, x]:
                        ok = True
                if not ok:
                    return False
        return True
    w.stamp[0] += 1
    st = w.stamp[0]
    w.mark[h] = st
    w.queue[0] = h
    head = 0
    tail = 1
    while head < tail:
        x = w.queue[head]
        head += 1
        for d in range(6):
            y = NEIGHBOURS[x, d]
            if y >= 0 and w.mark[y] != st and v.owner[b, y] == p and BUILDING_GROUP[v.building[b, y]] == g:
                w.mark[y] = st
                w.queue[tail] = y
                tail += 1
    return tail == GROUP_SIZE[g]


@kernel
def _build_value(v, b, p, t, h, last, rest, group_settlement, params, w):
    """(value in cards, affordable) of p building t on empty field h (module docstring); last, rest:
    `_type_info`; what does not depend on t comes from `_field_facts`."""
    hand = v.own_hand[b]
    free = free_by_order(v, b, p, t, h)
    if free:  # `requirement`, from the field's parts
        r0 = r1 = r2 = r3 = g = 0
    else:
        r0, r1, r2, r3, g = cost_less_symbols(v, b, p, t, w.symbols[h, 0], w.symbols[h, 1], w.symbols[h, 2],
                                              w.symbols[h, 3], w.adjacent[h])
    ok = affordable(hand[0], hand[1], hand[2], hand[3], r0, r1, r2, r3, g)
    if v.placed[b, p] + 1 >= BUILDINGS_PER_PLAYER or w.wins[h]:
        return WIN, ok
    missing = max(0, r0 - hand[0]) + max(0, r1 - hand[1]) + max(0, r2 - hand[2]) + max(0, r3 - hand[3])
    paid = r0 + r1 + r2 + r3 + g + missing
    held = hand[0] + hand[1] + hand[2] + hand[3]
    path = w.path[h]
    val = params[_PATH] * path + w.block[h] + w.ctx[_X_BASE]
    val -= w.ctx[_X_CARD] * paid + params[_SCARCE] * paid * paid / (held + 2.0)
    if paid == 0 and free:
        val += params[_FREE]
    if path < 1.0 and v.placed[b, p] > 0 and not w.adjacent[h]:
        val -= params[_NEWSET]
    if last and _completes_group(v, b, p, t, h, group_settlement, w):
        val += params[_GROUP]
    if rest > 0:  # successors still to come that could stand free next to it
        nb = w.next_path[h]
        if nb >= 0.0:
            val += params[_SUCC] * min(rest, 2) * (0.3 + nb)
    return val, ok


@kernel
def _eval_type(v, b, p, t, from_display, group_settlement, params, w):
    """w.aff_val / aff_slot / pot_val of type t over every empty field."""
    w.aff_val[t] = NEVER
    w.aff_slot[t] = -1
    w.pot_val[t] = NEVER
    last, rest = _type_info(v, b, p, t, from_display)
    for k in range(w.empties[NUM_SLOTS]):
        h = w.empties[k]
        val, ok = _build_value(v, b, p, t, h, last, rest, group_settlement, params, w)
        if val > w.pot_val[t]:
            w.pot_val[t] = val
        if ok and val > w.aff_val[t]:
            w.aff_val[t] = val
            w.aff_slot[t] = h


@kernel
def _reveal_value(v, b, p, stack, group_settlement, params, w):
    """Expected value of revealing from `stack`: per building it may hold, the better of building it at
    once and storing it (values of w.aff_val / pot_val, evaluated here for the unrevealed types)."""
    main = stack == 0
    n = 0
    total = 0.0
    for t in range(NUM_TYPES):
        if IS_MAIN[t] != main:
            continue
        c = unrevealed(v, b, p, t)
        if c <= 0:
            continue
        if w.aff_slot[t] == -2:  # not evaluated yet
            _eval_type(v, b, p, t, False, group_settlement, params, w)
        best = max(0.0, params[_STORE] * w.pot_val[t])
        if w.aff_slot[t] >= 0 and w.aff_val[t] > best:
            best = w.aff_val[t]
        total += c * min(best, 50.0)  # a win at once is worth a lot, but not a whole expectation
        n += c
    if n == 0:
        return NEVER
    return total / n + params[_REVEAL_BIAS]


@kernel(inline="always")
def _tail(a, flat):
    return a - ACTION_REVEAL + FLAT_TAIL if flat else a


@kernel
def _turn_action(v, b, p, dec, mask_row, flat, group_settlement, params, w):
    """START, BUILD_MODE, REVEAL_MODE: the best build, the best reveal or END_TURN."""
    for t in range(NUM_TYPES):
        w.aff_slot[t] = -2
    best = 0.0
    action = _tail(ACTION_END_TURN, flat)
    if dec == DEC_START or dec == DEC_BUILD_MODE:
        forgone = w.ctx[_X_CARD] if (dec == DEC_START or v.actions_left[b] > 0) else params[_AMPHORA]
        for t in range(NUM_TYPES):
            if v.display[b, p, t] <= 0:
                continue
            if not flat and not mask_row[ACTION_SELECT + t]:
                continue
            _eval_type(v, b, p, t, True, group_settlement, params, w)
            h = w.aff_slot[t]
            if h < 0:
                continue
            if flat and not mask_row[t * NUM_SLOTS + h]:
                continue
            val = w.aff_val[t] - forgone
            if val > best:
                best = val
                action = t * NUM_SLOTS + h if flat else ACTION_SELECT + t
    if dec == DEC_START or dec == DEC_REVEAL_MODE:
        if dec == DEC_START:
            forgone = 2.0 * w.ctx[_X_CARD]
        elif v.actions_left[b] > 0:
            forgone = w.ctx[_X_CARD]
        else:
            forgone = params[_AMPHORA]
        best_stack = -1
        best_rev = NEVER
        tiles = 0
        for x in range(NUM_TILES):
            if v.tile_state[b, x] == TILE_STACK:
                tiles += 1
        stuck = tiles > 0 and (w.ctx[_X_CMIN] >= INF or w.empties[NUM_SLOTS] < STUCK_FIELDS)
        for stack in range(NUM_STACKS):
            if not mask_row[_tail(ACTION_REVEAL + stack, flat)]:
                continue
            val = _reveal_value(v, b, p, stack, group_settlement, params, w)
            if stuck:  # emptying a stack adds a tile: room to build, maybe a new way between the shrines
                val += params[_TILE] / v.stack_size[b, p, stack]
            # among equal stacks 1-3, the fullest (keeps the map extension for later)
            val += 1e-3 * v.stack_size[b, p, stack]
            if val > best_rev:
                best_rev = val
                best_stack = stack
        if best_stack >= 0 and best_rev - forgone > best:
            best = best_rev - forgone
            action = _tail(ACTION_REVEAL + best_stack, flat)
    if action == _tail(ACTION_END_TURN, flat) and v.amphorae[b, p] > params[_KEEP] \
            and mask_row[_tail(ACTION_AMPHORA_CARD, flat)]:
        action = _tail(ACTION_AMPHORA_CARD, flat)  # a surplus amphora: a card now (the turn draws as before)
    return action


@kernel
def _field_action(v, b, p, t, from_display, mask_row, flat, group_settlement, params, w):
    """The best legal field for t (CHOOSE_FIELD), or in PENDING_REVEAL that field or STORE."""
    best = NEVER
    best_h = -1
    pot = NEVER
    last, rest = _type_info(v, b, p, t, from_display)
    for k in range(w.empties[NUM_SLOTS]):
        h = w.empties[k]
        a = t * NUM_SLOTS + h if flat else ACTION_SLOT + h
        val, ok = _build_value(v, b, p, t, h, last, rest, group_settlement, params, w)
        if val > pot:
            pot = val
        if ok and mask_row[a] and val > best:
            best = val
            best_h = h
    if from_display:
        return ACTION_SLOT + best_h if best_h >= 0 else -1
    store = max(0.0, params[_STORE] * pot)
    if best_h >= 0 and best > 0.0 and best >= store:
        return t * NUM_SLOTS + best_h if flat else ACTION_SLOT + best_h
    return _tail(ACTION_STORE, flat)


# --- tiles ---------------------------------------------------------------------------------------

@kernel
def _tile_centre_value(v, b, p, P, h, c_now, opp_now, params, w):
    """Value of the face-up tile centred on h: connection buildings it saves p and the closest opponent,
    ties broken towards p's buildings and shortest connections."""
    m = w.nodes[NUM_SLOTS]
    for j in range(FIELDS_PER_TILE):
        w.virt[FLOWER[h, j]] = 1
        w.nodes[m + j] = FLOWER[h, j]
    w.nodes[NUM_SLOTS] = m + FIELDS_PER_TILE
    val = 0.0
    c = _connect(v, b, p, P, w)
    if c_now < INF and c < INF:
        val += params[_TILE] * (c_now - c)
    elif c < INF:
        val += params[_TILE] * 10.0
    opp = _opponents_connect(v, b, p, P, w)
    if opp_now < INF and opp < INF:
        val -= params[_TILE_OPP] * (opp_now - opp)
    for j in range(FIELDS_PER_TILE):
        w.virt[FLOWER[h, j]] = 0
    w.nodes[NUM_SLOTS] = m
    near = 0.0
    for j in range(FIELDS_PER_TILE):
        x = FLOWER[h, j]
        for d in range(6):
            y = NEIGHBOURS[x, d]
            if y >= 0:
                if v.owner[b, y] == p:
                    near += 0.02
                elif w.path[y] > 0.0:
                    near += 0.01 * w.path[y]
    return val + near


@kernel
def _need(v, b, p, k):
    """Cards of landscape k the buildings p still has to build (display and stacks) cost."""
    n = 0
    for t in range(NUM_TYPES):
        n += (v.display[b, p, t] + unrevealed(v, b, p, t)) * COST[t, k]
    return n


@kernel
def _rotation_value(v, b, p, x, h, k):
    """Symbols of tile x centred on h turned k: each worth what p still needs of it, double next to
    p's buildings."""
    val = 0.0
    for j in range(FIELDS_PER_TILE):
        sym = symbol_of(ROTATED_FACE[x, k, j])
        if sym < 0:
            continue
        f = FLOWER[h, j]
        near = 1.0
        for d in range(6):
            y = NEIGHBOURS[f, d]
            if y >= 0 and v.owner[b, y] == p:
                near = 2.0
        val += near * _need(v, b, p, sym)
    return val


@kernel
def _best_rotation(v, b, p, x, h):
    best = 0
    best_val = NEVER
    for k in range(ROTATIONS):
        val = _rotation_value(v, b, p, x, h, k)
        if val > best_val + 1e-9:
            best_val = val
            best = k
    return best


@kernel
def _tile_action(v, b, p, P, c_now, mask_row, flat, params, w):
    opp_now = _opponents_connect(v, b, p, P, w)
    best = NEVER
    best_h = -1
    for h in range(NUM_SLOTS):
        if not mask_row[FLAT_PLACE + h if flat else ACTION_SLOT + h]:
            continue
        val = _tile_centre_value(v, b, p, P, h, c_now, opp_now, params, w)
        if val > best:
            best = val
            best_h = h
    if best_h < 0:
        return -1
    if flat:
        return FLAT_PLACE + _best_rotation(v, b, p, v.tile_up[b], best_h) * NUM_SLOTS + best_h
    return ACTION_SLOT + best_h


# --- explicit payment ----------------------------------------------------------------------------

@kernel
def _pay_action(v, b, p, mask_row, flat):
    """The current unit of the queue (substitutes first, then specific W F H M, then any): a specific one
    with its own card, else SUBSTITUTE; an any card from the type held most beyond the queue's needs."""
    unit = -1
    if v.pay_front[b] == 0:
        for k in range(NUM_LANDSCAPES):
            if v.pay_spec[b, k] > 0:
                unit = k
                break
    if unit >= 0:
        if mask_row[_tail(ACTION_PAY + unit, flat)]:
            return _tail(ACTION_PAY + unit, flat)
        return _tail(ACTION_SUBSTITUTE, flat)
    best = -1
    best_spare = -100
    for k in range(NUM_LANDSCAPES):
        if not mask_row[_tail(ACTION_PAY + k, flat)]:
            continue
        spare = v.own_hand[b, k] - v.pay_spec[b, k]
        if spare > best_spare:
            best_spare = spare
            best = k
    return _tail(ACTION_PAY + best, flat) if best >= 0 else -1


# --- entry point --------------------------------------------------------------------------------------

@kernel
def heuristic_actions_nb(mask, out, params, flat, group_settlement, *arrays):
    """The `TunedHeuristic.KERNEL`: out[b] = the action for the seat to play in each live row b, from
    that seat's View. flat: the flat action encoding; group_settlement: the settlement reading of a
    connected group; arrays: the `SCRATCH` arrays, then the `_USED` fields of the View."""
    w = _Scratch(*arrays[:_NUM_SCRATCH])
    v = _View(*arrays[_NUM_SCRATCH:])
    P = v.display.shape[1]
    for b in range(v.done.shape[0]):
        if v.done[b]:
            continue
        p = int(v.viewer[b])
        dec = v.decision[b]
        a = -1
        if dec == DEC_PAY:
            a = _pay_action(v, b, p, mask[b], flat)
        elif dec == DEC_DRAW:
            a = _tail(ACTION_END_TURN, flat)
        elif dec == DEC_CHOOSE_ROTATION:
            a = ACTION_ROTATE + _best_rotation(v, b, p, v.tile_up[b], v.pending_slot[b])
        else:
            c_now = _analyse(v, b, p, P, params, w)
            if dec == DEC_PLACE_TILE:
                a = _tile_action(v, b, p, P, c_now, mask[b], flat, params, w)
            else:  # the decisions that weigh builds
                _field_facts(v, b, p, w)
                if dec == DEC_START or dec == DEC_BUILD_MODE or dec == DEC_REVEAL_MODE:
                    a = _turn_action(v, b, p, dec, mask[b], flat, group_settlement, params, w)
                elif dec == DEC_PENDING_REVEAL:
                    t = np.int64(v.pending_type[b])  # int64: t * 625 without the JIT
                    a = _field_action(v, b, p, t, False, mask[b], flat, group_settlement, params, w)
                elif dec == DEC_CHOOSE_FIELD:
                    a = _field_action(v, b, p, np.int64(v.pending_type[b]), True, mask[b], flat, group_settlement,
                                      params, w)
        out[b] = a


class Heuristic(TunedHeuristic):
    """The hand-written Attika player (strategy in the module docstring); it reads only the acting
    seat's View. Both action encodings (factored and flat) and both payment modes are supported.

    Keyword arguments override entries of `DEFAULT_PARAMS` by name, e.g. `Heuristic(path_value=8.0)`.
    """

    DEFAULT_PARAMS = DEFAULT_PARAMS
    PARAM_NAMES = PARAM_NAMES
    SCRATCH = SCRATCH
    KERNEL = heuristic_actions_nb
    VIEW_FIELDS = _USED

    def kernel_args(self, game: Any) -> tuple:
        c = game.config
        return c.actions == "flat", c.group_connection == "settlement"

