"""``--pastbench-resume=RUN``: continue a run that was interrupted (a crash, SIGKILL, Ctrl-C).

While a run goes, the controller writes every finished item to ``<run>/items/`` as it finishes
(``PastbenchRun.receive``) and the run's options to ``<run>/run.json`` before the first one.
A resume reuses the run's id and folder; refuses (``pytest.UsageError``) when this invocation
would measure something else than the run did; deselects the finished items at collection (the
same list on every xdist worker: the controller hands it over) and feeds their payloads into the
run as if received, so the final files equal those of an uninterrupted run.

Import-light: loaded on xdist workers and at configure; pydantic and the loader load lazily.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import FamilyFileError
from ..protocols.detect import is_family_file
from ..results.run_folder import ITEMS_DIR, RUN_FILE, TMP_SUFFIX
from ..version import plugin_version
from .collection import under_families
from .options import resume_options

if TYPE_CHECKING:
    from ..protocols.registry import ProtocolRegistry
    from .options import RunOptions
    from .run import PastbenchRun

# workerinput key: the finished node ids, from the controller (not read from disk by each worker:
# the controller writes new item files while the workers collect, so they could disagree).
WORKERINPUT_KEY = "pastbench_resume_finished"
HOOKS_NAME = "pastbench-resume-hooks"
RUN_FILE_SCHEMA = 1

# What run.json records and a resume must match, with the option that sets it: each changes which
# items exist or what an item measures, so mixing them would make a summary of two experiments.
# Each protocol adds its own: its options marked ``resume`` (a stream's scale, ...) and its
# ``resume_fields`` (settings that are no option).
RESUME_FIELDS: dict[str, str] = {
    "models": "--pastbench-model",
    "agent": "--pastbench-agent",
    "mechanism_sets": "--pastbench-mechanisms / --pastbench-ablation",
    "persistence": "--pastbench-persistence",
    "trials": "--pastbench-trials",
    "seed": "--pastbench-seed",
    "max_tool_calls": "--pastbench-max-tool-calls",
    "session_timeout": "--pastbench-session-timeout",
    "shard": "--pastbench-shard",
    "judge": "--pastbench-judge-model or the judge prompt",
    "plugin_version": "the plugin version",
}


def resume_fields(registry: ProtocolRegistry) -> dict[str, str]:
    """Every field a resume must match: the shared ones and each registered protocol's."""
    fields = dict(RESUME_FIELDS)
    for protocol in registry:
        fields.update(getattr(protocol, "resume_fields", {}))
        fields.update(resume_options(getattr(protocol, "options", None)))
    return fields


def run_file(options: RunOptions, run_id: str, started: str, registry: ProtocolRegistry) -> dict[str, Any]:
    """The content of ``run.json``: written at the start of a run, checked by a resume.
    ``registry``: whose protocols' resume fields it records (the run's)."""
    from ..judge.llm import judge_info  # lazy: the judge module loads the model client

    document = {
        "schema_version": RUN_FILE_SCHEMA,
        "id": run_id,
        "started": started,
        "plugin_version": plugin_version(),
        "models": list(options.models),
        "agent": options.agent,
        "mechanism_sets": options.mechanism_sets,
        "persistence": options.persistence,
        "trials": options.trials,
        "seed": options.seed,
        "max_tool_calls": options.max_tool_calls,
        "session_timeout": options.session_timeout,
        "shard": list(options.shard) if options.shard is not None else None,
        "judge": judge_info(options.judge_model),  # model and prompt hash: verdicts must not mix
    }
    for protocol in registry:
        values = getattr(protocol, "resume_values", None)
        document.update(values(options) if values else {})
    return document


def resolve_run_dir(value: str, report_dir: str) -> Path:
    """A run folder, else a run id under the report dir; it must hold a ``run.json``."""
    candidates = list(dict.fromkeys([Path(value), Path(report_dir) / value]))
    for candidate in candidates:
        if (candidate / RUN_FILE).is_file():
            return candidate
    folder = next((c for c in candidates if c.is_dir()), None)
    if folder is not None:
        raise pytest.UsageError(
            f"--pastbench-resume={value}: {folder} has no {RUN_FILE}, so there is nothing to resume "
            "(no item of it finished, or it was written by a version without resumable runs); "
            "start a new run"
        )
    raise pytest.UsageError(
        f"--pastbench-resume={value}: no such run (looked for {' and '.join(map(str, candidates))}); "
        "pass a run folder or the id of a run under --pastbench-report-dir"
    )


def read_run_file(run_dir: Path, value: str) -> dict[str, Any]:
    path = run_dir / RUN_FILE
    try:
        recorded = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise pytest.UsageError(f"--pastbench-resume={value}: {path} is unreadable ({exc})") from None
    if not isinstance(recorded, dict):
        raise pytest.UsageError(f"--pastbench-resume={value}: {path} is not a run file")
    return recorded


def check_options(
    value: str, recorded: dict[str, Any], current: dict[str, Any], registry: ProtocolRegistry
) -> None:
    """Refuse when this invocation's options are not the run's (only what the run recorded)."""
    differences = [
        f"{option} (the run: {recorded[key]!r}, now: {current[key]!r})"
        for key, option in resume_fields(registry).items()
        if key in recorded and recorded[key] != current[key]
    ]
    if differences:
        raise pytest.UsageError(
            f"--pastbench-resume={value}: this invocation differs from the run in "
            f"{'; '.join(differences)}; resume with the run's options, or start a new run"
        )


def load_finished(run_dir: Path, registry: ProtocolRegistry) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The finished items' payloads by node id, and one line per unreadable item file.

    ``*.tmp`` files are writes a crash interrupted: never read. An unreadable file is an item
    that did not finish (it runs again). An infra_blocked item did not finish either: it reruns.
    """
    finished: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    folder = run_dir / ITEMS_DIR
    if not folder.is_dir():
        return finished, problems
    for path in sorted(folder.glob("*.json")):
        try:
            payload = json.loads(path.read_text())
            if not (
                isinstance(payload, dict)
                and isinstance(payload.get("trace"), list)
                and isinstance(payload.get("family_hash"), str)
            ):
                raise ValueError("not an item file (record, trace, family_hash)")
            # pydantic's ValidationError is a ValueError, as are JSON and UTF-8 decoding errors.
            nodeid, blocked = _finished_identity(payload, registry)
        except (OSError, ValueError, KeyError) as exc:
            reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            problems.append(f"{path}: {reason}")
            continue
        if not blocked:
            finished[nodeid] = payload
    return finished, problems


def _finished_identity(payload: dict[str, Any], registry: ProtocolRegistry) -> tuple[str, bool]:
    """(node id, infra_blocked) of an item file; raises ValueError when it is not one (KeyError:
    of no registered protocol)."""
    record = registry.of_payload(payload).load_record(payload.get("record"))
    if isinstance(record, dict):
        return record["nodeid"], bool(record.get("infra_blocked"))
    return record.nodeid, record.infra_blocked


def _family_files(config: pytest.Config) -> Iterator[Path]:
    """The files under the paths pytest will collect (its norecursedirs pruned), in walk order."""
    base = config.invocation_params.dir
    skip = config.getini("norecursedirs")
    for arg in config.args:
        path = base / arg.split("::", 1)[0]
        if path.is_file():
            yield path
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not any(fnmatch(d, pattern) for pattern in skip))
            for name in sorted(files):
                yield Path(root) / name


def collected_family_hashes(config: pytest.Config) -> dict[str, str]:
    """Family id -> file hash of the families this invocation collects (as the collector hashes
    them): the files collection hands to a protocol (``collection.protocol_file``)."""
    from ..protocols.registry import registry_of  # lazy: the registry loads every protocol object

    registry = registry_of(config)
    hashes: dict[str, str] = {}
    for path in _family_files(config):
        if not is_family_file(path) and not under_families(path, config):
            continue
        protocol = registry.owner(path)
        if protocol is None:
            continue
        try:
            family_id, file_hash = protocol.family_identity(path)
        except FamilyFileError:
            continue  # collection reports it; its items cannot be among the finished ones
        hashes[family_id] = file_hash
    return hashes


def check_families(value: str, finished: dict[str, dict[str, Any]], current: dict[str, str]) -> None:
    """Refuse when a family the run measured is gone or its file changed since."""
    recorded: dict[str, set[str]] = {}
    for payload in finished.values():
        recorded.setdefault(payload["record"]["family"], set()).add(payload["family_hash"])
    problems = []
    for family, hashes in sorted(recorded.items()):
        now = current.get(family)
        if now is None:
            problems.append(f"{family} is not collected now")
        elif hashes != {now}:
            before = ", ".join(h[:12] for h in sorted(hashes))
            problems.append(f"{family} changed (file hash {before} in the run, {now[:12]} now)")
    if problems:
        raise pytest.UsageError(
            f"--pastbench-resume={value}: the dataset differs from the run's: {'; '.join(problems)}; "
            "resume with the run's family files and paths, or start a new run"
        )


def _identity(payload: dict[str, Any]) -> tuple[Any, ...]:
    record = payload["record"]
    return (record["family"], record["episode"], record.get("arm"), record.get("trial", 0), record["model"])


def current_payloads(payloads: dict[str, dict[str, Any]], resumed: set[str]) -> dict[str, dict[str, Any]]:
    """The payloads a summary is built from: a resumed item measured again in this invocation
    under another node id (resumed from another directory) counts once, with the new result."""
    if not resumed:
        return payloads
    fresh = {_identity(p) for nodeid, p in payloads.items() if nodeid not in resumed}
    kept = {n: p for n, p in payloads.items() if n not in resumed or _identity(p) not in fresh}
    if len(kept) < len(payloads):
        warnings.warn(
            pytest.PytestWarning(
                f"pastbench: {len(payloads) - len(kept)} resumed items ran again under other node ids "
                "(resumed from another directory?); their new results replace the old ones"
            ),
            stacklevel=2,
        )
    return kept


class ResumeHooks:
    """Controller hooks of a resumed run (registered per config, like the plugin's own)."""

    def __init__(self, run: PastbenchRun, run_dir: Path, unreadable: int) -> None:
        self.run = run
        self.run_dir = run_dir
        self.unreadable = unreadable

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[WORKERINPUT_KEY] = sorted(self.run.finished_nodeids)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # Every item had finished (the crash came after the last one): nothing ran, but the run is
        # complete and its files are written now, which is a success, not "no tests collected".
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.run.summary is not None:
            session.exitstatus = pytest.ExitCode.OK

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.run.payloads and self.run.resumed == set(self.run.payloads):
            from .terminal import add_parts  # lazy: only when nothing was left to run

            text = f"nothing left to run in {self.run_dir}"
            terminalreporter.write_line(
                f"pastbench: {text}: all {len(self.run.payloads)} items had finished; "
                "its files were written again from them"
            )
            add_parts(terminalreporter, [(text, {"green": True})])

    def pytest_report_header(self) -> list[str]:
        line = (
            f"pastbench: resuming {self.run_dir}: {len(self.run.finished_nodeids)} finished items "
            "kept and deselected"
        )
        if self.unreadable:
            line += f", {self.unreadable} unreadable item files run again"
        return [line]


def start_resume(config: pytest.Config, run: PastbenchRun) -> None:
    """Controller, at configure: check the run, load its finished items, hand them to the run."""
    options = run.options
    value = str(options.resume)
    run_dir = resolve_run_dir(value, options.report_dir)
    if options.run_id is not None and options.run_id != run_dir.name:
        raise pytest.UsageError(
            f"--pastbench-resume={value} continues run {run_dir.name!r}, but --pastbench-run-id="
            f"{options.run_id}: drop one of them"
        )
    recorded = read_run_file(run_dir, value)
    current = run_file(options, run_dir.name, "", run.registry)
    check_options(value, recorded, current, run.registry)
    finished, problems = load_finished(run_dir, run.registry)
    check_families(value, finished, collected_family_hashes(config))
    for problem in problems:
        config.issue_config_time_warning(
            pytest.PytestWarning(f"pastbench: unreadable item file {problem}; that item runs again"),
            stacklevel=2,
        )
    # What a killed write left behind is garbage now (only this controller writes here).
    for leftover in (run_dir / ITEMS_DIR).glob(f"*{TMP_SUFFIX}"):
        leftover.unlink(missing_ok=True)

    run.run_id = run_dir.name
    run.run_dir = run_dir
    run.run_started = str(recorded.get("started") or run.run_started)
    run.payloads.update(finished)
    run.resumed = set(finished)
    run.finished_nodeids = frozenset(finished)
    config.pluginmanager.register(ResumeHooks(run, run_dir, len(problems)), HOOKS_NAME)


def deselect_finished(items: list[pytest.Item], finished: frozenset[str]) -> tuple[list[Any], list[Any]]:
    """Split ``items`` into (to run, finished): a pure function of the node ids, so every xdist
    worker (same collection, same list from the controller) agrees."""
    kept = [item for item in items if item.nodeid not in finished]
    done = [item for item in items if item.nodeid in finished]
    return kept, done
