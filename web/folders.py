"""Folder indexes built once and refreshed in the background, so that no request walks a folder.

A `FolderIndex` knows the files of one folder tree with given suffixes (sub-folders included, links that
lead out of the folder left out, at most `limit` files, the first in path order). It is built when the
server starts; afterwards a request only reads the index under a short lock. A request may *ask* for a
refresh (`maybe_refresh`), which starts one background thread if the index is older than its refresh
interval and none is running; the request never waits for it. The interval grows with the time a walk
takes (at least `REFRESH_FACTOR` x the last walk), so a folder of many files (TensorBoard logs next to the
records) costs at most a small fraction of one core however many requests arrive.

Each file found may be described once per version (mtime and size) by a `describe(name, path, stat)` callback
run in the walk's thread (the records library parses a record there); the index keeps only what it returns.
"""

from __future__ import annotations

import os
import stat as stat_module
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

MIN_REFRESH_SECONDS = 2.0
REFRESH_FACTOR = 20.0


class IndexEntry:
    """One file of the index: its name inside the folder (posix), resolved path, (mtime_ns, size) and the
    description `describe` gave for that version."""

    __slots__ = ("name", "path", "key", "info")

    def __init__(self, name: str, path: Path, key: tuple[int, int], info: Any) -> None:
        self.name = name
        self.path = path
        self.key = key
        self.info = info


class FolderIndex:
    def __init__(self, folder: Path | None, suffixes: tuple[str, ...], limit: int,
                 describe: Callable[[str, Path, os.stat_result], Any] | None = None,
                 key_of: Callable[[str], str] | None = None, min_refresh_seconds: float = MIN_REFRESH_SECONDS) -> None:
        self.folder = folder.resolve() if folder is not None else None
        self.suffixes = suffixes
        self.limit = limit
        self.describe = describe
        self.key_of = key_of if key_of is not None else (lambda name: name)
        self.min_refresh_seconds = min_refresh_seconds
        self._lock = threading.Lock()
        self._entries: dict[str, IndexEntry] = {}  # by key_of(name), in path order
        self._scanned_at = 0.0
        self._walk_seconds = 0.0
        self._thread: threading.Thread | None = None
        self.walks = 0  # how many walks ran (for tests and the docs' claims)
        self.refresh()

    # --- reading ---------------------------------------------------------------------------------

    def entries(self) -> list[IndexEntry]:
        with self._lock:
            return list(self._entries.values())

    def get(self, key: str) -> IndexEntry | None:
        """The entry of key_of(name) == key (the name itself by default), or None."""
        with self._lock:
            return self._entries.get(key)

    def interval(self) -> float:
        return max(self.min_refresh_seconds, REFRESH_FACTOR * self._walk_seconds)

    def maybe_refresh(self) -> None:
        """Start a background walk if the index is older than its interval and no walk is running."""
        if self.folder is None:
            return
        with self._lock:
            if self._thread is not None or time.monotonic() - self._scanned_at < self.interval():
                return
            self._thread = threading.Thread(target=self._background, name="meeple-folder-index", daemon=True)
            self._thread.start()

    def _background(self) -> None:
        try:
            self.refresh()
        finally:
            with self._lock:
                self._thread = None

    # --- walking ---------------------------------------------------------------------------------

    def _walk(self) -> list[tuple[str, Path, os.stat_result]]:
        """(name, resolved path, stat) of the matching files, in path order, at most `limit`."""
        root = self.folder
        if root is None or not root.is_dir():
            return []
        found: list[tuple[str, str]] = []
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames.sort()
            for filename in filenames:
                if filename.endswith(self.suffixes):
                    full = os.path.join(dirpath, filename)
                    found.append((os.path.relpath(full, root).replace(os.sep, "/"), full))
        found.sort()
        out = []
        for name, full in found:
            if len(out) >= self.limit:
                break
            try:
                resolved = Path(full).resolve()
                if not resolved.is_relative_to(root):
                    continue  # a link out of the folder
                info = resolved.stat()
            except (OSError, RuntimeError):
                continue
            if stat_module.S_ISREG(info.st_mode):
                out.append((name, resolved, info))
        return out

    def refresh(self) -> None:
        """Walk the folder now (in the caller's thread) and swap the new index in."""
        started = time.monotonic()
        with self._lock:
            old = dict(self._entries)
        entries: dict[str, IndexEntry] = {}
        walked = self._walk()
        walk_seconds = time.monotonic() - started  # the walk alone: describing new files is a one-off cost
        for name, path, info in walked:
            key, index_key = (info.st_mtime_ns, info.st_size), self.key_of(name)
            previous = old.get(index_key)
            if previous is not None and previous.key == key and previous.path == path:
                entries[index_key] = previous
                continue
            described = self.describe(name, path, info) if self.describe is not None else None
            entries[index_key] = IndexEntry(name, path, key, described)
        with self._lock:
            self._entries = entries
            self._scanned_at = time.monotonic()
            self._walk_seconds = walk_seconds
            self.walks += 1
