#!/usr/bin/env bash
# Create .venv (once), install meeple with every extra (training, evaluation, tests) and compile the games'
# kernels into numba's cache, so a first game starts in about a second. Safe to re-run: a later run skips
# what is done (the install when pyproject.toml is unchanged, the compile of what is cached).
#
#   bash scripts/setup.sh                      # compile every game (what the tests need)
#   MEEPLE_WARM=hadara bash scripts/setup.sh   # compile these games only (scripts/run.sh: the main job's)
#   MEEPLE_WARM=none bash scripts/setup.sh     # install only (MEEPLE_SKIP_WARM=1 does the same)
#
# Games not compiled here compile on their first use, in the background (envs/first_use.py).
# Every phase prints a line when it starts, one every 30 s while it runs and its time when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
TORCH=2.13.0
start_all=$SECONDS

clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# phase KEY LABEL COMMAND...: run COMMAND, saying what runs and for how long; with MEEPLE_PHASE_LOG set,
# appends "KEY SECONDS" to that file (scripts/run.sh's summary)
phase() {
    local key=$1 label=$2
    shift 2
    echo "[setup] $label ..."
    "$@" &
    follow "$key" "$label" $!
}

# follow KEY LABEL PID: wait for the background job PID of this shell as `phase` does for its command
follow() {
    local key=$1 label=$2 pid=$3 start=$SECONDS n=0
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        n=$((n + 1))
        if [ $((n % 30)) -eq 0 ] && kill -0 "$pid" 2>/dev/null; then
            echo "[setup] $label: still running, $(clock $((SECONDS - start)))"
        fi
    done
    if ! wait "$pid"; then echo "[setup] $label: FAILED after $(clock $((SECONDS - start)))" >&2; return 1; fi
    echo "[setup] $label: done in $(clock $((SECONDS - start)))"
    if [ -n "${MEEPLE_PHASE_LOG:-}" ]; then echo "$key $((SECONDS - start))" >> "$MEEPLE_PHASE_LOG"; fi
}

[ -x .venv/bin/python ] || phase install "creating .venv with $("$python" --version 2>&1)" "$python" -m venv .venv

# torch: the CPU build. pip's default index (PyPI) has, on Linux, a CUDA build of several GB that the small
# networks here never use, so torch comes from PyTorch's CPU index -- unless pip already finds the CPU wheel
# in a local wheel folder (PIP_FIND_LINKS / pip.conf find-links), as on machines without internet access.
install_torch() {
    if .venv/bin/python -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH')" 2>/dev/null; then
        return 0
    fi
    local tmp
    tmp=$(mktemp -d)
    if .venv/bin/python -m pip download -q --no-deps --no-index -d "$tmp" "torch==$TORCH" >/dev/null 2>&1; then
        .venv/bin/python -m pip install -q "torch==$TORCH"                      # the local CPU wheel
    else
        .venv/bin/python -m pip install -q "torch==$TORCH" \
            --index-url "${MEEPLE_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}"
    fi
    rm -rf "$tmp"
}

# Numba compiles a kernel on its first call and caches the machine code next to the sources. Compile the
# chosen games here (each in two parts, as many processes at once as there are cores) rather than on a
# user's first reset or in each pytest worker; a game already cached takes seconds.
warm=${MEEPLE_WARM:-all}
if [ "${MEEPLE_SKIP_WARM:-0}" = 1 ]; then warm=none; fi
games=()
if [ "$warm" != all ] && [ "$warm" != none ]; then read -r -a games <<< "$warm"; fi
label=$warm
if [ "$warm" = all ]; then label="every game"; fi

compile_now() { .venv/bin/python scripts/warm_cache.py ${games[@]+"${games[@]}"}; }  # (prints its progress)

# meeple and its extras; skipped when this pyproject.toml is what the last install used
stamp=.venv/.meeple-installed
wanted=$(cat pyproject.toml | cksum)
background=
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ] || ! .venv/bin/python -c "import meeple.envs, torch" 2>/dev/null; then
    # The kernels need only meeple's core packages (numpy, numba, ...): the compile starts once those are in
    # and runs while pip installs torch and the extras (mostly unpacking, on one core), niced so that pip
    # keeps its core and the compile has the rest, then every core once pip is done. A first run waits for
    # the longer of the two rather than for both in turn.
    phase install "installing meeple's core packages (pip install -e .)" .venv/bin/python -m pip install -q -e .
    if [ "$warm" != none ]; then
        compile_log=$(mktemp "${TMPDIR:-/tmp}/meeple-setup-compile-XXXXXX")
        nice -n 10 .venv/bin/python scripts/warm_cache.py ${games[@]+"${games[@]}"} >"$compile_log" 2>&1 &
        background=$!
        # (should the install fail, the compile stops with it)
        trap 'pkill -P "$background" 2>/dev/null; kill "$background" 2>/dev/null; true' EXIT
        echo "[setup] compiling the kernels of: $label, in the background while the rest installs"
    fi
    phase install "installing torch $TORCH (CPU build)" install_torch
    phase install "installing meeple with every extra (pip install -e '.[all]')" .venv/bin/python -m pip install -q -e ".[all]"
    echo "$wanted" > "$stamp"
else
    echo "[setup] install: up to date (.venv, pyproject.toml unchanged)"
fi

if [ -n "$background" ]; then
    # the compile begun before the install. Should it have failed (a process it started while pip was
    # re-installing meeple finds no meeple), compile here: what it cached stays cached.
    if ! follow compile "compiling the kernels of: $label (begun before the install; once, cached afterwards)" \
            "$background"; then
        tail -n 5 "$compile_log"
        echo "[setup] (the lines above end the background compile's output)"
        phase compile "compiling the kernels of: $label again, in this shell" compile_now
    fi
    trap - EXIT
    grep '^\[compile\] [a-z_]*: done' "$compile_log" || true  # (each game's time)
    rm -f "$compile_log"
elif [ "$warm" != none ]; then
    phase compile "compiling the kernels of: $label (once; cached afterwards)" compile_now
fi
echo "[setup] ready in $(clock $((SECONDS - start_all)))"
