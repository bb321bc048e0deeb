"""The rules' smallest values: dice, choices, health, space, weapons, maneuvers."""
