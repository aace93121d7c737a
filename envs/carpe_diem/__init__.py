"""Carpe Diem (2-4 players): batched rules core and AEC env."""

from meeple.envs.carpe_diem.rules import CarpeDiem, Config, State, View

__all__ = ["CarpeDiem", "Config", "State", "View"]
