"""PAST (docs/design.md §4): persistence on/off arms over episodes of sessions; Δ = S_on − S_off and Mech.

This module holds the protocol object the run talks to (``PROTOCOL``), like every other
protocol's ``protocol.py``; the package's other modules are its schema, collection, items,
engine, scoring, metrics, report, offline policy and dataset tools.
Imports inside functions: its methods import the package's other modules where they use them,
as the registry loads every protocol object at start, a run only the code of the protocols it
collects (issue 31 item 3).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..base import GateMetric, HtmlSection, ProtocolBase, ProtocolFile
from ..detect import FORMAT_TAG
from .components import GATE_METRICS

if TYPE_CHECKING:
    from ...judge.base import ClaimReader
    from ...results.render.figure_kit import FigureSpec
    from ..base import AnswerGrader

__all__ = ["PROTOCOL", "PastProtocol"]

CAPABILITY_MARKERS = {
    "memory": "PAST capability: memory (preferences, constraints, history)",
    "procedural": "PAST capability: procedural reuse (SOPs, skills)",
    "gathering": "PAST capability: information gathering from the archive",
    "update": "PAST capability: update (corrections, migrations, expiry)",
}
ARM_MARKERS = {
    "on": "persistence on (learn, then eval)",
    "off": "persistence off (control arm)",
    "ablated": "persistence on with the key-fact entries removed before eval (causal check)",
}


class PastOfflinePolicy:
    """The PAST reference policies (offline_policy.py) answer any other conversation."""

    catch_all = True

    def handles(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> bool:
        return True

    def decide(
        self, policy: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        from .offline_policy import decide

        return decide(policy, messages, tools)


class PastProtocol(ProtocolBase):
    name = "past"
    format_tag = FORMAT_TAG
    markers = {**CAPABILITY_MARKERS, **ARM_MARKERS}
    gate_metric_names = frozenset(GATE_METRICS)
    gate_metric_order = GATE_METRICS
    gate_scopes_prefixed = False  # overall, update, update.SM03_fact_correction
    gate_strata_noun = ("family", "families")
    gate_units_noun = "episodes"
    gate_metrics_table = False  # reports show its gate metrics in its own Δ tables
    volatile_record_fields = ("dataset_hash",)
    title = "PAST: persistence on/off (Δ, Mech)"

    def family_identity(self, path: Path) -> tuple[str, str]:
        from pytest_pastbench.protocols.past.family_files import load_family

        family, file_hash = load_family(path)
        return family.qualified_id, file_hash

    def html_section(self, summary: Mapping[str, Any]) -> HtmlSection:
        from .html_section import past_section

        return past_section(summary)

    def figures(self) -> Sequence[FigureSpec]:
        from ...results.render.plots import PAST_FIGURES

        return PAST_FIGURES

    def collect(self, parent: ProtocolFile) -> Iterable[pytest.Item]:
        # Here, not at the top: the registry loads every protocol object, a run only the code of
        # the protocols it collects (issue 31 item 3).
        from .collect import collect

        return collect(parent)

    # -- records: validated ItemRecords ------------------------------------------------------------
    def load_record(self, record: dict[str, Any]) -> Any:
        from pytest_pastbench.results.item_record import ItemRecord

        return ItemRecord.model_validate(record)  # its ValidationError is a ValueError

    def read_records(self, run_dir: Path) -> list[dict[str, Any]]:
        from pytest_pastbench.results.run_folder import RESULTS_FILE

        return list(json.loads((run_dir / RESULTS_FILE).read_text()).get("records", []))

    def comparable(self, record: dict[str, Any]) -> dict[str, Any]:
        validated = self.load_record(record)
        return validated.model_dump(mode="json", exclude=set(self.volatile_record_fields))

    def add_to_summary(self, summary: dict[str, Any], records: list[Any], seed: int) -> None:
        """PAST's configs are the summary's top level (schema 1), present even when empty."""
        from .metrics import summarize

        summary.update(summarize(records, summary["run"], seed))

    def add_to_results(
        self,
        documents: dict[str, dict[str, Any]],
        run: dict[str, Any],
        records: list[Any],
        summary: dict[str, Any],
    ) -> None:
        from pytest_pastbench.results.run_folder import COMPARISON_FILE, RESULTS_FILE

        from .metrics import build_comparison

        documents[RESULTS_FILE] = {
            "schema_version": 1,
            "run": run,
            "records": [r.model_dump(mode="json") for r in records],
        }
        documents[COMPARISON_FILE] = build_comparison(summary, records)

    # -- terminal ---------------------------------------------------------------------------------------
    def render(self, terminal: Any, summary: dict[str, Any], records: list[Any]) -> None:
        from .report import render

        render(terminal, summary, records)

    def test_status(
        self, record: dict[str, Any], verbosity: int
    ) -> tuple[str, str, tuple[str, dict[str, bool]]]:
        score = record["score"]
        why = ""
        if record.get("losses") and verbosity > 0:
            from .losses import describe_losses

            why = f" ({describe_losses(record['losses'], limit=2)})"  # -v: what the points went to
        if record["arm"] == "on":
            return "scored", "o", (f"SCORED {score:.2f}{why}", {"green": True})
        if record["arm"] == "ablated":
            return "ablated", "a", (f"ABLATED {score:.2f}{why}", {"yellow": True})
        return "control", "c", (f"CONTROL {score:.2f}{why}", {"cyan": True})

    def junit_properties(self, record: dict[str, Any]) -> list[tuple[str, Any]]:
        from .report import past_item_properties

        return past_item_properties(record)

    def junit_summary_properties(self, summary: dict[str, Any]) -> list[tuple[str, Any]]:
        from .report import past_summary_properties

        return past_summary_properties(summary)

    def describe(self, path: Path) -> str:
        from pytest_pastbench.protocols.past.family_files import load_family

        family, _ = load_family(path)
        return f"{family.qualified_id}, {len(family.episodes)} episodes"

    def offline_policy(self) -> PastOfflinePolicy:
        return PastOfflinePolicy()

    def gate_metrics(self, summary: Mapping[str, Any]) -> list[GateMetric]:
        """Per config × scope (overall, each capability, each family): Δ (with its CI), Mech,
        S_on, S_off and Mech's components."""
        from .gates import gate_metrics

        return gate_metrics(summary)

    def baseline_units(self, baseline: Any) -> dict[tuple[str, str, str], dict[str, dict[str, float]]]:
        """Δ's, S_on's and S_off's paired units: the baseline's per-episode scores."""
        from .gates import episode_units

        return episode_units(baseline.summary, baseline.data.get("episodes") or {})

    def gate_scope_problem(self, gate_name: str, scope: str, scopes: Sequence[str]) -> str:
        from .gates import scope_problem

        return scope_problem(scope, scopes)

    # -- what the shared layers ask of it (models, judge, results: issue 32 item 1) ----------------
    def offline_models(self) -> Mapping[str, Any]:
        """blind, recall and curator: the reference policies every protocol's offline policy runs."""
        from ..shared.replay import POLICIES

        return POLICIES

    def claim_reader(self) -> ClaimReader:
        from ..shared.claims import read_claim

        return read_claim

    def baseline_data(self, records: list[Any]) -> dict[str, Any]:
        """``episodes``: the per-episode scores Δ's gates pair (``baseline_units``)."""
        from .metrics import episode_scores

        return {"episodes": episode_scores(records)}

    def family_schema(self) -> dict[str, Any]:
        from .schema import family_json_schema

        return family_json_schema()

    def export_dataset(self, families_root: Path | None, out: Path, registry: Any) -> str:
        from pytest_pastbench.resources import families_dir

        from .dataset.commands import export_line

        return export_line(families_root or families_dir(), out, registry)

    def empty_world(self) -> Any:
        from .engine import empty_world

        return empty_world()

    def answer_grader(self, roots: list[Path]) -> AnswerGrader:
        from .labelled_answers import PastAnswerGrader

        return PastAnswerGrader(roots)

    def validate(
        self, paths: list[Path], registry: Any, *, run_policies: bool, check_counts: bool
    ) -> tuple[str, bool]:
        from .dataset.commands import validate_text

        return validate_text(paths, registry, run_policies=run_policies, check_counts=check_counts)

    # -- against a baseline (results/compare.py, plugin/regression.py) -----------------------------
    def render_comparison(self, current: dict[str, Any], baseline: dict[str, Any]) -> str:
        from .compare import render_comparison

        return render_comparison(current, baseline)

    def comparison_rows(self, current: dict[str, Any], baseline: dict[str, Any]) -> list[dict[str, Any]]:
        from .compare import comparison_rows

        return comparison_rows(current, baseline)


PROTOCOL = PastProtocol()
