"""The window of render_mode="human": a pygame (SDL2) window showing the game's picture.

The envs (`envs/aec.py`, `envs/vector.py`, `envs/single_agent.py`) make a `Window` when they are built
with render_mode="human" and `show` the same picture "rgb_array" returns after every reset and step;
`close()` closes it. pygame is imported only then (the `render` extra: pip install "meeple[render]").

Without a display (a server, CI) SDL cannot open a window; the window then falls back to SDL's
"dummy" video driver, with a warning, so a human-mode env still runs everywhere. Frames are paced to
`fps` (the env's `metadata["render_fps"]`) only on a real display: under the dummy and offscreen
drivers nobody watches, so waiting would only slow the run down.

SDL has one display per process: several human-mode envs share it, each redrawing it with its own
picture when it steps.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

OFF_SCREEN_DRIVERS = ("dummy", "offscreen")  # SDL video drivers that draw into memory only: no pacing
PYGAME_MISSING = 'render_mode="human" needs pygame (SDL2): pip install "meeple[render]" (or pip install "pygame>=2.5")'


def _pygame() -> Any:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner on stdout at import
    try:
        import pygame
    except ImportError as exc:
        raise ImportError(PYGAME_MISSING) from exc
    return pygame


class Window:
    """A window that shows (H, W, 3) uint8 frames; opened by the first `show`, closed by `close`."""

    def __init__(self, title: str, fps: float) -> None:
        self.pygame = _pygame()  # at construction, so a missing pygame fails when the env is made
        self.title = title
        self.fps = float(fps)
        self._screen: Any = None
        self._clock: Any = None

    @property
    def is_open(self) -> bool:
        return self._screen is not None

    def _open(self, width: int, height: int) -> None:
        pg = self.pygame
        try:
            pg.display.init()
            self._screen = pg.display.set_mode((width, height))
        except pg.error as exc:
            if os.environ.get("SDL_VIDEODRIVER") == "dummy":
                raise
            warnings.warn(f"no display for render_mode='human' ({exc}); drawing off screen (SDL_VIDEODRIVER=dummy)",
                          RuntimeWarning, stacklevel=3)
            pg.display.quit()
            os.environ["SDL_VIDEODRIVER"] = "dummy"
            pg.display.init()
            self._screen = pg.display.set_mode((width, height))
        pg.display.set_caption(self.title)
        self._clock = pg.time.Clock()

    def show(self, frame: np.ndarray) -> None:
        """Draw `frame` in the window (opening it, or resizing it to the frame, as needed)."""
        pg = self.pygame
        height, width = frame.shape[:2]
        # another window of this process (SDL has one display) may have replaced or closed ours
        if self._screen is None or not pg.display.get_init() or pg.display.get_surface() is not self._screen \
                or self._screen.get_size() != (width, height):
            self._open(width, height)
        self._screen.blit(pg.surfarray.make_surface(np.ascontiguousarray(frame.swapaxes(0, 1))), (0, 0))
        pg.event.pump()  # keeps the window responsive (and movable) between frames
        pg.display.flip()
        if pg.display.get_driver() not in OFF_SCREEN_DRIVERS:
            self._clock.tick(self.fps)

    def close(self) -> None:
        """Close the window (a later `show` opens a new one)."""
        if self._screen is not None:
            if self.pygame.display.get_init() and self.pygame.display.get_surface() is self._screen:
                self.pygame.display.quit()
            self._screen = None
            self._clock = None
