"""What a step of Utopia did, in words (`game.narrate(before, action, after)`).

The action cards in a hand are secret: a seat reads the civilizations of the cards it draws,
everyone else only how many ("cards 3 -> 5"); a card played or discarded goes face up, so the move
itself is public. The rest comes from comparing the two states: princes added, moved and removed,
monuments and wonders, the prestige scale, points by source, privileges, the guests on the ships,
the round, the phase, the player to move and the final ranking.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs.textview import changes, join, move_line, player, player_lines, score_list, transition
from meeple.envs.utopia import data, render
from meeple.envs.utopia.data import CIV_NAMES, DECISION_NAMES, DISTRICT_CODES, GAIN_NAMES, ISLAND_NAMES, NUM_CIVS


def _player_changes(before: Any, after: Any, row: int, p: int, seat: int | None) -> str:
    """Everything p's seat may show about player p: princes, points, cards, privileges."""
    parts = []
    diff = after.princes[row, p].astype(int) - before.princes[row, p]  # (civ, district)
    for sign, what, where in ((1, "added", "on"), (-1, "removed", "from")):
        moved = [f"{CIV_NAMES[c]} x{abs(int(diff[c, d]))} {where} {DISTRICT_CODES[d]}" for c, d in zip(*np.nonzero(sign * diff > 0))]
        if moved:
            parts.append(f"princes {what}: " + ", ".join(moved))
    gains = changes(before.gains[row, p], after.gains[row, p], GAIN_NAMES)
    if gains:
        parts.append(f"points {int(before.score[row, p])} -> {int(after.score[row, p])} ({', '.join(gains)})")
    if p == seat:  # the seat's own cards by civilization
        drawn = np.maximum(after.hand[row, p].astype(int) - before.hand[row, p], 0)
        if drawn.sum():
            parts.append("you draw " + " ".join(f"{CIV_NAMES[c]} {int(n)}" for c, n in enumerate(drawn) if n))
    parts.append(transition("cards", before.hand_size[row, p], after.hand_size[row, p]))
    parts.append(transition("privileges", before.privileges[row, p], after.privileges[row, p]))
    return join(parts)


def narrate(game: Any, before: Any, action: int, after: Any, row: int = 0, seat: int | None = None) -> list[str]:
    """Lines describing the step `before` --action--> `after` in row `row` (module docstring)."""
    P = game.num_players
    actor = int(before.to_play[row])
    # the move as played (it was legal, so no legality check, which would read the actor's hidden hand)
    lines = [move_line(before, row, seat, lambda: render.describe(game, before, row, action))]
    for d in np.flatnonzero(after.mon_civ[row] != before.mon_civ[row]):
        if after.mon_civ[row, d] >= 0:
            lines.append(f"{CIV_NAMES[int(after.mon_civ[row, d])]} monument on {DISTRICT_CODES[d]}, "
                         f"controlled by {player(int(after.mon_owner[row, d]), seat)}")
    for i in np.flatnonzero(after.wonder_owner[row] != before.wonder_owner[row]):
        if after.wonder_owner[row, i] >= 0:
            lines.append(f"{player(int(after.wonder_owner[row, i]), seat)} takes the wonder of {ISLAND_NAMES[i]}")
    scale = changes(before.scale[row], after.scale[row], CIV_NAMES)
    if scale:
        lines.append("prestige scale: " + ", ".join(scale) + " (now " + " ".join(f"{CIV_NAMES[c]} {int(after.scale[row, c])}"
                                                                                   for c in range(NUM_CIVS)) + ")")
    lines += player_lines(P, seat, lambda p: _player_changes(before, after, row, p, seat))
    if after.done[row]:
        order = sorted(range(P), key=lambda p: (-int(after.score[row, p]), int(after.stamp[row, p])))
        lines.append(("game over (round cap)" if after.truncated[row] else "game over") + ": "
                     + score_list(after.score[row], seat, order))
        return lines
    if after.round[row] != before.round[row]:
        lines.append(f"round {int(after.round[row])} begins; first player player_{int(after.start_player[row])}")
    if after.display[row].sum() > before.display[row].sum():
        guests = "; ".join(f"{ISLAND_NAMES[i]} " + " ".join(f"{CIV_NAMES[c]}x{int(n)}" for c, n in enumerate(after.display[row, i]) if n)
                           for i in range(data.NUM_ISLANDS) if after.display[row, i].any())
        lines.append(f"new guests by the ships: {guests}")
    if after.phase[row] != before.phase[row]:
        lines.append(f"phase {int(after.phase[row]) + 1}: {data.PHASE_NAMES[int(after.phase[row])]}")
    if int(after.to_play[row]) != actor or after.decision[row] != before.decision[row]:
        lines.append(f"now {player(int(after.to_play[row]), seat)} to play: {DECISION_NAMES[int(after.decision[row])]}")
    return lines
