"""pytest hook glue. Everything real happens in ``PastbenchRun`` and the modules it calls.

Imports inside functions keep it light: a project that uses none of this must not pay for litellm,
pydantic models or the dataset (the plugin is loaded into every pytest run once installed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..models.litellm_warnings import silence_read_only_typeddict_warnings
from ..models.offline_models import use_protocols
from ..protocols.detect import family_format
from . import stopping
from .collection import INVALID_FAMILY_NAME, parametrizes, rerun_control_arms, under_families
from .fixtures import (  # noqa: F401  (fixtures are registered by being in the plugin module)
    pastbench_agent,
    pastbench_model,
    pastbench_persistence,
    pastbench_profile,
    pastbench_store,
    pastbench_world,
)
from .options import add_options, any_option_given, resolve
from .preflight import builtin_protocols
from .run import PastbenchRun
from .run_handle import PAYLOAD_ATTR, RUN_KEY, pastbench_run


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    add_options(parser, pluginmanager)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from .. import hookspec
    from ..protocols import builtin
    from . import reports

    pluginmanager.add_hookspecs(hookspec)
    # The built-in protocols register through the hook like any plugin's (protocols/builtin.py).
    pluginmanager.register(builtin, "pastbench-builtin-protocols")
    pluginmanager.register(reports, "pastbench-reports")  # an item's payload on its reports
    # Here, at plugin registration, not at configure: a conftest's pytest_configure may use a
    # pastbench/ model (litellm's provider lists the offline models) before ours runs.
    use_protocols(builtin_protocols)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart() -> None:
    # Outside pytest's warning contexts (plugin loading and configure restore the filters when
    # they end), before every context that copies them: models/litellm_warnings.py.
    silence_read_only_typeddict_warnings()


@stopping.interrupt_kept
def pytest_configure(config: pytest.Config) -> None:
    options = resolve(config)
    run = config.stash[RUN_KEY] = PastbenchRun(config, options)
    hooks = _ControllerHooks(config)
    config.pluginmanager.register(hooks, _HOOKS_NAME)
    hooks.control_arms = rerun_control_arms(config)
    from .progress import register_progress

    register_progress(config, options.progress, lambda: pastbench_run(config).models.ledger(warn=False))
    if options.families:
        from .preflight import add_family_paths

        add_family_paths(config, options.families)
    if any_option_given(config) and not hasattr(config, "workerinput"):
        from .preflight import baseline_check, check_run_setup  # lazy: a conftest may replace them

        run.models.serve_from_process()  # a benchmark run: litellm imports there, beside the checks
        check_run_setup(config)
        run.regression = baseline_check(config)
    if options.resume is not None and not hasattr(config, "workerinput"):
        from .resume import start_resume  # after add_family_paths: it checks the files collected

        start_resume(config, run)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "pastbench_persistence" in metafunc.fixturenames:
        arms = pastbench_run(metafunc.config).options.arms
        metafunc.parametrize("pastbench_persistence", arms, ids=arms, indirect=True)
    if "pastbench_profile" in metafunc.fixturenames and not parametrizes(metafunc, "pastbench_profile"):
        from ..protocols.intervention.profiles import profile_names

        names = profile_names()
        metafunc.parametrize("pastbench_profile", names, ids=names, indirect=True)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    # A file that declares a format tag, or one under a --pastbench-families path (a published
    # dataset in its own layout that a protocol may claim); any other file costs one head read.
    if family_format(file_path) is None and not under_families(file_path, parent.config):
        return None
    from ..protocols.base import protocol_file

    return protocol_file(file_path, parent)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # trylast: shard what -k/-m left selected, so shards stay balanced for a filtered run.
    pastbench = config.stash.get(RUN_KEY, None)
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
    if not hasattr(config, "workerinput"):
        # The protocol items' flag, not isinstance: a run that collected none loads no protocol code.
        pastbench.expect([i.nodeid for i in items if getattr(i, "is_pastbench_item", False)])
        if pastbench.expected:  # -n 0 (xdist's controller collects nothing): the items' model service
            pastbench.models.serve_from_process()
    if not config.option.collectonly:
        # After sharding and resume, which keep the collection order, in every process that runs
        # items (-n 0 too): with K sessions in flight the run ends when its last long item does.
        from .collection import longest_first  # xdist hands items out in this order, the same in each

        items[:] = longest_first(items)


class _ControllerHooks:
    """Hooks that need this run's config; registered per config so in-process nested runs
    (pytester) never see each other's state."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.control_arms: set[Any] = set()  # added to --lf's failures; they did not fail
        self.failed: set[str] = set()
        # Started by a test (pytester in-process): its process goes on after this run.
        self.nested = stopping.open_run(config)

    def pytest_report_header(self) -> list[str]:
        lines = []
        if self.control_arms:
            lines.append(
                f"pastbench: the failed on items rerun with their episodes' {len(self.control_arms)} "
                "control items (Δ = S_on − S_off needs both arms)"
            )
        from .preflight import grading_line

        grading = grading_line(self.config)
        if grading:
            lines.append(grading)
        return lines

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        # Before pytest saves its last failures: a control item added only to be rerun alongside
        # is not a failure unless it failed itself.
        from ..compat.pytest import forget_failures

        if not hasattr(self.config, "workerinput"):
            forget_failures(self.config, [key for key in self.control_arms if str(key) not in self.failed])

    def pytest_keyboard_interrupt(self) -> None:
        pastbench = self.config.stash.get(RUN_KEY, None)
        if pastbench is not None:
            terminal = self.config.pluginmanager.get_plugin("terminalreporter")
            stopping.stop_the_run(pastbench, terminal, self.nested)

    @pytest.hookimpl(tryfirst=True)
    def pytest_unconfigure(self) -> None:
        pastbench = self.config.stash.get(RUN_KEY, None)
        if pastbench is not None:
            stopping.freeze_after_interrupt(pastbench.models.stopped.is_set(), self.nested)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed.add(report.nodeid)
        payload = getattr(report, PAYLOAD_ATTR, None)
        if payload and not hasattr(self.config, "workerinput"):
            pastbench_run(self.config).receive(report.nodeid, payload)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: tell each worker where the model gateway's address will be."""
    pastbench = node.config.stash.get(RUN_KEY, None)
    if pastbench is not None:
        node.workerinput["pastbench_gateway_file"] = pastbench.models.prepare_gateway()
        if any_option_given(node.config):
            pastbench.models.start_gateway()  # a benchmark run for sure: now, while workers start


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With K sessions in flight per worker, keep each worker's queue at least 2 × K deep."""
    pastbench = config.stash.get(RUN_KEY, None)
    if pastbench is None or pastbench.options.concurrency == 1 or config.getoption("dist") != "load":
        return None
    from .concurrency import keep_k_pending_scheduler

    return keep_k_pending_scheduler(config, log, pastbench.options.concurrency)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """The gateway serves before the first item runs; without a pastbench option it starts only
    here, when workers collected benchmark items (inert otherwise)."""
    pastbench = node.config.stash.get(RUN_KEY, None)
    benchmark = [i for i in ids if (".yaml::" in i or ".yml::" in i) and not i.endswith(INVALID_FAMILY_NAME)]
    if pastbench is not None and benchmark:
        pastbench.expect(benchmark)  # every worker collects the same items
        pastbench.models.ensure_gateway()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    pastbench = config.stash.get(RUN_KEY, None)
    hooks = config.pluginmanager.get_plugin(_HOOKS_NAME)
    nested = hooks.nested if hooks is not None else stopping.nested_run()
    if pastbench is not None:
        pastbench.close()
        stopping.end_of_process(nested, pastbench.models.stopped.is_set(), pastbench.run_dir)
    if hooks is not None:
        stopping.close_run(config)
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
        from ..core.trace import redact_report

        redact_report(report, item.secrets())  # terminal and JUnit text
    if getattr(item, "is_pastbench_item", False) and (
        call.when == "call" or (call.when == "setup" and report.failed)
    ):
        from .junit import rounded

        payload = pastbench_run(item.config).stamped(item.payload())
        setattr(report, PAYLOAD_ATTR, payload)
        properties = rounded(item.parent.protocol.junit_properties(payload["record"]))
        report.user_properties.extend(properties)
        # JUnit reads the teardown report, which copies item.user_properties when it is built.
        item.user_properties.extend(properties)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    pastbench = session.config.stash.get(RUN_KEY, None)
    if pastbench is None or pastbench.is_worker:
        return
    from .finish import publish, write_report

    pastbench.interrupted = exitstatus == pytest.ExitCode.INTERRUPTED or bool(session.shouldstop)
    pastbench.finish()
    publish(pastbench, session)
    write_report(pastbench)  # last: it reads the run folder as the files and the gates left it


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    pastbench = config.stash.get(RUN_KEY, None)
    if pastbench is None or pastbench.is_worker:
        return
    from .terminal import fixed_status_order

    fixed_status_order(terminalreporter)  # first: gate and resume parts are added after it
    if pastbench.summary is None:
        return
    from .finish import render

    render(pastbench, terminalreporter)


def pytest_pastbench_register_agents(register: Any) -> None:
    from ..agents.base import HermesAgent

    register("hermes", HermesAgent)
