"""Recorded games for the replay viewer: the records of the server's folder, uploaded ones, and their replays.

A browser names a record only by the id the listing gave it: `r-<hash of its path inside the folder>` for
a file of `--records DIR`, `u-<random token>` for an uploaded one. Paths never travel from the browser to
the server, so no request can make the server read a file outside the folder (and links inside the folder
that point out of it are not listed).

The folder is indexed once when the server starts and refreshed in the background (`FolderIndex`): a
request looks its id up in the index under a short lock and never walks the folder, so an unknown id costs
a dictionary lookup however many files the folder holds. The index keeps each record's summary (or its
error), not the record: opening one reads and parses its file again.

Every record is checked by `meeple.envs.record` (size- and depth-capped JSON, every field, and every move's
legality during the replay); a record that fails is listed with its error and cannot be opened.

Memory is bounded by count and by real bytes, everywhere:

- uploads: the newest `MAX_UPLOADS`, within `MAX_UPLOAD_BYTES` together (a parsed record's real size);
- replays: the `MAX_OPEN_REPLAYS` most recently used, within `MAX_REPLAY_BYTES` together. A replay keeps
  its positions as one stacked batch (one array per state field, not one small array per field and move:
  the per-array overhead of numpy was 30-40x the data for short records), and its size counts those arrays
  with their headers, the record, the move names and narration it has made, and a fixed overhead for its
  rules object;
- evictions go together: an upload that is forgotten leaves the replay cache in the same step.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sys
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.record import MAX_RECORD_BYTES, GameRecord, parse_record, replay
from meeple.web.errors import ApiError
from meeple.web.folders import FolderIndex
from meeple.web.targets import board_targets
from meeple.web.views import draws_picture, png_bytes, replay_chart

MAX_LISTED = 1000  # record files indexed in the records folder
MAX_UPLOADS = 64  # uploaded records kept (the oldest is forgotten first)
MAX_UPLOAD_BYTES = 32 * 2**20  # parsed uploads together
MAX_OPEN_REPLAYS = 32  # replays kept ready
MAX_REPLAY_BYTES = 256 * 2**20  # replays kept ready, together
VIEW_OVERHEAD_BYTES = 64 * 2**10  # a replay's rules object, lock and bookkeeping
MAX_NAME = 100
RECORD_ID = re.compile(r"(r|u)-[A-Za-z0-9_-]{1,64}")


def _text_bytes(value: Any) -> int:
    """Real bytes of nested lists / dicts of strings and numbers (containers and items)."""
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(_text_bytes(k) + _text_bytes(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return sys.getsizeof(value) + sum(_text_bytes(v) for v in value)
    return sys.getsizeof(value)


def record_bytes(record: GameRecord) -> int:
    """Real bytes of a parsed record: its action list (a Python int per move) and its texts."""
    return (sys.getsizeof(record) + _text_bytes(record.actions) + _text_bytes(record.agents) + _text_bytes(record.meta)
            + _text_bytes(record.config) + _text_bytes(record.scores or []) + _text_bytes(record.returns or []))


def state_bytes(state: tuple) -> int:
    """Real bytes of a state: the tuple and every field array (header and data: the arrays own their data)."""
    return sys.getsizeof(state) + sum(sys.getsizeof(field) + (0 if field.base is None else field.nbytes)
                                      for field in state)


def record_id_of(name: str) -> str:
    return "r-" + hashlib.sha256(name.encode()).hexdigest()[:20]


class ReplayView:
    """One replayed record and what the viewer asks of it. A rules object must not be used by two threads
    at once (`meeple.envs.threads`), and the server answers requests in threads, hence the lock."""

    def __init__(self, record_id: str, name: str, record: GameRecord) -> None:
        self.id = record_id
        self.name = name
        self.record = record
        played = replay(record)  # ReplayError (a ValueError) if the record does not replay
        self.game = played.game
        self.states = core.concatenate(played.states)  # row k: the position after k moves
        self.scores_table = np.ascontiguousarray(self.game.scores(self.states), dtype=np.int32)
        del played
        self.picture = draws_picture(self.game)
        self.lock = threading.Lock()
        self._logs: dict[int | None, list[list[str]]] = {}
        self._names: list[str] | None = None
        self._base_bytes = (VIEW_OVERHEAD_BYTES + state_bytes(self.states) + sys.getsizeof(self.scores_table)
                            + record_bytes(record))
        self._made_bytes = 0  # names and narration made since

    @property
    def steps(self) -> int:
        return len(self.record.actions)

    @property
    def nbytes(self) -> int:
        return self._base_bytes + self._made_bytes

    def _row(self, k: int) -> tuple:
        return core.take(self.states, [k])

    def log(self, seat: int | None) -> list[list[str]]:
        """Per move k, the lines `narrate` gives for position k -> k + 1, as `seat` may see them."""
        with self.lock:
            if seat not in self._logs:
                log, before = [], self._row(0)
                for k, a in enumerate(self.record.actions):
                    after = self._row(k + 1)
                    log.append(self.game.narrate(before, a, after, 0, seat))
                    before = after
                self._logs[seat] = log
                self._made_bytes += _text_bytes(log)
            return self._logs[seat]

    def names(self) -> list[str]:
        with self.lock:
            if self._names is None:
                # one row at a time: the rules check the whole state they are given on every call
                self._names = [self.game.action_to_str(self._row(k), a, 0) for k, a in enumerate(self.record.actions)]
                self._made_bytes += _text_bytes(self._names)
            return self._names

    def summary(self, seat: int | None) -> dict:
        """Everything the viewer needs at once except the per-step views: moves, log, scores over time."""
        log, names = self.log(seat), self.names()
        to_play = self.states.to_play
        moves = [{"step": k + 1, "seat": int(to_play[k]), "action": a, "name": names[k], "lines": log[k]}
                 for k, a in enumerate(self.record.actions)]
        record = self.record
        return {"id": self.id, "name": self.name, "game": record.game, "config": record.config,
                "num_players": record.num_players, "agents": record.agents, "seed": record.seed, "deal": record.deal,
                "meta": record.meta, "steps": self.steps, "done": bool(self.states.done[-1]),
                "final": None if record.scores is None else {"scores": record.scores, "returns": record.returns},
                "picture": self.picture, "seat": seat, "moves": moves, "scores": self.scores_table.tolist(),
                "chart": replay_chart(record.game, self.states, self.scores_table)}

    def check_step(self, step: int) -> int:
        if not 0 <= step <= self.steps:
            raise ApiError(404, f"step {step} is not in this record (0..{self.steps})")
        return step

    def step_view(self, step: int, seat: int | None) -> dict:
        """The position after `step` moves: the text view for `seat`, whose turn it is, the scores, and the move
        played next (`next`: its action, words and place on the board, as the play page's targets are, with
        the labels of the board; None at the end), so the viewer can show it on the picture."""
        k = self.check_step(step)
        with self.lock:
            row = self._row(k)
            text = self.game.render_text(row, 0, seat)
            upcoming = None
            if k < self.steps:
                action = int(self.record.actions[k])
                upcoming = {"action": action, "seat": int(self.states.to_play[k]),
                            "name": self.game.action_to_str(row, action, 0),
                            "board": board_targets(self.record.game, self.game, row, seat, [action], self.picture)}
        return {"step": step, "to_play": int(self.states.to_play[k]), "done": bool(self.states.done[k]), "text": text,
                "scores": self.scores_table[k].tolist(), "next": upcoming}

    def picture_png(self, step: int, seat: int | None) -> bytes:
        if not self.picture:
            raise ApiError(404, f"{self.record.game} draws no picture; use the text view")
        k = self.check_step(step)
        with self.lock:
            picture = self.game.render_rgb(self._row(k), 0, seat)
        return png_bytes(picture)


def record_summary(record: GameRecord) -> dict:
    return {"game": record.game, "num_players": record.num_players, "agents": record.agents,
            "moves": len(record.actions), "scores": record.scores}


def _read_record(path: Path, size: int) -> GameRecord:
    if size > MAX_RECORD_BYTES:
        raise ValueError(f"larger than the {MAX_RECORD_BYTES} bytes a record may have")
    return parse_record(path.read_bytes())


def _describe(name: str, path: Path, info: Any) -> dict:
    """The listing entry of a record file (parsed in the index's thread; the record itself is not kept)."""
    entry: dict[str, Any] = {"id": record_id_of(name), "name": name}
    try:
        entry.update(record_summary(_read_record(path, info.st_size)))
    except (ValueError, OSError) as exc:
        entry["error"] = str(exc)[:300]
    return entry


class RecordLibrary:
    """The records a server shows: files of its folder (None: none) and uploads, with a replay cache."""

    def __init__(self, folder: Path | None) -> None:
        self.index = FolderIndex(folder, (".json",), MAX_LISTED, describe=_describe, key_of=record_id_of)
        self.folder = self.index.folder
        self._lock = threading.Lock()
        self._uploads: OrderedDict[str, tuple[str, GameRecord, int]] = OrderedDict()  # id -> (name, record, bytes)
        self._open: OrderedDict[tuple, ReplayView] = OrderedDict()

    # --- the folder -----------------------------------------------------------------------------

    def listing(self) -> list[dict]:
        """The indexed records (a background walk picks up new files: module docstring)."""
        self.index.maybe_refresh()
        return [entry.info for entry in self.index.entries()]

    # --- bounds ---------------------------------------------------------------------------------

    def _forget_upload(self, record_id: str) -> None:
        self._uploads.pop(record_id, None)
        self._open.pop(("u", record_id), None)  # evictions go together

    def _trim(self) -> None:
        """Evict until every cache is within its count and byte bounds (the caller holds the lock)."""
        while self._uploads and (len(self._uploads) > MAX_UPLOADS
                                 or sum(b for _, _, b in self._uploads.values()) > MAX_UPLOAD_BYTES):
            self._forget_upload(next(iter(self._uploads)))
        while self._open and (len(self._open) > MAX_OPEN_REPLAYS
                              or sum(v.nbytes for v in self._open.values()) > MAX_REPLAY_BYTES):
            self._open.popitem(last=False)

    def trim(self) -> None:
        """Re-check the bounds (after a replay made names or narration, which count towards its size)."""
        with self._lock:
            self._trim()

    def stats(self) -> dict:
        """What the caches hold now: counts and real bytes."""
        with self._lock:
            return {"uploads": len(self._uploads), "upload_bytes": sum(b for _, _, b in self._uploads.values()),
                    "replays": len(self._open), "replay_bytes": sum(v.nbytes for v in self._open.values()),
                    "upload_replays": sum(1 for key in self._open if key[0] == "u"), "listed": len(self.index.entries())}

    def _keep(self, key: tuple, view: ReplayView) -> ReplayView:
        """Cache `view` under `key` (or return the one another request cached meanwhile); caller holds the lock."""
        if key in self._open:
            self._open.move_to_end(key)
            return self._open[key]
        if key[0] == "u" and key[1] not in self._uploads:
            return view  # forgotten while it was being replayed: serve it, do not cache it
        self._open[key] = view
        self._trim()
        return view

    # --- uploads --------------------------------------------------------------------------------

    def upload(self, data: bytes, name: str) -> dict:
        """Check an uploaded record (parse and replay it) and keep it under a new random id."""
        name = (name.strip() or "uploaded record")[:MAX_NAME]
        try:
            record = parse_record(data)
            view = ReplayView("", name, record)
        except ValueError as exc:
            raise ApiError(422, f"not a record this server can replay: {exc}"[:600]) from None
        if view.nbytes > MAX_REPLAY_BYTES:
            raise ApiError(422, "this record is too long to show here")
        record_id = "u-" + secrets.token_urlsafe(16)
        view.id = record_id
        with self._lock:
            self._uploads[record_id] = (name, record, record_bytes(record))
            self._keep(("u", record_id), view)
            self._trim()
        return {"id": record_id, "name": name, **record_summary(record)}

    # --- opening --------------------------------------------------------------------------------

    def open(self, record_id: str) -> ReplayView:
        """The replay of a listed or uploaded record; ApiError 404 for an id this server never gave out,
        422 for a record that does not replay. The replay is built outside the library's lock."""
        if not RECORD_ID.fullmatch(record_id):
            raise ApiError(404, "no record with that id")
        if record_id.startswith("u-"):
            with self._lock:
                if record_id not in self._uploads:
                    raise ApiError(404, "no uploaded record with that id (uploads are forgotten after a while: "
                                        "upload it again)")
                key: tuple = ("u", record_id)
                if key in self._open:
                    self._open.move_to_end(key)
                    return self._open[key]
                name, record, _ = self._uploads[record_id]
        else:
            entry = self.index.get(record_id)
            if entry is None:
                self.index.maybe_refresh()
                raise ApiError(404, "no record with that id in the records folder")
            name = entry.name
            try:
                info = entry.path.stat()
            except OSError:
                raise ApiError(404, f"{name}: that record file is gone from the records folder") from None
            key = ("r", record_id, info.st_mtime_ns, info.st_size)
            with self._lock:
                if key in self._open:
                    self._open.move_to_end(key)
                    return self._open[key]
            try:
                record = _read_record(entry.path, info.st_size)
            except (ValueError, OSError) as exc:
                raise ApiError(422, f"{name}: {exc}"[:600]) from None
        try:
            view = ReplayView(record_id, name, record)
        except ValueError as exc:
            raise ApiError(422, f"{name}: {exc}"[:600]) from None
        if view.nbytes > MAX_REPLAY_BYTES:
            raise ApiError(422, f"{name}: this record is too long to show here")
        with self._lock:
            return self._keep(key, view)
