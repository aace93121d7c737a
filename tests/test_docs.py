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


def _gen_docs():
    import importlib.util

    spec = importlib.util.spec_from_file_location("meeple_gen_docs", ROOT / "scripts" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_tables_come_from_the_results_files():
    """README's measured tables are generated: a changed figure in benchmarks/results.json (or a changed
    shipped baseline) makes the check report README as stale, until scripts/gen_docs.py renders it again."""
    import copy
    import json

    gen = _gen_docs()
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    baselines = json.loads((ROOT / "agents" / "baselines" / "baselines.json").read_text())
    assert gen.stale(results, baselines) == []
    readme = (ROOT / "README.md").read_text()
    for key in ("games", "first_run", "baselines", "nets"):
        assert f"<!-- BEGIN GENERATED: {key} -->" in readme

    newer = copy.deepcopy(results)
    newer["entries"]["peers"]["figures"]["games"]["hadara"]["core"] += 1
    assert gen.stale(newer, baselines) == ["README.md", "docs/performance.md"]
    text = gen.render_measured(readme, newer, baselines)
    assert f"{newer['entries']['peers']['figures']['games']['hadara']['core']:,}" in text

    newer = copy.deepcopy(results)
    newer["entries"]["main_job"]["figures"]["tournament"]["policy_vs_heuristic"]["games"] = 400
    assert gen.stale(newer, baselines) == ["README.md"]

    other = copy.deepcopy(baselines)
    other["baselines"]["hadara-2p"]["policy"][0]["win_rate"] = 0.5
    assert gen.stale(results, other) == ["README.md"]


def test_readme_quotes_the_main_jobs_head_to_head_games():
    """The 600-game tournament of three agents at two players holds 200 games of each pair."""
    text = (ROOT / "README.md").read_text()
    assert "**200** head-to-head games of the 600-game tournament" in text
    assert "400 head-to-head" not in text


def test_readme_is_short_and_keeps_the_test_command():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 250
    start = lines.index("<!-- test-command -->")
    assert lines[start + 1] == "```bash" and lines[start + 2] == "bash scripts/test.sh"


def test_docs_stand_alone():
    """No page points outside the repository, and every relative link names a file that exists."""
    import re

    pages = [ROOT / "README.md", ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text()
        assert "../shared" not in text, page
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.relative_to(ROOT)} links to a missing {target}"
