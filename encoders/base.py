"""Encoder base: a flat float32 vector made of named, reshaped blocks.

An encoder turns a rules `View` (only what one player may see) into a network input. Its layout
is a list of `(name, shape)` blocks laid end to end; `split(vec)` returns them by name, so a layout
can be debugged by name, and `layout_table()` produces the docs table from the same list.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import gymnasium
import numpy as np


class Encoder(ABC):
    """Base class: subclasses set `name`, `blocks` and implement `encode(view) -> (B, size)`."""

    name: str = "encoder"
    blocks: list[tuple[str, tuple[int, ...], str]] = []  # (name, shape, description)
    seat_blocks: tuple[str, ...] = ()  # blocks indexed by relative seat first (slot 0 = viewer)
    dtype = np.float32
    low: float = -1.0
    high: float = 1.0

    def __init__(self) -> None:
        self.slices: dict[str, slice] = {}
        offset = 0
        for name, shape, _ in self.blocks:
            size = int(np.prod(shape))
            self.slices[name] = slice(offset, offset + size)
            offset += size
        self.size = offset
        self.shape = (offset,)

    def space(self) -> gymnasium.spaces.Box:
        """The single-row observation space."""
        return gymnasium.spaces.Box(low=self.low, high=self.high, shape=self.shape, dtype=self.dtype)

    @abstractmethod
    def encode(self, view: Any) -> np.ndarray:
        """(B, size) float32 encoding of a batch of views."""

    def split(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """Named views of an encoded (..., size) array, each reshaped to (..., *shape)."""
        lead = vec.shape[:-1]
        return {name: vec[..., self.slices[name]].reshape(*lead, *shape) for name, shape, _ in self.blocks}

    def layout_table(self) -> str:
        """A Markdown table of the blocks: name, shape, offset range and meaning."""
        rows = ["| Block | Shape | Indices | Meaning |", "|---|---|---|---|"]
        for name, shape, text in self.blocks:
            sl = self.slices[name]
            rows.append(f"| `{name}` | {shape} | {sl.start}..{sl.stop - 1} | {text} |")
        return "\n".join(rows)
