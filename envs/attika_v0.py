"""PettingZoo AEC env `attika_v0` (see envs/aec.py for the shared behaviour).

    from meeple.envs import attika_v0
    e = attika_v0.env(num_players=3, render_mode="ansi")

Rewards arrive when the game ends: the winner (all 30 buildings placed, or two shrines connected by
one settlement) +1 and the others -1 / (P - 1) each (reward="rank"), or -1 each with
reward="win_loss"; a game cut by the round cap is a draw, 0 for everyone. The observation's decision
block says which kind of choice is pending (with the factored actions, a build is SELECT_TYPE then SLOT).
"""

from meeple.envs.aec import env_functions

env, raw_env = env_functions("attika")
