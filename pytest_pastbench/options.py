"""Command-line options and ini keys, resolved once into a validated ``RunOptions``.

Every ``--pastbench-x`` option is also the ini key ``pastbench_x``; the command line wins.
Misuse is a ``pytest.UsageError`` with a one-line fix, raised before anything runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .cache import CACHE_MODES

PERSISTENCE_CHOICES = ("both", "on", "off", "ablated", "all")
ARMS_OF = {"both": ["on", "off"], "all": ["on", "off", "ablated"]}
# Items in flight per process. A run waits on model latency, so threads, not cores, set its
# speed; 8 per process with the two workers a 2-core runner takes (-n 2) keeps the default 16
# connections per provider busy, and an -n 0 run still overlaps 8 items.
DEFAULT_CONCURRENCY = 8


@dataclass(frozen=True)
class OptionSpec:
    name: str
    help: str
    ini_type: str | None = None  # None: string
    multiple: bool = False
    flag: bool = False  # takes no value on the command line; a bool ini key


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "model",
        "model to benchmark: a litellm model string, an alias from agents/models.yaml, or an "
        "offline reference model pastbench/blind|recall|curator (default pastbench/recall); "
        "repeat for a comparison run",
        ini_type="args",
        multiple=True,
    ),
    OptionSpec(
        "agent",
        "agent: a profile in agents/ (default hermes) or a profile file, module:factory, "
        "subprocess:COMMAND or docker:IMAGE [COMMAND] (external agents, see README)",
    ),
    OptionSpec(
        "agent-label",
        "the agent's name in tables, plots and reports (default: its profile's name; for "
        "subprocess:/docker: specs the program's or image's name)",
    ),
    OptionSpec(
        "no-agent-sandbox",
        "DEBUGGING ONLY: run subprocess agents outside the bubblewrap sandbox (they keep their fresh "
        "HOME and working directory, but see the host's files and network); every run says so",
        ini_type="bool",
        flag=True,
    ),
    OptionSpec(
        "docker-host",
        "container engine for docker agents, a Docker API URL such as unix:///run/podman/podman.sock "
        "(default: DOCKER_HOST, then the usual docker and podman sockets)",
    ),
    OptionSpec(
        "mechanisms",
        "Hermes mechanisms to switch on: E1,E5 (E1 plan, E2 render, E3 route, E4 gate, E5 close), "
        "all or none (default: the agent profile's); repeat for one config per set in the same run",
        ini_type="args",
        multiple=True,
    ),
    OptionSpec(
        "ablation",
        "run the mechanism ablation: base, each of E1..E5 alone and all five, one config each, "
        "and print the ablation table",
        ini_type="bool",
        flag=True,
    ),
    OptionSpec(
        "persistence",
        "which arms to run: both (default: on and off), on, off, ablated (the on store after learning "
        "with every entry holding a key fact removed) or all (on, off and ablated)",
    ),
    OptionSpec("trials", "trials per episode and arm (default 1)"),
    OptionSpec("report-dir", "root of run outputs (default reports)"),
    OptionSpec("run-id", "name of this run's output folder (default: timestamp and seed)"),
    OptionSpec("pass-threshold", "make an on-arm item fail when its score is below this (0..1)"),
    OptionSpec("seed", "seed for bootstrap CIs and any sampling (default 0)"),
    OptionSpec(
        "families",
        "collect families from PATH, or 'builtin' for the packaged ones; repeatable",
        ini_type="args",
        multiple=True,
    ),
    OptionSpec("max-tool-calls", "tool-call budget per session (default 50)"),
    OptionSpec("session-timeout", "wall-clock budget per session in seconds (default 300)"),
    OptionSpec(
        "cache",
        "model-response cache: off (default), rw (reuse and store), replay (reuse; a miss is an error)",
    ),
    OptionSpec("cache-dir", "where the response cache lives (default .pastbench/cache)"),
    OptionSpec(
        "max-connections",
        "model calls in flight per provider, shared by every worker, agent and judge (default 16)",
    ),
    OptionSpec(
        "concurrency",
        "items in flight at once in each pytest process (the -n 0 process or each xdist worker), "
        "on threads (default 8: with -n 2 that fills the default 16 connections)",
    ),
    OptionSpec(
        "max-cost",
        "run-wide budget in USD over every model request (agents and judge, all workers); once "
        "spent no new request starts and unfinished items are infra_blocked (budget:run_cost)",
    ),
    OptionSpec(
        "max-tokens",
        "run-wide budget in tokens (prompt + completion) over every model request; once spent "
        "unfinished items are infra_blocked (budget:run_tokens)",
    ),
    OptionSpec(
        "progress",
        "live status line on the controller (items done/total, model calls, tokens, dollars, "
        "blocked, ETA): auto (default: tty on a terminal, else plain), tty (redrawn in place), "
        "plain (a line on stderr at most every 30 s, for CI logs) or off",
    ),
    OptionSpec(
        "model-aliases",
        "YAML file whose 'aliases:' entries (model, key_env, api_base, input/output_cost_per_token) "
        "override and extend agents/models.yaml",
    ),
    OptionSpec(
        "judge-model",
        "model that scores rubric checks (LLM judge; same model strings and aliases as "
        "--pastbench-model; pastbench/judge is the offline reference judge); default: none, "
        "rubric checks are left out of c_e and flagged",
    ),
    OptionSpec("retries", "attempts per model request before the item is infra_blocked (default 4)"),
    OptionSpec(
        "retry-delay",
        "base backoff in seconds between attempts, doubled each time, with jitter (default 1.0)",
    ),
    OptionSpec("request-timeout", "timeout of one model request in seconds (default 120)"),
    OptionSpec("save", "after the run, save its summary as baseline NAME in the storage dir"),
    OptionSpec("compare", "compare this run with a baseline: a saved NAME, a baseline file or a run folder"),
    OptionSpec(
        "compare-fail",
        "fail the session when a figure got worse than the baseline by more than a threshold: "
        "[SCOPE.]METRIC:X, e.g. delta:0.05, update.delta:0.03, mech:0.05, update.fact_correction.delta:±0.1; "
        "repeatable",
        ini_type="args",
        multiple=True,
    ),
    OptionSpec("storage", "where baselines are saved (default .pastbench/baselines)"),
    OptionSpec(
        "shard",
        "run only shard K of N (K/N, e.g. 2/4): whole episodes, for splitting a run across CI jobs; "
        "join the shard runs with 'pastbench merge'",
    ),
    OptionSpec(
        "plasticity-checkpoints",
        "plasticity protocol: run checkpoints 0..N instead of each family file's own C",
    ),
    OptionSpec(
        "resume",
        "continue an interrupted run: RUN is a run folder or a run id under the report dir; its "
        "finished items are kept and only the rest run (the options must be the run's)",
    ),
    OptionSpec(
        "stream-scale",
        "stream protocol (families/streams): sample (default: the first tickets of every window) "
        "or full (every generated ticket, 4,000+ over the built-in streams)",
    ),
)
STREAM_SCALES = ("sample", "full")
PROGRESS_MODES = ("auto", "tty", "plain", "off")  # the live status line (progress.py)


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("pastbench", "agent self-improvement benchmark (pytest-pastbench)")
    for spec in OPTIONS:
        if spec.flag:
            action: dict[str, Any] = {"action": "store_const", "const": True}
        else:
            action = {"action": "append" if spec.multiple else "store"}
        group.addoption(
            f"--pastbench-{spec.name}", dest=_dest(spec.name), default=None, help=spec.help, **action
        )
        parser.addini(f"pastbench_{spec.name.replace('-', '_')}", spec.help, type=spec.ini_type, default=None)


def _dest(name: str) -> str:
    return "pastbench_" + name.replace("-", "_")


def raw_value(config: pytest.Config, name: str) -> Any:
    """The command-line value, else the ini value, else None."""
    value = config.getoption(_dest(name))
    if value not in (None, []):
        return value
    ini = config.getini(f"pastbench_{name.replace('-', '_')}")
    # An unset bool ini key reads as False: that is "not given", like an unset string.
    return ini if ini not in (None, "", [], False) else None


def any_option_given(config: pytest.Config) -> bool:
    return any(raw_value(config, spec.name) is not None for spec in OPTIONS)


@dataclass(frozen=True)
class RunOptions:
    models: list[str] = field(default_factory=lambda: ["pastbench/recall"])
    agent: str = "hermes"
    agent_label: str | None = None  # None: the agent's own name
    agent_sandbox: bool = True  # False only with --pastbench-no-agent-sandbox
    # None: the agent's own mechanisms; else one config per set (several: an ablation run).
    mechanism_sets: list[list[str]] | None = None
    persistence: str = "both"
    trials: int = 1
    report_dir: str = "reports"
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
    judge_model: str | None = None  # None: rubric checks are unscored
    plasticity_checkpoints: int | None = None  # overrides each plasticity family's C
    stream_scale: str = "sample"

    @property
    def arms(self) -> list[str]:
        return ARMS_OF.get(self.persistence, [self.persistence])


def resolve(config: pytest.Config) -> RunOptions:
    from .models import DEFAULT_MODEL

    def number(name: str, kind: type, default: Any, low: float, high: float | None = None) -> Any:
        value = raw_value(config, name)
        if value is None:
            return default
        try:
            parsed = kind(value)
        except ValueError:
            noun = {int: "an integer", float: "a number"}.get(kind, f"a {kind.__name__}")
            raise pytest.UsageError(f"--pastbench-{name}={value!r}: expected {noun}") from None
        if parsed < low or (high is not None and parsed > high):
            bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise pytest.UsageError(f"--pastbench-{name}={value}: must be {bounds}")
        return parsed

    persistence = raw_value(config, "persistence") or "both"
    if persistence not in PERSISTENCE_CHOICES:
        raise pytest.UsageError(
            f"--pastbench-persistence={persistence!r}: choose one of {', '.join(PERSISTENCE_CHOICES)}"
        )
    models = _dedupe(raw_value(config, "model") or [DEFAULT_MODEL])
    stream_scale = raw_value(config, "stream-scale") or "sample"
    if stream_scale not in STREAM_SCALES:
        raise pytest.UsageError(
            f"--pastbench-stream-scale={stream_scale!r}: choose one of {', '.join(STREAM_SCALES)}"
        )
    progress = raw_value(config, "progress") or "auto"
    if progress not in PROGRESS_MODES:
        raise pytest.UsageError(
            f"--pastbench-progress={progress!r}: choose one of {', '.join(PROGRESS_MODES)}"
        )
    cache = raw_value(config, "cache") or "off"
    if cache not in CACHE_MODES:
        raise pytest.UsageError(f"--pastbench-cache={cache!r}: choose one of {', '.join(CACHE_MODES)}")
    shard = None
    if raw_value(config, "shard") is not None:
        from .shard import ShardSpecError, parse_shard

        try:
            shard = parse_shard(raw_value(config, "shard"))
        except ShardSpecError as exc:
            raise pytest.UsageError(f"--pastbench-shard={exc}") from None
    aliases_file = raw_value(config, "model-aliases")
    if aliases_file is not None:
        aliases_path = Path(aliases_file)
        if not aliases_path.is_absolute() and not aliases_path.exists():
            aliases_path = config.rootpath / aliases_path  # an ini value is relative to the project
        aliases_file = str(aliases_path.resolve())
    from .models import use_alias_file

    try:
        use_alias_file(aliases_file)  # read once here; None resets to the built-in table
    except ValueError as exc:
        raise pytest.UsageError(f"--pastbench-model-aliases: {exc}") from None
    judge_model = raw_value(config, "judge-model")
    if judge_model is not None:
        from .llm_judge import check_judge_model

        try:
            check_judge_model(judge_model)  # after the alias file: an alias may name the judge
        except ValueError as exc:
            raise pytest.UsageError(f"--pastbench-judge-model={judge_model}: {exc}") from None
    cache_dir = raw_value(config, "cache-dir") or ".pastbench/cache"
    if cache != "off" and Path(cache_dir).exists() and not Path(cache_dir).is_dir():
        raise pytest.UsageError(f"--pastbench-cache-dir={cache_dir}: exists and is not a folder")
    agent_label = raw_value(config, "agent-label")
    if agent_label is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", agent_label):
        raise pytest.UsageError(
            f"--pastbench-agent-label={agent_label!r}: use a short name of letters, digits, '.', '_' "
            "or '-' (at most 64), e.g. --pastbench-agent-label=my-agent"
        )
    return RunOptions(
        models=models,
        agent=raw_value(config, "agent") or "hermes",
        agent_label=agent_label,
        agent_sandbox=not raw_value(config, "no-agent-sandbox"),
        mechanism_sets=_mechanism_sets(raw_value(config, "mechanisms"), raw_value(config, "ablation")),
        persistence=persistence,
        trials=number("trials", int, 1, 1),
        report_dir=raw_value(config, "report-dir") or "reports",
        run_id=raw_value(config, "run-id"),
        pass_threshold=number("pass-threshold", float, None, 0.0, 1.0),
        seed=number("seed", int, 0, 0),
        families=list(raw_value(config, "families") or []),
        max_tool_calls=number("max-tool-calls", int, 50, 1),
        session_timeout=number("session-timeout", float, 300.0, 1.0),
        shard=shard,
        cache=cache,
        save=raw_value(config, "save"),
        compare=raw_value(config, "compare"),
        compare_fail=list(raw_value(config, "compare-fail") or []),
        storage=raw_value(config, "storage") or ".pastbench/baselines",
        cache_dir=cache_dir,
        max_connections=number("max-connections", int, 16, 1),
        concurrency=_positive(
            config,
            "concurrency",
            int,
            DEFAULT_CONCURRENCY,
            "give a whole number of items in flight per process, 1 or more "
            f"(e.g. --pastbench-concurrency={DEFAULT_CONCURRENCY})",
        ),
        max_cost=_positive(config, "max-cost", float, None, "give a budget above 0 in USD, e.g. 5.00"),
        max_tokens=_positive(
            config, "max-tokens", int, None, "give a budget above 0 in tokens, e.g. 2000000"
        ),
        progress=progress,
        model_aliases=aliases_file,
        retries=number("retries", int, 4, 1),
        retry_delay=number("retry-delay", float, 1.0, 0.0),
        request_timeout=number("request-timeout", float, 120.0, 0.001),
        resume=raw_value(config, "resume"),
        docker_host=raw_value(config, "docker-host"),
        judge_model=judge_model,
        plasticity_checkpoints=number("plasticity-checkpoints", int, None, 1, 200),
        stream_scale=stream_scale,
    )


def _positive(config: pytest.Config, name: str, kind: type, default: Any, fix: str) -> Any:
    """An option that must be a number above 0 (``kind(text)``), or a UsageError with ``fix``."""
    value = raw_value(config, name)
    if value is None:
        return default
    try:
        parsed = kind(str(value))
    except ValueError:
        parsed = 0
    if parsed <= 0:
        raise pytest.UsageError(f"--pastbench-{name}={value}: {fix}")
    return parsed


def _mechanism_sets(values: list[str] | None, ablation: Any) -> list[list[str]] | None:
    """--pastbench-ablation's seven sets, then each --pastbench-mechanisms value; no repeats."""
    from .mechanisms import MechanismError, ablation_sets, parse_mechanisms

    sets = ablation_sets() if ablation else []
    for value in values or []:
        try:
            parsed = parse_mechanisms(value)
        except MechanismError as exc:
            raise pytest.UsageError(f"--pastbench-mechanisms={value}: {exc}") from None
        if parsed not in sets:
            sets.append(parsed)
    return sets or None


def _dedupe(values: list[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        for part in str(value).split(","):
            if part.strip() and part.strip() not in out:
                out.append(part.strip())
    return out
