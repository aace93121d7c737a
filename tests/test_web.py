"""The browser app's HTTP API (meeple.web) through Flask's test client: every endpoint, and every kind of bad
or stale request refused with a clear JSON error that changes nothing."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

pytest.importorskip("flask", reason="the web extra is not installed (pip install 'meeple[web]')")

from meeple.agents import make_agent  # noqa: E402
from meeple.envs.record import MAX_RECORD_BYTES, LiveGame, parse_record, replay, save_record  # noqa: E402
from meeple.web import run_cli  # noqa: E402
from meeple.web.app import LOOPBACK_HOSTS, create_app  # noqa: E402

GAME = "hadara"  # a short game (about 80 moves at 2 players) with a picture


def recorded(game_name: str = GAME, seed: int = 5, num_players: int = 2):
    live = LiveGame(game_name, {"num_players": num_players}, seed=seed)
    live.play_out([make_agent("random", game_name, num_players)] * num_players, np.random.default_rng(seed))
    return live.to_record(["random"] * num_players, meta={"note": "<script>alert(1)</script>"})


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A records folder (two good records, one in a sub-folder, one broken file, one link out of the folder)
    and a models folder with one file that is not a model."""
    root = tmp_path_factory.mktemp("web")
    records, models, outside = root / "records", root / "models", root / "outside"
    for folder in (records / "sub", models / "run1", outside):
        folder.mkdir(parents=True)
    save_record(recorded(), records / "hadara.json")
    save_record(recorded("roll_through_the_ages", seed=2), records / "sub" / "rtta.json")
    (records / "broken.json").write_text('{"format": "meeple.record", "version": 2, "game": "chess"}')
    save_record(recorded(seed=9), outside / "secret.json")
    os.symlink(outside / "secret.json", records / "link.json")
    (models / "run1" / "model.zip").write_bytes(b"not a zip file")
    return records, models


@pytest.fixture(scope="module")
def client(folders):
    records, models = folders
    return create_app(records, models).test_client()


def listing(client) -> dict[str, dict]:
    response = client.get("/api/records")
    assert response.status_code == 200
    return {entry["name"]: entry for entry in response.get_json()["records"]}


def error_of(response, status: int) -> str:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert isinstance(body, dict) and set(body) == {"error"} and body["error"]
    return body["error"]


def new_game(client, **fields):
    body = {"game": "roll_through_the_ages", "num_players": 2, "seat": 0, "opponents": "random", **fields}
    return client.post("/api/play", json=body)


# --- pages and options ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/replay", "/play"])
def test_pages_are_served_with_a_strict_content_policy(client, path):
    response = client.get(path)
    assert response.status_code == 200 and response.mimetype == "text/html"
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "default-src 'self'" in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    html = response.get_data(as_text=True)
    assert "http://" not in html and "https://" not in html  # nothing from another site
    for script in ("common.js", "replay.js", "play.js", "style.css"):
        if f"/static/{script}" in html:
            assert client.get(f"/static/{script}").status_code == 200


def test_options_list_every_game_agents_and_models(client):
    body = client.get("/api/options").get_json()
    games = {g["name"]: g for g in body["games"]}
    assert set(games) == {"roll_through_the_ages", "hadara", "carpe_diem", "attika", "utopia"}
    assert games["roll_through_the_ages"]["players"] == [1, 2, 3, 4]
    assert games["hadara"]["default_players"] == 2
    assert body["agents"] == ["random", "heuristic", "mcts:200"]
    assert body["models"] == ["ppo:run1/model.zip"]


def test_unknown_api_path_is_a_json_404(client):
    assert "not found" in error_of(client.get("/api/nothing"), 404).lower()


# --- records ---------------------------------------------------------------------------------------


def test_records_are_listed_by_id_with_summaries_and_errors(client):
    entries = listing(client)
    assert set(entries) == {"hadara.json", "sub/rtta.json", "broken.json"}  # the link out of the folder is not listed
    good = entries["hadara.json"]
    assert good["game"] == GAME and good["num_players"] == 2 and good["agents"] == ["random", "random"]
    assert good["id"].startswith("r-") and "/" not in good["id"]
    assert "chess" in entries["broken.json"]["error"]
    assert listing(client)["hadara.json"]["id"] == good["id"]  # ids are stable between listings


def test_record_summary_has_moves_log_and_scores(client):
    record_id = listing(client)["hadara.json"]["id"]
    body = client.get(f"/api/records/{record_id}").get_json()
    record = recorded()
    assert body["steps"] == len(record.actions) and body["done"] is True
    assert [m["action"] for m in body["moves"]] == record.actions
    assert all(m["lines"] and m["name"] for m in body["moves"])
    assert len(body["scores"]) == body["steps"] + 1 and body["scores"][-1] == record.scores
    assert body["final"]["scores"] == record.scores and body["picture"] is True
    assert body["meta"]["note"] == "<script>alert(1)</script>"  # data, shown as text by the page
    for seat in ("spectator", "0", "1"):
        seen = client.get(f"/api/records/{record_id}?seat={seat}").get_json()
        assert seen["seat"] == (None if seat == "spectator" else int(seat)) and len(seen["moves"]) == body["steps"]


def test_record_steps_as_text_and_picture(client):
    from PIL import Image

    record_id = listing(client)["hadara.json"]["id"]
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    first = client.get(f"/api/records/{record_id}/steps/0").get_json()
    last = client.get(f"/api/records/{record_id}/steps/{steps}?seat=1").get_json()
    assert first["step"] == 0 and not first["done"] and first["text"]
    assert last["done"] and last["scores"] == recorded().scores
    for seat in ("spectator", "0"):
        response = client.get(f"/api/records/{record_id}/steps/3/picture.png?seat={seat}")
        assert response.status_code == 200 and response.mimetype == "image/png"
        picture = Image.open(io.BytesIO(response.data))
        assert picture.size[0] > 100 and picture.size[1] > 100
        assert len(picture.convert("RGB").getcolors(1 << 20)) > 20
    assert "not in this record" in error_of(client.get(f"/api/records/{record_id}/steps/{steps + 1}"), 404)
    error_of(client.get(f"/api/records/{record_id}/steps/{steps + 1}/picture.png"), 404)
    error_of(client.get(f"/api/records/{record_id}/steps/-1"), 404)


@pytest.mark.parametrize("seat", ["2", "9", "-1", "abc", "0x1", "100"])
def test_bad_seat_is_refused(client, seat):
    record_id = listing(client)["hadara.json"]["id"]
    for path in ("", "/steps/0", "/steps/0/picture.png"):
        assert "seat must be" in error_of(client.get(f"/api/records/{record_id}{path}?seat={seat}"), 400)


@pytest.mark.parametrize("record_id", ["r-0123456789abcdef0123", "u-unknown", "x-1", "r-" + "a" * 80, "..%2F..%2Fsecret.json",
                                       "hadara.json"])
def test_unknown_record_ids_are_refused(client, record_id):
    error_of(client.get(f"/api/records/{record_id}"), 404)


def test_a_listed_record_that_does_not_load_is_refused(client):
    record_id = listing(client)["broken.json"]["id"]
    assert "broken.json" in error_of(client.get(f"/api/records/{record_id}"), 422)


def test_uploaded_record_gets_an_id_and_replays(client):
    text = json.dumps(recorded(seed=11).to_dict())
    response = client.post("/api/records?name=my game.json", data=text, content_type="application/json")
    assert response.status_code == 201
    entry = response.get_json()
    assert entry["id"].startswith("u-") and len(entry["id"]) > 20 and entry["name"] == "my game.json"
    body = client.get(f"/api/records/{entry['id']}?seat=0").get_json()
    assert body["steps"] == entry["moves"] == len(recorded(seed=11).actions)
    assert client.get(f"/api/records/{entry['id']}/steps/2/picture.png").status_code == 200
    assert entry["id"] not in {e["id"] for e in listing(client).values()}  # uploads are not in the folder listing


def _illegal_record() -> str:
    payload = recorded().to_dict()
    payload["actions"][3] = next(a for a in range(104) if a != payload["actions"][3] and a not in payload["actions"][:4])
    return json.dumps(payload)


@pytest.mark.parametrize("data, content_type, status, message", [
    ("{}", "text/plain", 415, "application/json"),
    ("not json", "application/json", 422, "not valid JSON"),
    ('{"format": "meeple.record"}', "application/json", 422, "not a meeple.record"),
    ("[" * 50 + "]" * 50, "application/json", 422, "nests"),
    (b"\x80\x04\x95pickle", "application/json", 422, "not valid JSON"),
    (None, "application/json", 422, "replay diverges at step"),
])
def test_bad_uploads_are_refused(client, data, content_type, status, message):
    data = _illegal_record() if data is None else data
    before = len(listing(client))
    assert message in error_of(client.post("/api/records", data=data, content_type=content_type), status)
    assert len(listing(client)) == before


def test_oversized_upload_is_refused_before_reading(client):
    response = client.post("/api/records", data=b" " * (MAX_RECORD_BYTES + 4096), content_type="application/json")
    error_of(response, 413)


# --- play ----------------------------------------------------------------------------------------


def test_new_game_view(client):
    response = new_game(client)
    assert response.status_code == 201
    view = response.get_json()
    assert len(view["id"]) >= 22 and view["seat"] == 0
    assert view["version"] == len(view["log"])  # the start player is dealt: random may have moved first
    assert view["your_turn"] and not view["done"] and view["result"] is None
    assert view["agents"] == ["human", "random"] and view["picture"] is True
    assert view["legal"] and all(isinstance(m["action"], int) and m["name"] for m in view["legal"])
    assert view["text"].startswith("Roll Through the Ages")
    other = new_game(client).get_json()
    assert other["id"] != view["id"]


def test_agents_move_until_it_is_the_persons_turn(client):
    # the start player is dealt from a secret seed, so new games are tried until the agent starts one
    # (each game: 1/2; twenty games all started by the person: one in a million)
    for _ in range(20):
        view = new_game(client, seat=1, opponents="heuristic").get_json()
        assert view["to_play"] == 1 and view["your_turn"] and view["version"] == len(view["log"])
        assert all(entry["seat"] == 0 and entry["by"] == "heuristic" and entry["lines"] for entry in view["log"])
        if view["log"]:
            break
    assert view["log"]


def test_moves_stale_versions_and_illegal_moves(client):
    view = new_game(client).get_json()
    game_id, legal, v = view["id"], [m["action"] for m in view["legal"]], view["version"]
    illegal = next(a for a in range(51) if a not in legal)
    for body, status, message in [
        ({"action": illegal, "version": v}, 400, "not legal"),
        ({"action": 10_000, "version": v}, 400, "not legal"),
        ({"action": -1, "version": v}, 400, "not legal"),
        ({"action": str(legal[0]), "version": v}, 400, "integer"),
        ({"action": float(legal[0]), "version": v}, 400, "integer"),
        ({"action": True, "version": v}, 400, "integer"),
        ({"action": None, "version": v}, 400, "integer"),
        ({"action": legal[0], "version": str(v)}, 400, "integer"),
        ({"action": legal[0]}, 400, "version"),
        ({"action": legal[0], "version": v, "extra": 1}, 400, "version"),
        ([legal[0], v], 400, "version"),
        ({"action": legal[0], "version": v + 5}, 409, "reload"),
        ({"action": legal[0], "version": v - 1}, 409, "reload"),
    ]:
        assert message in error_of(client.post(f"/api/play/{game_id}/move", json=body), status), body
        assert client.get(f"/api/play/{game_id}").get_json() == view  # nothing changed
    played = client.post(f"/api/play/{game_id}/move", json={"action": legal[0], "version": v})
    assert played.status_code == 200
    after = played.get_json()
    assert after["version"] >= v + 1 and after["log"][v] == {"step": v + 1, "seat": 0, "by": "human",
                                                             "lines": after["log"][v]["lines"]}
    # the same click again (a double click, or a second tab) is stale now
    assert "reload" in error_of(client.post(f"/api/play/{game_id}/move", json={"action": legal[0], "version": v}), 409)
    assert client.get(f"/api/play/{game_id}").get_json() == after


@pytest.mark.parametrize("data, content_type, status", [
    ('{"action": 0, "version": 0}', "text/plain", 415),
    ("{not json", "application/json", 400),
    ("[" * 10 + "]" * 10, "application/json", 400),
    ('{"action": 0, "version": 0, "pad": "' + "x" * 5000 + '"}', "application/json", 413),
])
def test_malformed_move_bodies_are_refused(client, data, content_type, status):
    view = new_game(client).get_json()
    error_of(client.post(f"/api/play/{view['id']}/move", data=data, content_type=content_type), status)
    assert client.get(f"/api/play/{view['id']}").get_json() == view


@pytest.mark.parametrize("path", ["", "/picture.png", "/record"])
def test_unknown_game_ids_are_refused(client, path):
    assert "no game" in error_of(client.get(f"/api/play/not-a-game{path}"), 404)
    error_of(client.get(f"/api/play/{'A' * 22}{path}"), 404)


def test_move_for_unknown_game_is_refused(client):
    error_of(client.post("/api/play/nope/move", json={"action": 0, "version": 0}), 404)


def test_full_game_against_random_then_download_the_record(client):
    view = new_game(client, opponents="random").get_json()
    game_id, rng, moves = view["id"], np.random.default_rng(3), 0
    assert client.get(f"/api/play/{game_id}/record").get_json()["scores"] is None  # a running game's record
    while not view["done"]:
        action = int(rng.choice([m["action"] for m in view["legal"]]))
        view = client.post(f"/api/play/{game_id}/move", json={"action": action, "version": view["version"]}).get_json()
        moves += 1
        assert moves < 2000
    result = view["result"]
    assert view["legal"] == [] and not view["your_turn"] and len(result["scores"]) == 2 and result["winners"]
    assert "over" in error_of(client.post(f"/api/play/{game_id}/move", json={"action": 0, "version": view["version"]}), 409)
    response = client.get(f"/api/play/{game_id}/record")
    assert response.status_code == 200 and "attachment" in response.headers["Content-Disposition"]
    record = parse_record(response.data)
    assert record.agents == ["human", "random"] and record.scores == result["scores"] and record.meta["human_seat"] == 0
    assert len(record.actions) == view["version"]
    assert replay(record).game.scores(replay(record).states[-1])[0].tolist() == result["scores"]
    picture = client.get(f"/api/play/{game_id}/picture.png")
    assert picture.status_code == 200 and picture.mimetype == "image/png"


def test_solo_game_has_no_opponents(client):
    view = new_game(client, num_players=1, opponents=[]).get_json()
    assert view["agents"] == ["human"] and view["your_turn"]


@pytest.mark.parametrize("fields, message", [
    ({"game": "chess"}, "game must be one of"),
    ({"game": None}, "game must be one of"),
    ({"num_players": 9}, "num_players"),
    ({"num_players": 0}, "num_players"),
    ({"num_players": "2"}, "integer"),
    ({"seat": 2}, "seat must be"),
    ({"seat": -1}, "seat must be"),
    ({"seat": 0.0}, "integer"),
    ({"opponents": "human"}, "unknown agent spec"),
    ({"opponents": "bogus"}, "unknown agent spec"),
    ({"opponents": ""}, "agent spec is a string"),
    ({"opponents": 3}, "one per other seat"),
    ({"opponents": [3]}, "agent spec is a string"),
    ({"opponents": "x" * 300}, "agent spec is a string"),
    ({"opponents": "mcts:999999"}, "simulations"),
    ({"opponents": "mcts:-5"}, "simulations"),
    ({"opponents": "mcts:10:nonsense=1"}, "unknown MCTS option"),
    ({"opponents": ["random", "random"]}, "one per other seat"),
    ({"opponents": {"spec": "random"}}, "one per other seat"),
    ({"opponents": "ppo:../outside/secret.json"}, "no such model"),
    ({"opponents": "ppo:/etc/passwd"}, "path inside the models folder"),
    ({"opponents": "ppo:run1/missing.zip"}, "no such model"),
    ({"opponents": "ppo:"}, "path inside the models folder"),
    ({"opponents": "ppo:run1/model.zip"}, "ppo:run1/model.zip"),  # inside the folder, but not a model
    ({"variant": {"trade": "yes"}}, "not a configuration"),
    ({"variant": {"no_such_flag": 1}}, "not a configuration"),
    ({"variant": {"num_players": 3}}, "variant must be"),
    ({"variant": [1]}, "variant must be"),
    ({"extra": 1}, "unknown fields"),
])
def test_bad_new_game_requests_are_refused(client, fields, message):
    assert message in error_of(new_game(client, **fields), 400)


def test_new_game_body_must_be_a_small_json_object(client):
    assert "JSON object" in error_of(client.post("/api/play", json=["roll_through_the_ages"]), 400)
    error_of(client.post("/api/play", data="game=hadara", content_type="application/x-www-form-urlencoded"), 415)
    error_of(client.post("/api/play", data="{" * 3000, content_type="application/json"), 400)


def test_variant_flags_reach_the_game(client):
    view = new_game(client, num_players=3, variant={"trade": True}, opponents=["random", "heuristic"]).get_json()
    assert view["config"] == {"trade": True, "num_players": 3} and view["agents"] == ["human", "random", "heuristic"]


def test_live_games_are_capped_and_idle_ones_expire(folders):
    records, models = folders
    client = create_app(records, models, max_games=1, idle_seconds=0.5).test_client()
    first = new_game(client).get_json()["id"]
    assert "try again later" in error_of(new_game(client), 503)
    assert client.get(f"/api/play/{first}").status_code == 200
    time.sleep(0.7)
    error_of(client.get(f"/api/play/{first}"), 404)
    assert new_game(client).status_code == 201


def test_loopback_server_refuses_other_host_names(folders):
    client = create_app(*folders, trusted_hosts=LOOPBACK_HOSTS).test_client()
    assert client.get("/api/options", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert client.get("/api/options", headers={"Host": "localhost"}).status_code == 200
    assert client.get("/api/options", headers={"Host": "attacker.example"}).status_code == 400


def test_server_without_folders_serves_uploads_only():
    client = create_app().test_client()
    assert client.get("/api/records").get_json() == {"folder": False, "records": []}
    assert client.get("/api/options").get_json()["models"] == []
    assert "no models folder" in error_of(new_game(client, opponents="ppo:model.zip"), 400)


# --- the command ---------------------------------------------------------------------------------


def test_serve_command_checks_its_options(tmp_path, capsys):
    from meeple.cli import main

    assert main(["serve", "--records", str(tmp_path / "missing")]) == 2
    assert "--records" in capsys.readouterr().err
    assert run_cli(["--port", "70000"]) == 2
    assert run_cli(["--max-games", "0", "--idle-minutes", "0"]) == 2
    assert "--max-games" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--help"])
    assert exit_info.value.code == 0 and "--records DIR" in capsys.readouterr().out


def test_serve_without_the_web_extra_names_it(monkeypatch, capsys):
    from meeple.cli import main

    for module in ("flask", "werkzeug", "werkzeug.serving", "meeple.web.app"):
        monkeypatch.setitem(sys.modules, module, None)  # as if Flask were not installed
    assert main(["serve", "--port", "0"]) == 1
    assert "pip install 'meeple[web]'" in capsys.readouterr().err


def test_python_m_meeple_web_serves(folders):
    records, _ = folders
    process = subprocess.Popen([sys.executable, "-m", "meeple.web", "--port", "0", "--records", str(records)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("meeple serve: http://127.0.0.1:"), line + process.stderr.read()
        url = line.split()[2]
        with urllib.request.urlopen(url + "api/records", timeout=30) as response:
            names = {entry["name"] for entry in json.load(response)["records"]}
        assert "hadara.json" in names
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_games_without_a_picture_fall_back_to_the_text_view(folders, monkeypatch):
    """A game that draws no picture (render_modes without rgb_array) is shown as text: the pages get
    picture=false, and asking for its picture anyway is a clear 404."""
    from meeple.envs import make

    monkeypatch.setattr(type(make("hadara")), "render_modes", lambda self: ["ansi"])
    client = create_app(*folders).test_client()
    record_id = listing(client)["hadara.json"]["id"]
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert summary["picture"] is False and client.get(f"/api/records/{record_id}/steps/1").get_json()["text"]
    assert "draws no picture" in error_of(client.get(f"/api/records/{record_id}/steps/1/picture.png"), 404)
    view = new_game(client, game="hadara").get_json()
    assert view["picture"] is False and view["text"]
    assert "draws no picture" in error_of(client.get(f"/api/play/{view['id']}/picture.png"), 404)


def test_expert_iteration_nets_from_the_models_folder_play(folders):
    """net: and search: opponents name a net file inside the models folder (listed in the options) and play;
    paths out of the folder, other suffixes and oversized searches are refused."""
    pytest.importorskip("torch")
    from meeple.agents.net import PolicyValueNet, save_net
    from meeple.envs import make

    records, models = folders
    game = make("roll_through_the_ages", num_players=2)
    save_net(PolicyValueNet.for_game("roll_through_the_ages", game, hidden=(8,), seed=0), models / "run1" / "net.safetensors")
    client = create_app(records, models).test_client()
    listed = client.get("/api/options").get_json()["models"]
    assert "net:run1/net.safetensors" in listed and "search:run1/net.safetensors:sims=200" in listed
    for spec in ("net:run1/net.safetensors", "search:run1/net.safetensors:sims=8"):
        response = new_game(client, opponents=spec)
        assert response.status_code == 201, response.get_data(as_text=True)
        assert response.get_json()["agents"][1] == spec  # the label the browser chose, not the server's path
    for spec, message in [("net:../outside/x.safetensors", "no such model"), ("net:/etc/passwd", "path inside"),
                          ("search:run1/model.zip:sims=8", "no such model"),
                          ("search:run1/net.safetensors:sims=99999", "sims=1.."),
                          ("net:run1/net.safetensors:bogus=1", "unknown option")]:
        assert message in error_of(new_game(client, opponents=spec), 400), spec


def test_an_opponent_that_fails_stops_the_game_with_a_clear_error(client, monkeypatch):
    """An agent that raises when asked to move (say, a model that loads but fails when acting) ends the game
    with a message naming the seat and the agent; later moves get 409 with the same message, not a hang."""
    from meeple.agents.random_agent import RandomAgent

    view = new_game(client).get_json()
    while not view["your_turn"]:  # the agents moved first: start again until the person is to move
        view = new_game(client).get_json()

    def broken(self, game, state, rng):
        raise RuntimeError("weights went missing")

    monkeypatch.setattr(RandomAgent, "act", broken)
    for _ in range(500):  # the person's turn may hold several decisions: play until the opponent must move
        move = {"action": view["legal"][0]["action"], "version": view["version"]}
        response = client.post(f"/api/play/{view['id']}/move", json=move)
        if response.status_code != 200:
            break
        view = response.get_json()
    assert response.status_code == 500
    message = response.get_json()["error"]
    assert "player_1 (random) failed to move" in message and "weights went missing" in message
    now = client.get(f"/api/play/{view['id']}").get_json()
    assert now["stopped"] == message and not now["your_turn"] and now["version"] == view["version"] + 1
    again = {"action": 0, "version": now["version"]}
    assert error_of(client.post(f"/api/play/{view['id']}/move", json=again), 409) == message
    assert client.get(f"/api/play/{view['id']}/record").status_code == 200  # the game so far can still be saved
