"""The peer of ``benchmarks/scaling.py``: the same shape of work in inspect_ai, in its own venv.

Reads one JSON object on stdin: ``calls_per_item`` (one entry per item: the model calls its
session makes, one after the other), ``latency_s`` (what each call sleeps) and ``in_flight``
(samples and connections at once). Prints one JSON object: the wall inside ``eval()`` (the
import excluded, as for the other side's item span), the calls made, CPU seconds and peak RSS.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import tempfile
import time
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.solver import Generate, TaskState, solver

SPEC: dict[str, Any] = json.loads(sys.stdin.read())
CALLS = 0


class SleepingModel(ModelAPI):
    """A model that only waits: each call sleeps the benchmark's latency."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

    async def generate(self, input: Any, tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        global CALLS
        CALLS += 1
        await asyncio.sleep(SPEC["latency_s"])
        return ModelOutput.from_content(model=self.model_name, content="ok")

    def max_connections(self) -> int:
        return int(SPEC["in_flight"])


@modelapi(name="sleeping")
def sleeping() -> type[ModelAPI]:
    return SleepingModel


@solver
def session() -> Any:
    """A sample's session: its calls in a row, as the agent's turns are."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        for turn in range(state.metadata["calls"]):
            if turn:
                state.messages.append(ChatMessageUser(content="next"))
            state = await generate(state)
        return state

    return solve


def main() -> None:
    calls = SPEC["calls_per_item"]
    samples = [Sample(id=n, input="start", metadata={"calls": c}) for n, c in enumerate(calls)]
    task = Task(dataset=samples, solver=session())
    in_flight = int(SPEC["in_flight"])
    cpu, started = time.process_time(), time.perf_counter()
    eval(
        task,
        model="sleeping/latency",
        max_samples=in_flight,
        max_connections=in_flight,
        log_dir=tempfile.mkdtemp(prefix="pastbench-peer-"),
        display="none",
        log_level="error",
        fail_on_error=True,
    )
    wall = time.perf_counter() - started
    json.dump(
        {
            "wall_s": wall,
            "calls": CALLS,
            "cpu_s": time.process_time() - cpu,
            "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
