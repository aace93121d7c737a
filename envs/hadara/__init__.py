"""Hadara (2-5 players, basic and advanced game): batched rules core and AEC env."""
