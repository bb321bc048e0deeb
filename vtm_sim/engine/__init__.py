"""The battle as a state machine: turns, queries, options, strikes, effects, chase, saving."""
