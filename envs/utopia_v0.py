"""PettingZoo AEC env `utopia_v0` (see envs/aec.py for the shared behaviour).

    from meeple.envs import utopia_v0
    e = utopia_v0.env(num_players=4, render_mode="ansi")

Rewards arrive when the game ends: rank-based in [-1, 1] by prestige points, ties going to the player
who reached the tied score first, or (own points - best opponent's) / 100 with reward="score_diff";
final points are in `infos[agent]["scores"]`. A game stopped by the safety cap after round 40 is
truncated and ranked on the points reached. The observation's `decision` block says which kind of
choice is pending.
"""

from meeple.envs.aec import env_functions

env, raw_env = env_functions("utopia")
