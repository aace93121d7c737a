"""Drawing helpers shared by the games' pictures (`envs/<game>/picture.py`): fonts and a Pillow
`ImageDraw` whose text comes from cached masks.

Rendering a string with FreeType costs ~0.1 ms, and a picture writes 100-300 strings, most of them the
same in every frame (names, labels, small numbers). `Draw.text` renders each (font, string, anchor)
once into an 8-bit mask and afterwards only pastes that mask in the fill colour, which is what makes a
frame fit in a few tens of milliseconds. Pillow is imported here, so only pictures need it.

Text is at least `MIN_TEXT_PX` pixels: the browser's Play page shows a 1,100 px picture at 0.93-0.96 of
its size in a 1,500 px window, so 13 px stays at least 12 px on screen (tests/test_pictures.py checks
every string every picture draws; the browser test checks the scale). `recording()` collects what a
picture writes and where (`Text`), which the browser app uses to explain the codes a picture shows.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache, cache
from typing import Any, NamedTuple

from PIL import Image, ImageDraw, ImageFont

TEXT_CACHE_SIZE = 8192  # distinct (font, string, anchor) masks kept
MIN_TEXT_PX = 13  # the smallest font a picture uses (module docstring)


class Text(NamedTuple):
    """One string a picture wrote: its text, its box on the picture (left, top, width, height, in
    pixels), its font's size and the font itself (to measure parts of the string)."""

    text: str
    x: int
    y: int
    w: int
    h: int
    size: int
    font: Any


_recorder = threading.local()  # the list `recording()` fills, per thread (the web server is threaded)


@contextmanager
def recording() -> Iterator[list[Text]]:
    """Collect every string the pictures drawn in this block write (in this thread), in order."""
    texts: list[Text] = []
    outer = getattr(_recorder, "texts", None)
    _recorder.texts = texts
    try:
        yield texts
    finally:
        _recorder.texts = outer


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
        texts = getattr(_recorder, "texts", None)
        if args or kwargs or not isinstance(text, str) or "\n" in text or not isinstance(font, ImageFont.FreeTypeFont):
            super().text(xy, text, fill, font, anchor, *args, **kwargs)
            if texts is not None and isinstance(text, str) and text:
                left, top, right, bottom = self.textbbox(xy, text, font=font, anchor=anchor)
                texts.append(Text(text, int(left), int(top), int(right - left), int(bottom - top),
                                  int(getattr(font, "size", 0)), font))
            return
        if not text:
            return
        mask, dx, dy = _mask(font, text, anchor or "la")
        x, y = round(xy[0]) + dx, round(xy[1]) + dy
        self.picture.paste((0, 0, 0) if fill is None else fill, (x, y), mask)
        if texts is not None:
            texts.append(Text(text, x, y, mask.width, mask.height, int(font.size), font))
