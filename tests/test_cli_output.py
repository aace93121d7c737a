"""The scripts' console behaviour: output paths checked before the work, quiet progress in a log, --help without
internal options, a hint instead of a traceback outside the venv, the head-to-head lines of a tournament, and the
scripts/ tools' --help and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAME = "roll_through_the_ages"
# a folder no process can create files in, even as root (procfs)
UNWRITABLE = Path("/proc/meeple-no-such-folder")
needs_procfs = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux procfs for an unwritable folder")


def run(script: str, *args: str, cwd: Path = ROOT, python: list[str] | None = None) -> subprocess.CompletedProcess:
    cmd = [*(python or [sys.executable]), str(ROOT / script), *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)


def assert_one_error_line(proc: subprocess.CompletedProcess, *words: str) -> None:
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


@needs_procfs
@pytest.mark.parametrize("algo", ["ppo", "exit"])
def test_train_refuses_an_unwritable_run_dir_before_training(tmp_path, algo):
    proc = run("train.py", "--algo", algo, "--game", GAME, "--run-dir", str(UNWRITABLE / "runs"), cwd=tmp_path)
    assert_one_error_line(proc, "--run-dir", str(UNWRITABLE))
    assert list(tmp_path.iterdir()) == []


def test_train_refuses_a_run_dir_under_a_file(tmp_path):
    (tmp_path / "file").write_text("x")
    proc = run("train.py", "--game", GAME, "--run-dir", str(tmp_path / "file" / "runs"), cwd=tmp_path)
    assert_one_error_line(proc, "--run-dir", "is a file, not a folder")


@needs_procfs
@pytest.mark.parametrize("option, path", [("--json", UNWRITABLE / "e.json"), ("--plot", UNWRITABLE / "e.png"),
                                          ("--record", UNWRITABLE / "records")])
def test_evaluate_refuses_unwritable_outputs_before_playing(tmp_path, option, path):
    start = time.monotonic()
    proc = run("evaluate.py", "--game", GAME, "--agents", "heuristic", "random", "--games", "100000",
               option, str(path), cwd=tmp_path)
    assert_one_error_line(proc, option, str(UNWRITABLE.parent))
    assert "tournament" not in proc.stdout and list(tmp_path.iterdir()) == []
    assert time.monotonic() - start < 300  # (a loose bound: 100,000 games would take far longer)


def test_evaluate_refuses_a_json_path_under_a_file(tmp_path):
    (tmp_path / "file").write_text("x")
    proc = run("evaluate.py", "--game", GAME, "--games", "2", "--json", str(tmp_path / "file" / "e.json"))
    assert_one_error_line(proc, "--json", "is a file, not a folder")


def test_missing_output_folders_are_created(tmp_path):
    out = tmp_path / "new" / "deeper" / "e.json"
    records = tmp_path / "also-new" / "records"
    proc = run("evaluate.py", "--game", GAME, "--agents", "heuristic", "random", "--games", "2", "--json", str(out),
               "--record", str(records))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert out.is_file() and out.with_suffix(".png").is_file() and len(list(records.glob("*.json"))) == 2
    assert not list(tmp_path.rglob(".meeple-write-test-*"))  # the write probe leaves nothing behind


def test_help_lists_no_internal_options():
    for args in (["train.py", "--help"], ["train.py", "--algo", "exit", "--help"], ["evaluate.py", "--help"]):
        proc = run(*args)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "--run-dir" in proc.stdout or args[0] == "evaluate.py"
        assert "--run-name" not in proc.stdout and "computed at runtime" not in proc.stdout


def test_scripts_outside_the_venv_say_how_to_set_up(tmp_path):
    # -S: no site-packages, as a python without meeple (or numpy, torch) installed
    for script in ("train.py", "evaluate.py"):
        proc = run(script, "--help", python=[sys.executable, "-S"], cwd=tmp_path)
        assert proc.returncode == 1
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in proc.stderr, proc.stderr
        assert "bash scripts/setup.sh" in lines[0] and f".venv/bin/python {script}" in lines[0]


def test_evaluate_prints_head_to_head_counts_and_a_short_summary(tmp_path):
    """Three agents at two players: each pair meets in a third of the games (600 games: 200 per pair)."""
    out = tmp_path / "e.json"
    proc = run("evaluate.py", "--game", GAME, "--agents", "heuristic", "random", "mcts:2:rollout_depth=1",
               "--games", "12", "--json", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(out.read_text())
    pairs = {tuple(h["agents"]): h for h in result["head_to_head"]}
    assert set(pairs) == {("heuristic", "random"), ("heuristic", "mcts:2:rollout_depth=1"),
                          ("random", "mcts:2:rollout_depth=1")}
    for h in pairs.values():
        assert h["games"] == result["games"] // 3 == 4
        lo, hi = h["win_ci95"]
        assert 0 <= lo <= h["win_rate"] <= hi <= 1
    assert "heuristic vs random" in proc.stdout and "     4 games" in proc.stdout
    last = proc.stdout.strip().splitlines()[-1]
    assert len(last) < 400 and json.loads(last)["json"] == str(out)  # a short line; the full results are in the file
    assert "\r" not in proc.stdout + proc.stderr  # not a terminal: no bar redrawn in place


def test_progress_in_a_log_is_a_few_lines(capsys):
    from meeple.cli.train import RunBar

    bar = RunBar(1000, time.perf_counter(), float("inf"), enabled=True, label="ppo")
    for step in range(0, 1001, 5):
        bar.update(step)
    bar.close()
    out, err = capsys.readouterr()
    lines = (out + err).strip().splitlines()
    assert 5 <= len(lines) <= 11, lines  # one per tenth, not one per update
    assert lines[-1].startswith("ppo: 100%") and "1,000/1,000 steps" in lines[-1]
    assert "\r" not in out + err


def test_main_job_summary_prints_the_head_to_head_results(tmp_path):
    """scripts/run.sh's last step: the phase times and the policy's games, win rate and interval per opponent,
    read from the tournament's JSON (here with the heuristic in the policy's place)."""
    run_dir = tmp_path / "main_job"
    proc = run("evaluate.py", "--game", GAME, "--agents", "heuristic", "random", "mcts:2:rollout_depth=1",
               "--games", "12", "--json", str(run_dir / "tournament.json"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    phases = tmp_path / "phases"
    phases.write_text("install 150\ncompile 95\ncompile 5\ntraining 540\ntournament 70\n")
    proc = run("scripts/main_job_summary.py", "--phases", str(phases), "--run", str(run_dir), "--policy", "heuristic")
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    assert "install 2:30, compile 1:40, training 9:00, tournament 1:10; total 14:20" in lines[1]
    tournament = json.loads((run_dir / "tournament.json").read_text())
    h = next(h for h in tournament["head_to_head"] if h["agents"] == ["heuristic", "random"])
    expected = (f"against random        4 games, won {100 * h['win_rate']:.1f}% "
                f"(95% interval {100 * h['win_ci95'][0]:.1f}-{100 * h['win_ci95'][1]:.1f}%)")
    assert expected in proc.stdout and "against mcts:2:rollout_depth=1    4 games" in proc.stdout
    missing = run("scripts/main_job_summary.py", "--phases", str(tmp_path / "nope"))
    assert_one_error_line(missing, "--phases", str(tmp_path / "nope"))
    assert missing.stdout == ""


def snapshot(*folders: Path) -> dict[Path, int]:
    """Every file under `folders` with its modification time: what a rejected run must leave as it was."""
    return {f: f.stat().st_mtime_ns for folder in folders for f in folder.rglob("*") if f.is_file()}


# the scripts outside cli/ and benchmarks/: their options in --help, one bad argument each (the words its error
# line must name), and the folders it would write into
SCRIPTS = {
    "scripts/gen_playthroughs.py": (["--game"], ["--game", "chess"], ["--game", "'chess'"],
                                    [ROOT / "tests" / "playthroughs"]),
    "scripts/main_job_summary.py": (["--phases", "--run", "--policy", "--record"],
                                    ["--phases", "no-such-file", "--record"], ["--phases", "no-such-file"],
                                    [ROOT / "benchmarks"]),
    "scripts/ship_baseline.py": (["RUN", "--games", "--search-games", "--search-sims", "--search-top-k", "--search-depth",
                                  "--search-z", "--no-search-rival", "--seed", "--net {best,net}"],
                                 ["no-such-run", "--games", "3"], ["RUN", "no-such-run", "no such folder"],
                                 [ROOT / "agents" / "baselines"]),
}


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_scripts_help_and_a_bad_argument(tmp_path, script):
    """tyro as in cli/: --help lists the options; a bad argument is one `error:` line naming it, exit code 2,
    before anything is written (here or where the script writes its files)."""
    flags, bad, words, outputs = SCRIPTS[script]
    proc = run(script, "--help", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for flag in flags:
        assert flag in proc.stdout, (flag, proc.stdout)
    before = snapshot(*outputs)
    proc = run(script, *bad, cwd=tmp_path)
    assert_one_error_line(proc, *words)
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert snapshot(*outputs) == before and list(tmp_path.iterdir()) == [], "a rejected run wrote files"


def test_ship_baseline_names_the_missing_run_file_and_the_counts(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "summary.json").write_text("{}")
    for args, words in ((["--net", "net"], ["RUN", "net.safetensors does not exist"]),
                        (["--search-games", "-1"], ["--search-games", "at least 0"]),
                        (["--search-sims", "0"], ["--search-sims", "at least 1"]),
                        (["--search-z", "-1"], ["--search-z", "finite number"]),
                        (["--search-z", "nan"], ["--search-z", "finite number"])):
        assert_one_error_line(run("scripts/ship_baseline.py", str(run_dir), *args, cwd=tmp_path), *words)
    assert_one_error_line(run("scripts/ship_baseline.py", str(run_dir), "--search-top-k", "1", cwd=tmp_path),
                          "--search-top-k", "0 (every legal move) or at least 2")
    assert_one_error_line(run("scripts/ship_baseline.py", str(run_dir), "--search-depth", "24", cwd=tmp_path),
                          "--search-depth", "--no-search-rival")
    (run_dir / "summary.json").unlink()
    (run_dir / "manifest.json").write_text("{}")  # an advantage run without its checkpoint.json
    assert_one_error_line(run("scripts/ship_baseline.py", str(run_dir), cwd=tmp_path),
                          "RUN", "neither summary.json", "checkpoint.json")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["manifest.json", "run"]


def test_ship_baseline_records_an_advantage_runs_hours_states_and_curve(tmp_path, monkeypatch):
    """An advantage run's entry: the command that resumes nothing but repeats its settings, its hours and
    labelled states summed over sessions, and its learning curve (docs/training.md draws it)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ship_baseline", ROOT / "scripts" / "ship_baseline.py")
    ship = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "ship_baseline", ship)  # (its dataclass looks itself up there)
    spec.loader.exec_module(ship)
    (tmp_path / "manifest.json").write_text(json.dumps({
        "hours": 6.02, "labelled_states": 63000, "shards": 240, "playouts": 2_000_000, "margin": 1.0,
        "best": {"score": 0.5, "shards": 102, "hours": 2.99}, "sessions": [{}, {}, {}]}))
    (tmp_path / "checkpoint.json").write_text(json.dumps({"args": {"game": "utopia", "num_players": 2, "top_k": 2,
                                                                   "tune_margin": True, "hidden": [256, 256]}}))
    (tmp_path / "curve.json").write_text(json.dumps([{"hours": 0.5, "labelled_states": 900, "shards": 4, "games": 200,
                                                      "win_rate": 0.49, "win_ci95": [0.42123, 0.559], "margin": 1.0}]))
    assert ship.run_kind(tmp_path) == "advantage"
    record = ship.training_record(tmp_path, "advantage")
    assert record["train_command"] == ("meeple train --algo advantage --game utopia --num-players 2 --top-k 2 "
                                       "--tune-margin --hidden 256 256")
    assert (record["train_minutes"], record["labelled_states"], record["sessions"]) == (361.2, 63000, 3)
    assert record["curve"] == [{"hours": 0.5, "labelled_states": 900, "games": 200, "win_rate": 0.49,
                                "win_ci95": [0.4212, 0.559]}]
