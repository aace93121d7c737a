"""Text views of Roll Through the Ages: a score-sheet render and readable action names."""

from __future__ import annotations

from typing import Any


from meeple.envs.roll_through_the_ages import data, kernels
from meeple.envs.textview import fit_width
from meeple.envs.roll_through_the_ages.data import (
    ACTION_BUILD_CITY, ACTION_BUILD_MONUMENT, ACTION_BUY_DEV, ACTION_DISCARD, ACTION_ENGINEERING,
    ACTION_LEADERSHIP_REROLL, ACTION_MARK_REROLL, ACTION_OFFER_GIVE, ACTION_OFFER_TAKE, ACTION_PAY_FOOD,
    ACTION_PAY_GOOD, ACTION_ROLL, ACTION_TRADE_WITH, DEVELOPMENT_COST, DEVELOPMENT_NAMES,
    DEVELOPMENT_POINTS, FACE_NAMES, GOOD_NAMES, GOODS_VALUE, MONUMENT_NAMES, MONUMENT_WORKERS,
    NUM_BASE_ACTIONS, DECISION_NAMES, TRADE_TYPE_NAMES,
)


def _cities(city_workers: int) -> int:
    return int(kernels.cities_of(city_workers))


def action_to_str(game: Any, state: Any, action: int, row: int = 0) -> str:
    """The action's name plus what it means in `state` (row `row`), e.g. 'BUY_DEV_2 (Agriculture ...)'."""
    if not 0 <= action < game.num_actions:
        return f"INVALID_{action}"
    name = game.action_names[action]
    if state is None:
        return name
    p = int(state.active[row])
    detail = ""
    if ACTION_MARK_REROLL <= action < ACTION_ROLL or ACTION_LEADERSHIP_REROLL <= action < ACTION_LEADERSHIP_REROLL + 7:
        i = action % 7 if action < ACTION_ROLL else action - ACTION_LEADERSHIP_REROLL
        face = int(state.dice[row, i])
        detail = f"die {i}: {FACE_NAMES[face] if face >= 0 else 'none'}"
    elif action == ACTION_BUILD_CITY:
        detail = f"city workers {int(state.city_workers[row, p])}/18"
    elif ACTION_BUILD_MONUMENT <= action < ACTION_ENGINEERING:
        m = action - ACTION_BUILD_MONUMENT
        detail = f"{MONUMENT_NAMES[m]} {int(state.monument_progress[row, p, m])}/{MONUMENT_WORKERS[m]}"
    elif action == ACTION_ENGINEERING:
        detail = "1 stone -> 3 workers"
    elif ACTION_PAY_GOOD <= action < ACTION_PAY_FOOD:
        g = action - ACTION_PAY_GOOD
        n = int(state.goods[row, p, g])
        detail = f"all {n} {GOOD_NAMES[g]} = {GOODS_VALUE[g, n]} coins"
    elif action == ACTION_PAY_FOOD:
        detail = "1 food = 4 coins"
    elif ACTION_BUY_DEV <= action < ACTION_DISCARD:
        d = action - ACTION_BUY_DEV
        detail = f"{DEVELOPMENT_NAMES[d]}: {DEVELOPMENT_COST[d]} coins, {DEVELOPMENT_POINTS[d]} points"
    elif ACTION_DISCARD <= action < data.ACTION_PASS:
        detail = GOOD_NAMES[action - ACTION_DISCARD]
    elif action >= NUM_BASE_ACTIONS:
        if ACTION_TRADE_WITH <= action < ACTION_OFFER_GIVE:
            detail = f"player_{(p + 1 + action - ACTION_TRADE_WITH) % game.num_players}"
        elif ACTION_OFFER_GIVE <= action < ACTION_OFFER_TAKE:
            detail = f"give 1 more {TRADE_TYPE_NAMES[action - ACTION_OFFER_GIVE]}"
        elif ACTION_OFFER_TAKE <= action < data.ACTION_PROPOSE:
            detail = f"ask 1 more {TRADE_TYPE_NAMES[action - ACTION_OFFER_TAKE]}"
    return f"{name} ({detail})" if detail else name


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
            dice.append(f"{i}:{tag}")
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
