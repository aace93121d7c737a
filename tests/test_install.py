"""Installing meeple as a user would: the wheel in a fresh virtual environment, used from outside the checkout.

The wheel test builds a wheel of the checkout, installs it (with pip, so the `meeple` console script is
generated as for a user) into a new, empty venv and, from a temporary folder elsewhere, imports
`meeple.envs`, plays one AEC game of Roll Through the Ages with random legal moves and runs
`meeple games`, `meeple evaluate` and `meeple train` (argument checking only). Since the working
directory and the new venv are both outside the checkout, any module or file the wheel forgot fails here,
not on a user's machine.

How, and why:

- **The wheel is built from a copy** of what it is made of (pyproject.toml, README.md and the package
  folders pyproject.toml maps), because setuptools builds in the source tree: two builds of the checkout at
  once (tests/test_layout.py builds one too; pytest-xdist runs them side by side) would share its build/
  folder.
- **The dependencies are not installed again.** The new venv is plain (`python -m venv --without-pip`; not
  `--system-site-packages`, which would expose the base interpreter's packages rather than this
  environment's), the wheel goes in with `--no-deps --no-index`, and a `.pth` file in the new venv's
  site-packages adds this environment's site-packages to the end of its `sys.path`. So numpy, numba,
  gymnasium, PettingZoo, torch and the rest are imported from here and CI downloads nothing, while
  `meeple` itself can only come from the wheel: the new venv's own site-packages comes first, and lines
  of a `.pth` file only add folders, so the editable install's import hook (itself started by a `.pth`
  file in this environment's site-packages) never runs there. The test asserts where `meeple.envs` and
  numpy were imported from.
- **Numba's cache is copied, not rebuilt.** A fresh install compiles a game's kernels on first use, about
  half a minute for this game (README, "Speed"); that is measured by benchmarks/cold_start.py and is not
  what this test is about. Numba keys its cache on the source file's contents (and the function's
  bytecode), so the kernels the checkout compiled (scripts/setup.sh) are valid for the installed copy of
  the same files: the test copies those of this game and the shared modules next to the installed
  sources. If they are stale, the installed copy compiles and the test is only slower.

About 7 s on the 2-core machine, most of it the five fresh interpreters (the game, `meeple games`,
`meeple evaluate`, `meeple train`, which imports torch) and the wheel build.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

from meeple.envs import GAMES

ROOT = Path(__file__).resolve().parents[1]
GAME = "roll_through_the_ages"

PLAY = """
import json, numpy as np, meeple.envs
from meeple.envs import roll_through_the_ages_v0

env = roll_through_the_ages_v0.env(num_players=2)
env.reset(seed=0)
rng = np.random.default_rng(0)
steps, results = 0, {}
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    if termination or truncation:
        results[agent] = reward
        action = None
    else:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        steps += 1
    env.step(action)
print(json.dumps({"envs": meeple.envs.__file__, "numpy": np.__file__, "steps": steps, "results": results}))
"""


def build_wheel(tmp_path: Path) -> Path:
    """A wheel of the checkout, built from a copy of its pyproject.toml, README.md and package folders."""
    src, dist = tmp_path / "src", tmp_path / "dist"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    folders = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].values()
    for folder in folders:
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                    "-w", str(dist), str(src)], check=True, capture_output=True, text=True)
    return next(dist.glob("meeple-*.whl"))


def copy_numba_cache(site_packages: Path) -> int:
    """Copies the checkout's numba cache files of GAME and the shared modules next to the installed sources;
    returns how many."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    other_games = set(GAMES) - {GAME}
    copied = 0
    for package, folder in mapping.items():
        target_root = site_packages.joinpath(*package.split("."))
        for cache in (ROOT / folder).rglob("__pycache__"):
            rel = cache.parent.relative_to(ROOT / folder)
            if other_games & set(rel.parts):
                continue
            for path in cache.iterdir():
                if path.suffix in (".nbi", ".nbc") and path.name.split(".")[0] not in other_games:
                    target = target_root / rel / "__pycache__" / path.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, target)
                    copied += 1
    return copied


def test_wheel_installs_and_plays_outside_the_checkout(tmp_path):
    wheel = build_wheel(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
                    str(wheel)], check=True, capture_output=True, text=True)
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                  check=True, capture_output=True, text=True).stdout.strip())
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (purelib / "meeple_test_dependencies.pth").write_text("".join(f"{p}\n" for p in ours))
    assert copy_numba_cache(purelib) > 0

    elsewhere = tmp_path / "elsewhere"  # neither the checkout nor the venv: nothing importable by accident
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "NUMBA_CACHE_DIR")}

    def run(*cmd: str | Path) -> subprocess.CompletedProcess:
        return subprocess.run([str(c) for c in cmd], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300)

    game = run(python, "-c", PLAY)
    assert game.returncode == 0, game.stderr[-3000:]
    played = json.loads(game.stdout.strip().splitlines()[-1])
    installed = Path(played["envs"]).resolve()
    assert installed.is_relative_to(venv.resolve()), installed  # the wheel's copy, not the checkout's
    assert not installed.is_relative_to(ROOT)
    assert any(Path(played["numpy"]).resolve().is_relative_to(Path(p).resolve()) for p in ours)  # via the .pth
    assert played["steps"] > 20
    assert sorted(played["results"]) == ["player_0", "player_1"]
    assert sorted(played["results"].values()) in ([-1.0, 1.0], [0.0, 0.0])  # a win and a loss, or a shared first place

    meeple = venv / "bin" / "meeple"  # the console script pip generated
    assert meeple.read_text().startswith(f"#!{python}")
    games = run(meeple, "games")
    assert games.returncode == 0, games.stderr[-3000:]
    lines = games.stdout.splitlines()
    assert lines[0].split()[:3] == ["game", "players", "actions"]
    assert sorted(line.split()[0] for line in lines[1:]) == sorted(GAMES)
    assert f"{GAME} 1-4 51 (trade=True: 69) 366 meeple/RollThroughTheAges-v0".split() in [line.split() for line in lines]

    tournament = run(meeple, "evaluate", "--agents", "heuristic", "random", "--games", "2", "--no-save", "--no-progress")
    assert tournament.returncode == 0, tournament.stderr[-3000:]
    assert "heuristic" in tournament.stdout and "2 games" in tournament.stdout

    bad = run(meeple, "train", "--n-envs", "0")  # imports the training code and torch, checks, exits 2
    assert bad.returncode == 2, bad.stderr[-3000:]
    assert bad.stderr.strip().splitlines() == ["error: --n-envs must be at least 1, got 0"]
    assert list(elsewhere.iterdir()) == []  # nothing written where it ran


def test_meeple_run_is_the_run_script():
    """`meeple run` runs scripts/run.sh's train and evaluate commands with the same arguments."""
    from meeple.cli import RUN_EVALUATE_ARGS, RUN_TRAIN_ARGS

    text = (ROOT / "scripts" / "run.sh").read_text().replace("\\\n", " ")
    commands = {}
    for line in text.splitlines():
        words = shlex.split(line)
        if len(words) > 1 and words[0].endswith("python") and words[1] in ("train.py", "evaluate.py"):
            commands[words[1]] = words[2:]
    assert commands == {"train.py": RUN_TRAIN_ARGS, "evaluate.py": RUN_EVALUATE_ARGS}


def test_meeple_command_in_process(capsys):
    from meeple.cli import game_rows, main

    rows = {row["game"]: row for row in game_rows()}
    assert set(rows) == set(GAMES)
    assert rows[GAME]["players"] == [1, 2, 3, 4] and rows[GAME]["actions"] == 51
    assert rows["attika"]["variant_actions"] == {"actions='flat'": 19387}
    assert rows["hadara"]["gymnasium_id"] == "meeple/Hadara-v0"
    assert main(["--help"]) == 0 and "meeple <command>" in capsys.readouterr().out
    assert main([]) == 2 and "meeple <command>" in capsys.readouterr().err
    assert main(["chess"]) == 2 and "unknown command 'chess'" in capsys.readouterr().err
    assert main(["run", "--minutes", "1"]) == 2 and "takes no arguments" in capsys.readouterr().err
    assert main(["games", "extra"]) == 2 and "takes no arguments" in capsys.readouterr().err
    assert main(["evaluate", "--games", "0"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == ["error: --games must be at least 1, got 0"]
