"""The protocols: PAST (``past/``) and docs/design.md §8's interventions, streams and plasticity.

Each is a family type with its own format tag (``format: pastbench/<name>-v1``), its own items,
metrics and report section, plugged into the same collection, worker → controller transport,
run folder, terminal report, merge, resume and baselines. The contract is the typed
``base.BenchProtocol``; a protocol is registered through ``pytest_pastbench_register_protocols``
(``registry.py``; the built-in four in ``builtin.py``).
"""
