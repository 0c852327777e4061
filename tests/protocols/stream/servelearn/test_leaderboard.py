"""Reading a leaderboard file in the authors' columns; its averages agree with ours."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.protocols.stream.servelearn.leaderboard import (
    leaderboard_name,
    missing_row,
    published_row,
    read_leaderboard,
    reference_row,
    setting_column,
)
from pytest_pastbench.protocols.stream.servelearn.scoring import SCENARIOS, averages

SETTINGS = [setting_column(s, c) for s in SCENARIOS for c in ("hidden", "fully_specified") if not (
    s.startswith("pitch") and c == "fully_specified")]  # fmt: skip


def leaderboard(path: Path, hidden: list[float], full: list[float]) -> Path:
    """A one-row file in the authors' columns; its averages written as they publish them (1 digit)."""
    values, fulls = iter(hidden), iter(full)
    cells = [str(next(fulls) if "_F_" in column else next(values)) for column in SETTINGS]
    averages_ = f"{sum(hidden) / len(hidden):.1f},{sum(full) / len(full):.1f}"
    header = ",".join(["model", "method", *SETTINGS, "avg_h", "avg_f", "api_cost_usd"])
    path.write_text(f'{header}\nModel A,RAG,{",".join(cells)},{averages_},"1,234"\n')
    return path


def test_setting_columns_follow_the_authors_names() -> None:
    assert setting_column("retail_l2", "hidden") == "retail_H_L2"
    assert setting_column("banking_l3", "fully_specified") == "banking_F_L3"
    assert len(SETTINGS) == 15  # nine Hidden, six Fully Specified


def test_a_row_reads_into_settings_and_its_averages_are_ours(tmp_path: Path) -> None:
    hidden = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 95.0]
    full = [100.0, 99.0, 98.0, 97.0, 96.0, 95.0]
    row = published_row(leaderboard(tmp_path / "board.csv", hidden, full), "model a", "rag")
    assert row.settings["retail_l1"] == {"hidden": 10.0, "fully_specified": 100.0}
    assert row.settings["pitch_l3"] == {"hidden": 95.0, "fully_specified": None}
    assert row.api_cost_usd == 1234.0
    ours = averages(row.settings)
    assert (round(ours.avg_h, 1), round(ours.avg_f, 1)) == (row.avg_h, row.avg_f)


def test_a_wrong_file_or_row_is_named(tmp_path: Path) -> None:
    board = leaderboard(tmp_path / "board.csv", [1.0] * 9, [1.0] * 6)
    with pytest.raises(KeyError, match="no row Model B/RAG .* rows: Model A/RAG"):
        published_row(board, "Model B", "RAG")
    (tmp_path / "other.csv").write_text("name,score\nx,1\n")
    with pytest.raises(ValueError, match="no column 'model'"):
        read_leaderboard(tmp_path / "other.csv")
    assert len(read_leaderboard(board)) == 1


def board_of(path: Path, models: list[str]) -> Path:
    header = ",".join(["model", "method", *SETTINGS, "avg_h", "avg_f", "api_cost_usd"])
    cells = ",".join(["50.0"] * len(SETTINGS))
    path.write_text(
        "\n".join([header, *(f"{m},{meth},{cells},50.0,50.0,1" for m in models for meth in ("Blind", "RAG"))])
    )
    return path


def test_a_litellm_model_string_finds_its_leaderboard_row_by_name_or_alias(tmp_path: Path) -> None:
    names = ["Kimi K3", "GLM-5.3", "GLM-5.3 Flash", "Opus 5", "GPT-5.6 Terra"]
    assert (
        leaderboard_name(["fireworks_ai/accounts/fireworks/models/glm-5p3-flash"], names) == "GLM-5.3 Flash"
    )
    assert leaderboard_name(["zai/glm-5.3"], names) == "GLM-5.3"  # not its Flash sibling
    assert leaderboard_name(["anthropic/claude-opus-5"], names) == "Opus 5"  # the alias table
    assert leaderboard_name(["openai/gpt-5.6-terra"], names) == "GPT-5.6 Terra"
    assert (
        leaderboard_name(["my-alias", "fireworks_ai/kimi-k3"], names) == "Kimi K3"
    )  # what an alias resolves to
    assert leaderboard_name(["openai/gpt-4o"], names) is None
    board = board_of(tmp_path / "board.csv", names)
    row = reference_row(board, ["openai/gpt-5.6-terra"], "rag")
    assert row is not None and (row.model, row.method) == ("GPT-5.6 Terra", "RAG")
    explicit = reference_row(board, ["openai/gpt-4o"], "blind", explicit="glm-5.3 flash")
    assert explicit is not None and explicit.model == "GLM-5.3 Flash"
    assert reference_row(board, ["openai/gpt-4o"], "blind") is None
    assert reference_row(board, ["openai/gpt-5.6-terra"], "oracle") is None  # no Oracle rows in this file
    line = missing_row(board, "openai/gpt-4o", "blind")
    assert line == (
        "published column: board.csv has no Blind row for model 'openai/gpt-4o'; its Blind rows: GLM-5.3, "
        "GLM-5.3 Flash, GPT-5.6 Terra, Kimi K3, Opus 5 (name one with --pastbench-stream-reference-model)"
    )


def test_the_alias_table_of_the_docs_is_what_the_matching_does() -> None:
    docs = (Path(__file__).parents[4] / "docs" / "protocols" / "streams.md").read_text()
    table = docs[docs.index("| litellm model string (examples) |") :].split("\n\n", 1)[0]
    rows = [line.split("|")[1:3] for line in table.splitlines()[2:]]
    assert len(rows) >= 5
    for strings, name in rows:
        for model in (s.strip(" `") for s in strings.split(",")):
            assert leaderboard_name([model], [name.strip()]) == name.strip(), model
