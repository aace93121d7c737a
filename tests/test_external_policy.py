"""Your own policy in a tournament: `py:module:name` specs (`meeple.agents.external`), end to end through
`meeple evaluate`, the checks on what a policy returns, and the torch adapter for a CleanRL-style agent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from meeple.agents import make_agent
from meeple.agents.arena import play_games
from meeple.agents.external import PythonPolicyAgent, TorchPolicy
from meeple.cli.evaluate import run_cli
from meeple.envs import make, make_encoder

ROOT = Path(__file__).resolve().parents[1]
RTTA = "roll_through_the_ages"


def test_meeple_evaluate_rates_a_python_policy(tmp_path):
    """`meeple evaluate --agents py:examples.my_policy:policy heuristic`, run as a user runs it (the console
    script, from the checkout), plays the seeded tournament and reports the policy by its spec."""
    meeple = Path(sys.executable).with_name("meeple")
    proc = subprocess.run([str(meeple), "evaluate", "--game", RTTA, "--agents", "py:examples.my_policy:policy", "heuristic",
                           "--games", "4", "--no-progress", "--json", str(tmp_path / "result.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["games"] == 4 and set(summary["win_rate"]) == {"py:examples.my_policy:policy", "heuristic"}
    assert sum(summary["win_rate"].values()) == pytest.approx(1.0)
    saved = json.loads((tmp_path / "result.json").read_text())
    assert [a["name"] for a in saved["agents"]] == ["py:examples.my_policy:policy", "heuristic"]
    assert all(a["games"] == 4 for a in saved["agents"])


@pytest.mark.parametrize("spec, message", [
    ("py:", "must name a module and an object"),
    ("py:examples.my_policy", "must name a module and an object"),
    ("py:no_such_module_for_meeple:policy", "cannot import module 'no_such_module_for_meeple'"),
    ("py:examples.my_policy:nothing", "module 'examples.my_policy' has no 'nothing'"),
    ("py:examples.my_policy:GAME", "'GAME' is a str, not a policy"),
    ("py:examples.my_policy:Agent", "'Agent' is a type, not a policy"),
])
def test_bad_python_specs_are_refused_by_name(spec, message, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    with pytest.raises(ValueError, match=message):
        make_agent(spec, RTTA, 2)
    assert run_cli(["--game", RTTA, "--agents", spec, "random", "--no-save"]) == 2  # before any game
    assert message.split("'")[0] in capsys.readouterr().err


def first_legal(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return mask.argmax(axis=1)


def test_a_function_plays_and_sees_only_unfinished_rows_of_its_seat():
    """A plain function of (observation, mask) plays whole games; every call shows it the default encoding of
    the unfinished rows for their seat to move, with those rows' legal masks."""
    game = make(RTTA, num_players=2)
    encoder = make_encoder(RTTA, game)
    seen = []

    def policy(observation, mask):
        seen.append((observation.shape, mask.shape, mask.any(axis=1).all()))
        return first_legal(observation, mask)

    result = play_games(game, [PythonPolicyAgent(policy, RTTA, "mine"), make_agent("random", RTTA)], 4, seed=1)
    assert result["games"] == 4 and seen
    assert all(o[1] == encoder.size and m[1] == game.num_actions and o[0] == m[0] and legal for o, m, legal in seen)


@pytest.mark.parametrize("answer, message", [
    (lambda o, m: np.full(len(m), -1), "illegal actions"),
    (lambda o, m: (~m).argmax(axis=1), "illegal actions"),
    (lambda o, m: m.argmax(axis=1).astype(float), "returned float64"),
    (lambda o, m: m.argmax(axis=1)[:1], "expected"),
])
def test_a_policy_answer_is_checked(answer, message):
    game = make(RTTA, num_players=2)
    state = game.init(np.random.default_rng(0), 3)
    with pytest.raises(ValueError, match=f"policy 'bad' .*{message}|policy 'bad' {message}"):
        PythonPolicyAgent(answer, RTTA, "bad").act(game, state, np.random.default_rng(0))


def test_torch_policy_takes_the_best_legal_logit_or_samples_reproducibly():
    """`TorchPolicy` on a CleanRL-style module (an `actor` head): the argmax of the masked logits, always
    legal; sampled, the same seed gives the same actions."""
    game = make(RTTA, num_players=2)
    encoder = make_encoder(RTTA, game)

    class CleanRLAgent(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.actor = torch.nn.Linear(encoder.size, game.num_actions)
            self.critic = torch.nn.Linear(encoder.size, 1)

    torch.manual_seed(0)
    module = CleanRLAgent()
    rng = np.random.default_rng(2)
    observation = rng.random((16, encoder.size), dtype=np.float32)
    mask = rng.random((16, game.num_actions)) < 0.2
    mask[np.arange(16), rng.integers(game.num_actions, size=16)] = True
    greedy = TorchPolicy(module).act(observation, mask)
    with torch.no_grad():
        logits = module.actor(torch.as_tensor(observation)).numpy()
    np.testing.assert_array_equal(greedy, np.where(mask, logits, -np.inf).argmax(axis=1))
    sampled = [TorchPolicy(module, sample=True, seed=5).act(observation, mask) for _ in range(2)]
    np.testing.assert_array_equal(sampled[0], sampled[1])
    assert mask[np.arange(16), sampled[0]].all() and greedy.dtype == np.int64
