"""The Markdown Δ table for GitHub Actions' step summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.results.render.ci_summary import append_step_summary, render_markdown
from pytest_pastbench.results.render.table import FALLBACK_NOTE, render_delta_table
from tests.family_samples import GOOD_MEMORY, GOOD_UPDATE

ENTRY = {
    "s_on": 0.8,
    "s_off": 0.2,
    "delta": 0.6,
    "delta_ci": [0.5, 0.7],
    "delta_c": 0.5,
    "mech": 0.9,
    "sigma_violations": {"on": 1, "off": 0},
    "n_episodes": 4,
    "infra_blocked": 0,
}
SUMMARY = {
    "run": {"id": "r1"},
    "configs": [
        {
            "label": "hermes@pastbench/recall",
            "overall": ENTRY,
            "capabilities": {"memory": ENTRY},
            "families": {
                "memory.x": {**ENTRY, "capability": "memory"},
                "memory.a|b": {**ENTRY, "capability": "memory", "delta": None, "delta_ci": None},
            },
        }
    ],
}


def test_render_markdown_is_one_gfm_table_per_config() -> None:
    text = render_markdown(SUMMARY)
    lines = text.splitlines()
    assert lines[0] == "## pastbench: Δ = S_on − S_off (run `r1`)"
    assert "### hermes@pastbench/recall" in lines
    header = lines.index("| family | capability | n | S_on | S_off | Δ [95% CI] | Δ_c | Mech | σ✗ on/off |")
    assert lines[header + 1] == "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    rows = lines[header + 2 : header + 6]
    assert rows == [
        "| `memory.a\\|b` | memory | 4 | 0.80 | 0.20 | — | +0.50 | 0.90 | 1/0 |",
        "| `memory.x` | memory | 4 | 0.80 | 0.20 | +0.60 [+0.50, +0.70] | +0.50 | 0.90 | 1/0 |",
        "| **[memory]** | memory | 4 | 0.80 | 0.20 | +0.60 [+0.50, +0.70] | +0.50 | 0.90 | 1/0 |",
        "| **[overall]** | all | 4 | 0.80 | 0.20 | +0.60 [+0.50, +0.70] | +0.50 | 0.90 | 1/0 |",
    ]
    # Every row of a table has the same number of (unescaped) cell separators.
    assert {row.replace("\\|", "").count("|") for row in lines[header : header + 6]} == {10}


def test_markdown_shows_the_ablated_arm_and_the_bootstrap_unit() -> None:
    ablated = {**ENTRY, "s_ablated": 0.25, "delta_causal": 0.55, "delta_causal_ci": [0.4, 0.7]}
    ablated |= {"sigma_violations": {"on": 1, "off": 0, "ablated": 2}, "ci_unit": "group", "n_clusters": 3}
    config = {"label": "c", "overall": ablated, "capabilities": {}, "families": {}}
    lines = render_markdown({"run": {"id": "r"}, "configs": [config]}).splitlines()
    head = "| family | capability | n | S_on | S_off | Δ [95% CI] | Δ_c | S_abl | Δ_causal [95% CI] | Mech |"
    assert head + " σ✗ on/off/abl |" in lines
    row = "| **[overall]** | all | 4 | 0.80 | 0.20 | +0.60 [+0.50, +0.70] | +0.50 | 0.25 |"
    assert row + " +0.55 [+0.40, +0.70] | 0.90 | 1/0/2 |" in lines
    assert "95% CIs: paired bootstrap over 3 scenario groups." in lines


def test_append_step_summary_appends_and_never_truncates(tmp_path: Path) -> None:
    target = tmp_path / "step_summary.md"
    target.write_text("# earlier step\n")
    assert append_step_summary(SUMMARY, env={"GITHUB_STEP_SUMMARY": str(target)})
    assert append_step_summary(SUMMARY, env={"GITHUB_STEP_SUMMARY": str(target)})
    text = target.read_text()
    assert text.startswith("# earlier step\n")
    assert text.count("### hermes@pastbench/recall") == 2


def test_append_step_summary_is_a_no_op_outside_actions(tmp_path: Path) -> None:
    assert append_step_summary(SUMMARY, env={}) is False
    assert append_step_summary(SUMMARY, env={"GITHUB_STEP_SUMMARY": ""}) is False


def test_an_unwritable_step_summary_does_not_raise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not append_step_summary(SUMMARY, env={"GITHUB_STEP_SUMMARY": str(tmp_path / "no" / "dir.md")})
    assert "cannot append to GITHUB_STEP_SUMMARY" in capsys.readouterr().err


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_run_under_xdist_appends_one_table_to_the_step_summary(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, text in {"tiny_prefs": GOOD_MEMORY, "tiny_corrections": GOOD_UPDATE}.items():
        capability = "update" if "corrections" in name else "memory"
        path = pytester.path / "families" / capability / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    target = pytester.path / "step_summary.md"
    target.write_text("earlier output\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    result = pytester.runpytest_subprocess("families", "-n", "2", "--pastbench-run-id=ci")
    assert result.ret == 0, result.stdout.str()[-2000:]
    text = target.read_text()
    assert text.startswith("earlier output\n")
    # Written once, by the controller, not by each worker.
    assert text.count("## pastbench: Δ = S_on − S_off (run `ci`)") == 1
    assert "| `memory.tiny_prefs` | memory | 2 | 1.00 |" in text
    assert "| `update.tiny_corrections` | update | 1 |" in text
    assert "| **[overall]** | all | 3 |" in text


def test_no_step_summary_variable_no_file(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    path = pytester.path / "families" / "memory" / "tiny_prefs.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(GOOD_MEMORY)
    before = set(pytester.path.rglob("*.md"))
    assert (
        pytester.runpytest_subprocess("families", "--pastbench-persistence=on", "-p", "no:cacheprovider").ret
        == 0
    )
    assert set(pytester.path.rglob("*.md")) == before


def test_a_run_graded_by_rubric_fallbacks_is_marked() -> None:
    entry = {"s_on": 1.0, "s_off": 0.0, "delta": 1.0, "n_episodes": 1, "rubric_fallback": 2}
    summary = {
        "run": {"id": "r"},
        "configs": [{"label": "x", "families": {"f": {**entry, "capability": "memory"}}, "overall": entry}],
    }
    assert "`f` †" in render_markdown(summary) and FALLBACK_NOTE in render_markdown(summary)
    assert "f †" in render_delta_table(summary) and FALLBACK_NOTE in render_delta_table(summary)


def test_agent_errors_are_stated_under_the_tables() -> None:
    run = {"id": "r1", "agent_errors": {"sessions": 2, "first": ["exited with code 1 | 404"]}}
    lines = render_markdown({**SUMMARY, "run": run}).splitlines()
    assert "**2 sessions agent_error (first: exited with code 1 \\| 404)**" in lines
    assert not any("agent_error" in line for line in render_markdown(SUMMARY).splitlines())
