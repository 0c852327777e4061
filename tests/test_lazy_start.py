"""The plugin starts light (issue 31 item 3; docs/design.md §3 "inert unless asked").

Installed, it loads into every pytest run, every xdist worker and every nested run, and pytest's
assertion rewriter compiles each module it imports. So at start it imports its hooks, options and
collection only; a protocol's code when a family of that protocol is collected; the model client,
the gateway and litellm when a model is called; the renderers at the end of a run that wrote one.

Each case is a real ``pytest`` process; a conftest writes the ``pytest_pastbench`` modules (and
litellm, if loaded) that the process holds when pytest unconfigures. No time is asserted.
"""

from __future__ import annotations

import json

import pytest

from tests.family_samples import GOOD_MEMORY

PACKAGE = "pytest_pastbench"

# What any pytest run may load from the package: the hooks, options and collection.
START = {
    PACKAGE,
    f"{PACKAGE}.compat",
    f"{PACKAGE}.compat.pytest",  # pytest's terminal writer for the live line (imports pytest only)
    f"{PACKAGE}.errors",
    f"{PACKAGE}.hookspec",
    f"{PACKAGE}.models",
    f"{PACKAGE}.models.cache",  # the --pastbench-cache choices (sqlite3, nothing of ours)
    f"{PACKAGE}.models.litellm_warnings",  # one warning filter, set at session start (stdlib only)
    # Told at configure where the offline models find the protocols (a function, called on first use).
    f"{PACKAGE}.models.offline_models",
    f"{PACKAGE}.protocols",
    f"{PACKAGE}.protocols.builtin",
    f"{PACKAGE}.protocols.detect",
    # Each protocol's options: data for `pytest --help` and the ini keys, registered at start
    # (pytest_pastbench_register_options); a protocol's package __init__ is empty.
    *(
        f"{PACKAGE}.protocols.{name}{part}"
        for name in ("intervention", "plasticity", "stream")
        for part in ("", ".options")
    ),
}
# What collecting a PAST family adds: the protocol objects (each protocol's code stays out), the
# family file's schema and loader.
PAST_COLLECTION = START | {
    f"{PACKAGE}.core",
    f"{PACKAGE}.core.family_files",
    f"{PACKAGE}.protocols.base",
    f"{PACKAGE}.protocols.registry",
    f"{PACKAGE}.protocols.past",
    f"{PACKAGE}.protocols.past.collect",
    f"{PACKAGE}.protocols.past.components",
    f"{PACKAGE}.protocols.past.family_files",
    f"{PACKAGE}.protocols.past.items",
    f"{PACKAGE}.protocols.past.protocol",
    f"{PACKAGE}.protocols.past.schema",
    f"{PACKAGE}.protocols.shared",  # the check language a family file holds
    f"{PACKAGE}.protocols.shared.schema",
    *(
        f"{PACKAGE}.protocols.{name}{part}"
        for name in ("intervention", "plasticity", "stream")
        for part in ("", ".protocol")
    ),
    f"{PACKAGE}.resources",
    f"{PACKAGE}.results",
    f"{PACKAGE}.results.run_folder",  # file names only
}

# What a run imports at start: its child runs start from a cold interpreter (tests/zygote.py).
pytestmark = pytest.mark.fresh_interpreter

DUMP_MODULES = """
import json, sys

def pytest_unconfigure(config):
    ours = ("pytest_pastbench", "litellm")
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ours)
    with open("modules.json", "w") as handle:
        json.dump(loaded, handle)
"""


def _loaded(pytester: pytest.Pytester, *args: str) -> set[str]:
    pytester.makeconftest(DUMP_MODULES)
    result = pytester.runpytest_subprocess(*args)
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED), result.stdout.str()
    return set(json.loads((pytester.path / "modules.json").read_text()))


def _beyond(loaded: set[str], allowed: set[str]) -> list[str]:
    # The plugin package's own modules are its hooks, options and collection.
    return sorted(m for m in loaded - allowed if not m.startswith(f"{PACKAGE}.plugin"))


def test_a_project_without_families_loads_only_the_hooks_options_and_collection(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_plain="def test_one():\n    assert 1 + 1 == 2\n")
    loaded = _loaded(pytester)
    assert "litellm" not in loaded
    assert _beyond(loaded, START) == []


def test_collecting_a_past_family_loads_no_other_protocols_code_nor_a_model(
    pytester: pytest.Pytester,
) -> None:
    family = pytester.path / "families" / "memory" / "tiny_prefs.yaml"
    family.parent.mkdir(parents=True)
    family.write_text(GOOD_MEMORY)
    loaded = _loaded(pytester, "--collect-only", "-q", "families")
    assert f"{PACKAGE}.protocols.past.collect" in loaded  # the family was collected
    assert _beyond(loaded, PAST_COLLECTION) == []


def test_a_benchmark_option_without_families_calls_no_model_and_renders_nothing(
    pytester: pytest.Pytester,
) -> None:
    """Asked (an option given), the run checks its agent and model at start; still no litellm,
    no gateway, no other protocol's code, no summary or report code when nothing was collected.
    An offline model's name is checked against the policies the registered protocols name, so the
    protocol objects load (as collecting any family loads them), not their code."""
    pytester.makepyfile(test_plain="def test_one():\n    assert 1 + 1 == 2\n")
    loaded = _loaded(pytester, "--pastbench-model=pastbench/recall", "--pastbench-run-id=r")
    assert f"{PACKAGE}.plugin.preflight" in loaded  # the start-up checks ran
    # START: a protocol's options module is data, loaded by every run
    heavy = [
        m
        for m in loaded - PAST_COLLECTION - START
        if m == "litellm"
        or m.startswith(
            (
                f"{PACKAGE}.models.gateway",
                f"{PACKAGE}.results.",
                f"{PACKAGE}.protocols.intervention",
                f"{PACKAGE}.protocols.plasticity",
                f"{PACKAGE}.protocols.stream",
            )
        )
    ]
    assert heavy == []
