"""pytest hook glue. Everything real happens in ``PastbenchSession`` and the modules it calls.

Import-light on purpose: a project that uses none of this must not pay for litellm, pydantic
models or the dataset (the plugin is loaded into every pytest run once installed).
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import pytest

from .detect import FORMAT_TAG, family_format
from .fixtures import (  # noqa: F401  (fixtures are registered by being in the plugin module)
    pastbench_agent,
    pastbench_model,
    pastbench_persistence,
    pastbench_profile,
    pastbench_store,
    pastbench_world,
)
from .options import add_options, any_option_given, resolve
from .session import PAYLOAD_ATTR, SESSION_KEY, PastbenchSession, pastbench_session

CAPABILITY_MARKERS = {
    "memory": "PAST capability: memory (preferences, constraints, history)",
    "procedural": "PAST capability: procedural reuse (SOPs, skills)",
    "gathering": "PAST capability: information gathering from the archive",
    "update": "PAST capability: update (corrections, migrations, expiry)",
    "intervention": "protocol: user-conditioned temporal interventions",
    "stream": "protocol: evolving-environment streams",
    "plasticity": "protocol: plasticity checkpoints",
}
ARM_MARKERS = {
    "on": "persistence on (learn, then eval)",
    "off": "persistence off (control arm)",
    "ablated": "persistence on with the key-fact entries removed before eval (causal check)",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspec

    pluginmanager.add_hookspecs(hookspec)


def pytest_configure(config: pytest.Config) -> None:
    for name, description in {**CAPABILITY_MARKERS, **ARM_MARKERS}.items():
        config.addinivalue_line("markers", f"{name}: {description}")

    options = resolve(config)
    config.stash[SESSION_KEY] = PastbenchSession(config, options)
    hooks = _ControllerHooks(config)
    config.pluginmanager.register(hooks, _HOOKS_NAME)
    hooks.control_arms = _rerun_control_arms(config)
    if options.families:
        _add_family_paths(config, options.families)
    if any_option_given(config) and not hasattr(config, "workerinput"):
        _check_run_setup(config)
        from .regression import RegressionCheck

        config.stash[SESSION_KEY].regression = RegressionCheck.from_options(
            options.storage, options.save, options.compare, options.compare_fail
        )
    if options.resume is not None and not hasattr(config, "workerinput"):
        # After _add_family_paths: the resume checks the family files this invocation collects.
        from .resume import start_resume

        start_resume(config, config.stash[SESSION_KEY])


def _add_family_paths(config: pytest.Config, families: list[str]) -> None:
    from .resources import families_dir

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


def _rerun_control_arms(config: pytest.Config) -> set[Any]:
    """--lf / --ff: add the control item of each failed on item to pytest's last failures, on
    every process (xdist workers collect), so the rerun measures Δ; returns what was added."""
    last_failed = config.pluginmanager.get_plugin("lfplugin")
    if last_failed is None or not last_failed.active or not last_failed.lastfailed:
        return set()
    from .collect import control_arm_ids

    known = last_failed.lastfailed
    key_type = type(next(iter(known)))  # pytest 9 keys are NodeId objects, pytest 8 strings
    parse = getattr(key_type, "parse", key_type)
    added = {parse(nodeid) for nodeid in control_arm_ids(map(str, known))} - set(known)
    known.update(dict.fromkeys(added, True))
    return added


def _check_run_setup(config: pytest.Config) -> None:
    """Fail once, before collection, on a bad agent, a model that can never answer, a replay
    cache that is not there or a missing API key (not once per item)."""
    from .cache import CACHE_FILE, replay_problem
    from .models import missing_keys, model_problem
    from .offline import reference_judge
    from .offline.policies import POLICIES

    session = pastbench_session(config)
    session.agent()
    options = session.options
    roles = [("model", model, sorted(POLICIES)) for model in options.models]
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
        from .budget import unpriced_models

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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "pastbench_persistence" in metafunc.fixturenames:
        arms = pastbench_session(metafunc.config).options.arms
        metafunc.parametrize("pastbench_persistence", arms, ids=arms, indirect=True)
    if "pastbench_profile" in metafunc.fixturenames and not _parametrized(metafunc, "pastbench_profile"):
        from .protocols.intervention.profiles import profile_names

        names = profile_names()
        metafunc.parametrize("pastbench_profile", names, ids=names, indirect=True)


def _parametrized(metafunc: pytest.Metafunc, argname: str) -> bool:
    """The test parametrizes ``argname`` itself (then the plugin leaves it alone)."""
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0] if marker.args else marker.kwargs.get("argnames", "")
        if argname in ([n.strip() for n in names.split(",")] if isinstance(names, str) else names):
            return True
    return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    tag = family_format(file_path)
    if tag is None:
        return None
    from .resources import packaged_nodeid

    nodeid = packaged_nodeid(file_path)  # None: pytest's own id (the path from the rootdir)
    if tag == FORMAT_TAG:
        from .collect import FamilyFile

        return FamilyFile.from_parent(parent, path=file_path, nodeid=nodeid)
    from .protocols.base import ProtocolFile

    return ProtocolFile.from_parent(parent, path=file_path, nodeid=nodeid)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # trylast: shard what -k/-m left selected, so shards stay balanced for a filtered run.
    pastbench = config.stash.get(SESSION_KEY, None)
    if pastbench is None:
        return
    if pastbench.options.shard is not None:
        from .shard import select_shard, selection_hash

        pastbench.selection = selection_hash(items)
        kept, deselected = select_shard(items, *pastbench.options.shard)
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = kept
    if pastbench.finished_nodeids:
        # --pastbench-resume: after sharding, so a shard's episodes never depend on what is done.
        from .resume import deselect_finished

        kept, finished = deselect_finished(items, pastbench.finished_nodeids)
        if finished:
            config.hook.pytest_deselected(items=finished)
            items[:] = kept
    if not config.option.collectonly:
        # After sharding and resume, which keep the collection order. In every process that runs
        # items (-n 0 too): with K sessions in flight the run ends when its last long item does.
        # xdist hands items out in this order; every worker computes the same one.
        from .collect import longest_first

        items[:] = longest_first(items)


class _ControllerHooks:
    """Hooks that need this run's config; registered per config so in-process nested runs
    (pytester) never see each other's state."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.control_arms: set[Any] = set()  # added to --lf's failures; they did not fail
        self.failed: set[str] = set()

    def pytest_report_header(self) -> str | None:
        if not self.control_arms:
            return None
        return (
            f"pastbench: the failed on items rerun with their episodes' {len(self.control_arms)} "
            "control items (Δ = S_on − S_off needs both arms)"
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        # Before pytest saves its last failures: a control item added only to be rerun alongside
        # is not a failure unless it failed itself.
        last_failed = self.config.pluginmanager.get_plugin("lfplugin")
        if last_failed is not None and not hasattr(self.config, "workerinput"):
            for key in self.control_arms:
                if str(key) not in self.failed:
                    last_failed.lastfailed.pop(key, None)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed.add(report.nodeid)
        payload = getattr(report, PAYLOAD_ATTR, None)
        if payload and not hasattr(self.config, "workerinput"):
            pastbench_session(self.config).receive(report.nodeid, payload)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: tell each worker where the model gateway's address will be."""
    pastbench = node.config.stash.get(SESSION_KEY, None)
    if pastbench is not None:
        node.workerinput["pastbench_gateway_file"] = pastbench.prepare_gateway()
        if any_option_given(node.config):
            # A benchmark run for sure: start the gateway now, while the workers start.
            pastbench.start_gateway()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With K sessions in flight per worker, keep each worker's queue at least 2 × K deep."""
    pastbench = config.stash.get(SESSION_KEY, None)
    if pastbench is None or pastbench.options.concurrency == 1 or config.getoption("dist") != "load":
        return None
    from .concurrency import keep_k_pending_scheduler

    return keep_k_pending_scheduler(config, log, pastbench.options.concurrency)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """The gateway serves before the first item runs; without a pastbench option it starts only
    here, when workers collected benchmark items (inert otherwise)."""
    pastbench = node.config.stash.get(SESSION_KEY, None)
    if pastbench is not None and any(".yaml::" in i or ".yml::" in i for i in ids):
        pastbench.ensure_gateway()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    pastbench = config.stash.get(SESSION_KEY, None)
    if pastbench is not None:
        pastbench.close()
        # pytest ends with five full garbage collections (to surface unraisable exceptions);
        # each walks every object still alive — loaded families, records, traces, modules —
        # which cost every xdist worker and the controller up to seconds at the end of a run
        # (measured 0.07-0.36 s a pass). Collect until nothing is freed, so finalizers still run
        # and report here, then freeze what is left: it lives until the process exits. Not in a
        # run nested in a test (pytester in-process), whose process goes on.
        if "PYTEST_CURRENT_TEST" not in os.environ:
            for _ in range(5):
                if not gc.collect():
                    break
            gc.freeze()
    hooks = config.pluginmanager.get_plugin(_HOOKS_NAME)
    if hooks is not None:
        config.pluginmanager.unregister(hooks)


_HOOKS_NAME = "pastbench-controller-hooks"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    one_line = getattr(item, "one_line_errors", ())
    if call.when == "setup" and call.excinfo is not None and isinstance(call.excinfo.value, one_line):
        # pytest formats a setup error as a traceback through its own and pluggy's internals; an
        # item that could not be measured (``infra_blocked: <reason>``) or a malformed family
        # file is one line, through the item's repr_failure.
        report.longrepr = item.repr_failure(call.excinfo)
    if getattr(item, "is_pastbench_item", False) and report.failed:
        from .trace import redact_report

        redact_report(report, item.secrets())  # terminal and JUnit text
    if getattr(item, "is_pastbench_item", False) and (
        call.when == "call" or (call.when == "setup" and report.failed)
    ):
        from .junit import item_properties

        payload = pastbench_session(item.config).stamped(item.payload())
        setattr(report, PAYLOAD_ATTR, payload)
        properties = item_properties(payload["record"])
        report.user_properties.extend(properties)
        # JUnit reads the teardown report, which copies item.user_properties when it is built.
        item.user_properties.extend(properties)
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:

    payload = getattr(report, PAYLOAD_ATTR, None)
    if not payload or report.when != "call" or not report.passed:
        return None
    record = payload["record"]
    if "protocol" in payload:
        headline = f"{payload['protocol'].upper()} {record.get('headline', '')}"
        return "measured", PROGRESS_LETTERS["measured"], (headline, {"green": True})
    score = record["score"]
    why = ""
    if record.get("losses") and config.get_verbosity() > 0:
        from .losses import describe_losses

        why = f" ({describe_losses(record['losses'], limit=2)})"  # -v: what the points went to
    if record["arm"] == "on":
        return "scored", PROGRESS_LETTERS["scored"], (f"SCORED {score:.2f}{why}", {"green": True})
    if record["arm"] == "ablated":
        return "ablated", PROGRESS_LETTERS["ablated"], (f"ABLATED {score:.2f}{why}", {"yellow": True})
    return "control", PROGRESS_LETTERS["control"], (f"CONTROL {score:.2f}{why}", {"cyan": True})


# Lowercase letters pytest and its common plugins do not use (S would read as pytest's "s"kipped).
PROGRESS_LETTERS = {"scored": "o", "control": "c", "ablated": "a", "measured": "m"}
PROGRESS_LEGEND = (
    "progress letters: o = on arm scored, c = control (off arm) scored, a = ablated arm scored, "
    "m = protocol item measured"
)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:

    pastbench = session.config.stash.get(SESSION_KEY, None)
    if pastbench is None or pastbench.is_worker:
        return
    pastbench.finish()
    if pastbench.summary is not None:
        from .ci_summary import append_step_summary
        from .junit import add_family_testcases, add_summary_properties

        add_summary_properties(session.config, pastbench.summary, pastbench.run_dir)
        add_family_testcases(session.config, pastbench.summary)
        append_step_summary(pastbench.summary)
        if pastbench.regression is not None:
            pastbench.regression.run(pastbench.summary, pastbench.records, pastbench.options.seed)
            if pastbench.regression.comparison is not None and pastbench.run_dir is not None:
                from .output import add_to_comparison

                add_to_comparison(pastbench.run_dir, "baseline", pastbench.regression.comparison)
            if pastbench.regression.failed:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:

    pastbench = config.stash.get(SESSION_KEY, None)
    if pastbench is None or pastbench.is_worker or pastbench.summary is None:
        return
    from .table import render_delta_table

    if pastbench.summary.get("configs"):
        from .judge import judge_lines

        # A file's progress line leaves a newline pending that the first line writes as a blank
        # line; under xdist no progress line names a file, so write that blank line here.
        pending_newline = getattr(terminalreporter, "currentfspath", None) is not None
        terminalreporter.section("pastbench: Δ = S_on − S_off per family")
        if not pending_newline:
            terminalreporter.write_line("")
        terminalreporter.write_line(render_delta_table(pastbench.summary))
        for line in judge_lines(pastbench.summary):
            terminalreporter.write_line(line)
        from .summary import agent_error_line

        errors = agent_error_line(pastbench.summary)
        if errors:
            terminalreporter.write_line(errors, red=True)
        if len(pastbench.summary["configs"]) > 1:
            from .compare import render_side_by_side

            terminalreporter.section("pastbench: configs side by side")
            terminalreporter.write_line(render_side_by_side([("", pastbench.summary)]))
    from .summary import ablation_rows

    ablation = ablation_rows(pastbench.summary, pastbench.records)
    if ablation:
        from .table import render_ablation_table

        terminalreporter.section("pastbench: mechanism ablation (per episode = its on and off items)")
        terminalreporter.write_line(render_ablation_table(ablation))
    if pastbench.summary.get("protocols"):
        from .protocols import load_protocol

        for name, section in sorted(pastbench.summary["protocols"].items()):
            terminalreporter.section(f"pastbench: {name}")
            terminalreporter.write_line(load_protocol(name).render(section))
    budget = pastbench.summary.get("run", {}).get("budget")
    if budget:
        from .budget import budget_line

        terminalreporter.write_line(budget_line(budget))
    if not pastbench.options.agent_sandbox:
        terminalreporter.write_line(
            "pastbench: WARNING: --pastbench-no-agent-sandbox: subprocess agents ran UNSANDBOXED "
            "(host files and network reachable); do not compare this run with sandboxed ones",
            red=True,
            bold=True,
        )
    terminalreporter.write_line("")
    if terminalreporter.verbosity < 1:  # -v prints words (SCORED 0.82), not letters
        terminalreporter.write_line(PROGRESS_LEGEND)
    terminalreporter.write_line(f"run files: {pastbench.run_dir}")
    regression = pastbench.regression
    if regression is not None and regression.lines:
        compared = regression.baseline is not None
        terminalreporter.section(f"pastbench: {'comparison with the baseline' if compared else 'baseline'}")
        for line in regression.lines:
            terminalreporter.write_line(line)
        from .regression import add_gate_verdict

        add_gate_verdict(terminalreporter, regression.results)


def pytest_pastbench_register_agents(register: Any) -> None:
    from .agent import HermesAgent

    register("hermes", HermesAgent)
