#!/usr/bin/env bash
# Create .venv (once) and install meeple with every extra (training, evaluation, tests). Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
# the CPU build of torch first: the training extra would otherwise pull a multi-GB CUDA build
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e ".[all]"
