"""family_format: the ``format: pastbench/...`` tag a YAML file declares near its top, read
without parsing the YAML; anything else is not a family file."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.protocols.detect import (
    FORMAT_TAG,
    family_format,
    is_family_file,
    is_past_family_file,
)


def write(tmp_path: Path, text: str, name: str = "family.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("head", "tag"),
    [
        ("format: pastbench/v1\n", "pastbench/v1"),
        ("# a family\nid: x\nformat: 'pastbench/stream-1'  # the stream protocol\n", "pastbench/stream-1"),
        ('format: "pastbench/plasticity"\n', "pastbench/plasticity"),
        ("format:pastbench/v1\n", "pastbench/v1"),
    ],
)
def test_the_declared_tag_is_read_quoted_or_not_with_a_comment(tmp_path: Path, head: str, tag: str) -> None:
    assert family_format(write(tmp_path, head + "sessions: []\n")) == tag
    assert is_family_file(write(tmp_path, head))


@pytest.mark.parametrize(
    "text",
    [
        "id: plain yaml\n",
        "format: other/v1\n",  # not a pastbench tag
        "  format: pastbench/v1\n",  # nested under a key: not the file's own
        "notes:\n- format: pastbench/v1 is what we use\n",
        "format: pastbench/V1\n",  # tags are lower case
        "format: pastbench/v1 trailing\n",
    ],
)
def test_a_file_without_a_top_level_pastbench_tag_is_no_family(tmp_path: Path, text: str) -> None:
    assert family_format(write(tmp_path, text)) is None
    assert not is_family_file(write(tmp_path, text))


def test_only_yaml_files_near_their_top_and_readable_count(tmp_path: Path) -> None:
    assert family_format(write(tmp_path, "format: pastbench/v1\n", "family.yml")) == FORMAT_TAG
    assert family_format(write(tmp_path, "format: pastbench/v1\n", "family.json")) is None
    assert family_format(write(tmp_path, "x: " + "y" * 5000 + "\nformat: pastbench/v1\n")) is None
    assert family_format(tmp_path / "missing.yaml") is None  # unreadable: not a family
    (tmp_path / "folder.yaml").mkdir()
    assert family_format(tmp_path / "folder.yaml") is None


def test_a_past_family_is_the_one_with_pasts_tag(tmp_path: Path) -> None:
    assert is_past_family_file(write(tmp_path, f"format: {FORMAT_TAG}\n"))
    other = write(tmp_path, "format: pastbench/stream-1\n", "stream.yaml")
    assert is_family_file(other) and not is_past_family_file(other)
