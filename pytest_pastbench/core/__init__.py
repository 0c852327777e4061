"""What every protocol shares: store, world, tools, trace, records, sandbox, statistics, text."""
