"""γ judged: a fallback field with a rubric is graded through the judge seam — in process by the
offline ``pastbench/judge`` and by stub judges, and in runs by ``pastbench/judge`` and by a
scripted OpenAI-compatible judge server on 127.0.0.1 (litellm's path); the judge is recorded, a
judge_error leaves the field unscored, a judge outage blocks the item instead of scoring γ 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.errors import InfraError, JudgeError
from pytest_pastbench.judge import reference
from pytest_pastbench.judge.llm import LLMJudge
from pytest_pastbench.judge.llm import prompt_hash as recorded_prompt_hash
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.models.offline_models import claim_reader
from pytest_pastbench.protocols.intervention.collect import load_intervention_family
from pytest_pastbench.protocols.intervention.engine import ItemPlan, run
from pytest_pastbench.protocols.intervention.fallback import score_fallback
from pytest_pastbench.protocols.intervention.schema import Fallback, InterventionFamily
from pytest_pastbench.resources import families_dir
from tests.protocols.intervention.samples import TINY, InterventionPolicyClient
from tests.protocols.intervention.test_scoring import run as session
from tests.reliability.faultserver import Fault, FaultServer

RUBRIC = (
    "Proposes a concrete next step: redo the correlation with method pearson or spearman instead of kendall."
)
GOOD = (
    "I could not complete this with correlation: 'method' must be one of pearson, spearman.\n\n"
    "Next step: use one of pearson, spearman instead; say which."
)
BAD = "I could not complete this with correlation: 'method' must be one of pearson, spearman."


class ReferenceClient:
    """``pastbench/judge`` in process: the offline provider's answer without litellm."""

    model = "pastbench/judge"

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        return ModelReply(content=reference.reply(messages, claim_reader()), tool_calls=[])


class FailingJudge:
    name = "failing-judge"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def grade(self, rubric: str, answer: str) -> bool:
        raise self.error


@pytest.fixture
def tiny(tmp_path: Path) -> InterventionFamily:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return load_intervention_family(path)


def fallback(tiny: InterventionFamily) -> Fallback:
    return tiny.event("method").fallbacks[0]


def test_every_builtin_family_has_a_judge_graded_fallback_field() -> None:
    for path in sorted((families_dir() / "interventions").glob("*.yaml")):
        family = load_intervention_family(path)
        rubrics = [f.rubrics for e in family.events for f in e.fallbacks if f.rubrics]
        assert rubrics, f"{path.name}: no fallback field is judge-graded"


@pytest.mark.parametrize("rubrics", [{"next_steps": "a typo of next_step"}, {"next_step": ""}])
def test_a_rubric_must_name_a_gamma_field_and_say_something(rubrics: dict[str, str]) -> None:
    with pytest.raises(ValidationError, match="rubrics"):
        Fallback.model_validate({"id": "f", "user": "u", "rubrics": rubrics})


def test_the_offline_judge_grades_a_good_and_a_bad_fallback_apart(tiny: InterventionFamily) -> None:
    judge = LLMJudge(ReferenceClient())
    good = score_fallback(fallback(tiny), session(answer=GOOD), judge)
    bad = score_fallback(fallback(tiny), session(answer=BAD), judge)
    assert (good["next_step"], bad["next_step"]) == (True, False)
    graded = good["scorer"]["judged_fields"]["next_step"]
    assert graded["rubric"] == RUBRIC and graded["rubric_from"] == "family" and graded["graded_by"] == "judge"
    assert graded["score"] >= 0.5 > bad["scorer"]["judged_fields"]["next_step"]["score"]
    assert graded["detail"].startswith("judge pastbench/judge ")
    assert good["scorer"]["judge"] == "pastbench/judge"


def test_without_a_judge_the_fields_rules_decide_and_say_so(tiny: InterventionFamily) -> None:
    graded = score_fallback(fallback(tiny), session(answer=GOOD))
    assert graded["next_step"] is True  # the family's regular expression
    assert graded["scorer"]["judged_fields"]["next_step"]["graded_by"] == "rules (no judge)"


def test_a_judge_error_leaves_the_field_unscored_and_recorded(tiny: InterventionFamily) -> None:
    graded = score_fallback(fallback(tiny), session(answer=GOOD), FailingJudge(JudgeError("no JSON")))
    assert graded["next_step"] is None
    assert graded["scorer"]["judged_fields"]["next_step"]["judge_error"] == "no JSON"


def test_a_judge_outage_is_raised_not_scored(tiny: InterventionFamily) -> None:
    with pytest.raises(InfraError, match="judge down"):
        score_fallback(fallback(tiny), session(answer=GOOD), FailingJudge(InfraError("judge down")))


def item(tiny: InterventionFamily, model: str, tmp_path: Path, judge: Any = None) -> dict[str, Any]:
    plan = ItemPlan(tiny, tiny.event("method"), "light")
    record, _ = run(plan, HermesAgent(), InterventionPolicyClient(model), tmp_path / model, judge=judge)
    return record


def test_gamma_by_the_offline_judge_differs_between_a_good_and_a_bad_agent(
    tiny: InterventionFamily, tmp_path: Path
) -> None:
    judge = LLMJudge(ReferenceClient())
    curator, recall = item(tiny, "curator", tmp_path, judge), item(tiny, "recall", tmp_path, judge)
    assert (curator["gamma"]["gamma"], recall["gamma"]["gamma"]) == (1.0, 0.0)
    assert curator["gamma"]["judge"] == {"model": "pastbench/judge", "prompt_hash": recorded_prompt_hash()}
    assert curator["gamma"]["ci"] == [pytest.approx(0.2065, abs=1e-4), 1.0]  # Wilson, 1 of 1
    assert curator["gamma"]["judge_errors"] == 0


def test_a_judge_error_is_counted_and_left_out_of_gamma(tiny: InterventionFamily, tmp_path: Path) -> None:
    record = item(tiny, "curator", tmp_path, FailingJudge(JudgeError("no JSON")))
    assert record["gamma"]["gamma"] is None and record["gamma"]["unscored"] == 1
    assert record["gamma"]["judge_errors"] == 1


# -- in a run: pastbench/judge, a scripted litellm judge, an outage ---------------------------------


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    (pytester.path / "families" / "interventions").mkdir(parents=True)
    (pytester.path / "families" / "interventions" / "tiny.yaml").write_text(TINY)
    return pytester


def light_run(project: pytest.Pytester, run_id: str, *options: str) -> pytest.RunResult:
    return project.runpytest_subprocess("families", "-k", "light", f"--pastbench-run-id={run_id}", *options)


def outputs(project: pytest.Pytester, run_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    folder = project.path / "reports" / run_id
    records = json.loads((folder / "protocol_results.json").read_text())["protocols"]["intervention"]
    summary = json.loads((folder / "sequence_summary.json").read_text())
    return records, summary


def cell(section: dict[str, Any], label: str) -> dict[str, Any]:
    [config] = [c for c in section["configs"] if c["label"] == label]
    return config["matrix"]["intervention.tiny"]["method"]["profiles"]["light"]


def test_a_run_judged_offline_reports_gamma_with_its_ci_and_judge(project: pytest.Pytester) -> None:
    result = light_run(
        project,
        "offline",
        "--pastbench-judge-model=pastbench/judge",
        "--pastbench-model=pastbench/curator",
        "--pastbench-model=pastbench/recall",
    )
    assert result.ret == 0, result.stdout.str()
    prompt_hash = recorded_prompt_hash()
    records, summary = outputs(project, "offline")
    section = summary["protocols"]["intervention"]
    good, bad = cell(section, "hermes@pastbench/curator"), cell(section, "hermes@pastbench/recall")
    assert (good["gamma"]["gamma"], bad["gamma"]["gamma"]) == (1.0, 0.0)
    assert good["gamma"]["ci"][0] > 0 and bad["gamma"]["ci"][1] < 1
    assert section["judges"] == [f"pastbench/judge (prompt {prompt_hash})"]
    assert summary["run"]["judge"] == {"model": "pastbench/judge", "prompt_hash": prompt_hash}
    for record in records:
        [opportunity] = record["gamma"]["opportunities"]
        assert opportunity["scorer"]["judged_fields"]["next_step"]["graded_by"] == "judge"
        assert record["gamma"]["judge"]["model"] == "pastbench/judge"
    # (fnmatch reads [...] as a character class: the rows are matched as plain text)
    out = result.stdout.str()
    assert "1.00 [0.21, 1.00] (1/1)" in out and "0.00 [0.00, 0.79] (0/1)" in out
    assert f"parameters: tiny m=1 τ=0.5 · γ judge: pastbench/judge (prompt {prompt_hash})" in out


def alias_file(path: Path, server: FaultServer) -> str:
    path.write_text(f"aliases:\n  local-judge: {{model: openai/judge, api_base: '{server.api_base}'}}\n")
    return str(path)


def grade_next_step(body: dict[str, Any], index: int) -> Fault:
    """A scripted judge: the rubric is met when the answer block names a next step."""
    prompt = body["messages"][1]["content"]
    answer = prompt.split("<answer>", 1)[1]
    met = "next step" in answer.lower()
    return Fault("ok_text", text=json.dumps({"score": 1.0 if met else 0.0, "reason": f"next step: {met}"}))


def test_a_litellm_judge_on_a_local_server_grades_the_field(project: pytest.Pytester) -> None:
    with FaultServer(grade_next_step) as server:
        aliases = alias_file(project.path / "aliases.yaml", server)
        judge = ("--pastbench-judge-model=local-judge", f"--pastbench-model-aliases={aliases}")
        result = light_run(project, "litellm", *judge, "--pastbench-model=pastbench/curator")
    assert result.ret == 0, result.stdout.str()
    assert server.count == 1  # one fallback opportunity, one judged field
    assert RUBRIC in server.received[0].body["messages"][1]["content"]
    [record], summary = outputs(project, "litellm")
    graded = record["gamma"]["opportunities"][0]["scorer"]["judged_fields"]["next_step"]
    assert (graded["score"], graded["graded_by"]) == (1.0, "judge")
    assert record["gamma"]["judge"]["model"] == "local-judge" and record["gamma"]["gamma"] == 1.0
    judges = summary["protocols"]["intervention"]["judges"]
    assert judges == [f"local-judge (prompt {recorded_prompt_hash()})"]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_judge_outage_blocks_the_item_with_its_reason(project: pytest.Pytester) -> None:
    with FaultServer(then="500") as server:
        aliases = alias_file(project.path / "aliases.yaml", server)
        result = light_run(
            project,
            "down",
            "--pastbench-judge-model=local-judge",
            f"--pastbench-model-aliases={aliases}",
            "--pastbench-retries=2",
            "--pastbench-retry-delay=0",
        )
    result.stdout.fnmatch_lines(["*infra_blocked: judge local-judge: gave up after 2 attempts*"])
    [record], summary = outputs(project, "down")
    assert record["infra_blocked"] and "judge local-judge" in record["reason"]
    blocked = cell(summary["protocols"]["intervention"], "hermes@pastbench/recall")
    assert blocked == {"n": 0, "blocked": 1}  # no γ at all, in particular not 0
