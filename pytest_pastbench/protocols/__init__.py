"""The other protocols (DESIGN §8): interventions, streams, plasticity.

Each is a family type with its own format tag (``format: pastbench/<name>-v1``), its own items,
metrics and report section, plugged into the same collection, worker → controller transport,
run folder and terminal report as the PAST protocol. A protocol is a module, imported only when a
file of its type is collected, that provides:

- ``collect(parent: ProtocolFile) -> Iterator[pytest.Item]``: load and validate ``parent.path``
  (raise ``FamilyFileError`` naming the file and field path) and yield ``ProtocolItem`` subclasses;
- ``summarize(records: list[dict], seed: int) -> dict``: the protocol's section of
  ``sequence_summary.json`` (``protocols.<name>``), from the plain-JSON records of its items;
- ``render(section: dict) -> str``: the terminal table(s) for that section;
- ``describe(path: Path) -> str``: validate one file (raise ``FamilyFileError``) and
  say what it holds, for ``pastbench validate``.
- optionally ``write_files(section: dict, run_dir: Path) -> list[Path]``: files drawn from the
  section into the run folder after it is written (e.g. PNG curves).

Keeping the contract this small lets each protocol live in its own subpackage without touching
the PAST code paths.
"""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path
from types import ModuleType

from ..detect import PROTOCOL_FORMAT_TAGS

# protocol name -> module implementing the contract above (imported lazily).
PROTOCOL_MODULES: dict[str, str] = {
    "intervention": "pytest_pastbench.protocols.intervention",
    "stream": "pytest_pastbench.protocols.stream",
    "plasticity": "pytest_pastbench.protocols.plasticity",
}


def protocol_of(format_tag: str) -> str:
    return PROTOCOL_FORMAT_TAGS[format_tag]


def load_protocol(name: str) -> ModuleType:
    return importlib.import_module(PROTOCOL_MODULES[name])


def protocol_family_identity(path: Path, format_tag: str) -> tuple[str, str]:
    """(qualified family id, SHA-256 of the file): ``stream.retail_l2`` for
    ``families/streams/retail_l2.yaml``. Shared by collection and ``--pastbench-resume``."""
    return f"{protocol_of(format_tag)}.{path.stem}", hashlib.sha256(path.read_bytes()).hexdigest()
