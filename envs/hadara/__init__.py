"""Hadara (2-5 players, basic and advanced game): batched rules core and AEC env."""

from meeple.envs.hadara.rules import Config, Hadara, State, View

__all__ = ["Config", "Hadara", "State", "View"]
