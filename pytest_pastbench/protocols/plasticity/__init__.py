"""Plasticity checkpoints (docs/design.md §8, the "Agent Plasticity" paper).

The protocol object is ``protocol.PROTOCOL``; this package ``__init__`` stays empty so that
importing one of its modules (a schema, say) does not load the whole protocol.
"""
