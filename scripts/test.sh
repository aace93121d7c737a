#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the whole test suite, as CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
# the RLlib venv installs in the background (downloads, mostly) while setup.sh installs and compiles
rllib_log=$(mktemp)
bash scripts/setup_rllib.sh deps >"$rllib_log" 2>&1 & rllib_setup=$!
bash scripts/setup.sh
# ... and is done before the tests start (unpacking torch while the workers run slowed them by minutes)
if ! wait "$rllib_setup"; then cat "$rllib_log"; exit 1; fi
bash scripts/setup_rllib.sh
# RLlib in its own venv (its gymnasium pin differs): the env adapter and the example on a two-node local
# Ray cluster, in the background beside the other legs: it mostly waits on Ray's start-up (about 3 minutes
# of wall clock, 1 of CPU), which after the main suite used to be the run's last minutes;
# MEEPLE_RLLIB_LEG makes a missing ray a failure instead of a skip; MEEPLE_COMPILE=wait: its Ray workers
# compile in place if its numba ever reads the cache as cold, rather than running the kernels as Python
rllib_out=$(mktemp)
MEEPLE_COMPILE=wait MEEPLE_RLLIB_LEG=1 .venv-rllib/bin/python -m pytest -q -p no:cacheprovider tests/test_rllib.py >"$rllib_out" 2>&1 & rllib_tests=$!
trap 'kill "$rllib_tests" 2>/dev/null || true' EXIT  # (a failed leg below ends the run: not the RLlib leg's too)
# (setup.sh also compiles every game into numba's cache first, so the pytest workers only load it; the
# kernels check every index, so the hardening, memory-safety and saved-state tests need no leg of their own)
.venv/bin/python -m pytest -n 2 --dist worksteal -q --durations=15 "$@"
# the worked examples once more with the kernels as plain Python: readable tracebacks, and a check
# that numpy's scalar semantics (NEP 50) give the same results as numba's; with random games through
# every encoder and the fused AEC step, as a newcomer's first game runs while its kernels compile
# (each registered game's worked examples: tests/test_<game>.py, read from the registry)
worked_examples=$(.venv/bin/python -c "from meeple.envs import GAMES; print(*(f'tests/test_{g}.py' for g in GAMES))")
NUMBA_DISABLE_JIT=1 .venv/bin/python -m pytest -n 2 --dist worksteal -q $worked_examples tests/test_plain_python.py
if ! wait "$rllib_tests"; then cat "$rllib_out"; echo "error: the RLlib tests failed" >&2; exit 1; fi
tail -n 3 "$rllib_out"
