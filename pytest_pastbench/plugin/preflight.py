"""A benchmark run's set-up at configure: its family paths, its gate metric names, and the checks
that fail once, before collection (not once per item).

Imports inside functions load a check's code (the model client, the judge, every protocol's code)
only when the run asks for that check: hooks.py imports this module in every pytest run
(tests/test_lazy_start.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .options import any_option_given
from .run_handle import pastbench_run


def builtin_protocols() -> Any:
    """What the offline models answer with in every process of a run: the built-in protocols,
    not a conftest's, which the gateway's own process never loads."""
    from ..protocols.standalone import standalone_registry  # every protocol's code: on first use

    return standalone_registry()


def check_run_setup(config: pytest.Config) -> None:
    """Fail once, before collection, on a bad agent, a model that can never answer, a replay
    cache that is not there or a missing API key (not once per item)."""
    from ..judge import reference as reference_judge
    from ..models.cache import CACHE_FILE, replay_problem
    from ..models.client import missing_keys, model_problem
    from ..models.offline_models import agent_policies
    from ..models.sleep_model import NAME as SLEEP_MODEL

    bench = pastbench_run(config)
    bench.agent()
    options = bench.options
    agent_models = sorted([*agent_policies(), SLEEP_MODEL])  # the registered protocols' policies
    roles = [("model", model, agent_models) for model in options.models]
    if options.judge_model:
        roles.append(("judge-model", options.judge_model, [reference_judge.NAME]))
    unusable = []
    for option, model, offline_names in roles:
        problem = model_problem(model, offline_names)
        if problem:
            unusable.append(f"--pastbench-{option}={problem}")
    if options.cache == "replay":
        problem = replay_problem(Path(options.cache_dir) / CACHE_FILE)
        if problem:
            unusable.append(f"--pastbench-cache=replay: {problem}")
    if unusable:
        raise pytest.UsageError("; ".join(unusable))
    if options.concurrency > options.max_connections:
        config.issue_config_time_warning(
            pytest.PytestWarning(
                f"pastbench: --pastbench-concurrency={options.concurrency} is more than "
                f"--pastbench-max-connections={options.max_connections}; "
                "the extra sessions wait for a connection"
            ),
            stacklevel=2,
        )
    if options.max_cost is not None:
        from ..models.budget import unpriced_models

        judge_models = [options.judge_model] if options.judge_model else []
        unpriced = unpriced_models([*options.models, *judge_models])
        if unpriced:
            raise pytest.UsageError(
                f"--pastbench-max-cost: no price known for {', '.join(unpriced)}; set "
                "input_cost_per_token/output_cost_per_token for it in the alias file "
                "(--pastbench-model-aliases) or budget tokens with --pastbench-max-tokens"
            )
    problems = []
    for model in options.models:
        missing = missing_keys(model)
        if missing:
            problems.append(f"{model} needs {' and '.join(missing)} set in the environment")
    if problems:
        problems[-1] += " (or run offline with --pastbench-model=pastbench/recall)"
    judge = options.judge_model
    missing = missing_keys(judge) if judge else []
    if missing:
        problems.append(
            f"judge model {judge} needs {' and '.join(missing)} set in the environment "
            "(or judge offline with --pastbench-judge-model=pastbench/judge)"
        )
    if problems:
        raise pytest.UsageError("; ".join(problems))


def baseline_check(config: pytest.Config) -> Any:
    """--pastbench-save, --pastbench-compare and --pastbench-compare-fail checked at start (a
    ``RegressionCheck``), or None when the run uses none of them."""
    options = pastbench_run(config).options
    if not (options.save or options.compare or options.compare_fail):
        return None  # only then: baselines and gates load the summary, comparison and gate code
    from .regression import RegressionCheck

    # The registry imports every protocol: only when a baseline is to be read.
    registry = pastbench_run(config).registry if options.compare else None
    return RegressionCheck.from_options(
        options.storage,
        options.save,
        options.compare,
        options.compare_fail,
        gate_metric_names(config),
        registry,
    )


def grading_line(config: pytest.Config) -> str | None:
    """The report header's line on what grades free text (``deterministic_grading_line``)."""
    options = pastbench_run(config).options
    if options.judge_model or not any_option_given(config):
        return None  # a judge grades, or the offline default model answers: the grader stays unloaded
    from ..models.client import is_offline

    if all(is_offline(m) for m in options.models):
        return None  # offline models (deterministic_grading_line's own first test, kept cheap here)
    from ..judge.grader_agreement import deterministic_grading_line
    from ..protocols.registry import PAST

    # The shipped labelled set is of the shipped (PAST) families: PAST's grader measures it.
    grader = pastbench_run(config).registry[PAST].answer_grader
    return deterministic_grading_line(options.models, options.judge_model, grader)


def gate_metric_names(config: pytest.Config) -> dict[str, Any]:
    """The registered protocols' gate names (protocol -> ``GateNames``), for parsing
    --pastbench-compare-fail and listing the valid ones when a gate names another."""
    if not pastbench_run(config).options.compare_fail:
        return {}  # the registry imports every protocol: only when gates need its names
    from ..results.gates import registry_metrics

    return registry_metrics(pastbench_run(config).registry)


def add_family_paths(config: pytest.Config, families: list[str]) -> None:
    from ..resources import families_dir

    paths = []
    for entry in families:
        path = families_dir() if entry == "builtin" else Path(entry)
        if not path.exists():
            raise pytest.UsageError(f"--pastbench-families={entry}: no such file or folder")
        paths.append(str(path.resolve()))
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        config.args.extend(p for p in paths if p not in config.args)
    else:
        # No paths on the command line: run just the benchmark, not the project's testpaths.
        config.args[:] = paths
