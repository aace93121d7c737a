"""Recorded games: records replay exactly, every game of a tournament can be recorded, and a record
file is checked like a saved state (nothing in it is trusted)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from meeple.agents import make_agent
from meeple.agents.arena import play_games
from meeple.envs import GAMES, make
from meeple.envs.record import (
    GameRecord, LiveGame, ReplayError, load_record, parse_record, records_from_games, replay, save_record,
)


def _random_record(name: str, config: dict, seed: int) -> GameRecord:
    live = LiveGame(name, config, seed=seed, deal=3)
    agents = [make_agent("random", name, live.game.num_players, **{k: v for k, v in config.items() if k != "num_players"})
              for _ in range(live.game.num_players)]
    live.play_out(agents, np.random.default_rng(seed))
    return live.to_record([f"random_{p}" for p in range(live.game.num_players)], meta={"test": True})


@pytest.mark.parametrize("name", sorted(GAMES))
def test_record_round_trip_replays_every_state(name, tmp_path):
    config = dict(GAMES[name].test_configs[-1])
    record = _random_record(name, config, seed=5)
    assert record.scores is not None and len(record.actions) > 0
    path = tmp_path / "game.json"
    save_record(record, path)
    assert path.stat().st_size < 64_000  # a small log: moves and a seed, not states
    loaded = load_record(path)
    assert loaded == record
    rep = replay(loaded)
    assert len(rep.states) == len(record.actions) + 1
    assert bool(rep.states[-1].done[0])
    assert rep.scores()[-1].tolist() == record.scores
    # the same moves on the same chance stream, stepped by hand, give the same states
    live = LiveGame(name, config, seed=5, deal=3)
    for k, a in enumerate(record.actions):
        before, _ = live.step(a)
        for x, y in zip(before, rep.states[k]):
            np.testing.assert_array_equal(x, y)


def test_tournament_games_are_recorded_and_replay():
    """play_games with deals draws game i's luck from the record's chance stream, so its games replay."""
    name, config = "roll_through_the_ages", {"num_players": 2}
    game = make(name, **config)
    agents = [make_agent("heuristic", name, 2), make_agent("random", name, 2)]
    result = play_games(game, agents, 4, seed=9, deals=np.array([0, 0, 1, 1]), record=True,
                        seats=np.array([[0, 1], [1, 0], [0, 1], [1, 0]]))
    records = records_from_games(name, config, 9, result, ["heuristic", "random"])
    assert [r.agents for r in records] == [["heuristic", "random"], ["random", "heuristic"]] * 2
    for r in records:
        rep = replay(r)
        assert rep.scores()[-1].tolist() == r.scores


def test_diverging_record_names_the_step():
    record = _random_record("hadara", {"num_players": 2}, seed=1)
    payload = record.to_dict()
    k = len(payload["actions"]) // 2
    live = LiveGame("hadara", {"num_players": 2}, seed=1, deal=3)
    for a in payload["actions"][:k]:
        live.step(a)
    illegal = int(np.flatnonzero(~live.game.legal_action_mask(live.state)[0])[0])
    payload["actions"][k] = illegal
    with pytest.raises(ReplayError, match=f"step {k}") as info:
        replay(GameRecord.from_dict(payload))
    assert info.value.step == k
    # a different chance stream (another seed) diverges too, or ends with another result
    payload = record.to_dict()
    payload["seed"] = 2
    with pytest.raises(ReplayError):
        replay(GameRecord.from_dict(payload))
    # moves cut short: the recorded result cannot be reached
    payload = record.to_dict()
    payload["actions"] = payload["actions"][:-1]
    with pytest.raises(ReplayError, match=f"step {len(payload['actions'])}"):
        replay(GameRecord.from_dict(payload))


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(format="pickle"), "not a meeple.record"),
    (lambda d: d.update(version=1), "chance stream differs"),  # made before one uniform per step
    (lambda d: d.update(version=3), "not a meeple.record version 2"),
    (lambda d: d.update(game="chess"), "game must be one of"),
    (lambda d: d.update(game=["hadara"]), "game must be one of"),
    (lambda d: d.update(config={"num_players": 9}), "not a configuration"),
    (lambda d: d.update(config={"num_players": 2, "nope": True}), "not a configuration"),
    (lambda d: d.update(config={"num_players": {"a": 1}}), "must be a string"),
    (lambda d: d.update(seed=-1), "seed must be"),
    (lambda d: d.update(seed=1.5), "seed must be"),
    (lambda d: d.update(seed=True), "seed must be"),
    (lambda d: d.update(agents=["a"]), "agents must be"),
    (lambda d: d.update(agents=["a", "b" * 1000]), "at most"),
    (lambda d: d.update(actions=[10**9]), r"actions\[0\] must be"),
    (lambda d: d.update(actions=[-1]), r"actions\[0\] must be"),
    (lambda d: d.update(actions=["3"]), r"actions\[0\] must be"),
    (lambda d: d.update(actions=[0.0]), r"actions\[0\] must be"),
    (lambda d: d.update(actions=[0] * 100_000), "at most"),
    (lambda d: d.update(scores=[1]), "scores must be"),
    (lambda d: d.update(returns=[float("nan"), 0.0]), "returns must be"),
    (lambda d: d.update(meta={"x": [1]}), "must be a string"),
    (lambda d: d.update(extra=1), "unknown record fields"),
])
def test_bad_records_are_refused(mutate, message):
    payload = _random_record("hadara", {"num_players": 2}, seed=1).to_dict()
    mutate(payload)
    with pytest.raises(ValueError, match=message):
        parse_record(json.dumps(payload))


def test_oversized_and_deep_text_is_refused_before_parsing():
    with pytest.raises(ValueError, match="nests at most"):
        parse_record("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="at most"):
        parse_record(b" " * (5 * 2**20))
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_record(b"\x80\x04\x95")  # a pickle header is just invalid text here
    with pytest.raises(ValueError, match="must be a JSON object"):
        parse_record("[1, 2]")


def test_live_game_refuses_bad_moves_and_changes_nothing():
    live = LiveGame("carpe_diem", {"num_players": 2}, seed=0)
    before = [np.copy(f) for f in live.state]
    illegal = int(np.flatnonzero(~live.game.legal_action_mask(live.state)[0])[0])
    for bad in (illegal, -1, 10**12, 1.0, "3", True, None):
        with pytest.raises(ValueError):
            live.step(bad)
    assert live.actions == []
    for x, y in zip(before, live.state):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="unknown game"):
        LiveGame("go")
    with pytest.raises(ValueError, match="seed"):
        LiveGame("hadara", seed=-3)


def test_evaluate_record_writes_one_replayable_file_per_game(tmp_path, capsys):
    from meeple.cli.evaluate import run_cli

    folder = tmp_path / "records"
    code = run_cli(["--game", "utopia", "--agents", "heuristic", "random", "--games", "2", "--no-save",
                    "--no-progress", "--record", str(folder)])
    assert code == 0
    files = sorted(folder.glob("*.json"))
    assert [f.name for f in files] == ["utopia-2p-seed0-0.json", "utopia-2p-seed0-1.json"]
    for f in files:
        record = load_record(f)
        assert sorted(record.agents) == ["heuristic", "random"]
        assert replay(record).scores()[-1].tolist() == record.scores
    (tmp_path / "file").write_text("x")
    assert run_cli(["--games", "2", "--no-save", "--record", str(tmp_path / "file")]) == 2
    assert "--record" in capsys.readouterr().err
