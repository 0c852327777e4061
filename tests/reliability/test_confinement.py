"""The store is confined to its root (docs/design.md §9): no `..`, no absolute path, no symlink escape,
no FIFO or device read, no unbounded write; whatever the agent sends, ToolBox.call never raises."""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_pastbench.core.records import StoreEntry
from pytest_pastbench.core.store import (
    MAX_ENTRY_CHARS,
    MAX_SKILL_CHARS,
    MAX_SKILL_STEPS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    Store,
)
from pytest_pastbench.core.tools import STORE_TOOLS
from pytest_pastbench.errors import StoreError
from pytest_pastbench.protocols.past.schema import WorldSeed
from pytest_pastbench.protocols.past.toolbox import ToolBox
from pytest_pastbench.protocols.past.world import World

pytestmark = pytest.mark.reliability

ESCAPES = [
    "..",
    "../m0001",
    "../../outside",
    "../../../../../../tmp/pastbench-escape",
    "/etc/passwd",
    "/tmp/pastbench-escape",
    "memory/../../x",
    "a/b",
    "a\\b",
    "..\\..\\x",
    "m0001\x00.json",
    "\x00",
    "~/x",
    "m0001/..",
    "x" * 5000,
]


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """``parent/store`` is the root; ``parent/outside`` is what an escape would reach."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.json").write_text('{"untouched": true}')
    return tmp_path / "store", outside


def box_for(root: Path) -> ToolBox:
    return ToolBox(Store(root), World(WorldSeed()))


def tree(folder: Path, skip: Path | None = None) -> dict[str, tuple[str, int, int]]:
    """Every path under ``folder`` (links not followed) with its kind, size and mtime."""
    found: dict[str, tuple[str, int, int]] = {}
    for current, dirs, files in os.walk(folder, followlinks=False):
        for name in (*dirs, *files):
            path = Path(current) / name
            if skip is not None and (path == skip or path.is_relative_to(skip)):
                continue
            info = path.lstat()
            kind = "link" if path.is_symlink() else "dir" if path.is_dir() else "file"
            found[str(path.relative_to(folder))] = (kind, info.st_size, info.st_mtime_ns)
    return found


def store_files_are_plain(root: Path) -> None:
    """Inside the root only the two folders, holding only plain ``<name>.json`` entry files."""
    assert sorted(p.name for p in root.iterdir()) == ["memory", "skills"]
    for sub in ("memory", "skills"):
        for path in (root / sub).iterdir():
            assert path.is_file() and not path.is_symlink() and path.suffix == ".json", path


# -- agent-supplied ids and names -------------------------------------------------------------------


@pytest.mark.parametrize("bad", ESCAPES)
def test_escaping_ids_are_tool_errors(layout: tuple[Path, Path], bad: str) -> None:
    root, outside = layout
    box = box_for(root)
    before = tree(root.parent, skip=root)
    calls = [
        box.call("memory_read", {"id": bad}),
        box.call("memory_update", {"id": bad, "text": "overwritten"}),
        box.call("memory_delete", {"id": bad}),
        box.call("skill_read", {"name": bad}),
        box.call("skill_write", {"name": bad, "steps": ["step"]}),
    ]
    for call in calls:
        assert not call.ok and call.error, call
    assert all("id" in c.error or "name" in c.error for c in calls)
    assert tree(root.parent, skip=root) == before
    assert not Path("/tmp/pastbench-escape").exists()
    store_files_are_plain(root)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("../x", "must not contain '..'"),
        ("/etc/passwd", "must not contain"),
        ("a\\b", "must not contain"),
        ("m1\x00", "NUL"),
    ],
)
def test_store_errors_say_what_is_wrong(tmp_path: Path, bad: str, message: str) -> None:
    store = Store(tmp_path)
    for operation in (store.read, store.delete, lambda i: store.update_memory(i, "x")):
        with pytest.raises(StoreError, match=message):
            operation(bad)
    with pytest.raises(StoreError, match="skill name"):
        store.write_skill(bad, ["a"])
    with pytest.raises(StoreError, match="skill name"):
        store.read_skill(bad)


def test_a_refused_read_is_logged_as_failed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with pytest.raises(StoreError):
        store.read("../../etc/passwd")
    assert store.access_log[-1].op == "read" and store.access_log[-1].ok is False


# -- planted links, FIFOs and devices -----------------------------------------------------------------


def entry_json(entry_id: str, text: str, kind: str = "memory") -> str:
    return StoreEntry(id=entry_id, kind=kind, text=text).model_dump_json()


def test_a_planted_entry_link_is_neither_read_nor_written_through(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    target = outside / "m0001.json"
    target.write_text(entry_json("m0001", "outside secret"))
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "m0001.json").symlink_to(target)
    before = tree(outside)
    store = Store(root)
    assert store.entries() == []  # the link's target was never loaded
    assert any("symbolic link" in why for _, why in store.ignored_files)
    with pytest.raises(StoreError, match="symbolic link"):
        store.write_memory("would land outside")
    assert tree(outside) == before
    assert json.loads(target.read_text())["text"] == "outside secret"


def test_a_planted_folder_link_is_refused(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (outside / "skill_deploy.json").write_text(entry_json("skill:deploy", "deploy:\n1. x", kind="skill"))
    root.mkdir()
    (root / "skills").symlink_to(outside, target_is_directory=True)
    before = tree(outside)
    store = Store(root)
    assert store.entries() == []
    box = ToolBox(store, World(WorldSeed()))
    write = box.call("skill_write", {"name": "deploy", "steps": ["overwrite"]})
    assert not write.ok and "not a directory inside the store root" in write.error
    assert not box.call("skill_read", {"name": "deploy"}).ok
    store.clear()  # removes the link itself, never what it points to
    assert tree(outside) == before
    assert (root / "skills").is_dir() and not (root / "skills").is_symlink()


def test_a_link_planted_at_a_temp_name_is_not_followed(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (root / "memory").mkdir(parents=True)
    for name in ("m0001.tmp", ".m0001.tmp"):
        (root / "memory" / name).symlink_to(outside / "victim.json")
    before = tree(outside)
    entry = Store(root).write_memory("inside only")
    assert entry.id == "m0001"
    assert tree(outside) == before
    assert json.loads((root / "memory" / "m0001.json").read_text())["text"] == "inside only"


def test_links_to_devices_and_fifos_are_never_read(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    memory = root / "memory"
    memory.mkdir(parents=True)
    os.mkfifo(memory / "m0002.json")  # opening a FIFO for reading would block forever
    (memory / "m0003.json").symlink_to("/dev/zero")  # reading it would never end
    (memory / "m0004.json").write_text(entry_json("m0004", "a real entry"))
    opened: list[Store] = []
    loader = threading.Thread(target=lambda: opened.append(Store(root)), daemon=True)
    loader.start()
    loader.join(timeout=10)
    assert opened, "Store() blocked on a FIFO or a device"
    store = opened[0]
    assert [e.id for e in store.entries()] == ["m0004"]
    reasons = dict(store.ignored_files)
    assert "not a regular file" in reasons[str(memory / "m0002.json")]
    assert "symbolic link" in reasons[str(memory / "m0003.json")]
    assert store.write_memory("new").id == "m0005"  # ids continue after what was loaded
    assert not store.read("m0005").deleted
    with pytest.raises(StoreError, match="no memory entry"):
        store.update_memory("m0002", "never written to the FIFO")
    assert (memory / "m0002.json").is_fifo()


def test_an_entry_file_whose_id_points_elsewhere_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "m0001.json").write_text(entry_json("../../escape", "x"))
    store = Store(tmp_path)
    assert store.entries() == []
    assert "does not match its file" in store.ignored_files[0][1]


# -- size limits --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "limit"),
    [
        ("memory_write", {"text": "x" * (MAX_ENTRY_CHARS + 1)}, MAX_ENTRY_CHARS),
        ("memory_update", {"id": "m0001", "text": "x" * (MAX_ENTRY_CHARS + 1)}, MAX_ENTRY_CHARS),
        ("memory_write", {"text": "ok", "tags": [f"t{i}" for i in range(MAX_TAGS + 1)]}, MAX_TAGS),
        ("memory_write", {"text": "ok", "tags": ["t" * (MAX_TAG_CHARS + 1)]}, MAX_TAG_CHARS),
        (
            "skill_write",
            {"name": "big", "steps": ["s" * 1000] * (MAX_SKILL_CHARS // 1000 + 1)},
            MAX_SKILL_CHARS,
        ),
        ("skill_write", {"name": "long", "steps": ["s"] * (MAX_SKILL_STEPS + 1)}, MAX_SKILL_STEPS),
        ("skill_write", {"name": "t", "steps": ["s"], "tags": ["t"] * (MAX_TAGS + 1)}, MAX_TAGS),
    ],
)
def test_oversize_writes_are_refused_with_the_limit(
    tmp_path: Path, tool: str, arguments: dict[str, Any], limit: int
) -> None:
    box = box_for(tmp_path)
    assert box.call("memory_write", {"text": "seed"}).ok
    call = box.call(tool, arguments)
    assert not call.ok and str(limit) in call.error, call.error
    assert [e.text for e in box.store.entries()] == ["seed"]


# -- any input, never an exception, never a file outside ---------------------------------------------------

PATHISH = st.one_of(
    st.text(max_size=60),
    st.text(alphabet=st.sampled_from(list("./\\\x00~:-_ aZ0é€😀")), max_size=60),
    st.builds(
        lambda prefix, rest: prefix + rest,
        st.sampled_from(
            ["../", "../../", "/", "/tmp/", "..\\", "./", "~/", "\x00", "memory/", "skills/../../"]
        ),
        st.text(max_size=40),
    ),
    st.text(min_size=2000, max_size=6000),
    st.sampled_from(ESCAPES),
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


@contextmanager
def fresh_layout() -> Iterator[tuple[Path, Path]]:
    # A new folder per example: hypothesis reruns the body many times, tmp_path is per test.
    with tempfile.TemporaryDirectory(prefix="pastbench-confine-") as tmp:
        parent = Path(tmp)
        (parent / "outside").mkdir()
        (parent / "outside" / "victim.json").write_text("{}")
        yield parent / "store", parent


TOOLS_WITH_PATHS = {
    "memory_read": lambda s: {"id": s},
    "memory_update": lambda s: {"id": s, "text": "changed"},
    "memory_delete": lambda s: {"id": s},
    "skill_read": lambda s: {"name": s},
    "skill_write": lambda s: {"name": s, "steps": ["one", "two"], "tags": ["t"]},
}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(PATHISH, min_size=1, max_size=6))
def test_random_paths_stay_inside_the_root(names: list[str]) -> None:
    with fresh_layout() as (root, parent):
        box = box_for(root)
        assert box.call("memory_write", {"text": "a note"}).ok
        before = tree(parent, skip=root)
        absent = {n for n in names if _is_absolute_candidate(n) and not _lexists(n)}
        for name in names:
            for tool, arguments in TOOLS_WITH_PATHS.items():
                call = box.call(tool, arguments(name))  # must not raise, whatever the name
                if not call.ok:
                    assert isinstance(call.error, str) and call.error.strip(), (tool, name)
        assert tree(parent, skip=root) == before
        assert not [n for n in absent if _lexists(n)], "a file appeared at an absolute path"
        store_files_are_plain(root)
        for path in (root / "skills").iterdir():
            assert path.resolve().parent == (root / "skills").resolve()


@settings(max_examples=150, deadline=None)
@given(tool=st.sampled_from([t.name for t in STORE_TOOLS]), arguments=JSON_VALUES)
def test_store_tools_take_any_json_arguments(tool: str, arguments: Any) -> None:
    with fresh_layout() as (root, parent):
        box = box_for(root)
        before = tree(parent, skip=root)
        for raw in (arguments, json.dumps(arguments)):
            call = box.call(tool, raw)
            assert call.ok or (isinstance(call.error, str) and call.error.strip())
        assert tree(parent, skip=root) == before
        store_files_are_plain(root)


def _is_absolute_candidate(name: str) -> bool:
    return name.startswith("/") and "\x00" not in name and len(name) < 1000


def _lexists(name: str) -> bool:
    try:
        return os.path.lexists(name)
    except (ValueError, OSError):
        return False


@pytest.mark.parametrize("planted", ["dangling link", "file"])
def test_a_store_folder_replaced_by_something_else_still_opens(tmp_path: Path, planted: str) -> None:
    if planted == "dangling link":
        (tmp_path / "memory").symlink_to(tmp_path / "nowhere")
    else:
        (tmp_path / "memory").write_text("not a folder")
    store = Store(tmp_path)
    assert str(tmp_path / "memory") in dict(store.ignored_files)
    with pytest.raises(StoreError, match="not a directory inside the store root"):
        store.write_memory("x")
    assert not (tmp_path / "nowhere").exists()
    store.clear()
    assert store.write_memory("x").id == "m0001"
