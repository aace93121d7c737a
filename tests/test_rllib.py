"""RLlib: the multi-agent env adapter, and the self-play PPO example on a local Ray cluster of two nodes.

Runs where `ray[rllib]` is installed (the `rllib` extra pins versions whose gymnasium differs from the main
environment's, so CI gives it its own venv: scripts/test.sh). The cluster is started the way a real
one is (`ray start --head`, then `ray start --address` for a second node on this machine), so the
example's only difference from a run over many machines is the address.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("CI") and os.environ.get("MEEPLE_RLLIB_LEG"):
    import ray  # noqa: F401  (the rllib CI leg must have it: fail, not skip)
ray = pytest.importorskip("ray", reason="needs the rllib extra (pip install -e '.[rllib]')")

from meeple.envs import GAMES  # noqa: E402
from meeple.envs.rllib import MeepleMultiAgentEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_env_plays_turn_based_games_to_the_end(name):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    config = dict(GAMES[name].test_configs[-1])
    env = MeepleMultiAgentEnv({"game": name, **config})
    check_multiagent_environments(env)  # RLlib's own check (it steps random, unmasked actions)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=3)
    assert len(obs) == 1
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(20_000):
        (mover, o), = obs.items()
        assert env.observation_spaces[mover].contains(o)
        legal = np.flatnonzero(o["action_mask"])
        obs, rewards, terminateds, truncateds, _ = env.step({mover: int(rng.choice(legal))})
        for agent, r in rewards.items():
            totals[agent] += r
        if terminateds["__all__"] or truncateds["__all__"]:
            break
        assert len(obs) == 1 and not any(terminateds.values())
    assert terminateds["__all__"] and not truncateds["__all__"]
    assert set(obs) == set(env.possible_agents)  # every seat sees the end
    assert all(terminateds[a] for a in env.possible_agents)
    if len(env.possible_agents) > 1:
        assert abs(sum(totals.values())) < 1e-5 and max(totals.values()) > 0


def test_illegal_action_ends_the_game_or_raises():
    env = MeepleMultiAgentEnv({"game": "hadara", "num_players": 2})
    obs, _ = env.reset(seed=0)
    (mover, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    _, rewards, terminateds, truncateds, _ = env.step({mover: illegal})
    assert rewards[mover] == -1.0 and truncateds["__all__"]
    strict = MeepleMultiAgentEnv({"game": "hadara", "num_players": 2, "illegal_action": "raise"})
    obs, _ = strict.reset(seed=0)
    with pytest.raises(ValueError):
        strict.step({next(iter(obs)): illegal})
    with pytest.raises(ValueError, match="game must be one of"):
        MeepleMultiAgentEnv({"game": "chess"})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_selfplay_ppo_example_on_a_two_node_cluster(tmp_path):
    ray_cli = str(Path(sys.executable).with_name("ray"))
    # token authentication with this cluster's own token: nothing read from or written to ~/.ray (without a
    # token there, `ray start --head` refuses to start in token mode)
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32), "RAY_USAGE_STATS_ENABLED": "0"}
    port = _free_port()
    address = f"127.0.0.1:{port}"
    run = lambda *args: subprocess.run([ray_cli, *args], env=env, capture_output=True, text=True, timeout=180)  # noqa: E731
    try:
        head = run("start", "--head", "--port", str(port), "--num-cpus", "1", "--include-dashboard", "false")
        assert head.returncode == 0, head.stderr[-2000:]
        worker = run("start", "--address", address, "--num-cpus", "1")
        assert worker.returncode == 0, worker.stderr[-2000:]
        proc = subprocess.run([sys.executable, str(ROOT / "examples" / "rllib_selfplay_ppo.py"), "--address", address,
                               "--env-runners", "2", "--iterations", "2", "--batch", "1000", "--minibatch", "250",
                               "--epochs", "1"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    finally:
        run("stop", "--force")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert "2 env runners on 2 of the Ray cluster's 2 node(s)" in lines[0]  # a runner on each node
    reports = [line for line in lines if line.startswith("iteration ")]
    assert len(reports) == 2 and re.match(r"iteration 2/2  [\d,]+ steps  [\d,]+ steps/s", reports[-1])
    assert re.fullmatch(r"done: [\d,]+ steps in [\d.]+ s \([\d,]+ steps/s\), 2 node\(s\)", lines[-1])
    assert list(tmp_path.iterdir()) == []  # the example writes nothing
