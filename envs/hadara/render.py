"""Text views of Hadara: readable action names and a score-sheet render of the public position.

`score_sheet` shows only public information (it is what a spectator at the table sees): stack sizes
but not their cards, that a player has committed but not what, colours of face-down sales.
`action_to_str` describes an action for the seat to play, so it may name that seat's own pair.
"""

from __future__ import annotations

from typing import Any

from meeple.envs.hadara import data, kernels
from meeple.envs.textview import fit_width
from meeple.envs.hadara.data import (
    ACTION_BUST, ACTION_COLONY, ACTION_DRAFT, ACTION_FEED_PAY, ACTION_GOLD, ACTION_PASS, ACTION_PICK,
    ACTION_REMOVE, ACTION_SIDE, ACTION_SILVER, ACTION_TILE, ACTION_WHEEL, CARD_NAMES, COLOUR_LETTERS,
    COLOUR_NAMES, EPOCH_NAMES, DECISION_NAMES, TRACK_NAMES,
)


# the rules' own helpers (kernels.py), so the text shows exactly what the rules charge
def _price(state: Any, row: int, p: int, card: int) -> int:
    return int(kernels.eff_price(state, row, p, card))


def _shortfall(state: Any, row: int, p: int, requirement: int, track: int) -> int:
    return int(kernels.shortfall(state, row, p, int(requirement), track))


def card_text(card: int) -> str:
    """'I-B03 (price 3, +2 cul +1 food, 2 VP)'."""
    steps = " ".join(f"+{v} {TRACK_NAMES[k][:3]}" for k, v in enumerate(data.CARD_TRACKS[card]) if v)
    ability = data.CARD_ABILITY[card]
    parts = [f"price {data.CARD_PRICE[card]}"]
    if steps:
        parts.append(steps)
    parts.append(f"{data.CARD_VP[card]} VP")
    if ability >= 0:
        parts.append(data.ABILITY_NAMES[ability] + ("*" if data.CARD_STARRED[card] else ""))
    return f"{CARD_NAMES[card]} ({', '.join(parts)})"


def action_to_str(game: Any, state: Any, action: int, row: int = 0) -> str:
    """The action's name plus what it means in `state` (row `row`), e.g. 'PICK_B_BUY (II-B04, price 5)'."""
    if not 0 <= action < game.num_actions:
        return f"INVALID_{action}"
    name = game.action_names[action]
    if state is None or state.done[row]:
        return name
    p = int(state.to_play[row])
    detail = ""
    if action < ACTION_WHEEL:
        side = action - ACTION_SIDE
        card = int(state.start_card[row, p])
        tracks = ", ".join(f"{TRACK_NAMES[k]} {v}" for k, v in enumerate(data.START_TRACKS[card, side]))
        detail = f"initiative {card + 1}: {data.START_COINS[card, side]} coins, {tracks}"
    elif action < ACTION_DRAFT:
        r = action - ACTION_WHEEL
        order = "".join(COLOUR_LETTERS[int(state.board_order[row, (p + r + k) % 5])] for k in range(5))
        detail = f"you draw {order} in rounds 1-5"
    elif action < ACTION_PICK:
        i = action - ACTION_DRAFT
        keep = i // 2
        cards = state.drawn[row, p]
        if cards[0] >= 0:
            card, other = int(cards[keep]), int(cards[1 - keep])
            if i % 2 == data.BUY:
                detail = f"{CARD_NAMES[card]}, price {_price(state, row, p, card)}; discard {CARD_NAMES[other]}"
            else:
                value = int(data.SELL_VALUE[data.CARD_EPOCH[card]]) + int(state.ability_count[row, p, data.SELL_BONUS])
                detail = f"{CARD_NAMES[card]} for {value} coins; discard {CARD_NAMES[other]}"
    elif action < ACTION_TILE:
        c, sell = divmod(action - ACTION_PICK, 2)
        n = int(state.outer_count[row, c])
        if n:
            card = int(state.outer[row, c, n - 1])
            if sell:
                value = int(data.SELL_VALUE[data.CARD_EPOCH[card]]) + int(state.ability_count[row, p, data.SELL_BONUS])
                detail = f"{CARD_NAMES[card]}, sell for {value}"
            else:
                detail = f"{CARD_NAMES[card]}, price {_price(state, row, p, card)}"
        else:
            detail = f"{COLOUR_NAMES[c]} pile empty"
    elif action < ACTION_COLONY:
        c = action - ACTION_TILE
        detail = f"+{data.TILE_STEPS_STEPS} {TRACK_NAMES[c]}, {int(state.free_tiles[row, p, c])} free {COLOUR_NAMES[c]} tiles"
    elif action < ACTION_BUST:
        t, ally = divmod(action - ACTION_COLONY, 2)
        short = _shortfall(state, row, p, data.COLONY_TIER_REQUIREMENT[t], data.MILITARY)
        what = (f"ally: pay {data.COLONY_ALLY_COST[t]}, hidden back" if ally
                else f"plunder: +{data.COLONY_PLUNDER[t]} coins, {data.COLONY_FRONT_VP[t]} VP")
        detail = f"tier {t} (military {data.COLONY_TIER_REQUIREMENT[t]}), {what}"
        if short:
            detail += f"; buys {short} missing for {3 * short}"
    elif action < ACTION_SILVER:
        k = action - ACTION_BUST
        bu, rest = divmod(k, 8)
        c, back = divmod(rest, 2)
        reward = int(data.BUST_REWARD[bu])
        gain = f"+{reward} VP at the end" if back else f"+{reward} {TRACK_NAMES[c]}"
        detail = f"bust {bu} (culture {data.BUST_REQUIREMENT[bu]}, {data.BUST_VP[bu]} VP), {COLOUR_NAMES[c]} tile: {gain}"
        short = _shortfall(state, row, p, data.BUST_REQUIREMENT[bu], data.CULTURE)
        if short:
            detail += f"; buys {short} missing for {3 * short}"
    elif action < ACTION_GOLD:
        c = action - ACTION_SILVER
        silver, _ = _seal_prices(state, row, p)
        detail = f"{silver} coins, scores {TRACK_NAMES[c]} ({int(state.tracks[row, p, c])} now)"
    elif action == ACTION_GOLD:
        _, gold = _seal_prices(state, row, p)
        detail = f"{gold} coins, 7 VP per 5-colour set"
    elif action < ACTION_FEED_PAY:
        slot = action - ACTION_REMOVE
        card = int(state.tableau[row, p, slot])
        detail = card_text(card) if card >= 0 else "empty slot"
    elif action == ACTION_FEED_PAY:
        detail = f"{data.FEED_COINS_COST} coins cover one card"
    elif action == ACTION_PASS:
        detail = DECISION_NAMES[int(state.decision[row])]
    return f"{name} ({detail})" if detail else name


def _seal_prices(state: Any, row: int, p: int) -> tuple[int, int]:
    silver, gold = kernels.seal_prices(state, row, p)
    return int(silver), int(gold)


def score_sheet(game: Any, state: Any, row: int = 0, seat: int | None = None, detail: bool = False) -> str:
    """Every player's board, the piles and the section: public information only, plus with `seat=p`
    that player's own secrets (its drawn pair, its pending commitment, the cards of its face-down sales).

    The default view fits a terminal (board, inner stacks and colony stacks share a line; long lines
    are wrapped to `textview.TERMINAL_WIDTH`); `detail=True` gives one item per line, unwrapped."""
    s = state
    P = game.num_players
    vp = game.scores(state)[row]
    sec = int(s.decision[row])
    head = f"Hadara — epoch {EPOCH_NAMES[int(s.epoch[row])]}, section {DECISION_NAMES[sec]}"
    if sec in (data.DEC_A_DRAFT, data.DEC_A_TILE):
        head += f", round {int(s.round[row]) + 1}/5"
    if sec in (data.DEC_B_PICK, data.DEC_B_TILE):
        head += f", phase-B turns left {5 * P - int(s.pick[row])}"
    lines = [head]
    if s.done[row]:
        lines.append(f"Game over; VP {vp.tolist()}, coins {s.coins[row].tolist()}")
    else:
        lines.append(f"player_{int(s.to_play[row])} to play; start player player_{int(s.start_player[row])}"
                     + (f"; wheel rotation {int(s.rotation[row])}" if s.rotation[row] >= 0 else ""))
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
        marks = []
        if p == s.start_player[row]:
            marks.append("start")
        if p == s.to_play[row] and not s.done[row]:
            marks.append("to play")
        if s.committed[row, p]:
            marks.append("committed")
        if p == seat:
            marks.append("you")
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
