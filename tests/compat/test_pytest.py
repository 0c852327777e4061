"""The pytest internals that pytest_pastbench/compat/pytest.py uses still exist: when a pytest
release changes one, this fails naming pytest's version and the member."""

from __future__ import annotations

import inspect
import re
from importlib.metadata import version

import pytest
from _pytest import cacheprovider, junitxml
from _pytest._io import TerminalWriter

PYTEST = f"pytest {version('pytest')}"


def assigned(cls: type, names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` the class's source never assigns as ``self.<name>``."""
    source = inspect.getsource(cls)
    return [name for name in names if not re.search(rf"self\.{name}\s*(:[^=\n]*)?=", source)]


def test_the_last_failed_plugin_keeps_its_live_set() -> None:
    missing = assigned(cacheprovider.LFPlugin, ("active", "lastfailed"))
    assert not missing, f"{PYTEST}: LFPlugin no longer sets {missing}; update compat/pytest.py"


def test_the_junit_plugin_is_found_by_its_stash_key_and_takes_reports() -> None:
    assert isinstance(getattr(junitxml, "xml_key", None), pytest.StashKey), f"{PYTEST}: no junitxml.xml_key"
    members = ("add_global_property", "node_reporter", "pytest_runtest_logreport")
    missing = [name for name in members if not callable(getattr(junitxml.LogXML, name, None))]
    assert not missing, f"{PYTEST}: LogXML no longer has {missing}; update compat/pytest.py"


def test_the_terminal_writer_writes_to_its_file(capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from pytest_pastbench.compat.pytest import set_writer_stream, writer_stream

    stream = io.StringIO()
    writer = TerminalWriter(stream)
    assert writer_stream(writer) is stream, f"{PYTEST}: TerminalWriter keeps its stream elsewhere"
    other = io.StringIO()
    set_writer_stream(writer, other)
    writer.write("seen")
    writer.flush()
    assert other.getvalue() == "seen" and stream.getvalue() == "", f"{PYTEST}: TerminalWriter._file unused"
