"""Golden playthroughs: every registered game and test configuration replays byte for byte.

A failure means behaviour changed: the state, an observation, an action name, a chance outcome or a
reward differs from the committed file at the first differing line shown. If the change is
intended, rewrite the files with `python scripts/gen_playthroughs.py` and commit them on their own.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from meeple.envs.playthrough import golden_cases, playthrough_file

GOLDEN = Path(__file__).parent / "playthroughs"


@pytest.mark.parametrize("name, config, filename", golden_cases(), ids=[c[2][:-4] for c in golden_cases()])
def test_playthrough_unchanged(name: str, config: dict, filename: str) -> None:
    expected = (GOLDEN / filename).read_text()
    actual = playthrough_file(name, config)
    if actual != expected:
        diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "committed", "now", n=1, lineterm="")
        pytest.fail(f"{filename} changed:\n" + "\n".join(list(diff)[:20]))
