"""Compile (and cache) the numba kernels of the given games once, before tests or a first run.

    python scripts/warm_cache.py                      # every registered game
    python scripts/warm_cache.py attika hadara        # some games

The same as `python -m meeple.envs.warm` (envs/warm.py says what it runs). Without this step every pytest
worker would compile every game by itself on first use; scripts/setup.sh runs two of these processes side
by side on different games, so later processes only load the cache.
"""

from __future__ import annotations

import sys

from meeple.envs.warm import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
