"""Colours the games' pictures (`envs/<game>/picture.py`) share, so that text looks the same in every game.

Kept apart from `canvas` so that importing a picture module does not load Pillow (canvas does).
"""

INK = (30, 30, 30)  # text and outlines
MUTED = (118, 112, 100)  # secondary text: labels, counts, empty places
