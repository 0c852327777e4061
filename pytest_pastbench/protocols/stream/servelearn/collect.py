"""A ServeLearnBench download collected as stream items, through the stream protocol's
``claims`` (protocols/stream/protocol.py): no special case in the plugin's hooks.

``--pastbench-families=DOWNLOAD`` (the ``dataset/`` folder or one scenario folder) makes pytest
walk the download; one file of each scenario (``environments/<scenario>/windows.json`` when it
exists) stands for the scenario, with one item (``items.py`` ``ServeLearnItem``) per harness x
model x trial. A scenario that cannot be read is one error item naming the file and the line; the
others still run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.plugin.collection import config_variants
from pytest_pastbench.plugin.run_handle import pastbench_run

from ...base import ProtocolFile
from .items import HARNESSES, ServeLearnItem
from .schema import DOC_FILES, ENV_FILES, TASK_FILES, ScenarioError, is_servelearn, read_scenario

# The one file that stands for a scenario in collection: the first of these that exists, so a
# scenario missing any of its files is still collected, as its one error.
ANCHORS = (
    ("environments", "windows.json"),
    *(("environments", f) for f in (*ENV_FILES, *DOC_FILES) if f != "windows.json"),
    *(("data", f) for f in TASK_FILES),
)


def _scenario_of(path: Path) -> tuple[Path, str] | None:
    """(download root, scenario name) of a file of ``data/<s>/`` or ``environments/<s>/``."""
    if len(path.parents) < 3 or path.parent.parent.name not in ("data", "environments"):
        return None
    root = path.parents[2]
    return (root, path.parent.name) if is_servelearn(root) else None


def is_scenario_anchor(path: Path) -> bool:
    """True for the file that stands for its scenario (``environments/<s>/windows.json`` when present)."""
    found = _scenario_of(path)
    if found is None:
        return False
    root, name = found
    anchor = next((root / d / name / f for d, f in ANCHORS if (root / d / name / f).is_file()), None)
    return anchor == path


def scenario_identity(path: Path) -> tuple[str, str]:
    """(``stream.servelearn.<scenario>``, SHA-256 over the scenario's files) of its anchor file."""
    found = _scenario_of(path)
    assert found is not None, "asked only of a claimed file"
    root, name = found
    return f"stream.servelearn.{name}", scenario_hash(root, name)


def scenario_hash(root: Path, name: str) -> str:
    digest = hashlib.sha256()
    files = [root / "data" / name / f for f in TASK_FILES]
    env_dir = root / "environments" / name
    files += sorted(env_dir.iterdir()) if env_dir.is_dir() else []
    for file in files:
        if file.is_file():
            digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def collect(parent: ProtocolFile) -> Iterator[pytest.Item]:
    """One item per harness x model x trial; a scenario that cannot be read is a
    ``FamilyFileError`` naming the file and the line (one error item; the others still run)."""
    found = _scenario_of(parent.path)
    assert found is not None, "asked only of a claimed file"
    scenario = read_scenario(*found)
    if isinstance(scenario, ScenarioError):
        raise FamilyFileError(str(scenario))
    options = pastbench_run(parent.config).options
    for harness in HARNESSES:
        for model, trial, mechanisms, parts in config_variants(options):
            yield ServeLearnItem.from_parent(
                parent,
                name=f"{harness}[{'-'.join(parts)}]",
                scenario=scenario,
                harness=harness,
                model=model,
                trial=trial,
                mechanisms=mechanisms,
            )
