"""Text views of Roll Through the Ages: a score-sheet render and the moves in words.

`action_to_str` says what a move does in the position, in the game's words ("mark die 2 (3 workers) for
the reroll", "buy Agriculture for 15 coins (3 points)"); dice are numbered 1..7 as the picture labels them.
The engine's name of a move stays `game.action_names[action]`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs.roll_through_the_ages import data, kernels
from meeple.envs.textview import fit_width
from meeple.envs.roll_through_the_ages.data import (
    ACTION_BUILD_CITY, ACTION_BUILD_MONUMENT, ACTION_BUY_DEV, ACTION_DISCARD, ACTION_ENGINEERING,
    ACTION_LEADERSHIP_REROLL, ACTION_MARK_REROLL, ACTION_OFFER_GIVE, ACTION_OFFER_TAKE, ACTION_PAY_FOOD,
    ACTION_PAY_GOOD, ACTION_ROLL, ACTION_TRADE_WITH, DEVELOPMENT_COST, DEVELOPMENT_NAMES,
    DEVELOPMENT_POINTS, FACE_NAMES, GOOD_NAMES, GOODS_VALUE, MONUMENT_NAMES, MONUMENT_WORKERS,
    DECISION_NAMES, TRADE_TYPE_NAMES,
)


# the faces as the picture prints them (FACE_NAMES are the engine's tags)
FACE_WORDS = ("1 good", "3 food", "2 goods and a skull", "2 food or workers", "7 coins", "3 workers")
# what PASS ends in each decision it is legal in (other decisions: a plain "pass")
PASS_WORDS = {
    data.DEC_ROLL: "keep the dice as they are (stop rolling)",
    data.DEC_LEADERSHIP: "skip the Leadership reroll",
    data.DEC_TRADE: "end trading",
    data.DEC_BUY: "buy no development this turn",
}


def _cities(city_workers: int) -> int:
    return int(kernels.cities_of(city_workers))


def die_text(state: Any, row: int, i: int) -> str:
    """'die 3 (7 coins)': dice are numbered 1..7 as the picture labels them."""
    face = int(state.dice[row, i])
    return f"die {i + 1} ({FACE_WORDS[face]})" if face >= 0 else f"die {i + 1} (not rolled)"


def _amounts(counts: Any) -> str:
    """'2 wood and 1 food' of trade counts (5 goods, then food)."""
    parts = [f"{int(n)} {TRADE_TYPE_NAMES[t]}" for t, n in enumerate(counts) if n]
    return " and ".join(parts) if parts else "nothing"


def _progress(have: int, need: int) -> str:
    return f"{have}/{need} -> {have + 1}/{need}"


def action_to_str(game: Any, state: Any, action: int, row: int = 0) -> str:
    """What the action does in `state` (row `row`), in words, e.g. 'mark die 2 (3 workers) for the reroll',
    'buy Agriculture for 15 coins (3 points)'; the engine's name is `game.action_names[action]`."""
    if not 0 <= action < game.num_actions:
        return f"no action {action}"
    text = _words(game, state, action, row)
    return text + " [the game is over]" if state.done[row] else text


def _words(game: Any, state: Any, action: int, row: int) -> str:
    s = state
    p = int(s.active[row])
    decision = int(s.decision[row])
    devs = s.developments[row, p]
    if action < ACTION_ROLL:
        return f"mark {die_text(s, row, action - ACTION_MARK_REROLL)} for the reroll"
    if action == ACTION_ROLL:
        marked = [str(i + 1) for i in np.flatnonzero(s.marked[row])]
        dice = (f"die {marked[0]}" if len(marked) == 1 else f"dice {', '.join(marked[:-1])} and {marked[-1]}"
                ) if marked else "the marked dice (none yet)"
        return f"reroll {dice} (roll {int(s.rolls_used[row]) + 1} of {data.MAX_ROLLS})"
    if action < data.ACTION_FW_FOOD:
        return f"Leadership: reroll {die_text(s, row, action - ACTION_LEADERSHIP_REROLL)} once, the new face is final"
    if action <= data.ACTION_FW_WORKERS:
        food = action == data.ACTION_FW_FOOD
        amount = 2 + int(devs[data.AGRICULTURE if food else data.MASONRY])
        what = f"{amount} {'food' if food else 'workers'}"
        undecided = np.flatnonzero((s.dice[row] == data.FW2) & (s.fw_choice[row] == data.FW_UNDECIDED))
        if not len(undecided):
            return f"take {what} from a food-or-workers die"
        return f"take {what} from die {int(undecided[0]) + 1} (food or workers)"
    if action == ACTION_BUILD_CITY:
        cw = int(s.city_workers[row, p])
        if cw >= data.CITY_WORKERS_MAX:
            return "put a worker on a city (all 7 are built)"
        t = int(np.searchsorted(data.CITY_THRESHOLDS, cw, side="right"))
        start = int(data.CITY_THRESHOLDS[t - 1]) if t else 0
        need = int(data.CITY_THRESHOLDS[t]) - start
        built = "; builds it" if cw + 1 - start == need else ""
        return (f"put a worker on city {data.START_CITIES + t + 1}: {_progress(cw - start, need)}{built} "
                f"({cw}/{data.CITY_WORKERS_MAX} city workers)")
    if action < ACTION_ENGINEERING:
        m = action - ACTION_BUILD_MONUMENT
        have, need = int(s.monument_progress[row, p, m]), int(MONUMENT_WORKERS[m])
        if have >= need:
            return f"put a worker on the {MONUMENT_NAMES[m]} (already complete)"
        text = f"put a worker on the {MONUMENT_NAMES[m]}: {_progress(have, need)}"
        if have + 1 == need:
            first = game.num_players == 1 or not s.completed_by_anyone[row, m]
            text += f"; completes it for {int((data.MONUMENT_FIRST if first else data.MONUMENT_LATER)[m])} points"
        return text
    if action == ACTION_ENGINEERING:
        return (f"Engineering: turn 1 of your {int(s.goods[row, p, data.STONE])} stone into "
                f"{data.ENGINEERING_WORKERS_PER_STONE} workers")
    if action < ACTION_PAY_FOOD:
        g = action - ACTION_PAY_GOOD
        n = int(s.goods[row, p, g])
        value = int(GOODS_VALUE[g, n])
        return f"pay with {'all ' if n > 1 else ''}{n} {GOOD_NAMES[g]} (worth {value} coin{'' if value == 1 else 's'})"
    if action == ACTION_PAY_FOOD:
        return (f"Granaries: pay with 1 more food ({data.GRANARIES_COINS_PER_FOOD} coins; "
                f"{int(s.marked_food[row])} food marked so far)")
    if action < ACTION_DISCARD:
        d = action - ACTION_BUY_DEV
        return f"buy {DEVELOPMENT_NAMES[d]} for {int(DEVELOPMENT_COST[d])} coins ({int(DEVELOPMENT_POINTS[d])} points)"
    if action < data.ACTION_PASS:
        g = action - ACTION_DISCARD
        n = int(s.goods[row, p, g])
        return f"discard 1 {GOOD_NAMES[g]} ({n} -> {max(n - 1, 0)})"
    partner = int(s.trade_partner[row])
    if action == data.ACTION_PASS:
        if decision == data.DEC_BUILD:
            n = int(s.workers[row])
            return f"stop building ({n} worker{'' if n == 1 else 's'} unused)"
        if decision == data.DEC_TRADE_OFFER:
            return f"withdraw the offer to player_{partner}"
        return PASS_WORDS.get(decision, "pass")
    if action < ACTION_OFFER_GIVE:
        return f"open a trade offer to player_{(p + 1 + action - ACTION_TRADE_WITH) % game.num_players}"
    if action < ACTION_OFFER_TAKE:
        t = action - ACTION_OFFER_GIVE
        n = int(s.offer_give[row, t])
        return f"offer 1 more {TRADE_TYPE_NAMES[t]} ({n} -> {n + 1})"
    if action < data.ACTION_PROPOSE:
        t = action - ACTION_OFFER_TAKE
        n = int(s.offer_take[row, t])
        return f"ask for 1 more {TRADE_TYPE_NAMES[t]} ({n} -> {n + 1})"
    give, take = _amounts(s.offer_give[row]), _amounts(s.offer_take[row])
    if action == data.ACTION_PROPOSE:
        return f"send the offer to player_{partner}: give {give} for {take}"
    if action == data.ACTION_ACCEPT:
        return f"accept player_{p}'s offer: get {give}, give {take}"
    return f"decline player_{p}'s offer of {give} for {take}"


def score_sheet(game: Any, state: Any, row: int = 0, seat: int | None = None, detail: bool = False) -> str:
    """A readable score sheet of every player plus the active player's turn.

    Nothing is hidden in this game, so `seat` only marks the viewer's own sheet "(you)". The default
    view wraps long lines to the terminal width (`textview.TERMINAL_WIDTH`); `detail=True` keeps every
    line whole."""
    s = state
    P = game.num_players
    scores = game.scores(state)[row]
    values = game.goods_values(state)[row]
    phase = DECISION_NAMES[int(s.decision[row])]
    header = f"Roll Through the Ages — round {int(s.round[row])}"
    if P == 1:
        header += f"/{data.SOLO_ROUNDS} (solo)"
    if s.final_round[row]:
        header += " — FINAL ROUND"
    lines = [header]
    if s.done[row]:
        lines.append("Game over" + (" (truncated)" if s.truncated[row] else "") + f"; scores {scores.tolist()}")
    else:
        lines.append(f"player_{int(s.active[row])}'s turn, phase {phase}, player_{int(s.to_play[row])} to decide")
        dice = []
        for i in range(7):
            f = int(s.dice[row, i])
            if f < 0:
                continue
            tag = FACE_NAMES[f]
            if f == data.FW2 and s.fw_choice[row, i]:
                tag += "->" + ("food" if s.fw_choice[row, i] == data.FW_FOOD_CHOSEN else "workers")
            if s.marked[row, i]:
                tag += "*"
            dice.append(f"{i + 1}:{tag}")  # numbered 1..7, as the picture and the moves say
        lines.append(f"  dice  {'  '.join(dice)}   (rolls {int(s.rolls_used[row])}/3, * = marked)")
        lines.append(f"  workers {int(s.workers[row])}  coins {int(s.coins[row])}"
                     + (f"  bought {DEVELOPMENT_NAMES[int(s.bought[row])]}" if s.bought[row] >= 0 else ""))
        if s.trade_partner[row] >= 0:
            give = ", ".join(f"{n} {TRADE_TYPE_NAMES[t]}" for t, n in enumerate(s.offer_give[row]) if n)
            take = ", ".join(f"{n} {TRADE_TYPE_NAMES[t]}" for t, n in enumerate(s.offer_take[row]) if n)
            lines.append(f"  offer to player_{int(s.trade_partner[row])}: give [{give}] for [{take}]")
    for p in range(P):
        marks = []
        if p == s.start_player[row]:
            marks.append("start")
        if p == s.active[row] and not s.done[row]:
            marks.append("active")
        if p == seat:
            marks.append("you")
        lines.append(f"== player_{p}{' (' + ', '.join(marks) + ')' if marks else ''}: score {int(scores[p])} ==")
        cw = int(s.city_workers[row, p])
        lines.append(f"  food {int(s.food[row, p]):2d}/15   cities {_cities(cw)} (city workers {cw}/18)"
                     f"   disasters {int(s.disasters[row, p])}")
        goods = "  ".join(f"{GOOD_NAMES[g]} {int(s.goods[row, p, g])}" for g in range(5))
        lines.append(f"  goods {goods}   (value {int(values[p])})")
        mons = []
        for m in range(7):
            if not game.monuments_in_play[m]:
                continue
            prog = int(s.monument_progress[row, p, m])
            cell = f"{MONUMENT_NAMES[m]} {prog}/{MONUMENT_WORKERS[m]}"
            if prog == MONUMENT_WORKERS[m]:
                cell += f" ({int(s.monument_points[row, p, m])} pt)"
            mons.append(cell)
        lines.append("  monuments " + ", ".join(mons))
        devs = [DEVELOPMENT_NAMES[d] for d in range(13) if s.developments[row, p, d]]
        lines.append("  developments " + (", ".join(devs) if devs else "-"))
    return "\n".join(lines if detail else fit_width(lines))


# chance outcomes narrated by golden playthroughs (envs/playthrough.py): the dice after a roll
CHANCE_FIELDS = {"dice": lambda face: FACE_NAMES[face]}
