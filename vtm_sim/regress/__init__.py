"""Regression battles: golden logs, the balance tier, where two logs part."""
