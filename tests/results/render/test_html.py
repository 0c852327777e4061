"""The HTML report: content, escaping, self-containment, CLI, and a real headless browser."""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.core.records import MechScore
from pytest_pastbench.protocols.past.metrics import build_comparison, summarize
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.results.item_record import ItemRecord
from pytest_pastbench.results.read import load_run
from pytest_pastbench.results.render.html import render_html, write_html
from pytest_pastbench.results.run_folder import trace_path
from tests.family_samples import run_tiny_benchmark
from tests.report_samples import LONG, sample_summary
from tests.written_runs import write_run

HOSTILE = "</script><img src=x onerror=alert(1)>"
CHROMIUM = Path("/usr/bin/chromium")


def trace_events(record: ItemRecord) -> list[dict[str, Any]]:
    """A short trace in the plugin's event shape, with hostile text in every free-text field."""
    entry = {"id": "m0001", "kind": "memory", "name": "", "text": f"note {HOSTILE}", "tags": ["x"]}
    return [
        {"seq": 0, "kind": "item", "nodeid": record.nodeid, "arm": record.arm, "trial": 0},
        {"seq": 1, "kind": "session", "session": 0, "stage": "learn", "now": "2026-03-02T10:00:00"},
        {"seq": 2, "kind": "message", "session": 0, "role": "user", "content": f"remember {HOSTILE}"},
        {
            "seq": 3,
            "kind": "tool_call",
            "session": 0,
            "name": "memory_write",
            "arguments": {"text": HOSTILE},
            "ok": True,
            "result": {"id": "m0001"},
        },
        {"seq": 4, "kind": "tool_call", "session": 0, "name": "notes_read", "arguments": {}, "ok": False},
        {
            "seq": 5,
            "kind": "message",
            "session": 0,
            "role": "assistant",
            "content": "stored <b>it</b> & done",
        },
        {"seq": 6, "kind": "store_snapshot", "session": 0, "phase": "after:learn:0", "entries": [entry]},
        {"seq": 7, "kind": "score", "session": 1, "s": 0.8, "c": 1.0, "r": 1.0, "sigma": 1, "checks": []},
    ]


def make_run(tmp_path: Path, *, trace_missing_for: str | None = None) -> tuple[Path, list[ItemRecord]]:
    records = []
    for model in ("pastbench/blind", "pastbench/curator"):
        for ep in ("ep01", "ep02"):
            for arm, score in (("on", 0.9 if model.endswith("curator") else 0.3), ("off", 0.3)):
                records.append(
                    ItemRecord(
                        nodeid=f"families/memory/tiny_prefs.yaml::{ep}[{arm}-t0-{model}]",
                        family="memory.tiny_prefs",
                        capability="memory",
                        episode=ep,
                        arm=arm,
                        model=model,
                        agent="hermes",
                        config_label=f"hermes@{model}",
                        score=score,
                        mech=MechScore(mech=0.5, applicable=1) if arm == "on" else None,
                        reasons=[HOSTILE] if ep == "ep02" else [],
                    )
                )
    records.append(
        records[0].model_copy(
            update={
                "nodeid": "families/memory/tiny_prefs.yaml::ep03[on-t0-pastbench/blind]",
                "episode": "ep03",
                "score": None,
                "infra_blocked": True,
                "reasons": ["infra_blocked: provider down"],
            }
        )
    )
    traces = {r.nodeid: trace_events(r) for r in records if r.nodeid != trace_missing_for}
    run = {"id": "hand<run>", "seed": 0}
    summary = summarize(records, run, seed=0)
    run_dir = write_run(
        tmp_path / "reports", "hand", run, records, traces, summary, build_comparison(summary)
    )
    return run_dir, records


def only_figure_images(page: str) -> bool:
    """Every <img> is one of the report's embedded figures (a hostile one would not be)."""
    return all(
        re.fullmatch(r'<img alt="[a-z_]+\.png" src="data:image/png;base64,[A-Za-z0-9+/=]+">', tag)
        for tag in re.findall(r"<img\b[^>]*>", page)
    )


def embedded_traces(page: str) -> dict[str, Any]:
    found = re.findall(r'<script type="application/json" id="trace-(\d+)"[^>]*>(.*?)</script>', page, re.S)
    return {index: json.loads(text) for index, text in found}


def test_page_has_the_summary_table_and_every_item(tmp_path: Path) -> None:
    run_dir, records = make_run(tmp_path)
    page = render_html(load_run(run_dir), standalone_registry())
    assert page.startswith("<!DOCTYPE html>")
    assert '<table id="summary-table">' in page
    summary = page[page.index('<table id="summary-table">') :]
    summary = summary[: summary.index("</table>")]
    assert "hermes@pastbench/blind" in summary and "hermes@pastbench/curator" in summary
    # curator: 0.9 on vs 0.3 off in both episodes; the CI may wrap under Δ on a narrow page
    assert '+0.60 <span class="ci">[+0.60, +0.60]</span>' in summary
    for record in records:
        assert f'data-nodeid="{html.escape(record.nodeid)}"' in page
    assert page.count('<button class="open"') == len(records)
    assert 'id="trace-viewer-past"' in page and 'id="trace-view-past"' in page
    # Per-config tables with families, capabilities and the overall row; blocked item counted.
    assert page.count('class="scope-table"') == 2
    # A family id may wrap at its parts (<wbr> after "." and "_") when its column must narrow.
    assert "[memory]" in page and "[overall]" in page and "memory.<wbr>tiny_<wbr>prefs" in page
    assert 'class="blocked"' in page and "infra_blocked: provider down" in page


def test_hostile_strings_are_escaped_and_traces_round_trip(tmp_path: Path) -> None:
    run_dir, records = make_run(tmp_path)
    page = render_html(load_run(run_dir), standalone_registry())
    assert HOSTILE not in page
    assert "<img src=x" not in page and only_figure_images(page)
    assert "<b>it</b>" not in page
    assert html.escape(HOSTILE) in page  # the reason, shown as text in the items table
    assert "hand&lt;run&gt;" in page  # the run id
    # Only our own script elements exist: one per trace plus the viewer.
    assert page.count("<script") == page.count("</script>") == len(records) + 1
    traces = embedded_traces(page)
    assert len(traces) == len(records)
    ordered = sorted(records, key=lambda r: (r.config_label, r.nodeid))
    for index, record in enumerate(ordered):
        # The escaping changes nothing for JSON.parse: the viewer sees the exact trace.
        assert traces[str(index)] == trace_events(record)


def test_page_is_self_contained(tmp_path: Path) -> None:
    run_dir, _ = make_run(tmp_path)
    page = render_html(load_run(run_dir), standalone_registry())
    assert "http://" not in page and "https://" not in page and "//cdn" not in page
    assert not re.search(r"<(script|img|link|iframe)\b[^>]*\s(src|href)=(?!\"data:image/png;base64,)", page)
    assert "<style>" in page and "Content-Security-Policy" in page


def test_a_missing_trace_file_is_shown_as_missing(tmp_path: Path) -> None:
    missing = "families/memory/tiny_prefs.yaml::ep01[off-t0-pastbench/blind]"
    run_dir, _ = make_run(tmp_path, trace_missing_for=missing)
    assert not trace_path(run_dir, missing).exists()
    traces = embedded_traces(render_html(load_run(run_dir), standalone_registry()))
    assert sum(1 for events in traces.values() if events is None) == 1


def test_the_same_run_renders_the_same_page(tmp_path: Path) -> None:
    run_dir, _ = make_run(tmp_path)
    assert render_html(load_run(run_dir), standalone_registry()) == render_html(
        load_run(run_dir), standalone_registry()
    )


def test_headless_chromium_renders_the_page_and_a_trace(tmp_path: Path) -> None:
    run_dir, _ = make_run(tmp_path)
    page = write_html(load_run(run_dir), tmp_path / "report.html", standalone_registry())
    # The item hash opens that item's trace on load, so the viewer's JS runs in the browser.
    dom = chromium(tmp_path, page, "#item-1")
    assert 'id="summary-table"' in dom
    assert 'id="trace-view-past"' in dom
    # The viewer rendered item 1: its messages, tool calls and store snapshot are in the live DOM ...
    assert 'data-shown="1"' in dom
    viewer = dom[dom.index('id="trace-view-past"') : dom.index('id="trace-data"')]
    assert "tool memory_write" in viewer and "store snapshot after:learn:0" in viewer
    assert 'class="ev tool failed"' in viewer
    # ... as text: the hostile string became no element in a real browser either.
    assert "<img src=x" not in dom and only_figure_images(dom)
    assert html.escape(HOSTILE, quote=False) in viewer


def test_report_of_a_real_run_has_every_trace(pytester: pytest.Pytester) -> None:
    run = run_tiny_benchmark(pytester, "real", "pastbench/blind", "pastbench/curator")
    page = render_html(run, standalone_registry())
    assert len(run.records) == 8
    for record in run.records:
        assert f'data-nodeid="{html.escape(record.nodeid)}"' in page
    traces = embedded_traces(page)
    assert len(traces) == 8 and all(traces.values())  # every item's trace file was found
    kinds = {event["kind"] for events in traces.values() for event in events}
    assert {"message", "tool_call", "store_snapshot", "score"} <= kinds


def test_the_page_embeds_the_figures_and_is_private_like_the_run_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import base64

    run_dir, _ = make_run(tmp_path)
    (run_dir / "plots").mkdir()
    (run_dir / "plots" / "plasticity_rules_a.png").write_bytes(b"\x89PNG\r\n\x1a\nprotocol figure")
    assert main(["html", str(run_dir)]) == 0
    page = (run_dir / "report.html").read_text()
    figures = dict(re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,([^"]+)">', page))
    assert sorted(figures) == [
        "ablation_heatmap.png",
        "capability_delta.png",
        "frontier.png",
        "plasticity_rules_a.png",
    ]
    assert all(base64.b64decode(data).startswith(b"\x89PNG") for data in figures.values())
    # Like the JSON files and traces of the run: readable by the owner only.
    modes = {path.name: path.stat().st_mode & 0o777 for path in run_dir.rglob("*") if path.is_file()}
    assert modes["report.html"] == 0o600
    assert {mode for name, mode in modes.items() if name != "plasticity_rules_a.png"} == {0o600}


# -- every protocol on one page, at 1, 2 and 8 configs with long labels --------------------------------------
PROTOCOL_TRACES: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "stream": (
        "families/streams/retail_l1.yaml::own[t0]",
        [
            {"kind": "window", "window": 0, "active": ["H1", "D1"]},
            {
                "kind": "ticket",
                "id": "w0-s000",
                "phase": "serving",
                "case": "hidden",
                "expected": "refund",
                "answer": "exchange",
                "reply": f"ANSWER: exchange {HOSTILE}",
                "score": 0,
            },
        ],
    ),
    "intervention": (
        "families/interventions/analytics.yaml::correlation_method[light-t0]",
        [
            {"seq": 0, "kind": "profile", "profile": "light", "entries": []},
            {
                "seq": 1,
                "kind": "event",
                "event": "correlation_method",
                "event_kind": "schema_change",
                "version": "v3",
                "changed": ["tool:correlation"],
            },
            {
                "seq": 2,
                "kind": "query_result",
                "session": 1,
                "stage": "post",
                "query": "corr",
                "passed": False,
                "checks": [{"type": "tool_ok", "weight": 1.0, "passed": False, "detail": HOSTILE}],
            },
        ],
    ),
    "plasticity": (
        "families/plasticity/ops_rules.yaml::lineage[on-t0]",
        [
            {"seq": 0, "kind": "lineage", "family": "ops_rules", "arm": "on", "checkpoints": 3},
            {
                "seq": 1,
                "kind": "episode",
                "checkpoint": 0,
                "split": "id",
                "id": "id000",
                "score": 0.0,
                "failures": ["no_covering_artifact"],
            },
            {"seq": 2, "kind": "checkpoint", "checkpoint": 0, "scores": {"id": 0.0, "ood": 0.0}},
        ],
    ),
}
EVENT_TEXT = {  # what each protocol's viewer shows for its trace above
    "stream": "serving hidden ticket w0-s000: score 0",
    "intervention": "intervention correlation_method (schema_change)",
    "plasticity": "checkpoint 0 · id id000: score 0",
}


def make_all_protocols_run(tmp_path: Path, n: int) -> Path:
    _, records = make_run(tmp_path / "past")
    summary = sample_summary(n)
    protocol_records = {}
    traces = {r.nodeid: trace_events(r) for r in records}
    for protocol, (nodeid, events) in PROTOCOL_TRACES.items():
        config = f"own · {LONG}" if protocol == "stream" else LONG
        protocol_records[protocol] = [
            {
                "nodeid": nodeid,
                "protocol": protocol,
                "agent": "hermes",
                "model": "pastbench/recall",
                "config_label": config,
                "trial": 0,
                "infra_blocked": False,
                "headline": f"{protocol} {HOSTILE}",
            }
        ]
        traces[nodeid] = events
    run = {"id": "all", "seed": 0}
    return write_run(tmp_path / "reports", "all", run, records, traces, summary, {}, protocol_records)


def test_every_protocol_has_a_section_with_tables_figures_items_and_a_viewer(tmp_path: Path) -> None:
    page = render_html(load_run(make_all_protocols_run(tmp_path, 2)), standalone_registry())
    for protocol in ("past", "intervention", "plasticity", "stream"):
        start = page.index(f'<section class="protocol" id="protocol-{protocol}">')
        section = page[start : page.index("</section>", start)]
        assert f'id="items-table-{protocol}"' in section and f'id="trace-view-{protocol}"' in section
        assert "<figure>" in section and "<table" in section
    assert 'id="stream-summary-table"' in page and 'id="intervention-summary-table"' in page
    assert 'id="plasticity-summary-table"' in page
    figures = set(re.findall(r'<img alt="([^"]+)"', page))
    assert {
        "intervention_matrix.png",
        "learning_curves.png",
        "reward_per_window.png",
        "frontier.png",
    } <= figures
    assert HOSTILE not in page and only_figure_images(page)
    traces = embedded_traces(page)
    nodeids = re.findall(r'<tr id="item-(\d+)" data-nodeid="([^"]+)"', page)
    assert len(traces) == len(nodeids) == 9 + 3  # PAST items, then one per other protocol
    for index, nodeid in nodeids:
        for protocol, (other, events) in PROTOCOL_TRACES.items():
            if html.unescape(nodeid) == other:
                assert traces[index] == events, protocol


def chromium(tmp_path: Path, page: Path, fragment: str = "") -> str:
    """The live DOM of ``page`` in a 1280 px wide headless Chromium window."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium); "
            "CI installs it and this test needs a real browser"
        )
    command = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        "--window-size=1280,900",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--dump-dom",
        page.as_uri() + fragment,
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired:
        pytest.fail("chromium --dump-dom did not finish within 90 s")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


# Added to a copy of the page by the test only: measures the laid-out page in the browser and
# writes what it found into the DOM that --dump-dom prints.
MEASURE = """<script>
(function () {
  var out = {page: document.documentElement.scrollWidth, window: window.innerWidth, tables: {}};
  document.querySelectorAll("section.protocol").forEach(function (section) {
    var first = section.querySelector(".table-wrap");
    out.tables[section.id] = [first.scrollWidth, first.clientWidth];
  });
  var pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script></body>"""


@pytest.mark.parametrize("n", [1, 2, 8])
def test_the_page_fits_1280_px_and_each_protocol_viewer_opens_its_trace(tmp_path: Path, n: int) -> None:
    run_dir = make_all_protocols_run(tmp_path, n)
    page = write_html(load_run(run_dir), tmp_path / "report.html", standalone_registry())
    measured = tmp_path / "measured.html"
    measured.write_text(page.read_text().replace("</body>", MEASURE, 1))
    dom = chromium(tmp_path, measured)
    found = json.loads(html.unescape(re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S).group(1)))
    assert found["window"] == 1280
    assert found["page"] <= 1280, found  # no horizontal scrolling of the page
    # Each protocol's summary table fits its box: it does not scroll sideways either.
    assert sorted(found["tables"]) == [
        f"protocol-{p}" for p in ("intervention", "past", "plasticity", "stream")
    ]
    for section, (scroll, client) in found["tables"].items():
        assert scroll <= client, (section, scroll, client)
    if n != 2:
        return
    # The viewer of each protocol renders that protocol's item (the hash opens it on load).
    for index, nodeid in re.findall(r'<tr id="item-(\d+)" data-nodeid="([^"]+)"', page.read_text())[-3:]:
        protocol = next(p for p, (other, _) in PROTOCOL_TRACES.items() if other == html.unescape(nodeid))
        dom = chromium(tmp_path, page, f"#item-{index}")
        viewer = dom[dom.index(f'id="trace-view-{protocol}"') :]
        viewer = viewer[: viewer.index("</section>")]
        assert f'data-shown="{index}"' in viewer
        assert EVENT_TEXT[protocol] in html.unescape(viewer), protocol
        assert "<img src=x" not in dom


def test_the_page_says_what_the_cis_are_over_as_the_terminal_does(tmp_path: Path) -> None:
    from pytest_pastbench.results.render.table import config_notes
    from tests.family_samples import scored_record

    records = [
        scored_record("update.fact", f"ep{i:02d}", arm, score, group=f"g{i % 3}")
        for i in range(6)
        for arm, score in (("on", 0.5 + i / 20), ("off", 0.4))
    ]
    summary = summarize(records, {"id": "ci"}, seed=0)
    run_dir = write_run(tmp_path, "ci", {"id": "ci"}, records, {}, summary, build_comparison(summary))
    page = html.unescape(render_html(load_run(run_dir), standalone_registry(), draw=False))
    [terminal_note] = [n for n in config_notes(summary["configs"][0]) if n.startswith("95% CIs")]
    assert terminal_note == "95% CIs: paired bootstrap over 3 scenario groups."
    assert terminal_note in page  # the page said "over episodes" while the terminal said groups
    assert "CI over episodes" not in page


def config_table(config: dict[str, Any]) -> str:
    """PAST's section of the page for one config, from its own template; line-break hints dropped."""
    from pytest_pastbench.protocols.past.html_section import past_section
    from pytest_pastbench.results.render.html_kit import render_template

    section = past_section({"configs": [config]})
    return str(render_template(section.template, dict(section.context))).replace("<wbr>", "")


def test_a_family_whose_delta_ci_lies_below_zero_says_memory_hurt_here() -> None:

    base = {"capability": "update", "n_episodes": 4, "s_on": 0.2, "s_off": 0.5}
    config = {
        "label": "hermes@m",
        "families": {
            "update.stale": {**base, "delta": -0.3, "delta_ci": [-0.4, -0.2]},
            "update.noisy": {**base, "delta": -0.1, "delta_ci": [-0.3, 0.1]},
        },
        "capabilities": {},
        "overall": {},
    }
    rows = {
        m[1]: m[0]
        for m in re.findall(r'(<tr[^>]*><td class="label">([^<]+)</td>.*?</tr>)', config_table(config))
    }
    assert '<tr class="memory-hurt">' in rows["update.stale"]
    assert '<span class="hurt"' in rows["update.stale"] and "memory hurt here</span>" in rows["update.stale"]
    assert "memory hurt" not in rows["update.noisy"] and "memory-hurt" not in rows["update.noisy"]


def test_undecided_text_checks_are_marked_in_the_config_table() -> None:
    from pytest_pastbench.results.render.table import undecided_note

    entry = {"s_on": 0.5, "s_off": 0.1, "delta": 0.4, "n_episodes": 2, "undecided": 2}
    config = {
        "label": "hermes@m",
        "families": {
            "memory.f": {**entry, "capability": "memory"},
            "memory.g": {"s_on": 1.0, "capability": "memory"},
        },
        "capabilities": {"memory": entry},
        "overall": entry,
    }
    page = config_table(config)
    assert "memory.f ‡" in page and "memory.g ‡" not in page and "[overall] ‡" in page
    assert html.escape(undecided_note(2)) in page
    assert "‡" not in config_table({**config, "overall": {"s_on": 1.0}, "families": {}, "capabilities": {}})


def test_a_config_table_with_long_family_ids_and_causal_cis_fits_1280_px(tmp_path: Path) -> None:
    """With an ablation (Δ_causal has a CI) and 'memory hurt here' badges, family ids as long as
    the dataset's scrolled the table sideways at 1280 px and cut its last column ('pr')."""
    run_dir, _ = make_run(tmp_path)
    path = run_dir / "sequence_summary.json"
    summary = json.loads(path.read_text())
    config = summary["configs"][0]
    entry = {"capability": "update", "n_episodes": 8, "s_on": 0.5, "s_off": 0.7, "mech": 0.4}
    causal = {"delta_causal": 0.123, "delta_causal_ci": [-0.051, 0.197], "delta_c": 0.36}
    hurt = {"delta": -0.21, "delta_ci": [-0.35, -0.08]}
    components = {"mech_components": dict.fromkeys(("wp", "ra", "uc", "rh", "pr"), 0.25)}
    config["families"] = {
        f"update.SM{i:02d}_weak_trigger_preference_adoption_after_{i}": {
            **entry,
            **causal,
            **hurt,
            **components,
        }
        for i in range(4)
    }
    for scope in (*config["capabilities"].values(), config["overall"]):
        scope.update(causal)
    path.write_text(json.dumps(summary))
    page = write_html(load_run(run_dir), tmp_path / "report.html", standalone_registry(), draw=False)
    measured = tmp_path / "measured.html"
    measured.write_text(page.read_text().replace("</body>", MEASURE_ALL, 1))
    dom = chromium(tmp_path, measured)
    found = json.loads(html.unescape(re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S).group(1)))
    assert found["page"] <= 1280 and found["wraps"], found
    assert all(scroll <= client for _, scroll, client in found["wraps"]), found


# Every table box of the page: [table class or id, its scroll width, its box's width].
MEASURE_ALL = """<script>
(function () {
  var out = {page: document.documentElement.scrollWidth, wraps: []};
  document.querySelectorAll(".table-wrap").forEach(function (box) {
    var table = box.querySelector("table");
    out.wraps.push([table.id || table.className, box.scrollWidth, box.clientWidth]);
  });
  var pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script></body>"""
