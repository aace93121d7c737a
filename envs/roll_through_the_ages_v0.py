"""PettingZoo AEC env `roll_through_the_ages_v0` (see envs/aec.py for the shared behaviour).

    from meeple.envs import roll_through_the_ages_v0
    e = roll_through_the_ages_v0.env(num_players=3, render_mode="ansi")   # trade=True for the trade variant

Rewards arrive when the game ends: rank-based in [-1, 1] by score then goods value (ties share;
solo: the final score); final scores are in `infos[agent]["scores"]`.
"""

from meeple.envs.aec import env_functions

env, raw_env = env_functions("roll_through_the_ages")
