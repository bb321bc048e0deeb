"""Who plays a combatant: the nearest, tactician, planner and playbook policies,
the registry of policy names, the ladder's rungs."""
