"""What a step of Carpe Diem did, in words (`game.narrate(before, action, after)`).

Only fountain cards are secret: which kind a player draws, keeps or returns is told to that seat
alone; everyone else reads counts ("returns a fountain card", "fountain cards 1 -> 2"). The rest is
public and comes from comparing the two states: the patrician's move, the tile taken and where it
was built (with the features it completed and the frame tasks it satisfied), goods, coins, bread,
VP and banderole-track changes, scoring discs, refilled depots, and the phase, round and player to
move; the final scores at the end (they count the fountain cards, which the end reveals).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs.carpe_diem import data
from meeple.envs.carpe_diem.data import DECISION_NAMES, FEATURE_NAMES, GOOD_NAMES, NUM_SPACES, TILE_NAMES
from meeple.envs.carpe_diem.render import FOUNTAIN_TEXT
from meeple.envs.textview import changes, join, move_line, player, player_lines, score_list, transition


# what another reader sees of a secret move: the kind of card returned is the actor's secret
SECRETS = {data.DEC_FOUNTAIN_RETURN: "returns a fountain card to the bottom of the deck"}


def _player_changes(before: Any, after: Any, row: int, p: int) -> str:
    """Everything public that changed for player p."""
    parts = []
    for cell in np.flatnonzero(after.cell_tile[row, p] != before.cell_tile[row, p]):
        t = int(after.cell_tile[row, p, cell])
        if t >= 0:
            parts.append(f"builds {TILE_NAMES[t]} on ({cell // 6}, {cell % 6}) turned {int(after.cell_rot[row, p, cell])}")
    if after.stored[row, p] > before.stored[row, p]:
        parts.append("stores a tile face down")
    done = changes(before.completed[row, p], after.completed[row, p], FEATURE_NAMES)
    if done:
        parts.append("completes " + ", ".join(done))
    tasks = np.flatnonzero(after.task_done[row, p] & ~before.task_done[row, p])
    if tasks.size:
        parts.append(f"{tasks.size} frame task{'s' if tasks.size > 1 else ''} satisfied")
    parts += changes(before.goods[row, p], after.goods[row, p], GOOD_NAMES)
    parts += [transition("coins", before.coins[row, p], after.coins[row, p]),
              transition("bread", before.bread[row, p], after.bread[row, p]),
              transition("VP", before.vp[row, p], after.vp[row, p]),
              transition("track space", before.track[row, p], after.track[row, p]),
              transition("chimneys", before.chimneys[row, p], after.chimneys[row, p]),
              transition("fountain cards", before.fountain_hand[row, p].sum(), after.fountain_hand[row, p].sum())]
    if after.patrician[row, p] != before.patrician[row, p] and after.patrician[row, p] >= 0:
        parts.append(f"patrician to space {int(after.patrician[row, p])}")
    return join(parts)


def narrate(game: Any, before: Any, action: int, after: Any, row: int = 0, seat: int | None = None) -> list[str]:
    """Lines describing the step `before` --action--> `after` in row `row` (module docstring)."""
    P = game.num_players
    actor = int(before.to_play[row])
    decision = int(before.decision[row])
    lines = [move_line(before, row, seat, lambda: game.action_to_str(before, action, row), SECRETS)]
    t = int(after.tile_pending[row])
    if t >= 0 and t != int(before.tile_pending[row]):
        lines.append(f"{player(int(after.to_play[row]), seat)} holds tile {TILE_NAMES[t]} to build")
    for sp in np.flatnonzero(after.circle_owner[row] != before.circle_owner[row]):
        owner = int(after.circle_owner[row, sp])
        if owner >= 0:
            lines.append(f"{player(owner, seat)} puts a scoring disc on circle space {sp}")
    lines += player_lines(P, seat, lambda p: _player_changes(before, after, row, p))
    refilled = [d for d in range(NUM_SPACES) if (after.depot[row, d] >= 0).sum() > (before.depot[row, d] >= 0).sum()]
    if refilled:
        lines.append("new tiles in depots " + ", ".join(str(d) for d in refilled))
    if seat is not None and int(after.to_play[row]) == seat and after.fountain_drawn[row, 0] >= 0 \
            and not np.array_equal(after.fountain_drawn[row], before.fountain_drawn[row]):
        lines.append("you draw fountain cards: " + "; ".join(FOUNTAIN_TEXT[int(k)] for k in after.fountain_drawn[row] if k >= 0))
    if after.done[row]:
        lines.append("game over: final VP " + score_list(game.scores(after)[row], seat))
        return lines
    if after.phase[row] != before.phase[row]:
        lines.append(f"phase {int(after.phase[row]) + 1}/4 begins; start player player_{int(after.start_player[row])}")
    if after.round[row] != before.round[row]:
        rnd = int(after.round[row])
        lines.append("scoring round" if rnd >= data.ROUNDS_PER_PHASE else f"round {rnd + 1}/7")
    if int(after.to_play[row]) != actor or after.decision[row] != decision:
        lines.append(f"now {player(int(after.to_play[row]), seat)} to play: {DECISION_NAMES[int(after.decision[row])]}")
    return lines
