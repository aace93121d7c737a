#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the main job on Roll Through the Ages, 2 players, ~5 minutes on
# 2 cores: a 3-minute self-play MaskablePPO run warm-started from the heuristic (runs/main_job/),
# then a seeded tournament of the trained policy against the heuristic and random play (win rates
# with 95% intervals, head-to-head matrix, OpenSkill ratings; JSON and PNG in runs/eval/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python train.py --game roll_through_the_ages --num-players 2 --exp-name main_job \
    --time-limit-minutes 3 --total-timesteps 100_000_000 --imitation-steps 300_000 --imitation-epochs 6 \
    --eval-every 1_000_000 --eval-games 100
.venv/bin/python evaluate.py --game roll_through_the_ages --num-players 2 --games 600 \
    --agents ppo:runs/main_job/model.zip heuristic random
