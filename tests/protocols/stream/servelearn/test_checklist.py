"""The Pitch checklist judge: strict replies, one retry with the problem named, fail closed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_pastbench.errors import JudgeError
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.protocols.stream.servelearn.checklist import (
    PROMPT_HASH,
    ModelChecklist,
    parse_checklist,
)
from pytest_pastbench.protocols.stream.servelearn.pitch import grade_pitch, sheet

from .helpers import scenarios

FACTS = ["budget-friendly price", "premium price"]
PITCH = scenarios()["pitch_l1"]


class Replies:
    """A model client that answers from a list and keeps what it was sent."""

    model = "test/checker"

    def __init__(self, *contents: str) -> None:
        self.contents = list(contents)
        self.sent: list[list[dict[str, Any]]] = []

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        self.sent.append(messages)
        return ModelReply(content=self.contents.pop(0))


def reply(marks: dict[str, str], invented: list[str] = ()) -> str:  # type: ignore[assignment]
    return json.dumps({"marks": marks, "invented": list(invented)})


def test_a_reply_marks_every_fact_tolerating_case_spacing_and_a_fence() -> None:
    content = (
        "```json\n" + reply({" Budget-friendly  price": "m", "premium price": "C"}, ["ships free"]) + "\n```"
    )
    checked = parse_checklist(content, FACTS)
    assert checked.marks == {"budget-friendly price": "M", "premium price": "C"}
    assert checked.invented == ["ships free"]


def test_a_reply_with_prose_around_its_object_is_read_as_the_published_judge_reads_it() -> None:
    content = "Here is my review:\n" + reply({"budget-friendly price": "M", "premium price": "N"}) + "\nDone."
    assert parse_checklist(content, FACTS).marks == {"budget-friendly price": "M", "premium price": "N"}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("Looks great!", "no JSON object in the reply"),
        ("{marks: M}", "not a JSON object"),
        (json.dumps({"budget-friendly price": "M"}), "no 'marks' object"),
        (
            json.dumps({"marks": {"budget-friendly price": "M", "premium price": "N"}}),
            "'invented' must be a list",
        ),
        (reply({"budget-friendly price": "M"}), "no mark for 1 fact(s), e.g. 'premium price'"),
        (reply({"budget-friendly price": "M", "premium price": "yes"}), "mark 'YES'"),
    ],
)
def test_a_reply_that_cannot_be_used_is_a_judge_error(content: str, problem: str) -> None:
    with pytest.raises(JudgeError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse_checklist(content, FACTS)


def test_a_bad_reply_is_asked_again_with_the_problem_then_it_fails_closed() -> None:
    client = Replies("nope", reply({"budget-friendly price": "M", "premium price": "N"}))
    checked = ModelChecklist(client).check(FACTS, "Cheap!")  # type: ignore[arg-type]
    assert checked.marks["budget-friendly price"] == "M"
    assert "no JSON object in the reply" in client.sent[1][-1]["content"]
    never = Replies("a", "b", "c")
    with pytest.raises(JudgeError, match="no valid checklist in 3 replies"):
        ModelChecklist(never).check(FACTS, "Cheap!")  # type: ignore[arg-type]


def test_contradictions_and_invented_claims_count_through_the_checklist() -> None:
    task = PITCH.serving[0]  # Kettle One: likes budget-friendly price and feature-rich
    facts = list(sheet(PITCH, task).facts)
    marks = {f: "N" for f in facts} | {"budget-friendly price": "M", "feature-rich, does a lot": "M"}
    marks["standard materials"] = "C"
    checker = ModelChecklist(Replies(reply(marks, ["waterproof to 30 m"])))  # type: ignore[arg-type]
    result = grade_pitch(
        PITCH, task, "Cheap, full of features, and made of bamboo; waterproof to 30 m.", checker
    )
    assert result.reward == pytest.approx(0.25)  # one contradiction and one invented claim: x0.5 x0.5
    assert result.judge == f"test/checker (checklist {PROMPT_HASH})"
