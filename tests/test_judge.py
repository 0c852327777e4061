"""The judge seam's report lines (which judge, and unscored rubric checks) for the terminal."""

from pytest_pastbench.judge.base import judge_lines


def summary(judge: dict | None, errors: int) -> dict:
    overall = {"judge_errors": errors}
    return {"run": {"judge": judge}, "configs": [{"label": "hermes@m", "overall": overall}]}


def test_no_judge_no_lines() -> None:
    assert judge_lines(summary(None, 0)) == []


def test_the_judge_and_its_errors_are_named() -> None:
    judge = {"model": "pastbench/judge", "prompt_hash": "abc123"}
    assert judge_lines(summary(judge, 0)) == ["judge: pastbench/judge (prompt abc123)"]
    lines = judge_lines(summary(judge, 2))
    assert lines[1].startswith("hermes@m: 2 check(s) got no verdict from the judge (judge_error")


def test_describe_judge_reads_the_run_block() -> None:
    from pytest_pastbench.judge.base import describe_judge
    from pytest_pastbench.results.gates import compatibility_warnings

    judged = {"model": "pastbench/judge", "prompt_hash": "abc123"}
    assert describe_judge(judged) == "pastbench/judge (prompt abc123)"
    assert describe_judge(None) == "none"
    run = {"dataset_hash": "d", "models": ["m"]}
    [warning] = compatibility_warnings({**run, "judge": judged}, {**run, "judge": None})
    assert warning.startswith("judge differs: current pastbench/judge (prompt abc123), baseline none")
