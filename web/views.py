"""What the replay viewer and the play sessions share: request checking, pictures as PNG, game options.

Nothing here trusts its input: a seat, a step or an agent spec from a request is checked against the
game and the server's own limits before it reaches the rules core, and every refusal is an `ApiError`
carrying the HTTP status the app answers with (4xx, with a message meant for the person at the browser).
"""

from __future__ import annotations

import io
import re
import functools
from typing import Any

import numpy as np

from meeple.envs import list_games, make, player_range
from meeple.web.errors import ApiError



def png_bytes(picture: np.ndarray) -> bytes:
    """An (H, W, 3) uint8 picture encoded as PNG (fast compression: pictures are made per request)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(picture, dtype=np.uint8), "RGB").save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def draws_picture(game: Any) -> bool:
    """True if the game has a drawn picture (`render_rgb`); otherwise the pages show `render_text`."""
    return "rgb_array" in game.render_modes()


def parse_seat(raw: str | None, num_players: int) -> int | None:
    """A view seat from a query string: absent, "" or "spectator" is None, else a seat number 0..P-1."""
    if raw is None or raw in ("", "spectator"):
        return None
    if not re.fullmatch(r"[0-9]{1,2}", raw) or int(raw) >= num_players:
        raise ApiError(400, f"seat must be 'spectator' or a seat number 0..{num_players - 1}, got {raw[:20]!r}")
    return int(raw)


def player_counts(game_name: str) -> list[int]:
    """The player counts game `game_name` allows (its rules class's PLAYERS, as in `meeple games`)."""
    lo, hi = player_range(game_name)
    return list(range(lo, hi + 1))


@functools.cache
def game_options() -> list[dict]:
    """One entry per registered game for the play form: name, allowed player counts, default count,
    and whether it draws a picture (the same for the server's life: computed once)."""
    out = []
    for name in list_games():
        counts = player_counts(name)
        default = 2 if 2 in counts else counts[0]
        out.append({"name": name, "players": counts, "default_players": default,
                    "picture": draws_picture(make(name, num_players=default))})
    return out


def replay_chart(game_name: str, states: Any, scores: np.ndarray) -> dict:
    """What the replay page charts over a record, per game: the running scores, except for Attika, which is
    won or lost (its score is 0 or 1 at the end): there, each player's progress toward the win by building
    all 30 buildings (the other way to win, connecting two shrines, shows in the narration)."""
    if game_name == "attika":
        from meeple.envs.attika.data import BUILDINGS_PER_PLAYER

        P = scores.shape[1]
        return {"title": f"Buildings placed (all {BUILDINGS_PER_PLAYER} win; so do two shrines connected)",
                "series": np.asarray(states.placed)[:, :P].astype(int).tolist(), "high": BUILDINGS_PER_PLAYER}
    return {"title": "Scores", "series": scores.astype(int).tolist(), "high": None}
