"""What train.py and evaluate.py share: atomic file writes, and checking arguments before any work starts.

    with atomic_write("runs/x/model.zip") as f:   # a temp file beside the target, fsync'ed, then renamed
        model.save(f)
    atomic_write_text("runs/x/summary.json", text)

A write interrupted at any point (an exception, Ctrl-C, SIGTERM, a full disk) leaves the old file, if any,
untouched and no temp file behind: readers see either the old or the new file, never a truncated one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

_UMASK = os.umask(0)  # read once at import (os.umask can only be read by setting it) ...
os.umask(_UMASK)  # ... and put back at once


class ArgsError(ValueError):
    """A command-line argument is invalid; the message names the option (the scripts print it and exit 2)."""


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb") -> Iterator[IO[Any]]:
    """An open temp file in `path`'s folder that replaces `path` only when the block completes.

    The data is flushed and fsync'ed before `os.replace` (atomic on POSIX and Windows within one file
    system, hence the same folder), and the folder is fsync'ed after, so a crash cannot leave a renamed
    but empty file either. On any exception (KeyboardInterrupt included) the temp file is removed.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp creates 0600; give the file the permissions an ordinary open() would have
        os.chmod(tmp, 0o666 & ~_UMASK)
        with os.fdopen(fd, mode) as f:
            fd = -1  # owned by f from here on
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Persist the rename itself; folders cannot be opened for fsync on every platform (Windows), so best effort."""
    with suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """`Path.write_text`, atomically."""
    with atomic_write(path, "wb") as f:
        f.write(text.encode(encoding))


def check_game(game: str, num_players: int, variant: str) -> dict:
    """The variant flags parsed from JSON; raises ArgsError unless `game` is registered and its config accepts them.

    Builds the game's `Config` only (cheap: no kernels run), which applies the same checks as `make`.
    """
    import importlib
    import json

    from meeple.envs import GAMES, list_games

    if game not in GAMES:
        raise ArgsError(f"--game: unknown game {game!r}; registered games: {', '.join(list_games())}")
    try:
        flags = json.loads(variant)
    except json.JSONDecodeError as exc:
        raise ArgsError(f"--variant: not valid JSON ({exc}): {variant!r}") from None
    if not isinstance(flags, dict):
        raise ArgsError(f"--variant must be a JSON object, got {variant!r}")
    if "num_players" in flags:
        raise ArgsError("--variant: set the player count with --num-players, not in the variant")
    module, cls = GAMES[game].rules.split(":")
    config_cls = getattr(importlib.import_module(module), cls).Config
    try:
        config_cls(num_players=num_players, **flags)
    except TypeError as exc:  # an unknown flag
        raise ArgsError(f"--variant: {game} does not accept {sorted(flags)} ({exc})") from None
    except ValueError as exc:  # the config's range checks name the field (num_players or a flag)
        option = "--num-players" if "num_players" in str(exc) else "--variant"
        raise ArgsError(f"{option}: {exc} for {game}") from None
    return flags


def check_agent_specs(option: str, specs: Sequence[str], game: str, num_players: int, variant: dict,
                      allow_human: bool = True) -> None:
    """Raises ArgsError naming `option` and the first spec `make_agent` rejects (it builds each agent once)."""
    from meeple.agents import make_agent
    from meeple.agents.spec import parse_spec

    for text in specs:
        try:
            spec = parse_spec(text)
        except ValueError as exc:  # the parser's message names the spec
            raise ArgsError(f"{option}: {exc}") from None
        if spec.kind == "human" and not allow_human:
            raise ArgsError(f"{option}: agent spec 'human' cannot play here (nobody is at the terminal)")
        try:
            make_agent(spec, game, num_players, **variant)
        except ValueError as exc:  # make_agent's message names the spec
            raise ArgsError(f"{option}: {exc}") from None


def option(name: str) -> str:
    """The command-line spelling of an Args field: batch_size -> --batch-size (tyro's convention)."""
    return "--" + name.replace("_", "-")


def check_at_least(args: Any, minimum: int, *names: str) -> None:
    """Raises ArgsError for the first integer `args.<name>` below `minimum`."""
    for name in names:
        if getattr(args, name) < minimum:
            raise ArgsError(f"{option(name)} must be at least {minimum}, got {getattr(args, name)}")


def check_range(args: Any, name: str, lo: float, hi: float = float("inf"), lo_open: bool = False) -> None:
    """Raises ArgsError unless the float `args.<name>` is finite and in [lo, hi] ((lo, hi] if lo_open)."""
    value = getattr(args, name)
    above = value > lo if lo_open else value >= lo
    if not (above and value <= hi and value < float("inf")):  # NaN fails every comparison
        bounds = f"{'(' if lo_open else '['}{lo}, {'inf)' if hi == float('inf') else f'{hi}]'}"
        raise ArgsError(f"{option(name)} must be a finite number in {bounds}, got {value}")


def check_run_paths(exp_name: str, run_dir: str) -> None:
    """Raises ArgsError unless --run-dir is (or can become) a folder and --exp-name ("" = the default name) a plain
    folder name inside it: no path separators, not '.' or '..', not a symlink out of --run-dir, not a file."""
    name = exp_name
    if name and (name.strip() in ("", ".", "..") or any(c in name for c in ("/", "\\", os.sep, os.altsep or "/", "\0"))):
        raise ArgsError(f"--exp-name must be a plain folder name (no path separators, not '.' or '..'), got {name!r}")
    folder = Path(run_dir).resolve()
    if folder.exists() and not folder.is_dir():
        raise ArgsError(f"--run-dir {run_dir!r} is not a folder")
    if name and (folder / name).resolve().parent != folder:  # e.g. a symlink leading elsewhere
        raise ArgsError(f"--exp-name {name!r} resolves outside --run-dir {run_dir!r}")
    if name and (folder / name).exists() and not (folder / name).is_dir():
        raise ArgsError(f"--exp-name {name!r}: {folder / name} exists and is not a folder")
