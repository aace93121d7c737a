#!/usr/bin/env bash
# The main job, on Hadara at 2 players: set up (scripts/setup.sh, compiling the Hadara kernels only), a
# 9-minute expert-iteration run (runs/main_job/: a net cloned from the games of the heuristic, then trained
# on the moves of the rollout agent over the heuristic, 64 heuristic playouts per decision, on the positions
# its own play reaches), then a seeded 600-game tournament of the trained policy alone (best.safetensors,
# the best of its evaluations) against the heuristic and random play: 200 games for each pair of the three,
# win rates with 95% intervals, head-to-head counts, OpenSkill ratings (runs/main_job/tournament.json and
# .png). It ends with a summary: the time of each phase and the head-to-head results of the policy.
# MEEPLE_RECORD=1 also writes that summary into benchmarks/results.json (the README tables come from there).
set -euo pipefail
cd "$(dirname "$0")/.."
phases=$(mktemp)
trap 'rm -f "$phases"' EXIT
MEEPLE_WARM=${MEEPLE_WARM:-hadara} MEEPLE_PHASE_LOG="$phases" bash scripts/setup.sh

echo "[main job] 1/2 training: expert iteration on Hadara, 9 minutes (runs/main_job/)"
start=$SECONDS
.venv/bin/python train.py --algo exit --game hadara --num-players 2 --exp-name main_job \
    --time-limit-minutes 9 --warm-start-games 2000 --warm-start-epochs 6 \
    --games-per-round 64 --expert mcts:64:mode=rollout,rollout=heuristic \
    --expert-share 0.5 --opponents heuristic --opponent-weights 1 \
    --replay-rounds 100 --epochs 1 --learning-rate 5e-4 --weight-decay 1e-4 \
    --eval-every 2 --eval-games 200 --eval-opponents heuristic
echo "training $((SECONDS - start))" >> "$phases"

echo "[main job] 2/2 tournament: the trained policy, the heuristic and random play, 600 games"
start=$SECONDS
.venv/bin/python evaluate.py --game hadara --num-players 2 --games 600 \
    --agents net:runs/main_job/best.safetensors heuristic random --json runs/main_job/tournament.json
echo "tournament $((SECONDS - start))" >> "$phases"

.venv/bin/python scripts/main_job_summary.py --phases "$phases" --run runs/main_job \
    ${MEEPLE_RECORD:+--record}
