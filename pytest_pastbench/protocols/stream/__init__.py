"""Evolving-environment streams (docs/design.md §8, ServeLearnBench): hidden rules that are introduced,
withdrawn and re-enter over windows; serving tickets with outcome feedback, test tickets with
the store frozen.

The protocol object is ``protocol.PROTOCOL``; this package ``__init__`` stays empty so that
importing one of its modules (a schema, say) does not load the whole protocol.
"""
