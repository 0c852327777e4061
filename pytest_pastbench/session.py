"""The session object the plugin hands off to: runs items on any process, aggregates on the
controller only (pytest-xdist: workers send plain JSON in reports, the controller writes)."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

from .errors import InfraError
from .options import RunOptions

PAYLOAD_ATTR = "pastbench"


def _locked(method: Any) -> Any:
    """Items run on several threads (--pastbench-concurrency): the lazily built agents, clients
    and judge are built once, under the session's lock."""

    def locked(self: PastbenchSession, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return locked


class PastbenchSession:
    def __init__(self, config: pytest.Config, options: RunOptions) -> None:
        self.config = config
        self.options = options
        self.is_worker = hasattr(config, "workerinput")
        self.family_hashes: dict[str, str] = {}
        self.payloads: dict[str, dict[str, Any]] = {}
        self.run_dir: Path | None = None
        self.summary: dict[str, Any] | None = None
        self.records: list[Any] = []
        self.regression: Any = None  # a RegressionCheck when baselines are used
        self._agents: dict[str, Any] = {}
        self._clients: dict[tuple[str, int], Any] = {}
        self._judge: Any = None
        self._service: Any = None
        self._gateway: Any = None
        self._gateway_failed = False
        self.gateway_file: Path | None = None
        self._agent_factories: dict[str, Any] | None = None
        self._lock = threading.RLock()
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
        # --pastbench-shard: shard.selection_hash of what was selected before sharding; it
        # travels with each payload because under xdist only the workers collect.
        self.selection: str | None = None
        if self.is_worker:
            from .resume import WORKERINPUT_KEY

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
        from .agent_registry import make_agent

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
        agent's own (a profile's name; a short name for a ``subprocess:``/``docker:`` spec)."""
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

    def service_settings(self) -> Any:
        """The run's ``ServiceSettings`` (cache, limits, retries), for this process or the gateway's."""
        from .cache import CACHE_FILE
        from .gateway import ServiceSettings

        options = self.options
        return ServiceSettings(
            cache_mode=options.cache,
            cache_path=str(Path(options.cache_dir) / CACHE_FILE),
            max_connections=options.max_connections,
            seed=options.seed,
            retries=options.retries,
            retry_delay_s=options.retry_delay,
            request_timeout_s=options.request_timeout,
            model_aliases=options.model_aliases,
            max_cost_usd=options.max_cost,
            max_tokens=options.max_tokens,
        )

    @_locked
    def service(self) -> Any:
        """This process's ``ModelService`` (cache, limits, ledger); litellm loads on first call."""
        if self._service is None:
            self._service = self.service_settings().build_service()
        return self._service

    @_locked
    def client(self, model: str, trial: int = 0) -> Any:
        """A ``ModelClient``: the controller's gateway from an xdist worker, else in-process."""
        from .gateway import GatewayClient, ServiceClient

        if (model, trial) not in self._clients:
            gateway_file = getattr(self.config, "workerinput", {}).get("pastbench_gateway_file")
            if gateway_file:
                client = GatewayClient.from_file(Path(gateway_file), model, trial)
            else:
                client = ServiceClient(self.service(), model, trial)
            self._clients[(model, trial)] = client
        return self._clients[(model, trial)]

    @_locked
    def judge(self) -> Any:
        """The rubric judge (``--pastbench-judge-model``), on the same client as the agent; or None."""
        if self._judge is None and self.options.judge_model is not None:
            from .llm_judge import LLMJudge

            # Trial 0 for every trial: a verdict depends on the rubric and answer only, so the
            # cache shares it across trials.
            self._judge = LLMJudge(self.client(self.options.judge_model))
        return self._judge

    # -- the gateway (controller under xdist) ------------------------------------------------------

    def prepare_gateway(self) -> str:
        """Where the gateway's address and token will be written (handed to every worker)."""
        if self.gateway_file is None:
            self.gateway_file = Path(tempfile.mkdtemp(prefix="pastbench-gateway-")) / "gateway.json"
        return str(self.gateway_file)

    def start_gateway(self) -> None:
        """Start the gateway's process (once) without waiting for it: called as soon as a run is
        known to be a benchmark run, so its start and litellm's import overlap the workers'."""
        from .gateway_process import GatewayProcess

        if self._gateway is None and self.gateway_file is not None:
            self._gateway = GatewayProcess(self.service_settings(), self.gateway_file).start()

    def ensure_gateway(self) -> None:
        """The gateway serves before any item runs (the workers have collected benchmark items)."""
        if self._gateway_failed or self.gateway_file is None:
            return
        self.start_gateway()
        try:
            self._gateway.wait_ready()
        except InfraError as exc:
            # Once, not per worker: the workers read the reason where the address would be and
            # block their items with it (infra_blocked).
            self._gateway_failed = True
            self._gateway.write_failure(str(exc))
            self._gateway = None
            warnings.warn(pytest.PytestWarning(f"pastbench: {exc}"), stacklevel=1)

    def model_ledger(self, warn: bool = True) -> dict[str, Any]:
        """Calls, tokens and cost by model, from the gateway's process or this process's service
        (``warn=False``: a gateway that is gone gives {} without a warning, for the live line)."""
        return self._from_service("ledger", "ledger_json", warn)

    def rate_limits(self) -> dict[str, Any]:
        """The providers that answered 429 and how their limits moved (``rate_limit``)."""
        return self._from_service("rate_limits", "rate_limits_json", warn=True)

    def _from_service(self, remote: str, local: str, warn: bool) -> dict[str, Any]:
        if self._gateway is not None:
            try:
                return getattr(self._gateway, remote)()
            except InfraError as exc:
                if warn:
                    warnings.warn(pytest.PytestWarning(f"pastbench: no model {remote}: {exc}"), stacklevel=1)
                return {}
        return getattr(self._service, local)() if self._service is not None else {}

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._gateway is not None:
            self._gateway.stop()
            self._gateway = None
        if self.gateway_file is not None:
            shutil.rmtree(self.gateway_file.parent, ignore_errors=True)
        if self._service is not None and self._service.cache is not None:
            self._service.cache.close()

    def config_label(self, model: str, mechanisms: list[str] | None = None) -> str:
        """``hermes[E1,E5]@glm-5.1``: agent, mechanism set and model of one config."""
        agent = self.agent_for(mechanisms)
        mechanisms = f"[{','.join(agent.mechanisms)}]" if agent.mechanisms else ""
        return f"{agent.name}{mechanisms}@{model}"

    def _spec(self, item: Any) -> Any:
        from .runner import ItemSpec

        return ItemSpec(
            nodeid=item.nodeid,
            family=item.family,
            episode=item.episode,
            arm=item.arm,
            trial=item.trial,
            model=item.model,
            config_label=self.config_label(item.model, item.mechanisms),
            dataset_hash=item.file_hash,
        )

    def budgets(self) -> Any:
        """The per-session ``Budgets`` of this run's options (every protocol's sessions)."""
        from .agent import Budgets

        return Budgets(tool_calls=self.options.max_tool_calls, wall_s=self.options.session_timeout)

    def measure(self, item: Any) -> None:
        """An item's setup: its ``measure_item``, with up to ``--pastbench-concurrency`` items of
        this process in flight at once (started ahead on threads; 1: right here)."""
        if self.options.concurrency == 1:
            item.measure_item()
            return
        from .concurrency import ItemPool, upcoming_items

        if self._pool is None:
            session = item.session

            def stopping() -> bool:
                return bool(session.shouldfail or session.shouldstop)

            self._pool = ItemPool(self.options.concurrency, stopping)
        self._pool.run(item, upcoming_items(item))

    def run(self, item: Any) -> None:
        """Run one item (its ``measure_item``, on any thread); store the outcome on the item."""
        from .errors import InfraError, ItemInfraError
        from .runner import run_item

        budgets = self.budgets()
        store_root = Path(tempfile.mkdtemp(prefix="pastbench-store-"))
        try:
            item.outcome = run_item(
                self._spec(item),
                self.agent_for(item.mechanisms),
                self.client(item.model),
                store_root,
                budgets,
                judge=self.judge(),
            )
        except InfraError as exc:
            from .trace import episode_secret_values, redact_text

            # A provider error may quote the key it rejected: redact before it is reported.
            item.infra_error = redact_text(str(exc), episode_secret_values(item.episode))
            raise ItemInfraError(f"infra_blocked: {item.infra_error}") from None
        finally:
            shutil.rmtree(store_root, ignore_errors=True)

    def payload(self, item: Any) -> dict[str, Any]:
        """What travels from a worker to the controller: plain JSON only."""
        from .runner import blocked_record

        if item.outcome is not None:
            record, trace = item.outcome.record, item.outcome.trace
        else:
            reason = item.infra_error or "harness error (see the item's error report)"
            record, trace = blocked_record(self._spec(item), self.agent_for(item.mechanisms), reason), []
        from .trace import episode_secret_values, redact

        # Check details quote answers and reasons quote providers: the record is output too.
        payload = {"record": record.model_dump(mode="json"), "trace": trace, "family_hash": item.file_hash}
        return redact(payload, episode_secret_values(item.episode))

    def stamped(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Any item's payload (PAST or protocol) with the shard selection it was measured under."""
        if self.selection is not None:
            payload["selection"] = self.selection
        return payload

    # -- controller only --------------------------------------------------------------------------

    def receive(self, nodeid: str, payload: dict[str, Any]) -> None:
        """An item finished: keep its payload and write it to ``items/`` at once (crash safety)."""
        from .output import write_item

        self.payloads[nodeid] = payload
        self.resumed.discard(nodeid)  # measured again in this invocation: the new result counts
        try:
            write_item(self.ensure_run_dir(), nodeid, payload)
        except OSError as exc:
            # The result is still in memory for the final files; losing the whole session over a
            # full disk would be worse than losing crash safety, but say so once.
            if not self._item_write_failed:
                self._item_write_failed = True
                message = f"pastbench: cannot write finished items ({exc}); a crash now loses them"
                warnings.warn(pytest.PytestWarning(message), stacklevel=1)

    def ensure_run_dir(self) -> Path:
        """Make this run's folder and its ``run.json`` once, before the first item file."""
        if self.run_dir is not None:
            return self.run_dir
        from .output import RUN_FILE, clear_run, write_json_atomic
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
        write_json_atomic(run_dir / RUN_FILE, run_file(self.options, self.run_id, self.run_started))
        self.run_dir = run_dir
        return run_dir

    def finish(self) -> None:
        """Aggregate and write the run's files (controller, once, after the last item)."""
        # --collect-only with --pastbench-resume holds resumed payloads but measured nothing.
        if self.is_worker or not self.payloads or getattr(self.config.option, "collectonly", False):
            return
        from .output import write_run
        from .summary import build_comparison, build_summary

        run_dir = self.ensure_run_dir()  # first: it may still settle the run id
        records, traces, run, protocol_records = self._finalised_records()
        self.records = records
        self.summary = build_summary(records, run, self.options.seed)
        if protocol_records:
            from .protocols.summary import summarize_protocols

            self.summary["protocols"] = summarize_protocols(protocol_records, self.options.seed)
        comparison = build_comparison(self.summary, records)
        self.run_dir = write_run(
            run_dir.parent, run_dir.name, run, records, traces, self.summary, comparison, protocol_records
        )
        if protocol_records:
            from .protocols.summary import write_protocol_files

            write_protocol_files(self.summary["protocols"], self.run_dir)
        self.config.hook.pytest_pastbench_run_written(
            config=self.config, run_dir=self.run_dir, summary=self.summary
        )

    def _fresh_run_id(self) -> str:
        """Timestamp and seed; a suffix when two runs start in the same second."""
        base = default_run_id(self.started, self.options.seed)
        candidate, n = base, 1
        while (Path(self.options.report_dir) / candidate).exists():
            n += 1
            candidate = f"{base}-{n}"
        return candidate

    def _finalised_records(
        self,
    ) -> tuple[list[Any], dict[str, list[dict[str, Any]]], dict[str, Any], dict[str, list[dict[str, Any]]]]:
        """PAST records (validated), every item's trace, the run block, and the §8 protocols'
        plain records by protocol name."""
        from .item_record import ItemRecord
        from .llm_judge import judge_info
        from .loader import dataset_hash
        from .resume import current_payloads
        from .version import plugin_version

        payloads = current_payloads(self.payloads, self.resumed)
        ledger = self.model_ledger()
        hashes = {p["record"]["family"]: p["family_hash"] for p in payloads.values()}
        data_hash = dataset_hash(hashes)
        records = []
        traces: dict[str, list[dict[str, Any]]] = {}
        protocol_records: dict[str, list[dict[str, Any]]] = {}
        for nodeid in sorted(payloads):
            payload = payloads[nodeid]
            traces[nodeid] = payload["trace"]
            if "protocol" in payload:
                protocol_records.setdefault(payload["protocol"], []).append(
                    {**payload["record"], "dataset_hash": data_hash}
                )
                continue
            record = ItemRecord.model_validate({**payload["record"], "dataset_hash": data_hash})
            records.append(record)
        run = {
            "id": self.run_id,
            "seed": self.options.seed,
            "dataset_hash": data_hash,
            "plugin_version": plugin_version(),
            "judge": judge_info(self.options.judge_model),
            "cache": self.options.cache,
            "model_calls": ledger,
            "models": self.options.models,
            "agent": self.agent_label(),
            "agent_spec": self.options.agent,  # as given, to rerun it; never a label
            "agent_sandbox": self.options.agent_sandbox,
            "persistence": self.options.persistence,
            "trials": self.options.trials,
            "pass_threshold": self.options.pass_threshold,
            "started": self.run_started,
            "finished": _iso(time.time()),
            "families": dict(sorted(hashes.items())),
        }
        if self.options.shard is not None:
            k, n = self.options.shard
            selections = sorted({str(p["selection"]) for p in payloads.values() if "selection" in p})
            # Two values would mean items of two selections in one run (a resume across a change).
            selection = selections[0] if len(selections) == 1 else None
            run["shard"] = {"k": k, "n": n, "selection": selection}
        rate_limits = self.rate_limits()
        if rate_limits:
            run["rate_limits"] = rate_limits
        if self.options.max_cost is not None or self.options.max_tokens is not None:
            from .budget import budget_block

            plain = [payloads[nodeid]["record"] for nodeid in sorted(payloads)]
            run["budget"] = budget_block(self.options.max_cost, self.options.max_tokens, ledger, plain)
        return records, traces, run, protocol_records


def _iso(timestamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))


def default_run_id(started: float, seed: int) -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(started)) + f"-s{seed}"


SESSION_KEY: pytest.StashKey[PastbenchSession] = pytest.StashKey()


def pastbench_session(config: pytest.Config) -> PastbenchSession:
    return config.stash[SESSION_KEY]
