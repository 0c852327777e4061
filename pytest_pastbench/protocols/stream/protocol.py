"""Evolving-environment streams (docs/design.md §8, ServeLearnBench): hidden rules that are introduced,
withdrawn and re-enter over windows; serving tickets with outcome feedback, test tickets with
the store frozen. Its protocol object (protocols/base.py) is ``PROTOCOL``."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..base import GateMetric, ProtocolBase, tool_names
from .collect import collect
from .report import ABLATION, render, summarize
from .schema import load_stream

__all__ = ["PROTOCOL", "collect", "describe", "render", "summarize"]


def describe(path: Path) -> str:
    """``pastbench validate``: validate one stream file (rules, activation table) and say what it holds."""
    stream = load_stream(path)
    family = stream.family
    return (
        f"stream.{family.id}, {family.domain} {family.tier}, {family.windows} windows, "
        f"{len(stream.rules)} hidden rules"
    )


class StreamOfflinePolicy:
    """Stream tickets have an offline policy of their own (offline/stream_policy.py)."""

    catch_all = False

    def handles(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> bool:
        from .offline_policy import is_stream_conversation

        return is_stream_conversation(messages)

    def decide(
        self, policy: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        from .offline_policy import decide_stream

        return decide_stream(policy, messages, tool_names(tools))


# The headline numbers of a config's ``overall``: name -> higher is better.
_OVERALL_METRICS = {
    "hidden": True,
    "fully": True,
    "serving_hidden": True,
    "aulc10": True,
    "ka5": True,
    "forgetting": False,
}


class StreamProtocol(ProtocolBase):
    name = "stream"
    format_tag = "pastbench/stream-v1"
    markers = {"stream": "protocol: evolving-environment streams"}
    options = ("stream-scale", "mechanisms", "ablation")
    gate_metric_names = frozenset(_OVERALL_METRICS)
    ablation = ABLATION

    # The module's functions are the protocol's (its items, summary section and table).
    items = staticmethod(collect)
    summarize = staticmethod(summarize)
    render_section = staticmethod(render)
    describe = staticmethod(describe)

    def offline_policy(self) -> StreamOfflinePolicy:
        return StreamOfflinePolicy()

    def gate_metrics(self, summary: Mapping[str, Any]) -> list[GateMetric]:
        section = self.section(summary) or {}
        return [
            GateMetric(
                self.name, config["label"], "overall", metric, config["overall"].get(metric), None, higher
            )
            for config in section.get("configs", [])
            for metric, higher in _OVERALL_METRICS.items()
        ]


PROTOCOL = StreamProtocol()
