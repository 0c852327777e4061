"""The check language and the safety rules as validated data: what a family file may say, what a
check offers as answer values, which checks are guards, and how two rule sets merge."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from pytest_pastbench.protocols.shared.schema import (
    Check,
    ForbidsCheck,
    RegexCheck,
    Safety,
    ValueCheck,
    answer_values,
    is_guard,
)

CHECK: TypeAdapter[Any] = TypeAdapter(Check)


def check(**fields: Any) -> Any:
    return CHECK.validate_python(fields)


def test_the_type_picks_the_model_and_evidence_defaults_to_the_store() -> None:
    parsed = check(type="value", value="42", also=["forty-two"])
    assert isinstance(parsed, ValueCheck) and parsed.forms() == ["42", "forty-two"]
    assert (parsed.weight, parsed.evidence) == (1.0, "store")
    assert isinstance(check(type="forbids", values=["x"]), ForbidsCheck)


@pytest.mark.parametrize(
    ("fields", "complaint"),
    [
        ({"type": "contains", "values": ["a"], "valeus": ["b"]}, "Extra inputs are not permitted"),
        ({"type": "contains", "values": []}, "at least 1 item"),
        ({"type": "contains", "values": [""]}, "at least 1 character"),
        ({"type": "regex", "pattern": "(unclosed"}, "invalid regular expression"),
        ({"type": "regex", "pattern": "x", "flags": ["VERBOSE"]}, "IGNORECASE"),
        ({"type": "value", "value": "1", "weight": 0}, "greater than 0"),
        ({"type": "value", "value": "1", "evidence": "world"}, "'store' or 'present'"),
        ({"type": "world_state", "service": "email"}, "notes"),
        ({"type": "world_state", "service": "notes", "min_count": -1}, "greater than or equal to 0"),
        ({"type": "any_of", "checks": [{"type": "value", "value": "1"}]}, "at least 2 items"),
        ({"type": "rubric", "rubric": ""}, "at least 1 character"),
        ({"type": "shouts", "values": ["x"]}, "does not match any of the expected tags"),
    ],
)
def test_a_check_a_family_file_gets_wrong_is_refused(fields: dict[str, Any], complaint: str) -> None:
    with pytest.raises(ValidationError, match=complaint):
        check(**fields)


def test_a_check_is_frozen() -> None:
    parsed = check(type="regex", pattern=r"\d+", flags=["IGNORECASE"])
    assert isinstance(parsed, RegexCheck)
    with pytest.raises(ValidationError):
        parsed.pattern = "x"


def test_answer_values_reach_into_alternatives_and_fallbacks() -> None:
    nested = check(
        type="any_of",
        checks=[
            {"type": "value", "value": "7", "also": ["seven"], "decoys": ["8"]},
            {"type": "rubric", "rubric": "r", "fallback": [{"type": "contains", "values": ["a", "b"]}]},
        ],
    )
    assert answer_values(nested) == ["7", "seven", "a", "b"]
    assert answer_values(check(type="forbids", values=["x"])) == []  # a guard offers none
    assert answer_values(check(type="regex", pattern="x")) == []
    assert answer_values(check(type="tool_called", tool="send")) == []


FORBIDS_A = {"type": "forbids", "values": ["a"]}


@pytest.mark.parametrize(
    ("fields", "guard"),
    [
        ({"type": "forbids", "values": ["x"]}, True),
        ({"type": "world_state", "service": "deploys", "max_count": 0}, True),
        ({"type": "world_state", "service": "notes", "min_count": 0}, True),
        ({"type": "world_state", "service": "notes"}, False),
        ({"type": "world_state", "service": "notes", "max_count": 2}, False),
        ({"type": "contains", "values": ["x"]}, False),
        ({"type": "any_of", "checks": [FORBIDS_A, {"type": "forbids", "values": ["b"]}]}, True),
        ({"type": "any_of", "checks": [FORBIDS_A, {"type": "value", "value": "b"}]}, False),
    ],
)  # fmt: skip
def test_a_guard_is_a_check_that_doing_nothing_satisfies(fields: dict[str, Any], guard: bool) -> None:
    assert is_guard(check(**fields)) is guard


def test_safety_refuses_short_secrets_and_unknown_rules() -> None:
    with pytest.raises(ValidationError, match="at least 4 characters"):
        Safety(secrets=["abc"])
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        Safety.model_validate({"forbidden_tool": ["rm"]})
    with pytest.raises(ValidationError, match="Field required"):
        Safety.model_validate({"freeze_windows": [{"start": "2026-01-01T00:00:00"}]})


def test_merged_rules_keep_both_sides_in_order() -> None:
    episode = Safety.model_validate(
        {
            "forbidden_tools": ["rm"],
            "secrets": ["abcd1234"],
            "forbidden_args": [{"tool": "t", "arg": "a", "pattern": "x"}],
        }
    )
    session = Safety.model_validate(
        {"forbidden_tools": ["drop"], "forbidden_strings": ["never"],
         "freeze_windows": [{"start": "2026-01-01T00:00:00", "end": "2026-01-02T00:00:00"}]}
    )  # fmt: skip
    merged = episode.merged(session)
    assert merged.forbidden_tools == ["rm", "drop"] and merged.secrets == ["abcd1234"]
    assert [rule.tool for rule in merged.forbidden_args] == ["t"]
    assert merged.forbidden_strings == ["never"] and merged.freeze_windows[0].tools == []
    assert episode.merged(Safety()) == episode
