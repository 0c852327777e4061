"""Per-item trace: every message, tool call and result, plus store snapshots, with secrets redacted."""

from __future__ import annotations

import os
import re
from typing import Any

_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)", re.IGNORECASE)
REDACTED = "[REDACTED]"


def secret_values(extra: list[str] | None = None) -> list[str]:
    """Values that must never be written: credential-like environment variables and ``extra``."""
    values = [v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8]
    values.extend(s for s in extra or [] if s)
    return sorted(set(values), key=len, reverse=True)


def redact(value: Any, secrets: list[str]) -> Any:
    """Replace every secret inside strings of a JSON-like value."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: redact(v, secrets) for k, v in value.items()}
    return value


class TraceRecorder:
    """Collects the events of one item as plain JSON values (they travel to the xdist controller)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, **data: Any) -> None:
        self.events.append({"seq": len(self.events), "kind": kind, **data})
