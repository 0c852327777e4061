"""Evolving-environment streams (docs/design.md §8, ServeLearnBench): hidden rules that are introduced,
withdrawn and re-enter over windows; serving tickets with outcome feedback, test tickets with
the store frozen. Its protocol object (protocols/base.py) is ``PROTOCOL``.

Imports inside functions: its methods import the package's other modules where they use them,
as the registry loads every protocol object at start, a run only the code of the protocols it
collects (issue 31 item 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..base import GateMetric, HtmlSection, ProtocolBase, ProtocolFile, known_units, tool_names
from ..detect import FAMILY_SUFFIXES
from .options import OPTIONS

if TYPE_CHECKING:
    from ...results.ablation import AblationSpec
    from ...results.render.figure_kit import FigureSpec

TEMPLATES = Path(__file__).parent / "templates"

__all__ = ["PROTOCOL"]


class StreamOfflinePolicy:
    """Stream tickets have an offline policy of their own (offline_policy.py); a ServeLearnBench
    session (its tools end with ``finish``) another (servelearn/offline_policy.py)."""

    catch_all = False

    def handles(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> bool:
        from .offline_policy import is_stream_conversation
        from .servelearn.offline_policy import is_published_conversation

        return is_stream_conversation(messages) or is_published_conversation(tools)

    def decide(
        self, policy: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        from .offline_policy import decide, is_stream_conversation
        from .servelearn import offline_policy as published

        if is_stream_conversation(messages):
            return decide(policy, messages, tool_names(tools))
        return published.decide(messages, tools)


# Test reward per case (H, F): gated per tier and overall, each a mean over streams of the mean
# over their test tickets (the tickets are the noise estimate's units).
_REWARDS = ("hidden", "fully")
# Learning diagnostics, overall only, each a mean over items (the units). All are "higher is
# better": forgetting is the correctness after a rule's withdrawal (metrics.py), so a drop in it
# means the stale belief stayed.
_DIAGNOSTICS = ("serving_hidden", "aulc10", "ka5", "forgetting")


class StreamProtocol(ProtocolBase):
    name = "stream"
    format_tag = "pastbench/stream-v1"
    markers = {"stream": "protocol: evolving-environment streams"}
    options = OPTIONS
    gate_metric_names = frozenset({*_REWARDS, *_DIAGNOSTICS})
    title = "Streams: reward under changing rules"

    # The package's modules load when the run needs them, not when the protocol registers: a run
    # that collects no stream never imports them (issue 31 item 3).
    @property
    def ablation(self) -> AblationSpec:  # type: ignore[override]
        from .report import ABLATION

        return ABLATION

    def summarize(self, records: list[dict[str, Any]], seed: int) -> dict[str, Any]:
        from .metrics import summarize

        return summarize(records, seed)

    def render_section(self, section: dict[str, Any]) -> str:
        from .report import render

        return render(section)

    def html_section(self, summary: Mapping[str, Any]) -> HtmlSection:
        from .report import tables

        shown = [
            {"title": title[:1].upper() + title[1:], "headers": headers, "rows": rows}
            for title, headers, rows in tables(dict(self.section(summary) or {}))
        ]
        return HtmlSection(TEMPLATES / "stream.html.j2", {"tables": shown})

    def figures(self) -> Sequence[FigureSpec]:
        from .figures import FIGURES

        return FIGURES

    def describe(self, path: Path) -> str:
        """``pastbench validate``: validate one stream file (rules, activation table) and say what
        it holds."""
        from .schema import load_stream

        stream = load_stream(path)
        family = stream.family
        return (
            f"stream.{family.id}, {family.domain} {family.tier}, {family.windows} windows, "
            f"{len(stream.rules)} hidden rules"
        )

    # A ServeLearnBench download (servelearn/collect.py) is collected as this protocol's items:
    # one file of each scenario stands for it.
    def claims(self, path: Path) -> bool:
        from .servelearn.collect import is_scenario_anchor

        return is_scenario_anchor(path)

    def family_identity(self, path: Path) -> tuple[str, str]:
        if path.suffix in FAMILY_SUFFIXES:
            return super().family_identity(path)
        from .servelearn.collect import scenario_identity

        return scenario_identity(path)

    def items(self, parent: ProtocolFile) -> Iterable[pytest.Item]:
        if parent.path.suffix in FAMILY_SUFFIXES:
            from .collect import collect

            return collect(parent)
        from .servelearn import collect as published

        return published.collect(parent)

    def offline_policy(self) -> StreamOfflinePolicy:
        return StreamOfflinePolicy()

    def gate_metrics(self, summary: Mapping[str, Any]) -> list[GateMetric]:
        """Per config: H and F overall (scope ``stream``) and per tier (``stream.L1``), and the
        learning diagnostics overall (their units come from the records: ``gate_units``)."""
        metrics = []
        for config in (self.section(summary) or {}).get("configs", []):
            scopes = [(self.name, config["overall"])]
            scopes += [
                (f"{self.name}.{tier}", cell) for tier, cell in sorted(config.get("tiers", {}).items())
            ]
            metrics += [
                GateMetric(self.name, config["label"], scope, case, entry.get(case))
                for scope, entry in scopes
                for case in _REWARDS
            ]
            metrics += [
                GateMetric(self.name, config["label"], self.name, name, config["overall"].get(name))
                for name in _DIAGNOSTICS
            ]
        return metrics

    def gate_units(
        self, records: list[dict[str, Any]]
    ) -> dict[tuple[str, str, str], dict[str, dict[str, float]]]:
        """(config, scope, metric) -> units, grouped as ``metrics.summarize`` groups: H and F by
        stream, each test ticket a unit (``t<trial>/<seq>``: a stream's tickets come from its
        seed, so two runs' ``t0/17`` are the same ticket); the diagnostics by item."""
        units: dict[tuple[str, str, str], dict[str, dict[str, float]]] = {}
        for record in records:
            if record.get("infra_blocked"):
                continue
            label = f"{record['episode']} · {record['agent']}@{record['model']}"
            stream = f"{record['domain']}.{record['tier']}"
            for case in _REWARDS:
                scores = {
                    f"t{record['trial']}/{seq}": float(score)
                    for seq, score in (record.get("test_scores") or {}).get(case, {}).items()
                }
                for scope in (self.name, f"{self.name}.{record['tier']}"):
                    units.setdefault((label, scope, case), {}).setdefault(stream, {}).update(scores)
            for name in _DIAGNOSTICS:
                value = (record.get("metrics") or {}).get(name)
                if value is not None:
                    item = f"{record['family']}/t{record['trial']}"
                    units.setdefault((label, self.name, name), {}).setdefault("items", {})[item] = float(
                        value
                    )
        return {key: kept for key, value in units.items() if (kept := known_units(value))}


PROTOCOL = StreamProtocol()
