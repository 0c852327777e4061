"""PAST's section of the HTML page as the template's context: configs in label order, each
scope's cells as text with its sign and a memory-hurt note, the CI basis in one sentence, each
config's family rows (with Mech's components) before its capabilities and overall."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.protocols.past.components import COMPONENTS
from pytest_pastbench.protocols.past.html_section import (
    HURT,
    TEMPLATE,
    ci_note,
    config_table,
    past_section,
    scope,
    summary_row,
)


def entry(delta: float | None, **extra: Any) -> dict[str, Any]:
    return {"n_episodes": 4, "s_on": 0.6, "s_off": 0.4, "delta": delta, "mech": 0.5, **extra}


def config(label: str, **extra: Any) -> dict[str, Any]:
    return {
        "label": label,
        "model": "pastbench/recall",
        "agent": "hermes",
        "mechanisms": [],
        "overall": entry(0.2),
        "capabilities": {"update": entry(0.2), "memory": entry(0.1)},
        "families": {
            "update.b": entry(0.3, capability="update", mech_components={"wp": 1.0, "pr": 0.25}),
            "memory.z": entry(0.1, capability="memory"),
            "update.a": entry(-0.4, capability="update", delta_ci=[-0.5, -0.3]),
        },
        **extra,
    }


def test_a_scopes_cells_carry_the_sign_and_say_when_memory_hurt() -> None:
    gain = scope(entry(0.25, delta_ci=[0.1, 0.4]))
    assert gain["delta"] == "+0.25 [+0.10, +0.40]" and gain["delta_class"] == "pos" and gain["hurt"] is None
    assert (gain["n"], gain["s_on"], gain["s_off"], gain["blocked"]) == ("4", "0.60", "0.40", "0")
    hurt = scope(entry(-0.4, delta_ci=[-0.5, -0.3]))
    assert hurt["delta_class"] == "neg" and hurt["hurt"] == HURT
    assert scope(entry(0.0))["delta_class"] == "" and scope(entry(None))["delta_class"] == ""
    assert scope({})["n"] == "0" and scope({})["delta"] == "—"


def test_the_ci_note_is_one_sentence_when_every_config_shares_its_basis() -> None:
    episode = {"overall": {"ci_unit": "episode"}}
    groups = {"overall": {"ci_unit": "group", "n_clusters": 12}}
    assert ci_note([]) == "95% CIs: paired bootstrap"
    assert ci_note([{"label": "a", **episode}, {"label": "b", **episode}]).count("paired bootstrap") == 1
    both = ci_note([{"label": "b", **groups}, {"label": "a", **episode}])
    assert (
        both.startswith("95% CIs: a: paired bootstrap over episodes")
        and "b: paired bootstrap over 12" in both
    )


def test_the_summary_row_fills_what_a_config_lacks_with_a_dash() -> None:
    row = summary_row(config("a"))
    assert (row["mechanisms"], row["cost"], row["tokens"]) == ("—", "—", "0")
    priced = summary_row(
        config("a", mechanisms=["E1", "E5"], overall=entry(0.2, cost_usd=0.0123456, tokens=99))
    )
    assert (priced["mechanisms"], priced["cost"], priced["tokens"]) == ("E1, E5", "0.0123", "99")


def test_a_config_table_lists_families_by_capability_then_capabilities_then_overall() -> None:
    table = config_table(config("a"))
    assert [row["label"] for row in table["families"]] == ["memory.z", "update.a", "update.b"]
    assert [row["hurt"] for row in table["families"]] == [False, True, False]
    components = table["families"][2]["components"]
    assert len(components) == len(COMPONENTS) and components[COMPONENTS.index("pr")] == "0.25"
    assert [row["label"] for row in table["aggregates"]] == ["[memory]", "[update]", "[overall]"]
    assert table["aggregates"][-1]["capability"] == "all"


def test_the_section_shows_configs_in_label_order_with_the_past_template() -> None:
    section = past_section({"configs": [config("b"), config("a")]})
    assert section.template == TEMPLATE and TEMPLATE.is_file()
    assert [row["label"] for row in section.context["summary_rows"]] == ["a", "b"]
    assert [table["label"] for table in section.context["config_tables"]] == ["a", "b"]
    assert past_section({}).context["summary_rows"] == []
