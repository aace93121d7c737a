#!/usr/bin/env bash
# The RLlib environment: its own venv (.venv-rllib), because ray[rllib] pins a gymnasium older than the
# main venv's. CPU torch first (a bare torch would be a multi-GB CUDA build), then meeple with the rllib
# extra. Safe to re-run. The numba cache is shared with the main venv (same numba, same sources).
# `setup_rllib.sh deps` installs only the third-party packages (no editable install of meeple), which
# scripts/test.sh runs in the background beside setup.sh: two editable installs at once would both
# write meeple.egg-info.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
[ -x .venv-rllib/bin/python ] || "$python" -m venv .venv-rllib
.venv-rllib/bin/python -m pip install -q torch==2.13.0
.venv-rllib/bin/python -m pip install -q "ray[rllib]==2.60.0" "pytest>=8"
if [ "${1:-}" != deps ]; then
    .venv-rllib/bin/python -m pip install -q -e ".[rllib]"
fi
