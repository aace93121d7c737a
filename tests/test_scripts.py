"""The scripts end to end, by subprocess on tiny budgets: train.py writes a model a PolicyAgent can play."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
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


@needs_training_extras
def test_train_progress_bars_and_hyperparameters(tmp_path):
    """Every phase says what it does; the PPO progress is sized to what ends the run (here the time limit, long
    before --total-timesteps), so it ends at 100% "by time"; the arguments are TensorBoard hyperparameters. The
    output is not a terminal here, so instead of bars redrawn in place it gets a plain line per tenth."""
    cmd = [sys.executable, str(ROOT / "train.py"), "--game", GAME, "--run-dir", str(tmp_path), "--exp-name", "bars",
           *TINY, "--progress-bar", "--imitation-steps", "512", "--imitation-epochs", "1",
           "--total-timesteps", "10_000_000", "--time-limit-minutes", "0.15"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert "\r" not in out  # no bar redrawn in place in a log
    assert "[imitation] 512 learner-seat moves of heuristic to clone" in proc.stdout
    assert "[imitation] " in proc.stdout and "transitions cloned, accuracy" in proc.stdout
    ppo = [line for line in proc.stdout.splitlines() if line.startswith("ppo: ")]
    assert 1 <= len(ppo) <= 11 and ppo[-1].startswith("ppo: 100%") and "ends by time" in ppo[-1]
    assert len(out.splitlines()) < 60
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(tmp_path / "bars" / "tb"), size_guidance={"tensors": 0})
    events.Reload()
    plugins = events.PluginTagToContent("hparams")
    session = next(v for k, v in plugins.items() if k == "_hparams_/session_start_info")
    assert b"total_timesteps" in session and b"learning_rate" in session


# --- bad arguments: exit code 2 and one line naming the option, before any work (nothing is written) ---

TRAIN_BAD = [  # (arguments, text the message must contain), checked by run_bad
    (["--time-limit-minutes", "-1"], "--time-limit-minutes"),
    (["--exp-name", "../.."], "--exp-name"),
    (["--n-envs", "0"], "--n-envs"),
    (["--n-steps", "0"], "--n-steps"),
    (["--batch-size", "0"], "--batch-size"),
    (["--eval-games", "0"], "--eval-games"),
    (["--seed", "-1"], "--seed"),
    (["--opponents", "foo"], "'foo'"),  # the spec itself, not a weights-count complaint
    (["--eval-opponents", "random", "bar"], "'bar'"),
    (["--game", "chess"], "--game"),
    (["--num-players", "7"], "--num-players"),
]
TRAIN_BAD_IN_PROCESS = [  # the same check through validate_args directly, without a process each
    ({"time_limit_minutes": float("nan")}, "--time-limit-minutes"),
    ({"exp_name": "a/b"}, "--exp-name"),
    ({"exp_name": ".."}, "--exp-name"),
    ({"exp_name": "a\\b"}, "--exp-name"),
    ({"n_envs": 2, "n_steps": 4, "batch_size": 16}, "--batch-size"),  # more than a rollout holds
    ({"batch_size": 1}, "--batch-size"),
    ({"total_timesteps": 0}, "--total-timesteps"),
    ({"checkpoint_minutes": -1.0}, "--checkpoint-minutes"),
    ({"opponents": ("random", "mcts:x"), "opponent_weights": (1.0, 1.0)}, "'mcts:x'"),
    ({"eval_opponents": ("human",)}, "--eval-opponents"),
    ({"teacher": "baz"}, "'baz'"),
    ({"opponent_weights": (1.0,)}, "--opponent-weights"),
    ({"opponent_weights": (0.0, 0.0)}, "--opponent-weights"),
    ({"variant": '{"nope": true}'}, "--variant"),
    ({"variant": "[1]"}, "--variant"),
    ({"learning_rate": 0.0}, "--learning-rate"),
    ({"gamma": 1.5}, "--gamma"),
    ({"net_arch": (32, 0)}, "--net-arch"),
]
EVALUATE_BAD = [
    (["--games", "0"], "--games"),
    (["--agents", "heuristic", "foo"], "'foo'"),
    (["--agents", "ppo:missing/model.zip"], "'ppo:missing/model.zip'"),
    (["--num-players", "9"], "--num-players"),
    (["--game", "chess"], "--game"),
    (["--seed", "-1"], "--seed"),
    (["--batch-size", "-1"], "--batch-size"),
    (["--json", "."], "--json"),
    (["--json", "out.json", "--plot", "out.xyz"], "--plot"),
    (["--json", "same.png"], "--plot"),
]


def run_bad(script: str, cases: list, cwd: Path, monkeypatch, capsys) -> None:
    """Checks every case's exit code (2) and one-line message, writing nothing: the first through the script
    as a process (the contract a shell sees), the others through the same command line in this process
    (`meeple.cli.<script>.run_cli`), which spares each the ~5 s of imports (torch) a process pays."""
    def check(extra: list[str], code: int, stderr: str, expected: str) -> None:
        lines = stderr.strip().splitlines()
        assert code == 2, (extra, stderr[-2000:])
        assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], (extra, stderr[-2000:])

    (first, expected), rest = cases[0], cases[1:]
    proc = subprocess.run([sys.executable, str(ROOT / script), *first], cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    check(first, proc.returncode, proc.stderr, expected)
    run_cli = importlib.import_module(f"meeple.cli.{Path(script).stem}").run_cli
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    for extra, expected in rest:
        code = run_cli(extra)
        check(extra, code, capsys.readouterr().err, expected)
    assert list(cwd.iterdir()) == [], "a rejected run wrote files"


@needs_training_extras
def test_train_rejects_bad_arguments(tmp_path, monkeypatch, capsys):
    work = tmp_path / "work"  # runs/ would appear here; ../.. would escape it
    work.mkdir()
    run_bad("train.py", TRAIN_BAD, work, monkeypatch, capsys)
    assert list(tmp_path.iterdir()) == [work]


@needs_training_extras
def test_train_validate_args(tmp_path):
    from meeple.agents.io import ArgsError
    from meeple.cli import train  # what train.py runs (checkout_entry.py)

    base = {"run_dir": str(tmp_path)}
    train.validate_args(train.Args(**base))  # the defaults pass
    for change, expected in TRAIN_BAD_IN_PROCESS:
        with pytest.raises(ArgsError, match=re.escape(expected)):
            train.validate_args(train.Args(**base, **change))
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ArgsError, match="outside --run-dir"):
        train.validate_args(train.Args(run_dir=str(tmp_path / "runs"), exp_name="link"))


def test_evaluate_rejects_bad_arguments(tmp_path, monkeypatch, capsys):
    run_bad("evaluate.py", EVALUATE_BAD, tmp_path, monkeypatch, capsys)


def test_atomic_write_keeps_the_old_file_when_interrupted(tmp_path):
    from meeple.agents.io import atomic_write, atomic_write_text

    path = tmp_path / "model.zip"
    atomic_write_text(path, "good")
    for error in (OSError("disk full"), KeyboardInterrupt()):
        with pytest.raises(type(error)), atomic_write(path) as f:
            f.write(b"half of a new fi")
            f.flush()
            raise error
        assert path.read_text() == "good"
        assert [p.name for p in tmp_path.iterdir()] == ["model.zip"]  # no temp file left behind
    with atomic_write(path) as f:
        f.write(b"new")
    assert path.read_bytes() == b"new" and [p.name for p in tmp_path.iterdir()] == ["model.zip"]
    (tmp_path / "plain").write_bytes(b"")  # the permissions an ordinary write gives (umask applied)
    assert path.stat().st_mode & 0o777 == (tmp_path / "plain").stat().st_mode & 0o777


@needs_training_extras
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_train_saves_on_interrupt(tmp_path, sig):
    """A signal after the first checkpoint stops training at the next step; model and summary are saved."""
    import signal
    import time

    cmd = [sys.executable, str(ROOT / "train.py"), "--game", GAME, "--run-dir", str(tmp_path), "--exp-name", "tiny", *TINY,
           "--opponents", "random", "--opponent-weights", "1", "--eval-opponents", "random", "--eval-every", "10_000_000",
           "--total-timesteps", "100_000_000", "--time-limit-minutes", "30", "--checkpoint-rollouts", "1"]
    run = tmp_path / "tiny"
    # a child inherits an ignored SIGINT (pytest started as `... &` from a script): train.py would keep ignoring it
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 240  # ~20 s on an idle machine; startup is mostly imports
        while not (run / "checkpoint.zip").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (run / "checkpoint.zip").exists(), "no checkpoint"
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err[-3000:]
    reason = {"SIGINT": "interrupt", "SIGTERM": "sigterm"}[sig]
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(f"stopped by {reason} at step ")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["stopped_by"] == reason
    assert 512 <= summary["timesteps"] < 100_000_000  # at least the checkpointed rollout
    from sb3_contrib import MaskablePPO

    for name in ("model.zip", "checkpoint.zip"):
        assert MaskablePPO.load(run / name, device="cpu").policy is not None
