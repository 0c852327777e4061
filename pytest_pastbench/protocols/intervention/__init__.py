"""User-conditioned temporal interventions (docs/design.md §8, the "Toward User-Conditioned Evaluation"
paper): one change event of a versioned domain, replayed over several user-state profiles.

The protocol object is ``protocol.PROTOCOL``; this package ``__init__`` stays empty so that
importing one of its modules (a schema, say) does not load the whole protocol.
"""
