"""The benchmarks' one results file, benchmarks/results.json: the latest figures of each measurement.

    python benchmarks/results.py            # list the entries: key, date, commit, machine
    python benchmarks/results.py peers      # one entry in full

Each entry (a key such as `peers`, `cold_start`, `throughput/hadara/2p`, `main_job`) holds the date, the
git commit measured (and whether tracked files had uncommitted edits), a description of the machine (CPU
model, cores, Python, numpy and numba versions) and the figures. A script replaces its own entry when it
runs (`--no-record` leaves the file alone); the history is in git. `scripts/gen_docs.py` renders README's
tables from this file, and `tests/test_docs.py` fails when they are stale.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"


def cpu_model() -> str | None:
    """The CPU's model name (Linux /proc/cpuinfo; elsewhere what platform knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    import numpy

    try:
        import numba

        numba_version = numba.__version__
    except ImportError:  # (a benchmark of the install itself may run before numba is there)
        numba_version = None
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {"cpu_model": cpu_model(), "cores": os.cpu_count(), "usable_cores": usable,
            "platform": platform.platform(), "python": platform.python_version(), "numpy": numpy.__version__,
            "numba": numba_version, "loadavg": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None}


def source_tree() -> dict[str, Any]:
    """The commit measured, and whether tracked files had uncommitted edits (they ran too)."""
    def git(*cmd: str) -> str:
        proc = subprocess.run(["git", "-C", str(HERE), *cmd], capture_output=True, text=True)
        return proc.stdout.strip() if proc.returncode == 0 else ""

    return {"commit": git("rev-parse", "--short", "HEAD") or None,
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


def load(path: Path = RESULTS) -> dict[str, Any]:
    """The results file as a dict ({"entries": {}} when there is none yet)."""
    if not path.exists():
        return {"entries": {}}
    return json.loads(path.read_text())


def entry(script: str, figures: dict[str, Any], note: str = "") -> dict[str, Any]:
    """A new entry for `figures`, measured now, on this machine and tree."""
    tree = source_tree()
    out = {"script": script,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "commit": tree["commit"], "dirty": tree["dirty"], "machine": machine(), "figures": figures}
    if note:
        out["note"] = note
    return out


def record(key: str, script: str, figures: dict[str, Any], note: str = "", path: Path = RESULTS) -> dict[str, Any]:
    """Replaces entry `key` of the results file with the figures measured now; returns the entry."""
    data = load(path)
    new = entry(script, figures, note)
    data.setdefault("entries", {})[key] = new
    data["entries"] = dict(sorted(data["entries"].items()))
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    os.replace(tmp, path)  # atomic: a reader never sees half a file
    print(f"recorded {key!r} in {path}", file=sys.stderr)
    return new


def main(argv: list[str]) -> int:
    entries = load()["entries"]
    if argv:
        for key in argv:
            if key not in entries:
                print(f"error: no entry {key!r}; entries: {', '.join(entries)}", file=sys.stderr)
                return 2
            print(json.dumps({key: entries[key]}, indent=1, ensure_ascii=False))
        return 0
    for key, e in entries.items():
        m = e.get("machine") or {}
        print(f"{key:<28} {e.get('date') or '?':<22} {e.get('commit') or '?':<9} "
              f"{m.get('cpu_model') or m.get('description') or '?'}, {m.get('cores') or '?'} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
