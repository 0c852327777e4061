"""Helpers for the stream tests: the packaged streams, and a ``ModelClient`` that answers with an
offline reference policy directly (the litellm provider's decision, without importing litellm)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pytest_pastbench.agents.base import Budgets, HermesAgent
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.protocols.shared.replay import POLICIES
from pytest_pastbench.protocols.stream import engine
from pytest_pastbench.protocols.stream.generator import Window, generate
from pytest_pastbench.protocols.stream.metrics import stream_metrics
from pytest_pastbench.protocols.stream.offline_policy import decide
from pytest_pastbench.protocols.stream.schema import Stream, load_stream
from pytest_pastbench.resources import families_dir

STREAMS_DIR = families_dir() / "streams"
# A retail ticket in the scope of rule D1 (block cancelling a pending gift-card order).
GIFT_CARD_CANCEL: dict[str, str | int] = {
    "action": "cancel",
    "status": "pending",
    "payment": "gift_card",
    "category": "home",
    "destination": "ohio",
    "refund_request": "original",
}


def packaged_streams() -> list[Stream]:
    return [load_stream(path) for path in sorted(STREAMS_DIR.glob("*.yaml"))]


def stream_named(name: str) -> Stream:
    return load_stream(Path(STREAMS_DIR / f"{name}.yaml"))


@cache
def generated(name: str, scale: str = "full") -> list[Window]:
    """A packaged stream's windows, generated once per test session (tests only read them)."""
    return generate(stream_named(name), scale)


class PolicyClient:
    """The ``pastbench/<name>`` reference policy as a ``ModelClient`` (same decision function)."""

    def __init__(self, name: str) -> None:
        self.model = f"pastbench/{name}"
        self.policy = POLICIES[name]

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **_: Any
    ) -> ModelReply:
        names = {t["function"]["name"] for t in tools or []}
        decision = decide(self.policy, messages, names)
        if "tool_calls" in decision:
            calls = [
                {"id": f"call_{len(messages)}_{i}", "name": name, "arguments": json.dumps(args)}
                for i, (name, args) in enumerate(decision["tool_calls"])
            ]
            return ModelReply(content=None, tool_calls=calls, prompt_tokens=10, completion_tokens=5)
        return ModelReply(content=decision["content"], prompt_tokens=10, completion_tokens=5)


def measure(stream: Stream, harness: str, policy: str, scale: str = "sample") -> dict[str, Any]:
    stream_run = engine.run(
        stream, generate(stream, scale), harness, HermesAgent(), PolicyClient(policy), Budgets()
    )
    return stream_metrics(stream_run.tickets, stream.family.activation)["metrics"]
