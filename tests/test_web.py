"""The browser app's HTTP API (meeple.web) through Flask's test client: every endpoint, and every kind of bad
or stale request refused with a clear JSON error that changes nothing."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
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
    # nets of the models folder and the shipped ones; SB3 zips are not offered (they load by unpickling)
    assert "net:hadara-2p" in body["models"] and "search:hadara-2p:sims=200" in body["models"]
    assert not any(spec.startswith("ppo:") for spec in body["models"])
    assert body["max_mcts_simulations"] == 2000
    assert body["limits"]["json_body_bytes"] == 4096 and body["limits"]["record_bytes"] == MAX_RECORD_BYTES


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


def test_each_step_names_the_move_played_next_and_where_it_sits(client):
    """The replay viewer shows the move played from each position on the picture: the step view carries it
    (the recorded action, its words, the seat that played it) with the board targets of that move alone, the
    same targets the play page would offer for it; the last position has none."""
    from PIL import Image

    record_id = listing(client)["hadara.json"]["id"]
    record = recorded()
    on_picture = 0
    for k in range(len(record.actions)):
        view = client.get(f"/api/records/{record_id}/steps/{k}?seat=0").get_json()
        upcoming = view["next"]
        assert upcoming["action"] == record.actions[k] and upcoming["seat"] == view["to_play"] and upcoming["name"]
        targets = upcoming["board"]["targets"]
        assert [m["action"] for t in targets for m in t["moves"]] == [record.actions[k]]  # in exactly one target
        on_picture += targets[0]["kind"] != "button"
        if k == 3:
            png = client.get(f"/api/records/{record_id}/steps/3/picture.png?seat=0").data
            assert Image.open(io.BytesIO(png)).size == (upcoming["board"]["width"], upcoming["board"]["height"])
    assert on_picture > len(record.actions) // 4  # most of Hadara's moves have a place on its picture
    assert client.get(f"/api/records/{record_id}/steps/{len(record.actions)}").get_json()["next"] is None


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
    ({"opponents": "human"}, "not an opponent here"),
    ({"opponents": "bogus"}, "unknown agent spec"),
    ({"opponents": ""}, "agent spec is a string"),
    ({"opponents": 3}, "one per other seat"),
    ({"opponents": [3]}, "agent spec is a string"),
    ({"opponents": "x" * 300}, "agent spec is a string"),
    ({"opponents": "mcts:999999"}, "simulations"),
    ({"opponents": "mcts:-5"}, "simulations"),
    ({"opponents": "mcts:10:nonsense=1"}, "unknown option 'nonsense'"),
    ({"opponents": ["random", "random"]}, "one per other seat"),
    ({"opponents": {"spec": "random"}}, "one per other seat"),
    ({"opponents": "ppo:../outside/secret.json"}, "unpickling"),
    ({"opponents": "ppo:/etc/passwd"}, "unpickling"),
    ({"opponents": "ppo:run1/model.zip"}, "unpickling"),  # inside the folder: still never loaded from a request
    ({"opponents": "net:../outside/secret.json"}, "not a listed model"),
    ({"opponents": "net:"}, "name a listed model"),
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
    from meeple.agents.net import baselines

    models = client.get("/api/options").get_json()["models"]
    assert models and all(spec.split(":")[1] in baselines() for spec in models)  # the shipped nets only
    assert "not a listed model" in error_of(new_game(client, opponents="net:model.safetensors"), 400)


# --- the command ---------------------------------------------------------------------------------


def test_serve_command_checks_its_options(tmp_path, capsys):
    from meeple.cli import main

    assert main(["serve", "--records", str(tmp_path / "missing")]) == 2
    assert "--records" in capsys.readouterr().err
    assert run_cli(["--port", "70000"]) == 2
    assert run_cli(["--max-games", "0", "--idle-minutes", "0"]) == 2
    assert "--max-games" in capsys.readouterr().err
    # a models folder that does not exist stops the server at startup with one argparse-style error line
    assert main(["serve", "--models", str(tmp_path / "nonexistent")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("meeple serve: error: --models") and "not a folder" in captured.err
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
    for spec, message in [("net:../outside/x.safetensors", "not a listed model"), ("net:/etc/passwd", "not a listed model"),
                          ("search:run1/model.zip:sims=8", "not a listed model"),
                          ("search:run1/net.safetensors:sims=99999", "sims must be an integer from 1 to 2000"),
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


# --- trust nothing: the attacks of issue 44 --------------------------------------------------------

ABSOLUTE_PATH = re.compile(r"/[A-Za-z0-9_.-]+/[^\s'\",;()]*")


def server_paths(error: str, sent: str = "") -> list[str]:
    """The absolute paths an error message shows that the browser did not send itself."""
    return [path for path in ABSOLUTE_PATH.findall(error) if path not in sent]


@pytest.mark.parametrize("spec, message", [
    # nested agent specs: rollout= and prior= take a name from the allow-list, never another spec
    ("mcts:10:rollout=ppo:/etc/passwd", "rollout must be one of random, heuristic"),
    ("mcts:10:prior=net:/tmp/x.safetensors", "prior must be one of random, heuristic"),
    ("mcts:2000:prior=mcts:2000", "prior must be one of random, heuristic"),
    ("mcts:2000:rollout=mcts:2000:rollout=mcts:2000", "rollout must be one of random, heuristic"),
    ("mcts:10:mode=rollout,rollout=heuristic", "unknown option 'mode'"),
    ("search:hadara-2p:mode=rollout,playout=net", "unknown option 'mode'"),
    # numbers bounded and plain
    ("mcts:2001", "from 1 to 2000"), ("mcts:0", "from 1 to 2000"), ("mcts:1e3", "from 1 to 2000"),
    ("mcts:10:c_uct=nan", "c_uct must be a number"), ("mcts:10:c_uct=inf", "c_uct must be a number"),
    ("mcts:10:rollout_depth=-1", "rollout_depth must be an integer"), ("mcts:10:c_uct=1,c_uct=2", "given twice"),
    ("search:hadara-2p:sims=2001", "sims must be an integer from 1 to 2000"),
    # no paths: models only by their listed names
    ("net:/etc/passwd", "not a listed model"), ("net:../../etc/passwd", "not a listed model"),
    ("search:/tmp/evil.safetensors:sims=10", "not a listed model"), ("net:run1/../../outside/secret.json", "not a listed model"),
    # SB3 zips are never loaded from a request, and nobody seats a second human
    ("ppo:run1/model.zip", "unpickling"), ("ppo:/tmp/evil.zip", "unpickling"), ("human", "not an opponent here"),
    ("human:x", "not an opponent here"), ("random:1", "unknown agent spec"), ("heuristic\n", "printable"),
])
def test_opponent_specs_are_parsed_into_a_closed_set(client, spec, message):
    """Issue 44's spec attacks: each refused with a clear error naming the problem, no server path in it,
    nothing created, and the server still answering."""
    before = len(client.application.extensions["meeple"]["store"])
    error = error_of(new_game(client, opponents=spec), 400)
    assert message in error, error
    assert not server_paths(error, spec), error
    assert len(client.application.extensions["meeple"]["store"]) == before
    assert client.get("/api/options").status_code == 200


def test_refusals_never_show_server_paths(folders):
    """A listed net of another game or configuration is refused by the loader with a message that names the
    file; the browser sees its listed name, never the server's path (the shipped nets' folder included)."""
    pytest.importorskip("torch")
    from meeple.agents.net import BASELINES_DIR

    records, models = folders
    client = create_app(records, models).test_client()
    for spec in ("net:hadara-2p", "search:hadara-5p:sims=5", "net:carpe_diem-2p"):
        error = error_of(new_game(client, opponents=spec), 400)  # a Roll Through the Ages game
        assert spec in error and "hadara" in error or "carpe_diem" in error, error
        assert str(BASELINES_DIR) not in error and str(models) not in error and not server_paths(error, spec), error
    assert new_game(client, game="hadara", opponents="net:hadara-2p").status_code == 201  # the right game plays


def test_mcts_options_from_the_allow_list_build_the_agent(client):
    view = new_game(client, opponents="mcts:5:rollout=heuristic,prior=heuristic,prior_weight=0.3,c_uct=2,rollout_depth=4")
    assert view.status_code == 201, view.get_data(as_text=True)
    assert view.get_json()["agents"][1] == "mcts:5:rollout=heuristic,prior=heuristic,prior_weight=0.3,c_uct=2,rollout_depth=4"


def _tiny_record(moves: int = 6, seed: int = 1, game_name: str = "roll_through_the_ages") -> str:
    live = LiveGame(game_name, {"num_players": 2}, seed=seed)
    rng, agent = np.random.default_rng(seed), make_agent("random", game_name, 2)
    for _ in range(moves):
        live.step(int(agent.act(live.game, live.state, rng)[0]))
    return json.dumps(live.to_record(["random", "random"]).to_dict())


def test_record_lookups_use_the_index_not_a_folder_walk(tmp_path):
    """1,000 records and 20,000 other files (TensorBoard logs under runs/): looking a record up by id, known
    or unknown, never walks the folder; the median lookup is far below 50 ms."""
    from meeple.web import library as library_module

    records = tmp_path / "records"
    text = _tiny_record()
    for k in range(1000):
        folder = records / f"eval{k // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"game{k:04d}.json").write_text(text)
    for k in range(20_000):
        folder = records / "runs" / f"run{k // 500}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"events.out.tfevents.{k}").write_bytes(b"x")
    client = create_app(records).test_client()
    library = client.application.extensions["meeple"]["library"]
    walks = library.index.walks
    entries = client.get("/api/records").get_json()["records"]
    assert len(entries) == library_module.MAX_LISTED and all("error" not in e for e in entries)

    def median_ms(path: str, status: int) -> float:
        times = []
        for _ in range(60):
            started = time.perf_counter()
            response = client.get(path)
            times.append(time.perf_counter() - started)
            assert response.status_code == status
        return 1000 * float(np.median(times))

    unknown = median_ms("/api/records/r-0123456789abcdef0123", 404)
    known = median_ms(f"/api/records/{entries[500]['id']}/steps/2", 200)
    print(f"\nrecord lookup medians: unknown id {unknown:.2f} ms, known id {known:.2f} ms")
    assert unknown < 50 and known < 50
    assert library.index.walks <= walks + 1  # at most one background walk, whatever the number of requests

    # a new record shows up after the index's next background walk (at most a few seconds)
    (records / "eval0" / "new.json").write_text(text)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if "eval0/new.json" in {e["name"] for e in client.get("/api/records").get_json()["records"]}:
            break
        time.sleep(0.5)
    else:
        pytest.fail("a new record never showed up in the listing")


def test_uploads_and_replays_are_bounded_and_evicted_together(client):
    """The newest 64 uploads are kept; a forgotten upload's replay leaves the replay cache at once, and the
    caches stay within their counts and bytes."""
    from meeple.web import library as library_module

    library = client.application.extensions["meeple"]["library"]
    ids = []
    for k in range(library_module.MAX_UPLOADS + 6):
        response = client.post(f"/api/records?name=t{k}.json", data=_tiny_record(seed=k), content_type="application/json")
        assert response.status_code == 201
        ids.append(response.get_json()["id"])
    for record_id in ids[:6]:
        assert "upload it again" in error_of(client.get(f"/api/records/{record_id}"), 404)
    assert client.get(f"/api/records/{ids[-1]}").status_code == 200
    stats = library.stats()
    assert stats["uploads"] == library_module.MAX_UPLOADS and stats["upload_bytes"] <= library_module.MAX_UPLOAD_BYTES
    assert stats["replays"] <= library_module.MAX_OPEN_REPLAYS and stats["replay_bytes"] <= library_module.MAX_REPLAY_BYTES
    assert stats["upload_replays"] <= stats["uploads"]
    view = library.open(ids[-1])
    # a replay's size counts what it holds (the stacked positions with their array headers), not only the data
    assert view.nbytes > sum(field.nbytes for field in view.states) + library_module.VIEW_OVERHEAD_BYTES


def test_request_rates_are_limited_per_client(folders):
    from meeple.web.limits import Rate

    client = create_app(*folders, api_rate=Rate(1.0, 5), costly_rate=Rate(0.5, 2)).test_client()
    statuses = [client.get("/api/options").status_code for _ in range(7)]
    assert statuses[:5] == [200] * 5 and statuses[5:] == [429, 429]
    response = client.get("/api/options")
    assert "too many requests" in error_of(response, 429) and int(response.headers["Retry-After"]) >= 1
    assert client.get("/play").status_code == 200  # pages are not API requests
    other = create_app(*folders, costly_rate=Rate(0.5, 2)).test_client()
    assert [new_game(other).status_code for _ in range(3)] == [201, 201, 429]
    assert other.get("/api/options").status_code == 200  # only the costly requests wait


def _rss_bytes(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


UPLOAD_RSS_BOUND = 64 * 2**20


def test_server_memory_stays_bounded_over_400_uploads(tmp_path):
    """A real server (python -m meeple.web): 400 uploads of whole games, each opened, grow its resident
    memory by less than UPLOAD_RSS_BOUND (docs/web.md) after a warm-up of 40."""
    log = open(tmp_path / "server.log", "w")  # a pipe nobody reads would fill up with request lines and block
    process = subprocess.Popen([sys.executable, "-m", "meeple.web", "--port", "0", "--models", str(tmp_path)],
                               stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("meeple serve: http://127.0.0.1:"), line + (tmp_path / "server.log").read_text()
        url = line.split()[2]
        # whole games (80-300 moves): before issue 44 each upload's replay stayed in the cache at ~40x its
        # arrays' bytes (one small numpy array per field and move), about 1 MB per upload here
        texts = [json.dumps(recorded(g, seed=s).to_dict()).encode()
                 for s in range(3) for g in ("roll_through_the_ages", "hadara")]
        def upload(k: int) -> None:
            request = urllib.request.Request(f"{url}api/records?name=u{k}.json", data=texts[k % len(texts)],
                                             headers={"Content-Type": "application/json"}, method="POST")
            while True:
                try:
                    with urllib.request.urlopen(request, timeout=60) as response:
                        record_id = json.load(response)["id"]
                    break
                except urllib.error.HTTPError as exc:  # the costly-request limit: wait as told
                    assert exc.code == 429, exc.read()
                    time.sleep(float(exc.headers["Retry-After"]))
            with urllib.request.urlopen(f"{url}api/records/{record_id}/steps/1?seat=0", timeout=60) as response:
                assert json.load(response)["step"] == 1
            if k % 20 == 0:  # the whole summary (names and narration of every move) now and then: slower
                with urllib.request.urlopen(f"{url}api/records/{record_id}?seat=0", timeout=60) as response:
                    assert json.load(response)["steps"] > 50

        for k in range(40):
            upload(k)
        before = _rss_bytes(process.pid)
        started = time.monotonic()
        for k in range(40, 440):
            upload(k)
        growth = _rss_bytes(process.pid) - before
        print(f"\nRSS growth over 400 uploads: {growth / 2**20:.1f} MiB ({time.monotonic() - started:.0f} s)")
        assert growth < UPLOAD_RSS_BOUND
        with urllib.request.urlopen(url + "api/options", timeout=30) as response:
            assert response.status == 200  # still answering
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


# --- the board: targets for every legal move -------------------------------------------------------


@pytest.mark.parametrize("game_name", ["roll_through_the_ages", "hadara", "carpe_diem", "attika", "utopia"])
def test_every_legal_move_is_one_target_on_the_board(client, game_name):
    """The play view's board: each legal move in exactly one target, with a label and the move's text, and
    in some positions of the first 60 targets on the picture itself rather than only on the action bar."""
    view = new_game(client, game=game_name).get_json()
    rng, on_picture, positions = np.random.default_rng(1), 0, 0
    while not view["done"] and positions < 60:
        board = view["board"]
        placed = [m["action"] for t in board["targets"] for m in t["moves"]]
        assert sorted(placed) == sorted(m["action"] for m in view["legal"])  # each exactly once
        names = {m["action"]: m["name"] for m in view["legal"]}
        for target in board["targets"]:
            assert target["id"] and target["label"] and target["kind"] in ("rect", "circle", "hex", "line", "button")
            assert all(m["label"] == names[m["action"]] for m in target["moves"])
        x, y, w, h = board["view"]
        assert w >= board["width"] and h >= board["height"] > 0
        on_picture += any(t["kind"] != "button" for t in board["targets"])
        positions += 1
        move = {"action": int(rng.choice(placed)), "version": view["version"]}
        view = client.post(f"/api/play/{view['id']}/move", json=move).get_json()
    assert on_picture >= 3, (on_picture, positions)


def test_utopia_draws_its_land_edges_and_sea_routes(client):
    board = new_game(client, game="utopia").get_json()["board"]
    kinds = [d["class"] for d in board["decor"] if d["kind"] == "line"]
    assert kinds.count("land-edge") >= 20 and kinds.count("sea-route") >= 10  # the Water island is out at 2 players


def test_attika_replays_chart_progress_toward_the_win(folders):
    records, models = folders
    live = LiveGame("attika", {"num_players": 2}, seed=3)
    live.play_out([make_agent("random", "attika", 2)] * 2, np.random.default_rng(3))
    client = create_app().test_client()
    text = json.dumps(live.to_record(["random", "random"]).to_dict())
    record_id = client.post("/api/records", data=text, content_type="application/json").get_json()["id"]
    chart = client.get(f"/api/records/{record_id}").get_json()["chart"]
    assert chart["title"].startswith("Buildings placed") and chart["high"] == 30
    series = np.array(chart["series"])
    assert series.shape == (len(live.actions) + 1, 2) and series[0].sum() == 0 and series[-1].max() > 0
    assert (np.diff(series, axis=0) >= 0).all()  # buildings are never taken back
    other = create_app(records).test_client()
    scores = other.get(f"/api/records/{listing(other)['hadara.json']['id']}").get_json()
    assert scores["chart"] == {"title": "Scores", "series": scores["scores"], "high": None}  # other games chart scores
