"""Hadara (Benjamin Schwer, Hans im Glück 2019; the Yucata.de rules), as a batched rules core.

Rules in brief (more in docs/hadara.md): 2-5 players build civilisations on four
tracks (income, military, culture, food) over 3 epochs. Phase A: the start player (by initiative)
sets the wheel; in 5 simultaneous rounds every player draws 2 hidden cards of the colour at their
emblem, discards one face-up to that colour's outer pile and buys (price minus own cards of that
colour) or sells (2/3/4 coins by epoch) the other; then Income (coins = income track), Take a
colony (military requirement; plunder for coins or ally for the hidden back's values) and Carve a
bust (culture requirement, a bonus tile front = steps or back = VP). Phase B: 5 turns each taking
the top card of any outer pile to buy or sell, then Income, colony, bust, Feeding (food >= cards or
remove cards, which undoes everything they gave) and Buy seals (silver: half a track; gold: 7 per
5-colour set). Purple cards add the 18 abilities of data.ABILITY_NAMES (starred ones only in the advanced game,
where start-card sides are chosen too). Most VP wins; ties by coins, then shared.

Simultaneity is modelled as sequential hidden commitments (draft and start-card sides): `pending` is private, only
`committed` is public, and everything is revealed and resolved when the last player commits.
The state is a struct of numpy arrays with batch axis B, declared once in the field table of
`state.py`; the rules live in numba kernels (`kernels.py`); the lifecycle (init, apply, observe,
determinize, validate, save/load) is `envs.base.RulesBase`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

import numpy as np

from meeple.envs import base
from meeple.envs.hadara import data
from meeple.envs.hadara.state import INNER_SLOTS, PILE_SLOTS, SOLD_SLOTS, State, View  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class Config(base.GameConfig):
    """Variant flags (all JSON-serialisable)."""

    num_players: Annotated[int, base.Range(data.MIN_PLAYERS, data.MAX_PLAYERS)] = 2
    """2-5 players."""
    advanced: bool = False
    """Advanced game: starred purple cards are shuffled in and start-card sides are chosen."""
    random_board_order: bool = False
    """Shuffle the clockwise colour order of the board segments at reset."""
    pile_view: Literal["full", "top"] = "full"
    """Observation of the outer piles: "full" shows every outer pile bottom->top, "top" only the top cards."""
    auto_forced: bool = True
    """Decisions with exactly one legal action are applied without asking."""
    reward: Literal["rank", "score_diff"] = "rank"
    """"rank": core.rank_returns by (VP, coins) in [-1, 1]; "score_diff": (own VP - best opponent VP) / 100."""


class Hadara(base.RulesBase):
    """The rules core for one configuration; see `meeple.envs.core.Game` for the protocol.

    determinize: per dealt epoch and colour, the cards the player has not seen (not in a tableau,
    outer pile or the public discard, not in its own pair or own face-down sales) are shuffled into
    the unseen slots: the inner stack, other players' current pairs and face-down sales of that colour;
    the rest is in the box (not stored). Other players' pending commitments are redrawn uniformly among
    the options legal for their new pair (side choice: uniform A/B). Per colony tier, every back nobody
    has seen (stack and plundered colonies, one's own included) is reshuffled.
    """

    def configure(self) -> None:
        self.info = data.info(self.num_players, bool(self.config.advanced))
        self.num_actions = data.NUM_ACTIONS
        self.action_names = data.action_names(data.NUM_ACTIONS)
        if self.config.advanced:
            self.deck_cards, self.deck_count = data.EPOCH_COLOUR_CARDS, data.EPOCH_COLOUR_COUNT
        else:  # setup: the basic game removes the starred purple cards
            self.deck_cards, self.deck_count = data.BASIC_EPOCH_COLOUR_CARDS, data.BASIC_EPOCH_COLOUR_COUNT

    def kernel_config(self) -> dict:
        c = self.config
        return {"advanced": bool(c.advanced), "random_board": bool(c.random_board_order),
                "auto_forced": bool(c.auto_forced), "pile_top": c.pile_view == "top",
                "deck_cards": self.deck_cards, "deck_count": self.deck_count}

    def tiebreak_key(self, state: State) -> np.ndarray:
        """Ties in VP go to the player with more coins; equal VP and coins share.

        reward="rank" deviates on purpose from the rules' +1 per winner / -1 to the rest: it is the
        suite's convention and keeps rows zero-sum."""
        return state.coins.astype(np.int32)
