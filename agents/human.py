"""A person at the terminal, as an Agent: `meeple evaluate --agents human mcts:400`.

Before each decision `HumanAgent.act` prints, for the row to move:

- what happened since the person's last move: the narration (`game.narrate`) of every step it was
  told about through `watch` (pass `agent.watch` as `play_games(..., after_step=...)`), as the
  person's seat may see it: public information plus its own hidden cards, never another player's;
- the board from the person's seat (`game.render_text(state, row, seat)`, which fits a 40-line
  terminal and shows the seat's own hidden information);
- the legal moves with stable ids: the id of a move is its action index (the same move keeps its
  number from one decision to the next), followed by what it does in words (`game.action_to_str`);
  when there are many, only their engine names (`game.action_names`), in columns (`l` lists them
  with their words).

The person types a move's id, its words or its engine name (case-insensitive), or a prefix of them
that only one legal move has. Commands: `d` the detail view of the board (the game's long
score sheet), `l` the moves with descriptions, `?` or `h` help, `q` quit (as does the end of the
input: both raise `Quit`). A bad entry is explained and asked again. A decision with a single legal
move is announced and taken without asking.

Input and output are injectable, so tests can script a game:

    agent = HumanAgent(input_fn=iter(["ROLL", "17"]).__next__, print_fn=lines.append)
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.textview import TERMINAL_WIDTH

# above this many legal moves the list shows names only, in columns, to keep the screen short
MAX_DESCRIBED_MOVES = 16

HELP = """Type a move's id (the number in front of it), its words or its name, or the start of them if
only one legal move starts that way (case does not matter).
  d      the detail view of the board
  l      the legal moves with their descriptions
  ? / h  this help
  q      quit the game"""


class Quit(Exception):
    """The person asked to stop (typed `q`, or the input ended)."""


class HumanAgent:
    """Moves typed at the terminal (module docstring).

    Args:
        input_fn: reads one line given a prompt (default `input`); EOFError counts as quitting.
        print_fn: writes one block of text (default `print`).
        auto_single: take a decision with a single legal action without asking.
    """

    name = "human"

    def __init__(self, input_fn: Callable[[str], str] | None = None, print_fn: Callable[[str], Any] | None = None,
                 auto_single: bool = True) -> None:
        self.input_fn = input_fn if input_fn is not None else input
        self.print_fn = print_fn if print_fn is not None else print
        self.auto_single = auto_single
        self.unseen: list[tuple[Any, int, Any]] = []  # (before, action, after) of row 0 since the last decision

    def watch(self, game: Any, before: Any, actions: np.ndarray, after: Any, owner: np.ndarray) -> None:
        """`play_games` after_step hook: remember row 0's step, to narrate it before the next decision."""
        if owner[0] >= 0:
            self.unseen.append((core.take(before, 0), int(actions[0]), core.take(after, 0)))

    def catch_up(self, game: Any, seat: int | None) -> None:
        """Print the narration of the steps watched since the last decision, as `seat` may see them."""
        lines = [line for before, action, after in self.unseen for line in game.narrate(before, action, after, 0, seat=seat)]
        self.unseen.clear()
        if lines:
            self.print_fn("\n".join(["--- since your last move ---", *lines]))

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        """(B,) int64: one typed legal action per unfinished row (finished rows get 0)."""
        mask = np.asarray(game.legal_action_mask(state), dtype=np.bool_)
        out = np.zeros(mask.shape[0], dtype=np.int64)
        for row in np.flatnonzero(~np.asarray(state.done, dtype=np.bool_)):
            out[row] = self.choose(game, state, int(row), np.flatnonzero(mask[row]))
        return out

    def moves_text(self, game: Any, state: Any, row: int, legal: np.ndarray, describe: bool) -> str:
        """The legal moves as 'id  words' lines, or as 'id NAME' columns."""
        width = len(str(int(legal.max())))
        if describe:
            return "\n".join(f"  {int(a):>{width}}  {game.action_to_str(state, int(a), row)}" for a in legal)
        cells = [f"{int(a):>{width}} {game.action_names[a]}" for a in legal]
        cell = max(map(len, cells)) + 2
        per_line = max(1, (TERMINAL_WIDTH - 2) // cell)
        return "\n".join("  " + "".join(c.ljust(cell) for c in cells[i:i + per_line]).rstrip()
                         for i in range(0, len(cells), per_line))

    def parse(self, game: Any, line: str, legal: np.ndarray, state: Any = None, row: int = 0) -> int | str:
        """The legal action `line` names (id, engine name, or with `state` its words in row `row`; or a prefix
        of them that one legal move alone has), or an explanation why none."""
        if line.isdigit():
            a = int(line)
            if a in legal:
                return a
            ids = ", ".join(str(int(x)) for x in legal[:12]) + (" ..." if len(legal) > 12 else "")
            return f"{a} is not a legal move now (legal ids: {ids})"
        key = line.lower()
        names = {int(a): [game.action_names[a].lower()] for a in legal}
        if state is not None:
            for a in names:
                names[a].append(game.action_to_str(state, a, row).lower())
        exact = [a for a, ns in names.items() if key in ns]
        if exact:
            return exact[0]
        starts = [a for a, ns in names.items() if any(n.startswith(key) for n in ns)]
        if len(starts) == 1:
            return starts[0]
        if starts:
            some = ", ".join(game.action_names[a] for a in starts[:6])
            return f"{line!r} starts {len(starts)} legal moves ({some}): type more of it"
        return f"{line!r} is not a legal move: type an id or a move from the list (? for help)"

    def choose(self, game: Any, state: Any, row: int, legal: np.ndarray) -> int:
        """Show row `row` from the mover's seat and its legal moves; return the one the person picks."""
        seat = int(np.asarray(state.to_play)[row])
        self.catch_up(game, seat)
        self.print_fn("\n" + game.render_text(state, row, seat=seat))
        if self.auto_single and len(legal) == 1:
            self.print_fn(f"player_{seat}: only one legal move: {game.action_to_str(state, int(legal[0]), row)}")
            return int(legal[0])
        self.print_fn(self.moves_text(game, state, row, legal, describe=len(legal) <= MAX_DESCRIBED_MOVES))
        prompt = f"player_{seat}, your move (id or name; d detail, l list, ? help, q quit): "
        while True:
            try:
                line = self.input_fn(prompt).strip()
            except EOFError:
                raise Quit("input ended") from None
            command = line.lower()
            if command in ("q", "quit", "exit"):
                raise Quit("quit")
            if command in ("?", "h", "help"):
                self.print_fn(HELP)
                continue
            if command == "d":
                render = import_module(game.render_module)
                self.print_fn(render.score_sheet(game, state, row, seat=seat, detail=True))
                continue
            if command == "l":
                self.print_fn(self.moves_text(game, state, row, legal, describe=True))
                continue
            if not line:
                self.print_fn("type a move's id or name (? for help)")
                continue
            choice = self.parse(game, line, legal, state, row)
            if isinstance(choice, str):
                self.print_fn(choice)
                continue
            return int(choice)
