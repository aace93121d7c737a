#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the main job on Hadara, 2 players, ~10 minutes on 2 cores: a 9-minute
# expert-iteration run (runs/main_job/): a net cloned from the games of the heuristic, then trained on the
# moves of the rollout agent over the heuristic (64 heuristic playouts per decision) on the positions its
# own play reaches; then a seeded tournament of the trained policy alone (the best of its evaluations,
# best.safetensors) against the heuristic and random play (win rates with 95% intervals, head-to-head
# matrix, OpenSkill ratings; JSON and PNG in runs/eval/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python train.py --algo exit --game hadara --num-players 2 --exp-name main_job \
    --time-limit-minutes 9 --warm-start-games 2000 --warm-start-epochs 6 \
    --games-per-round 64 --expert mcts:64:mode=rollout,rollout=heuristic \
    --expert-share 0.5 --opponents heuristic --opponent-weights 1 \
    --replay-rounds 100 --epochs 1 --learning-rate 5e-4 --weight-decay 1e-4 \
    --eval-every 2 --eval-games 200 --eval-opponents heuristic
.venv/bin/python evaluate.py --game hadara --num-players 2 --games 600 \
    --agents net:runs/main_job/best.safetensors heuristic random
