"""PettingZoo AEC env `carpe_diem_v0` (see envs/aec.py for the shared behaviour).

    from meeple.envs.carpe_diem.env import env
    e = env(num_players=3, render_mode="ansi")

Rewards arrive when the game ends: rank-based in [-1, 1] by VP, ties broken by the banderole track
(spec 9), or (own VP - best opponent VP) / 100 with reward="score_diff"; final VP are in
`infos[agent]["scores"]`. The observation's `decision` block says which kind of choice is pending.
"""

from __future__ import annotations

from typing import Any

from meeple.envs.aec import BoardGameAEC

NAME = "carpe_diem"


def raw_env(num_players: int = 2, render_mode: str | None = None, **variant: Any) -> BoardGameAEC:
    """The env without action checks beyond the rules: an illegal action raises IllegalActionError."""
    return BoardGameAEC(NAME, num_players=num_players, render_mode=render_mode, illegal_action="raise", **variant)


def env(num_players: int = 2, render_mode: str | None = None, **variant: Any) -> BoardGameAEC:
    """PettingZoo classic's convention: an illegal action ends the game with -1 for the offender."""
    return BoardGameAEC(NAME, num_players=num_players, render_mode=render_mode, illegal_action="terminate", **variant)
