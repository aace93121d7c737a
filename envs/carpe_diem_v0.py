"""PettingZoo AEC env `carpe_diem_v0` (see envs/aec.py for the shared behaviour).

    from meeple.envs import carpe_diem_v0
    e = carpe_diem_v0.env(num_players=3, render_mode="ansi")

Rewards arrive when the game ends: rank-based in [-1, 1] by VP, ties broken by the banderole track,
or (own VP - best opponent VP) / 100 with reward="score_diff"; final VP are in
`infos[agent]["scores"]`. The observation's `decision` block says which kind of choice is pending.
"""

from meeple.envs.aec import env_functions

env, raw_env = env_functions("carpe_diem")
