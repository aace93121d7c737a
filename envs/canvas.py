"""Drawing helpers shared by the games' pictures (`envs/<game>/picture.py`): fonts and a Pillow
`ImageDraw` whose text comes from cached masks.

Rendering a string with FreeType costs ~0.1 ms, and a picture writes 100-300 strings, most of them the
same in every frame (names, labels, small numbers). `Draw.text` renders each (font, string, anchor)
once into an 8-bit mask and afterwards only pastes that mask in the fill colour, which is what makes a
frame fit in a few tens of milliseconds. Pillow is imported here, so only pictures need it.
"""

from __future__ import annotations

from functools import lru_cache, cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

TEXT_CACHE_SIZE = 8192  # distinct (font, string, anchor) masks kept


@cache
def font(size: int) -> Any:
    """Pillow's bundled font at `size` pixels (one object per size, so the text cache can key on it)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType: one fixed size
        return ImageFont.load_default()


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _mask(face: Any, text: str, anchor: str) -> tuple[Any, int, int]:
    """The 8-bit coverage mask of `text` and its offset from the anchor point."""
    left, top, right, bottom = face.getbbox(text, anchor=anchor)
    mask = Image.new("L", (max(1, int(right - left)), max(1, int(bottom - top))), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=face, anchor=anchor)
    return mask, int(left), int(top)


class Draw(ImageDraw.ImageDraw):
    """`ImageDraw.Draw(image)` with cached single-line text (see the module docstring); any other text
    call (several lines, strokes, features) goes to Pillow unchanged."""

    def __init__(self, image: Any) -> None:
        super().__init__(image)
        self.picture = image

    def text(self, xy: Any, text: Any, fill: Any = None, font: Any = None, anchor: str | None = None,  # type: ignore[override]
             *args: Any, **kwargs: Any) -> None:
        if args or kwargs or not isinstance(text, str) or "\n" in text or not isinstance(font, ImageFont.FreeTypeFont):
            super().text(xy, text, fill, font, anchor, *args, **kwargs)
            return
        if not text:
            return
        mask, dx, dy = _mask(font, text, anchor or "la")
        self.picture.paste((0, 0, 0) if fill is None else fill, (round(xy[0]) + dx, round(xy[1]) + dy), mask)
