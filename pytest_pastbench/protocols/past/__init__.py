"""PAST (docs/design.md §4): persistence on/off arms over episodes of sessions; Δ = S_on − S_off and Mech.

The protocol object is ``protocol.PROTOCOL``; this package ``__init__`` stays empty so that
importing one of its modules (a schema, say) does not load the whole protocol.
"""
