"""The docs' generated tables (actions, observation layout) match the code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from meeple.envs import GAMES

ROOT = Path(__file__).resolve().parents[1]


def test_every_game_has_a_page_with_generated_tables():
    for name in GAMES:
        text = (ROOT / "docs" / f"{name}.md").read_text()
        assert "<!-- BEGIN GENERATED: actions -->" in text
        assert "<!-- BEGIN GENERATED: observation -->" in text
        assert f"docs/{name}.md" in (ROOT / "README.md").read_text()


def test_generated_tables_are_current():
    result = subprocess.run([sys.executable, "scripts/gen_docs.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
