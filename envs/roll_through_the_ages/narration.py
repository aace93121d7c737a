"""What a step of Roll Through the Ages did, in words (`game.narrate(before, action, after)`).

Nothing in this game is hidden, so every seat reads the same narration (`seat` only says "you").
One step may run several automatic phases (collection, feeding, the skull disaster, the end of the
turn and the next player's first roll, even whole turns without a decision), so the narration
compares the two states: the move, the dice (re)rolled, the resolution of the final dice, every
player's changed food, goods, disasters, cities, monuments and developments, the next turn and the
end of the game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs.roll_through_the_ages import data, kernels
from meeple.envs.roll_through_the_ages.data import (
    ACTION_LEADERSHIP_REROLL, ACTION_ROLL, DECISION_NAMES, DEVELOPMENT_NAMES, FACE_NAMES, GOOD_NAMES, MONUMENT_NAMES,
    MONUMENT_WORKERS,
)
from meeple.envs.textview import changes, join, move_line, player, player_lines, score_list, transition

# the decisions before the dice are final: a step leaving them resolves the dice (collection and disasters)
ROLLING = (data.DEC_ROLL, data.DEC_LEADERSHIP, data.DEC_CHOOSE_FW)


def dice_text(dice: np.ndarray) -> str:
    """'GOOD1 FOOD3 SKULL' for the dice in play (-1 = no die)."""
    return " ".join(FACE_NAMES[int(f)] for f in dice if f >= 0)


def disaster_text(game: Any, state: Any, row: int, p: int, skulls: int) -> str:
    """The skull row that applies to `skulls` skulls rolled by p in `state` (rules 3d), or ''."""
    devs = state.developments[row]
    solo = game.num_players == 1
    if skulls == data.DROUGHT_SKULLS:
        return "2 skulls: drought" + (", Irrigation protects" if devs[p, data.IRRIGATION] else f", +{data.DROUGHT_POINTS} disaster points")
    if skulls == data.PESTILENCE_SKULLS:
        if solo:
            hurt = f", +{data.PESTILENCE_POINTS} disaster points"
            return "3 skulls: pestilence" + (", Medicine protects" if devs[p, data.MEDICINE] else hurt)
        hit = [f"player_{q}" for q in range(game.num_players) if q != p and not devs[q, data.MEDICINE]]
        return f"3 skulls: pestilence, +{data.PESTILENCE_POINTS} disaster points to " + (" and ".join(hit) or "nobody (Medicine)")
    if skulls == data.INVASION_SKULLS:
        walled = state.monument_progress[row, p, data.GREAT_WALL] == MONUMENT_WORKERS[data.GREAT_WALL]
        return "4 skulls: invasion" + (", the Great Wall protects" if walled else f", +{data.INVASION_POINTS} disaster points")
    if skulls >= data.REVOLT_SKULLS:
        if devs[p, data.RELIGION]:
            return f"{skulls} skulls: revolt turned by Religion" + ("" if solo else ": opponents without Religion lose all goods")
        return f"{skulls} skulls: revolt, all goods lost"
    return ""


def _skull_points(game: Any, state: Any, row: int, p: int, skulls: int) -> int:
    """Disaster points the skull row gives the roller p itself (rules 3d)."""
    devs = state.developments[row, p]
    if skulls == data.DROUGHT_SKULLS and not devs[data.IRRIGATION]:
        return data.DROUGHT_POINTS
    if skulls == data.PESTILENCE_SKULLS and game.num_players == 1 and not devs[data.MEDICINE]:
        return data.PESTILENCE_POINTS
    if skulls == data.INVASION_SKULLS and state.monument_progress[row, p, data.GREAT_WALL] < MONUMENT_WORKERS[data.GREAT_WALL]:
        return data.INVASION_POINTS
    return 0


def _player_changes(game: Any, before: Any, after: Any, row: int, p: int) -> str:
    """Everything that changed on player p's sheet."""
    parts = [transition("food", before.food[row, p], after.food[row, p])]
    parts += changes(before.goods[row, p], after.goods[row, p], GOOD_NAMES)
    parts.append(transition("disasters", before.disasters[row, p], after.disasters[row, p]))
    cities_before = int(kernels.cities_of(before.city_workers[row, p]))
    cities_after = int(kernels.cities_of(after.city_workers[row, p]))
    if cities_after != cities_before:
        parts.append(f"city {cities_after} built")
    for m in range(data.NUM_MONUMENTS):
        if after.monument_progress[row, p, m] == MONUMENT_WORKERS[m] > before.monument_progress[row, p, m]:
            parts.append(f"{MONUMENT_NAMES[m]} completed ({int(after.monument_points[row, p, m])} points)")
    new = np.flatnonzero(after.developments[row, p] & ~before.developments[row, p])
    parts += [f"{DEVELOPMENT_NAMES[d]} bought" for d in new]
    return join(parts)


def narrate(game: Any, before: Any, action: int, after: Any, row: int = 0, seat: int | None = None) -> list[str]:
    """Lines describing the step `before` --action--> `after` in row `row` (module docstring)."""
    actor = int(before.to_play[row])
    active = int(before.active[row])
    lines = [move_line(before, row, seat, lambda: game.action_to_str(before, action, row))]
    same_turn = not after.done[row] and int(after.active[row]) == active and int(after.round[row]) == int(before.round[row])
    rerolled = action == ACTION_ROLL or ACTION_LEADERSHIP_REROLL <= action < ACTION_LEADERSHIP_REROLL + data.MAX_DICE
    if rerolled and same_turn:
        which = np.flatnonzero(before.marked[row]) if action == ACTION_ROLL else [action - ACTION_LEADERSHIP_REROLL]
        faces = ", ".join(f"die {i + 1} {FACE_NAMES[int(after.dice[row, i])]}" for i in which)  # dice 1..7
        lines.append(f"{player(active, seat)} rerolls: {faces or 'no die'}; dice now {dice_text(after.dice[row])}")
    elif rerolled:
        lines.append(f"{player(active, seat)} rerolls; the turn ends in this step, so its final dice show only in the results below")
    resolved = int(before.decision[row]) in ROLLING and (not same_turn or int(after.decision[row]) not in ROLLING)
    if resolved:
        # the final dice: still on the table in the same turn, or unchanged by a move that rolls nothing
        final = after.dice[row] if same_turn else before.dice[row] if not rerolled else None
        if final is not None:
            skulls = int((final == data.SKULL).sum())
            lines.append(f"{player(active, seat)}'s dice are final: {dice_text(final)}")
            disaster = disaster_text(game, before, row, active, skulls)
            if disaster:
                lines.append(disaster)
            # rules 3c: each unfed city is one disaster point; the rest of the roller's new points are the skull row's
            own_points = (int(after.disasters[row, active]) - int(before.disasters[row, active])
                          - _skull_points(game, before, row, active, skulls))
            if own_points > 0:
                lines.append(f"famine: {own_points} {'city' if own_points == 1 else 'cities'} unfed, +{own_points} disaster points")
        if same_turn:
            lines.append(f"{player(active, seat)} has {int(after.workers[row])} workers and {int(after.coins[row])} coins to spend")
    lines += player_lines(game.num_players, seat, lambda p: _player_changes(game, before, after, row, p))
    if after.round[row] != before.round[row] and not after.done[row]:
        lines.append(f"round {int(after.round[row])} begins" + (" (the final round)" if after.final_round[row] else ""))
    elif after.final_round[row] and not before.final_round[row]:
        lines.append("the end is triggered: this is the final round")
    if after.done[row]:
        scores = game.scores(after)[row]
        best = scores.max()
        winners = [f"player_{p}" for p in range(game.num_players) if scores[p] == best]
        lines.append("game over" + (" (round limit)" if after.truncated[row] else "") + ": "
                     + score_list(scores, seat)
                     + (f"; best score {' and '.join(winners)}" if game.num_players > 1 else ""))
        return lines
    now = int(after.active[row])
    if now != active or after.round[row] != before.round[row]:
        skipped = [(active + k) % game.num_players for k in range(1, (now - active) % game.num_players)]
        if skipped:
            lines.append("turns without a decision: " + ", ".join(player(p, seat) for p in skipped))
        lines.append(f"{player(now, seat)}'s turn: rolls {dice_text(after.dice[row])}")
    if int(after.to_play[row]) != actor or after.decision[row] != before.decision[row]:
        lines.append(f"now {player(int(after.to_play[row]), seat)} to decide: {DECISION_NAMES[int(after.decision[row])]}")
    return lines
