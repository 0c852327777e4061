"""Command-line options and ini keys, resolved once into a validated ``RunOptions``.

Every ``--pastbench-x`` option is also the ini key ``pastbench_x``; the command line wins.
Misuse is a ``pytest.UsageError`` with a one-line fix, raised before anything runs.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ..models.cache import CACHE_MODES

PERSISTENCE_CHOICES = ("both", "on", "off", "ablated", "all")
STREAM_SCALES = ("sample", "full")
PROGRESS_MODES = ("auto", "tty", "plain", "off")  # the live status line (progress.py)
ARMS_OF = {"both": ["on", "off"], "all": ["on", "off", "ablated"]}
# Items in flight per process. A run waits on model latency, so threads, not cores, set its
# speed; 8 per process with the two workers a 2-core runner takes (-n 2) keeps the default 16
# connections per provider busy, and an -n 0 run still overlaps 8 items.
DEFAULT_CONCURRENCY = 8
DEFAULT_MODEL = "pastbench/recall"  # the embedded offline default: a first `pytest` needs no key


# The sections of `pytest --help` and docs/options.md, in this order: key -> title.
GROUPS: dict[str, str] = {
    "model": "model (what answers: model strings and aliases, the judge, model requests, the cache)",
    "agent": "agent (what runs the sessions: profile, external program, sandbox, mechanisms, budgets)",
    "selection": "selection (what is measured: families, arms, trials, shards, protocol parameters)",
    "run": "run control (seed, concurrency, run-wide budgets, resume, the status line)",
    "outputs": "outputs (where the run's files go and what is written)",
    "gates": "gates (pass threshold, baselines and regression gates)",
}


# A further check of one option's value (after type, bounds and choices): the value so far, the
# config, and the options resolved before it (in OPTIONS order) in; the final value out. Raises
# ValueError (shown after "--pastbench-NAME=VALUE: ") or pytest.UsageError (shown as it is).
Check = Callable[[Any, pytest.Config, dict[str, Any]], Any]


@dataclass(frozen=True)
class OptionSpec:
    """One ``--pastbench-NAME`` option and its ini key ``pastbench_NAME``, declared as data."""

    name: str
    help: str
    kind: type = str  # str, int or float; bool: a flag (no value on the command line)
    default: Any = None
    choices: tuple[str, ...] = ()
    low: float | None = None  # inclusive bounds
    high: float | None = None
    above_zero: str | None = None  # the value must be > 0; this says how to fix it
    multiple: bool = False  # repeatable: a list
    check: Check | None = None
    field: str | None = None  # the RunOptions field it fills (default: its name); "" for none
    default_text: str | None = None  # the default as the reference shows it, when not the value
    group: str = "run"  # a key of GROUPS: the section of `pytest --help` and docs/options.md
    metavar: str | None = None  # the placeholder in `pytest --help` (default: from kind and choices)

    @property
    def flag(self) -> bool:
        return self.kind is bool

    @property
    def placeholder(self) -> str | None:
        """``{both,on,off}`` for choices, else the declared metavar, ``N`` (int), ``X`` (float)."""
        if self.flag:
            return None
        if self.choices:
            return "{" + ",".join(self.choices) + "}"
        return self.metavar or {int: "N", float: "X"}.get(self.kind, "VALUE")

    @property
    def ini_key(self) -> str:
        return "pastbench_" + self.name.replace("-", "_")

    @property
    def ini_type(self) -> str:
        """The ini key's type as pytest parses and shows it (``pytest --help``: ``(int)``)."""
        if self.flag:
            return "bool"
        if self.multiple:
            return "args"
        return {int: "int", float: "float"}.get(self.kind, "string")

    @property
    def target(self) -> str:
        return self.name.replace("-", "_") if self.field is None else self.field


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


def _stream_reference(value: str | None, config: pytest.Config, resolved: dict[str, Any]) -> str | None:
    if value is None:
        return None
    from ..protocols.stream.servelearn.leaderboard import check_leaderboard

    path = Path(value).expanduser().resolve()
    check_leaderboard(path)  # a UsageError naming the file and the line
    return str(path)


def _stream_sample(value: str | None, config: pytest.Config, resolved: dict[str, Any]) -> Any:
    if value is None:
        return None
    from ..protocols.stream.servelearn.sample import parse_sample

    return parse_sample(value)  # a ValueError is the one-line UsageError


def _judge_model(value: str | None, config: pytest.Config, resolved: dict[str, Any]) -> str | None:
    if value is not None:
        from ..judge.llm import check_judge_model

        check_judge_model(value)  # after the alias file (declared before it): an alias may name the judge
    return value


def _below_one(value: float | None, config: pytest.Config, resolved: dict[str, Any]) -> float | None:
    if value is not None and value >= 1.0:
        raise ValueError("τ must be below 1 (no pass rate is above 1), e.g. --pastbench-intervention-tau=0.5")
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
        "agent: a profile in agents/ or a profile file, module:factory, "
        "subprocess:COMMAND or docker:IMAGE [COMMAND] (external agents: the docs' agents page, "
        "docs/agents.md)",
        default="hermes",
        group="agent",
        metavar="AGENT",
    ),
    OptionSpec(
        "agent-label",
        "the agent's name in tables, plots and reports (default: its profile's name; for "
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
        default_text="the agent profile's",
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
        "plasticity-checkpoints",
        "plasticity protocol: run checkpoints 0..N instead of each family file's own C",
        kind=int,
        low=1,
        high=200,
        group="selection",
        metavar="N",
    ),
    OptionSpec(
        "intervention-m",
        "intervention protocol: α_L's sustained-success threshold m (passes in a row that count as "
        "re-learned) for every family, instead of each family file's own",
        kind=int,
        low=1,
        default_text="each family's metrics.m",
        group="selection",
        metavar="M",
    ),
    OptionSpec(
        "intervention-tau",
        "intervention protocol: κ's baseline threshold τ in [0, 1) (checks whose pre-event pass rate is "
        "at or below it are left out of κ) for every family, instead of each family file's own",
        kind=float,
        low=0.0,
        check=_below_one,
        default_text="each family's metrics.tau",
        group="selection",
        metavar="TAU",
    ),
    OptionSpec(
        "resume",
        "continue an interrupted run: RUN is a run folder or a run id under the report dir; its "
        "finished items are kept and only the rest run (the options must be the run's)",
        group="run",
        metavar="RUN",
    ),
    OptionSpec(
        "stream-scale",
        "stream protocol (families/streams): sample (default: the first tickets of every window) "
        "or full (every generated ticket, 4,000+ over the built-in streams)",
        default="sample",
        choices=STREAM_SCALES,
        group="selection",
    ),
    OptionSpec(
        "stream-reference",
        "a leaderboard CSV in ServeLearnBench's columns (their docs/leaderboard.csv: model, method, "
        "retail_H_L1 ... pitch_H_L3, avg_h, avg_f): the stream tables show its row of each harness's "
        "method (blind/oracle/rag) and model as a 'published' column beside ours",
        check=_stream_reference,
        group="outputs",
        metavar="CSV",
    ),
    OptionSpec(
        "stream-reference-model",
        "the leaderboard model the published column is read for (e.g. 'GLM-5.3 Flash'), instead of "
        "matching the run's model by the alias table of docs/protocols/streams.md",
        group="outputs",
        metavar="NAME",
    ),
    OptionSpec(
        "stream-sample",
        "ServeLearnBench download: run N test tasks per scenario (e.g. 20), or a fraction F of each "
        "window's serving and test tasks (e.g. 0.1), drawn with --pastbench-seed and recorded in the "
        "summary; default: every task",
        check=_stream_sample,
        default_text="every task",
        group="selection",
        metavar="N|F",
    ),
)


def add_options(parser: pytest.Parser) -> None:
    """One `pytest --help` section per group (GROUPS), each option with its placeholder; every ini
    key typed as pytest parses it (bool, int, float, args; string otherwise)."""
    for key, title in GROUPS.items():
        group = parser.getgroup(f"pastbench-{key}", f"pastbench: {title}")
        for spec in (s for s in OPTIONS if s.group == key):
            if spec.flag:
                action: dict[str, Any] = {"action": "store_const", "const": True}
            else:
                action = {"action": "append" if spec.multiple else "store", "metavar": spec.placeholder}
            text = help_text(spec)
            group.addoption(
                f"--pastbench-{spec.name}", dest=_dest(spec.name), default=None, help=text, **action
            )
            parser.addini(spec.ini_key, text, type=spec.ini_type, default=None)  # type: ignore[arg-type]


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


# Options that only shape what a run writes or shows, not what it measures: giving one alone does
# not make a pytest run a benchmark run (no start-up checks, no early gateway), so a project may set
# it in its ini file or PYTEST_ADDOPTS for every run.
OUTPUT_ONLY = frozenset({"no-report"})


def any_option_given(config: pytest.Config) -> bool:
    return any(raw_value(config, spec.name) is not None for spec in OPTIONS if spec.name not in OUTPUT_ONLY)


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
    plasticity_checkpoints: int | None = None  # overrides each plasticity family's C
    intervention_m: int | None = None  # overrides each intervention family's metrics.m
    intervention_tau: float | None = None  # overrides each intervention family's metrics.tau
    stream_scale: str = "sample"
    stream_reference: str | None = None  # a published leaderboard CSV (ServeLearnBench's columns)
    stream_reference_model: str | None = None  # its model to compare with (None: by alias)
    stream_sample: Any = None  # servelearn.sample.Sample, or None: every task of a download

    @property
    def arms(self) -> list[str]:
        return ARMS_OF.get(self.persistence, [self.persistence])


def resolve(config: pytest.Config) -> RunOptions:
    """Every option through ``validate``, in OPTIONS order (a check may read the ones before it)."""
    resolved: dict[str, Any] = {}
    for spec in OPTIONS:
        resolved[spec.name] = validate(spec, raw_value(config, spec.name), config, resolved)
    return RunOptions(**{spec.target: resolved[spec.name] for spec in OPTIONS if spec.target})


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


# --- the options reference (docs/options.md) ---------------------------------------------------

REFERENCE_FILE = "docs/options.md"


def _value_text(spec: OptionSpec) -> str:
    if spec.flag:
        return "flag"
    if spec.choices:
        return " \\| ".join(f"`{choice}`" for choice in spec.choices)
    noun = {int: "integer", float: "number"}.get(spec.kind, "text")
    if spec.above_zero is not None:
        noun += " > 0"
    elif spec.low is not None and spec.high is not None:
        noun += f" in [{spec.low}, {spec.high}]"
    elif spec.low is not None:
        noun += f" ≥ {spec.low}"
    return noun + (", repeatable" if spec.multiple else "")


def _default_text(spec: OptionSpec) -> str:
    if spec.default_text is not None:
        return spec.default_text
    if spec.flag:
        return "off"
    return "none" if spec.default in (None, ()) else f"`{spec.default}`"


def reference_markdown() -> str:
    """docs/options.md, drawn from OPTIONS: one row per option."""
    rows = [
        "# Options",
        "",
        "<!-- Generated from the declarations in pytest_pastbench/plugin/options.py by",
        f"     `pastbench options -o {REFERENCE_FILE}`; edit those, not this page. -->",
        "",
        "Every `--pastbench-NAME` option is also the ini key `pastbench_NAME` (in `pytest.ini`,",
        "`pyproject.toml` under `[tool.pytest.ini_options]`, or `tox.ini`); the command line wins.",
        "A value out of its type, bounds or choices stops the run before anything starts, with a",
        "one-line fix. `pytest --help` lists them in the same sections.",
    ]
    header = ["| option | ini key (type) | value | default | what it does |", "|---|---|---|---|---|"]
    for key, title in GROUPS.items():
        rows += ["", f"## {title[0].upper()}{title[1:]}", "", *header]
        for spec in (s for s in OPTIONS if s.group == key):
            option = f"--pastbench-{spec.name}" + ("" if spec.flag else f"={spec.placeholder}")
            text = help_text(spec).replace("|", "\\|")
            rows.append(
                f"| `{option}` | `{spec.ini_key}` ({spec.ini_type}) | "
                f"{_value_text(spec)} | {_default_text(spec)} | {text} |"
            )
    return "\n".join(rows) + "\n"


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("options", help="print the options reference (Markdown)")
    parser.add_argument("--markdown", action="store_true", help="Markdown (the only format; the default)")
    parser.add_argument("-o", "--output", metavar="FILE", help=f"write it to FILE, e.g. {REFERENCE_FILE}")
    parser.set_defaults(func=_cli)


def _cli(args: argparse.Namespace) -> int:
    text = reference_markdown()
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text)
    else:
        print(text, end="")
    return 0
