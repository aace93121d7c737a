"""Attika (Marcel-André Casasola Merkle, Hans im Glück 2003; the Yucata.de rules), as a batched rules core.

Rules in brief (docs/attika.md): 2-4 players each build a Greek city-state of 30 buildings on a map of
7-hex tiles. A turn is either up to 2 reveals (turn over the top building of an own face-down stack and
build it at once or store it on the display) or up to 3 builds from the display, never both; each
unused action is one landscape card at the end of the turn, a turn without either three. A building
costs its landscape cards less the symbols on its site and the empty fields around it, nothing at all
next to its own predecessor in the building order, and one extra card per own settlement when it
founds a new one; a missing card may be replaced by two any cards. Completing a thematic group
connected earns an amphora (an extra action or a card). Emptying a stack adds a map tile. The first
player to place all 30 buildings, or to connect two shrines with one settlement, wins at once.

Hidden information: the landscape cards in hand (counts are public) and the draw pile. The state is a
struct of numpy arrays with batch axis B, declared once in the field table of `state.py`; the rules live
in numba row kernels (`kernels.py`, batched by the generated `entries.py`) and its consistency rules in
named invariants (`invariants.py`); the lifecycle (init, apply, observe, determinize, validate, save/load)
is `envs.base.RulesBase`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

import numpy as np

from meeple.envs import base, core
from meeple.envs.attika import data, kernels
from meeple.envs.attika.state import State, View  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class Config(base.GameConfig):
    """Variant flags (all JSON-serialisable)."""

    num_players: Annotated[int, base.Range(data.MIN_PLAYERS, data.MAX_PLAYERS)] = 2
    """2-4 players."""
    auto_forced: bool = True
    """Decisions with exactly one legal action (END_TURN with nothing else to do, STORE of a revealed
    building that fits nowhere, the only field or tile centre) are applied without asking."""
    actions: Literal["factored", "flat"] = "factored"
    """"factored" (668 actions: SELECT_TYPE then SLOT for a build, SLOT then ROTATE for a tile) or "flat"
    (19,387 actions: BUILD(type, hex) and PLACE(hex, rotation) in one step each). The same game."""
    payment: Literal["auto", "explicit"] = "auto"
    """"auto": the fewest cards, matching ones first, the rest from the largest pile in hand; "explicit":
    a PAY decision hands over one card (or a two-for-one substitution) at a time."""
    group_connection: Literal["strict", "settlement"] = "strict"
    """When a complete group earns its amphora: "strict" (its members connected among themselves) or
    "settlement" (all of them in one settlement, checked after every own placement)."""
    max_rounds: Annotated[int, base.Range(1, 10_000)] = data.DEFAULT_MAX_ROUNDS
    """Truncation: after this many complete rounds the game ends as a draw (the rules know no stalemate)."""
    reward: Literal["rank", "win_loss"] = "rank"
    """"rank": the winner +1, the others share -1 (zero-sum); "win_loss": the winner +1, every other
    player -1. A truncated game is 0 for everyone either way."""


class Attika(base.RulesBase):
    """The rules core for one configuration; see `meeple.envs.core.Game` for the protocol."""

    # a step that also computes the new mask does both in one pass per row (kernels.apply_mask_row): the
    # mask finds the forced decisions that follow the action
    FUSED_MASK = True

    def configure(self) -> None:
        flat = self.config.actions == "flat"
        self.info = data.info(self.num_players, flat, self.config.max_rounds)
        self.num_actions = self.info.num_actions
        self.action_names = data.action_names(self.num_actions)

    def kernel_config(self) -> dict:
        c = self.config
        return {"auto_forced": bool(c.auto_forced), "flat": c.actions == "flat",
                "explicit_pay": c.payment == "explicit", "group_settlement": c.group_connection == "settlement",
                "max_rounds": int(c.max_rounds)}

    def validate(self, state: State, history: bool = True) -> None:
        """ValueError unless `state` is a position the rules can reach: the base checks (fields, ranges, the
        named invariants of invariants.py, an `InvalidState` naming the first one broken: map, buildings,
        derived fields, flow, tiles, conservation of buildings, cards and amphorae, the winner), then, with
        history, what only a played game guarantees: every field shows its tile's printed symbol, and every
        stack has lost its first building to the setup. history=False skips those two: for positions built
        by hand (tests, tools), such as maps of blank tiles."""
        super().validate(state)
        if not history:
            return
        B = state.done.shape[0]
        rows = np.arange(B)
        for x in range(data.NUM_TILES):
            placed = state.tile_state[:, x] == data.TILE_PLACED
            if not placed.any():
                continue
            centre = state.tile_centre[placed, x].astype(np.int64)
            shown = state.land[rows[placed][:, None], data.FLOWER[centre]]
            if (shown != data.ROTATED_FACE[x, state.tile_rot[placed, x]]).any():
                raise ValueError(f"invalid state: tile {x} does not show its printed face")
        full = state.stack_size >= data.STACK_SIZE[None, None, :]
        if full.any():
            raise ValueError(f"invalid state: a stack larger than after the setup reveals (rows "
                             f"{np.flatnonzero(full.any(axis=(1, 2)))[:5].tolist()})")

    def returns(self, state: State) -> np.ndarray:
        """(B, P) float32 at the end, 0 before: "rank" gives the winner +1 and the others -1 / (P - 1)
        each (zero-sum, like every meeple game); "win_loss" the winner +1 and the others -1. A truncated
        game (no winner) is 0 for everyone."""
        out = super().returns(state)
        if self.config.reward == "win_loss":
            won = (state.winner >= 0) & state.done
            out[won] = np.where(out[won] > 0, 1.0, -1.0).astype(np.float32)
        return out

    def requirement(self, state: State, row: int, player: int, building: int, slot: int) -> tuple[int, ...]:
        """What `player` would pay to put `building` (type id) on window `slot` in row `row`:
        (W, F, H, M specific cards, any cards), the rules' cost before payment. For tools and tests."""
        self.check_state(state)
        if not (0 <= row < state.done.shape[0] and 0 <= player < self.num_players
                and 0 <= building < data.NUM_TYPES and 0 <= slot < data.NUM_SLOTS):
            raise ValueError("row, player, building or slot out of range")
        return tuple(int(x) for x in kernels.requirement(state, row, player, building, slot))


def hex_slot(q: int, r: int) -> int:
    """The window slot of axial hex (q, r) (the SLOT actions address slots)."""
    return data.slot(q, r)


__all__ = ["Attika", "Config", "State", "View", "hex_slot", "core"]
