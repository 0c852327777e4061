"""Reading family files: errors name the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.protocols.past.family_files import load_family


def test_a_yaml_error_names_the_file_not_a_byte_string(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("format: pastbench/v1\nid: broken\nepisodes: [\n  - id: ep01\n    sessions: {\n")
    with pytest.raises(FamilyFileError) as info:
        load_family(path)
    message = str(info.value)
    assert message.startswith(f"{path}: not valid YAML: ")
    assert f'in "{path}", line ' in message and "<byte string>" not in message
