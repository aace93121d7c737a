"""The advantage head (issue 42): its file format and act rule, the paired-playout label generator
(`meeple.agents.advantage`) and the offline trainer `train.py --algo advantage` (stop, resume, manifest)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the train extra

from meeple.agents import make_agent  # noqa: E402
from meeple.agents.advantage import (candidate_moves, load_shard, paired_advantages, save_shard,  # noqa: E402
                                     tune_margin)
from meeple.agents.net import (NetAgent, PolicyValueNet, advantage_actions, load_net, read_header,  # noqa: E402
                               save_net)
from meeple.envs import core, make  # noqa: E402

from helpers import random_steps  # noqa: E402

torch.set_num_threads(1)
RTTA = "roll_through_the_ages"


def advantage_net(game: Any, name: str = RTTA, margin: float = 0.1, seed: int = 0) -> PolicyValueNet:
    return PolicyValueNet.for_game(name, game, hidden=(8,), seed=seed, hint="heuristic", head="advantage",
                                   margin=margin)


def positions(game: Any, n: int, seed: int, steps: int = 20) -> Any:
    """n unfinished positions with at least two legal moves each, after random play."""
    state = random_steps(game, np.random.default_rng(seed), 4 * n, steps)
    mask = game.legal_action_mask(state)
    rows = np.flatnonzero(~np.asarray(state.done) & (mask.sum(axis=1) > 1))[:n]
    assert rows.size == n, "the test needs more open positions"
    return core.take(state, rows)


def _rewrite_meta(path: Path, change: Any) -> None:
    """Edit the meeple header inside a saved net file (the safetensors layout kept valid)."""
    data = path.read_bytes()
    n = int.from_bytes(data[:8], "little")
    entries = json.loads(data[8:8 + n])
    meta = json.loads(entries["__metadata__"]["meeple"])
    change(meta)
    entries["__metadata__"]["meeple"] = json.dumps(meta)
    header = json.dumps(entries).encode()
    header += b" " * (-len(header) % 8)
    path.write_bytes(len(header).to_bytes(8, "little") + header + data[8 + n:])


# --- the head and its file ------------------------------------------------------------------------

def test_an_advantage_net_round_trips_and_scores_the_hinted_move_zero(tmp_path):
    game = make(RTTA, num_players=2)
    net = advantage_net(game, margin=0.125)
    assert net.header["head"] == {"kind": "advantage", "margin": 0.125} and net.margin == 0.125
    assert "hint_weight" not in net.state_dict(), "the advantage head has no hint weight"
    with torch.no_grad():  # a head that is not zero, so that the round trip and Â(h) = 0 mean something
        for p in net.parameters():
            p.copy_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())))
    path = tmp_path / "adv.safetensors"
    save_net(net, path)
    loaded = load_net(path, RTTA, game)
    assert loaded.header == net.header == read_header(path) and loaded.head_kind == "advantage"
    state = positions(game, 16, seed=1)
    scores, _ = loaded.evaluate(game, state)
    np.testing.assert_array_equal(scores, net.evaluate(game, state)[0])
    hint = make_agent("heuristic", RTTA).act(game, state, np.random.default_rng(0))
    assert np.all(scores[np.arange(16), hint] == 0.0), "Â(s, h) is exactly 0"
    np.testing.assert_array_equal(NetAgent(loaded).act(game, state, np.random.default_rng(0)),
                                  advantage_actions(scores, hint, 0.125))
    # existing nets are untouched: no head field, a policy head with its hint weight
    policy = PolicyValueNet.for_game(RTTA, game, hidden=(8,), hint="heuristic")
    assert "head" not in policy.header and policy.head_kind == "policy" and "hint_weight" in policy.state_dict()
    explicit = tmp_path / "policy.safetensors"
    save_net(policy, explicit)
    _rewrite_meta(explicit, lambda m: m.update(head={"kind": "policy"}))
    assert load_net(explicit).head_kind == "policy"


@pytest.mark.parametrize("head, message", [
    ({"kind": "q"}, "head must be"),
    ({"kind": "advantage"}, "head must be"),
    ({"kind": "advantage", "margin": -0.5}, "head must be"),
    ({"kind": "advantage", "margin": "0.1"}, "head must be"),
    ({"kind": "advantage", "margin": float("inf")}, "head must be"),
    ({"kind": "advantage", "margin": True}, "head must be"),
    ({"kind": "advantage", "margin": 0.1, "extra": 1}, "head must be"),
    ({"kind": "policy", "margin": 0.1}, "head must be"),
    ("advantage", "head must be"),
    ({"kind": "policy"}, "tensors do not match"),  # the file holds an advantage head's tensors
])
def test_a_malformed_head_field_is_refused(tmp_path, head, message):
    game = make(RTTA, num_players=2)
    path = tmp_path / "adv.safetensors"
    save_net(advantage_net(game), path)
    _rewrite_meta(path, lambda m: m.update(head=head))
    with pytest.raises(ValueError, match=message):
        load_net(path)


def test_an_advantage_head_needs_a_hint_and_refuses_sampling_and_mcts(tmp_path):
    game = make(RTTA, num_players=2)
    with pytest.raises(ValueError, match="needs a hint"):
        PolicyValueNet.for_game(RTTA, game, hidden=(8,), head="advantage", margin=0.1)
    path = tmp_path / "adv.safetensors"
    save_net(advantage_net(game), path)
    unhinted = tmp_path / "unhinted.safetensors"
    save_net(advantage_net(game), unhinted)
    _rewrite_meta(unhinted, lambda m: m.pop("hint"))
    with pytest.raises(ValueError, match="needs a hint"):
        load_net(unhinted)
    with pytest.raises(ValueError, match="sample=1 needs a policy head"):
        make_agent(f"net:{path}:sample=1", RTTA)
    with pytest.raises(ValueError, match="MCTS needs a policy head"):
        make_agent(f"search:{path}:sims=4", RTTA)
    assert make_agent(f"net:{path}", RTTA, num_players=2).net.head_kind == "advantage"


# --- the act rule ---------------------------------------------------------------------------------

def test_the_act_rule_keeps_the_heuristics_move_unless_beaten_by_the_margin():
    ninf = -np.inf
    adv = np.array([[0.0, 0.05, ninf],    # best alternative below the margin: the hint (0)
                    [0.0, 0.25, 0.2],     # above it: the best alternative (1)
                    [0.1, ninf, 0.0],     # exactly the margin is not beating it: the hint (2)
                    [-0.3, 0.0, -0.1]])   # every alternative worse: the hint (1)
    hint = np.array([0, 0, 2, 1])
    np.testing.assert_array_equal(advantage_actions(adv, hint, 0.1), [0, 1, 2, 1])
    np.testing.assert_array_equal(advantage_actions(adv, hint, 0.0), [1, 1, 0, 1])
    np.testing.assert_array_equal(advantage_actions(adv, hint, 1.0), hint)


def test_a_fresh_advantage_net_is_the_heuristic_and_the_margin_decides(tmp_path):
    """Zero-initialised head: Â = 0, the heuristic's moves everywhere. With a head that scores one move
    0.5 above everything else, the net plays it where the heuristic does not below margin 0.5, and the
    heuristic's move at 0.5 and above; the margin travels in the file."""
    game = make(RTTA, num_players=2)
    net = advantage_net(game, margin=0.0)
    state = positions(game, 48, seed=2)
    heuristic = make_agent("heuristic", RTTA).act(game, state, np.random.default_rng(0))
    np.testing.assert_array_equal(NetAgent(net).act(game, state, np.random.default_rng(0)), heuristic)
    mask = game.legal_action_mask(state)
    favourite = int(np.argmax((mask & (np.arange(mask.shape[1]) != heuristic[:, None])).sum(axis=0)))
    other = mask[:, favourite] & (heuristic != favourite)
    assert other.sum() >= 4, "the test needs positions where the favourite is legal and not the heuristic's"
    with torch.no_grad():
        net.policy_head.bias[favourite] = 0.5
    for margin, expected in ((0.4, np.where(other, favourite, heuristic)), (0.5, heuristic), (0.6, heuristic)):
        net.set_margin(margin)
        path = tmp_path / f"m{margin}.safetensors"
        save_net(net, path)
        loaded = make_agent(f"net:{path}", RTTA)
        assert loaded.net.margin == margin
        np.testing.assert_array_equal(loaded.act(game, state, np.random.default_rng(0)), expected)
    with pytest.raises(ValueError, match="head must be"):
        net.set_margin(-1.0)


# --- labels ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [RTTA, "hadara"])
def test_labels_pair_the_playouts_and_are_deterministic(name):
    """A candidate equal to the heuristic's move plays the same determinization and the same dice as the
    heuristic's move in every playout: its difference is exactly 0 with standard error 0. The same seed gives
    the same labels."""
    game = make(name, num_players=2)
    state = positions(game, 6, seed=3)
    heuristic = make_agent("heuristic", name)
    hint = heuristic.act(game, state, np.random.default_rng(0))
    mask = game.legal_action_mask(state)
    other = np.array([next(a for a in np.flatnonzero(m) if a != h) for m, h in zip(mask, hint)])
    candidates = np.stack([hint, hint, other, np.full(6, -1)], axis=1)
    labels = paired_advantages(game, state, candidates, heuristic, np.random.default_rng(7), playouts=3,
                               max_playouts=3)
    assert np.all(labels.diff[:, :2] == 0.0) and np.all(labels.se[:, :2] == 0.0)
    np.testing.assert_array_equal(labels.count, np.tile([3, 3, 3, 0], (6, 1)))
    assert np.isnan(labels.diff[:, 3]).all() and np.isfinite(labels.diff[:, 2]).all()
    assert np.all(np.abs(labels.diff[:, 2]) <= 2.0) and np.all(labels.se[:, 2] >= 0)  # returns are in [-1, 1]
    assert labels.playouts == 6 * 3 * 3
    again = paired_advantages(game, state, candidates, heuristic, np.random.default_rng(7), playouts=3,
                              max_playouts=3)
    for a, b in ((labels.diff, again.diff), (labels.se, again.se), (labels.count, again.count)):
        np.testing.assert_array_equal(a, b)


def test_racing_adds_playouts_only_to_close_challengers():
    """The first round of a raced labelling is the unraced one (same seed, same streams); afterwards only the
    challengers not yet told apart from the heuristic's move (|mean| < race_z x se) got more playouts, and
    the heuristic's move was replayed beside them."""
    game = make(RTTA, num_players=2)
    state = positions(game, 12, seed=4)
    heuristic = make_agent("heuristic", RTTA)
    hint = heuristic.act(game, state, np.random.default_rng(0))
    mask = game.legal_action_mask(state)
    scores = np.where(mask, np.random.default_rng(1).random(mask.shape), -np.inf)
    candidates = candidate_moves(mask, hint, scores, np.random.default_rng(2), top_k=3, random_prob=0.0)
    assert np.all(candidates[:, 0] == hint) and np.all(candidates[:, -1] == -1)
    first = paired_advantages(game, state, candidates, heuristic, np.random.default_rng(5), playouts=2,
                              max_playouts=2, race_z=1.5)
    raced = paired_advantages(game, state, candidates, heuristic, np.random.default_rng(5), playouts=2,
                              max_playouts=8, race_z=1.5)
    challenger = candidates[:, 1:] >= 0
    close = challenger & (np.abs(first.diff[:, 1:]) < 1.5 * first.se[:, 1:])
    assert close.any() and (challenger & ~close).any(), "the test needs close and clear challengers"
    extra = raced.count[:, 1:] > 2
    np.testing.assert_array_equal(extra, close)
    np.testing.assert_array_equal(raced.diff[:, 1:][challenger & ~close], first.diff[:, 1:][challenger & ~close])
    assert np.all(raced.count[:, 1:][challenger] <= 8) and np.all(raced.count[:, 1:][~challenger] == 0)
    np.testing.assert_array_equal(raced.count[:, 0], raced.count.max(axis=1))


def test_candidates_are_legal_distinct_and_start_with_the_heuristics_move():
    mask = np.array([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0], [0, 1, 0, 1, 1]], dtype=bool)
    hint = np.array([2, 0, 4])
    scores = np.where(mask, np.array([[0.1, 0.5, 0.0, 0.3, -0.2]] * 3), -np.inf)
    out = candidate_moves(mask, hint, scores, np.random.default_rng(0), top_k=2, random_prob=1.0)
    np.testing.assert_array_equal(out[:, :3], [[2, 1, 3], [0, 1, -1], [4, 1, 3]])
    assert out[0, 3] in (0, 4) and out[1, 3] == -1 and out[2, 3] == -1  # nothing left to draw in rows 1 and 2


def test_the_margin_is_tuned_on_fresh_labels_and_shards_refuse_pickles(tmp_path):
    data = {"candidates": np.array([[3, 1, -1], [0, 2, 5], [4, 1, 0]]),
            "predicted": np.array([[0.0, 0.3, 0.0], [0.0, 0.05, 0.01], [0.0, 0.15, 0.0]], dtype=np.float32),
            "diff": np.array([[0.0, 0.4, np.nan], [0.0, -0.2, 0.1], [0.0, -0.1, 0.0]], dtype=np.float32)}
    margin, gains = tune_margin(data)  # three positions are no evidence: the heuristic stays
    assert margin == 1.0 and gains["0.2"] == pytest.approx(0.4 / 3, abs=1e-6) and gains["0"] < gains["0.2"]
    rng = np.random.default_rng(0)
    # 100 positions where the net's top move (Â 0.3) gains 0.4 and 100 where its top move (Â 0.05) loses 0.2:
    # margins from 0.05 up to 0.2 take only the first kind (ties go to the largest of them)
    many = {"candidates": np.tile([[0, 1, -1]], (200, 1)),
            "predicted": np.repeat(np.array([[0.0, 0.3, 0.0], [0.0, 0.05, 0.0]], dtype=np.float32), 100, axis=0),
            "diff": np.concatenate([0.4 + 0.05 * rng.standard_normal(100), -0.2 + 0.05 * rng.standard_normal(100)])
            [:, None] * np.array([[0.0, 1.0, 0.0]])}
    margin, gains = tune_margin(many)
    assert margin == 0.2 and gains["0.2"] == pytest.approx(0.2, abs=0.01) and gains["0"] == pytest.approx(0.1, abs=0.01)
    # a mean gain above 0 by less than its noise is no evidence either (a young net's top moves, measured once)
    noisy = {**many, "predicted": np.full((200, 3), 0.3, np.float32) * np.array([[0, 1, 0]], np.float32),
             "diff": (0.05 + rng.standard_normal(200))[:, None] * np.array([[0.0, 1.0, 0.0]])}
    assert tune_margin(noisy)[0] == 1.0
    n = 3
    shard = {"obs": np.zeros((n, 5), np.float32), "mask": np.ones((n, 6), bool), "value": np.zeros((n, 2), np.float32),
             "se": np.zeros((n, 3), np.float32), "count": np.full((n, 3), 2, np.int32), **data}
    path = tmp_path / "s.npz"
    save_shard(path, shard, {"shard": 1})
    arrays, meta = load_shard(path)
    assert meta["shard"] == 1 and meta["format"] == "meeple-advantage-shard"
    np.testing.assert_array_equal(arrays["candidates"], data["candidates"])
    evil = tmp_path / "evil.npz"
    np.savez(evil, **{k: v for k, v in arrays.items()}, meta=np.array([{"x": 1}], dtype=object))
    with pytest.raises(ValueError, match="cannot read it"):
        load_shard(evil)


# --- the trainer ----------------------------------------------------------------------------------

TINY = ["--algo", "advantage", "--game", RTTA, "--num-players", "2", "--hidden", "8", "--games-per-shard", "2",
        "--label-prob", "0.05", "--top-k", "1", "--playouts", "2", "--max-playouts", "4", "--window-shards", "2",
        "--batch-size", "16", "--eval-games", "2"]


def test_a_tiny_run_stops_resumes_exactly_and_accumulates_its_manifest(tmp_path):
    """Two shards straight, or one, then a session the time limit stops inside its first iteration (dropped),
    then a resume to two: the same net, byte for byte; the manifest adds up the sessions."""
    from meeple.cli.train import run_cli

    def run(name: str, *extra: str) -> int:
        return run_cli([*TINY, "--run-dir", str(tmp_path), "--exp-name", name, *extra])

    assert run("straight", "--total-shards", "2") == 0
    assert run("split", "--total-shards", "1") == 0
    assert run("split", "--resume", "--total-shards", "2", "--time-limit-minutes", "0.00001") == 0
    middle = json.loads((tmp_path / "split" / "manifest.json").read_text())
    assert middle["shards"] == 1 and middle["sessions"][-1]["stopped_by"] == "time_limit"
    assert run("split", "--resume", "--total-shards", "2", "--hidden", "99") == 0  # the run's own --hidden wins
    straight, split = tmp_path / "straight", tmp_path / "split"
    assert (straight / "net.safetensors").read_bytes() == (split / "net.safetensors").read_bytes()
    net = load_net(split / "net.safetensors", RTTA, make(RTTA, num_players=2))
    assert net.head_kind == "advantage" and net.header["hidden"] == [8]
    manifest = json.loads((split / "manifest.json").read_text())
    reference = json.loads((straight / "manifest.json").read_text())
    assert manifest["shards"] == reference["shards"] == 2
    assert manifest["labelled_states"] == reference["labelled_states"] > 0
    sessions = manifest["sessions"]
    assert [s["shards"] for s in sessions] == [1, 0, 1] and [s["resumed"] for s in sessions] == [False, True, True]
    assert sum(s["labelled_states"] for s in sessions) == manifest["labelled_states"]
    assert manifest["hours"] == pytest.approx(sum(s["hours"] for s in sessions), abs=1e-4) and manifest["hours"] > 0
    assert manifest["cpu_hours"] == pytest.approx(sum(s["cpu_hours"] for s in sessions), abs=1e-4)
    assert 0 < manifest["cpu_hours"] and all(s["cpu_hours"] <= 2 * s["hours"] + 1e-4 for s in sessions)  # 2 cores
    curve = json.loads((split / "curve.json").read_text())
    assert curve[0]["labelled_states"] == 0 and curve[-1]["labelled_states"] == manifest["labelled_states"]
    for point in curve:
        assert {"hours", "labelled_states", "win_rate", "win_ci95"} <= set(point)
        assert point["win_ci95"][0] <= point["win_rate"] <= point["win_ci95"][1]
    assert [p["hours"] for p in curve] == sorted(p["hours"] for p in curve)
    assert load_net(split / "best.safetensors", RTTA).head_kind == "advantage"
    checkpoint = json.loads((split / "checkpoint.json").read_text())
    assert sorted(p.name for p in (split / "shards").iterdir()) == ["shard-000001.npz", "shard-000002.npz"]
    assert sorted(p.name for p in (split / "checkpoint").iterdir()) == [
        "net-000002.safetensors", "optimizer-000002.safetensors"] == sorted(
        Path(checkpoint[k]).name for k in ("net", "optimizer"))
    arrays, meta = load_shard(split / "shards" / "shard-000002.npz")
    assert meta["shard"] == 2 and len(arrays["obs"]) == meta["positions"]
    assert not list(split.rglob(".*.tmp")), "a temp file was left behind"


def test_a_run_can_start_from_a_net_file(tmp_path):
    """--init-net: a new run starts from the file's weights and margin (not --hidden's), and its manifest names
    the file; a policy net or another game's net is refused before any work."""
    from meeple.cli.train import run_cli

    assert run_cli([*TINY, "--run-dir", str(tmp_path), "--exp-name", "first", "--total-shards", "1"]) == 0
    start = tmp_path / "first" / "net.safetensors"
    assert run_cli([*TINY, "--run-dir", str(tmp_path), "--exp-name", "next", "--init-net", str(start),
                    "--hidden", "16", "--time-limit-minutes", "0.00001"]) == 0
    nxt = tmp_path / "next"
    manifest = json.loads((nxt / "manifest.json").read_text())
    assert manifest["init_net"] == {"file": str(start), "sha256": hashlib.sha256(start.read_bytes()).hexdigest()}
    assert manifest["shards"] == 0  # (stopped inside its first iteration: the net is the file's)
    before, after = load_net(start, RTTA), load_net(nxt / "net.safetensors", RTTA)
    assert after.header["hidden"] == [8] and after.margin == before.margin
    for name, tensor in before.state_dict().items():
        assert torch.equal(tensor, after.state_dict()[name]), name
    assert run_cli([*TINY, "--run-dir", str(tmp_path), "--exp-name", "next", "--resume", "--total-shards", "1"]) == 0
    from meeple.cli.advantage import Args, validate_args

    named = Args(game=RTTA, init_net="roll_through_the_ages-2p", run_dir=str(tmp_path))  # a shipped baseline's name
    validate_args(named)
    assert Path(named.init_net).is_file()
    assert json.loads((nxt / "manifest.json").read_text())["init_net"] == manifest["init_net"]


BAD = [  # (arguments, text the one-line message must contain)
    (["--playouts", "1"], "--playouts"),
    (["--playouts", "4", "--max-playouts", "3"], "--max-playouts"),
    (["--label-prob", "0"], "--label-prob"),
    (["--race-z", "-1"], "--race-z"),
    (["--margin", "nan"], "--margin"),
    (["--selfplay-share", "2"], "--selfplay-share"),
    (["--se-eps", "0"], "--se-eps"),
    (["--hidden", "0"], "--hidden"),
    (["--resume"], "--resume needs --exp-name"),
    (["--resume", "--exp-name", "nothing"], "no checkpoint"),
    (["--exp-name", "../x"], "--exp-name"),
    (["--game", "chess"], "--game"),
    (["--init-net", "missing.safetensors"], "--init-net"),
]


def test_bad_arguments_exit_2_with_one_line_before_any_work(tmp_path, capsys, monkeypatch):
    from meeple.cli.train import run_cli

    monkeypatch.chdir(tmp_path)
    for extra, expected in BAD:
        assert run_cli(["--algo", "advantage", *extra]) == 2, extra
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], (extra, lines)
    assert list(tmp_path.iterdir()) == [], "a rejected run wrote files"
    (tmp_path / "runs" / "taken").mkdir(parents=True)
    (tmp_path / "runs" / "taken" / "checkpoint.json").write_text("{}")
    assert run_cli(["--algo", "advantage", "--exp-name", "taken"]) == 2
    assert "add --resume" in capsys.readouterr().err
    assert run_cli(["--algo", "advantage", "--exp-name", "taken", "--resume"]) == 2
    assert "not a meeple-advantage-checkpoint" in capsys.readouterr().err
