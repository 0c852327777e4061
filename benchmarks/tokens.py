"""Prompt and completion tokens per episode for each mechanism set (base, E1..E5 alone, all five),
counted with a real tokenizer (litellm.token_counter, tiktoken's o200k) on the exact requests the
agent sends, with ratios against base. An episode here is its on-arm item (learn + eval sessions).

    python benchmarks/tokens.py [--model pastbench/curator]
    python benchmarks/tokens.py --families 1 --episodes 1     # tiny
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from typing import Any

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.agents.mechanisms import ablation_sets, mechanism_set_label
from pytest_pastbench.models.client import ModelReply, import_litellm
from pytest_pastbench.models.gateway import ModelService, ServiceClient
from pytest_pastbench.models.offline_models import use_protocols
from pytest_pastbench.protocols.detect import is_past_family_file
from pytest_pastbench.protocols.past.engine import ItemSpec, run
from pytest_pastbench.protocols.past.family_files import load_family
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.resources import families_dir

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
    use_protocols(standalone_registry)  # an entry point: its offline models are the built-in protocols
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="pastbench/curator")
    parser.add_argument("--families", type=int, help="the first N PAST families")
    parser.add_argument("--episodes", type=int, help="the first N episodes of each family")
    args = parser.parse_args()
    paths = sorted(p for p in families_dir().rglob("*.yaml") if is_past_family_file(p))
    families = [load_family(p) for p in paths[: args.families]]
    service = ModelService()
    print(
        f"{'mechanisms':<10} {'episodes':>8} {'prompt/ep':>10} {'completion/ep':>14} "
        f"{'prompt ×base':>13} {'completion ×base':>17}"
    )
    base: tuple[float, float] | None = None
    for mechanisms in ablation_sets():
        agent = HermesAgent(mechanisms=mechanisms)
        prompt, completion = [], []
        for family, file_hash in families:
            for episode in family.episodes[: args.episodes]:
                client = CountingClient(ServiceClient(service, args.model))
                label = mechanism_set_label(mechanisms)
                spec = ItemSpec(
                    f"{family.id}::{episode.id}", family, episode, "on", 0, args.model, label, file_hash
                )
                run(spec, agent, client, Path(tempfile.mkdtemp(prefix="pastbench-tokens-")))
                prompt.append(client.prompt)
                completion.append(client.completion)
        means = (statistics.mean(prompt), statistics.mean(completion))
        base = base or means
        print(
            f"{mechanism_set_label(mechanisms):<10} {len(prompt):>8} {means[0]:>10.0f} {means[1]:>14.0f} "
            f"{means[0] / base[0]:>13.2f} {means[1] / base[1]:>17.2f}"
        )


if __name__ == "__main__":
    main()
