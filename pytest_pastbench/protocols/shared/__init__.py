"""What several protocols share and no one protocol owns: the offline policies' turn reading and
plan replay (``replay.py``), the curator's rules for what a user turn teaches (``curation.py``),
the check language and its grader (``schema.py``, ``checks.py``, ``claims.py``, ``matching.py``,
``quantities.py``) and the safety rules (``safety.py``).

Protocols import from here; nothing here imports a protocol.
"""
