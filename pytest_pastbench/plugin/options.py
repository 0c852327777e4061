"""Command-line options and ini keys, resolved once into a validated ``RunOptions``.

Every ``--pastbench-x`` option is also the ini key ``pastbench_x``; the command line wins.
Misuse is a ``pytest.UsageError`` with a one-line fix, raised before anything runs.

The shared options are declared here (``OPTIONS``); each protocol declares its own as an
``OptionGroup`` in a data-only module of its package (``protocols/stream/options.py``) and hands it
to ``pytest_pastbench_register_options`` (hookspec.py), so a plugin's or a conftest's protocol adds
options, ini keys and a ``pytest --help`` section of its own.

Imports inside functions load an option's checker (mechanisms, model aliases, the judge, shards)
only when that option is given: every pytest run resolves the options (tests/test_lazy_start.py).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import pytest

from ..models.cache import CACHE_MODES
from .option_spec import OptionGroup, OptionSpec

PERSISTENCE_CHOICES = ("both", "on", "off", "ablated", "all")
PROGRESS_MODES = ("auto", "tty", "plain", "off")  # the live status line (progress.py)
MODEL_SERVICES = ("process", "inline")  # where -n 0's model service runs (run_models.py)
ARMS_OF = {"both": ["on", "off"], "all": ["on", "off", "ablated"]}
# Items in flight per process. A run waits on model latency, so threads, not cores, set its
# speed; 8 per process with the two workers a 2-core runner takes (-n 2) keeps the default 16
# connections per provider busy, and an -n 0 run still overlaps 8 items.
DEFAULT_CONCURRENCY = 8
DEFAULT_MODEL = "pastbench/recall"  # the embedded offline default: a first `pytest` needs no key


# The sections of `pytest --help` and docs/options.md, in this order: key -> title.
GROUPS: dict[str, str] = {
    "model": "model (what answers: model strings and aliases, the judge, model requests, the cache)",
    "agent": "agent (what runs the sessions: agent file, external program, sandbox, mechanisms, budgets)",
    "selection": "selection (what is measured: families, arms, trials, shards)",
    "run": "run control (seed, concurrency, run-wide budgets, resume, the status line)",
    "outputs": "outputs (where the run's files go and what is written)",
    "gates": "gates (pass threshold, baselines and regression gates)",
}


def _models(value: list[str] | None, config: pytest.Config, resolved: dict[str, Any]) -> list[str]:
    return _dedupe(value or [DEFAULT_MODEL])


def _agent_label(value: str | None, config: pytest.Config, resolved: dict[str, Any]) -> str | None:
    if value is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", value):
        raise pytest.UsageError(
            f"--pastbench-agent-label={value!r}: use a short name of letters, digits, '.', '_' "
            "or '-' (at most 64), e.g. --pastbench-agent-label=my-agent"
        )
    return value


def _negate(value: bool, config: pytest.Config, resolved: dict[str, Any]) -> bool:
    return not value


def _mechanism_sets(
    values: list[str], config: pytest.Config, resolved: dict[str, Any]
) -> list[list[str]] | None:
    """--pastbench-ablation's seven sets, then each --pastbench-mechanisms value; no repeats."""
    if not (values or raw_value(config, "ablation")):
        return None  # the mechanisms module loads the store and the tools: not in every pytest run
    from ..agents.mechanisms import ablation_sets, parse_mechanisms
    from ..errors import MechanismError

    sets = ablation_sets() if raw_value(config, "ablation") else []
    for value in values:
        try:
            parsed = parse_mechanisms(value)
        except MechanismError as exc:
            raise pytest.UsageError(f"--pastbench-mechanisms={value}: {exc}") from None
        if parsed not in sets:
            sets.append(parsed)
    return sets or None


def _cache_dir(value: str, config: pytest.Config, resolved: dict[str, Any]) -> str:
    if resolved["cache"] != "off" and Path(value).exists() and not Path(value).is_dir():
        raise ValueError("exists and is not a folder")
    return value


def _alias_file(value: str | None, config: pytest.Config, resolved: dict[str, Any]) -> str | None:
    """The absolute path of the user's alias file, read once here (None: the built-in table)."""
    if value is None:
        # Not in every pytest run: the client loads only for a run that calls a model. Once it is
        # loaded (an earlier in-process run), an alias file that run installed must not leak.
        client = sys.modules.get("pytest_pastbench.models.client")
        if client is not None:
            client.use_alias_file(None)
        return None
    from ..models.client import use_alias_file

    path = Path(value)
    if not path.is_absolute() and not path.exists():
        path = config.rootpath / path  # an ini value is relative to the project
    value = str(path.resolve())
    try:
        use_alias_file(value)
    except ValueError as exc:
        raise pytest.UsageError(f"--pastbench-model-aliases: {exc}") from None
    return value


def _judge_model(value: str | None, config: pytest.Config, resolved: dict[str, Any]) -> str | None:
    if value is not None:
        from ..judge.llm import check_judge_model

        check_judge_model(value)  # after the alias file (declared before it): an alias may name the judge
    return value


def _shard(value: str | None, config: pytest.Config, resolved: dict[str, Any]) -> tuple[int, int] | None:
    if value is None:
        return None
    from ..errors import ShardSpecError
    from .shard import parse_shard

    try:
        return parse_shard(value)
    except ShardSpecError as exc:
        raise pytest.UsageError(f"--pastbench-shard={exc}") from None


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "model",
        "model to benchmark: a litellm model string, an alias from agents/models.yaml, or an "
        "offline reference model pastbench/blind|recall|curator; "
        "repeat for a comparison run",
        check=_models,
        multiple=True,
        field="models",
        default_text="pastbench/recall",
        group="model",
        metavar="MODEL",
    ),
    OptionSpec(
        "agent",
        "agent: a name in agents/ or an agent file (.yaml), module:factory, "
        "subprocess:COMMAND or docker:IMAGE [COMMAND] (external agents: the docs' agents page, "
        "docs/agents.md)",
        default="hermes",
        group="agent",
        metavar="AGENT",
    ),
    OptionSpec(
        "agent-label",
        "the agent's name in tables, plots and reports (default: its agent file's name; for "
        "subprocess:/docker: specs the program's or image's name)",
        check=_agent_label,
        group="agent",
        metavar="NAME",
    ),
    OptionSpec(
        "no-agent-sandbox",
        "DEBUGGING ONLY: run subprocess agents outside the bubblewrap sandbox (they keep their fresh "
        "HOME and working directory, but see the host's files and network); every run says so",
        kind=bool,
        default=False,
        check=_negate,
        field="agent_sandbox",
        group="agent",
    ),
    OptionSpec(
        "docker-host",
        "container engine for docker agents, a Docker API URL such as unix:///run/podman/podman.sock",
        default_text="DOCKER_HOST, then the usual docker and podman sockets",
        group="agent",
        metavar="URL",
    ),
    OptionSpec(
        "mechanisms",
        "Hermes mechanisms to switch on: E1,E5 (E1 plan, E2 render, E3 route, E4 gate, E5 close), "
        "all or none; repeat for one config per set in the same run",
        multiple=True,
        check=_mechanism_sets,
        field="mechanism_sets",
        default_text="the agent file's",
        group="agent",
        metavar="SET",
    ),
    OptionSpec(
        "ablation",
        "run the mechanism ablation: base, each of E1..E5 alone and all five, one config each, "
        "and print each protocol's ablation table",
        kind=bool,
        default=False,
        field="",
        group="agent",
    ),
    OptionSpec(
        "persistence",
        "which arms to run: both (default: on and off), on, off, ablated (the on store after learning "
        "with every entry holding a key fact removed) or all (on, off and ablated)",
        default="both",
        choices=PERSISTENCE_CHOICES,
        group="selection",
    ),
    OptionSpec(
        "trials",
        "trials per episode and arm",
        kind=int,
        default=1,
        low=1,
        group="selection",
        metavar="N",
    ),
    OptionSpec(
        "report-dir",
        "root of run outputs",
        default="reports",
        group="outputs",
        metavar="DIR",
    ),
    OptionSpec(
        "no-report",
        "do not write the run's HTML report (report.html) and its figures (plots/*.png) at the end "
        "of the run; 'pastbench html RUN' and 'pastbench plot RUN' write them later",
        kind=bool,
        default=False,
        check=_negate,
        field="report",
        group="outputs",
    ),
    OptionSpec(
        "run-id",
        "name of this run's output folder",
        default_text="timestamp and seed",
        group="outputs",
        metavar="NAME",
    ),
    OptionSpec(
        "pass-threshold",
        "make an on-arm item fail when its score is below this (0..1)",
        kind=float,
        low=0.0,
        high=1.0,
        group="gates",
        metavar="SCORE",
    ),
    OptionSpec(
        "seed",
        "seed for bootstrap CIs and any sampling",
        kind=int,
        default=0,
        low=0,
        group="run",
        metavar="N",
    ),
    OptionSpec(
        "families",
        "collect families from PATH, or 'builtin' for the packaged ones; repeatable",
        multiple=True,
        default_text="this folder's testpaths",
        group="selection",
        metavar="PATH",
    ),
    OptionSpec(
        "max-tool-calls",
        "tool-call budget per session",
        kind=int,
        default=50,
        low=1,
        group="agent",
        metavar="N",
    ),
    OptionSpec(
        "session-timeout",
        "wall-clock backstop per session in seconds: a session past it is infra_blocked, never "
        "scored (wall time moves with load); the harness's waits (slots, backoff) are not counted",
        kind=float,
        default=300.0,
        low=1.0,
        group="agent",
        metavar="SECONDS",
    ),
    OptionSpec(
        "cache",
        "model-response cache: off (default), rw (reuse and store), replay (reuse; a miss is an error)",
        default="off",
        choices=CACHE_MODES,
        group="model",
    ),
    OptionSpec(
        "cache-dir",
        "where the response cache lives",
        default=".pastbench/cache",
        check=_cache_dir,
        group="model",
        metavar="DIR",
    ),
    OptionSpec(
        "model-service",
        "where the model service (litellm, the cache, rate limits, the ledger) runs at -n 0: "
        "process (default: a process of its own, as under xdist, so litellm's CPU does not hold "
        "the items' interpreter lock) or inline (the pytest process itself: one process, e.g. to "
        "step into litellm with pdb); under xdist the workers always reach the controller's "
        "gateway",
        default="process",
        choices=MODEL_SERVICES,
        group="model",
    ),
    OptionSpec(
        "max-connections",
        "model calls in flight per provider, shared by every worker, agent and judge",
        kind=int,
        default=16,
        low=1,
        group="model",
        metavar="N",
    ),
    OptionSpec(
        "concurrency",
        "items in flight at once in each pytest process (the -n 0 process or each xdist worker), "
        "on threads (default 8: with -n 2 that fills the default 16 connections)",
        kind=int,
        default=DEFAULT_CONCURRENCY,
        above_zero="give a whole number of items in flight per process, 1 or more "
        f"(e.g. --pastbench-concurrency={DEFAULT_CONCURRENCY})",
        group="run",
        metavar="N",
    ),
    OptionSpec(
        "max-cost",
        "run-wide budget in USD over every model request (agents and judge, all workers); once "
        "spent no new request starts and unfinished items are infra_blocked (budget:run_cost)",
        kind=float,
        above_zero="give a budget above 0 in USD, e.g. 5.00",
        group="run",
        metavar="USD",
    ),
    OptionSpec(
        "max-tokens",
        "run-wide budget in tokens (prompt + completion) over every model request; once spent "
        "unfinished items are infra_blocked (budget:run_tokens)",
        kind=int,
        above_zero="give a budget above 0 in tokens, e.g. 2000000",
        group="run",
        metavar="TOKENS",
    ),
    OptionSpec(
        "progress",
        "live status line on the controller (items done/total, model calls, tokens, dollars, "
        "blocked, ETA): auto (default: tty on a terminal, else plain), tty (redrawn in place), "
        "plain (a line on stderr at most every 30 s, for CI logs) or off",
        default="auto",
        choices=PROGRESS_MODES,
        group="run",
    ),
    OptionSpec(
        "model-aliases",
        "YAML file whose 'aliases:' entries (model, key_env, api_base, input/output_cost_per_token) "
        "override and extend agents/models.yaml",
        check=_alias_file,
        group="model",
        metavar="FILE",
    ),
    OptionSpec(
        "judge-model",
        "model that grades the answers' free text: every value, contains, any_of and rubric check "
        "(LLM judge; same model strings and aliases as --pastbench-model; pastbench/judge is the "
        "offline reference judge); default: none, text checks are graded deterministically and "
        "rubric checks by their fallback (without one left out of c_e and flagged)",
        check=_judge_model,
        group="model",
        metavar="MODEL",
    ),
    OptionSpec(
        "retries",
        "attempts per model request before the item is infra_blocked",
        kind=int,
        default=4,
        low=1,
        group="model",
        metavar="N",
    ),
    OptionSpec(
        "retry-delay",
        "base backoff in seconds between attempts, doubled each time, with jitter",
        kind=float,
        default=1.0,
        low=0.0,
        group="model",
        metavar="SECONDS",
    ),
    OptionSpec(
        "request-timeout",
        "timeout of one model request in seconds",
        kind=float,
        default=120.0,
        low=0.001,
        group="model",
        metavar="SECONDS",
    ),
    OptionSpec(
        "save",
        "after the run, save its summary as baseline NAME in the storage dir",
        group="gates",
        metavar="NAME",
    ),
    OptionSpec(
        "compare",
        "compare this run with a baseline: a saved NAME, a baseline file or a run folder",
        group="gates",
        metavar="BASELINE",
    ),
    OptionSpec(
        "compare-fail",
        "fail the session when a figure got worse than the baseline by more than a threshold: "
        "[SCOPE.]METRIC:X, e.g. delta:0.05, update.delta:0.03, mech:0.05, "
        "update.SM03_fact_correction.delta:±0.1, stream.hidden:2.0, intervention.rho:0.05, "
        "plasticity.id_end:10; repeatable",
        multiple=True,
        group="gates",
        metavar="[SCOPE.]METRIC:X",
    ),
    OptionSpec(
        "storage",
        "where baselines are saved",
        default=".pastbench/baselines",
        group="gates",
        metavar="DIR",
    ),
    OptionSpec(
        "shard",
        "run only shard K of N (K/N, e.g. 2/4): whole episodes, for splitting a run across CI jobs; "
        "join the shard runs with 'pastbench merge'",
        check=_shard,
        group="selection",
        metavar="K/N",
    ),
    OptionSpec(
        "resume",
        "continue an interrupted run: RUN is a run folder or a run id under the report dir; its "
        "finished items are kept and only the rest run (the options must be the run's)",
        group="run",
        metavar="RUN",
    ),
)


# The shared sections of `pytest --help` and docs/options.md; each protocol's follow them.
SHARED_GROUPS: tuple[OptionGroup, ...] = tuple(
    OptionGroup(key, title, tuple(spec for spec in OPTIONS if spec.group == key))
    for key, title in GROUPS.items()
)
_REGISTERED = "pastbench-protocol-options"


class _ProtocolOptions:
    """The protocols' option groups of one pytest run: a plugin object of its config's plugin
    manager, so in-process nested runs (pytester) never see each other's."""

    def __init__(self) -> None:
        self.groups: list[OptionGroup] = []


def add_options(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """The shared sections, then each protocol's through ``pytest_pastbench_register_options``.
    The hook is historic (as ``pytest_addoption`` is): a conftest or plugin registered later still
    adds its protocol's options, before the command line is parsed."""
    for group in SHARED_GROUPS:
        _add_group(parser, group)
    registered = _ProtocolOptions()
    pluginmanager.register(registered, _REGISTERED)

    def register(group: OptionGroup) -> None:
        if group in registered.groups:
            return  # the same plugin seen twice (-p and a conftest): one section
        check_group(group, [*SHARED_GROUPS, *registered.groups])
        _add_group(parser, group)
        registered.groups.append(group)

    pluginmanager.hook.pytest_pastbench_register_options.call_historic(kwargs={"register": register})


def check_group(group: OptionGroup, before: Sequence[OptionGroup]) -> None:
    """A protocol's group may take no section, option or RunOptions name another has taken."""
    taken_fields = {f.name for f in fields(RunOptions)} | {s.target for g in before for s in g.specs}
    problems = [f"the section {group.key!r}" for g in before if g.key == group.key]
    for spec in group.specs:
        if any(spec.name == other.name for g in before for other in g.specs):
            problems.append(f"--pastbench-{spec.name}")
        elif spec.target in taken_fields or not spec.target:
            problems.append(f"the name {spec.target!r} (--pastbench-{spec.name})")
    if problems:
        raise pytest.UsageError(
            f"pytest_pastbench_register_options: {group.key!r} takes {', '.join(problems)}, "
            "taken already; rename it"
        )


def _add_group(parser: pytest.Parser, group: OptionGroup) -> None:
    """One `pytest --help` section, each option with its placeholder; every ini key typed as pytest
    parses it (bool, int, float, args; string otherwise)."""
    section = parser.getgroup(f"pastbench-{group.key}", f"pastbench: {group.title}")
    for spec in group.specs:
        if spec.flag:
            action: dict[str, Any] = {"action": "store_const", "const": True}
        else:
            action = {"action": "append" if spec.multiple else "store", "metavar": spec.placeholder}
        text = help_text(spec)
        section.addoption(
            f"--pastbench-{spec.name}", dest=_dest(spec.name), default=None, help=text, **action
        )
        parser.addini(spec.ini_key, text, type=spec.ini_type, default=None)  # type: ignore[arg-type]


def protocol_option_groups(config: pytest.Config) -> tuple[OptionGroup, ...]:
    """The protocols' option groups this run registered, in registration order."""
    registered = config.pluginmanager.get_plugin(_REGISTERED)
    return tuple(registered.groups) if registered is not None else ()


def all_specs(groups: Iterable[OptionGroup]) -> list[OptionSpec]:
    return [spec for group in groups for spec in group.specs]


def resume_options(group: OptionGroup | None) -> dict[str, str]:
    """A protocol's options that a resume must match: RunOptions name -> the option."""
    return {spec.target: f"--pastbench-{spec.name}" for spec in (group.specs if group else ()) if spec.resume}


def help_text(spec: OptionSpec) -> str:
    """The help, with the default from the declaration (unless the help describes it itself)."""
    if "default" in spec.help or spec.flag or spec.default in (None, ()) and spec.default_text is None:
        return spec.help
    return f"{spec.help} (default {spec.default_text or spec.default})"


def _dest(name: str) -> str:
    return "pastbench_" + name.replace("-", "_")


def raw_value(config: pytest.Config, name: str) -> Any:
    """The command-line value, else the ini value, else None."""
    value = config.getoption(_dest(name))
    if value not in (None, []):
        return value
    key = "pastbench_" + name.replace("-", "_")
    try:
        ini = config.getini(key)
    except (ValueError, TypeError) as exc:  # a typed key whose text is not its type (older pytest)
        raise pytest.UsageError(f"{key}: {exc}") from None
    # An unset bool ini key reads as False: that is "not given", like an unset string. An int or
    # float key set to 0 is given (0 == False, so compared by identity).
    return None if ini is None or ini is False or ini == "" or ini == [] else ini


# Options that only shape how a run goes or what it writes, not what it measures: giving one alone
# does not make a pytest run a benchmark run (no start-up checks, no early model service), so a
# project may set it in its ini file or PYTEST_ADDOPTS for every run.
NOT_MEASURING = frozenset({"no-report", "model-service"})


def any_option_given(config: pytest.Config) -> bool:
    specs = all_specs([*SHARED_GROUPS, *protocol_option_groups(config)])
    return any(raw_value(config, spec.name) is not None for spec in specs if spec.name not in NOT_MEASURING)


@dataclass(frozen=True)
class RunOptions:
    models: list[str] = field(default_factory=lambda: [DEFAULT_MODEL])
    agent: str = "hermes"
    agent_label: str | None = None  # None: the agent's own name
    agent_sandbox: bool = True  # False only with --pastbench-no-agent-sandbox
    # None: the agent's own mechanisms; else one config per set (several: an ablation run).
    mechanism_sets: list[list[str]] | None = None
    persistence: str = "both"
    trials: int = 1
    report_dir: str = "reports"
    report: bool = True  # False only with --pastbench-no-report: no report.html nor plots/ at the end
    run_id: str | None = None
    pass_threshold: float | None = None
    seed: int = 0
    families: list[str] = field(default_factory=list)
    max_tool_calls: int = 50
    session_timeout: float = 300.0
    shard: tuple[int, int] | None = None  # (K, N), 1-based
    cache: str = "off"
    save: str | None = None
    compare: str | None = None
    compare_fail: list[str] = field(default_factory=list)
    storage: str = ".pastbench/baselines"
    cache_dir: str = ".pastbench/cache"
    model_service: str = "process"  # one of MODEL_SERVICES
    max_connections: int = 16
    concurrency: int = DEFAULT_CONCURRENCY
    max_cost: float | None = None  # run-wide budget in USD (budget.RunBudget)
    max_tokens: int | None = None
    progress: str = "auto"  # one of PROGRESS_MODES (progress.py)
    model_aliases: str | None = None  # absolute path of the user's alias file
    retries: int = 4
    retry_delay: float = 1.0
    request_timeout: float = 120.0
    resume: str | None = None  # a run folder, or a run id under report_dir
    docker_host: str | None = None
    judge_model: str | None = None  # None: text graded deterministically, rubrics by their fallback
    # The protocols' options (their OptionGroups' RunOptions names -> values), read as attributes
    # like the shared ones (``options.stream_scale``): one name per option wherever it is read.
    protocol_options: Mapping[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        # Called only for a name that is no field: a protocol's option, or a mistake.
        values = self.__dict__.get("protocol_options", {})
        if name in values:
            return values[name]
        raise AttributeError(
            f"RunOptions has no {name!r}: no shared option and no registered protocol's fills it"
        )

    @property
    def arms(self) -> list[str]:
        return ARMS_OF.get(self.persistence, [self.persistence])


def resolve(config: pytest.Config) -> RunOptions:
    """Every option through ``validate``: the shared ones in OPTIONS order (a check may read the
    ones before it), then each protocol's."""
    resolved: dict[str, Any] = {}
    protocol_specs = all_specs(protocol_option_groups(config))
    for spec in [*OPTIONS, *protocol_specs]:
        resolved[spec.name] = validate(spec, raw_value(config, spec.name), config, resolved)
    return RunOptions(
        **{spec.target: resolved[spec.name] for spec in OPTIONS if spec.target},
        protocol_options={spec.target: resolved[spec.name] for spec in protocol_specs},
    )


def validate(spec: OptionSpec, value: Any, config: pytest.Config, resolved: dict[str, Any]) -> Any:
    """The one routine: one option's given value (None: not given) to its value, or a UsageError."""
    option = f"--pastbench-{spec.name}"
    if value is None:
        value = list(spec.default or ()) if spec.multiple else spec.default
    elif spec.flag:
        value = bool(value)
    elif spec.multiple:
        value = list(value)
    elif spec.above_zero is not None:
        try:
            parsed = spec.kind(str(value))
        except ValueError:
            parsed = 0
        if parsed <= 0:
            raise pytest.UsageError(f"{option}={value}: {spec.above_zero}")
        value = parsed
    elif spec.kind in (int, float):
        try:
            parsed = spec.kind(value)
        except ValueError:
            noun = "an integer" if spec.kind is int else "a number"
            raise pytest.UsageError(f"{option}={value!r}: expected {noun}") from None
        if (spec.low is not None and parsed < spec.low) or (spec.high is not None and parsed > spec.high):
            bounds = (
                f"between {spec.low} and {spec.high}" if spec.high is not None else f"at least {spec.low}"
            )
            raise pytest.UsageError(f"{option}={value}: must be {bounds}")
        value = parsed
    if spec.choices and value not in spec.choices:
        raise pytest.UsageError(f"{option}={value!r}: choose one of {', '.join(spec.choices)}")
    if spec.check is None:
        return value
    try:
        return spec.check(value, config, resolved)
    except ValueError as exc:
        raise pytest.UsageError(f"{option}={value}: {exc}") from None


def _dedupe(values: list[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        for part in str(value).split(","):
            if part.strip() and part.strip() not in out:
                out.append(part.strip())
    return out
