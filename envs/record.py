"""Recorded games: a small JSON log that replays exactly through the rules core.

A record holds what a game needs to be played again, and nothing the rules core would have to trust:

    {"format": "meeple.record", "version": 2,
     "game": "hadara", "config": {"num_players": 3},      # the arguments of meeple.envs.make
     "seed": 7, "deal": 12,                               # the chance stream (below)
     "agents": ["heuristic", "random", "mcts:200"],       # one label per seat
     "actions": [41, 3, ...],                             # the moves, in order
     "scores": [61, 48, 55], "returns": [1.0, -1.0, 0.0], # the final result (null for an unfinished game)
     "meta": {"created": "2026-11-26T04:00:00Z", ...}}    # free-form strings and numbers

**Chance** is not stored move by move: every game draws all of its luck from one generator,
`numpy.random.default_rng([seed, deal])` — `game.init(generator, 1)` deals the start, then each step
takes `generator.random((1, game.uniforms_per_step))`. That is the same stream the tournament runner
(`meeple.agents.arena.play_games` with deals) gives game `deal`, so every game of an evaluation can be
written as a record of a few hundred bytes and replayed bit for bit (numpy guarantees the stream of
`Generator.random` under a fixed seed across versions).

**Loading never trusts the file**: the text is size- and depth-capped before parsing (no pickle, ever),
every field is type- and range-checked, the game and its configuration must be registered, and the
actions are checked against the legal moves while replaying. A record whose moves are not legal where
they are played — a different rules version, a different chance stream, an edited file — raises
`ReplayError` naming the step where it diverges; so does a final result that differs from the replay's.

    record = LiveGame("hadara", {"num_players": 2}, seed=1).play_out(agents, rng).to_record(["a", "b"])
    save_record(record, "game.json")
    states = replay(load_record("game.json")).states     # states[k] before move k, states[-1] the end
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from meeple.envs import GAMES, make
from meeple.envs.batch import step_own

FORMAT = "meeple.record"
VERSION = 2
# version 1: records made before every step drew one uniform per row (the chance stream differs, so
# their moves cannot be replayed by this version; the loader says so instead of failing mid-game)
_CHANCE_STREAM_CHANGED_AFTER = 1
MAX_RECORD_BYTES = 4 * 2**20  # a record of the longest game is tens of KB; refuse files that are not records
MAX_RECORD_DEPTH = 4  # {"config": {...}} / {"meta": {...}} / {"actions": [...]}: three levels at most
MAX_TEXT = 200  # agent labels and meta strings
MAX_META_KEYS = 32
_SEED_MAX = 2**63 - 1


class ReplayError(ValueError):
    """A record does not replay: `step` is the index of the first move (or len(actions) for the final
    result) where the replay and the record part ways."""

    def __init__(self, step: int, message: str) -> None:
        super().__init__(f"replay diverges at step {step}: {message}")
        self.step = step


def chance(seed: int, deal: int) -> np.random.Generator:
    """The generator all of a recorded game's luck comes from (module docstring)."""
    return np.random.default_rng([int(seed), int(deal)])


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in {lo}..{hi}, got {value!r}"[:300])
    return value


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise ValueError(f"{name} must be a string of at most {MAX_TEXT} characters")
    return value


def _scalar(value: Any, name: str) -> Any:
    """A JSON scalar for config and meta values (no nesting: nothing the loader would have to walk)."""
    if value is None or isinstance(value, bool) or (isinstance(value, int) and abs(value) <= _SEED_MAX):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str):
        return _text(value, name)
    raise ValueError(f"{name} must be a string, a finite number, a bool or null")


def check_config(game_name: str, config: Any) -> dict:
    """The make() arguments of a record, checked: a dict of scalars that `make(game_name, **config)`
    accepts. Returns a copy with num_players always present."""
    if not isinstance(config, dict) or len(config) > MAX_META_KEYS:
        raise ValueError("config must be an object of make() arguments")
    out = {_text(k, "config key"): _scalar(v, f"config[{k!r}]") for k, v in config.items()}
    out.setdefault("num_players", 2)
    try:
        make(game_name, **out)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"config {out} is not a configuration of {game_name}: {exc}") from None
    return out


@dataclass(frozen=True)
class GameRecord:
    """One game, as saved (module docstring). `scores`/`returns` are None for an unfinished game."""

    game: str
    config: dict
    seed: int
    deal: int
    agents: list[str]
    actions: list[int]
    scores: list[int] | None = None
    returns: list[float] | None = None
    meta: dict = field(default_factory=dict)

    @property
    def num_players(self) -> int:
        return int(self.config.get("num_players", 2))

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "game": self.game, "config": dict(self.config),
                "seed": self.seed, "deal": self.deal, "agents": list(self.agents), "actions": list(self.actions),
                "scores": None if self.scores is None else list(self.scores),
                "returns": None if self.returns is None else list(self.returns), "meta": dict(self.meta)}

    @classmethod
    def from_dict(cls, payload: Any) -> GameRecord:
        """The record in `payload`, every field checked (ValueError naming the first problem). The moves
        are range-checked here and checked for legality by `replay`."""
        if not isinstance(payload, dict):
            raise ValueError("a record must be a JSON object")
        if payload.get("format") == FORMAT and payload.get("version") == _CHANCE_STREAM_CHANGED_AFTER:
            raise ValueError(f"a {FORMAT} version 1 file: it was recorded when a step drew all of its uniform "
                             f"columns from the generator, so its chance stream differs from this version's "
                             f"(version {VERSION}, one uniform per row per step) and its moves cannot be replayed")
        if payload.get("format") != FORMAT or payload.get("version") != VERSION:
            raise ValueError(f"not a {FORMAT} version {VERSION} file (format {str(payload.get('format'))[:40]!r}, "
                             f"version {str(payload.get('version'))[:10]})")
        known = {"format", "version", "game", "config", "seed", "deal", "agents", "actions", "scores", "returns", "meta"}
        unknown = sorted(str(k)[:40] for k in payload if k not in known)
        if unknown:
            raise ValueError(f"unknown record fields {unknown[:5]}")
        name = payload.get("game")
        if not isinstance(name, str) or name not in GAMES:
            raise ValueError(f"game must be one of {sorted(GAMES)}, got {str(name)[:40]!r}")
        config = check_config(name, payload.get("config", {}))
        game = make(name, **config)
        P = game.num_players
        seed = _int(payload.get("seed"), "seed", 0, _SEED_MAX)
        deal = _int(payload.get("deal", 0), "deal", 0, _SEED_MAX)
        agents = payload.get("agents")
        if not isinstance(agents, list) or len(agents) != P:
            raise ValueError(f"agents must be a list of {P} labels, one per seat")
        agents = [_text(a, f"agents[{i}]") for i, a in enumerate(agents)]
        actions = payload.get("actions")
        if not isinstance(actions, list) or len(actions) > game.info.max_game_length:
            raise ValueError(f"actions must be a list of at most {game.info.max_game_length} moves")
        actions = [_int(a, f"actions[{i}]", 0, game.num_actions - 1) for i, a in enumerate(actions)]
        scores, returns = payload.get("scores"), payload.get("returns")
        if scores is not None:
            if not isinstance(scores, list) or len(scores) != P:
                raise ValueError(f"scores must be null or a list of {P} integers")
            scores = [_int(s, f"scores[{i}]", -2**31, 2**31 - 1) for i, s in enumerate(scores)]
        if returns is not None:
            if not isinstance(returns, list) or len(returns) != P or not all(
                    isinstance(r, (int, float)) and not isinstance(r, bool) and math.isfinite(r) for r in returns):
                raise ValueError(f"returns must be null or a list of {P} finite numbers")
            returns = [float(r) for r in returns]
        meta = payload.get("meta", {})
        if not isinstance(meta, dict) or len(meta) > MAX_META_KEYS:
            raise ValueError(f"meta must be an object of at most {MAX_META_KEYS} entries")
        meta = {_text(k, "meta key"): _scalar(v, f"meta[{k!r}]") for k, v in meta.items()}
        return cls(name, config, seed, deal, agents, actions, scores, returns, meta)


def parse_record(text: str | bytes) -> GameRecord:
    """A record from JSON text: size- and depth-capped before parsing, then `GameRecord.from_dict`."""
    if len(text) > MAX_RECORD_BYTES:
        raise ValueError(f"a record is at most {MAX_RECORD_BYTES} bytes, got {len(text)}")
    raw = text.encode() if isinstance(text, str) else bytes(text)
    b = np.frombuffer(raw, dtype=np.uint8)
    depth = (b == 0x5B).astype(np.int64) + (b == 0x7B) - (b == 0x5D) - (b == 0x7D)
    if b.size and np.cumsum(depth).max() > MAX_RECORD_DEPTH:
        raise ValueError(f"a record nests at most {MAX_RECORD_DEPTH} levels deep")
    try:
        payload = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not valid JSON ({exc})") from None
    return GameRecord.from_dict(payload)


def load_record(path: str | Path) -> GameRecord:
    """Read and check a record file (errors name the file)."""
    path = Path(path)
    if path.stat().st_size > MAX_RECORD_BYTES:
        raise ValueError(f"{path}: larger than the {MAX_RECORD_BYTES} bytes a record may have")
    try:
        return parse_record(path.read_bytes())
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def save_record(record: GameRecord, path: str | Path) -> None:
    """Write `record` atomically (a reader never sees a half-written file)."""
    from meeple.agents.io import atomic_write_text

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(record.to_dict(), separators=(",", ":")) + "\n")


class LiveGame:
    """One game stepped move by move on the recorded chance stream, so it can be saved as a record at
    any time. `step` checks every move (the state is unchanged when it raises)."""

    def __init__(self, game_name: str, config: dict | None = None, seed: int = 0, deal: int = 0) -> None:
        if game_name not in GAMES:
            raise ValueError(f"unknown game {game_name!r}; registered: {sorted(GAMES)}")
        self.game_name = game_name
        self.config = check_config(game_name, dict(config or {}))
        self.seed = _int(seed, "seed", 0, _SEED_MAX)
        self.deal = _int(deal, "deal", 0, _SEED_MAX)
        self.game = make(game_name, **self.config)
        self._chance = chance(self.seed, self.deal)
        self.state = self.game.init(self._chance, 1)
        self.actions: list[int] = []

    @property
    def done(self) -> bool:
        return bool(self.state.done[0])

    @property
    def to_play(self) -> int:
        return int(self.state.to_play[0])

    def legal_actions(self) -> np.ndarray:
        """The legal moves now (empty once the game is over)."""
        if self.done:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.game.legal_action_mask(self.state)[0])

    def step(self, action: Any) -> tuple[Any, Any]:
        """Play `action` (an int, legal now); returns (before, after) states. ValueError otherwise."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"an action is an integer, got {type(action).__name__}")
        if self.done:
            raise ValueError("the game is over")
        a = int(action)
        mask = self.game.legal_action_mask(self.state)
        if not 0 <= a < self.game.num_actions or not mask[0, a]:
            raise ValueError(f"action {a} is not legal now; legal: {np.flatnonzero(mask[0]).tolist()[:30]}")
        before = self.state
        u = self._chance.random((1, self.game.uniforms_per_step))
        self.state = step_own(self.game, before, np.array([a], dtype=np.int64), mask, u=u)
        self.actions.append(a)
        return before, self.state

    def play_out(self, agents: list[Any], rng: np.random.Generator) -> LiveGame:
        """Play to the end with `agents[seat]` moving for each seat (objects with `act(game, state, rng)`)."""
        if len(agents) != self.game.num_players:
            raise ValueError(f"need {self.game.num_players} agents, one per seat, got {len(agents)}")
        while not self.done:
            self.step(int(np.asarray(agents[self.to_play].act(self.game, self.state, rng))[0]))
        return self

    def to_record(self, agents: list[str], meta: dict | None = None) -> GameRecord:
        """The game so far as a record (with the result once it is over)."""
        scores = returns = None
        if self.done:
            scores = [int(s) for s in self.game.scores(self.state)[0]]
            returns = [float(r) for r in self.game.returns(self.state)[0]]
        return GameRecord(self.game_name, dict(self.config), self.seed, self.deal, [str(a) for a in agents],
                          list(self.actions), scores, returns, dict(meta or {}))


@dataclass
class Replay:
    """A record played again: `states[k]` is the position before move k (`states[-1]` the last)."""

    record: GameRecord
    game: Any
    states: list[Any]

    @property
    def actions(self) -> list[int]:
        return self.record.actions

    def scores(self) -> np.ndarray:
        """(len(states), P) every seat's running score after each step (the game's own score)."""
        return np.concatenate([self.game.scores(s) for s in self.states])


def replay(record: GameRecord) -> Replay:
    """Play `record` again through the rules core; ReplayError at the first move that is not legal where
    it is played, at a move after the game ended, or at the end if the result differs from the record's."""
    live = LiveGame(record.game, record.config, record.seed, record.deal)
    states = [live.state]
    for k, a in enumerate(record.actions):
        if live.done:
            raise ReplayError(k, f"the game ended after {k} moves but the record has {len(record.actions)}")
        try:
            live.step(a)
        except ValueError as exc:
            raise ReplayError(k, f"player_{live.to_play}'s move {a}: {exc}") from None
        states.append(live.state)
    n = len(record.actions)
    if record.scores is not None:
        if not live.done:
            raise ReplayError(n, "the record has a final result but the game is not over after its moves")
        got = [int(s) for s in live.game.scores(live.state)[0]]
        if got != list(record.scores):
            raise ReplayError(n, f"final scores {got}, the record says {list(record.scores)}")
    return Replay(record, live.game, states)


def records_from_games(game_name: str, config: dict, seed: int, result: dict, labels: list[str],
                       meta: dict | None = None) -> list[GameRecord]:
    """Records of the games `meeple.agents.arena.play_games(..., deals=..., record=True)` played (its
    per_game actions, deals, seats, scores and returns), labels[i] naming agent i."""
    per = result["per_game"]
    out = []
    for i, actions in enumerate(per["actions"]):
        seats = [labels[k] for k in per["seat_agent"][i]]
        out.append(GameRecord(game_name, check_config(game_name, config), int(seed), int(per["deal"][i]), seats,
                              [int(a) for a in actions], [int(s) for s in per["scores"][i]],
                              [float(r) for r in per["returns"][i]], dict(meta or {})))
    return out


__all__ = ["FORMAT", "VERSION", "GameRecord", "LiveGame", "Replay", "ReplayError", "chance", "check_config",
           "load_record", "parse_record", "records_from_games", "replay", "save_record"]
