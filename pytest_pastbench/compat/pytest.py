"""pytest internals the plugin relies on, in one place (pytest has no public API for these).

- ``--lf``/``--ff``: the cacheprovider's ``LFPlugin.lastfailed`` is the live set of failed node
  ids the run selects from. The public ``config.cache`` holds the same set on disk, but by the
  time a plugin can write there ``LFPlugin`` has read it, so adding the control arm of a failed
  item (and forgetting it again at the end) has to go through the live set.
- The JUnit XML: ``_pytest.junitxml.xml_key`` finds the ``LogXML`` object, whose
  ``add_global_property``, ``node_reporter`` and ``pytest_runtest_logreport`` add the summary's
  properties and testcases.
- The terminal: ``TerminalWriter._file`` is the stream pytest writes to; the progress line sits
  in front of it to erase itself before each of pytest's writes.

tests/compat/test_pytest.py checks them against the installed pytest.
"""

from __future__ import annotations

from typing import Any, TextIO

import pytest


def last_failed(config: pytest.Config) -> dict[Any, Any] | None:
    """The live last-failed set (node id -> True) when ``--lf``/``--ff`` is active, else None."""
    plugin = config.pluginmanager.get_plugin("lfplugin")
    if plugin is None or not plugin.active:
        return None
    return plugin.lastfailed


def forget_failures(config: pytest.Config, keys: Any) -> None:
    """Drop ``keys`` from the last-failed set pytest is about to save."""
    plugin = config.pluginmanager.get_plugin("lfplugin")
    if plugin is not None:
        for key in keys:
            plugin.lastfailed.pop(key, None)


def junit_xml(config: pytest.Config) -> Any:
    """The junitxml plugin's ``LogXML`` object, None without ``--junitxml``."""
    try:
        from _pytest.junitxml import xml_key  # lazy: pytest's junitxml, only when a JUnit file is written
    except ImportError:  # pragma: no cover - tests/compat/test_pytest.py fails first
        return None
    return config.stash.get(xml_key, None)


def writer_stream(writer: Any) -> TextIO:
    """The stream a ``TerminalWriter`` writes to."""
    return writer._file


def set_writer_stream(writer: Any, stream: Any) -> None:
    writer._file = stream
