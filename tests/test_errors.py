"""The error classes' contracts: which outcome each becomes, and the message it carries."""

from __future__ import annotations

from pathlib import Path

from pytest_pastbench import errors


def test_below_threshold_is_a_test_failure_saying_the_score_and_what_it_lost_to() -> None:
    failure = errors.BelowThreshold(0.41666, 0.5, "c_e: 1 of 3 checks")
    assert isinstance(failure, AssertionError)
    assert str(failure) == "score 0.417 < pass threshold 0.5; lost to: c_e: 1 of 3 checks"
    assert str(errors.BelowThreshold(None, 0.5)) == "score None < pass threshold 0.5"


def test_a_wall_backstop_and_a_missing_engine_are_infra_errors_never_scores() -> None:
    # The engine turns any InfraError into infra_blocked: these two must stay under it.
    assert issubclass(errors.WallBackstop, errors.InfraError)
    assert issubclass(errors.EngineMissing, errors.InfraError)
    error = errors.InfraError("gave up after 3 attempts", retries=3)
    assert (str(error), error.retries) == ("gave up after 3 attempts", 3)
    assert errors.WallBackstop("past the budget").retries == 0


def test_messages_built_from_their_parts() -> None:
    assert str(errors.Unsupported("/v1/messages", "n > 1", ["n == 1", "stream"])) == (
        "POST /v1/messages does not support n > 1 (supported: n == 1, stream)"
    )
    exhausted = errors.ProviderExhausted(12)
    assert (str(exhausted), exhausted.in_a_row) == ("provider answered only 429 (12 in a row)", 12)
    replay = errors.ReplayError("unknown_tool", "cancel_order")
    assert (str(replay), replay.reason, replay.detail) == (
        "unknown_tool: cancel_order",
        "unknown_tool",
        "cancel_order",
    )
    unreadable = errors.ScenarioUnreadable(Path("s/tasks.jsonl"), "not JSON", line=4)
    assert (str(unreadable), unreadable.file, unreadable.line) == ("not JSON", Path("s/tasks.jsonl"), 4)


def test_usage_mistakes_are_value_errors_and_a_cache_miss_a_lookup_error() -> None:
    # Callers catch these by their builtin bases (argument parsing, dict-like lookups).
    for usage in (errors.ShardSpecError, errors.GateSyntaxError, errors.MechanismError, errors.LabelError):
        assert issubclass(usage, ValueError), usage
    assert issubclass(errors.CacheMiss, LookupError)
    assert issubclass(errors.UnknownTool, KeyError)
