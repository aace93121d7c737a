"""PettingZoo AEC env `roll_through_the_ages_v0` (see envs/aec.py for the shared behaviour).

    from meeple.envs.roll_through_the_ages.env import env
    e = env(num_players=3, render_mode="ansi")           # trade=True for the trade variant

Rewards arrive when the game ends: rank-based in [-1, 1] by score then goods value (ties share;
solo: the final score); final scores are in `infos[agent]["scores"]`.
"""

from __future__ import annotations

from typing import Any

from meeple.envs.aec import BoardGameAEC

NAME = "roll_through_the_ages"


def raw_env(num_players: int = 2, render_mode: str | None = None, **variant: Any) -> BoardGameAEC:
    """The env without action checks beyond the rules: an illegal action raises IllegalActionError."""
    return BoardGameAEC(NAME, num_players=num_players, render_mode=render_mode, illegal_action="raise", **variant)


def env(num_players: int = 2, render_mode: str | None = None, **variant: Any) -> BoardGameAEC:
    """PettingZoo classic's convention: an illegal action ends the game with -1 for the offender."""
    return BoardGameAEC(NAME, num_players=num_players, render_mode=render_mode, illegal_action="terminate", **variant)
