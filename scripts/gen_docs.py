"""Regenerate the code-produced tables in docs/<game>.md (and check they are current).

    python scripts/gen_docs.py           # rewrite the generated sections
    python scripts/gen_docs.py --check   # exit 1 if a page is out of date (tests/test_docs.py)

A page marks each generated section with `<!-- BEGIN GENERATED: key -->` ... `<!-- END GENERATED -->`.
Keys: `actions` (from the game's data.ACTION_GROUPS), `observation` (the default encoder's blocks) and
`state` (the field table in envs/<game>/state.py).
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import numpy as np

from meeple.envs import GAMES, default_encoder, make

ROOT = Path(__file__).resolve().parents[1]
SECTION = re.compile(r"(<!-- BEGIN GENERATED: (\w+) -->\n)(.*?)(<!-- END GENERATED -->)", re.DOTALL)


def action_table(name: str) -> str:
    data = importlib.import_module(f"meeple.envs.{name}.data")
    last_group = data.ACTION_GROUPS[-1]
    names = data.action_names(last_group[0] + last_group[1])
    rows = ["| Index | Name | Phase | Meaning |", "|---|---|---|---|"]
    for first, count, _, phase, meaning in data.ACTION_GROUPS:
        last = first + count - 1
        index = str(first) if count == 1 else f"{first}..{last}"
        shown = f"`{names[first]}`" if count == 1 else f"`{names[first]}` … `{names[last]}`"
        rows.append(f"| {index} | {shown} | {phase} | {meaning} |")
    return "\n".join(rows)


def observation_table(name: str) -> str:
    config = GAMES[name].test_configs[-1]
    encoder = default_encoder(name, make(name, **config))
    return f"Total size: **{encoder.size}** float32 values.\n\n" + encoder.layout_table()


def state_table(name: str) -> str:
    """The game's field table (envs/<game>/state.py): the one description of every state field."""
    from meeple.envs.base import field_range

    state = importlib.import_module(f"meeple.envs.{name}.state")
    rows = ["| Field | Shape | Type | Range | Visible to | Meaning |", "|---|---|---|---|---|---|"]
    seen = {"public": "everyone", "private": "its owner", "hidden": "nobody"}
    for f in state.FIELDS:
        shape = "(B" + "".join(f", {d}" for d in f.shape) + ("," if not f.shape else "") + ")"
        bounds = field_range(f, 2)
        shown = "" if bounds is None else f"{f.lo if f.lo is not None else bounds[0]}..{f.hi if f.hi is not None else 'max'}"
        rows.append(f"| `{f.name}` | {shape} | {np.dtype(f.dtype).name} | {shown} | {seen[f.visibility]} | {f.doc} |")
    if state.VIEW_FIELDS:
        rows += ["", "A seat's `View` holds the viewer, every field visible to everyone, and these fields the observe "
                 "kernel writes for it:", "", "| View field | Shape | Meaning |", "|---|---|---|"]
        for f in state.VIEW_FIELDS:
            rows.append(f"| `{f.name}` | (B{''.join(f', {d}' for d in f.shape)}) | {f.doc} |")
    return "\n".join(rows)


GENERATORS = {"actions": action_table, "observation": observation_table, "state": state_table}


def render(name: str, text: str) -> str:
    return SECTION.sub(lambda m: m.group(1) + GENERATORS[m.group(2)](name) + "\n" + m.group(4), text)


def main(check: bool) -> int:
    stale = []
    for name in GAMES:
        path = ROOT / "docs" / f"{name}.md"
        text = path.read_text()
        new = render(name, text)
        if new != text:
            stale.append(str(path.relative_to(ROOT)))
            if not check:
                path.write_text(new)
    if check and stale:
        print(f"out of date: {stale}; run python scripts/gen_docs.py")
        return 1
    print("docs updated: " + (", ".join(stale) or "nothing to do"))
    return 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv))
