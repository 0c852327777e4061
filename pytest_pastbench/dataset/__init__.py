"""The PAST dataset: seeded generator, audit and export of the built-in families."""
