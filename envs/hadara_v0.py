"""PettingZoo AEC env `hadara_v0` (see envs/aec.py for the shared behaviour).

    from meeple.envs import hadara_v0
    e = hadara_v0.env(num_players=4, advanced=True, render_mode="ansi")

Rewards arrive when the game ends: rank-based in [-1, 1] by VP then coins (ties share), or
(own VP - best opponent VP) / 100 with reward="score_diff"; final VP are in `infos[agent]["scores"]`.
Simultaneous phase-A choices are asked in turn order as hidden commitments, revealed together.
"""

from meeple.envs.aec import env_functions

env, raw_env = env_functions("hadara")
