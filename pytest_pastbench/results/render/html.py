"""One static, self-contained HTML page for a finished run (``pastbench html RUN``).

The page has a section per protocol in the run (PAST, interventions, plasticity, streams, a
plugin's), each with its summary tables, its figures, its items and a trace viewer for them. Each
protocol gives its tables (``BenchProtocol.html_section``: its own Jinja2 template and values)
and its figures (``BenchProtocol.figures``); the page's frame is ``templates/page.html.j2`` and
its parts, one template per part. It loads nothing from the network (inline CSS and JS only, and
a Content-Security-Policy that forbids any other source), so it can be archived as a CI artifact
or mailed and still open years later.

Everything that came from a run (labels, reasons, model output, tool results) is untrusted text:
the templates are autoescaped, and traces are embedded as JSON inside
``<script type="application/json">`` with ``<``, ``>`` and ``&`` written as ``\\u003c`` etc., so no
string can close the script element. The viewer builds the trace with ``textContent`` only, and
parses an item's trace when it is opened, which keeps a page of hundreds of items quick to load.
"""

from __future__ import annotations

import base64
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_pastbench.errors import PlotError, RunLoadError
from pytest_pastbench.judge.base import describe_judge

from ..item_record import ItemRecord
from ..read import LoadedRun
from ..run_folder import PROTOCOL_RESULTS_FILE, trace_path, write_text_atomic
from .html_kit import TEMPLATES, json_for_script, render_template
from .plots import PAST, figure_specs, make_plots, protocols_in
from .table import format_number

if TYPE_CHECKING:
    from pytest_pastbench.protocols.registry import ProtocolRegistry

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
PAST_ITEM_HEADERS = ("config", "arm", "trial", "model", "score", "Mech", "reasons", "infra_blocked")
ITEM_HEADERS = ("config", "trial", "result", "infra_blocked")


def _run_rows(run: LoadedRun) -> list[tuple[str, Any]]:
    # The results file's run block is the unrounded original; the summary's is a fallback.
    info = run.run or (run.summary.get("run") if isinstance(run.summary, dict) else None) or {}
    rows = []
    for key in _RUN_KEYS:
        if key in info:
            value = info[key]
            text = ", ".join(map(str, value)) if isinstance(value, list) else value
            rows.append((key, describe_judge(value) if key == "judge" else text))
    return rows


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


def _protocol_records(run: LoadedRun) -> dict[str, list[dict[str, Any]]]:
    """The other protocols' plain item records (``protocol_results.json``), by node id."""
    path = run.path / PROTOCOL_RESULTS_FILE
    if not path.is_file():
        return {}
    try:
        document = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise RunLoadError(f"{path}: unreadable: {exc}") from None
    protocols = document.get("protocols") if isinstance(document, dict) else None
    return {
        name: sorted((r for r in records if isinstance(r, dict)), key=lambda r: str(r.get("nodeid", "")))
        for name, records in sorted((protocols or {}).items())
    }


def _past_items(records: list[ItemRecord], start: int) -> list[dict[str, Any]]:
    items = []
    for index, record in enumerate(records, start):
        mech = record.mech.mech if record.mech else None
        lost = {x.reason: f" −{x.loss:.2f}" for x in record.losses}  # the points each reason cost
        cells = [
            ("label", record.config_label),
            ("", record.arm),
            ("num", str(record.trial)),
            ("", record.model),
            ("num", format_number(record.score)),
            ("num", format_number(mech)),
            ("", [reason + lost.get(reason, "") for reason in record.reasons]),
            ("", "yes" if record.infra_blocked else "no"),
        ]
        blocked = record.infra_blocked
        items.append({"index": index, "nodeid": record.nodeid, "blocked": blocked, "cells": cells})
    return items


def _protocol_items(records: list[dict[str, Any]], start: int) -> list[dict[str, Any]]:
    """Items of another protocol: what every record carries (its headline is the protocol's own)."""
    items = []
    for index, record in enumerate(records, start):
        config = record.get("config_label") or f"{record.get('agent')}@{record.get('model')}"
        blocked = bool(record.get("infra_blocked"))
        result = record.get("reason") if blocked else record.get("headline")
        cells = [
            ("label", str(config)),
            ("num", str(record.get("trial"))),
            ("", "" if result is None else str(result)),
            ("", "yes" if blocked else "no"),
        ]
        items.append(
            {"index": index, "nodeid": str(record.get("nodeid", "")), "blocked": blocked, "cells": cells}
        )
    return items


def _figures(run: LoadedRun, registry: ProtocolRegistry, draw: bool) -> dict[str, list[dict[str, str]]]:
    """Figures by protocol: the report figures (``pastbench plot``), drawn now, and the PNGs the
    run already holds in ``plots/`` (a protocol's own, e.g. ``plasticity_<family>.png``), embedded
    as data URIs so the page stays one file. PNGs of no protocol in the run go under ``""``.
    ``draw=False``: only what ``plots/`` holds (the end of a run has just drawn them there)."""

    captions = {spec.name: (spec.protocol, spec.caption) for spec in figure_specs(registry)}
    present = protocols_in(run.summary if isinstance(run.summary, dict) else {}, registry)
    images: dict[str, bytes] = {}
    if draw:
        with tempfile.TemporaryDirectory() as scratch:
            try:
                drawn = make_plots(run, Path(scratch), registry).written
            except PlotError:
                drawn = []
            images.update({path.name: path.read_bytes() for path in drawn})
    for path in sorted((run.path / "plots").glob("*.png")):
        images.setdefault(path.name, path.read_bytes())
    figures: dict[str, list[dict[str, str]]] = {}
    for name, data in sorted(images.items()):
        owner = next((p for p in sorted(present) if name.startswith(f"{p}_")), "")
        protocol, caption = captions.get(name, (owner, "drawn by the protocol during the run"))
        figure = {"name": name, "data": base64.b64encode(data).decode(), "caption": caption}
        figures.setdefault(protocol if protocol in present else "", []).append(figure)
    return figures


def render_html(run: LoadedRun, registry: ProtocolRegistry, draw: bool = True) -> str:
    """The whole report page as one string (deterministic: the same run gives the same page).
    ``draw=False`` embeds the figures already in the run's ``plots/`` instead of drawing them.
    ``registry``: the run's protocols."""
    summary = run.summary if isinstance(run.summary, dict) else {}
    present = sorted(protocols_in(summary, registry), key=lambda p: (p != PAST, p))
    records = _sorted_records(run)
    others = _protocol_records(run)
    figures = _figures(run, registry, draw)
    nodeids: list[str] = []
    sections = []
    for name in present:
        protocol = registry[name]
        if name == PAST:
            items, headers = _past_items(records, len(nodeids)), PAST_ITEM_HEADERS
            nodeids += [r.nodeid for r in records]
        else:
            items, headers = _protocol_items(others.get(name, []), len(nodeids)), ITEM_HEADERS
            nodeids += [item["nodeid"] for item in items]
        tables = protocol.html_section(summary)
        sections.append(
            {
                "name": name,
                "title": protocol.title or name,
                "tables": render_template(tables.template, dict(tables.context)),
                "figures": figures.get(name, []),
                "item_headers": headers,
                "item_rows": items,
            }
        )
    blocked = sum(1 for r in records if r.infra_blocked) + sum(
        1 for rs in others.values() for r in rs if r.get("infra_blocked")
    )
    context = {
        "run_id": (run.run or {}).get("id") or run.path.name,
        "n_configs": len(summary.get("configs") or []),
        "n_items": len(nodeids),
        "blocked": blocked,
        "run_rows": _run_rows(run),
        "sections": sections,
        "other_figures": figures.get("", []),
        "traces": [_trace(run, nodeid) for nodeid in nodeids],
    }
    return str(render_template(TEMPLATES / "page.html.j2", context)) + "\n"


def _trace(run: LoadedRun, nodeid: str) -> dict[str, Any]:
    path = trace_path(run.path, nodeid)
    return {"path": path.relative_to(run.path).as_posix(), "json": json_for_script(_read_trace(path))}


def write_html(run: LoadedRun, out: Path, registry: ProtocolRegistry, draw: bool = True) -> Path:
    write_text_atomic(out, render_html(run, registry, draw))
    return out
