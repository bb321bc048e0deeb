"""Many battles: tournaments, their results, ratings, run folders, backends, the ladder."""
