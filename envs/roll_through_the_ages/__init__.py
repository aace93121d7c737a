"""Roll Through the Ages: The Bronze Age (1-4 players, solo and trade variants)."""

from meeple.envs.roll_through_the_ages.rules import Config, RollThroughTheAges, State, View

__all__ = ["Config", "RollThroughTheAges", "State", "View"]
