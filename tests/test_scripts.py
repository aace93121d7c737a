"""The scripts end to end, by subprocess on tiny budgets: train.py writes a model a PolicyAgent can play."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
needs_training_extras = pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None,
                                           reason="train.py needs stable-baselines3, sb3-contrib and torch")
GAME = "roll_through_the_ages"
TINY = ["--n-envs", "8", "--n-steps", "64", "--batch-size", "256", "--net-arch", "32", "32",
        "--eval-games", "8", "--eval-every", "1024", "--snapshot-every", "1024", "--no-progress-bar",
        "--imitation-steps", "0", "--bc-coef", "0"]  # no warm start by default here (a later flag wins)


def run_train(tmp_path: Path, *extra: str) -> dict:
    cmd = [sys.executable, str(ROOT / "train.py"), "--game", GAME, "--num-players", "2", "--run-dir", str(tmp_path),
           "--exp-name", "tiny", *TINY, *extra]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = tmp_path / "tiny"
    assert (run / "model.zip").is_file()
    assert any((run / "tb").glob("events.out.tfevents.*"))
    return json.loads((run / "summary.json").read_text())


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> tuple[Path, dict]:
    tmp = tmp_path_factory.mktemp("train")
    return tmp / "tiny" / "model.zip", run_train(tmp, "--total-timesteps", "2048")


@needs_training_extras
def test_train_writes_model_and_summary(trained):
    _, summary = trained
    assert summary["timesteps"] >= 2048 and summary["stopped_by"] == "total_timesteps"
    assert summary["args"]["run_name"] == "tiny"
    assert summary["env_steps_per_s"] > 0
    assert 0 < summary["timings"]["env_share_of_learning"] < 1
    assert [p["timesteps"] for p in summary["curve"]][0] == 0  # the untrained baseline comes first
    assert summary["curve"][-1]["timesteps"] == summary["timesteps"]
    for spec in ("random", "heuristic"):
        assert 0.0 <= summary["final"][spec]["win_rate"] <= 1.0
    assert summary["snapshots"] == ["ppo:snapshot@1024", "ppo:snapshot@2048"]


@needs_training_extras
def test_policy_agent_plays_legal_moves(trained):
    from meeple.agents.arena import play_games
    from meeple.agents.policy import PolicyAgent
    from meeple.agents.random_agent import RandomAgent
    from meeple.envs import make

    path, _ = trained
    agent = PolicyAgent(path, GAME, num_players=2)
    assert agent.name == f"ppo:{path}"
    game = make(GAME, num_players=2)
    result = play_games(game, [agent, RandomAgent()], 8, seed=0)  # raises on an illegal action
    assert result["games"] == 8
    state = game.init(np.random.default_rng(0), 16)
    a1 = agent.act(game, state, np.random.default_rng(1))
    a2 = agent.act(game, state, np.random.default_rng(2))
    assert np.array_equal(a1, a2)  # deterministic: the rng is unused
    assert game.legal_action_mask(state)[np.arange(16), a1].all()
    sampler = PolicyAgent(path, GAME, deterministic=False)  # encoder built from the first game it sees
    assert game.legal_action_mask(state)[np.arange(16), sampler.act(game, state, np.random.default_rng(3))].all()


@needs_training_extras
def test_train_stops_at_the_time_limit(tmp_path):
    summary = run_train(tmp_path, "--total-timesteps", "10_000_000", "--time-limit-minutes", "0.05")
    assert summary["stopped_by"] == "time_limit"
    assert summary["timesteps"] < 10_000_000
    assert summary["curve"][-1]["timesteps"] == summary["timesteps"]


@needs_training_extras
def test_train_with_imitation_warm_start(tmp_path):
    summary = run_train(tmp_path, "--total-timesteps", "1024", "--imitation-steps", "2048", "--imitation-epochs", "2",
                        "--bc-coef", "0.5", "--bc-decay", "0.9")
    imitation = summary["imitation"]
    assert 0 < imitation["transitions"] <= 2048 and 0 <= imitation["accuracy"] <= 1
    assert imitation["total_s"] >= imitation["collect_s"] > 0
    assert summary["timings"]["bc_s"] > 0
    assert summary["curve"][0]["wall_time_s"] >= imitation["total_s"]  # the curve's clock includes the warm start
