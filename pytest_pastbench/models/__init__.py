"""Models: the client, the run's gateway and its wire formats, cache, budget, offline provider."""
