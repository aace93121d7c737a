"""Tournaments: agent specs, the schedule, duplicate deals, ratings, the matrix, evaluate.py and human play."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from meeple.agents import make_agent
from meeple.agents.arena import DealStreams, play_games
from meeple.agents.heuristics.roll_through_the_ages import Heuristic
from meeple.agents.human import HumanAgent, Quit
from meeple.agents.mcts import MCTSAgent
from meeple.agents.random_agent import RandomAgent
from meeple.agents.tournament import run_tournament, schedule, seatings
from meeple.envs import core, make
from meeple.envs.roll_through_the_ages import data

ROOT = Path(__file__).resolve().parents[1]
GAME = "roll_through_the_ages"


def run_script(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--game", GAME, "--no-progress", *args],
                          input=stdin, capture_output=True, text=True, timeout=120, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


# --- agent specs ---------------------------------------------------------------------------

def test_make_agent_parses_every_spec_form() -> None:
    assert isinstance(make_agent("random", GAME), RandomAgent)
    assert isinstance(make_agent("heuristic", GAME), Heuristic)
    assert isinstance(make_agent("human", GAME), HumanAgent)
    mcts = make_agent("mcts:200", GAME)
    assert isinstance(mcts, MCTSAgent) and mcts.simulations == 200
    deep = make_agent("mcts:30:rollout_depth=12", GAME)
    assert deep.simulations == 30 and deep.rollout_depth == 12
    with pytest.raises(ValueError, match="no model file"):
        make_agent("ppo:runs/does-not-exist/model.zip", GAME, num_players=2)
    with pytest.raises(ValueError, match="needs a model path"):
        make_agent("ppo:", GAME)
    with pytest.raises(ValueError, match=r"known specs: .*mcts.*ppo:<path.*human"):
        make_agent("alphago", GAME)
    with pytest.raises(ValueError, match="MCTS"):
        make_agent("mcts:many", GAME)


def test_importing_agents_does_not_import_torch() -> None:
    code = ("import sys; from meeple.agents import make_agent; make_agent('mcts:5', 'roll_through_the_ages'); "
            "make_agent('human', 'roll_through_the_ages'); import meeple.agents.tournament; "
            "assert 'torch' not in sys.modules, 'torch was imported'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# --- schedule and duplicate deals --------------------------------------------------------------

def test_schedule_covers_every_seating() -> None:
    assert seatings(2, 2) == [(0, 1), (1, 0)]
    assert len(seatings(3, 3)) == 6 and len(seatings(3, 3, "rotations")) == 3
    assert len(seatings(2, 3)) == 6  # agents cycled: {0,0,1} and {0,1,1}, every order
    assert len(seatings(4, 2)) == 12 and len(seatings(4, 3, "rotations")) == 12  # C(4, 3) line-ups x 3
    assert seatings(3, 1) == [(0,), (1,), (2,)]  # solo: every agent plays every deal
    seats, deals = schedule(3, 2, 20, "permutations")  # 6 games a deal: rounded up to 4 deals
    assert seats.shape == (24, 2) and deals.tolist() == sorted(deals.tolist()) and deals[-1] == 3
    for seat in range(2):
        assert np.bincount(seats[:, seat], minlength=3).tolist() == [8, 8, 8]


def test_deal_streams_share_chance_within_a_deal() -> None:
    game = make(GAME, num_players=3)
    streams = DealStreams(seed=4, deals=np.array([0, 1, 0, 1]), uniforms_per_step=game.uniforms_per_step)
    start = streams.init(game)
    assert core.states_equal(core.take(start, [0]), core.take(start, [2]))  # same start player and dice
    assert not core.states_equal(core.take(start, [0]), core.take(start, [1]))
    fine = DealStreams(seed=4, deals=np.array([0, 1]), uniforms_per_step=game.uniforms_per_step, chunk=1)
    fine.init(game)
    for _ in range(40):  # the stream does not depend on the chunk size
        u, v = streams.next(), fine.next()
        np.testing.assert_array_equal(u[[0, 1]], v)
        np.testing.assert_array_equal(u[[0, 1]], u[[2, 3]])


@pytest.mark.parametrize("num_players", [2, 3])
def test_duplicate_seatings_replay_the_same_game(num_players: int) -> None:
    """Identical deterministic agents: every seating of a deal is the same game, seats relabelled."""
    result = run_tournament(GAME, [Heuristic(), Heuristic()], num_players, games=6 * num_players, seed=3, record=True)
    g = result["per_game"]
    assert result["games_per_deal"] == (2 if num_players == 2 else 6)
    for d in range(result["deals"]):
        rows = [i for i, deal in enumerate(g["deal"]) if deal == d]
        assert len({tuple(g["seat_agent"][i]) for i in rows}) == len(rows)  # different seatings ...
        for i in rows[1:]:  # ... same actions and scores seat by seat
            assert g["actions"][i] == g["actions"][rows[0]]
            assert g["scores"][i] == g["scores"][rows[0]] and g["length"][i] == len(g["actions"][i])
    assert len({tuple(g["scores"][i]) for i in range(result["games"])}) > 1  # deals differ
    other = run_tournament(GAME, [Heuristic(), Heuristic()], num_players, games=6 * num_players, seed=3,
                           record=True, duplicate=False)
    assert other["per_game"]["actions"][0] != other["per_game"]["actions"][1]


def test_duplicate_deals_start_alike_with_different_agents() -> None:
    """Heuristic vs random: both seatings of a deal start from the same state and the same first roll."""
    game = make(GAME, num_players=2)
    starts = []
    play_games(game, [Heuristic(), RandomAgent()], 4, seed=9, seats=np.array([[0, 1], [1, 0], [0, 1], [1, 0]]),
               deals=[0, 0, 1, 1], on_step=lambda g, s, a, o: starts.append(core.clone(s)) if not starts else None)
    first = starts[0]
    assert core.states_equal(core.take(first, [0]), core.take(first, [1]))
    assert core.states_equal(core.take(first, [2]), core.take(first, [3]))


# --- results -----------------------------------------------------------------------------------

def test_ratings_and_matrix() -> None:
    result = run_tournament(GAME, ["heuristic", "random", "random"], 2, games=24, seed=1)
    names = [a["name"] for a in result["agents"]]
    assert names == ["heuristic", "random#1", "random#2"]
    heuristic, r1, r2 = result["agents"]
    assert heuristic["rating"]["ordinal"] > max(r1["rating"]["mu"], r2["rating"]["mu"])
    for a in result["agents"]:
        rating = a["rating"]
        assert rating["ordinal"] == pytest.approx(rating["mu"] - 3 * rating["sigma"])
        assert rating["interval95"][0] < rating["mu"] < rating["interval95"][1]
        assert a["games"] == 16 and a["win_ci95"][0] <= a["win_rate"] <= a["win_ci95"][1]
    pw = result["pairwise"]
    for a in range(3):
        assert pw["win_rate"][a][a] is None
        for b in range(3):
            if a != b:
                assert pw["win_rate"][a][b] + pw["win_rate"][b][a] + pw["tie_rate"][a][b] == pytest.approx(1.0)
                assert pw["games"][a][b] == 8
    assert pw["win_rate"][0][1] > 0.8 and pw["win_rate"][0][2] > 0.8
    # 2 players, 2 agents: the matrix is the win rate, ties counting half
    two = run_tournament(GAME, ["heuristic", "random"], 2, games=10, seed=2)
    pw2 = two["pairwise"]
    assert two["agents"][0]["win_rate"] == pytest.approx(pw2["win_rate"][0][1] + pw2["tie_rate"][0][1] / 2)
    json.dumps(two)  # JSON-ready


def test_cycled_and_solo_tournaments() -> None:
    three = run_tournament(GAME, ["heuristic", "random"], 3, games=6, seed=0)
    h, r = three["agents"]
    assert (h["games"], h["seats"], r["seats"]) == (6, 9, 9)
    assert h["win_rate"] + r["win_rate"] == pytest.approx(1.0)
    assert h["rating"]["mu"] > r["rating"]["mu"]
    pw = three["pairwise"]
    assert pw["win_rate"][0][1] + pw["win_rate"][1][0] + pw["tie_rate"][0][1] == pytest.approx(1.0)
    solo = run_tournament(GAME, ["heuristic", "random"], 1, games=4, seed=0)
    assert solo["pairwise"] is None and solo["rating_model"] is None
    assert [a["games"] for a in solo["agents"]] == [2, 2] and solo["agents"][0]["win_rate"] is None
    assert solo["agents"][0]["mean_score"] > solo["agents"][1]["mean_score"]


# --- scripts -----------------------------------------------------------------------------------

def test_evaluate_writes_json_and_png(tmp_path: Path) -> None:
    out = tmp_path / "eval" / "t.json"
    proc = run_script("--agents", "heuristic", "random", "mcts:3:rollout_depth=2", "--games", "6", "--json", str(out))
    assert "win rate" in proc.stdout and "95% interval" in proc.stdout and "head-to-head" in proc.stdout
    result = json.loads(out.read_text())
    assert result["games"] == 6 and [a["name"] for a in result["agents"]] == ["heuristic", "random", "mcts:3:rollout_depth=2"]
    assert all(a["rating"] is not None for a in result["agents"])
    assert out.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    json.loads(proc.stdout.strip().splitlines()[-1])  # the one-line summary
    # the simple path, with the default output location under runs/eval
    proc = run_script("--agents", "heuristic", "random", "--games", "4", cwd=tmp_path)
    assert len(list((tmp_path / "runs" / "eval").glob("*.json"))) == 1
    assert len(list((tmp_path / "runs" / "eval").glob("*.png"))) == 1
    solo = run_script("--agents", "heuristic", "--num-players", "1", "--games", "2", "--no-save")
    assert "mean score" in solo.stdout and "head-to-head" not in solo.stdout


def test_human_plays_a_game_from_piped_input() -> None:
    """Solo Roll Through the Ages (10 rounds) typed by name: whichever of a cycle of moves is legal,
    after two bad entries; the moves are listed by their action index."""
    cycle = "pass\nfw_food\n" + "".join(f"discard_{g}\n" for g in range(5))
    proc = run_script("--agents", "human", "--num-players", "1", stdin="x\n99\n" + cycle * 400)
    assert "'x' is not a legal move" in proc.stdout and "99 is not a legal move now" in proc.stdout
    assert "Roll Through the Ages" in proc.stdout and "game over: player_0 (human)" in proc.stdout
    assert "  50  keep the dice as they are (stop rolling)" in proc.stdout and "--- since your last move ---" in proc.stdout
    quit = run_script("--agents", "human", "random", stdin="q\n")
    assert "quit" in quit.stdout


def _first_listed(lines: list[str]) -> Callable[[str], str]:
    """Scripted input: the id of the first move in the latest printed list."""
    def answer(prompt: str) -> str:
        for block in reversed(lines):
            for line in block.splitlines():
                words = line.split()
                if line.startswith("  ") and words and words[0].isdigit():
                    return words[0]
        raise AssertionError("no move list printed")
    return answer


def test_human_agent_against_random_in_process() -> None:
    """Scripted input and output: the first listed move every time plays a 2-player game to the end;
    moves carry their action index, the other player's moves are narrated, the board is the seat's."""
    lines: list[str] = []
    human = HumanAgent(input_fn=_first_listed(lines), print_fn=lines.append)
    game = make(GAME, num_players=2)
    result = play_games(game, [human, RandomAgent()], 1, seed=5, deals=[0], after_step=human.watch)
    assert result["per_game"]["length"][0] > 0
    text = "\n".join(lines)
    assert f"  {data.ACTION_PASS}  keep the dice as they are (stop rolling)" in text  # the id is the action index
    assert "--- since your last move ---" in text and "'s turn: rolls " in text  # narration of the dice
    seat = result["per_game"]["seat_agent"][0].index(0)
    assert f"== player_{seat} (" in text and "you)" in text  # the board from the person's seat
    for block in lines:
        if block.startswith("\nRoll Through the Ages"):
            assert len(block.strip("\n").splitlines()) <= 40

    answers = iter(["5", "?", "d", "l", "mark_reroll_1", "q"])
    said: list[str] = []
    quitter = HumanAgent(input_fn=lambda prompt: next(answers), print_fn=said.append, auto_single=False)
    with pytest.raises(Quit):
        play_games(make(GAME, num_players=1), [quitter], 1, seed=0)
    assert "5 is not a legal move now (legal ids: 0, 1, 2, 50)" in said
    assert any(block.startswith("Type a move's id") for block in said)  # help
    assert any("developments" in block and "dice" in block for block in said[-4:])  # the detail view
    assert "  7  reroll die " in said[-1]  # marking a die made ROLL legal: listed under its action index


def test_human_agent_takes_names_and_unique_prefixes() -> None:
    game = make(GAME, num_players=1)
    state = game.init(np.random.default_rng(0), 1)
    state = game.step(state, np.array([0]), np.random.default_rng(0))  # die 0 marked: ROLL is legal
    human = HumanAgent()
    legal = np.flatnonzero(game.legal_action_mask(state)[0])
    assert human.parse(game, "roll", legal) == data.ACTION_ROLL
    assert human.parse(game, "PaSs", legal) == data.ACTION_PASS
    assert human.parse(game, "ro", legal) == data.ACTION_ROLL
    assert "starts 2 legal moves (MARK_REROLL_1, MARK_REROLL_2)" in human.parse(game, "mark", legal)
    assert human.parse(game, str(data.ACTION_ROLL), legal) == data.ACTION_ROLL
    assert "not a legal move" in human.parse(game, "build_city", legal)
    # with the position, a move's words (or a prefix one legal move alone has) name it too
    words = game.action_to_str(state, data.ACTION_ROLL)
    assert words == "reroll die 1 (roll 2 of 3)"
    assert human.parse(game, words.upper(), legal, state) == data.ACTION_ROLL
    assert human.parse(game, "rerol", legal, state) == data.ACTION_ROLL
    assert human.parse(game, "keep the dice", legal, state) == data.ACTION_PASS
    assert "starts 2 legal moves" in human.parse(game, "mark die", legal, state)
    assert "not a legal move" in human.parse(game, "rerol", legal)  # words only with the position


def test_plot_with_long_agent_specs(tmp_path: Path) -> None:
    """Long specs stay whole in the legend (the axes carry letters); the diagonal is marked; solo plots too."""
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    from meeple.cli.evaluate import agent_letters, plot_results

    names = ["heuristic", "random", "mcts:400:rollout_depth=30,c_puct=1.5,progressive_widening=true",
             "ppo:runs/ppo/roll_through_the_ages/2026-11-26-very-long-run-name/model.zip", "mcts:20"]
    n = len(names)
    rates = np.linspace(0.2, 0.8, n)
    agents = [{"name": name, "games": 10, "seats": 10, "wins": 5.0, "win_rate": float(r), "win_ci95": [float(r) - 0.1, float(r) + 0.1],
               "mean_score": 10.0 + k, "score_ci95": [8.0 + k, 12.0 + k], "mean_return": 0.0,
               "rating": {"mu": 25.0 + 3 * k, "sigma": 2.0, "ordinal": 19.0 + 3 * k}} for k, (name, r) in enumerate(zip(names, rates))]
    matrix = [[None if i == j else round(0.5 + 0.1 * (j - i), 2) for j in range(n)] for i in range(n)]
    matrix[0][4] = None  # a pair that never met
    result = {"game": GAME, "num_players": 2, "games": 50, "agents": agents, "pairwise": {"win_rate": matrix}}
    path = tmp_path / "plot.png"
    plot_results(result, path)
    image = imread(path)
    assert image.shape[1] < 2000 and image.shape[0] < image.shape[1]  # a wide, short figure: no empty band below
    solo = dict(result, num_players=1, agents=[dict(a, rating=None) for a in agents], pairwise=None)
    plot_results(solo, tmp_path / "solo.svg")
    assert (tmp_path / "solo.svg").read_text().count("ppo:runs/ppo/roll_through_the_ages/2026-11-26-very-long-run-name/model.zip") == 1
    assert agent_letters(28)[:3] == ["A", "B", "C"] and agent_letters(28)[26:] == ["A1", "B1"]


def test_evaluate_tables_are_plain_aligned_text():
    """The summary and the matrix (drawn by rich) are plain text: no terminal codes, an agent spec with
    brackets shown as written (never read as markup), every column right-aligned under its header."""
    from meeple.cli.evaluate import format_matrix, format_table

    agents = [{"name": "net:runs/[x]/net.safetensors", "rating": {"mu": 30.1, "sigma": 1.2, "ordinal": 26.5},
               "win_rate": 0.75, "win_ci95": [0.6, 0.86], "mean_score": 33.25, "score_ci95": [30.0, 36.5],
               "games": 40, "seats": 40},
              {"name": "random", "rating": {"mu": 20.0, "sigma": 1.5, "ordinal": 15.5}, "win_rate": 0.25,
               "win_ci95": [0.14, 0.4], "mean_score": 3.5, "score_ci95": None, "games": 40, "seats": 40}]
    result = {"num_players": 2, "agents": agents, "pairwise": {"win_rate": [[None, 0.75], [0.25, None]]}}
    table = format_table(result).splitlines()
    assert "\x1b" not in "".join(table) and len(table) == 4
    assert table[2].startswith("net:runs/[x]/net.safetensors") and table[3].startswith("random")
    header = table[0]
    for column, cell in (("win rate", "0.750"), ("games", "40")):
        end = header.index(column) + len(column)
        assert table[2][:end].endswith(cell)
    assert table[3].split()[-4:] == ["3.50", "-", "40", "40"]
    matrix = format_matrix(result).splitlines()
    assert matrix[2].split()[-2:] == ["-", "0.750"] and matrix[3].startswith("[1] random")
