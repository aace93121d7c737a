"""Packaging: one import name `meeple`, every package in the wheel, no bare `envs`/`agents` imports."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP_FOLDERS = {"envs": "meeple.envs", "encoders": "meeple.encoders", "agents": "meeple.agents", "cli": "meeple.cli",
               "web": "meeple.web"}
BARE_IMPORT = re.compile(r"^\s*(from|import)\s+(envs|encoders|agents|cli|web)(\.|\s|$)", re.MULTILINE)


def _python_files():
    # (walked with the skipped folders pruned: the venvs alone hold hundreds of thousands of files)
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".venv") and d not in {"build", "dist", "runs", ".git"}]
        yield from (Path(folder) / f for f in files if f.endswith(".py"))


def _packages_on_disk():
    for folder, name in TOP_FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            yield ".".join([name, *rel.parts]) if rel.parts else name


def test_no_bare_imports():
    offenders = [str(p.relative_to(ROOT)) for p in _python_files() if BARE_IMPORT.search(p.read_text())]
    assert not offenders, f"import through `meeple.` instead of bare top-level names: {offenders}"


def test_every_package_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    assert set(_packages_on_disk()) == listed
    assert config["package-dir"] == {name: folder for folder, name in TOP_FOLDERS.items()}


def test_wheel_contains_every_package(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path)],
        check=True,
    )
    wheel = next(tmp_path.glob("meeple-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in _packages_on_disk():
        assert package.replace(".", "/") + "/__init__.py" in names, f"{package} missing from the wheel"
    for folder in TOP_FOLDERS:
        for module in (ROOT / folder).rglob("*.py"):
            target = "meeple/" + str(module.relative_to(ROOT))
            assert target in names, f"{target} missing from the wheel"
    for folder in ("static", "templates"):  # package data: the browser app's pages (meeple serve)
        for asset in (ROOT / "web" / folder).iterdir():
            assert f"meeple/web/{folder}/{asset.name}" in names, f"web/{folder}/{asset.name} missing from the wheel"
    assert not any(n.startswith(("tests/", "benchmarks/")) for n in names)
