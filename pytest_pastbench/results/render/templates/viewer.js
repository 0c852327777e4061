// The trace viewer: one per protocol section, each showing the items of its own table. It
// touches run data only through textContent, and parses an item's trace when it is opened.
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
