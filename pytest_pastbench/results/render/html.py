"""One static, self-contained HTML page for a finished run (``pastbench html RUN``).

The page holds the summary tables, every item's scores and a trace viewer. It loads nothing from
the network (inline CSS and JS only, and a Content-Security-Policy that forbids any other source),
so it can be archived as a CI artifact or mailed and still open years later.

Everything that came from a run (labels, reasons, model output, tool results) is untrusted text:
it is HTML-escaped in markup, and traces are embedded as JSON inside
``<script type="application/json">`` with ``<``, ``>`` and ``&`` written as ``\\u003c`` etc., so no
string can close the script element. The viewer builds the trace with ``textContent`` only, and
parses an item's trace when it is opened, which keeps a page of hundreds of items quick to load.
"""

from __future__ import annotations

import argparse
import json
import sys
from html import escape
from pathlib import Path
from typing import Any

from pytest_pastbench.errors import RunLoadError
from pytest_pastbench.judge.base import describe_judge

from ..item_record import ItemRecord
from ..read import LoadedRun, load_run
from ..run_folder import trace_path
from .table import format_delta, format_number, format_violations

REPORT_FILE = "report.html"
_RUN_KEYS = (
    "id",
    "seed",
    "dataset_hash",
    "plugin_version",
    "judge",
    "models",
    "agent",
    "persistence",
    "trials",
    "started",
    "finished",
)
_SCOPE_HEADERS = (
    "scope",
    "capability",
    "n",
    "S_on",
    "S_off",
    "Δ [95% CI]",
    "Δ_c",
    "Δ_causal [95% CI]",
    "Mech",
    "σ✗ on/off/abl",
    "blocked",
)
_COMPONENTS = ("wp", "ra", "uc", "rh", "pr")

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;padding:1em 2em;
  max-width:1500px;color:#1d1d1f;background:#fff}
h1{font-size:1.5em;margin:.2em 0}h1 code{font-size:inherit}
h2{font-size:1.2em;margin:1.4em 0 .4em;border-bottom:1px solid #ddd}
figure{display:inline-block;margin:0 1em 1em 0}figure img{max-width:100%;height:auto}
table{border-collapse:collapse;margin:.4em 0 1em}th,td{border:1px solid #ddd;padding:3px 7px;
  text-align:left;vertical-align:top}th{background:#f3f3f6;position:sticky;top:0}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.agg td{font-weight:600;background:#fafafa}tr.blocked td{background:#fff1f0}
.pos{color:#11632a}.neg{color:#a4161a}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;
  font-size:12px}pre{white-space:pre-wrap;word-break:break-word;margin:.2em 0}
button.open{font:inherit;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;
  background:none;border:none;color:#0645ad;cursor:pointer;text-align:left;padding:0}
button.open:hover{text-decoration:underline}tr.current td{background:#fff8d6}
#item-filter{width:30em;padding:3px 6px;margin:.3em 0}
#trace-view{border:1px solid #ccc;border-radius:6px;padding:.6em 1em;min-height:3em;background:#fcfcfd}
.ev{margin:.35em 0;padding:.3em .6em;border-left:4px solid #ccc;background:#fff}
.ev.user{border-color:#3b82f6}.ev.assistant{border-color:#10b981}.ev.system{border-color:#9ca3af}
.ev.tool{border-color:#f59e0b}.ev.tool.failed{border-color:#ef4444;background:#fff5f5}
.ev.score{border-color:#8b5cf6}.ev.snapshot{border-color:#64748b}.sess{margin-top:1em;
  font-weight:600}.muted{color:#666}.badge{display:inline-block;padding:0 5px;border-radius:4px;
  font-size:11px;background:#eee;margin-left:4px}.badge.ok{background:#d1fae5}.badge.err{background:#fee2e2}
.scroll{max-height:28em;overflow:auto}
"""

# The trace viewer. Only textContent / createTextNode touch run data, never innerHTML.
_JS = r"""
(function () {
  "use strict";
  var view = document.getElementById("trace-view");
  var title = document.getElementById("trace-title");
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function show(value) {
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }
  function badge(ok) {
    return el("span", "badge " + (ok ? "ok" : "err"), ok ? "ok" : "failed");
  }
  function entriesTable(entries) {
    var cols = ["id", "kind", "name", "text", "tags", "entity", "scope", "expires", "superseded_by",
                "deleted", "created_session", "updated_session"];
    var table = el("table", "entries");
    var head = el("tr");
    cols.forEach(function (c) { head.appendChild(el("th", null, c)); });
    table.appendChild(head);
    (entries || []).forEach(function (entry) {
      var row = el("tr");
      cols.forEach(function (c) {
        var v = entry[c];
        row.appendChild(el("td", null, v === undefined || v === null ? "" : show(v)));
      });
      table.appendChild(row);
    });
    return table;
  }
  function renderEvent(ev) {
    var box;
    switch (ev.kind) {
      case "item":
        return el("div", "muted", "item " + ev.nodeid + " · arm " + ev.arm + " · trial " + ev.trial +
                  " · model " + ev.model + " · agent " + ev.agent);
      case "session":
        return el("div", "sess", "session " + ev.session + " · " + ev.stage + " · now " + ev.now);
      case "message":
        box = el("div", "ev msg " + (ev.role || ""));
        box.appendChild(el("strong", null, ev.role || "message"));
        box.appendChild(el("pre", null, show(ev.content)));
        return box;
      case "tool_call":
        box = el("div", "ev tool" + (ev.ok === false ? " failed" : ""));
        box.appendChild(el("strong", null, "tool " + ev.name));
        box.appendChild(badge(ev.ok !== false));
        box.appendChild(el("div", "muted", "arguments"));
        box.appendChild(el("pre", null, show(ev.arguments)));
        if (ev.error) {
          box.appendChild(el("div", "muted", "error"));
          box.appendChild(el("pre", null, show(ev.error)));
        }
        box.appendChild(el("div", "muted", "result"));
        box.appendChild(el("pre", null, show(ev.result)));
        return box;
      case "store_snapshot":
        box = el("details", "ev snapshot");
        box.appendChild(el("summary", null, "store snapshot " + (ev.phase || "") + " · " +
                           (ev.entries || []).length + " entries"));
        if ((ev.entries || []).length) {
          var wrap = el("div", "scroll");
          wrap.appendChild(entriesTable(ev.entries));
          box.appendChild(wrap);
        } else {
          box.appendChild(el("div", "muted", "(empty store)"));
        }
        return box;
      case "score":
        box = el("div", "ev score");
        box.appendChild(el("strong", null,
                           "score s=" + ev.s + " c=" + ev.c + " r=" + ev.r + " σ=" + ev.sigma));
        if (ev.reason) box.appendChild(el("div", null, "reason: " + ev.reason));
        (ev.checks || []).forEach(function (check) {
          var state = check.passed === null ? "unscored" : (check.passed ? "passed" : "FAILED");
          box.appendChild(el("div", null, "check " + check.type + " (w " + check.weight + "): " + state +
                             (check.detail ? " — " + check.detail : "")));
        });
        (ev.violations || []).forEach(function (v) { box.appendChild(el("div", "neg", "violation: " + v)); });
        return box;
      default:
        box = el("div", "ev");
        box.appendChild(el("pre", null, show(ev)));
        return box;
    }
  }
  function render(index) {
    var data = document.getElementById("trace-" + index);
    var row = document.getElementById("item-" + index);
    if (!data || !row) return;
    document.querySelectorAll("tr.current").forEach(function (r) { r.classList.remove("current"); });
    row.classList.add("current");
    title.textContent = row.getAttribute("data-nodeid");
    view.textContent = "";
    var events = JSON.parse(data.textContent);
    if (events === null) {
      view.appendChild(el("p", "muted", "No trace file for this item: " + data.getAttribute("data-path")));
      return;
    }
    var frag = document.createDocumentFragment();
    events.forEach(function (ev) { frag.appendChild(renderEvent(ev)); });
    view.appendChild(frag);
    view.setAttribute("data-shown", String(index));
  }
  function fromHash() {
    var match = /^#item-(\d+)$/.exec(window.location.hash);
    if (match) render(match[1]);
  }
  document.getElementById("items-table").addEventListener("click", function (event) {
    var button = event.target.closest("button.open");
    if (!button) return;
    var index = button.getAttribute("data-index");
    // A hash per item: the back button and shared links reopen the same trace.
    if (window.location.hash !== "#item-" + index) window.location.hash = "item-" + index;
    else render(index);
    document.getElementById("trace-viewer").scrollIntoView();
  });
  window.addEventListener("hashchange", fromHash);
  var filter = document.getElementById("item-filter");
  filter.addEventListener("input", function () {
    var needle = filter.value.toLowerCase();
    document.querySelectorAll("#items-table tbody tr").forEach(function (row) {
      row.hidden = needle !== "" && row.textContent.toLowerCase().indexOf(needle) < 0;
    });
  });
  fromHash();
})();
"""


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _json_for_script(value: Any) -> str:
    """JSON that cannot end or alter a ``<script>`` element: ``<``, ``>``, ``&`` as \\u escapes.

    These characters only occur inside JSON strings, where the escapes mean the same to JSON.parse.
    """
    text = json.dumps(value, ensure_ascii=False, sort_keys=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _delta(entry: dict[str, Any]) -> str:
    delta = entry.get("delta")
    text = format_delta(entry)
    number = isinstance(delta, int | float) and not isinstance(delta, bool)
    cls = "pos" if number and delta > 0 else "neg" if number and delta < 0 else ""
    return f'<td class="num {cls}">{_e(text)}</td>'


def _scope_cells(entry: dict[str, Any]) -> str:
    return "".join(
        [
            f'<td class="num">{_e(entry.get("n_episodes", 0))}</td>',
            f'<td class="num">{format_number(entry.get("s_on"))}</td>',
            f'<td class="num">{format_number(entry.get("s_off"))}</td>',
            _delta(entry),
            f'<td class="num">{format_number(entry.get("delta_c"), signed=True)}</td>',
            f'<td class="num">{_e(format_delta(entry, "delta_causal"))}</td>',
            f'<td class="num">{format_number(entry.get("mech"))}</td>',
            f'<td class="num">{_e(format_violations(entry, ("on", "off", "ablated")))}</td>',
            f'<td class="num">{_e(entry.get("infra_blocked", 0))}</td>',
        ]
    )


def _configs(run: LoadedRun) -> list[dict[str, Any]]:
    configs = run.summary.get("configs") if isinstance(run.summary, dict) else None
    return sorted(configs or [], key=lambda c: str(c.get("label", "")))


def _run_table(run: LoadedRun) -> str:
    # The results file's run block is the unrounded original; the summary's is a fallback.
    info = run.run or (run.summary.get("run") if isinstance(run.summary, dict) else None) or {}
    rows = []
    for key in _RUN_KEYS:
        if key in info:
            value = info[key]
            text = ", ".join(map(str, value)) if isinstance(value, list) else value
            text = describe_judge(value) if key == "judge" else text
            rows.append(f"<tr><th>{_e(key)}</th><td>{_e(text)}</td></tr>")
    return f'<table id="run-table">{"".join(rows)}</table>'


def _summary_table(configs: list[dict[str, Any]]) -> str:
    head = (
        "<tr><th>config</th><th>model</th><th>agent</th><th>mechanisms</th><th>n</th><th>S_on</th>"
        "<th>S_off</th><th>Δ [95% CI]</th><th>Δ_c</th><th>Δ_causal [95% CI]</th><th>Mech</th>"
        "<th>σ✗ on/off/abl</th><th>blocked</th><th>cost (USD)</th>"
        "<th>tokens</th></tr>"
    )
    rows = []
    for config in configs:
        overall = config.get("overall") or {}
        cost = overall.get("cost_usd")
        mechanisms = ", ".join(config.get("mechanisms") or []) or "—"
        rows.append(
            "<tr>"
            f"<td>{_e(config.get('label'))}</td><td>{_e(config.get('model'))}</td>"
            f"<td>{_e(config.get('agent'))}</td><td>{_e(mechanisms)}</td>"
            f"{_scope_cells(overall)}"
            f'<td class="num">{_e("—" if cost is None else f"{cost:.4f}")}</td>'
            f'<td class="num">{_e(overall.get("tokens", 0))}</td>'
            "</tr>"
        )
    if not rows:
        rows.append('<tr><td colspan="15" class="muted">this run has no configs</td></tr>')
    return f'<table id="summary-table"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _config_table(config: dict[str, Any]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in (*_SCOPE_HEADERS, *_COMPONENTS))
    rows = []
    families = sorted(
        (config.get("families") or {}).items(), key=lambda kv: (kv[1].get("capability", ""), kv[0])
    )
    for fid, entry in families:
        comps = entry.get("mech_components") or {}
        rows.append(
            f"<tr><td>{_e(fid)}</td><td>{_e(entry.get('capability'))}</td>{_scope_cells(entry)}"
            + "".join(f'<td class="num">{format_number(comps.get(c))}</td>' for c in _COMPONENTS)
            + "</tr>"
        )
    blanks = "<td></td>" * len(_COMPONENTS)
    for cap, entry in sorted((config.get("capabilities") or {}).items()):
        rows.append(
            f'<tr class="agg"><td>[{_e(cap)}]</td><td>{_e(cap)}</td>{_scope_cells(entry)}{blanks}</tr>'
        )
    overall = config.get("overall") or {}
    rows.append(f'<tr class="agg"><td>[overall]</td><td>all</td>{_scope_cells(overall)}{blanks}</tr>')
    return (
        f"<details open><summary><strong>{_e(config.get('label'))}</strong></summary>"
        f'<table class="scope-table"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
        "</details>"
    )


def _read_trace(path: Path) -> list[dict[str, Any]] | None:
    """The item's trace events, or None when it has no trace file (e.g. a blocked item)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    events: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            # Shown as is rather than dropped: a damaged trace is itself worth seeing.
            event = {"kind": "unreadable", "line": number, "text": line}
        events.append(
            event if isinstance(event, dict) else {"kind": "unreadable", "line": number, "text": line}
        )
    return events


def _sorted_records(run: LoadedRun) -> list[ItemRecord]:
    return sorted(run.records, key=lambda r: (r.config_label, r.nodeid))


def _items_table(records: list[ItemRecord]) -> str:
    head = (
        "<tr><th>#</th><th>nodeid</th><th>config</th><th>arm</th><th>trial</th><th>model</th>"
        "<th>score</th><th>Mech</th><th>reasons</th><th>infra_blocked</th></tr>"
    )
    rows = []
    for index, record in enumerate(records):
        mech = record.mech.mech if record.mech else None
        lost = {x.reason: f" −{x.loss:.2f}" for x in record.losses}  # the points each reason cost
        reasons = "".join(f"<div>{_e(reason)}{lost.get(reason, '')}</div>" for reason in record.reasons)
        row_class = ' class="blocked"' if record.infra_blocked else ""
        rows.append(
            f'<tr id="item-{index}" data-nodeid="{_e(record.nodeid)}"{row_class}>'
            f'<td class="num">{index}</td>'
            f'<td><button class="open" type="button" data-index="{index}">{_e(record.nodeid)}</button></td>'
            f"<td>{_e(record.config_label)}</td><td>{_e(record.arm)}</td>"
            f'<td class="num">{record.trial}</td><td>{_e(record.model)}</td>'
            f'<td class="num">{format_number(record.score)}</td><td class="num">{format_number(mech)}</td>'
            f"<td>{reasons}</td><td>{'yes' if record.infra_blocked else 'no'}</td></tr>"
        )
    return f'<table id="items-table"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _trace_data(run: LoadedRun, records: list[ItemRecord]) -> str:
    blocks = []
    for index, record in enumerate(records):
        path = trace_path(run.path, record.nodeid)
        relative = path.relative_to(run.path).as_posix()
        blocks.append(
            f'<script type="application/json" id="trace-{index}" data-path="{_e(relative)}">'
            f"{_json_for_script(_read_trace(path))}</script>"
        )
    return f'<div id="trace-data" hidden>{"".join(blocks)}</div>'


def _figures(run: LoadedRun) -> str:
    """The report figures (``pastbench plot``), drawn now, and the PNGs the run already holds in
    ``plots/`` (the protocols' own), embedded as data URIs so the page stays one file."""
    import base64
    import tempfile

    from pytest_pastbench.errors import PlotError

    from .plots import make_plots

    images: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as scratch:
        try:
            drawn = make_plots(run, Path(scratch)).written
        except PlotError:
            drawn = []
        images.update({path.name: path.read_bytes() for path in drawn})
    for path in sorted((run.path / "plots").glob("*.png")):
        images.setdefault(path.name, path.read_bytes())
    if not images:
        return '<p class="muted">no figures: the run has no Δ or Mech to draw</p>'
    return "".join(
        f'<figure><img alt="{_e(name)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'
        f"<figcaption>{_e(name)}</figcaption></figure>"
        for name, data in sorted(images.items())
    )


def render_html(run: LoadedRun) -> str:
    """The whole report page as one string (deterministic: the same run gives the same page)."""
    configs = _configs(run)
    records = _sorted_records(run)
    run_id = (run.run or {}).get("id") or run.path.name
    blocked = sum(1 for r in records if r.infra_blocked)
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            # Defence in depth: even a string that slipped through escaping could load nothing.
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
            f"<title>pastbench run {_e(run_id)}</title><style>{_CSS}</style></head><body>",
            f"<h1>pastbench run <code>{_e(run_id)}</code></h1>",
            f'<p class="muted">{len(configs)} config(s), {len(records)} item(s), {blocked} infra-blocked. '
            "Δ = S_on − S_off with a 95% paired-bootstrap CI over episodes; Mech = mechanism evidence "
            "(on arm).</p>",
            _run_table(run),
            '<h2 id="summary">Summary per config</h2>',
            _summary_table(configs),
            '<h2 id="figures">Figures</h2>',
            _figures(run),
            '<h2 id="scopes">Families and capabilities</h2>',
            "".join(_config_table(c) for c in configs) or '<p class="muted">no configs</p>',
            '<h2 id="items">Items</h2>',
            '<input id="item-filter" type="search" placeholder="filter items (nodeid, arm, model, reason…)">',
            '<p class="muted">Click a nodeid to show its trace.</p>',
            _items_table(records),
            '<section id="trace-viewer"><h2>Trace <span id="trace-title" class="muted"></span></h2>',
            '<div id="trace-view"><p class="muted">Click an item above to show its messages, tool calls '
            "and store snapshots.</p></div></section>",
            _trace_data(run, records),
            f"<script>{_JS}</script></body></html>\n",
        ]
    )


def write_html(run: LoadedRun, out: Path) -> Path:
    from ..run_folder import write_text_atomic

    write_text_atomic(out, render_html(run))
    return out


def _cli(args: argparse.Namespace) -> int:
    try:
        run = load_run(args.run)
    except RunLoadError as exc:
        print(f"pastbench html: {exc}", file=sys.stderr)
        return 2
    out = Path(args.output) if args.output else run.path / REPORT_FILE
    try:
        print(write_html(run, out))
    except OSError as exc:
        print(f"pastbench html: cannot write {out}: {exc}", file=sys.stderr)
        return 2
    return 0


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("html", help="write a self-contained HTML report of a run")
    parser.add_argument("run", help="a run folder (reports/<run id>)")
    parser.add_argument("-o", "--output", metavar="FILE", help="where to write (default: RUN/report.html)")
    parser.set_defaults(func=_cli)
