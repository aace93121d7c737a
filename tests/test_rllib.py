"""RLlib: the multi-agent env adapter, and the self-play PPO example on a local Ray cluster of two nodes.

Runs where `ray[rllib]` is installed (the `rllib` extra pins versions whose gymnasium differs from the main
environment's, so CI gives it its own venv: scripts/test.sh). The cluster is started the way a real
one is (`ray start --head`, then `ray start --address` for a second node on this machine, with token
authentication and, for the second node, an empty numba cache as on a fresh machine); what else differs
on machines that share only a network is in docs/scaling.md.
"""

from __future__ import annotations

import json
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


def _lines(proc: subprocess.CompletedProcess, prefix: str) -> list[str]:
    return [line for line in proc.stdout.splitlines() if line.startswith(prefix)]


def test_example_refuses_bad_arguments_before_starting_ray(tmp_path):
    # one bad argument only: each run spends seconds importing RLlib and torch before it can refuse
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "rllib_selfplay_ppo.py"), "--resume",
                           "--checkpoint-dir", str(tmp_path / "new")], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr[-2000:]
    assert f"error: --resume: no checkpoint (iteration_NNNNNN folder) in '{tmp_path / 'new'}'" in proc.stderr.splitlines()
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


def test_selfplay_ppo_example_on_a_two_node_cluster(tmp_path):
    """Two nodes, the second with an empty numba cache (a fresh machine): the set-up hook compiles the kernels
    there before the first step (and loads them on the head, whose cache scripts/setup.sh filled); then the
    run resumes from its checkpoint, with an evaluation against the heuristic at every iteration."""
    ray_cli = str(Path(sys.executable).with_name("ray"))
    # token authentication with this cluster's own token: nothing read from or written to ~/.ray (without a
    # token there, `ray start --head` refuses to start in token mode)
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32), "RAY_USAGE_STATS_ENABLED": "0"}
    cold_cache, run_dir, cwd = tmp_path / "numba-cache", tmp_path / "run", tmp_path / "cwd"
    cold_cache.mkdir()
    cwd.mkdir()
    port = _free_port()
    address = f"127.0.0.1:{port}"
    ray_cmd = lambda *args, **extra_env: subprocess.run([ray_cli, *args], env={**env, **extra_env},  # noqa: E731
                                                    capture_output=True, text=True, timeout=180)
    example = [sys.executable, str(ROOT / "examples" / "rllib_selfplay_ppo.py"), "--address", address, "--env-runners", "2",
               "--batch", "1000", "--minibatch", "250", "--epochs", "1", "--checkpoint-dir", str(run_dir),
               "--checkpoint-every", "1", "--eval-every", "1", "--eval-games", "4"]
    try:
        head = ray_cmd("start", "--head", "--port", str(port), "--num-cpus", "1", "--include-dashboard", "false")
        assert head.returncode == 0, head.stderr[-2000:]
        # the second node's workers inherit its environment: a numba cache of their own, empty
        worker = ray_cmd("start", "--address", address, "--num-cpus", "1", NUMBA_CACHE_DIR=str(cold_cache))
        assert worker.returncode == 0, worker.stderr[-2000:]
        first = subprocess.run([*example, "--iterations", "2"], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
        assert first.returncode == 0, first.stderr[-3000:]
        resumed = subprocess.run([*example, "--iterations", "3", "--resume"], cwd=cwd, env=env, capture_output=True,
                                 text=True, timeout=600)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
    finally:
        ray_cmd("stop", "--force")
    for proc in (first, resumed):  # the figures, for `pytest -rP`
        print(*_lines(proc, "resumed"), *_lines(proc, "time to first step"), *_lines(proc, "evaluation"), *_lines(proc, "done"),
              sep="\n")

    lines = first.stdout.strip().splitlines()
    assert "2 env runners on 2 of the Ray cluster's 2 node(s)" in lines[0]  # a runner on each node
    reports = _lines(first, "iteration ")
    assert len(reports) == 2 and re.match(r"iteration 2/2  [\d,]+ steps  [\d,]+ steps/s", reports[-1])
    assert re.fullmatch(r"done: [\d,]+ steps in [\d.]+ s \([\d,]+ steps/s\), 2 node\(s\)", lines[-1])

    # the set-up hook ran on both nodes before their first step: it compiled into the empty cache ...
    start_up = r"time to first step, node (\w+) \(.*, 1 env runner\(s\)\): ([\d.]+) s to (\w+) the kernels (?:into|from) a (\w+) " \
               r"numba cache \((.*)\); ready ([\d.]+) s, first step ([\d.]+) s after the start"
    nodes = [re.fullmatch(start_up, line) for line in _lines(first, "time to first step")]
    assert len(nodes) == 2 and all(nodes) and nodes[0][1] != nodes[1][1], _lines(first, "time to first step")
    cold = next(m for m in nodes if m[5].startswith(str(cold_cache)))  # (numba adds the sources' path)
    head_node = next(m for m in nodes if m is not cold)
    assert (cold[3], cold[4]) == ("compile", "cold") and any(cold_cache.rglob("*.nbi"))
    assert not head_node[5].startswith(str(cold_cache))  # (warm when scripts/setup.sh compiled the games first)
    assert all(float(m[6]) <= float(m[7]) for m in nodes)  # ready, then stepped
    # ... and on the resumed run both nodes loaded their (now warm) caches
    nodes = [re.fullmatch(start_up, line) for line in _lines(resumed, "time to first step")]
    assert len(nodes) == 2 and all(nodes) and {m[4] for m in nodes} == {"warm"}
    assert any(m[5].startswith(str(cold_cache)) for m in nodes)

    # the resumed run restored the policy evaluated at the checkpoint's iteration (it replays the same games
    # with the same result, mean score included) and continued the count from there
    assert f"resumed from {run_dir / 'iteration_000002'} at iteration 2" in resumed.stdout
    (replay,) = _lines(resumed, "evaluation of the restored policy: ")
    restored, recorded = re.fullmatch(r"evaluation of the restored policy: (.*) \(recorded at iteration 2: (.*)\)", replay).groups()
    assert restored == recorded == _lines(first, "evaluation at iteration 2: ")[0].removeprefix("evaluation at iteration 2: ")
    assert [line.split()[1] for line in _lines(resumed, "iteration ")] == ["3/3"]
    assert sorted(p.name for p in run_dir.iterdir()) == ["eval.json", "iteration_000001", "iteration_000002",
                                                         "iteration_000003"]
    # an evaluation against the heuristic at every iteration, kept across the resume
    evaluations = json.loads((run_dir / "eval.json").read_text())["evaluations"]
    assert [e["iteration"] for e in evaluations] == [1, 2, 3]
    for e in evaluations:
        low, high = e["win_ci95"]
        assert e["games"] == 4 and 0 <= low <= e["win_rate"] <= high <= 1 and isinstance(e["mean_score"], float)
    assert len(_lines(first, "evaluation at iteration")) == 2 and len(_lines(resumed, "evaluation at iteration")) == 1
    assert list(cwd.iterdir()) == []  # nothing written outside --checkpoint-dir
