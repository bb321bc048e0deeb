"""What a user writes: scenarios, state files, and replaying a battle log."""
