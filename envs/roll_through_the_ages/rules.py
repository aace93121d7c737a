"""Roll Through the Ages: The Bronze Age, as a batched rules core.

Rules in brief (../shared/rules/roll_through_the_ages.md, from the Yucata text): each turn the active
player rolls one die per city (3-7) up to three times, never rerolling skulls (solo: may); Leadership
allows one last reroll. Food/worker dice are decided, then goods (wood first, one unit at a time),
food (cap 15), feeding (1 per city, each unfed city -1) and the skull disaster (2 drought, 3
pestilence on the others, 4 invasion, 5+ revolt) resolve automatically. Workers build cities (4th-7th)
and monuments (first completer scores more); coins plus whole goods tracks buy at most one of 13
developments; goods over 6 are discarded. A 5th development or every monument in play completed ends
the game after the round; the highest score wins, ties by goods value. Solo: 10 rounds. The trade
variant adds a trade step after the disasters (protocol in `data.py` and docs/roll_through_the_ages.md).

The state is a struct of numpy arrays with batch axis B (`State`); the rules live in numba kernels
(`kernels.py`), this module orchestrates them and keeps `apply` pure by copying once per call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from meeple.envs import core
from meeple.envs.roll_through_the_ages import data, kernels
from meeple.envs.roll_through_the_ages.data import (
    CITY_WORKERS_MAX, FOOD_MAX, GOODS_MAX, MAX_DICE, MONUMENT_FIRST, MONUMENT_LATER,
    MONUMENT_WORKERS, NUM_DEVELOPMENTS, NUM_GOODS, NUM_MONUMENTS, NUM_DECISIONS, NUM_TRADE_TYPES,
    UNIFORMS_PER_STEP,
)


@dataclass(frozen=True)
class Config:
    """Variant flags (all JSON-serialisable)."""

    num_players: int = 2
    """1 plays the solo variant (spec 8.1); 2-4 the base game."""
    trade: bool = False
    """Enable the trade variant (spec 8.2): a trade step after the disasters, before building."""
    max_trade_offers: int = data.DEFAULT_MAX_TRADE_OFFERS
    """Offers (proposed or withdrawn) the active player may make per trade step; bounds the game."""
    max_rounds: int = data.DEFAULT_MAX_ROUNDS
    """D-25: truncate after this many rounds (reported as truncation, not termination)."""
    solo_standard_end_triggers: bool = False
    """D-17: let a 5th development or all monuments end a solo game early."""

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, (int, np.integer)) or not 1 <= self.num_players <= 4:
            raise ValueError(f"num_players must be 1..4, got {self.num_players!r}")
        if self.trade and self.num_players == 1:
            raise ValueError("the trade variant needs at least 2 players")
        if not isinstance(self.max_trade_offers, (int, np.integer)) or not 1 <= self.max_trade_offers <= 20:
            raise ValueError(f"max_trade_offers must be 1..20, got {self.max_trade_offers!r}")
        if not isinstance(self.max_rounds, (int, np.integer)) or not 1 <= self.max_rounds <= 1000:
            raise ValueError(f"max_rounds must be 1..1000, got {self.max_rounds!r}")
        for flag in ("trade", "solo_standard_end_triggers"):
            if not isinstance(getattr(self, flag), (bool, np.bool_)):
                raise ValueError(f"{flag} must be a bool, got {getattr(self, flag)!r}")


class State(NamedTuple):
    """Batched game state; every field has the batch axis first. P = num_players."""

    to_play: np.ndarray            # (B,) int8 seat that decides now: the active seat, or a trade partner
    active: np.ndarray             # (B,) int8 seat whose turn it is
    start_player: np.ndarray       # (B,) int8 seat that starts every round (spec 3.3)
    decision: np.ndarray              # (B,) int8 data.PHASE_*
    round: np.ndarray              # (B,) int16 round number, 1-based
    final_round: np.ndarray        # (B,) bool the end was triggered; the game ends after this round
    done: np.ndarray               # (B,) bool the game is over (terminated or truncated)
    truncated: np.ndarray          # (B,) bool ended by the round limit (D-25), not by the rules
    completed_by_anyone: np.ndarray  # (B, 7) bool monument m was completed by some player
    food: np.ndarray               # (B, P) int8 0..15
    goods: np.ndarray              # (B, P, 5) int8 wood..spearheads, 0..GOODS_MAX
    city_workers: np.ndarray       # (B, P) int8 0..18; cities = 3 + thresholds {3,7,12,18} reached
    monument_progress: np.ndarray  # (B, P, 7) int8 boxes filled, 0..MONUMENT_WORKERS
    monument_points: np.ndarray    # (B, P, 7) int8 first/later value recorded at completion, else 0
    developments: np.ndarray       # (B, P, 13) bool owned
    disasters: np.ndarray          # (B, P) int16 disaster points (each -1 at the end)
    dice: np.ndarray               # (B, 7) int8 face 0..5 of the active player's dice, -1 = no die
    marked: np.ndarray             # (B, 7) bool marked for the next reroll
    rolls_used: np.ndarray         # (B,) int8 1..3
    leadership_used: np.ndarray    # (B,) bool
    fw_choice: np.ndarray          # (B, 7) int8 per FW2 die: 0 undecided, 1 food, 2 workers
    workers: np.ndarray            # (B,) int8 workers left to place this turn
    coins: np.ndarray              # (B,) int16 coins rolled this turn
    marked_goods: np.ndarray       # (B, 5) bool goods tracks marked as payment
    marked_food: np.ndarray        # (B,) int8 food marked as payment (Granaries)
    bought: np.ndarray             # (B,) int8 development bought this turn, -1 none
    trade_partner: np.ndarray      # (B,) int8 seat of the open offer's partner, -1 none
    offer_give: np.ndarray         # (B, 6) int8 units the active player offers (5 goods, food)
    offer_take: np.ndarray         # (B, 6) int8 units the active player asks for
    trade_offers: np.ndarray       # (B,) int8 offers made this turn


class View(NamedTuple):
    """What `viewer` sees. Roll Through the Ages has no hidden information (spec 9): all of it."""

    viewer: np.ndarray  # (B,) int8 observing seat
    state: State


_FIELD_SPECS: dict[str, tuple[tuple[str, ...], type]] = {
    # name: (trailing shape symbols, dtype); "P" = players
    "to_play": ((), np.int8), "active": ((), np.int8), "start_player": ((), np.int8),
    "decision": ((), np.int8), "round": ((), np.int16), "final_round": ((), np.bool_),
    "done": ((), np.bool_), "truncated": ((), np.bool_), "completed_by_anyone": (("7",), np.bool_),
    "food": (("P",), np.int8), "goods": (("P", "5"), np.int8), "city_workers": (("P",), np.int8),
    "monument_progress": (("P", "7"), np.int8), "monument_points": (("P", "7"), np.int8),
    "developments": (("P", "13"), np.bool_), "disasters": (("P",), np.int16),
    "dice": (("7",), np.int8), "marked": (("7",), np.bool_), "rolls_used": ((), np.int8),
    "leadership_used": ((), np.bool_), "fw_choice": (("7",), np.int8), "workers": ((), np.int8),
    "coins": ((), np.int16), "marked_goods": (("5",), np.bool_), "marked_food": ((), np.int8),
    "bought": ((), np.int8), "trade_partner": ((), np.int8), "offer_give": (("6",), np.int8),
    "offer_take": (("6",), np.int8), "trade_offers": ((), np.int8),
}
assert tuple(_FIELD_SPECS) == State._fields


def _scratch() -> tuple[np.ndarray, np.ndarray]:
    """Per-call scratch for the kernels' dice cursor and fallback stream (kernels never allocate)."""
    return np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint64)


class RollThroughTheAges(core.GameBase):
    """The rules core for one configuration; see `meeple.envs.core.Game` for the protocol."""

    render_module = "meeple.envs.roll_through_the_ages.render"

    State = State
    View = View

    def __init__(self, num_players: int = 2, **variant: object) -> None:
        self.config = Config(num_players=num_players, **variant)  # type: ignore[arg-type]
        self.num_players = self.config.num_players
        self.info = data.info(self.num_players, self.config.trade, self.config.max_rounds,
                              self.config.max_trade_offers)
        self.num_actions = self.info.num_actions
        self.uniforms_per_step = UNIFORMS_PER_STEP
        self.monuments_in_play = data.MONUMENTS_IN_PLAY[self.num_players].copy()
        self._kernel_config = (self.monuments_in_play, self.config.trade, self.config.max_trade_offers,
                               self.config.max_rounds, self.config.solo_standard_end_triggers)
        self.action_names = data.action_names(self.num_actions)

    def __repr__(self) -> str:
        return f"RollThroughTheAges({self.config})"

    # --- lifecycle ---------------------------------------------------------------------------

    def empty(self, batch: int) -> State:
        """An all-zero state of the right shapes (not a valid position by itself)."""
        P = self.num_players
        sizes = {"P": P}
        return State(*(np.zeros((batch, *(sizes.get(d) or int(d) for d in dims)), dtype=dt)
                       for dims, dt in _FIELD_SPECS.values()))

    def init(self, rng: np.random.Generator, batch: int = 1) -> State:
        """New games: random start player (spec 3.3) and the start player's first roll."""
        return self.init_from_uniforms(rng.random((batch, self.uniforms_per_step)))

    def init_from_uniforms(self, u: np.ndarray) -> State:
        """Deterministic `init`: u[:, 0] picks the start player, u[:, 1:] are the first dice."""
        u = self._check_uniforms(u, None)
        state = self.empty(u.shape[0])
        kernels.init_nb(state, u, *_scratch(), *self._kernel_config)
        return state

    def legal_action_mask(self, state: State) -> np.ndarray:
        """(B, A) bool legal actions of the seat in `to_play`; all True in finished rows."""
        mask = np.empty((state.done.shape[0], self.num_actions), dtype=np.bool_)
        kernels.legal_action_mask_nb(state, mask, self.monuments_in_play, self.config.max_trade_offers)
        return mask

    def step(self, state: State, actions: np.ndarray, rng: np.random.Generator) -> State:
        """Apply one legal action per row, drawing the dice from `rng`."""
        return self.apply(state, actions, rng.random((state.done.shape[0], self.uniforms_per_step)))

    def apply(self, state: State, actions: np.ndarray, u: np.ndarray) -> State:
        """Deterministic step: dice are int(6 * u[b, k]) in the order they are rolled."""
        new = core.clone(state)
        self.apply_inplace(new, actions, u)
        return new

    def apply_inplace(self, state: State, actions: np.ndarray, u: np.ndarray) -> None:
        """`apply` without the copy, for owners of the state (the AEC env, the self-play env)."""
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        u = self._check_uniforms(u, state.done.shape[0])
        if actions.shape[0] != state.done.shape[0]:
            raise ValueError(f"expected {state.done.shape[0]} actions, got {actions.shape[0]}")
        kernels.apply_nb(state, actions, u, *_scratch(), *self._kernel_config)

    def advance(self, state: State, u: np.ndarray | None = None) -> State:
        """Run only the automatic phases from a hand-built position (tests, tools); pure."""
        new = core.clone(state)
        if u is None:
            u = np.full((state.done.shape[0], self.uniforms_per_step), 0.5)
        kernels.advance_nb(new, self._check_uniforms(u, state.done.shape[0]), *_scratch(), *self._kernel_config)
        return new

    def _check_uniforms(self, u: np.ndarray, batch: int | None) -> np.ndarray:
        u = np.asarray(u, dtype=np.float64)
        if u.ndim != 2 or u.shape[1] < 1 or (batch is not None and u.shape[0] != batch):
            raise ValueError(f"u must have shape (B, K) with B = {batch}, got {u.shape}")
        return u

    # --- results -----------------------------------------------------------------------------

    def scores(self, state: State) -> np.ndarray:
        """(B, P) int32 current score of every player (spec 6.2), final once done."""
        out = np.empty(state.food.shape, dtype=np.int32)
        kernels.scores_nb(state, out)
        return out

    def goods_values(self, state: State) -> np.ndarray:
        """(B, P) int32 value of each player's goods (spec 2.3), the tie-break (spec 7)."""
        out = np.empty(state.food.shape, dtype=np.int32)
        kernels.goods_values_nb(state, out)
        return out

    def returns(self, state: State) -> np.ndarray:
        """(B, P) float32 rewards at the end, 0 before.

        2-4 players: rank-based in [-1, 1] by (score, goods value) (spec 7): each player gets
        (opponents beaten - opponents beating them) / (P - 1), so a sole winner gets +1, ties share
        and a row sums to 0. Solo: the final score itself (there is nobody to rank against).
        Truncated games (D-25) are ranked on the scores reached.
        """
        scores = self.scores(state)
        if self.num_players == 1:
            out = scores.astype(np.float32)
        else:
            out = core.rank_returns(scores, self.goods_values(state))
        out[~state.done] = 0.0
        return out

    # --- information -------------------------------------------------------------------------

    def observe(self, state: State, player: int | np.ndarray) -> View:
        """Everything is public in this game (spec 9); the view only records who is looking."""
        viewer = np.broadcast_to(np.asarray(player, dtype=np.int8), state.done.shape)
        return View(np.ascontiguousarray(viewer), state)

    def determinize(self, state: State, player: int | np.ndarray, rng: np.random.Generator) -> State:
        """No hidden information: every consistent state is the state itself (a copy)."""
        return core.clone(state)

    # --- validation and persistence ----------------------------------------------------------

    def validate(self, state: State) -> None:
        """Raise ValueError if `state` breaks a rule invariant (used when loading saved states)."""
        if not isinstance(state, State):
            raise ValueError(f"expected a {__name__}.State, got {type(state).__name__}")
        B = state.done.shape[0]
        P = self.num_players
        for (name, (dims, dt)), value in zip(_FIELD_SPECS.items(), state):
            shape = (B, *(P if d == "P" else int(d) for d in dims))
            if value.shape != shape or value.dtype != dt:
                raise ValueError(f"field {name!r}: shape {value.shape} {value.dtype}, expected {shape} {np.dtype(dt)}")

        def check(ok: np.ndarray, what: str) -> None:
            if not np.all(ok):
                rows = np.flatnonzero(~np.asarray(ok).reshape(B, -1).all(axis=1))
                raise ValueError(f"invalid state: {what} (rows {rows[:5].tolist()})")

        s = state
        for name in ("to_play", "active", "start_player"):
            check((getattr(s, name) >= 0) & (getattr(s, name) < P), f"{name} must be a seat 0..{P - 1}")
        check((s.decision >= 0) & (s.decision < NUM_DECISIONS), "phase out of range")
        check((s.decision == data.DEC_GAME_OVER) == s.done, "phase GAME_OVER exactly when done")
        check(~s.truncated | s.done, "truncated implies done")
        check((s.round >= 1) & (s.round <= max(self.config.max_rounds, data.SOLO_ROUNDS)), "round out of range")
        check((s.food >= 0) & (s.food <= FOOD_MAX), "food must be 0..15")
        check((s.goods >= 0) & (s.goods <= GOODS_MAX.astype(np.int8)), "goods above a track maximum or negative")
        check((s.city_workers >= 0) & (s.city_workers <= CITY_WORKERS_MAX), "city_workers must be 0..18")
        check((s.monument_progress >= 0) & (s.monument_progress <= MONUMENT_WORKERS.astype(np.int8)),
              "monument progress out of range")
        check(self.monuments_in_play | (s.monument_progress == 0)[..., :], "progress on a monument not in play")
        complete = s.monument_progress == MONUMENT_WORKERS
        valid_points = np.where(complete, (s.monument_points == MONUMENT_FIRST) | (s.monument_points == MONUMENT_LATER),
                                s.monument_points == 0)
        check(valid_points, "monument points must be the first/later value when complete, else 0")
        check(~complete.any(axis=1) | s.completed_by_anyone, "a completed monument must be completed_by_anyone")
        check(s.disasters >= 0, "disaster points must be >= 0")
        check((s.dice >= -1) & (s.dice <= 5), "dice faces must be -1..5")
        check((s.fw_choice >= 0) & (s.fw_choice <= 2), "fw_choice must be 0..2")
        check((s.rolls_used >= 0) & (s.rolls_used <= 3), "rolls_used must be 0..3")
        check(s.workers >= 0, "workers must be >= 0")
        check(s.coins >= 0, "coins must be >= 0")
        check((s.bought >= -1) & (s.bought < NUM_DEVELOPMENTS), "bought must be -1..12")
        check((s.trade_partner >= -1) & (s.trade_partner < P), "trade_partner must be -1 or a seat")
        check((s.offer_give >= 0) & (s.offer_take >= 0), "offers must be >= 0")
        check((s.trade_offers >= 0) & (s.trade_offers <= self.config.max_trade_offers), "trade_offers out of range")
        check((s.marked_food >= 0) & (s.marked_food <= s.food[np.arange(B), s.active]), "marked food exceeds food")
        if not self.config.trade:
            check(s.trade_partner == -1, "trade state in a game without the trade variant")
        if NUM_GOODS != 5 or NUM_MONUMENTS != 7 or MAX_DICE != 7 or NUM_TRADE_TYPES != 6:
            raise AssertionError("data tables changed shape; update State")
