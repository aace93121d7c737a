"""Types shared by every game: GameInfo, the rules-core protocol, and state utilities.

A game is a `Game` object (one per configuration) over a struct-of-arrays `State` NamedTuple whose
every field has a leading batch axis B. The protocol below is what the AEC env, the encoders, the
agents, the self-play env and the generic tests rely on; nothing else about a game is assumed.

Saved states are plain JSON (never pickle): {"format", "game", "config", "fields": {name: nested
lists}}. Loading checks the game, the config, every field's presence, shape and range, and the
game's own consistency rules (`Game.validate`) before anything is returned.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

import numpy as np

from meeple.envs.jit import SPLITMIX_GOLDEN, splitmix_uniforms

SAVE_FORMAT = "meeple-state-v1"

StateT = TypeVar("StateT", bound=tuple)


class GameInfo(NamedTuple):
    """Static facts about one game configuration (after OpenSpiel's `_GAME_INFO`)."""

    name: str
    num_players: int
    num_actions: int
    max_game_length: int  # an upper bound on decisions (steps) in one game
    has_chance: bool
    has_hidden_information: bool
    # filled in by the rules base from the rules class and its field table (envs/base.py)
    min_players: int = 0  # the player counts the game's rules allow: min_players..max_players
    max_players: int = 0
    hidden_fields: tuple[str, ...] = ()  # state fields not every seat may see (PRIVATE or HIDDEN)
    render_modes: tuple[str, ...] = ("ansi",)  # what the AEC env can render: "ansi", and a picture
    encoder_kinds: tuple[str, ...] = ()  # the encoders offered by name, the default first; () if only the default
    fused_mask: bool = False  # a step that also returns the next mask does both in one pass over each row


class Rules(Protocol):
    """The rules verbs every game implements (all through `envs.base.RulesBase`) and the AEC env, the
    vector envs, the encoders, the agents, search and the generic tests rely on.

    B = batch, P = players, A = actions, K = uniforms per step.
    """

    info: GameInfo  # static facts of this configuration: players, actions, the player range, hidden fields
    config: Any  # frozen dataclass of the variant flags (JSON-serialisable)
    num_players: int
    num_actions: int  # A
    uniforms_per_step: int  # K: `step` draws (B, K) uniforms for `apply`
    action_names: tuple[str, ...]  # A names, the docs' action table
    State: type  # NamedTuple of (B, ...) arrays generated from the game's field table
    View: type  # NamedTuple: the viewer seat, the public fields and the game's view fields

    def empty(self, batch: int) -> Any: ...  # all-zero state of the right shapes (a template)
    def init(self, rng: np.random.Generator, batch: int) -> Any: ...
    def init_from_uniforms(self, u: np.ndarray) -> Any: ...  # deterministic init, u (B, >= 1)
    def legal_action_mask(self, state: Any) -> np.ndarray: ...  # (B, A) bool; all True when done
    def step(self, state: Any, actions: np.ndarray, rng: np.random.Generator) -> Any: ...
    def apply(self, state: Any, actions: np.ndarray, u: np.ndarray) -> Any: ...  # pure; u (B, K) in [0, 1)
    def apply_inplace(self, state: Any, actions: np.ndarray, u: np.ndarray) -> None: ...
    # every step checks legality on a mask it computes for the state it is given; an owner that steps the
    # same games again and again keeps the mask each step returns instead (`batch`, envs/batch.py)
    def step_inplace(self, state: Any, actions: np.ndarray, rng: np.random.Generator) -> None: ...
    def batch(self, rng: np.random.Generator, size: int = 1, state: Any = None) -> Any: ...  # an owner: envs/batch.py
    def advance(self, state: Any, u: np.ndarray | None = None) -> Any: ...  # automatic steps of a hand-built position
    def returns(self, state: Any) -> np.ndarray: ...  # (B, P) float32, 0 until done
    def scores(self, state: Any) -> np.ndarray: ...  # (B, P) int, the game's own score
    def tiebreak_key(self, state: Any) -> np.ndarray: ...  # (B, P): higher wins a tie in score
    def observe(self, state: Any, player: int | np.ndarray) -> Any: ...  # View: only what player sees
    def determinize(self, state: Any, player: int | np.ndarray, rng: np.random.Generator) -> Any: ...
    def validate(self, state: Any) -> None: ...  # raises ValueError on an unreachable state
    def to_dict(self, state: Any) -> dict: ...  # JSON-ready save
    def from_dict(self, payload: object) -> Any: ...  # validated load


class Views(Protocol):
    """What a person reads: actions in words in a position, text and pictures of a row, narration of a step.
    `seat` None shows what a spectator sees (public information only); seat p adds what player p alone
    may see, never another player's."""

    def action_to_str(self, state: Any, action: int, row: int = 0) -> str: ...
    def render_text(self, state: Any, row: int = 0, seat: int | None = None) -> str: ...
    def render_modes(self) -> list[str]: ...
    def render_rgb(self, state: Any, row: int = 0, seat: int | None = None) -> np.ndarray: ...
    def narrate(self, before: Any, action: int, after: Any, row: int = 0, seat: int | None = None) -> list[str]: ...
    # the chance inside one step: its outcomes with their probabilities, and the outcome of a played step
    def chance_outcomes(self, state: Any, action: int, row: int = 0) -> list[tuple[str, float]]: ...
    def chance_outcome(self, before: Any, action: int, after: Any, row: int = 0) -> str | None: ...


class Game(Rules, Views, Protocol):
    """A game: its rules verbs and its views (one `envs.base.RulesBase` subclass per game)."""


def action_names_from_groups(groups: tuple, num_actions: int, fields: Any = None) -> tuple[str, ...]:
    """Names of actions 0..num_actions-1 from a game's ACTION_GROUPS.

    Each group is (first index, count, name pattern, phase, meaning); the pattern is formatted with
    `fields(i)` for the i-th action of the group (default: {"i": i, "k": i + 1}).
    """
    names: list[str] = []
    for first, count, pattern, _, _ in groups:
        if first >= num_actions:
            break
        assert first == len(names), "ACTION_GROUPS must be contiguous"
        for i in range(count):
            names.append(pattern.format(**(fields(i) if fields else {"i": i, "k": i + 1})))
    assert len(names) == num_actions
    return tuple(names)


def clone(state: StateT) -> StateT:
    """A deep copy of a batched state."""
    return type(state)(*(np.copy(field) for field in state))


def take(state: StateT, rows: Any) -> StateT:
    """The sub-batch `rows` (an index array or slice) of a state, as a new state."""
    if isinstance(rows, (int, np.integer)):
        rows = [int(rows)]
    return type(state)(*(np.ascontiguousarray(field[rows]) for field in state))


def concatenate(states: list[StateT]) -> StateT:
    """Stack several batched states of the same game along the batch axis."""
    return type(states[0])(*(np.concatenate(fields, axis=0) for fields in zip(*states)))


def batch_size(state: tuple) -> int:
    return int(state[0].shape[0])


def states_equal(a: tuple, b: tuple) -> bool:
    """True if every field of the two states is identical (shape, dtype and values)."""
    return all(x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, b))


def rank_returns(primary: np.ndarray, secondary: np.ndarray) -> np.ndarray:
    """(B, P) float32 rank rewards in [-1, 1]: (opponents beaten - opponents beating) / (P - 1).

    Players compare by `primary`, then `secondary`; exact ties count as neither, so tied players
    share and every row sums to 0.
    """
    P = primary.shape[1]
    p_i, p_j = primary[:, :, None], primary[:, None, :]
    s_i, s_j = secondary[:, :, None], secondary[:, None, :]
    beats = (p_i > p_j) | ((p_i == p_j) & (s_i > s_j))
    net = beats.sum(axis=2) - beats.sum(axis=1)
    return (net / max(P - 1, 1)).astype(np.float32)


def extend_uniforms(u: np.ndarray, width: int) -> np.ndarray:
    """u (B, K) -> (B, width): the extra columns come from a splitmix64 stream per row, seeded from u[:, -1]."""
    out = np.empty((u.shape[0], width), dtype=np.float64)
    out[:, :u.shape[1]] = u
    state = (u[:, -1] * 9007199254740992.0).astype(np.uint64) ^ SPLITMIX_GOLDEN
    out[:, u.shape[1]:] = splitmix_uniforms(state, width - u.shape[1])
    return out


# --- save / load ---------------------------------------------------------------------------

def state_to_dict(game: Game, state: tuple) -> dict:
    """A JSON-ready dict of a batched state: plain lists, no pickled objects."""
    return {
        "format": SAVE_FORMAT,
        "game": game.info.name,
        "config": asdict(game.config),
        "fields": {name: np.asarray(value).tolist() for name, value in zip(state._fields, state)},
    }


def state_from_dict(game: Game, data: Any, template: tuple) -> tuple:
    """Rebuild and validate a state saved by `state_to_dict`.

    Args:
        game: the game the state must belong to (its name and config must match).
        data: the parsed JSON object.
        template: a state of this game (any batch size) giving field names, dtypes and trailing shapes.
    Raises:
        ValueError: naming the first problem found; nothing is returned for a bad input.
    """
    if not isinstance(data, dict):
        raise ValueError("saved state must be a JSON object")
    if data.get("format") != SAVE_FORMAT:
        raise ValueError(f"saved state has format {data.get('format')!r}, expected {SAVE_FORMAT!r}")
    if data.get("game") != game.info.name:
        raise ValueError(f"saved state is for game {data.get('game')!r}, not {game.info.name!r}")
    if data.get("config") != asdict(game.config):
        raise ValueError(f"saved config {data.get('config')!r} differs from this game's {asdict(game.config)!r}")
    fields = data.get("fields")
    if not isinstance(fields, dict):
        raise ValueError("saved state has no 'fields' object")
    missing = [n for n in template._fields if n not in fields]
    extra = [n for n in fields if n not in template._fields]
    if missing or extra:
        raise ValueError(f"saved state fields mismatch: missing {missing}, unexpected {extra}")
    arrays = []
    batch = None
    for name, like in zip(template._fields, template):
        try:
            raw = np.asarray(fields[name])
        except (ValueError, TypeError, RecursionError) as exc:  # ragged, non-numeric or absurdly nested lists
            raise ValueError(f"field {name!r} is not a rectangular array: {type(exc).__name__}") from None
        if raw.size == 0 and raw.ndim >= 1 and raw.shape[0] == 0:  # B = 0: JSON keeps no trailing shape
            raw = raw.reshape((0, *like.shape[1:]))
        if raw.dtype == object or raw.ndim != like.ndim:
            raise ValueError(f"field {name!r} has {raw.ndim} dims, expected {like.ndim}")
        if raw.shape[1:] != like.shape[1:]:
            raise ValueError(f"field {name!r} has shape {raw.shape}, expected (B, *{like.shape[1:]})")
        batch = raw.shape[0] if batch is None else batch
        if raw.shape[0] != batch:
            raise ValueError(f"field {name!r} has batch {raw.shape[0]}, other fields have {batch}")
        if raw.size and not np.issubdtype(raw.dtype, np.number) and raw.dtype != np.bool_:
            raise ValueError(f"field {name!r} holds non-numeric values")
        if like.dtype == np.bool_:
            if raw.size and not np.isin(raw, (0, 1, True, False)).all():
                raise ValueError(f"field {name!r} must hold booleans")
        else:
            if raw.size and not np.all(np.equal(np.mod(raw, 1), 0)):
                raise ValueError(f"field {name!r} must hold integers")
            info = np.iinfo(like.dtype)
            if raw.size and (raw.min() < info.min or raw.max() > info.max):
                raise ValueError(f"field {name!r} has values outside {like.dtype}")
        arrays.append(np.ascontiguousarray(raw.astype(like.dtype)))
    state = type(template)(*arrays)
    game.validate(state)
    return state


def save_state(game: Game, state: tuple, path: str | Path) -> None:
    """Write a batched state to a JSON file."""
    Path(path).write_text(json.dumps(state_to_dict(game, state)))


MAX_SAVE_BYTES = 256 * 2**20  # far above any real batch; refuses to parse a file that would exhaust memory
MAX_SAVE_DEPTH = 8  # {"fields": {name: B x up to 3 trailing axes}} nests at most 6 deep


def parse_state_json(text: str | bytes) -> Any:
    """json.loads for saved states, refusing oversized or too deeply nested input before parsing (deep
    nesting would otherwise raise RecursionError inside the parser)."""
    if len(text) > MAX_SAVE_BYTES:
        raise ValueError(f"saved state is {len(text)} bytes, more than the {MAX_SAVE_BYTES} allowed")
    raw = text.encode() if isinstance(text, str) else text
    # bracket depth over the raw bytes (brackets inside strings count too: saves hold no such strings)
    b = np.frombuffer(raw, dtype=np.uint8)
    step = (b == 0x5B).astype(np.int64) + (b == 0x7B) - (b == 0x5D) - (b == 0x7D)
    if b.size and np.cumsum(step).max() > MAX_SAVE_DEPTH:
        raise ValueError(f"saved state nests deeper than {MAX_SAVE_DEPTH} levels")
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not valid JSON ({exc})") from None


def load_state(game: Game, path: str | Path) -> tuple:
    """Read a state written by `save_state`; malformed files raise ValueError."""
    path = Path(path)
    if path.stat().st_size > MAX_SAVE_BYTES:
        raise ValueError(f"{path}: larger than the {MAX_SAVE_BYTES} bytes a saved state may have")
    try:
        data = parse_state_json(path.read_bytes())
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return game.from_dict(data)
