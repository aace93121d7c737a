#!/usr/bin/env bash
# Create .venv (once), install meeple with every extra (training, evaluation, tests) and compile every
# game's kernels into numba's cache, so a first game starts in about a second. Safe to re-run (cheap once
# cached).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
# the CPU build of torch first: the training extra would otherwise pull a multi-GB CUDA build
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e ".[all]"
# Numba compiles a kernel on its first call and caches the machine code next to the sources. Compile every
# game now, in two processes on different games (2 cores), instead of on a user's first reset (or in each
# pytest worker); MEEPLE_SKIP_WARM=1 skips it.
if [ "${MEEPLE_SKIP_WARM:-0}" != 1 ]; then
    # (split by measured compile time: Attika and Hadara ~480 s, the other three ~560 s under CI's load)
    .venv/bin/python scripts/warm_cache.py carpe_diem utopia roll_through_the_ages & first=$!
    .venv/bin/python scripts/warm_cache.py attika hadara
    wait "$first"
fi
