"""pastbench's parts of pytest's final line: the statuses in a fixed order, gates and resumes at
the end."""

from __future__ import annotations

from pytest_pastbench.plugin.terminal import add_parts, fixed_status_order

GREEN: dict[str, bool] = {"green": True}


class Reporter:
    """The one member of pytest's TerminalReporter these wrap."""

    def __init__(self, line: list[tuple[str, dict[str, bool]]], color: str = "green") -> None:
        self.line, self.color = line, color

    def build_summary_stats_line(self) -> tuple[list[tuple[str, dict[str, bool]]], str]:
        return self.line, self.color


def test_the_benchmarks_statuses_take_their_fixed_order_in_the_slots_pytest_gave_them() -> None:
    reporter = Reporter(
        [("8 control", GREEN), ("2 failed", {"red": True}), ("8 scored", GREEN), ("1 measured", {})]
    )
    fixed_status_order(reporter)
    line, color = reporter.build_summary_stats_line()
    assert [text for text, _ in line] == ["8 scored", "2 failed", "8 control", "1 measured"]
    assert color == "green"


def test_added_parts_go_last_replace_no_tests_ran_and_a_failure_turns_the_line_red() -> None:
    reporter = Reporter([("no tests ran", {"yellow": True})], color="yellow")
    add_parts(reporter, [("1 gate failed", {"red": True})], failed=True)
    assert reporter.build_summary_stats_line() == ([("1 gate failed", {"red": True})], "red")
    reporter = Reporter([("4 scored", GREEN)])
    add_parts(reporter, [("resumed 4 of 4", {})])
    add_parts(reporter, [])  # nothing to add: the line is left as it is
    assert reporter.build_summary_stats_line() == ([("4 scored", GREEN), ("resumed 4 of 4", {})], "green")
