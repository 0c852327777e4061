"""Repo-level glue for this checkout only.

Nothing needs registering: the benchmark data (families/, agents/) is found beside the package
in a checkout and inside the package in a wheel (pytest_pastbench/resources.py), and the plugin
itself is loaded through its pytest11 entry point. The tests' pytester plugin is requested by
tests/conftest.py, so a user's `pytest` over families/ from this checkout never loads it.
"""
