"""The pytest run's object the plugin hands off to (pytest-benchmark style): runs items on any
process, aggregates on the controller only (pytest-xdist: workers send plain JSON in reports, the
controller writes). Its collaborators: ``RunModels`` (model service, gateway, clients, judge),
``run_aggregate`` (records by protocol to summary and files) and ``run_report`` (the end of the
run: files, JUnit, CI summary, baselines, terminal).

Every pytest start imports this module, so what the run drives (agents, protocols, the item pool,
results, the end of the run) is imported inside the method that needs it ("lazy"): a run that
measures nothing loads none of it (tests/test_lazy_start.py)."""

from __future__ import annotations

import shlex
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

from .options import RunOptions
from .run_models import RunModels


def _locked(method: Any) -> Any:
    """Items run on several threads (--pastbench-concurrency): the lazily built agents, clients
    and judge are built once, under the run's lock."""

    def locked(self: PastbenchRun, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return locked


class PastbenchRun:
    def __init__(self, config: pytest.Config, options: RunOptions) -> None:
        self.config = config
        self.options = options
        self.is_worker = hasattr(config, "workerinput")
        self.family_hashes: dict[str, str] = {}
        self.payloads: dict[str, dict[str, Any]] = {}
        self.run_dir: Path | None = None
        self.summary: dict[str, Any] | None = None
        self.records: dict[str, list[Any]] = {}  # protocol name -> its records, once finished
        self.regression: Any = None  # a RegressionCheck when baselines are used
        # The run's report.html once written at the end (finish.write_report), or why it was not.
        self.report_path: Path | None = None
        self.report_error: str | None = None
        self._agents: dict[str, Any] = {}
        self._agent_factories: dict[str, Any] | None = None
        self._lock = threading.RLock()
        self.models = RunModels(config, options, self._lock)
        self._pool: Any = None  # an ItemPool when --pastbench-concurrency > 1
        self.started = time.time()
        # A resumed run keeps the start of its first invocation (set from its run.json).
        self.run_started = _iso(self.started)
        # Crash safety: the controller fixes the run id now, not at finish, so every item can be
        # written to <report dir>/<run id>/items/ as it finishes. The folder itself is made only
        # with the first result, so a project that runs no benchmark item gets no reports/.
        self.run_id: str | None = None
        self._auto_run_id = False
        self._item_write_failed = False
        # --pastbench-resume: node ids whose payloads came from the run's items/ (controller), and
        # the finished node ids every process deselects at collection.
        self.resumed: set[str] = set()
        self.finished_nodeids: frozenset[str] = frozenset()
        # What this invocation set out to measure, and whether pytest stopped before the end
        # (Ctrl-C, -x): a run that did not finish is partial (no baseline, a resume line).
        self.expected: set[str] = set()
        self.interrupted = False
        # --pastbench-shard: shard.selection_hash of what was selected before sharding; it
        # travels with each payload because under xdist only the workers collect.
        self.selection: str | None = None
        if self.is_worker:
            from .resume import WORKERINPUT_KEY  # lazy: see the module docstring

            # From the controller, so every worker deselects the same items even while the
            # controller is already writing new item files.
            self.finished_nodeids = frozenset(config.workerinput.get(WORKERINPUT_KEY, ()))
        else:
            self.run_id = options.run_id or self._fresh_run_id()
            self._auto_run_id = options.run_id is None

    # -- on every process -----------------------------------------------------------------------

    def note_family(self, family_id: str, file_hash: str) -> None:
        self.family_hashes[family_id] = file_hash

    @_locked
    def agent_factories(self) -> dict[str, Any]:
        if self._agent_factories is None:
            factories: dict[str, Any] = {}

            def register(name: str, factory: Any) -> None:
                factories[name] = factory

            self.config.hook.pytest_pastbench_register_agents(register=register)
            self._agent_factories = factories
        return self._agent_factories

    @_locked
    def agent(self) -> Any:
        from ..agents.registry import make_agent  # lazy: see the module docstring

        if self.options.agent not in self._agents:
            try:
                agent = make_agent(
                    self.options.agent, self.agent_factories(), docker_host=self.options.docker_host
                )
            except ValueError as exc:
                raise pytest.UsageError(f"--pastbench-agent: {exc}") from None
            if self.options.agent_label is not None:
                agent.name = self.options.agent_label
            if hasattr(agent, "sandboxed"):
                agent.sandboxed = self.options.agent_sandbox
            if self.options.mechanism_sets is not None and not hasattr(agent, "with_mechanisms"):
                raise pytest.UsageError(
                    f"--pastbench-mechanisms/--pastbench-ablation: agent {self.options.agent!r} has no "
                    "switchable mechanisms; use --pastbench-agent=hermes (or drop the option)"
                )
            self._agents[self.options.agent] = agent
        return self._agents[self.options.agent]

    def agent_label(self) -> str:
        """The agent's name in tables, plots and reports: ``--pastbench-agent-label``, else the
        agent's own (an agent file's name; a short name for a ``subprocess:``/``docker:`` spec)."""
        return self.options.agent_label or self.agent().name

    @_locked
    def agent_for(self, mechanisms: list[str] | None) -> Any:
        """The agent of one config: the selected agent with ``mechanisms`` (None: its own)."""
        agent = self.agent()
        if mechanisms is None:
            return agent
        key = f"{self.options.agent}[{','.join(mechanisms)}]"
        if key not in self._agents:
            self._agents[key] = agent.with_mechanisms(mechanisms)
        return self._agents[key]

    @property
    def registry(self) -> Any:
        """The protocols this run knows (``pytest_pastbench_register_protocols``)."""
        from ..protocols.registry import registry_of  # lazy: see the module docstring

        return registry_of(self.config)

    def client(self, model: str, trial: int = 0) -> Any:
        return self.models.client(model, trial)

    def judge(self) -> Any:
        return self.models.judge()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        self.models.close()

    def config_label(self, model: str, mechanisms: list[str] | None = None) -> str:
        """``hermes[E1,E5]@glm-5.1``: agent, mechanism set and model of one config."""
        agent = self.agent_for(mechanisms)
        mechanisms = f"[{','.join(agent.mechanisms)}]" if agent.mechanisms else ""
        return f"{agent.name}{mechanisms}@{model}"

    def budgets(self) -> Any:
        """The per-session ``Budgets`` of this run's options (every protocol's sessions)."""
        from ..agents.base import Budgets  # lazy: see the module docstring

        return Budgets(tool_calls=self.options.max_tool_calls, wall_s=self.options.session_timeout)

    def measure(self, item: Any) -> None:
        """An item's setup: its ``measure_item``, with up to ``--pastbench-concurrency`` items of
        this process in flight at once (started ahead on threads; 1: right here)."""
        if self.options.concurrency == 1:
            item.measure_item()
            return
        from .concurrency import ItemPool, upcoming_items  # lazy: see the module docstring

        if self._pool is None:
            session = item.session

            def stopping() -> bool:
                return bool(session.shouldfail or session.shouldstop)

            self._pool = ItemPool(self.options.concurrency, stopping)
        self._pool.run(item, upcoming_items(item))

    def stamped(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Any item's payload with the shard selection it was measured under."""
        if self.selection is not None:
            payload["selection"] = self.selection
        return payload

    # -- controller only --------------------------------------------------------------------------

    def receive(self, nodeid: str, payload: dict[str, Any]) -> None:
        """An item finished: keep its payload and write it to ``items/`` at once (crash safety)."""
        from ..results.run_folder import write_item  # lazy: see the module docstring

        self.payloads[nodeid] = payload
        self.resumed.discard(nodeid)  # measured again in this invocation: the new result counts
        try:
            write_item(self.ensure_run_dir(), nodeid, payload)
        except OSError as exc:
            # The result is still in memory for the final files; losing the whole run over a
            # full disk would be worse than losing crash safety, but say so once.
            if not self._item_write_failed:
                self._item_write_failed = True
                message = f"pastbench: cannot write finished items ({exc}); a crash now loses them"
                warnings.warn(pytest.PytestWarning(message), stacklevel=1)

    def expect(self, nodeids: list[str]) -> None:
        """The benchmark items this invocation collected (after -k/-m, shards and resume)."""
        self.expected.update(nodeids)

    def partial(self) -> dict[str, Any] | None:
        """Why the run is incomplete and how much of it finished, or None when it is whole."""
        missing = self.expected - set(self.payloads)
        if not (self.interrupted or missing):
            return None
        total = len(self.expected | set(self.payloads))
        return {
            "reason": "interrupted" if self.interrupted else "items without a result",
            "finished": total - len(missing),
            "expected": total,
        }

    def resume_command(self) -> str:
        """The command that finishes this run: the same arguments, resuming this run id."""
        args = [a for a in self.config.invocation_params.args if not str(a).startswith("--pastbench-resume")]
        return shlex.join(["pytest", *map(str, args), f"--pastbench-resume={self.run_id}"])

    def ensure_run_dir(self) -> Path:
        """Make this run's folder and its ``run.json`` once, before the first item file."""
        if self.run_dir is not None:
            return self.run_dir
        # lazy: see the module docstring
        from ..results.run_folder import RUN_FILE, clear_run, write_json_atomic
        from .resume import run_file

        assert self.run_id is not None, "the run folder is the controller's"
        report_dir = Path(self.options.report_dir)
        if self._auto_run_id:
            while True:
                try:
                    # Claim the folder: another run may have taken this id since configure.
                    (report_dir / self.run_id).mkdir(parents=True, exist_ok=False)
                    break
                except FileExistsError:
                    self.run_id = self._fresh_run_id()
        else:
            (report_dir / self.run_id).mkdir(parents=True, exist_ok=True)
            # Reusing a run id replaces that run, from the start: a crash must not leave the old
            # run's summary beside the new items, nor old items for a later resume to pick up.
            clear_run(report_dir / self.run_id)
        run_dir = report_dir / self.run_id
        write_json_atomic(
            run_dir / RUN_FILE, run_file(self.options, self.run_id, self.run_started, self.registry)
        )
        self.run_dir = run_dir
        return run_dir

    def finish(self) -> None:
        """Aggregate and write the run's files (controller, once, after the last item)."""
        # --collect-only with --pastbench-resume holds resumed payloads but measured nothing.
        if self.is_worker or not self.payloads or getattr(self.config.option, "collectonly", False):
            return
        from .finish import write_run_files  # lazy: see the module docstring

        write_run_files(self)

    def _fresh_run_id(self) -> str:
        """Timestamp and seed; a suffix when two runs start in the same second."""
        base = default_run_id(self.started, self.options.seed)
        candidate, n = base, 1
        while (Path(self.options.report_dir) / candidate).exists():
            n += 1
            candidate = f"{base}-{n}"
        return candidate


def _iso(timestamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))


def default_run_id(started: float, seed: int) -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(started)) + f"-s{seed}"
