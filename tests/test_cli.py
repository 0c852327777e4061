import json
from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from tests.family_samples import BAD_STAGE, GOOD_MEMORY


def test_schema_is_json_schema_of_a_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "pytest-pastbench family file"
    assert {"format", "id", "capability", "version", "episodes"} <= set(schema["properties"])


def test_schema_to_a_file(tmp_path: Path) -> None:
    assert main(["schema", "-o", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text())["type"] == "object"


def test_validate_reports_each_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tiny_prefs.yaml").write_text(GOOD_MEMORY)
    (tmp_path / "broken.yaml").write_text(BAD_STAGE)
    assert main(["validate", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "ok   " in out and "memory.tiny_prefs, 2 episodes" in out
    assert "FAIL " in out and "episodes.1.sessions.1.stage" in out


def test_validate_a_file_whose_id_is_not_its_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "other.yaml").write_text(GOOD_MEMORY)
    assert main(["validate", str(tmp_path / "other.yaml")]) == 1
    assert "must equal the file name" in capsys.readouterr().out


def test_validate_missing_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "/no/such/place"]) == 2


def test_summarize_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = {"s_on": 0.8, "s_off": 0.2, "delta": 0.6, "delta_ci": [0.5, 0.7], "mech": 0.9, "n_episodes": 4}
    summary = {
        "configs": [
            {
                "label": "hermes@pastbench/recall",
                "overall": entry,
                "capabilities": {"memory": entry},
                "families": {"memory.x": {**entry, "capability": "memory"}},
            }
        ]
    }
    (tmp_path / "sequence_summary.json").write_text(json.dumps(summary))
    assert main(["summarize", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "memory.x" in out and "+0.60 [+0.50, +0.70]" in out


def test_summarize_a_non_run_says_so_in_one_prefixed_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fix = "pass a run folder (reports/<run id>) or its sequence_summary.json"
    assert main(["summarize", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"pastbench summarize: {tmp_path}: not a run folder (no sequence_summary.json); {fix}\n"
    )
    assert main(["summarize", str(tmp_path / "merged")]) == 2
    assert (
        capsys.readouterr().err
        == f"pastbench summarize: {tmp_path / 'merged'}: no such file or folder; {fix}\n"
    )
    (tmp_path / "notes.json").write_text('{"a": 1}')
    (tmp_path / "notes.txt").write_text("hello")
    for name in ("notes.json", "notes.txt"):
        assert main(["summarize", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert (
            err.startswith(f"pastbench summarize: {tmp_path / name}: not a run summary")
            and "Errno" not in err
        )


def test_help_describes_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from pytest_pastbench.cli import DESCRIPTION, build_parser

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "The benchmark itself runs under pytest" in " ".join(out.split()) and "``" not in out
    # Every subcommand is named in the description, so it cannot fall behind the commands again.
    [commands] = [a.choices for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert sorted(c for c in commands if c not in DESCRIPTION) == []


def test_version_prints_the_plugin_version(capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_pastbench.version import plugin_version

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"pastbench {plugin_version()}"
