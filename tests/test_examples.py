"""The examples in examples/ run end to end, each in its own process on a tiny budget, as a reader would run them.

Each example is documentation that can rot: a renamed info key or a changed env signature would break it
silently. Here each runs for a few updates (the same code paths as a long run: rollout, masking, GAE, the
update, the report; for the SB3 example also the evaluation games) and its report lines are checked. Each
process pays its imports (torch, a few seconds); about 12 s together on the 2-core machine.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_example(name: str, cwd: Path, *args: str) -> list[str]:
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / name), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert list(cwd.iterdir()) == [], "an example wrote files"
    return proc.stdout.strip().splitlines()


def test_cleanrl_masked_ppo(tmp_path):
    lines = run_example("cleanrl_masked_ppo.py", tmp_path, "--total-timesteps", "1024", "--num-envs", "8",
                        "--num-steps", "64", "--log-every", "1")
    assert lines[0].startswith("roll_through_the_ages, 2 players vs random: obs 366, 51 actions, 2 updates")
    reports = [line for line in lines if line.startswith("update ")]
    assert len(reports) == 2
    assert re.match(r"update 2/2  step 1024  [\d,]+ steps/s  mean episode return ", reports[-1])
    assert re.fullmatch(r"done: 1024 steps in [\d.]+ s \([\d,]+ steps/s\), \d+ episodes", lines[-1])


def test_pettingzoo_sb3_action_mask(tmp_path):
    lines = run_example("pettingzoo_sb3_action_mask.py", tmp_path, "--total-timesteps", "256", "--n-steps", "128",
                        "--batch-size", "64", "--eval-games", "4")
    assert re.fullmatch(r"trained: 256 steps in [\d.]+ s \([\d,]+ steps/s\)", lines[-2])
    assert re.fullmatch(r"win rate against random over 4 games: \d+\.\d% \(untrained: \d+\.\d%\)", lines[-1])


def test_mappo_centralised_critic(tmp_path):
    """The centralised critic reads the AEC env's `state()` (its size is `state_space`'s: two seats' views)."""
    lines = run_example("mappo_centralised_critic.py", tmp_path, "--updates", "2", "--games-per-update", "2",
                        "--log-every", "1", "--eval-games", "4")
    assert lines[0] == ("roll_through_the_ages, 2 players, self-play: observation 366, global state 732, "
                        "51 actions, 2 updates")
    assert re.fullmatch(r"update 2/2  games 4  decisions \d+  critic loss \d+\.\d{3}", lines[-2])
    assert re.fullmatch(r"done: 4 games in [\d.]+ s; the actor alone against random: \d+\.\d% of 4 games won", lines[-1])


def test_my_policy_rated_against_the_baselines(tmp_path):
    """The external policy of examples/my_policy.py against the heuristic, a search and a shipped net."""
    lines = run_example("my_policy.py", tmp_path, "--games", "12", "--opponents", "heuristic", "mcts:4",
                        "net:roll_through_the_ages-2p")
    assert lines[0] == "roll_through_the_ages, 2 players, 12 games, seed 0"
    names = [line.split()[0] for line in lines[1:]]
    assert names == ["my_policy", "heuristic", "mcts:4", "net:roll_through_the_ages-2p"]
    assert all(re.search(r"win rate +\d+\.\d% \[\d+\.\d%, \d+\.\d%\]  mean score -?\d+\.\d$", line) for line in lines[1:])
