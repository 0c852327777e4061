"""The figures' shared pieces: summary numbers, label keys, a figure's reason not to draw.
(Axis limits and the drawn keys are checked on real figures in test_plots.py.)"""

from __future__ import annotations

import math

from pytest_pastbench.results.render.figure_kit import LONG_LABEL, label_keys, needs, num, protocol_section


def test_a_summary_number_is_a_float_and_anything_else_is_nan() -> None:
    assert num(3) == 3.0 and num(0.25) == 0.25
    for missing in (None, "0.3", True, [1]):
        assert math.isnan(num(missing)), missing


def test_keys_are_numbered_in_order_when_asked_or_when_one_label_is_long() -> None:
    short = ["on", "off"]
    assert label_keys(short).shown == {"on": "on", "off": "off"}
    keys = label_keys(short, prefix="A", always=True)
    assert keys.shown == {"on": "A1", "off": "A2"}
    assert keys.lines == ["A1  on", "A2  off"]
    edge = "x" * LONG_LABEL
    assert label_keys([edge]).lines == []  # at the limit a label is still drawn as it is
    assert label_keys([edge + "x", "b"]).shown == {edge + "x": "C1", "b": "C2"}


def test_a_figure_says_why_it_is_not_drawn_when_its_protocol_section_is_missing() -> None:
    summary = {"protocols": {"stream": {"configs": [{"label": "on"}]}}}
    assert protocol_section(summary, "stream") == {"configs": [{"label": "on"}]}
    assert protocol_section(summary, "plasticity") == {}
    assert protocol_section({"protocols": None}, "stream") == {}
    why_not = needs(lambda s: protocol_section(s, "plasticity").get("configs"), "no plasticity configs")
    assert why_not(summary) == "no plasticity configs"
    assert needs(lambda s: protocol_section(s, "stream").get("configs"), "never")(summary) is None
