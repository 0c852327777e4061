"""The contract every protocol implements (PAST and the docs/design.md §8 protocols), and the one item type.

A protocol is an object registered through ``pytest_pastbench_register_protocols`` (hookspec.py);
``BenchProtocol`` says what it provides. ``ProtocolBase`` gives the defaults most protocols keep
(a protocol records plain JSON, its section sits under ``protocols.<name>`` of
``sequence_summary.json`` and its records in ``protocol_results.json``).

A protocol item measures in its setup, so an infrastructure failure is a pytest error
(``infra_blocked``) and never a score; its call only reports (or asserts a pass threshold). What
travels to the controller is ``payload()``: plain JSON, redacted.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import pytest

from ..errors import FamilyFileError, InfraError, ItemInfraError
from ..plugin.collection import INVALID_FAMILY_NAME, InvalidFamilyItem, OneLineItem, with_parsable_nodeid
from ..plugin.run_handle import pastbench_run
from ..resources import packaged_nodeid
from ..results.run_folder import PROTOCOL_RESULTS_FILE

if TYPE_CHECKING:
    from ..judge.base import ClaimReader
    from ..plugin.option_spec import OptionGroup
    from ..results.ablation import AblationSpec
    from ..results.render.figure_kit import FigureSpec


@dataclass(frozen=True)
class GateMetric:
    """One named number a baseline can be compared on: ``stream`` ``own · hermes@m`` ``stream.L1``
    ``hidden`` = 95.6. ``scope`` is spelled as a gate names it: the protocol (its overall), or
    ``<protocol>.<key>`` (a tier, a family id, an intervention cell). ``ci`` is its own 95%
    interval when the protocol computes one.

    ``units`` (stratum -> unit id -> value) are what the value is a mean of: the mean over strata
    of each stratum's mean over its units (a stream's test tickets per stream, an intervention's
    event × profile cells per family). A gate pairs them by id with the baseline's for a
    bootstrap CI of the change (``stats.paired_bootstrap_ci``); None when the value is no such mean.

    ``strata`` (stratum -> its value) are given when the value is the mean of per-stratum values
    the summary holds (PAST's Δ over families): a gate against a run of other strata recomputes
    it over the shared ones, and a failed gate names the strata that moved the wrong way.
    """

    protocol: str
    config: str
    scope: str
    name: str
    value: float | None
    ci: tuple[float, float] | None = None
    higher_is_better: bool = True
    units: Mapping[str, Mapping[str, float]] | None = field(default=None, compare=False)
    strata: Mapping[str, float | None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class HtmlSection:
    """A protocol's tables on the HTML report page: a Jinja2 template file (shipped with the
    protocol's package; autoescaped, and it may import the page's ``macros.html.j2``) and the
    plain values it reads."""

    template: Path
    context: Mapping[str, Any]


@dataclass(frozen=True)
class GradedAnswer:
    """What a protocol's grader made of one answer labelled by meaning (``pastbench
    grader-agreement``): predicted correct (None: the judge gave no verdict), whether the
    deterministic grader left it undecided, and why it failed."""

    predicted: bool | None
    undecided: bool = False
    detail: str = ""


class AnswerGrader(Protocol):
    """``BenchProtocol.answer_grader``: grades labelled answers against its families' sessions."""

    problems: list[str]  # family files it could not read, one line each

    def grade(self, label: Any, judge: Any) -> GradedAnswer | str:
        """``label`` (family, episode, session, answer) graded by the session's text checks (with
        ``judge`` when given); a string saying why when the row names no usable session."""
        ...


def known_units(units: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]] | None:
    """``GateMetric.units`` without its empty strata; None when no stratum holds a unit."""
    kept = {stratum: dict(values) for stratum, values in sorted(units.items()) if values}
    return kept or None


def tool_names(tools: list[dict[str, Any]]) -> set[str]:
    """The function names of an OpenAI-style tools list."""
    return {t["function"]["name"] for t in tools if isinstance(t, dict) and "function" in t}


@runtime_checkable
class OfflinePolicy(Protocol):
    """What a ``pastbench/<policy>`` offline model does on this protocol's requests. It sees only
    the conversation and the tools (never a family file or an episode id). The provider asks
    the registered protocols' policies in order, a ``catch_all`` one only when no other handles."""

    catch_all: bool

    def handles(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> bool: ...

    def decide(
        self, policy: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """``{"content": text}`` or ``{"tool_calls": [(name, arguments), ...]}``."""
        ...


@runtime_checkable
class BenchProtocol(Protocol):
    """A protocol: a family type with its own format tag, items, metrics and report section."""

    name: str  # "past", "stream", ...: the marker, the record's "protocol" and the summary key
    format_tag: str  # the family file's ``format:`` line, e.g. "pastbench/stream-v1"
    markers: Mapping[str, str]  # pytest markers it adds to its items -> description
    # Its own --pastbench-* options (and ini keys), None for none: the same object its plugin
    # registers through pytest_pastbench_register_options (plugin/option_spec.py's OptionGroup).
    options: OptionGroup | None
    gate_metric_names: frozenset[str]  # the metrics gate_metrics can return (for gate parsing)
    title: str  # the heading of its section on the HTML report page

    # -- collection and running ---------------------------------------------------------------------
    def claims(self, path: Path) -> bool:
        """True for a file this protocol collects that declares no format tag (a published
        dataset's own layout); asked only of files under a ``--pastbench-families`` path."""
        ...

    def family_identity(self, path: Path) -> tuple[str, str]:
        """(qualified family id, SHA-256 of the file); raises ``FamilyFileError``."""
        ...

    def collect(self, parent: ProtocolFile) -> Iterable[pytest.Item]:
        """Load and validate ``parent.path`` (raise ``FamilyFileError`` naming file and field), call
        ``parent.identify(family_id, file_hash)``, yield ``ProtocolItem`` subclasses."""
        ...

    # -- records and results ----------------------------------------------------------------------------
    def load_record(self, record: dict[str, Any]) -> Any:
        """A record read back from an item file or a results file, validated (ValueError if not)."""
        ...

    def read_records(self, run_dir: Path) -> list[dict[str, Any]]:
        """This protocol's plain records in a written run folder (``pastbench merge``)."""
        ...

    def comparable(self, record: dict[str, Any]) -> dict[str, Any]:
        """The part of a record two shards must agree on (no per-shard hash, no timings)."""
        ...

    def add_to_summary(self, summary: dict[str, Any], records: list[Any], seed: int) -> None:
        """Put this protocol's section into ``sequence_summary.json`` (records sorted by node id)."""
        ...

    def add_to_results(
        self,
        documents: dict[str, dict[str, Any]],
        run: dict[str, Any],
        records: list[Any],
        summary: dict[str, Any],
    ) -> None:
        """Put this protocol's records (and files drawn from them) into the run folder's JSON
        documents, by file name."""
        ...

    def write_files(self, summary: dict[str, Any], run_dir: Path) -> list[Path]:
        """Files drawn from the summary after the run folder is written (PNG curves...)."""
        ...

    def render(self, terminal: Any, summary: dict[str, Any], records: list[Any]) -> None:
        """Write this protocol's sections of the summary to pytest's terminal reporter."""
        ...

    def test_status(
        self, record: dict[str, Any], verbosity: int
    ) -> tuple[str, str, tuple[str, dict[str, bool]]]:
        """pytest's (category, progress letter, (word, markup)) of a measured item."""
        ...

    def junit_properties(self, record: dict[str, Any]) -> list[tuple[str, Any]]:
        """The item's JUnit ``<property>`` values."""
        ...

    def html_section(self, summary: Mapping[str, Any]) -> HtmlSection:
        """Its tables on the HTML report page, drawn from the summary (asked only when the run
        holds its items)."""
        ...

    def figures(self) -> Sequence[FigureSpec]:
        """The report figures it draws from the summary (``pastbench plot``, the HTML report)."""
        ...

    def describe(self, path: Path) -> str:
        """``pastbench validate``: validate one file (raise ``FamilyFileError``), say what it holds."""
        ...

    # -- offline models and gates -----------------------------------------------------------------------
    def offline_policy(self) -> OfflinePolicy | None:
        """How the offline ``pastbench/<policy>`` models answer this protocol's sessions."""
        ...

    def gate_metrics(self, summary: Mapping[str, Any]) -> list[GateMetric]:
        """The named metrics of this protocol in a summary, for baselines, gates and compare."""
        ...

    # -- what the shared layers (models, judge, results, cli) ask of it (issue 32 item 1) ----------
    def offline_models(self) -> Mapping[str, Any]:
        """The ``pastbench/<name>`` offline models it names: name -> the policy object that every
        registered protocol's ``OfflinePolicy.decide`` receives for that model."""
        ...

    def claim_reader(self) -> ClaimReader | None:
        """Its deterministic reading of what an answer claims, which the offline reference judge
        (``pastbench/judge``) answers claim prompts with; None: it has none."""
        ...

    def baseline_data(self, records: list[Any]) -> dict[str, Any]:
        """What a saved baseline keeps of it beside the summary and its gate metrics, drawn from
        its records: top-level fields of the baseline file, plain JSON (read back by
        ``baseline_units`` as ``Baseline.data``)."""
        ...

    def family_schema(self) -> dict[str, Any] | None:
        """``pastbench schema``: the JSON Schema of its family files; None: it publishes none."""
        ...

    def export_dataset(self, families_root: Path | None, out: Path, registry: Any) -> str | None:
        """``pastbench export``: write its families under ``families_root`` (None: its built-in
        ones) to ``out`` as one JSON file and say what was written; None: it exports none. Raises
        ``FamilyFileError``. ``registry``: the protocols whose files it leaves out."""
        ...

    def empty_world(self) -> Any | None:
        """The ``pastbench_world`` fixture: a fresh simulated world its sessions run against, with
        an empty seed; None: it has none."""
        ...

    def answer_grader(self, roots: list[Path]) -> AnswerGrader | None:
        """``pastbench grader-agreement``: its grader over the families under ``roots``, for
        answers labelled by meaning; None: it grades none."""
        ...

    def validate(
        self, paths: list[Path], registry: Any, *, run_policies: bool, check_counts: bool
    ) -> tuple[str, bool] | None:
        """``pastbench validate``: check family files or folders (``run_policies``: also run the
        offline policies over them; ``check_counts``: the built-in set's count rule; ``registry``:
        the protocols whose files it describes rather than audits); (the report, passed), or None
        when it audits none."""
        ...


class ProtocolBase:
    """Defaults for a protocol whose records are plain JSON; subclasses set the class attributes
    and implement ``items``, ``summarize``, ``render_section`` and ``describe``."""

    name: ClassVar[str] = ""
    format_tag: ClassVar[str] = ""
    markers: ClassVar[Mapping[str, str]] = {}
    options: ClassVar[OptionGroup | None] = None
    gate_metric_names: ClassVar[frozenset[str]] = frozenset()
    # -- how gates name and word this protocol's metrics (results/gates.py reads them) ----------
    # The order a gate error lists the metric names in (empty: sorted).
    gate_metric_order: ClassVar[tuple[str, ...]] = ()
    # True: a gate scopes a metric as <name> (the overall) or <name>.<key>; False: bare scopes.
    gate_scopes_prefixed: ClassVar[bool] = True
    # What a metric's strata and units are (singular, plural), in a gate's notes and messages.
    gate_strata_noun: ClassVar[tuple[str, str]] = ("stratum", "strata")
    gate_units_noun: ClassVar[str] = "units"
    # False: reports (the CI step summary) show its gate metrics in tables of its own.
    gate_metrics_table: ClassVar[bool] = True
    title: ClassVar[str] = ""  # the page shows the name when empty
    # The mechanism ablation's score (--pastbench-ablation); None: the protocol prints none.
    ablation: ClassVar[AblationSpec | None] = None
    # run.json fields that change what its items measure -> the setting that sets each: a resume
    # must match them (plugin/resume.py). Its options marked ``resume`` are added to them.
    resume_fields: ClassVar[Mapping[str, str]] = {}
    # Per-shard or per-machine fields of a record: two shards may differ in them.
    volatile_record_fields: ClassVar[tuple[str, ...]] = ("dataset_hash", "wall_s")

    def claims(self, path: Path) -> bool:
        return False

    def family_identity(self, path: Path) -> tuple[str, str]:
        """``stream.retail_l2`` for ``families/streams/retail_l2.yaml``."""
        return f"{self.name}.{path.stem}", hashlib.sha256(path.read_bytes()).hexdigest()

    def collect(self, parent: ProtocolFile) -> Iterable[pytest.Item]:
        parent.identify(*self.family_identity(parent.path))
        return self.items(parent)

    def items(self, parent: ProtocolFile) -> Iterable[pytest.Item]:
        raise NotImplementedError

    def load_record(self, record: dict[str, Any]) -> Any:
        if not (isinstance(record, dict) and isinstance(record.get("nodeid"), str)):
            raise ValueError("not a protocol item file (record.nodeid)")
        return record

    def read_records(self, run_dir: Path) -> list[dict[str, Any]]:
        path = run_dir / PROTOCOL_RESULTS_FILE
        if not path.is_file():
            return []
        return list(json.loads(path.read_text())["protocols"].get(self.name, []))

    def comparable(self, record: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in record.items() if k not in self.volatile_record_fields}

    def summarize(self, records: list[dict[str, Any]], seed: int) -> dict[str, Any]:
        raise NotImplementedError

    def add_to_summary(self, summary: dict[str, Any], records: list[Any], seed: int) -> None:
        if records:
            section = self.summarize(records, seed)
            if self.ablation is not None:
                # lazy: the ablation loads the agents' mechanisms, asked only at the end of a run
                from ..results.ablation import ablation_rows

                rows = ablation_rows(self.ablation, records, seed)
                if rows:
                    section["ablation"] = {"score": self.ablation.score, "rows": rows}
            summary.setdefault("protocols", {})[self.name] = section

    def add_to_results(
        self,
        documents: dict[str, dict[str, Any]],
        run: dict[str, Any],
        records: list[Any],
        summary: dict[str, Any],
    ) -> None:
        if records:
            # The §8 protocols' item records, by protocol (their shapes differ from PAST's).
            document = documents.setdefault(
                PROTOCOL_RESULTS_FILE, {"schema_version": 1, "run": run, "protocols": {}}
            )
            document["protocols"] = dict(sorted({**document["protocols"], self.name: records}.items()))

    def write_files(self, summary: dict[str, Any], run_dir: Path) -> list[Path]:
        return []

    def section(self, summary: Mapping[str, Any]) -> dict[str, Any] | None:
        """This protocol's section of a summary, or None when the run held none of its items."""
        return (summary.get("protocols") or {}).get(self.name)

    def render(self, terminal: Any, summary: dict[str, Any], records: list[Any]) -> None:
        section = self.section(summary)
        if section is not None:
            terminal.section(f"pastbench: {self.name}")
            terminal.write_line(self.render_section(section))
        ablation = (section or {}).get("ablation")
        if ablation and self.ablation is not None:
            from ..results.ablation import render_ablation  # lazy: as in add_to_summary

            terminal.section(f"pastbench: {self.name} mechanism ablation")
            rows = ablation["rows"]
            terminal.write_line(render_ablation(ablation["score"], rows, self.ablation.group_name))

    def render_section(self, section: dict[str, Any]) -> str:
        raise NotImplementedError

    def test_status(
        self, record: dict[str, Any], verbosity: int
    ) -> tuple[str, str, tuple[str, dict[str, bool]]]:
        return "measured", "m", (f"{self.name.upper()} {record.get('headline', '')}", {"green": True})

    def junit_properties(self, record: dict[str, Any]) -> list[tuple[str, Any]]:
        return protocol_item_properties(record)

    def describe(self, path: Path) -> str:
        raise NotImplementedError

    def html_section(self, summary: Mapping[str, Any]) -> HtmlSection:
        """The terminal's text of its section (``render_section``), preformatted."""
        from ..results.render.html_kit import TEXT_SECTION  # lazy: the HTML kit loads Jinja2

        return HtmlSection(TEXT_SECTION, {"text": self.render_section(dict(self.section(summary) or {}))})

    def figures(self) -> Sequence[FigureSpec]:
        return ()

    def offline_policy(self) -> OfflinePolicy | None:
        return None

    def gate_metrics(self, summary: Mapping[str, Any]) -> list[GateMetric]:
        return []

    def gate_units(
        self, records: list[dict[str, Any]]
    ) -> dict[tuple[str, str, str], dict[str, dict[str, float]]]:
        """Optional: (config, scope, metric) -> ``GateMetric.units`` drawn from this protocol's
        records, for the metrics whose units the summary does not hold (a stream's tickets)."""
        return {}

    def baseline_units(self, baseline: Any) -> dict[tuple[str, str, str], dict[str, dict[str, float]]]:
        """Optional: the same keys, drawn from what a ``Baseline`` (results/baseline.py) keeps of
        this protocol besides its gate metrics (PAST: the per-episode scores)."""
        return {}

    def resume_values(self, options: Any) -> dict[str, Any]:
        """This invocation's values of ``resume_fields`` (default: the RunOptions fields so named)
        and of its ``resume`` options (their declared default when the options hold none)."""
        values = {key: getattr(options, key, None) for key in self.resume_fields}
        for spec in self.options.specs if self.options else ():
            if spec.resume:
                values[spec.target] = options.protocol_options.get(spec.target, spec.default)
        return values

    def gate_scope_problem(self, gate_name: str, scope: str, scopes: Sequence[str]) -> str:
        """Why a config holds no ``scope`` for a gate, given the scopes it holds (as gates name them)."""
        metric = gate_name.rpartition(".")[2]
        return f"no {gate_name} (scopes with {metric}: {', '.join(scopes) or 'none'})"

    # -- what the shared layers ask of it (issue 32 item 1): none of these by default ------------
    def offline_models(self) -> Mapping[str, Any]:
        return {}

    def claim_reader(self) -> ClaimReader | None:
        return None

    def baseline_data(self, records: list[Any]) -> dict[str, Any]:
        return {}

    def family_schema(self) -> dict[str, Any] | None:
        return None

    def export_dataset(self, families_root: Path | None, out: Path, registry: Any) -> str | None:
        return None

    def empty_world(self) -> Any | None:
        return None

    def answer_grader(self, roots: list[Path]) -> AnswerGrader | None:
        return None

    def validate(
        self, paths: list[Path], registry: Any, *, run_policies: bool, check_counts: bool
    ) -> tuple[str, bool] | None:
        return None


class ProtocolFile(pytest.File):
    """A family file of a registered protocol (by its format tag, or claimed by the protocol);
    the protocol yields its items."""

    protocol: BenchProtocol
    family_id: str = ""
    file_hash: str = ""

    def identify(self, family_id: str, file_hash: str) -> None:
        """The protocol names the family (and its file's hash) before yielding items."""
        self.family_id, self.file_hash = family_id, file_hash
        pastbench_run(self.config).note_family(family_id, file_hash)

    def collect(self) -> Iterator[pytest.Item]:
        protocol = getattr(self, "protocol", None) or pastbench_run(self.config).registry.owner(self.path)
        assert protocol is not None, "collected only when a registered protocol owns the file"
        self.protocol = protocol
        try:
            items = list(protocol.collect(self))
        except FamilyFileError as exc:
            # One error item, not a collection error: the other families still run.
            items = [InvalidFamilyItem.from_parent(self, name=INVALID_FAMILY_NAME, problem=str(exc))]
        yield from items


def protocol_file(file_path: Path, parent: pytest.Collector) -> ProtocolFile | None:
    """The collector of a file a registered protocol reads (its format tag, or the protocol
    claims it), None for any other file."""
    protocol = pastbench_run(parent.config).registry.owner(file_path)  # the run's, handed down
    if protocol is None:
        return None  # a format no registered protocol reads
    nodeid = packaged_nodeid(file_path)  # None: pytest's own id (the path from the rootdir)
    collector = ProtocolFile.from_parent(parent, path=file_path, nodeid=nodeid)
    collector.protocol = protocol
    return collector


class ProtocolItem(OneLineItem):
    """One measurement of any protocol. Subclasses implement ``measure`` (and ``secrets``)."""

    is_pastbench_item = True
    one_line_errors: tuple[type[BaseException], ...] = (ItemInfraError,)
    protocol: str = ""

    def __init__(
        self, *, model: str, trial: int = 0, mechanisms: list[str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**with_parsable_nodeid(kwargs))
        assert isinstance(self.parent, ProtocolFile)
        self.model = model
        self.trial = trial
        self.mechanisms = mechanisms  # None: the agent's own set (see ``agent``)
        self.family_id = self.parent.family_id
        self.file_hash = self.parent.file_hash
        self.record: dict[str, Any] | None = None
        self.trace: list[dict[str, Any]] = []
        self.infra_error: str | None = None
        self.add_keywords()

    def add_keywords(self) -> None:
        """Markers and ``-k`` keywords of the item: its protocol, family and file stem (and its
        mechanism set's label, when the run picks sets)."""
        self.add_marker(self.protocol)
        for keyword in (self.protocol, self.family_id, self.parent.path.stem):
            self.extra_keyword_matches.add(keyword)
        if self.mechanisms is not None:
            # lazy: the mechanisms module loads the store and the tools (collection stays light)
            from ..agents.mechanisms import mechanism_set_label

            self.extra_keyword_matches.add(mechanism_set_label(self.mechanisms))

    def agent(self) -> Any:
        """The agent this item runs: the run's agent with the item's mechanism set."""
        return pastbench_run(self.config).agent_for(self.mechanisms)

    # -- what a protocol implements ------------------------------------------------------------
    def measure(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Measure this item: run it on its protocol's engine (``protocols/<name>/engine.py``
        ``run``) with the run's agent, model client and budgets, and return (record, trace).
        ``record`` is plain JSON; it must hold a short ``headline`` string for the terminal (e.g.
        ``"reward 0.62"``). Raise ``InfraError`` (errors.py) when the infrastructure, not the
        agent, failed."""
        raise NotImplementedError

    def secrets(self) -> list[str]:
        """Values that must never appear in any output of this item."""
        return []

    # -- shared: one step, "measure", from pytest's setup to the protocol's measure -------------
    def setup(self) -> None:
        """pytest's setup measures the item, so an infrastructure failure is a pytest error and
        never a score; the run decides on which thread (``PastbenchRun.measure``)."""
        pastbench_run(self.config).measure(self)

    def measure_item(self) -> None:
        """What the run calls, here or on a thread of its pool: ``measure``, keeping the record
        and trace; an ``InfraError`` becomes ``infra_blocked`` (its text redacted)."""
        # Lazy: collection imports this module, and core.trace's redaction is for running items.
        from ..core.trace import redact_text

        try:
            self.record, self.trace = self.measure()
        except InfraError as exc:
            # A provider error may quote the key it rejected: redact before it is reported.
            self.infra_error = redact_text(str(exc), self.secrets())
            raise ItemInfraError(f"infra_blocked: {self.infra_error}") from None

    def runtest(self) -> None:
        assert self.record is not None

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"{self.family_id}::{self.name}"

    def base_record(self) -> dict[str, Any]:
        """The fields every protocol record carries (resume, merge and reports read them)."""
        bench = pastbench_run(self.config)
        record = {
            "nodeid": self.nodeid,
            "protocol": self.protocol,
            "family": self.family_id,
            "episode": self.name.partition("[")[0],
            "model": self.model,
            # With a mechanism set picked by the run, the agent's label names it (``hermes[E1]``,
            # as PAST's config labels do), so every summary keeps the sets apart.
            "agent": bench.agent_label() + _set_suffix(self.mechanisms),
            "trial": self.trial,
            "infra_blocked": False,
            "reason": None,
        }
        if self.mechanisms is not None:
            record["mechanisms"] = list(self.mechanisms)
        return record

    def full_record(self) -> dict[str, Any]:
        """The record that travels: the measured one, or a blocked one with its reason."""
        if self.record is not None:
            return {**self.base_record(), **self.record}
        reason = self.infra_error or "harness error (see the item's error report)"
        return {**self.base_record(), "infra_blocked": True, "reason": reason, "headline": "blocked"}

    def payload(self) -> dict[str, Any]:
        from ..core.trace import redact  # lazy: as in measure_item

        payload = {
            "protocol": self.protocol,
            "record": self.full_record(),
            "trace": self.trace,
            "family_hash": self.file_hash,
        }
        return redact(payload, self.secrets())


def _set_suffix(mechanisms: list[str] | None) -> str:
    return f"[{','.join(mechanisms)}]" if mechanisms else ""


def protocol_item_properties(record: dict[str, Any]) -> list[tuple[str, Any]]:
    """A §8 protocol item: its identity, headline and the top-level numbers of its record."""
    props: list[tuple[str, Any]] = [
        (f"pastbench.{key}", record.get(key))
        for key in ("protocol", "family", "episode", "trial", "model", "headline", "infra_blocked")
    ]
    for key, value in sorted((record.get("metrics") or {}).items()):
        if isinstance(value, int | float) and not isinstance(value, bool):
            props.append((f"pastbench.metric.{key}", value))
    return props
