"""Recorded games for the replay viewer: the records of the server's folder, uploaded ones, and their replays.

A browser names a record only by the id the listing gave it: `r-<hash of its path inside the folder>` for
a file of `--records DIR`, `u-<random token>` for an uploaded one. Paths never travel from the browser to
the server, so no request can make the server read a file outside the folder (and links inside the folder
that point out of it are not listed).

Every record is checked by `meeple.envs.record` (size- and depth-capped JSON, every field, and every move's
legality during the replay); a record that fails is listed with its error and cannot be opened. Replays
are kept in a least-recently-used cache bounded by the bytes their states take (a record of the longest
possible game holds thousands of states), and are rebuilt from the record when evicted.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
from collections import OrderedDict
from pathlib import Path

from meeple.envs.record import MAX_RECORD_BYTES, GameRecord, parse_record, replay
from meeple.web.views import ApiError, draws_picture, png_bytes

MAX_LISTED = 1000  # files looked at in the records folder
MAX_UPLOADS = 64  # uploaded records kept (the oldest is forgotten first)
MAX_REPLAY_BYTES = 256 * 2**20  # states of all open replays together
MAX_NAME = 100
RECORD_ID = re.compile(r"(r|u)-[A-Za-z0-9_-]{1,64}")


class ReplayView:
    """One replayed record and what the viewer asks of it. A rules object must not be used by two threads
    at once (`meeple.envs.threads`), and the server answers requests in threads, hence the lock."""

    def __init__(self, record_id: str, name: str, record: GameRecord) -> None:
        self.id = record_id
        self.name = name
        self.record = record
        self.replay = replay(record)  # ReplayError (a ValueError) if the record does not replay
        self.game = self.replay.game
        self.states = self.replay.states
        self.nbytes = sum(field.nbytes for state in self.states for field in state)
        self.picture = draws_picture(self.game)
        self.lock = threading.Lock()
        self._logs: dict[int | None, list[list[str]]] = {}

    @property
    def steps(self) -> int:
        return len(self.record.actions)

    def log(self, seat: int | None) -> list[list[str]]:
        """Per move k, the lines `narrate` gives for states[k] -> states[k + 1], as `seat` may see them."""
        with self.lock:
            if seat not in self._logs:
                self._logs[seat] = [self.game.narrate(self.states[k], a, self.states[k + 1], 0, seat)
                                    for k, a in enumerate(self.record.actions)]
            return self._logs[seat]

    def summary(self, seat: int | None) -> dict:
        """Everything the viewer needs at once except the per-step views: moves, log, scores over time."""
        log = self.log(seat)
        with self.lock:
            moves = [{"step": k + 1, "seat": int(self.states[k].to_play[0]), "action": a,
                      "name": self.game.action_to_str(self.states[k], a, 0), "lines": log[k]}
                     for k, a in enumerate(self.record.actions)]
            scores = self.replay.scores().astype(int).tolist()
        record = self.record
        return {"id": self.id, "name": self.name, "game": record.game, "config": record.config,
                "num_players": record.num_players, "agents": record.agents, "seed": record.seed, "deal": record.deal,
                "meta": record.meta, "steps": self.steps, "done": bool(self.states[-1].done[0]),
                "final": None if record.scores is None else {"scores": record.scores, "returns": record.returns},
                "picture": self.picture, "seat": seat, "moves": moves, "scores": scores}

    def check_step(self, step: int) -> int:
        if not 0 <= step <= self.steps:
            raise ApiError(404, f"step {step} is not in this record (0..{self.steps})")
        return step

    def step_view(self, step: int, seat: int | None) -> dict:
        """The position after `step` moves: the text view for `seat`, whose turn it is, the scores."""
        state = self.states[self.check_step(step)]
        with self.lock:
            text = self.game.render_text(state, 0, seat)
            scores = self.game.scores(state)[0].astype(int).tolist()
        return {"step": step, "to_play": int(state.to_play[0]), "done": bool(state.done[0]), "text": text,
                "scores": scores}

    def picture_png(self, step: int, seat: int | None) -> bytes:
        if not self.picture:
            raise ApiError(404, f"{self.record.game} draws no picture; use the text view")
        state = self.states[self.check_step(step)]
        with self.lock:
            picture = self.game.render_rgb(state, 0, seat)
        return png_bytes(picture)


def record_summary(record: GameRecord) -> dict:
    return {"game": record.game, "num_players": record.num_players, "agents": record.agents,
            "moves": len(record.actions), "scores": record.scores}


class RecordLibrary:
    """The records a server shows: files of its folder (None: none) and uploads, with a replay cache."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder.resolve() if folder is not None else None
        self._lock = threading.Lock()
        self._parsed: dict[Path, tuple[tuple[int, int], dict, GameRecord | None]] = {}  # by (mtime, size)
        self._paths: dict[str, Path] = {}
        self._uploads: OrderedDict[str, tuple[str, GameRecord]] = OrderedDict()
        self._open: OrderedDict[tuple, ReplayView] = OrderedDict()

    # --- the folder -----------------------------------------------------------------------------

    def _scan(self) -> list[dict]:
        """The folder's record files (*.json, sub-folders included, at most MAX_LISTED), each parsed once
        per version of the file."""
        if self.folder is None or not self.folder.is_dir():
            return []
        entries, paths = [], {}
        for path in sorted(self.folder.rglob("*.json"))[:MAX_LISTED]:
            try:
                resolved = path.resolve()
                if not resolved.is_relative_to(self.folder) or not resolved.is_file():
                    continue
                info = resolved.stat()
            except OSError:
                continue
            name = path.relative_to(self.folder).as_posix()
            record_id = "r-" + hashlib.sha256(name.encode()).hexdigest()[:20]
            key = (info.st_mtime_ns, info.st_size)
            cached = self._parsed.get(resolved)
            if cached is None or cached[0] != key:
                record, entry = None, {"id": record_id, "name": name}
                try:
                    if info.st_size > MAX_RECORD_BYTES:
                        raise ValueError(f"larger than the {MAX_RECORD_BYTES} bytes a record may have")
                    record = parse_record(resolved.read_bytes())
                    entry.update(record_summary(record))
                except (ValueError, OSError) as exc:
                    entry["error"] = str(exc)[:300]
                cached = (key, entry, record)
                self._parsed[resolved] = cached
            paths[record_id] = resolved
            entries.append(cached[1])
        self._paths = paths
        self._parsed = {p: v for p, v in self._parsed.items() if p in paths.values()}
        return entries

    def listing(self) -> list[dict]:
        with self._lock:
            return self._scan()

    # --- uploads --------------------------------------------------------------------------------

    def upload(self, data: bytes, name: str) -> dict:
        """Check an uploaded record (parse and replay it) and keep it under a new random id."""
        try:
            record = parse_record(data)
            view = ReplayView("", name, record)
        except ValueError as exc:
            raise ApiError(422, f"not a record this server can replay: {exc}"[:600]) from None
        record_id = "u-" + secrets.token_urlsafe(16)
        view.id = record_id
        name = (name.strip() or "uploaded record")[:MAX_NAME]
        view.name = name
        with self._lock:
            self._uploads[record_id] = (name, record)
            while len(self._uploads) > MAX_UPLOADS:
                self._uploads.popitem(last=False)
            self._keep(("u", record_id), view)
        return {"id": record_id, "name": name, **record_summary(record)}

    # --- opening --------------------------------------------------------------------------------

    def _keep(self, key: tuple, view: ReplayView) -> None:
        if view.nbytes > MAX_REPLAY_BYTES:
            raise ApiError(422, "this record is too long to show here")
        self._open[key] = view
        self._open.move_to_end(key)
        while sum(v.nbytes for v in self._open.values()) > MAX_REPLAY_BYTES:
            self._open.popitem(last=False)

    def open(self, record_id: str) -> ReplayView:
        """The replay of a listed or uploaded record; ApiError 404 for an id this server never gave out,
        422 for a record that does not replay."""
        if not RECORD_ID.fullmatch(record_id):
            raise ApiError(404, "no record with that id")
        with self._lock:
            if record_id.startswith("u-"):
                if record_id not in self._uploads:
                    raise ApiError(404, "no uploaded record with that id (uploads are forgotten after a while: upload it again)")
                name, record = self._uploads[record_id]
                key: tuple = ("u", record_id)
            else:
                if record_id not in self._paths:
                    self._scan()
                if record_id not in self._paths:
                    raise ApiError(404, "no record with that id in the records folder")
                path = self._paths[record_id]
                try:
                    info = path.stat()
                except OSError:
                    raise ApiError(404, "that record file is gone from the records folder") from None
                key = ("r", record_id, info.st_mtime_ns, info.st_size)
                if key not in self._open:
                    entry = self._parsed[path][1] if path in self._parsed else {"name": record_id}
                    try:
                        if info.st_size > MAX_RECORD_BYTES:
                            raise ValueError(f"larger than the {MAX_RECORD_BYTES} bytes a record may have")
                        record = parse_record(path.read_bytes())
                    except (ValueError, OSError) as exc:
                        raise ApiError(422, f"{entry['name']}: {exc}"[:600]) from None
                    name = entry["name"]
            if key in self._open:
                self._open.move_to_end(key)
                return self._open[key]
            try:
                view = ReplayView(record_id, name, record)
            except ValueError as exc:
                raise ApiError(422, f"{name}: {exc}"[:600]) from None
            self._keep(key, view)
            return view
