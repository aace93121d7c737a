"""Carpe Diem: the rules' worked examples 1..29 and rule edge cases, through the public API.

The rules are summarised in docs/carpe_diem.md; the German Yucata rules text wins where sources
disagree. Where the worked examples and the German text differ, the German text is implemented and
tested: the first tile a player takes must be built on the shovel cell ("Das erste Plaettchen, das ein
Spieler nimmt, muss er auf sein Feld mit der Schaufel legen"), so STORE is illegal while the shovel
cell is empty (rules example 23; later tiles may always be stored).

Positions are built by editing a fresh game (`position`): the start placement is played with all
uniforms 0, so the deal is the identity (depot d holds L(4d+1)..L(4d+4), the display D01..D11), seat p
has building board p + 1 (seat 0: board 1, shovel (2, 2)) and frame parts F(4p+1)..F(4p+4) on N, E, S, W.
Districts are drawn as ASCII grids (`grid`): one token per cell, `L37/1` = tile L37 turned 1 quarter
turn clockwise, `.` = empty; every tile a test uses is taken out of the supply, a depot or the display
(a depot / display slot gets a replacement from the supply), so every position passes `game.validate` as a
snapshot (`history=False`: the tiles and counters of a hand-built position came from no game).
`game.advance` recomputes the derived fields (completed features, chimneys, villa VP, frame tasks).

Unless a test says otherwise: 4 players, `auto_forced=False` (every decision is seen), seat 0 to act.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pytest

from meeple.envs import core, make
from meeple.envs.carpe_diem import data
from meeple.envs.carpe_diem.data import (
    ACTION_COUNT, ACTION_DISPLAY, ACTION_MOVE_CCW, ACTION_MOVE_CW, ACTION_ORDER_HIGH, ACTION_ORDER_LOW,
    ACTION_PLACE, ACTION_RETURN, ACTION_SCORE_SPACE, ACTION_SPACE, ACTION_STORE, ACTION_TAKE, ADMINISTRATOR,
    BAKER, CRAFTSMAN, DEC_CARD_BREAD, DEC_CARD_ORDER, DEC_CARD_UNITS, DEC_DISPLAY_PICK,
    DEC_FOUNTAIN_RETURN, DEC_GAME_OVER, DEC_MOVE, DEC_PLACE, DEC_SCORE_SPACE, DEC_TAKE,
    GARDEN, MARKET, MERCHANT, POND, UNIFORMS_AT_INIT, UNIFORMS_PER_STEP, VILLA, VINEYARD,
)
from meeple.envs.carpe_diem.rules import LOC_DEPOT, LOC_DISPLAY, LOC_PENDING, LOC_PLACED, LOC_REMOVED, LOC_STORED, LOC_SUPPLY

GAME = "carpe_diem"
# With NUMBA_DISABLE_JIT the kernels run on numpy scalars, whose fixed-width arithmetic wraps around
# with a RuntimeWarning (NEP 50) where numba computes in int64: make that an error here.
pytestmark = pytest.mark.filterwarnings("error:overflow encountered:RuntimeWarning")
GRAPES, HERBS, CHICKENS, FISH = range(4)


# --- helpers --------------------------------------------------------------------------------

def tile(name: str) -> int:
    """Tile id of a tile name, e.g. tile("L01") == 0, tile("D01") == 84."""
    return data.TILE_NAMES.index(name)


def card(name: str) -> int:
    """Scoring-card id of a card name, e.g. card("A05")."""
    return data.CARD_NAMES.index(name)


def fc(k: int) -> int:
    """RETURN action for fountain card kind FCk."""
    return ACTION_RETURN + k


def cell(r: int, c: int) -> int:
    return 6 * r + c


def place(r: int, c: int, rot: int) -> int:
    """PLACE action: cell (r, c), rot clockwise quarter turns."""
    return ACTION_PLACE + 4 * cell(r, c) + rot


def count(k: int) -> int:
    return ACTION_COUNT + k


def new_game(num_players: int = 4, auto_forced: bool = False, **variant):
    return make(GAME, num_players=num_players, auto_forced=auto_forced, **variant)


def zeros(width: int = UNIFORMS_PER_STEP) -> np.ndarray:
    return np.zeros((1, width))


def legal(game, state) -> set[int]:
    return set(np.flatnonzero(game.legal_action_mask(state)[0]).tolist())


def act(game, state, *actions: int, u: np.ndarray | None = None):
    """Apply `actions` in order, each checked legal first; the state is validated after each (as a snapshot:
    hand-built positions are consistent, but no game reaches them, see `position`)."""
    for a in actions:
        assert game.legal_action_mask(state)[0, a], f"{game.action_names[a]} is not legal here"
        state = game.apply(state, np.array([a]), zeros() if u is None else u)
        game.validate(state, history=False)
    return state


def grid(text: str) -> dict[int, tuple[int, int]]:
    """Parse a 6 x 6 district drawing: {cell: (tile id, rot)}. Tokens `L37/1` (tile/rotation) or `.`."""
    rows = [line.split() for line in text.strip("\n").splitlines() if line.strip()]
    assert len(rows) == 6 and all(len(row) == 6 for row in rows), "a district is 6 rows of 6 cells"
    out = {}
    for r, row in enumerate(rows):
        for c, token in enumerate(row):
            if token.strip(".") == "":
                continue
            name, rot = token.split("/")
            out[cell(r, c)] = (tile(name), int(rot))
    return out


def base_state(game, start: int = 0, spaces: Mapping[int, int] | None = None):
    """A new game after the start placement (all uniforms 0): start player `start`, seat p's patrician on
    spaces[p] (default: space p), the identity deal, the start player to move."""
    P = game.num_players
    u = zeros(UNIFORMS_AT_INIT)
    u[0, data.U_INIT_START] = (start + 0.5) / P
    s = game.init_from_uniforms(u)
    spaces = {p: p for p in range(P)} if spaces is None else spaces
    for i in range(P):
        s = act(game, s, ACTION_SPACE + spaces[(start + i) % P])
    assert s.decision[0] == DEC_MOVE and s.to_play[0] == start
    return s


class _Tiles:
    """Moves tiles of a hand-built position, keeping every tile in exactly one place (validate 2)."""

    def __init__(self, s, reserved: set[int]) -> None:
        self.s = s
        self.reserved = set(reserved)

    def _replacement(self, dark: bool) -> int:
        lo, hi = (data.NUM_LIGHT, data.NUM_TILES) if dark else (0, data.NUM_LIGHT)
        for t in range(hi - 1, lo - 1, -1):
            if self.s.tile_loc[0, t] == LOC_SUPPLY and t not in self.reserved:
                self.reserved.add(t)
                return t
        raise AssertionError("no supply tile left")

    def take(self, t: int, loc: int) -> None:
        """Take tile t out of the supply / a depot / the display and put it at `loc`."""
        s = self.s
        where = s.tile_loc[0, t]
        if where == LOC_DEPOT:
            d, j = np.argwhere(s.depot[0] == t)[0]
            r = self._replacement(dark=t >= data.NUM_LIGHT)
            s.depot[0, d, j] = r
            s.tile_loc[0, r] = LOC_DEPOT
        elif where == LOC_DISPLAY:
            i = int(np.flatnonzero(s.display[0] == t)[0])
            r = self._replacement(dark=True)
            s.display[0, i] = r
            s.tile_loc[0, r] = LOC_DISPLAY
        else:
            assert where == LOC_SUPPLY, f"{data.TILE_NAMES[t]} is already in use"
        s.tile_loc[0, t] = loc

    def any_light(self) -> int:
        return self._replacement(dark=False)


def position(game, *, seat: int = 0, start: int = 0, districts: Mapping[int, str] | None = None,
             pending: str | None = None, display: Mapping[int, str | None] | None = None,
             stored: Mapping[int, int] | None = None, empty_depots: tuple[int, ...] = (),
             spaces: Mapping[int, int] | None = None, u: np.ndarray | None = None, **fields):
    """A hand-built B=1 position in phase 0, `seat` to act (turn = seat - start), then `game.advance`d
    and validated.

    districts {seat: grid text}; pending: the tile `seat` has to build now (decision PLACE);
    display {slot: tile name or None (empty)}; stored {seat: number of tiles stored face down};
    empty_depots: depots whose tiles are removed from the game. Other State fields by name: a dict
    {index: value} sets field[0, index] (a tuple index: field[0, *index]), anything else sets field[0].
    """
    P = game.num_players
    s = base_state(game, start=start)
    layouts = {p: grid(text) for p, text in (districts or {}).items()}
    reserved = {t for layout in layouts.values() for t, _ in layout.values()}
    reserved |= {tile(n) for n in (display or {}).values() if n is not None}
    if pending is not None:
        reserved.add(tile(pending))
    tiles = _Tiles(s, reserved)
    for p, layout in layouts.items():
        for c, (t, rot) in layout.items():
            tiles.take(t, LOC_PLACED)
            s.cell_tile[0, p, c] = t
            s.cell_rot[0, p, c] = rot
    for slot, name in (display or {}).items():
        old = s.display[0, slot]
        if old >= 0:
            s.tile_loc[0, old] = LOC_SUPPLY
            s.display[0, slot] = -1
        if name is not None:
            tiles.take(tile(name), LOC_DISPLAY)
            s.display[0, slot] = tile(name)
    for p, n in (stored or {}).items():
        for _ in range(n):
            s.tile_loc[0, tiles.any_light()] = LOC_STORED
        s.stored[0, p] = n
    for d in empty_depots:
        for j in range(data.DEPOT_SLOTS):
            if s.depot[0, d, j] >= 0:
                s.tile_loc[0, s.depot[0, d, j]] = LOC_REMOVED
                s.depot[0, d, j] = -1
    s.turn[0] = (seat - start) % P
    s.to_play[0] = seat
    if pending is not None:
        tiles.take(tile(pending), LOC_PENDING)
        s.tile_pending[0] = tile(pending)
        s.decision[0] = DEC_PLACE
    if spaces is not None:
        s.patrician[0] = [spaces[p] for p in range(P)]
    for name, value in fields.items():
        target = getattr(s, name)
        if isinstance(value, dict):
            for i, v in value.items():
                target[(0, *i) if isinstance(i, tuple) else (0, i)] = v
        else:
            target[0] = value
    s = game.advance(s, zeros() if u is None else u)
    game.validate(s, history=False)  # a consistent snapshot; its tiles and counters came from no game
    return s


def scoring_position(game, cards: Mapping[int, str], seat: int = 0, **kw):
    """Phase 0's scoring round with `seat` to put its disc first; cards {slot: name} replace the
    dealt cards of those slots. The depots are empty, as after 7 rounds."""
    P = game.num_players
    s = position(game, seat=seat, empty_depots=tuple(range(data.NUM_SPACES)), **kw)
    for slot, name in cards.items():
        s.card_slot[0, slot] = card(name)
    s.round[0] = data.ROUNDS_PER_PHASE
    s.turn[0] = 0
    s.score_order[0] = [seat] + [p for p in range(P) if p != seat]
    s.decision[0] = DEC_SCORE_SPACE
    s.to_play[0] = seat
    game.validate(s, history=False)
    return s


def fountain_u(state, kinds: tuple[int, int]) -> np.ndarray:
    """Uniforms that make the next fountain draw show `kinds`: the draw shuffles the undrawn cards
    (2 minus those in hands or returned, listed in kind order) with Fisher-Yates from U_STEP_FOUNTAIN."""
    pool = []
    for k in range(data.NUM_FOUNTAIN_KINDS):
        left = data.FOUNTAIN_COPIES - int(state.fountain_hand[0, :, k].sum() + state.fountain_returned[0, :, k].sum())
        pool += [k] * left
    u = zeros()
    for i, k in enumerate(kinds):
        j = pool.index(k, i)
        u[0, data.U_STEP_FOUNTAIN + i] = (j - i + 0.5) / (len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return u


def parts(game, state, p: int = 0) -> dict[str, int]:
    return {name: int(v[0, p]) for name, v in game.score_parts(state).items()}


def banderoles_left(state, p: int) -> int:
    """Banderole cells of p's board still without a tile."""
    return int((data.BOARD_BANDEROLE[state.board[0, p]] & (state.cell_tile[0, p] < 0)).sum())


NO_VILLA_TASKS = [4, 5, 8, 9]  # frame parts F05, F06, F09, F10 on N, E, S, W: no villa task


def disc(space: int) -> int:
    return ACTION_SCORE_SPACE + space


# --- setup ------------------------------------------------------------------------------------

USABLE = {2: {2, 3, 4, 5, 9, 11, 12, 13, 15}, 3: {1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14, 15}, 4: set(range(17))}
SLOTS = {2: {1, 3, 4, 5, 6, 7, 8, 10}, 3: set(range(1, 11)), 4: set(range(12))}
LETTERS = {2: [2, 2, 2, 2], 3: [2, 3, 2, 3], 4: [3, 3, 2, 4]}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_cd_ex_1_scoring_cards_and_circle_spaces(n):
    """Rules example 1: cards per letter, used slots and usable circle spaces (4n + 1)."""
    game = new_game(n)
    for seed in range(3):
        s = game.init(np.random.default_rng(seed))
        used = set(np.flatnonzero(s.card_slot[0] >= 0).tolist())
        assert used == SLOTS[n]
        ids = s.card_slot[0][s.card_slot[0] >= 0]
        assert len(set(ids.tolist())) == len(ids)
        assert np.bincount(data.CARD_LETTER[ids], minlength=4).tolist() == LETTERS[n]
    s = scoring_position(game, {})
    spaces = {a - ACTION_SCORE_SPACE for a in legal(game, s)}
    assert spaces == USABLE[n] and len(spaces) == 4 * n + 1


def test_cd_ex_2_starting_vp_and_banderole_stack():
    """Rules example 2: n = 4, start seat 2: VP 10, 11, 8, 9 by seat, stack 2, 3, 0, 1
    bottom -> top; without steps in phase 0 the scoring order is 1, 0, 3, 2. n = 3: 8, 9, 13; n = 2: 8, 9."""
    game = new_game(4)
    s = base_state(game, start=2)
    assert s.vp[0].tolist() == [10, 11, 8, 9]
    assert s.track[0].tolist() == [0, 0, 0, 0]
    assert s.height[0].tolist() == [2, 3, 0, 1]
    # the last turn of phase 0 (seat 1, the 4th after seat 2) builds its tile without a step
    s = position(game, start=2, seat=1, round=6, pending="D32")
    shovel = int(data.BOARD_SHOVEL[s.board[0, 1]])
    s = act(game, s, ACTION_PLACE + 4 * shovel)
    assert s.decision[0] == DEC_SCORE_SPACE and s.round[0] == data.ROUNDS_PER_PHASE
    assert s.track[0].tolist() == [0, 0, 0, 0]
    assert s.score_order[0].tolist() == [1, 0, 3, 2] and s.to_play[0] == 1
    assert base_state(new_game(3), start=0).vp[0].tolist() == [8, 9, 13]
    assert base_state(new_game(2), start=0).vp[0].tolist() == [8, 9]
    assert base_state(new_game(2), start=1).vp[0].tolist() == [9, 8]


# --- lodgings and scoring cards ---------------------------------------------------------------

SHOVEL_ONLY = """
.  .  .   .  .  .
.  .  .   .  .  .
.  .  {}  .  .  .
.  .  .   .  .  .
.  .  .   .  .  .
.  .  .   .  .  .
"""  # one tile on the shovel cell (2, 2) of board 1: SHOVEL_ONLY.format("D18/1")
MERCHANT_HALF = """
.  .  .      .  .  .
.  .  .      .  .  .
.  .  D12/1  .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
"""  # a merchant half facing east, towards (2, 3)


def test_cd_ex_3_merchant_lodging():
    """Rules example 3 (the German rules' example "Nils"): fish 2, chickens 1, grapes 1 and a completed merchant
    lodging: all goods go back, 4 + 1 = 5 coins."""
    game = new_game()
    s = position(game, districts={0: MERCHANT_HALF}, pending="D13", goods={0: [1, 0, 1, 2]})
    assert s.completed[0, 0, MERCHANT] == 0
    s = act(game, s, place(2, 3, 3))  # merchant half turned to face west
    assert s.completed[0, 0, MERCHANT] == 1
    assert s.goods[0, 0].tolist() == [0, 0, 0, 0] and s.coins[0, 0] == 5


def test_cd_ex_4_merchant_lodging_without_goods():
    """Rules example 4: no goods, coins 2 -> coins 3."""
    game = new_game()
    s = position(game, districts={0: MERCHANT_HALF}, pending="D13", coins={0: 2})
    s = act(game, s, place(2, 3, 3))
    assert s.goods[0, 0].tolist() == [0, 0, 0, 0] and s.coins[0, 0] == 3


def first_card(game, s, low: bool = True):
    """Put the disc on circle space 0 (slots 0 and 1) and choose the order; returns the state at the first card."""
    s = act(game, s, disc(0))
    assert s.decision[0] == DEC_CARD_ORDER and legal(game, s) == {ACTION_ORDER_LOW, ACTION_ORDER_HIGH}
    return act(game, s, ACTION_ORDER_LOW if low else ACTION_ORDER_HIGH)


def counts(game, s) -> set[int]:
    """The legal counts of a CARD_UNITS / CARD_BREAD decision."""
    options = legal(game, s)
    assert all(ACTION_COUNT <= a < data.NUM_ACTIONS for a in options)
    return {a - ACTION_COUNT for a in options}


@pytest.mark.parametrize("herbs, coins, bread, u_max, u, k, gain, left", [
    (4, 0, 0, 2, 2, 0, 8, (0, 0, 0)),   # (a)
    (1, 1, 0, 1, 1, 0, 4, (0, 0, 0)),   # (b) 1 herb + 1 coin
    (5, 1, 0, 3, 3, 0, 12, (0, 0, 0)),  # (c) 5 herbs + 1 coin
    (1, 0, 3, 0, 0, 1, 4, (1, 0, 0)),   # (d) one 3-bread payment
    (1, 0, 2, 0, 0, 0, -4, (1, 0, 2)),  # (e) nothing possible: -4
], ids=["a", "b", "c", "d", "e"])
def test_cd_ex_5_red_a_card(herbs, coins, bread, u_max, u, k, gain, left):
    """Rules example 5 (goods before coins; any number of 3-bread payments): A05 (2 herbs -> 4 VP): u_max, payment
    with herbs first and coins for the shortfall, 3-bread payments, -4 VP for 0 units. `left` = herbs, coins, bread
    after."""
    game = new_game()
    s = scoring_position(game, {0: "A05", 1: "D21"}, goods={0: [0, herbs, 0, 0]}, coins={0: coins}, bread={0: bread})
    vp = int(s.vp[0, 0])
    s = first_card(game, s)
    assert s.decision[0] == DEC_CARD_UNITS and counts(game, s) == set(range(u_max + 1))
    s = act(game, s, count(u))
    assert s.decision[0] == DEC_CARD_BREAD and counts(game, s) == set(range(bread // 3 + 1))
    s = act(game, s, count(k))
    assert s.card_seq[0] == 1  # now at the second card
    assert int(s.vp[0, 0]) - vp == gain
    assert (int(s.goods[0, 0, HERBS]), int(s.coins[0, 0]), int(s.bread[0, 0])) == left


VILLAS_3_AND_4 = """
.  .      .      .      .  .
.  .      L20/2  L18/2  .  .
.  .      L17/0  D07/0  .  .
.  .      .      .      .  .
.  .      .      .      .  .
.  .      .      .      .  .
"""  # completed villa L20 + L17 (3 chimneys); incomplete villa L18 + D07 (4), open towards (3, 3)


def test_cd_ex_6_green_c_card():
    """Rules example 6 (green units taken in full): C05 (2 chimneys -> 1 bread): completed 3 + incomplete 4 = 7
    chimneys -> 3 units -> +3 bread; with bread 3 and one 3-bread payment: 4 units, bread 3 - 3 + 4 = 4."""
    game = new_game()
    for bread, k, after in ((0, 0, 3), (3, 1, 4)):
        s = scoring_position(game, {0: "C05", 1: "D21"}, districts={0: VILLAS_3_AND_4}, bread={0: bread})
        assert s.chimneys[0, 0] == 7 and s.completed[0, 0, VILLA] == 1 and s.villa_vp[0, 0] == 3
        s = first_card(game, s)
        assert s.decision[0] == DEC_CARD_BREAD and s.units[0] == 3  # green: natural units, no choice
        assert counts(game, s) == set(range(bread // 3 + 1))
        s = act(game, s, count(k))
        assert s.bread[0, 0] == after


TWO_MERCHANTS = """
.  .  .      .      .  .
.  .  D14/1  L01/3  .  .
.  .  D12/1  D13/3  .  .
.  .  .      .      .  .
.  .  .      .      .  .
.  .  .      .      .  .
"""


def test_cd_ex_7_green_d_card():
    """Rules example 7: D07 (1 completed merchant lodging -> 3 VP): 2 lodgings -> +6 VP; none and
    bread 3 with one payment -> +3 VP, bread 0; none and bread 2 -> -4 VP."""
    game = new_game()
    s = scoring_position(game, {0: "D07", 1: "D21"}, districts={0: TWO_MERCHANTS})
    assert s.completed[0, 0, MERCHANT] == 2
    vp = int(s.vp[0, 0])
    s = act(game, first_card(game, s), count(0))
    assert s.vp[0, 0] - vp == 6
    for bread, k, gain in ((3, 1, 3), (2, 0, -4)):
        s = scoring_position(game, {0: "D07", 1: "D21"}, bread={0: bread})
        s = first_card(game, s)
        assert counts(game, s) == set(range(k + 1))
        s = act(game, s, count(k))
        assert s.vp[0, 0] - vp == gain and s.bread[0, 0] == bread - 3 * k


def test_cd_ex_8_failing_a_card():
    """Rules example 8 (the German rules' example "Sylvia"): A11 (3 fish -> 7 VP) with 2 fish, no coins, bread 2:
    only 0 units and 0 bread payments are legal; she keeps her 2 fish and loses 4 VP."""
    game = new_game()
    s = scoring_position(game, {0: "A11", 1: "D21"}, goods={0: [0, 0, 0, 2]}, bread={0: 2})
    vp = int(s.vp[0, 0])
    s = first_card(game, s)
    assert counts(game, s) == {0}
    s = act(game, s, count(0))
    assert counts(game, s) == {0}
    s = act(game, s, count(0))
    assert s.goods[0, 0, FISH] == 2 and s.vp[0, 0] - vp == -4
    # with auto_forced both single-option decisions are applied without asking
    game = new_game(auto_forced=True)
    s = scoring_position(game, {0: "A11", 1: "A05"}, goods={0: [0, 0, 0, 2]}, bread={0: 2})
    s = act(game, s, disc(0), ACTION_ORDER_LOW)
    assert s.decision[0] == DEC_SCORE_SPACE and s.to_play[0] == s.score_order[0, 1]  # both cards failed
    assert s.goods[0, 0, FISH] == 2 and s.vp[0, 0] - vp == -8


def test_cd_ex_9_worst_case():
    """Rules example 9: failing both cards of a scoring turn costs 8 VP; then the next player scores."""
    game = new_game()
    s = scoring_position(game, {0: "A11", 1: "D21"})
    vp = int(s.vp[0, 0])
    s = act(game, first_card(game, s), count(0), count(0), count(0))
    assert s.vp[0, 0] - vp == -8
    assert s.decision[0] == DEC_SCORE_SPACE and s.to_play[0] == s.score_order[0, 1] and s.circle_owner[0, 0] == 0


ONE_OPEN_VILLA = """
.  .  .      .  .  .
.  .  .      .  .  .
.  .  D07/0  .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
"""  # an incomplete villa with 2 chimneys


def test_cd_ex_10_bread_gained_during_a_scoring_turn():
    """Rules example 10: between C05 and A11 with 2 chimneys, bread 2, no fish or coins. C05
    first: +1 bread -> 3, then A11 with one 3-bread payment -> +7 VP, bread 0. A11 first: -4 VP, then
    +1 bread (3)."""
    game = new_game()
    kw = dict(districts={0: ONE_OPEN_VILLA}, bread={0: 2})
    s = scoring_position(game, {0: "A11", 1: "C05"}, **kw)
    assert s.chimneys[0, 0] == 2
    vp = int(s.vp[0, 0])
    s = first_card(game, s, low=False)  # C05 (slot 1) first
    assert s.decision[0] == DEC_CARD_BREAD and counts(game, s) == {0}
    s = act(game, s, count(0))
    assert s.bread[0, 0] == 3 and s.decision[0] == DEC_CARD_UNITS and counts(game, s) == {0}
    s = act(game, s, count(0))
    assert counts(game, s) == {0, 1}
    s = act(game, s, count(1))
    assert s.vp[0, 0] - vp == 7 and s.bread[0, 0] == 0
    s = scoring_position(game, {0: "A11", 1: "C05"}, **kw)
    s = act(game, first_card(game, s, low=True), count(0), count(0))
    assert s.vp[0, 0] - vp == -4
    s = act(game, s, count(0))
    assert s.vp[0, 0] - vp == -4 and s.bread[0, 0] == 3


# --- final scoring ----------------------------------------------------------------------------

FIVE_VILLAS = """
.  .      .      .      .      .
.  L20/2  L18/2  L22/2  L17/2  .
.  L21/0  D01/0  D02/0  D04/0  .
.  .      D05/1  .      .      .
.  .      L19/0  .      .      .
.  .      .      .      .      .
"""  # completed: L20+L21 (3 ch), L18+D01 (5), L22+D02 (5); open: L17+D04 (4, east), D05+L19 (4, east)


def test_cd_ex_11_villa_final_scoring():
    """Rules example 11 (the German rules' example "Nils"): completed villas with 3, 5 and 5 chimneys and
    incomplete ones with 4 and 4: 3 + 7 + 7 + 0 + 0 = 17 VP; C cards count 21 chimneys."""
    game = new_game()
    s = position(game, districts={0: FIVE_VILLAS})
    assert s.completed[0, 0, VILLA] == 3 and s.chimneys[0, 0] == 21
    assert s.villa_vp[0, 0] == 17 and parts(game, s)["villas"] == 17
    s = scoring_position(game, {0: "C06", 1: "D21"}, districts={0: FIVE_VILLAS})  # 2 chimneys -> 2 VP
    vp = int(s.vp[0, 0])
    s = act(game, first_card(game, s), count(0))
    assert s.vp[0, 0] - vp == 2 * (21 // 2)


VILLA_14 = """
.  .  .      .      .  .
.  .  D01/2  .      .  .
.  .  D11/0  D02/3  .  .
.  .  D03/0  .      .  .
.  .  .      .      .  .
.  .  .      .      .  .
"""  # D11 (4 chimneys) with 3 of its 4 sides closed by D01, D02, D03 (3 each); L17 (1) closes the west


def test_cd_ex_12_villa_table_anchor():
    """Rules example 12: completing a 14-chimney villa adds 26 VP to the running score at once."""
    game = new_game()
    s = position(game, districts={0: VILLA_14}, pending="L17", frame={0: NO_VILLA_TASKS})
    assert s.completed[0, 0, VILLA] == 0 and s.chimneys[0, 0] == 13
    before = parts(game, s)
    s = act(game, s, place(2, 1, 1))  # villa side turned east
    after = parts(game, s)
    assert s.completed[0, 0, VILLA] == 1 and s.chimneys[0, 0] == 14 and s.villa_vp[0, 0] == 26
    assert after["villas"] == 26 and after["public"] - before["public"] == 26
    assert int(data.VILLA_VP[3]) == 3 and int(data.VILLA_VP[5]) == 7 and int(data.VILLA_VP[14]) == 26


def test_cd_ex_13_leftover_material():
    """Rules example 13 (the German rules' example): 1 bread, 1 fish, 1 chicken -> 1 VP; plus 2 stored tiles and 1 coin
    (6 items) -> 3 VP."""
    game = new_game()
    s = position(game, bread={0: 1}, goods={0: [0, 0, 1, 1]})
    assert parts(game, s)["leftovers"] == 1
    s = position(game, bread={0: 1}, goods={0: [0, 0, 1, 1]}, coins={0: 1}, stored={0: 2})
    assert s.stored[0, 0] == 2 and (s.tile_loc[0] == LOC_STORED).sum() == 2
    assert parts(game, s)["leftovers"] == 3


FRAME_EXAMPLE = """
.  .      D31/1  .      .  .
.  .      D32/0  .      .  .
.  D15/2  D01/2  .      .  .
.  D16/0  L17/0  D33/0  .  .
.  .      .      D27/1  .  .
.  .      .      L10/0  .  .
"""  # baker lodging (2,1)+(3,1); villa (2,2)+(3,2); open pond in row 0; garden (4,3)+(5,3)


def test_cd_ex_14_frame_tasks():
    """Rules example 14 (any cell on the task's line counts; the German rules' example): N = F03, E = F11, S = F07,
    W = F08. Baker lodging in column 1 (4 VP) and villa in column 2 (3 VP) count; the incomplete pond in row 0 and
    the garden in column 3 (neither row 2 nor column 5: "wrong alignment") do not: 7 VP."""
    game = new_game()
    s = position(game, districts={0: FRAME_EXAMPLE}, frame={0: [2, 10, 6, 7]})
    done = s.completed[0, 0]
    assert done[BAKER] == 1 and done[VILLA] == 1 and done[GARDEN] == 1 and done[POND] == 0
    assert done[MERCHANT] == done[ADMINISTRATOR] == done[data.CHICKEN_YARD] == 0
    # task 2 * side + j: N F03 (baker @1, villa @2), E F11 (pond @0, merchant @3),
    # S F07 (garden @0 -> column 5, administrator @5), W F08 (garden @3 -> row 2, chicken yard @1)
    assert s.task_done[0, 0].tolist() == [True, True, False, False, False, False, False, False]
    assert parts(game, s)["tasks"] == 7


GARDENS = """
.  .      .      .      .      .
.  D27/1  .      .      .      .
.  L10/0  L14/1  L65/0  L38/0  .
.  D38/0  D26/0  L64/2  .      .
.  .      L68/1  .      .      .
.  .      L56/0  .      .      .
"""  # gardens: 4 tiles around the vertex of (2,2)-(3,3); D27+L10; L68+L56; L38's is open. Fountains L14, D38


def check_fountain_cards(hand: dict[int, int], returned: dict[int, int], vp: int) -> None:
    game = new_game()
    s = position(game, districts={0: GARDENS}, fountain_hand={(0, k): n for k, n in hand.items()},
                 fountain_returned={(0, k): n for k, n in returned.items()})
    assert s.completed[0, 0, GARDEN] == 3 and s.completed[0, 0, data.FOUNTAIN] == 2
    p = parts(game, s)
    assert p["fountain_cards"] == vp
    assert p["final"] == p["public"] + p["leftovers"] + vp  # fountain cards count only at the end


def test_cd_ex_15_fountain_card():
    """Rules example 15 (the German rules' example): FC01 (2 VP per completed garden, any size) with completed
    gardens of 2, 2 and 4 tiles and one incomplete garden: 6 VP."""
    check_fountain_cards({1: 1}, {5: 1}, 6)


def test_cd_ex_16_two_identical_fountain_cards():
    """Rules example 16 (the German rules' example): the same district with both FC01 cards: 12 VP."""
    check_fountain_cards({1: 2}, {5: 1, 6: 1}, 12)


ADMIN_BELOW_BANDEROLE = """
.  .  .      .  .  .
.  .  .      .  .  .
.  .  D18/0  .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
"""  # an administrator half facing north, towards the banderole cell (1, 2)


def test_cd_ex_17_end_of_the_banderole_track():
    """Rules example 17 (track spaces 0..35): disc on 34, 3 steps (banderole cell + administrator lodging): disc
    on 35, on top of the stack, +2 VP at once; final banderole VP 35."""
    game = new_game()
    s = position(game, districts={0: ADMIN_BELOW_BANDEROLE}, pending="D19", track={0: 34, 1: 35, 2: 0, 3: 0},
                 height={0: 0, 1: 0, 2: 0, 3: 1})
    vp = int(s.vp[0, 0])
    s = act(game, s, place(1, 2, 2))
    assert s.completed[0, 0, ADMINISTRATOR] == 1
    assert s.track[0, 0] == 35 and s.height[0, 0] == 1 and s.height[0, 1] == 0  # on top of seat 1's disc
    assert s.vp[0, 0] - vp == 2
    assert parts(game, s)["track"] == 35


# --- turns: move, take, build -------------------------------------------------------------------

def test_cd_ex_18_movement():
    """Rules example 18 (a bread move needs a tile there): patrician on 1, depots 2 and 3 empty: MOVE_CW -> 4 (seat
    1 is there too), MOVE_CCW -> 0; no staying without bread. With bread: a bread move to 1 (stay) costs 1 bread, to
    the empty depot 2 it is illegal."""
    game = new_game()
    s = position(game, empty_depots=(2, 3), spaces={0: 1, 1: 4, 2: 5, 3: 6})
    assert s.decision[0] == DEC_MOVE and legal(game, s) == {ACTION_MOVE_CW, ACTION_MOVE_CCW}
    cw = act(game, s, ACTION_MOVE_CW)
    assert cw.patrician[0].tolist() == [4, 4, 5, 6] and cw.decision[0] == DEC_TAKE
    assert legal(game, cw) == {ACTION_TAKE + j for j in range(4)}
    assert act(game, s, ACTION_MOVE_CCW).patrician[0, 0] == 0
    s = position(game, empty_depots=(2, 3), spaces={0: 1, 1: 4, 2: 5, 3: 6}, bread={0: 1})
    assert legal(game, s) == {ACTION_MOVE_CW, ACTION_MOVE_CCW} | {ACTION_SPACE + k for k in (0, 1, 4, 5, 6)}
    stay = act(game, s, ACTION_SPACE + 1)
    assert stay.patrician[0, 0] == 1 and stay.bread[0, 0] == 0 and stay.decision[0] == DEC_TAKE


def test_cd_ex_19_deliberate_move_towards_an_empty_neighbour():
    """Rules example 19: patrician on 3, depot 4 empty, depots 5 and 2 not: MOVE_CW is legal and
    walks on to space 5."""
    game = new_game()
    s = position(game, empty_depots=(4,), spaces={0: 3, 1: 0, 2: 1, 3: 6})
    assert ACTION_MOVE_CW in legal(game, s)
    assert act(game, s, ACTION_MOVE_CW).patrician[0, 0] == 5
    assert act(game, s, ACTION_MOVE_CCW).patrician[0, 0] == 2


def shovel_place(state, p: int, rot: int = 0) -> int:
    return ACTION_PLACE + 4 * int(data.BOARD_SHOVEL[state.board[0, p]]) + rot


def test_cd_ex_20_removal_with_2_and_3_players():
    """Rules example 20: n = 2: after the 2nd take from depot 0 its 2 remaining tiles are removed;
    n = 3: the 3rd take leaves 1 tile, which is removed at once (n = 4, nothing removed: test_whole_game)."""
    game = new_game(2)
    s = base_state(game, spaces={0: 6, 1: 1})
    depot0 = s.depot[0, 0].tolist()
    s = act(game, s, ACTION_MOVE_CW, ACTION_TAKE + 0)
    assert s.patrician[0, 0] == 0 and (s.depot[0, 0] >= 0).sum() == 3
    s = act(game, s, shovel_place(s, 0), ACTION_MOVE_CCW, ACTION_TAKE + 1)
    assert s.patrician[0, 1] == 0 and (s.depot[0, 0] >= 0).sum() == 0
    assert s.tile_loc[0, depot0[2]] == LOC_REMOVED and s.tile_loc[0, depot0[3]] == LOC_REMOVED
    assert s.tile_pending[0] == depot0[1]

    game = new_game(3)
    s = base_state(game, spaces={0: 6, 1: 1, 2: 3})
    depot0 = s.depot[0, 0].tolist()
    s = act(game, s, ACTION_MOVE_CW, ACTION_TAKE + 0)
    s = act(game, s, shovel_place(s, 0), ACTION_MOVE_CCW, ACTION_TAKE + 1)
    assert (s.depot[0, 0] >= 0).sum() == 2
    s = act(game, s, shovel_place(s, 1))
    s.bread[0, 2] = 1  # seat 2 reaches depot 0 with a bread move
    s = act(game, s, ACTION_SPACE + 0, ACTION_TAKE + 2)
    assert (s.depot[0, 0] >= 0).sum() == 0 and s.tile_loc[0, depot0[3]] == LOC_REMOVED
    assert s.bread[0, 2] == 0


VINEYARD_2 = """
.  .  .      .  .  .
.  .  .      .  .  .
.  .  D25/1  .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
"""  # odd vineyard section at the SE corner, facing east
GARDEN_3 = """
.  .  .      .  .  .
.  .  .      .  .  .
.  .  D26/1  .  .  .
.  .  L10/0  .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
"""  # 2-port garden section at the SE corner of (2, 2) + the odd section of L10 below it
POND_4 = """
.  .  .      .      .  .
.  .  .      .      .  .
.  .  L80/0  L81/0  .  .
.  .  D30/0  .      .  .
.  .  .      .      .  .
.  .  .      .      .  .
"""  # three 2-port pond sections around the vertex between (2, 2) and (3, 3)


@pytest.mark.parametrize("layout, pending, action, kind, goods", [
    (VINEYARD_2, "L46", place(2, 3, 1), VINEYARD, 1),
    (GARDEN_3, "L70", place(2, 3, 1), GARDEN, 2),
    (POND_4, "L78", place(3, 3, 2), POND, 3),
], ids=["vineyard2", "garden3", "pond4"])
def test_cd_ex_21_landscape_goods(layout, pending, action, kind, goods):
    """Rules example 21: completing a landscape gives tiles - 1 goods of its kind:
    2-tile vineyard +1 grape, 3-tile garden +2 herbs, 4-tile pond (around one vertex) +3 fish."""
    game = new_game()
    s = position(game, districts={0: layout}, pending=pending)
    assert s.completed[0, 0, kind] == 0
    s = act(game, s, action)
    assert s.completed[0, 0, kind] == 1
    expected = [0, 0, 0, 0]
    expected[kind] = goods
    assert s.goods[0, 0].tolist() == expected


ONE_MARKET = """
.  .  .      .  .  .
.  .  .      .  .  .
.  .  D32/0  .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
"""


MARKET_ON_BANDEROLE = """
.  .  .      .  .  .
.  .  D33/0  .  .  .
.  .  D32/0  .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
"""


def test_cd_ex_22_banderole_cell():
    """Rules example 22: a tile on the banderole cell (1, 2) of board 1: +1 step, 8 banderoles
    left; no later tile can go there."""
    game = new_game()
    s = position(game, districts={0: ONE_MARKET}, pending="D33")
    assert banderoles_left(s, 0) == 9 and data.BOARD_BANDEROLE[0, cell(1, 2)]
    s = act(game, s, place(1, 2, 0))
    assert s.track[0, 0] == 1 and s.height[0, 0] == 0 and banderoles_left(s, 0) == 8
    assert parts(game, s)["track"] == 1
    s = position(game, districts={0: MARKET_ON_BANDEROLE}, pending="D34")
    assert s.cell_tile[0, 0, cell(1, 2)] == tile("D33")
    assert not any(place(1, 2, rot) in legal(game, s) for rot in range(4))


def test_cd_ex_23_first_tile_and_the_frame():
    """Rules example 23: an empty district allows only (2, 2), in all 4 rotations. L01
    (`mm .. .. ..`) on (0, 2): rotation 0 puts its lodging half against the frame; rotations 1-3 need
    contact and matching sides (rotation 2: (1, 2) empty or showing a merchant half north); on corner
    (0, 0) rotation 3 faces the frame too.

    A deviation, the German rules' way: the worked example (and the project's storing rule) also allowed
    STORE for the first tile ("If stored, the next tile again may only go to (2, 2)"); the German text says
    "Das erste Plaettchen, das ein Spieler nimmt, muss er auf sein Feld mit der Schaufel legen", so STORE is
    illegal while the shovel cell is empty and legal afterwards."""
    game = new_game()
    s = position(game, pending="L01")
    assert legal(game, s) == {place(2, 2, rot) for rot in range(4)}  # no STORE (the German rules)
    s = position(game, districts={0: ONE_MARKET}, pending="L01")
    assert ACTION_STORE in legal(game, s)
    assert not any(place(0, 2, rot) in legal(game, s) for rot in range(4))  # (0, 2) touches no tile
    column = """
    .  .  .      .  .  .
    .  .  {}  .  .  .
    .  .  D32/0  .  .  .
    .  .  .      .  .  .
    .  .  .      .  .  .
    .  .  .      .  .  .
    """
    s = position(game, districts={0: column.format("D33/0")}, pending="L01")  # meadow north of (1, 2)
    assert {rot for rot in range(4) if place(0, 2, rot) in legal(game, s)} == {1, 3}
    s = position(game, districts={0: column.format("D12/0")}, pending="L01")  # merchant half north of (1, 2)
    assert {rot for rot in range(4) if place(0, 2, rot) in legal(game, s)} == {2}
    beside = """
    .  .  .      D35/0  .  .
    .  .  .      D34/0  .  .
    .  .  D32/0  D33/0  .  .
    .  .  .      .      .  .
    .  .  .      .      .  .
    .  .  .      .      .  .
    """  # (0, 2) touches (0, 3) only; (1, 2) is empty
    s = position(game, districts={0: beside}, pending="L01")
    assert {rot for rot in range(4) if place(0, 2, rot) in legal(game, s)} == {2, 3}
    corner = """
    .      .      .      .  .  .
    D35/0  D34/0  D33/0  .  .  .
    .      .      D32/0  .  .  .
    .      .      .      .  .  .
    .      .      .      .  .  .
    .      .      .      .  .  .
    """  # (0, 0) touches (1, 0) only
    s = position(game, districts={0: corner}, pending="L01")
    assert {rot for rot in range(4) if place(0, 0, rot) in legal(game, s)} == {1}


def test_cd_ex_24_single_tile_buildings_and_lodgings():
    """Rules example 24: L06 completing a baker lodging: +1 (bakery) +2 (baker) = +3 bread; an
    administrator lodging: +2 steps; a market: +1 coin."""
    game = new_game()
    s = act(game, position(game, districts={0: SHOVEL_ONLY.format("D15/1")}, pending="L06"), place(2, 3, 3))
    assert s.completed[0, 0, BAKER] == 1 and s.completed[0, 0, data.BAKERY] == 1 and s.bread[0, 0] == 3
    s = act(game, position(game, districts={0: SHOVEL_ONLY.format("D18/1")}, pending="D19"), place(2, 3, 3))
    assert s.completed[0, 0, ADMINISTRATOR] == 1 and s.track[0, 0] == 2 and parts(game, s)["track"] == 2
    s = act(game, position(game, districts={0: ONE_MARKET}, pending="D33"), place(2, 3, 0))
    assert s.completed[0, 0, MARKET] == 2 and s.coins[0, 0] == 1


ONE_FOUNTAIN = """
.  .  .      .      .  .
.  .  .      .      .  .
.  .  D32/0  D38/0  .  .
.  .  .      .      .  .
.  .  .      .      .  .
.  .  .      .      .  .
"""
TWO_FOUNTAINS = """
.  .  .      .      .  .
.  .  L23/0  .      .  .
.  .  D32/0  D38/0  .  .
.  .  .      .      .  .
.  .  .      .      .  .
.  .  .      .      .  .
"""


def test_cd_ex_25_fountain_draws():
    """Rules example 25 (return one card of hand and draw): first fountain draws FC01, FC08: return FC08 -> hand
    {FC01}. Second fountain draws FC01, FC11: either keep both FC01 (return FC11) or FC01 + FC11 (return an FC01),
    never 3 cards. A returned card lies below every undrawn card: it is never drawn again."""
    game = new_game()
    s = position(game, districts={0: ONE_MARKET}, pending="D38")
    s = act(game, s, place(2, 3, 0), u=fountain_u(s, (1, 8)))
    assert s.decision[0] == DEC_FOUNTAIN_RETURN and s.to_play[0] == 0
    assert s.fountain_drawn[0].tolist() == [1, 8] and game.observe(s, 0).own_drawn[0].tolist() == [1, 8]
    assert game.observe(s, 1).own_drawn[0].tolist() == [-1, -1]
    assert legal(game, s) == {fc(1), fc(8)}
    s = act(game, s, fc(8))
    assert s.fountain_hand[0, 0].tolist() == [0, 1] + [0] * 10
    assert s.fountain_returned[0, 0, 8] == 1 and game.observe(s, 0).own_returned[0, 8] == 1
    assert s.decision[0] == DEC_MOVE and s.to_play[0] == 1

    s = position(game, districts={0: ONE_FOUNTAIN}, pending="D39", fountain_hand={(0, 1): 1},
                 fountain_returned={(0, 8): 1})
    s = act(game, s, place(2, 4, 0), u=fountain_u(s, (1, 11)))
    assert legal(game, s) == {fc(1), fc(11)}
    keep_both = act(game, s, fc(11))
    assert keep_both.fountain_hand[0, 0, 1] == 2 and keep_both.fountain_hand[0, 0].sum() == 2
    mixed = act(game, s, fc(1))
    assert mixed.fountain_hand[0, 0, 1] == 1 and mixed.fountain_hand[0, 0, 11] == 1
    assert mixed.fountain_hand[0, 0].sum() == 2 and mixed.fountain_returned[0, 0, 1] == 1
    # both FC00 were returned earlier: u = 0 draws the first undrawn cards in kind order, FC01 + FC01
    s = position(game, districts={0: TWO_FOUNTAINS}, pending="D39", fountain_hand={(0, 3): 2},
                 fountain_returned={(0, 0): 2})
    s = act(game, s, place(2, 4, 0), u=zeros())
    assert s.fountain_drawn[0].tolist() == [1, 1]


# --- phases, the end, and the whole game --------------------------------------------------------

def play(game, seed: int, start: int | None = None):
    """A whole game with uniformly random legal actions; returns [(state, action)] and the final state.
    `start` forces the start player."""
    rng = np.random.default_rng(seed)
    u = rng.random((1, UNIFORMS_AT_INIT))
    if start is not None:
        u[0, data.U_INIT_START] = (start + 0.5) / game.num_players
    s = game.init_from_uniforms(u)
    history = []
    while not s.done[0]:
        a = int(rng.choice(np.flatnonzero(game.legal_action_mask(s)[0])))
        history.append((s, a))
        s = game.step(s, np.array([a]), rng)
    game.validate(s)
    return history, s


def phase_changes(history, final):
    """(state before, state after) of every action that ended a scoring round."""
    states = [h[0] for h in history] + [final]
    return [(states[i], states[i + 1]) for i in range(len(history))
            if states[i + 1].phase[0] != states[i].phase[0]]


def test_cd_ex_26_next_phase():
    """Rules example 26: after scoring round 1 with start seat 2 (n = 4) the start seat is 3; the
    depots hold 28 new light tiles; patricians, scoring discs, other players' banderole discs and the
    display are unchanged. Phase 4 deals the 28 remaining dark tiles: the dark supply is empty."""
    game = new_game(4)
    history, final = play(game, seed=7, start=2)
    changes = phase_changes(history, final)
    assert [int(after.phase[0]) for _, after in changes] == [1, 2, 3]
    for before, after in changes:
        game.validate(before)
        game.validate(after)
        assert after.start_player[0] == (before.start_player[0] + 1) % 4
        assert after.decision[0] == DEC_MOVE and after.round[0] == 0 and after.to_play[0] == after.start_player[0]
        assert (after.depot[0] >= 0).all() and (after.tile_loc[0][after.depot[0].ravel()] == LOC_DEPOT).all()
        dark = after.depot[0] >= data.NUM_LIGHT
        assert dark.all() if after.phase[0] == 3 else not dark.any()
        assert (after.patrician[0] == before.patrician[0]).all() and (after.display[0] == before.display[0]).all()
        assert (after.circle_owner[0] == before.circle_owner[0]).all()
        scorer = int(before.to_play[0])  # the last card of the round may move only the scorer's disc
        others = [p for p in range(4) if p != scorer]
        assert (after.track[0, others] == before.track[0, others]).all()
    assert changes[0][1].start_player[0] == 3
    dark_supply = final.tile_loc[0, data.NUM_LIGHT:] == LOC_SUPPLY
    assert not dark_supply.any() and not (final.tile_loc[0] == LOC_SUPPLY).any()


def test_cd_ex_27_tie_break():
    """Rules example 27 (the German rules: "derjenige, der auf der Banderolenleiste am weitesten hinten
    steht"): A 80, B 80, C 75 VP; A on space 12, B on 9: B wins. Both on 12 with A's disc on top: B
    wins. tiebreak="banner_front" reverses both."""
    for tiebreak, winner in (("banner_back", 1), ("banner_front", 0)):
        game = new_game(3, tiebreak=tiebreak)
        end = dict(done=True, decision=DEC_GAME_OVER, round=data.ROUNDS_PER_PHASE, phase=3)
        for track, height, vp in (([12, 9, 0], [0, 0, 0], [68, 71, 75]), ([12, 12, 0], [1, 0, 0], [68, 68, 75])):
            s = position(game, track=track, height=height, vp=vp, **end)
            assert game.scores(s)[0].tolist() == [80, 80, 75]
            returns = game.returns(s)[0].tolist()
            assert returns[winner] == 1.0 and returns[1 - winner] == 0.0 and returns[2] == -1.0


CRAFTSMAN_HALF = """
.  .  .      .  .  .
.  .  .      .  .  .
.  .  D21/1  .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
"""  # a craftsman half facing east


def test_cd_ex_28_craftsman():
    """Rules example 28 (a display pick is mandatory): completing a craftsman lodging with display {0: D32, 1: D12,
    ...}: the player picks a slot, the tile leaves the display (10 left) and is built or stored at once; placing D32
    gives +1 coin."""
    game = new_game()
    s = position(game, districts={0: CRAFTSMAN_HALF}, pending="D22", display={0: "D32", 1: "D12"})
    s = act(game, s, place(2, 3, 3))
    assert s.completed[0, 0, CRAFTSMAN] == 1
    assert s.decision[0] == DEC_DISPLAY_PICK and s.to_play[0] == 0
    assert legal(game, s) == {ACTION_DISPLAY + i for i in range(data.DISPLAY_SLOTS)}
    s = act(game, s, ACTION_DISPLAY + 0)
    assert s.decision[0] == DEC_PLACE and s.tile_pending[0] == tile("D32")
    assert (s.display[0] >= 0).sum() == 10 and s.display[0, 0] == -1 and s.display[0, 1] == tile("D12")
    assert ACTION_STORE in legal(game, s)
    s = act(game, s, place(3, 2, 0))
    assert s.coins[0, 0] == 1 and s.cell_tile[0, 0, cell(3, 2)] == tile("D32")
    assert s.decision[0] == DEC_MOVE and s.to_play[0] == 1


RUNNING_SCORE = """
.  .      .      .      .  .
.  L13/1  .      .      .  .
.  D25/0  D01/2  D38/0  .  .
.  .      L18/0  .      .  .
.  .      .      .      .  .
.  .      .      .      .  .
"""  # vineyard L13+D25 in column 1; villa D01+L18 (5 chimneys); a fountain


def test_cd_ex_29_running_score():
    """Rules example 29 (Yucata's running score): start VP 9 with scoring results +10 (VP cards 19), 6 steps, a
    satisfied 4-VP frame task (F05 on N: vineyard in column 1) and a completed 5-chimney villa (7 VP): score_public
    = 9 + 6 + 4 + 7 + 10 = 36 during play; at the end only leftovers and fountain cards are added."""
    game = new_game()
    kw = dict(districts={0: RUNNING_SCORE}, frame={0: NO_VILLA_TASKS}, vp={0: 19}, track={0: 6},
              height={0: 0, 1: 0, 2: 1, 3: 2}, coins={0: 3}, bread={0: 2},
              fountain_hand={(0, 11): 1}, fountain_returned={(0, 0): 1})
    s = position(game, **kw)
    assert s.task_done[0, 0].tolist() == [True] + [False] * 7
    p = parts(game, s)
    assert (p["vp_cards"], p["track"], p["tasks"], p["villas"]) == (19, 6, 4, 7)
    assert p["public"] == 36 and game.scores(s)[0, 0] == 36 and game.observe(s, 1).score[0, 0] == 36
    assert (p["leftovers"], p["fountain_cards"], p["final"]) == (2, 2, 40)
    s = position(game, **kw, done=True, decision=DEC_GAME_OVER, round=data.ROUNDS_PER_PHASE, phase=3)
    assert game.scores(s)[0, 0] == 36 + 2 + 2 and parts(game, s)["public"] == 36


# --- edge cases -----------------------------------------------------------------------------------

def test_rotation_moves_port_p_to_p_plus_2_rot():
    """After `rot` clockwise quarter turns the label at port (p + 2 rot) mod 8 is the one
    that was at port p; placements use exactly these rotated ports."""
    for t in range(data.NUM_TILES):
        for rot in range(4):
            for p in range(8):
                assert data.ROT_PORTS[t, rot, (p + 2 * rot) % 8] == data.TILE_PORTS[t, p]
    labels = {ch: i for i, ch in enumerate(data.LABEL_CHARS)}
    l57 = tile("L57")  # `mm .W W. ..`: merchant N, vineyard SE 2-port
    assert data.ROT_PORTS[l57, 1].tolist() == [labels[ch] for ch in "..mm.WW."]  # merchant E, vineyard SW
    assert data.ROT_PORTS[l57, 3].tolist() == [labels[ch] for ch in ".WW...mm"]  # merchant W, vineyard NE
    game = new_game()
    s = position(game, districts={0: MERCHANT_HALF}, pending="D13")
    options = legal(game, s)
    assert {rot for rot in range(4) if place(2, 3, rot) in options} == {3}  # its half must face west
    assert {rot for rot in range(4) if place(1, 2, rot) in options} == {0, 1, 3}  # not south, onto meadow


EDGE_OF_BOARD = """
.  .  .      .      .      .
.  .  .      .      .      .
.  .  D32/0  D33/0  D34/0  .
.  .  .      .      .      .
.  .  .      .      .      .
.  .  .      .      .      .
"""


def test_frame_counts_as_meadow():
    """A side facing the frame must be meadow. D07 (villa N and S) on (2, 5): upright it is
    legal, turned its villa faces the frame (east) or a meadow side (west)."""
    game = new_game()
    s = position(game, districts={0: EDGE_OF_BOARD}, pending="D07")
    assert {rot for rot in range(4) if place(2, 5, rot) in legal(game, s)} == {0, 2}


AROUND_X = """
.  .  .      .    .      .
.  .  D33/0  {N}  D34/0  .
.  .  {W}    .    {E}    .
.  .  D35/0  {S}  .      .
.  .  .      .    .      .
.  .  .      .    .      .
"""  # the empty cell X = (2, 3) with a tile on every side
AROUND_X_OK = {"N": "D01/2", "E": "D02/3", "S": "D12/0", "W": "D32/0"}  # facing X: villa, villa, merchant, meadow


@pytest.mark.parametrize("side, token", [(None, None), ("N", "D03/0"), ("E", "D36/0"), ("S", "D15/0"), ("W", "D13/1")])
def test_matching_on_every_side(side, token):
    """L31 (`VV VV mm ..`) fits X only in rotation 0, matching all four neighbours; changing
    the neighbour on any one side (villa -> meadow, merchant -> baker, meadow -> merchant) makes it illegal."""
    game = new_game()
    text = AROUND_X.format(**{**AROUND_X_OK, **({side: token} if side else {})})
    s = position(game, districts={0: text}, pending="L31")
    fits = {rot for rot in range(4) if place(2, 3, rot) in legal(game, s)}
    if side is not None:
        assert fits == set()
        return
    assert fits == {0}
    s = act(game, s, place(2, 3, 0))  # closes the villa D01 + L31 + D02 (8 chimneys) and the merchant lodging
    assert s.completed[0, 0, VILLA] == 1 and s.villa_vp[0, 0] == 13
    assert s.completed[0, 0, MERCHANT] == 1 and s.coins[0, 0] == 1


GARDEN_4_OF_3 = """
.  .  .      .      .  .
.  .  .      .      .  .
.  .  L14/1  L65/0  .  .
.  .  D26/0  .      .  .
.  .  .      .      .  .
.  .  .      .      .  .
"""  # three 2-port garden sections around the vertex between (2, 2) and (3, 3)


def test_four_tile_landscape_around_a_vertex():
    """Four 2-port sections around one vertex form one landscape; it is open until the
    4th tile (L64 turned twice) closes it: 4 tiles, +3 herbs."""
    game = new_game()
    s = position(game, districts={0: GARDEN_4_OF_3}, pending="L64")
    assert s.completed[0, 0, GARDEN] == 0
    assert {rot for rot in range(4) if place(3, 3, rot) in legal(game, s)} == {2}
    s = act(game, s, place(3, 3, 2))
    assert s.completed[0, 0, GARDEN] == 1 and s.goods[0, 0].tolist() == [0, 3, 0, 0]
    assert s.completed[0, 0, MERCHANT] == 0  # L64's merchant half faces the empty (4, 3)


def test_lodging_needs_two_halves_of_the_same_kind():
    """A merchant half only meets a merchant half (a baker half cannot face it); a half
    facing an empty cell stays open; two merchant halves that do not face each other complete nothing."""
    game = new_game()
    s = position(game, districts={0: MERCHANT_HALF}, pending="D15")
    assert not any(place(2, 3, rot) in legal(game, s) for rot in range(4))
    s = position(game, districts={0: MERCHANT_HALF}, pending="D13")
    assert s.completed[0, 0, MERCHANT] == 0
    apart = act(game, s, place(1, 2, 0))  # merchant half facing north, away from D12's
    assert apart.completed[0, 0, MERCHANT] == 0 and apart.coins[0, 0] == 0
    together = act(game, s, place(2, 3, 3))
    assert together.completed[0, 0, MERCHANT] == 1 and together.coins[0, 0] == 1


CRAFTSMAN_CHAIN = """
.  .  .      .  .  .
.  .  L04/0  .  .  .
.  .  D21/1  .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
.  .  .      .  .  .
"""  # craftsman halves facing north from (1, 2) and east from (2, 2)


def test_craftsman_chain_and_empty_display():
    """Craftsman chain (a display pick is mandatory): L50 closes the east craftsman lodging -> display pick; the
    picked D22 closes the north one on (0, 2) -> another pick; then the turn ends. With an empty display
    a craftsman lodging gives nothing."""
    game = new_game()
    s = position(game, districts={0: CRAFTSMAN_CHAIN}, pending="L50", display={0: "D22", 1: "D32"})
    s = act(game, s, place(2, 3, 1))  # administrator half east, craftsman half west
    assert s.completed[0, 0, CRAFTSMAN] == 1 and s.decision[0] == DEC_DISPLAY_PICK
    s = act(game, s, ACTION_DISPLAY + 0, place(0, 2, 2))
    assert s.completed[0, 0, CRAFTSMAN] == 2 and s.decision[0] == DEC_DISPLAY_PICK and s.to_play[0] == 0
    assert ACTION_DISPLAY + 0 not in legal(game, s) and (s.display[0] >= 0).sum() == 10
    s = act(game, s, ACTION_DISPLAY + 1, place(3, 2, 0))
    assert s.coins[0, 0] == 1 and (s.display[0] >= 0).sum() == 9
    assert s.decision[0] == DEC_MOVE and s.to_play[0] == 1 and s.craft_pending[0] == 0

    s = position(game, districts={0: CRAFTSMAN_CHAIN}, pending="L50", display={i: None for i in range(11)})
    s = act(game, s, place(2, 3, 1))
    assert s.completed[0, 0, CRAFTSMAN] == 1
    assert s.decision[0] == DEC_MOVE and s.to_play[0] == 1 and s.craft_pending[0] == 0


def test_fountain_return_options_are_hand_and_drawn():
    """Fountain draw: the returned card is any kind in hand or among the 2 drawn; the hand grows by 1."""
    game = new_game()
    s = position(game, districts={0: ONE_FOUNTAIN}, pending="D39", fountain_hand={(0, 3): 1},
                 fountain_returned={(0, 5): 1})
    s = act(game, s, place(2, 4, 0), u=fountain_u(s, (1, 11)))
    assert legal(game, s) == {fc(1), fc(3), fc(11)}
    s = act(game, s, fc(3))
    assert s.fountain_hand[0, 0, 1] == 1 and s.fountain_hand[0, 0, 11] == 1 and s.fountain_hand[0, 0].sum() == 2
    assert s.fountain_returned[0, 0, 3] == 1 and s.fountain_returned[0, 0].sum() == 2


POND_AND_MERCHANT = """
.  .  .      .      .  .
.  .  .      .      .  .
.  .  L80/0  L81/0  .  .
.  .  D30/0  .      .  .
.  .  D32/0  D12/0  .  .
.  .  .      .      .  .
"""  # the pond of POND_4, and a merchant half on (4, 3) facing the empty (3, 3)


def test_merchant_converts_goods_of_landscapes_completed_by_the_same_tile():
    """Fixed order of simultaneous completions: L78 closes the 4-tile pond (+3 fish) and then the merchant lodging:
    1 grape + 3 fish -> 4 + 1 = 5 coins, no goods left."""
    game = new_game()
    s = position(game, districts={0: POND_AND_MERCHANT}, pending="L78", goods={0: [1, 0, 0, 0]})
    s = act(game, s, place(3, 3, 2))
    assert s.completed[0, 0, POND] == 1 and s.completed[0, 0, MERCHANT] == 1
    assert s.goods[0, 0].tolist() == [0, 0, 0, 0] and s.coins[0, 0] == 5


def test_administrator_steps_beyond_the_track_end():
    """A disc on 35 below another disc gains 2 steps: it stays on 35, goes on top, +2 VP."""
    game = new_game()
    s = position(game, districts={0: SHOVEL_ONLY.format("D18/1")}, pending="D19",
                 track={0: 35, 1: 35}, height={0: 0, 1: 1, 2: 0, 3: 1})
    vp = int(s.vp[0, 0])
    s = act(game, s, place(2, 3, 3))
    assert s.track[0, :2].tolist() == [35, 35] and s.height[0, :2].tolist() == [1, 0]
    assert s.vp[0, 0] - vp == 2


def test_normal_move_laps_when_only_the_own_depot_has_tiles():
    """A normal move may lap the circle: if only the depot at the patrician has tiles, either normal move walks
    round the circle back to the same space."""
    game = new_game()
    s = position(game, empty_depots=(0, 2, 3, 4, 5, 6), spaces={0: 1, 1: 2, 2: 3, 3: 4})
    assert legal(game, s) == {ACTION_MOVE_CW, ACTION_MOVE_CCW}
    for move in (ACTION_MOVE_CW, ACTION_MOVE_CCW):
        assert act(game, s, move).patrician[0, 0] == 1


def test_scoring_order_by_track_and_stack():
    """Scoring order fixed at the round's start: after the last turn of a phase, higher space first, on a shared
    space the top disc first: tracks 5 (bottom), 5 (top), 7, 0 -> order 2, 1, 0, 3."""
    game = new_game()
    s = position(game, seat=3, round=6, pending="D32", track={0: 5, 1: 5, 2: 7, 3: 0},
                 height={0: 0, 1: 1, 2: 0, 3: 0})
    s = act(game, s, shovel_place(s, 3))
    assert s.decision[0] == DEC_SCORE_SPACE
    assert s.score_order[0].tolist() == [2, 1, 0, 3] and s.to_play[0] == 2


@pytest.mark.parametrize("n", [2, 3, 4])
def test_whole_game(n):
    """Every player takes exactly 7 depot tiles per phase (2p: 2 tiles removed per
    depot, 3p: 1, 4p: none); each scoring round follows the track order; the start player passes left
    each phase; after the 4th scoring round the game is over with 4n discs placed (one usable circle
    space left free) and rank returns, which are 0 before the end."""
    game = new_game(n)
    history, final = play(game, seed=n)
    takes = np.zeros((4, n), dtype=int)
    starts = {}
    for s, _ in history:
        starts.setdefault(int(s.phase[0]), int(s.start_player[0]))
        if s.decision[0] == DEC_TAKE:
            takes[s.phase[0], s.to_play[0]] += 1
        if s.decision[0] == DEC_SCORE_SPACE and s.turn[0] == 0:
            key = [(int(s.track[0, p]), int(s.height[0, p])) for p in s.score_order[0]]
            assert key == sorted(key, reverse=True)
            assert (s.depot[0] < 0).all()
    assert (takes == 7).all()
    assert list(starts) == [0, 1, 2, 3] and all(starts[k] == (starts[0] + k) % n for k in starts)
    removed = int((final.tile_loc[0] == LOC_REMOVED).sum())
    assert removed == {2: 4 * 7 * 2, 3: 4 * 7 * 1, 4: 0}[n]
    assert final.done[0] and final.decision[0] == DEC_GAME_OVER and final.phase[0] == 3
    owners = final.circle_owner[0]
    assert np.bincount(owners[owners >= 0], minlength=n).tolist() == [4] * n
    assert int((data.SPACE_USABLE[n] & (owners < 0)).sum()) == 1
    scores = game.scores(final)
    assert (scores == game.score_parts(final)["final"]).all()
    returns = game.returns(final)[0]
    assert abs(returns.sum()) < 1e-6 and returns.max() == 1.0 and returns.min() == -1.0
    assert (game.returns(history[-1][0]) == 0).all()


def test_raw_env_illegal_action_raises_and_changes_nothing():
    """The AEC env without checks beyond the rules: an illegal action raises, names the legal actions
    and leaves the state as it was."""
    from meeple.envs import carpe_diem_v0
    from meeple.envs.aec import IllegalActionError

    env = carpe_diem_v0.raw_env(num_players=3)
    env.reset(seed=5)
    while env.game_state.decision[0] != DEC_PLACE:  # get to a placement: the first tile must go on the shovel
        env.step(env.legal_actions()[0])
    before = core.clone(env.game_state)
    agent = env.agent_selection
    with pytest.raises(IllegalActionError, match="legal:") as excinfo:
        env.step(ACTION_STORE)
    for action in env.legal_actions():
        assert f"{action}=" in str(excinfo.value)
    assert core.states_equal(before, env.game_state) and env.agent_selection == agent


def test_determinize_keeps_what_the_viewer_knows():
    """Determinize resamples only fountain cards the viewer has not seen (others' hands and
    returned cards, another player's pending draw); its own cards, their counts and every public field
    stay, and so does its observation."""
    game = new_game(3)
    history, _ = play(game, seed=11)
    s = next(s for s, _ in history if s.decision[0] == DEC_FOUNTAIN_RETURN
             and (s.fountain_hand[0].sum(axis=1) > 0).sum() >= 2)
    private = ("fountain_hand", "fountain_returned", "fountain_drawn")
    for viewer in range(3):
        seen = game.observe(s, viewer)
        differs = False
        for seed in range(4):
            with warnings.catch_warnings():  # its splitmix64 stream wraps around on purpose (uint64)
                warnings.simplefilter("ignore", RuntimeWarning)
                d = game.determinize(s, viewer, np.random.default_rng(seed))
            game.validate(d)
            for name in s._fields:
                if name not in private:
                    assert np.array_equal(getattr(d, name), getattr(s, name)), name
            assert (d.fountain_hand[0, viewer] == s.fountain_hand[0, viewer]).all()
            assert (d.fountain_returned[0, viewer] == s.fountain_returned[0, viewer]).all()
            assert (d.fountain_hand[0].sum(axis=1) == s.fountain_hand[0].sum(axis=1)).all()
            assert (d.fountain_returned[0].sum(axis=1) == s.fountain_returned[0].sum(axis=1)).all()
            if s.to_play[0] == viewer:
                assert (d.fountain_drawn[0] == s.fountain_drawn[0]).all()
            view = game.observe(d, viewer)
            for name in seen._fields:
                assert np.array_equal(getattr(view, name), getattr(seen, name)), name
            differs |= not (np.array_equal(d.fountain_hand, s.fountain_hand)
                            and np.array_equal(d.fountain_drawn, s.fountain_drawn))
        assert differs, "determinize should resample the hidden fountain cards"
