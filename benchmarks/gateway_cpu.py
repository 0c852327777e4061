"""CPU per model call on the controller's path, on requests the agent really sends: the offline
policy alone, ``ModelService`` (cache key + litellm), the request key, and a worker's
``GatewayClient`` through the loopback gateway (both ends in this one process). Prints ms per call.

Then the gateway's own CPU against prompt size: the run's gateway in its own process
(``GatewayProcess``, as under xdist), sent conversations of about 2000, 4000 and 8000 prompt
tokens from 4 client threads; CPU is the gateway process's, read from /proc.

    python benchmarks/gateway_cpu.py [--families 6] [--sizes 2000,4000,8000] [--profile]
    python benchmarks/gateway_cpu.py --families 1 --sizes 500 --calls 8      # tiny
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import os
import pstats
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import children_of

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.models.cache import request_key
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.models.direct import PolicyModel
from pytest_pastbench.models.gateway import Gateway, GatewayClient, ModelService, ServiceSettings
from pytest_pastbench.models.gateway_process import GatewayProcess
from pytest_pastbench.models.offline_models import use_protocols
from pytest_pastbench.protocols.detect import is_past_family_file
from pytest_pastbench.protocols.past.engine import ItemSpec, run
from pytest_pastbench.protocols.past.family_files import load_family
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.resources import families_dir

MODEL = "pastbench/recall"
Request = tuple[list[dict[str, Any]], Any, dict[str, Any]]


class RecordingModel:
    """The offline policy, called directly, keeping a copy of every request."""

    def __init__(self) -> None:
        self.inner = PolicyModel("recall")
        self.model = self.inner.model
        self.requests: list[Request] = []

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        self.requests.append((copy.deepcopy(messages), tools, params))
        return self.inner.complete(messages, tools, **params)


def record_requests(family_count: int) -> list[Request]:
    recorder = RecordingModel()
    paths = sorted(p for p in families_dir().rglob("*.yaml") if is_past_family_file(p))[:family_count]
    for path in paths:
        family, file_hash = load_family(path)
        for episode in family.episodes[:2]:
            spec = ItemSpec(f"{family.id}::{episode.id}", family, episode, "on", 0, MODEL, "base", file_hash)
            run(spec, HermesAgent(), recorder, Path(tempfile.mkdtemp(prefix="pastbench-gwcpu-")))
    return recorder.requests


def per_call(name: str, requests: list[Request], call: Callable[[Request], Any]) -> None:
    cpu, wall = time.process_time(), time.perf_counter()
    for request in requests:
        call(request)
    cpu_ms = (time.process_time() - cpu) / len(requests) * 1000
    wall_ms = (time.perf_counter() - wall) / len(requests) * 1000
    print(f"{name:<34} {cpu_ms:7.2f} ms CPU/call {wall_ms:7.2f} ms wall/call")


def conversation(tokens: int) -> list[dict[str, Any]]:
    """A long-context agent's request: alternating turns until ~``tokens`` prompt tokens (the
    offline provider counts 4 characters a token)."""
    chunk = "The offsite in Ghent is for 46 people on 9 and 10 April; the budget is 4,200 euros. "
    messages = [{"role": "system", "content": "You are an assistant with a memory store."}]
    turn = 0
    while sum(len(m["content"]) for m in messages) < tokens * 4:
        messages.append({"role": "user", "content": f"{chunk * 8}(turn {turn})"})
        messages.append({"role": "assistant", "content": f"Noted. {chunk * 2}"})
        turn += 1
    return [*messages, {"role": "user", "content": "What is the budget?"}]


def process_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def gateway_cpu_by_size(sizes: list[int], calls: int, threads: int = 4) -> None:
    folder = Path(tempfile.mkdtemp(prefix="pastbench-gwcpu-"))
    gateway = GatewayProcess(ServiceSettings(max_connections=threads), folder / "gw" / "gateway.json")
    (folder / "gw").mkdir()
    before = set(children_of().get(os.getpid(), []))
    gateway.start().wait_ready()
    # The child the gateway started: read from the process tree, not from the object's internals.
    (pid,) = set(children_of().get(os.getpid(), [])) - before
    client = GatewayClient.from_file(gateway.address_file, MODEL)
    tools = record_requests(1)[0][1]
    client.complete(conversation(100), tools)  # litellm's import in the gateway, not per call
    print(f"\ngateway process CPU per call ({threads} client threads, {calls} calls per size)")
    prompt_tokens: list[int] = []

    def send(messages: list[dict[str, Any]], count: int) -> None:
        for _ in range(count):
            reply = client.complete(messages, tools)
        prompt_tokens.append(reply.prompt_tokens)

    tools_tokens = len(str(tools)) // 4  # the agent's tool list is part of every prompt
    for size in sizes:
        messages = conversation(max(size - tools_tokens, 0))
        prompt_tokens.clear()
        before, started = process_cpu_s(pid), time.perf_counter()
        workers = [threading.Thread(target=send, args=(messages, calls // threads)) for _ in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        wall = time.perf_counter() - started
        time.sleep(0.5)  # litellm's logging thread finishes its queue: its CPU is per call too
        cpu_ms = (process_cpu_s(pid) - before) / (calls // threads * threads) * 1000
        print(
            f"prompt {prompt_tokens[0]:5d} tokens  gateway {cpu_ms:6.2f} ms CPU/call  "
            f"{wall / calls * 1000:6.2f} ms wall/call"
        )
    gateway.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--families", type=int, default=6, help="first N PAST families, 2 episodes each")
    parser.add_argument("--profile", action="store_true", help="cProfile ModelService.complete too")
    parser.add_argument("--sizes", default="2000,4000,8000", help="prompt tokens of the gateway's rows")
    parser.add_argument("--calls", type=int, default=200, help="calls per prompt size")
    args = parser.parse_args()
    use_protocols(standalone_registry)  # an entry point: its offline models are the built-in protocols
    requests = record_requests(args.families)
    print(f"requests {len(requests)}")
    policy = PolicyModel("recall")
    service = ModelService()
    service.complete(MODEL, *requests[0][:2], {}, 0)  # litellm's one-time import, not per call
    gateway = Gateway(service).start()
    client = GatewayClient(gateway.url, gateway.token, MODEL)
    per_call("offline policy alone", requests, lambda r: policy.complete(r[0], r[1], **r[2]))
    per_call("request key (cache)", requests, lambda r: request_key(MODEL, r[0], r[1], r[2], 0))
    per_call("ModelService (key + litellm)", requests, lambda r: service.complete(MODEL, r[0], r[1], r[2], 0))
    per_call("GatewayClient -> gateway (both ends)", requests, lambda r: client.complete(r[0], r[1], **r[2]))
    gateway.stop()
    gateway_cpu_by_size([int(n) for n in args.sizes.split(",")], args.calls)
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for messages, tools, params in requests:
            service.complete(MODEL, messages, tools, params, 0)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
