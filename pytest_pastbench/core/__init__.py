"""What every protocol shares: store, store tools and the tool-box interface, family-file reading,
trace, records, sandbox, statistics, text. No protocol's own code lives here."""
