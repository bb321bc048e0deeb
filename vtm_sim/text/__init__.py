"""Battles in words: narration, the story, dice in plain words."""
