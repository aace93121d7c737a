"""Attika (2-4 players): batched rules core and AEC env."""

from meeple.envs.attika.rules import Attika, Config, State, View

__all__ = ["Attika", "Config", "State", "View"]
