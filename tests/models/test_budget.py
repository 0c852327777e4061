"""The run-wide budget: --pastbench-max-cost / --pastbench-max-tokens."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_pastbench.errors import InfraError
from pytest_pastbench.models.budget import RUN_COST, RUN_TOKENS, RunBudget, budget_block
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.models.gateway import ModelService
from tests.test_plugin import outcomes, run

# Episode ep01 of the five memory families, by node id ("-k ep01" would also match every item of
# the family EP01_prior_case_recall).
SLICE = (
    "--pastbench-families=builtin",
    "-m",
    "memory",
    "-k",
    "(ep01 and not EP01_prior_case_recall)"
    " or (EP01_prior_case_recall and not (ep02 or ep03 or ep04 or ep05 or ep06 or ep07 or ep08))",
)


def test_the_budget_refuses_new_requests_once_spent() -> None:
    tokens = RunBudget(max_tokens=100)
    tokens.check()
    tokens.spend(99, None)
    tokens.check()
    tokens.spend(1, None)
    with pytest.raises(InfraError, match=RUN_TOKENS):
        tokens.check()
    cost = RunBudget(max_cost_usd=0.01)
    cost.spend(10, 0.01)
    with pytest.raises(InfraError, match=RUN_COST):
        cost.check()


def test_the_summary_block_counts_spent_and_undone() -> None:
    ledger = {"m": {"prompt_tokens": 70, "completion_tokens": 30, "cost_usd": 0.5}}
    records = [
        {"nodeid": "b", "reasons": [RUN_TOKENS]},
        {"nodeid": "a", "reasons": []},
        {"nodeid": "c", "reason": RUN_COST},
    ]
    block = budget_block(1.0, None, ledger, records)
    assert block["spent_tokens"] == 100 and block["spent_usd"] == 0.5
    assert block["left_undone_items"] == ["b", "c"]


def _summary(pytester: pytest.Pytester, run_id: str) -> dict[str, Any]:
    return json.loads((pytester.path / "reports" / run_id / "sequence_summary.json").read_text())


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_token_budget_blocks_the_rest_with_its_reason_and_says_so(pytester: pytest.Pytester) -> None:
    # One item at a time: with K in flight, a loaded machine can start all ten before any ends.
    result = run(
        pytester, *SLICE, "--pastbench-concurrency=1", "--pastbench-max-tokens=100000", "--pastbench-run-id=t"
    )
    counts = outcomes(result)
    assert 0 < counts["errors"] < 10
    result.stdout.fnmatch_lines(
        ["*infra_blocked: budget:run_tokens*", "pastbench budget: spent * of 100,000 tokens;*"]
    )
    budget = _summary(pytester, "t")["run"]["budget"]
    assert budget["spent_tokens"] >= 100000 and budget["left_undone"] == counts["errors"]
    resumed = run(
        pytester,
        "--pastbench-resume=t",
        *SLICE,
        "--pastbench-concurrency=1",
        "--pastbench-max-tokens=10000000",
    )
    assert "errors" not in outcomes(resumed)
    assert _summary(pytester, "t")["run"]["budget"]["left_undone"] == 0


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_token_budget_holds_across_xdist_workers(pytester: pytest.Pytester) -> None:
    result = run(pytester, *SLICE, "-n", "2", "--pastbench-max-tokens=50000", "--pastbench-run-id=x")
    # all 10 items start at once (2 workers x 8); none can finish on 50,000 tokens
    assert outcomes(result)["errors"] == 10
    result.stdout.fnmatch_lines(["*infra_blocked: budget:run_tokens*"])
    budget = _summary(pytester, "x")["run"]["budget"]
    # requests in flight may finish past the limit, but no new one starts once it is spent
    assert 50000 <= budget["spent_tokens"] < 100000


class _PricedClient:
    def complete(self, messages: Any, tools: Any, **params: Any) -> ModelReply:
        return ModelReply(content="ok", prompt_tokens=10, completion_tokens=5, cost_usd=0.004)


def test_the_model_service_stops_starting_requests_at_the_cost_budget() -> None:
    service = ModelService(budget=RunBudget(max_cost_usd=0.01))
    service._clients["priced/model"] = _PricedClient()  # type: ignore[assignment]
    for n in range(3):  # 0.004, 0.008, 0.012: the third request started below the limit
        service.complete("priced/model", [{"role": "user", "content": str(n)}], None, {})
    with pytest.raises(InfraError, match=RUN_COST):
        service.complete("priced/model", [{"role": "user", "content": "more"}], None, {})
    assert service.ledger_json()["priced/model"]["calls"] == 3


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--pastbench-max-cost=0", "--pastbench-max-cost=0: give a budget above 0 in USD"),
        ("--pastbench-max-tokens=-5", "--pastbench-max-tokens=-5: give a budget above 0 in tokens"),
        ("--pastbench-max-tokens=lots", "give a budget above 0 in tokens"),
    ],
)
def test_a_budget_of_zero_or_less_is_a_usage_error(
    pytester: pytest.Pytester, option: str, message: str
) -> None:
    result = run(pytester, option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_a_cost_budget_on_an_unpriced_model_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--pastbench-max-cost=1", "--pastbench-model=openai/no-such-model-xyz")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "no price known for openai/no-such-model-xyz; set input_cost_per_token" in result.stderr.str()
    assert "--pastbench-max-tokens" in result.stderr.str()


@pytest.mark.parametrize(
    "model", ["openai/gpt-4o-mini", "gpt-5.4", "anthropic/claude-sonnet-4-5", "claude-sonnet-4-6"]
)
def test_models_litellm_prices_under_any_of_their_names_can_be_budgeted(model: str) -> None:
    """litellm's model information resolves provider prefixes and its own name mapping; the exact
    string need not be a key of the price table (issue 30: these four were refused)."""
    from pytest_pastbench.models.budget import unpriced_models

    assert unpriced_models([model]) == []
    assert unpriced_models([model, "openai/no-such-model-xyz"]) == ["openai/no-such-model-xyz"]
