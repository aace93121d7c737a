"""Hadara: the rules' worked examples 1..42, through the public API.

The rules are summarised in docs/hadara.md; where sources disagree the German Yucata rules text wins.
Card ids are the card names of envs/hadara/data.py (`card("I-B03")` = 22). Positions the examples
start from are built by editing a fresh state (`position`): primary fields only (tableaux, coins,
start cards, busts, seals, piles, pairs...),
the tracks are derived by `game.advance`, which then runs the automatic sections exactly as in a
real game. Cards not placed anywhere are put into the public discard so every built position passes
`game.validate` (each dealt epoch and colour accounts for 2N cards).

Unless a test says otherwise the game has 2 players, `auto_forced=False` (every decision is seen,
even one with a single legal action) and seat 0 acts first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pytest

from meeple.envs import make
from meeple.envs.hadara import data
from meeple.envs.hadara.data import (
    ACTION_BUST, ACTION_COLONY, ACTION_DRAFT, ACTION_FEED_PAY, ACTION_GOLD, ACTION_PASS, ACTION_PICK,
    ACTION_REMOVE, ACTION_SILVER, ACTION_TILE, ACTION_WHEEL, BACK, BLUE, BUY, CULTURE, FOOD, FRONT,
    GREEN, INCOME, MILITARY, PURPLE, RED, DEC_A_BUST, DEC_A_COLONY, DEC_A_DRAFT,
    DEC_A_TILE, DEC_B_COLONY, DEC_B_FEED, DEC_B_PICK, DEC_B_SEALS,
    DEC_B_TILE, DEC_GAME_OVER, DEC_WHEEL, SELL, SIDE_A, SIDE_B, UNIFORMS_AT_INIT,
    UNIFORMS_PER_STEP, YELLOW,
)

PLUNDER, ALLY = data.PLUNDER, data.ALLY
NOT_TAKEN, PLUNDERED, ALLIED = 0, 1, 2  # State.colony values


# --- helpers --------------------------------------------------------------------------------

def card(name: str) -> int:
    """Global card id of a card name, e.g. card("I-B03") == 22."""
    return data.CARD_NAMES.index(name)


def cards_vp(names: Iterable[str]) -> int:
    return sum(int(data.CARD_VP[card(n)]) for n in names)


def new_game(num_players: int = 2, advanced: bool = False, auto_forced: bool = False):
    return make("hadara", num_players=num_players, advanced=advanced, random_board_order=False,
                pile_view="full", auto_forced=auto_forced)


def start_uniforms(start_cards: Iterable[int] = ()) -> np.ndarray:
    """(1, UNIFORMS_AT_INIT) uniforms for `init_from_uniforms`: seat p is dealt start card
    start_cards[p] (initiative = card + 1); later seats and all other draws take u = 0."""
    u = np.zeros((1, UNIFORMS_AT_INIT))
    deck = list(range(5))
    for i, want in enumerate(start_cards):  # Fisher-Yates, u[i] picks index i + int(u * (5 - i))
        j = deck.index(want)
        assert j >= i
        u[0, data.U_INIT_START_CARDS + i] = (j - i + 0.5) / (5 - i)
        deck[i], deck[j] = deck[j], deck[i]
    return u


def legal(game, state) -> set[int]:
    return set(np.flatnonzero(game.legal_action_mask(state)[0]).tolist())


def act(game, state, *actions: int):
    """Apply `actions` in order, each checked legal first; the state is validated after each."""
    u = np.full((1, UNIFORMS_PER_STEP), 0.5)
    for a in actions:
        assert game.legal_action_mask(state)[0, a], f"{game.action_names[a]} is not legal here"
        state = game.apply(state, np.array([a]), u)
        game.validate(state)
    return state


def tracks(state, p: int = 0) -> list[int]:
    return [int(x) for x in state.tracks[0, p]]


def n_cards(state, p: int = 0) -> int:
    return int((state.tableau[0, p] >= 0).sum())


def position(game, section: int, *, epoch: int = 0, cards: Mapping[int, list[str]] | None = None,
             coins: Mapping[int, int] | None = None, start: Mapping[int, tuple[int, int]] | None = None,
             start_player: int = 0, turn: int = 0, pick: int | None = None, round: int = 5, rotation: int = 0,
             piles: Mapping[int, list[str]] | None = None, pairs: Mapping[int, tuple[str, str]] | None = None,
             **fields):
    """A hand-built B=1 position in `section` of `epoch`, then `game.advance`d and validated.

    cards {seat: [names]} tableau in slot order; coins {seat: n}; start {seat: (start card, side)}
    (another seat holding that start card gets the old one); piles {colour: [names]} outer piles
    bottom -> top; pairs {seat: (card 0, card 1)} phase-A pairs in draw order. Other State fields by
    name: a dict {index: value} sets field[0, index], anything else sets field[0].
    Unplaced cards of every dealt (epoch, colour) fill up 2N: the current epoch's inner stacks and outer
    piles get the sizes the rounds drawn and resolved so far leave (`validate` checks them),
    the rest goes into the public discard. `pick` defaults to 0 before phase B and 5N after the picks.
    """
    P = game.num_players
    if pick is None:
        pick = 5 * P if section > DEC_B_TILE else 0
    s = game.init_from_uniforms(start_uniforms())
    s = s._replace(**{name: np.copy(value) for name, value in s._asdict().items()})
    s.inner[0], s.inner_count[0], s.outer[0], s.outer_count[0] = -1, 0, -1, 0
    s.drawn[0], s.pending[0], s.committed[0] = -1, -1, False
    s.epoch[0], s.decision[0], s.turn[0], s.pick[0], s.round[0] = epoch, section, turn, pick, round
    s.rotation[0], s.start_player[0] = rotation, start_player
    s.start_side[0] = np.maximum(s.start_side[0], SIDE_A)  # advanced games start in SETUP_SIDE
    for p, (sc, side) in (start or {}).items():
        holder = np.flatnonzero(s.start_card[0] == sc)
        if len(holder) and holder[0] != p:
            s.start_card[0, holder[0]] = s.start_card[0, p]
        s.start_card[0, p], s.start_side[0, p] = sc, side
    for p, names in (cards or {}).items():
        s.tableau[0, p, :len(names)] = [card(n) for n in names]
        s.n_slots[0, p] = len(names)
    for p, n in (coins or {}).items():
        s.coins[0, p] = n
    for c, names in (piles or {}).items():
        s.outer[0, c, :len(names)] = [card(n) for n in names]
        s.outer_count[0, c] = len(names)
    for p, (a, b) in (pairs or {}).items():
        s.drawn[0, p] = card(a), card(b)
    for name, value in fields.items():
        target = getattr(s, name)
        if isinstance(value, dict):
            for i, v in value.items():
                target[0, i] = v
        else:
            target[0] = value
    # conservation: 2N cards of each dealt epoch and colour outside the box
    placed = np.zeros(data.NUM_CARDS, dtype=np.int64)
    for arr in (s.tableau, s.outer, s.inner, s.drawn, s.sold_a):
        ids = arr[0].reshape(-1)
        np.add.at(placed, ids[ids >= 0], 1)
    placed += s.removed[0]
    drawn_rounds, resolved = {DEC_A_DRAFT: (round + 1, round), DEC_A_TILE: (round + 1, round + 1)}.get(
        section, (0, 0) if section <= DEC_WHEEL else (5, 5))

    def draws(c: int, rounds: int) -> int:  # seat i draws at board position (i + r + k) % 5
        return sum(int(s.board_order[0, (i + rotation + k) % 5]) == c for k in range(rounds) for i in range(P))

    for e in range(epoch + 1):
        for c in range(data.NUM_COLOURS):
            group = game.deck_cards[e, c, :game.deck_count[e, c]]
            free = [int(x) for x in group if placed[x] == 0]
            need = 2 * P - (len(group) - len(free))
            assert need >= 0, f"more than 2N cards of epoch {e} colour {c} placed"
            n_inner = 2 * P - 2 * draws(c, drawn_rounds) if e == epoch else 0
            n_outer = draws(c, resolved) if e == epoch and section <= DEC_A_BUST and s.outer_count[0, c] == 0 else 0
            for x in free[:need]:
                if s.inner_count[0, c] < n_inner:
                    s.inner[0, c, s.inner_count[0, c]] = x
                    s.inner_count[0, c] += 1
                elif s.outer_count[0, c] < n_outer:
                    s.outer[0, c, s.outer_count[0, c]] = x
                    s.outer_count[0, c] += 1
                else:
                    s.removed[0, x] = True
    s = game.advance(s, np.full((1, UNIFORMS_PER_STEP), 0.5))
    game.validate(s)
    return s


def draft_position(game, pairs: Mapping[int, tuple[str, str]], **kw):
    """A_DRAFT of round 3 (so the wheel turns afterwards without an Income), seat 0 to choose; the
    wheel is set so that seat 0's emblem points at the colour of its pair (seat i draws at
    board position (i + r + k) mod 5 with the default board order Y, R, B, G, P)."""
    k = kw.pop("round", 3)
    colour = int(data.CARD_COLOUR[card(pairs[0][0])])
    r = (colour - k) % 5
    for p, (a, b) in pairs.items():
        assert data.CARD_COLOUR[card(a)] == data.CARD_COLOUR[card(b)] == (p + r + k) % 5
    return position(game, DEC_A_DRAFT, pairs=pairs, round=k, rotation=r, **kw)


def final(game, **kw):
    """A finished game (after epoch III) for scoring examples."""
    return position(game, DEC_GAME_OVER, epoch=2, done=True, **kw)


def income_position(game, **kw):
    """Just before the phase-A Income (A3): the last draft round's follow-ups are over."""
    return position(game, DEC_A_TILE, round=4, turn=game.num_players, **kw)


def pick_position(game, piles: Mapping[int, list[str]], **kw):
    """Phase B with only `piles` left and seat 0 to pick: the picks taken so far are
    5N minus the cards left, and the start player is chosen so that the next pick is seat 0's."""
    P = game.num_players
    pick = 5 * P - sum(len(v) for v in piles.values())
    return position(game, DEC_B_PICK, piles=piles, pick=pick, start_player=(-pick) % P, **kw)


def pick_action(colour: int, buy_or_sell: int) -> int:
    return ACTION_PICK + 2 * colour + buy_or_sell


def colony_action(tier: int, mode: int) -> int:
    return ACTION_COLONY + 2 * tier + mode


def bust_action(bust: int, colour: int, side: int) -> int:
    return ACTION_BUST + 8 * bust + 2 * colour + side


# --- setup and phase A --------------------------------------------------------------------

def test_had_ex_1_start_card():
    """Rules example 1: initiative-2 start card side A: 8 coins, income 2,
    military 1, culture 3, food 4; at 4 players it never earns the start-player coin, at 2 players
    against initiative 1 it does (coins 9)."""
    game = new_game(4, auto_forced=True)
    s = game.init_from_uniforms(start_uniforms([1]))
    game.validate(s)
    assert s.start_card[0, 0] + 1 == 2 and s.start_side[0, 0] == SIDE_A
    assert s.coins[0, 0] == 8
    assert tracks(s) == [2, 1, 3, 4]
    game = new_game(2, auto_forced=True)
    s = game.init_from_uniforms(start_uniforms([1, 0]))
    assert s.start_card[0].tolist() == [1, 0]
    assert s.coins[0, 0] == 9 and tracks(s) == [2, 1, 3, 4]


def test_had_ex_2_card_anatomy():
    """Rules example 2: discard I-B01, buy I-B03 with coins 5, culture 3,
    food 4 -> coins 2, culture 5, food 5; I-B03 in the tableau (2 VP); I-B01 tops the blue pile."""
    game = new_game()
    s = draft_position(game, {0: ("I-B03", "I-B01"), 1: ("I-G01", "I-G02")}, coins={0: 5}, start={0: (1, SIDE_A)})
    assert s.to_play[0] == 0 and s.colour_count[0, 0, BLUE] == 0
    assert s.coins[0, 0] == 5 and tracks(s)[CULTURE] == 3 and tracks(s)[FOOD] == 4
    s = act(game, s, ACTION_DRAFT + 0)  # discard card 1, buy card 0
    assert s.committed[0, 0] and n_cards(s) == 0  # hidden until everyone has chosen (hidden commitments)
    s = act(game, s, ACTION_DRAFT + 1)  # seat 1 sells: the round resolves
    assert s.coins[0, 0] == 2 and tracks(s)[CULTURE] == 5 and tracks(s)[FOOD] == 5
    assert s.tableau[0, 0, 0] == card("I-B03") and n_cards(s) == 1
    assert s.outer[0, BLUE, s.outer_count[0, BLUE] - 1] == card("I-B01")  # on earlier rounds' discards
    assert data.CARD_VP[card("I-B03")] == 2


@pytest.mark.parametrize("epoch", [0, 1, 2])
def test_had_ex_3_selling(epoch):
    """Rules example 3: selling an epoch I / II / III card gives
    2 / 3 / 4 coins; a phase-A sale leaves the game face-down (only its colour is public); no track
    moves. A phase-B sale of a face-up card is public."""
    e = data.EPOCH_NAMES[epoch]
    game = new_game()
    pair = (f"{e}-B03", f"{e}-B01")
    s = draft_position(game, {0: pair, 1: (f"{e}-G01", f"{e}-G02")}, epoch=epoch, coins={0: 0})
    before = tracks(s)
    s = act(game, s, ACTION_DRAFT + 1, ACTION_DRAFT + 1)  # both sell card 0
    sold = card(pair[0])
    assert s.coins[0, 0] == 2 + epoch
    assert tracks(s) == before and n_cards(s) == 0
    slot = 5 * epoch + 3
    assert s.sold_a[0, 0, slot] == sold and not s.removed[0, sold]
    assert game.observe(s, 0).own_sold[0, slot] == sold
    other = game.observe(s, 1)
    assert other.sold_colour[0, 0, slot] == BLUE and sold not in other.own_sold[0]
    # phase B: the same sale of a face-up pile top
    s = pick_position(game, {BLUE: [pair[0]], GREEN: [f"{e}-G05"]}, epoch=epoch, coins={0: 0})  # seat 1 next
    s = act(game, s, pick_action(BLUE, SELL))
    assert s.coins[0, 0] == 2 + epoch and s.removed[0, sold] and game.observe(s, 1).removed[0, sold]


def test_had_ex_4_drawing():
    """Rules example 4: the monkey (seat 0) emblem points at the red stack; its pair is the
    top two cards of the red inner stack, which shrinks by 2."""
    game = new_game()
    s = game.init_from_uniforms(start_uniforms())
    assert s.decision[0] == DEC_WHEEL and s.to_play[0] == 0
    red = s.inner[0, RED, :s.inner_count[0, RED]].tolist()
    s = act(game, s, ACTION_WHEEL + 1)  # r = 1: seat 0 at board position 1 = red
    assert s.drawn[0, 0].tolist() == [red[-1], red[-2]]
    assert s.inner_count[0, RED] == len(red) - 2
    assert game.observe(s, 0).own_drawn[0].tolist() == [red[-1], red[-2]]
    assert game.observe(s, 1).own_drawn[0].tolist() != [red[-1], red[-2]]


def test_had_ex_5_price_reduction():
    """Rules example 5: with 2 blue cards owned, a blue card of price 5 costs 3: coins 4 -> 1. With
    coins 2 the buys are masked out and only selling is legal. (The rules' I-B07 becomes II-B02, same
    price, in epoch II: a player meets the blue stack once per epoch, so 2 blue cards come from epoch I.)"""
    game = new_game()
    kw = dict(cards={0: ["I-B01", "I-B02"]}, pairs={0: ("II-B02", "II-B05"), 1: ("II-G01", "II-G02")}, epoch=1)
    s = draft_position(game, coins={0: 4}, **kw)
    assert legal(game, s) == {ACTION_DRAFT + 0, ACTION_DRAFT + 1, ACTION_DRAFT + 3}  # II-B05 costs 5
    s = act(game, s, ACTION_DRAFT + 0, ACTION_DRAFT + 1)
    assert s.coins[0, 0] == 1 and s.tableau[0, 0, 2] == card("II-B02")
    s = draft_position(game, coins={0: 2}, **kw)
    assert legal(game, s) == {ACTION_DRAFT + 1, ACTION_DRAFT + 3}


def test_had_ex_6_wheel_turn():
    """Rules example 6: board order R, Y, B, G, P; the monkey (seat 0), r = 0, draws red
    in round 0 and, after the wheel turns, yellow in round 1."""
    game = new_game()
    s = game.init_from_uniforms(start_uniforms())
    s = s._replace(board_order=np.array([[RED, YELLOW, BLUE, GREEN, PURPLE]], dtype=np.int8))
    game.validate(s)
    s = act(game, s, ACTION_WHEEL + 0)
    assert data.CARD_COLOUR[s.drawn[0, 0, 0]] == RED
    s = act(game, s, ACTION_DRAFT + 1, ACTION_DRAFT + 1)
    assert s.round[0] == 1 and data.CARD_COLOUR[s.drawn[0, 0, 0]] == YELLOW


def play_draft(game, s, rotation: int) -> tuple[object, list[list[int]]]:
    """Set the wheel, then play the 5 draft rounds with every player selling card 0; returns the
    state after the draft and the colour each seat drew in each round."""
    s = act(game, s, ACTION_WHEEL + rotation)
    colours = []
    for _ in range(5):
        assert s.decision[0] == DEC_A_DRAFT
        colours.append([int(data.CARD_COLOUR[c]) for c in s.drawn[0, :, 0]])
        s = act(game, s, *[ACTION_DRAFT + 1] * game.num_players)
    return s, colours


def test_had_ex_7_wheel_setting():
    """Rules example 7: all 5 rotations are legal; each emblem points at exactly one
    stack, and no two players share a stack in any round (5 players)."""
    game = new_game(5)
    s0 = game.init_from_uniforms(start_uniforms())
    assert legal(game, s0) == {ACTION_WHEEL + r for r in range(5)}
    for r in range(5):
        _, colours = play_draft(game, s0, r)
        for k, row in enumerate(colours):
            assert sorted(row) == [0, 1, 2, 3, 4]
            assert row == [(i + r + k) % 5 for i in range(5)]


def test_had_ex_8_track_past_10():
    """Rules example 8: culture 9 + I-B05 (+3) = 12 (one 10-value marker, marker at 2);
    removing the card in Feeding gives culture 9 again."""
    game = new_game()
    s = pick_position(game, {BLUE: ["I-B05"]}, cards={0: ["I-B09", "I-B02"]}, coins={0: 10})
    assert tracks(s)[CULTURE] == 9
    s = act(game, s, pick_action(BLUE, BUY))
    assert tracks(s)[CULTURE] == 12 and divmod(tracks(s)[CULTURE], 10) == (1, 2)
    s = position(game, DEC_B_FEED, cards={0: ["I-B09", "I-B02", "I-B05", "I-Y01", "I-R01"]})
    assert tracks(s)[CULTURE] == 12 and s.to_play[0] == 0 and s.decision[0] == DEC_B_FEED
    s = act(game, s, ACTION_REMOVE + 2)
    assert tracks(s)[CULTURE] == 9


def test_had_ex_9_income():
    """Rules example 9: income track 12, coins 0 -> Income gives 12 coins; the track stays 12."""
    game = new_game()
    # epoch II: 4 yellow cards of epoch I can't be owned during epoch I's draft (one yellow pair per epoch)
    s = income_position(game, cards={0: ["I-Y09", "I-Y10", "I-Y05", "I-Y06"]}, coins={0: 0}, epoch=1)
    assert s.decision[0] == DEC_A_COLONY  # Income ran inside `advance`
    assert s.coins[0, 0] == 12 and tracks(s)[INCOME] == 12


def test_had_ex_10_colony_anatomy():
    """Rules example 10: tier 0 (requirement 3) with C00 on top: eligible with military 3;
    plunder 2 coins and 2 VP, or ally for +1 income +1 military (back 2 VP); military 2: not eligible."""
    game = new_game()
    kw = dict(coins={0: 0}, colony_stack={0: [1, 0, -1, -1, -1]})  # C00 on top of tier 0
    s = position(game, DEC_A_COLONY, start={0: (3, SIDE_A)}, **kw)  # initiative 4: military 3
    assert tracks(s)[MILITARY] == 3
    assert legal(game, s) == {colony_action(0, PLUNDER), colony_action(0, ALLY), ACTION_PASS}
    vp = game.scores(s)[0, 0]
    plundered = act(game, s, colony_action(0, PLUNDER))
    assert plundered.coins[0, 0] == 2 and game.scores(plundered)[0, 0] == vp + 2
    allied = act(game, s, colony_action(0, ALLY))
    assert allied.colony_id[0, 0, 0] == 0 and allied.coins[0, 0] == 0
    assert np.subtract(tracks(allied), tracks(s)).tolist() == [1, 1, 0, 0]
    assert game.scores(allied)[0, 0] == vp + 2
    s = position(game, DEC_A_COLONY, start={0: (0, SIDE_A)}, **kw)  # initiative 1: military 2
    assert tracks(s)[MILITARY] == 2 and legal(game, s) == {ACTION_PASS}


def test_had_ex_11_plunder():
    """Rules example 11: military 19, coins 0: tiers 0-2 (3, 9, 15) eligible, 3-4 (21, 30)
    not; plundering tier 2 gives 5 coins, military stays 19, 8 VP at the end, the back stays hidden."""
    game = new_game()
    s = position(game, DEC_A_COLONY, epoch=1, cards={0: ["II-R09", "II-R10", "I-R10"]}, coins={0: 0})
    assert tracks(s)[MILITARY] == 19
    options = legal(game, s)
    assert {t for t in range(5) if colony_action(t, PLUNDER) in options} == {0, 1, 2}
    assert colony_action(2, ALLY) not in options  # the alliance would cost 2 coins
    vp = game.scores(s)[0, 0]
    s = act(game, s, colony_action(2, PLUNDER))
    assert s.coins[0, 0] == 5 and tracks(s)[MILITARY] == 19 and s.colony[0, 0, 2] == PLUNDERED
    assert game.scores(s)[0, 0] == vp + 8 + 1  # front VP 8; 5 coins = 1 VP
    for viewer in (0, 1):  # a plundered back: never revealed, not even to its owner
        assert game.observe(s, viewer).colony_back[0, 0, 2] == -1


def test_had_ex_12_ally():
    """Rules example 12: military 12, coins 1, C05 on top of tier 1; ally: coins -1,
    military 14, culture +1, C05 revealed to all, 5 VP at the end."""
    game = new_game()
    s = position(game, DEC_A_COLONY, epoch=1, cards={0: ["I-R10", "I-R08", "I-R01"]}, coins={0: 1},
                 colony_stack={1: [6, 5, -1, -1, -1]})  # epoch II: 3 red cards of epoch I (see rules example 9)
    assert tracks(s)[MILITARY] == 12
    c = tracks(s)[CULTURE]
    vp = game.scores(s)[0, 0]
    s = act(game, s, colony_action(1, ALLY))
    assert s.coins[0, 0] == 0 and tracks(s)[MILITARY] == 14 and tracks(s)[CULTURE] == c + 1
    assert s.colony[0, 0, 1] == ALLIED
    for viewer in (0, 1):
        assert game.observe(s, viewer).colony_back[0, 0, 1] == 5
    assert game.scores(s)[0, 0] == vp + 5


def test_had_ex_13_bust_anatomy():
    """Rules example 13: culture 6 and a free tile: bust 0 (6, 4 VP) is carvable, and
    only by placing a free tile; culture 5: not carvable."""
    game = new_game()
    s = position(game, DEC_A_BUST, cards={0: ["I-B05"]})
    assert tracks(s)[CULTURE] == 6
    assert legal(game, s) == {bust_action(0, c, side) for c in range(4) for side in (FRONT, BACK)} | {ACTION_PASS}
    # both yellow tiles on silver seals: bust 0 can't take a yellow tile any more
    s = position(game, DEC_A_BUST, cards={0: ["I-B05"]}, silver={0: [YELLOW, YELLOW]})
    assert legal(game, s) == {bust_action(0, c, side) for c in (RED, BLUE, GREEN) for side in (FRONT, BACK)} | {ACTION_PASS}
    vp = game.scores(s)[0, 0]
    s2 = act(game, s, bust_action(0, RED, FRONT))
    assert game.scores(s2)[0, 0] == vp + 4
    s = position(game, DEC_A_BUST, cards={0: ["I-B02"]})
    assert tracks(s)[CULTURE] == 5 and legal(game, s) == {ACTION_PASS}


def test_had_ex_14_bust_tile_front():
    """Rules example 14: culture 13, income 4, 2 free yellow tiles; carve bust 1 with a yellow
    tile front -> income 7, free yellow tiles 1, culture unchanged."""
    game = new_game()
    s = position(game, DEC_A_BUST, epoch=1, cards={0: ["I-Y05", "I-B09", "I-B10", "I-B02"]})  # see rules example 9
    assert tracks(s)[CULTURE] == 13 and tracks(s)[INCOME] == 4 and s.free_tiles[0, 0, YELLOW] == 2
    s = act(game, s, bust_action(1, YELLOW, FRONT))
    assert tracks(s)[INCOME] == 7 and s.free_tiles[0, 0, YELLOW] == 1 and tracks(s)[CULTURE] == 13
    assert s.bust[0, 0, 1] == 2 * YELLOW + FRONT


def test_had_ex_15_bust_tile_back():
    """Rules example 15: culture 20; carve bust 2 with a red tile back: no track change,
    free red tiles -1, the bust scores 14 + 4 = 18 VP."""
    game = new_game()
    s = position(game, DEC_A_BUST, epoch=1, cards={0: ["II-B10", "II-B08", "I-B09", "I-B02"]})
    assert tracks(s)[CULTURE] == 20
    before, vp = tracks(s), game.scores(s)[0, 0]
    s = act(game, s, bust_action(2, RED, BACK))
    assert tracks(s) == before and s.free_tiles[0, 0, RED] == 1
    assert game.scores(s)[0, 0] == vp + 18


# --- phase B, feeding --------------------------------------------------------------------

def test_had_ex_16_phase_b():
    """Rules example 16: taking the purple pile gives exactly its top card, which must be bought
    or sold; there is no action returning it."""
    game = new_game()
    s = pick_position(game, {PURPLE: ["I-P05", "I-P09"]}, coins={0: 10})
    assert legal(game, s) == {pick_action(PURPLE, BUY), pick_action(PURPLE, SELL)}
    bought = act(game, s, pick_action(PURPLE, BUY))
    assert bought.tableau[0, 0, 0] == card("I-P09") and n_cards(bought) == 1
    assert bought.outer_count[0, PURPLE] == 1 and bought.outer[0, PURPLE, 0] == card("I-P05")
    assert bought.coins[0, 0] == 10 - 5
    sold = act(game, s, pick_action(PURPLE, SELL))
    assert n_cards(sold) == 0 and sold.removed[0, card("I-P09")] and sold.coins[0, 0] == 12
    assert sold.outer[0, PURPLE, 0] == card("I-P05")


FEED_CARDS = ["I-Y01", "I-Y02", "I-R01", "I-R02", "I-B01", "I-B02", "I-P09"]  # no food on any


def test_had_ex_17_fed():
    """Rules example 17: food 9 and 6 cards: nothing happens, no removal prompt."""
    game = new_game()
    hand = ["I-G07", "I-G01", "I-Y01", "I-R01", "I-B01", "I-Y05"]
    s = position(game, DEC_B_FEED, cards={0: hand}, start={0: (1, SIDE_A)}, coins={0: 3})
    assert tracks(s)[FOOD] == 9 and n_cards(s) == 6
    assert s.decision[0] == DEC_B_SEALS  # both players fed: Feeding is over without a decision
    assert n_cards(s) == 6 and s.coins[0, 0] == 3


def test_had_ex_18_not_fed():
    """Rules example 18: food 6 and 7 cards without food: exactly one removal is required
    (no pass), then food 6 = 6 cards and the player is done."""
    game = new_game(advanced=True)
    s = position(game, DEC_B_FEED, cards={0: FEED_CARDS}, start={0: (4, SIDE_B)})  # initiative 5 B: food 6
    assert tracks(s)[FOOD] == 6 and n_cards(s) == 7 and s.to_play[0] == 0
    assert legal(game, s) == {ACTION_REMOVE + i for i in range(7)}
    s = act(game, s, ACTION_REMOVE + 6)
    assert tracks(s)[FOOD] == 6 and n_cards(s) == 6
    assert s.decision[0] != DEC_B_FEED or s.to_play[0] != 0


def test_had_ex_19_removal_undo():
    """Rules example 19: removing I-Y02 takes back +1 income and +1 military, gives no
    coins, the card count drops by 1 and I-Y02 is out of the game (face-up, public)."""
    game = new_game()
    s = position(game, DEC_B_FEED, cards={0: FEED_CARDS}, coins={0: 3})
    assert s.tableau[0, 0, 1] == card("I-Y02") and s.to_play[0] == 0
    after = act(game, s, ACTION_REMOVE + 1)
    assert np.subtract(tracks(s), tracks(after)).tolist() == [1, 1, 0, 0]
    assert after.coins[0, 0] == 3 and n_cards(after) == 6
    assert after.removed[0, card("I-Y02")] and game.observe(after, 1).removed[0, card("I-Y02")]


# --- seals and final scoring ------------------------------------------------------------

def test_had_ex_20_silver_seal():
    """Rules example 20: a silver seal bought with a red tile, military 30 at game end: 15 VP."""
    game = new_game()
    hand = ["III-R09", "III-R10", "III-R07", "III-R05"]
    s = position(game, DEC_B_SEALS, epoch=2, cards={0: hand}, coins={0: 20, 1: 0}, start={0: (1, SIDE_A)})
    assert tracks(s)[MILITARY] == 30
    s = act(game, s, ACTION_SILVER + RED)
    assert s.coins[0, 0] == 0 and s.silver[0, 0].tolist() == [RED, -1] and s.free_tiles[0, 0, RED] == 1
    s = act(game, s, ACTION_PASS, ACTION_PASS)  # seat 0 done, seat 1 done: the game ends
    assert s.done[0]
    assert game.scores(s)[0, 0] == cards_vp(hand) + 15


# three complete 5-colour sets, one card per (epoch, colour)
SETS3 = [f"{e}-{c}01" for e in ("I", "II", "III") for c in "YRBG"] + ["I-P05", "II-P05", "III-P05"]


def test_had_ex_21_gold_seal():
    """Rules example 21: 3 complete 5-colour sets score 21 VP with one gold seal, 42 with two."""
    game = new_game()
    for gold, extra in ((0, 0), (1, 21), (2, 42)):
        s = final(game, cards={0: SETS3}, coins={0: 0}, gold={0: gold})
        assert s.colour_count[0, 0].tolist() == [3] * 5
        assert game.scores(s)[0, 0] == cards_vp(SETS3) + extra


def test_had_ex_22_start_players_and_coin():
    """Rules example 22: start players by initiative rank per epoch; the start-player
    coin at setup (5 players: initiatives 4 and 5; 2 players with initiatives 2 and 4: initiative 4;
    3 players: nobody)."""
    for P, dealt, starters, extra in (
        (5, [0, 1, 2, 3, 4], [1, 2, 3], {4, 5}),
        (2, [1, 3], [2, 4, 2], {4}),
        (3, [4, 0, 2], [1, 3, 5], set()),
    ):
        game = new_game(P)
        s = game.init_from_uniforms(start_uniforms(dealt))
        initiative = [c + 1 for c in dealt]
        assert s.start_card[0].tolist() == dealt
        for p in range(P):
            assert s.coins[0, p] == data.START_COINS[dealt[p], SIDE_A] + (initiative[p] in extra)
        assert initiative[s.start_player[0]] == starters[0] and s.to_play[0] == s.start_player[0]
        for epoch in (0, 1):  # the end of epoch e's seals: epoch e + 1 begins
            nxt = position(game, DEC_B_SEALS, epoch=epoch, turn=P, start_card=np.array(dealt))
            assert nxt.epoch[0] == epoch + 1 and nxt.decision[0] == DEC_WHEEL
            assert initiative[nxt.start_player[0]] == starters[epoch + 1]


def test_had_ex_23_setup_size():
    """Rules example 23: 4 players: 5 inner stacks of 8 cards, 4 colonies per tier."""
    game = new_game(4)
    s = game.init_from_uniforms(np.full((1, UNIFORMS_AT_INIT), 0.3))
    game.validate(s)
    assert s.inner_count[0].tolist() == [8] * 5 and s.outer_count[0].tolist() == [0] * 5
    assert s.colony_count[0].tolist() == [4] * 5
    assert game.observe(s, 1).inner_count[0].tolist() == [8] * 5


def test_had_ex_24_one_visit_per_colour():
    """Rules example 24: after the 5 draft rounds every player has drawn once from each colour,
    the inner stacks are empty and each outer pile holds N cards."""
    for P in (2, 3, 5):
        game = new_game(P)
        s, colours = play_draft(game, game.init_from_uniforms(start_uniforms()), 2)
        for p in range(P):
            assert sorted(row[p] for row in colours) == [0, 1, 2, 3, 4]
        assert s.decision[0] == DEC_A_COLONY
        assert s.inner_count[0].tolist() == [0] * 5 and s.outer_count[0].tolist() == [P] * 5


def test_had_ex_25_phase_b_length():
    """Rules example 25: every player takes exactly 5 phase-B turns; the piles end empty."""
    for P in (2, 4):
        game = new_game(P)
        s, _ = play_draft(game, game.init_from_uniforms(start_uniforms()), 0)
        while s.decision[0] in (DEC_A_COLONY, DEC_A_BUST):
            s = act(game, s, ACTION_PASS)
        turns = [0] * P
        while s.decision[0] == DEC_B_PICK:
            turns[int(s.to_play[0])] += 1
            colour = int(np.flatnonzero(s.outer_count[0] > 0)[0])
            s = act(game, s, pick_action(colour, SELL))
        assert turns == [5] * P
        assert s.outer_count[0].tolist() == [0] * 5 and s.decision[0] == DEC_B_COLONY


# --- purple abilities --------------------------------------------------------------------

def test_had_ex_26_sell_bonus():
    """Rules example 26 (SELL_BONUS): owning I-P01, selling an epoch II card gives 3 + 1 coins."""
    game = new_game()
    s = pick_position(game, {YELLOW: ["II-Y01"], GREEN: ["II-G01"]}, epoch=1, cards={0: ["I-P01"]}, coins={0: 0})
    s = act(game, s, pick_action(YELLOW, SELL))
    assert s.coins[0, 0] == 4


def test_had_ex_27_tile_steps():
    """Rules example 27 (TILE_STEPS): food 5, buy I-P03 and assign a green tile -> food 7, free
    green tiles 1; removing the card in Feeding -> food 5, free green tiles 2."""
    game = new_game()
    s = pick_position(game, {PURPLE: ["I-P03"]}, start={0: (4, SIDE_A)}, coins={0: 9})
    assert tracks(s)[FOOD] == 5 and s.free_tiles[0, 0, GREEN] == 2
    s = act(game, s, pick_action(PURPLE, BUY))
    assert s.decision[0] == DEC_B_TILE and s.to_play[0] == 0
    assert legal(game, s) == {ACTION_TILE + c for c in range(4)}
    s = act(game, s, ACTION_TILE + GREEN)
    assert tracks(s)[FOOD] == 7 and s.free_tiles[0, 0, GREEN] == 1
    # later removed in Feeding (8 cards > food 7)
    s = position(game, DEC_B_FEED, cards={0: ["I-P03"] + FEED_CARDS}, start={0: (4, SIDE_A)},
                 slot_tile={0: [GREEN] + [-1] * 29})
    assert tracks(s)[FOOD] == 7 and s.free_tiles[0, 0, GREEN] == 1 and s.to_play[0] == 0
    s = act(game, s, ACTION_REMOVE + 0)
    assert tracks(s)[FOOD] == 5 and s.free_tiles[0, 0, GREEN] == 2


def test_had_ex_28_per_blue_cul():
    """Rules example 28 (PER_BLUE_CUL): 3 blue cards, culture 10; buying I-P11 -> culture 13; then
    buying I-B02 (+2) -> culture 16."""
    game = new_game(advanced=True)
    s = pick_position(game, {PURPLE: ["I-P11"], YELLOW: ["I-Y01"], BLUE: ["I-B02"]},
                      cards={0: ["I-B08", "I-B05", "I-B03"]}, coins={0: 10})
    assert tracks(s)[CULTURE] == 10
    s = act(game, s, pick_action(PURPLE, BUY))
    assert tracks(s)[CULTURE] == 13
    s = act(game, s, pick_action(YELLOW, SELL))  # seat 1's turn
    s = act(game, s, pick_action(BLUE, BUY))
    assert tracks(s)[CULTURE] == 16


def test_had_ex_29_colony_coins():
    """Rules example 29 (COLONY_COINS): owning II-P01, coins 0, military 9: plunder tier 1 ->
    coins 7 (4 + 3); ally instead -> coins 3 (4 - 1; the +4 may pay the alliance)."""
    game = new_game()
    s = position(game, DEC_A_COLONY, epoch=1, cards={0: ["II-P01", "I-R10", "I-R02"]}, coins={0: 0})
    assert tracks(s)[MILITARY] == 9 and colony_action(1, ALLY) in legal(game, s)
    assert act(game, s, colony_action(1, PLUNDER)).coins[0, 0] == 7
    assert act(game, s, colony_action(1, ALLY)).coins[0, 0] == 3


def test_had_ex_30_cheap_seals():
    """Rules example 30 (CHEAP_SEALS): owning II-P03, seals cost silver 4 / gold 6 in epoch II
    and silver 15 / gold 22 in epoch III (normally 10 / 15 and 20 / 30)."""
    game = new_game()
    silver = {ACTION_SILVER + c for c in range(4)}
    for epoch, price_s, price_g in ((1, 4, 6), (2, 15, 22)):
        for coins in (price_s - 1, price_s, price_g - 1, price_g):
            s = position(game, DEC_B_SEALS, epoch=epoch, cards={0: ["II-P03"]}, coins={0: coins})
            options = legal(game, s)
            assert (silver <= options) == (coins >= price_s) and (ACTION_GOLD in options) == (coins >= price_g)
        s = position(game, DEC_B_SEALS, epoch=epoch, cards={0: ["II-P03"]}, coins={0: price_g})
        assert act(game, s, ACTION_SILVER + BLUE).coins[0, 0] == price_g - price_s
        assert act(game, s, ACTION_GOLD).coins[0, 0] == 0
        # without the card, the normal prices apply
        s = position(game, DEC_B_SEALS, epoch=epoch, coins={0: price_g})
        assert (silver <= legal(game, s)) == (price_g >= data.SILVER_PRICE[epoch]) and ACTION_GOLD not in legal(game, s)


def test_had_ex_31_track_income():
    """Rules example 31 (TRACK_INCOME): owning II-P11 with income 5, military 8, culture 5, food 7,
    Income gives 5 + 2 * 2 = 9 (culture is not strictly greater); with all three greater: +6 (cap)."""
    game = new_game(advanced=True)
    hand = ["II-P11", "I-Y09", "I-R08", "I-R02", "I-B02", "I-G07"]
    s = income_position(game, epoch=1, cards={0: hand}, coins={0: 0})
    assert tracks(s) == [5, 8, 5, 7] and s.coins[0, 0] == 9
    s = income_position(game, epoch=1, cards={0: hand + ["I-B01"]}, coins={0: 0})
    assert tracks(s) == [5, 8, 6, 7] and s.coins[0, 0] == 5 + 6


def test_had_ex_32_food_surplus():
    """Rules example 32 (FOOD_SURPLUS): owning II-P12 with food 12 and 7 cards, Feeding gives
    min(5 * 3, 12) = 12 coins."""
    game = new_game(advanced=True)
    hand = ["II-P12", "I-G07", "I-G04", "I-Y01", "I-R01", "I-B01", "I-P09"]
    s = position(game, DEC_B_FEED, epoch=1, cards={0: hand}, start={0: (4, SIDE_A)}, coins={0: 0})
    assert tracks(s)[FOOD] == 12 and n_cards(s) == 7
    assert s.decision[0] == DEC_B_SEALS and s.coins[0, 0] == 12


def test_had_ex_33_bust_boost():
    """Rules example 33 (BUST_BOOST): bust 0 carved with a blue tile front, bust 1 with a tile back,
    culture 15; buying II-P13 -> culture 17 at once; at the end bust 1 scores 8 + 3 + 2 = 13."""
    game = new_game(advanced=True)
    busts = {0: [2 * BLUE + FRONT, 2 * YELLOW + BACK, -1, -1]}
    hand = ["I-B09", "I-B10", "I-B02"]
    s = pick_position(game, {PURPLE: ["II-P13"]}, epoch=1, cards={0: hand}, coins={0: 8}, bust=busts)
    assert tracks(s)[CULTURE] == 15
    s = act(game, s, pick_action(PURPLE, BUY))
    assert tracks(s)[CULTURE] == 17
    s = final(game, cards={0: hand + ["II-P13"]}, coins={0: 0}, bust=busts)
    assert game.scores(s)[0, 0] == cards_vp(hand + ["II-P13"]) + 4 + 13
    s = final(game, cards={0: hand}, coins={0: 0}, bust=busts)
    assert game.scores(s)[0, 0] == cards_vp(hand) + 4 + 11


def test_had_ex_34_feed_coins():
    """Rules example 34 (FEED_COINS): owning II-P14 with food 9 and 11 cards: paying twice costs 4
    coins, no card is removed, and the player's Feeding is done."""
    game = new_game(advanced=True)
    hand = ["II-P14", "I-G07", "I-G01", "I-Y01", "I-Y02", "I-R01", "I-R02", "I-B01", "I-B02", "I-P09", "II-Y01"]
    s = position(game, DEC_B_FEED, epoch=1, cards={0: hand}, start={0: (1, SIDE_A)}, coins={0: 10})
    assert tracks(s)[FOOD] == 9 and n_cards(s) == 11 and s.to_play[0] == 0
    assert ACTION_FEED_PAY in legal(game, s) and ACTION_PASS not in legal(game, s)
    s = act(game, s, ACTION_FEED_PAY)
    assert s.decision[0] == DEC_B_FEED and s.to_play[0] == 0  # one more card to cover
    s = act(game, s, ACTION_FEED_PAY)
    assert s.coins[0, 0] == 6 and n_cards(s) == 11
    assert s.decision[0] != DEC_B_FEED or s.to_play[0] != 0


def test_had_ex_35_silver_full():
    """Rules example 35 (SILVER_FULL): owning III-P01, a silver seal on culture 17 scores 17 (not 9)."""
    game = new_game()
    hand = ["III-B10", "III-B07", "I-B01"]
    for extra, vp in ((["III-P01"], 17), ([], 9)):
        s = final(game, cards={0: hand + extra}, coins={0: 0}, silver={0: [CULTURE, -1]})
        assert tracks(s)[CULTURE] == 17
        assert game.scores(s)[0, 0] == cards_vp(hand + extra) + vp


def test_had_ex_36_set_points():
    """Rules example 36 (SET_POINTS): owning III-P03 with 3 complete sets: +12 VP."""
    game = new_game()
    hand = [n for n in SETS3 if n != "III-P05"] + ["III-P03"]
    s = final(game, cards={0: hand}, coins={0: 0})
    assert s.colour_count[0, 0].tolist() == [3] * 5
    assert game.scores(s)[0, 0] == cards_vp(hand) + 12


def test_had_ex_37_req_minus_4():
    """Rules example 37 (REQ_MINUS_4): owning III-P11 with military 11 and culture 9: colony tier 2
    (15) is eligible and bust 1 (13) carvable; tier 3 (21) and bust 2 (20) are not."""
    game = new_game(advanced=True)
    hand = {0: ["III-P11", "I-R10", "I-R08", "I-B09", "I-B02"]}
    s = position(game, DEC_A_COLONY, epoch=2, cards=hand, coins={0: 0})
    assert tracks(s)[MILITARY] == 11 and tracks(s)[CULTURE] == 9
    options = legal(game, s)
    assert colony_action(2, PLUNDER) in options and colony_action(3, PLUNDER) not in options
    assert act(game, s, colony_action(2, PLUNDER)).coins[0, 0] == 5  # nothing charged
    s = position(game, DEC_A_BUST, epoch=2, cards=hand)
    options = legal(game, s)
    assert bust_action(1, RED, FRONT) in options and bust_action(2, RED, FRONT) not in options


def test_had_ex_38_gold_wildcard():
    """Rules example 38 (GOLD_WILDCARD): owning III-P12, 1 gold seal, colours Y3 R3 B2 G3 P3:
    gold scores 21 (3 sets) instead of 14."""
    game = new_game(advanced=True)
    base = [n for n in SETS3 if n not in ("III-B01", "III-P05")]
    for purple, gold_vp in (("III-P12", 21), ("III-P05", 14)):
        hand = base + [purple]
        s = final(game, cards={0: hand}, coins={0: 0}, gold={0: 1})
        assert s.colour_count[0, 0].tolist() == [3, 3, 2, 3, 3]
        assert game.scores(s)[0, 0] == cards_vp(hand) + gold_vp


def test_had_ex_39_double_section():
    """Rules example 39 (DOUBLE_SECTION): owning III-P13 with military 16, take tier 1 and
    then tier 2 in the same section; no third prompt (tier 0 would still be eligible)."""
    game = new_game(advanced=True)
    s = position(game, DEC_A_COLONY, epoch=2, cards={0: ["III-P13", "III-R09", "I-R10", "I-R01"]}, coins={0: 0})
    assert tracks(s)[MILITARY] == 16
    s = act(game, s, colony_action(1, PLUNDER))
    assert s.to_play[0] == 0 and s.decision[0] == DEC_A_COLONY
    assert colony_action(1, PLUNDER) not in legal(game, s) and colony_action(2, PLUNDER) in legal(game, s)
    s = act(game, s, colony_action(2, PLUNDER))
    assert s.colony[0, 0].tolist() == [NOT_TAKEN, PLUNDERED, PLUNDERED, NOT_TAKEN, NOT_TAKEN]
    assert s.to_play[0] == 1  # seat 0's section ended after the second colony


def test_had_ex_40_buy_requirement():
    """Rules example 40 (BUY_REQUIREMENT): owning III-P14 with military 14 and coins 5, taking
    tier 2 (15) charges 3 coins for the missing point, then plunder: coins 5 - 3 + 5 = 7."""
    game = new_game(advanced=True)
    hand = {0: ["III-P14", "I-R10", "I-R08", "I-R05"]}
    s = position(game, DEC_A_COLONY, epoch=2, cards=hand, coins={0: 5})
    assert tracks(s)[MILITARY] == 14
    assert colony_action(3, PLUNDER) not in legal(game, s)  # 7 missing points = 21 coins
    s = act(game, s, colony_action(2, PLUNDER))
    assert s.coins[0, 0] == 7 and s.colony[0, 0, 2] == PLUNDERED and tracks(s)[MILITARY] == 14
    s = position(game, DEC_A_COLONY, epoch=2, cards=hand, coins={0: 2})
    assert colony_action(2, PLUNDER) not in legal(game, s)


def test_had_ex_41_tie():
    """Rules example 41: both players at 80 VP, with 12 and 9 coins: the 12-coin player wins;
    with equal coins both are winners (equal returns, core.rank_returns)."""
    game = new_game()
    busts = {0: [1, 3, 5, 7], 1: [1, 3, 5, 7]}  # every bust carved with a tile back: 63 VP
    s = final(game, cards={0: ["III-P09", "I-P09"], 1: ["II-P09", "III-B06"]}, coins={0: 12, 1: 9}, bust=busts)
    assert game.scores(s)[0].tolist() == [80, 80]
    assert game.returns(s)[0].tolist() == [1.0, -1.0]
    s = final(game, cards={0: ["III-P09", "I-P09"], 1: ["II-P09", "III-B08"]}, coins={0: 12, 1: 12}, bust=busts)
    assert game.scores(s)[0].tolist() == [80, 80]
    assert game.returns(s)[0].tolist() == [0.0, 0.0]


def test_had_ex_42_coins_to_vp():
    """Rules example 42: 14 coins at game end score 2 VP."""
    game = new_game()
    s = final(game, coins={0: 14, 1: 15})
    assert game.scores(s)[0].tolist() == [2, 3]
