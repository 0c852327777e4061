"""Collector and item base classes shared by the DESIGN §8 protocols.

A protocol item measures in its setup (like a PAST episode item), so an infrastructure failure
is a pytest error (``infra_blocked``) and never a score; its call only reports. What travels to
the controller is ``payload()``: plain JSON, redacted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ..collect import INVALID_FAMILY_NAME, InvalidFamilyItem, OneLineItem, with_parsable_nodeid
from ..detect import family_format
from ..errors import FamilyFileError, ItemInfraError
from ..session import pastbench_session
from . import load_protocol, protocol_family_identity, protocol_of


class ProtocolFile(pytest.File):
    """A family file of one of the DESIGN §8 protocols; its module yields the items."""

    def collect(self) -> Iterator[pytest.Item]:
        tag = family_format(self.path)
        assert tag is not None, "collected only when detect says it is a family file"
        self.protocol = protocol_of(tag)
        try:
            self.family_id, self.file_hash = protocol_family_identity(self.path, tag)
            pastbench_session(self.config).note_family(self.family_id, self.file_hash)
            items = list(load_protocol(self.protocol).collect(self))
        except FamilyFileError as exc:
            # One error item, not a collection error: the other families still run (collect.py).
            items = [InvalidFamilyItem.from_parent(self, name=INVALID_FAMILY_NAME, problem=str(exc))]
        yield from items


class ProtocolItem(OneLineItem):
    """One measurement of a §8 protocol. Subclasses implement ``measure`` (and ``secrets``)."""

    is_pastbench_item = True
    one_line_errors = (ItemInfraError,)
    protocol: str = ""

    def __init__(self, *, model: str, trial: int = 0, **kwargs: Any) -> None:
        super().__init__(**with_parsable_nodeid(kwargs))
        assert isinstance(self.parent, ProtocolFile)
        self.model = model
        self.trial = trial
        self.family_id = self.parent.family_id
        self.file_hash = self.parent.file_hash
        self.record: dict[str, Any] | None = None
        self.trace: list[dict[str, Any]] = []
        self.infra_error: str | None = None
        self.add_marker(self.protocol)
        for keyword in (self.protocol, self.family_id, self.parent.path.stem):
            self.extra_keyword_matches.add(keyword)

    # -- what a protocol implements ------------------------------------------------------------
    def measure(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Run the measurement: (record, trace). ``record`` is plain JSON; it must hold a short
        ``headline`` string for the terminal (e.g. ``"reward 0.62"``). Raise ``InfraError``
        (models.py) when the infrastructure, not the agent, failed."""
        raise NotImplementedError

    def secrets(self) -> list[str]:
        """Values that must never appear in any output of this item."""
        return []

    # -- shared ----------------------------------------------------------------------------------
    def setup(self) -> None:
        pastbench_session(self.config).measure(self)

    def measure_item(self) -> None:
        """Measure (on any thread: see ``concurrency``)."""
        from ..errors import InfraError
        from ..trace import redact_text

        try:
            self.record, self.trace = self.measure()
        except InfraError as exc:
            self.infra_error = redact_text(str(exc), self.secrets())
            raise ItemInfraError(f"infra_blocked: {self.infra_error}") from None

    def runtest(self) -> None:
        assert self.record is not None

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"{self.family_id}::{self.name}"

    def base_record(self) -> dict[str, Any]:
        """The fields every protocol record carries (resume, merge and reports read them)."""
        session = pastbench_session(self.config)
        return {
            "nodeid": self.nodeid,
            "protocol": self.protocol,
            "family": self.family_id,
            "episode": self.name.partition("[")[0],
            "model": self.model,
            "agent": session.agent_label(),
            "trial": self.trial,
            "infra_blocked": False,
            "reason": None,
        }

    def payload(self) -> dict[str, Any]:
        from ..trace import redact

        if self.record is not None:
            record = {**self.base_record(), **self.record}
        else:
            reason = self.infra_error or "harness error (see the item's error report)"
            record = {**self.base_record(), "infra_blocked": True, "reason": reason, "headline": "blocked"}
        payload = {
            "protocol": self.protocol,
            "record": record,
            "trace": self.trace,
            "family_hash": self.file_hash,
        }
        return redact(payload, self.secrets())
