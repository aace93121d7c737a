"""Text views of Hadara: readable action names and a score-sheet render of the public position.

`score_sheet` shows only public information (it is what a spectator at the table sees): stack sizes
but not their cards, that a player has committed but not what, colours of face-down sales.
`action_to_str` says what an action does, in words, for the seat to play, so it may name that seat's own
pair; card codes (`II-B04`) stay, as the cards have no other name. The engine's name of an action stays
`game.action_names[action]`.
"""

from __future__ import annotations

from typing import Any

from meeple.envs.hadara import data, kernels
from meeple.envs.textview import fit_width, seat_marks
from meeple.envs.hadara.data import (
    ACTION_BUST, ACTION_COLONY, ACTION_DRAFT, ACTION_FEED_PAY, ACTION_GOLD, ACTION_PICK,
    ACTION_REMOVE, ACTION_SIDE, ACTION_SILVER, ACTION_TILE, ACTION_WHEEL, CARD_NAMES, COLOUR_LETTERS,
    COLOUR_NAMES, EPOCH_NAMES, DECISION_NAMES, TRACK_NAMES,
)


# the purple abilities in words (ABILITY_NAMES are the engine's tags)
ABILITY_WORDS = (
    "sale bonus", "tile steps", "culture per blue card", "income per yellow card", "food per green card",
    "military per red card", "coins per colony", "cheap seals", "income per higher track", "coins for surplus food",
    "bust boost", "feeding with coins", "full silver seals", "VP per colour set", "requirements -4", "gold wildcard",
    "two per section", "buy requirements",
)
assert len(ABILITY_WORDS) == data.NUM_ABILITIES
# the sections in words (DECISION_NAMES are the engine's tags)
DECISION_WORDS = (
    "the start-card side", "the wheel", "the phase A draft", "the phase A tile", "the phase A colony step",
    "the phase A bust step", "the phase B pick", "the phase B tile", "the phase B colony step",
    "the phase B bust step", "feeding", "buying seals", "the end of the game",
)
assert len(DECISION_WORDS) == data.NUM_DECISIONS


# the rules' own helpers (kernels.py), so the text shows exactly what the rules charge
def _price(state: Any, row: int, p: int, card: int) -> int:
    return int(kernels.eff_price(state, row, p, card))


def _shortfall(state: Any, row: int, p: int, requirement: int, track: int) -> int:
    return int(kernels.shortfall(state, row, p, int(requirement), track))


def card_text(card: int) -> str:
    """'I-B03 (price 3, +2 culture +1 food, 2 VP)'; a purple card adds its ability ('*' = advanced game)."""
    steps = " ".join(f"+{v} {TRACK_NAMES[k]}" for k, v in enumerate(data.CARD_TRACKS[card]) if v)
    ability = data.CARD_ABILITY[card]
    parts = [f"price {data.CARD_PRICE[card]}"]
    if steps:
        parts.append(steps)
    parts.append(f"{data.CARD_VP[card]} VP")
    if ability >= 0:
        parts.append(ABILITY_WORDS[ability] + ("*" if data.CARD_STARRED[card] else ""))
    return f"{CARD_NAMES[card]} ({', '.join(parts)})"


def _coins(n: int) -> str:
    return f"{n} coin{'' if n == 1 else 's'}"


def _sale(state: Any, row: int, p: int, card: int) -> int:
    """Coins a sale of `card` brings p (the card back's value plus SELL_BONUS)."""
    return int(data.SELL_VALUE[data.CARD_EPOCH[card]]) + int(state.ability_count[row, p, data.SELL_BONUS])


def _buys(short: int, track: int) -> str:
    """'; buys 2 missing military for 6 coins' (BUY_REQUIREMENT), or ''."""
    cost = data.BUY_REQUIREMENT_COINS_PER_POINT * short
    return f"; buys {short} missing {TRACK_NAMES[track]} for {_coins(cost)}" if short else ""


def action_to_str(game: Any, state: Any, action: int, row: int = 0, you: bool = True) -> str:
    """What the action does in `state` (row `row`), in words, e.g. 'take II-B04 from the blue pile and buy it
    for 5 coins'; the engine's name is `game.action_names[action]`. The text speaks to the seat to play
    ("you draw ..."); `you=False` names that seat instead (narration read by others)."""
    if not 0 <= action < game.num_actions:
        return f"no action {action}"
    text = _words(game, state, action, row, you)
    return text + " [the game is over]" if state.done[row] else text


def _words(game: Any, state: Any, action: int, row: int, you: bool) -> str:
    p = int(state.to_play[row])
    if action < ACTION_WHEEL:
        side = action - ACTION_SIDE
        card = int(state.start_card[row, p])
        tracks = ", ".join(f"{TRACK_NAMES[k]} {v}" for k, v in enumerate(data.START_TRACKS[card, side]))
        return f"play initiative {card + 1} on side {'AB'[side]}: {_coins(int(data.START_COINS[card, side]))}, {tracks}"
    if action < ACTION_DRAFT:
        r = action - ACTION_WHEEL
        order = " ".join(COLOUR_LETTERS[int(state.board_order[row, (p + r + k) % 5])] for k in range(5))
        who = "you draw" if you else f"player_{p} draws"
        return f"set the wheel to rotation {r}: {who} {order} in rounds 1-5"
    if action < ACTION_PICK:
        i = action - ACTION_DRAFT
        keep = i // 2
        verb = "buy" if i % 2 == data.BUY else "sell"
        cards = state.drawn[row, p]
        if cards[0] < 0:
            return f"{verb} card {keep + 1} of the pair, discard card {2 - keep}"
        card, other = int(cards[keep]), int(cards[1 - keep])
        if verb == "buy":
            return f"buy {CARD_NAMES[card]} for {_coins(_price(state, row, p, card))}, discard {CARD_NAMES[other]}"
        return f"sell {CARD_NAMES[card]} face down for {_coins(_sale(state, row, p, card))}, discard {CARD_NAMES[other]}"
    if action < ACTION_TILE:
        c, sell = divmod(action - ACTION_PICK, 2)
        n = int(state.outer_count[row, c])
        if not n:
            return f"{'sell' if sell else 'buy'} the top card of the {COLOUR_NAMES[c]} pile (empty)"
        card = int(state.outer[row, c, n - 1])
        if sell:
            return f"take {CARD_NAMES[card]} from the {COLOUR_NAMES[c]} pile and sell it for {_coins(_sale(state, row, p, card))}"
        return f"take {CARD_NAMES[card]} from the {COLOUR_NAMES[c]} pile and buy it for {_coins(_price(state, row, p, card))}"
    if action < ACTION_COLONY:
        c = action - ACTION_TILE
        return (f"put a free {COLOUR_NAMES[c]} tile on the new card: +{data.TILE_STEPS_STEPS} {TRACK_NAMES[c]} "
                f"({int(state.free_tiles[row, p, c])} {COLOUR_NAMES[c]} tiles free)")
    if action < ACTION_BUST:
        t, ally = divmod(action - ACTION_COLONY, 2)
        where = f"colony tier {t} (military {data.COLONY_TIER_REQUIREMENT[t]})"
        cost = int(data.COLONY_ALLY_COST[t])
        text = (f"ally with {where}: pay {_coins(cost) if cost else 'nothing'}, gain its hidden back" if ally
                else f"plunder {where}: +{_coins(int(data.COLONY_PLUNDER[t]))}, {data.COLONY_FRONT_VP[t]} VP")
        return text + _buys(_shortfall(state, row, p, data.COLONY_TIER_REQUIREMENT[t], data.MILITARY), data.MILITARY)
    if action < ACTION_SILVER:
        bu, rest = divmod(action - ACTION_BUST, 8)
        c, back = divmod(rest, 2)
        reward = int(data.BUST_REWARD[bu])
        gain = f"back up: +{reward} VP at the end" if back else f"front up: +{reward} {TRACK_NAMES[c]}"
        text = (f"carve bust {bu} (culture {data.BUST_REQUIREMENT[bu]}, {data.BUST_VP[bu]} VP) "
                f"with a {COLOUR_NAMES[c]} tile {gain}")
        return text + _buys(_shortfall(state, row, p, data.BUST_REQUIREMENT[bu], data.CULTURE), data.CULTURE)
    if action < ACTION_GOLD:
        c = action - ACTION_SILVER
        silver, _ = _seal_prices(state, row, p)
        return (f"buy a silver seal for {_coins(silver)} with a {COLOUR_NAMES[c]} tile, scoring {TRACK_NAMES[c]} "
                f"({int(state.tracks[row, p, c])} now)")
    if action == ACTION_GOLD:
        _, gold = _seal_prices(state, row, p)
        return f"buy a gold seal for {_coins(gold)} ({data.GOLD_VP_PER_SET} VP per 5-colour set)"
    if action < ACTION_FEED_PAY:
        slot = action - ACTION_REMOVE
        card = int(state.tableau[row, p, slot])
        return f"remove {card_text(card)} from the tableau" if card >= 0 else f"remove a card: tableau slot {slot} is empty"
    if action == ACTION_FEED_PAY:
        return f"pay {_coins(data.FEED_COINS_COST)} to feed one card"
    decision = int(state.decision[row])
    if decision in (data.DEC_A_COLONY, data.DEC_B_COLONY, data.DEC_A_BUST, data.DEC_B_BUST):
        return f"pass on {'the rest of ' if state.sect_count[row] else ''}{DECISION_WORDS[decision]}"
    if decision == data.DEC_B_SEALS:
        return "stop buying seals"
    return f"pass ({DECISION_WORDS[decision]})"


def _seal_prices(state: Any, row: int, p: int) -> tuple[int, int]:
    silver, gold = kernels.seal_prices(state, row, p)
    return int(silver), int(gold)


def section_text(game: Any, state: Any, row: int, sep: str = ", ", picture: bool = False) -> str:
    """The epoch, the section and how far it has come (the draft round in phase A, the turns left in
    phase B), `sep` between them; `picture=True` words them as the picture's title ("epoch II/III",
    "draft round 2/5")."""
    s = state
    sec = int(s.decision[row])
    text = f"epoch {EPOCH_NAMES[int(s.epoch[row])]}{'/III' if picture else ''}{sep}section {DECISION_NAMES[sec]}"
    if sec in (data.DEC_A_DRAFT, data.DEC_A_TILE):
        text += f"{sep}{'draft round' if picture else 'round'} {int(s.round[row]) + 1}/5"
    if sec in (data.DEC_B_PICK, data.DEC_B_TILE):
        text += f"{sep}phase-B turns left {data.PHASE_B_TURNS_PER_PLAYER * game.num_players - int(s.pick[row])}"
    return text


def turn_text(state: Any, row: int) -> str:
    """Who is to play, the start player and the wheel's rotation once it is set (a game not over)."""
    s = state
    return (f"player_{int(s.to_play[row])} to play; start player player_{int(s.start_player[row])}"
            + (f"; wheel rotation {int(s.rotation[row])}" if s.rotation[row] >= 0 else ""))


def score_sheet(game: Any, state: Any, row: int = 0, seat: int | None = None, detail: bool = False) -> str:
    """Every player's board, the piles and the section: public information only, plus with `seat=p`
    that player's own secrets (its drawn pair, its pending commitment, the cards of its face-down sales).

    The default view fits a terminal (board, inner stacks and colony stacks share a line; long lines
    are wrapped to `textview.TERMINAL_WIDTH`); `detail=True` gives one item per line, unwrapped."""
    s = state
    P = game.num_players
    vp = game.scores(state)[row]
    lines = ["Hadara — " + section_text(game, s, row)]
    if s.done[row]:
        lines.append(f"Game over; VP {vp.tolist()}, coins {s.coins[row].tolist()}")
    else:
        lines.append(turn_text(s, row))
    board = " ".join(COLOUR_LETTERS[int(c)] for c in s.board_order[row])
    inner = " ".join(f"{COLOUR_LETTERS[c]}:{int(s.inner_count[row, c])}" for c in range(5))
    colonies = "colony stacks: " + " ".join(f"tier{t}({data.COLONY_TIER_REQUIREMENT[t]}):{int(s.colony_count[row, t])}"
                                            for t in range(5))
    if detail:
        lines.append(f"board (positions 0-4): {board}")
        lines.append(f"inner stacks (face down): {inner}")
    else:
        lines.append(f"board {board}; inner stacks {inner}; {colonies}")
    piles = []
    for c in range(5):
        n = int(s.outer_count[row, c])
        pile = " ".join(CARD_NAMES[int(x)] for x in s.outer[row, c, :n]) or "-"
        if detail:
            lines.append(f"  outer {COLOUR_NAMES[c]:<6} (bottom->top): {pile}")
        piles.append(f"{COLOUR_LETTERS[c]}: {pile}")
    if not detail:
        lines.append("outer piles (bottom->top) " + "; ".join(piles))
    if detail:
        lines.append(colonies)
    for p in range(P):
        marks = seat_marks(s, row, p, ("committed", s.committed[row, p]), ("you", p == seat))
        side = int(s.start_side[row, p])
        lines.append(f"== player_{p}{' (' + ', '.join(marks) + ')' if marks else ''}: {int(vp[p])} VP, "
                     f"{int(s.coins[row, p])} coins, initiative {int(s.start_card[row, p]) + 1}"
                     f"{' side ' + 'AB'[side] if side >= 0 else ' side hidden'} ==")
        tracks = "  ".join(f"{TRACK_NAMES[k]} {int(v)}" for k, v in enumerate(s.tracks[row, p]))
        tiles = " ".join(f"{COLOUR_LETTERS[c]}{int(s.free_tiles[row, p, c])}" for c in range(4))
        lines.append(f"  {tracks}   free tiles {tiles}")
        cards = []
        for slot in range(data.MAX_TABLEAU):
            card = int(s.tableau[row, p, slot])
            if card >= 0:
                tile = int(s.slot_tile[row, p, slot])
                # slot numbers (the REMOVE actions' argument) only in the detail view, to keep the default narrow
                cards.append((f"{slot}:" if detail else "") + CARD_NAMES[card] + (f"[{COLOUR_LETTERS[tile]}]" if tile >= 0 else ""))
        counts = " ".join(f"{COLOUR_LETTERS[c]}{int(s.colour_count[row, p, c])}" for c in range(5))
        lines.append(f"  cards ({counts}): " + (" ".join(cards) or "-"))
        cols = []
        for t in range(5):
            st = int(s.colony[row, p, t])
            if st == kernels.PLUNDERED:
                cols.append(f"t{t} plundered")
            elif st == kernels.ALLIED:
                cols.append(f"t{t} allied {data.COLONY_NAMES[int(s.colony_id[row, p, t])]}")
        busts = []
        for bu in range(4):
            v = int(s.bust[row, p, bu])
            if v >= 0:
                busts.append(f"b{bu} {COLOUR_LETTERS[v // 2]} {'back' if v % 2 else 'front'}")
        silver = [TRACK_NAMES[int(c)] for c in s.silver[row, p] if c >= 0]
        lines.append(f"  colonies: {', '.join(cols) or '-'}; busts: {', '.join(busts) or '-'}; "
                     f"silver: {', '.join(silver) or '-'}; gold: {int(s.gold[row, p])}")
        sold = [COLOUR_LETTERS[int(data.CARD_COLOUR[c])] for c in s.sold_a[row, p] if c >= 0]
        if p == seat:  # the seat's own face-down sales, drawn pair and commitment are its private information
            lines.extend(_own_lines(s, row, p))
        elif sold:
            lines.append(f"  face-down sales (colours): {' '.join(sold)}")
    return "\n".join(lines if detail else fit_width(lines))


# the draft commitments in the order of `pending` (draft action - ACTION_DRAFT)
ACTION_NAMES_DRAFT = ("BUY_0", "SELL_0", "BUY_1", "SELL_1")


def _own_lines(state: Any, row: int, p: int) -> list[str]:
    """Player p's private information: the cards of its face-down sales, its drawn pair, its commitment."""
    s = state
    lines = []
    sold = [CARD_NAMES[int(c)] for c in s.sold_a[row, p] if c >= 0]
    if sold:
        lines.append(f"  your face-down sales: {' '.join(sold)}")
    if s.drawn[row, p, 0] >= 0:
        lines.append("  your drawn pair: " + ", ".join(card_text(int(c)) for c in s.drawn[row, p] if c >= 0))
    pending = int(s.pending[row, p])
    if pending >= 0:
        if s.decision[row] == data.DEC_A_DRAFT:
            lines.append(f"  your commitment: {ACTION_NAMES_DRAFT[pending]}")
        else:
            lines.append(f"  your commitment: start-card side {'AB'[pending]}")
    return lines


# chance outcomes narrated by golden playthroughs (envs/playthrough.py): the shuffled stacks, the
# pairs drawn from them, colony backs and start cards
CHANCE_FIELDS = {
    "start_card": lambda c: f"initiative {c + 1}",
    "board_order": lambda c: COLOUR_NAMES[c],
    "inner": lambda card: CARD_NAMES[card],
    "drawn": lambda card: CARD_NAMES[card],
    "colony_stack": lambda c: data.COLONY_NAMES[c],
}
