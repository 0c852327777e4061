"""Prompt and completion tokens per episode for each agent profile (mechanism set), counted with
a real tokenizer (litellm.token_counter, tiktoken) on the exact requests the agent sends.

    python benchmarks/tokens.py [--model pastbench/curator]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from typing import Any

from pytest_pastbench.agent import HermesAgent, load_agent_profile
from pytest_pastbench.gateway import ModelService, ServiceClient
from pytest_pastbench.loader import load_family
from pytest_pastbench.models import ModelReply, import_litellm
from pytest_pastbench.resources import agents_dir, families_dir
from pytest_pastbench.runner import ItemSpec, run_item

TOKENIZER_MODEL = "gpt-4o"  # tiktoken o200k: a real tokenizer, the same for every profile


class CountingClient:
    """Counts tokens of each request and response with the real tokenizer, then forwards it."""

    def __init__(self, inner: ServiceClient) -> None:
        self.inner = inner
        self.model = inner.model
        self.litellm = import_litellm()
        self.prompt = 0
        self.completion = 0

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        self.prompt += self.litellm.token_counter(model=TOKENIZER_MODEL, messages=messages, tools=tools)
        reply = self.inner.complete(messages, tools, **params)
        text = (reply.content or "") + "".join(c["arguments"] for c in reply.tool_calls)
        self.completion += self.litellm.token_counter(model=TOKENIZER_MODEL, text=text)
        return reply


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="pastbench/curator")
    args = parser.parse_args()
    profiles = sorted(p.stem for p in agents_dir().glob("*.yaml") if p.stem != "models")
    families = [load_family(p) for p in sorted(families_dir().rglob("*.yaml"))]
    service = ModelService()
    print(f"{'profile':<14} {'mechanisms':<16} {'episodes':>8} {'prompt/ep':>10} {'completion/ep':>14}")
    for name in profiles:
        profile = load_agent_profile(name) or {}
        agent = HermesAgent(name=name, mechanisms=profile.get("mechanisms") or [])
        prompt, completion = [], []
        for family, file_hash in families:
            for episode in family.episodes:
                client = CountingClient(ServiceClient(service, args.model))
                spec = ItemSpec(
                    f"{family.id}::{episode.id}", family, episode, "on", 0, args.model, name, file_hash
                )
                run_item(spec, agent, client, Path(tempfile.mkdtemp(prefix="pastbench-tokens-")))
                prompt.append(client.prompt)
                completion.append(client.completion)
        mechanisms = ",".join(agent.mechanisms) or "none"
        print(
            f"{name:<14} {mechanisms:<16} {len(prompt):>8} {statistics.mean(prompt):>10.0f} "
            f"{statistics.mean(completion):>14.0f}"
        )


if __name__ == "__main__":
    main()
