"""Repo-level glue for this checkout only.

The benchmark data (families/, agents/) is found beside the package in a checkout and inside
the package in a wheel (see pytest_pastbench/resources.py), so nothing needs registering here.
The project's own tests use pytester to run the plugin in isolated temporary projects.
"""

pytest_plugins = ["pytester"]
