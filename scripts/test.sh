#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the whole test suite, as CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
# the RLlib venv installs in the background (downloads, mostly) while setup.sh compiles the kernels
rllib_log=$(mktemp)
bash scripts/setup_rllib.sh deps >"$rllib_log" 2>&1 & rllib_setup=$!
bash scripts/setup.sh
# ... and is done before the tests start (unpacking torch while the workers run slowed them by minutes)
if ! wait "$rllib_setup"; then cat "$rllib_log"; exit 1; fi
bash scripts/setup_rllib.sh
# (setup.sh also compiles every game into numba's cache first, so the pytest workers only load it)
# The hardening tests and saved-state fuzzers run once, in the bounds-checking leg below (the same tests
# with numba's bounds checks on), unless tests are named on the command line
hardening=(tests/test_hardening.py $(ls tests/test_*_saves.py 2>/dev/null))
main_args=("$@")
if [ $# -eq 0 ]; then main_args=("${hardening[@]/#/--ignore=}"); fi
.venv/bin/python -m pytest -n 2 -q --durations=15 "${main_args[@]}"
# RLlib in its own venv (its gymnasium pin differs): the env adapter and the example on a two-node local
# Ray cluster, in the background beside the next two legs (it mostly waits on Ray's start-up);
# MEEPLE_RLLIB_LEG makes a missing ray a failure instead of a skip; MEEPLE_COMPILE=wait: its Ray workers
# compile in place if its numba ever reads the cache as cold, rather than running the kernels as Python
rllib_out=$(mktemp)
MEEPLE_COMPILE=wait MEEPLE_RLLIB_LEG=1 .venv-rllib/bin/python -m pytest -q -p no:cacheprovider tests/test_rllib.py >"$rllib_out" 2>&1 & rllib_tests=$!
# the hardening tests and saved-state fuzzers with numba's bounds checks on, so an out-of-bounds index in
# a kernel fails a test instead of writing into another row (own cache: the
# compiled code differs; MEEPLE_COMPILE=wait: compiled in the test process, never run as Python meanwhile)
# (no warm-up here: these tests compile only the rules kernels, fewer than warm_cache would; NUMBA_OPT=1:
# these kernels serve only this leg, and they compile in three quarters of the time, 284 -> 216 s for
# Attika's, with the same checks; --dist loadgroup runs each game's tests in one worker, so each game
# compiles once: tests/conftest.py; MEEPLE_BOUNDS_CACHE_DIR: a cache kept between runs, .ci/run)
bounds_cache=${MEEPLE_BOUNDS_CACHE_DIR:-$(mktemp -d)}
MEEPLE_COMPILE=wait NUMBA_OPT=1 NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR="$bounds_cache" .venv/bin/python -m pytest -n 2 \
    --dist loadgroup -q --durations=5 "${hardening[@]}"
# the worked examples once more with the kernels as plain Python: readable tracebacks, and a check
# that numpy's scalar semantics (NEP 50) give the same results as numba's; with random games through
# every encoder and the fused AEC step, as a newcomer's first game runs while its kernels compile
NUMBA_DISABLE_JIT=1 .venv/bin/python -m pytest -n 2 -q tests/test_roll_through_the_ages.py tests/test_hadara.py \
    tests/test_carpe_diem.py tests/test_attika.py tests/test_utopia.py tests/test_plain_python.py
if ! wait "$rllib_tests"; then cat "$rllib_out"; echo "error: the RLlib tests failed" >&2; exit 1; fi
tail -n 3 "$rllib_out"
