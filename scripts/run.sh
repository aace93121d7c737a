#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the main job: the heuristic against random play on
# Roll Through the Ages, 1,000 seeded games with seats rotated. Extra arguments go to evaluate.py.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python evaluate.py --game roll_through_the_ages --agents heuristic random --games 1000 "$@"
