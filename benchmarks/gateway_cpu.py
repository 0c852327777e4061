"""CPU per model call on the controller's path, on requests the agent really sends: the offline
policy alone, ``ModelService`` (cache key + litellm), the request key, and a worker's
``GatewayClient`` through the loopback gateway (both ends in this one process). Prints ms per call.

    python benchmarks/gateway_cpu.py [--families 6] [--profile]
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import pstats
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_pastbench.agent import HermesAgent
from pytest_pastbench.cache import request_key
from pytest_pastbench.detect import is_past_family_file
from pytest_pastbench.gateway import Gateway, GatewayClient, ModelService
from pytest_pastbench.loader import load_family
from pytest_pastbench.models import ModelReply
from pytest_pastbench.offline.direct import PolicyModel
from pytest_pastbench.resources import families_dir
from pytest_pastbench.runner import ItemSpec, run_item

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
            run_item(spec, HermesAgent(), recorder, Path(tempfile.mkdtemp(prefix="pastbench-gwcpu-")))
    return recorder.requests


def per_call(name: str, requests: list[Request], call: Callable[[Request], Any]) -> None:
    cpu, wall = time.process_time(), time.perf_counter()
    for request in requests:
        call(request)
    cpu_ms = (time.process_time() - cpu) / len(requests) * 1000
    wall_ms = (time.perf_counter() - wall) / len(requests) * 1000
    print(f"{name:<34} {cpu_ms:7.2f} ms CPU/call {wall_ms:7.2f} ms wall/call")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--families", type=int, default=6, help="first N PAST families, 2 episodes each")
    parser.add_argument("--profile", action="store_true", help="cProfile ModelService.complete too")
    args = parser.parse_args()
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
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for messages, tools, params in requests:
            service.complete(MODEL, messages, tools, params, 0)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
