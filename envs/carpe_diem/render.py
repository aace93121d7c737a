"""Text views of Carpe Diem (placeholder, replaced below)."""

from __future__ import annotations

from typing import Any


def action_to_str(game: Any, state: Any, action: int, row: int = 0) -> str:
    return game.action_names[action]


def score_sheet(game: Any, state: Any, row: int = 0) -> str:
    return ""
