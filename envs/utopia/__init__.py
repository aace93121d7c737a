"""Utopia (2-5 players): batched rules core and AEC env."""

from meeple.envs.utopia.rules import Config, State, Utopia, View

__all__ = ["Config", "State", "Utopia", "View"]
