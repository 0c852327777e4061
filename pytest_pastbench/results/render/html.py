"""One static, self-contained HTML page for a finished run (``pastbench html RUN``).

The page has a section per protocol in the run (PAST, interventions, plasticity, streams), each
with its summary tables, its figures, its items and a trace viewer for them. It loads nothing from
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
from pathlib import Path
from typing import Any

from pytest_pastbench.errors import RunLoadError
from pytest_pastbench.judge.base import describe_judge

from ..item_record import ItemRecord
from ..read import LoadedRun, load_run
from ..run_folder import PROTOCOL_RESULTS_FILE, trace_path
from .html_assets import CSS, JS
from .html_kit import ci_cell, json_for_script
from .html_kit import esc as _e
from .html_protocols import SECTION_TABLES, TITLES
from .plots import FIGURES, PAST, make_plots, protocols_in
from .table import (
    HURT_NOTE,
    HURT_TEXT,
    ci_basis,
    config_notes,
    format_delta,
    format_number,
    format_violations,
    memory_hurt,
    row_marks,
)

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


def _delta(entry: dict[str, Any]) -> str:
    delta = entry.get("delta")
    number = isinstance(delta, int | float) and not isinstance(delta, bool)
    cell = ci_cell(
        format_delta(entry), "pos" if number and delta > 0 else "neg" if number and delta < 0 else ""
    )
    if memory_hurt(entry):
        # Δ's whole CI below 0: said in words, not only in red (issue 29).
        cell = (
            cell.removesuffix("</td>")
            + f' <span class="hurt" title="{_e(HURT_NOTE)}">{_e(HURT_TEXT)}</span></td>'
        )
    return cell


def _scope_cells(entry: dict[str, Any]) -> str:
    return "".join(
        [
            f'<td class="num">{_e(entry.get("n_episodes", 0))}</td>',
            f'<td class="num">{format_number(entry.get("s_on"))}</td>',
            f'<td class="num">{format_number(entry.get("s_off"))}</td>',
            _delta(entry),
            f'<td class="num">{format_number(entry.get("delta_c"), signed=True)}</td>',
            ci_cell(format_delta(entry, "delta_causal")),
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
            f'<td class="label">{_e(config.get("label"))}</td><td>{_e(config.get("model"))}</td>'
            f"<td>{_e(config.get('agent'))}</td><td>{_e(mechanisms)}</td>"
            f"{_scope_cells(overall)}"
            f'<td class="num">{_e("—" if cost is None else f"{cost:.4f}")}</td>'
            f'<td class="num">{_e(overall.get("tokens", 0))}</td>'
            "</tr>"
        )
    if not rows:
        rows.append('<tr><td colspan="15" class="muted">this run has no configs</td></tr>')
    return (
        f'<div class="table-wrap"><table id="summary-table"><thead>{head}</thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _config_table(config: dict[str, Any]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in (*_SCOPE_HEADERS, *_COMPONENTS))
    rows = []
    families = sorted(
        (config.get("families") or {}).items(), key=lambda kv: (kv[1].get("capability", ""), kv[0])
    )
    for fid, entry in families:
        comps = entry.get("mech_components") or {}
        row_class = ' class="memory-hurt"' if memory_hurt(entry) else ""
        rows.append(
            f'<tr{row_class}><td class="label">{_e(fid + row_marks(entry, hurt=False))}</td>'
            f"<td>{_e(entry.get('capability'))}</td>"
            + _scope_cells(entry)
            + "".join(f'<td class="num">{format_number(comps.get(c))}</td>' for c in _COMPONENTS)
            + "</tr>"
        )
    blanks = "<td></td>" * len(_COMPONENTS)
    for cap, entry in sorted((config.get("capabilities") or {}).items()):
        rows.append(
            f'<tr class="agg"><td>[{_e(cap)}]{_e(row_marks(entry))}</td><td>{_e(cap)}</td>'
            f"{_scope_cells(entry)}{blanks}</tr>"
        )
    overall = config.get("overall") or {}
    rows.append(
        f'<tr class="agg"><td>[overall]{_e(row_marks(overall))}</td><td>all</td>'
        f"{_scope_cells(overall)}{blanks}</tr>"
    )
    # The marks' footnotes († fallback rubrics, ‡ undecided text checks): the terminal's lines.
    marks = [line for line in config_notes(config) if line.startswith(("†", "‡"))]
    notes = "".join(f'<p class="muted note">{_e(line)}</p>' for line in marks)
    return (
        f"<details open><summary><strong>{_e(config.get('label'))}</strong></summary>"
        f'<div class="table-wrap"><table class="scope-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>{notes}"
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


def _item_row(index: int, nodeid: str, cells: str, blocked: bool) -> str:
    row_class = ' class="blocked"' if blocked else ""
    return (
        f'<tr id="item-{index}" data-nodeid="{_e(nodeid)}"{row_class}><td class="num">{index}</td>'
        f'<td><button class="open" type="button" data-index="{index}">{_e(nodeid)}</button></td>{cells}</tr>'
    )


def _items_table(protocol: str, head: str, rows: list[str]) -> str:
    return (
        f'<input class="item-filter" type="search" placeholder="filter items (nodeid, config, reason…)">'
        '<p class="muted">Click a nodeid to show its trace below.</p>'
        f'<div class="table-wrap"><table class="items-table" id="items-table-{protocol}">'
        f"<thead>{head}</thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _past_items(records: list[ItemRecord], start: int) -> str:
    head = (
        "<tr><th>#</th><th>nodeid</th><th>config</th><th>arm</th><th>trial</th><th>model</th>"
        "<th>score</th><th>Mech</th><th>reasons</th><th>infra_blocked</th></tr>"
    )
    rows = []
    for index, record in enumerate(records, start):
        mech = record.mech.mech if record.mech else None
        lost = {x.reason: f" −{x.loss:.2f}" for x in record.losses}  # the points each reason cost
        reasons = "".join(f"<div>{_e(reason)}{lost.get(reason, '')}</div>" for reason in record.reasons)
        cells = (
            f'<td class="label">{_e(record.config_label)}</td><td>{_e(record.arm)}</td>'
            f'<td class="num">{record.trial}</td><td>{_e(record.model)}</td>'
            f'<td class="num">{format_number(record.score)}</td><td class="num">{format_number(mech)}</td>'
            f"<td>{reasons}</td><td>{'yes' if record.infra_blocked else 'no'}</td>"
        )
        rows.append(_item_row(index, record.nodeid, cells, record.infra_blocked))
    return _items_table(PAST, head, rows)


def _protocol_items(protocol: str, records: list[dict[str, Any]], start: int) -> str:
    """Items of a §8 protocol: what every record carries (its headline is the protocol's own)."""
    head = (
        "<tr><th>#</th><th>nodeid</th><th>config</th><th>trial</th><th>result</th><th>infra_blocked</th></tr>"
    )
    rows = []
    for index, record in enumerate(records, start):
        config = record.get("config_label") or f"{record.get('agent')}@{record.get('model')}"
        blocked = bool(record.get("infra_blocked"))
        result = record.get("reason") if blocked else record.get("headline")
        cells = (
            f'<td class="label">{_e(config)}</td><td class="num">{_e(record.get("trial"))}</td>'
            f"<td>{_e(result)}</td><td>{'yes' if blocked else 'no'}</td>"
        )
        rows.append(_item_row(index, str(record.get("nodeid", "")), cells, blocked))
    return _items_table(protocol, head, rows)


def _trace_data(run: LoadedRun, nodeids: list[str]) -> str:
    blocks = []
    for index, nodeid in enumerate(nodeids):
        path = trace_path(run.path, nodeid)
        relative = path.relative_to(run.path).as_posix()
        blocks.append(
            f'<script type="application/json" id="trace-{index}" data-path="{_e(relative)}">'
            f"{json_for_script(_read_trace(path))}</script>"
        )
    return f'<div id="trace-data" hidden>{"".join(blocks)}</div>'


def _trace_viewer(protocol: str) -> str:
    return (
        f'<div class="trace-viewer" id="trace-viewer-{protocol}"><h3>Trace '
        '<span class="trace-title muted"></span></h3>'
        f'<div class="trace-view" id="trace-view-{protocol}"><p class="muted">Click an item above to show '
        "its messages, tool calls and what was scored.</p></div></div>"
    )


def _figure(name: str, data: bytes, caption: str) -> str:
    import base64

    return (
        f'<figure><img alt="{_e(name)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'
        f"<figcaption><code>{_e(name)}</code> {_e(caption)}</figcaption></figure>"
    )


def _figures(run: LoadedRun, draw: bool = True) -> dict[str, list[str]]:
    """Figures by protocol: the report figures (``pastbench plot``), drawn now, and the PNGs the
    run already holds in ``plots/`` (a protocol's own, e.g. ``plasticity_<family>.png``), embedded
    as data URIs so the page stays one file. PNGs of no protocol in the run go under ``""``.
    ``draw=False``: only what ``plots/`` holds (the end of a run has just drawn them there)."""
    import tempfile

    from pytest_pastbench.errors import PlotError

    captions = {spec.name: (spec.protocol, spec.caption) for spec in FIGURES}
    present = protocols_in(run.summary if isinstance(run.summary, dict) else {})
    images: dict[str, bytes] = {}
    if draw:
        with tempfile.TemporaryDirectory() as scratch:
            try:
                drawn = make_plots(run, Path(scratch)).written
            except PlotError:
                drawn = []
            images.update({path.name: path.read_bytes() for path in drawn})
    for path in sorted((run.path / "plots").glob("*.png")):
        images.setdefault(path.name, path.read_bytes())
    figures: dict[str, list[str]] = {}
    for name, data in sorted(images.items()):
        owner = next((p for p in sorted(present) if name.startswith(f"{p}_")), "")
        protocol, caption = captions.get(name, (owner, "drawn by the protocol during the run"))
        figures.setdefault(protocol if protocol in present else "", []).append(_figure(name, data, caption))
    return figures


def _ci_note(configs: list[dict[str, Any]]) -> str:
    """The CIs' basis as the terminal says it (table.ci_basis): one sentence when every config
    shares it, else one per config."""
    bases = {str(c.get("label")): ci_basis(c.get("overall") or {}) for c in configs}
    known = {label: basis for label, basis in bases.items() if basis}
    if not known:
        return "95% CIs: paired bootstrap"
    if len(set(known.values())) == 1:
        return f"95% CIs: {next(iter(known.values()))}"
    return "95% CIs: " + "; ".join(f"{label}: {basis}" for label, basis in sorted(known.items()))


def _past_tables(configs: list[dict[str, Any]]) -> str:
    return (
        f'<p class="muted">Δ = S_on − S_off. {_e(_ci_note(configs))}. Mech = mechanism '
        "evidence (on arm).</p>"
        + _summary_table(configs)
        + "<h3>Families and capabilities</h3>"
        + ("".join(_config_table(c) for c in configs) or '<p class="muted">no configs</p>')
    )


def render_html(run: LoadedRun, draw: bool = True) -> str:
    """The whole report page as one string (deterministic: the same run gives the same page).
    ``draw=False`` embeds the figures already in the run's ``plots/`` instead of drawing them."""
    summary = run.summary if isinstance(run.summary, dict) else {}
    configs = _configs(run)
    present = sorted(protocols_in(summary), key=lambda p: (p != PAST, p))
    records = _sorted_records(run)
    others = _protocol_records(run)
    figures = _figures(run, draw)
    run_id = (run.run or {}).get("id") or run.path.name
    nodeids: list[str] = []
    sections = []
    for protocol in present:
        if protocol == PAST:
            tables, items = _past_tables(configs), _past_items(records, len(nodeids))
            nodeids += [r.nodeid for r in records]
        else:
            section_records = others.get(protocol, [])
            tables = SECTION_TABLES[protocol](summary["protocols"][protocol])
            items = _protocol_items(protocol, section_records, len(nodeids))
            nodeids += [str(r.get("nodeid", "")) for r in section_records]
        shown = "".join(figures.get(protocol, []))
        shown = f'<div class="figures">{shown}</div>' if shown else '<p class="muted">no figures</p>'
        sections.append(
            f'<section class="protocol" id="protocol-{protocol}"><h2>{_e(TITLES[protocol])}</h2>'
            f"{tables}<h3>Figures</h3>{shown}<h3>Items</h3>{items}{_trace_viewer(protocol)}</section>"
        )
    if figures.get(""):
        sections.append(f'<section id="other-figures"><h2>Other figures</h2>{"".join(figures[""])}</section>')
    blocked = sum(1 for r in records if r.infra_blocked) + sum(
        1 for rs in others.values() for r in rs if r.get("infra_blocked")
    )
    nav = "".join(f'<a href="#protocol-{p}">{_e(TITLES[p].split(":")[0])}</a>' for p in present)
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            # Defence in depth: even a string that slipped through escaping could load nothing.
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
            f"<title>pastbench run {_e(run_id)}</title><style>{CSS}</style></head><body>",
            f"<h1>pastbench run <code>{_e(run_id)}</code></h1>",
            f'<p class="muted">{len(configs)} PAST config(s), {len(nodeids)} item(s), '
            f"{blocked} infra-blocked; protocols: {_e(', '.join(present) or 'none')}.</p>",
            f"<nav>{nav}</nav>",
            _run_table(run),
            "".join(sections) or '<p class="muted">this run has no results of any protocol</p>',
            _trace_data(run, nodeids),
            f"<script>{JS}</script></body></html>\n",
        ]
    )


def write_html(run: LoadedRun, out: Path, draw: bool = True) -> Path:
    from ..run_folder import write_text_atomic

    write_text_atomic(out, render_html(run, draw))
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
    except RunLoadError as exc:  # a damaged protocol_results.json
        print(f"pastbench html: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"pastbench html: cannot write {out}: {exc}", file=sys.stderr)
        return 2
    return 0


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("html", help="write a self-contained HTML report of a run")
    parser.add_argument("run", help="a run folder (reports/<run id>)")
    parser.add_argument("-o", "--output", metavar="FILE", help="where to write (default: RUN/report.html)")
    parser.set_defaults(func=_cli)
