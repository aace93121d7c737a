"""A person at the terminal, as an Agent: `python evaluate.py --agents human mcts:400`.

For each row where it is to move, `HumanAgent.act` prints the game's text render
(`game.render_text`), numbers the legal actions (`game.action_to_str`) and reads a number from the
input; a bad entry is explained and asked again, `q` (or the end of the input) raises `Quit`. A
decision with a single legal action is announced and taken without asking. The renders show public
information only, so nothing hidden from the seat is printed.

Input and output are injectable, so tests can script a game:

    agent = HumanAgent(input_fn=iter(["0", "2"]).__next__, print_fn=lines.append)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


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

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        """(B,) int64: one typed legal action per unfinished row (finished rows get 0)."""
        mask = np.asarray(game.legal_action_mask(state), dtype=np.bool_)
        out = np.zeros(mask.shape[0], dtype=np.int64)
        for row in np.flatnonzero(~np.asarray(state.done, dtype=np.bool_)):
            out[row] = self.choose(game, state, int(row), np.flatnonzero(mask[row]))
        return out

    def choose(self, game: Any, state: Any, row: int, legal: np.ndarray) -> int:
        """Show row `row` and its legal actions; return the one the person picks."""
        seat = int(np.asarray(state.to_play)[row])
        self.print_fn("\n" + game.render_text(state, row))
        if self.auto_single and len(legal) == 1:
            self.print_fn(f"player_{seat}: only one legal action: {game.action_to_str(state, int(legal[0]), row)}")
            return int(legal[0])
        width = len(str(len(legal) - 1))
        self.print_fn("\n".join(f"  {i:>{width}}  {game.action_to_str(state, int(a), row)}" for i, a in enumerate(legal)))
        prompt = f"player_{seat}, choose 0-{len(legal) - 1} (q quits): "
        while True:
            try:
                line = self.input_fn(prompt).strip()
            except EOFError:
                raise Quit("input ended") from None
            if line.lower() in ("q", "quit", "exit"):
                raise Quit("quit")
            try:
                choice = int(line)
            except ValueError:
                self.print_fn(f"{line!r} is not a number: type the number in front of an action, or q to quit"
                              if line else "type the number in front of an action, or q to quit")
                continue
            if 0 <= choice < len(legal):
                return int(legal[choice])
            self.print_fn(f"{choice} is not in 0-{len(legal) - 1}: type the number in front of an action, or q to quit")
