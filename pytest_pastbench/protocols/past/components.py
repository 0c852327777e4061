"""The names of Mech's five components (docs/design.md §4; ``mech.py`` computes them) and of
PAST's gate metrics (``gates.py`` draws them from a summary).

On their own, without the code that computes them: the protocol object names its gate metrics
when it registers, before any PAST family is collected, and must not load the scoring to do so.
"""

COMPONENTS = ("wp", "ra", "uc", "rh", "pr")
# Per config × scope: Δ, Mech, S_on and S_off, then Mech's components (the order a gate error lists).
SCOPE_METRICS = ("delta", "mech", "s_on", "s_off")
GATE_METRICS = (*SCOPE_METRICS, *COMPONENTS)
