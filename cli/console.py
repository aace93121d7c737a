"""What the command-line tools share: output paths checked before the work, and progress that suits the console.

- `check_folder` / `check_file`: an output path is checked while the arguments are, so a path that cannot be
  written fails at once with one `error:` line (exit code 2) instead of a traceback after the work has run.
  A missing folder is fine when it can be created (its nearest existing parent is a folder this process can
  write in); the check makes and removes one temporary file there.
- `interactive()`: progress bars redraw in place on a terminal; when the output goes to a file or a pipe they
  are replaced by a few plain lines (`Ticker`), so a log holds what happened rather than thousands of redraws.
- `wait_for_compile()`: waits for a background compile of the game kernels with a line every few seconds
  (elapsed time), so the wait never looks hung.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from meeple.agents.io import ArgsError


def interactive() -> bool:
    """True when progress bars can redraw in place: stderr is a terminal."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path.cwd()


def _probe(option: str, shown: str, folder: Path) -> None:
    """Raises ArgsError unless a file can be created in the existing folder `folder`."""
    try:
        fd, name = tempfile.mkstemp(prefix=".meeple-write-test-", dir=folder)
    except OSError as exc:
        raise ArgsError(f"{option} {shown!r}: cannot write in {str(folder)!r} ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(name)


def _check_dir(option: str, shown: str, folder: Path) -> None:
    existing = _nearest_existing(folder)
    if not existing.is_dir():
        raise ArgsError(f"{option} {shown!r}: {str(existing)!r} is a file, not a folder")
    _probe(option, shown, existing)


def check_folder(option: str, folder: str | Path) -> None:
    """Raises ArgsError unless `folder` is a writable folder, or can be created as one."""
    if not str(folder):
        raise ArgsError(f"{option}: an empty path is not a folder")
    _check_dir(option, str(folder), Path(folder).expanduser().absolute())


def check_file(option: str, file: str | Path) -> None:
    """Raises ArgsError unless `file` can be written: not a folder, and its folder writable or creatable."""
    shown = str(file)
    path = Path(file).expanduser()
    if not path.name or path.is_dir():
        raise ArgsError(f"{option} {shown!r} is a folder, not a file name")
    _check_dir(option, shown, path.absolute().parent)


class Ticker:
    """Progress for a non-terminal: one plain line when a phase starts and then every `every` share of it
    (10% by default) or every `seconds`, whichever comes first, instead of a bar that redraws in place."""

    def __init__(self, label: str, total: float, every: float = 0.1, seconds: float = 60.0, stream=None) -> None:
        self.label, self.total, self.every, self.seconds = label, max(float(total), 1e-9), every, seconds
        self.stream = stream or sys.stdout
        self.start = self.last_time = time.perf_counter()
        self.next_share = every
        self.closed = False

    def update(self, done: float, note: str = "") -> None:
        share = min(1.0, done / self.total)
        now = time.perf_counter()
        if share >= self.next_share or now - self.last_time >= self.seconds:
            while self.next_share <= share:
                self.next_share += self.every
            self.last_time = now
            extra = f", {note}" if note else ""
            print(f"{self.label}: {share:4.0%} after {clock(now - self.start)}{extra}", file=self.stream, flush=True)


def clock(seconds: float) -> str:
    """h:mm:ss or m:ss."""
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


def wait_for_compile(every: float = 10.0) -> float:
    """Waits for the background compile of the game kernels this process started or found (if any), printing
    what it waits for and the elapsed time every `every` seconds; returns the seconds waited."""
    from meeple.envs import first_use

    pending = first_use.compiling()
    if not pending:
        return 0.0
    start = time.perf_counter()
    done = threading.Event()
    tty = interactive()

    def tick() -> None:
        while not done.wait(every):
            line = f"compiling the {', '.join(pending)} kernels (once; later runs load them): {clock(time.perf_counter() - start)}"
            if tty:
                print("\r" + line, end="", file=sys.stderr, flush=True)
            else:
                print(line, file=sys.stderr, flush=True)

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        first_use.wait_for_kernels()
    finally:
        done.set()
        thread.join()
    waited = time.perf_counter() - start
    if tty and waited >= every:
        print(file=sys.stderr)
    print(f"compiled the {', '.join(pending)} kernels in {clock(waited)}", file=sys.stderr, flush=True)
    return waited
