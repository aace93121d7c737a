"""Helpers shared by the games' text views (`envs/<game>/render.py`) and narrations (`envs/<game>/narration.py`).

A terminal shows at most `TERMINAL_WIDTH` columns and `TERMINAL_LINES` lines: the default text view
of every game fits both, the detail view (`score_sheet(..., detail=True)`) may be longer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

TERMINAL_WIDTH = 100
TERMINAL_LINES = 40

# break points in order of preference: between list items first, then between words
_BREAKS = ("; ", ", ", "  ", " ")


def wrap_line(line: str, width: int = TERMINAL_WIDTH, indent: str = "    ") -> list[str]:
    """`line` cut into pieces of at most `width` columns at item or word boundaries; continuation
    pieces start with `indent` (a word longer than a line is cut where it must be)."""
    out: list[str] = []
    rest = line
    while len(rest) > width:
        cut = -1
        for sep in _BREAKS:
            cut = rest.rfind(sep, len(indent) + 1, width)
            if cut > 0:
                cut += len(sep.rstrip())
                break
        if cut <= 0:
            cut = width
        out.append(rest[:cut].rstrip())
        rest = indent + rest[cut:].lstrip()
    out.append(rest)
    return out


def fit_width(lines: Iterable[str], width: int = TERMINAL_WIDTH) -> list[str]:
    """Every line wrapped to `width` columns (`wrap_line`)."""
    return [piece for line in lines for piece in wrap_line(line, width)]


def player(p: int, seat: int | None = None) -> str:
    """'player_p', with ' (you)' when p is the viewer's seat."""
    return f"player_{p}" + (" (you)" if seat is not None and p == seat else "")


def seat_marks(state: Any, row: int, p: int, *extra: tuple[str, Any], start: str = "start") -> list[str]:
    """The marks beside player p's name: `start` for the start player, "to play" for the seat to play in a
    game that is not over, then the mark of every (mark, on) of `extra` that is on ("WINNER", "you")."""
    marks = [start] if p == int(state.start_player[row]) else []
    if p == int(state.to_play[row]) and not state.done[row]:
        marks.append("to play")
    return marks + [mark for mark, on in extra if on]


def move_line(before: Any, row: int, seat: int | None, move: Callable[[], str],
              secrets: Mapping[int, str] | None = None) -> str:
    """The line a step's narration opens with: 'player_a: <move()>', a being the seat to play in `before`.
    `secrets` maps the decision kinds whose choice is the actor's secret to what any other reader (another
    seat or a spectator) reads instead: 'player_a <secret>'. `move` is called only when its text is read."""
    actor = int(before.to_play[row])
    secret = (secrets or {}).get(int(before.decision[row]))
    if secret is not None and actor != seat:
        return f"{player(actor, seat)} {secret}"
    return f"{player(actor, seat)}: {move()}"


def player_lines(num_players: int, seat: int | None, describe: Callable[[int], str]) -> list[str]:
    """'player_b: <describe(p)>' for each player, in seat order, whose `describe(p)` (what changed for them
    in the step) is not empty."""
    return [f"{player(p, seat)}: {text}" for p in range(num_players) if (text := describe(p))]


def score_list(scores: Sequence[int] | np.ndarray, seat: int | None, order: Iterable[int] | None = None,
               detail: Callable[[int], str] | None = None) -> str:
    """'player_0 12, player_1 (you) 9': every player's final score, in seat order or `order`, each followed
    by `detail(p)` when given (e.g. ' VP (3 coins)')."""
    seats = range(len(scores)) if order is None else order
    return ", ".join(f"{player(p, seat)} {int(scores[p])}" + (detail(p) if detail else "") for p in seats)


def amounts(values: Sequence[int] | np.ndarray, names: Sequence[str]) -> str:
    """'2 wood, 1 stone' for the nonzero entries of `values` (`-` when all are zero)."""
    parts = [f"{int(v)} {names[i]}" for i, v in enumerate(values) if v]
    return ", ".join(parts) or "-"


def changes(before: Sequence[int] | np.ndarray, after: Sequence[int] | np.ndarray, names: Sequence[str]) -> list[str]:
    """'wood +1', 'stone -2': the entries that differ, signed, in index order."""
    return [f"{names[i]} {int(a) - int(b):+d}" for i, (b, a) in enumerate(zip(before, after)) if a != b]


def transition(name: str, before: int, after: int) -> str:
    """'coins 3 -> 7' ('' when equal)."""
    return f"{name} {int(before)} -> {int(after)}" if before != after else ""


def join(parts: Iterable[str]) -> str:
    """The non-empty parts, comma separated."""
    return ", ".join(p for p in parts if p)
