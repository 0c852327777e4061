"""Repo-level glue for this checkout only.

Nothing needs registering: the benchmark data (families/, agents/) is found beside the package
in a checkout and inside the package in a wheel (pytest_pastbench/resources.py), and the plugin
itself is loaded through its pytest11 entry point. The tests' pytester plugin comes from
addopts in pyproject.toml, because pytest_plugins in a conftest breaks runs that collect the
packaged families from another directory.
"""
