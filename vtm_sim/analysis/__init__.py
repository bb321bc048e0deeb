"""Advice for a Storyteller: ranked options, tactic cards, behaviour cards."""
