"""The LLM judge: strict JSON, bounded retries, judge_error, provider faults, prompt hash in results.

Model traffic goes to a local OpenAI-compatible fault server on 127.0.0.1 (or the offline
``pastbench/judge``); the number of requests it received is what the retry tests assert.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_pastbench.errors import InfraError, JudgeError
from pytest_pastbench.judge.llm import (
    CLAIM_PROMPT_FILE,
    JUDGE_ATTEMPTS,
    PROMPT_FILE,
    LLMJudge,
    check_judge_model,
    judge_info,
    load_prompt,
    parse_reply,
    prompt_hash,
)
from pytest_pastbench.models.cache import ResponseCache
from pytest_pastbench.models.client import RetryPolicy, use_alias_file
from pytest_pastbench.models.gateway import ModelService, ServiceClient
from tests.family_samples import GOOD_MEMORY
from tests.reliability.faultserver import Fault, FaultServer

ALIAS = "fault-judge"
RUBRIC = "Names the rollback plan"
ANSWER = "Roll back by redeploying v2.3.1."
GOOD = Fault("ok_text", text='{"score": 0.8, "reason": "names the redeploy"}')
MALFORMED = Fault("ok_text", text="Looks good to me!")
FAST = RetryPolicy(attempts=3, base_delay_s=0.0)


def judge_server(script: Any = (), **options: Any) -> FaultServer:
    """A fault server with a generous lifetime: a loaded machine may take a minute to import litellm."""
    return FaultServer(script, **options)


def alias_file(path: Path, server: FaultServer) -> Path:
    spec = {"model": "openai/judge", "api_base": server.api_base}
    path.write_text(yaml.safe_dump({"aliases": {ALIAS: spec}}))
    return path


@pytest.fixture
def judge_for(tmp_path: Path) -> Iterator[Any]:
    """An ``LLMJudge`` on the run's model service, pointed at a fault server through an alias."""

    def make(server: FaultServer, cache: ResponseCache | None = None) -> LLMJudge:
        use_alias_file(alias_file(tmp_path / "aliases.yaml", server))
        return LLMJudge(ServiceClient(ModelService(cache, retry=FAST), ALIAS))

    yield make
    use_alias_file(None)


# -- strict parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        '{"score": 1, "reason": "all there"}',
        '  {"score": 0.25, "reason": "x"}\n',
        '```json\n{"score": 0, "reason": "x"}\n```',
    ],
)
def test_a_json_object_is_accepted_bare_or_in_one_fence(content: str) -> None:
    reply = parse_reply(content)
    assert 0.0 <= reply.score <= 1.0 and reply.reason


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "empty reply"),
        ("PASS", "not a JSON object"),
        ('Sure! {"score": 1, "reason": "x"}', "not a JSON object"),
        ('{"score": 1, "reason": "x"} Hope that helps.', "not a JSON object"),
        ("[1, 2]", "not a JSON object"),
        ('{"score": "0.9", "reason": "x"}', "score: Input should be a valid number"),
        ('{"score": true, "reason": "x"}', "score: Input should be a valid number"),
        ('{"score": 1.5, "reason": "x"}', "score: Input should be less than or equal to 1"),
        ('{"score": NaN, "reason": "x"}', "score: Input should be less than or equal to 1"),
        ('{"score": 1}', "reason: Field required"),
        ('{"score": 1, "reason": ""}', "reason: String should have at least 1 character"),
        ('{"score": 1, "reason": "x", "pass": true}', "pass: Extra inputs are not permitted"),
    ],
)
def test_anything_else_is_a_judge_error_naming_the_problem(content: str | None, problem: str) -> None:
    with pytest.raises(JudgeError, match=problem):
        parse_reply(content)


# -- the prompt file ----------------------------------------------------------------------------------


def test_the_prompt_is_the_repo_file_and_its_hash_is_the_files() -> None:
    prompt = load_prompt()
    assert prompt.hash == hashlib.sha256(PROMPT_FILE.read_bytes()).hexdigest()[:12]
    system, user = prompt.messages("RUBRIC-TEXT $x {y}", "ANSWER-TEXT")
    assert system == {"role": "system", "content": prompt.system} and '"score"' in prompt.system
    assert user["content"] == "<rubric>\nRUBRIC-TEXT $x {y}\n</rubric>\n<answer>\nANSWER-TEXT\n</answer>"
    # The recorded hash covers the rubric and the claim prompt: an edit of either shows.
    assert judge_info("m") == {"model": "m", "prompt_hash": prompt_hash()}
    assert prompt_hash() != prompt.hash
    claim = load_prompt(CLAIM_PROMPT_FILE)
    assert claim.hash == hashlib.sha256(CLAIM_PROMPT_FILE.read_bytes()).hexdigest()[:12]
    # An edit of either prompt changes what is recorded.
    edited = dataclasses.replace(claim, hash="0" * 12)
    assert prompt_hash(prompt, edited) != prompt_hash() == prompt_hash(prompt, claim)
    assert prompt_hash(dataclasses.replace(prompt, hash="0" * 12), claim) != prompt_hash()
    assert judge_info(None) is None


# -- against a local OpenAI-compatible server ---------------------------------------------------------


def test_a_good_answer_is_one_request_at_temperature_0(judge_for: Any) -> None:
    with judge_server([GOOD]) as server:
        verdict = judge_for(server).grade(RUBRIC, ANSWER)
    assert (verdict.passed, verdict.score, verdict.reason) == (True, 0.8, "names the redeploy")
    assert server.count == 1
    body = server.received[0].body
    assert body["temperature"] == 0.0
    assert RUBRIC in body["messages"][1]["content"] and ANSWER in body["messages"][1]["content"]


def test_a_malformed_answer_is_asked_again_with_the_problem_named(judge_for: Any) -> None:
    low = Fault("ok_text", text='{"score": 0.2, "reason": "no plan"}')
    with judge_server([MALFORMED, low]) as server:
        verdict = judge_for(server).grade(RUBRIC, ANSWER)
    assert (verdict.passed, verdict.score, server.count) == (False, 0.2, 2)
    retry = server.received[1].body["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Looks good to me!"}
    assert "could not be used: not a JSON object" in retry[-1]["content"]


def test_malformed_answers_until_the_bound_are_a_judge_error(judge_for: Any) -> None:
    with judge_server(then=MALFORMED) as server:
        judge = judge_for(server)
        with pytest.raises(JudgeError) as raised:
            judge.grade(RUBRIC, ANSWER)
    assert server.count == JUDGE_ATTEMPTS == 3
    assert str(raised.value).startswith(f"{ALIAS}: no valid verdict in 3 replies; last: not a JSON object")


def test_http_500_is_retried_by_the_provider_loop_then_scored(judge_for: Any) -> None:
    with judge_server(["500", GOOD]) as server:
        verdict = judge_for(server).grade(RUBRIC, ANSWER)
    assert verdict.score == 0.8 and server.faults() == ["500", "ok_text"]


def test_http_500_until_retries_run_out_is_an_infra_error_naming_the_judge(judge_for: Any) -> None:
    with judge_server(then="500") as server:
        judge = judge_for(server)
        with pytest.raises(
            InfraError, match=rf"^judge {ALIAS}: gave up after 3 attempts: InternalServerError"
        ):
            judge.grade(RUBRIC, ANSWER)
    assert server.count == FAST.attempts  # the provider's retries only: no judge retry on top


def test_the_response_cache_applies_to_the_judge(judge_for: Any, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite", "rw")
    with judge_server([GOOD]) as server:
        judge = judge_for(server, cache)
        first, second = judge.grade(RUBRIC, ANSWER), judge.grade(RUBRIC, ANSWER)
    cache.close()
    assert first == second and server.count == 1


@pytest.mark.parametrize("model", ["pastbench/recall", "pastbench/curator?latency_ms=5"])
def test_an_offline_agent_policy_cannot_judge(model: str) -> None:
    with pytest.raises(ValueError, match="offline agent policy, not a judge; use pastbench/judge"):
        check_judge_model(model)
    check_judge_model("pastbench/judge")
    check_judge_model("openai/gpt-4o")


# -- in a benchmark run (pytester subprocesses) --------------------------------------------------------

MIRA_RUBRIC = "Names @mira.k as the person who receives the Brightwater reports"
# GOOD_MEMORY's first episode (learn, then eval_near), its eval session also graded by rubric.
RUBRIC_FAMILY = (
    GOOD_MEMORY.split("  - id: ep02")[0]
    .replace("id: tiny_prefs", "id: judged")
    .replace("        checks:\n", f'        checks:\n          - {{type: rubric, rubric: "{MIRA_RUBRIC}"}}\n')
)


def judged_run(pytester: pytest.Pytester, run_id: str, *options: str) -> pytest.RunResult:
    path = pytester.path / "families" / "memory" / "judged.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(RUBRIC_FAMILY)
    return pytester.runpytest_subprocess("families", f"--pastbench-run-id={run_id}", *options)


def judged_by(server: FaultServer, pytester: pytest.Pytester, run_id: str, *options: str) -> pytest.RunResult:
    """The on arm only (one rubric grading), judged by the fault server through an alias file."""
    aliases = alias_file(pytester.path / "aliases.yaml", server)
    judge = (f"--pastbench-judge-model={ALIAS}", f"--pastbench-model-aliases={aliases}")
    return judged_run(pytester, run_id, *judge, "--pastbench-persistence=on", *options)


def run_files(pytester: pytest.Pytester, run_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    folder = pytester.path / "reports" / run_id
    records = json.loads((folder / "sequence_results.json").read_text())["records"]
    return records, json.loads((folder / "sequence_summary.json").read_text())


def rubric_checks(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for s in record["sessions"] for c in s["checks"] if c["type"] == "rubric"]


def test_the_offline_judge_scores_rubrics_and_the_prompt_hash_is_in_every_result(
    pytester: pytest.Pytester,
) -> None:
    # -n 2: the workers reach the judge through the controller's gateway, like the agent model.
    result = judged_run(pytester, "judged", "--pastbench-judge-model=pastbench/judge", "-n", "2")
    assert result.ret == 0, result.stdout.str()
    recorded = prompt_hash()
    result.stdout.fnmatch_lines([f"judge: pastbench/judge (prompt {recorded})"])
    records, summary = run_files(pytester, "judged")
    assert len(records) == 2
    for record in records:
        assert (record["judge"], record["judge_prompt_hash"], record["judge_errors"]) == (
            "pastbench/judge",
            recorded,
            0,
        )
        [check] = rubric_checks(record)
        assert isinstance(check["score"], float) and check["passed"] is (check["score"] >= 0.5)
        assert check["detail"].startswith("judge pastbench/judge ")
        # The contains check went to the judge too, its deterministic verdict beside the judge's.
        [text] = [c for s in record["sessions"] for c in s["checks"] if c["type"] == "contains"]
        assert text["verdict"] == text["deterministic_verdict"]
        assert text["passed"] is (text["verdict"] == "asserts_expected")
    assert summary["run"]["judge"] == {"model": "pastbench/judge", "prompt_hash": recorded}
    overall = summary["configs"][0]["overall"]
    assert overall["judge_errors"] == 0
    assert overall["judge_disagreement"] == {
        "checks": 2, "compared": 2, "disagree": 0, "rate": 0.0, "undecided": 0, "judge_errors": 0
    }  # fmt: skip
    result.stdout.fnmatch_lines(["*judge vs deterministic grader disagree on 0.0% (0/2) of text checks*"])
    # Two items, each a rubric and a text check: four judge calls in the run's ledger.
    assert summary["run"]["model_calls"]["pastbench/judge"]["calls"] == 4


def test_a_judge_that_never_answers_json_blocks_the_item_instead_of_scoring_it_0(
    pytester: pytest.Pytester,
) -> None:
    with judge_server(then=MALFORMED) as server:
        result = judged_by(server, pytester, "garbage")
    # One eval session, a rubric and a text check, three replies each.
    assert server.count == 2 * JUDGE_ATTEMPTS
    # No credit check of the session got a verdict: not measured, so no score (never a 0).
    result.stdout.fnmatch_lines(["*infra_blocked: judge_error: no verdict on any credit check of session 1*"])
    [record], summary = run_files(pytester, "garbage")
    assert record["score"] is None and record["infra_blocked"]
    assert record["reasons"][0].startswith("judge_error: no verdict on any credit check of session 1")
    assert f"{ALIAS}: no valid verdict in 3" in record["reasons"][0]
    assert summary["configs"][0]["overall"]["infra_blocked"] == 1


def test_a_judge_provider_down_blocks_the_item_like_an_agent_provider(pytester: pytest.Pytester) -> None:
    with judge_server(then="500") as server:
        result = judged_by(server, pytester, "down", "--pastbench-retries=2", "--pastbench-retry-delay=0")
    assert server.count == 2
    result.stdout.fnmatch_lines([f"*infra_blocked: judge {ALIAS}: gave up after 2 attempts*"])
    [record], summary = run_files(pytester, "down")
    assert record["infra_blocked"] and record["score"] is None
    assert summary["configs"][0]["overall"]["infra_blocked"] == 1


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "--pastbench-judge-model=pastbench/recall",
            "ERROR: --pastbench-judge-model=pastbench/recall: pastbench/recall is an offline agent policy, "
            "not a judge; use pastbench/judge (offline) or a real model",
        ),
        (
            "--pastbench-judge-model=openai/gpt-4o",
            "ERROR: judge model openai/gpt-4o needs OPENAI_API_KEY set in the environment "
            "(or judge offline with --pastbench-judge-model=pastbench/judge)",
        ),
    ],
)
def test_judge_misuse_is_one_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, option: str, message: str
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = judged_run(pytester, "misuse", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.startswith("ERROR")] == [message]


def test_a_resume_refuses_a_different_judge() -> None:
    from pytest_pastbench.plugin.options import RunOptions
    from pytest_pastbench.plugin.resume import check_options, run_file
    from pytest_pastbench.protocols.standalone import standalone_registry

    builtin = standalone_registry()

    recorded = run_file(RunOptions(judge_model="pastbench/judge"), "r", "", builtin)
    check_options(
        "r", recorded, run_file(RunOptions(judge_model="pastbench/judge"), "r", "", builtin), builtin
    )
    with pytest.raises(
        pytest.UsageError,
        match=r"--pastbench-judge-model or the judge prompt \(the run: \{'model': 'pastbench/judge'",
    ):
        check_options("r", recorded, run_file(RunOptions(), "r", "", builtin), builtin)
