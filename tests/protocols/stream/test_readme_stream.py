"""The docs' stream family example is a valid stream family."""

from __future__ import annotations

from pathlib import Path

from pytest_pastbench.protocols.stream.generator import dataset_counts, generate
from pytest_pastbench.protocols.stream.schema import load_stream
from tests.docs_text import fenced_blocks


def test_the_stream_family_example_loads_and_generates(tmp_path: Path) -> None:
    [example] = [b for b in fenced_blocks("yaml") if "pastbench/stream-v1" in b]
    path = tmp_path / "my_stream.yaml"
    path.write_text(example)
    stream = load_stream(path)
    assert [r.id for r in stream.active(2)] == ["D1-T"]
    assert dataset_counts(generate(stream, "sample")) == {
        "windows": 3,
        "serving": 60,
        "test": 30,
        "tasks": 90,
    }
