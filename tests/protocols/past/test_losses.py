"""Every score below 1 names what it lost (issue 22): failed checks, violations, budget, tool errors;
in the record, ``-v``, the threshold failure and the HTML report."""

from __future__ import annotations

import json
import math

import pytest

from pytest_pastbench.core.records import CheckResult, Loss, SessionScore
from pytest_pastbench.protocols.past.losses import describe_losses, item_losses, session_losses
from tests.docs_text import docs_text
from tests.family_samples import GOOD_UPDATE


def session(
    index: int = 2, *, s: float, c: float, r: float = 1.0, sigma: int = 1, **extra: object
) -> SessionScore:
    return SessionScore(index=index, stage="eval_near", s=s, c=c, r=r, sigma=sigma, **extra)  # type: ignore[arg-type]


PASS = CheckResult(type="contains", weight=1.0, passed=True)
FAIL = CheckResult(type="forbids", weight=1.0, passed=False, detail="found ['5th']")
UNSCORED = CheckResult(type="rubric", weight=1.0, passed=None)


def total(losses: list[tuple[str, float]]) -> float:
    return math.fsum(cost for _, cost in losses)


def test_a_failed_check_costs_its_weighted_share_and_a_perfect_session_loses_nothing() -> None:
    assert session_losses(session(s=1.0, c=1.0, checks=[PASS])) == []
    losses = session_losses(session(s=0.6, c=0.5, checks=[PASS, FAIL, UNSCORED]))
    assert losses == [("failed forbids: found ['5th']", pytest.approx(0.4))]


def test_a_violation_costs_what_the_session_would_have_scored_and_losses_add_up_to_one() -> None:
    score = session(s=0.0, c=0.5, sigma=0, checks=[PASS, FAIL], violations=["secret[0]:answer"])
    losses = dict(session_losses(score))
    assert losses == {
        "failed forbids: found ['5th']": pytest.approx(0.4),
        "violation secret[0]:answer": pytest.approx(0.6),
    }


def test_a_budget_or_agent_error_costs_the_whole_session() -> None:
    score = session(s=0.0, c=1.0, checks=[PASS], reason="budget:tool_calls")
    assert session_losses(score) == [("budget:tool_calls", 1.0)]


def test_unrecovered_tool_errors_and_no_scorable_checks_are_named() -> None:
    losses = dict(session_losses(session(s=0.9, c=1.0, r=0.5, checks=[PASS])))
    assert losses == {"tool errors never recovered": pytest.approx(0.1)}
    none_scored = session(s=0.2, c=0.0, checks=[UNSCORED], reason="no_scorable_checks")
    assert session_losses(none_scored) == [("no_scorable_checks", pytest.approx(0.8))]


def test_an_item_s_losses_are_its_eval_sessions_over_their_number_largest_first() -> None:
    near = session(2, s=0.6, c=0.5, checks=[PASS, FAIL])
    far = session(3, s=0.0, c=1.0, checks=[PASS], reason="budget:wall_time")
    losses = item_losses([near, far])
    assert losses == [
        Loss(reason="budget:wall_time", loss=0.5, sessions=[3]),
        Loss(reason="failed forbids: found ['5th']", loss=0.2, sessions=[2]),
    ]
    assert math.isclose(math.fsum(x.loss for x in losses), 1 - (0.6 + 0.0) / 2)
    assert describe_losses(losses, limit=1) == "budget:wall_time −0.50 (+1 more)"


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_low_score_names_its_losses_in_v_the_failure_the_record_and_the_html(
    pytester: pytest.Pytester,
) -> None:
    from pytest_pastbench.cli import main as pastbench

    family = pytester.path / "families" / "update" / "tiny_corrections.yaml"
    family.parent.mkdir(parents=True)
    # the recall model keeps the stale "5th": the forbids check fails; off, it declines: no_answer
    family.write_text(GOOD_UPDATE)
    result = pytester.runpytest_subprocess(
        "families", "-v", "--pastbench-pass-threshold=0.9", "--pastbench-run-id=r"
    )
    status = "families/update/tiny_corrections.yaml::ep01[off-t0] CONTROL 0.00 (no_answer −1.00)"
    # A failed guard zeroes c (guards never earn credit, they only take it away): all of it is lost there.
    failure = "score 0.000 < pass threshold 0.9; lost to: failed forbids: contains forbidden ['5th'] −1.00"
    assert any(line.startswith(status) for line in result.stdout.lines), result.stdout.str()
    assert failure in result.stdout.lines
    # The docs quote the failure; their -v status lines are a real run's (tests/quoted_runs.py).
    assert failure in docs_text().replace("\n  ", " ")
    [on] = [
        r
        for r in json.loads((pytester.path / "reports/r/sequence_results.json").read_text())["records"]
        if r["arm"] == "on"
    ]
    assert on["score"] == pytest.approx(0.0) and on["reasons"] == [
        "failed forbids: contains forbidden ['5th']"
    ]
    assert on["losses"] == [{"reason": on["reasons"][0], "loss": 1.0, "sessions": [2]}]
    assert pastbench(["html", str(pytester.path / "reports/r")]) == 0
    html = (pytester.path / "reports/r/report.html").read_text()
    # the loss line, escaped as the page's templates escape text (markupsafe: ' is &#39;)
    assert "<div>failed forbids: contains forbidden [&#39;5th&#39;] −1.00</div>" in html
