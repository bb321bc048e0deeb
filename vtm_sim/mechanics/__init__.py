"""One combatant and one attack: the combatant, movement, blood, the attack chain, exact odds."""
