"""Rules as data: YAML loading, game tables, stat blocks, rules profiles, tactic files."""
