"""The PAST dataset tooling: the audit (with its shortcut rules) and the export of the built-in families."""
