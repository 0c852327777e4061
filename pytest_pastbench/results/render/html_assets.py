"""The report page's inline style sheet and trace viewer script (``html.py`` assembles the page).

The style keeps the page within a 1280 px window: long labels and node ids wrap anywhere, a
CI wraps under its Δ, code wraps, and a table that still cannot fit scrolls inside its own box
rather than widening the page. The viewer touches run data only through ``textContent``.
"""

from __future__ import annotations

CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;padding:1em 1.5em;
  max-width:1500px;color:#1d1d1f;background:#fff;overflow-wrap:break-word}
h1{font-size:1.5em;margin:.2em 0}h1 code{font-size:inherit}
h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:2px solid #ccd}
h3{font-size:1.05em;margin:1.2em 0 .3em}
nav a{margin-right:1em}
div.figures{display:flex;flex-wrap:wrap;gap:1em}
figure{flex:1 1 560px;margin:0 0 1em;max-width:100%}figure img{max-width:100%;height:auto;
  border:1px solid #eee}figcaption{color:#555;font-size:13px;max-width:80em}
.table-wrap{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:13px}th,td{border:1px solid #ddd;
  padding:3px 6px;text-align:left;vertical-align:top}th{background:#f3f3f6}
td.label{min-width:12em;max-width:26em}th{word-break:normal}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.num.wrap{white-space:normal}.ci{display:inline-block;white-space:nowrap;color:#555}
tr.agg td{font-weight:600;background:#fafafa}tr.blocked td{background:#fff1f0}
.pos{color:#11632a}.neg{color:#a4161a}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;
  font-size:12px}pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.2em 0}
.hurt{display:inline-block;margin-left:.3em;padding:0 .3em;border:1px solid #a4161a;border-radius:3px;
color:#a4161a;font-size:.85em;white-space:nowrap}tr.memory-hurt td.label{border-left:3px solid #a4161a}
button.open{font:inherit;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;
  background:none;border:none;color:#0645ad;cursor:pointer;text-align:left;padding:0;
  overflow-wrap:anywhere;word-break:break-all}
button.open:hover{text-decoration:underline}tr.current td{background:#fff8d6}
.item-filter{width:30em;max-width:100%;padding:3px 6px;margin:.3em 0}
.trace-view{border:1px solid #ccc;border-radius:6px;padding:.6em 1em;min-height:3em;background:#fcfcfd}
.ev{margin:.35em 0;padding:.3em .6em;border-left:4px solid #ccc;background:#fff}
.ev.user{border-color:#3b82f6}.ev.assistant{border-color:#10b981}.ev.system{border-color:#9ca3af}
.ev.tool{border-color:#f59e0b}.ev.tool.failed,.ev.failed{border-color:#ef4444;background:#fff5f5}
.ev.score{border-color:#8b5cf6}.ev.snapshot{border-color:#64748b}.ev.event{border-color:#e11d48}
.sess{margin-top:1em;font-weight:600}.muted{color:#666}.badge{display:inline-block;padding:0 5px;
  border-radius:4px;font-size:11px;background:#eee;margin-left:4px}.badge.ok{background:#d1fae5}
.badge.err{background:#fee2e2}.scroll{max-height:28em;overflow:auto}
"""

# The trace viewer: one per protocol section, each showing the items of its own table.
JS = r"""
(function () {
  "use strict";
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
  function parts(ev, names) {
    return names.filter(function (n) { return ev[n] !== undefined && ev[n] !== null; })
      .map(function (n) { return n + " " + show(ev[n]); }).join(" · ");
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
  function entriesBox(summary, entries) {
    var box = el("details", "ev snapshot");
    box.appendChild(el("summary", null, summary + " · " + (entries || []).length + " entries"));
    if ((entries || []).length) {
      var wrap = el("div", "scroll");
      wrap.appendChild(entriesTable(entries));
      box.appendChild(wrap);
    } else {
      box.appendChild(el("div", "muted", "(empty store)"));
    }
    return box;
  }
  function checks(box, list) {
    (list || []).forEach(function (check) {
      var state = check.passed === null ? "unscored" : (check.passed ? "passed" : "FAILED");
      box.appendChild(el("div", null, "check " + check.type + " (w " + check.weight + "): " + state +
                         (check.detail ? " — " + check.detail : "")));
    });
  }
  function details(summary, value) {
    var box = el("details", "ev");
    box.appendChild(el("summary", null, summary));
    box.appendChild(el("pre", null, show(value)));
    return box;
  }
  function renderEvent(ev) {
    var box;
    switch (ev.kind) {
      case "item":
        return el("div", "muted", "item " + ev.nodeid + " · arm " + ev.arm + " · trial " + ev.trial +
                  " · model " + ev.model + " · agent " + ev.agent);
      case "lineage":
        return el("div", "muted", "lineage " + parts(ev, ["family", "arm", "checkpoints", "model", "agent"]));
      case "session":
        return el("div", "sess", "session " + ev.session + (ev.stage ? " · " + ev.stage : "") +
                  (ev.now ? " · now " + ev.now : ""));
      case "window":
        return el("div", "sess", "window " + ev.window + " · active rules " + (ev.active || []).join(", "));
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
        return entriesBox("store snapshot " + (ev.phase || ""), ev.entries);
      case "profile":
        return entriesBox("profile " + ev.profile + " (the store before the first session)", ev.entries);
      case "score":
        box = el("div", "ev score");
        box.appendChild(el("strong", null,
                           "score s=" + ev.s + " c=" + ev.c + " r=" + ev.r + " σ=" + ev.sigma));
        if (ev.reason) box.appendChild(el("div", null, "reason: " + ev.reason));
        checks(box, ev.checks);
        (ev.violations || []).forEach(function (v) { box.appendChild(el("div", "neg", "violation: " + v)); });
        return box;
      case "service":
        return el("div", "muted", "service " + ev.version);
      case "event":
        box = el("div", "ev event");
        box.appendChild(el("strong", null, "intervention " + ev.event + " (" + ev.event_kind + ")"));
        box.appendChild(el("div", null, parts(ev, ["version", "changed"])));
        return box;
      case "query_result":
        box = el("div", "ev score" + (ev.passed ? "" : " failed"));
        box.appendChild(el("strong", null, "query " + ev.query + " · " + ev.stage));
        box.appendChild(badge(ev.passed));
        checks(box, ev.checks);
        return box;
      case "fallback_result":
        box = el("div", "ev score");
        box.appendChild(el("strong", null, "fallback " + ev.fallback));
        box.appendChild(el("div", null, parts(ev, ["acknowledges", "no_unsupported_claim", "next_step"])));
        if (ev.scorer) box.appendChild(el("div", "muted", "scorer " + show(ev.scorer)));
        return box;
      case "propagation":
        return details("propagation graph", ev);
      case "ticket":
        box = el("div", "ev" + (ev.score >= 100 ? "" : " failed"));
        box.appendChild(el("strong", null,
                           ev.phase + " " + ev.case + " ticket " + ev.id + ": score " + ev.score));
        box.appendChild(el("div", null, "expected " + show(ev.expected) + " · answer " + show(ev.answer)));
        if (ev.reply) box.appendChild(el("pre", null, show(ev.reply)));
        return box;
      case "episode":
        box = el("div", "ev" + (ev.score > 0 ? "" : " failed"));
        box.appendChild(el("strong", null, "checkpoint " + ev.checkpoint + " · " + ev.split + " " + ev.id +
                           ": score " + ev.score));
        if ((ev.failures || []).length) {
          box.appendChild(el("div", "muted", "failures " + ev.failures.join(", ")));
        }
        return box;
      case "checkpoint":
        box = el("div", "ev score");
        box.appendChild(el("strong", null, "checkpoint " + ev.checkpoint + " · scores " + show(ev.scores)));
        box.appendChild(el("div", null, parts(ev, ["inventory", "edits", "learning_cost"])));
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
    if (!data || !row) return null;
    var section = row.closest("section.protocol");
    var view = section.querySelector(".trace-view");
    section.querySelectorAll("tr.current").forEach(function (r) { r.classList.remove("current"); });
    row.classList.add("current");
    section.querySelector(".trace-title").textContent = row.getAttribute("data-nodeid");
    view.textContent = "";
    var events = JSON.parse(data.textContent);
    if (events === null) {
      view.appendChild(el("p", "muted", "No trace file for this item: " + data.getAttribute("data-path")));
      return section;
    }
    var frag = document.createDocumentFragment();
    events.forEach(function (ev) { frag.appendChild(renderEvent(ev)); });
    view.appendChild(frag);
    view.setAttribute("data-shown", String(index));
    return section;
  }
  function fromHash() {
    var match = /^#item-(\d+)$/.exec(window.location.hash);
    if (match) render(match[1]);
  }
  document.querySelectorAll("table.items-table").forEach(function (table) {
    table.addEventListener("click", function (event) {
      var button = event.target.closest("button.open");
      if (!button) return;
      var index = button.getAttribute("data-index");
      // A hash per item: the back button and shared links reopen the same trace.
      if (window.location.hash !== "#item-" + index) window.location.hash = "item-" + index;
      else render(index);
      table.closest("section.protocol").querySelector(".trace-viewer").scrollIntoView();
    });
  });
  window.addEventListener("hashchange", fromHash);
  document.querySelectorAll("input.item-filter").forEach(function (filter) {
    var rows = filter.closest("section.protocol").querySelectorAll("table.items-table tbody tr");
    filter.addEventListener("input", function () {
      var needle = filter.value.toLowerCase();
      rows.forEach(function (row) {
        row.hidden = needle !== "" && row.textContent.toLowerCase().indexOf(needle) < 0;
      });
    });
  });
  fromHash();
})();
"""
