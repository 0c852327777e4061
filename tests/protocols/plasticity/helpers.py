"""Shared pieces of the plasticity tests: a tiny text family and an offline model client that
calls the plasticity reference policy directly (the real agent loop, no litellm import)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.protocols.plasticity import offline_policy as plasticity_policy
from pytest_pastbench.protocols.plasticity.schema import PlasticityFamily
from pytest_pastbench.protocols.shared.replay import POLICIES

SMALL_TEXT_FAMILY: dict[str, Any] = {
    "format": "pastbench/plasticity-v1",
    "id": "small_rules",
    "checkpoints": 5,
    "seed": 1,
    "splits": {"train": 2, "id": 4, "ood": 2},
    "environment": {
        "type": "text",
        "kinds": [
            {
                "id": "shipping",
                "topic": "shipping charges",
                "match": ["shipping"],
                "inputs": {"weight": {"low": 1, "high": 30}, "distance": {"low": 10, "high": 900}},
                "rule": "3.5 + 0.8 * weight + 0.05 * distance",
                "templates": ["What shipping charge applies to a {weight} kg parcel sent {distance} km?"],
                "ood_templates": ["Quote the shipping charge for {distance} km and a {weight} kg parcel."],
            },
            {
                "id": "storage",
                "topic": "storage bills",
                "match": ["storage"],
                "inputs": {"gb": {"low": 10, "high": 5000}, "days": {"low": 1, "high": 30}},
                "rule": "0.023 * gb * days / 30",
                "templates": ["We stored {gb} GB for {days} days. What is the storage bill in EUR?"],
            },
        ],
    },
}


def small_family(**changes: Any) -> PlasticityFamily:
    return PlasticityFamily.model_validate({**SMALL_TEXT_FAMILY, **changes})


def write_family(folder: Path, data: dict[str, Any] | None = None) -> Path:
    data = data or SMALL_TEXT_FAMILY
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{data['id']}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


class PolicyClient:
    """``pastbench/<name>`` without litellm: tokens ≈ characters / 4, a fixed price per call."""

    def __init__(self, name: str, cost_per_call: float | None = 0.0) -> None:
        self.model = f"pastbench/{name}"
        self.policy = POLICIES[name]
        self.cost_per_call = cost_per_call
        self.prompts: list[list[dict[str, Any]]] = []

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        self.prompts.append([dict(m) for m in messages])
        names = {t["function"]["name"] for t in tools or []}
        decision = plasticity_policy.decide(self.policy, messages, names)
        prompt_tokens = max(1, sum(len(str(m.get("content") or "")) for m in messages) // 4)
        if "tool_calls" in decision:
            calls = [
                {"id": f"c{len(messages)}_{i}", "name": n, "arguments": json.dumps(a)}
                for i, (n, a) in enumerate(decision["tool_calls"])
            ]
            return ModelReply(None, calls, prompt_tokens, 10, self.cost_per_call)
        return ModelReply(decision["content"], [], prompt_tokens, 10, self.cost_per_call)
