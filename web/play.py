"""Games between a person at the browser and agents, one `PlaySession` per game, kept by a `PlayStore`.

Each session is a `meeple.envs.record.LiveGame` (so it can be downloaded as a record at any time) on a
chance stream seeded from `secrets`, with the agents' moves drawn from a generator of its own, also seeded
from `secrets`: nothing about a game's luck can be guessed or chosen from the browser.

A session id is the only key to a game (`secrets.token_urlsafe`, 128 bits): games of different browsers
are isolated because nobody can name another's. The store holds at most `max_games` games and forgets
one idle for `idle_seconds`; when it is full of active games a new one is refused (503) rather than
ending somebody else's.

A move names the action and the version of the position it was chosen in (the number of moves played so
far). A move for an older version, after the game ended, out of turn, or not legal is refused with a
4xx error and changes nothing; after the person's move the agents play until it is the person's turn again
or the game is over, inside the same request.
"""

from __future__ import annotations

import secrets
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from meeple.envs import GAMES, canvas
from meeple.envs.record import LiveGame, check_config
from meeple.web.errors import ApiError
from meeple.web.library import _text_bytes, state_bytes
from meeple.web.specs import AgentChoice, ModelIndex, build_agent, parse_agent_spec
from meeple.web.targets import board_targets
from meeple.web.views import draws_picture, png_bytes

HUMAN_LABEL = "human"
MAX_VARIANT_KEYS = 8
MAX_PLAY_BYTES = 512 * 2**20  # live games together (their states, logs and the nets their opponents hold)
SESSION_OVERHEAD_BYTES = 256 * 2**10  # a game's rules object, agents and bookkeeping


def _integer(value: Any, name: str) -> int:
    """An integer from a JSON body (bools and floats refused: JSON true is not 1, 2.0 is not a move)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{name} must be an integer, got {str(value)[:40]!r}")
    return value


class PlaySession:
    """One game: the person at `seat`, an agent at every other seat."""

    def __init__(self, game_name: str, config: dict, seat: int, choices: dict[int, AgentChoice],
                 agents: dict[int, Any]) -> None:
        self.id = secrets.token_urlsafe(16)
        self.live = LiveGame(game_name, config, seed=secrets.randbits(63))
        self.game = self.live.game
        self.seat = seat
        self.choices = choices
        self.agents = agents
        self.rng = np.random.default_rng(secrets.randbits(128))
        self.picture = draws_picture(self.game)
        self.drawn: tuple[int, Any] | None = None  # (version, the picture of that position from `seat`)
        self.lock = threading.Lock()  # one request at a time moves a game (and uses its rules object)
        self.log: list[dict] = []
        self.stopped: str | None = None  # why the game cannot go on (an opponent agent failed), else None
        self.created = datetime.now(timezone.utc)
        self.last_used = time.monotonic()

    @property
    def version(self) -> int:
        return len(self.live.actions)

    @property
    def nbytes(self) -> int:
        """Real bytes the game holds: its state, moves, log, the last picture drawn and the weights of its
        opponents' nets."""
        nets = 0
        for agent in self.agents.values():
            net = getattr(agent, "net", None)
            if net is not None:
                nets += sum(p.numel() * p.element_size() for p in net.parameters())
        drawn = self.drawn[1].nbytes if self.drawn is not None else 0
        return (SESSION_OVERHEAD_BYTES + state_bytes(self.live.state) + _text_bytes(self.live.actions)
                + _text_bytes(self.log) + nets + drawn)

    def labels(self) -> list[str]:
        """One label per seat: "human" for the person, the agent spec otherwise (as in records)."""
        return [HUMAN_LABEL if p == self.seat else self.choices[p].label for p in range(self.game.num_players)]

    def _play(self, action: int) -> None:
        mover = self.live.to_play
        before, after = self.live.step(action)
        self.log.append({"step": self.version, "seat": mover, "by": self.labels()[mover],
                         "lines": self.game.narrate(before, action, after, 0, self.seat)})

    def run_agents(self) -> None:
        """Agents move until it is the person's turn or the game is over."""
        limit = self.game.info.max_game_length
        while not self.live.done and self.live.to_play != self.seat:
            if self.version >= limit:  # the rules end every game before this; a guard against a bug looping forever
                raise RuntimeError(f"game still running after {limit} moves")
            mover = self.live.to_play
            try:
                self._play(int(np.asarray(self.agents[mover].act(self.game, self.live.state, self.rng))[0]))
            except Exception as exc:  # a model that loads but fails when acting, or an illegal reply
                # The game cannot go on without that seat's move; say so instead of leaving it stuck on a
                # turn that never comes (the person's moves so far stand, the record can still be saved).
                self.stopped = (f"player_{mover} ({self.choices[mover].label}) failed to move "
                                f"({type(exc).__name__}: {str(exc)[:200]}); the game stops here")
                raise ApiError(500, self.stopped) from None

    def move(self, action: Any, version: Any) -> None:
        """The person's move, checked (module docstring), then the agents' replies."""
        action = _integer(action, "action")
        version = _integer(version, "version")
        if version != self.version:
            raise ApiError(409, f"that move was chosen at move {version}, but the game is at move {self.version} "
                                "now: reload the game and choose again")
        if self.live.done:
            raise ApiError(409, "the game is over")
        if self.stopped is not None:
            raise ApiError(409, self.stopped)
        if self.live.to_play != self.seat:
            raise ApiError(409, f"it is player_{self.live.to_play}'s turn, not yours")
        try:
            self._play(action)
        except ValueError as exc:  # LiveGame.step leaves the state as it was
            raise ApiError(400, f"move {action} is not legal now ({exc})"[:600]) from None
        self.run_agents()

    def view(self) -> dict:
        """What the person may see now: their seat's view of the position, their legal moves, the log."""
        state, seat = self.live.state, self.seat
        done = self.live.done
        your_turn = not done and self.stopped is None and self.live.to_play == seat
        actions = [int(a) for a in self.live.legal_actions()] if your_turn else []
        drawn = None
        if self.picture:  # drawn once per position: the board's hints need the picture's strings, the page its PNG
            with canvas.recording() as texts:
                rgb = self.game.render_rgb(state, 0, seat)
            self.drawn = (self.version, rgb)
            drawn = (texts, int(rgb.shape[1]), int(rgb.shape[0]))
        board = board_targets(self.live.game_name, self.game, state, seat, actions, self.picture, drawn)
        explain = {m["action"]: m["explain"] for t in board["targets"] for m in t["moves"]}
        legal = [{"action": a, "name": self.game.action_to_str(state, a, 0), "explain": explain.get(a, [])}
                 for a in actions]
        result = None
        if done:
            scores = self.game.scores(state)[0].astype(int).tolist()
            returns = self.game.returns(state)[0].astype(float).tolist()
            best = max(returns)
            result = {"scores": scores, "returns": returns,
                      "winners": [p for p, r in enumerate(returns) if r == best] if len(returns) > 1 else []}
        return {"id": self.id, "game": self.live.game_name, "config": self.live.config,
                "num_players": self.game.num_players, "seat": seat, "agents": self.labels(),
                "version": self.version, "to_play": self.live.to_play, "done": done, "your_turn": your_turn,
                "legal": legal, "board": board, "text": self.game.render_text(state, 0, seat), "picture": self.picture,
                "scores": self.game.scores(state)[0].astype(int).tolist(), "log": self.log, "result": result,
                "stopped": self.stopped}

    def picture_png(self) -> bytes:
        if not self.picture:
            raise ApiError(404, f"{self.live.game_name} draws no picture; use the text view")
        if self.drawn is not None and self.drawn[0] == self.version:
            return png_bytes(self.drawn[1])
        return png_bytes(self.game.render_rgb(self.live.state, 0, self.seat))

    def record(self) -> dict:
        """The game so far as a record (`meeple.envs.record`), the result included once it is over."""
        meta = {"source": "meeple serve", "created": self.created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "human_seat": self.seat}
        return self.live.to_record(self.labels(), meta).to_dict()


class PlayStore:
    """The live games of one server (module docstring)."""

    def __init__(self, models: ModelIndex | Path | None, max_games: int = 64, idle_seconds: float = 1800.0) -> None:
        self.models = models if isinstance(models, ModelIndex) else ModelIndex(models)
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self._games: dict[str, PlaySession] = {}
        self._lock = threading.Lock()

    def _expire(self) -> None:
        cutoff = time.monotonic() - self.idle_seconds
        for game_id in [g for g, s in self._games.items() if s.last_used < cutoff]:
            del self._games[game_id]

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._games)

    def _check_room(self) -> None:
        """503 unless a new game fits in the count and byte bounds (the caller holds the lock)."""
        self._expire()
        if len(self._games) >= self.max_games:
            raise ApiError(503, f"this server already runs {self.max_games} games; try again later")
        if sum(s.nbytes for s in self._games.values()) > MAX_PLAY_BYTES:
            raise ApiError(503, f"this server's games already hold {MAX_PLAY_BYTES >> 20} MiB; try again later")

    def stats(self) -> dict:
        with self._lock:
            self._expire()
            return {"games": len(self._games), "game_bytes": sum(s.nbytes for s in self._games.values())}

    def create(self, body: Any) -> PlaySession:
        """A new game from the play form's JSON: {game, num_players, seat, opponents: a spec for every other
        seat, or one list entry per other seat, optional variant: {flag: value}}."""
        if not isinstance(body, dict):
            raise ApiError(400, "send a JSON object: {game, num_players, seat, opponents}")
        unknown = sorted(str(k)[:30] for k in body if k not in ("game", "num_players", "seat", "opponents", "variant"))
        if unknown:
            raise ApiError(400, f"unknown fields {unknown[:5]}")
        game_name = body.get("game")
        if not isinstance(game_name, str) or game_name not in GAMES:
            raise ApiError(400, f"game must be one of {sorted(GAMES)}")
        num_players = _integer(body.get("num_players", 2), "num_players")
        variant = body.get("variant", {})
        if not isinstance(variant, dict) or len(variant) > MAX_VARIANT_KEYS or "num_players" in variant:
            raise ApiError(400, "variant must be an object of the game's variant flags (without num_players)")
        try:
            config = check_config(game_name, {**variant, "num_players": num_players})
        except ValueError as exc:
            raise ApiError(400, str(exc)[:600]) from None
        seat = _integer(body.get("seat", 0), "seat")
        if not 0 <= seat < num_players:
            raise ApiError(400, f"seat must be 0..{num_players - 1} for {num_players} players")
        others = [p for p in range(num_players) if p != seat]
        opponents = body.get("opponents", "random")
        if isinstance(opponents, str):
            opponents = [opponents] * len(others)
        if not isinstance(opponents, list) or len(opponents) != len(others):
            raise ApiError(400, f"opponents must be one agent spec, or a list of {len(others)} (one per other seat)")
        choices = {p: parse_agent_spec(spec, self.models) for p, spec in zip(others, opponents)}
        with self._lock:  # refuse before the costly part (building agents) when there is no room
            self._check_room()
        agents = {p: build_agent(choice, game_name, config, self.models) for p, choice in choices.items()}
        session = PlaySession(game_name, config, seat, choices, agents)
        with session.lock:
            session.run_agents()
        with self._lock:
            self._check_room()
            self._games[session.id] = session
        return session

    def get(self, game_id: str) -> PlaySession:
        with self._lock:
            self._expire()
            session = self._games.get(game_id)
            if session is None:
                raise ApiError(404, "no game with that id (games are forgotten after a while without moves)")
            session.last_used = time.monotonic()
            return session
