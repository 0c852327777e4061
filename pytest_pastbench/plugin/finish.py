"""The end of a pytest run on the controller: write the run folder, hand it to JUnit, the CI
step summary and the baselines, and render the terminal report. The plugin's hooks call these
with the run object; every protocol takes part through its registered object.

Imports inside functions load each step's code (the summary, JUnit, budget, judge and the renderers)
only when the run reaches that step: the renderers load at the end of a run that writes them
(tests/test_lazy_start.py).
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .run import PastbenchRun


def write_run_files(run: PastbenchRun) -> None:
    """Records by protocol, the summary and every file of the run folder; then the run hook."""
    from ..core.family_files import dataset_hash
    from ..results.aggregate import build_run_summary, records_by_protocol, write_run_folder
    from .resume import current_payloads

    run_dir = run.ensure_run_dir()  # first: it may still settle the run id
    payloads = current_payloads(run.payloads, run.resumed)
    hashes = {p["record"]["family"]: p["family_hash"] for p in payloads.values()}
    data_hash = dataset_hash(hashes)
    run.records, traces = records_by_protocol(run.registry, payloads, data_hash)
    block = run_block(run, payloads, hashes, data_hash)
    run.summary = build_run_summary(run.registry, run.records, block, run.options.seed)
    run.run_dir = write_run_folder(run.registry, run_dir, block, run.records, traces, run.summary)
    run.config.hook.pytest_pastbench_run_written(config=run.config, run_dir=run.run_dir, summary=run.summary)


def run_block(
    run: PastbenchRun, payloads: dict[str, dict[str, Any]], hashes: dict[str, str], data_hash: str
) -> dict[str, Any]:
    """The summary's ``run`` block: what was run, how, and what it cost."""
    from ..judge.llm import judge_info
    from ..version import plugin_version

    options = run.options
    ledger = run.models.ledger()
    block = {
        "id": run.run_id,
        "seed": options.seed,
        "dataset_hash": data_hash,
        "plugin_version": plugin_version(),
        "judge": judge_info(options.judge_model),
        "cache": options.cache,
        "model_calls": ledger,
        "models": options.models,
        "agent": run.agent_label(),
        "agent_spec": options.agent,  # as given, to rerun it; never a label
        "agent_sandbox": options.agent_sandbox,
        "persistence": options.persistence,
        "trials": options.trials,
        "pass_threshold": options.pass_threshold,
        "started": run.run_started,
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time())),
        "families": dict(sorted(hashes.items())),
    }
    if options.shard is not None:
        k, n = options.shard
        selections = sorted({str(p["selection"]) for p in payloads.values() if "selection" in p})
        # Two values would mean items of two selections in one run (a resume across a change).
        selection = selections[0] if len(selections) == 1 else None
        block["shard"] = {"k": k, "n": n, "selection": selection}
    partial = run.partial()
    if partial:
        block["partial"] = partial  # readers (baselines, gates, merge) see the run did not finish
    rate_limits = run.models.rate_limits()
    if rate_limits:
        block["rate_limits"] = rate_limits
    if options.max_cost is not None or options.max_tokens is not None:
        from ..models.budget import budget_block

        plain = [payloads[nodeid]["record"] for nodeid in sorted(payloads)]
        block["budget"] = budget_block(options.max_cost, options.max_tokens, ledger, plain)
    return block


def publish(run: PastbenchRun, session: pytest.Session) -> None:
    """After the files: JUnit run properties, the CI step summary, the baseline check and save."""
    if run.summary is None:
        return
    from ..results.render.ci_summary import append_step_summary
    from .junit import add_family_testcases, add_summary_properties

    add_summary_properties(session.config, run.summary, run.run_dir, run.registry)
    add_family_testcases(session.config, run.summary)
    if run.regression is not None:
        run.regression.run(run.summary, run.records, run.registry, run.options.seed)
        if run.regression.comparison is not None and run.run_dir is not None:
            from ..results.run_folder import add_to_comparison

            add_to_comparison(run.run_dir, "baseline", run.regression.comparison)
        if run.regression.failed:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    # After the gates, so the step summary carries their verdicts.
    gates = run.regression.results if run.regression is not None else None
    append_step_summary(run.summary, registry=run.registry, gates=gates)


def write_report(run: PastbenchRun) -> None:
    """The HTML report and the report figures, written into the run folder after its files (what
    ``pastbench plot RUN`` and ``pastbench html RUN`` write), unless --pastbench-no-report.

    The figures are drawn once, into ``plots/``, and the page embeds those: drawing is the cost
    (matplotlib, about 1 s of CPU for a PAST run), the page itself a tenth of that. A report that
    cannot be written costs the run nothing: it says why on the terminal, the run's files stand."""
    # Not after Ctrl-C: the person wants the prompt back (drawing is seconds of matplotlib on a
    # loaded machine); the resumed run writes the report of the whole run.
    if run.summary is None or run.run_dir is None or not run.options.report or run.interrupted:
        return
    from ..errors import PlotError
    from ..results.read import load_run
    from ..results.render.html import REPORT_FILE, write_html
    from ..results.render.plots import make_plots

    try:
        loaded = load_run(run.run_dir)
        with contextlib.suppress(PlotError):  # no protocol with figures: the page says "no figures"
            make_plots(loaded, run.run_dir / "plots", run.registry)
        run.report_path = write_html(loaded, run.run_dir / REPORT_FILE, run.registry, draw=False)
    except Exception as exc:  # noqa: BLE001 (any failure: the run and its files are already done)
        run.report_error = f"{type(exc).__name__}: {exc}"


PROGRESS_LEGEND = (
    "progress letters: o = on arm scored, c = control (off arm) scored, a = ablated arm scored, "
    "m = protocol item measured"
)


def render(run: PastbenchRun, terminal: Any) -> None:
    """The terminal report: each protocol's sections, then budget, warnings, files and baselines."""
    summary = run.summary
    assert summary is not None
    for protocol in run.registry:
        protocol.render(terminal, summary, run.records.get(protocol.name, []))
    budget = summary.get("run", {}).get("budget")
    if budget:
        from ..models.budget import budget_line

        terminal.write_line(budget_line(budget))
    rate_limits = summary.get("run", {}).get("rate_limits")
    if rate_limits:
        from ..models.rate_limit import rate_limit_line

        terminal.write_line(rate_limit_line(rate_limits), yellow=True)
    if not run.options.agent_sandbox:
        terminal.write_line(
            "pastbench: WARNING: --pastbench-no-agent-sandbox: subprocess agents ran UNSANDBOXED "
            "(host files and network reachable); do not compare this run with sandboxed ones",
            red=True,
            bold=True,
        )
    terminal.write_line("")
    if terminal.verbosity < 1:  # -v prints words (SCORED 0.82), not letters
        terminal.write_line(PROGRESS_LEGEND)
    terminal.write_line(f"run files: {run.run_dir}")
    regression = run.regression
    if regression is not None and regression.lines:
        compared = regression.baseline is not None
        terminal.section(f"pastbench: {'comparison with the baseline' if compared else 'baseline'}")
        for line in regression.lines:
            terminal.write_line(line)
        from .regression import add_gate_verdict

        add_gate_verdict(terminal, regression.results)
    if run.report_path is not None:
        # The last line of the section: the one file to open (figures included) after a run.
        terminal.write_line(f"report: {run.report_path}", bold=True)
    elif run.report_error is not None:
        terminal.write_line(
            f"pastbench: no report written ({run.report_error}); try: pastbench html {run.run_dir}",
            yellow=True,
        )
    partial = summary.get("run", {}).get("partial")
    if partial:
        # Last, where a person looks after Ctrl-C: what is missing and the one command to finish.
        terminal.write_line(
            f"pastbench: PARTIAL run ({partial['reason']}: {partial['finished']} of {partial['expected']} "
            f"items have a result); finish it with: {run.resume_command()}",
            yellow=True,
            bold=True,
        )
