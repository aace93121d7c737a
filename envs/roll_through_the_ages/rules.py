"""Roll Through the Ages: The Bronze Age, as a batched rules core.

Rules in brief (full rules in docs/roll_through_the_ages.md; they follow the Yucata text): each turn the active
player rolls one die per city (3-7) up to three times, never rerolling skulls (solo: may); Leadership
allows one last reroll. Food/worker dice are decided, then goods (wood first, one unit at a time),
food (cap 15), feeding (1 per city, each unfed city -1) and the skull disaster (2 drought, 3
pestilence on the others, 4 invasion, 5+ revolt) resolve automatically. Workers build cities (4th-7th)
and monuments (first completer scores more); coins plus whole goods tracks buy at most one of 13
developments; goods over 6 are discarded. A 5th development or every monument in play completed ends
the game after the round; the highest score wins, ties by goods value. Solo: 10 rounds. The trade
variant adds a trade step after the disasters (protocol in `data.py` and docs/roll_through_the_ages.md).

The state is a struct of numpy arrays with batch axis B, declared once in the field table of
`state.py`; the rules live in numba kernels (`kernels.py`); the lifecycle (init, apply, observe,
determinize, validate, save/load) is `envs.base.RulesBase`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import numpy as np

from meeple.envs import base
from meeple.envs.roll_through_the_ages import data, kernels
from meeple.envs.roll_through_the_ages.data import GOODS_MAX, MONUMENT_FIRST, MONUMENT_LATER, MONUMENT_WORKERS
from meeple.envs.roll_through_the_ages.state import State, View  # noqa: F401  (re-exported)


PLAYERS = (1, 4)  # the solitaire game and 2-4 players


@dataclass(frozen=True)
class Config(base.GameConfig):
    """Variant flags (all JSON-serialisable)."""

    num_players: Annotated[int, base.Range(*PLAYERS)] = 2
    """1 plays the solo variant (10 rounds); 2-4 the base game."""
    trade: bool = False
    """Enable the trade variant: a trade step after the disasters, before building."""
    max_trade_offers: Annotated[int, base.Range(1, 20)] = data.DEFAULT_MAX_TRADE_OFFERS
    """Offers (proposed or withdrawn) the active player may make per trade step; bounds the game."""
    max_rounds: Annotated[int, base.Range(1, 1000)] = data.DEFAULT_MAX_ROUNDS
    """The game has no natural bound: truncate after this many rounds (reported as truncation, not termination)."""
    solo_standard_end_triggers: bool = False
    """Let a 5th development or all monuments end a solo game early."""

    def check(self) -> None:
        if self.trade and self.num_players == 1:
            raise ValueError("the trade variant needs at least 2 players")


class RollThroughTheAges(base.RulesBase):
    """The rules core for one configuration; see `meeple.envs.core.Game` for the protocol."""

    PLAYERS = PLAYERS

    # dice are int(6 * u[b, k]) in the order they are rolled; u[:, 0] of init picks the start player
    UNIFORMS_AT_INIT = data.UNIFORMS_PER_STEP

    def configure(self) -> None:
        c = self.config
        self.info = data.info(self.num_players, c.trade, c.max_rounds, c.max_trade_offers)
        self.num_actions = self.info.num_actions
        self.action_names = data.action_names(self.num_actions)
        self.monuments_in_play = data.MONUMENTS_IN_PLAY[self.num_players].copy()

    def kernel_config(self) -> dict:
        c = self.config
        return {"in_play": self.monuments_in_play, "trade": c.trade, "max_trade_offers": c.max_trade_offers,
                "max_rounds": c.max_rounds, "solo_standard_end_triggers": c.solo_standard_end_triggers}

    # --- results -----------------------------------------------------------------------------

    def goods_values(self, state: State) -> np.ndarray:
        """(B, P) int32 value of each player's goods (the sum of each track's value), the tie-break."""
        out = np.empty(state.food.shape, dtype=np.int32)
        # a kernel of this game's own, not a generated entry point (run_kernel runs those): one serial call
        self._kernel(kernels.goods_values_nb, "goods_values_nb", out, *state)
        return out

    def tiebreak_key(self, state: State) -> np.ndarray:
        """Ties in score go to the higher goods value; players equal in both share the win."""
        return self.goods_values(state)

    # --- validation ----------------------------------------------------------------------------

    def validate_rules(self, state: State) -> None:
        """The checks that need the configuration or several fields (ranges come from the field table)."""
        B = state.done.shape[0]

        def check(ok: np.ndarray, what: str) -> None:
            if not np.all(ok):
                rows = np.flatnonzero(~np.asarray(ok).reshape(B, -1).all(axis=1))
                raise ValueError(f"invalid state: {what} (rows {rows[:5].tolist()})")

        s = state
        check((s.decision == data.DEC_GAME_OVER) == s.done, "decision GAME_OVER exactly when done")
        check(~s.truncated | s.done, "truncated implies done")
        check(s.round <= max(self.config.max_rounds, data.SOLO_ROUNDS), "round out of range")
        check(s.goods <= GOODS_MAX.astype(np.int8), "goods above a track maximum")
        check(s.monument_progress <= MONUMENT_WORKERS.astype(np.int8), "monument progress out of range")
        check(self.monuments_in_play | (s.monument_progress == 0), "progress on a monument not in play")
        complete = s.monument_progress == MONUMENT_WORKERS
        valid_points = np.where(complete, (s.monument_points == MONUMENT_FIRST) | (s.monument_points == MONUMENT_LATER),
                                s.monument_points == 0)
        check(valid_points, "monument points must be the first/later value when complete, else 0")
        check(s.trade_offers <= self.config.max_trade_offers, "trade_offers out of range")
        # an offer is begun only below the limit, and withdrawing or proposing it counts one more
        check((s.decision != data.DEC_TRADE_OFFER) | (s.trade_offers < self.config.max_trade_offers),
              "trade_offers: an offer being made must be below the per-turn limit")
        rows = np.arange(B)
        me = s.active.astype(np.int64)
        P = self.num_players
        # reachable maxima: per round a player suffers at most the worse of drought and invasion on its
        # own turn and a pestilence on every other player's turn; the cap is over the longest game,
        # so the int16 count cannot wrap whatever is loaded
        per_round = max(data.DROUGHT_POINTS, data.INVASION_POINTS) + data.PESTILENCE_POINTS * (P - 1)
        check(s.disasters <= per_round * max(self.config.max_rounds, data.SOLO_ROUNDS), "more disaster points than a game allows")
        check(s.coins <= data.MAX_DICE * data.COINS_PER_DIE_MAX, "more coins than seven dice roll")
        check(s.workers <= data.MAX_DICE * data.WORKERS_PER_DIE_MAX + data.ENGINEERING_WORKERS_PER_STONE * int(GOODS_MAX[data.STONE]),
              "more workers than dice and Engineering give")
        live = ~s.done
        dec = s.decision
        # who decides: the active player, except a trade partner answering an offer (trade variant)
        responding = dec == data.DEC_TRADE_RESPOND
        check(~live | (s.to_play == np.where(responding, s.trade_partner, s.active)), "to_play is not the seat that decides")
        trading = (dec == data.DEC_TRADE) | (dec == data.DEC_TRADE_OFFER) | responding
        if not self.config.trade:
            check(~trading & (s.trade_partner == -1), "trade state in a game without the trade variant")
        offering = (dec == data.DEC_TRADE_OFFER) | responding
        check((s.trade_partner >= 0) == (live & offering), "a trade partner exactly while an offer is open")
        check(s.trade_partner != s.active, "the trade partner is the active player")
        open_offer = (s.offer_give > 0).any(axis=1) | (s.offer_take > 0).any(axis=1)
        check(~open_offer | (live & offering), "offered goods outside an open offer")
        check((s.offer_give == 0) | (s.offer_take == 0), "a good both given and asked for")
        partner = np.maximum(s.trade_partner, 0).astype(np.int64)
        hold = np.concatenate([s.goods, s.food[:, :, None]], axis=2).astype(np.int64)  # (B, P, 6) trade holdings
        mine, theirs = hold[rows, me], hold[rows, partner]
        give, take = s.offer_give.astype(np.int64), s.offer_take.astype(np.int64)
        check((give <= mine) & (take <= theirs), "an offer gives or asks more than is held")
        check((theirs + give <= data.TRADE_MAX) & (mine + take <= data.TRADE_MAX), "an offer would push a track past its maximum")
        buying = live & (dec == data.DEC_BUY)
        check(buying | ((s.marked_food == 0) & ~s.marked_goods.any(axis=1)), "payment marked outside the buy decision")
        check((s.marked_food == 0) | s.developments[rows, me, data.GRANARIES], "food marked as payment without Granaries")
        check(s.marked_food <= s.food[rows, me], "marked food exceeds food")
        check(~s.marked_goods | (s.goods[rows, me] > 0), "a marked goods track is empty")
        check(~s.leadership_used | s.developments[rows, me, data.LEADERSHIP], "Leadership used without Leadership")
        check(~(live & (dec == data.DEC_LEADERSHIP)) | (s.developments[rows, me, data.LEADERSHIP] & ~s.leadership_used),
              "a Leadership decision without an unused Leadership")
        rolling = live & ((dec == data.DEC_ROLL) | (dec == data.DEC_LEADERSHIP))
        check(~rolling[:, None] | (s.fw_choice == 0), "a food-or-workers choice before the dice are final")
        check((s.bought < 0) | s.developments[rows, me, np.maximum(s.bought, 0)], "the development bought is not owned")
        check((s.fw_choice == 0) | (s.dice == data.FW2), "a food-or-workers choice on another face")
        complete = (s.monument_progress == MONUMENT_WORKERS).any(axis=1)
        check(~complete | s.completed_by_anyone, "a completed monument must be completed_by_anyone")
