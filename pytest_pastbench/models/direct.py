"""A reference policy as a ``ModelClient`` called directly: no litellm, no provider, no gateway.

The same decisions as ``pastbench/<name>`` served through litellm (``offline_provider.py``), in
microseconds: the dataset audit runs hundreds of sessions with it, and tests use it to drive the
agent loop without importing litellm.
"""

from __future__ import annotations

import json
from typing import Any

from .client import ModelReply
from .offline_models import agent_policies, decide


class PolicyModel:
    def __init__(self, name: str) -> None:
        self.model = f"pastbench/{name}"
        self.policy = agent_policies()[name]

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        # The protocol whose conversation this is answers, as through the provider.
        decision = decide(self.policy, messages, tools or [])
        if "tool_calls" in decision:
            calls = [
                {"id": f"call_{len(messages)}_{i}", "name": n, "arguments": json.dumps(a)}
                for i, (n, a) in enumerate(decision["tool_calls"])
            ]
            return ModelReply(content=None, tool_calls=calls)
        return ModelReply(content=decision["content"])
