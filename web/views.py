"""What the replay viewer and the play sessions share: request checking, pictures as PNG, game options.

Nothing here trusts its input: a seat, a step or an agent spec from a request is checked against the
game and the server's own limits before it reaches the rules core, and every refusal is an `ApiError`
carrying the HTTP status the app answers with (4xx, with a message meant for the person at the browser).
"""

from __future__ import annotations

import importlib
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from meeple.envs import GAMES, list_games, make

# Agent specs a browser may ask for. `human` is left out on purpose: the person at the browser is the
# only human at the table, and a HumanAgent would wait for input at the server's terminal.
PLAYABLE_AGENTS = ("random", "heuristic", "mcts:200")
MAX_SPEC_LENGTH = 200
# The server runs an opponent's search inside the request; 2,000 simulations already take ~10 s a move here,
# so a larger number would let one request occupy a core for minutes.
MAX_MCTS_SIMULATIONS = 2000
MAX_MODELS_LISTED = 200
MAX_PLAYERS_TRIED = 8  # player counts looked for in a game's Config (no game allows more)


class ApiError(Exception):
    """A refused request: `status` is the HTTP status (4xx), the message says why in plain words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


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
    """The player counts game `game_name` allows (its Config's checks decide, as in `meeple games`)."""
    module, cls = GAMES[game_name].rules.split(":")
    config = getattr(importlib.import_module(module), cls).Config
    counts = []
    for p in range(1, MAX_PLAYERS_TRIED + 1):
        try:
            config(num_players=p)
        except ValueError:
            continue
        counts.append(p)
    return counts


def game_options() -> list[dict]:
    """One entry per registered game for the play form: name, allowed player counts, default count,
    and whether it draws a picture."""
    out = []
    for name in list_games():
        counts = player_counts(name)
        default = 2 if 2 in counts else counts[0]
        out.append({"name": name, "players": counts, "default_players": default,
                    "picture": draws_picture(make(name, num_players=default))})
    return out


# model files by agent kind: PPO models (SB3 zips) and expert-iteration nets (safetensors layout)
MODEL_SUFFIX = {"ppo": ".zip", "net": ".safetensors", "search": ".safetensors"}


def list_models(models_dir: Path | None) -> list[str]:
    """Agent specs of the model files under the models folder: `ppo:<path>` for *.zip, and `net:<path>` and
    `search:<path>:sims=200` for *.safetensors (paths relative to models_dir)."""
    if models_dir is None or not models_dir.is_dir():
        return []
    root = models_dir.resolve()
    specs: list[str] = []
    for pattern in ("*.zip", "*.safetensors"):
        for path in sorted(root.rglob(pattern)):
            if len(specs) >= MAX_MODELS_LISTED:
                return specs
            resolved = path.resolve()
            if resolved.is_file() and resolved.is_relative_to(root):
                name = path.relative_to(root).as_posix()
                specs += [f"ppo:{name}"] if pattern == "*.zip" else [f"net:{name}", f"search:{name}:sims=200"]
    return specs


@dataclass(frozen=True)
class AgentChoice:
    """A checked agent spec: `label` is what the browser sent (the seat's name in records), `spec` what
    `make_agent` gets (for ppo:, the model's real path inside the models folder)."""

    label: str
    spec: str


def check_agent_spec(raw: Any, models_dir: Path | None) -> AgentChoice:
    """The agent spec a browser asked for, refused (ApiError 400) unless it is random, heuristic, mcts:N
    with N up to MAX_MCTS_SIMULATIONS (options as `make_agent` takes them), or ppo:<model>, net:<model> or
    search:<model>[:sims=N,...] naming a model file inside the server's models folder (N up to
    MAX_MCTS_SIMULATIONS). Specs that pass are built by `make_agent` afterwards, which checks the rest."""
    if not isinstance(raw, str) or not raw or len(raw) > MAX_SPEC_LENGTH:
        raise ApiError(400, f"an agent spec is a string of 1 to {MAX_SPEC_LENGTH} characters")
    kind, _, rest = raw.partition(":")
    if raw in ("random", "heuristic"):
        return AgentChoice(raw, raw)
    if kind == "mcts":
        simulations = rest.partition(":")[0]
        if simulations and (not simulations.isdigit() or int(simulations) > MAX_MCTS_SIMULATIONS):
            raise ApiError(400, f"agent spec {raw!r}: mcts takes 1..{MAX_MCTS_SIMULATIONS} simulations here")
        return AgentChoice(raw, raw)
    if kind in MODEL_SUFFIX:
        # A ppo: model is loaded with SB3's loader, which unpickles parts of it; net files are checked field
        # by field but are still files: only what the person who started the server put in the models
        # folder may be named, never an arbitrary path.
        if models_dir is None:
            raise ApiError(400, f"this server has no models folder (meeple serve --models DIR), so no {kind}: agents")
        options = ""
        if kind == "search":
            from meeple.agents.net import split_spec

            try:
                _, rest, parsed = split_spec(raw)
            except ValueError as exc:
                raise ApiError(400, str(exc)[:300]) from None
            sims = parsed.get("sims", "")
            if sims and (not sims.isdigit() or not 1 <= int(sims) <= MAX_MCTS_SIMULATIONS):
                raise ApiError(400, f"agent spec {raw!r}: search takes sims=1..{MAX_MCTS_SIMULATIONS} here")
            options = ":" + ",".join(f"{k}={v}" for k, v in parsed.items()) if parsed else ""
        elif kind == "net" and ":" in rest:
            rest, _, tail = rest.rpartition(":")
            options = ":" + tail
        root = models_dir.resolve()
        if not rest or "\x00" in rest or Path(rest).is_absolute():
            raise ApiError(400, f"agent spec {raw!r}: name a model as {kind}:<path inside the models folder>")
        target = (root / rest).resolve()
        if not target.is_relative_to(root) or target.suffix != MODEL_SUFFIX[kind] or not target.is_file():
            raise ApiError(400, f"agent spec {raw!r}: no such model in the models folder; available: "
                                f"{', '.join(list_models(models_dir)[:10]) or 'none'}")
        return AgentChoice(raw, f"{kind}:{target}{options}")
    raise ApiError(400, f"unknown agent spec {raw!r}; choose random, heuristic, mcts:N, or ppo:, net: or search: "
                        "with a model")


def build_agent(choice: AgentChoice, game_name: str, config: dict) -> Any:
    """`make_agent` for a checked spec; its refusals (a bad mcts option, a model for another game) and a
    missing extra become ApiError 400 instead of a server error."""
    from meeple.agents import make_agent

    variant = {k: v for k, v in config.items() if k != "num_players"}
    try:
        return make_agent(choice.spec, game_name, config["num_players"], **variant)
    except ModuleNotFoundError as exc:
        raise ApiError(400, f"agent {choice.label!r} needs {exc.name}, which this server has not installed "
                            "(the train extra: pip install 'meeple[train]')") from None
    except (ValueError, TypeError) as exc:
        raise ApiError(400, f"agent {choice.label!r}: {str(exc).replace(choice.spec, choice.label)}"[:500]) from None
    except Exception as exc:  # a model file SB3 cannot read (not a zip, another library version) is a bad choice too
        if not choice.spec.startswith(("ppo:", "net:", "search:")):
            raise
        raise ApiError(400, f"agent {choice.label!r}: the model could not be loaded ({type(exc).__name__})") from None
