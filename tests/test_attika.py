"""Attika: every worked example of the rules and edge cases of the rule sections, through the public API.

Positions are built by `position` below: the 2-player setup of `game.init` (tiles at the layout's
centres, shrines S1 and S2 in place), its tiles replaced by the fixture tiles, then the fields written
(buildings, displays, hands, amphorae, the decision); everything not given is derived so that the
position is consistent (every card not in a hand or the discard pile is in the draw pile, every amphora
not held is in the supply, the stacks hold exactly the unrevealed buildings). `game.advance` then
recomputes settlements and the counts of buildings placed, and `game.validate(..., history=False)`
accepts the blank test tiles. Most examples use auto_forced=False, so the position right after an
action can be inspected before a forced END_TURN runs on.

The 2-player map of the examples (axial q,r; each row is shifted half a hex against the one above).
Red = seat 0, Blue = seat 1. The "symbol map" (blank=False) shows the symbols of tiles T01 at (0,-2),
T10 at (2,-1), T16 at (-1,1) and T20 at (1,2), all unturned; the "blank map" (the default) is the same
28 fields without symbols, so that every cost there is the base cost:

    r=-3  -1,-3S1  0,-3    1,-3
    r=-2      -1,-2M   0,-2    1,-2H   2,-2    3,-2
    r=-1          -1,-1H   0,-1W   1,-1    2,-1M   3,-1W
    r=0                -1,0F    0,0     1,0     2,0H
    r=1            -2,1F   -1,1     0,1     1,1     2,1
    r=2                -2,2    -1,2     0,2M    1,2     2,2M
    r=3                                     0,3     1,3     2,3S2

Neighbours of (q,r): (q+1,r) E, (q+1,r-1) NE, (q,r-1) NW, (q-1,r) W, (q-1,r+1) SW, (q,r+1) SE.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from meeple.envs.attika import data as D
from meeple.envs.attika.rules import Attika, hex_slot

(QUARRY, FORTRESS, TOWER, HARBOUR, SHIP, LIGHTHOUSE, WELL, CORNFIELD, MILL, VILLAGE, SILVER_MINE, MINT, VINEYARD,
 VINTNER, TEMPLE, ORACLE, AGORA, STATUE, THEATRE, TAVERN, STOA, GYMNASIUM, LIBRARY, PALACE, ROAD) = range(D.NUM_TYPES)
assert D.BUILDING_NAMES[FORTRESS] == "Fortress" and D.BUILDING_NAMES[ROAD] == "Road"
W, F, H, M = range(4)
RED, BLUE = 0, 1
S1, S2 = (-1, -3), (2, 3)
MAP_TILES = ((0, (0, -2)), (9, (2, -1)), (15, (-1, 1)), (19, (1, 2)))  # T01, T10, T16, T20 at rotation 0
T05 = 4
END, STORE, AMPHORA = D.ACTION_END_TURN, D.ACTION_STORE, D.ACTION_AMPHORA_CARD
SELECT_ALL = slice(D.ACTION_SELECT, D.ACTION_SELECT + D.NUM_TYPES)
REVEAL_ALL = slice(D.ACTION_REVEAL, D.ACTION_REVEAL + D.NUM_STACKS)


def select(t: int) -> int:
    return D.ACTION_SELECT + t


def at(q: int, r: int) -> int:
    """SLOT(q, r): the field of a build, or the centre of the face-up tile."""
    return D.ACTION_SLOT + hex_slot(q, r)


def reveal(stack: int) -> int:
    return D.ACTION_REVEAL + stack


def pay(k: int) -> int:
    return D.ACTION_PAY + k


def rotate(k: int) -> int:
    return D.ACTION_ROTATE + k


def flat_build(t: int, q: int, r: int) -> int:
    return t * D.NUM_SLOTS + hex_slot(q, r)


def cards(w: int = 0, f: int = 0, h: int = 0, m: int = 0) -> tuple[int, int, int, int]:
    return (w, f, h, m)


def flower(q: int, r: int) -> list[tuple[int, int]]:
    return [D.hex_of(int(x)) for x in D.FLOWER[hex_slot(q, r)]]


def _lay(s, x: int, centre: tuple[int, int], rot: int, blank: bool) -> None:
    h = hex_slot(*centre)
    s.tile_state[0, x] = D.TILE_PLACED
    s.tile_centre[0, x] = h
    s.tile_rot[0, x] = rot
    s.land[0, D.FLOWER[h]] = D.LAND_BLANK if blank else D.ROTATED_FACE[x, rot]


def position(P: int = 2, *, blank: bool = True, extra_tiles=(), tile_stack=None, buildings=(), display=None,
             hands=None, discard=(0, 0, 0, 0), stacks=None, amphorae=None, to_play: int = RED, decision: int = D.DEC_START,
             mode: int = D.MODE_NONE, actions_left: int = 0, auto_forced: bool = False, **options):
    """(game, state): a consistent hand-built position of `P` players.

    blank: the fields carry no symbols, or their tiles' printed symbols (2 players only: the
    fixture tiles at rotation 0). extra_tiles: (tile id, centre) laid at rotation 0. tile_stack: the
    tile ids left in the tile stack (None: every tile not on the map; the others leave the game).
    buildings: (seat, type, (q, r)). display: {seat: {type: count}}. hands: {seat: (W, F, H, M)}.
    stacks: {seat: (4 sizes)} (default: the unrevealed main buildings in stack 0, the others dealt
    8, 8, rest). amphorae: {seat: count}; the rest is the supply."""
    game = Attika(num_players=P, auto_forced=auto_forced, **options)
    s = game.init(np.random.default_rng(0), 1)
    if P == 2:  # the fixture tiles at the layout's centres
        s.land[0][(s.land[0] >= D.LAND_BLANK) & (s.land[0] < D.LAND_SHRINE)] = D.LAND_NONE
        s.tile_state[0] = D.TILE_STACK
        s.tile_centre[0] = -1
        s.tile_rot[0] = 0
        for x, centre in MAP_TILES:
            _lay(s, x, centre, 0, blank)
    for x, centre in extra_tiles:
        assert s.tile_state[0, x] == D.TILE_STACK
        _lay(s, x, centre, 0, blank)
    if blank:
        s.land[0][(s.land[0] >= D.LAND_BLANK) & (s.land[0] < D.LAND_SHRINE)] = D.LAND_BLANK
    if tile_stack is not None:
        for x in range(D.NUM_TILES):
            if s.tile_state[0, x] == D.TILE_STACK and x not in tile_stack:
                s.tile_state[0, x] = D.TILE_REMOVED
    s.owner[0] = -1
    s.building[0] = -1
    built = np.zeros((P, D.NUM_TYPES), dtype=np.int64)
    for p, t, (q, r) in buildings:
        s.owner[0, hex_slot(q, r)] = p
        s.building[0, hex_slot(q, r)] = t
        built[p, t] += 1
    s.display[0] = 0
    for p, types in (display or {}).items():
        for t, n in types.items():
            s.display[0, p, t] = n
    s.hand[0] = 0
    for p, h in (hands or {}).items():
        s.hand[0, p] = h
    s.discard[0] = discard
    s.draw_pile[0] = D.CARDS_PER_LANDSCAPE - s.hand[0].sum(axis=0) - s.discard[0]
    unrevealed = D.COPIES[None, :] - s.display[0] - built
    assert (unrevealed >= 0).all(), "more buildings than copies"
    for p in range(P):
        main, other = int(unrevealed[p, D.IS_MAIN].sum()), int(unrevealed[p, ~D.IS_MAIN].sum())
        s.stack_size[0, p] = (main, min(8, other), min(8, max(0, other - 8)), max(0, other - 16))
    for p, sizes in (stacks or {}).items():
        s.stack_size[0, p] = sizes
    s.amphorae[0] = 0
    for p, n in (amphorae or {}).items():
        s.amphorae[0, p] = n
    s.amphora_supply[0] = D.AMPHORAE - s.amphorae[0].sum()
    s.rewarded[0] = False
    s.start_player[0] = 0
    s.round[0] = 0
    s.to_play[0] = to_play
    s.decision[0] = decision
    s.mode[0] = mode
    s.actions_left[0] = actions_left
    s.pending_type[0] = -1
    s.pending_slot[0] = -1
    s.tile_up[0] = -1
    s.extend_pending[0] = False
    state = game.advance(s)
    game.validate(state, history=False)
    return game, state


def legal(game, state) -> np.ndarray:
    return game.legal_action_mask(state)[0]


def play(game, state, *actions, u: float = 0.5):
    """Apply legal actions one at a time (each must be legal), validating every position on the way."""
    for a in actions:
        mask = legal(game, state)
        assert mask[a], f"{game.action_names[a]} should be legal; legal: " \
                        f"{[game.action_names[i] for i in np.flatnonzero(mask)[:20]]}"
        state = game.apply(state, np.array([a]), np.array([[u]]))
        game.validate(state, history=False)
    return state


def build(game, state, t: int, q: int, r: int):
    """A build from the display: SELECT_TYPE(t), then SLOT(q, r)."""
    return play(game, state, select(t), at(q, r))


def reveal_as(game, state, stack: int, t: int):
    """REVEAL(stack) turning over a building of type t. Which building comes up is a uniform draw from the
    unrevealed ones, seeded by the step's uniform, so this looks for a uniform that draws t."""
    assert legal(game, state)[reveal(stack)]
    for x in np.linspace(0.0, 1.0, 400, endpoint=False):
        new = game.apply(state, np.array([reveal(stack)]), np.array([[x]]))
        if new.decision[0] == D.DEC_PENDING_REVEAL and new.pending_type[0] == t:
            game.validate(new, history=False)
            return new
    raise AssertionError(f"no uniform reveals a {D.BUILDING_NAMES[t]}")


def hand(state, p: int = RED) -> tuple[int, ...]:
    return tuple(int(x) for x in state.hand[0, p])


def need(game, state, t: int, q: int, r: int, p: int = RED) -> tuple[int, ...]:
    """(W, F, H, M specific cards, any cards) that p owes for t on (q, r)."""
    return game.requirement(state, 0, p, t, hex_slot(q, r))


def slots_legal(mask: np.ndarray) -> set[tuple[int, int]]:
    """The hexes whose SLOT action is legal."""
    return {D.hex_of(int(h)) for h in np.flatnonzero(mask[D.ACTION_SLOT:D.ACTION_SLOT + D.NUM_SLOTS])}


# --- the rules' worked examples: the building order --------------------------------------------------------

def test_free_build_along_the_arrow_fortress_next_to_quarry():
    """rules example 1: a Fortress next to the own Quarry is free and opens build mode."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {FORTRESS: 1}})
    assert need(game, s, FORTRESS, 0, -1) == (0, 0, 0, 0, 0)
    assert legal(game, s)[select(FORTRESS)]
    s = play(game, s, select(FORTRESS))
    assert slots_legal(legal(game, s)) == {(1, -2), (1, -3), (0, -3), (-1, -2), (-1, -1), (0, -1)}  # free: next to it
    s = play(game, s, at(0, -1))
    assert s.building[0, hex_slot(0, -1)] == FORTRESS and s.owner[0, hex_slot(0, -1)] == RED
    assert hand(s) == (0, 0, 0, 0) and s.discard[0].sum() == 0
    assert s.settlements[0, RED] == 1
    assert s.decision[0] == D.DEC_BUILD_MODE and s.mode[0] == D.MODE_BUILD and s.actions_left[0] == 2

    game, s = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {FORTRESS: 1}}, hands={RED: cards(5, 5, 5, 5)})
    s = play(game, s, select(FORTRESS))
    fields = {D.hex_of(int(h)) for h in np.flatnonzero((s.land[0] >= D.LAND_BLANK) & (s.land[0] < D.LAND_SHRINE))}
    assert slots_legal(legal(game, s)) == fields - {(0, -2)}  # paid: any empty field, never a shrine


def test_free_build_along_the_arrow_towers_next_to_fortress():
    """rules example 2: both Towers next to the own Fortress are free (and the Defence group, complete
    and connected, earns an amphora)."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {FORTRESS: 1, TOWER: 2}})
    s = build(game, s, FORTRESS, 0, -1)
    assert need(game, s, TOWER, 0, 0) == (0, 0, 0, 0, 0)
    s = build(game, s, TOWER, 0, 0)
    assert need(game, s, TOWER, 1, -1) == (0, 0, 0, 0, 0)
    s = build(game, s, TOWER, 1, -1)
    assert hand(s) == (0, 0, 0, 0) and s.discard[0].sum() == 0
    assert s.built[0, RED, TOWER] == 2 and s.settlements[0, RED] == 1 and s.actions_left[0] == 0
    assert s.amphorae[0, RED] == 1 and s.amphora_supply[0] == 14 and s.rewarded[0, RED, D.G_DEFENCE]


def test_reverse_order_is_not_free_quarry_next_to_fortress():
    """rules example 3: a Quarry next to the own Fortress pays its full cost (no surcharge: it joins the
    Fortress); with two cards too few it cannot be selected."""
    game, s = position(buildings=[(RED, FORTRESS, (0, -1))], display={RED: {QUARRY: 1}}, hands={RED: cards(h=1, m=2)})
    assert need(game, s, QUARRY, 0, -2) == (0, 0, 1, 2, 0)
    s = build(game, s, QUARRY, 0, -2)
    assert hand(s) == (0, 0, 0, 0) and tuple(s.discard[0]) == (0, 0, 1, 2)
    assert s.settlements[0, RED] == 1

    game, s = position(buildings=[(RED, FORTRESS, (0, -1))], display={RED: {QUARRY: 1}}, hands={RED: cards(h=1, m=1)})
    mask = legal(game, s)
    assert not mask[select(QUARRY)]  # 3 cards + 1 for the missing M, holds 2
    flat, s_flat = position(buildings=[(RED, FORTRESS, (0, -1))], display={RED: {QUARRY: 1}},
                            hands={RED: cards(h=1, m=1)}, actions="flat")
    assert not legal(flat, s_flat)[QUARRY * D.NUM_SLOTS:(QUARRY + 1) * D.NUM_SLOTS].any()


def test_reverse_order_is_not_free_fortress_next_to_tower():
    """rules example 4: a Fortress next to the own Tower pays its full cost."""
    game, s = position(buildings=[(RED, TOWER, (0, 0))], display={RED: {FORTRESS: 1}},
                       hands={RED: cards(f=1, h=2, m=1)})
    assert need(game, s, FORTRESS, 0, -1) == (0, 1, 2, 1, 0)
    s = build(game, s, FORTRESS, 0, -1)
    assert hand(s) == (0, 0, 0, 0) and tuple(s.discard[0]) == (0, 1, 2, 1)


def test_skipped_step_is_not_free_tower_next_to_quarry():
    """rules example 5: a Tower next to the own Quarry (no Fortress on the map) pays its full cost."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {TOWER: 1}}, hands={RED: cards(f=1, m=2)})
    assert need(game, s, TOWER, 0, -1) == (0, 1, 0, 2, 0)
    s = build(game, s, TOWER, 0, -1)
    assert hand(s) == (0, 0, 0, 0) and tuple(s.discard[0]) == (0, 1, 0, 2)


def test_wrong_colour_fortress_next_to_opponents_quarry_is_not_free():
    """rules example 6: the opponent's Quarry does not make Red's Fortress free; Red's first building
    pays no surcharge."""
    game, s = position(buildings=[(BLUE, QUARRY, (0, -2))], display={RED: {FORTRESS: 1}},
                       hands={RED: cards(f=1, h=2, m=1)})
    assert need(game, s, FORTRESS, 0, -1) == (0, 1, 2, 1, 0)
    s = build(game, s, FORTRESS, 0, -1)
    assert hand(s) == (0, 0, 0, 0) and tuple(s.discard[0]) == (0, 1, 2, 1)
    assert s.settlements[0, RED] == 1 and s.settlements[0, BLUE] == 1


def test_wrong_colour_tower_next_to_opponents_fortress_pays_the_surcharge():
    """rules example 7: a Tower next to Blue's Fortress is not free, and founds Red's second settlement:
    one any card on top."""
    game, s = position(buildings=[(BLUE, FORTRESS, (0, -1)), (RED, VINEYARD, (2, 2))], display={RED: {TOWER: 1}},
                       hands={RED: cards(w=1, f=1, m=2)})
    assert s.settlements[0, RED] == 1
    assert need(game, s, TOWER, 0, 0) == (0, 1, 0, 2, 1)
    s = build(game, s, TOWER, 0, 0)
    assert hand(s) == (0, 0, 0, 0) and tuple(s.discard[0]) == (1, 1, 0, 2)
    assert s.settlements[0, RED] == 2


# --- settlements ---------------------------------------------------------------------------------------------

def test_new_settlement_surcharge_equals_the_number_of_settlements():
    """rules example 8: with 2 settlements, an isolated Temple costs 2 any cards more; one card short,
    that field is masked (a field next to an own building, without surcharge, stays legal)."""
    buildings = [(RED, QUARRY, (0, -2)), (RED, VINEYARD, (2, 2))]
    game, s = position(buildings=buildings, display={RED: {TEMPLE: 1}}, hands={RED: cards(w=2, f=1, h=1, m=2)})
    assert s.settlements[0, RED] == 2
    assert need(game, s, TEMPLE, -2, 2) == (0, 1, 1, 2, 2)
    s = build(game, s, TEMPLE, -2, 2)
    assert hand(s) == (0, 0, 0, 0) and tuple(s.discard[0]) == (2, 1, 1, 2)
    assert s.settlements[0, RED] == 3

    game, s = position(buildings=buildings, display={RED: {TEMPLE: 1}}, hands={RED: cards(w=1, f=1, h=1, m=2)})
    s = play(game, s, select(TEMPLE))
    fields = slots_legal(legal(game, s))
    assert (-2, 2) not in fields
    assert (0, -1) in fields and (1, 2) in fields  # next to the Quarry / the Vineyard: no surcharge
    assert all(need(game, s, TEMPLE, *hx)[4] == 0 for hx in fields)


def test_merging_settlements_removes_future_surcharge():
    """rules example 9: a Tavern joining two of three settlements pays W1 F1 and no surcharge (its
    predecessor Agora is not on the map); an isolated Well afterwards owes 2 any cards, not 3."""
    buildings = [(RED, QUARRY, (0, -2)), (RED, TEMPLE, (0, 0)), (RED, VINEYARD, (2, 2))]
    game, s = position(buildings=buildings, display={RED: {TAVERN: 1, WELL: 1}}, hands={RED: cards(w=1, f=1)})
    assert s.settlements[0, RED] == 3
    assert need(game, s, TAVERN, 0, -1) == (1, 1, 0, 0, 0)
    assert need(game, s, WELL, -2, 2) == (2, 0, 1, 0, 3)
    s = build(game, s, TAVERN, 0, -1)
    assert hand(s) == (0, 0, 0, 0) and tuple(s.discard[0]) == (1, 1, 0, 0)
    assert s.settlements[0, RED] == 2
    assert s.settlement[0, hex_slot(0, -2)] == s.settlement[0, hex_slot(0, 0)] == s.settlement[0, hex_slot(0, -1)]
    assert need(game, s, WELL, -2, 2) == (2, 0, 1, 0, 2)


def test_buildings_joined_only_through_a_shrine_are_separate_settlements():
    """rules example 10: a blank tile touching only shrine S1; a Well on it next to S1 is not joined to
    the Quarry that also touches S1: a new settlement, surcharge 1, no win.

        r=-5         -2,-5   -1,-5
        r=-4     -3,-4   -2,-4   -1,-4
        r=-3 -3,-3   -2,-3   -1,-3S1  0,-3 (Quarry)
    """
    game, s = position(extra_tiles=[(T05, (-2, -4))], buildings=[(RED, QUARRY, (0, -3))], display={RED: {WELL: 1}},
                       hands={RED: cards(w=2, f=1, h=1)})
    s1 = hex_slot(*S1)
    assert hex_slot(-1, -4) in D.NEIGHBOURS[s1] and hex_slot(0, -3) in D.NEIGHBOURS[s1]
    assert hex_slot(-1, -4) not in D.NEIGHBOURS[hex_slot(0, -3)]
    assert need(game, s, WELL, -1, -4) == (2, 0, 1, 0, 1)
    s = build(game, s, WELL, -1, -4)
    assert hand(s) == (0, 0, 0, 0) and tuple(s.discard[0]) == (2, 1, 1, 0)
    assert s.settlements[0, RED] == 2
    assert s.settlement[0, hex_slot(-1, -4)] != s.settlement[0, hex_slot(0, -3)]
    assert not s.done[0] and s.winner[0] == -1


# --- costs -------------------------------------------------------------------------------------------------

def test_landscape_reduction_counts_the_site_and_unoccupied_neighbours_of_matching_type():
    """rules example 11 (symbol map): around (0,-2) lie H (1,-2), M (-1,-2), H (-1,-1), W (0,-1): the Quarry
    (M2 H1) owes one M. With a Blue building on (-1,-2) its M no longer counts: M2. A Vineyard (W1 H2)
    on (2,0) counts its own site's H and the W on (3,-1): H1."""
    game, s = position(blank=False, display={RED: {QUARRY: 1, VINEYARD: 1}}, hands={RED: cards(h=1, m=2)})
    assert need(game, s, QUARRY, 0, -2) == (0, 0, 0, 1, 0)
    assert need(game, s, VINEYARD, 2, 0) == (0, 0, 1, 0, 0)
    s = build(game, s, QUARRY, 0, -2)
    assert hand(s) == (0, 0, 1, 1) and tuple(s.discard[0]) == (0, 0, 0, 1)

    game, s = position(blank=False, buildings=[(BLUE, ROAD, (-1, -2))], display={RED: {QUARRY: 1}},
                       hands={RED: cards(h=1, m=2)})
    assert need(game, s, QUARRY, 0, -2) == (0, 0, 0, 2, 0)
    s = build(game, s, QUARRY, 0, -2)
    assert hand(s) == (0, 0, 1, 0)


def test_one_matching_card_replaced_by_two_any_cards():
    """rules example 12: a Temple (F1 H1 M2) with only one M in hand pays the other M with two W: 5 cards;
    with one W fewer it is masked."""
    game, s = position(display={RED: {TEMPLE: 1}}, hands={RED: cards(w=2, f=1, h=1, m=1)})
    assert need(game, s, TEMPLE, 0, 1) == (0, 1, 1, 2, 0)
    s = build(game, s, TEMPLE, 0, 1)
    assert hand(s) == (0, 0, 0, 0) and tuple(s.discard[0]) == (2, 1, 1, 1)

    game, s = position(display={RED: {TEMPLE: 1}}, hands={RED: cards(w=1, f=1, h=1, m=1)})
    assert not legal(game, s)[select(TEMPLE)]


def test_roads_cost_five_any_cards_less_every_symbol_and_are_free_next_to_an_own_road():
    """rules example 13 (symbol map): (a) a road on (1,-1) among M, H, W owes 2 any cards, taken W then F;
    (b) the next road on (1,0) is free; (c) Blue's road on (1,0) next to Red's is not free: H (2,0) and
    M (2,-1) leave 3 any; (d) with a Blue building on (2,-1), Red's road on (1,-1) owes 3."""
    game, s = position(blank=False, display={RED: {ROAD: 2}, BLUE: {ROAD: 1}},
                       hands={RED: cards(w=1, f=1, h=1), BLUE: cards(f=1, h=1, m=1)})
    assert need(game, s, ROAD, 1, -1) == (0, 0, 0, 0, 2)
    s = build(game, s, ROAD, 1, -1)  # (a)
    assert hand(s) == (0, 0, 1, 0) and tuple(s.discard[0]) == (1, 1, 0, 0)
    assert need(game, s, ROAD, 1, 0) == (0, 0, 0, 0, 0)
    s_b = build(game, s, ROAD, 1, 0)  # (b)
    assert hand(s_b) == (0, 0, 1, 0) and s_b.built[0, RED, ROAD] == 2

    s_c = play(game, s, END)  # (c): Blue's turn (Red drew 2 for the unused builds)
    assert s_c.to_play[0] == BLUE
    assert need(game, s_c, ROAD, 1, 0, BLUE) == (0, 0, 0, 0, 3)
    s_c = build(game, s_c, ROAD, 1, 0)
    assert hand(s_c, BLUE) == (0, 0, 0, 0) and s_c.owner[0, hex_slot(1, 0)] == BLUE

    game, s = position(blank=False, buildings=[(BLUE, MILL, (2, -1))], display={RED: {ROAD: 2}},
                       hands={RED: cards(w=1, f=1, h=1)})  # (d)
    assert need(game, s, ROAD, 1, -1) == (0, 0, 0, 0, 3)
    s = build(game, s, ROAD, 1, -1)
    assert hand(s) == (0, 0, 0, 0)


# --- the turn --------------------------------------------------------------------------------------------

def test_pass_draws_three_cards():
    """rules example 14 (a): a turn with neither a reveal nor a build draws 3 cards."""
    game, s = position()
    s = play(game, s, END)
    assert sum(hand(s)) == 3 and s.draw_pile[0].sum() == 60 - 3
    assert s.to_play[0] == BLUE and s.decision[0] == D.DEC_START


@pytest.mark.parametrize("reveals, drawn", [(1, 1), (2, 0)])
def test_cards_for_unused_reveals(reveals, drawn):
    """rules example 14 (b, c): one reveal stored draws 1 card at the end, two reveals none."""
    game, s = position()
    for _ in range(reveals):
        s = play(game, s, reveal(1), STORE)
    assert s.decision[0] == D.DEC_REVEAL_MODE and s.actions_left[0] == 2 - reveals
    s = play(game, s, END)
    assert sum(hand(s)) == drawn and s.display[0, RED].sum() == reveals


@pytest.mark.parametrize("builds, drawn", [(1, 2), (2, 1), (3, 0)])
def test_cards_for_unused_builds(builds, drawn):
    """rules example 14 (d): one build draws 2 cards at the end, two builds 1, three none."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {FORTRESS: 1, TOWER: 2}})
    for t, hx in [(FORTRESS, (0, -1)), (TOWER, (0, 0)), (TOWER, (1, -1))][:builds]:
        s = build(game, s, t, *hx)
    s = play(game, s, END)
    assert sum(hand(s)) == drawn and s.to_play[0] == BLUE


def test_drawing_a_card_with_an_amphora_ends_the_acting_part_of_the_turn():
    """rules example 15: after one build, an amphora buys a card at once; building is then masked, and
    END_TURN still draws the 2 cards of the unused builds: 3 cards in all."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {FORTRESS: 1, TOWER: 1}}, amphorae={RED: 1})
    s = build(game, s, FORTRESS, 0, -1)
    assert s.decision[0] == D.DEC_BUILD_MODE and s.actions_left[0] == 2 and legal(game, s)[select(TOWER)]
    s = play(game, s, AMPHORA)
    assert s.amphorae[0, RED] == 0 and s.amphora_supply[0] == 15 and sum(hand(s)) == 1
    assert s.decision[0] == D.DEC_DRAW
    mask = legal(game, s)
    assert not mask[SELECT_ALL].any() and not mask[REVEAL_ALL].any() and mask[END]
    s = play(game, s, END)
    assert sum(hand(s, RED)) == 3 and s.to_play[0] == BLUE


def test_amphorae_extend_the_turn_by_a_reveal_and_buy_a_card():
    """rules example 16: Quarry and Tower revealed and stored, an amphora buys a third reveal, the second
    a card; no reveal after the card, END_TURN draws nothing more; the supply gets both back."""
    game, s = position(amphorae={RED: 2})
    assert s.amphora_supply[0] == 13
    s = reveal_as(game, s, 0, QUARRY)
    s = play(game, s, STORE)
    s = reveal_as(game, s, 1, TOWER)
    s = play(game, s, STORE)
    assert s.decision[0] == D.DEC_REVEAL_MODE and s.actions_left[0] == 0 and s.amphorae[0, RED] == 2
    assert legal(game, s)[REVEAL_ALL].all()
    s = play(game, s, reveal(2))  # the third reveal spends an amphora
    assert s.amphorae[0, RED] == 1 and s.amphora_supply[0] == 14
    s = play(game, s, STORE)
    assert s.display[0, RED, QUARRY] == 1 and s.display[0, RED, TOWER] >= 1 and s.display[0, RED].sum() == 3
    s = play(game, s, AMPHORA)
    assert s.amphorae[0, RED] == 0 and s.amphora_supply[0] == 15 and sum(hand(s)) == 1
    mask = legal(game, s)
    assert not mask[REVEAL_ALL].any() and s.stack_size[0, RED].sum() > 0
    s = play(game, s, END)
    assert sum(hand(s, RED)) == 1 and s.to_play[0] == BLUE


def test_a_group_completed_connected_earns_an_amphora_usable_at_once():
    """rules example 17: the second Tower completes Defence connected: an amphora, spent at once on a
    fourth build (a Temple next to the Fortress and the Tower, F1 H1 M2); END_TURN draws nothing."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2)), (RED, FORTRESS, (0, -1)), (RED, TOWER, (0, 0))],
                       display={RED: {TOWER: 1, TEMPLE: 1}}, hands={RED: cards(f=1, h=1, m=2)},
                       decision=D.DEC_BUILD_MODE, mode=D.MODE_BUILD, actions_left=1)
    s = build(game, s, TOWER, 1, -1)
    assert hand(s) == (0, 1, 1, 2)  # free
    assert s.amphorae[0, RED] == 1 and s.amphora_supply[0] == 14 and s.rewarded[0, RED, D.G_DEFENCE]
    assert s.actions_left[0] == 0 and legal(game, s)[select(TEMPLE)]
    assert need(game, s, TEMPLE, -1, 0) == (0, 1, 1, 2, 0)
    s = build(game, s, TEMPLE, -1, 0)
    assert s.amphorae[0, RED] == 0 and s.amphora_supply[0] == 15
    assert hand(s) == (0, 0, 0, 0) and s.building[0, hex_slot(-1, 0)] == TEMPLE
    s = play(game, s, END)
    assert sum(hand(s, RED)) == 0


def test_completed_group_with_the_amphora_supply_empty_draws_a_card():
    """rules example 18: as example 17 with every amphora held by Blue: Red draws a landscape card
    instead and may not build beyond the allowance."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2)), (RED, FORTRESS, (0, -1)), (RED, TOWER, (0, 0))],
                       display={RED: {TOWER: 1, TEMPLE: 1}}, hands={RED: cards(f=1, h=1, m=2)}, amphorae={BLUE: 15},
                       decision=D.DEC_BUILD_MODE, mode=D.MODE_BUILD, actions_left=1)
    assert s.amphora_supply[0] == 0
    s = build(game, s, TOWER, 1, -1)
    assert s.amphorae[0, RED] == 0 and s.amphora_supply[0] == 0 and s.rewarded[0, RED, D.G_DEFENCE]
    assert sum(hand(s)) == 5 and s.draw_pile[0].sum() == 60 - 5
    assert s.decision[0] == D.DEC_BUILD_MODE and s.actions_left[0] == 0
    assert not legal(game, s)[SELECT_ALL].any()


# --- the map -----------------------------------------------------------------------------------------------

def _mill_last_in_stack_2(tile_stack):
    """Red's only unrevealed non-main building is the Mill, in stack 2 (stacks 1 and 3 empty); every other
    non-main building waits on the display."""
    others = {t: int(D.COPIES[t]) for t in range(D.NUM_TYPES) if not D.IS_MAIN[t] and t != MILL}
    return position(display={RED: others}, stacks={RED: (6, 0, 1, 0)}, tile_stack=tile_stack)


def test_map_extension_after_emptying_a_stack():
    """rules example 19: revealing the last building of stack 2 (the Mill) and storing it turns over the
    top tile (T05, the only one left): it may go next to a field or a shrine, off the setup lattice, in
    any rotation, never over a field or a shrine; then Red has one reveal left.

        r=-4   1,-4    2,-4    3,-4    4,-4    5,-4    6,-4    7,-4
        r=-3       1,-3*   2,-3    3,-3    4,-3    5,-3    6,-3    7,-3
        r=-2           1,-2*   2,-2*   3,-2*   4,-2    5,-2    6,-2    7,-2
        r=-1               1,-1*   2,-1*   3,-1*   4,-1    5,-1    6,-1    7,-1
    (* = a field of the map; a tile covers its centre and the 6 hexes around it)
    """
    game, s = _mill_last_in_stack_2([T05])
    s = play(game, s, reveal(2))
    assert s.pending_type[0] == MILL and s.extend_pending[0] and s.stack_size[0, RED, 2] == 0
    s = play(game, s, STORE)
    assert s.display[0, RED, MILL] == 1
    assert s.decision[0] == D.DEC_PLACE_TILE and s.tile_up[0] == T05 and s.tile_state[0, T05] == D.TILE_UP
    mask = legal(game, s)
    centres = slots_legal(mask)
    assert {(5, -3), (5, -2), (-2, -4)} <= centres  # lattice neighbour of (2,-1); off the lattice; only S1
    assert not centres & {(4, -3), (6, -3), (-1, -4)}  # overlaps (3,-2); touches nothing; covers S1
    assert not mask[END] and not mask[STORE] and not mask[REVEAL_ALL].any()
    s = play(game, s, at(5, -3))
    assert s.decision[0] == D.DEC_CHOOSE_ROTATION
    assert legal(game, s)[D.ACTION_ROTATE:D.ACTION_ROTATE + D.ROTATIONS].all()
    s = play(game, s, rotate(2))
    assert s.tile_state[0, T05] == D.TILE_PLACED and s.tile_up[0] == -1
    assert (s.land[0, D.FLOWER[hex_slot(5, -3)]] == D.ROTATED_FACE[T05, 2]).all()
    assert s.decision[0] == D.DEC_REVEAL_MODE and s.actions_left[0] == 1


def test_no_map_extension_when_the_tile_stack_is_empty():
    """rules example 20: as example 19 with the tile stack empty: the turn goes on in reveal mode."""
    game, s = _mill_last_in_stack_2([])
    s = play(game, s, reveal(2), STORE)
    assert s.decision[0] == D.DEC_REVEAL_MODE and s.tile_up[0] == -1 and s.actions_left[0] == 1
    assert not s.extend_pending[0] and (s.tile_state[0] != D.TILE_UP).all()


def test_a_tile_never_leaves_the_window():
    """Next to a tile at the window's edge, the centres whose tile would stick out of the radius-12 window
    are masked although the rest of their tile would touch the map."""
    others = {t: int(D.COPIES[t]) for t in range(D.NUM_TYPES) if not D.IS_MAIN[t] and t != MILL}
    game, s = position(extra_tiles=[(1, (10, -2))], display={RED: others}, stacks={RED: (6, 0, 1, 0)},
                       tile_stack=[T05])
    s = play(game, s, reveal(2), STORE)
    assert s.decision[0] == D.DEC_PLACE_TILE
    covered = s.land[0] != D.LAND_NONE
    outside = []
    for h in np.flatnonzero(D.SLOT_VALID & ~D.FLOWER_OK):
        inside = [int(x) for x in D.FLOWER[h] if x >= 0]
        touches = any(n >= 0 and covered[n] for x in inside for n in D.NEIGHBOURS[x])
        if not covered[inside].any() and touches:
            outside.append(D.hex_of(int(h)))
    assert len(outside) > 0
    assert not slots_legal(legal(game, s)) & set(outside)


# --- the landscape cards -------------------------------------------------------------------------------------

def test_exhausted_draw_pile_is_replaced_by_the_shuffled_discard_pile():
    """rules example 21: one card in the draw pile, 10 discarded: passing draws that card, then 2 from
    the reshuffled discards (8 left, discard pile empty); with no discards the pass draws 1 card only."""
    game, s = position(hands={BLUE: cards(w=11, f=12, h=13, m=13)}, discard=cards(w=3, f=3, h=2, m=2))
    assert s.draw_pile[0].sum() == 1 and s.discard[0].sum() == 10
    s = play(game, s, END)
    assert sum(hand(s)) == 3 and s.draw_pile[0].sum() == 8 and s.discard[0].sum() == 0

    game, s = position(hands={BLUE: cards(w=14, f=15, h=15, m=15)})
    assert s.draw_pile[0].sum() == 1 and s.discard[0].sum() == 0
    s = play(game, s, END)
    assert hand(s) == (1, 0, 0, 0) and s.draw_pile[0].sum() == 0


def test_the_discard_pile_becomes_the_draw_pile_the_moment_the_last_card_is_drawn():
    """rules example 21, the timing the German rules fix ("at once"): buying the last card of the draw
    pile with an amphora turns the discard pile into the new draw pile right away, so the discard pile is
    empty before anything else happens this turn (cards paid later would stay on it)."""
    game, s = position(hands={BLUE: cards(w=11, f=12, h=13, m=13)}, discard=cards(w=3, f=3, h=2, m=2),
                       amphorae={RED: 1})
    assert s.draw_pile[0].sum() == 1 and s.discard[0].sum() == 10
    s = play(game, s, AMPHORA)
    assert sum(hand(s)) == 1 and s.draw_pile[0].sum() == 10 and s.discard[0].sum() == 0
    assert s.decision[0] == D.DEC_DRAW


# --- the end -------------------------------------------------------------------------------------------------

def test_win_by_placing_all_thirty_buildings():
    """rules example 22: Red's 30th building (the last Road, free next to an own road on an extra tile
    centred on (4,0)) wins at once; no card is drawn. The fields next to S2 stay empty, so the 29
    buildings do not already connect the shrines."""
    fields = [D.hex_of(int(x)) for _, c in MAP_TILES for x in D.FLOWER[hex_slot(*c)]]
    fields = [hx for hx in fields if hx not in ((2, 2), (1, 3))]
    types = [t for t in range(D.NUM_TYPES) if t != ROAD for _ in range(D.COPIES[t])]
    assert len(fields) == len(types) == 26
    buildings = [(RED, t, hx) for t, hx in zip(types, fields)]
    buildings += [(RED, ROAD, hx) for hx in ((4, 0), (5, 0), (5, -1))]
    game, s = position(extra_tiles=[(T05, (4, 0))], buildings=buildings, display={RED: {ROAD: 1}},
                       hands={RED: cards(1, 1, 1, 1)})
    assert s.placed[0, RED] == 29 and s.stack_size[0, RED].sum() == 0 and not s.done[0]
    assert need(game, s, ROAD, 4, -1) == (0, 0, 0, 0, 0)
    draw = s.draw_pile[0].copy()
    s = build(game, s, ROAD, 4, -1)
    assert s.done[0] and s.winner[0] == RED and not s.truncated[0] and s.decision[0] == D.DEC_GAME_OVER
    assert s.placed[0, RED] == 30 and hand(s) == (1, 1, 1, 1) and (s.draw_pile[0] == draw).all()
    assert game.returns(s).tolist() == [[1.0, -1.0]]
    assert legal(game, s).all()  # a finished row takes any action


CHAIN = [(0, -3), (0, -2), (0, -1), (0, 0), (0, 1), (0, 2), (1, 2)]


def test_win_by_connecting_two_shrines():
    """rules example 23: a settlement from (0,-3) (next to S1) to (1,2): a Lighthouse on (1,3), next to
    it and to S2, wins at once (free next to the own Harbour)."""
    types = [QUARRY, FORTRESS, TOWER, TOWER, SHIP, SHIP, HARBOUR]
    game, s = position(buildings=[(RED, t, hx) for t, hx in zip(types, CHAIN)], display={RED: {LIGHTHOUSE: 1}})
    assert s.settlements[0, RED] == 1 and not s.done[0]
    assert s.settlement_shrines[0, hex_slot(1, 2)] == 0b01  # S1 only
    s = build(game, s, LIGHTHOUSE, 1, 3)
    assert s.done[0] and s.winner[0] == RED and s.decision[0] == D.DEC_GAME_OVER
    assert s.settlement_shrines[0, hex_slot(1, 3)] == 0b11
    assert game.returns(s).tolist() == [[1.0, -1.0]]


def test_a_chain_broken_by_an_opponent_does_not_connect_the_shrines():
    """rules example 23, counter-check: with a Blue building on (0,1) Red's buildings form two
    settlements, and the Lighthouse on (1,3) does not win."""
    types = [QUARRY, FORTRESS, TOWER, TOWER, None, SHIP, HARBOUR]
    buildings = [(RED, t, hx) for t, hx in zip(types, CHAIN) if t is not None] + [(BLUE, QUARRY, (0, 1))]
    game, s = position(buildings=buildings, display={RED: {LIGHTHOUSE: 1}})
    assert s.settlements[0, RED] == 2
    s = build(game, s, LIGHTHOUSE, 1, 3)
    assert not s.done[0] and s.winner[0] == -1 and s.decision[0] == D.DEC_BUILD_MODE
    assert s.settlement_shrines[0, hex_slot(1, 3)] == 0b10 and s.settlement_shrines[0, hex_slot(0, -3)] == 0b01


# --- setup ---------------------------------------------------------------------------------------------------

LAYOUTS = {
    2: ([(0, -2), (2, -1), (-1, 1), (1, 2)], [(-1, -3), (2, 3)]),
    3: ([(-1, -3), (1, -2), (3, -1), (-2, 0), (0, 1), (-3, 3)], [(-2, -4), (5, -2), (-4, 5)]),
    4: ([(0, -4), (2, -3), (4, -2), (-1, -1), (1, 0), (-4, 1), (-2, 2), (0, 3)],
        [(1, -6), (6, -3), (-6, 2), (-1, 5)]),
}


@pytest.mark.parametrize("P, draw_pile, tile_stack", [(2, 51, 18), (3, 45, 16), (4, 38, 14)])
def test_setup_lays_the_layout_and_deals_buildings_and_cards(P, draw_pile, tile_stack):
    """rules example 24: the layout's tiles and shrines (each shrine touching two fields), 4 buildings on
    every display (1 main), stacks 5/7/7/7, hands of 4, 5, 6, 7 cards in turn order from the start player,
    the draw pile, 15 amphorae in the supply, the tile stack."""
    game = Attika(num_players=P)
    starts = set()
    for seed in range(12):
        s = game.init(np.random.default_rng(seed), 1)
        game.validate(s)
        centres, shrines = LAYOUTS[P]
        placed = np.flatnonzero(s.tile_state[0] == D.TILE_PLACED)
        assert sorted(D.hex_of(int(s.tile_centre[0, x])) for x in placed) == sorted(centres)
        assert (s.tile_state[0] == D.TILE_STACK).sum() == tile_stack
        fields = (s.land[0] >= D.LAND_BLANK) & (s.land[0] < D.LAND_SHRINE)
        assert fields.sum() == 7 * len(centres)
        assert (s.land[0] >= D.LAND_SHRINE).sum() == P
        for i, hx in enumerate(shrines):
            h = hex_slot(*hx)
            assert s.land[0, h] == D.LAND_SHRINE + i
            assert sum(bool(fields[n]) for n in D.NEIGHBOURS[h] if n >= 0) == 2
        assert (s.display[0].sum(axis=1) == 4).all() and (s.display[0][:, D.IS_MAIN].sum(axis=1) == 1).all()
        assert (s.stack_size[0] == [5, 7, 7, 7]).all()
        start = int(s.start_player[0])
        starts.add(start)
        assert s.to_play[0] == start and s.decision[0] == D.DEC_START and s.round[0] == 0
        sizes = s.hand[0].sum(axis=1)
        assert [int(sizes[(start + n) % P]) for n in range(P)] == [4, 5, 6, 7][:P]
        assert s.draw_pile[0].sum() == draw_pile and s.discard[0].sum() == 0
        assert s.amphora_supply[0] == 15 and s.amphorae[0].sum() == 0
        assert (s.owner[0] == -1).all() and s.placed[0].sum() == 0
    assert len(starts) > 1  # the start player is drawn


# --- modes ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("actions", ["factored", "flat"])
def test_no_mixing_of_reveal_and_build_mode(actions):
    """rules example 25: after a reveal (stored), every build from the display is masked; after a build,
    every reveal is masked."""
    flat = actions == "flat"
    tail = D.FLAT_TAIL - D.ACTION_REVEAL if flat else 0
    builds = slice(0, D.FLAT_PLACE) if flat else SELECT_ALL
    reveals = slice(tail + D.ACTION_REVEAL, tail + D.ACTION_REVEAL + D.NUM_STACKS)
    game, s = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {FORTRESS: 1, TOWER: 1}},
                       hands={RED: cards(3, 3, 3, 3)}, actions=actions)
    mask = legal(game, s)
    assert mask[builds].any() and mask[reveals].all()
    s_reveal = play(game, s, tail + reveal(1), tail + STORE)
    mask = legal(game, s_reveal)
    assert s_reveal.decision[0] == D.DEC_REVEAL_MODE and not mask[builds].any() and mask[reveals].all()
    s_build = play(game, s, flat_build(FORTRESS, 0, -1)) if flat else build(game, s, FORTRESS, 0, -1)
    mask = legal(game, s_build)
    assert s_build.decision[0] == D.DEC_BUILD_MODE and mask[builds].any() and not mask[reveals].any()


def test_immediate_build_of_a_revealed_building():
    """rules example 26: a Fortress revealed from stack 1 is built at once, free, next to the own Quarry:
    it never visits the display, and it was the first reveal (one more reveal, or END_TURN draws 1)."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2))])
    s = reveal_as(game, s, 1, FORTRESS)
    assert s.display[0, RED, FORTRESS] == 0
    mask = legal(game, s)
    assert mask[at(0, -1)] and mask[STORE] and not mask[END] and not mask[SELECT_ALL].any()
    s = play(game, s, at(0, -1))
    assert s.building[0, hex_slot(0, -1)] == FORTRESS and s.display[0, RED, FORTRESS] == 0
    assert s.discard[0].sum() == 0
    assert s.decision[0] == D.DEC_REVEAL_MODE and s.mode[0] == D.MODE_REVEAL and s.actions_left[0] == 1
    assert legal(game, s)[REVEAL_ALL].all()
    s = play(game, s, END)
    assert sum(hand(s, RED)) == 1


# --- edge cases: reveals ------------------------------------------------------------------------------------

def test_a_revealed_building_that_cannot_be_paid_is_stored():
    """A revealed building that is neither free nor affordable offers only STORE (and with auto_forced is
    stored by itself). The immediate build of a revealed building pays the new-settlement surcharge like
    any build."""
    game, s = position(buildings=[(RED, VINEYARD, (2, 2))], hands={RED: cards(h=1, m=1)})
    s = reveal_as(game, s, 0, QUARRY)
    mask = legal(game, s)
    assert mask[STORE] and not slots_legal(mask) and not mask[END]
    s = Attika(num_players=2).advance(s)  # the same position with auto_forced
    assert s.decision[0] == D.DEC_REVEAL_MODE and s.display[0, RED, QUARRY] == 1

    game, s = position(buildings=[(RED, VINEYARD, (2, 2))], hands={RED: cards(w=1, h=1, m=2)})
    s = reveal_as(game, s, 0, QUARRY)
    assert need(game, s, QUARRY, 0, -2) == (0, 0, 1, 2, 1)
    s = play(game, s, at(0, -2))
    assert hand(s) == (0, 0, 0, 0) and s.settlements[0, RED] == 2 and s.display[0, RED, QUARRY] == 0


def test_reveal_beyond_the_allowance_needs_an_amphora():
    """Two reveals use the allowance; a third is legal only with an amphora (and spends it)."""
    game, s = position()
    s = play(game, s, reveal(1), STORE, reveal(2), STORE)
    assert not legal(game, s)[REVEAL_ALL].any() and legal(game, s)[END]
    game, s = position(amphorae={RED: 1})
    s = play(game, s, reveal(1), STORE, reveal(2), STORE, reveal(3))
    assert s.amphorae[0, RED] == 0 and s.amphora_supply[0] == 15


def test_a_win_by_the_revealed_building_pre_empts_the_map_extension():
    """The last building of stack 1 (a Lighthouse) is revealed and built at once on (1,3), connecting S1
    and S2: the game ends before the emptied stack turns over a tile."""
    types = [QUARRY, FORTRESS, TOWER, TOWER, SHIP, SHIP, HARBOUR]
    others = {t: int(D.COPIES[t]) for t in range(D.NUM_TYPES)
              if not D.IS_MAIN[t] and t not in (FORTRESS, TOWER, SHIP, LIGHTHOUSE)}
    game, s = position(buildings=[(RED, t, hx) for t, hx in zip(types, CHAIN)], display={RED: others},
                       stacks={RED: (4, 1, 0, 0)})
    in_stack = int((s.tile_state[0] == D.TILE_STACK).sum())
    s = play(game, s, reveal(1))
    assert s.pending_type[0] == LIGHTHOUSE and s.extend_pending[0]
    s = play(game, s, at(1, 3))
    assert s.done[0] and s.winner[0] == RED and not s.extend_pending[0]
    assert s.tile_up[0] == -1 and (s.tile_state[0] == D.TILE_STACK).sum() == in_stack


def test_explicit_payment_of_a_revealed_building_then_the_map_extension():
    """The Mill, last of stack 2, built at once with explicit payment: the tile is turned over only once
    the last card is paid."""
    others = {t: int(D.COPIES[t]) for t in range(D.NUM_TYPES) if not D.IS_MAIN[t] and t != MILL}
    game, s = position(display={RED: others}, stacks={RED: (6, 0, 1, 0)}, tile_stack=[T05],
                       hands={RED: cards(1, 1, 1, 0)}, payment="explicit")
    s = play(game, s, reveal(2), at(0, 0))
    assert s.decision[0] == D.DEC_PAY and s.extend_pending[0] and s.mode[0] == D.MODE_REVEAL
    assert tuple(s.pay_spec[0]) == (1, 1, 1, 0)
    s = play(game, s, pay(W), pay(F))
    assert s.decision[0] == D.DEC_PAY and s.tile_up[0] == -1
    s = play(game, s, pay(H))
    assert s.building[0, hex_slot(0, 0)] == MILL and s.display[0, RED, MILL] == 0
    assert s.decision[0] == D.DEC_PLACE_TILE and s.tile_up[0] == T05 and not s.extend_pending[0]


def test_automatic_payment_takes_any_cards_from_the_largest_pile():
    """An isolated Road owes 5 any cards (blank map) plus 1 for Red's settlement. The automatic payment
    takes them one at a time from the largest pile left, ties in the order W, F, H, M."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {ROAD: 1}}, hands={RED: cards(1, 3, 2, 2)})
    assert need(game, s, ROAD, -2, 2) == (0, 0, 0, 0, 6)
    s = build(game, s, ROAD, -2, 2)
    # W1 F3 H2 M2: F; W1 F2 H2 M2: F; W1 F1 H2 M2: H; W1 F1 H1 M2: M; W1 F1 H1 M1: W; F1 H1 M1: F
    assert hand(s) == (0, 0, 1, 1) and tuple(s.discard[0]) == (1, 3, 1, 1)


def test_a_card_bought_before_choosing_a_mode_still_leaves_the_three_cards_for_passing():
    """AMPHORA_CARD in START draws 1 card and ends the acting part; the mode was never chosen, so END_TURN
    draws 3 more."""
    game, s = position(amphorae={RED: 1})
    s = play(game, s, AMPHORA)
    assert s.decision[0] == D.DEC_DRAW and sum(hand(s)) == 1 and s.mode[0] == D.MODE_NONE
    assert not legal(game, s)[REVEAL_ALL].any()
    s = play(game, s, END)
    assert sum(hand(s, RED)) == 4


# --- edge cases: groups ------------------------------------------------------------------------------------

@pytest.mark.parametrize("connection, rewarded", [("strict", False), ("settlement", True)])
def test_group_connected_through_other_buildings(connection, rewarded):
    """Silver mine and Mint joined only through an own Road: connected "among themselves" (strict, the
    default) they are not; in one settlement (the variant) they are."""
    game, s = position(buildings=[(RED, SILVER_MINE, (0, -2)), (RED, ROAD, (0, -1))], display={RED: {MINT: 1}},
                       hands={RED: cards(1, 1, 1, 1)}, group_connection=connection)
    assert hex_slot(0, -2) not in D.NEIGHBOURS[hex_slot(0, 0)]
    s = build(game, s, MINT, 0, 0)
    assert bool(s.rewarded[0, RED, D.G_COINAGE]) == rewarded and s.amphorae[0, RED] == int(rewarded)


# --- edge cases: explicit payment ------------------------------------------------------------------------------

def _pay_mask(game, s) -> list[int]:
    mask = legal(game, s)
    return [k for k in range(4) if mask[pay(k)]] + (["sub"] if mask[D.ACTION_SUBSTITUTE] else [])


def test_explicit_payment_queue_order_and_substitute():
    """Explicit payment of a Temple (F1 H1 M2) from W2 F1 H1 M1: the specific units in the order W, F,
    H, M, each paid only by its own type (a substitution that would leave the rest unpayable is masked);
    the missing M is substituted by two any cards queued first; the placement completes on the last card."""
    game, s = position(display={RED: {TEMPLE: 1}}, hands={RED: cards(w=2, f=1, h=1, m=1)}, payment="explicit")
    s = build(game, s, TEMPLE, 0, 1)
    assert s.decision[0] == D.DEC_PAY and s.pending_type[0] == TEMPLE and s.pending_slot[0] == hex_slot(0, 1)
    assert tuple(s.pay_spec[0]) == (0, 1, 1, 2) and s.pay_any[0] == 0 and s.pay_front[0] == 0
    assert s.owner[0, hex_slot(0, 1)] == -1 and s.display[0, RED, TEMPLE] == 0
    mask = legal(game, s)
    assert not mask[END] and not mask[SELECT_ALL].any()
    assert _pay_mask(game, s) == [F]  # substituting F would leave 6 cards owed from 5
    s = play(game, s, pay(F))
    assert _pay_mask(game, s) == [H]
    s = play(game, s, pay(H))
    assert _pay_mask(game, s) == [M, "sub"]
    s = play(game, s, pay(M))
    assert tuple(s.pay_spec[0]) == (0, 0, 0, 1) and _pay_mask(game, s) == ["sub"]
    s = play(game, s, D.ACTION_SUBSTITUTE)
    assert tuple(s.pay_spec[0]) == (0, 0, 0, 0) and s.pay_front[0] == 2 and _pay_mask(game, s) == [W]
    s = play(game, s, pay(W))
    assert s.decision[0] == D.DEC_PAY and s.pay_front[0] == 1
    s = play(game, s, pay(W))
    assert s.decision[0] == D.DEC_BUILD_MODE and s.building[0, hex_slot(0, 1)] == TEMPLE
    assert hand(s) == (0, 0, 0, 0) and tuple(s.discard[0]) == (2, 1, 1, 1)
    assert s.pay_front[0] == 0 and s.pay_any[0] == 0 and not s.pay_spec[0].any()


def test_explicit_payment_masks_cards_that_would_leave_the_rest_unpayable():
    """A Quarry (H1 M2) from W2 H1 M1: after substituting the first M, paying a front any card with the
    only M would leave the last M unpayable (3 cards owed from 2), so only W is offered."""
    game, s = position(display={RED: {QUARRY: 1}}, hands={RED: cards(w=2, h=1, m=1)}, payment="explicit")
    s = build(game, s, QUARRY, 0, 0)
    assert _pay_mask(game, s) == [H]
    s = play(game, s, pay(H))
    assert _pay_mask(game, s) == [M, "sub"]
    s = play(game, s, D.ACTION_SUBSTITUTE)
    assert s.pay_front[0] == 2 and tuple(s.pay_spec[0]) == (0, 0, 0, 1)
    assert _pay_mask(game, s) == [W]
    s = play(game, s, pay(W), pay(W), pay(M))
    assert s.building[0, hex_slot(0, 0)] == QUARRY and hand(s) == (0, 0, 0, 0)


def test_explicit_payment_any_units_take_any_type_and_free_builds_skip_payment():
    """The surcharge is any cards: every type held is offered. A free build never enters PAY."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {FORTRESS: 1, ROAD: 1}},
                       hands={RED: cards(2, 2, 2, 2)}, payment="explicit")
    s = build(game, s, FORTRESS, 0, -1)
    assert s.decision[0] == D.DEC_BUILD_MODE and s.building[0, hex_slot(0, -1)] == FORTRESS
    s = build(game, s, ROAD, -2, 2)  # isolated: 5 any + 1 surcharge
    assert s.decision[0] == D.DEC_PAY and s.pay_any[0] == 6 and not s.pay_spec[0].any()
    assert _pay_mask(game, s) == [W, F, H, M]
    s = play(game, s, pay(M), pay(M), pay(W), pay(F), pay(H), pay(W))
    assert s.decision[0] == D.DEC_BUILD_MODE and hand(s) == (0, 1, 1, 0)


def test_explicit_payment_random_play_keeps_every_queue_payable():
    """In random explicit-payment games every PAY decision has a legal action, and paying never leaves
    the hand short (validate checks the queue stays payable)."""
    game = Attika(num_players=2, payment="explicit", max_rounds=40)
    rng = np.random.default_rng(7)
    s = game.init(rng, 4)
    pays = 0
    while not s.done.all():
        mask = game.legal_action_mask(s)
        assert mask.any(axis=1).all()
        pays += int((s.decision == D.DEC_PAY).sum())
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        s = game.step(s, actions, rng)
        game.validate(s)
    assert pays > 0


# --- edge cases: encodings, the end, rewards ---------------------------------------------------------------------

def test_flat_actions_play_the_same_game_as_factored_actions():
    """From the same setup, each factored SELECT+SLOT / SLOT+ROTATE pair played as the one flat action
    BUILD(t, h) / PLACE(h, k) (with the uniform of the pair's second step), and every other action as
    its flat twin, gives identical states; at the build decisions the flat BUILD mask is exactly the
    factored SELECT_TYPE(t) then SLOT(h) combinations."""
    fac = Attika(num_players=2, auto_forced=False, max_rounds=12)
    flat = Attika(num_players=2, auto_forced=False, max_rounds=12, actions="flat")
    rng = np.random.default_rng(3)
    kinds = {"build": 0, "reveal build": 0, "tile": 0, "other": 0}
    for game_no in range(3):
        u0 = rng.random((1, 1))
        a, b = fac.init_from_uniforms(u0), flat.init_from_uniforms(u0)
        steps = 0
        while not a.done[0]:
            mask = legal(fac, a)
            dec = int(a.decision[0])
            if dec in (D.DEC_START, D.DEC_BUILD_MODE) and steps % 5 == 0:
                flat_mask = legal(flat, b)
                for t in range(D.NUM_TYPES):
                    row = flat_mask[t * D.NUM_SLOTS:(t + 1) * D.NUM_SLOTS]
                    if not mask[select(t)]:
                        assert not row.any()
                        continue
                    fields = legal(fac, fac.apply(a, np.array([select(t)]), np.array([[0.5]])))
                    assert (fields[D.ACTION_SLOT:D.ACTION_SLOT + D.NUM_SLOTS] == row).all()
            x = int(rng.choice(np.flatnonzero(mask)))
            u = rng.random((1, 1))
            if x < D.ACTION_SLOT:  # SELECT_TYPE, then the field
                a = fac.apply(a, np.array([x]), np.array([[0.5]]))
                h = int(rng.choice(np.flatnonzero(legal(fac, a)))) - D.ACTION_SLOT
                a = fac.apply(a, np.array([D.ACTION_SLOT + h]), u)
                y = (x - D.ACTION_SELECT) * D.NUM_SLOTS + h
                kinds["build"] += 1
            elif x < D.ACTION_ROTATE and dec == D.DEC_PENDING_REVEAL:
                y = int(a.pending_type[0]) * D.NUM_SLOTS + x - D.ACTION_SLOT
                a = fac.apply(a, np.array([x]), u)
                kinds["reveal build"] += 1
            elif x < D.ACTION_ROTATE:  # the tile's centre, then its rotation
                a = fac.apply(a, np.array([x]), np.array([[0.5]]))
                k = int(rng.integers(D.ROTATIONS))
                a = fac.apply(a, np.array([D.ACTION_ROTATE + k]), u)
                y = D.FLAT_PLACE + k * D.NUM_SLOTS + x - D.ACTION_SLOT
                kinds["tile"] += 1
            else:
                a = fac.apply(a, np.array([x]), u)
                y = x - D.ACTION_REVEAL + D.FLAT_TAIL
                kinds["other"] += 1
            b = flat.apply(b, np.array([y]), u)
            for name, va, vb in zip(a._fields, a, b):
                assert np.array_equal(va, vb), f"game {game_no} step {steps}: {name} differs"
            steps += 1
        assert b.done[0]
    assert min(kinds.values()) > 0, kinds


def test_truncation_at_the_round_cap_is_a_draw():
    """After max_rounds complete rounds the game ends: done and truncated, no winner, returns 0."""
    game = Attika(num_players=2, max_rounds=2, auto_forced=False)
    s = game.init(np.random.default_rng(5), 1)
    for i in range(4):
        assert not s.done[0]
        s = play(game, s, END)
        game.validate(s)
        assert s.round[0] == (i + 1) // 2
    assert s.done[0] and s.truncated[0] and s.winner[0] == -1 and s.decision[0] == D.DEC_GAME_OVER
    assert game.returns(s).tolist() == [[0.0, 0.0]]
    assert Attika(num_players=2, max_rounds=2, reward="win_loss").returns(s).tolist() == [[0.0, 0.0]]


def _shrine_path(s, a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """A shortest chain of fields from a field next to shrine a to a field next to shrine b."""
    fields = (s.land[0] >= D.LAND_BLANK) & (s.land[0] < D.LAND_SHRINE)
    start = [int(n) for n in D.NEIGHBOURS[hex_slot(*a)] if n >= 0 and fields[n]]
    goal = {int(n) for n in D.NEIGHBOURS[hex_slot(*b)] if n >= 0 and fields[n]}
    prev = {h: -1 for h in start}
    queue = deque(start)
    while queue:
        h = queue.popleft()
        if h in goal:
            path = []
            while h >= 0:
                path.append(D.hex_of(h))
                h = prev[h]
            return path[::-1]
        for n in D.NEIGHBOURS[h]:
            if n >= 0 and fields[n] and int(n) not in prev:
                prev[int(n)] = h
                queue.append(int(n))
    raise AssertionError("no path")


@pytest.mark.parametrize("reward, expected", [("rank", [1.0, -0.5, -0.5]), ("win_loss", [1.0, -1.0, -1.0])])
def test_rewards_of_a_three_player_win(reward, expected):
    """reward="rank" shares -1 between the losers (zero-sum); "win_loss" gives each loser -1. The win:
    Red's chain of buildings from S1 to S2 on the 3-player map, completed by its last building."""
    _, s0 = position(P=3)
    path = _shrine_path(s0, (-2, -4), (5, -2))
    types = [t for t in range(D.NUM_TYPES) for _ in range(D.COPIES[t])][:len(path)]
    buildings = [(RED, t, hx) for t, hx in zip(types[:-1], path[:-1])]
    game, s = position(P=3, buildings=buildings, display={RED: {types[-1]: 1}}, hands={RED: cards(5, 5, 5, 5)},
                       reward=reward)
    assert not s.done[0] and (game.returns(s) == 0).all()
    s = build(game, s, types[-1], *path[-1])
    assert s.done[0] and s.winner[0] == RED
    assert game.returns(s).tolist() == [expected]
