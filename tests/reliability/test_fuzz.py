"""Bad input gets a clear message and a defined outcome, never a crash (docs/design.md §9).

Family files: any mutation of a valid file either loads or raises ``FamilyFileError`` naming
the file. Agent output: any tool name and any argument payload becomes a logged ToolCall.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_pastbench.core.records import ToolCall
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.tools import result_text
from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.protocols.past.family_files import load_family
from pytest_pastbench.protocols.past.schema import Family, WorldSeed
from pytest_pastbench.protocols.past.toolbox import ALL_TOOLS, ToolBox
from pytest_pastbench.protocols.past.world import World
from tests.family_samples import GOOD_MEMORY

pytestmark = pytest.mark.reliability

FAMILY_NAME = "tiny_prefs.yaml"  # the id inside GOOD_MEMORY; a file must be named after it
GOOD = yaml.safe_load(GOOD_MEMORY)

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["learn", "eval_near", "contains", "pastbench/v1", "", "2026-03-02", "~", "null"])
)
YAML_VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=8) | st.integers(), children, max_size=3)
    ),
    max_leaves=8,
)


def paths_in(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path of a nested dict/list value (the places a mutation can hit)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += paths_in(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += paths_in(child, (*prefix, index))
    return found


def mutate(data: Any, path: tuple[Any, ...], how: str, new: Any, new_key: str) -> Any:
    """A copy of ``data`` with the node at ``path`` dropped, replaced or renamed."""
    data = copy.deepcopy(data)  # not a JSON round trip: mutations add non-string keys
    if not path:
        return new if how != "drop" else None
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if how == "drop":
        del parent[last]
    elif how == "replace":
        parent[last] = new
    elif isinstance(parent, dict):  # rename a key
        parent[new_key] = parent.pop(last)
    else:
        parent.insert(last, new)
    return data


@st.composite
def mutated_family(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["structure", "structure", "truncate", "splice"]))
    if kind == "truncate":
        return GOOD_MEMORY.encode()[: draw(st.integers(0, len(GOOD_MEMORY)))]
    if kind == "splice":
        at = draw(st.integers(0, len(GOOD_MEMORY)))
        junk = draw(st.sampled_from([":", "- ", "{", "]", "\t", "&a ", "*a", "!!binary ", "\x00", "\n  x"]))
        return (GOOD_MEMORY[:at] + junk + GOOD_MEMORY[at:]).encode("utf-8", "surrogatepass")
    data: Any = GOOD
    for _ in range(draw(st.integers(1, 3))):
        spots = paths_in(data)
        path = draw(st.sampled_from(spots))
        how = draw(st.sampled_from(["drop", "replace", "rename"]))
        data = mutate(data, path, how, draw(YAML_VALUES), draw(st.text(max_size=8)))
        if not isinstance(data, dict | list):
            break
    return yaml.safe_dump(data, allow_unicode=True).encode("utf-8", "surrogatepass")


def load_or_explain(raw: bytes) -> Family | None:
    with tempfile.TemporaryDirectory(prefix="pastbench-fuzz-") as tmp:
        path = Path(tmp) / FAMILY_NAME
        path.write_bytes(raw)
        try:
            family, _ = load_family(path)
        except FamilyFileError as exc:
            assert str(path) in str(exc), f"message does not name the file: {exc}"
            assert str(exc).strip() != f"{path}:"
            return None
        return family


def test_the_unmutated_family_loads() -> None:
    assert load_or_explain(GOOD_MEMORY.encode()) is not None


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=mutated_family())
@example(raw=GOOD_MEMORY.replace('version: "1"', "version: 2001-13-01").encode())  # yaml date -> ValueError
@example(raw=GOOD_MEMORY.replace('version: "1"', "version: 2026-02-30").encode())
@example(raw=GOOD_MEMORY.encode()[:-40])
@example(raw=b"\xff\xfe not utf-8")
@example(raw=b"")
@example(raw=b"- just\n- a list\n")
@example(raw=b"format: pastbench/v1\nid: tiny_prefs\n" + b"x: " + b"&a [" * 3 + b"]" * 3)
def test_mutated_family_files_load_or_name_the_file(raw: bytes) -> None:
    load_or_explain(raw)  # any other exception fails the test


@pytest.mark.parametrize("depth", [200, 100_000])
def test_deeply_nested_yaml_is_refused_not_a_crash(tmp_path: Path, depth: int) -> None:
    """libyaml's composer recurses in C: 100k nested brackets overflow the stack and kill the
    process (SIGSEGV), so this runs in a child process and must exit normally."""
    path = tmp_path / FAMILY_NAME
    path.write_text(GOOD_MEMORY + "title: " + "[" * depth + "]" * depth + "\n")
    code = textwrap.dedent(
        f"""
        from pathlib import Path
        from pytest_pastbench.core.family_files import FamilyFileError
        from pytest_pastbench.protocols.past.family_files import load_family
        try:
            load_family(Path({str(path)!r}))
            print("LOADED")
        except FamilyFileError as exc:
            print("REFUSED", exc)
        """
    )
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, (
        f"load_family crashed the process (exit {child.returncode}): {child.stderr[-500:]}"
    )
    assert child.stdout.startswith("REFUSED") and str(path) in child.stdout


BROKEN_FAMILIES = {
    "broken_truncated": GOOD_MEMORY.replace("id: tiny_prefs", "id: broken_truncated")[:-70],
    "broken_types": GOOD_MEMORY.replace("id: tiny_prefs", "id: broken_types").replace(
        "checks:", "checks: 7\n        unused:"
    ),
    "broken_date": GOOD_MEMORY.replace("id: tiny_prefs", "id: broken_date").replace(
        'version: "1"', "version: 2001-13-01"
    ),
    "broken_top": "format: pastbench/v1\n- a\n- b\n",
}


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_broken_families_beside_a_valid_one_do_not_stop_the_run(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "families" / "memory"
    folder.mkdir(parents=True)
    (folder / FAMILY_NAME).write_text(GOOD_MEMORY)
    for name, text in BROKEN_FAMILIES.items():
        (folder / f"{name}.yaml").write_text(text)
    result = pytester.runpytest_subprocess("families", "-n", "2", "--pastbench-run-id=fz")
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    outcomes = result.parseoutcomes()
    assert outcomes.get("scored") == 2 and outcomes.get("control") == 2, output
    for name in BROKEN_FAMILIES:
        # A clear message (``<file>: <what is wrong>``), not a traceback out of a library.
        assert f"{folder / name}.yaml: " in output, f"{name}: no clear message in\n{output}"
    assert "yaml/constructor.py" not in output
    assert (pytester.path / "reports" / "fz" / "sequence_summary.json").is_file()


# -- agent output -------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=16,
)
TOOL_NAMES = st.one_of(
    st.sampled_from(sorted(ALL_TOOLS)),
    st.text(max_size=40),
    JSON_VALUES,  # a model (or an adapter) may send a name that is not even a string
)


@st.composite
def argument_payloads(draw: st.DrawFn) -> Any:
    name = draw(st.sampled_from(sorted(ALL_TOOLS)))
    params = list(ALL_TOOLS[name].params) or ["x"]
    plausible = st.dictionaries(st.sampled_from([*params, "extra"]), JSON_VALUES, max_size=4)
    payload = draw(st.one_of(plausible, JSON_VALUES, st.text(max_size=80)))
    if draw(st.booleans()) and not isinstance(payload, str):
        payload = json.dumps(payload)
    if isinstance(payload, str) and draw(st.booleans()):
        payload = payload[: draw(st.integers(0, len(payload)))]  # truncated JSON
    return payload


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=TOOL_NAMES, payload=argument_payloads())
@example(name="memory_write", payload="[" * 100_000)  # json.loads: RecursionError
@example(name="memory_write", payload='{"text": "\\ud800"}')  # a lone surrogate
@example(name="memory_write", payload='{"text": "' + "9" * 5000 + '"}')
@example(name="memory_write", payload='{"text": 1' + "0" * 5000 + "}")  # int too large to parse
@example(name="notes_write", payload={"title": True, "body": []})
@example(name=["memory_write"], payload={})
@example(name="memory_write", payload=b"\xff")
def test_any_tool_call_is_a_logged_tool_call(name: Any, payload: Any) -> None:
    with tempfile.TemporaryDirectory(prefix="pastbench-fuzz-") as tmp:
        box = ToolBox(Store(Path(tmp)), World(WorldSeed()))
        call = box.call(name, payload)
        assert isinstance(call, ToolCall) and box.calls[-1] is call
        assert call.ok or (isinstance(call.error, str) and call.error.strip())
        # What the agent reads back and what the trace stores must serialise as UTF-8 JSON.
        json.loads(result_text(call))
        json.dumps(call.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
