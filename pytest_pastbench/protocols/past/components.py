"""The names of Mech's five components (docs/design.md §4; ``mech.py`` computes them).

On their own, without the code that computes them: the protocol object names its gate metrics
when it registers, before any PAST family is collected, and must not load the scoring to do so.
"""

COMPONENTS = ("wp", "ra", "uc", "rh", "pr")
