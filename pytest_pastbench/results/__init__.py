"""Results: the run folder, reading and aggregating runs, merge, baselines, gates, compare."""
